#include "adapters/http/document_routes.h"

#include <string>
#include <utility>

#include "adapters/http/multipart.h"
#include "adapters/http/request_params.h"
#include "core/lifecycle.h"
#include "core/utf8.h"

namespace docgate {

namespace http = boost::beast::http;

namespace {

// An imported file's name, as `source.filename` keeps it.
constexpr std::size_t kMaxFilenameBytes = 255;

// The body's `format`: nullopt when absent; VALIDATION for a value that names no format.
Result<std::optional<DocumentFormat>> FormatField(const nlohmann::json& body) {
  auto text = StringField(body, "format");
  if (!text) return text.error();
  if (!*text) return std::optional<DocumentFormat>{};
  const auto format = ParseDocumentFormat(**text);
  if (!format) return Invalid("format must be markdown or text, got '" + **text + "'");
  return std::optional<DocumentFormat>{*format};
}

}  // namespace

void DocumentRoutes::AddTo(Router& router, const RouteGuard& guard) const {
  using V = HttpVerb;
  router.Add(V::post, "/api/v1/documents", guard.Idempotent(Bind(this, &DocumentRoutes::Create)));
  router.Add(V::post, "/api/v1/documents/import",
             guard.Idempotent(Bind(this, &DocumentRoutes::Import)));
  router.Add(V::get, "/api/v1/documents", guard.Authenticated(Bind(this, &DocumentRoutes::List)));
  router.Add(V::get, "/api/v1/documents/{id}",
             guard.Authenticated(Bind(this, &DocumentRoutes::Get)));
  router.Add(V::put, "/api/v1/documents/{id}",
             guard.Authenticated(Bind(this, &DocumentRoutes::Edit)));
  router.Add(V::get, "/api/v1/documents/{id}/content",
             guard.Authenticated(Bind(this, &DocumentRoutes::Content)));
  router.Add(V::get, "/api/v1/documents/{id}/preview",
             guard.Authenticated(Bind(this, &DocumentRoutes::Preview)));
  router.Add(V::post, "/api/v1/documents/{id}/submit",
             guard.Idempotent(Bind(this, &DocumentRoutes::Submit)));
  router.Add(V::post, "/api/v1/documents/{id}/withdraw",
             guard.Idempotent(Bind(this, &DocumentRoutes::Withdraw)));
  router.Add(V::get, "/api/v1/documents/{id}/reviews",
             guard.Authenticated(Bind(this, &DocumentRoutes::Reviews)));
  router.Add(V::get, "/api/v1/documents/{id}/versions",
             guard.Authenticated(Bind(this, &DocumentRoutes::Versions)));
  router.Add(V::get, "/api/v1/documents/{id}/versions/{version}",
             guard.Authenticated(Bind(this, &DocumentRoutes::Version)));
}

Result<IdempotentOutcome> DocumentRoutes::Create(const RouteContext& ctx, const Actor& actor,
                                                 IdempotentEffect& effect) const {
  auto body = ObjectBody(ctx.request, /*optional=*/false);
  if (!body) return body.error();
  auto title = RequiredString(*body, "title");
  if (!title) return title.error();
  auto content = RequiredString(*body, "content");
  if (!content) return content.error();
  auto format = FormatField(*body);
  if (!format) return format.error();
  auto doc = service_.Create(actor, *title, *content, format->value_or(DocumentFormat::kMarkdown),
                             effect.Hook());
  if (!doc) return doc.error();
  return IdempotentOutcome::Created(std::move(*doc));
}

Result<IdempotentOutcome> DocumentRoutes::Import(const RouteContext& ctx, const Actor& actor,
                                                 IdempotentEffect& effect) const {
  if (importer_ == nullptr) {
    return MakeError(ErrorCode::kUnsupportedMediaType, "this server imports no files");
  }
  auto parts = ParseMultipartForm(View(ctx.request[http::field::content_type]), ctx.request.body());
  if (!parts) return parts.error();
  ImportedFile file;
  bool found = false;
  for (const FormPart& part : *parts) {
    if (part.name == "file" && !found) {
      if (!part.has_filename) return Invalid("the part `file` must be a file (with a filename)");
      if (part.filename.empty() || part.filename.size() > kMaxFilenameBytes ||
          !IsStorableText(part.filename)) {
        return Invalid("the file's name must be 1.." + std::to_string(kMaxFilenameBytes) +
                       " bytes of UTF-8 without NUL");
      }
      file.filename = part.filename;
      file.bytes = std::string(part.body);
      found = true;
    } else if (part.name == "title") {
      file.title = std::string(part.body);
    }
  }
  if (!found) return Invalid("multipart/form-data must have a part `file`");
  auto imported = importer_->Import(actor, file, effect.Hook());
  if (!imported) return imported.error();
  IdempotentOutcome outcome = IdempotentOutcome::Created(std::move(imported->document));
  outcome.source = std::move(imported->source);
  return outcome;
}

Result<HttpResponse> DocumentRoutes::List(const RouteContext& ctx, const Actor&) const {
  auto query = Query(ctx, {"status", "author_id", "limit", "after"});
  if (!query) return query.error();
  ListDocumentsRequest request;
  if (const auto it = query->find("status"); it != query->end()) {
    request.status = ParseDocumentStatus(it->second);
    if (!request.status) {
      return Invalid("status must be draft, pending_review, approved or rejected, got '" +
                     it->second + "'");
    }
  }
  if (const auto it = query->find("author_id"); it != query->end()) {
    // An author id is a token's `sub`: anything longer names nobody.
    if (it->second.empty() || it->second.size() > kMaxSubjectBytes) {
      return Invalid("author_id must be 1.." + std::to_string(kMaxSubjectBytes) + " bytes, got " +
                     std::to_string(it->second.size()));
    }
    request.author_id = it->second;
  }
  auto paging = PagingParams(*query);
  if (!paging) return paging.error();
  request.limit = paging->limit;
  request.after = paging->after;
  return Ok200(service_.ListDocuments(request), users_);
}

Result<HttpResponse> DocumentRoutes::Get(const RouteContext& ctx, const Actor&) const {
  auto id = PathId(ctx, "document");
  if (!id) return id.error();
  auto doc = service_.GetDocument(*id);
  if (!doc) return doc.error();
  return DocumentResponse(HttpStatus::ok, *doc, users_.NamesOf(PeopleIn(*doc)));
}

Result<HttpResponse> DocumentRoutes::Edit(const RouteContext& ctx, const Actor& actor) const {
  auto id = PathId(ctx, "document");
  if (!id) return id.error();
  EditRequest request;
  if (const auto it = ctx.request.find(http::field::if_match); it != ctx.request.end()) {
    const auto value = View(it->value());
    if (value != "*") {
      request.if_match = ParseVersionTag(value);
      if (!request.if_match) {
        return Invalid("If-Match must be a version tag like \"3\", got '" + std::string(value) +
                       "'");
      }
    }
  }
  auto body = ObjectBody(ctx.request, /*optional=*/false);
  if (!body) return body.error();
  auto title = StringField(*body, "title");
  if (!title) return title.error();
  auto content = StringField(*body, "content");
  if (!content) return content.error();
  auto format = FormatField(*body);
  if (!format) return format.error();
  request.title = std::move(*title);
  request.content = std::move(*content);
  request.format = *format;
  auto doc = service_.Edit(actor, *id, request);
  if (!doc) return doc.error();
  return DocumentResponse(HttpStatus::ok, *doc, users_.NamesOf(PeopleIn(*doc)));
}

Result<HttpResponse> DocumentRoutes::Content(const RouteContext& ctx, const Actor&) const {
  auto id = PathId(ctx, "document");
  if (!id) return id.error();
  return Ok200(service_.GetContent(*id));
}

Result<HttpResponse> DocumentRoutes::Preview(const RouteContext& ctx, const Actor&) const {
  auto id = PathId(ctx, "document");
  if (!id) return id.error();
  return Ok200(reader_.GetPreview(*id));
}

Result<IdempotentOutcome> DocumentRoutes::Submit(const RouteContext& ctx, const Actor& actor,
                                                 IdempotentEffect& effect) const {
  auto id = PathId(ctx, "document");
  if (!id) return id.error();
  auto body = ObjectBody(ctx.request, /*optional=*/true);
  if (!body) return body.error();
  SubmitRequest request;
  // `required_approvals` may be absent or null (the quorum), otherwise an integer.
  if (const auto it = body->find("required_approvals"); it != body->end() && !it->is_null()) {
    if (!it->is_number_integer() || *it < 1 || *it > kMaxRequiredApprovals) {
      return Invalid("`required_approvals` must be an integer of 1.." +
                     std::to_string(kMaxRequiredApprovals));
    }
    request.required_approvals = it->get<std::int32_t>();
  }
  auto reviewers = StringListField(*body, "reviewers");
  if (!reviewers) return reviewers.error();
  request.reviewers = std::move(*reviewers);
  return Transitioned(service_.Submit(actor, *id, request, effect.Hook()));
}

Result<IdempotentOutcome> DocumentRoutes::Withdraw(const RouteContext& ctx, const Actor& actor,
                                                   IdempotentEffect& effect) const {
  auto id = PathId(ctx, "document");
  if (!id) return id.error();
  return Transitioned(service_.Withdraw(actor, *id, effect.Hook()));
}

Result<HttpResponse> DocumentRoutes::Reviews(const RouteContext& ctx, const Actor&) const {
  auto id = PathId(ctx, "document");
  if (!id) return id.error();
  auto paging = PageParams(ctx);
  if (!paging) return paging.error();
  return Ok200(service_.ReviewHistory(*id, *paging), users_);
}

Result<HttpResponse> DocumentRoutes::Versions(const RouteContext& ctx, const Actor&) const {
  auto id = PathId(ctx, "document");
  if (!id) return id.error();
  auto paging = PageParams(ctx);
  if (!paging) return paging.error();
  return Ok200(service_.ListVersions(*id, *paging));
}

Result<HttpResponse> DocumentRoutes::Version(const RouteContext& ctx, const Actor&) const {
  auto id = PathId(ctx, "document");
  if (!id) return id.error();
  const auto raw = ctx.params.Get("version");
  const auto version = ParseVersion(raw);
  if (!version) {
    return Invalid(
        "version must be a positive 32-bit decimal integer without leading zeros, got '" +
        std::string(raw) + "'");
  }
  return Ok200(service_.GetVersion(*id, *version));
}

}  // namespace docgate
