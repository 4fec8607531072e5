// The clients of the PostgreSQL outage end-to-end test (pg_outage_e2e_test.cpp): each loops
// create -> submit -> approve -> get over its own connection and records every exchange, on a
// timeline the test moves; and the counts of one phase's answers.
#pragma once

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "adapters/http/jwt_auth.h"
#include "e2e/http_client.h"
#include "fakes/recording_consumer.h"
#include "runtime/application.h"
#include "support/pg_test_database.h"
#include "support/tcp_proxy.h"

namespace docgate::pg_outage_e2e {

using namespace std::chrono_literals;
using e2e::Headers;
using e2e::HttpClient;
using nlohmann::json;
namespace http = boost::beast::http;
using SteadyClock = std::chrono::steady_clock;
using SteadyTime = SteadyClock::time_point;

// Far above what the configured 1 s timeouts let a request take (pool wait, connect, statement):
// a request still unanswered then is a hang, and fails the test.
inline constexpr auto kRequestTimeout = 10s;

enum class Step { kCreate, kSubmit, kApprove, kGet, kResync };

inline const char* StepName(Step step) {
  switch (step) {
    case Step::kCreate:
      return "create";
    case Step::kSubmit:
      return "submit";
    case Step::kApprove:
      return "approve";
    case Step::kGet:
      return "get";
    case Step::kResync:
      return "resync";
  }
  return "?";
}

// One request and what came back.
struct Exchange {
  Step step = Step::kCreate;
  std::string target;
  SteadyTime sent;
  SteadyTime answered;
  unsigned status = 0;  // 0: no response (timeout or broken connection); `detail` says which
  std::string code;     // problem+json `code`
  std::string content_type;
  int retry_after = 0;  // Retry-After in whole seconds; 0 when absent or malformed
  std::string detail;
};

// The moments the test's thread moves the outage; clients read them. 0: not yet.
class Timeline {
 public:
  enum Mark { kCutStarted, kCutEstablished, kRestoreStarted, kRestored, kMarks };

  void Set(Mark mark) { marks_[mark].store(SteadyClock::now().time_since_epoch().count()); }
  std::optional<SteadyTime> Get(Mark mark) const {
    const auto ticks = marks_[mark].load();
    if (ticks == 0) return std::nullopt;
    return SteadyTime(SteadyClock::duration(ticks));
  }
  // True when `mark` was set no later than `time`.
  bool Reached(Mark mark, SteadyTime time) const {
    const auto at = Get(mark);
    return at && *at <= time;
  }

 private:
  std::atomic<SteadyClock::rep> marks_[kMarks] = {};
};

// One of the 8 clients: its own connection (reopened when the server closes it), its own author,
// and a loop create -> submit -> approve (as its reviewer) -> get, one document at a time. A 503
// repeats the step; a 409 after an unknown outcome (a 503 or no answer to a transition that may
// have committed) re-reads the document to learn where it stands.
class OutageClient {
 public:
  OutageClient(int index, std::uint16_t port, Headers author, Headers reviewer,
               const Timeline& timeline)
      : index_(index),
        port_(port),
        author_(std::move(author)),
        reviewer_(std::move(reviewer)),
        timeline_(timeline) {}

  void Run(const std::atomic<bool>& stop) {
    while (!stop.load()) {
      try {
        Turn();
      } catch (const std::exception& e) {  // a 2xx body without the fields the API promises
        anomalies_.push_back(std::string("malformed response: ") + e.what());
        step_ = Step::kCreate;
      }
    }
  }

  // Read by the test's thread while the client runs.
  int approvals_before_cut() const { return approvals_before_cut_.load(); }
  int approvals_after_restore() const { return approvals_after_restore_.load(); }
  int outage_503s() const { return outage_503s_.load(); }

  // Read after the client's thread has ended.
  const std::vector<Exchange>& exchanges() const { return exchanges_; }
  const std::set<std::int64_t>& created() const { return created_; }
  const std::set<std::int64_t>& submit_attempts() const { return submit_attempts_; }
  const std::set<std::int64_t>& approve_attempts() const { return approve_attempts_; }
  const std::set<std::int64_t>& approved() const { return approved_; }
  const std::vector<std::string>& anomalies() const { return anomalies_; }

 private:
  void Turn() {
    const std::string doc_path = "/api/v1/documents/" + std::to_string(document_id_);
    json body;
    switch (step_) {
      case Step::kCreate: {
        const std::string title =
            "outage c" + std::to_string(index_) + " n" + std::to_string(exchanges_.size());
        const auto& ex = Send(http::verb::post, "/api/v1/documents", author_,
                              json{{"title", title}, {"content", "# " + title}}.dump(), body);
        if (ex.status == 201) {
          document_id_ = std::stoll(body["id"].get<std::string>());
          created_.insert(document_id_);
          step_ = Step::kSubmit;
        }
        return;
      }
      case Step::kSubmit: {
        submit_attempts_.insert(document_id_);
        const auto& ex = Send(http::verb::post, doc_path + "/submit", author_, {}, body);
        if (ex.status == 200) {
          review_id_ = std::stoll(body["review"]["id"].get<std::string>());
          step_ = Step::kApprove;
        } else if (ex.status == 409) {
          step_ = Step::kResync;
        }
        return;
      }
      case Step::kApprove: {
        approve_attempts_.insert(review_id_);
        const auto& ex =
            Send(http::verb::post, "/api/v1/reviews/" + std::to_string(review_id_) + "/approve",
                 reviewer_, R"({"comment": "fine"})", body);
        if (ex.status == 200) {
          approved_.insert(review_id_);
          if (!timeline_.Reached(Timeline::kCutStarted, ex.sent)) ++approvals_before_cut_;
          if (timeline_.Reached(Timeline::kRestored, ex.sent)) ++approvals_after_restore_;
          step_ = Step::kGet;
        } else if (ex.status == 409) {
          step_ = Step::kResync;
        }
        return;
      }
      case Step::kGet: {
        const auto& ex = Send(http::verb::get, doc_path, author_, {}, body);
        if (ex.status == 200) {
          if (body["status"] != "approved" || body["approved_version"] != 1 ||
              !body["current_review_id"].is_null()) {
            anomalies_.push_back("GET after approval: " + body.dump());
          }
          step_ = Step::kCreate;
        }
        return;
      }
      case Step::kResync: {
        const auto& ex = Send(http::verb::get, doc_path, author_, {}, body);
        if (ex.status != 200) return;
        const std::string status = body["status"];
        if (status == "draft") {
          step_ = Step::kSubmit;
        } else if (status == "pending_review") {
          review_id_ = std::stoll(body["current_review_id"].get<std::string>());
          step_ = Step::kApprove;
        } else if (status == "approved") {
          step_ = Step::kCreate;
        } else {
          anomalies_.push_back("resync found: " + body.dump());
          step_ = Step::kCreate;
        }
        return;
      }
    }
  }

