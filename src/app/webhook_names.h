#pragma once

#include <optional>
#include <string_view>

#include "app/ports/webhook_store.h"

namespace docgate {

// The words API.md and the databases use for a webhook's format and a delivery's status:
// "generic", "wecom", "dingtalk", "feishu"; "pending", "delivered", "failed".
std::string_view WebhookFormatName(WebhookFormat format);
std::optional<WebhookFormat> ParseWebhookFormat(std::string_view name);
std::string_view WebhookDeliveryStatusName(WebhookDeliveryStatus status);
std::optional<WebhookDeliveryStatus> ParseWebhookDeliveryStatus(std::string_view name);

}  // namespace docgate
