// The review lifecycle against a reference model: random sequences of create, edit (with and
// without If-Match), submit (at quorum 1, 2 or 3, naming reviewers), withdraw, approve (a vote),
// reject and assign from several actors (authors, reviewers,
// an author who also reviews, an admin who edits other people's documents, a caller with no
// role), duplicate clicks, decisions on stale reviews and ids nobody was given, through the real
// DocumentService over the fake store and over SQLite. The model predicts every answer (success
// or its API.md code) and the rows and outbox events that result; the system is read back and
// compared after every command, and invariants that hold whatever the model says are checked on
// what the system returns.

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/state.h>

#include <chrono>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "lifecycle_property_model.h"
#include "property_backends.h"
#include "property_check.h"
#include "property_show.h"

namespace docgate::lifecycle_property {
namespace {

using LifecycleCommand = rc::state::Command<LifecycleModel, LifecycleSut>;

// One use case, called `clicks` times in a row (a double click sends the same request twice).
// Predict applies one call to the model and says what it should answer; Call makes the same call
// on the system. Both build the request from `start`, the model as the command found it.
class Operation : public LifecycleCommand {
 public:
  void apply(LifecycleModel& m) const final {
    ++m.now;
    const LifecycleModel start = m;
    for (int click = 0; click < clicks_; ++click) Predict(m, start);
  }

  void run(const LifecycleModel& s0, LifecycleSut& sut) const final {
    std::ostringstream name;
    show(name);
    Within(name.str(), [&] { Run(s0, sut); });
  }

  void show(std::ostream& os) const final {
    Show(os);
    if (clicks_ > 1) os << " x" << clicks_;
  }

 protected:
  explicit Operation(int clicks = 1) : clicks_(clicks) {}

  virtual Prediction Predict(LifecycleModel& m, const LifecycleModel& start) const = 0;
  virtual Outcome Call(const LifecycleModel& start, LifecycleSut& sut) const = 0;
  virtual void Show(std::ostream& os) const = 0;
  // The documents whose rows the command may have changed.
  virtual std::vector<int> Touched(const LifecycleModel& m) const = 0;

 private:
  // A new document or review gets its id from the system's answer; it must be above every id
  // given before (DocumentStore: "greater than every id committed before").
  static void Learn(const LifecycleModel& m, LifecycleSut& sut, const Outcome& actual) {
    if (sut.document_ids.size() < m.documents.size()) {
      const DocumentId id = actual.document.value().id;
      if (!sut.document_ids.empty() && id <= sut.document_ids.back()) RC_FAIL("document id reused");
      sut.document_ids.push_back(id);
    }
    if (sut.review_ids.size() < m.reviews.size()) {
      const ReviewId id = actual.review.value().id;
      if (!sut.review_ids.empty() && id <= sut.review_ids.back()) RC_FAIL("review id reused");
      sut.review_ids.push_back(id);
    }
  }

  void Run(const LifecycleModel& s0, LifecycleSut& sut) const {
    LifecycleModel m = s0;
    ++m.now;
    const LifecycleModel start = m;
    sut.rig.clock.Advance(milliseconds{1});
    for (int click = 0; click < clicks_; ++click) {
      const Prediction predicted = Predict(m, start);
      const Outcome actual = Call(start, sut);
      ExpectSame(actual.error, predicted.error,
                 "answer to click " + std::to_string(click + 1) +
                     (actual.error ? " (" + actual.detail + ")" : ""));
      if (predicted.error) continue;
      Learn(m, sut, actual);
      if (predicted.document != kUnknown) {
        ExpectSame(actual.document.value(), Expected(m, sut, predicted.document),
                   "returned document");
      }
      if (predicted.review != kUnknown) {
        ExpectSame(actual.review.value(), ExpectedReview(m, sut, predicted.review),
                   "returned review");
      }
    }
    for (const int d : Touched(m)) CheckDocument(m, sut, d);
    CheckQueue(m, sut);
    CheckInvariants(sut, CheckOutbox(m, sut));
  }

