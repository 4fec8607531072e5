#pragma once

#include <string>

namespace docgate {

// 128 random bits in hex that name one store instance in the claims it takes (kh_outbox
// claimed_by). Unique per process start with overwhelming probability; not a secret.
std::string NewInstanceToken();

}  // namespace docgate
