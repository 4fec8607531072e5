// End-to-end: what the consumers make of approvals, on SQLite and PostgreSQL, in process and from
// the RabbitMQ queue. An approved document gets its preview and becomes searchable; the same event
// delivered again changes nothing; a consumer that keeps failing parks the event, which an
// operator replays; a `docgate worker` killed with SIGKILL mid-way leaves every document ingested
// once after a restart; 1,000 approved documents are all searchable with exactly the chunks the
// chunker yields.

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <pqxx/pqxx>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "adapters/amqp/amqp_connection.h"
#include "adapters/amqp/amqp_event_source.h"
#include "adapters/amqp/amqp_url.h"
#include "adapters/amqp/event_message.h"
#include "e2e/docgate_process.h"
#include "e2e/e2e_server.h"
#include "runtime/operator_commands.h"
#include "support/article_text.h"

namespace docgate {
namespace {

using e2e::Backend;
using e2e::json;
using e2e::kPostgresWithBroker;
using e2e::kSqliteWithBroker;
using namespace std::chrono_literals;

using e2e::kAuthor;
using e2e::kReviewer;

class ConsumersE2eTest : public e2e::ServerTest {
 protected:
  Config ConsumerConfig() {
    Config config = MakeConfig();
    config.consumers.chunker.max_bytes = 300;
    config.consumers.chunker.overlap_bytes = 40;
    config.consumers.runner.max_attempts = 3;
    config.relay.retry_delay = 20ms;
    config.relay.max_retry_delay = 100ms;
    config.consumers.worker.retry_delay = 50ms;
    config.consumers.worker.max_retry_delay = 200ms;
    return config;
  }
  void SetUp() override {
    ServerTest::SetUp();
    StartApp(ConsumerConfig());
  }

  // Creates, submits and approves a document through the use cases; returns its id.
  DocumentId Approved(const std::string& title, const std::string& content) {
    auto doc = app_->internals().service.Create(kAuthor, title, content);
    EXPECT_TRUE(doc.ok());
    auto submitted = app_->internals().service.Submit(kAuthor, doc->id);
    EXPECT_TRUE(submitted.ok());
    EXPECT_TRUE(
        app_->internals().service.Approve(kReviewer, submitted->review.id, std::nullopt).ok());
    return doc->id;
  }

  std::vector<std::string> ExpectedChunks(const std::string& content) {
    return SplitIntoChunks(content, app_->config().consumers.chunker);
  }

  // The approval event of `id`, as the in-process observer saw it.
  OutboxEvent ApprovalOf(DocumentId id) {
    for (const auto& event : EventsWhenDelivered(1)) {
      if (event.document_id == id && event.type == EventType::kApproved) return event;
    }
    ADD_FAILURE() << "no approval event of document " << id;
    return {};
  }

  // Makes every write of document `id`'s preview fail (a consumer that keeps failing), or lifts it.
  void PoisonPreviewOf(DocumentId id, bool poisoned) {
    const std::string create =
        "CREATE TRIGGER e2e_poison BEFORE INSERT ON kh_document_preview FOR EACH ROW WHEN "
        "(NEW.document_id = " +
        std::to_string(id) + ") ";
    if (GetParam().postgres) {
      pqxx::connection connection(pg_->url());
      pqxx::work tx(connection);
      if (poisoned) {
        tx.exec(
            "CREATE FUNCTION e2e_poison() RETURNS trigger LANGUAGE plpgsql AS "
            "$$ BEGIN RAISE EXCEPTION 'poisoned preview'; END $$");
        tx.exec(create + "EXECUTE FUNCTION e2e_poison()");
      } else {
        tx.exec("DROP TRIGGER e2e_poison ON kh_document_preview");
        tx.exec("DROP FUNCTION e2e_poison()");
      }
      tx.commit();
      return;
    }
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(SqlitePath(app_->config().database.url)->c_str(), &db), SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    const std::string sql = poisoned ? create + "BEGIN SELECT RAISE(ABORT, 'poisoned preview'); END"
                                     : "DROP TRIGGER e2e_poison";
    char* error = nullptr;
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK)
        << (error ? error : "");
    sqlite3_free(error);
    sqlite3_close(db);
  }

