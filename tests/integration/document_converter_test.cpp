// ProcessConverter against the real converters (pandoc, poppler's pdftotext) and libzip: what a
// ZIP holds (docx, odt, another archive, a zip bomb, a truncated archive), Word, OpenDocument and
// HTML turned into Markdown with their headings, lists, table and emphasis, a PDF's Chinese text
// in paragraphs, the files it refuses (encrypted, without text, random bytes), its time and output
// limits, and conversions side by side. The fixtures are made by the test from Debian's tools
// (pandoc, chromium, qpdf, python3) in a temporary directory; a missing tool skips the tests that
// need it, saying which.

#include "adapters/convert/process_converter.h"

#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <optional>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "support/temp_dir.h"

namespace docgate {
namespace {

namespace fs = std::filesystem;

// The Markdown the Word, OpenDocument and HTML fixtures are made from.
constexpr std::string_view kConverterSourceMarkdown = R"(# 部署手册

本手册说明 **docgate** 的部署步骤，请*强调*安全。

## 安装步骤

1. 安装依赖包
2. 编译源代码
3. 启动服务

- 审核流程
- 向量索引

| 命令 | 说明 |
|------|------|
| make | 构建 |
)";

// The paragraphs of the PDF fixture; the third wraps onto a second line of the page. No ASCII
// punctuation, so that no Markdown escaping stands between them and the converter's output.
const char* const kConverterPdfParagraphs[] = {
    "审核通过后，系统触发切片、向量化与索引。",
    "文档导入支持网页、Word、OpenDocument 与 PDF 格式。",
    "每个转换进程都在独立的临时目录中运行，并受时间与内存限制；超过限制的转换会被终止，"
    "临时目录随后删除，服务器进程不会读取转换器的任何中间文件，也不会因为一个损坏的文件而停止服务"
    "。",
};

// A docx-looking ZIP whose word/document.xml is 400 MB of zeros, deflated to about 400 KB.
constexpr std::string_view kConverterZipBombScript = R"(import sys, zipfile
with zipfile.ZipFile(sys.argv[1], 'w', compression=zipfile.ZIP_DEFLATED) as zf:
    zf.writestr('[Content_Types].xml',
                '<?xml version="1.0" encoding="UTF-8"?>'
                '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
                '<Override PartName="/word/document.xml" ContentType="application/'
                'vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>')
    chunk = bytes(1024 * 1024)
    with zf.open('word/document.xml', 'w') as entry:
        for _ in range(400):
            entry.write(chunk)
)";

// A ZIP that is neither docx nor odt: one text entry.
constexpr std::string_view kConverterPlainZipScript = R"(import sys, zipfile
with zipfile.ZipFile(sys.argv[1], 'w', compression=zipfile.ZIP_DEFLATED) as zf:
    zf.writestr('notes.txt', '只是一个文本文件，不是文档。\n')
)";

// A file a test converts, or why it has none: `skip` when a tool is missing (the test is
// skipped), `error` when a present tool failed to make it (the test fails).
// Where the fixtures are kept between the suite's processes (in the temporary directory); its
// version changes with what the fixtures hold.
constexpr char kFixtureCache[] = "docgate-converter-fixtures-v1";

struct ConverterFixture {
  std::string bytes;
  std::string skip;
  std::string error;
};

struct ConverterFixtures {
  TempDir dir;
  std::string pandoc_missing;     // the converter's tool for HTML, Word and OpenDocument
  std::string pdftotext_missing;  // the converter's tool for PDF
  ConverterFixture docx, odt, html, truncated_docx, plain_zip, zip_bomb;
  ConverterFixture pdf, encrypted_pdf, image_pdf;
};

