#include "adapters/http/dto.h"

#include <gtest/gtest.h>

#include <chrono>

#include "adapters/http/error_mapper.h"
#include "adapters/http/router.h"

namespace docgate {
namespace {

using namespace std::chrono;
using nlohmann::json;

TimePoint At(int y, unsigned mo, unsigned d, int h, int mi, int s, int ms) {
  return TimePoint{sys_days{year{y} / month{mo} / day{d}}.time_since_epoch() + hours{h} +
                   minutes{mi} + seconds{s} + milliseconds{ms}};
}

TEST(HttpDto, FormatsTimesAsRfc3339UtcWithMilliseconds) {
  EXPECT_EQ(FormatTime(At(2026, 11, 29, 14, 0, 0, 123)), "2026-11-29T14:00:00.123Z");
  EXPECT_EQ(FormatTime(At(2024, 2, 29, 23, 59, 59, 999)), "2024-02-29T23:59:59.999Z");
  EXPECT_EQ(FormatTime(TimePoint{}), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(FormatTime(At(2026, 1, 2, 3, 4, 5, 6)), "2026-01-02T03:04:05.006Z");
}

TEST(HttpDto, ParsesExactlyWhatItFormats) {
  const TimePoint t = At(2026, 11, 29, 14, 0, 0, 123);
  EXPECT_EQ(ParseTime(FormatTime(t)), t);
  EXPECT_FALSE(ParseTime("2026-11-29T14:00:00Z"));
  EXPECT_FALSE(ParseTime("2026-02-30T14:00:00.000Z"));
  EXPECT_FALSE(ParseTime("2026-11-29 14:00:00.123Z"));
  EXPECT_FALSE(ParseTime(""));
}

TEST(HttpDto, ParsesOnlyPositiveDecimalInt64Ids) {
  EXPECT_EQ(ParsePositiveId("1"), 1);
  EXPECT_EQ(ParsePositiveId("42"), 42);
  EXPECT_EQ(ParsePositiveId("9223372036854775807"), INT64_MAX);
  for (const char* bad :
       {"", "abc", "-1", "0", "+1", " 1", "1 ", "1.0", "1e3", "0x10", "99999999999999999999",
        "9223372036854775808", "12abc", "017", "0017", "00", "09223372036854775807"}) {
    EXPECT_FALSE(ParsePositiveId(bad)) << bad;
  }
}

// n arrays, one inside the other: "[[...]]".
std::string Nested(std::size_t n) { return std::string(n, '[') + std::string(n, ']'); }

TEST(HttpDto, JsonBodiesNestAtMost64Levels) {
  auto ok = ParseJsonBody(Nested(64));
  ASSERT_TRUE(ok) << ok.error().detail;
  EXPECT_TRUE(ok->is_array());
  auto object = ParseJsonBody(R"({"title": "t", "content": "c", "x": )" + Nested(63) + "}");
  ASSERT_TRUE(object) << object.error().detail;
  EXPECT_EQ((*object)["title"], "t");

  for (const std::string& deep : {Nested(65), R"({"title": "t", "x": )" + Nested(64) + "}",
                                  std::string(65, '[') + "1" + std::string(65, ']')}) {
    auto refused = ParseJsonBody(deep);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, ErrorCode::kValidation);
    EXPECT_EQ(refused.error().detail,
              "request body nests arrays and objects deeper than 64 levels");
  }
  std::string objects;
  for (int i = 0; i < 65; ++i) objects += R"({"a":)";
  objects += "1" + std::string(65, '}');
  EXPECT_FALSE(ParseJsonBody(objects));
}

TEST(HttpDto, HugelyNestedBodiesAreRefusedWithoutExhaustingTheStack) {
  const auto closed = ParseJsonBody(Nested(1'000'000));
  ASSERT_FALSE(closed);
  EXPECT_EQ(closed.error().code, ErrorCode::kValidation);
  const auto open = ParseJsonBody(std::string(1'000'000, '['));
  ASSERT_FALSE(open);
  EXPECT_EQ(open.error().code, ErrorCode::kValidation);
}

TEST(HttpDto, JsonBodiesAreValidJson) {
  for (const std::string bad :
       {"", "{", "not json", "{\"title\": \"\xff\"}", R"({"title": "\ud800"})", "{} {}"}) {
    const auto refused = ParseJsonBody(bad);
    ASSERT_FALSE(refused) << bad;
    EXPECT_EQ(refused.error().detail, "request body is not valid JSON");
  }
  EXPECT_EQ((*ParseJsonBody(R"({"title": "张三"})"))["title"], "张三");
}

// Found by fuzz/json_body_fuzz.cpp (fuzz/regressions/json_body/): nlohmann's lexer takes a NUL
// byte for the end of the input, so a body was JSON up to its first NUL, whatever followed.
TEST(HttpDto, ABodyWithANulByteIsNotJson) {
  for (const std::string& bad : {std::string("{\"title\": \"t\"}\0", 15),
                                 std::string("{\"title\": \"t\"}\0{{{{ not json", 25),
                                 std::string("8\0-", 3), std::string("\0", 1)}) {
    const auto refused = ParseJsonBody(bad);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, ErrorCode::kValidation);
    EXPECT_EQ(refused.error().detail, "request body is not valid JSON");
  }
  EXPECT_EQ((*ParseJsonBody(R"({"title": "a\u0000b"})"))["title"], std::string("a\0b", 3));
}

TEST(HttpDto, ParsesStrictVersionTags) {
  EXPECT_EQ(ParseVersionTag("\"3\""), 3);
  EXPECT_EQ(VersionTag(3), "\"3\"");
  for (const char* bad : {"3", "\"\"", "\"abc\"", "W/\"3\"", "\"0\"", "\"-1\"", "\"3", "\"2147483648\""}) {
    EXPECT_FALSE(ParseVersionTag(bad)) << bad;
  }
}

TEST(HttpDto, DocumentUsesStringIdsAndNullsForAbsentValues) {
  Document doc;
  doc.id = 17;
  doc.title = "Onboarding guide";
  doc.status = DocumentStatus::kPendingReview;
  doc.version = 3;
  doc.author_id = "alice";
  doc.current_review_id = 40;
  doc.created_at = At(2026, 11, 29, 14, 0, 0, 123);
  doc.updated_at = At(2026, 11, 29, 15, 0, 0, 0);
  const json j = ToJson(doc, NameBook{{"alice", "王丽"}});
  EXPECT_EQ(j["id"], "17");
  EXPECT_EQ(j["title"], "Onboarding guide");
  EXPECT_EQ(j["status"], "pending_review");
  EXPECT_EQ(j["version"], 3);
  EXPECT_EQ(j["author_id"], "alice");
  EXPECT_EQ(j["author_name"], "王丽");
  EXPECT_EQ(j["current_review_id"], "40");
  EXPECT_TRUE(j["approved_version"].is_null());
  EXPECT_EQ(j["ingest_status"], "none");
  EXPECT_EQ(j["created_at"], "2026-11-29T14:00:00.123Z");
  EXPECT_EQ(j["updated_at"], "2026-11-29T15:00:00.000Z");

  doc.current_review_id.reset();
  doc.approved_version = 2;
  const json approved = ToJson(doc, {});
  EXPECT_TRUE(approved["author_name"].is_null()) << "a name unknown is null";
  EXPECT_TRUE(approved["current_review_id"].is_null());
  EXPECT_EQ(approved["approved_version"], 2);
}

TEST(HttpDto, ReviewHasEveryContractField) {
  Review review;
  review.id = 40;
  review.document_id = 17;
  review.document_version = 3;
  review.status = ReviewStatus::kApproved;
  review.submitted_by = "alice";
  review.submitted_at = At(2026, 11, 29, 14, 0, 0, 1);
  review.decided_by = "bob";
  review.decided_at = At(2026, 11, 29, 14, 5, 0, 2);
  review.comment = "fine";
  review.required_approvals = 2;
  review.approvals = {Approval{"carol", std::nullopt, At(2026, 11, 29, 14, 1, 0, 0)},
                      Approval{"bob", "fine", At(2026, 11, 29, 14, 5, 0, 2)}};
  const json j = ToJson(review, NameBook{{"bob", "李博"}, {"carol", "陈晨"}});
  EXPECT_EQ(j, json::parse(R"({"id": "40", "document_id": "17", "document_version": 3,
      "status": "approved", "submitted_by": "alice", "submitted_by_name": null,
      "submitted_at": "2026-11-29T14:00:00.001Z", "decided_by": "bob", "decided_by_name": "李博",
      "decided_at": "2026-11-29T14:05:00.002Z", "comment": "fine", "required_approvals": 2,
      "assignees": [], "approvals": [
        {"reviewer_id": "carol", "reviewer_name": "陈晨", "comment": null,
         "decided_at": "2026-11-29T14:01:00.000Z"},
        {"reviewer_id": "bob", "reviewer_name": "李博", "comment": "fine",
         "decided_at": "2026-11-29T14:05:00.002Z"}]})"));
  EXPECT_EQ(PeopleIn(review), (std::vector<UserId>{"alice", "bob", "carol", "bob"}));
  Review pending;
  const json p = ToJson(pending, NameBook{{"bob", "李博"}});
  EXPECT_TRUE(p["decided_by_name"].is_null());
  EXPECT_TRUE(p["decided_by"].is_null());
  EXPECT_TRUE(p["decided_at"].is_null());
  EXPECT_TRUE(p["comment"].is_null());
}

TEST(HttpDto, VersionHistoryHasStringReviewIdsAndNullsForNeverSubmittedVersions) {
  const TimePoint at{std::chrono::milliseconds{1'764'424'800'123}};
  const std::vector<VersionSummary> history{
      {3,
       "\u5165\u804c\u6307\u5357",
       "\u5f20\u4e09",
       at,
       std::nullopt,
       std::nullopt,
       {"\u674e\u56db", "\u5f20\u4e09"}},
      {1, "Guide", "alice", at, ReviewId{40}, ReviewStatus::kApproved, {"alice"}}};
  EXPECT_EQ(ToJson(history), nlohmann::json::parse(R"({"items": [
              {"version": 3, "title": "\u5165\u804c\u6307\u5357", "edited_by": "\u5f20\u4e09",
               "editors": ["\u674e\u56db", "\u5f20\u4e09"],
               "created_at": "2025-11-29T14:00:00.123Z", "review_id": null, "review_status": null},
              {"version": 1, "title": "Guide", "edited_by": "alice", "editors": ["alice"],
               "created_at": "2025-11-29T14:00:00.123Z", "review_id": "40",
               "review_status": "approved"}]})"));
  EXPECT_EQ(
      ToJson(DocumentVersion{17, 2, "t", "c", "alice", at}),
      nlohmann::json({{"document_id", "17"}, {"version", 2}, {"title", "t"}, {"content", "c"}}));
}

