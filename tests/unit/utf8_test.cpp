#include "core/utf8.h"

#include <gtest/gtest.h>

#include <string>

namespace docgate {
namespace {

using namespace std::string_literals;

TEST(Utf8, StorableTextIsValidUtf8WithoutNul) {
  for (const std::string& good : {""s, "alice"s, "张三"s, "line\nbreak\ttab"s, "\xF0\x9F\x98\x80"s,
                                 "\xEF\xBF\xBF"s, "\xF4\x8F\xBF\xBF"s}) {
    EXPECT_TRUE(IsStorableText(good)) << good;
  }
  for (const std::string& bad :
       {"\0"s, "a\0b"s, "\xFF"s, "\xC0\xAF"s, "\xE0\x80\xAF"s, "\xED\xA0\x80"s, "\xED\xBF\xBF"s,
        "\xF4\x90\x80\x80"s, "\x80"s, "\xE5\xBC"s, "ok\xC3"s}) {
    EXPECT_FALSE(IsStorableText(bad)) << bad;
  }
}

TEST(Utf8, PrintableTextHasNoControlCharacters) {
  for (const std::string& good : {""s, "alice"s, "张三"s, "a b"s, "\xC2\xA0"s, "~"s}) {
    EXPECT_TRUE(IsPrintableText(good)) << good;
  }
  for (const std::string& bad : {"\0"s, "a\nb"s, "\r"s, "\t"s, "\x1B[31m"s, "\x7F"s, "\xC2\x80"s,
                                "\xC2\x9F"s, "\xFF"s, "\xED\xA0\x80"s}) {
    EXPECT_FALSE(IsPrintableText(bad)) << bad;
  }
}

TEST(Utf8, PrefixNeverEndsInsideACodePoint) {
  const std::string text = "ab张三\xF0\x9F\x98\x80";  // 2 + 3 + 3 + 4 bytes
  EXPECT_EQ(Utf8Prefix(text, 100), text);
  EXPECT_EQ(Utf8Prefix(text, 12), text);
  EXPECT_EQ(Utf8Prefix(text, 0), "");
  EXPECT_EQ(Utf8Prefix(text, 2), "ab");
  EXPECT_EQ(Utf8Prefix(text, 3), "ab");
  EXPECT_EQ(Utf8Prefix(text, 4), "ab");
  EXPECT_EQ(Utf8Prefix(text, 5), "ab张");
  EXPECT_EQ(Utf8Prefix(text, 7), "ab张");
  EXPECT_EQ(Utf8Prefix(text, 8), "ab张三");
  EXPECT_EQ(Utf8Prefix(text, 11), "ab张三");
  for (std::size_t max = 0; max <= text.size(); ++max) {
    EXPECT_TRUE(IsStorableText(Utf8Prefix(text, max))) << max;
  }
}

TEST(Utf8, EscapeForLogKeepsPrintableTextAndEscapesTheRest) {
  EXPECT_EQ(EscapeForLog("alice 张三"), "alice 张三");
  EXPECT_EQ(EscapeForLog("alice\nlevel=error fake"), "alice\\x0alevel=error fake");
  EXPECT_EQ(EscapeForLog("a\0b\r"s), "a\\x00b\\x0d");
  EXPECT_EQ(EscapeForLog("\xFF\xC0\xAF"), "\\xff\\xc0\\xaf");
  EXPECT_EQ(EscapeForLog("\xC2\x85"), "\\xc2\\x85");
  // A literal backslash cannot be mistaken for an escape.
  EXPECT_EQ(EscapeForLog("\\x0a"), "\\\\x0a");
}

}  // namespace
}  // namespace docgate
