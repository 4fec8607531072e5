#pragma once

// The contract of ChunkIndex (app/chunk_index.h) and of the consumer transaction's ReplaceChunks
// that feeds it. Instantiate with a factory of DocumentStoreContract.
//
// The search cases hold for the fake too (see its header for how its search differs): they use
// words whose stems every engine agrees on and no stop words, whose handling differs (PostgreSQL's
// 'english' configuration drops them, SQLite and the fake keep them).

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
class ChunkIndexContract : public ConsumerContractFixture<Factory> {};

TYPED_TEST_SUITE_P(ChunkIndexContract);

TYPED_TEST_P(ChunkIndexContract, ReplaceChunksReplacesEveryChunkAndNeverAppends) {
  const DocumentId id = this->AddDocument(2).id;
  this->Ingest(id, 2, "Guide", {"alpha apples", "bravo bananas", "charlie cherries"});
  EXPECT_EQ(this->chunks().ListChunks(id),
            (std::vector<std::string>{"alpha apples", "bravo bananas", "charlie cherries"}));
  EXPECT_EQ(this->HitIds("bananas"), std::vector<DocumentId>{id});
  this->Ingest(id, 2, "Guide", {"delta dates", "echo elderberries"});
  EXPECT_EQ(this->chunks().ListChunks(id),
            (std::vector<std::string>{"delta dates", "echo elderberries"}));
  EXPECT_TRUE(this->chunks().Search("bananas", 10).empty());
  EXPECT_TRUE(this->chunks().Search("cherries", 10).empty());
  EXPECT_EQ(this->HitIds("elderberries"), std::vector<DocumentId>{id});
  this->Ingest(id, 2, "Guide", {});
  EXPECT_TRUE(this->chunks().ListChunks(id).empty());
  EXPECT_TRUE(this->chunks().Search("dates", 10).empty());
  EXPECT_TRUE(this->chunks().ListChunks(12345).empty());
}

TYPED_TEST_P(ChunkIndexContract, SearchFindsOnlyTheApprovedVersionsChunks) {
  const Document current = this->AddDocument(3);
  const Document stale = this->AddDocument(3);
  this->Ingest(current.id, 3, "Current", {"zeppelin manual"});
  this->Ingest(stale.id, 2, "Stale", {"zeppelin manual"});
  const std::vector<SearchHit> hits = this->chunks().Search("zeppelin", 10);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].document_id, current.id);
  EXPECT_EQ(hits[0].version, 3);
  EXPECT_EQ(hits[0].title, "Current");
  EXPECT_GT(hits[0].score, 0);
}

TYPED_TEST_P(ChunkIndexContract, SearchNeedsEveryWordAndIgnoresCase) {
  const DocumentId both = this->AddDocument(1).id;
  const DocumentId one = this->AddDocument(1).id;
  this->Ingest(both, 1, "Guide", {"Kubernetes clusters need upgrades"});
  this->Ingest(one, 1, "Guide", {"kubernetes pods restart"});
  EXPECT_EQ(this->HitIds("KUBERNETES Upgrades"), std::vector<DocumentId>{both});
  EXPECT_EQ(this->chunks().Search("kubernetes", 10).size(), 2u);
  EXPECT_TRUE(this->chunks().Search("kubernetes helicopters", 10).empty());
}

TYPED_TEST_P(ChunkIndexContract, SearchRanksTitleAndRepeatedMatchesFirst) {
  const DocumentId once = this->AddDocument(1).id;
  const DocumentId twice_and_title = this->AddDocument(1).id;
  const DocumentId unrelated = this->AddDocument(1).id;
  this->Ingest(once, 1, "Handbook", {"the onboarding checklist mentions firewalls briefly"});
  this->Ingest(twice_and_title, 1, "Firewalls",
               {"firewalls protect networks and firewalls log traffic"});
  this->Ingest(unrelated, 1, "Handbook", {"nothing relevant here at all"});
  const std::vector<SearchHit> hits = this->chunks().Search("firewalls", 10);
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[0].document_id, twice_and_title);
  EXPECT_EQ(hits[1].document_id, once);
  EXPECT_GT(hits[0].score, hits[1].score);
}

TYPED_TEST_P(ChunkIndexContract, SearchSnippetIsPlainTextAroundTheMatch) {
  const DocumentId id = this->AddDocument(1).id;
  this->Ingest(id, 1, "Guide",
               {"Welcome aboard. Every contributor must read the glossary before writing. "
                "Questions go to the team channel."});
  const std::vector<SearchHit> hits = this->chunks().Search("glossary", 10);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_NE(hits[0].snippet.find("glossary"), std::string::npos) << hits[0].snippet;
  EXPECT_EQ(hits[0].snippet.find('<'), std::string::npos) << hits[0].snippet;
  EXPECT_EQ(hits[0].snippet.find('['), std::string::npos) << hits[0].snippet;
}

