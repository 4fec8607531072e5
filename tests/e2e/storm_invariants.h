#pragma once

// What must hold after a storm (e2e/storm.h), read from the database (PostgreSQL) and from what
// the broker delivered, whatever was killed or cut meanwhile. Each check says what it found, one
// line a violation:
//   - a document with two pending reviews;
//   - a review decided twice (two decision events), or whose status and events disagree (an
//     approval without exactly one document.approved event, a review without exactly one
//     document.submitted event);
//   - an acknowledged effect that is missing (a 201 whose document is not there, a 200 decision
//     the review does not show);
//   - an idempotent retry with a second effect (two documents of one create intent's title);
//   - events lost (in the outbox, never delivered by the broker) or out of order (a document's
//     events first arriving in another order than the outbox's);
//   - an approved version not ingested (StormDrained waits for this and the outbox first);
//   - quorums (issue 38): a review with more approvals than its required_approvals, an approved
//     review without exactly required_approvals of them, a review not approved that holds its
//     quorum, a review whose review.voted events are not exactly one per approval that did not
//     complete the quorum (by the voter: every approval but the approver's, decided_by, of an
//     approved review) or whose document.approved is not by its decided_by, a review whose
//     required_approvals is not the one its submission was answered with, an acknowledged
//     approval (200) or 409 ALREADY_VOTED whose approval the review does not hold;
//   - comments: an acknowledged comment (201) missing or not as written, one comment intent that
//     made two comments, a comment without exactly one review.commented event (or such an event
//     without its comment).

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <pqxx/pqxx>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/model.h"
#include "e2e/storm.h"

namespace docgate::e2e {

struct StormReport {
  std::vector<std::string> violations;
  std::int64_t events = 0;            // this storm's rows in the outbox
  std::int64_t events_lost = 0;       // of those, never received from the broker
  std::int64_t duplicate_copies = 0;  // deliveries of an event already received (allowed)
  std::int64_t approvals = 0;         // reviews approved
  // Second effects: a review decided twice (in the database, or acknowledged twice), a document
  // with two pending reviews, two documents of one create intent, two comments of one intent.
  std::int64_t duplicate_effects = 0;
  std::int64_t quorum_reviews = 0;  // reviews that asked for more than one approval
  std::int64_t votes = 0;           // approvals that did not complete a quorum (review.voted)
  std::int64_t comments = 0;        // comments on the storm's reviews
};

namespace storm_detail {

// One connection for a whole check, and the clause that picks the storm's documents (those of its
// authors).
class StormRows {
 public:
  StormRows(const std::string& url, const std::string& prefix)
      : connection_(url), mine_("d.author_id LIKE " + connection_.quote(prefix + "%")) {}

  const std::string& mine() const { return mine_; }

  pqxx::result Query(const std::string& sql) {
    pqxx::nontransaction tx(connection_);
    return tx.exec(sql);
  }

  // True when the storm's outbox is delivered and every approved version is ingested.
  bool Drained() {
    const auto undelivered =
        Query(
            "SELECT count(*) FROM kh_outbox o JOIN kh_document d ON d.id = o.document_id WHERE "
            "o.delivered_at IS NULL AND " +
            mine_)[0][0]
            .as<std::int64_t>();
    const auto not_ingested =
        Query(
            "SELECT count(*) FROM kh_document d LEFT JOIN kh_document_preview p ON p.document_id = "
            "d.id WHERE d.approved_version IS NOT NULL AND (d.ingest_status <> 'done' OR p.version "
            "IS DISTINCT FROM d.approved_version) AND " +
            mine_)[0][0]
            .as<std::int64_t>();
    return undelivered == 0 && not_ingested == 0;
  }