class ProcessConverterTest : public ::testing::Test {
 protected:
  // ctest runs each test in a process of its own: the fixtures are made by the first one (two
  // Chromium runs, a 400 MB zip bomb) and kept for the others in kFixtureCache, moved there whole
  // once every one of them was made (a rename: a process sees all of them or none).
  static void SetUpTestSuite() {
    fixtures_ = new ConverterFixtures();
    ConverterFixtures& f = *fixtures_;
    if (!OnPath("pandoc")) f.pandoc_missing = "pandoc is not installed (scripts/deps.sh)";
    if (!OnPath("pdftotext")) {
      f.pdftotext_missing = "pdftotext is not installed (poppler-utils, scripts/deps.sh)";
    }
    const fs::path cache = fs::temp_directory_path() / kFixtureCache;
    if (fs::exists(cache / "complete")) {
      for (auto [fixture, name] : std::initializer_list<std::pair<ConverterFixture*, const char*>>{
               {&f.docx, "fixture.docx"},
               {&f.odt, "fixture.odt"},
               {&f.html, "fixture.html"},
               {&f.zip_bomb, "bomb.docx"},
               {&f.plain_zip, "plain.zip"},
               {&f.pdf, "text.pdf"},
               {&f.image_pdf, "image.pdf"},
               {&f.encrypted_pdf, "encrypted.pdf"}}) {
        fixture->bytes = ReadFile(cache / name);
      }
      f.truncated_docx = f.docx;
      f.truncated_docx.bytes.resize(f.docx.bytes.size() / 2);
      return;
    }
    MakeFixtures(f);
    bool all_made = true;
    for (const ConverterFixture* fixture : {&f.docx, &f.odt, &f.html, &f.zip_bomb, &f.plain_zip,
                                            &f.pdf, &f.image_pdf, &f.encrypted_pdf}) {
      all_made = all_made && fixture->skip.empty() && fixture->error.empty();
    }
    if (all_made) {
      WriteFile(f.dir.path() / "complete", "");
      std::error_code taken;  // another process may have moved its own there first
      fs::rename(f.dir.path(), cache, taken);
    }
  }

  static void MakeFixtures(ConverterFixtures& f) {
    const fs::path& dir = f.dir.path();

    WriteFile(dir / "source.md", kConverterSourceMarkdown);
    if (!f.pandoc_missing.empty()) {
      f.docx.skip = f.odt.skip = f.html.skip = f.truncated_docx.skip = f.pandoc_missing;
    } else {
      const std::string pandoc = "pandoc " + Quote(dir / "source.md") + " -o ";
      f.docx = Make(pandoc + Quote(dir / "fixture.docx"), dir / "fixture.docx", dir);
      f.odt = Make(pandoc + Quote(dir / "fixture.odt"), dir / "fixture.odt", dir);
      f.html = Make(pandoc + Quote(dir / "fixture.html") + " -s --metadata title=docgate手册",
                    dir / "fixture.html", dir);
      f.truncated_docx = f.docx;
      f.truncated_docx.bytes.resize(f.docx.bytes.size() / 2);
    }

    std::string python;
    if (fs::exists("/usr/bin/python3")) {
      python = "/usr/bin/python3";
    } else if (OnPath("python3")) {
      python = "python3";
    }
    if (python.empty()) {
      f.plain_zip.skip = f.zip_bomb.skip = "python3 is not installed";
    } else {
      WriteFile(dir / "zip_bomb.py", kConverterZipBombScript);
      WriteFile(dir / "plain_zip.py", kConverterPlainZipScript);
      f.zip_bomb = Make(python + " " + Quote(dir / "zip_bomb.py") + " " + Quote(dir / "bomb.docx"),
                        dir / "bomb.docx", dir);
      f.plain_zip =
          Make(python + " " + Quote(dir / "plain_zip.py") + " " + Quote(dir / "plain.zip"),
               dir / "plain.zip", dir);
    }

    MakePdfs(f);
  }

  static void TearDownTestSuite() {
    delete fixtures_;
    fixtures_ = nullptr;
  }

