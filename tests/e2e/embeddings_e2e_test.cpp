// End-to-end: the embeddings of approved versions (issue 17, ADR 0010), with docgate pointed at
// the test embeddings server (tests/support/embeddings_test_server.h), on SQLite and PostgreSQL.
// Every distinct chunk text is embedded exactly once, across shared paragraphs, re-approvals of
// unchanged text, duplicate approval clicks and redelivered events; a version is `done` only once
// its vectors are stored; a provider outage leaves versions pending, shows in /readyz and
// /metrics, and drains by itself; a text the provider refuses fails its version.

#include <gtest/gtest.h>

#include <latch>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "e2e/e2e_server.h"
#include "support/embeddings_test_server.h"

namespace docgate {
namespace {

using e2e::json;
using testing::EmbeddingsFault;
using testing::EmbeddingsTestServer;
using namespace std::chrono_literals;

using e2e::kAuthor;
using e2e::kReviewer;
const Actor kOtherReviewer{"dave", "", false, true, false};

// Paragraphs of the handbooks below: each is a chunk of its own with max_bytes 120.
const std::vector<std::string> kParagraphs = {
    "审核通过后，文档被切分、向量化并建立全文索引。",
    "Redis 锁是外层闸门，数据库的行锁才是真正的保证。",
    "重复点击提交只会得到一个 409，而不是第二次评审。",
    "The outbox row commits with the approval, so no event is lost.",
    "消息队列宕机时，事件留在 outbox 里，恢复后自动补发。",
    "Each chunk text is embedded once per model, whoever shares it.",
    "评审人不能评审自己写的版本。",
    "Search works for Chinese and mixed text alike.",
};

class EmbeddingsE2eTest : public e2e::ServerTest {
 protected:
  Config EmbeddingsConfig() {
    Config config = MakeConfig();
    config.consumers.chunker.max_bytes = 120;
    config.consumers.chunker.overlap_bytes = 0;
    config.embeddings.url = provider_.url();
    config.embeddings.model = provider_.options().model;
    config.embeddings.dimensions = provider_.options().dimensions;
    config.embeddings.batch = 8;
    config.embeddings.max_attempts = 1;
    config.embeddings.retry_initial = 20ms;
    config.embeddings.retry_max = 100ms;
    config.embeddings.breaker_initial = 300ms;
    config.embeddings.breaker_max = 300ms;
    return config;
  }
  void SetUp() override {
    ServerTest::SetUp();
    StartApp(EmbeddingsConfig());
  }

  DocumentService& service() { return app_->internals().service; }

  // Creates `content`, submits and approves it through the use cases; returns its id.
  DocumentId Approved(const std::string& title, const std::string& content) {
    auto doc = service().Create(kAuthor, title, content);
    EXPECT_TRUE(doc.ok());
    Approve(doc->id);
    return doc->id;
  }
  void Approve(DocumentId id) {
    auto submitted = service().Submit(kAuthor, id);
    ASSERT_TRUE(submitted.ok());
    ASSERT_TRUE(service().Approve(kReviewer, submitted->review.id, std::nullopt).ok());
  }
  json WaitFor(DocumentId id, const std::string& status) {
    return WaitForIngestStatus(std::to_string(id), status, 30s);
  }
  std::string Readiness() { return Get("/readyz", {}).json()["checks"]["embeddings"]; }
  // The value of the metric sample `name` (without labels) in /metrics; -1 when there is none.
  double Metric(const std::string& name) {
    const std::string exposition = Get("/metrics", {}).body();
    const std::string line_start = "\n" + name + " ";
    const auto at = exposition.find(line_start);
    if (at == std::string::npos) return -1;
    return std::stod(exposition.substr(at + line_start.size()));
  }

  // Distinct chunk texts of `contents` as the configured chunker splits them.
  std::set<std::string> DistinctChunks(const std::vector<std::string>& contents) {
    std::set<std::string> texts;
    for (const std::string& content : contents) {
      for (std::string& chunk : SplitIntoChunks(content, app_->config().consumers.chunker)) {
        texts.insert(std::move(chunk));
      }
    }
    return texts;
  }
  void ExpectEachEmbeddedOnce(const std::set<std::string>& texts) {
    const auto embedded = provider_.embedded_texts();
    EXPECT_EQ(embedded.size(), texts.size());
    for (const std::string& text : texts) {
      const auto found = embedded.find(text);
      EXPECT_TRUE(found != embedded.end() && found->second == 1) << text;
    }
    EXPECT_EQ(provider_.inputs_embedded(), texts.size());
  }

