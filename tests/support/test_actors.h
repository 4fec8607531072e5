#pragma once

#include "core/model.h"

namespace docgate {

// The people the service and store tests act as: two authors and two reviewers, by the ids
// and names the tests' documents and events name.
inline const Actor kAlice{"alice", "Alice", true, false, false};
inline const Actor kCarol{"carol", "Carol", true, false, false};
inline const Actor kBob{"bob", "Bob", false, true, false};
inline const Actor kDave{"dave", "Dave", false, true, false};

}  // namespace docgate
