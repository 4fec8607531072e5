#pragma once

// AmqpConnection's translation between rabbitmq-c's values and docgate's: byte strings, field
// tables (arguments and headers) and a message's basic properties.

#include <amqp.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "adapters/amqp/amqp_connection.h"

namespace docgate {

// `text` as rabbitmq-c's bytes (which do not own it).
amqp_bytes_t Bytes(std::string_view text);
std::string Text(amqp_bytes_t bytes);
// The entries of an AMQP field table over `fields` (which must outlive them).
std::vector<amqp_table_entry_t> TableEntries(const AmqpArguments& fields);
// A field's integer or text; nullopt for the other kinds, which docgate never sends.
std::optional<std::variant<std::int64_t, std::string>> FieldValue(const amqp_field_value_t& field);
// The properties the broker sent with a message (message id, content type, type, delivery mode,
// timestamp, expiration, headers) into `message`.
void CopyProperties(const amqp_basic_properties_t& properties, AmqpMessage& message);

}  // namespace docgate
