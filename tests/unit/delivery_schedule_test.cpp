#include "app/delivery_schedule.h"

#include <gtest/gtest.h>

namespace docgate {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

const TimePoint kEvent{milliseconds(1'796'000'000'000)};

milliseconds Delay(int attempts, double unit_random,
                   std::optional<milliseconds> retry_after = std::nullopt,
                   TimePoint now = kEvent + seconds(1)) {
  const auto at = NextAttemptAt(RetryPolicy{}, kEvent, now, attempts, retry_after, unit_random);
  EXPECT_TRUE(at.has_value());
  return std::chrono::duration_cast<milliseconds>(at.value_or(now) - now);
}

TEST(DeliveryScheduleTest, TheDelayDoublesFromTenSecondsToAnHourBetweenHalfAndAllOfItsStep) {
  EXPECT_EQ(Delay(1, 0.0), seconds(5));
  EXPECT_EQ(Delay(1, 0.999999), milliseconds(9'999));
  EXPECT_EQ(Delay(2, 0.0), seconds(10));
  EXPECT_EQ(Delay(3, 0.5), seconds(30));              // step 40 s
  EXPECT_EQ(Delay(9, 0.0), milliseconds(1'280'000));  // step 2,560 s, under the hour
  EXPECT_EQ(Delay(10, 0.0), minutes(30));             // step capped at the hour
  EXPECT_EQ(Delay(1000, 0.0), minutes(30));           // no overflow however many attempts
}

TEST(DeliveryScheduleTest, ALongerRetryAfterIsWaitedAndAShorterOneIsNot) {
  EXPECT_EQ(Delay(1, 0.0, seconds(120)), seconds(120));
  EXPECT_EQ(Delay(3, 0.0, seconds(1)), seconds(20));
  EXPECT_EQ(Delay(1, 0.0, hours(5)), hours(5));  // beyond the hour's cap: the receiver asked
}

TEST(DeliveryScheduleTest, NothingIsScheduledPastTwentyFourHoursFromTheEvent) {
  // The last attempt falls on the deadline, however long the step or Retry-After.
  const TimePoint late = kEvent + hours(23) + minutes(50);
  EXPECT_EQ(NextAttemptAt(RetryPolicy{}, kEvent, late, 20, std::nullopt, 0.9), kEvent + hours(24));
  EXPECT_EQ(NextAttemptAt(RetryPolicy{}, kEvent, kEvent + seconds(1), 1, hours(48), 0.0),
            kEvent + hours(24));
  // At the deadline or after it, the delivery has failed.
  EXPECT_EQ(NextAttemptAt(RetryPolicy{}, kEvent, kEvent + hours(24), 21, std::nullopt, 0.0),
            std::nullopt);
}

}  // namespace
}  // namespace docgate
