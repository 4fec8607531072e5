// People by name (shared/API.md v1.2 "Identity"): RestApi records each caller's display name as
// its token carries it, answers GET /api/v1/me and GET /api/v1/users/{id}, and writes the names
// of the people a document or review names beside their ids, also in replays; UserNames writes a
// caller once per name, not once per request.

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "app/user_names.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_user_directory.h"
#include "support/fake_backed_api.h"

namespace docgate {
namespace {

using nlohmann::json;
namespace http = boost::beast::http;

class PeopleByNameTest : public ::testing::Test {
 protected:
  std::string Token(const std::string& sub, std::vector<std::string> roles,
                    std::optional<std::string> name) {
    return "Bearer " + SignHs256Token(FakeBackedApi::kSecret,
                                      TokenClaims{sub, std::move(roles), std::move(name),
                                                  fakes_.clock.Now() + std::chrono::hours(1)},
                                      fakes_.clock.Now());
  }

  HttpResponse Call(HttpVerb verb, const std::string& target, const std::string& authorization,
                    const std::string& body = {}, const std::string& key = {}) {
    HttpRequest request{verb, target, 11};
    request.set(http::field::authorization, authorization);
    if (!key.empty()) request.set("Idempotency-Key", key);
    request.body() = body;
    request.prepare_payload();
    return fakes_.api.Handle(request);
  }

  json Json(const HttpResponse& response) { return json::parse(response.body()); }

