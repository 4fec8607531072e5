#pragma once

#include <memory>
#include <optional>
#include <string>

#include "adapters/mongo/mongo_config.h"
#include "app/ports/preview_store.h"

namespace docgate {

// PreviewStore in MongoDB: one document per document id in the collection
// kh_document_preview,
// {_id: <document id, int64>, version: <int32>, content: <string>, approved_at:
// <date>}.
//
// Project is one update_one with upsert of {_id: id, version: {$lt: version}}:
// a stored version
// >= the record's misses the filter, and the upsert's insert then fails on the
// duplicate _id (E11000), which Project reports as false (stale, nothing
// written). When a duplicate _id comes from another upsert that created the
// document first, the update is tried once more, so of racing projections the
// newest version is the one that stays. Its version guard makes a repeat a
// no-op.
//
// Thread-safe: every call checks a client out of a libmongoc client pool. Every
// call is bounded by the config's timeouts. Throws StorageUnavailable when no
// server can be reached or the server cannot serve right now (stepping down,
// shutting down, network error or timeout, authentication failure) and
// StorageError on anything else; messages never contain the URI's password.
class MongoPreviewStore final : public PreviewStore {
 public:
  // Makes the client pool, without connecting: a server that is down fails the calls, not this.
  // Throws std::invalid_argument when config.uri fails ValidateMongoUri or a timeout is not
  // positive, and StorageUnavailable when a mongodb+srv:// name cannot be resolved.
  explicit MongoPreviewStore(const MongoConfig& config);
  ~MongoPreviewStore() override;
  MongoPreviewStore(const MongoPreviewStore&) = delete;
  MongoPreviewStore& operator=(const MongoPreviewStore&) = delete;

  bool Project(const PreviewRecord& record) override;
  std::optional<PreviewRecord> Find(DocumentId id) override;
  // The ping command, within the timeouts; false on any failure.
  bool Ping() override;

  // The database the previews are kept in: the URI's, else "docgate".
  const std::string& database() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace docgate
