#include "app/search_query.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "adapters/pg/pg_text_search.h"
#include "app/snippet.h"

namespace docgate {
namespace {

std::vector<std::vector<std::string>> PhraseTerms(std::string_view text) {
  std::vector<std::vector<std::string>> out;
  for (const SearchPhrase& phrase : ParseSearchQuery(text).phrases) out.push_back(phrase.terms);
  return out;
}

// The snippet's text with each highlight in [brackets], to read a snippet at a glance.
std::string Marked(const Snippet& snippet) {
  std::u32string text;
  for (std::size_t i = 0; i < snippet.text.size();) {
    const auto byte = static_cast<unsigned char>(snippet.text[i]);
    const std::size_t length = byte < 0x80 ? 1 : byte < 0xE0 ? 2 : byte < 0xF0 ? 3 : 4;
    char32_t c = length == 1 ? byte : byte & (0xFF >> (length + 1));
    for (std::size_t k = 1; k < length; ++k) c = c << 6 | (snippet.text[i + k] & 0x3F);
    text.push_back(c);
    i += length;
  }
  std::u32string marked;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    for (auto it = snippet.highlights.rbegin(); it != snippet.highlights.rend(); ++it) {
      if (it->second == i) marked += U']';
    }
    for (const auto& [start, end] : snippet.highlights) {
      if (start == i) marked += U'[';
    }
    if (i < text.size()) marked.push_back(text[i]);
  }
  std::string out;
  for (const char32_t c : marked) {
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xC0 | c >> 6);
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out += static_cast<char>(0xE0 | c >> 12);
      out += static_cast<char>(0x80 | (c >> 6 & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  return out;
}

TEST(SearchQuery, EachWordIsAPhraseAndQuotesJoinWords) {
  EXPECT_EQ(PhraseTerms("知识库 Locks"),
            (std::vector<std::vector<std::string>>{{"知识", "识库"}, {"lock"}}));
  EXPECT_EQ(PhraseTerms("\"dead letter\" queue"),
            (std::vector<std::vector<std::string>>{{"dead", "letter"}, {"queue"}}));
  EXPECT_EQ(PhraseTerms("\"open quote runs on"),
            (std::vector<std::vector<std::string>>{{"open", "quot", "run", "on"}}));
  EXPECT_EQ(PhraseTerms("e-mail"), (std::vector<std::vector<std::string>>{{"e", "mail"}}));
}

TEST(SearchQuery, PunctuationAndRepeatsAreDropped) {
  EXPECT_TRUE(ParseSearchQuery("").empty());
  EXPECT_TRUE(ParseSearchQuery("\"\" () ，。 !!!").empty());
  EXPECT_EQ(PhraseTerms("Redis redis ＲＥＤＩＳ"),
            (std::vector<std::vector<std::string>>{{"redi"}}));
  const SearchQuery query = ParseSearchQuery("Redis\"的锁\"");
  ASSERT_EQ(query.phrases.size(), 2u);
  EXPECT_EQ(query.phrases[1].text, "的锁") << "the text an engine with the analyzer re-reads";
}

TEST(SearchQuery, FindLocatesEveryPhraseInTheOriginalText) {
  const std::string text = "加锁前先查 Ｒｅｄｉｓ；Redis 的锁超时是 30s。";
  const std::vector<PhraseMatch> matches = AnalyzedText(text).Find(ParseSearchQuery("redis 锁"));
  std::vector<std::string> found;
  for (const PhraseMatch& match : matches) {
    found.push_back(std::to_string(match.phrase) + ":" +
                    text.substr(match.begin, match.end - match.begin));
  }
  EXPECT_EQ(found, (std::vector<std::string>{"1:锁", "0:Ｒｅｄｉｓ", "0:Redis", "1:锁"}));
  EXPECT_TRUE(AnalyzedText(text).Find(ParseSearchQuery("锁查")).empty());
}

TEST(Snippet, AShortChunkIsWholeWithItsMatchesInCodePoints) {
  const Snippet snippet = MakeSnippet("消息队列的消费者重试三次。", ParseSearchQuery("队列 重试"));
  EXPECT_EQ(snippet.text, "消息队列的消费者重试三次。");
  EXPECT_EQ(snippet.highlights, (std::vector<Highlight>{{2, 4}, {8, 10}}));
  EXPECT_EQ(Marked(snippet), "消息[队列]的消费者[重试]三次。");
}

TEST(Snippet, OverlappingMatchesMergeIntoOneRange) {
  const Snippet snippet = MakeSnippet("分布式锁", ParseSearchQuery("分布式 式锁"));
  EXPECT_EQ(Marked(snippet), "[分布式锁]");
}

TEST(Snippet, ALongChunkIsCutAroundTheBestWindowAtWordBoundaries) {
  std::string content;
  for (int i = 0; i < 40; ++i) content += "filler words here. ";
  content += "The glossary explains every review term. ";
  for (int i = 0; i < 40; ++i) content += "more filler text. ";
  const Snippet snippet = MakeSnippet(content, ParseSearchQuery("glossary review"), 80);
  EXPECT_LE(snippet.text.size(), 80u);
  EXPECT_NE(snippet.text.find("The glossary explains every review term."), std::string::npos)
      << snippet.text;
  EXPECT_NE(Marked(snippet).find("The [glossary] explains every [review] term."), std::string::npos)
      << Marked(snippet);
  EXPECT_NE(snippet.text.front(), ' ');
  EXPECT_NE(snippet.text.back(), ' ');
  EXPECT_EQ(content.find(snippet.text) % 1, 0u);
  EXPECT_NE(content.find(snippet.text), std::string::npos) << "a part of the content";
}

TEST(Snippet, AChineseWindowPrefersTheMatchesOfMoreWords) {
  std::string content;
  for (int i = 0; i < 30; ++i) content += "这里只提到队列。";
  content += "死信队列保存重试失败的消息。";
  for (int i = 0; i < 30; ++i) content += "其他内容。";
  const Snippet snippet = MakeSnippet(content, ParseSearchQuery("队列 失败"), 60);
  EXPECT_NE(Marked(snippet).find("死信[队列]保存重试[失败]的消息。"), std::string::npos)
      << Marked(snippet);
}

TEST(Snippet, AChunkFoundByItsTitleShowsItsBeginning) {
  const Snippet snippet = MakeSnippet("正文没有这个词。", ParseSearchQuery("权限"));
  EXPECT_EQ(snippet.text, "正文没有这个词。");
  EXPECT_TRUE(snippet.highlights.empty());
}

TEST(PgTextSearch, TitleTermsAreWeightAAndContentTermsBAfterAGap) {
  EXPECT_EQ(TsVectorLiteral("锁", "加锁 ok"), "'ok':4B '加':3B '加锁':3B '锁':1A,3B")
      << "title at 1, a gap at 2, the content from 3; 锁 of 加锁 shares its bigram's position";
  EXPECT_EQ(TsVectorLiteral("", "it's a\\b"), "'a':3B 'b':4B 'it''s':2B")
      << "quotes doubled; the backslash is not part of a word";
  EXPECT_EQ(TsVectorLiteral("", ""), "");
}

TEST(PgTextSearch, PhrasesAreAdjacentTermsAndAllAreRequired) {
  EXPECT_EQ(TsQueryLiteral(ParseSearchQuery("知识库 it's")),
            "(('知识' <-> '识库') & ('it''s')) | ('知识' <-> '识库' <-> 'it''s')");
  EXPECT_EQ(TsQueryLiteral(ParseSearchQuery("锁")), "('锁')");
  EXPECT_EQ(TsQueryLiteral(ParseSearchQuery("!!!")), "");
}

TEST(PgTextSearch, PostgresLimitsAreKept) {
  std::string many;
  for (int i = 0; i < 300; ++i) many += "lock ";
  const std::string literal = TsVectorLiteral("", many);
  EXPECT_EQ(std::count(literal.begin(), literal.end(), ','), 255) << "256 positions at most";
  EXPECT_EQ(TsVectorLiteral("", std::string(3000, 'x')), "") << "a term of 3,000 bytes is left out";
}

}  // namespace
}  // namespace docgate
