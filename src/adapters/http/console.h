#pragma once

// The reviewer console (issue 18, ADR 0011): static HTML, CSS and JavaScript compiled into the
// binary from src/console/ and served without a token, `/` as console.html and `/console/<file>`
// for the rest. The console itself talks to /api/v1 with the token the user signs in with; the
// server never sees the token in a URL.

#include <string_view>

#include "adapters/http/http_message.h"
#include "adapters/http/router.h"

namespace docgate {

// 200 with the asset, its Content-Type, a strong ETag (a hash of its bytes) and
// `Cache-Control: no-cache` (revalidate, so a new binary is picked up at once); 304 when
// `If-None-Match` names that ETag; 404 NOT_FOUND problem for a name that is no asset. Every answer
// carries a Content-Security-Policy that allows only the console's own scripts, styles and API
// (no inline script, no other origin), `X-Content-Type-Options: nosniff`,
// `Referrer-Policy: no-referrer` and `X-Frame-Options: DENY`.
HttpResponse ConsoleAsset(std::string_view name, const HttpRequest& request);

// GET / and GET /console/{file}: ConsoleAsset, without a token.
void AddConsoleRoutes(Router& router);

}  // namespace docgate
