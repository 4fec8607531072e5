// The RabbitMQ event source against a real broker (DOCGATE_TEST_AMQP_URL; scripts/services.sh
// starts it): the EventSource contract suite, then what only RabbitMQ shows (delays, headers,
// declarations, outages). Missing variables fail the tests: nothing is skipped. Every test has an
// exchange and queues of its own, so tests may run in parallel on one broker.

#include "adapters/amqp/amqp_event_source.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "adapters/amqp/amqp_connection.h"
#include "adapters/amqp/amqp_event_sink.h"
#include "adapters/amqp/amqp_topology.h"
#include "adapters/amqp/amqp_url.h"
#include "contract/event_source_contract.h"
#include "support/amqp_test_env.h"
#include "support/tcp_proxy.h"

namespace docgate {
namespace {

using namespace std::chrono_literals;
using SteadyClock = std::chrono::steady_clock;

// A test's own exchange and queues; the source it makes reaches the broker through a TcpProxy
// (Drop() cuts it), the publishing sink and the admin connections directly.
class AmqpSourceFactory {
 public:
  AmqpSourceFactory()
      : url_(RequiredEnv("DOCGATE_TEST_AMQP_URL")),
        proxy_(url_.empty() ? ClosedPort() : ParseAmqpUrl(url_, 0).port) {
    config_.url = url_;
    config_.exchange = TestBrokerName();
    config_.queue = config_.exchange + ".consumers";
    config_.connect_timeout = 3s;
    config_.confirm_timeout = 5s;
    config_.request_timeout = 3s;
    config_.reconnect_initial = 20ms;
    config_.reconnect_max = 200ms;
    if (!url_.empty()) sink_ = std::make_unique<AmqpEventSink>(config_);  // declares the queue
  }

  ~AmqpSourceFactory() {
    if (url_.empty()) return;
    const auto deadline = SteadyClock::now() + 5s;
    AmqpConnection admin = Admin();
    for (const auto& queue : {config_.queue, RetryQueueName(config_), ParkedQueueName(config_)}) {
      admin.DeleteQueue(queue, deadline);
    }
    admin.DeleteExchange(config_.exchange, deadline);
  }

  // The source's configuration: through the proxy.
  AmqpConfig SourceConfig(int prefetch = 16) const {
    AmqpConfig config = config_;
    config.url = ThroughPort(url_, proxy_.port());
    config.prefetch = prefetch;
    return config;
  }
  std::unique_ptr<EventSource> Make(int prefetch) {
    return std::make_unique<AmqpEventSource>(SourceConfig(prefetch));
  }

  void Publish(const OutboxEvent& event) {
    ASSERT_EQ(sink_->Deliver(std::vector{event}),
              std::vector<DeliveryOutcome>{DeliveryOutcome::kDelivered});
  }
  // Straight into the queue through the default exchange, confirmed.
  void PublishBody(const std::string& body, const std::string& message_id) {
    AmqpMessage message;
    message.routing_key = config_.queue;
    message.message_id = message_id;
    message.body = body;
    PublishConfirmed(message);
  }
  void PublishConfirmed(const AmqpMessage& message) {
    const auto deadline = SteadyClock::now() + 5s;
    AmqpConnection admin = Admin();
    admin.ConfirmSelect(deadline);
    admin.Publish("", message, /*mandatory=*/true, deadline);
    for (;;) {
      const auto inbound = admin.Next(deadline);
      ASSERT_TRUE(inbound) << "no confirm";
      ASSERT_NE(inbound->kind, AmqpInbound::Kind::kReturn) << inbound->reply;
      if (inbound->kind == AmqpInbound::Kind::kAck) return;
    }
  }

  void Drop() {
    proxy_.Stop();
    proxy_.Start();
  }