  int clicks_;
};

// A document reference: mostly one that exists, sometimes an id nobody was given. Commands on
// documents are generated once one exists.
int GenDocument(const LifecycleModel& m) {
  RC_PRE(!m.documents.empty());
  return *rc::gen::weightedOneOf<int>(
      {{9, rc::gen::inRange<int>(0, static_cast<int>(m.documents.size()))},
       {1, rc::gen::just(kUnknown)}});
}

// Mostly the document's author (for an unknown document, alice), often the admin (who becomes an
// editor, kept from deciding the review by four eyes), else anyone.
int GenOwnerish(const LifecycleModel& m, int document) {
  const int likely = document == kUnknown ? kAlice : m.documents[document].author;
  return *rc::gen::weightedOneOf<int>({{6, rc::gen::just(likely)},
                                       {2, rc::gen::just<int>(kErin)},
                                       {2, rc::gen::inRange<int>(0, kActorCount)}});
}

int GenClicks() { return *rc::gen::weightedElement<int>({{4, 1}, {1, 2}}); }

void RequireKnown(const LifecycleModel& m, int document) {
  RC_PRE(document == kUnknown || document < static_cast<int>(m.documents.size()));
}

std::vector<int> Only(int document) {
  if (document == kUnknown) return {};
  return {document};
}

class Create final : public Operation {
 public:
  explicit Create(const LifecycleModel&)
      : actor_(
            *rc::gen::weightedOneOf<int>({{4, rc::gen::element<int>(kAlice, kCarol, kFrank, kErin)},
                                          {1, rc::gen::inRange<int>(0, kActorCount)}})),
        title_(*rc::gen::weightedOneOf<std::string>(
            {{12, rc::gen::element<std::string>("Guide", "Onboarding guide", "指南")},
             {1, rc::gen::element<std::string>("", std::string(200, 't'), std::string(201, 't'))},
             {1, rc::gen::element<std::string>(Repeat("指", 200), Repeat("指", 201))}})),
        content_(*rc::gen::weightedOneOf<std::string>(
            {{12, rc::gen::element<std::string>("Welcome aboard.", "", "第一版")},
             {1, rc::gen::just(std::string("nul\0byte", 8))}})) {}

 private:
  static std::string Repeat(const std::string& part, int times) {
    std::string text;
    for (int i = 0; i < times; ++i) text += part;
    return text;
  }

  Prediction Predict(LifecycleModel& m, const LifecycleModel&) const override {
    if (!ActorOf(actor_).CanAuthor()) return Refused(ErrorCode::kForbidden);
    if (!ValidTitle(title_) || !ValidContent(content_)) return Refused(ErrorCode::kValidation);
    ModelDocument doc;
    doc.author = actor_;
    doc.title = title_;
    doc.versions.push_back(ModelVersion{content_, actor_, title_, m.now});
    doc.created_at = doc.updated_at = m.now;
    m.documents.push_back(std::move(doc));
    return Prediction{{}, static_cast<int>(m.documents.size()) - 1};
  }
  Outcome Call(const LifecycleModel&, LifecycleSut& sut) const override {
    return From(sut.service.Create(ActorOf(actor_), title_, content_));
  }
  void Show(std::ostream& os) const override {
    os << "Create(" << IdOf(actor_) << ", title=" << ShowText(title_)
       << ", content=" << ShowText(content_) << ")";
  }
  std::vector<int> Touched(const LifecycleModel& m) const override {
    if (m.documents.empty()) return {};
    return {static_cast<int>(m.documents.size()) - 1};
  }

  int actor_;
  std::string title_;
  std::string content_;
};

// Edit, submit and withdraw: the document's author (or an admin) acting on one document.
class OnDocument : public Operation {
 public:
  void checkPreconditions(const LifecycleModel& m) const override { RequireKnown(m, document_); }

 protected:
  explicit OnDocument(const LifecycleModel& m)
      : Operation(GenClicks()), document_(GenDocument(m)), actor_(GenOwnerish(m, document_)) {}

  // The checks before the document's state, in the service's order: the role, the request's own
  // refusal if it has one (`invalid`: a body the service refuses before reading a row), the
  // document, its owner.
  std::optional<ErrorCode> Refusal(const LifecycleModel& m,
                                   std::optional<ErrorCode> invalid = std::nullopt) const {
    const Actor actor = ActorOf(actor_);
    if (!actor.CanAuthor()) return ErrorCode::kForbidden;
    if (invalid) return invalid;
    if (document_ == kUnknown) return ErrorCode::kNotFound;
    if (!MayActOn(actor, actor_, m.documents[document_])) return ErrorCode::kForbidden;
    return std::nullopt;
  }
  void ShowCall(std::ostream& os, const char* name) const {
    os << name << "(" << IdOf(actor_) << ", doc " << document_ << ")";
  }
  std::vector<int> Touched(const LifecycleModel&) const override { return Only(document_); }

