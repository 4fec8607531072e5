// End-to-end: POST /api/v1/documents/import over HTTP on the embedded default (issue 39, item 4):
// a Word file made by pandoc becomes a Markdown draft with its source; the import alone takes a
// body above DOCGATE_HTTP_BODY_LIMIT, and one above DOCGATE_IMPORT_MAX_BYTES is 413 from its
// Content-Length, before any of it is sent; a file that keeps its converter busy until the time
// limit is 422 while the server answers every other request.

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include "e2e/api_e2e_fixture.h"
#include "e2e/e2e_server.h"
#include "support/temp_dir.h"

namespace docgate::api_e2e {
namespace {

constexpr char kBoundary[] = "docgate-e2e-form-boundary";

std::string ImportRequest(const Headers& auth, const std::string& filename,
                          const std::string& bytes) {
  const std::string body = std::string("--") + kBoundary +
                           "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" +
                           filename + "\"\r\nContent-Type: application/octet-stream\r\n\r\n" +
                           bytes + "\r\n--" + kBoundary + "--\r\n";
  std::string request = "POST /api/v1/documents/import HTTP/1.1\r\nHost: x\r\n";
  for (const auto& [name, value] : auth) request += name + ": " + value + "\r\n";
  return request + "Content-Type: multipart/form-data; boundary=" + kBoundary +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

TEST_P(SqliteApiTest, AWordFileBecomesAMarkdownDraftWithItsSource) {
  if (std::system("command -v pandoc >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "pandoc is not installed (scripts/deps.sh)";
  }
  TempDir dir;
  {
    std::ofstream source(dir.path() / "manual.md");
    source << "# 部署手册\n\n## 安装步骤\n\n1. 下载 **docgate**\n2. 运行测试\n";
  }
  const std::string docx_path = (dir.path() / "manual.docx").string();
  ASSERT_EQ(
      std::system(
          ("pandoc '" + (dir.path() / "manual.md").string() + "' -o '" + docx_path + "'").c_str()),
      0);
  std::ifstream docx_file(docx_path, std::ios::binary);
  const std::string docx{std::istreambuf_iterator<char>(docx_file), {}};

  HttpClient client(port_);
  const HttpReply created = client.Raw(ImportRequest(Alice(), "部署手册.docx", docx));
  ASSERT_EQ(created.status(), 201u) << created.body();
  const json doc = created.json();
  EXPECT_EQ(doc["title"], "部署手册");
  EXPECT_EQ(doc["format"], "markdown");
  EXPECT_EQ(doc["source"]["filename"], "部署手册.docx");
  EXPECT_EQ(doc["source"]["bytes"], docx.size());
  const std::string content =
      Get("/api/v1/documents/" + doc["id"].get<std::string>() + "/content", Alice())
          .json()["content"];
  EXPECT_NE(content.find("## 安装步骤"), std::string::npos) << content;
  EXPECT_NE(content.find("**docgate**"), std::string::npos) << content;
}

TEST_P(SqliteApiTest, OnlyTheImportTakesBodiesAboveTheBodyLimitUpToItsOwn) {
  // 2 MiB of Markdown: above DOCGATE_HTTP_BODY_LIMIT (1 MiB), within DOCGATE_IMPORT_MAX_BYTES.
  std::string large = "# 大文件\n\n";
  while (large.size() < 2 * 1024 * 1024) large += "第一段落的文字，重复到两兆字节。\n\n";
  {
    HttpClient client(port_);
    const HttpReply imported = client.Raw(ImportRequest(Alice(), "large.md", large));
    EXPECT_EQ(imported.status(), 201u) << imported.body().substr(0, 300);
  }
  // The same size anywhere else is still 413.
  ExpectProblem(Post("/api/v1/documents", Alice(), std::string(2 * 1024 * 1024, ' ')), 413,
                "PAYLOAD_TOO_LARGE");
  // Above the import's own limit: refused from the header, before any of the body is sent.
  HttpClient client(port_);
  std::string header = "POST /api/v1/documents/import HTTP/1.1\r\nHost: x\r\n";
  for (const auto& [name, value] : Alice()) header += name + ": " + value + "\r\n";
  header += std::string("Content-Type: multipart/form-data; boundary=") + kBoundary +
            "\r\nContent-Length: " + std::to_string(64 * 1024 * 1024) + "\r\n\r\n";
  const HttpReply refused = client.Raw(header);
  ExpectProblem(refused, 413, "PAYLOAD_TOO_LARGE");
  EXPECT_EQ(Get("/healthz", {}).status(), 200u);
}

// A file that keeps its converter busy until the time limit: the import is 422 with the reason,
// and meanwhile the server answers everything else (the conversion holds one worker, in a child).
TEST_P(SqliteApiTest, TheServerAnswersOthersWhileAHostileFileConverts) {
  if (std::system("command -v pandoc >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "pandoc is not installed (scripts/deps.sh)";
  }
  Config config = MakeConfig();
  config.import.timeout = 3s;
  StartApp(config);
  // 12 MB of one HTML table, which pandoc takes far longer than 3 s to convert.
  std::string html = "<!DOCTYPE html><html><body><table>";
  while (html.size() < 12 * 1024 * 1024) {
    html += "<tr><td>慢</td><td><b>cell</b></td><td><i>x</i></td></tr>";
  }
  html += "</table></body></html>";
  std::atomic<bool> answered{false};
  HttpReply hostile;
  std::thread importer([&] {
    HttpClient client(port_, 120s);
    hostile = client.Raw(ImportRequest(Alice(), "slow.html", html));
    answered = true;
  });
  // While it converts: probes, reads and writes are answered (each within its own client's
  // timeout); the import is still in flight when they are.
  int served = 0;
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(Get("/healthz", {}).status(), 200u);
    EXPECT_EQ(
        Post("/api/v1/documents", Alice(), R"({"title": "转换期间", "content": "服务照常。"})")
            .status(),
        201u);
    ++served;
  }
  const bool still_converting = !answered;
  importer.join();
  EXPECT_EQ(served, 5);
  EXPECT_TRUE(still_converting) << "the conversion ended before the other requests were served";
  ExpectProblem(hostile, 422, "UNPROCESSABLE_DOCUMENT");
  EXPECT_NE(hostile.body().find("took longer than 3"), std::string::npos) << hostile.body();
}

}  // namespace
}  // namespace docgate::api_e2e