TEST(HttpDto, PagesCarryTheNextCursorAsAStringOrNull) {
  Page<Review> page;
  EXPECT_TRUE(ToJson(page, {})["next"].is_null());
  EXPECT_TRUE(ToJson(page, {})["items"].is_array());
  page.next = 7;
  EXPECT_EQ(ToJson(page, {})["next"], "7");
}

TEST(HttpDto, DumpNeverThrowsOnInvalidUtf8) {
  EXPECT_NO_THROW(Dump(json{{"x", std::string("\xff\xfe")}}));
}

TEST(ErrorMapper, MapsEveryCodeToTheApiStatus) {
  const std::pair<ErrorCode, unsigned> table[] = {
      {ErrorCode::kValidation, 400},          {ErrorCode::kUnauthenticated, 401},
      {ErrorCode::kForbidden, 403},           {ErrorCode::kSelfReview, 403},
      {ErrorCode::kNotFound, 404},            {ErrorCode::kLockBusy, 409},
      {ErrorCode::kInvalidState, 409},        {ErrorCode::kIdempotencyInFlight, 409},
      {ErrorCode::kVersionMismatch, 412},     {ErrorCode::kPayloadTooLarge, 413},
      {ErrorCode::kIdempotencyKeyReused, 422}, {ErrorCode::kUnavailable, 503},
  };
  for (const auto& [code, status] : table) {
    EXPECT_EQ(static_cast<unsigned>(HttpStatusOf(code)), status) << ErrorCodeName(code);
    const HttpResponse response = ProblemResponse(MakeError(code, "why"));
    EXPECT_EQ(response.result_int(), status);
    EXPECT_EQ(response[boost::beast::http::field::content_type], "application/problem+json");
    const json body = json::parse(response.body());
    EXPECT_EQ(body["status"], status);
    EXPECT_EQ(body["code"], ErrorCodeName(code));
    EXPECT_EQ(body["detail"], "why");
    EXPECT_TRUE(body["type"].is_string());
    EXPECT_TRUE(body["title"].is_string());
  }
}

