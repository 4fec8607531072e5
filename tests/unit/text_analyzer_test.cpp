#include "app/text_analyzer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

namespace docgate {
namespace {

// The terms of a text analysed as a query (no single characters of Han and kana runs).
std::vector<std::string> Terms(std::string_view text, AnalyzerUse use = AnalyzerUse::kQuery) {
  std::vector<std::string> terms;
  for (const AnalyzedTerm& t : AnalyzeText(text, use)) terms.push_back(t.term);
  return terms;
}

// "term@position" for each term of a text analysed for the index.
std::vector<std::string> Positioned(std::string_view text) {
  std::vector<std::string> out;
  for (const AnalyzedTerm& t : AnalyzeText(text, AnalyzerUse::kIndex)) {
    out.push_back(t.term + "@" + std::to_string(t.position));
  }
  return out;
}

// Every term's offsets name the text it came from.
std::vector<std::string> Sources(std::string_view text, AnalyzerUse use = AnalyzerUse::kQuery) {
  std::vector<std::string> sources;
  for (const AnalyzedTerm& t : AnalyzeText(text, use)) {
    sources.emplace_back(text.substr(t.begin, t.end - t.begin));
  }
  return sources;
}

TEST(TextAnalyzer, ChineseIsIndexedAsOverlappingBigramsWithByteOffsets) {
  const std::string text = "知识库，消息队列";
  EXPECT_EQ(Terms(text), (std::vector<std::string>{"知识", "识库", "消息", "息队", "队列"}))
      << "the comma ends a run: no bigram spans it";
  EXPECT_EQ(Sources(text), Terms(text));
  const auto terms = AnalyzeText(text, AnalyzerUse::kQuery);
  EXPECT_EQ(terms[0].begin, 0u);
  EXPECT_EQ(terms[0].end, 6u);
  EXPECT_EQ(terms[2].begin, 12u) << "after 知识库 (9 bytes) and the full-width comma (3)";
}

TEST(TextAnalyzer, EveryTwoCharacterWordOfASentenceIsATerm) {
  // Whatever the dictionary makes of the sentence, each adjacent pair is a term.
  const std::vector<std::string> terms = Terms("权限系统用分布式锁保护");
  for (const char* word : {"权限", "系统", "分布", "布式", "式锁", "保护"}) {
    EXPECT_NE(std::find(terms.begin(), terms.end(), word), terms.end()) << word;
  }
  EXPECT_EQ(terms.size(), 10u) << "11 characters, 10 bigrams";
}

TEST(TextAnalyzer, TheIndexAlsoHoldsEachCharacterAtItsBigramsPosition) {
  EXPECT_EQ(Positioned("加锁了 ok"),
            (std::vector<std::string>{"加锁@0", "加@0", "锁了@1", "锁@1", "了@1", "ok@2"}))
      << "the last character shares the last bigram's position, so phrases stay adjacent";
  EXPECT_EQ(Positioned("锁"), std::vector<std::string>{"锁@0"});
  EXPECT_EQ(Sources("加锁", AnalyzerUse::kIndex), (std::vector<std::string>{"加锁", "加", "锁"}));
  EXPECT_EQ(Positioned("redis 知识库"),
            (std::vector<std::string>{"redi@0", "知识@1", "知@1", "识库@2", "识@2", "库@2"}));
}

TEST(TextAnalyzer, QueryPositionsAreConsecutive) {
  std::vector<std::uint32_t> positions;
  for (const AnalyzedTerm& t : AnalyzeText("使用Redis做分布式锁", AnalyzerUse::kQuery)) {
    positions.push_back(t.position);
  }
  EXPECT_EQ(positions, (std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5}));
}

TEST(TextAnalyzer, ALoneHanCharacterIsOneTerm) {
  EXPECT_EQ(Terms("锁"), std::vector<std::string>{"锁"});
  EXPECT_EQ(Terms("Redis 锁 lock"), (std::vector<std::string>{"redi", "锁", "lock"}));
}

TEST(TextAnalyzer, MixedScriptsSplitAtTheScriptBoundary) {
  EXPECT_EQ(Terms("使用Redis做分布式锁"),
            (std::vector<std::string>{"使用", "redi", "做分", "分布", "布式", "式锁"}));
  EXPECT_EQ(Sources("API网关"), (std::vector<std::string>{"API", "网关"}));
}

TEST(TextAnalyzer, JapaneseKanaAndKanjiFormOneRun) {
  EXPECT_EQ(Terms("東京タワー"), (std::vector<std::string>{"東京", "京タ", "タワ", "ワー"}));
}

TEST(TextAnalyzer, TheIndexSplitsIdentifiersIntoTheirPartsAndKeepsTheWhole) {
  EXPECT_EQ(Positioned("set lock_timeout now"),
            (std::vector<std::string>{"set@0", "lock_timeout@1", "lock@1", "timeout@1", "now@2"}))
      << "the parts share the word's position, so phrases through the word stay adjacent";
  EXPECT_EQ(Positioned("RabbitMQ"), (std::vector<std::string>{"rabbitmq@0", "rabbit@0", "mq@0"}));
  const auto parts = [](std::string_view text) {
    std::vector<std::string> out;
    for (const AnalyzedTerm& t : AnalyzeText(text, AnalyzerUse::kIndex)) {
      if (t.end - t.begin < text.size()) out.push_back(t.term);
    }
    return out;
  };
  EXPECT_EQ(parts("readinessProbe"), (std::vector<std::string>{"readi", "probe"}));
  EXPECT_EQ(parts("mTLS"), (std::vector<std::string>{"m", "tls"}));
  EXPECT_EQ(parts("HTTPServer"), (std::vector<std::string>{"http", "server"}));
  EXPECT_EQ(parts("alerts.yml"), (std::vector<std::string>{"alert", "yml"}));
  EXPECT_EQ(Sources("pg_restore", AnalyzerUse::kIndex),
            (std::vector<std::string>{"pg_restore", "pg", "restore"}));
  for (const char* word : {"3.14", "x86", "k8s", "don't", "redis"}) {
    EXPECT_EQ(Sources(word, AnalyzerUse::kIndex), std::vector<std::string>{word})
        << "digits stay with their word, a number keeps its point";
  }
  EXPECT_EQ(Terms("RabbitMQ lock_timeout"), (std::vector<std::string>{"rabbitmq", "lock_timeout"}))
      << "a query keeps the whole word, which the index has too";
}

TEST(TextAnalyzer, WidthAndCaseFoldTogether) {
  EXPECT_EQ(Terms("Ｒｅｄｉｓ"), Terms("redis"));
  EXPECT_EQ(Terms("REDIS"), Terms("redis"));
  EXPECT_EQ(Terms("ｶﾀｶﾅ"), Terms("カタカナ")) << "half-width katakana";
  EXPECT_EQ(Terms("ﬁle"), Terms("file")) << "a ligature";
  EXPECT_EQ(Sources("Ｒｅｄｉｓ"), std::vector<std::string>{"Ｒｅｄｉｓ"})
      << "offsets are the original text's";
}

TEST(TextAnalyzer, EnglishWordsAreStemmed) {
  EXPECT_EQ(Terms("locks"), Terms("lock"));
  EXPECT_EQ(Terms("reviews reviewed reviewing"), (std::vector<std::string>(3, "review")));
  EXPECT_EQ(Terms("x86 2026"), (std::vector<std::string>{"x86", "2026"}))
      << "numbers and words with digits are not stemmed";
}

TEST(TextAnalyzer, WordsOfOtherScriptsGetTheStemsOfTheirLanguage) {
  EXPECT_EQ(Terms("базы базе"), Terms("база база")) << "Russian";
  EXPECT_EQ(Terms("δεδομένων"), Terms("δεδομένα")) << "Greek";
  EXPECT_EQ(Terms("सर्वरों"), Terms("सर्वर")) << "Hindi, with its combining marks";
  EXPECT_EQ(Terms("Redisа"), std::vector<std::string>{"redisа"}) << "two scripts: no stem";
}

TEST(TextAnalyzer, ScriptsWithSpacesOrTheirOwnDictionaryKeepTheirWords) {
  EXPECT_EQ(Terms("데이터베이스 서버"), (std::vector<std::string>{"데이터베이스", "서버"}));
  const std::vector<std::string> thai = Terms("ภาษาไทยง่ายนิดเดียว");
  EXPECT_GT(thai.size(), 1u) << "Thai is split into words by the dictionary";
}

TEST(TextAnalyzer, AnyInputIsAnalysedWithoutError) {
  EXPECT_TRUE(AnalyzeText("", AnalyzerUse::kIndex).empty());
  EXPECT_TRUE(AnalyzeText(" \t\n，。！", AnalyzerUse::kIndex).empty());
  // Lone combining marks, marks on a letter, a right-to-left mark before Hebrew.
  for (const std::string text : {"\xCC\x81\xCC\x81",
                                 "a\xCC\x81\xCC\x81"
                                 "b",
                                 "\xE2\x80\x8F\xD7\x90"}) {
    for (const AnalyzedTerm& t : AnalyzeText(text, AnalyzerUse::kIndex)) {
      EXPECT_FALSE(t.term.empty());
      EXPECT_LE(t.begin, t.end);
      EXPECT_LE(t.end, text.size());
    }
  }
  EXPECT_EQ(Terms("ok \xFF\xFE broken"), (std::vector<std::string>{"ok", "broken"}));
  EXPECT_NO_THROW(AnalyzeText("👩‍👩‍👧‍👦 🇨🇳 ❤️", AnalyzerUse::kIndex));
  EXPECT_EQ(Terms("שלום עולם"), (std::vector<std::string>{"שלום", "עולם"})) << "right to left";
  std::string long_run;
  for (int i = 0; i < 10'000; ++i) long_run += "数据";
  EXPECT_EQ(AnalyzeText(long_run, AnalyzerUse::kQuery).size(), 19'999u)
      << "20,000 characters, one run: its bigrams";
  EXPECT_EQ(AnalyzeText(long_run, AnalyzerUse::kIndex).size(), 39'999u)
      << "and, for the index, each character too";
}

TEST(TextAnalyzer, ThreadsAnalyseIndependently) {
  std::vector<std::thread> threads;
  std::vector<std::vector<std::string>> results(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) results[t] = Terms("消息队列 reviews Ｒｅｄｉｓ");
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const auto& result : results) {
    EXPECT_EQ(result, (std::vector<std::string>{"消息", "息队", "队列", "review", "redi"}));
  }
}

}  // namespace
}  // namespace docgate
