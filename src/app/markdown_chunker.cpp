#include "app/markdown_chunker.h"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <utility>

#include "core/utf8.h"

namespace docgate {
namespace {

constexpr std::string_view kBlockJoint = "\n\n";
constexpr std::string_view kPathJoint = " > ";
constexpr std::size_t kNone = std::string_view::npos;

constexpr bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// A whole run of CRs before a LF goes, not just one CR: SplitIntoChunks, which cuts the long
// paragraphs, reads CRLF as LF once more, and must find none left, or its chunks would not be the
// text's.
std::string WithLfLineEndings(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t from = 0;
  for (std::size_t cr = text.find('\r'); cr != kNone; cr = text.find('\r', from)) {
    std::size_t run_end = text.find_first_not_of('\r', cr);
    if (run_end == kNone) run_end = text.size();
    const bool before_lf = run_end < text.size() && text[run_end] == '\n';
    out.append(text.substr(from, (before_lf ? cr : run_end) - from));
    from = run_end;
  }
  out.append(text.substr(from));
  return out;
}

// The lines of a text as cmark-gfm numbers them, from 1: each ends at a LF or a CR (no CR is
// before a LF any more).
class SourceLines {
 public:
  explicit SourceLines(std::string_view text) : text_(text) {
    starts_.push_back(0);
    for (std::size_t at = 0; at < text.size(); ++at) {
      if (text[at] == '\n' || text[at] == '\r') starts_.push_back(at + 1);
    }
  }

  int Count() const { return static_cast<int>(starts_.size()); }

  // Lines first..last (1 <= first <= last <= Count()), without the last one's line end.
  std::string_view Span(int first, int last) const {
    const std::size_t begin = starts_[first - 1];
    const std::size_t end = last < Count() ? starts_[last] - 1 : text_.size();
    return text_.substr(begin, end - begin);
  }

  std::string_view Line(int line) const { return Span(line, line); }

