#pragma once

#include <string_view>

#include "core/model.h"

namespace docgate {

// A downstream reaction to events (preview projection, ingestion, ...). Handle throws on failure.
class EventConsumer {
 public:
  virtual ~EventConsumer() = default;
  virtual std::string_view Name() const = 0;
  virtual void Handle(const OutboxEvent& event) = 0;
};

}  // namespace docgate