TEST(ErrorMapper, RetryAfterAndWwwAuthenticate) {
  const HttpResponse busy = ProblemResponse(Error{ErrorCode::kLockBusy, "busy", 7});
  EXPECT_EQ(busy[boost::beast::http::field::retry_after], "7");
  const HttpResponse unavailable = ProblemResponse(MakeError(ErrorCode::kUnavailable, "down"));
  EXPECT_EQ(unavailable[boost::beast::http::field::retry_after], "1");
  const HttpResponse zero = ProblemResponse(Error{ErrorCode::kLockBusy, "busy", 0});
  EXPECT_EQ(zero[boost::beast::http::field::retry_after], "1");
  const HttpResponse unauthenticated =
      ProblemResponse(MakeError(ErrorCode::kUnauthenticated, "no token"));
  EXPECT_EQ(unauthenticated[boost::beast::http::field::www_authenticate].substr(0, 6), "Bearer");
}

TEST(Router, MatchesTemplatesAndAnswers404And405) {
  Router router;
  int called = 0;
  router.Add(HttpVerb::get, "/api/v1/documents/{id}", [&](const RouteContext&) {
    ++called;
    return HttpResponse{};
  });
  router.Add(HttpVerb::put, "/api/v1/documents/{id}", [](const RouteContext&) { return HttpResponse{}; });
  auto found = router.Find(HttpVerb::get, "/api/v1/documents/abc");
  ASSERT_EQ(found.kind, Router::Match::Kind::kFound);
  EXPECT_EQ(found.params.Get("id"), "abc");
  EXPECT_EQ(router.Find(HttpVerb::get, "/api/v1/documents/").kind, Router::Match::Kind::kNotFound);
  EXPECT_EQ(router.Find(HttpVerb::get, "/api/v1/documents/1/x").kind,
            Router::Match::Kind::kNotFound);
  auto wrong = router.Find(HttpVerb::delete_, "/api/v1/documents/1");
  ASSERT_EQ(wrong.kind, Router::Match::Kind::kMethodNotAllowed);
  EXPECT_EQ(wrong.allow, "GET, HEAD, PUT");
  // HEAD is answered wherever GET is, by the GET's handler.
  auto head = router.Find(HttpVerb::head, "/api/v1/documents/7");
  ASSERT_EQ(head.kind, Router::Match::Kind::kFound);
  EXPECT_EQ(head.params.Get("id"), "7");
  const HttpRequest request;
  (*head.handler)(RouteContext{request, head.params, nullptr});
  EXPECT_EQ(called, 1);
  router.Add(HttpVerb::post, "/api/v1/reviews/{id}/approve",
             [](const RouteContext&) { return HttpResponse{}; });
  EXPECT_EQ(router.Find(HttpVerb::head, "/api/v1/reviews/1/approve").kind,
            Router::Match::Kind::kMethodNotAllowed);
}

