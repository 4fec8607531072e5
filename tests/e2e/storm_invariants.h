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
//   - an approved version not ingested (StormDrained waits for this and the outbox first).

#include <cstdint>
#include <map>
#include <pqxx/pqxx>
#include <set>
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
  // with two pending reviews, two documents of one create intent.
  std::int64_t duplicate_effects = 0;
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

}  // namespace docgate::e2e