 private:
  pqxx::connection connection_;
  const std::string mine_;
};

}  // namespace storm_detail

// True when the storm's outbox is delivered and every approved version is ingested.
inline bool StormDrained(const std::string& url, const std::string& prefix) {
  return storm_detail::StormRows(url, prefix).Drained();
}

// `received`: every event the broker delivered to a queue bound to all of docgate's events
// during and after the storm, in arrival order (copies included).
inline StormReport CheckStormInvariants(const std::string& url, const std::string& prefix,
                                        const StormTally& tally,
                                        const std::vector<OutboxEvent>& received) {
  StormReport report;
  auto& violations = report.violations;
  storm_detail::StormRows rows(url, prefix);
  const std::string& mine = rows.mine();

  for (const auto& row : rows.Query("SELECT r.document_id FROM kh_document_review r JOIN "
                                    "kh_document d ON d.id = r.document_id WHERE r.status = "
                                    "'pending' AND " +
                                    mine + " GROUP BY r.document_id HAVING count(*) > 1")) {
    violations.push_back("document " + row[0].as<std::string>() + " has two pending reviews");
    ++report.duplicate_effects;
  }

  // Each review's status against its events.
  std::map<std::int64_t, std::string> status_of;
  for (const auto& row :
       rows.Query("SELECT r.id, r.status, "
                  "count(o.id) FILTER (WHERE o.event_type = 'document.submitted'), "
                  "count(o.id) FILTER (WHERE o.event_type = 'document.approved'), "
                  "count(o.id) FILTER (WHERE o.event_type = 'document.rejected'), "
                  "count(o.id) FILTER (WHERE o.event_type = 'document.withdrawn') "
                  "FROM kh_document_review r JOIN kh_document d ON d.id = r.document_id "
                  "LEFT JOIN kh_outbox o ON o.review_id = r.id WHERE " +
                  mine + " GROUP BY r.id, r.status")) {
    const auto review = row[0].as<std::int64_t>();
    const auto status = row[1].as<std::string>();
    status_of[review] = status;
    const auto submitted = row[2].as<std::int64_t>();
    const auto approved = row[3].as<std::int64_t>();
    const auto rejected = row[4].as<std::int64_t>();
    const auto withdrawn = row[5].as<std::int64_t>();
    const std::string where = "review " + std::to_string(review) + " (" + status + ")";
    if (approved + rejected + withdrawn > 1) {
      violations.push_back(where + " was decided twice");
      ++report.duplicate_effects;
    }
    if (submitted != 1) {
      violations.push_back(where + " has " + std::to_string(submitted) + " submitted events");
    }
    const std::int64_t expected_approved = status == "approved" ? 1 : 0;
    const std::int64_t expected_rejected = status == "rejected" ? 1 : 0;
    const std::int64_t expected_withdrawn = status == "withdrawn" ? 1 : 0;
    if (approved != expected_approved || rejected != expected_rejected ||
        withdrawn != expected_withdrawn) {
      violations.push_back(where + " has " + std::to_string(approved) + " approved, " +
                           std::to_string(rejected) + " rejected, " + std::to_string(withdrawn) +
                           " withdrawn events");
    }
    if (status == "approved") ++report.approvals;
  }

  // Acknowledged effects.
  std::map<std::int64_t, std::string> titles;
  for (const auto& row : rows.Query("SELECT d.id, d.title FROM kh_document d WHERE " + mine)) {
    titles[row[0].as<std::int64_t>()] = row[1].as<std::string>();
  }
  for (const auto& [id, title] : tally.created) {
    const auto it = titles.find(id);
    if (it == titles.end() || it->second != title) {
      violations.push_back("created document " + std::to_string(id) + " (201) is missing");
    }
  }
  for (const auto& row : rows.Query("SELECT d.title, count(*) FROM kh_document d WHERE " + mine +
                                    " GROUP BY d.title HAVING count(*) > 1")) {
    violations.push_back("one create intent made " + row[1].as<std::string>() +
                         " documents: " + row[0].as<std::string>());
    ++report.duplicate_effects;
  }
  for (const auto& [review, document] : tally.submitted) {
    if (!status_of.contains(review)) {
      violations.push_back("submitted review " + std::to_string(review) + " (200) is missing");
    }
  }
  for (const auto& [review, outcome] : tally.decided) {
    const auto it = status_of.find(review);
    if (it == status_of.end() || it->second != outcome) {
      violations.push_back("review " + std::to_string(review) + " acknowledged " + outcome +
                           " is " + (it == status_of.end() ? "missing" : it->second));
    }
  }

  // Quorums: each review's approvals against its required_approvals, its status, its events and
  // what the reviewers were told.
  std::map<std::int64_t, std::vector<std::string>> approvals_of;  // review -> reviewers
  for (const auto& row : rows.Query("SELECT a.review_id, a.reviewer_id FROM kh_review_approval a "
                                    "JOIN kh_document_review r ON r.id = a.review_id JOIN "
                                    "kh_document d ON d.id = r.document_id WHERE " +
                                    mine)) {
    approvals_of[row[0].as<std::int64_t>()].push_back(row[1].as<std::string>());
  }
  std::map<std::int64_t, std::vector<std::string>> voted_of;     // review -> review.voted's voters
  std::map<std::int64_t, std::vector<std::string>> approved_by;  // review -> document.approved's
  for (const auto& row :
       rows.Query("SELECT o.review_id, o.event_type, coalesce(o.reviewer_id, ''), o.actor_id "
                  "FROM kh_outbox o JOIN kh_document d ON d.id = o.document_id WHERE "
                  "o.event_type IN ('review.voted', 'document.approved') AND " +
                  mine)) {
    const auto review = row[0].as<std::int64_t>();
    const auto voter = row[2].as<std::string>();
    const auto actor = row[3].as<std::string>();
    if (row[1].as<std::string>() == "document.approved") {
      approved_by[review].push_back(actor);
      continue;
    }
    voted_of[review].push_back(voter);
    if (voter != actor) {
      violations.push_back("review " + std::to_string(review) + ": a review.voted event by " +
                           actor + " names the voter " + voter);
    }
  }
  const auto list = [](std::vector<std::string> names) {
    std::sort(names.begin(), names.end());
    std::string text = "[";
    for (const auto& name : names) text += (text.size() > 1 ? ", " : "") + name;
    return text + "]";
  };
  for (const auto& row :
       rows.Query("SELECT r.id, r.status, r.required_approvals, coalesce(r.decided_by, '') FROM "
                  "kh_document_review r JOIN kh_document d ON d.id = r.document_id WHERE " +
                  mine)) {
    const auto review = row[0].as<std::int64_t>();
    const auto status = row[1].as<std::string>();
    const auto required = row[2].as<std::int64_t>();
    const auto decided_by = row[3].as<std::string>();
    const auto& approvals = approvals_of[review];
    const auto count = static_cast<std::int64_t>(approvals.size());
    const std::string where = "review " + std::to_string(review) + " (" + status + ", " +
                              std::to_string(count) + " of " + std::to_string(required) +
                              " approvals)";
    if (required > 1) ++report.quorum_reviews;
    if (count > required) {
      violations.push_back(where + " has more approvals than its required_approvals");
      ++report.duplicate_effects;
    } else if (status == "approved" && count != required) {
      violations.push_back(where + " is approved without exactly its required_approvals");
    } else if (status != "approved" && count == required) {
      violations.push_back(where + " holds its quorum but is not approved");
    }
    // Every approval wrote review.voted but the one that approved the review (its decided_by).
    std::vector<std::string> expected_voters = approvals;
    if (status == "approved") {
      const auto approver = std::find(expected_voters.begin(), expected_voters.end(), decided_by);
      if (approver == expected_voters.end()) {
        violations.push_back(where + ": its decided_by " + decided_by + " has no approval");
      } else {
        expected_voters.erase(approver);
      }
      const auto& approvers = approved_by[review];
      if (approvers.size() == 1 && approvers.front() != decided_by) {
        violations.push_back(where + ": document.approved by " + approvers.front() +
                             ", decided by " + decided_by);
      }
    }
    const auto& voters = voted_of[review];
    report.votes += static_cast<std::int64_t>(voters.size());
    if (list(voters) != list(expected_voters)) {
      violations.push_back(where + ": review.voted by " + list(voters) + ", approvals below " +
                           "the quorum by " + list(expected_voters));
    }
    if (const auto it = tally.required.find(review);
        it != tally.required.end() && it->second != required) {
      violations.push_back(where + ": submitted (200) with required_approvals " +
                           std::to_string(it->second));
    }
  }
  const auto holds = [&](std::int64_t review, const std::string& reviewer) {
    const auto it = approvals_of.find(review);
    return it != approvals_of.end() &&
           std::find(it->second.begin(), it->second.end(), reviewer) != it->second.end();
  };
  for (const auto& [review, reviewer] : tally.votes) {
    if (!holds(review, reviewer)) {
      violations.push_back("approval of review " + std::to_string(review) + " by " + reviewer +
                           " (200) is missing");
    }
  }
  for (const auto& [review, reviewer] : tally.already_voted) {
    if (!holds(review, reviewer)) {
      violations.push_back(reviewer + " was told ALREADY_VOTED on review " +
                           std::to_string(review) + ", which holds no approval of theirs");
    }
  }

  // Comments: each acknowledged one there as written, one comment per intent (each body names
  // its intent), one review.commented event per comment.
  struct StoredComment {
    std::int64_t review;
    std::string author;
    std::string body;
    std::optional<int> line;
  };
  std::map<std::int64_t, StoredComment> comments;
  std::map<std::string, int> comments_of_body;
  for (const auto& row : rows.Query("SELECT c.id, c.review_id, c.author_id, c.body, c.line FROM "
                                    "kh_review_comment c JOIN kh_document_review r ON r.id = "
                                    "c.review_id JOIN kh_document d ON d.id = r.document_id "
                                    "WHERE " +
                                    mine)) {
    StoredComment comment{row[1].as<std::int64_t>(), row[2].as<std::string>(),
                          row[3].as<std::string>(), std::nullopt};
    if (!row[4].is_null()) comment.line = row[4].as<int>();
    ++comments_of_body[comment.body];
    comments.emplace(row[0].as<std::int64_t>(), std::move(comment));
  }
  report.comments = static_cast<std::int64_t>(comments.size());
  for (const auto& [body, count] : comments_of_body) {
    if (count > 1) {
      violations.push_back("one comment intent made " + std::to_string(count) +
                           " comments: " + body);
      ++report.duplicate_effects;
    }
  }
  for (const auto& [id, written] : tally.comments) {
    const auto it = comments.find(id);
    if (it == comments.end()) {
      violations.push_back("comment " + std::to_string(id) + " (201) is missing");
    } else if (it->second.review != written.review || it->second.author != written.author ||
               it->second.body != written.body || it->second.line != written.line) {
      violations.push_back("comment " + std::to_string(id) +
                           " (201) is not as written: " + it->second.body);
    }
  }
  std::map<std::int64_t, std::int64_t> commented;  // comment -> review.commented events
  for (const auto& row :
       rows.Query("SELECT coalesce(o.comment_id, 0), o.review_id FROM kh_outbox o "
                  "JOIN kh_document d ON d.id = o.document_id WHERE "
                  "o.event_type = 'review.commented' AND " +
                  mine)) {
    const auto id = row[0].as<std::int64_t>();
    ++commented[id];
    const auto it = comments.find(id);
    if (it == comments.end() || it->second.review != row[1].as<std::int64_t>()) {
      violations.push_back("a review.commented event of review " + row[1].as<std::string>() +
                           " names comment " + std::to_string(id) + ", not one of its comments");
    }
  }
  for (const auto& [id, comment] : comments) {
    if (commented[id] != 1) {
      violations.push_back("comment " + std::to_string(id) + " of review " +
                           std::to_string(comment.review) + " has " +
                           std::to_string(commented[id]) + " review.commented events");
    }
  }

  // Events: each received at least once, each document's first in the outbox's order.
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> outbox;  // event -> (id, document)
  for (const auto& row : rows.Query("SELECT o.event_id, o.id, o.document_id FROM kh_outbox o "
                                    "JOIN kh_document d ON d.id = o.document_id WHERE " +
                                    mine)) {
    outbox[row[0].as<std::string>()] = {row[1].as<std::int64_t>(), row[2].as<std::int64_t>()};
  }
  report.events = static_cast<std::int64_t>(outbox.size());
  std::set<std::string> seen;
  std::map<std::int64_t, std::int64_t> last_of_document;  // document -> last outbox id seen
  for (const auto& event : received) {
    const auto it = outbox.find(event.event_id);
    if (it == outbox.end()) continue;  // another storm's, or not this database's
    if (!seen.insert(event.event_id).second) {
      ++report.duplicate_copies;
      continue;
    }
    const auto [id, document] = it->second;
    auto& last = last_of_document[document];
    if (id < last) {
      violations.push_back("document " + std::to_string(document) + ": event " +
                           std::to_string(id) + " arrived after event " + std::to_string(last));
    }
    last = std::max(last, id);
  }
  for (const auto& [event_id, where] : outbox) {
    if (!seen.contains(event_id)) {
      ++report.events_lost;
      violations.push_back("event " + std::to_string(where.first) + " of document " +
                           std::to_string(where.second) + " never arrived");
    }
  }
  if (!rows.Drained()) {
    violations.push_back("an approved version is not ingested, or the outbox is not delivered");
  }
  for (const auto& line : tally.violations) violations.push_back("client: " + line);
  report.duplicate_effects += tally.decided_twice;
  return report;
}

// One line for a log: what the clients saw and what the checks found.
inline std::string StormSummary(const StormTally& tally, const StormReport& report) {
  std::ostringstream line;
  line << tally.requests << " requests:";
  for (const auto& [status, count] : tally.by_status) line << " " << status << "x" << count;
  line << "; " << tally.retries << " retries, " << tally.double_clicks << " double clicks; "
       << tally.created.size() << " created, " << report.approvals << " approved, "
       << report.quorum_reviews << " with a quorum above 1, " << report.votes << " votes, "
       << tally.already_voted.size() << " told ALREADY_VOTED, " << report.comments << " comments ("
       << tally.comments.size() << " acknowledged), " << report.events << " events ("
       << report.events_lost << " lost, " << report.duplicate_copies << " duplicate copies); "
       << report.violations.size() << " violations";
  return line.str();
}

}  // namespace docgate::e2e