  AmqpConnection Admin() const {
    return AmqpConnection(ParseAmqpUrl(url_, 0), "", SteadyClock::now() + 5s);
  }
  // The messages of `queue` as they are, taken with basic.get and put back in order.
  std::vector<AmqpMessage> Peek(const std::string& queue) const {
    const auto deadline = SteadyClock::now() + 5s;
    AmqpConnection admin = Admin();
    std::vector<AmqpMessage> messages;
    while (auto got = admin.Get(queue, deadline)) messages.push_back(got->message);
    admin.Close(deadline);  // unsettled: they go back
    return messages;
  }

  const AmqpConfig& config() const { return config_; }
  TcpProxy& proxy() { return proxy_; }

 private:
  std::string url_;
  AmqpConfig config_;
  TcpProxy proxy_;
  std::unique_ptr<AmqpEventSink> sink_;
};

}  // namespace

INSTANTIATE_TYPED_TEST_SUITE_P(Amqp, EventSourceContract, ::testing::Types<AmqpSourceFactory>);

namespace {

std::optional<std::int64_t> IntHeader(const AmqpMessage& message, std::string_view key) {
  for (const auto& [name, value] : message.headers) {
    if (name == key && std::holds_alternative<std::int64_t>(value)) {
      return std::get<std::int64_t>(value);
    }
  }
  return std::nullopt;
}

std::optional<std::string> TextHeader(const AmqpMessage& message, std::string_view key) {
  for (const auto& [name, value] : message.headers) {
    if (name == key && std::holds_alternative<std::string>(value)) {
      return std::get<std::string>(value);
    }
  }
  return std::nullopt;
}

class AmqpEventSourceTest : public ::testing::Test {
 protected:
  AmqpSourceFactory factory_;
};

TEST_F(AmqpEventSourceTest, ARetryComesBackAfterItsDelayWithTheRetriesCounted) {
  AmqpEventSource source(factory_.SourceConfig());
  factory_.Publish(SourceContractEvent(1));
  const auto received = source.Receive(5s);
  ASSERT_TRUE(received);

  const auto retried_at = SteadyClock::now();
  source.Retry(*received, 300ms);
  EXPECT_EQ(source.Receive(250ms), std::nullopt);  // not before the delay
  const auto back = source.Receive(5s);
  const auto elapsed = SteadyClock::now() - retried_at;
  ASSERT_TRUE(back);
  EXPECT_GE(elapsed, 300ms);
  EXPECT_EQ(back->event, SourceContractEvent(1));
  EXPECT_FALSE(back->redelivered);

  // A second retry counts on from the first; with a long delay it is found in the retry queue.
  source.Retry(*back, 60s);
  const auto waiting = factory_.Peek(RetryQueueName(factory_.config()));
  ASSERT_EQ(waiting.size(), 1u);
  EXPECT_EQ(waiting[0].expiration, "60000");
  EXPECT_EQ(IntHeader(waiting[0], AmqpEventSource::kRetriesHeader), 2);
  EXPECT_EQ(waiting[0].body, received->body);
}

TEST_F(AmqpEventSourceTest, ARetriedMessageKeepsItsPropertiesAndHeaders) {
  {
    AmqpEventSource source(factory_.SourceConfig());
    factory_.Publish(SourceContractEvent(1));
    const auto received = source.Receive(5s);
    ASSERT_TRUE(received);
    source.Retry(*received, 0ms);
  }  // closed: the retried message stays in the queue
  const auto deadline = SteadyClock::now() + 5s;
  std::vector<AmqpMessage> queued;
  while (queued.empty() && SteadyClock::now() < deadline) {
    queued = factory_.Peek(factory_.config().queue);
    if (queued.empty()) std::this_thread::sleep_for(20ms);
  }
  ASSERT_EQ(queued.size(), 1u);
  const AmqpMessage& message = queued[0];
  EXPECT_EQ(message.message_id, SourceContractEvent(1).event_id);
  EXPECT_EQ(message.content_type, "application/json");
  EXPECT_EQ(message.type, "document.submitted");
  EXPECT_EQ(message.delivery_mode, 2);
  EXPECT_EQ(message.expiration, "");  // RabbitMQ drops it when it dead-letters
  EXPECT_EQ(IntHeader(message, AmqpEventSource::kRetriesHeader), 1);
}

TEST_F(AmqpEventSourceTest, AParkedMessageCarriesTheReasonAndItsIds) {
  AmqpEventSource source(factory_.SourceConfig());
  factory_.Publish(SourceContractEvent(2));
  const auto received = source.Receive(5s);
  ASSERT_TRUE(received);
  source.Retry(*received, 0ms);
  const auto back = source.Receive(5s);
  ASSERT_TRUE(back);
  source.Park(*back, "preview failed 5 times: boom");
  EXPECT_EQ(source.ParkedCount(), 1);
  EXPECT_EQ(source.Receive(300ms), std::nullopt);

  const auto parked = factory_.Peek(ParkedQueueName(factory_.config()));
  ASSERT_EQ(parked.size(), 1u);
  EXPECT_EQ(parked[0].message_id, SourceContractEvent(2).event_id);
  EXPECT_EQ(parked[0].body, received->body);
  EXPECT_EQ(parked[0].expiration, "");
  EXPECT_EQ(TextHeader(parked[0], AmqpEventSource::kParkReasonHeader),
            "preview failed 5 times: boom");
  EXPECT_EQ(IntHeader(parked[0], AmqpEventSource::kRetriesHeader), 1);
  EXPECT_EQ(source.ParkedCount(), 1);  // peeking put it back

  // Replayed: without the park reason and the retries.
  ASSERT_EQ(source.ReplayParked(std::nullopt, 10).size(), 1u);
  const auto replayed = source.Receive(5s);
  ASSERT_TRUE(replayed);
  EXPECT_EQ(replayed->event, SourceContractEvent(2));
  source.Ack(*replayed);
}

TEST_F(AmqpEventSourceTest, ReplayKeepsTheOrderOfTheMessagesItPasses) {
  AmqpEventSource source(factory_.SourceConfig());
  for (int n = 1; n <= 6; ++n) factory_.Publish(SourceContractEvent(n));
  for (int i = 0; i < 6; ++i) {
    const auto received = source.Receive(5s);
    ASSERT_TRUE(received);
    source.Park(*received, "failed");
  }
  const auto replayed = source.ReplayParked(SourceContractEvent(5).event_id, 10);
  ASSERT_EQ(replayed.size(), 1u);
  EXPECT_EQ(replayed[0].event, SourceContractEvent(5));
  std::vector<std::string> parked;
  for (const auto& message : factory_.Peek(ParkedQueueName(factory_.config()))) {
    parked.push_back(message.message_id);
  }
  std::vector<std::string> expected;
  for (const int n : {1, 2, 3, 4, 6}) expected.push_back(SourceContractEvent(n).event_id);
  EXPECT_EQ(parked, expected);
}

TEST_F(AmqpEventSourceTest, TheQueuesAreDeclaredWithTheirArguments) {
  AmqpEventSource source(factory_.SourceConfig());
  EXPECT_EQ(source.ParkedCount(), 0);  // connects and declares
  const auto deadline = SteadyClock::now() + 5s;
  AmqpConnection admin = factory_.Admin();
  // Redeclaring with the same arguments is accepted (a different one would close the channel).
  admin.DeclareQueue(RetryQueueName(factory_.config()), true, false, false,
                     {{"x-dead-letter-exchange", std::string()},
                      {"x-dead-letter-routing-key", factory_.config().queue}},
                     deadline);
  admin.DeclareQueue(ParkedQueueName(factory_.config()), true, false, false, {}, deadline);
  admin.DeclareQueue(factory_.config().queue, true, false, false, {}, deadline);
  EXPECT_THROW(
      admin.DeclareQueue(RetryQueueName(factory_.config()), true, false, false, {}, deadline),
      AmqpError);
}

TEST_F(AmqpEventSourceTest, ARetryNoQueueTakesThrowsAndLeavesTheMessageUnsettled) {
  AmqpEventSource source(factory_.SourceConfig());
  factory_.Publish(SourceContractEvent(1));
  const auto received = source.Receive(5s);
  ASSERT_TRUE(received);
  factory_.Admin().DeleteQueue(RetryQueueName(factory_.config()), SteadyClock::now() + 5s);
  try {
    source.Retry(*received, 100ms);
    FAIL() << "retried into a deleted queue";
  } catch (const EventSinkUnavailable& e) {
    EXPECT_NE(std::string(e.what()).find("312 NO_ROUTE"), std::string::npos) << e.what();
  }
  // Not acked: it comes back, and the retry queue is declared again.
  const auto again = source.Receive(5s);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->event, SourceContractEvent(1));
  EXPECT_TRUE(again->redelivered);
  source.Retry(*again, 0ms);
  const auto retried = source.Receive(5s);
  ASSERT_TRUE(retried);
  EXPECT_EQ(retried->event, SourceContractEvent(1));
  source.Ack(*retried);
}

TEST_F(AmqpEventSourceTest, AnUnreachableBrokerIsUnavailableUntilItIsBack) {
  factory_.proxy().Stop();
  AmqpEventSource source(factory_.SourceConfig());  // does not connect yet
  EXPECT_THROW(source.Receive(100ms), EventSinkUnavailable);
  EXPECT_THROW(source.ParkedCount(), EventSinkUnavailable);
  EXPECT_THROW(source.ReplayParked(std::nullopt, 10), EventSinkUnavailable);
  try {
    source.Receive(100ms);
    FAIL() << "received without a broker";
  } catch (const EventSinkUnavailable& e) {
    EXPECT_NE(std::string(e.what()).find("connection to 127.0.0.1:"), std::string::npos)
        << e.what();
  }

  factory_.proxy().Start();
  factory_.Publish(SourceContractEvent(1));
  const auto received = source.Receive(5s);  // the next call connects
  ASSERT_TRUE(received);
  EXPECT_EQ(received->event, SourceContractEvent(1));

  factory_.proxy().Stop();  // and a cut while connected
  EXPECT_THROW(source.Receive(5s), EventSinkUnavailable);
  EXPECT_THROW(source.Ack(*received), EventSinkUnavailable);
  EXPECT_THROW(source.Receive(100ms), EventSinkUnavailable);  // still down
  factory_.proxy().Start();
  const auto again = source.Receive(5s);
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->redelivered);
  source.Ack(*again);
  EXPECT_EQ(source.ParkedCount(), 0);
}

