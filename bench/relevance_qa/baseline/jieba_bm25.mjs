// The baseline of bench/relevance_qa: plain Okapi BM25 over jieba-segmented text.
//
//   npm ci && node jieba_bm25.mjs [--set DIR] [--details]
//
// - Segmentation: jieba-wasm's search mode (cut_for_search, HMM on) for documents and queries
//   alike, so 安装程序 gives 安装, 程序 and 安装程序. Latin is lowercased; tokens that are only
//   whitespace, punctuation or symbols are dropped. No stop word list.
// - One field: the title, a newline, the content.
// - BM25: k1 = 1.2, b = 0.75, idf = ln(1 + (N - df + 0.5) / (df + 0.5)); each distinct query
//   token counts once. A document scores when it holds at least one query token. Ties keep the
//   order of documents.jsonl.
// - Per query, the first 10: recall@10 = relevant found / min(relevant, 10); MRR@10 = 1 / rank of
//   the first relevant document in the top 10, else 0; nDCG@10 with gain 2^grade - 1 and discount
//   log2(rank + 1) (as bench/relevance_bench.cpp). Averaged per kind x split ("question-tune",
//   ...), per kind, per split and over all queries.
// Also counted: queries without any hit (no document holds a query token) and queries without a
// relevant document in the top 10. Prints one JSON object; --details adds each query's top 10 and the rank of each relevant
// document within the first 100 (null beyond).

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { cut_for_search } from "jieba-wasm";

const K1 = 1.2;
const B = 0.75;

const args = process.argv.slice(2);
let setDir = join(dirname(fileURLToPath(import.meta.url)), "..");
let details = false;
for (let i = 0; i < args.length; ++i) {
  if (args[i] === "--set") setDir = args[++i];
  else if (args[i] === "--details") details = true;
  else {
    console.error(`jieba_bm25: unknown argument ${args[i]}`);
    process.exit(2);
  }
}

const readLines = (path) =>
  readFileSync(path, "utf8").split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line));

const dropped = /^[\s\p{P}\p{S}]+$/u;
function tokens(text) {
  return cut_for_search(text, true)
    .map((token) => token.toLowerCase())
    .filter((token) => token !== "" && !dropped.test(token));
}

const documents = readLines(join(setDir, "documents.jsonl"));
const queries = readLines(join(setDir, "queries.jsonl"));

// The index: per document its length and term frequencies; per term its document frequency.
const lengths = [];
const frequencies = [];
const documentFrequency = new Map();
for (const document of documents) {
  const terms = tokens(`${document.title}\n${document.content}`);
  const tf = new Map();
  for (const term of terms) tf.set(term, (tf.get(term) ?? 0) + 1);
  lengths.push(terms.length);
  frequencies.push(tf);
  for (const term of tf.keys()) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
}
const N = documents.length;
const averageLength = lengths.reduce((a, b) => a + b, 0) / N;
const idf = (term) => {
  const df = documentFrequency.get(term) ?? 0;
  return Math.log(1 + (N - df + 0.5) / (df + 0.5));
};

function rank(queryText) {
  const terms = [...new Set(tokens(queryText))];
  const scored = [];
  for (let d = 0; d < N; ++d) {
    let score = 0;
    let matched = false;
    for (const term of terms) {
      const tf = frequencies[d].get(term);
      if (!tf) continue;
      matched = true;
      score += (idf(term) * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * lengths[d]) / averageLength));
    }
    if (matched) scored.push({ d, score });
  }
  scored.sort((x, y) => y.score - x.score || x.d - y.d);
  return { terms, ranked: scored.map(({ d }) => documents[d].id) };
}

const groups = new Map();
const add = (group, values) => {
  if (!groups.has(group)) {
    groups.set(group, { queries: 0, recall: 0, mrr: 0, ndcg: 0, answer: 0, noHit: 0, noRelevant: 0 });
  }
  const g = groups.get(group);
  g.queries += 1;
  g.recall += values.recall;
  g.mrr += values.mrr;
  g.ndcg += values.ndcg;
  g.answer += values.answer;
  g.noHit += values.noHit;
  g.noRelevant += values.mrr === 0 ? 1 : 0;
};

const perQuery = [];
for (const query of queries) {
  const { terms, ranked } = rank(query.query);
  const top = ranked.slice(0, 10);
  const relevant = query.relevant;
  let found = 0;
  let mrr = 0;
  let dcg = 0;
  top.forEach((id, index) => {
    if (!(id in relevant)) return;
    found += 1;
    if (mrr === 0) mrr = 1 / (index + 1);
    dcg += (2 ** relevant[id] - 1) / Math.log2(index + 2);
  });
  const grades = Object.values(relevant).sort((a, b) => b - a).slice(0, 10);
  const ideal = grades.reduce((sum, grade, index) => sum + (2 ** grade - 1) / Math.log2(index + 2), 0);
  const values = {
    recall: found / Math.min(Object.keys(relevant).length, 10),
    mrr,
    ndcg: ideal > 0 ? dcg / ideal : 0,
    // A document of the query's highest grade (an answer) among the first 10.
    answer: top.some((id) => relevant[id] === grades[0]) ? 1 : 0,
    noHit: ranked.length === 0 ? 1 : 0,
  };
  const split = query.split ?? "all";
  for (const group of [`${query.kind}-${split}`, query.kind, split, "all"]) add(group, values);
  if (details) {
    const ranks = {};
    for (const id of Object.keys(relevant)) {
      const at = ranked.indexOf(id);
      ranks[id] = at >= 0 && at < 100 ? at + 1 : null;
    }
    perQuery.push({ id: query.id, query: query.query, kind: query.kind, split, terms, top10: top,
                    relevant_ranks: ranks, recall_at_10: values.recall, mrr_at_10: mrr });
  }
}

const round = (x) => Math.round(x * 1000) / 1000;
const report = {
  baseline: "Okapi BM25 (k1 1.2, b 0.75) over jieba-wasm cut_for_search, title + content",
  documents: N,
  queries: queries.length,
  average_document_tokens: round(averageLength),
  queries_without_hits: groups.get("all")?.noHit ?? 0,
  relevance: {},
};
for (const [group, g] of [...groups.entries()].sort(([a], [b]) => a.localeCompare(b))) {
  report.relevance[group] = {
    queries: g.queries,
    recall_at_10: round(g.recall / g.queries),
    mrr_at_10: round(g.mrr / g.queries),
    ndcg_at_10: round(g.ndcg / g.queries),
    answer_at_10: round(g.answer / g.queries),
    queries_without_hits: g.noHit,
    queries_without_relevant_in_top_10: g.noRelevant,
  };
}
if (details) report.per_query = perQuery;
console.log(JSON.stringify(report, null, 2));
