#pragma once

// A storm of clients against one docgate address (an instance, or a load balancer in front of
// several), for the tests and benchmarks that break things underneath it (issue 19). Each client
// thread is one author and one reviewer and, until the storm's end, runs a random mix of create,
// edit, submit, withdraw, approve, reject and comment on its own and everyone's documents, with
// what real users do: a retry of the same intent under the same Idempotency-Key (after a lost
// answer, a 503, or just a second click), a double-click with two keys at once, and reviewers
// racing one another on the same review. Some submissions ask for two or three approvals
// (`required_approvals`, issue 38): an approval of such a review is a vote until the last one
// approves it, and a reviewer approving a review twice is told 409 ALREADY_VOTED. Comments (in
// Chinese, some on line 1) go to the pending reviews, under an Idempotency-Key like every POST.
// The tally says what the clients saw; CheckStormInvariants (in storm_invariants.h) then reads the
// database and the broker.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "e2e/http_client.h"

namespace docgate::e2e {

// What the clients saw, merged over all of them.
struct StormTally {
  std::int64_t requests = 0;
  std::map<unsigned, std::int64_t> by_status;  // 0: no answer (the connection broke)
  // 5xx answers other than 503 UNAVAILABLE (problem+json, Retry-After), and a retry under one
  // Idempotency-Key answered differently from the answer it replays: each described in a line.
  std::vector<std::string> violations;
  // Acknowledged effects: documents created (201: id -> title), reviews opened by a submission
  // (200: review id -> document id), and reviews decided (200: review id -> "approved",
  // "rejected" or "withdrawn").
  std::map<std::int64_t, std::string> created;
  std::map<std::int64_t, std::int64_t> submitted;
  std::map<std::int64_t, std::string> decided;
  std::int64_t retries = 0;        // requests sent again under the same key
  std::int64_t decided_twice = 0;  // reviews acknowledged with two outcomes (also a violation)
  std::int64_t double_clicks = 0;  // two requests for one intent at once, under two keys
  // Quorums (issue 38): the required_approvals of each acknowledged submission (review id -> n),
  // the approvals acknowledged (a 200 to approve, whether it voted or approved: (review id,
  // reviewer)), and the 409 ALREADY_VOTED answers ((review id, reviewer): an allowed answer, to a
  // reviewer whose approval the review holds).
  std::map<std::int64_t, int> required;
  std::set<std::pair<std::int64_t, std::string>> votes;
  std::set<std::pair<std::int64_t, std::string>> already_voted;
  // Comments acknowledged (201): comment id -> what was written.
  struct Comment {
    std::int64_t review = 0;
    std::string author;
    std::string body;
    std::optional<int> line;
  };
  std::map<std::int64_t, Comment> comments;
};

class Storm {
 public:
  struct Options {
    std::uint16_t port = 0;  // where the clients send (127.0.0.1)
    int clients = 6;
    std::chrono::milliseconds duration{5000};
    // Signs "Bearer" tokens: fn(subject, role).
    std::function<std::string(const std::string&, const std::string&)> token;
    std::string prefix;  // in every title and user name, so checks find this storm's rows
    unsigned seed = 1;
  };

  explicit Storm(Options options) : options_(std::move(options)) {}

  // Runs the clients for options.duration; `during` runs meanwhile on the calling thread (the
  // fault: kill an instance, cut a link). Returns once every client has stopped.
  StormTally Run(const std::function<void()>& during = {}) {
    deadline_ = std::chrono::steady_clock::now() + options_.duration;
    {
      std::vector<std::jthread> clients;
      for (int i = 0; i < options_.clients; ++i) clients.emplace_back([this, i] { Client(i); });
      if (during) during();
    }
    return tally_;
  }

 private:
  using json = nlohmann::json;
  using TallyComment = StormTally::Comment;

  struct Intent {
    boost::beast::http::verb verb;
    std::string target;
    std::string body;
    Headers headers;
  };

  // One client's connection: reconnects after a broken one.
  class Connection {
   public:
    explicit Connection(std::uint16_t port) : port_(port) {}
    // The answer, or nullopt when there was none (refused, reset, timed out).
    std::optional<HttpReply> Send(const Intent& intent) {
      try {
        if (!client_) client_ = std::make_unique<HttpClient>(port_, std::chrono::seconds(20));
        return client_->Request(intent.verb, intent.target, intent.body, intent.headers);
      } catch (const std::exception&) {
        client_.reset();
        return std::nullopt;
      }
    }