  int document_;
  int actor_;
};

// A field of a PUT: left out, sent unchanged, or set to a text.
struct FieldEdit {
  enum Kind { kAbsent, kSame, kText } kind = kAbsent;
  std::string text;

  std::optional<std::string> Resolve(const std::string& current) const {
    if (kind == kAbsent) return std::nullopt;
    return kind == kSame ? current : text;
  }
};

FieldEdit GenFieldEdit(std::vector<std::string> texts) {
  return *rc::gen::weightedOneOf<FieldEdit>(
      {{2, rc::gen::just(FieldEdit{FieldEdit::kAbsent, ""})},
       {1, rc::gen::just(FieldEdit{FieldEdit::kSame, ""})},
       {3, rc::gen::map(rc::gen::elementOf(texts), [](std::string text) {
          return FieldEdit{FieldEdit::kText, std::move(text)};
        })}});
}

class Edit final : public OnDocument {
 public:
  enum IfMatch { kNoIfMatch, kCurrent, kStale, kAhead };

  explicit Edit(const LifecycleModel& m)
      : OnDocument(m),
        title_(GenFieldEdit({"Guide v2", "Onboarding guide", "Guide v2", "Onboarding guide", "",
                             std::string(201, 't')})),
        content_(GenFieldEdit({"Welcome aboard.", "Second draft.", "第二版"})),
        if_match_(*rc::gen::element(kNoIfMatch, kCurrent, kCurrent, kStale, kAhead)) {}

 private:
  EditRequest Request(const LifecycleModel& start) const {
    EditRequest request;
    if (document_ == kUnknown) {
      request.title = title_.Resolve("Guide");
      request.content = content_.Resolve("Welcome aboard.");
      if (if_match_ != kNoIfMatch) request.if_match = 1;
      return request;
    }
    const ModelDocument& doc = start.documents[document_];
    request.title = title_.Resolve(doc.title);
    request.content = content_.Resolve(doc.versions.back().content);
    const std::int32_t version = doc.version();
    if (if_match_ == kCurrent) request.if_match = version;
    if (if_match_ == kStale) request.if_match = version - 1;
    if (if_match_ == kAhead) request.if_match = version + 1;
    return request;
  }

