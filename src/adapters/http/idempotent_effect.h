#pragma once

#include <optional>
#include <string>
#include <utility>

#include "app/idempotency.h"

namespace docgate {

// How a POST handler commits its effect. Without an Idempotency-Key it is inert: no hook. With
// one, the hook stores the outcome inside the use case's transaction, with the effect, and keeps
// it, so that the first answer is rendered from exactly what a replay will render.
class IdempotentEffect {
 public:
  IdempotentEffect() = default;
  IdempotentEffect(IdempotencyService& idempotency, IdempotentRequest request, std::string owner)
      : idempotency_(&idempotency), request_(std::move(request)), owner_(std::move(owner)) {}

  CommitHook Hook() {
    if (idempotency_ == nullptr) return {};
    return idempotency_->CompleteOnCommit(
        request_, owner_, [this](const IdempotentOutcome& outcome) { stored_ = outcome; });
  }

  // The outcome stored with the effect; nullopt when none was (the effect did not commit).
  const std::optional<IdempotentOutcome>& stored() const { return stored_; }

 private:
  IdempotencyService* idempotency_ = nullptr;
  IdempotentRequest request_;
  std::string owner_;
  std::optional<IdempotentOutcome> stored_;
};

}  // namespace docgate