   private:
    std::uint16_t port_;
    std::unique_ptr<HttpClient> client_;
  };

  void Client(int index) {
    std::mt19937 random(options_.seed * 7919u + static_cast<unsigned>(index));
    Connection main(options_.port);
    Connection twin(options_.port);
    const std::string me = std::to_string(index);
    const Headers author = {
        {"Authorization", options_.token(options_.prefix + "author" + me, "author")},
        {"Content-Type", "application/json"}};
    const Headers reviewer = {
        {"Authorization", options_.token(options_.prefix + "reviewer" + me, "reviewer")},
        {"Content-Type", "application/json"}};
    const Headers rival = {
        {"Authorization", options_.token(options_.prefix + "reviewer" + me + "b", "reviewer")},
        {"Content-Type", "application/json"}};
    std::vector<std::int64_t> mine;
    int n = 0;
    while (std::chrono::steady_clock::now() < deadline_) {
      const std::string key = options_.prefix + "c" + me + "-" + std::to_string(++n);
      const unsigned roll = random() % 100;
      if (roll < 20 || mine.empty()) {
        const std::string title = options_.prefix + "文档 " + me + "-" + std::to_string(n);
        const auto reply = Keyed(main, random, key,
                                 {http::verb::post, "/api/v1/documents",
                                  json{{"title", title},
                                       {"content", "审核流程第" + std::to_string(n) +
                                                       "版。\n\nThe review gate, storm " + key}}
                                      .dump(),
                                  author});
        if (reply && reply->status() == 201) {
          const std::int64_t id = std::stoll(reply->json()["id"].get<std::string>());
          mine.push_back(id);
          Record([&](StormTally& t) { t.created[id] = title; });
        }
        continue;
      }
      const std::string document = std::to_string(mine[random() % mine.size()]);
      if (roll < 33) {
        Keyed(main, random, key,
              {http::verb::put, "/api/v1/documents/" + document,
               json{{"content", "修订 " + key + " revised"}}.dump(), author});
      } else if (roll < 52) {
        // One submission in five asks for two approvals, one in ten for three.
        const unsigned quorum = random() % 10;
        const int required = quorum < 2 ? 2 : quorum < 3 ? 3 : 1;
        const Intent submit{http::verb::post, "/api/v1/documents/" + document + "/submit",
                            required > 1 ? json{{"required_approvals", required}}.dump() : "",
                            author};
        if (random() % 4 == 0) {
          DoubleClick(main, twin, random, key, submit);
        } else {
          RecordSubmission(Keyed(main, random, key, submit));
        }
      } else if (roll < 58) {
        const auto reply =
            Keyed(main, random, key,
                  {http::verb::post, "/api/v1/documents/" + document + "/withdraw", "", author});
        RecordDecision(reply, "withdrawn");
      } else if (roll < 66) {
        // A comment on a pending review, by its reviewer or (one in four) by an author: any role
        // may comment. The body names its intent, so that a second effect of one is seen.
        const auto review = PendingReview(random);
        if (!review) continue;
        const bool as_author = random() % 4 == 0;
        TallyComment comment{*review,
                             options_.prefix + (as_author ? "author" : "reviewer") + me,
                             "第" + std::to_string(n) + "条意见：请补充回滚步骤。" + key,
                             {}};
        if (random() % 3 == 0) comment.line = 1;
        json body{{"body", comment.body}};
        if (comment.line) body["line"] = *comment.line;
        RecordComment(
            Keyed(main, random, key,
                  {http::verb::post, "/api/v1/reviews/" + std::to_string(*review) + "/comments",
                   body.dump(), as_author ? author : reviewer}),
            comment);
      } else {
        const auto review = PendingReview(random);
        if (!review) continue;
        const bool approve = random() % 3 != 0;
        const std::string me_reviewer = options_.prefix + "reviewer" + me;
        const std::string rival_reviewer = me_reviewer + "b";
        const Intent decide{
            http::verb::post,
            "/api/v1/reviews/" + std::to_string(*review) + (approve ? "/approve" : "/reject"),
            approve ? json{{"comment", "可以 ok"}}.dump()
                    : json{{"reason", "不清楚 unclear"}}.dump(),
            reviewer};
        if (random() % 3 == 0) {
          // A second reviewer decides the other way at the same moment.
          const Intent other{
              http::verb::post,
              "/api/v1/reviews/" + std::to_string(*review) + (approve ? "/reject" : "/approve"),
              approve ? json{{"reason", "再看看 again"}}.dump() : "{}", rival};
          std::optional<HttpReply> theirs;
          std::thread racer([&] { theirs = Keyed(twin, random_for_racer_, key + "b", other); });
          const auto ours = Keyed(main, random, key, decide);
          racer.join();
          if (approve) {
            RecordApproval(ours, *review, me_reviewer);
            RecordDecision(theirs, "rejected");
          } else {
            RecordDecision(ours, "rejected");
            RecordApproval(theirs, *review, rival_reviewer);
          }
        } else if (approve) {
          RecordApproval(Keyed(main, random, key, decide), *review, me_reviewer);
        } else {
          RecordDecision(Keyed(main, random, key, decide), "rejected");
        }
      }
    }
  }

