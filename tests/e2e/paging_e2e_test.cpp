// A document's versions and reviews are paged like the other lists (API.md v1.2, "Lists are
// paged"), and the review queue's items carry the document's title. On every backend.

#include <set>
#include <string>
#include <vector>

#include "e2e/api_e2e_fixture.h"

namespace docgate::api_e2e {
namespace {

// 部署手册: the title the paged document starts with.
const std::string kPagedTitle = "\u90e8\u7f72\u624b\u518c";

// The items of every page of `target` (without a query) at `limit` a page, following `next`, and
// the size of each page.
struct AllPagesOf {
  std::vector<json> items;
  std::vector<std::size_t> sizes;
};

}  // namespace

class PagedHistoryTest : public ApiTest {
 protected:
  // A document with `versions` kept versions and as many (withdrawn) reviews, each version with a
  // Chinese title and text of its own. Returns its id.
  std::string DocumentWithHistory(int versions) {
    const std::string id = Create(Alice(), kPagedTitle);
    for (int v = 1; v <= versions; ++v) {
      if (v > 1) {
        // 第N版: the Nth edition.
        const json edit{{"title", kPagedTitle + " \u7b2c" + std::to_string(v) + "\u7248"},
                        {"content", "\u5185\u5bb9\u7b2c" + std::to_string(v) + "\u7248"}};
        const auto edited = Call(http::verb::put, "/api/v1/documents/" + id, Alice(), edit.dump());
        EXPECT_EQ(edited.status(), 200u) << edited.body();
      }
      reviews_.push_back(Submit(id, Alice()));  // a review keeps the version it was bound to
      const auto withdrawn = Post("/api/v1/documents/" + id + "/withdraw", Alice());
      EXPECT_EQ(withdrawn.status(), 200u) << withdrawn.body();
    }
    return id;
  }

  AllPagesOf Pages(const std::string& target, int limit) {
    AllPagesOf all;
    std::string query = "?limit=" + std::to_string(limit);
    for (int page = 0; page < 100; ++page) {
      const auto reply = Get(target + query, Bob());
      EXPECT_EQ(reply.status(), 200u) << reply.body();
      const json body = reply.json();
      all.sizes.push_back(body["items"].size());
      for (const json& item : body["items"]) all.items.push_back(item);
      if (body["next"].is_null()) break;
      query = "?limit=" + std::to_string(limit) + "&after=" + body["next"].get<std::string>();
    }
    return all;
  }

  void ExpectBadPagingIsRefused(const std::string& target) {
    for (const char* bad : {"?limit=0", "?limit=101", "?limit=x", "?limit=", "?after=abc",
                            "?after=0", "?after=-3", "?limit=10&after=07", "?page=2"}) {
      ExpectProblem(Get(target + bad, Bob()), 400, "VALIDATION");
    }
  }

  std::vector<std::string> reviews_;  // oldest first
};

TEST_P(PagedHistoryTest, VersionsArePagedNewestFirstWithoutDuplicates) {
  const std::string id = DocumentWithHistory(25);
  const std::string target = "/api/v1/documents/" + id + "/versions";
  const AllPagesOf paged = Pages(target, 10);
  EXPECT_EQ(paged.sizes, (std::vector<std::size_t>{10, 10, 5}));
  std::vector<int> versions;
  for (const json& line : paged.items) versions.push_back(line["version"]);
  std::vector<int> newest_first;
  for (int v = 25; v >= 1; --v) newest_first.push_back(v);
  EXPECT_EQ(versions, newest_first);
  EXPECT_EQ(paged.items.back()["title"], kPagedTitle);
  EXPECT_EQ(paged.items.front()["title"], kPagedTitle + " \u7b2c25\u7248");

  const json first = Get(target, Bob()).json();
  ASSERT_EQ(first["items"].size(), 20u) << "20 a page by default";
  EXPECT_EQ(first["items"][0]["version"], 25);
  EXPECT_EQ(first["next"], "6") << "the cursor of a version list is the last version shown";
  EXPECT_EQ(Get(target + "?limit=100", Bob()).json()["items"].size(), 25u);
  const json last = Get(target + "?limit=5&after=6", Bob()).json();
  EXPECT_EQ(last["items"].size(), 5u);
  EXPECT_TRUE(last["next"].is_null());
  const json beyond = Get(target + "?after=1", Bob()).json();
  EXPECT_TRUE(beyond["items"].empty());
  EXPECT_TRUE(beyond["next"].is_null());
  ExpectBadPagingIsRefused(target);
  ExpectProblem(Get("/api/v1/documents/9999999/versions?limit=10", Bob()), 404, "NOT_FOUND");
}

TEST_P(PagedHistoryTest, ReviewsOfADocumentArePagedNewestFirstWithoutDuplicates) {
  const std::string id = DocumentWithHistory(25);
  // 别的文档: another document, whose review is never listed with these.
  Submit(Create(Carol(), "\u522b\u7684\u6587\u6863"), Carol());
  const std::string target = "/api/v1/documents/" + id + "/reviews";
  const AllPagesOf paged = Pages(target, 10);
  EXPECT_EQ(paged.sizes, (std::vector<std::size_t>{10, 10, 5}));
  std::vector<std::string> ids;
  for (const json& review : paged.items) {
    ids.push_back(review["id"]);
    EXPECT_EQ(review["document_id"], id);
    EXPECT_EQ(review["status"], "withdrawn");
  }
  EXPECT_EQ(std::set<std::string>(ids.begin(), ids.end()).size(), 25u) << "no duplicates";
  EXPECT_EQ(ids, std::vector<std::string>(reviews_.rbegin(), reviews_.rend()));
  EXPECT_EQ(paged.items.front()["document_version"], 25);

  const json first = Get(target, Bob()).json();
  EXPECT_EQ(first["items"].size(), 20u) << "20 a page by default";
  EXPECT_EQ(first["next"], reviews_[5]);
  ExpectBadPagingIsRefused(target);
  ExpectProblem(Get("/api/v1/documents/9999999/reviews?limit=10", Bob()), 404, "NOT_FOUND");
}

TEST_P(PagedHistoryTest, QueueItemsCarryTheTitleOfTheirDocument) {
  // 入职指南, 部署手册, 备份与恢复
  const std::vector<std::string> titles{"\u5165\u804c\u6307\u5357", kPagedTitle,
                                        "\u5907\u4efd\u4e0e\u6062\u590d"};
  std::vector<std::string> documents;
  for (const std::string& title : titles) documents.push_back(Create(Alice(), title));
  // The first is renamed before it is submitted: the queue shows the title as it is now.
  const std::string renamed = titles[0] + "\uff08\u7b2c\u4e8c\u7248\uff09";  // （第二版）
  ASSERT_EQ(Call(http::verb::put, "/api/v1/documents/" + documents[0], Alice(),
                 json{{"title", renamed}}.dump())
                .status(),
            200u);
  for (const std::string& id : documents) Submit(id, Alice());

  const json queue = Get("/api/v1/reviews?status=pending", Bob()).json();
  ASSERT_EQ(queue["items"].size(), 3u);
  const std::vector<std::string> expected{renamed, titles[1], titles[2]};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(queue["items"][i]["document_id"], documents[i]);
    EXPECT_EQ(queue["items"][i]["title"], expected[i]);
    EXPECT_EQ(queue["items"][i]["title"],
              Get("/api/v1/documents/" + documents[i], Bob()).json()["title"]);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, PagedHistoryTest,
                         ::testing::Values(e2e::kSqlite, e2e::kPostgres), e2e::BackendName);

}  // namespace docgate::api_e2e
