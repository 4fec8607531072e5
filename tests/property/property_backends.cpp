#include "property_backends.h"

#include <cstdlib>
#include <filesystem>
#include <string_view>
#include <utility>

#include "adapters/sqlite/sqlite_connection.h"
#include "core/error.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_outbox_store.h"
#include "fakes/fake_stores.h"
#include "runtime/open_stores.h"
#include "support/temp_dir.h"

namespace docgate {
namespace {

namespace fs = std::filesystem;

class FakeBackend final : public PropertyBackend {
 public:
  explicit FakeBackend(std::chrono::milliseconds claim_ttl)
      : fakes_(OpenFakeStores(claim_clock_, claim_ttl)),
        other_(std::make_unique<FakeOutboxStore>(fakes_.database)) {}

  DocumentStore& documents() override { return *fakes_.stores.documents; }
  InboxStore& inbox() override { return *fakes_.stores.inbox; }
  OutboxStore& relay(int instance) override {
    if (instance == 0) return *fakes_.stores.outbox;
    return *other_;
  }
  std::vector<OutboxEvent> OutboxRows() override { return fakes_.database->AllEvents(); }
  void AgeClaims(std::chrono::milliseconds by) override { claim_clock_.Advance(by); }

 private:
  FakeClock claim_clock_;
  FakeStores fakes_;
  std::unique_ptr<FakeOutboxStore> other_;  // a second relay instance on the same database
};

// Where the SQLite files go: $TMPDIR when set, else /dev/shm when there is one. The properties
// test the store's logic, not the disk: on a memory file system a commit's fsync costs nothing,
// which makes a SQLite case about as fast as a fake one.
fs::path TempRoot() {
  if (std::getenv("TMPDIR") == nullptr && fs::is_directory("/dev/shm")) return "/dev/shm";
  return fs::temp_directory_path();
}

constexpr std::string_view kListOutbox =
    "SELECT id, event_id, event_type, document_id, review_id, version, actor_id, occurred_at,"
    " reviewer_id, comment_id FROM kh_outbox ORDER BY id";
constexpr std::string_view kAgeClaims =
    "UPDATE kh_outbox SET claimed_until = claimed_until - ?1 WHERE claimed_until IS NOT NULL";

class SqliteBackend final : public PropertyBackend {
 public:
  explicit SqliteBackend(std::chrono::milliseconds claim_ttl)
      : store_(OpenSqliteStores(Config(dir_, claim_ttl))),
        other_(OpenSqliteStores(Config(dir_, claim_ttl))),
        raw_(Config(dir_, claim_ttl).path, std::chrono::seconds(5)) {}

  DocumentStore& documents() override { return *store_.documents; }
  InboxStore& inbox() override { return *store_.inbox; }
  OutboxStore& relay(int instance) override {
    if (instance == 0) return *store_.outbox;
    return *other_.outbox;
  }

  std::vector<OutboxEvent> OutboxRows() override {
    std::vector<OutboxEvent> rows;
    auto stmt = raw_.Prepare(kListOutbox);
    while (stmt.Step()) {
      OutboxEvent event;
      event.sequence = stmt.Int64(0);
      event.event_id = stmt.Text(1);
      const auto type = ParseEventType(stmt.Text(2));
      if (!type) throw StorageError("kh_outbox: unknown event_type " + stmt.Text(2));
      event.type = *type;
      event.document_id = stmt.Int64(3);
      event.review_id = stmt.Int64(4);
      event.version = stmt.Int32(5);
      event.actor_id = stmt.Text(6);
      event.occurred_at = stmt.Time(7);
      if (!stmt.IsNull(8)) event.reviewer_id = stmt.Text(8);
      if (!stmt.IsNull(9)) event.comment_id = stmt.Int64(9);
      rows.push_back(std::move(event));
    }
    return rows;
  }

  void AgeClaims(std::chrono::milliseconds by) override {
    raw_.Prepare(kAgeClaims).Bind(1, std::int64_t{by.count()}).Run();
  }

 private:
  static SqliteConfig Config(const TempDir& dir, std::chrono::milliseconds claim_ttl) {
    return SqliteConfig{.path = (dir.path() / "docgate.db").string(),
                        .pool_size = 2,
                        .outbox_claim_ttl = claim_ttl};
  }

  TempDir dir_{TempRoot()};  // first in, last out: the files outlive every connection
  Stores store_;
  Stores other_;  // another process on the same file: a session and outbox claims of its own
  SqliteConnection raw_;
};

}  // namespace

std::unique_ptr<PropertyBackend> MakeFakeBackend(std::chrono::milliseconds claim_ttl) {
  return std::make_unique<FakeBackend>(claim_ttl);
}

std::unique_ptr<PropertyBackend> MakeSqliteBackend(std::chrono::milliseconds claim_ttl) {
  return std::make_unique<SqliteBackend>(claim_ttl);
}

}  // namespace docgate
