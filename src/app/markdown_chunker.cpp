#include "app/markdown_chunker.h"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <utility>

#include "app/markdown_reading.h"
#include "core/utf8.h"

namespace docgate {
namespace {

constexpr std::string_view kBlockJoint = "\n\n";
constexpr std::string_view kPathJoint = " > ";

constexpr bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// How a block longer than max_bytes is cut.
enum class Cut {
  kProse,  // by SplitIntoChunks
  kLines,  // at line ends: a code block or a table
  kItems,  // at its items' first lines: a list
};

// A top-level block of the text: lines first..last, with what its kind needs.
struct Block {
  int first = 1;
  int last = 0;  // last < first: no lines (a heading whose lines cmark-gfm gave another block)
  Cut cut = Cut::kProse;
  int heading_level = 0;  // 1..6 for a heading, which starts a section
  std::string heading_text;
  std::vector<int> item_lines;  // kItems: the first line of each item
};

bool IsEmpty(const Block& block) { return block.last < block.first; }

using ParserPtr = std::unique_ptr<cmark_parser, decltype(&cmark_parser_free)>;
using NodePtr = std::unique_ptr<cmark_node, decltype(&cmark_node_free)>;
using IterPtr = std::unique_ptr<cmark_iter, decltype(&cmark_iter_free)>;

// The table extension, registered once: cmark_gfm_core_extensions_ensure_registered must not run
// on two threads at once. Only this extension: those with inline syntax (strikethrough, autolink)
// switch characters on and off in a table global to the library while a parser reads inlines,
// which would race between threads that parse at once.
cmark_syntax_extension* TableExtension() {
  static cmark_syntax_extension* const table = [] {
    cmark_gfm_core_extensions_ensure_registered();
    return cmark_find_syntax_extension("table");
  }();
  return table;
}

// Appends `piece` to a heading's text: on one line, without leading whitespace.
void AppendHeadingText(std::string& text, std::string_view piece) {
  while (text.empty() && !piece.empty() && IsSpace(piece.front())) piece.remove_prefix(1);
  for (const char c : piece) text += c == '\n' || c == '\r' ? ' ' : c;
}

// The plain text of a heading's inlines; the first kMaxSectionHeadingBytes bytes and more, not
// necessarily all of it.
std::string HeadingText(cmark_node* heading) {
  std::string text;
  IterPtr iter(cmark_iter_new(heading), &cmark_iter_free);
  for (cmark_event_type event = cmark_iter_next(iter.get());
       event != CMARK_EVENT_DONE && text.size() <= kMaxSectionHeadingBytes;
       event = cmark_iter_next(iter.get())) {
    if (event != CMARK_EVENT_ENTER) continue;
    cmark_node* node = cmark_iter_get_node(iter.get());
    const cmark_node_type type = cmark_node_get_type(node);
    if (type == CMARK_NODE_TEXT || type == CMARK_NODE_CODE) {
      const char* literal = cmark_node_get_literal(node);
      if (literal != nullptr) AppendHeadingText(text, literal);
    } else if (type == CMARK_NODE_SOFTBREAK || type == CMARK_NODE_LINEBREAK) {
      AppendHeadingText(text, " ");
    }
  }
  return text;
}

// The document's top-level blocks, with the lines cmark-gfm gives them (which may overlap, or be
// 0 for a paragraph a table took the lines of).
std::vector<Block> TopLevelBlocks(std::string_view text, bool tables) {
  ParserPtr parser(cmark_parser_new(CMARK_OPT_DEFAULT), &cmark_parser_free);
  if (cmark_syntax_extension* table = tables ? TableExtension() : nullptr) {
    cmark_parser_attach_syntax_extension(parser.get(), table);
  }
  cmark_parser_feed(parser.get(), text.data(), text.size());
  const NodePtr document(cmark_parser_finish(parser.get()), &cmark_node_free);
  std::vector<Block> blocks;
  for (cmark_node* node = cmark_node_first_child(document.get()); node != nullptr;
       node = cmark_node_next(node)) {
    Block block;
    block.first = cmark_node_get_start_line(node);
    block.last = cmark_node_get_end_line(node);
    const cmark_node_type type = cmark_node_get_type(node);
    if (type == CMARK_NODE_HEADING) {
      block.heading_level = cmark_node_get_heading_level(node);
      block.heading_text = HeadingText(node);
    } else if (type == CMARK_NODE_CODE_BLOCK ||
               std::string_view(cmark_node_get_type_string(node)) == "table") {
      block.cut = Cut::kLines;
    } else if (type == CMARK_NODE_LIST) {
      block.cut = Cut::kItems;
      for (cmark_node* item = cmark_node_first_child(node); item != nullptr;
           item = cmark_node_next(item)) {
        block.item_lines.push_back(cmark_node_get_start_line(item));
      }
    }
    blocks.push_back(std::move(block));
  }
  return blocks;
}

// Gives the non-blank lines among from..to, which no block holds, to `next` unless it is a
// heading (or there is none), else to the last block of `blocks`, else to a block of their own.
void GiveUncoveredLines(int from, int to, const SourceLines& lines, Block* next,
                        std::vector<Block>& blocks) {
  int first = 0;
  int last = 0;
  for (int number = from; number <= to; ++number) {
    if (TrimmedOfAsciiSpace(lines.Line(number)).empty()) continue;
    if (first == 0) first = number;
    last = number;
  }
  if (first == 0) return;
  if (next != nullptr && next->heading_level == 0) {
    next->first = first;
  } else if (!blocks.empty()) {
    if (IsEmpty(blocks.back())) blocks.back().first = first;
    blocks.back().last = last;
  } else {
    Block uncovered;
    uncovered.first = first;
    uncovered.last = last;
    blocks.push_back(std::move(uncovered));
  }
}

// The blocks with lines that are in the text, in order and disjoint (a block ends before the
// next one's first line, which cmark-gfm's end lines do not always do), and every non-blank line
// in one of them. Blocks left without lines are dropped, but for headings, which still start
// their sections.
std::vector<Block> Arranged(std::vector<Block> blocks, const SourceLines& lines) {
  const int count = lines.Count();
  // later_first[i]: the least first line, from 1, among blocks i and after.
  std::vector<int> later_first(blocks.size() + 1, count + 1);
  for (std::size_t i = blocks.size(); i-- > 0;) {
    later_first[i] = later_first[i + 1];
    if (blocks[i].first >= 1) later_first[i] = std::min(later_first[i], blocks[i].first);
  }
  std::vector<Block> arranged;
  arranged.reserve(blocks.size());
  int covered = 0;  // lines 1..covered are given
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    Block& block = blocks[i];
    block.first = std::max(block.first, covered + 1);
    block.last = std::min({block.last, later_first[i + 1] - 1, count});
    if (IsEmpty(block)) {
      if (block.heading_level == 0) continue;
      block.first = covered + 1;
      block.last = covered;
    }
    GiveUncoveredLines(covered + 1, block.first - 1, lines, &block, arranged);
    covered = std::max(covered, block.last);
    arranged.push_back(std::move(block));
  }
  GiveUncoveredLines(covered + 1, count, lines, nullptr, arranged);
  return arranged;
}

// The pieces a block of `cut` is cut at, trimmed and non-empty: its lines, or its items.
std::vector<std::string_view> Units(const Block& block, const SourceLines& lines) {
  std::vector<std::string_view> units;
  const auto add = [&](int first, int last) {
    const std::string_view unit = TrimmedOfAsciiSpace(lines.Span(first, last));
    if (!unit.empty()) units.push_back(unit);
  };
  if (block.cut == Cut::kLines) {
    for (int number = block.first; number <= block.last; ++number) add(number, number);
    return units;
  }
  int unit_first = block.first;
  for (const int item_first : block.item_lines) {
    if (item_first <= unit_first || item_first > block.last) continue;
    add(unit_first, item_first - 1);
    unit_first = item_first;
  }
  add(unit_first, block.last);
  return units;
}

// Packs the blocks given to Add into the chunks of their sections, and cuts the long ones.
// Every member function returns false, and the packer must then be dropped, as soon as there are
// more than max_chunks chunks.
class SectionPacker {
 public:
  SectionPacker(const ChunkerConfig& config, std::size_t max_chunks, const SourceLines& lines)
      : config_(config), max_chunks_(max_chunks), lines_(lines) {}

