#include "app/markdown_reading.h"

#include <algorithm>
#include <cstdint>

namespace docgate {
namespace {

constexpr std::size_t kNone = std::string_view::npos;

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

}  // namespace

std::string MarkdownWithLfLineEndings(std::string_view text) {
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
}  // namespace docgate
