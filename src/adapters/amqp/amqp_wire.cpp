#include "adapters/amqp/amqp_wire.h"

#include <utility>

namespace docgate {

amqp_bytes_t Bytes(std::string_view text) {
  return amqp_bytes_t{text.size(), const_cast<char*>(text.data())};
}

std::string Text(amqp_bytes_t bytes) {
  return bytes.len == 0 ? std::string()
                        : std::string(static_cast<const char*>(bytes.bytes), bytes.len);
}

std::vector<amqp_table_entry_t> TableEntries(const AmqpArguments& fields) {
  std::vector<amqp_table_entry_t> entries;
  for (const auto& [key, value] : fields) {
    amqp_table_entry_t entry{};
    entry.key = Bytes(key);
    if (const auto* number = std::get_if<std::int64_t>(&value)) {
      entry.value.kind = AMQP_FIELD_KIND_I64;
      entry.value.value.i64 = *number;
    } else {
      entry.value.kind = AMQP_FIELD_KIND_UTF8;
      entry.value.value.bytes = Bytes(std::get<std::string>(value));
    }
    entries.push_back(entry);
  }
  return entries;
}

std::optional<std::variant<std::int64_t, std::string>> FieldValue(const amqp_field_value_t& field) {
  switch (field.kind) {
    case AMQP_FIELD_KIND_I8:
      return std::int64_t{field.value.i8};
    case AMQP_FIELD_KIND_U8:
      return std::int64_t{field.value.u8};
    case AMQP_FIELD_KIND_I16:
      return std::int64_t{field.value.i16};
    case AMQP_FIELD_KIND_U16:
      return std::int64_t{field.value.u16};
    case AMQP_FIELD_KIND_I32:
      return std::int64_t{field.value.i32};
    case AMQP_FIELD_KIND_U32:
      return std::int64_t{field.value.u32};
    case AMQP_FIELD_KIND_I64:
      return field.value.i64;
    case AMQP_FIELD_KIND_UTF8:
    case AMQP_FIELD_KIND_BYTES:
      return Text(field.value.bytes);
    default:
      return std::nullopt;
  }
}

void CopyProperties(const amqp_basic_properties_t& properties, AmqpMessage& message) {
  const auto has = [&](amqp_flags_t flag) { return (properties._flags & flag) != 0; };
  if (has(AMQP_BASIC_MESSAGE_ID_FLAG)) message.message_id = Text(properties.message_id);
  if (has(AMQP_BASIC_CONTENT_TYPE_FLAG)) message.content_type = Text(properties.content_type);
  if (has(AMQP_BASIC_TYPE_FLAG)) message.type = Text(properties.type);
  if (has(AMQP_BASIC_DELIVERY_MODE_FLAG)) message.delivery_mode = properties.delivery_mode;
  if (has(AMQP_BASIC_TIMESTAMP_FLAG)) message.timestamp = properties.timestamp;
  if (has(AMQP_BASIC_EXPIRATION_FLAG)) message.expiration = Text(properties.expiration);
  if (!has(AMQP_BASIC_HEADERS_FLAG)) return;
  for (int i = 0; i < properties.headers.num_entries; ++i) {
    const amqp_table_entry_t& entry = properties.headers.entries[i];
    if (auto value = FieldValue(entry.value)) {
      message.headers.emplace_back(Text(entry.key), std::move(*value));
    }
  }
}

}  // namespace docgate
