// relay_bench latency: a real docgate in this process, approvals at a steady rate, and the time
// from each approval's commit to its document.approved message (relay_bench.cpp says more).

#include "relay_bench.h"

namespace relay_bench {

// Runs `work(client, i)` for i in [0, n) on `threads` threads with keep-alive connections, i handed
// out from a shared counter; dies on any failure.
template <typename Work>
void Parallel(std::uint16_t port, int n, int threads, Work&& work) {
  std::atomic<int> next{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      docgate::e2e::HttpClient client(port);
      for (int i = next++; i < n; i = next++) work(client, i);
    });
  }
  for (auto& t : pool) t.join();
}

std::string Expect(const docgate::e2e::HttpReply& reply, unsigned status, const std::string& what) {
  if (reply.status() != status) {
    Die(what + ": HTTP " + std::to_string(reply.status()) + " " + reply.body().substr(0, 300));
  }
  return reply.body();
}

struct Received {
  std::string event_id;
  docgate::ReviewId review_id = 0;
  double latency_ms = 0;
};

int Latency(int documents, int rate, int threads) {
  const std::string amqp_url = RequiredEnv("DOCGATE_TEST_AMQP_URL");
  spdlog::set_level(spdlog::level::warn);
  docgate::PgTestDatabase db;
  const std::string exchange = "docgate.bench." + std::to_string(::getpid());
  docgate::Config config;
  config.http.address = "127.0.0.1";
  config.http.port = 0;
  config.database.url = db.url();
  config.auth.jwt_secret = "docgate-bench-secret";
  config.amqp.url = amqp_url;
  config.amqp.exchange = exchange;
  config.amqp.queue = exchange;  // docgate's own consumers' queue: makes every event routable
  // The bench counts the messages on that queue, so docgate's consumers must not take them.
  config.consumers.in_serve = false;
  docgate::Application app(config);
  app.Start();
  const std::uint16_t port = app.port();

  const auto token = [&](const std::string& sub, const std::string& role) {
    const docgate::TimePoint now = app.internals().clock.Now();
    return docgate::e2e::Headers{
        {"Authorization",
         "Bearer " +
             docgate::SignHs256Token(
                 app.jwt_secret(), {sub, {role}, std::nullopt, now + std::chrono::hours(1)}, now)}};
  };
  const auto author = token("alice", "author");
  const auto reviewer = token("bob", "reviewer");

  // Preparation: M documents created and submitted, their submitted events published.
  std::vector<std::string> reviews(static_cast<std::size_t>(documents));
  const auto prep_start = Steady::now();
  Parallel(port, documents, 4, [&](docgate::e2e::HttpClient& client, int i) {
    const auto body = nlohmann::json{{"title", "bench " + std::to_string(i)},
                                     {"content", "paragraph\n\nparagraph"}}
                          .dump();
    const std::string id =
        nlohmann::json::parse(
            Expect(client.Request(http::verb::post, "/api/v1/documents", body, author), 201,
                   "create"))
            .at("id");
    const auto submitted = nlohmann::json::parse(
        Expect(client.Request(http::verb::post, "/api/v1/documents/" + id + "/submit", "", author),
               200, "submit " + id));
    reviews[static_cast<std::size_t>(i)] = submitted.at("review").at("id");
  });
  for (int i = 0; app.internals().stores.outbox->Backlog().pending > 0; ++i) {
    if (i > 600) Die("the submitted events were not published within 60 s");
    std::this_thread::sleep_for(milliseconds(100));
  }
  RawAmqp admin(docgate::ParseAmqpUrl(amqp_url, 0));
  const std::uint32_t submitted = admin.Purge(exchange);
  std::printf("latency: prepared %d documents in %.1f s; %u submitted events were published\n",
              documents, Seconds(Steady::now() - prep_start), submitted);
  if (submitted != static_cast<std::uint32_t>(documents)) Die("not every submitted event arrived");

  // For context: one event published and confirmed on its own (AmqpEventSink::Deliver), 200 times,
  // 5 ms apart like the approvals: the least a relay round adds to an event's way out.
  std::vector<double> confirm_ms;
  {
    docgate::AmqpEventSink probe(config.amqp);
    for (const auto& event : BacklogEvents(200, 0xffff)) {
      const auto t0 = Steady::now();
      if (probe.Deliver(std::span(&event, 1)).front() != docgate::DeliveryOutcome::kDelivered) {
        Die("the confirm probe's event was not delivered");
      }
      confirm_ms.push_back(std::chrono::duration<double, std::milli>(Steady::now() - t0).count());
      std::this_thread::sleep_for(milliseconds(5));
    }
  }
  if (admin.Purge(exchange) != confirm_ms.size()) Die("not every probe event arrived");

  // The observer: every document.approved message, stamped on arrival.
  docgate::AmqpTestQueue queue(amqp_url, "", exchange, "document.approved");
  std::vector<Received> received;
  std::mutex received_mutex;
  std::atomic<bool> stop{false};
  std::atomic<int> received_count{0};
  std::thread observer([&] {
    while (!stop) {
      for (const auto& m : queue.Receive(1, milliseconds(100))) {
        const double now_ms = std::chrono::duration<double, std::milli>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count();
        const auto event = docgate::DecodeEventBody(m.body);
        if (!event || event->type != docgate::EventType::kApproved) Die("unexpected message");
        std::lock_guard lock(received_mutex);
        received.push_back(
            {event->event_id, event->review_id,
             now_ms - static_cast<double>(event->occurred_at.time_since_epoch().count())});
        ++received_count;
      }
    }
  });

  // Open loop: request j of thread t at start + (j * threads + t) / rate.
  const auto interval =
      std::chrono::duration_cast<Steady::duration>(std::chrono::duration<double>(1.0 / rate));
  const auto start = Steady::now() + milliseconds(200);
  std::vector<double> http_ms(static_cast<std::size_t>(documents), -1);
  std::vector<double> lag_ms(static_cast<std::size_t>(documents), 0);
  std::vector<Steady::time_point> sent(static_cast<std::size_t>(documents));
  std::atomic<int> failures{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < threads; ++t) {
    clients.emplace_back([&, t] {
      docgate::e2e::HttpClient client(port);
      for (int i = t; i < documents; i += threads) {
        const auto at = start + interval * i;
        std::this_thread::sleep_until(at);
        const auto t0 = Steady::now();
        const auto reply = client.Request(
            http::verb::post,
            "/api/v1/reviews/" + reviews[static_cast<std::size_t>(i)] + "/approve", "{}", reviewer);
        const auto t1 = Steady::now();
        if (reply.status() != 200) {
          if (failures++ < 5)
            std::fprintf(stderr, "approve: HTTP %u %s\n", reply.status(), reply.body().c_str());
          continue;
        }
        const auto k = static_cast<std::size_t>(i);
        sent[k] = t0;
        http_ms[k] = std::chrono::duration<double, std::milli>(t1 - t0).count();
        lag_ms[k] = std::chrono::duration<double, std::milli>(t0 - at).count();
      }
    });
  }
  for (auto& c : clients) c.join();
  const auto approvals_done = Steady::now();
  if (failures > 0) Die(std::to_string(failures.load()) + " approvals failed");
  const auto [first_sent, last_sent] = std::minmax_element(sent.begin(), sent.end());
  const double achieved = (documents - 1) / Seconds(*last_sent - *first_sent);

  // Every approval's event, then one more second for any duplicate.
  while (received_count < documents && Steady::now() - approvals_done < std::chrono::seconds(30)) {
    std::this_thread::sleep_for(milliseconds(20));
  }
  std::this_thread::sleep_for(std::chrono::seconds(1));
  stop = true;
  observer.join();
  const auto& counters = app.internals().relay.counters();
  const std::uint64_t relay_errors = counters.errors, relay_returned = counters.returned;
  app.Stop();
  admin.Delete(exchange, exchange);

  std::set<std::string> ids;
  std::set<docgate::ReviewId> approved;
  std::vector<double> latency;
  for (const auto& r : received) {
    ids.insert(r.event_id);
    approved.insert(r.review_id);
    latency.push_back(r.latency_ms);
  }
  std::set<docgate::ReviewId> expected;
  for (const auto& r : reviews) expected.insert(std::stoll(r));
  std::printf(
      "approvals: %d at %d/s scheduled (%d threads), achieved %.1f/s; schedule lag p99 %.2f ms, "
      "max %.2f ms\n",
      documents, rate, threads, achieved, Percentile(lag_ms, 0.99),
      *std::max_element(lag_ms.begin(), lag_ms.end()));
  std::printf(
      "one event's publish + confirm alone (AmqpEventSink, 200 x): p50 %.2f ms, p99 %.2f ms\n",
      Percentile(confirm_ms, 0.5), Percentile(confirm_ms, 0.99));
  std::printf("HTTP approve latency: p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
              Percentile(http_ms, 0.5), Percentile(http_ms, 0.99),
              *std::max_element(http_ms.begin(), http_ms.end()));
  std::printf("document.approved received: %zu (distinct event ids %zu, reviews %zu of %zu)\n",
              received.size(), ids.size(), approved.size(), expected.size());
  std::printf(
      "commit-to-receive latency: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms "
      "(relay errors %llu, returned %llu)\n",
      Percentile(latency, 0.5), Percentile(latency, 0.9), Percentile(latency, 0.99),
      latency.empty() ? 0.0 : *std::max_element(latency.begin(), latency.end()),
      static_cast<unsigned long long>(relay_errors),
      static_cast<unsigned long long>(relay_returned));
  std::printf(
      "BENCH_RESULT {\"documents\": %d, \"rate\": %d, \"achieved_rate\": %.1f, \"received\": %zu, "
      "\"latency_p50_ms\": %.2f, \"latency_p90_ms\": %.2f, \"latency_p99_ms\": %.2f, "
      "\"latency_max_ms\": %.2f, \"http_p50_ms\": %.2f, \"http_p99_ms\": %.2f, "
      "\"confirm_p50_ms\": %.2f, \"confirm_p99_ms\": %.2f}\n",
      documents, rate, achieved, received.size(), Percentile(latency, 0.5),
      Percentile(latency, 0.9), Percentile(latency, 0.99),
      latency.empty() ? 0.0 : *std::max_element(latency.begin(), latency.end()),
      Percentile(http_ms, 0.5), Percentile(http_ms, 0.99), Percentile(confirm_ms, 0.5),
      Percentile(confirm_ms, 0.99));
  if (received.size() != static_cast<std::size_t>(documents) || ids.size() != received.size() ||
      approved != expected) {
    Die("not every approval's event arrived exactly once");
  }
  return 0;
}

}  // namespace relay_bench
