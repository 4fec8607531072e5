#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "adapters/pg/pg_statements.h"
#include "app/ports/chunk_index.h"

namespace pqxx {
class connection_base;
class transaction_base;
}  // namespace pqxx

namespace docgate {

class PgSession;
class PgWork;

// ChunkIndex on PostgreSQL (kh_document_chunk), over a PgSession shared with the database's other
// stores; its SQL is in pg_chunk_index.cpp.
//
// Full-text search uses each chunk's search_terms, a tsvector of docgate's text analyzer's terms
// written by docgate (pg_text_search.h) and indexed with GIN; a query's phrases become a tsquery
// of the same terms (`<->` within a phrase, `&` between required phrases, `|` between finders),
// bound as a parameter and built by docgate, so no user input is tsquery syntax. Hits are ranked
// by docgate's BM25 (app/search_ranking.h, pruned as MaxScore does), best first; a document's best
// chunk is chosen by a window over the hits.
//
// Thread-safe.
class PgChunkIndex final : public ChunkIndex {
 public:
  explicit PgChunkIndex(std::shared_ptr<PgSession> session);

  // The statements this store runs, for the session to prepare on every connection.
  static std::span<const pg_sql::Statement> Statements();
  // Ingestion's part of a consumer transaction (ConsumerTransaction::ReplaceChunks): the
  // document's chunks become exactly `chunks`, in order.
  static void Replace(PgWork& work, DocumentId id, std::int32_t version, const std::string& title,
                      const std::vector<std::string>& chunks,
                      const std::vector<std::string>& sections,
                      const std::vector<std::string>& text_keys);

  // Analyses every chunk whose search_terms is NULL (written before migration 0008, or by a
  // docgate older than it during a rolling upgrade); returns how many. PgSession::Migrate runs it
  // after the migrations.
  static std::int64_t AnalyseUnanalysedChunks(pqxx::connection_base& connection);

  std::vector<ChunkHit> Search(const SearchQuery& query, int limit,
                               SearchGrouping grouping) override;
  std::vector<std::string> ListChunks(DocumentId id) override;

 private:
  // BM25's statistics are counted by PostgreSQL and kept this long, in this process: a count of a
  // common phrase over 100,000 chunks takes tens of milliseconds, and a phrase's weight changes
  // little while a few documents come and go.
  static constexpr std::chrono::seconds kStatisticsLifetime{60};
  // Beyond this many phrases the kept counts are dropped and counted again.
  static constexpr std::size_t kMostKeptPhrases = 100000;
  using Expiry = std::chrono::steady_clock::time_point;
  struct Totals {
    std::int64_t chunks = 0;
    double average_length = 1;
  };
  Totals TotalsOf(pqxx::transaction_base& tx);
  // How many chunks hold each phrase (tsquery literals), kept ones or counted now.
  std::vector<std::int64_t> Holding(pqxx::transaction_base& tx,
                                    const std::vector<std::string>& phrases);

  std::shared_ptr<PgSession> session_;
  std::mutex statistics_mutex_;
  std::optional<std::pair<Totals, Expiry>> totals_;
  std::unordered_map<std::string, std::pair<std::int64_t, Expiry>> holding_;
};

}  // namespace docgate
