#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "app/ports/clock.h"
#include "app/ports/digest.h"
#include "app/ports/embedder.h"
#include "app/ports/embedding_store.h"

namespace docgate {

struct EmbeddingWorkerConfig {
  // How long a claim lasts: longer than the embedder's longest call (its timeouts times its
  // attempts, plus the waits between them), or another worker takes the texts over and they are
  // embedded twice.
  std::chrono::milliseconds claim_ttl{std::chrono::minutes(10)};
  std::chrono::milliseconds poll_interval{500};  // between rounds that found nothing to do
  // An embedding no chunk has had for this long is deleted: a text that comes back sooner (an
  // edit undone, a document approved again) is not embedded twice.
  std::chrono::milliseconds orphan_grace{std::chrono::minutes(10)};
  // Orphans are looked for at most this often (a write transaction; not every idle poll).
  std::chrono::milliseconds purge_interval{std::chrono::minutes(1)};
  // How often the worker also looks for texts of versions that are not pending (ClaimScope::kAll:
  // a new model, chunks keyed after their ingestion): at its first round, then after this long
  // without finding any. Pending versions are looked at every round.
  std::chrono::milliseconds full_scan_interval{std::chrono::minutes(10)};
  // While texts are claimed round after round, pending versions are settled at most this often
  // (a query over every pending version); a round that claims nothing always settles.
  std::chrono::milliseconds settle_interval{250};
  // Keying chunks without a key, the full scans and the purge of orphans: the database's upkeep,
  // which one worker of an instance does; the others only claim, embed, store and settle.
  bool upkeep = true;
  int key_batch = 500;     // chunks keyed per round (those written before migration 0010)
  int settle_batch = 500;  // documents settled per statement
  int purge_batch = 500;   // orphans deleted per round
};

// What the worker did since it was made; read at any time (metrics).
struct EmbeddingWorkerCounters {
  std::atomic<std::uint64_t> embedded{0};          // texts whose vectors it stored
  std::atomic<std::uint64_t> refused{0};           // texts the provider refused for good
  std::atomic<std::uint64_t> unavailable{0};       // rounds the provider could not serve
  std::atomic<std::uint64_t> documents_done{0};    // approved versions it settled done
  std::atomic<std::uint64_t> documents_failed{0};  // ... failed (a refused chunk)
  std::atomic<std::uint64_t> keyed{0};             // chunks it keyed
  std::atomic<std::uint64_t> purged{0};            // orphan embeddings it deleted
};

// The embedding worker (ADR 0010): computes the vectors of approved versions' chunks once per
// distinct text, outside any consumer transaction, and settles their ingestion. One per docgate
// instance; several on one database share the work through the store's claims.
//
// A round: keys the chunks that have none; stores what an earlier round could not; claims at most
// the embedder's max_batch() texts that have no vector (of pending versions, and now and then of
// any approved version: full_scan_interval); embeds them in one call (outside any
// transaction); stores the vectors and refusals and drops the claims in one transaction; settles
// the pending documents that now have every vector (done, or failed when one was refused; at most
// every settle_interval while texts keep coming); deletes
// orphans past their grace (at most every purge_interval). When the provider cannot embed now, the
// claims are released and the next round waits the provider's retry_after; the documents stay
// pending and the backlog grows. When the database fails after the provider answered, the vectors
// are kept in memory and stored by the next round, so they are not computed again.
//
// RunOnce is not for concurrent use; the counters are.
class EmbeddingWorker {
 public:
  // Every reference must outlive the worker. `owner` names this worker's claims (unique per
  // process: the instance token).
  EmbeddingWorker(EmbeddingStore& store, Embedder& embedder, const Digest& digest, Clock& clock,
                  std::string owner, EmbeddingWorkerConfig config = {});

  // One round as above. Returns true when it claimed texts (another round may find more at once).
  // Throws EmbeddingsUnavailable (after releasing the claims) and what the store throws.
  bool RunOnce();

  // Rounds until `stop` is requested: at once while there is work, every poll_interval when
  // there is none or at once when woken, after retry_after when the provider is unavailable (a
  // Wake does not shorten that). Failures are logged.
  void Run(std::stop_token stop);
  // Tells Run that texts may be waiting (ingestion committed a pending version): an idle wait
  // ends at once, and a Wake during a round makes the next wait end at once. Thread-safe.
  void Wake();

  // Texts of approved versions still without a vector (the store's CountMissing).
  std::int64_t Backlog();
  const EmbeddingModel& model() const { return model_; }
  const EmbeddingWorkerCounters& counters() const { return counters_; }

 private:
  void KeyChunks();
  void StoreUnsaved();
  void Settle();
  // Until Wake, `stop` or `pause` has passed, whichever comes first.
  void WaitForWork(std::stop_token stop, std::chrono::milliseconds pause);

  EmbeddingStore& store_;
  Embedder& embedder_;
  const Digest& digest_;
  Clock& clock_;
  const std::string owner_;
  const EmbeddingWorkerConfig config_;
  const EmbeddingModel model_;
  std::vector<EmbeddingResult> unsaved_;  // answered by the provider, not stored yet
  TimePoint next_purge_{};                // on clock_
  TimePoint next_full_scan_{};            // on clock_
  TimePoint next_settle_{};               // on clock_
  EmbeddingWorkerCounters counters_;
  std::mutex wake_mutex_;
  std::condition_variable_any wake_;
  bool woken_ = false;  // guarded by wake_mutex_
};

}  // namespace docgate