  Prediction Predict(LifecycleModel& m, const LifecycleModel& start) const override {
    const EditRequest request = Request(start);
    const bool valid = (request.title || request.content) &&
                       (!request.title || ValidTitle(*request.title)) &&
                       (!request.content || ValidContent(*request.content));
    if (auto code = Refusal(m, valid ? std::nullopt : std::optional(ErrorCode::kValidation))) {
      return Refused(*code);
    }
    ModelDocument& doc = m.documents[document_];
    if (request.if_match && *request.if_match != doc.version()) {
      return Refused(ErrorCode::kVersionMismatch);
    }
    if (!Editable(doc.status)) return Refused(ErrorCode::kInvalidState);
    const std::string& content = doc.versions.back().content;
    const bool title_changed = request.title && *request.title != doc.title;
    const bool content_changed = request.content && *request.content != content;
    // An approved document given nothing new stays as it is; a change starts a revision.
    if (doc.status == DocumentStatus::kApproved && !title_changed && !content_changed) {
      return Prediction{{}, document_};
    }
    if (title_changed) doc.title = *request.title;
    if (title_changed || content_changed) {
      doc.versions.push_back(
          ModelVersion{content_changed ? *request.content : content, actor_, doc.title, m.now});
    }
    doc.status = DocumentStatus::kDraft;
    doc.updated_at = m.now;
    return Prediction{{}, document_};
  }
  Outcome Call(const LifecycleModel& start, LifecycleSut& sut) const override {
    return From(sut.service.Edit(ActorOf(actor_), sut.DocumentIdOf(document_), Request(start)));
  }
  void Show(std::ostream& os) const override {
    static constexpr const char* kFields[] = {"absent", "same", "text"};
    static constexpr const char* kIfMatch[] = {"none", "current", "stale", "ahead"};
    os << "Edit(" << IdOf(actor_) << ", doc " << document_ << ", title=" << kFields[title_.kind]
       << (title_.kind == FieldEdit::kText ? " " + ShowText(title_.text) : "")
       << ", content=" << kFields[content_.kind]
       << (content_.kind == FieldEdit::kText ? " " + ShowText(content_.text) : "")
       << ", If-Match=" << kIfMatch[if_match_] << ")";
  }
  FieldEdit title_;
  FieldEdit content_;
  IfMatch if_match_;
};

// Reviewers to assign: mostly none, else one or two of anyone (the author or an editor included:
// SELF_REVIEW), sometimes the same one twice.
std::vector<int> GenAssignees() {
  return *rc::gen::weightedOneOf<std::vector<int>>(
      {{3, rc::gen::just(std::vector<int>{})},
       {2, rc::gen::container<std::vector<int>>(
               *rc::gen::inRange<std::size_t>(1, 3),
               rc::gen::element<int>(kBob, kDave, kFrank, kBob, kDave, kFrank, kAlice, kErin))}});
}

// The ids of `actors`, in their order.
std::vector<UserId> IdsOf(const std::vector<int>& actors) {
  std::vector<UserId> ids;
  for (const int actor : actors) ids.push_back(IdOf(actor));
  return ids;
}

void ShowActors(std::ostream& os, const char* name, const std::vector<int>& actors) {
  os << ", " << name << "=[";
  for (std::size_t i = 0; i < actors.size(); ++i) os << (i ? " " : "") << IdOf(actors[i]);
  os << "]";
}

// Assigns to pending review `review` the ones of `add` not assigned yet (by id, as one assignment
// is read back) with their review.assigned events, and unassigns `remove`; SELF_REVIEW, with the
// model untouched, when one of `add` wrote the version under review.
std::optional<ErrorCode> AssignInModel(LifecycleModel& m, int review, int actor,
                                       const std::vector<int>& add, const std::vector<int>& remove) {
  ModelReview& r = m.reviews[review];
  const ModelDocument& doc = m.documents[r.document];
  std::vector<int> added;
  for (const int reviewer : add) {
    if (WroteUnapproved(doc, reviewer)) return ErrorCode::kSelfReview;
    if (std::find(r.assignees.begin(), r.assignees.end(), reviewer) == r.assignees.end() &&
        std::find(added.begin(), added.end(), reviewer) == added.end()) {
      added.push_back(reviewer);
    }
  }
  std::sort(added.begin(), added.end(), [](int a, int b) { return IdOf(a) < IdOf(b); });
  for (const int reviewer : remove) std::erase(r.assignees, reviewer);
  for (const int reviewer : added) {
    r.assignees.push_back(reviewer);
    AddEvent(m, EventType::kAssigned, review, actor, reviewer);
  }
  return std::nullopt;
}

class Submit final : public OnDocument {
 public:
  explicit Submit(const LifecycleModel& m)
      : OnDocument(m),
        required_(*rc::gen::weightedElement<std::optional<std::int32_t>>(
            {{6, std::nullopt}, {2, 2}, {1, 3}, {1, 0}})),
        reviewers_(GenAssignees()) {}

 private:
  Prediction Predict(LifecycleModel& m, const LifecycleModel&) const override {
    const bool valid = !required_ || (*required_ >= 1 && *required_ <= kMaxRequiredApprovals);
    if (auto code = Refusal(m, valid ? std::nullopt : std::optional(ErrorCode::kValidation))) {
      return Refused(*code);
    }
    ModelDocument& doc = m.documents[document_];
    if (!Submittable(doc.status)) return Refused(ErrorCode::kInvalidState);
    LifecycleModel next = m;  // the submission and its assignments commit together or not at all
    ModelDocument& submitted = next.documents[document_];
    ModelReview review;
    review.document = document_;
    review.version = doc.version();
    review.submitted_by = actor_;
    review.submitted_at = m.now;
    review.required = required_.value_or(1);
    next.reviews.push_back(std::move(review));
    const int id = static_cast<int>(next.reviews.size()) - 1;
    submitted.status = DocumentStatus::kPendingReview;
    submitted.current_review = id;
    submitted.updated_at = m.now;
    AddEvent(next, EventType::kSubmitted, id, actor_);
    if (auto code = AssignInModel(next, id, actor_, reviewers_, {})) return Refused(*code);
    m = std::move(next);
    return Prediction{{}, document_, id};
  }
  Outcome Call(const LifecycleModel&, LifecycleSut& sut) const override {
    return From(sut.service.Submit(ActorOf(actor_), sut.DocumentIdOf(document_),
                                   SubmitRequest{required_, IdsOf(reviewers_)}));
  }
  void Show(std::ostream& os) const override {
    os << "Submit(" << IdOf(actor_) << ", doc " << document_
       << ", required=" << (required_ ? std::to_string(*required_) : "quorum");
    ShowActors(os, "reviewers", reviewers_);
    os << ")";
  }

