// Imports (issue 39, item 4) without converters: multipart/form-data read as RFC 7578 writes it;
// the kind of a file decided by its content, not its name; the draft's title; and the route over
// the fakes (its converter a fake): 201 with `source`, 413, 415, 422, 400, 403, and an
// Idempotency-Key that replays a success and is released by a refusal.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "adapters/http/idempotency_codec.h"
#include "adapters/http/multipart.h"
#include "app/document_import.h"
#include "support/fake_backed_api.h"

namespace docgate {
namespace {

using nlohmann::json;
namespace http = boost::beast::http;

constexpr char kBoundary[] = "----docgate7MA4YWxkTrZu0gW";

// One part of a form: its name, its filename (nullopt: a plain field) and its content.
struct Part {
  std::string name;
  std::optional<std::string> filename;
  std::string content;
};

std::string Form(const std::vector<Part>& parts) {
  std::string body;
  for (const Part& part : parts) {
    body += std::string("--") + kBoundary + "\r\nContent-Disposition: form-data; name=\"" +
            part.name + "\"";
    if (part.filename) body += "; filename=\"" + *part.filename + "\"";
    body += "\r\n";
    if (part.filename) body += "Content-Type: application/octet-stream\r\n";
    body += "\r\n" + part.content + "\r\n";
  }
  return body + "--" + kBoundary + "--\r\n";
}

std::string FormType() { return std::string("multipart/form-data; boundary=") + kBoundary; }

TEST(MultipartTest, PartsAreReadWithTheirNamesFilenamesAndBodies) {
  const std::string body =
      Form({{"title", std::nullopt, "部署手册"}, {"file", "手册.md", "# 一\r\n\r\n二\r\n"}});
  const auto parts = ParseMultipartForm(FormType(), body);
  ASSERT_TRUE(parts.ok()) << parts.error().detail;
  ASSERT_EQ(parts->size(), 2u);
  EXPECT_EQ((*parts)[0].name, "title");
  EXPECT_FALSE((*parts)[0].has_filename);
  EXPECT_EQ((*parts)[0].body, "部署手册");
  EXPECT_EQ((*parts)[1].name, "file");
  EXPECT_EQ((*parts)[1].filename, "手册.md");
  EXPECT_EQ((*parts)[1].content_type, "application/octet-stream");
  EXPECT_EQ((*parts)[1].body, "# 一\r\n\r\n二\r\n");  // CRLF inside a body is the body's
}

TEST(MultipartTest, AQuotedBoundaryAPreambleAndAnExtendedFilenameAreRead) {
  const std::string body =
      "preamble to ignore\r\n--b\"x\r\nContent-Disposition: form-data; name=file; "
      "filename*=UTF-8''%E6%89%8B%E5%86%8C.txt\r\n\r\ntext\r\n--b\"x--";
  const auto parts = ParseMultipartForm("Multipart/Form-Data; boundary=\"b\\\"x\"", body);
  ASSERT_TRUE(parts.ok()) << parts.error().detail;
  ASSERT_EQ(parts->size(), 1u);
  EXPECT_EQ((*parts)[0].filename, "手册.txt");
  EXPECT_EQ((*parts)[0].body, "text");
}

TEST(MultipartTest, WhatIsNotAFormIsAValidationErrorSayingWhy) {
  const std::string good = Form({{"file", "a.md", "x"}});
  const std::pair<std::string, std::string> cases[] = {
      {"application/json", good},
      {"multipart/form-data", good},  // no boundary
      {FormType(), "no delimiter at all"},
      {FormType(), std::string("--") + kBoundary +
                       "\r\nContent-Disposition: form-data; "
                       "name=\"file\"\r\n\r\nnever closed"},
      {FormType(), std::string("--") + kBoundary + "\r\nX-Other: 1\r\n\r\nx\r\n--" + kBoundary +
                       "--"},  // no Content-Disposition
  };
  for (const auto& [type, body] : cases) {
    const auto parts = ParseMultipartForm(type, body);
    ASSERT_FALSE(parts.ok()) << type << " / " << body;
    EXPECT_EQ(parts.error().code, ErrorCode::kValidation);
    EXPECT_FALSE(parts.error().detail.empty());
  }
  std::vector<Part> many(kMaxFormParts + 1, Part{"f", std::nullopt, "x"});
  EXPECT_FALSE(ParseMultipartForm(FormType(), Form(many)).ok());
}

TEST(SniffImportTest, ContentDecidesTheKindAndTheNameOnlyBetweenTexts) {
  FakeConverter converter;
  const auto kind = [&](std::string_view name, std::string_view bytes) {
    return SniffImport(name, bytes, converter);
  };
  EXPECT_EQ(*kind("report.docx", "%PDF-1.7\n..."), ImportKind::kPdf);  // a PDF named .docx
  converter.zip_answer = std::optional(ImportKind::kOdt);
  EXPECT_EQ(*kind("x.pdf", std::string("PK\x03\x04", 4) + "rest"), ImportKind::kOdt);
  EXPECT_EQ(converter.zip_calls, 1);
  EXPECT_EQ(*kind("page.txt", "  <!DOCTYPE html><p>x</p>"), ImportKind::kHtml);
  EXPECT_EQ(*kind("notes.MD", "# 标题"), ImportKind::kMarkdown);
  EXPECT_EQ(*kind("notes.markdown", "x"), ImportKind::kMarkdown);
  EXPECT_EQ(*kind("notes.txt", "纯文本"), ImportKind::kText);
  EXPECT_EQ(*kind("page.htm", "<p>x</p>"), ImportKind::kHtml);
  // Refused whatever the name says: binary data, text under an unknown name, another archive.
  for (const auto& [name, bytes] : {std::pair<std::string, std::string>{"a.pdf", "not a pdf"},
                                    {"table.csv", "a,b\n1,2\n"},
                                    {"image.png", std::string("\x89PNG\r\n\x1a\n\0\0", 10)},
                                    {"a.md", "\xff\xfe invalid UTF-8"}}) {
    const auto refused = kind(name, bytes);
    ASSERT_FALSE(refused.ok()) << name;
    EXPECT_EQ(refused.error().code, ErrorCode::kUnsupportedMediaType) << name;
  }
  converter.zip_answer = std::optional<ImportKind>{};
  EXPECT_EQ(kind("x.docx", std::string("PK\x03\x04", 4)).error().code,
            ErrorCode::kUnsupportedMediaType);
  converter.zip_answer = MakeError(ErrorCode::kUnprocessableDocument, "a zip bomb");
  EXPECT_EQ(kind("x.docx", std::string("PK\x03\x04", 4)).error().code,
            ErrorCode::kUnprocessableDocument);
}

TEST(ImportTitleTest, TheAskedTitleElseTheFirstHeadingElseTheFileName) {
  EXPECT_EQ(ImportTitle("指定标题", "# 文中标题", "a.md"), "指定标题");
  EXPECT_EQ(ImportTitle("  ", "前言\n\n## 部署手册 ##\n# 二", "a.md"), "部署手册");
  EXPECT_EQ(ImportTitle("", "#没有空格不是标题\n正文", "dir/运维手册.v2.docx"), "运维手册.v2");
  EXPECT_EQ(ImportTitle("", "", ".docx"), ".docx");
  std::string chinese;
  for (int i = 0; i < 250; ++i) chinese += "长";
  EXPECT_EQ(ImportTitle(chinese, "", "a.md"), std::string(chinese, 0, 200 * 3));
}

class ImportRouteTest : public ::testing::Test {
 protected:
  HttpResponse Import(const std::string& body, const std::string& roles = "author",
                      const std::optional<std::string>& key = std::nullopt,
                      const std::string& type = FormType()) {
    HttpRequest request{HttpVerb::post, "/api/v1/documents/import", 11};
    request.set(http::field::authorization, fakes_.Bearer("alice", {roles}));
    request.set(http::field::content_type, type);
    if (key) request.set(kIdempotencyKeyHeader, *key);
    request.body() = body;
    request.prepare_payload();
    return fakes_.api.Handle(request);
  }
  static std::string Code(const HttpResponse& response) {
    return json::parse(response.body()).value("code", "");
  }