  // Sends one request, records it, and leaves its JSON body (or null) in `reply_body`.
  const Exchange& Send(http::verb verb, const std::string& target, const Headers& headers,
                       const std::string& request_body, json& reply_body) {
    Exchange ex;
    ex.step = step_;
    ex.target = target;
    reply_body = nullptr;
    ex.sent = SteadyClock::now();
    try {
      if (!connection_) connection_ = std::make_unique<HttpClient>(port_, kRequestTimeout);
      const auto reply = connection_->Request(verb, target, request_body, headers);
      ex.answered = SteadyClock::now();
      ex.status = reply.status();
      ex.content_type = reply.header(http::field::content_type);
      reply_body = json::parse(reply.body(), nullptr, /*allow_exceptions=*/false);
      if (reply_body.is_discarded()) reply_body = nullptr;
      if (reply_body.is_object() && reply_body.contains("code") && reply_body["code"].is_string()) {
        ex.code = reply_body["code"];
      }
      if (ex.status >= 300) ex.detail = reply.body().substr(0, 300);
      const std::string retry_after = reply.header(http::field::retry_after);
      std::from_chars(retry_after.data(), retry_after.data() + retry_after.size(), ex.retry_after);
      if (!reply.message.keep_alive()) connection_.reset();
    } catch (const std::exception& e) {
      ex.answered = SteadyClock::now();
      ex.detail = e.what();
      connection_.reset();
    }
    if (ex.status == 503 && timeline_.Reached(Timeline::kCutEstablished, ex.sent) &&
        !timeline_.Reached(Timeline::kRestoreStarted, ex.answered)) {
      ++outage_503s_;
    }
    exchanges_.push_back(std::move(ex));
    return exchanges_.back();
  }

  const int index_;
  const std::uint16_t port_;
  const Headers author_;
  const Headers reviewer_;
  const Timeline& timeline_;
  std::unique_ptr<HttpClient> connection_;
  Step step_ = Step::kCreate;
  std::int64_t document_id_ = 0;
  std::int64_t review_id_ = 0;

  std::atomic<int> approvals_before_cut_{0};
  std::atomic<int> approvals_after_restore_{0};
  std::atomic<int> outage_503s_{0};

  std::vector<Exchange> exchanges_;
  std::set<std::int64_t> created_;
  std::set<std::int64_t> submit_attempts_;   // document ids
  std::set<std::int64_t> approve_attempts_;  // review ids
  std::set<std::int64_t> approved_;          // review ids answered 200
  std::vector<std::string> anomalies_;
};

// Polls `done` until it holds or `deadline` passes; true when it held.
inline bool PollUntil(const std::function<bool()>& done, std::chrono::milliseconds deadline) {
  const auto until = SteadyClock::now() + deadline;
  while (!done()) {
    if (SteadyClock::now() >= until) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

// Responses of one phase, by status (0: no response).
struct PhaseCounts {
  std::map<unsigned, int> by_status;
  std::map<std::string, int> by_step;
  int total = 0;
  std::chrono::milliseconds slowest{0};

  void Add(const Exchange& ex) {
    ++by_status[ex.status];
    ++by_step[StepName(ex.step)];
    ++total;
    slowest = std::max(
        slowest, std::chrono::duration_cast<std::chrono::milliseconds>(ex.answered - ex.sent));
  }
  int Count(unsigned status) const {
    const auto it = by_status.find(status);
    return it == by_status.end() ? 0 : it->second;
  }
  int Successes() const {
    int n = 0;
    for (const auto& [status, count] : by_status) n += status >= 200 && status < 300 ? count : 0;
    return n;
  }
  std::string Describe() const {
    std::string text = std::to_string(total) + " responses:";
    for (const auto& [status, count] : by_status) {
      text += " " + (status == 0 ? std::string("none") : std::to_string(status)) + "=" +
              std::to_string(count);
    }
    text += " | by step:";
    for (const auto& [step, count] : by_step) text += " " + step + "=" + std::to_string(count);
    text += " | slowest " + std::to_string(slowest.count()) + " ms";
    return text;
  }
};

inline std::string Describe(const Exchange& ex) {
  return std::string(StepName(ex.step)) + " " + ex.target + " -> " +
         (ex.status == 0 ? "no response" : std::to_string(ex.status)) + " " + ex.detail;
}

}  // namespace docgate::pg_outage_e2e