  std::optional<std::int32_t> required_;
  std::vector<int> reviewers_;
};

class Withdraw final : public OnDocument {
 public:
  explicit Withdraw(const LifecycleModel& m) : OnDocument(m) {}

 private:
  Prediction Predict(LifecycleModel& m, const LifecycleModel&) const override {
    if (auto code = Refusal(m)) return Refused(*code);
    ModelDocument& doc = m.documents[document_];
    if (!doc.current_review) return Refused(ErrorCode::kInvalidState);
    const int review = *doc.current_review;
    ModelReview& r = m.reviews[review];
    doc.status = DocumentStatus::kDraft;
    doc.current_review.reset();
    doc.updated_at = m.now;
    r.status = ReviewStatus::kWithdrawn;
    r.decided_by = actor_;
    r.decided_at = m.now;
    AddEvent(m, EventType::kWithdrawn, review, actor_);
    return Prediction{{}, document_, review};
  }
  Outcome Call(const LifecycleModel&, LifecycleSut& sut) const override {
    return From(sut.service.Withdraw(ActorOf(actor_), sut.DocumentIdOf(document_)));
  }
  void Show(std::ostream& os) const override { ShowCall(os, "Withdraw"); }
};

// Approve and reject: the same checks, then each its own effect.
class Decide : public Operation {
 public:
  void checkPreconditions(const LifecycleModel& m) const override {
    RC_PRE(review_ == kUnknown || review_ < static_cast<int>(m.reviews.size()));
  }

 protected:
  explicit Decide(const LifecycleModel& m)
      : Operation(GenClicks()),
        review_(GenReview(m)),
        actor_(*rc::gen::weightedOneOf<int>({{3, rc::gen::element<int>(kBob, kDave, kFrank, kErin)},
                                             {1, rc::gen::inRange<int>(0, kActorCount)}})) {}

  // The checks of API.md's order of business: role and body first (they need no row), then the
  // review, four eyes on the locked rows, and the state last.
  std::optional<ErrorCode> Refusal(const LifecycleModel& m, bool valid_text) const {
    if (!ActorOf(actor_).CanReview()) return ErrorCode::kForbidden;
    if (!valid_text) return ErrorCode::kValidation;
    if (review_ == kUnknown) return ErrorCode::kNotFound;
    const ModelReview& r = m.reviews[review_];
    const ModelDocument& doc = m.documents[r.document];
    // Four eyes: the author, and whoever wrote a version after the last approved one (an admin
    // who edited it included). At a decision that can succeed the version under review is the
    // newest; of a stale review, an editor of a later version is refused as one too (ADR 0008).
    if (WroteUnapproved(doc, actor_)) return ErrorCode::kSelfReview;
    return StateRefusal(m, review_);
  }

  // Whether `review` is pending and its document's current one, at the version under review.
  static std::optional<ErrorCode> StateRefusal(const LifecycleModel& m, int review) {
    const ModelReview& r = m.reviews[review];
    const ModelDocument& doc = m.documents[r.document];
    if (r.status != ReviewStatus::kPending || doc.status != DocumentStatus::kPendingReview ||
        doc.current_review != review || doc.version() != r.version) {
      return ErrorCode::kInvalidState;
    }
    return std::nullopt;
  }

  // Decides the review: both rows and the event.
  Prediction Record(LifecycleModel& m, ReviewStatus status, EventType event,
                    std::optional<std::string> comment) const {
    ModelReview& r = m.reviews[review_];
    ModelDocument& doc = m.documents[r.document];
    doc.current_review.reset();
    doc.updated_at = m.now;
    r.status = status;
    r.decided_by = actor_;
    r.decided_at = m.now;
    r.comment = std::move(comment);
    AddEvent(m, event, review_, actor_);
    return Prediction{{}, r.document, review_};
  }

