#include "app/search_query.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "adapters/pg/pg_text_search.h"
#include "adapters/sqlite/sqlite_fts_query.h"
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

using Phrases = std::vector<std::vector<std::string>>;

// The terms of the query's required phrases.
Phrases RequiredTerms(std::string_view text) {
  Phrases out;
  for (const SearchPhrase& phrase : ParseSearchQuery(text).phrases) {
    if (phrase.required) out.push_back(phrase.terms);
  }
  return out;
}

TEST(SearchQuery, EachTermIsAnOptionalPhraseAndQuotesMakeARequiredOne) {
  EXPECT_EQ(PhraseTerms("知识库 Locks"), (Phrases{{"知识"}, {"识库"}, {"lock"}}));
  EXPECT_EQ(PhraseTerms("\"dead letter\" queue"), (Phrases{{"dead", "letter"}, {"queue"}}));
  EXPECT_EQ(RequiredTerms("\"dead letter\" queue"), (Phrases{{"dead", "letter"}}));
  EXPECT_EQ(RequiredTerms("\"open quote runs on"), (Phrases{{"open", "quot", "run", "on"}}))
      << "a quote left open runs to the end; stop words stay in a quoted phrase";
  EXPECT_TRUE(RequiredTerms("redis 锁").empty());
  EXPECT_EQ(RequiredTerms("redis \"redis\""), (Phrases{{"redi"}}))
      << "a repeat is the earlier phrase, required as the quoted one is";
}

TEST(SearchQuery, AdjacentWordsOfOtherScriptsAlsoMakeAPhraseThatRanksThemTogether) {
  EXPECT_EQ(PhraseTerms("dead letter queue"),
            (Phrases{{"dead"}, {"letter"}, {"dead", "letter"}, {"queue"}, {"letter", "queue"}}));
  EXPECT_EQ(PhraseTerms("GNU/Linux"), (Phrases{{"gnu"}, {"linux"}, {"gnu", "linux"}}));
  EXPECT_EQ(PhraseTerms("dead of letter"), (Phrases{{"dead"}, {"letter"}}))
      << "a dropped stop word parts them";
}

TEST(SearchQuery, QuestionWordsAndParticlesAreDropped) {
  // 如何 / 在 / 上 are dropped or kept by the dictionary's words, not by characters.
  EXPECT_EQ(PhraseTerms("如何配置网络代理？"), (Phrases{{"配置"}, {"网络"}, {"代理"}}))
      << "no bigram across two dictionary words";
  EXPECT_EQ(PhraseTerms("Debian 一词如何发音，有什么含义？"),
            (Phrases{{"debian"}, {"一词"}, {"发音"}, {"含义"}}));
  EXPECT_EQ(PhraseTerms("什么是 Debian GNU/Linux？"),
            (Phrases{{"debian"}, {"gnu"}, {"debian", "gnu"}, {"linux"}, {"gnu", "linux"}}));
  EXPECT_EQ(PhraseTerms("数据库的备份"), (Phrases{{"数据"}, {"据库"}, {"备份"}}))
      << "的 parts the words: no bigram 库的 or 的备";
  EXPECT_EQ(PhraseTerms("锁是什么"), (Phrases{{"锁"}})) << "a word of one character alone";
  EXPECT_EQ(PhraseTerms("数据库的备份"), (Phrases{{"数据"}, {"据库"}, {"备份"}}))
      << "the dictionary's 数据|库 stays one run";
  EXPECT_EQ(PhraseTerms("What is the lock timeout?"),
            (Phrases{{"lock"}, {"timeout"}, {"lock", "timeout"}}));
  for (const std::string_view only : {"什么是", "如何？", "是不是呢", "how is it", "What's that"}) {
    EXPECT_TRUE(ParseSearchQuery(only).empty()) << only;
  }
  EXPECT_FALSE(IsQueryStopWord("配置"));
  EXPECT_TRUE(IsQueryStopWord("如何"));
  EXPECT_TRUE(IsQueryStopWord("the"));
}

