#include "adapters/http/responses.h"

#include "adapters/http/dto.h"
#include "adapters/http/error_mapper.h"
#include "adapters/http/idempotency_codec.h"

namespace docgate {

namespace http = boost::beast::http;

HttpResponse JsonResponse(HttpStatus status, const nlohmann::json& body) {
  HttpResponse response{status, 11};
  response.set(http::field::content_type, "application/json");
  response.body() = Dump(body);
  return response;
}

HttpResponse DocumentResponse(HttpStatus status, const Document& doc, const NameBook& names,
                              const std::optional<ImportSource>& source) {
  nlohmann::json body = ToJson(doc, names);
  if (source) {
    body["source"] = {{"filename", source->filename},
                      {"media_type", source->media_type},
                      {"bytes", source->bytes},
                      {"sha256", source->sha256}};
  }
  HttpResponse response = JsonResponse(status, body);
  response.set(http::field::etag, VersionTag(doc.version));
  return response;
}

HttpResponse OutcomeResponse(const IdempotentOutcome& outcome, const UserNames& users) {
  switch (outcome.kind) {
    case IdempotentOutcome::Kind::kCreated: {
      HttpResponse response =
          DocumentResponse(HttpStatus::created, outcome.document,
                           users.NamesOf(PeopleIn(outcome.document)), outcome.source);
      response.set(http::field::location,
                   "/api/v1/documents/" + std::to_string(outcome.document.id));
      return response;
    }
    case IdempotentOutcome::Kind::kTransitioned: {
      const Transition transition{outcome.document, outcome.review.value()};
      return JsonResponse(HttpStatus::ok, ToJson(transition, users.NamesOf(PeopleIn(transition))));
    }
    case IdempotentOutcome::Kind::kAssigned: {
      const Review& review = outcome.review.value();
      return JsonResponse(HttpStatus::ok, ToJson(review, users.NamesOf(PeopleIn(review))));
    }
    case IdempotentOutcome::Kind::kCommented: {
      const ReviewComment& comment = outcome.comment.value();
      return JsonResponse(HttpStatus::created, ToJson(comment, users.NamesOf(PeopleIn(comment))));
    }
    case IdempotentOutcome::Kind::kRefused:
      break;
  }
  return ProblemResponse(MakeError(outcome.code, outcome.detail));
}

HttpResponse ReplayResponse(const std::string& stored, const UserNames& users) {
  // Records stored before ADR 0007 hold the whole response; they are replayed as they are until
  // their TTL ends.
  HttpResponse replay = IsEncodedOutcome(stored) ? OutcomeResponse(DecodeOutcome(stored), users)
                                                 : DecodeResponse(stored);
  replay.set(kIdempotentReplayedHeader, "true");
  return replay;
}

}  // namespace docgate
