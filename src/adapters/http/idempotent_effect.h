#pragma once

#include <string>
#include <utility>

#include "app/idempotency.h"

namespace docgate {

// How a POST handler commits its effect. Without an Idempotency-Key it is inert: no hook. With
// one, the hook stores the outcome inside the use case's transaction, with the effect
// (IdempotencyService::CompleteOnCommit), and notes that it did: the use case's answer is then the
// stored outcome, and the key needs nothing more.
class IdempotentEffect {
 public:
  IdempotentEffect() = default;
  IdempotentEffect(IdempotencyService& idempotency, IdempotentRequest request, std::string owner)
      : idempotency_(&idempotency), request_(std::move(request)), owner_(std::move(owner)) {}

  CommitHook Hook() {
    if (idempotency_ == nullptr) return {};
    return [this, store = idempotency_->CompleteOnCommit(request_, owner_)](
               StoreTransaction& tx, const IdempotentOutcome& outcome) {
      store(tx, outcome);
      committed_ = true;
    };
  }

  // Whether the outcome was stored with a committed effect.
  bool committed() const { return committed_; }

 private:
  IdempotencyService* idempotency_ = nullptr;
  IdempotentRequest request_;
  std::string owner_;
  bool committed_ = false;
};

}  // namespace docgate
