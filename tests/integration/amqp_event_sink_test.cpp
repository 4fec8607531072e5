// The RabbitMQ event sink against a real broker (DOCGATE_TEST_AMQP_URL plain,
// DOCGATE_TEST_AMQPS_URL
// + DOCGATE_TEST_AMQP_CA_FILE TLS; scripts/services.sh starts it). Missing variables fail the
// tests: nothing is skipped. Every test has an exchange (and queues) of its own, so tests may run
// in parallel on one broker.

#include "adapters/amqp/amqp_event_sink.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "adapters/amqp/amqp_connection.h"
#include "adapters/amqp/amqp_url.h"
#include "adapters/amqp/event_message.h"
#include "core/time_format.h"
#include "support/amqp_test_env.h"
#include "support/amqp_test_queue.h"
#include "support/tcp_proxy.h"

namespace docgate {
namespace {

using namespace std::chrono_literals;
using Outcomes = std::vector<DeliveryOutcome>;
constexpr auto kDelivered = DeliveryOutcome::kDelivered;
constexpr auto kReturned = DeliveryOutcome::kReturned;
constexpr auto kNacked = DeliveryOutcome::kNacked;

class AmqpEventSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    url_ = RequiredEnv("DOCGATE_TEST_AMQP_URL");
    ASSERT_FALSE(url_.empty());
    name_ = TestBrokerName();
  }

  void TearDown() override {
    if (url_.empty()) return;
    const auto deadline = AmqpConnection::Clock::now() + 5s;
    AmqpConnection admin(ParseAmqpUrl(url_, 0), "", deadline);
    for (const auto& queue : queues_) admin.DeleteQueue(queue, deadline);
    admin.DeleteExchange(name_, deadline);
  }

  AmqpConfig ConfigFor(const std::string& url) {
    AmqpConfig config;
    config.url = url;
    config.exchange = name_;
    config.queue = "";
    config.connect_timeout = 3s;
    config.confirm_timeout = 5s;
    config.reconnect_initial = 20ms;
    config.reconnect_max = 200ms;
    return config;
  }
  AmqpConfig Config() { return ConfigFor(url_); }

  // A queue of the test's own on the exchange (bound with `binding_key`), declared now.
  std::unique_ptr<AmqpTestQueue> Observe(const std::string& binding_key = "document.#") {
    return std::make_unique<AmqpTestQueue>(url_, "", name_, binding_key);
  }

  // A queue name of this test's, deleted at the end.
  std::string OwnQueue(const std::string& suffix) {
    queues_.push_back(name_ + "." + suffix);
    return queues_.back();
  }

  AmqpConnection Admin() {
    return AmqpConnection(ParseAmqpUrl(url_, 0), "", AmqpConnection::Clock::now() + 5s);
  }

  static OutboxEvent Event(int n, EventType type = EventType::kApproved) {
    OutboxEvent event;
    event.sequence = n;
    event.event_id = "00000000-0000-4000-8000-" + std::to_string(100000000000 + n);
    event.type = type;
    event.document_id = 1000 + n;
    event.review_id = 2000 + n;
    event.version = n % 7 + 1;
    event.actor_id = "actor-" + std::to_string(n);
    event.occurred_at = *ParseTime("2026-11-29T14:00:00.123Z") + std::chrono::seconds(n);
    return event;
  }
  static std::vector<OutboxEvent> Events(int count, EventType type = EventType::kApproved) {
    std::vector<OutboxEvent> events;
    for (int n = 1; n <= count; ++n) events.push_back(Event(n, type));
    return events;
  }

  // Why a sink that cannot connect refuses a batch: it waits out the first reconnect wait (20 ms),
  // so that Deliver() tries again, and returns the EventSinkUnavailable's message.
  static std::string UnavailableReason(AmqpEventSink& sink) {
    std::this_thread::sleep_for(30ms);
    try {
      sink.Deliver(Events(1));
    } catch (const EventSinkUnavailable& e) {
      return e.what();
    }
    ADD_FAILURE() << "delivered although it cannot connect";
    return {};
  }