  // Messages in the broker's parking queue, through a source of the test's own (the worker's is
  // not thread-safe), opened once; a source that does not receive never consumes.
  std::int64_t ParkedCount() {
    if (!probe_) probe_ = std::make_unique<AmqpEventSource>(app_->config().amqp);
    return probe_->ParkedCount();
  }
  std::unique_ptr<AmqpEventSource> probe_;

  bool WaitUntil(const std::function<bool()>& condition, std::chrono::milliseconds limit = 15s) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!condition()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      app_->internals().relay.Wake();
      std::this_thread::sleep_for(10ms);
    }
    return true;
  }
};

class ConsumersInProcessTest : public ConsumersE2eTest {};
class ConsumersBrokerTest : public ConsumersE2eTest {};

TEST_P(ConsumersInProcessTest, AnApprovedDocumentGetsItsPreviewAndIsSearchable) {
  const std::string content = Article(7, "zqpreviewx");
  const auto created = Post("/api/v1/documents", Alice(),
                            json{{"title", "Travel policy"}, {"content", content}}.dump());
  ASSERT_EQ(created.status(), 201u);
  const std::string id = created.json()["id"];
  const std::string draft = Create(Alice(), "Draft zqdraftonlyx");
  const std::string review = Submit(id, Alice());
  ASSERT_EQ(Post("/api/v1/reviews/" + review + "/approve", Bob()).status(), 200u);

  const json doc = WaitForIngestStatus(id, "done");
  EXPECT_EQ(doc["approved_version"], 1);
  const auto preview = Get("/api/v1/documents/" + id + "/preview", Bob());
  ASSERT_EQ(preview.status(), 200u) << preview.body();
  EXPECT_EQ(preview.json()["version"], 1);
  EXPECT_EQ(preview.json()["content"], content);
  const auto chunks = app_->internals().stores.chunks->ListChunks(std::stoll(id));
  EXPECT_EQ(chunks, ExpectedChunks(content));
  EXPECT_GE(chunks.size(), 2u);

  const auto hits = Get("/api/v1/search?q=zqpreviewx", Bob());
  ASSERT_EQ(hits.status(), 200u) << hits.body();
  ASSERT_EQ(hits.json()["items"].size(), 1u) << "one item per document: " << hits.body();
  const json hit = hits.json()["items"][0];
  EXPECT_EQ(hit["document_id"], id);
  EXPECT_EQ(hit["version"], 1);
  EXPECT_EQ(hit["title"], "Travel policy");
  EXPECT_NE(hit["snippet"].get<std::string>().find("zqpreviewx"), std::string::npos) << hit;
  EXPECT_GT(hit["score"].get<double>(), 0);
  EXPECT_EQ(hit["section"], "");
  // By chunk: one item per matching chunk (the marker may sit in two, when an overlap repeats it).
  const auto by_chunk = Get("/api/v1/search?q=zqpreviewx&group=chunk", Bob());
  ASSERT_EQ(by_chunk.status(), 200u) << by_chunk.body();
  ASSERT_GE(by_chunk.json()["items"].size(), 1u) << by_chunk.body();
  ASSERT_LE(by_chunk.json()["items"].size(), 2u) << by_chunk.body();
  EXPECT_EQ(by_chunk.json()["items"][0]["chunk_index"], hit["chunk_index"]) << "the best chunk";
  const json chunk_items = by_chunk.json()["items"];
  for (const json& item : chunk_items) {
    const auto index = item["chunk_index"].get<std::size_t>();
    ASSERT_LT(index, chunks.size());
    EXPECT_NE(chunks[index].find("zqpreviewx"), std::string::npos) << index;
  }
  const auto several = Get("/api/v1/search?q=policy&limit=50&group=chunk", Bob());
  ASSERT_EQ(several.status(), 200u);
  EXPECT_LE(several.json()["items"].size(), chunks.size());
  ExpectProblem(Get("/api/v1/search?q=policy&group=section", Bob()), 400, "VALIDATION");

  EXPECT_TRUE(Get("/api/v1/search?q=zqdraftonlyx", Bob()).json()["items"].empty())
      << "a draft is not searchable";
  ExpectProblem(Get("/api/v1/documents/" + draft + "/preview", Bob()), 404, "NOT_FOUND");
  ExpectProblem(Get("/api/v1/search", Bob()), 400, "VALIDATION");
  ExpectProblem(Get("/api/v1/search?q=%20%20", Bob()), 400, "VALIDATION");
  ExpectProblem(Get("/api/v1/search?q=policy&limit=0", Bob()), 400, "VALIDATION");
  ExpectProblem(Get("/api/v1/search?q=policy&limit=51", Bob()), 400, "VALIDATION");
  ExpectProblem(Get("/api/v1/search?q=policy&sort=new", Bob()), 400, "VALIDATION");
  ExpectProblem(Get("/api/v1/search?q=policy", {}), 401, "UNAUTHENTICATED");
  for (const std::string hostile : {"%22", "%2A", "NEAR(a", "title%3Ax", "%27%3B--", "a%20OR%20b",
                                    "%F0%9F%98%80", "(((", "-x", "AND"}) {
    const auto reply = Get("/api/v1/search?q=" + hostile, Bob());
    EXPECT_EQ(reply.status(), 200u) << hostile << ": " << reply.body();
  }
}