  std::vector<int> Touched(const LifecycleModel& m) const override {
    if (review_ == kUnknown || review_ >= static_cast<int>(m.reviews.size())) return {};
    return {m.reviews[review_].document};
  }

  // Mostly a pending review, else any review (a decided or withdrawn one: stale), else an id
  // nobody was given.
  static int GenReview(const LifecycleModel& m) {
    RC_PRE(!m.reviews.empty());
    const auto any = rc::gen::inRange<int>(0, static_cast<int>(m.reviews.size()));
    std::vector<int> pending = m.Pending();
    if (pending.empty()) {
      return *rc::gen::weightedOneOf<int>({{1, rc::gen::just(kUnknown)}, {3, any}});
    }
    return *rc::gen::weightedOneOf<int>(
        {{1, rc::gen::just(kUnknown)}, {3, any}, {6, rc::gen::elementOf(std::move(pending))}});
  }

  int review_;
  int actor_;
};

class Approve final : public Decide {
 public:
  explicit Approve(const LifecycleModel& m)
      : Decide(m),
        comment_(*rc::gen::weightedOneOf<std::optional<std::string>>(
            {{9,
              rc::gen::element<std::optional<std::string>>(std::nullopt, "clear and correct", "")},
             {1, rc::gen::just(std::optional<std::string>(std::string(2001, 'c')))}})) {}

 private:
  Prediction Predict(LifecycleModel& m, const LifecycleModel&) const override {
    if (auto code = Refusal(m, !comment_ || ValidComment(*comment_))) return Refused(*code);
    ModelReview& r = m.reviews[review_];
    for (const ModelReview::Vote& vote : r.votes) {
      if (vote.reviewer == actor_) return Refused(ErrorCode::kAlreadyVoted);
    }
    r.votes.push_back(ModelReview::Vote{actor_, comment_, m.now});
    if (static_cast<std::int32_t>(r.votes.size()) < r.required) {  // a vote below the quorum
      AddEvent(m, EventType::kVoted, review_, actor_, actor_);
      return Prediction{{}, r.document, review_};
    }
    ModelDocument& doc = m.documents[r.document];
    doc.status = DocumentStatus::kApproved;
    doc.approved_version = r.version;
    doc.approved_at = m.now;
    doc.ingest = IngestStatus::kPending;
    return Record(m, ReviewStatus::kApproved, EventType::kApproved, comment_);
  }
  Outcome Call(const LifecycleModel&, LifecycleSut& sut) const override {
    return From(sut.service.Approve(ActorOf(actor_), sut.ReviewIdOf(review_), comment_));
  }
  void Show(std::ostream& os) const override {
    os << "Approve(" << IdOf(actor_) << ", review " << review_
       << ", comment=" << (comment_ ? ShowText(*comment_) : "none") << ")";
  }

  std::optional<std::string> comment_;
};

class Reject final : public Decide {
 public:
  explicit Reject(const LifecycleModel& m)
      : Decide(m),
        reason_(*rc::gen::weightedOneOf<std::string>(
            {{9, rc::gen::element<std::string>("needs an example", std::string(2000, 'r'))},
             {1, rc::gen::element<std::string>("", std::string(2001, 'r'))}})) {}

 private:
  Prediction Predict(LifecycleModel& m, const LifecycleModel&) const override {
    if (auto code = Refusal(m, ValidReason(reason_))) return Refused(*code);
    m.documents[m.reviews[review_].document].status = DocumentStatus::kRejected;
    return Record(m, ReviewStatus::kRejected, EventType::kRejected, reason_);
  }
  Outcome Call(const LifecycleModel&, LifecycleSut& sut) const override {
    return From(sut.service.Reject(ActorOf(actor_), sut.ReviewIdOf(review_), reason_));
  }
  void Show(std::ostream& os) const override {
    os << "Reject(" << IdOf(actor_) << ", review " << review_ << ", reason=" << ShowText(reason_)
       << ")";
  }

