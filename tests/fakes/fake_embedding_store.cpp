#include "fakes/fake_embedding_store.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <set>
#include <utility>

namespace docgate {
namespace {

FakeTables::EmbeddingKey KeyOf(const EmbeddingModel& model, const std::string& text_key) {
  return {model.name, model.dimensions, text_key};
}

// The chunks of approved versions: fn(document, chunks) for each.
template <typename Fn>
void ForEachApprovedChunks(const FakeTables& tables, Fn&& fn) {
  for (const auto& [id, chunks] : tables.chunks) {
    const auto doc = tables.documents.find(id);
    if (doc == tables.documents.end() || doc->second.approved_version != chunks.version) continue;
    fn(doc->second, chunks);
  }
}

// Each key of approved versions' chunks with one of its texts, in key order.
// (key, one of its texts) of the approved chunks in `scope`: of pending versions in (document,
// ordinal) order, of all of them in key order.
std::vector<std::pair<std::string, std::string>> ApprovedTexts(const FakeTables& tables,
                                                               ClaimScope scope) {
  std::vector<std::pair<std::string, std::string>> texts;
  std::set<std::string> seen;
  ForEachApprovedChunks(tables, [&](const Document& doc, const FakeTables::Chunks& chunks) {
    if (scope == ClaimScope::kPending && doc.ingest_status != IngestStatus::kPending) return;
    for (std::size_t i = 0; i < chunks.contents.size(); ++i) {
      const std::string& key = chunks.text_keys[i];
      if (!key.empty() && seen.insert(key).second) texts.emplace_back(key, chunks.contents[i]);
    }
  });
  if (scope == ClaimScope::kAll) std::ranges::sort(texts);
  return texts;
}

}  // namespace

FakeEmbeddingStore::FakeEmbeddingStore(std::shared_ptr<FakeDatabase> database)
    : database_(std::move(database)) {}

std::vector<UnkeyedChunk> FakeEmbeddingStore::ChunksWithoutKey(int limit) {
  return database_->Read([&](const FakeTables& tables) {
    std::vector<UnkeyedChunk> unkeyed;
    for (const auto& [id, chunks] : tables.chunks) {
      for (std::size_t i = 0; i < chunks.contents.size(); ++i) {
        if (std::ssize(unkeyed) >= limit) return unkeyed;
        if (chunks.text_keys[i].empty()) {
          unkeyed.push_back({id, static_cast<std::int32_t>(i), chunks.contents[i]});
        }
      }
    }
    return unkeyed;
  });
}

void FakeEmbeddingStore::SetKeys(const std::vector<ChunkKey>& keys) {
  database_->Write([&](FakeTables& tables) {
    for (const ChunkKey& key : keys) {
      const auto chunks = tables.chunks.find(key.document_id);
      if (chunks == tables.chunks.end() || key.ordinal < 0 ||
          key.ordinal >= std::ssize(chunks->second.text_keys)) {
        continue;
      }
      std::string& text_key = chunks->second.text_keys[static_cast<std::size_t>(key.ordinal)];
      if (text_key.empty()) text_key = key.text_key;
    }
  });
}

std::vector<TextToEmbed> FakeEmbeddingStore::Claim(const EmbeddingModel& model,
                                                   const std::string& owner, TimePoint now,
                                                   TimePoint until, int limit, ClaimScope scope) {
  return database_->Write([&](FakeTables& tables) {
    std::vector<TextToEmbed> claimed;
    for (const auto& [text_key, text] : ApprovedTexts(tables, scope)) {
      if (std::ssize(claimed) >= limit) break;
      const auto key = KeyOf(model, text_key);
      if (tables.embeddings.contains(key)) continue;
      const auto claim = tables.embedding_claims.find(key);
      if (claim != tables.embedding_claims.end() && claim->second.expires_at > now) continue;
      tables.embedding_claims[key] = FakeTables::EmbeddingClaim{owner, until};
      claimed.push_back({text_key, text});
    }
    return claimed;
  });
}

void FakeEmbeddingStore::Store(const EmbeddingModel& model,
                               const std::vector<EmbeddingResult>& results,
                               const std::string& owner) {
  for (const EmbeddingResult& result : results) {
    if (const std::string misfit = MisfitResult(model, result); !misfit.empty()) {
      FakeViolation(misfit);
    }
  }
  database_->Write([&](FakeTables& tables) {
    const TimePoint now =
        std::chrono::floor<std::chrono::milliseconds>(std::chrono::system_clock::now());
    for (const EmbeddingResult& result : results) {
      const auto key = KeyOf(model, result.text_key);
      if (!tables.embeddings.contains(key)) {
        FakeTables::EmbeddingRow row{++tables.last_embedding_id, {}, {}, std::nullopt};
        if (result.refusal.empty()) {
          row.vector = result.vector;
        } else {
          row.refusal = result.refusal;
        }
        if (!FakeAnyChunkHasKey(tables, result.text_key)) row.orphaned_at = now;
        tables.embeddings.emplace(key, std::move(row));
      }
      const auto claim = tables.embedding_claims.find(key);
      if (claim != tables.embedding_claims.end() && claim->second.owner == owner) {
        tables.embedding_claims.erase(claim);
      }
    }
  });
}

void FakeEmbeddingStore::Release(const EmbeddingModel& model, const std::string& owner,
                                 const std::vector<std::string>& keys) {
  database_->Write([&](FakeTables& tables) {
    for (const std::string& text_key : keys) {
      const auto claim = tables.embedding_claims.find(KeyOf(model, text_key));
      if (claim != tables.embedding_claims.end() && claim->second.owner == owner) {
        tables.embedding_claims.erase(claim);
      }
    }
  });
}

std::vector<SettledDocument> FakeEmbeddingStore::SettleDocuments(const EmbeddingModel& model,
                                                                 int limit) {
  return database_->Write([&](FakeTables& tables) {
    std::vector<SettledDocument> settled;
    ForEachApprovedChunks(tables, [&](const Document& doc, const FakeTables::Chunks& chunks) {
      if (std::ssize(settled) >= limit || doc.ingest_status != IngestStatus::kPending) return;
      bool refused = false;
      for (const std::string& text_key : chunks.text_keys) {
        const auto row = tables.embeddings.find(KeyOf(model, text_key));
        if (text_key.empty() || row == tables.embeddings.end()) return;
        refused = refused || !row->second.refusal.empty();
      }
      settled.push_back({doc.id, refused ? IngestStatus::kFailed : IngestStatus::kDone});
    });
    for (const SettledDocument& doc : settled) {
      tables.documents.at(doc.id).ingest_status = doc.status;
    }
    return settled;
  });
}

std::int64_t FakeEmbeddingStore::CountMissing(const EmbeddingModel& model) {
  return database_->Read([&](const FakeTables& tables) {
    std::int64_t missing = 0;
    for (const auto& [text_key, text] : ApprovedTexts(tables, ClaimScope::kAll)) {
      if (!tables.embeddings.contains(KeyOf(model, text_key))) ++missing;
    }
    return missing;
  });
}

int FakeEmbeddingStore::PurgeOrphans(TimePoint before, int limit) {
  return database_->Write([&](FakeTables& tables) {
    int purged = 0;
    for (auto row = tables.embeddings.begin(); row != tables.embeddings.end() && purged < limit;) {
      const auto& orphaned_at = row->second.orphaned_at;
      if (orphaned_at && *orphaned_at < before &&
          !FakeAnyChunkHasKey(tables, std::get<2>(row->first))) {
        row = tables.embeddings.erase(row);
        ++purged;
      } else {
        ++row;
      }
    }
    return purged;
  });
}

std::vector<StoredVector> FakeEmbeddingStore::VectorsAfter(const EmbeddingModel& model,
                                                           std::int64_t after, int limit) {
  return database_->Read([&](const FakeTables& tables) {
    std::vector<StoredVector> vectors;
    for (const auto& [key, row] : tables.embeddings) {
      if (std::get<0>(key) != model.name || std::get<1>(key) != model.dimensions) continue;
      if (row.id <= after || row.vector.empty()) continue;
      vectors.push_back({row.id, std::get<2>(key), row.vector});
    }
    std::ranges::sort(vectors, {}, &StoredVector::id);
    if (std::ssize(vectors) > limit) vectors.resize(static_cast<std::size_t>(std::max(limit, 0)));
    return vectors;
  });
}

std::vector<std::int64_t> FakeEmbeddingStore::VectorIds(const EmbeddingModel& model) {
  std::vector<std::int64_t> ids;
  for (const StoredVector& stored : VectorsAfter(model, 0, std::numeric_limits<int>::max())) {
    ids.push_back(stored.id);
  }
  return ids;
}

std::vector<KeyedChunk> FakeEmbeddingStore::ApprovedChunksWithKeys(
    const std::vector<std::string>& keys) {
  const std::set<std::string> wanted(keys.begin(), keys.end());
  return database_->Read([&](const FakeTables& tables) {
    std::vector<KeyedChunk> chunks;
    ForEachApprovedChunks(tables, [&](const Document& doc, const FakeTables::Chunks& rows) {
      for (std::size_t i = 0; i < rows.contents.size(); ++i) {
        if (!wanted.contains(rows.text_keys[i])) continue;
        chunks.push_back({doc.id, rows.version, static_cast<std::int32_t>(i), rows.title,
                          rows.contents[i], rows.text_keys[i], rows.sections[i]});
      }
    });
    return chunks;
  });
}

}  // namespace docgate
