#pragma once

// The contract of WebhookStore (app/ports/webhook_store.h): a webhook comes back as it was
// created until it is deleted; an event becomes one delivery for each live webhook that takes its
// type, however often it is enqueued; the delivery log pages newest first and outlives its
// webhook; redeliver makes a delivery pending again. Instantiate with a factory of
// DocumentStoreContract (store_contract_fixture.h); it uses only Make().

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "app/ports/webhook_store.h"
#include "app/stores.h"
#include "contract/store_contract_fixture.h"
#include "core/error.h"
#include "core/model.h"

namespace docgate {

template <typename Factory>
class WebhookStoreContract : public ::testing::Test {
 protected:
  WebhookStore& webhooks() { return *stores_.webhooks; }

  static Webhook Hook(const std::string& url, std::vector<std::string> events,
                      WebhookFormat format = WebhookFormat::kGeneric) {
    return Webhook{.id = 0,
                   .url = url,
                   .events = std::move(events),
                   .format = format,
                   .sealed_secret = "v1.0123456789abcdef.c2VhbGVk",
                   .description = "知识库审核通知",
                   .created_by = "admin",
                   .created_at = ContractTime(1)};
  }
  static WebhookEvent Event(const std::string& id, const std::string& type) {
    return {id, type, R"({"event_id":")" + id + R"(","type":")" + type + R"(","title":"备份"})"};
  }
  // The event ids of `deliveries`, in their order.
  static std::vector<std::string> EventIds(const std::vector<WebhookDelivery>& deliveries) {
    std::vector<std::string> ids;
    for (const WebhookDelivery& delivery : deliveries) ids.push_back(delivery.event_id);
    return ids;
  }

