#include "worker/embedding_worker.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

#include "app/embedding_text_key.h"
#include "core/error.h"
#include "worker/stoppable_sleep.h"

namespace docgate {

EmbeddingWorker::EmbeddingWorker(EmbeddingStore& store, Embedder& embedder, const Digest& digest,
                                 Clock& clock, std::string owner, EmbeddingWorkerConfig config)
    : store_(store),
      embedder_(embedder),
      digest_(digest),
      clock_(clock),
      owner_(std::move(owner)),
      config_(config),
      model_{embedder.model(), embedder.dimensions()} {}

void EmbeddingWorker::KeyChunks() {
  const std::vector<UnkeyedChunk> unkeyed = store_.ChunksWithoutKey(config_.key_batch);
  if (unkeyed.empty()) return;
  std::vector<ChunkKey> keys;
  keys.reserve(unkeyed.size());
  for (const UnkeyedChunk& chunk : unkeyed) {
    keys.push_back({chunk.document_id, chunk.ordinal, EmbeddingTextKey(digest_, chunk.content)});
  }
  store_.SetKeys(keys);
  counters_.keyed += keys.size();
}

void EmbeddingWorker::StoreUnsaved() {
  if (unsaved_.empty()) return;
  store_.Store(model_, unsaved_, owner_);
  for (const EmbeddingResult& result : unsaved_) {
    ++(result.refusal.empty() ? counters_.embedded : counters_.refused);
  }
  unsaved_.clear();
}

void EmbeddingWorker::Settle() {
  for (;;) {
    const std::vector<SettledDocument> settled =
        store_.SettleDocuments(model_, config_.settle_batch);
    for (const SettledDocument& doc : settled) {
      ++(doc.status == IngestStatus::kDone ? counters_.documents_done : counters_.documents_failed);
    }
    if (std::ssize(settled) < config_.settle_batch) return;
  }
}

bool EmbeddingWorker::RunOnce() {
  if (config_.upkeep) KeyChunks();
  StoreUnsaved();
  const TimePoint now = clock_.Now();
  const TimePoint until = now + config_.claim_ttl;
  std::vector<TextToEmbed> claimed =
      store_.Claim(model_, owner_, now, until, embedder_.max_batch(), ClaimScope::kPending);
  if (claimed.empty() && config_.upkeep && now >= next_full_scan_) {
    claimed = store_.Claim(model_, owner_, now, until, embedder_.max_batch(), ClaimScope::kAll);
    // A scan that found texts is followed by another until one finds none.
    if (claimed.empty()) next_full_scan_ = now + config_.full_scan_interval;
  }
  if (!claimed.empty()) {
    std::vector<std::string> texts;
    texts.reserve(claimed.size());
    for (const TextToEmbed& text : claimed) texts.push_back(text.text);
    EmbeddedBatch batch;
    try {
      batch = embedder_.Embed(texts);
    } catch (const EmbeddingsUnavailable&) {
      ++counters_.unavailable;
      std::vector<std::string> keys;
      for (const TextToEmbed& text : claimed) keys.push_back(text.text_key);
      store_.Release(model_, owner_, keys);
      throw;
    }
    for (std::size_t i = 0; i < claimed.size(); ++i) {
      if (!batch.rejections[i].empty()) {
        spdlog::warn("embedding worker: the provider refuses text {}: {}", claimed[i].text_key,
                     batch.rejections[i]);
      }
      unsaved_.push_back(
          {claimed[i].text_key, std::move(batch.vectors[i]), std::move(batch.rejections[i])});
    }
    StoreUnsaved();
  }
  // Settling reads every pending version: once per round would make a large backlog quadratic.
  if (claimed.empty() || now >= next_settle_) {
    Settle();
    next_settle_ = now + config_.settle_interval;
  }
  if (config_.upkeep && now >= next_purge_) {
    const int purged = store_.PurgeOrphans(now - config_.orphan_grace, config_.purge_batch);
    counters_.purged += static_cast<std::uint64_t>(purged);
    next_purge_ = now + config_.purge_interval;
  }
  return !claimed.empty();
}

void EmbeddingWorker::Run(std::stop_token stop) {
  while (!stop.stop_requested()) {
    std::chrono::milliseconds pause = config_.poll_interval;
    try {
      if (RunOnce()) continue;
      WaitForWork(stop, pause);
      continue;
    } catch (const EmbeddingsUnavailable& e) {
      pause = std::max(pause, e.retry_after());
      spdlog::warn("embedding worker: the provider cannot embed now, next try in {} ms: {}",
                   pause.count(), e.what());
    } catch (const std::exception& e) {
      spdlog::warn("embedding worker: round failed, next in {} ms: {}", pause.count(), e.what());
    }
    SleepUnlessStopped(stop, pause);  // a Wake does not cut a wait the provider asked for
  }
}

void EmbeddingWorker::Wake() {
  {
    std::lock_guard lock(wake_mutex_);
    woken_ = true;
  }
  wake_.notify_all();
}

void EmbeddingWorker::WaitForWork(std::stop_token stop, std::chrono::milliseconds pause) {
  std::unique_lock lock(wake_mutex_);
  wake_.wait_for(lock, stop, pause, [this] { return woken_; });
  woken_ = false;
}

std::int64_t EmbeddingWorker::Backlog() { return store_.CountMissing(model_); }

}  // namespace docgate