  // Chromium prints two HTML files (the only two runs of it in the suite); qpdf encrypts one.
  static void MakePdfs(ConverterFixtures& f) {
    const fs::path& dir = f.dir.path();
    std::string skip;
    if (!OnPath("chromium")) skip = "chromium is not installed (scripts/deps.sh)";
    if (skip.empty()) skip = f.pdftotext_missing;
    if (skip.empty() && OnPath("fc-list") && Capture("fc-list :lang=zh family").empty()) {
      skip = "no font for Chinese text is installed (fonts-noto-cjk, scripts/deps.sh)";
    }
    if (!skip.empty()) {
      f.pdf.skip = f.encrypted_pdf.skip = f.image_pdf.skip = skip;
      return;
    }

    std::string text_html =
        "<!DOCTYPE html>\n<html lang=\"zh-CN\"><head><meta charset=\"utf-8\"><title>pdf</title>\n"
        "<style>body { font: 16px 'Noto Sans CJK SC', sans-serif; } p { margin: 0 0 3em; }"
        "</style></head>\n<body>\n";
    for (const char* paragraph : kConverterPdfParagraphs) {
      text_html += "<p>" + std::string(paragraph) + "</p>\n";
    }
    text_html += "</body></html>\n";
    WriteFile(dir / "text.html", text_html);
    WriteFile(dir / "image.html",
              "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"></head><body>\n"
              "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"400\" height=\"300\">"
              "<rect x=\"10\" y=\"10\" width=\"200\" height=\"100\" fill=\"#36c\"/>"
              "<circle cx=\"300\" cy=\"200\" r=\"60\" fill=\"#c63\"/>"
              "<line x1=\"0\" y1=\"290\" x2=\"400\" y2=\"150\" stroke=\"#333\" "
              "stroke-width=\"4\"/></svg>\n</body></html>\n");

    // A profile of its own, so that no other Chromium (the browser tests) holds its lock.
    const auto print = [&dir](const std::string& html, const std::string& pdf) {
      return "timeout 120 chromium --headless --no-sandbox --disable-gpu --no-pdf-header-footer "
             "--user-data-dir=" +
             Quote(dir / "chromium-profile") + " --print-to-pdf=" + Quote(dir / pdf) + " " +
             Quote(dir / html);
    };
    f.pdf = Make(print("text.html", "text.pdf"), dir / "text.pdf", dir);
    f.image_pdf = Make(print("image.html", "image.pdf"), dir / "image.pdf", dir);

    if (!f.pdf.error.empty()) {
      f.encrypted_pdf.error = f.pdf.error;
    } else if (!OnPath("qpdf")) {
      f.encrypted_pdf.skip = "qpdf is not installed (scripts/deps.sh)";
    } else {
      f.encrypted_pdf = Make("qpdf --encrypt user-pass owner-pass 256 -- " +
                                 Quote(dir / "text.pdf") + " " + Quote(dir / "encrypted.pdf"),
                             dir / "encrypted.pdf", dir);
    }
  }

  static bool OnPath(const std::string& tool) {
    return std::system(("command -v " + tool + " >/dev/null 2>&1").c_str()) == 0;
  }

  static std::string Quote(const fs::path& path) { return "'" + path.string() + "'"; }

  static void WriteFile(const fs::path& path, std::string_view bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }

  static std::string ReadFile(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

  static std::string Capture(const std::string& command) {
    std::string output;
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) return output;
    char buffer[4096];
    for (std::size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) output.append(buffer, n);
    pclose(pipe);
    return output;
  }

  // Runs `command` (its output into a log beside the fixtures) and reads the file it makes.
  static ConverterFixture Make(const std::string& command, const fs::path& out,
                               const fs::path& dir) {
    ConverterFixture fixture;
    const fs::path log = dir / "command.log";
    const int status = std::system((command + " >" + Quote(log) + " 2>&1").c_str());
    if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || !fs::exists(out)) {
      fixture.error = "making " + out.filename().string() + " failed (status " +
                      std::to_string(status) + "): " + command + "\n" + ReadFile(log);
      return fixture;
    }
    fixture.bytes = ReadFile(out);
    if (fixture.bytes.empty()) fixture.error = command + " wrote an empty " + out.string();
    return fixture;
  }

  static ConverterFixtures* fixtures_;
};

ConverterFixtures* ProcessConverterTest::fixtures_ = nullptr;

// Skips the test when a tool to make `fixture` is missing; fails it when making it failed.
#define DOCGATE_CONVERTER_FIXTURE(fixture)                       \
  do {                                                           \
    if (!(fixture).skip.empty()) GTEST_SKIP() << (fixture).skip; \
    ASSERT_TRUE((fixture).error.empty()) << (fixture).error;     \
  } while (false)

// Skips the test when the converter's own tool is missing.
#define DOCGATE_CONVERTER_TOOL(missing)                \
  do {                                                 \
    if (!(missing).empty()) GTEST_SKIP() << (missing); \
  } while (false)

std::vector<std::string> ConverterLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

bool HasLineMatching(const std::string& markdown, const std::string& pattern) {
  const std::regex re(pattern);
  for (const std::string& line : ConverterLines(markdown)) {
    if (std::regex_search(line, re)) return true;
  }
  return false;
}

// A Markdown table row (a line with pipes) holding both cells.
bool HasTableRow(const std::string& markdown, const std::string& first, const std::string& second) {
  for (const std::string& line : ConverterLines(markdown)) {
    if (line.find('|') != std::string::npos && line.find(first) != std::string::npos &&
        line.find(second) != std::string::npos) {
      return true;
    }
  }
  return false;
}

std::string WithoutWhitespace(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v') out += c;
  }
  return out;
}