// Found by fuzz/router_fuzz.cpp (fuzz/regressions/router/): a path without its leading '/' was
// one segment, so the target "healthz" was routed to "/healthz".
TEST(Router, OnlyPathsThatStartWithASlashNameARoute) {
  Router router;
  router.Add(HttpVerb::get, "/healthz", [](const RouteContext&) { return HttpResponse{}; });
  router.Add(HttpVerb::get, "/{id}", [](const RouteContext&) { return HttpResponse{}; });
  EXPECT_EQ(router.Find(HttpVerb::get, "/healthz").kind, Router::Match::Kind::kFound);
  for (const char* path : {"healthz", "*", "17", "", "http://host/healthz"}) {
    EXPECT_EQ(router.Find(HttpVerb::get, path).kind, Router::Match::Kind::kNotFound) << path;
    EXPECT_EQ(router.Find(HttpVerb::post, path).kind, Router::Match::Kind::kNotFound) << path;
  }
}

TEST(Router, ParsesQueryStrings) {
  auto query = ParseQuery("status=draft&author_id=a%40b+c", {"status", "author_id"});
  ASSERT_TRUE(query);
  EXPECT_EQ(query->at("status"), "draft");
  EXPECT_EQ(query->at("author_id"), "a@b c");
  EXPECT_FALSE(ParseQuery("bogus=1", {"status"}));
  EXPECT_FALSE(ParseQuery("status=a&status=b", {"status"}));
  EXPECT_FALSE(ParseQuery("status=%zz", {"status"}));
  EXPECT_FALSE(ParseQuery("status=%4", {"status"}));
}

