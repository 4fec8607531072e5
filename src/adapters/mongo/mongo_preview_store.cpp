#include "adapters/mongo/mongo_preview_store.h"

#include <mongoc/mongoc.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "adapters/mongo/mongo_driver.h"
#include "adapters/mongo/mongo_uri.h"
#include "core/error.h"

namespace docgate {
namespace {

constexpr char kCollection[] = "kh_document_preview";
constexpr char kDefaultDatabase[] = "docgate";
constexpr char kAppName[] = "docgate";
constexpr std::uint32_t kDuplicateKey = 11000;

// Server errors that mean "cannot serve right now", as libmongoc's retryable-writes logic lists
// them: HostUnreachable, HostNotFound, NetworkTimeout, ShutdownInProgress, PrimarySteppedDown,
// SocketException, NotWritablePrimary, InterruptedAtShutdown, InterruptedDueToReplStateChange,
// NotPrimaryNoSecondaryOk, NotPrimaryOrSecondary.
constexpr std::uint32_t kUnavailableServerCodes[] = {6,     7,     89,    91,    189,  9001,
                                                     10107, 11600, 11602, 13435, 13436};
constexpr std::uint32_t kWriteConcernFailed = 64;  // wtimeout: the write's fate is unknown

bool IsUnavailable(const bson_error_t& error) {
  switch (error.domain) {
    case MONGOC_ERROR_STREAM:
    case MONGOC_ERROR_SERVER_SELECTION:
      return true;
    case MONGOC_ERROR_CLIENT:
      // As libpq's failed connections are, whatever the cause.
      return error.code == MONGOC_ERROR_CLIENT_AUTHENTICATE;
    case MONGOC_ERROR_SERVER:
      return std::ranges::find(kUnavailableServerCodes, error.code) !=
             std::end(kUnavailableServerCodes);
    case MONGOC_ERROR_WRITE_CONCERN:
      return error.code == kWriteConcernFailed;
    default:
      return false;
  }
}

class Bson {
 public:
  Bson() { bson_init(&value_); }
  ~Bson() { bson_destroy(&value_); }
  Bson(const Bson&) = delete;
  Bson& operator=(const Bson&) = delete;
  bson_t* get() { return &value_; }

 private:
  bson_t value_;
};

using UriPtr = std::unique_ptr<mongoc_uri_t, decltype(&mongoc_uri_destroy)>;
using PoolPtr = std::unique_ptr<mongoc_client_pool_t, decltype(&mongoc_client_pool_destroy)>;
using CollectionPtr = std::unique_ptr<mongoc_collection_t, decltype(&mongoc_collection_destroy)>;
using CursorPtr = std::unique_ptr<mongoc_cursor_t, decltype(&mongoc_cursor_destroy)>;

std::int32_t TimeoutMs(std::chrono::milliseconds timeout, std::string_view name) {
  if (timeout.count() <= 0 || timeout.count() > std::numeric_limits<std::int32_t>::max()) {
    throw std::invalid_argument("mongodb " + std::string(name) + " must be positive, not " +
                                std::to_string(timeout.count()) + " ms");
  }
  return static_cast<std::int32_t>(timeout.count());
}

void SetTimeout(mongoc_uri_t* uri, const char* option, std::int32_t ms) {
  if (!mongoc_uri_set_option_as_int32(uri, option, ms)) {
    throw std::invalid_argument(std::string("cannot set the MongoDB URI option ") + option);
  }
}

// A bson_append_* that failed: the document would exceed what BSON can hold.
void Require(bool appended, DocumentId id) {
  if (!appended) {
    throw StorageError("mongodb: project: the preview of document " + std::to_string(id) +
                       " is too large for BSON");
  }
}

}  // namespace

struct MongoPreviewStore::Impl {
  MongoDriver driver;  // first: outlives the pool
  std::string uri;     // for taking its password out of messages
  std::string database;
  PoolPtr pool{nullptr, &mongoc_client_pool_destroy};