// Issue 39: Markdown is chunked along its headings and a hit names its heading path; the same
// heading in a document written as text is only text.
TEST_P(ConsumersInProcessTest, AHitUnderAThirdLevelHeadingNamesItsSection) {
  const std::string markdown =
      "# 运维手册\n\n本手册说明值班流程。\n\n## 数据库\n\n数据库由平台组维护。\n\n"
      "### 备份\n\n每天凌晨全量备份数据库，保留三十天。zqsectionx\n\n## 监控\n\n告警发到值班群。";
  const auto created =
      Post("/api/v1/documents", Alice(), json{{"title", "运维手册"}, {"content", markdown}}.dump());
  ASSERT_EQ(created.status(), 201u) << created.body();
  EXPECT_EQ(created.json()["format"], "markdown") << "the default";
  const std::string id = created.json()["id"];
  const auto text = Post("/api/v1/documents", Alice(),
                         json{{"title", "随记"},
                              {"content", "### 备份\n\n备份也写在随记里。zqsectionx"},
                              {"format", "text"}}
                             .dump());
  ASSERT_EQ(text.status(), 201u) << text.body();
  EXPECT_EQ(text.json()["format"], "text");
  const std::string text_id = text.json()["id"];
  for (const std::string& doc : {id, text_id}) {
    ASSERT_EQ(Post("/api/v1/reviews/" + Submit(doc, Alice()) + "/approve", Bob()).status(), 200u);
    WaitForIngestStatus(doc, "done");
  }
  EXPECT_EQ(app_->internals().stores.chunks->ListChunks(std::stoll(id)),
            (std::vector<std::string>{"# 运维手册\n\n本手册说明值班流程。",
                                      "## 数据库\n\n数据库由平台组维护。",
                                      "### 备份\n\n每天凌晨全量备份数据库，保留三十天。zqsectionx",
                                      "## 监控\n\n告警发到值班群。"}))
      << "one section a chunk, though all of them fit in one";

  const auto hits = Get("/api/v1/search?q=zqsectionx&group=chunk", Bob());
  ASSERT_EQ(hits.status(), 200u) << hits.body();
  ASSERT_EQ(hits.json()["items"].size(), 2u) << hits.body();
  const json items = hits.json()["items"];  // a copy: json() answers a temporary
  for (const json& item : items) {
    EXPECT_EQ(item["section"], item["document_id"] == id ? "运维手册 > 数据库 > 备份" : "") << item;
  }
}