TEST(Router, QueryValuesAreUtf8WithoutNul) {
  for (const char* bad :
       {"author_id=%00", "author_id=a%00b", "author_id=%FF", "author_id=%C0%AF",
        "author_id=%E0%80%AF", "author_id=%ED%A0%80", "author_id=%E5%BC", "author_id=\xff"}) {
    const auto query = ParseQuery(bad, {"author_id"});
    ASSERT_FALSE(query) << bad;
    EXPECT_EQ(query.error().code, ErrorCode::kValidation);
    EXPECT_EQ(query.error().detail,
              "query parameter 'author_id' is not valid UTF-8 or holds U+0000");
  }
  const auto chinese = ParseQuery("author_id=%E5%BC%A0%E4%B8%89", {"author_id"});
  ASSERT_TRUE(chinese);
  EXPECT_EQ(chinese->at("author_id"), "张三");
  EXPECT_EQ(ParseQuery("author_id=张三", {"author_id"})->at("author_id"), "张三");
}

TEST(Router, PathsAreUtf8WithoutNul) {
  for (const char* good : {"/", "/api/v1/documents/17", "/api/v1/%E5%BC%A0", "/a+b", "/张三"}) {
    EXPECT_TRUE(CheckPath(good)) << good;
  }
  for (const char* bad : {"/api/v1/documents/%00", "/api/v1/documents/%FF", "/%C0%AF", "/%ED%A0%80",
                          "/\xff", "/%zz", "/%4"}) {
    const auto checked = CheckPath(bad);
    ASSERT_FALSE(checked) << bad;
    EXPECT_EQ(checked.error().code, ErrorCode::kValidation);
  }
  EXPECT_EQ(TargetPath("/a/b?x=1"), "/a/b");
  EXPECT_EQ(TargetQuery("/a/b?x=1"), "x=1");
}

}  // namespace
}  // namespace docgate