 private:
  std::string_view text_;
  std::vector<std::size_t> starts_;
};

// How a text is read. Debian 12's cmark-gfm (0.29.0.gfm.6) lacks upstream's 2023 fixes of
// superlinear paths (GHSA-29g3-96g3-jg6c, GHSA-66g8-4hjf-77xh, GHSA-w4qg-3vf7-m9x5, ...); measured
// here, a 24 KB table took 17 s and 3.7 GB, 60 KB of blank lines in a deep list 4.6 s. The paths
// are bounded from above in one pass over the lines (ChooseReading), and a text that would go far
// beyond what any text written for people needs is read without them.
enum class Reading {
  kWithTables,     // cmark-gfm with the table extension
  kWithoutTables,  // cmark-gfm alone: tables are paragraphs
  kPlain,          // SplitIntoChunks, no sections
};

// Beyond this size a text is not parsed (cmark-gfm's buffers abort the process past 1 GiB, its
// tree takes about 250 bytes a byte); docgate's requests are far smaller. It also keeps the
// bounds below from overflowing 64 bits.
constexpr std::uint64_t kMaxParsedBytes = std::uint64_t{16} << 20;

// The budgets, each so much per byte of text plus a base: cells the table extension adds to its
// rows (half a cell a byte, as many as a table of one-byte cells has; about 1.3 us and 240 bytes
// each); bytes of paragraph it parses again as a table's header at each line that may be a
// delimiter row (about 40 ns each); containers it walks for a lazy or blank line in deep lists
// and block quotes (about 15 ns each); image openers it walks past for each closing bracket
// (about 2 ns each).
constexpr std::uint64_t kTableCellsBase = std::uint64_t{1} << 16;
constexpr std::uint64_t kHeaderBytesPerByte = 4;
constexpr std::uint64_t kHeaderBytesBase = std::uint64_t{1} << 20;
constexpr std::uint64_t kContainerWalksPerByte = 16;
constexpr std::uint64_t kContainerWalksBase = std::uint64_t{1} << 20;
constexpr std::uint64_t kImageWalksPerByte = 64;
constexpr std::uint64_t kImageWalksBase = std::uint64_t{1} << 22;

// A blank line of CommonMark: only spaces and tabs.
bool IsBlankLine(std::string_view line) { return line.find_first_not_of(" \t") == kNone; }

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// At least the depth of the block quotes and list items that `line` opens or continues: its >,
// its list markers and half its columns of indentation (a nested item's content is 2 columns in
// at least).
std::uint64_t ContainerDepthBound(std::string_view line) {
  const auto spaced = [&](std::size_t at) {
    return at >= line.size() || line[at] == ' ' || line[at] == '\t';
  };
  std::uint64_t markers = 0;
  std::uint64_t columns = 0;
  std::size_t at = 0;
  while (at < line.size()) {
    const char c = line[at];
    if (c == ' ' || c == '\t') {
      columns += c == ' ' ? 1 : 4;
      ++at;
    } else if (c == '>' || ((c == '-' || c == '+' || c == '*') && spaced(at + 1))) {
      ++markers;
      ++at;
    } else if (IsDigit(c)) {
      std::size_t end = at;
      while (end < line.size() && end - at < 9 && IsDigit(line[end])) ++end;
      if (end == line.size() || (line[end] != '.' && line[end] != ')') || !spaced(end + 1)) break;
      ++markers;
      at = end + 1;
    } else {
      break;
    }
  }
  return markers + (columns + 1) / 2;
}

// When `line` may be a table's delimiter row (after the > and indentation of its containers,
// only |, :, - and spaces, with a -), its runs of -, at least its cells; else 0.
std::uint64_t DelimiterCellsBound(std::string_view line) {
  const std::size_t start = line.find_first_not_of(" \t>");
  if (start == kNone) return 0;
  std::uint64_t runs = 0;
  char previous = 0;
  for (const char c : line.substr(start)) {
    if (c == '-') {
      if (previous != '-') ++runs;
    } else if (c != '|' && c != ':' && c != ' ' && c != '\t' && c != '\f' && c != '\v') {
      return 0;
    }
    previous = c;
  }
  return runs;
}

// Whether `line` surely ends the paragraph before it, wherever it is (but in code and HTML, which
// hold no inlines): a bullet list item with text, or an ATX heading, indented by 3 spaces at most.
bool EndsAParagraph(std::string_view line) {
  const std::size_t start = line.find_first_not_of(' ');
  if (start == kNone || start > 3) return false;
  const std::string_view rest = line.substr(start);
  if (rest[0] == '-' || rest[0] == '+' || rest[0] == '*') {
    return rest.size() > 1 && (rest[1] == ' ' || rest[1] == '\t') && !IsBlankLine(rest.substr(1));
  }
  const std::size_t hashes = std::min(rest.find_first_not_of('#'), rest.size());
  return hashes >= 1 && hashes <= 6 &&
         (hashes == rest.size() || rest[hashes] == ' ' || rest[hashes] == '\t');
}

// Upper bounds of the superlinear paths' work, from the lines alone, and the reading they allow.
// A run is the lines between blank lines: no paragraph, table or lazy continuation outlives one.
Reading ChooseReading(std::string_view text, const SourceLines& lines) {
  const std::uint64_t size = text.size();
  if (size > kMaxParsedBytes) return Reading::kPlain;
  std::uint64_t table_cells = 0;
  std::uint64_t header_bytes = 0;
  std::uint64_t container_walks = 0;
  std::uint64_t image_walks = 0;
  std::uint64_t run_bytes = 0;
  std::uint64_t run_cells_per_row = 0;  // a table's rows have at most its delimiter row's cells
  std::uint64_t run_depth = 0;
  std::uint64_t last_run_depth = 0;  // list items stay open across blank lines
  std::uint64_t image_openers = 0;   // in the paragraph being read
  std::uint64_t brackets = 0;
  const auto end_paragraph = [&] {
    image_walks += image_openers * brackets;
    image_openers = 0;
    brackets = 0;
  };
  for (int number = 1; number <= lines.Count(); ++number) {
    const std::string_view line = lines.Line(number);
    if (IsBlankLine(line)) {
      end_paragraph();
      if (run_bytes > 0) last_run_depth = run_depth;
      run_bytes = run_cells_per_row = run_depth = 0;
      container_walks += last_run_depth;
      continue;
    }
    run_depth = std::max(run_depth, ContainerDepthBound(line));
    container_walks += run_depth;
    table_cells += run_cells_per_row;
    if (const std::uint64_t cells = DelimiterCellsBound(line)) {
      header_bytes += run_bytes;
      run_cells_per_row = std::max(run_cells_per_row, cells);
    }
    if (EndsAParagraph(line)) end_paragraph();
    for (std::size_t at = 0; at < line.size(); ++at) {
      if (line[at] == ']') ++brackets;
      if (line[at] == '!' && at + 1 < line.size() && line[at + 1] == '[') ++image_openers;
    }
    run_bytes += line.size() + 1;
  }
  end_paragraph();
  if (container_walks > kContainerWalksPerByte * size + kContainerWalksBase ||
      image_walks > kImageWalksPerByte * size + kImageWalksBase) {
    return Reading::kPlain;
  }
  if (table_cells > size / 2 + kTableCellsBase ||
      header_bytes > kHeaderBytesPerByte * size + kHeaderBytesBase) {
    return Reading::kWithoutTables;
  }
  return Reading::kWithTables;
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
  const std::string text = WithLfLineEndings(content);
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