TEST_P(ConsumersInProcessTest, TheSameApprovalDeliveredFiveTimesLeavesOneSetOfChunks) {
  const std::string content = Article(11, "zqfivex");
  const DocumentId id = Approved("Five deliveries", content);
  WaitForIngestStatus(std::to_string(id), "done");
  const OutboxEvent approval = ApprovalOf(id);
  const auto hits_before = app_->internals().reader.Search("zqfivex", 50);
  ASSERT_TRUE(hits_before.ok());
  ASSERT_GE(hits_before->items.size(), 1u);
  // Requeue resets one row, so each redelivery is awaited, up to the relay marking it delivered
  // (a requeue before that mark would be undone by it), before the next.
  std::size_t seen = 1;
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(WaitUntil([&] { return app_->internals().stores.outbox->Backlog().pending == 0; }));
    app_->internals().stores.outbox->Requeue(approval);
    ASSERT_TRUE(WaitUntil([&] {
      std::size_t count = 0;
      for (const auto& event : consumer_.events()) count += event.event_id == approval.event_id;
      return count > seen;
    })) << "redelivery "
        << i;
    ++seen;
  }
  EXPECT_EQ(app_->internals().stores.chunks->ListChunks(id), ExpectedChunks(content));
  const auto hits = app_->internals().reader.Search("zqfivex", 50);
  ASSERT_TRUE(hits.ok());
  EXPECT_EQ(hits->items.size(), hits_before->items.size()) << "one set of chunks, as before";
}

TEST_P(ConsumersInProcessTest, APoisonedEventIsParkedAfterItsAttemptsAndAReplayDeliversIt) {
  auto doc =
      app_->internals().service.Create(kAuthor, "Poison", "A preview that cannot be written.");
  ASSERT_TRUE(doc.ok());
  PoisonPreviewOf(doc->id, true);
  auto submitted = app_->internals().service.Submit(kAuthor, doc->id);
  ASSERT_TRUE(
      app_->internals().service.Approve(kReviewer, submitted->review.id, std::nullopt).ok());

  ASSERT_TRUE(WaitUntil([&] { return !app_->internals().stores.inbox->ListParked(10).empty(); }));
  const auto parked = ListParkedEvents(app_->config(), 10);
  ASSERT_EQ(parked.size(), 1u);
  EXPECT_EQ(parked[0].consumer, "preview");
  EXPECT_EQ(parked[0].attempts, 3);
  EXPECT_NE(parked[0].last_error.find("poisoned preview"), std::string::npos)
      << parked[0].last_error;
  EXPECT_EQ(parked[0].event.document_id, doc->id);
  WaitForIngestStatus(std::to_string(doc->id), "done");  // the other consumer is unaffected
  EXPECT_EQ(app_->internals().pipeline.previews().Find(doc->id), std::nullopt);
  // The approved version is served all the same, from the database.
  const auto served = Get("/api/v1/documents/" + std::to_string(doc->id) + "/preview", Bob());
  ASSERT_EQ(served.status(), 200u) << served.body();
  EXPECT_EQ(served.json()["content"], "A preview that cannot be written.");

  PoisonPreviewOf(doc->id, false);
  const ReplayReport report = ReplayParkedEvents(app_->config(), std::nullopt);
  EXPECT_EQ(report.unparked, 1);
  EXPECT_EQ(report.requeued, 1);
  EXPECT_EQ(report.from_queue, 0);
  ASSERT_TRUE(
      WaitUntil([&] { return app_->internals().pipeline.previews().Find(doc->id).has_value(); }));
  EXPECT_EQ(app_->internals().pipeline.previews().Find(doc->id)->content,
            "A preview that cannot be written.");
  EXPECT_TRUE(app_->internals().stores.inbox->ListParked(10).empty());
}