TEST_F(AmqpEventSourceTest, AnIdleReceiveKeepsTheConnectionAliveWithHeartbeats) {
  AmqpConfig config = factory_.SourceConfig();
  config.url = WithQuery(config.url, "heartbeat=1");
  AmqpEventSource source(config);
  // 3.5 s idle in one call is well past the broker's limit for a 1 s heartbeat (two missed beats).
  EXPECT_EQ(source.Receive(3500ms), std::nullopt);
  factory_.Publish(SourceContractEvent(1));
  const auto received = source.Receive(5s);
  ASSERT_TRUE(received);
  EXPECT_FALSE(received->redelivered);
  source.Ack(*received);
}

TEST_F(AmqpEventSourceTest, AMalformedConfigurationIsRefusedAtConstruction) {
  AmqpConfig config = factory_.SourceConfig();
  config.queue = "";
  EXPECT_THROW(AmqpEventSource{config}, std::invalid_argument);
  config = factory_.SourceConfig(0);
  EXPECT_THROW(AmqpEventSource{config}, std::invalid_argument);
  config = factory_.SourceConfig(65536);
  EXPECT_THROW(AmqpEventSource{config}, std::invalid_argument);
  config = factory_.SourceConfig();
  config.request_timeout = 0ms;
  EXPECT_THROW(AmqpEventSource{config}, std::invalid_argument);
  config = factory_.SourceConfig();
  config.url = "http://localhost";
  EXPECT_THROW(AmqpEventSource{config}, std::invalid_argument);
}

}  // namespace
}  // namespace docgate
