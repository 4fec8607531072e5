#include "app/embedding_text_key.h"

#include <unicode/normalizer2.h>
#include <unicode/unistr.h>

#include "core/utf8.h"

namespace docgate {

std::string EmbeddingTextKey(const Digest& digest, std::string_view text) {
  // ICU would turn ill-formed UTF-8 into U+FFFD, making different texts one key.
  if (!Utf8Length(text)) return digest.Sha256Hex(text);
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* nfc = icu::Normalizer2::getNFCInstance(status);
  if (U_FAILURE(status)) return digest.Sha256Hex(text);
  const icu::UnicodeString source = icu::UnicodeString::fromUTF8(
      icu::StringPiece(text.data(), static_cast<std::int32_t>(text.size())));
  if (nfc->isNormalized(source, status) && U_SUCCESS(status)) return digest.Sha256Hex(text);
  status = U_ZERO_ERROR;
  const icu::UnicodeString normalized = nfc->normalize(source, status);
  if (U_FAILURE(status)) return digest.Sha256Hex(text);
  std::string utf8;
  normalized.toUTF8String(utf8);
  return digest.Sha256Hex(utf8);
}

}  // namespace docgate