  Factory factory_;
  Stores stores_ = factory_.Make();
};

TYPED_TEST_SUITE_P(WebhookStoreContract);

TYPED_TEST_P(WebhookStoreContract, AWebhookRoundTripsUntilDeleted) {
  Webhook generic = this->Hook("https://hooks.example.com/docgate?token=a'b", {"*"});
  Webhook robot = this->Hook("https://oapi.dingtalk.com/robot/send?access_token=x",
                             {"document.approved", "review.voted"}, WebhookFormat::kDingTalk);
  robot.sealed_secret = std::nullopt;
  robot.description = std::nullopt;
  generic.id = this->webhooks().Create(generic);
  robot.id = this->webhooks().Create(robot);
  EXPECT_GT(robot.id, generic.id);
  EXPECT_EQ(this->webhooks().List(), (std::vector<Webhook>{generic, robot}));
  EXPECT_EQ(this->webhooks().Find(robot.id), robot);
  EXPECT_EQ(this->webhooks().Find(robot.id + 100), std::nullopt);

  EXPECT_TRUE(this->webhooks().Delete(generic.id, ContractTime(5)));
  EXPECT_FALSE(this->webhooks().Delete(generic.id, ContractTime(6)));
  EXPECT_FALSE(this->webhooks().Delete(robot.id + 100, ContractTime(6)));
  EXPECT_EQ(this->webhooks().Find(generic.id), std::nullopt);
  EXPECT_EQ(this->webhooks().List(), (std::vector<Webhook>{robot}));
}

TYPED_TEST_P(WebhookStoreContract, EventsWithoutAWordAreRefused) {
  EXPECT_THROW(this->webhooks().Create(this->Hook("https://a.example", {})), StorageError);
  EXPECT_THROW(this->webhooks().Create(this->Hook("https://a.example", {"document.approved", ""})),
               StorageError);
  EXPECT_THROW(this->webhooks().Create(this->Hook("https://a.example", {"a b"})), StorageError);
  EXPECT_TRUE(this->webhooks().List().empty());
}

// Each event becomes a delivery for each live webhook taking its type or "*", once: an event
// enqueued again (a consumer's redelivery) adds nothing, and a deleted webhook gets nothing.
TYPED_TEST_P(WebhookStoreContract, AnEventIsDeliveredOnceToEachWebhookThatTakesIt) {
  const WebhookId all = this->webhooks().Create(this->Hook("https://all.example", {"*"}));
  const WebhookId approvals = this->webhooks().Create(
      this->Hook("https://approvals.example", {"document.approved", "review.voted"}));
  const WebhookId gone = this->webhooks().Create(this->Hook("https://gone.example", {"*"}));
  ASSERT_TRUE(this->webhooks().Delete(gone, ContractTime(2)));

  const std::vector<WebhookEvent> events{this->Event("e1", "document.submitted"),
                                         this->Event("e2", "document.approved"),
                                         this->Event("e3", "review.voted")};
  EXPECT_EQ(this->webhooks().Enqueue(events, ContractTime(10)), 5u);
  EXPECT_EQ(this->webhooks().Enqueue(events, ContractTime(20)), 0u);
  EXPECT_EQ(this->webhooks().Enqueue(
                {this->Event("e2", "document.approved"), this->Event("e4", "document.approved")},
                ContractTime(30)),
            2u);
  // A type that is a part of another is not it.
  EXPECT_EQ(this->webhooks().Enqueue({this->Event("e5", "document.approve")}, ContractTime(40)),
            1u);

  EXPECT_EQ(this->EventIds(this->webhooks().Deliveries(all, 100, std::nullopt)),
            (std::vector<std::string>{"e5", "e4", "e3", "e2", "e1"}));
  EXPECT_EQ(this->EventIds(this->webhooks().Deliveries(approvals, 100, std::nullopt)),
            (std::vector<std::string>{"e4", "e3", "e2"}));
  EXPECT_TRUE(this->webhooks().Deliveries(gone, 100, std::nullopt).empty());

  const WebhookDelivery first = this->webhooks().Deliveries(approvals, 100, std::nullopt).back();
  EXPECT_EQ(first.webhook_id, approvals);
  EXPECT_EQ(first.event_type, "document.approved");
  EXPECT_EQ(first.payload, this->Event("e2", "document.approved").payload);
  EXPECT_EQ(first.status, WebhookDeliveryStatus::kPending);
  EXPECT_EQ(first.attempts, 0);
  EXPECT_EQ(first.last_status, std::nullopt);
  EXPECT_EQ(first.last_error, std::nullopt);
  EXPECT_EQ(first.next_attempt_at, ContractTime(10));
  EXPECT_EQ(first.delivered_at, std::nullopt);
  EXPECT_EQ(first.created_at, ContractTime(10));
  EXPECT_EQ(this->webhooks().FindDelivery(approvals, first.id), first);
  EXPECT_EQ(this->webhooks().FindDelivery(all, first.id), std::nullopt) << "another's delivery";
}

TYPED_TEST_P(WebhookStoreContract, TheDeliveryLogPagesNewestFirstAndOutlivesItsWebhook) {
  const WebhookId hook = this->webhooks().Create(this->Hook("https://all.example", {"*"}));
  std::vector<WebhookEvent> events;
  for (int i = 1; i <= 5; ++i)
    events.push_back(this->Event("e" + std::to_string(i), "review.voted"));
  ASSERT_EQ(this->webhooks().Enqueue(events, ContractTime(10)), 5u);
  const auto page1 = this->webhooks().Deliveries(hook, 2, std::nullopt);
  EXPECT_EQ(this->EventIds(page1), (std::vector<std::string>{"e5", "e4"}));
  const auto page2 = this->webhooks().Deliveries(hook, 2, page1.back().id);
  EXPECT_EQ(this->EventIds(page2), (std::vector<std::string>{"e3", "e2"}));
  const auto page3 = this->webhooks().Deliveries(hook, 2, page2.back().id);
  EXPECT_EQ(this->EventIds(page3), (std::vector<std::string>{"e1"}));
  EXPECT_TRUE(this->webhooks().Deliveries(hook, 2, page3.back().id).empty());

  ASSERT_TRUE(this->webhooks().Delete(hook, ContractTime(50)));
  EXPECT_EQ(this->webhooks().Deliveries(hook, 100, std::nullopt).size(), 5u);
  EXPECT_EQ(this->webhooks().FindDelivery(hook, page1.front().id), page1.front());
}

TYPED_TEST_P(WebhookStoreContract, RedeliverMakesADeliveryPendingAgainWhileItsWebhookLives) {
  const WebhookId hook = this->webhooks().Create(this->Hook("https://all.example", {"*"}));
  const WebhookId other = this->webhooks().Create(this->Hook("https://other.example", {"*"}));
  ASSERT_EQ(this->webhooks().Enqueue({this->Event("e1", "document.approved")}, ContractTime(10)),
            2u);
  const WebhookDelivery delivery = this->webhooks().Deliveries(hook, 1, std::nullopt).front();
  EXPECT_TRUE(this->webhooks().Redeliver(hook, delivery.id, ContractTime(99)));
  WebhookDelivery expected = delivery;
  expected.next_attempt_at = ContractTime(99);
  EXPECT_EQ(this->webhooks().FindDelivery(hook, delivery.id), expected);
  EXPECT_FALSE(this->webhooks().Redeliver(other, delivery.id, ContractTime(100)))
      << "another webhook's delivery";
  EXPECT_FALSE(this->webhooks().Redeliver(hook, delivery.id + 1000, ContractTime(100)));
  ASSERT_TRUE(this->webhooks().Delete(hook, ContractTime(200)));
  EXPECT_FALSE(this->webhooks().Redeliver(hook, delivery.id, ContractTime(300)));
  EXPECT_EQ(this->webhooks().FindDelivery(hook, delivery.id), expected);
}

REGISTER_TYPED_TEST_SUITE_P(WebhookStoreContract, AWebhookRoundTripsUntilDeleted,
                            EventsWithoutAWordAreRefused,
                            AnEventIsDeliveredOnceToEachWebhookThatTakesIt,
                            TheDeliveryLogPagesNewestFirstAndOutlivesItsWebhook,
                            RedeliverMakesADeliveryPendingAgainWhileItsWebhookLives);

}  // namespace docgate
