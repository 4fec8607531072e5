#pragma once

namespace docgate {

// Calls `delete_batch(batch)` (which deletes at most `batch` rows and returns how many it did)
// until a call deletes fewer than `batch`, so that no statement holds locks on more than one
// batch; returns the total deleted. Throws what delete_batch throws (what was deleted before
// stays deleted).
template <typename DeleteBatch>
int PruneInBatches(int batch, DeleteBatch&& delete_batch) {
  int pruned = 0;
  for (;;) {
    const int deleted = delete_batch(batch);
    pruned += deleted;
    if (deleted < batch) return pruned;
  }
}

}  // namespace docgate
