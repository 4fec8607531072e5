#include "fakes/fake_idempotency_store.h"

#include <utility>

namespace docgate {
namespace {

// Completes `owner`'s in-flight record in `tables`; false when there is none.
bool CompleteIn(FakeTables& tables, const std::string& caller, const std::string& key,
                const std::string& owner, const std::string& response, TimePoint expires_at) {
  const auto found = tables.idempotency.find({caller, key});
  if (found == tables.idempotency.end() || found->second.owner != owner ||
      found->second.record.response) {
    return false;
  }
  found->second.record.response = response;
  found->second.record.expires_at = expires_at;
  return true;
}

}  // namespace

FakeIdempotencyStore::FakeIdempotencyStore(std::shared_ptr<FakeDatabase> database)
    : database_(std::move(database)) {}

std::optional<IdempotencyRecord> FakeIdempotencyStore::ReserveIdempotencyKey(
    const std::string& caller, const std::string& key, const std::string& fingerprint,
    const std::string& owner, TimePoint now, TimePoint lease_until) {
  return database_->Write([&](FakeTables& tables) -> std::optional<IdempotencyRecord> {
    auto& rows = tables.idempotency;
    const auto found = rows.find({caller, key});
    if (found != rows.end() && found->second.record.expires_at > now) return found->second.record;
    FakeTables::IdempotencyRow& row = rows[{caller, key}];
    row.record.fingerprint = fingerprint;
    row.record.response.reset();
    row.record.expires_at = lease_until;
    row.owner = owner;
    return std::nullopt;
  });
}

bool FakeIdempotencyStore::CompleteIdempotentRequest(const std::string& caller,
                                                     const std::string& key,
                                                     const std::string& owner,
                                                     const std::string& response,
                                                     TimePoint expires_at) {
  return database_->Write([&](FakeTables& tables) {
    return CompleteIn(tables, caller, key, owner, response, expires_at);
  });
}

void FakeIdempotencyStore::ReleaseIdempotencyKey(const std::string& caller, const std::string& key,
                                                 const std::string& owner) {
  database_->Write([&](FakeTables& tables) {
    const auto found = tables.idempotency.find({caller, key});
    if (found != tables.idempotency.end() && found->second.owner == owner &&
        !found->second.record.response) {
      tables.idempotency.erase(found);
    }
  });
}

int FakeIdempotencyStore::PruneIdempotencyKeys(TimePoint now, int limit) {
  return database_->Write([&](FakeTables& tables) {
    int pruned = 0;
    for (auto it = tables.idempotency.begin(); it != tables.idempotency.end() && pruned < limit;) {
      if (it->second.record.expires_at <= now) {
        it = tables.idempotency.erase(it);
        ++pruned;
      } else {
        ++it;
      }
    }
    return pruned;
  });
}

void FakeIdempotencyWriter::Complete(const std::string& caller, const std::string& key,
                                     const std::string& owner, const std::string& response,
                                     TimePoint expires_at) {
  if (!CompleteIn(tx_.Open(), caller, key, owner, response, expires_at)) {
    FakeViolation("idempotency key '" + key + "' of " + caller +
                  " is no longer reserved by this request");
  }
}

}  // namespace docgate