// Approved documents are final, so a stale approval is one of an older version delivered late:
// the document is approved at version 2, then an approval event of version 1 (a new event_id, as
// if an old message surfaced) goes through the outbox and the relay like any other.
TEST_P(ConsumersInProcessTest, AStaleApprovalArrivingLateChangesNothing) {
  auto doc = app_->internals().service.Create(kAuthor, "Stale", "version one zqonex");
  auto first = app_->internals().service.Submit(kAuthor, doc->id);
  ASSERT_TRUE(app_->internals().service.Reject(kReviewer, first->review.id, "again").ok());
  ASSERT_TRUE(
      app_->internals()
          .service
          .Edit(kAuthor, doc->id, EditRequest{std::nullopt, "version two zqtwox", 1, std::nullopt})
          .ok());
  auto second = app_->internals().service.Submit(kAuthor, doc->id);
  ASSERT_TRUE(app_->internals().service.Approve(kReviewer, second->review.id, std::nullopt).ok());
  WaitForIngestStatus(std::to_string(doc->id), "done");
  OutboxEvent stale = ApprovalOf(doc->id);
  ASSERT_EQ(stale.version, 2);
  stale.event_id = "late-approval-of-version-1-" + std::to_string(doc->id);
  stale.version = 1;
  app_->internals().stores.outbox->Requeue(stale);
  ASSERT_TRUE(WaitUntil([&] {
    for (const auto& event : consumer_.events()) {
      if (event.event_id == stale.event_id) return true;
    }
    return false;
  }));
  EXPECT_EQ(app_->internals().reader.GetPreview(doc->id)->version, 2);
  EXPECT_EQ(app_->internals().reader.GetPreview(doc->id)->content, "version two zqtwox");
  EXPECT_EQ(app_->internals().stores.chunks->ListChunks(doc->id),
            std::vector<std::string>{"version two zqtwox"});
  EXPECT_TRUE(app_->internals().reader.Search("zqonex", 10)->items.empty());
  EXPECT_EQ(app_->internals().stores.documents->FindDocument(doc->id)->ingest_status,
            IngestStatus::kDone);
}

// The scale check: 1,000 approved documents, each searchable by its own word, with
// exactly the chunks the chunker yields for its approved content and no duplicate.
TEST_P(ConsumersInProcessTest, AThousandApprovedDocumentsAreAllSearchableWithExactlyTheirChunks) {
  constexpr int kDocuments = 1000;
  std::vector<DocumentId> ids;
  std::vector<std::string> contents;
  for (int i = 0; i < kDocuments; ++i) {
    contents.push_back(Article(static_cast<std::uint32_t>(1000 + i), Marker(i), 2 + i % 4));
    ids.push_back(Approved("Document " + std::to_string(i), contents.back()));
  }
  ASSERT_TRUE(WaitUntil(
      [&] {
        return app_->internals().stores.documents->FindDocument(ids.back())->ingest_status ==
                   IngestStatus::kDone &&
               app_->internals().stores.outbox->Backlog().pending == 0;
      },
      180s));
  std::size_t expected_total = 0;
  std::size_t actual_total = 0;
  for (int i = 0; i < kDocuments; ++i) {
    ASSERT_EQ(app_->internals().stores.documents->FindDocument(ids[i])->ingest_status,
              IngestStatus::kDone)
        << i;
    const auto expected = ExpectedChunks(contents[i]);
    const auto actual = app_->internals().stores.chunks->ListChunks(ids[i]);
    EXPECT_EQ(actual, expected) << "document " << i;
    expected_total += expected.size();
    actual_total += actual.size();
    const auto hits = app_->internals().reader.Search(Marker(i), 50);
    ASSERT_TRUE(hits.ok());
    ASSERT_GE(hits->items.size(), 1u) << Marker(i);
    for (const auto& hit : hits->items) EXPECT_EQ(hit.document_id, ids[i]) << Marker(i);
  }
  EXPECT_EQ(actual_total, expected_total);
  EXPECT_GT(expected_total, static_cast<std::size_t>(kDocuments));
  std::cout << "[ thousand ] " << kDocuments << " documents, " << actual_total << " chunks\n";
}