  // Calls Maintain() until the sink reports "ok", for at most 5 s.
  // Bounded generously: the reconnect itself takes milliseconds, but a loaded CI machine can
  // starve this thread for seconds.
  static bool HealsWithin15s(AmqpEventSink& sink) {
    const auto deadline = std::chrono::steady_clock::now() + 15s;
    while (sink.State() != "ok" && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(20ms);
      sink.Maintain();
    }
    return sink.State() == "ok";
  }

  std::string url_;
  std::string name_;
  std::vector<std::string> queues_;
};

TEST_F(AmqpEventSinkTest, ABatchArrivesOnceInOrderWithTheContractsProperties) {
  auto observer = Observe();
  AmqpEventSink sink(Config());
  EXPECT_EQ(sink.State(), "ok");
  std::vector<OutboxEvent> events{Event(1, EventType::kSubmitted), Event(2, EventType::kApproved),
                                  Event(3, EventType::kRejected), Event(4, EventType::kWithdrawn),
                                  Event(5, EventType::kSubmitted)};

  EXPECT_EQ(sink.Deliver(events), Outcomes(5, kDelivered));
  EXPECT_EQ(sink.published(), 5u);
  EXPECT_EQ(sink.returned(), 0u);
  EXPECT_EQ(sink.nacked(), 0u);

  const auto received = observer->Receive(5, 5s);
  ASSERT_EQ(received.size(), 5u);
  for (std::size_t i = 0; i < events.size(); ++i) {
    SCOPED_TRACE(i);
    const auto& message = received[i];
    EXPECT_EQ(message.routing_key, ToString(events[i].type));
    EXPECT_EQ(message.message_id, events[i].event_id);
    EXPECT_EQ(message.content_type, "application/json");
    EXPECT_EQ(message.delivery_mode, 2);
    EXPECT_EQ(message.type, ToString(events[i].type));
    EXPECT_EQ(message.timestamp, 1795960800u + i + 1);  // occurred_at in seconds
    EXPECT_FALSE(message.redelivered);
    auto expected = events[i];
    expected.sequence = 0;
    EXPECT_EQ(DecodeEventBody(message.body), expected);
  }
  EXPECT_TRUE(observer->ReceiveFor(300ms).empty());  // once each

  // The next batch goes on the same channel (delivery tags continue).
  EXPECT_EQ(sink.Deliver(Events(2)), Outcomes(2, kDelivered));
  EXPECT_EQ(observer->Receive(2, 5s).size(), 2u);
  EXPECT_EQ(sink.published(), 7u);
  EXPECT_EQ(sink.connects(), 1u);
  EXPECT_EQ(sink.failures(), 0u);
}

TEST_F(AmqpEventSinkTest, ALargeBatchIsConfirmedWhateverWayTheBrokerGroupsItsAcks) {
  auto observer = Observe();
  AmqpEventSink sink(Config());
  const auto events = Events(500);
  EXPECT_EQ(sink.Deliver(events), Outcomes(500, kDelivered));
  EXPECT_EQ(sink.published(), 500u);
  const auto received = observer->Receive(500, 10s);
  ASSERT_EQ(received.size(), 500u);
  for (std::size_t i = 0; i < events.size(); ++i) {
    ASSERT_EQ(received[i].message_id, events[i].event_id) << i;
  }
}

TEST_F(AmqpEventSinkTest, EventsNoQueueTakesAreReturned) {
  AmqpEventSink sink(Config());  // config.queue empty, and nothing else bound
  EXPECT_EQ(sink.Deliver(Events(3)), Outcomes(3, kReturned));
  EXPECT_EQ(sink.returned(), 3u);
  EXPECT_EQ(sink.published(), 0u);
  EXPECT_EQ(sink.State(), "ok");
  // The connection carries on: a queue bound now takes the same events.
  auto observer = Observe();
  EXPECT_EQ(sink.Deliver(Events(3)), Outcomes(3, kDelivered));
  EXPECT_EQ(observer->Receive(3, 5s).size(), 3u);
  EXPECT_EQ(sink.connects(), 1u);
}

