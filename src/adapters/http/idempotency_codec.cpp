#include "adapters/http/idempotency_codec.h"

#include <openssl/evp.h>

#include <array>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace docgate {
namespace {

namespace http = boost::beast::http;
using nlohmann::json;

constexpr std::size_t kMaxKeyLength = 255;

}  // namespace

std::optional<std::string> IdempotencyKeyProblem(std::string_view key) {
  if (key.empty() || key.size() > kMaxKeyLength) {
    return "Idempotency-Key must be 1..255 characters, got " + std::to_string(key.size());
  }
  for (const char c : key) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte > 0x7E) {
      return "Idempotency-Key must be printable ASCII (0x20..0x7E) only";
    }
  }
  return std::nullopt;
}

std::string RequestFingerprint(const HttpRequest& request) {
  const auto method = request.method_string();
  const auto target = request.target();
  std::string message;
  message.reserve(method.size() + target.size() + request.body().size() + 2);
  message.append(method.data(), method.size()).append(1, '\n');
  message.append(target.data(), target.size()).append(1, '\n');
  message.append(request.body());
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (EVP_Digest(message.data(), message.size(), digest.data(), &length, EVP_sha256(), nullptr) !=
      1) {
    throw std::runtime_error("SHA-256 of the request failed");
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(length * 2);
  for (unsigned int i = 0; i < length; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 0x0F];
  }
  return hex;
}

std::string EncodeResponse(const HttpResponse& response) {
  json headers = json::array();
  for (const auto& field : response) {
    if (field.name() == http::field::content_length ||
        field.name() == http::field::transfer_encoding) {
      continue;
    }
    headers.push_back({std::string(field.name_string()), std::string(field.value())});
  }
  const json envelope{{"status", response.result_int()},
                      {"headers", std::move(headers)},
                      {"body", response.body()}};
  // ASCII only, and strict: a body that is not UTF-8 would not come back byte for byte, so it is
  // refused (the effect then rolls back) rather than stored altered.
  std::string stored = envelope.dump(-1, ' ', /*ensure_ascii=*/true, json::error_handler_t::strict);
  if (stored.size() > kMaxStoredResponseBytes) {
    throw std::length_error("a response of " + std::to_string(stored.size()) +
                            " bytes encoded is too long to store");
  }
  return stored;
}

HttpResponse DecodeResponse(const std::string& stored) {
  const json envelope = json::parse(stored, nullptr, /*allow_exceptions=*/false);
  if (!envelope.is_object() || !envelope.contains("status") || !envelope.contains("headers") ||
      !envelope.contains("body") || !envelope["status"].is_number_unsigned() ||
      !envelope["headers"].is_array() || !envelope["body"].is_string()) {
    throw std::runtime_error("stored idempotent response is malformed");
  }
  HttpResponse response{static_cast<HttpStatus>(envelope["status"].get<unsigned>()), 11};
  for (const json& field : envelope["headers"]) {
    if (!field.is_array() || field.size() != 2 || !field[0].is_string() || !field[1].is_string()) {
      throw std::runtime_error("stored idempotent response has a malformed header field");
    }
    try {
      response.insert(field[0].get<std::string>(), field[1].get<std::string>());
    } catch (const std::length_error&) {
      // Beast holds a field name or value of at most 64 KiB; Encode never stores a longer one.
      throw std::runtime_error("stored idempotent response has a header field too long");
    }
  }
  response.body() = envelope["body"].get<std::string>();
  return response;
}

}  // namespace docgate