  bool Add(const Block& block) {
    if (block.heading_level > 0) {
      if (!Flush()) return false;
      EnterSection(block.heading_level, block.heading_text);
    }
    if (IsEmpty(block)) return true;
    const std::string_view text = TrimmedOfAsciiSpace(lines_.Span(block.first, block.last));
    if (text.empty()) return true;
    if (text.size() > config_.max_bytes) {
      if (!Flush()) return false;
      return block.cut == Cut::kProse ? AddPieces(text) : AddUnits(Units(block, lines_));
    }
    if (!packed_.empty() && packed_.size() + kBlockJoint.size() + text.size() > config_.max_bytes &&
        !Flush()) {
      return false;
    }
    if (!packed_.empty()) packed_ += kBlockJoint;
    packed_ += text;
    return true;
  }

  bool Finish() { return Flush(); }

  std::vector<SectionedChunk> TakeChunks() { return std::move(chunks_); }

 private:
  void EnterSection(int level, std::string_view text) {
    while (!path_.empty() && path_.back().first >= level) path_.pop_back();
    path_.emplace_back(level, TrimmedOfAsciiSpace(Utf8Prefix(text, kMaxSectionHeadingBytes)));
    section_.clear();
    for (const auto& [heading_level, heading] : path_) {
      if (heading.empty()) continue;
      if (!section_.empty()) section_ += kPathJoint;
      section_ += heading;
    }
  }