  FakeBackedApi fakes_;
};

TEST_F(ImportRouteTest, AFileBecomesAMarkdownDraftWithItsSource) {
  const std::string docx = std::string("PK\x03\x04", 4) + "a word file";
  const HttpResponse created = Import(Form({{"file", "运维手册.docx", docx}}));
  ASSERT_EQ(created.result(), http::status::created) << created.body();
  const json doc = json::parse(created.body());
  EXPECT_EQ(doc["title"], "转换结果");  // the converted text's first heading
  EXPECT_EQ(doc["format"], "markdown");
  EXPECT_EQ(doc["status"], "draft");
  EXPECT_EQ(doc["author_id"], "alice");
  EXPECT_EQ(doc["source"]["filename"], "运维手册.docx");
  EXPECT_EQ(doc["source"]["media_type"],
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document");
  EXPECT_EQ(doc["source"]["bytes"], docx.size());
  EXPECT_EQ(doc["source"]["sha256"], fakes_.digest.Sha256Hex(docx));
  EXPECT_EQ(fakes_.converter.last_kind, ImportKind::kDocx);
  const auto content = fakes_.service.GetContent(std::stoll(doc["id"].get<std::string>()));
  ASSERT_TRUE(content.ok());
  EXPECT_EQ(content->content, "# 转换结果\n\n正文。\n");
}

TEST_F(ImportRouteTest, MarkdownAndTextAreTakenAsTheyAreWithTheTitleAsked) {
  const HttpResponse created = Import(
      Form({{"title", std::nullopt, "值班说明"}, {"file", "oncall.txt", "\xEF\xBB\xBF第一行\n"}}));
  ASSERT_EQ(created.result(), http::status::created) << created.body();
  const json doc = json::parse(created.body());
  EXPECT_EQ(doc["title"], "值班说明");
  EXPECT_EQ(doc["source"]["media_type"], "text/plain");
  EXPECT_EQ(fakes_.converter.conversions, 0);
  EXPECT_EQ(fakes_.service.GetContent(std::stoll(doc["id"].get<std::string>()))->content,
            "第一行\n");
}

TEST_F(ImportRouteTest, RefusalsAre4xxProblemsAndReleaseTheKey) {
  const std::string big(FakeBackedApi::kImportMaxBytes + 1, 'x');
  EXPECT_EQ(Import(Form({{"file", "big.md", big}})).result(), http::status::payload_too_large);
  const HttpResponse csv = Import(Form({{"file", "t.csv", "a,b\n"}}));
  EXPECT_EQ(csv.result(), http::status::unsupported_media_type);
  EXPECT_EQ(Code(csv), "UNSUPPORTED_MEDIA_TYPE");
  EXPECT_EQ(Import(Form({{"file", "empty.md", ""}})).result(), http::status::unprocessable_entity);
  EXPECT_EQ(Import(Form({{"other", "a.md", "x"}})).result(), http::status::bad_request);
  EXPECT_EQ(Import(Form({{"file", std::nullopt, "x"}})).result(), http::status::bad_request);
  EXPECT_EQ(Import("{}", "author", std::nullopt, "application/json").result(),
            http::status::bad_request);
  EXPECT_EQ(Import(Form({{"file", "a.md", "x"}}), "reviewer").result(), http::status::forbidden);

  // A file that cannot be read: 422, and the key is free for the corrected retry.
  fakes_.converter.markdown_answer =
      MakeError(ErrorCode::kUnprocessableDocument, "the PDF is encrypted");
  const HttpResponse encrypted = Import(Form({{"file", "a.pdf", "%PDF-1.4 x"}}), "author", "k-1");
  EXPECT_EQ(encrypted.result(), http::status::unprocessable_entity);
  EXPECT_EQ(Code(encrypted), "UNPROCESSABLE_DOCUMENT");
  fakes_.converter.markdown_answer = std::string("# 解密后\n");
  const HttpResponse retried = Import(Form({{"file", "a.pdf", "%PDF-1.4 y"}}), "author", "k-1");
  EXPECT_EQ(retried.result(), http::status::created) << retried.body();
}

TEST_F(ImportRouteTest, ARetriedImportIsReplayedWithItsSourceAndCreatesOneDocument) {
  const std::string form = Form({{"file", "a.md", "# 一次\n"}});
  const HttpResponse first = Import(form, "author", "import-1");
  const HttpResponse again = Import(form, "author", "import-1");
  ASSERT_EQ(first.result(), http::status::created) << first.body();
  EXPECT_EQ(again.result(), http::status::created);
  EXPECT_EQ(again[kIdempotentReplayedHeader], "true");
  EXPECT_EQ(again.body(), first.body());
  EXPECT_EQ(json::parse(again.body())["source"]["filename"], "a.md");
  EXPECT_EQ(fakes_.service.ListDocuments({})->items.size(), 1u);
}

}  // namespace
}  // namespace docgate
