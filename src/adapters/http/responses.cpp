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

HttpResponse DocumentResponse(HttpStatus status, const Document& doc, const NameBook& names) {
  HttpResponse response = JsonResponse(status, ToJson(doc, names));
  response.set(http::field::etag, VersionTag(doc.version));
  return response;
}

HttpResponse OutcomeResponse(const IdempotentOutcome& outcome, const UserNames& users) {
  switch (outcome.kind) {
    case IdempotentOutcome::Kind::kCreated: {
      nlohmann::json body = ToJson(outcome.document, users.NamesOf(PeopleIn(outcome.document)));
      if (outcome.source) {
        // An import's answer: the document, and the file it came from.
        body["source"] = {{"filename", outcome.source->filename},
                          {"media_type", outcome.source->media_type},
                          {"bytes", outcome.source->bytes},
                          {"sha256", outcome.source->sha256}};
      }
      HttpResponse response = JsonResponse(HttpStatus::created, body);
      response.set(http::field::etag, VersionTag(outcome.document.version));
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