// The blocks of a text separated by blank lines, each without its whitespace.
std::vector<std::string> ConverterBlocks(const std::string& text) {
  std::vector<std::string> blocks(1);
  for (const std::string& line : ConverterLines(text)) {
    const std::string compact = WithoutWhitespace(line);
    if (compact.empty()) {
      if (!blocks.back().empty()) blocks.emplace_back();
    } else {
      blocks.back() += compact;
    }
  }
  if (blocks.back().empty()) blocks.pop_back();
  return blocks;
}

// Headings, lists, the table's body row and the emphasis of kConverterSourceMarkdown.
void ExpectConvertedStructure(const std::string& markdown, bool with_emphasis_and_header_row) {
  EXPECT_TRUE(HasLineMatching(markdown, "^# 部署手册")) << markdown;
  EXPECT_TRUE(HasLineMatching(markdown, "^## 安装步骤")) << markdown;
  EXPECT_TRUE(HasLineMatching(markdown, "^ *1\\. +安装依赖包")) << markdown;
  EXPECT_TRUE(HasLineMatching(markdown, "^ *2\\. +编译源代码")) << markdown;
  EXPECT_TRUE(HasLineMatching(markdown, "^ *3\\. +启动服务")) << markdown;
  EXPECT_TRUE(HasLineMatching(markdown, "^ *[-*+] +审核流程")) << markdown;
  EXPECT_TRUE(HasLineMatching(markdown, "^ *[-*+] +向量索引")) << markdown;
  EXPECT_TRUE(HasTableRow(markdown, "make", "构建")) << markdown;
  if (with_emphasis_and_header_row) {
    EXPECT_TRUE(HasTableRow(markdown, "命令", "说明")) << markdown;
    EXPECT_NE(markdown.find("**docgate**"), std::string::npos) << markdown;
    EXPECT_NE(markdown.find("*强调*"), std::string::npos) << markdown;
  }
}

void ExpectUnprocessable(const Result<std::string>& result, const std::string& what) {
  ASSERT_FALSE(result.ok()) << what << " converted to:\n" << result.value();
  EXPECT_EQ(result.error().code, ErrorCode::kUnprocessableDocument)
      << what << ": " << result.error().detail;
  EXPECT_FALSE(result.error().detail.empty()) << what << " is refused without saying why";
}

std::string RandomConverterBytes(std::size_t size) {
  std::mt19937 generator(20240917);
  std::uniform_int_distribution<int> byte(0, 255);
  std::string bytes(size, '\0');
  for (char& c : bytes) c = static_cast<char>(byte(generator));
  return bytes;
}

TEST_F(ProcessConverterTest, ZipKindTellsAWordDocument) {
  DOCGATE_CONVERTER_FIXTURE(fixtures_->docx);
  const ProcessConverter converter{ImportConfig{}};
  const Result<std::optional<ImportKind>> kind = converter.ZipKind(fixtures_->docx.bytes);
  ASSERT_TRUE(kind.ok()) << kind.error().detail;
  EXPECT_EQ(*kind, std::optional<ImportKind>(ImportKind::kDocx));
}

TEST_F(ProcessConverterTest, ZipKindTellsAnOpenDocumentText) {
  DOCGATE_CONVERTER_FIXTURE(fixtures_->odt);
  const ProcessConverter converter{ImportConfig{}};
  const Result<std::optional<ImportKind>> kind = converter.ZipKind(fixtures_->odt.bytes);
  ASSERT_TRUE(kind.ok()) << kind.error().detail;
  EXPECT_EQ(*kind, std::optional<ImportKind>(ImportKind::kOdt));
}

TEST_F(ProcessConverterTest, ZipKindOfAnotherArchiveIsNone) {
  DOCGATE_CONVERTER_FIXTURE(fixtures_->plain_zip);
  const ProcessConverter converter{ImportConfig{}};
  const Result<std::optional<ImportKind>> kind = converter.ZipKind(fixtures_->plain_zip.bytes);
  ASSERT_TRUE(kind.ok()) << kind.error().detail;
  EXPECT_EQ(*kind, std::nullopt);
}

TEST_F(ProcessConverterTest, ZipKindRefusesAZipBomb) {
  DOCGATE_CONVERTER_FIXTURE(fixtures_->zip_bomb);
  const ProcessConverter converter{ImportConfig{}};
  const Result<std::optional<ImportKind>> kind = converter.ZipKind(fixtures_->zip_bomb.bytes);
  ASSERT_FALSE(kind.ok()) << "a 400 MB entry in a " << fixtures_->zip_bomb.bytes.size()
                          << "-byte archive was accepted";
  EXPECT_EQ(kind.error().code, ErrorCode::kUnprocessableDocument) << kind.error().detail;
  EXPECT_FALSE(kind.error().detail.empty());
}

