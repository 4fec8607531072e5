#include "app/webhook_names.h"

#include <array>
#include <utility>

namespace docgate {
namespace {

constexpr std::array<std::pair<WebhookFormat, std::string_view>, 4> kFormats{{
    {WebhookFormat::kGeneric, "generic"},
    {WebhookFormat::kWeCom, "wecom"},
    {WebhookFormat::kDingTalk, "dingtalk"},
    {WebhookFormat::kFeishu, "feishu"},
}};

constexpr std::array<std::pair<WebhookDeliveryStatus, std::string_view>, 3> kStatuses{{
    {WebhookDeliveryStatus::kPending, "pending"},
    {WebhookDeliveryStatus::kDelivered, "delivered"},
    {WebhookDeliveryStatus::kFailed, "failed"},
}};

template <typename Value, std::size_t N>
std::string_view NameIn(const std::array<std::pair<Value, std::string_view>, N>& table,
                        Value value) {
  for (const auto& entry : table) {
    if (entry.first == value) return entry.second;
  }
  return {};
}

template <typename Value, std::size_t N>
std::optional<Value> ValueIn(const std::array<std::pair<Value, std::string_view>, N>& table,
                             std::string_view name) {
  for (const auto& entry : table) {
    if (entry.second == name) return entry.first;
  }
  return std::nullopt;
}

}  // namespace

std::string_view WebhookFormatName(WebhookFormat format) { return NameIn(kFormats, format); }

std::optional<WebhookFormat> ParseWebhookFormat(std::string_view name) {
  return ValueIn(kFormats, name);
}

std::string_view WebhookDeliveryStatusName(WebhookDeliveryStatus status) {
  return NameIn(kStatuses, status);
}

std::optional<WebhookDeliveryStatus> ParseWebhookDeliveryStatus(std::string_view name) {
  return ValueIn(kStatuses, name);
}

}  // namespace docgate