TYPED_TEST_P(ChunkIndexContract, SearchHonoursTheLimit) {
  for (int i = 0; i < 5; ++i) {
    this->Ingest(this->AddDocument(1).id, 1, "Guide", {"meteorology notes " + std::to_string(i)});
  }
  EXPECT_EQ(this->chunks().Search("meteorology", 10).size(), 5u);
  EXPECT_EQ(this->chunks().Search("meteorology", 2).size(), 2u);
  EXPECT_TRUE(this->chunks().Search("meteorology", 0).empty());
  EXPECT_TRUE(this->chunks().Search("meteorology", -1).empty());
}

TYPED_TEST_P(ChunkIndexContract, SearchStemsWords) {
  const DocumentId id = this->AddDocument(1).id;
  this->Ingest(id, 1, "Process", {"every change needs a review"});
  EXPECT_EQ(this->HitIds("reviews"), std::vector<DocumentId>{id});
  EXPECT_EQ(this->HitIds("reviewing"), std::vector<DocumentId>{id});
  EXPECT_EQ(this->HitIds("changes"), std::vector<DocumentId>{id});
}

TYPED_TEST_P(ChunkIndexContract, AnEmptyOrPunctuationOnlyQueryMatchesNothing) {
  this->Ingest(this->AddDocument(1).id, 1, "Guide", {"a chunk with words"});
  for (const std::string query : {"", " ", "\t\n", "!!!", "... --- ,,,", "\"\"", "()"}) {
    EXPECT_TRUE(this->chunks().Search(query, 10).empty()) << "'" << query << "'";
  }
}

// No input is an error: FTS5 and tsquery syntax, quotes, escapes, control and non-UTF-8 bytes.

TYPED_TEST_P(ChunkIndexContract, HostileQueriesReturnNormally) {
  const DocumentId id = this->AddDocument(1).id;
  this->Ingest(id, 1, "Guide", {"review the proposal carefully"});
  std::string long_text;
  while (long_text.size() < 10 * 1024) long_text += "zebra\" OR* quokka:' ";
  const std::vector<std::string> nothing = {"\"",
                                            "*",
                                            "AND OR NOT",
                                            "NEAR(",
                                            "NEAR(a b, 3)",
                                            "title:x",
                                            "'",
                                            "\\",
                                            "^",
                                            "-",
                                            "+",
                                            "(",
                                            ")",
                                            "{content}:x",
                                            "\xF0\x9F\x9A\x80",
                                            "\xF0\x9F\x9A\x80\xF0\x9F\x8E\x89",
                                            "a''b",
                                            "\"unterminated",
                                            "x AND (y OR",
                                            "!x & y | z",
                                            "<->",
                                            ":*",
                                            "proposal NEAR(",
                                            std::string("\0", 1),
                                            std::string("nul\0byte", 8),
                                            "\xFF\xFE",
                                            "\xC3",
                                            "%_",
                                            long_text};
  for (const std::string& query : nothing) {
    EXPECT_TRUE(this->chunks().Search(query, 10).empty()) << query.substr(0, 40);
  }
  const std::vector<std::string> found = {"review\"",
                                          "review*",
                                          "\"review",
                                          "(review)",
                                          "review:",
                                          "^review",
                                          "review \xF0\x9F\x9A\x80",
                                          "review'",
                                          "review\\",
                                          "proposal,",
                                          "{review}",
                                          "review\xFF"};
  for (const std::string& query : found) {
    EXPECT_EQ(this->HitIds(query), std::vector<DocumentId>{id}) << query;
  }
}

TYPED_TEST_P(ChunkIndexContract, ChunksOfAMissingDocumentAreAStorageError) {
  EXPECT_THROW(this->inbox().BeginConsumer()->ReplaceChunks(12345, 1, "T", {"x"}), StorageError);
}

REGISTER_TYPED_TEST_SUITE_P(ChunkIndexContract, ReplaceChunksReplacesEveryChunkAndNeverAppends, SearchFindsOnlyTheApprovedVersionsChunks, SearchNeedsEveryWordAndIgnoresCase, SearchRanksTitleAndRepeatedMatchesFirst, SearchSnippetIsPlainTextAroundTheMatch, SearchHonoursTheLimit, SearchStemsWords, AnEmptyOrPunctuationOnlyQueryMatchesNothing, HostileQueriesReturnNormally, ChunksOfAMissingDocumentAreAStorageError);

}  // namespace docgate