TEST_F(ProcessConverterTest, ZipKindRefusesATruncatedArchive) {
  DOCGATE_CONVERTER_FIXTURE(fixtures_->truncated_docx);
  const ProcessConverter converter{ImportConfig{}};
  const Result<std::optional<ImportKind>> kind = converter.ZipKind(fixtures_->truncated_docx.bytes);
  ASSERT_FALSE(kind.ok()) << "half a docx was read as an archive";
  EXPECT_EQ(kind.error().code, ErrorCode::kUnprocessableDocument) << kind.error().detail;
}

TEST_F(ProcessConverterTest, WordBecomesMarkdownWithItsStructure) {
  DOCGATE_CONVERTER_FIXTURE(fixtures_->docx);
  const ProcessConverter converter{ImportConfig{}};
  const Result<std::string> markdown =
      converter.ToMarkdown(ImportKind::kDocx, fixtures_->docx.bytes);
  ASSERT_TRUE(markdown.ok()) << markdown.error().detail;
  ExpectConvertedStructure(*markdown, true);
}

TEST_F(ProcessConverterTest, OpenDocumentBecomesMarkdownWithItsStructure) {
  DOCGATE_CONVERTER_FIXTURE(fixtures_->odt);
  const ProcessConverter converter{ImportConfig{}};
  const Result<std::string> markdown = converter.ToMarkdown(ImportKind::kOdt, fixtures_->odt.bytes);
  ASSERT_TRUE(markdown.ok()) << markdown.error().detail;
  // pandoc's OpenDocument reader drops a table's header row: only the body row is asserted.
  ExpectConvertedStructure(*markdown, false);
}

TEST_F(ProcessConverterTest, HtmlBecomesMarkdownWithItsStructure) {
  DOCGATE_CONVERTER_FIXTURE(fixtures_->html);
  const ProcessConverter converter{ImportConfig{}};
  const Result<std::string> markdown =
      converter.ToMarkdown(ImportKind::kHtml, fixtures_->html.bytes);
  ASSERT_TRUE(markdown.ok()) << markdown.error().detail;
  ExpectConvertedStructure(*markdown, true);
}

TEST_F(ProcessConverterTest, PdfBecomesItsTextInParagraphs) {
  DOCGATE_CONVERTER_FIXTURE(fixtures_->pdf);
  const ProcessConverter converter{ImportConfig{}};
  const Result<std::string> markdown = converter.ToMarkdown(ImportKind::kPdf, fixtures_->pdf.bytes);
  ASSERT_TRUE(markdown.ok()) << markdown.error().detail;

  // pdftotext may break a paragraph's lines anywhere: each paragraph must lie, whitespace aside,
  // within one block, and the paragraphs in different blocks, in order.
  const std::vector<std::string> blocks = ConverterBlocks(*markdown);
  std::size_t previous_block = 0;
  bool first = true;
  for (const char* paragraph : kConverterPdfParagraphs) {
    const std::string wanted = WithoutWhitespace(paragraph);
    std::size_t found = blocks.size();
    for (std::size_t i = 0; i < blocks.size(); ++i) {
      if (blocks[i].find(wanted) != std::string::npos) {
        found = i;
        break;
      }
    }
    ASSERT_LT(found, blocks.size()) << "no block holds \"" << paragraph << "\" in:\n" << *markdown;
    if (!first) {
      EXPECT_GT(found, previous_block)
          << "\"" << paragraph << "\" is not separated from the paragraph before it by a blank "
          << "line in:\n"
          << *markdown;
    }
    previous_block = found;
    first = false;
  }
}

TEST_F(ProcessConverterTest, AnEncryptedPdfIsUnprocessable) {
  DOCGATE_CONVERTER_FIXTURE(fixtures_->encrypted_pdf);
  const ProcessConverter converter{ImportConfig{}};
  const Result<std::string> markdown =
      converter.ToMarkdown(ImportKind::kPdf, fixtures_->encrypted_pdf.bytes);
  ExpectUnprocessable(markdown, "a PDF encrypted with a user password");
}

TEST_F(ProcessConverterTest, APdfWithoutTextIsUnprocessable) {
  DOCGATE_CONVERTER_FIXTURE(fixtures_->image_pdf);
  const ProcessConverter converter{ImportConfig{}};
  ExpectUnprocessable(converter.ToMarkdown(ImportKind::kPdf, fixtures_->image_pdf.bytes),
                      "a PDF holding only shapes");
}