TEST_F(AmqpEventSinkTest, OnlyTheEventsWhoseRoutingKeyIsUnboundAreReturned) {
  auto approvals = Observe("document.approved");
  AmqpEventSink sink(Config());
  const std::vector<OutboxEvent> events{
      Event(1, EventType::kSubmitted), Event(2, EventType::kApproved),
      Event(3, EventType::kRejected), Event(4, EventType::kApproved),
      Event(5, EventType::kWithdrawn)};
  EXPECT_EQ(sink.Deliver(events),
            (Outcomes{kReturned, kDelivered, kReturned, kDelivered, kReturned}));
  EXPECT_EQ(sink.returned(), 3u);
  EXPECT_EQ(sink.published(), 2u);
  const auto received = approvals->ReceiveFor(500ms);
  ASSERT_EQ(received.size(), 2u);
  EXPECT_EQ(received[0].message_id, events[1].event_id);
  EXPECT_EQ(received[1].message_id, events[3].event_id);
}

TEST_F(AmqpEventSinkTest, AFullQueueThatRejectsPublishesGetsThemNacked) {
  AmqpEventSink sink(Config());  // declares the exchange
  const std::string full = OwnQueue("full");
  {
    auto admin = Admin();
    const auto deadline = AmqpConnection::Clock::now() + 5s;
    admin.DeclareQueue(full, /*durable=*/false, /*exclusive=*/false, /*auto_delete=*/false,
                       {{"x-max-length", std::int64_t{1}}, {"x-overflow", "reject-publish"}},
                       deadline);
    admin.BindQueue(full, name_, "document.#", deadline);
  }
  EXPECT_EQ(sink.Deliver(Events(3)), (Outcomes{kDelivered, kNacked, kNacked}));
  EXPECT_EQ(sink.published(), 1u);
  EXPECT_EQ(sink.nacked(), 2u);
  EXPECT_EQ(sink.returned(), 0u);
  EXPECT_EQ(sink.Deliver(Events(1)), Outcomes{kNacked});  // still full
  EXPECT_EQ(sink.nacked(), 3u);
  EXPECT_EQ(sink.State(), "ok");
  EXPECT_EQ(sink.failures(), 0u);
}

TEST_F(AmqpEventSinkTest, TheConfiguredQueueIsDeclaredBoundAndRedeclaredOnReconnect) {
  TcpProxy proxy(ParseAmqpUrl(url_, 0).port);
  AmqpConfig config = ConfigFor(ThroughPort(url_, proxy.port()));
  config.queue = OwnQueue("consumers");
  AmqpEventSink sink(config);
  ASSERT_EQ(sink.State(), "ok");
  AmqpEventSink second(config);  // a second instance declares the same queue: no conflict
  EXPECT_EQ(second.State(), "ok");

  EXPECT_EQ(
      sink.Deliver(std::vector{Event(1, EventType::kSubmitted), Event(2, EventType::kWithdrawn)}),
      Outcomes(2, kDelivered));
  proxy.Stop();
  proxy.Start();
  EXPECT_THROW(sink.Deliver(Events(1)), EventSinkUnavailable);  // the old connection is gone
  ASSERT_TRUE(HealsWithin15s(sink));  // connects again, redeclaring exchange, queue and binding
  EXPECT_EQ(sink.connects(), 2u);
  EXPECT_EQ(sink.Deliver(std::vector{Event(3)}), Outcomes{kDelivered});

  AmqpTestQueue consumers(url_, "", AmqpTestQueue::Existing{config.queue});
  const auto received = consumers.Receive(3, 5s);
  ASSERT_EQ(received.size(), 3u);
  EXPECT_EQ(received[0].message_id, Event(1).event_id);
  EXPECT_EQ(received[1].message_id, Event(2).event_id);
  EXPECT_EQ(received[2].message_id, Event(3).event_id);
  EXPECT_TRUE(consumers.ReceiveFor(300ms).empty());
}