  // Sends `intent` under Idempotency-Key `key` until it has a definitive answer (not "no answer",
  // not 503), at most 10 times; then, one time in four, sends it once more (a second click) and
  // checks that the answer is the stored one again. Returns the definitive answer, if any.
  std::optional<HttpReply> Keyed(Connection& connection, std::mt19937& random,
                                 const std::string& key, Intent intent) {
    const bool keyed = intent.verb == http::verb::post;
    if (keyed) intent.headers.emplace_back("Idempotency-Key", key);
    std::optional<HttpReply> reply;
    for (int attempt = 0; attempt < 10; ++attempt) {
      if (attempt > 0) Record([](StormTally& t) { ++t.retries; });
      reply = connection.Send(intent);
      Count(intent, reply);
      if (reply && reply->status() != 503) break;
      // Back off before the retry, as a client does (Retry-After is in seconds; the storm is
      // short, so a tenth of it).
      std::this_thread::sleep_for(std::chrono::milliseconds(20 + random() % 80));
    }
    if (!reply || reply->status() == 503) return std::nullopt;
    if (keyed && random() % 4 == 0) {
      Record([](StormTally& t) { ++t.retries; });
      const auto again = connection.Send(intent);
      Count(intent, again);
      // A 503 (the instance cannot reach its database) is no answer to the intent: only an
      // answer must be the stored one again.
      if (again && again->status() != 503 && Stored(*reply) &&
          (again->status() != reply->status() || again->body() != reply->body())) {
        Record([&](StormTally& t) {
          t.violations.push_back(intent.target + " under key " + key + ": answered " +
                                 std::to_string(reply->status()) + " then " +
                                 std::to_string(again->status()) + " " + again->body());
        });
      }
    }
    return reply;
  }

  // An answer the idempotency store keeps and replays: a success or a decision on the state.
  static bool Stored(const HttpReply& reply) {
    if (reply.status() < 400) return true;
    const std::string code = ProblemCode(reply);
    return code == "INVALID_STATE" || code == "SELF_REVIEW" || code == "ALREADY_VOTED";
  }

  static std::string ProblemCode(const HttpReply& reply) {
    const auto problem = json::parse(reply.body(), nullptr, false);
    return problem.is_object() ? problem.value("code", "") : "";
  }

  // Two submissions of one document at once under two keys (a double-click the client did not
  // deduplicate): the gate and the row locks let at most one open a review.
  void DoubleClick(Connection& main, Connection& twin, std::mt19937& random, const std::string& key,
                   const Intent& submit) {
    Record([](StormTally& t) { ++t.double_clicks; });
    std::optional<HttpReply> theirs;
    std::thread second([&] { theirs = Keyed(twin, random_for_racer_, key + "d", submit); });
    const auto ours = Keyed(main, random, key, submit);
    second.join();
    RecordSubmission(ours);
    RecordSubmission(theirs);
  }

  void RecordSubmission(const std::optional<HttpReply>& reply) {
    if (!reply || reply->status() != 200) return;
    const auto body = reply->json();
    const std::int64_t review = std::stoll(body["review"]["id"].get<std::string>());
    const std::int64_t document = std::stoll(body["document"]["id"].get<std::string>());
    const int required = body["review"].value("required_approvals", 1);
    Record([&](StormTally& t) {
      t.submitted[review] = document;
      t.required[review] = required;
    });
    std::lock_guard lock(pending_mutex_);
    pending_.push_back(review);
  }