TEST_F(ProcessConverterTest, RandomBytesAreUnprocessableNeitherACrashNorAnException) {
  DOCGATE_CONVERTER_TOOL(fixtures_->pandoc_missing);
  DOCGATE_CONVERTER_TOOL(fixtures_->pdftotext_missing);
  const ProcessConverter converter{ImportConfig{}};
  const std::string bytes = RandomConverterBytes(64 * 1024);
  for (const auto& [kind, name] : {std::pair{ImportKind::kDocx, "random bytes as docx"},
                                   std::pair{ImportKind::kOdt, "random bytes as odt"},
                                   std::pair{ImportKind::kPdf, "random bytes as pdf"}}) {
    std::optional<Result<std::string>> markdown;
    EXPECT_NO_THROW(markdown.emplace(converter.ToMarkdown(kind, bytes))) << name;
    ASSERT_TRUE(markdown.has_value()) << name;
    ExpectUnprocessable(*markdown, name);
  }
}

TEST_F(ProcessConverterTest, AConversionPastItsTimeIsUnprocessable) {
  DOCGATE_CONVERTER_TOOL(fixtures_->pandoc_missing);
  // About 20 MB of table rows: pandoc needs seconds for them, the limit is a millisecond.
  std::string html = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body><table>\n";
  for (int row = 0; html.size() < 20'000'000; ++row) {
    html += "<tr><td>第 " + std::to_string(row) + " 行</td><td>构建与部署</td></tr>\n";
  }
  html += "</table></body></html>\n";
  ImportConfig config;
  config.max_bytes = 64 * 1024 * 1024;
  config.timeout = std::chrono::milliseconds(1);
  const ProcessConverter converter{config};
  ExpectUnprocessable(converter.ToMarkdown(ImportKind::kHtml, html),
                      "a 20 MB table converted within a millisecond");
}

TEST_F(ProcessConverterTest, MarkdownBeyondTheOutputLimitIsUnprocessable) {
  DOCGATE_CONVERTER_TOOL(fixtures_->pandoc_missing);
  std::string html = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body>\n";
  for (int paragraph = 0; paragraph < 100; ++paragraph) {
    html += "<p>第 " + std::to_string(paragraph) +
            " 段：审核通过后，系统触发切片、向量化与索引，转换的结果是一份 Markdown 草稿。</p>\n";
  }
  html += "</body></html>\n";

  const ProcessConverter unlimited{ImportConfig{}};
  const Result<std::string> whole = unlimited.ToMarkdown(ImportKind::kHtml, html);
  ASSERT_TRUE(whole.ok()) << whole.error().detail;
  ASSERT_GT(whole->size(), 1024U) << "the document's Markdown must pass the limit below";

  ImportConfig config;
  config.max_output_bytes = 1024;
  const ProcessConverter limited{config};
  ExpectUnprocessable(limited.ToMarkdown(ImportKind::kHtml, html),
                      std::to_string(whole->size()) + " bytes of Markdown under a 1024-byte limit");
}

TEST_F(ProcessConverterTest, ConversionsSideBySideAllSucceedAlike) {
  DOCGATE_CONVERTER_FIXTURE(fixtures_->docx);
  const ProcessConverter converter{ImportConfig{}};
  constexpr int kThreads = 4;
  std::vector<std::optional<Result<std::string>>> results(kThreads);
  std::vector<std::string> exceptions(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&converter, &results, &exceptions, i] {
      try {
        results[i].emplace(converter.ToMarkdown(ImportKind::kDocx, fixtures_->docx.bytes));
      } catch (const std::exception& e) {
        exceptions[i] = e.what();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();

  for (int i = 0; i < kThreads; ++i) {
    ASSERT_TRUE(exceptions[i].empty()) << "conversion " << i << " threw: " << exceptions[i];
    ASSERT_TRUE(results[i].has_value());
    ASSERT_TRUE(results[i]->ok()) << "conversion " << i << ": " << results[i]->error().detail;
  }
  ExpectConvertedStructure(results[0]->value(), true);
  for (int i = 1; i < kThreads; ++i) {
    EXPECT_EQ(results[i]->value(), results[0]->value()) << "conversion " << i;
  }
}

#undef DOCGATE_CONVERTER_FIXTURE
#undef DOCGATE_CONVERTER_TOOL

}  // namespace
}  // namespace docgate