// Through the broker: `docgate serve` runs the queue worker itself (DOCGATE_CONSUMERS=on).
TEST_P(ConsumersBrokerTest, TheServesWorkerIngestsAndIgnoresDuplicateMessages) {
  const std::string content = Article(21, "zqbrokerx");
  const DocumentId id = Approved("Broker", content);
  WaitForIngestStatus(std::to_string(id), "done");
  EXPECT_EQ(app_->internals().stores.chunks->ListChunks(id), ExpectedChunks(content));
  EXPECT_TRUE(app_->internals().reader.GetPreview(id).ok());
  ASSERT_NE(app_->internals().pipeline.worker(), nullptr);
  const auto processed = app_->internals().pipeline.worker()->counters().processed.load();

  // One approval event five times, straight onto the exchange, then a body that is not an event.
  const auto deadline = [] { return AmqpConnection::Clock::now() + 10s; };
  AmqpConnection publisher(ParseAmqpUrl(e2e::RequiredEnv("DOCGATE_TEST_AMQP_URL"), 0), "",
                           deadline());
  const auto publish = [&](const std::string& body) {
    AmqpMessage message;
    message.routing_key = "document.approved";
    message.content_type = "application/json";
    message.body = body;
    publisher.Publish(TestExchange(), message, false, deadline());
  };
  OutboxEvent approval;
  approval.event_id = "broker-duplicate-test";
  approval.type = EventType::kApproved;
  approval.document_id = id;
  approval.version = 1;
  approval.review_id = 1;
  approval.actor_id = "bob";
  approval.occurred_at = clock_.Now();
  for (int i = 0; i < 5; ++i) publish(EncodeEventBody(approval));
  publish("{not json");
  ASSERT_TRUE(WaitUntil([&] {
    const auto& counters = app_->internals().pipeline.worker()->counters();
    return counters.processed.load() >= processed + 5 && counters.parked.load() >= 1;
  }));
  EXPECT_EQ(app_->internals().pipeline.worker()->counters().parked.load(), 1u);
  EXPECT_EQ(app_->internals().stores.chunks->ListChunks(id), ExpectedChunks(content));
  EXPECT_EQ(ParkedCount(), 1);
}

TEST_P(ConsumersBrokerTest, APoisonedEventIsParkedInTheParkingQueueAndReplayedFromIt) {
  auto doc = app_->internals().service.Create(kAuthor, "Poison", "Parked on the broker.");
  PoisonPreviewOf(doc->id, true);
  auto submitted = app_->internals().service.Submit(kAuthor, doc->id);
  ASSERT_TRUE(
      app_->internals().service.Approve(kReviewer, submitted->review.id, std::nullopt).ok());
  ASSERT_TRUE(WaitUntil([&] { return ParkedCount() == 1; }));
  const auto parked = app_->internals().stores.inbox->ListParked(10);
  ASSERT_EQ(parked.size(), 1u);
  EXPECT_EQ(parked[0].attempts, 3);
  EXPECT_GE(app_->internals().pipeline.worker()->counters().retried.load(), 2u);

  PoisonPreviewOf(doc->id, false);
  const ReplayReport report = ReplayParkedEvents(app_->config(), std::nullopt);
  EXPECT_EQ(report.unparked, 1);
  EXPECT_EQ(report.from_queue, 1);
  EXPECT_EQ(report.requeued, 0);
  ASSERT_TRUE(WaitUntil([&] { return app_->internals().reader.GetPreview(doc->id).ok(); }));
  EXPECT_EQ(ParkedCount(), 0);
}