TEST_F(AmqpEventSinkTest, AnUnreachableBrokerStartsDegradedAndMaintainHealsIt) {
  TcpProxy proxy(ParseAmqpUrl(url_, 0).port);
  proxy.Stop();                                                    // the port refuses connections
  AmqpEventSink sink(ConfigFor(ThroughPort(url_, proxy.port())));  // does not throw
  EXPECT_EQ(sink.State(), "degraded");
  EXPECT_EQ(sink.failures(), 1u);
  EXPECT_EQ(sink.connects(), 0u);
  EXPECT_THROW(sink.Deliver(Events(2)), EventSinkUnavailable);
  sink.Maintain();
  EXPECT_EQ(sink.State(), "degraded");

  proxy.Start();
  auto observer = Observe();
  ASSERT_TRUE(HealsWithin15s(sink));
  EXPECT_EQ(sink.connects(), 1u);
  EXPECT_EQ(sink.Deliver(Events(2)), Outcomes(2, kDelivered));
  EXPECT_EQ(observer->Receive(2, 5s).size(), 2u);
}

TEST_F(AmqpEventSinkTest, NothingListeningIsUnavailableWithAReason) {
  AmqpEventSink sink(ConfigFor("amqp://127.0.0.1:" + std::to_string(ClosedPort())));
  EXPECT_EQ(sink.State(), "degraded");
  const std::string why = UnavailableReason(sink);
  EXPECT_NE(why.find("connection to 127.0.0.1:"), std::string::npos) << why;
  EXPECT_EQ(sink.failures(), 2u);
}

TEST_F(AmqpEventSinkTest, ACutAfterADeliveryFailsTheNextOneUntilMaintainReconnects) {
  auto observer = Observe();
  TcpProxy proxy(ParseAmqpUrl(url_, 0).port);
  AmqpEventSink sink(ConfigFor(ThroughPort(url_, proxy.port())));
  ASSERT_EQ(sink.Deliver(Events(2)), Outcomes(2, kDelivered));

  proxy.Stop();
  std::vector<DeliveryOutcome> outcomes;
  EXPECT_THROW(outcomes = sink.Deliver(std::vector{Event(3)}), EventSinkUnavailable);
  EXPECT_TRUE(outcomes.empty());  // nothing claimed delivered
  EXPECT_EQ(sink.State(), "degraded");
  EXPECT_EQ(sink.failures(), 1u);
  EXPECT_EQ(sink.published(), 2u);

  proxy.Start();
  ASSERT_TRUE(HealsWithin15s(sink));
  EXPECT_EQ(sink.connects(), 2u);
  EXPECT_EQ(sink.Deliver(std::vector{Event(3)}), Outcomes{kDelivered});
  const auto received = observer->ReceiveFor(500ms);
  ASSERT_EQ(received.size(), 3u);
  EXPECT_EQ(received[2].message_id, Event(3).event_id);
}

TEST_F(AmqpEventSinkTest, StateAndCountersAreReadFromAnotherThreadWhileTheRelayWorks) {
  TcpProxy proxy(ParseAmqpUrl(url_, 0).port);
  AmqpEventSink sink(ConfigFor(ThroughPort(url_, proxy.port())));
  std::atomic<bool> saw_ok{false}, saw_degraded{false};
  std::atomic<std::uint64_t> max_published{0};
  std::jthread readiness([&](std::stop_token stop) {  // as /readyz and /metrics would
    while (!stop.stop_requested()) {
      (sink.State() == "ok" ? saw_ok : saw_degraded) = true;
      max_published = std::max(max_published.load(), sink.published());
      std::this_thread::yield();
    }
  });
  ASSERT_EQ(sink.Deliver(Events(3)), Outcomes(3, kReturned));
  proxy.Stop();
  EXPECT_THROW(sink.Deliver(Events(1)), EventSinkUnavailable);
  // The reader must get a turn while the sink is degraded, however busy the machine is.
  for (int i = 0; i < 1000 && !saw_degraded; ++i) std::this_thread::sleep_for(10ms);
  proxy.Start();
  ASSERT_TRUE(HealsWithin15s(sink));
  // And a turn once it is ok again: the first "ok" may have passed before the reader ran.
  for (int i = 0; i < 1000 && !saw_ok; ++i) std::this_thread::sleep_for(10ms);
  readiness.request_stop();
  readiness.join();
  EXPECT_TRUE(saw_ok);
  EXPECT_TRUE(saw_degraded);
  EXPECT_EQ(max_published.load(), 0u);
  EXPECT_EQ(sink.returned(), 3u);
}