  bool Push(std::string text) {
    chunks_.push_back(SectionedChunk{.section = section_, .text = std::move(text)});
    return chunks_.size() <= max_chunks_;
  }

  bool Flush() {
    if (packed_.empty()) return chunks_.size() <= max_chunks_;
    const bool fits = Push(std::move(packed_));
    packed_.clear();
    return fits;
  }

  // SplitIntoChunks's pieces of `text`, each a chunk.
  bool AddPieces(std::string_view text) {
    auto pieces = SplitIntoChunksUpTo(text, config_, max_chunks_ - chunks_.size());
    if (!pieces) return false;
    for (std::string& piece : *pieces) {
      chunks_.push_back(SectionedChunk{.section = section_, .text = std::move(piece)});
    }
    return true;
  }

  // The chunks of a block cut at its units (views into one text, in order): units packed whole,
  // as written between them, but for a unit too long alone.
  bool AddUnits(const std::vector<std::string_view>& units) {
    const char* begin = nullptr;  // the chunk being packed is [begin, end)
    const char* end = nullptr;
    for (const std::string_view unit : units) {
      const char* unit_end = unit.data() + unit.size();
      if (begin != nullptr && static_cast<std::size_t>(unit_end - begin) > config_.max_bytes) {
        if (!Push(std::string(begin, end))) return false;
        begin = nullptr;
      }
      if (unit.size() > config_.max_bytes) {
        if (!AddPieces(unit)) return false;
      } else {
        if (begin == nullptr) begin = unit.data();
        end = unit_end;
      }
    }
    return begin == nullptr || Push(std::string(begin, end));
  }

  ChunkerConfig config_;
  std::size_t max_chunks_;
  const SourceLines& lines_;
  std::vector<std::pair<int, std::string>> path_;  // the enclosing headings' levels and texts
  std::string section_;
  std::string packed_;
  std::vector<SectionedChunk> chunks_;
};

std::optional<std::vector<SectionedChunk>> PlainChunks(std::string_view text,
                                                       const ChunkerConfig& config,
                                                       std::size_t max_chunks) {
  auto pieces = SplitIntoChunksUpTo(text, config, max_chunks);
  if (!pieces) return std::nullopt;
  std::vector<SectionedChunk> chunks;
  chunks.reserve(pieces->size());
  for (std::string& piece : *pieces) {
    chunks.push_back(SectionedChunk{.section = "", .text = std::move(piece)});
  }
  return chunks;
}

}  // namespace

std::optional<std::vector<SectionedChunk>> SplitMarkdownIntoChunksUpTo(std::string_view content,
                                                                       const ChunkerConfig& config,
                                                                       std::size_t max_chunks) {
  if (auto error = ValidateChunkerConfig(config)) throw std::invalid_argument(*error);
  const std::string text = MarkdownWithLfLineEndings(content);
  const SourceLines lines(text);
  const Reading reading = ChooseReading(text, lines);
  if (reading == Reading::kPlain) return PlainChunks(text, config, max_chunks);
  const std::vector<Block> blocks =
      Arranged(TopLevelBlocks(text, reading == Reading::kWithTables), lines);
  SectionPacker packer(config, max_chunks, lines);
  for (const Block& block : blocks) {
    if (!packer.Add(block)) return std::nullopt;
  }
  if (!packer.Finish()) return std::nullopt;
  return packer.TakeChunks();
}

std::vector<SectionedChunk> SplitMarkdownIntoChunks(std::string_view content,
                                                    const ChunkerConfig& config) {
  return *SplitMarkdownIntoChunksUpTo(content, config, std::numeric_limits<std::size_t>::max());
}

}  // namespace docgate
