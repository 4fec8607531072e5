#include "adapters/pg/pg_chunk_index.h"

#include <array>
#include <utility>

#include "adapters/pg/pg_rows.h"
#include "adapters/pg/pg_session.h"
#include "core/search_text.h"

namespace docgate {
namespace {

using namespace pg;
using pg_sql::Statement;

constexpr Statement kDeleteChunks{"delete_chunks",
                                  "DELETE FROM kh_document_chunk WHERE document_id = $1"};
constexpr Statement kInsertChunk{"insert_chunk",
                                 "INSERT INTO kh_document_chunk (document_id, "
                                 "ordinal, version, title, content)"
                                 " VALUES ($1, $2, $3, $4, $5)"};
constexpr Statement kListChunks{"list_chunks",
                                "SELECT content FROM kh_document_chunk WHERE "
                                "document_id = $1 ORDER BY ordinal"};
// $1 the user's words, which plainto_tsquery only ever reads as words to AND
// (no operators), $2 the limit. ts_rank_cd weighs the title (A) 1.0 and the
// content (B) 0.4; the headline has no markers (empty StartSel/StopSel), so it
// is plain text.
constexpr Statement kSearch{"search_chunks",
                            "SELECT c.document_id, c.version, c.title,"
                            " ts_headline('english', c.content, q.query,"
                            "             'StartSel=\"\", StopSel=\"\", MinWords=12, MaxWords=32'),"
                            " ts_rank_cd(c.search_vector, q.query) AS score"
                            " FROM plainto_tsquery('english', $1) AS q (query)"
                            " JOIN kh_document_chunk c ON c.search_vector @@ q.query"
                            " JOIN kh_document d ON d.id = c.document_id AND d.approved_version = "
                            "c.version"
                            " ORDER BY score DESC, c.document_id, c.ordinal LIMIT $2"};

constexpr std::array kChunkStatements{kDeleteChunks, kInsertChunk, kListChunks, kSearch};

}  // namespace

PgChunkIndex::PgChunkIndex(std::shared_ptr<PgSession> session) : session_(std::move(session)) {}

std::span<const Statement> PgChunkIndex::Statements() { return kChunkStatements; }

void PgChunkIndex::Replace(PgWork& work, DocumentId id, std::int32_t version,
                           const std::string& title, const std::vector<std::string>& chunks) {
  work.Run("replace chunks of document", id, [&](pqxx::work& w) {
    w.exec_prepared(kDeleteChunks.name, id);
    for (std::size_t i = 0; i < chunks.size(); ++i) {
      w.exec_prepared(kInsertChunk.name, id, static_cast<std::int32_t>(i), version, Checked(title),
                      Checked(chunks[i]));
    }
  });
}

std::vector<SearchHit> PgChunkIndex::Search(const std::string& query, int limit) {
  const std::vector<std::string> words = SearchWords(query);
  if (words.empty() || limit <= 0) return {};
  std::string text;
  for (const std::string& word : words) text += (text.empty() ? "" : " ") + word;
  return session_->Autocommit("search", [&](pqxx::transaction_base& tx) {
    return All<SearchHit>(tx.exec_prepared(kSearch.name, text, limit), ToHit);
  });
}

std::vector<std::string> PgChunkIndex::ListChunks(DocumentId id) {
  return session_->Autocommit(
      Describe("list chunks of document", id), [&](pqxx::transaction_base& tx) {
        return All<std::string>(tx.exec_prepared(kListChunks.name, id), ToText);
      });
}

}  // namespace docgate