TEST(SearchQuery, PunctuationAndRepeatsAreDropped) {
  EXPECT_TRUE(ParseSearchQuery("").empty());
  EXPECT_TRUE(ParseSearchQuery("\"\" () ，。 !!!").empty());
  EXPECT_EQ(PhraseTerms("Redis redis ＲＥＤＩＳ"), (Phrases{{"redi"}}));
  const SearchQuery query = ParseSearchQuery("Redis\"的锁\"");
  ASSERT_EQ(query.phrases.size(), 2u);
  EXPECT_EQ(query.phrases[1].text, "的锁") << "the text an engine with the analyzer re-reads";
  EXPECT_TRUE(query.phrases[1].required);
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

// The plan of `query` over a million chunks, phrase i held by holding[i] of them.
SearchPlan PlanOf(const SearchQuery& query, std::vector<std::int64_t> holding) {
  return PlanSearch(query, 1000000, holding, 10);
}

TEST(PgTextSearch, FindersAreOredAndRequiredOnesAnded) {
  const SearchQuery optional = ParseSearchQuery("知识库 o'clock");  // 知识, 识库, o'clock
  EXPECT_EQ(TsFindersLiteral(optional, PlanOf(optional, {5, 5, 5})),
            "(('知识') | ('识库') | ('o''clock'))");
  EXPECT_EQ(TsFindersLiteral(optional, PlanOf(optional, {5, 600000, 900000})),
            "(('知识') | ('识库'))")
      << "a common phrase finds only when the rare ones hold too few chunks";
  const SearchQuery required = ParseSearchQuery("\"知识库\" lock \"死信\"");
  EXPECT_EQ(TsFindersLiteral(required, PlanOf(required, {5, 5, 5})),
            "(('知识' <-> '识库') & ('死信'))");
  EXPECT_EQ(TsFindersLiteral(ParseSearchQuery("!!!"), SearchPlan{}), "");
  SearchPlan with_sets = PlanOf(required, {5, 5, 5});
  with_sets.all_required = false;
  with_sets.finds = {false, true, false};
  with_sets.together = {{0, 2}};
  EXPECT_EQ(TsFindersLiteral(required, with_sets), "(('lock') | (('知识' <-> '识库') & ('死信')))")
      << "a set of phrases finds the chunks holding all of them";
}

TEST(SqliteFtsQuery, FindersThenEveryPhraseToScore) {
  const SearchQuery optional = ParseSearchQuery("知识库 o'clock");
  std::vector<double> coefficients;
  const SearchPlan plan = PlanOf(optional, {5, 600000, 900000});
  EXPECT_EQ(FtsQuery(optional, plan, coefficients),
            "(\"知识\" OR \"识库\") AND (\"知识\" OR \"识库\" OR \"o'clock\")");
  EXPECT_EQ(coefficients, (std::vector<double>{0, 0, plan.coefficient[0], plan.coefficient[1],
                                               plan.coefficient[2]}))
      << "the finders' copies score nothing; each phrase scores once";
  const SearchQuery required = ParseSearchQuery("\"知识库\" lock \"say hi\"");
  coefficients.clear();
  EXPECT_EQ(FtsQuery(required, PlanOf(required, {5, 5, 5}), coefficients),
            "(\"知识库\" AND \"say hi\") AND (\"知识库\" OR \"lock\" OR \"say hi\")");
  const SearchQuery syntax = ParseSearchQuery("NEAR(x* OR y)");
  coefficients.clear();
  EXPECT_EQ(
      FtsQuery(syntax, PlanOf(syntax, {1, 1, 1, 1}), coefficients),
      "(\"NEAR\" OR \"x\" OR \"NEAR(x\" OR \"y\") AND (\"NEAR\" OR \"x\" OR \"NEAR(x\" OR \"y\")")
      << "operators are words in strings";
  coefficients.clear();
  EXPECT_EQ(FtsQuery(ParseSearchQuery("!!!"), SearchPlan{}, coefficients), "");
  SearchPlan with_sets = PlanOf(optional, {5, 600000, 900000});
  with_sets.finds = {true, false, false};
  with_sets.together = {{1, 2}};
  coefficients.clear();
  EXPECT_EQ(FtsQuery(optional, with_sets, coefficients),
            "(\"知识\" OR (\"识库\" AND \"o'clock\")) AND (\"知识\" OR \"识库\" OR \"o'clock\")");
  EXPECT_EQ(coefficients, (std::vector<double>{0, 0, 0, with_sets.coefficient[0],
                                               with_sets.coefficient[1], with_sets.coefficient[2]}))
      << "a set's phrases are copies that score nothing too";
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