  EmbeddingsTestServer provider_;
};

class EmbeddingsProcessTest : public EmbeddingsE2eTest {};

TEST_P(EmbeddingsProcessTest, SharedParagraphsAreEmbeddedOnceAndVersionsAreDoneOnlyAfter) {
  EXPECT_EQ(Readiness(), "ok");
  const std::string handbook = kParagraphs[0] + "\n\n" + kParagraphs[1] + "\n\n" + kParagraphs[2];
  const std::string runbook = kParagraphs[3] + "\n\n" + kParagraphs[1];
  provider_.SetDelay(300ms);  // slow enough to see the versions pending
  const DocumentId first = Approved("评审手册", handbook);
  const DocumentId second = Approved("Runbook 运维手册", runbook);
  EXPECT_EQ(Get("/api/v1/documents/" + std::to_string(first), Alice()).json()["ingest_status"],
            "pending");
  provider_.SetDelay(0ms);
  WaitFor(first, "done");
  WaitFor(second, "done");
  ExpectEachEmbeddedOnce(DistinctChunks({handbook, runbook}));

  // Approved again with its text unchanged (renamed, and now written as text: the same
  // paragraphs make the same chunks): done without a request, its three vectors reused.
  const auto requests = provider_.requests();
  const double hits = Metric("docgate_embedding_cache_hits_total");
  EXPECT_GE(hits, 0) << "exposed";
  ASSERT_TRUE(service()
                  .Edit(kAuthor, first,
                        EditRequest{"评审手册（第二版）", std::nullopt, std::nullopt,
                                    DocumentFormat::kText})
                  .ok());
  Approve(first);
  WaitFor(first, "done");
  EXPECT_EQ(provider_.requests(), requests);
  ExpectEachEmbeddedOnce(DistinctChunks({handbook, runbook}));

  EXPECT_EQ(Metric("docgate_embedding_cache_hits_total"), hits + 3);
  EXPECT_EQ(Metric("docgate_embedding_inputs_total"), 4);
  EXPECT_EQ(Metric("docgate_embedding_backlog_texts"), 0);
  EXPECT_EQ(Metric("docgate_embedding_documents_done_total"), 3) << "two approvals, one again";
}

TEST_P(EmbeddingsProcessTest, AnOutageLeavesVersionsPendingVisiblyAndDrainsByItself) {
  provider_.FailNext(3, EmbeddingsFault::kUnavailable, 0);
  const std::string content = kParagraphs[4] + "\n\n" + kParagraphs[5];
  const DocumentId id = Approved("消息队列手册", content);

  const auto deadline = std::chrono::steady_clock::now() + 30s;
  bool degraded = false;
  while (!degraded && std::chrono::steady_clock::now() < deadline) {
    degraded = Readiness() == "degraded";
    if (!degraded) std::this_thread::sleep_for(5ms);
  }
  ASSERT_TRUE(degraded) << "the breaker opened";
  EXPECT_GT(Metric("docgate_embedding_backlog_texts"), 0);
  const json ready = Get("/readyz", {}).json();
  EXPECT_EQ(ready["status"], "degraded");
  EXPECT_EQ(Get("/api/v1/documents/" + std::to_string(id), Alice()).json()["ingest_status"],
            "pending");

  WaitFor(id, "done");
  ExpectEachEmbeddedOnce(DistinctChunks({content}));
  EXPECT_EQ(Readiness(), "ok");
  EXPECT_GE(Metric("docgate_embedding_unavailable_total"), 1);
}

TEST_P(EmbeddingsProcessTest, ATextTheProviderRefusesFailsItsVersionOnly) {
  provider_.RefuseInputsLongerThan(100);
  const std::string refused(110, 'x');
  const std::string fine_content = kParagraphs[6] + "\n\n" + kParagraphs[7];  // one chunk
  const DocumentId failing = Approved("Too long", kParagraphs[6] + "\n\n" + refused);
  const DocumentId fine = Approved("Fine", fine_content);
  WaitFor(failing, "failed");
  WaitFor(fine, "done");
  EXPECT_EQ(provider_.embedded_texts().count(refused), 0u);
  ExpectEachEmbeddedOnce({kParagraphs[6], fine_content});
  EXPECT_EQ(Metric("docgate_embedding_refused_inputs_total"), 1);
  EXPECT_EQ(Metric("docgate_embedding_documents_failed_total"), 1);
}

// Percent-encodes every byte of `text` (a query parameter).
std::string Encoded(const std::string& text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const unsigned char c : text) {
    out += '%';
    out += kHex[c >> 4];
    out += kHex[c & 0x0F];
  }
  return out;
}

TEST_P(EmbeddingsProcessTest, SearchRanksByMeaningFusesAndFallsBackToKeywordsWhenTheProviderFails) {
  const DocumentId handbook =
      Approved("评审手册", kParagraphs[0] + "\n\n" + kParagraphs[1] + "\n\n" + kParagraphs[2]);
  const DocumentId runbook = Approved("运维手册", kParagraphs[3] + "\n\n" + kParagraphs[4]);
  WaitFor(handbook, "done");
  WaitFor(runbook, "done");
  const std::string query = "/api/v1/search?q=" + Encoded("数据库的行锁才是保证");

  const auto hybrid = Get(query, Bob());
  ASSERT_EQ(hybrid.status(), 200u) << hybrid.body();
  EXPECT_EQ(hybrid.json()["mode"], "hybrid") << "the default with embeddings";
  ASSERT_FALSE(hybrid.json()["items"].empty());
  EXPECT_EQ(hybrid.json()["items"][0]["document_id"], std::to_string(handbook));
  EXPECT_EQ(hybrid.json()["items"][0]["snippet"], kParagraphs[1]);

  const auto semantic = Get(query + "&mode=semantic", Bob());
  ASSERT_EQ(semantic.status(), 200u) << semantic.body();
  EXPECT_EQ(semantic.json()["mode"], "semantic");
  ASSERT_EQ(semantic.json()["items"].size(), 2u) << "every document by its nearest chunk";
  EXPECT_EQ(semantic.json()["items"][0]["snippet"], kParagraphs[1]);
  EXPECT_EQ(semantic.json()["items"][0]["chunk_index"], 1);
  EXPECT_GT(semantic.json()["items"][0]["score"].get<double>(),
            semantic.json()["items"][1]["score"].get<double>());
  const auto chunks = Get(query + "&mode=semantic&group=chunk", Bob());
  ASSERT_EQ(chunks.status(), 200u) << chunks.body();
  ASSERT_EQ(chunks.json()["items"].size(), 5u) << "every approved chunk, nearest first";
  EXPECT_EQ(chunks.json()["items"][0], semantic.json()["items"][0]);
  EXPECT_FALSE(semantic.json().contains("fallback"));
  const auto keyword = Get(query + "&mode=keyword", Bob());
  ASSERT_EQ(keyword.status(), 200u) << keyword.body();
  EXPECT_EQ(keyword.json()["mode"], "keyword");

  // A provider that fails or answers garbage is never a searcher's 5xx: the keyword ranking,
  // said in `mode`. Each fault is answered to the first query that reaches the provider; until
  // then the query embedder's breaker, open since the previous fault, falls back at once.
  for (const EmbeddingsFault fault :
       {EmbeddingsFault::kUnavailable, EmbeddingsFault::kNaN, EmbeddingsFault::kWrongDimensions,
        EmbeddingsFault::kMalformedJson, EmbeddingsFault::kZeros}) {
    const auto requests = provider_.requests();
    provider_.FailNext(1, fault);
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    for (int i = 0; provider_.requests() == requests && std::chrono::steady_clock::now() < deadline;
         ++i) {
      const auto fallback = Get(query + (i % 2 == 0 ? "&mode=semantic" : ""), Bob());
      ASSERT_EQ(fallback.status(), 200u) << fallback.body();
      ASSERT_EQ(fallback.json()["mode"], "keyword") << "it says it fell back";
      ASSERT_EQ(fallback.json()["fallback"], "keyword");
      EXPECT_EQ(fallback.json()["items"], keyword.json()["items"]);
    }
    ASSERT_EQ(provider_.requests(), requests + 1) << "the fault was answered to a search";
  }
  // The provider answers again: search by meaning is back by itself.
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  std::string mode;
  while (mode != "hybrid" && std::chrono::steady_clock::now() < deadline) {
    mode = Get(query, Bob()).json()["mode"];
  }
  EXPECT_EQ(mode, "hybrid");
}

// Issue 34: a provider that hangs costs a search by meaning at most the query deadline, answered
// by keywords and said so, holds at most the query concurrency of requests at the provider, and
// holds up no other request: a plain read is answered while the provider still holds.
TEST_P(EmbeddingsProcessTest, AHangingProviderCostsASearchItsDeadlineAndHoldsUpNothingElse) {
  Config config = EmbeddingsConfig();
  config.embeddings.query_timeout = 200ms;
  config.embeddings.query_concurrency = 2;
  StartApp(config);
  const DocumentId handbook = Approved("评审手册", kParagraphs[0] + "\n\n" + kParagraphs[1]);
  WaitFor(handbook, "done");
  const std::string query = "/api/v1/search?q=" + Encoded("数据库的行锁才是保证");
  ASSERT_EQ(Get(query, Bob()).json()["mode"], "hybrid");

  provider_.Hold();
  constexpr int kSearches = 8;
  std::vector<e2e::HttpReply> searches(kSearches);
  e2e::HttpReply read;
  {
    std::vector<std::jthread> clients;
    for (int i = 0; i < kSearches; ++i) {
      clients.emplace_back([&, i] { searches[static_cast<std::size_t>(i)] = Get(query, Bob()); });
    }
    read = Get("/api/v1/documents/" + std::to_string(handbook), Bob());
  }
  EXPECT_EQ(read.status(), 200u) << read.body();
  EXPECT_GT(provider_.held(), 0) << "everything above was answered while the provider held";
  for (const e2e::HttpReply& search : searches) {
    ASSERT_EQ(search.status(), 200u) << search.body();
    EXPECT_EQ(search.json()["mode"], "keyword");
    EXPECT_EQ(search.json()["fallback"], "keyword");
    ASSERT_FALSE(search.json()["items"].empty());
    EXPECT_EQ(search.json()["items"][0]["document_id"], std::to_string(handbook));
  }
  EXPECT_LE(provider_.max_in_flight(), 2) << "at most the query concurrency at the provider";
  provider_.Release();

  // The provider answers again: search by meaning is back by itself.
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  std::string mode;
  while (mode != "hybrid" && std::chrono::steady_clock::now() < deadline) {
    mode = Get(query, Bob()).json()["mode"];
  }
  EXPECT_EQ(mode, "hybrid");
}

// The target: over more than 1,000 approvals with shared paragraphs, duplicate approval
// clicks, re-approvals of unchanged text, redelivered events and events replayed through the
// outbox, the provider embeds each distinct chunk text exactly once, and every approved version
// ends done.
TEST_P(EmbeddingsProcessTest, EmbeddedInputsEqualDistinctTextsOverAThousandApprovals) {
  std::mt19937 random(20261202);
  constexpr int kDocuments = 700;
  std::vector<DocumentId> ids;
  std::vector<std::string> contents;
  int approvals = 0;
  for (int i = 0; i < kDocuments; ++i) {
    // Two shared paragraphs and one of the document's own.
    const std::string content = kParagraphs[random() % kParagraphs.size()] + "\n\n" +
                                kParagraphs[random() % kParagraphs.size()] + "\n\n第 " +
                                std::to_string(i) + " 篇：本篇独有的段落。";
    auto doc = service().Create(kAuthor, "文档 " + std::to_string(i), content);
    ASSERT_TRUE(doc.ok());
    auto submitted = service().Submit(kAuthor, doc->id);
    ASSERT_TRUE(submitted.ok());
    // Two reviewers click approve at once: one approval.
    std::latch start(2);
    std::atomic<int> wins{0};
    std::vector<std::jthread> clicks;
    for (const Actor* reviewer : {&kReviewer, &kOtherReviewer}) {
      clicks.emplace_back([&, reviewer] {
        start.arrive_and_wait();
        if (service().Approve(*reviewer, submitted->review.id, std::nullopt).ok()) ++wins;
      });
    }
    clicks.clear();
    ASSERT_EQ(wins.load(), 1);
    ++approvals;
    ids.push_back(doc->id);
    contents.push_back(content);
  }
  // Re-approvals of unchanged text, every second document.
  for (std::size_t i = 0; i < ids.size(); i += 2) {
    ASSERT_TRUE(service()
                    .Edit(kAuthor, ids[i],
                          EditRequest{"重审 " + std::to_string(i), std::nullopt, std::nullopt,
                                      std::nullopt})
                    .ok());
    Approve(ids[i]);
    ++approvals;
  }
  ASSERT_GE(approvals, 1000);
  // The approval events, once the relay has delivered them all.
  const auto delivered_approvals = [&](std::ptrdiff_t at_least) {
    std::vector<OutboxEvent> events;
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    while (std::ssize(events) < at_least && std::chrono::steady_clock::now() < deadline) {
      events.clear();
      for (const OutboxEvent& event : EventsWhenDelivered(0)) {
        if (event.type == EventType::kApproved) events.push_back(event);
      }
      app_->internals().relay.Wake();
    }
    return events;
  };
  const std::vector<OutboxEvent> approval_events = delivered_approvals(approvals);
  ASSERT_EQ(std::ssize(approval_events), approvals);
  // Every approval event delivered again to the consumers (a redelivery), and every tenth put
  // back into the outbox (a replay, as `docgate events replay` and the reconciler do).
  ConsumerRunner& runner = app_->internals().pipeline.runner();
  int replayed = 0;
  for (std::size_t i = 0; i < approval_events.size(); ++i) {
    EXPECT_EQ(runner.Run(approval_events[i]).outcome, ConsumeOutcome::kDone);
    if (i % 10 == 0) {
      app_->internals().stores.outbox->Requeue(approval_events[i]);
      ++replayed;
    }
  }
  EXPECT_EQ(std::ssize(delivered_approvals(approvals + replayed)), approvals + replayed);
  for (const DocumentId id : ids) WaitFor(id, "done");
  ExpectEachEmbeddedOnce(DistinctChunks(contents));
}

INSTANTIATE_TEST_SUITE_P(Backends, EmbeddingsProcessTest, e2e::GatedBackends(), e2e::BackendName);

}  // namespace
}  // namespace docgate