TEST_F(AmqpEventSinkTest, MaintainNoticesACutWhileIdle) {
  TcpProxy proxy(ParseAmqpUrl(url_, 0).port);
  AmqpEventSink sink(ConfigFor(ThroughPort(url_, proxy.port())));
  ASSERT_EQ(sink.State(), "ok");
  proxy.Stop();
  const auto deadline = std::chrono::steady_clock::now() + 2s;  // the FIN is on its way
  while (sink.State() == "ok" && std::chrono::steady_clock::now() < deadline) {
    sink.Maintain();  // no Deliver: the idle relay's calls alone notice the cut
    std::this_thread::sleep_for(5ms);
  }
  EXPECT_EQ(sink.State(), "degraded");
  EXPECT_EQ(sink.failures(), 1u);
  proxy.Start();
  ASSERT_TRUE(HealsWithin15s(sink));
  EXPECT_EQ(sink.connects(), 2u);
}

TEST_F(AmqpEventSinkTest, ABrokerRefusalIsReportedWithItsReplyText) {
  AmqpConfig config = Config();
  config.queue = OwnQueue("consumers");
  {
    // Someone declared the queue with other arguments: docgate's declaration is refused.
    auto admin = Admin();
    admin.DeclareQueue(config.queue, /*durable=*/true, false, false,
                       {{"x-max-length", std::int64_t{10}}}, AmqpConnection::Clock::now() + 5s);
  }
  AmqpEventSink sink(config);
  EXPECT_EQ(sink.State(), "degraded");
  const std::string why = UnavailableReason(sink);
  EXPECT_NE(why.find("declaring queue '" + config.queue + "'"), std::string::npos) << why;
  EXPECT_NE(why.find("406 PRECONDITION_FAILED"), std::string::npos) << why;
  EXPECT_NE(why.find("x-max-length"), std::string::npos) << why;
}

TEST_F(AmqpEventSinkTest, RefusedCredentialsAreReportedWithoutThePassword) {
  const auto broker = ParseAmqpUrl(url_, 0);
  AmqpEventSink sink(ConfigFor("amqp://docgate-nobody:hunter2@" + HostPort(broker) + "/"));
  EXPECT_EQ(sink.State(), "degraded");
  const std::string why = UnavailableReason(sink);
  EXPECT_NE(why.find("login to " + HostPort(broker) + " as 'docgate-nobody'"), std::string::npos)
      << why;
  EXPECT_NE(why.find("403 ACCESS_REFUSED"), std::string::npos) << why;
  EXPECT_EQ(why.find("hunter2"), std::string::npos) << why;
}

TEST_F(AmqpEventSinkTest, AnExchangeDeletedUnderTheSinkClosesTheChannelAndIsRedeclared) {
  AmqpEventSink sink(Config());
  Admin().DeleteExchange(name_, AmqpConnection::Clock::now() + 5s);
  try {
    sink.Deliver(Events(2));
    FAIL() << "published to a deleted exchange";
  } catch (const EventSinkUnavailable& e) {
    EXPECT_NE(std::string(e.what()).find("404 NOT_FOUND"), std::string::npos) << e.what();
  }
  EXPECT_EQ(sink.State(), "degraded");
  auto observer = Observe();
  EXPECT_EQ(sink.Deliver(Events(2)), Outcomes(2, kDelivered));  // reconnects at once
  EXPECT_EQ(observer->Receive(2, 5s).size(), 2u);
  EXPECT_EQ(sink.connects(), 2u);
}