// An approval whose message was lost after the relay had handed it to the broker (the consumers
// queue was deleted before anyone consumed it) stays pending until the reconciler re-enqueues it.
TEST_P(ConsumersBrokerTest, AnApprovalWhoseMessageWasLostIsIngestedAfterTheReconcilerRequeuesIt) {
  Config config = ConsumerConfig();
  config.consumers.in_serve = false;
  StartApp(config);
  const std::string content = Article(31, "zqlostx");
  const DocumentId id = Approved("Lost", content);
  ASSERT_TRUE(WaitUntil([&] { return app_->internals().stores.outbox->Backlog().pending == 0; }));
  {
    const auto deadline = [] { return AmqpConnection::Clock::now() + 10s; };
    AmqpConnection admin(ParseAmqpUrl(e2e::RequiredEnv("DOCGATE_TEST_AMQP_URL"), 0), "",
                         deadline());
    admin.DeleteQueue(config.amqp.queue, deadline());
  }
  EXPECT_EQ(app_->internals().pipeline.reconciler().RunOnce(), 0)
      << "delivered just now: not stuck yet";
  clock_.Advance(config.consumers.reconciler.stuck_after + 1s);
  EXPECT_EQ(app_->internals().pipeline.reconciler().RunOnce(), 1);
  EXPECT_EQ(app_->internals().pipeline.reconciler().RunOnce(), 0) << "re-enqueued: no longer stuck";

  StartApp(ConsumerConfig());  // consumers on; the queue is declared again before the relay runs
  WaitForIngestStatus(std::to_string(id), "done");
  EXPECT_EQ(app_->internals().stores.chunks->ListChunks(id), ExpectedChunks(content));
}

// `docgate serve` without consumers, and `docgate worker` processes (the real binary) doing the
// consuming; the first worker is killed with SIGKILL while it works through 150 approvals.
TEST_P(ConsumersBrokerTest, AWorkerKilledMidWayLeavesEveryDocumentIngestedOnceAfterARestart) {
  Config config = ConsumerConfig();
  config.consumers.in_serve = false;
  StartApp(config);
  const std::map<std::string, std::string> env = {
      {"DOCGATE_DATABASE_URL", config.database.url},
      {"DOCGATE_JWT_SECRET", config.auth.jwt_secret},
      {"DOCGATE_AMQP_URL", config.amqp.url},
      {"DOCGATE_AMQP_EXCHANGE", config.amqp.exchange},
      {"DOCGATE_AMQP_QUEUE", config.amqp.queue},
      {"DOCGATE_CHUNK_MAX_BYTES", std::to_string(config.consumers.chunker.max_bytes)},
      {"DOCGATE_CHUNK_OVERLAP_BYTES", std::to_string(config.consumers.chunker.overlap_bytes)},
      {"DOCGATE_LOG_LEVEL", "error"}};
  constexpr int kDocuments = 150;
  std::vector<DocumentId> ids;
  std::vector<std::string> contents;
  for (int i = 0; i < kDocuments; ++i) {
    contents.push_back(Article(static_cast<std::uint32_t>(500 + i), Marker(5000 + i), 6));
    ids.push_back(Approved("Killed " + std::to_string(i), contents.back()));
  }
  const auto done = [&] {
    int count = 0;
    for (DocumentId id : ids) {
      count += app_->internals().stores.documents->FindDocument(id)->ingest_status ==
               IngestStatus::kDone;
    }
    return count;
  };
  {
    e2e::DocgateProcess worker(env, "worker");
    ASSERT_TRUE(WaitUntil([&] { return done() >= 1; }, 30s));
    worker.Kill();
  }
  const int before_restart = done();
  std::cout << "[ sigkill ] " << before_restart << " of " << kDocuments
            << " ingested before the kill\n";
  e2e::DocgateProcess restarted(env, "worker");
  ASSERT_TRUE(WaitUntil([&] { return done() == kDocuments; }, 60s)) << done();
  for (int i = 0; i < kDocuments; ++i) {
    EXPECT_EQ(app_->internals().stores.chunks->ListChunks(ids[i]), ExpectedChunks(contents[i]))
        << i;
    EXPECT_TRUE(app_->internals().reader.GetPreview(ids[i]).ok()) << i;
  }
  EXPECT_EQ(restarted.Terminate(), 0) << "SIGTERM stops a worker cleanly";
}

INSTANTIATE_TEST_SUITE_P(Backends, ConsumersInProcessTest, e2e::GatedBackends(), e2e::BackendName);
INSTANTIATE_TEST_SUITE_P(Brokers, ConsumersBrokerTest,
                         ::testing::Values(kPostgresWithBroker, kSqliteWithBroker),
                         e2e::BackendName);

}  // namespace
}  // namespace docgate
