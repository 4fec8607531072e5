#pragma once

// The stores the properties run against, the same ports on the in-memory fake and on SQLite, with
// the few things a test needs beside the ports: a second relay instance on the same data, a
// listing of the outbox, and a way to let outbox claims age without sleeping.

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "app/ports/document_store.h"
#include "app/ports/inbox_store.h"
#include "app/ports/outbox_store.h"
#include "core/model.h"

namespace docgate {

class PropertyBackend {
 public:
  virtual ~PropertyBackend() = default;

  virtual DocumentStore& documents() = 0;
  virtual InboxStore& inbox() = 0;
  // Relay instance 0 is the store itself; instance 1 is another process on the same database
  // (claims of its own, the same claim TTL).
  virtual OutboxStore& relay(int instance) = 0;
  // Every outbox row, delivered or not, in sequence order. No port lists the outbox: this reads
  // the fake's tables or SQLite's kh_outbox directly.
  virtual std::vector<OutboxEvent> OutboxRows() = 0;
  // Makes every outbox claim `by` older, as if that much time had passed on the claim clock (the
  // fake's claim clock; SQLite's claims are on its own clock, so their claimed_until moves back).
  virtual void AgeClaims(std::chrono::milliseconds by) = 0;
};

// Each returns an empty database of its own (SQLite: a file in a fresh temporary directory,
// removed with the backend) whose outbox claims last `claim_ttl`.
std::unique_ptr<PropertyBackend> MakeFakeBackend(std::chrono::milliseconds claim_ttl);
std::unique_ptr<PropertyBackend> MakeSqliteBackend(std::chrono::milliseconds claim_ttl);

}  // namespace docgate