TEST_F(AmqpEventSinkTest, AmqpsWithTheCaFileDelivers) {
  const std::string amqps_url = RequiredEnv("DOCGATE_TEST_AMQPS_URL");
  const std::string ca_file = RequiredEnv("DOCGATE_TEST_AMQP_CA_FILE");
  ASSERT_FALSE(amqps_url.empty() || ca_file.empty());
  AmqpConfig config = ConfigFor(amqps_url);
  config.ca_file = ca_file;
  auto observer = Observe();
  AmqpEventSink sink(config);
  ASSERT_EQ(sink.State(), "ok");
  EXPECT_EQ(sink.Deliver(Events(3)), Outcomes(3, kDelivered));
  EXPECT_EQ(observer->Receive(3, 5s).size(), 3u);

  AmqpTestQueue over_tls(amqps_url, ca_file, name_, "document.#");
  EXPECT_EQ(sink.Deliver(Events(1)), Outcomes{kDelivered});
  EXPECT_EQ(over_tls.Receive(1, 5s).size(), 1u);
}

TEST_F(AmqpEventSinkTest, AmqpsWithoutTheCaFileRefusesTheUnverifiableCertificate) {
  const std::string amqps_url = RequiredEnv("DOCGATE_TEST_AMQPS_URL");
  ASSERT_FALSE(amqps_url.empty());
  AmqpEventSink sink(ConfigFor(amqps_url));  // the system's trust store does not know the CA
  EXPECT_EQ(sink.State(), "degraded");
  const std::string why = UnavailableReason(sink);
  // OpenSSL's reason follows: "self-signed certificate" (a self-signed server certificate), "...
  // in certificate chain" (a CA sent along), "unable to get local issuer certificate" (a CA not).
  EXPECT_NE(why.find("certificate verify failed"), std::string::npos) << why;
  EXPECT_EQ(sink.connects(), 0u);
}

TEST_F(AmqpEventSinkTest, MaintainKeepsAnIdleConnectionAliveWithHeartbeats) {
  AmqpEventSink sink(ConfigFor(WithQuery(url_, "heartbeat=1")));
  ASSERT_EQ(sink.Deliver(Events(1)), Outcomes{kReturned});
  // 3.5 s idle is well past the broker's limit for a 1 s heartbeat (two missed beats).
  const auto until = std::chrono::steady_clock::now() + 3500ms;
  while (std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(200ms);
    sink.Maintain();
    ASSERT_EQ(sink.State(), "ok");
  }
  auto observer = Observe();
  EXPECT_EQ(sink.Deliver(Events(2)), Outcomes(2, kDelivered));
  EXPECT_EQ(sink.connects(), 1u);
  EXPECT_EQ(sink.failures(), 0u);
}

TEST_F(AmqpEventSinkTest, WithoutMaintainTheBrokerDropsAnIdleHeartbeatConnection) {
  // The control for the test above: the 1 s heartbeat is really in force.
  AmqpEventSink sink(ConfigFor(WithQuery(url_, "heartbeat=1")));
  ASSERT_EQ(sink.State(), "ok");
  std::this_thread::sleep_for(5s);
  EXPECT_THROW(sink.Deliver(Events(1)), EventSinkUnavailable);
  EXPECT_EQ(sink.failures(), 1u);
  EXPECT_EQ(sink.Deliver(Events(1)), Outcomes{kReturned});  // connected again
  EXPECT_EQ(sink.connects(), 2u);
}

TEST_F(AmqpEventSinkTest, AMalformedConfigurationIsRefusedAtConstruction) {
  AmqpConfig config = Config();
  config.url = "amqp://h?heartbeats=1";
  EXPECT_THROW(AmqpEventSink{config}, std::invalid_argument);
  config = Config();
  config.ca_file = "/nonexistent/ca.pem";
  EXPECT_THROW(AmqpEventSink{config}, std::invalid_argument);
  config = Config();
  config.exchange = "";
  EXPECT_THROW(AmqpEventSink{config}, std::invalid_argument);
  config = Config();
  config.confirm_timeout = 0ms;
  EXPECT_THROW(AmqpEventSink{config}, std::invalid_argument);
}

}  // namespace
}  // namespace docgate