  [[noreturn]] void Throw(std::string_view operation, const bson_error_t& error) const {
    const std::string message =
        "mongodb: " + std::string(operation) + ": " + WithoutPassword(error.message, uri) +
        " [domain " + std::to_string(error.domain) + ", code " + std::to_string(error.code) + "]";
    if (IsUnavailable(error)) throw StorageUnavailable(message);
    throw StorageError(message);
  }

  // A client checked out of the pool for one call.
  class Client {
   public:
    explicit Client(mongoc_client_pool_t* pool)
        : pool_(pool), client_(mongoc_client_pool_pop(pool)) {}
    ~Client() {
      if (client_ != nullptr) mongoc_client_pool_push(pool_, client_);
    }
    Client(const Client&) = delete;
    Client& operator=(const Client&) = delete;
    mongoc_client_t* get() const { return client_; }

   private:
    mongoc_client_pool_t* pool_;
    mongoc_client_t* client_;
  };

  CollectionPtr Collection(const Client& client, std::string_view operation) const {
    if (client.get() == nullptr) {
      throw StorageUnavailable("mongodb: " + std::string(operation) +
                               ": no pooled connection came free in time");
    }
    return CollectionPtr(mongoc_client_get_collection(client.get(), database.c_str(), kCollection),
                         &mongoc_collection_destroy);
  }
};

MongoPreviewStore::MongoPreviewStore(const MongoConfig& config) : impl_(std::make_unique<Impl>()) {
  if (auto problem = ValidateMongoUri(config.uri)) throw std::invalid_argument(*problem);
  const std::int32_t connect_ms = TimeoutMs(config.connect_timeout, "connect_timeout");
  const std::int32_t operation_ms = TimeoutMs(config.operation_timeout, "operation_timeout");
  impl_->uri = config.uri;

  bson_error_t error{};
  const UriPtr uri(mongoc_uri_new_with_error(config.uri.c_str(), &error), &mongoc_uri_destroy);
  if (!uri) throw std::invalid_argument(WithoutPassword(error.message, config.uri));
  SetTimeout(uri.get(), MONGOC_URI_CONNECTTIMEOUTMS, connect_ms);
  SetTimeout(uri.get(), MONGOC_URI_SERVERSELECTIONTIMEOUTMS, connect_ms);
  SetTimeout(uri.get(), MONGOC_URI_SOCKETTIMEOUTMS, operation_ms);
  SetTimeout(uri.get(), MONGOC_URI_WAITQUEUETIMEOUTMS, operation_ms);
  if (mongoc_uri_get_appname(uri.get()) == nullptr) mongoc_uri_set_appname(uri.get(), kAppName);
  const char* database = mongoc_uri_get_database(uri.get());
  impl_->database = database != nullptr && *database != '\0' ? database : kDefaultDatabase;

  impl_->pool.reset(mongoc_client_pool_new_with_error(uri.get(), &error));
  if (!impl_->pool) impl_->Throw("connect", error);
  // Version 2 reports server errors in their own domain with the server's code (E11000 included);
  // it must be set before the first client is checked out.
  mongoc_client_pool_set_error_api(impl_->pool.get(), MONGOC_ERROR_API_VERSION_2);
}

MongoPreviewStore::~MongoPreviewStore() = default;

const std::string& MongoPreviewStore::database() const { return impl_->database; }

bool MongoPreviewStore::Project(const PreviewRecord &record) {
  const DocumentId id = record.document_id;
  Bson filter;
  bson_t version_below;
  Require(BSON_APPEND_INT64(filter.get(), "_id", id), id);
  Require(BSON_APPEND_DOCUMENT_BEGIN(filter.get(), "version", &version_below), id);
  Require(BSON_APPEND_INT32(&version_below, "$lt", record.version), id);
  Require(bson_append_document_end(filter.get(), &version_below), id);

  Bson update;
  bson_t set;
  Require(BSON_APPEND_DOCUMENT_BEGIN(update.get(), "$set", &set), id);
  Require(BSON_APPEND_INT32(&set, "version", record.version), id);
  Require(record.content.size() <= static_cast<std::size_t>(std::numeric_limits<int>::max()), id);
  Require(bson_append_utf8(&set, "content", -1, record.content.data(),
                           static_cast<int>(record.content.size())),
          id);
  Require(BSON_APPEND_DATE_TIME(&set, "approved_at", record.approved_at.time_since_epoch().count()),
          id);
  Require(bson_append_document_end(update.get(), &set), id);

  Bson options;
  Require(BSON_APPEND_BOOL(options.get(), "upsert", true), id);

  const Impl::Client client(impl_->pool.get());
  const CollectionPtr collection = impl_->Collection(client, "project");
  // A duplicate _id on the first try may be another upsert that created the document first; on
  // the second the document existed when the filter was read, so its version was >= ours.
  for (int attempt = 1;; ++attempt) {
    bson_error_t error{};
    if (mongoc_collection_update_one(collection.get(), filter.get(), update.get(), options.get(),
                                     nullptr, &error)) {
      return true;
    }
    const bool duplicate = error.domain == MONGOC_ERROR_SERVER && error.code == kDuplicateKey;
    if (!duplicate) impl_->Throw("project", error);
    if (attempt == 2) return false;
  }
}

std::optional<PreviewRecord> MongoPreviewStore::Find(DocumentId id) {
  Bson filter;
  BSON_APPEND_INT64(filter.get(), "_id", id);
  Bson options;
  BSON_APPEND_INT64(options.get(), "limit", 1);

  const Impl::Client client(impl_->pool.get());
  const CollectionPtr collection = impl_->Collection(client, "find");
  const CursorPtr cursor(
      mongoc_collection_find_with_opts(collection.get(), filter.get(), options.get(), nullptr),
      &mongoc_cursor_destroy);
  const bson_t* document = nullptr;
  if (!mongoc_cursor_next(cursor.get(), &document)) {
    bson_error_t error{};
    if (mongoc_cursor_error(cursor.get(), &error)) impl_->Throw("find", error);
    return std::nullopt;
  }

  const auto malformed = [id](std::string_view field) {
    return StorageError("mongodb: find: the preview of document " + std::to_string(id) +
                        " has no valid " + std::string(field));
  };
  PreviewRecord record;
  record.document_id = id;
  bson_iter_t field;
  if (!bson_iter_init_find(&field, document, "version") || !BSON_ITER_HOLDS_INT32(&field)) {
    throw malformed("version");
  }
  record.version = bson_iter_int32(&field);
  if (!bson_iter_init_find(&field, document, "content") || !BSON_ITER_HOLDS_UTF8(&field)) {
    throw malformed("content");
  }
  std::uint32_t length = 0;
  const char* content = bson_iter_utf8(&field, &length);
  record.content.assign(content, length);
  if (!bson_iter_init_find(&field, document, "approved_at") || !BSON_ITER_HOLDS_DATE_TIME(&field)) {
    throw malformed("approved_at");
  }
  record.approved_at = TimePoint(std::chrono::milliseconds(bson_iter_date_time(&field)));
  return record;
}

bool MongoPreviewStore::Ping() {
  const Impl::Client client(impl_->pool.get());
  if (client.get() == nullptr) return false;
  Bson command;
  BSON_APPEND_INT32(command.get(), "ping", 1);
  bson_t reply;  // initialized by the call, whatever its outcome
  bson_error_t error{};
  const bool answered = mongoc_client_command_simple(client.get(), impl_->database.c_str(),
                                                     command.get(), nullptr, &reply, &error);
  bson_destroy(&reply);
  return answered;
}

}  // namespace docgate