  // The answer to `reviewer`'s approval of `review`: a 200 is an approval the review holds, which
  // either counted (the review still pending, below its quorum) or approved it; a 409
  // ALREADY_VOTED says that the review holds one already.
  void RecordApproval(const std::optional<HttpReply>& reply, std::int64_t review,
                      const std::string& reviewer) {
    if (!reply) return;
    if (reply->status() == 409 && ProblemCode(*reply) == "ALREADY_VOTED") {
      Record([&](StormTally& t) { t.already_voted.emplace(review, reviewer); });
      return;
    }
    if (reply->status() != 200) return;
    Record([&](StormTally& t) { t.votes.emplace(review, reviewer); });
    const std::string status = reply->json()["review"].value("status", "");
    if (status == "pending") return;  // a vote below the quorum
    if (status != "approved") {
      Record([&](StormTally& t) {
        t.violations.push_back("approval of review " + std::to_string(review) + " by " + reviewer +
                               " answered 200 with the review " + status);
      });
      return;
    }
    RecordDecision(reply, "approved");
  }

  void RecordComment(const std::optional<HttpReply>& reply, const TallyComment& comment) {
    if (!reply || reply->status() != 201) return;
    const auto body = reply->json();
    const std::int64_t id = std::stoll(body["id"].get<std::string>());
    const bool same = body["review_id"] == std::to_string(comment.review) &&
                      body["body"] == comment.body && body["author_id"] == comment.author &&
                      (comment.line ? body["line"] == *comment.line : body["line"].is_null());
    Record([&](StormTally& t) {
      t.comments[id] = comment;
      if (!same) {
        t.violations.push_back("comment " + std::to_string(id) + " on review " +
                               std::to_string(comment.review) + " answered " + reply->body());
      }
    });
  }

  void RecordDecision(const std::optional<HttpReply>& reply, const std::string& outcome) {
    if (!reply || reply->status() != 200) return;
    const std::int64_t review = std::stoll(reply->json()["review"]["id"].get<std::string>());
    Record([&](StormTally& t) {
      const auto [it, inserted] = t.decided.emplace(review, outcome);
      if (!inserted) {
        ++t.decided_twice;
        t.violations.push_back("review " + std::to_string(review) + " acknowledged as " +
                               it->second + " and as " + outcome);
      }
    });
  }

  // A review some client opened, recently more likely (older ones are mostly decided).
  std::optional<std::int64_t> PendingReview(std::mt19937& random) {
    std::lock_guard lock(pending_mutex_);
    if (pending_.empty()) return std::nullopt;
    const std::size_t window = std::min<std::size_t>(pending_.size(), 8);
    return pending_[pending_.size() - 1 - random() % window];
  }

  // The only 5xx shared/API.md allows: 503 UNAVAILABLE in problem+json with Retry-After, from an
  // instance or from the balancer answering for them (deploy/haproxy.cfg).
  static bool IsContractUnavailable(const HttpReply& reply) {
    if (reply.status() != 503 || reply.header("Retry-After").empty()) return false;
    if (reply.header("Content-Type") != "application/problem+json") return false;
    const auto problem = nlohmann::json::parse(reply.body(), nullptr, false);
    return problem.is_object() && problem.value("code", "") == "UNAVAILABLE";
  }

  void Count(const Intent& intent, const std::optional<HttpReply>& reply) {
    const unsigned status = reply ? reply->status() : 0u;
    Record([&](StormTally& t) {
      ++t.requests;
      ++t.by_status[status];
      if (status >= 500 && !IsContractUnavailable(*reply)) {
        t.violations.push_back(intent.target + ": " + std::to_string(status) + " " +
                               reply->body().substr(0, 200));
      }
    });
  }

  template <typename Fn>
  void Record(Fn&& fn) {
    std::lock_guard lock(tally_mutex_);
    fn(tally_);
  }

  const Options options_;
  std::chrono::steady_clock::time_point deadline_;
  std::mutex tally_mutex_;
  StormTally tally_;
  std::mutex pending_mutex_;
  std::vector<std::int64_t> pending_;
  // The racing second click's own generator (only its sleeps and second clicks use it): each
  // client's thread and its racer must not share one.
  thread_local static inline std::mt19937 random_for_racer_{12345};
};

}  // namespace docgate::e2e