  std::string reason_;
};

// Assignment of reviewers to a review, by its document's author or an admin (often), or anyone.
class Assign final : public Decide {
 public:
  explicit Assign(const LifecycleModel& m)
      : Decide(m), add_(GenAssignees()), remove_(GenAssignees()) {
    const int document = review_ == kUnknown ? kUnknown : m.reviews[review_].document;
    owner_ = GenOwnerish(m, document);
  }

 private:
  Prediction Predict(LifecycleModel& m, const LifecycleModel&) const override {
    const Actor actor = ActorOf(owner_);
    if (!actor.CanAuthor()) return Refused(ErrorCode::kForbidden);
    const bool overlap = std::any_of(add_.begin(), add_.end(), [&](int a) {
      return std::find(remove_.begin(), remove_.end(), a) != remove_.end();
    });
    if ((add_.empty() && remove_.empty()) || overlap) return Refused(ErrorCode::kValidation);
    if (review_ == kUnknown) return Refused(ErrorCode::kNotFound);
    if (!MayActOn(actor, owner_, m.documents[m.reviews[review_].document])) {
      return Refused(ErrorCode::kForbidden);
    }
    if (auto code = StateRefusal(m, review_)) return Refused(*code);
    if (auto code = AssignInModel(m, review_, owner_, add_, remove_)) return Refused(*code);
    return Prediction{{}, kUnknown, review_};
  }
  Outcome Call(const LifecycleModel&, LifecycleSut& sut) const override {
    return From(sut.service.Assign(ActorOf(owner_), sut.ReviewIdOf(review_),
                                   AssigneeChange{IdsOf(add_), IdsOf(remove_)}));
  }
  void Show(std::ostream& os) const override {
    os << "Assign(" << IdOf(owner_) << ", review " << review_;
    ShowActors(os, "add", add_);
    ShowActors(os, "remove", remove_);
    os << ")";
  }

  int owner_ = kAlice;
  std::vector<int> add_;
  std::vector<int> remove_;
};

// A whole history on one backend, then every row read back once more.
void RunLifecycle(std::unique_ptr<PropertyBackend> (*make_backend)(milliseconds)) {
  const LifecycleModel initial;
  LifecycleSut sut(make_backend(milliseconds{60'000}));
  const auto commands = *rc::state::gen::commands(
      initial, rc::state::gen::execOneOfWithArgs<Create, Edit, Edit, Submit, Submit, Submit,
                                                 Withdraw, Approve, Approve, Approve, Reject,
                                                 Assign>());
  rc::state::runAll(commands, initial, sut);

  LifecycleModel final_state = initial;
  rc::state::applyAll(commands, final_state);
  Within("the final read-back", [&] {
    for (int d = 0; d < static_cast<int>(final_state.documents.size()); ++d) {
      CheckDocument(final_state, sut, d);
    }
    for (int r = 0; r < static_cast<int>(final_state.reviews.size()); ++r) {
      CheckReview(final_state, sut, r);
    }
    CheckPaging(final_state, sut);
    CheckQueue(final_state, sut);
    CheckInvariants(sut, CheckOutbox(final_state, sut));
  });
  RC_TAG(final_state.documents.size() > 3 ? "4+ documents" : "up to 3 documents");
  RC_CLASSIFY(std::any_of(final_state.reviews.begin(), final_state.reviews.end(),
                          [](const ModelReview& r) { return r.status == ReviewStatus::kApproved; }),
              "some approval");
  RC_CLASSIFY(std::any_of(final_state.reviews.begin(), final_state.reviews.end(),
                          [](const ModelReview& r) { return r.required > 1 && !r.votes.empty(); }),
              "a vote at a quorum above 1");
  RC_CLASSIFY(std::any_of(final_state.reviews.begin(), final_state.reviews.end(),
                          [](const ModelReview& r) { return !r.assignees.empty(); }),
              "some assignee");
}

TEST(LifecyclePropertyTest, MatchesTheModelOnTheFakeStore) {
  CheckProperty(PropertyBudget{.cases = 600, .max_size = 100},
                [] { RunLifecycle(&MakeFakeBackend); });
}

TEST(LifecyclePropertyTest, MatchesTheModelOnSqlite) {
  CheckProperty(PropertyBudget{.cases = 120, .max_size = 80, .shrink = false},
                [] { RunLifecycle(&MakeSqliteBackend); });
}

}  // namespace
}  // namespace docgate::lifecycle_property