  FakeBackedApi fakes_;
  const std::string author_ = Token("zhangsan", {"author"}, "张三");
  const std::string reviewer_ = Token("lisi", {"reviewer"}, "李四");
};

TEST_F(PeopleByNameTest, DocumentsAndReviewsNameTheirPeople) {
  const auto created =
      Call(HttpVerb::post, "/api/v1/documents", author_,
           json{{"title", "数据库备份规范"}, {"content", "每天凌晨全量备份。"}}.dump());
  ASSERT_EQ(created.result(), HttpStatus::created) << created.body();
  EXPECT_EQ(Json(created)["author_name"], "张三");
  const std::string id = Json(created)["id"];

  const auto submitted = Call(HttpVerb::post, "/api/v1/documents/" + id + "/submit", author_);
  ASSERT_EQ(submitted.result(), HttpStatus::ok) << submitted.body();
  EXPECT_EQ(Json(submitted)["review"]["submitted_by_name"], "张三");
  EXPECT_TRUE(Json(submitted)["review"]["decided_by_name"].is_null());
  const std::string review = Json(submitted)["review"]["id"];

  const auto queue = Json(Call(HttpVerb::get, "/api/v1/reviews?status=pending", reviewer_));
  ASSERT_EQ(queue["items"].size(), 1u);
  EXPECT_EQ(queue["items"][0]["submitted_by_name"], "张三");

  const auto approved = Call(HttpVerb::post, "/api/v1/reviews/" + review + "/approve", reviewer_,
                             "{}", "approve-once");
  ASSERT_EQ(approved.result(), HttpStatus::ok) << approved.body();
  EXPECT_EQ(Json(approved)["review"]["decided_by_name"], "李四");
  EXPECT_EQ(Json(approved)["document"]["author_name"], "张三");

  const auto history = Json(Call(HttpVerb::get, "/api/v1/documents/" + id + "/reviews", author_));
  EXPECT_EQ(history["items"][0]["decided_by_name"], "李四");
  EXPECT_EQ(Json(Call(HttpVerb::get, "/api/v1/reviews/" + review, author_))["submitted_by_name"],
            "张三");
  const auto listed = Json(Call(HttpVerb::get, "/api/v1/documents?author_id=zhangsan", author_));
  EXPECT_EQ(listed["items"][0]["author_name"], "张三");

  // 李四 is renamed at the identity provider: the next answers say so, the replay too.
  const std::string renamed = Token("lisi", {"reviewer"}, "李四（质量组）");
  EXPECT_EQ(Json(Call(HttpVerb::get, "/api/v1/me", renamed))["name"], "李四（质量组）");
  const auto replay = Call(HttpVerb::post, "/api/v1/reviews/" + review + "/approve", reviewer_,
                           "{}", "approve-once");
  EXPECT_EQ(replay["Idempotent-Replayed"], "true");
  EXPECT_EQ(Json(replay)["review"]["decided_by_name"], "李四")
      << "the replaying request's own token named 李四 again, the latest sighting";
  EXPECT_EQ(Json(Call(HttpVerb::get, "/api/v1/reviews/" + review, renamed))["decided_by_name"],
            "李四（质量组）");
}

TEST_F(PeopleByNameTest, MeAndUsersById) {
  const auto me = Call(HttpVerb::get, "/api/v1/me", Token("wangwu", {"reviewer", "admin"}, "王五"));
  ASSERT_EQ(me.result(), HttpStatus::ok);
  EXPECT_EQ(Json(me),
            json::parse(R"({"id": "wangwu", "name": "王五", "roles": ["reviewer", "admin"]})"));
  const auto anonymous = Call(HttpVerb::get, "/api/v1/me", Token("zhaoliu", {}, std::nullopt));
  EXPECT_EQ(Json(anonymous), json::parse(R"({"id": "zhaoliu", "name": null, "roles": []})"));

  const auto user = Call(HttpVerb::get, "/api/v1/users/wangwu", author_);
  ASSERT_EQ(user.result(), HttpStatus::ok);
  EXPECT_EQ(Json(user), json::parse(R"({"id": "wangwu", "name": "王五"})"));
  EXPECT_EQ(Json(Call(HttpVerb::get, "/api/v1/users/zhaoliu", author_)),
            json::parse(R"({"id": "zhaoliu", "name": null})"));
  // Ids are percent-encoded in the path: Chinese, and one holding '/'.
  Call(HttpVerb::get, "/api/v1/me", Token("张三丰", {}, "张三丰"));
  EXPECT_EQ(Json(Call(HttpVerb::get, "/api/v1/users/%E5%BC%A0%E4%B8%89%E4%B8%B0", author_))["name"],
            "张三丰");
  Call(HttpVerb::get, "/api/v1/me", Token("corp/zhangsan", {}, "张三"));
  EXPECT_EQ(Json(Call(HttpVerb::get, "/api/v1/users/corp%2Fzhangsan", author_))["id"],
            "corp/zhangsan");

  const auto unknown = Call(HttpVerb::get, "/api/v1/users/nobody", author_);
  EXPECT_EQ(unknown.result(), HttpStatus::not_found);
  EXPECT_EQ(Json(unknown)["code"], "NOT_FOUND");
  const auto too_long = Call(HttpVerb::get, "/api/v1/users/" + std::string(256, 'a'), author_);
  EXPECT_EQ(too_long.result(), HttpStatus::bad_request);
  EXPECT_EQ(Call(HttpVerb::get, "/api/v1/users/wangwu", "Bearer nope").result(),
            HttpStatus::unauthorized);
}

// A directory that counts its writes.
class CountingDirectory final : public UserDirectory {
 public:
  void Remember(const UserRecord& user) override {
    ++writes;
    inner.Remember(user);
  }
  std::optional<UserRecord> Find(const UserId& id) override { return inner.Find(id); }
  std::map<UserId, std::string> NamesOf(const std::vector<UserId>& ids) override {
    return inner.NamesOf(ids);
  }

  FakeUserDirectory inner{std::make_shared<FakeDatabase>()};
  int writes = 0;
};

TEST(UserNamesTest, WritesACallerOncePerNameNotOncePerRequest) {
  CountingDirectory directory;
  FakeClock clock;
  UserNames names(directory, clock);
  const Actor zhangsan{"zhangsan", "张三", true, false, false};
  for (int i = 0; i < 50; ++i) names.Saw(zhangsan);
  EXPECT_EQ(directory.writes, 1);
  names.Saw(Actor{"zhangsan", "张三丰", true, false, false});
  names.Saw(Actor{"zhangsan", "", true, false, false});
  EXPECT_EQ(directory.writes, 3);
  EXPECT_EQ(names.Find("zhangsan")->name, std::nullopt) << "the latest token named no one";
  EXPECT_TRUE(names.NamesOf({"zhangsan"}).empty());
}

}  // namespace
}  // namespace docgate
