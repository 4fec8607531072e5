#pragma once

// The contract of the database's PreviewStore (app/ports/preview_store.h): a newer version wins, a
// stale one never overwrites. Instantiate with a factory of DocumentStoreContract.

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "contract/consumer_contract_fixture.h"
#include "core/error.h"

namespace docgate {

template <typename Factory>
class PreviewStoreContract : public ConsumerContractFixture<Factory> {};

TYPED_TEST_SUITE_P(PreviewStoreContract);

TYPED_TEST_P(PreviewStoreContract, PreviewRoundTripsAndANewerVersionWins) {
  const DocumentId id = this->AddDocument(3).id;
  EXPECT_EQ(this->previews().Find(id), std::nullopt);
  const PreviewRecord v3{id, 3, "# Guide\n\xE2\x9C\x93 'v3' \"quoted\"", ContractTime(30)};
  const PreviewRecord v4{id, 4, "v4", ContractTime(40)};
  EXPECT_TRUE(this->Upsert(v3));
  EXPECT_EQ(this->previews().Find(id), v3);
  EXPECT_TRUE(this->Upsert(v4));
  EXPECT_EQ(this->previews().Find(id), v4);
}

TYPED_TEST_P(PreviewStoreContract, AStalePreviewNeverOverwritesANewerOne) {
  const DocumentId id = this->AddDocument(4).id;
  const PreviewRecord v4{id, 4, "v4", ContractTime(40)};
  EXPECT_TRUE(this->Upsert(v4));
  EXPECT_FALSE(this->Upsert(PreviewRecord{id, 3, "v3", ContractTime(30)}));
  EXPECT_FALSE(this->Upsert(PreviewRecord{id, 4, "v4 again", ContractTime(41)}));
  EXPECT_EQ(this->previews().Find(id), v4);
}

TYPED_TEST_P(PreviewStoreContract, ProjectAllWritesABatchAsProjectWouldEach) {
  const DocumentId kept = this->AddDocument(4).id;
  const DocumentId twice = this->AddDocument(2).id;
  const DocumentId fresh = this->AddDocument(1).id;
  ASSERT_TRUE(this->Upsert(PreviewRecord{kept, 4, "v4", ContractTime(40)}));
  const PreviewRecord newest{twice, 2, "第二版", ContractTime(20)};
  const PreviewRecord first{fresh, 1, "中文预览 and text", ContractTime(10)};
  this->previews().ProjectAll({PreviewRecord{kept, 3, "stale", ContractTime(30)}, newest,
                               PreviewRecord{twice, 1, "第一版", ContractTime(10)}, first});
  EXPECT_EQ(this->previews().Find(kept)->content, "v4") << "a stale version never wins";
  EXPECT_EQ(this->previews().Find(twice), newest) << "of one document, its newest version";
  EXPECT_EQ(this->previews().Find(fresh), first);
  this->previews().ProjectAll({});
  // A record of a missing document fails the batch.
  const DocumentId other = this->AddDocument(1).id;
  EXPECT_THROW(this->previews().ProjectAll({PreviewRecord{other, 1, "x", ContractTime()},
                                            PreviewRecord{12345, 1, "x", ContractTime()}}),
               StorageError);
}

TYPED_TEST_P(PreviewStoreContract, AMissingDocumentsPreviewIsAStorageError) {
  EXPECT_THROW(this->previews().Project(PreviewRecord{12345, 1, "x", ContractTime()}),
               StorageError);
}

REGISTER_TYPED_TEST_SUITE_P(PreviewStoreContract, PreviewRoundTripsAndANewerVersionWins,
                            AStalePreviewNeverOverwritesANewerOne,
                            ProjectAllWritesABatchAsProjectWouldEach,
                            AMissingDocumentsPreviewIsAStorageError);

}  // namespace docgate
