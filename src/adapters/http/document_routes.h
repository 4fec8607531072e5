#pragma once

// The routes of /api/v1/documents: create, list, read, edit, the working copy, the approved
// preview, submit, withdraw, a document's reviews and versions (shared/API.md). Each reads its
// request (request_params.h) and calls its use case.

#include "adapters/http/route_guard.h"
#include "adapters/http/router.h"
#include "app/document_import.h"
#include "app/document_service.h"
#include "app/reader_service.h"
#include "app/user_names.h"

namespace docgate {

// Thread-safe; the services must outlive it and the routes it adds.
class DocumentRoutes {
 public:
  // `importer`: null when this server converts no files (POST .../import is then 415).
  DocumentRoutes(DocumentService& service, ReaderService& reader, const UserNames& users,
                 const DocumentImporter* importer = nullptr)
      : service_(service), reader_(reader), users_(users), importer_(importer) {}

  void AddTo(Router& router, const RouteGuard& guard) const;

 private:
  Result<IdempotentOutcome> Create(const RouteContext& ctx, const Actor& actor,
                                   IdempotentEffect& effect) const;
  Result<IdempotentOutcome> Import(const RouteContext& ctx, const Actor& actor,
                                   IdempotentEffect& effect) const;
  Result<HttpResponse> List(const RouteContext& ctx, const Actor& actor) const;
  Result<HttpResponse> Get(const RouteContext& ctx, const Actor& actor) const;
  Result<HttpResponse> Edit(const RouteContext& ctx, const Actor& actor) const;
  Result<HttpResponse> Content(const RouteContext& ctx, const Actor& actor) const;
  Result<HttpResponse> Preview(const RouteContext& ctx, const Actor& actor) const;
  Result<IdempotentOutcome> Submit(const RouteContext& ctx, const Actor& actor,
                                   IdempotentEffect& effect) const;
  Result<IdempotentOutcome> Withdraw(const RouteContext& ctx, const Actor& actor,
                                     IdempotentEffect& effect) const;
  Result<HttpResponse> Reviews(const RouteContext& ctx, const Actor& actor) const;
  Result<HttpResponse> Versions(const RouteContext& ctx, const Actor& actor) const;
  Result<HttpResponse> Version(const RouteContext& ctx, const Actor& actor) const;

  DocumentService& service_;
  ReaderService& reader_;
  const UserNames& users_;
  const DocumentImporter* importer_;
};

}  // namespace docgate
