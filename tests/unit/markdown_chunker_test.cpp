// SplitMarkdownIntoChunks and SplitMarkdownIntoChunksUpTo, against the contract in
// app/markdown_chunker.h.

#include "app/markdown_chunker.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <ostream>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/chunker.h"
#include "core/utf8.h"

namespace docgate {

// How gtest shows a chunk (found by argument-dependent lookup, so not in the unnamed namespace).
void PrintTo(const SectionedChunk& chunk, std::ostream* out) {
  *out << "{section: \"" << chunk.section << "\", text: \"" << chunk.text << "\"}";
}

namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

using SectionedChunks = std::vector<SectionedChunk>;

// Top-level names are unique among the test files: they are compiled in unity batches.
ChunkerConfig MarkdownSizes(std::size_t max_bytes, std::size_t overlap_bytes) {
  return ChunkerConfig{.max_bytes = max_bytes, .overlap_bytes = overlap_bytes};
}

SectionedChunk In(std::string section, std::string text) {
  return SectionedChunk{.section = std::move(section), .text = std::move(text)};
}

std::string WithCrLf(std::string_view lf) {
  std::string crlf;
  for (const char c : lf) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  return crlf;
}

bool IsMarkdownSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// The bytes of `text` that are not whitespace, in order.
std::string WithoutSpaces(std::string_view text) {
  std::string kept;
  for (const char c : text) {
    if (!IsMarkdownSpace(c)) kept += c;
  }
  return kept;
}

// The bytes of the chunks' texts that are not whitespace, in order: the content's, when the
// pieces of long blocks do not overlap.
std::string ChunkedText(const SectionedChunks& chunks) {
  std::string kept;
  for (const SectionedChunk& chunk : chunks) kept += WithoutSpaces(chunk.text);
  return kept;
}

// SplitIntoChunks's chunks of `text`, each in `section`.
SectionedChunks PlainChunksIn(const std::string& section, std::string_view text,
                              const ChunkerConfig& config) {
  SectionedChunks chunks;
  for (std::string& piece : SplitIntoChunks(text, config)) chunks.push_back(In(section, piece));
  return chunks;
}

std::string Repeated(std::string_view text, int times) {
  std::string repeated;
  for (int i = 0; i < times; ++i) repeated += text;
  return repeated;
}

std::vector<std::string_view> MarkdownLines(std::string_view text) {
  std::vector<std::string_view> lines;
  for (auto at = text.find('\n'); at != std::string_view::npos; at = text.find('\n')) {
    lines.push_back(text.substr(0, at));
    text.remove_prefix(at + 1);
  }
  lines.push_back(text);
  return lines;
}

// A Markdown document of random blocks (headings of every kind and level, Chinese and English
// prose, code, tables, breaks, lists, block quotes, link reference definitions), some longer than
// any chunk.
std::string RandomMarkdown(std::mt19937& random) {
  const std::vector<std::string> blocks = {
      "# 运维手册",
      "## 数据库",
      "### 备份 ###",
      "#### 恢复",
      "##",
      "标题\n====",
      "小节\n----",
      "每天凌晨两点备份数据库。备份保留三十天！需要恢复吗？请联系值班工程师。",
      "The backup runs nightly. It keeps thirty days of dumps, and restores take an hour.",
      "```bash\n# 不是标题\npg_dump docgate > backup.sql\n\necho 完成\n```",
      "~~~~\n```\n# 还在代码里\n~~~~",
      "| 名称 | 值 |\n|---|:-:|\n| 超时 | 30秒 |\n| 重试 | 3次 |\n| 并发 | 8 |",
      "***",
      // A blank line after it: a line that followed would continue it as a paragraph.
      "    # 缩进的代码不是标题\n",
      "一个很长的段落，没有句号也没有空格" + std::string(200, 'x'),
      "- 第一项\n- # 列表里的代码不是章节\n\n  第一项的续段。",
      "> # 引用里的代码不是章节\n> 引文。",
      "[参考]: https://example.com/参考",
  };
  std::string text;
  const int count = 5 + static_cast<int>(random() % 30);
  for (int i = 0; i < count; ++i) {
    text += blocks[random() % blocks.size()];
    text += random() % 4 == 0 ? "\n" : "\n\n";
  }
  return text;
}

TEST(MarkdownChunker, RefusesAnInvalidConfig) {
  EXPECT_THROW(SplitMarkdownIntoChunks("# 标题", MarkdownSizes(8, 0)), std::invalid_argument);
  EXPECT_THROW(SplitMarkdownIntoChunksUpTo("", MarkdownSizes(100, 100), 10), std::invalid_argument);
}

TEST(MarkdownChunker, WhitespaceOnlyContentYieldsNoChunk) {
  EXPECT_THAT(SplitMarkdownIntoChunks("", ChunkerConfig{}), IsEmpty());
  EXPECT_THAT(SplitMarkdownIntoChunks(" \n\n\t\r\n \f\v\n", ChunkerConfig{}), IsEmpty());
  EXPECT_EQ(SplitMarkdownIntoChunksUpTo("\n \n", ChunkerConfig{}, 0), SectionedChunks{});
}

TEST(MarkdownChunker, HeadingPathHasThreeLevels) {
  const std::string text = "# 运维手册\n\n概述。\n\n## 数据库\n\n### 备份\n\n每天凌晨备份。\n";
  EXPECT_THAT(
      SplitMarkdownIntoChunks(text, ChunkerConfig{}),
      ElementsAre(In("运维手册", "# 运维手册\n\n概述。"), In("运维手册 > 数据库", "## 数据库"),
                  In("运维手册 > 数据库 > 备份", "### 备份\n\n每天凌晨备份。")));
}

TEST(MarkdownChunker, HeadingPopsTheHeadingsOfItsLevelAndDeeper) {
  const std::string text =
      "# 手册\n## 数据库\n### 备份\n备份说明。\n## 监控\n监控说明。\n# 附录\n### 术语\n术语表。";
  EXPECT_THAT(SplitMarkdownIntoChunks(text, ChunkerConfig{}),
              ElementsAre(In("手册", "# 手册"), In("手册 > 数据库", "## 数据库"),
                          In("手册 > 数据库 > 备份", "### 备份\n\n备份说明。"),
                          In("手册 > 监控", "## 监控\n\n监控说明。"), In("附录", "# 附录"),
                          In("附录 > 术语", "### 术语\n\n术语表。")));
}

TEST(MarkdownChunker, AtxHeadingTextLosesClosingHashesAndEmptyTextsAreSkipped) {
  const std::string text =
      "  # 手册 ##\n## C# 入门 #\n### #\n#### 附注\n正文\n\n#标签\n\n####### 七级\n\n    # 缩进";
  EXPECT_THAT(SplitMarkdownIntoChunks(text, ChunkerConfig{}),
              ElementsAre(In("手册", "# 手册 ##"), In("手册 > C# 入门", "## C# 入门 #"),
                          In("手册 > C# 入门", "### #"),
                          In("手册 > C# 入门 > 附注",
                             "#### 附注\n\n正文\n\n#标签\n\n####### 七级\n\n# 缩进")));
}

TEST(MarkdownChunker, SectionKeepsTheFirstBytesOfALongHeadingText) {
  std::string title;
  for (int i = 0; i < 100; ++i) title += "标题";  // 600 bytes
  // 256 bytes end inside the 86th character: the section keeps 85 (255 bytes).
  const std::string kept = title.substr(0, 255);
  EXPECT_THAT(SplitMarkdownIntoChunks("# " + title + "\n## 小节", ChunkerConfig{}),
              ElementsAre(In(kept, "# " + title), In(kept + " > 小节", "## 小节")));
  EXPECT_THAT(SplitMarkdownIntoChunks(title + "\n副标题\n===", ChunkerConfig{}),
              ElementsAre(In(kept, title + "\n副标题\n===")));
}

TEST(MarkdownChunker, SetextHeadingsAreLevelOneAndTwo) {
  const std::string text =
      "运维手册\n====\n\n数据库\n备份\n---\n内容。\n\n日志\n===\n\n---\n\n结尾。";
  // A --- after a blank line is a thematic break, a block of its own.
  EXPECT_THAT(SplitMarkdownIntoChunks(text, ChunkerConfig{}),
              ElementsAre(In("运维手册", "运维手册\n===="),
                          In("运维手册 > 数据库 备份", "数据库\n备份\n---\n\n内容。"),
                          In("日志", "日志\n===\n\n---\n\n结尾。")));
}

TEST(MarkdownChunker, HashInsideAFencedCodeBlockIsNotAHeading) {
  const std::string text =
      "# 部署\n\n```bash\n# 安装依赖\n\napt-get install\n```\n\n~~~~\n```\n## "
      "仍是代码\n~~~\n~~~~~\n"
      "\n正文。\n\n```\n# 没有闭合";
  EXPECT_THAT(SplitMarkdownIntoChunks(text, ChunkerConfig{}),
              ElementsAre(In("部署",
                             "# 部署\n\n```bash\n# 安装依赖\n\napt-get install\n```\n\n~~~~\n```\n"
                             "## 仍是代码\n~~~\n~~~~~\n\n正文。\n\n```\n# 没有闭合")));
}

TEST(MarkdownChunker, LongCodeBlockIsCutOnlyAtLineEnds) {
  std::string code = "```";
  for (int i = 1; i <= 10; ++i) code += "\ncall(0" + std::to_string(i % 10) + ");";
  code += "\n```";
  const SectionedChunks chunks =
      SplitMarkdownIntoChunks("# 代码\n\n" + code, MarkdownSizes(40, 10));
  // 3 + 3 * 10 = 33 bytes; a fourth line would make 43. No overlap between the pieces.
  EXPECT_THAT(chunks,
              ElementsAre(In("代码", "# 代码"), In("代码", "```\ncall(01);\ncall(02);\ncall(03);"),
                          In("代码", "call(04);\ncall(05);\ncall(06);\ncall(07);"),
                          In("代码", "call(08);\ncall(09);\ncall(00);\n```")));
  const std::vector<std::string_view> block_lines = MarkdownLines(code);
  std::size_t next_line = 0;
  for (std::size_t k = 1; k < chunks.size(); ++k) {
    for (const std::string_view line : MarkdownLines(chunks[k].text)) {
      ASSERT_LT(next_line, block_lines.size());
      EXPECT_EQ(line, block_lines[next_line++]);
    }
  }
  EXPECT_EQ(next_line, block_lines.size());
}

TEST(MarkdownChunker, CodeLineLongerThanMaxIsCutAloneByThePlainChunker) {
  const std::string text = "```\nshort();\nprint(\"一句话。又一句话。第三句话。\");\nend();\n```";
  EXPECT_THAT(SplitMarkdownIntoChunks(text, MarkdownSizes(40, 10)),
              ElementsAre(In("", "```\nshort();"), In("", "print(\"一句话。又一句话。"),
                          In("", "句话。第三句话。\");"), In("", "end();\n```")));
}

TEST(MarkdownChunker, TableLargerThanMaxIsCutAtRowBoundaries) {
  const std::string text =
      "## 价格表\n\n"
      "| 名称 | 价格 |\n|------|-----:|\n| 苹果 | 5 |\n| 香蕉 | 3 |\n| 橙子 | 4 |\n\n"
      "以上。";
  // Header and delimiter: 19 + 1 + 15 = 35 bytes, and a 14-byte row would make 50.
  EXPECT_THAT(
      SplitMarkdownIntoChunks(text, MarkdownSizes(48, 10)),
      ElementsAre(In("价格表", "## 价格表"), In("价格表", "| 名称 | 价格 |\n|------|-----:|"),
                  In("价格表", "| 苹果 | 5 |\n| 香蕉 | 3 |\n| 橙子 | 4 |"),
                  In("价格表", "以上。")));
  // Without a | in its first line, the block is a paragraph, cut by the plain chunker (here at a
  // space, inside a row).
  EXPECT_THAT(
      SplitMarkdownIntoChunks("名称 价格\n|------|-----:|\n| 苹果 | 5 |\n| 香蕉 | 3 |",
                              MarkdownSizes(32, 0)),
      ElementsAre(In("", "名称 价格\n|------|-----:|\n|"), In("", "苹果 | 5 |\n| 香蕉 | 3 |")));
}

TEST(MarkdownChunker, IndentedCodeBlockIsCutOnlyAtLineEnds) {
  std::string code;
  for (int i = 1; i <= 10; ++i) code += "    call(0" + std::to_string(i % 10) + ");\n";
  // Lines are packed as written, their indentation inside a piece kept: 9 + 2 * (5 + 9) = 37.
  EXPECT_THAT(
      SplitMarkdownIntoChunks("# 代码\n\n" + code + "\n正文。", MarkdownSizes(40, 10)),
      ElementsAre(In("代码", "# 代码"), In("代码", "call(01);\n    call(02);\n    call(03);"),
                  In("代码", "call(04);\n    call(05);\n    call(06);"),
                  In("代码", "call(07);\n    call(08);\n    call(09);"), In("代码", "call(00);"),
                  In("代码", "正文。")));
}

TEST(MarkdownChunker, ListLongerThanMaxIsCutAtItemsAndKeepsAllItsText) {
  const std::string text =
      "## 清单\n\n"
      "- 第一项很短\n- 第二项也很短\n- 第三项很长。第三项的第二句。\n  第三项的续行。\n- 末项\n\n"
      "结尾。";
  const SectionedChunks chunks = SplitMarkdownIntoChunks(text, MarkdownSizes(40, 0));
  // 17 + 1 + 20 = 38 bytes of whole items; the third item (68 bytes) is cut by the plain chunker.
  EXPECT_THAT(chunks, ElementsAre(In("清单", "## 清单"), In("清单", "- 第一项很短\n- 第二项也很短"),
                                  In("清单", "- 第三项很长。"), In("清单", "第三项的第二句。"),
                                  In("清单", "第三项的续行。"), In("清单", "- 末项"),
                                  In("清单", "结尾。")));
  EXPECT_EQ(ChunkedText(chunks), WithoutSpaces(text));
}

TEST(MarkdownChunker, HeadingInsideAListOrABlockQuoteIsNoSection) {
  const std::string text = "# 手册\n\n- # 列表里的标题\n- 第二项\n\n> ## 引用里的标题\n\n正文。\n";
  EXPECT_THAT(SplitMarkdownIntoChunks(text, ChunkerConfig{}),
              ElementsAre(In(
                  "手册", "# 手册\n\n- # 列表里的标题\n- 第二项\n\n> ## 引用里的标题\n\n正文。")));
}

TEST(MarkdownChunker, LinkReferenceDefinitionsAreKept) {
  // CommonMark reads them as no block: the first joins no block (there is none before it, and a
  // heading after it), the second the paragraph after it, the third the paragraph before the
  // heading after it, the last the heading before it.
  const std::string text =
      "[前言]: /intro\n# 链接\n\n[文档]: https://example.com/docs\n\n见[文档]。\n\n[尾注]: /notes "
      "\"标题\"\n\n# 下一节\n\n[孤立]: /x\n";
  EXPECT_THAT(SplitMarkdownIntoChunks(text, ChunkerConfig{}),
              ElementsAre(In("", "[前言]: /intro"),
                          In("链接",
                             "# 链接\n\n[文档]: https://example.com/docs\n\n见[文档]。\n\n[尾注]: "
                             "/notes \"标题\""),
                          In("下一节", "# 下一节\n\n[孤立]: /x")));
}

TEST(MarkdownChunker, HeadingTextIsThePlainTextOfItsInlines) {
  const std::string text =
      "# [运维](/ops) ![图标](i.png) <b>手册</b> `v2`\n正文\n\n"
      "第一行\n*第二行*\n===\n## 空格&#10;换行";
  EXPECT_THAT(
      SplitMarkdownIntoChunks(text, ChunkerConfig{}),
      ElementsAre(In("运维 图标 手册 v2", "# [运维](/ops) ![图标](i.png) <b>手册</b> `v2`\n\n正文"),
                  In("第一行 第二行", "第一行\n*第二行*\n==="),
                  In("第一行 第二行 > 空格 换行", "## 空格&#10;换行")));
}

TEST(MarkdownChunker, ChineseDocumentThroughout) {
  const std::string text =
      "前言：本手册说明**部署**与运维。\n\n"
      "# 部署指南\n\n"
      "## 安装 `docgate`\n\n1. 安装依赖。\n2. 配置[数据库][库]。\n3. 启动服务。\n\n"
      "[库]: https://example.com/数据库\n\n```bash\n# 安装\napt-get install docgate\n```\n\n"
      "## 配置 *参数*\n\n"
      "| 参数 | 默认值 | 说明 |\n|------|-------:|------|\n"
      "| 超时 | 30秒 | 请求超时 |\n| 重试 | 3次 | 失败重试 |\n\n"
      "> 注意：修改配置后需要重启。\n> 重启不会丢失数据。\n\n"
      "故障排查\n--------\n\n日志位于 `/var/log/docgate`。遇到问题请先查看日志！\n";
  EXPECT_THAT(
      SplitMarkdownIntoChunks(text, ChunkerConfig{}),
      ElementsAre(
          In("", "前言：本手册说明**部署**与运维。"), In("部署指南", "# 部署指南"),
          In("部署指南 > 安装 docgate",
             "## 安装 `docgate`\n\n1. 安装依赖。\n2. 配置[数据库][库]。\n3. 启动服务。\n\n[库]: "
             "https://example.com/数据库\n\n```bash\n# 安装\napt-get install docgate\n```"),
          In("部署指南 > 配置 参数",
             "## 配置 *参数*\n\n"
             "| 参数 | 默认值 | 说明 |\n|------|-------:|------|\n"
             "| 超时 | 30秒 | 请求超时 |\n| 重试 | 3次 | 失败重试 |\n\n"
             "> 注意：修改配置后需要重启。\n> 重启不会丢失数据。"),
          In("部署指南 > 故障排查",
             "故障排查\n--------\n\n日志位于 `/var/log/docgate`。遇到问题请先查看日志！")));
  // Cut small, the table at its rows, the list at its items, prose after full stops.
  const ChunkerConfig small = MarkdownSizes(48, 0);
  const SectionedChunks chunks = SplitMarkdownIntoChunks(text, small);
  EXPECT_EQ(ChunkedText(chunks), WithoutSpaces(text));
  EXPECT_THAT(chunks,
              Contains(In("部署指南 > 安装 docgate", "1. 安装依赖。\n2. 配置[数据库][库]。")));
  EXPECT_THAT(chunks, Contains(In("部署指南 > 配置 参数", "| 超时 | 30秒 | 请求超时 |")));
  EXPECT_THAT(chunks, Contains(In("部署指南 > 故障排查", "遇到问题请先查看日志！")));
}

TEST(MarkdownChunker, TableOfFarMoreCellsThanBytesIsReadAsAParagraph) {
  // 300 columns, and 300 rows of one cell each that the table extension would fill up to 300:
  // cmark-gfm 0.29.0.gfm.6 takes time and memory for every cell.
  const std::string table =
      Repeated("|列", 300) + "|\n" + Repeated("|-", 300) + "|" + Repeated("\n值", 300);
  SectionedChunks expected = {In("宽表", "## 宽表")};
  for (SectionedChunk& chunk : PlainChunksIn("宽表", table, ChunkerConfig{})) {
    expected.push_back(std::move(chunk));
  }
  EXPECT_EQ(SplitMarkdownIntoChunks("## 宽表\n\n" + table, ChunkerConfig{}), expected);
}

TEST(MarkdownChunker, DeepListWithManyBlankLinesIsCutAsPlainText) {
  // cmark-gfm 0.29.0.gfm.6 walks all 2000 open list items at each blank line.
  const std::string text =
      "# 标题\n\n" + Repeated("- ", 2000) + "深\n" + std::string(2000, '\n') + "尾\n";
  EXPECT_EQ(SplitMarkdownIntoChunks(text, ChunkerConfig{}),
            PlainChunksIn("", text, ChunkerConfig{}));
}

TEST(MarkdownChunker, ManyImageOpenersInOneParagraphAreCutAsPlainText) {
  // cmark-gfm 0.29.0.gfm.6 walks back past every "![" still open at each link it closes.
  const std::string text = "# 图\n\n" + Repeated("![[]()", 3000);
  EXPECT_EQ(SplitMarkdownIntoChunks(text, ChunkerConfig{}),
            PlainChunksIn("", text, ChunkerConfig{}));
}

TEST(MarkdownChunker, TwoSmallSectionsNeverShareAChunk) {
  EXPECT_THAT(SplitMarkdownIntoChunks("# 甲\n\n短。\n\n# 乙\n\n短。", ChunkerConfig{}),
              ElementsAre(In("甲", "# 甲\n\n短。"), In("乙", "# 乙\n\n短。")));
}

TEST(MarkdownChunker, BlocksOfOneSectionArePackedWhileTheyFit) {
  // 9 + 2 + 9 + 2 + 9 = 31 bytes fit 31; the fourth paragraph starts the next chunk.
  EXPECT_THAT(
      SplitMarkdownIntoChunks("## 说明\n\n第一段\n\n第二段\n\n第三段", MarkdownSizes(31, 0)),
      ElementsAre(In("说明", "## 说明\n\n第一段\n\n第二段"), In("说明", "第三段")));
}

TEST(MarkdownChunker, LongChineseParagraphIsCutAfterFullStops) {
  // 21 + 24 bytes fill 45; the paragraph (60 bytes) ends the heading's chunk.
  const std::string text = "## 说明\n\n第一句话很短。第二句话也很短。第三句话。\n\n附言。";
  EXPECT_THAT(SplitMarkdownIntoChunks(text, MarkdownSizes(45, 0)),
              ElementsAre(In("说明", "## 说明"), In("说明", "第一句话很短。第二句话也很短。"),
                          In("说明", "第三句话。"), In("说明", "附言。")));
}

TEST(MarkdownChunker, TextBeforeTheFirstHeadingHasNoSection) {
  EXPECT_THAT(SplitMarkdownIntoChunks("前言。\n\n# 正文\n\n内容。", ChunkerConfig{}),
              ElementsAre(In("", "前言。"), In("正文", "# 正文\n\n内容。")));
}

TEST(MarkdownChunker, CrLfGivesTheSameChunksAsLf) {
  const std::string lf =
      "前言。\n\n# 运维手册\n\n## 数据库\n\n```sql\nSELECT 1;\n\nSELECT 2;\n```\n\n| 甲 | 乙 "
      "|\n|---|---|\n"
      "| 1 | 2 |\n\n标题\n---\n第一句话很短。第二句话也很短。第三句话。\n";
  for (const ChunkerConfig& config :
       {ChunkerConfig{}, MarkdownSizes(45, 10), MarkdownSizes(16, 4)}) {
    const SectionedChunks chunks = SplitMarkdownIntoChunks(lf, config);
    EXPECT_EQ(SplitMarkdownIntoChunks(WithCrLf(lf), config), chunks);
  }
  // A run of CRs before a LF is read as one line end too.
  EXPECT_THAT(SplitMarkdownIntoChunks("# 标题\r\r\n正文\r\n", ChunkerConfig{}),
              ElementsAre(In("标题", "# 标题\n\n正文")));
}

TEST(MarkdownChunker, UpToMaxChunksGivesTheChunksOrNothingWhenThereAreMore) {
  const std::string text = "# 甲\n\n短。\n\n# 乙\n\n第一句话很短。第二句话也很短。第三句话。";
  const ChunkerConfig config = MarkdownSizes(45, 0);
  const SectionedChunks chunks = SplitMarkdownIntoChunks(text, config);
  ASSERT_EQ(chunks.size(), 4u);
  EXPECT_EQ(SplitMarkdownIntoChunksUpTo(text, config, 4), chunks);
  EXPECT_EQ(SplitMarkdownIntoChunksUpTo(text, config, 100), chunks);
  // The limit falls among the pieces of the long paragraph, then at a section's end.
  EXPECT_EQ(SplitMarkdownIntoChunksUpTo(text, config, 3), std::nullopt);
  EXPECT_EQ(SplitMarkdownIntoChunksUpTo(text, config, 1), std::nullopt);
  EXPECT_EQ(SplitMarkdownIntoChunksUpTo(text, config, 0), std::nullopt);
  // ... and among the lines of a long code block.
  const std::string code = "```\ncall(01);\ncall(02);\ncall(03);\ncall(04);\n```";
  EXPECT_EQ(SplitMarkdownIntoChunksUpTo(code, MarkdownSizes(20, 0), 3)->size(), 3u);
  EXPECT_EQ(SplitMarkdownIntoChunksUpTo(code, MarkdownSizes(20, 0), 2), std::nullopt);
}

TEST(MarkdownChunker, IsDeterministicAndWellFormedOnRandomDocuments) {
  std::mt19937 random(20240601);
  for (int round = 0; round < 200; ++round) {
    const std::string text = RandomMarkdown(random);
    const ChunkerConfig config = MarkdownSizes(16 + random() % 300, 0);
    const SectionedChunks chunks = SplitMarkdownIntoChunks(text, config);
    ASSERT_FALSE(chunks.empty());
    EXPECT_EQ(SplitMarkdownIntoChunks(text, config), chunks);
    EXPECT_EQ(SplitMarkdownIntoChunksUpTo(text, config, chunks.size()), chunks);
    EXPECT_EQ(SplitMarkdownIntoChunksUpTo(text, config, chunks.size() - 1), std::nullopt);
    for (const SectionedChunk& chunk : chunks) {
      ASSERT_FALSE(chunk.text.empty());
      EXPECT_LE(chunk.text.size(), config.max_bytes) << chunk.text;
      EXPECT_FALSE(IsMarkdownSpace(chunk.text.front()) || IsMarkdownSpace(chunk.text.back()));
      EXPECT_TRUE(Utf8Length(chunk.text).has_value()) << chunk.text;
      EXPECT_EQ(chunk.section.find('\n'), std::string::npos) << chunk.section;
      // Code, indented or fenced, holds no heading, and a list or a block quote no section.
      EXPECT_EQ(chunk.section.find("代码"), std::string::npos) << chunk.section;
    }
  }
}

}  // namespace
}  // namespace docgate
