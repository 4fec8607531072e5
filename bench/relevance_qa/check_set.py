#!/usr/bin/env python3
"""Validates the question-style relevance set and prints a summary (Python 3, standard library only).

    python3 check_set.py            # or: python3 check_set.py DIR

Checks:
- every line is a UTF-8 JSON object with exactly the expected fields;
- documents: ids unique and of the form ig-... / mg-..., lang "zh", a title, content of
  MIN_CONTENT to MAX_CONTENT characters, paragraphs separated by one blank line;
- queries: ids unique, qa-NNN for a question and qa-NNN-kw for its keyword form (the group is
  qa-NNN), kind "question" or "keyword", split "tune" or "heldout", lang "zh", a non-empty query;
- judgements: at least one relevant document, grades 1 or 2, at least one grade 2, every relevant
  id a document of the set;
- a keyword form has its question, the same split and the same judgements;
- the split of each group is the one the rule gives (SHA-256 of the group id, odd: heldout), and
  between 40 % and 60 % of the groups are heldout.
A question that contains the whole title of one of its relevant documents is listed as a warning
(questions paraphrase; they should not copy headings).

Prints the summary, then every violation; exits 1 if there is any.
"""

import collections
import hashlib
import json
import os
import re
import statistics
import sys

MIN_CONTENT = 80
MAX_CONTENT = 6000
DOC_FIELDS = {"id", "lang", "title", "content"}
QUERY_FIELDS = {"id", "lang", "query", "kind", "split", "relevant"}
DOC_ID = re.compile(r"^(ig|mg)-[A-Za-z0-9._-]+$")
QUERY_ID = re.compile(r"^(qa-\d{3})(-kw)?$")
HAN = re.compile(r"[\u3400-\u9fff]")


def split_of(group):
    """The split rule: heldout when the SHA-256 of the group id, as a number, is odd."""
    return "heldout" if int(hashlib.sha256(group.encode()).hexdigest(), 16) % 2 else "tune"


def read_jsonl(path, problems):
    rows = []
    with open(path, "rb") as f:
        for number, raw in enumerate(f, 1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                problems.append(f"{os.path.basename(path)}:{number}: not UTF-8")
                continue
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as error:
                problems.append(f"{os.path.basename(path)}:{number}: {error}")
                continue
            if not isinstance(row, dict):
                problems.append(f"{os.path.basename(path)}:{number}: not an object")
                continue
            rows.append(row)
    return rows


def main():
    set_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    problems = []
    warnings = []
    documents = read_jsonl(os.path.join(set_dir, "documents.jsonl"), problems)
    queries = read_jsonl(os.path.join(set_dir, "queries.jsonl"), problems)

    # Documents.
    doc_by_id = {}
    for doc in documents:
        where = f"document {doc.get('id')!r}"
        if set(doc) != DOC_FIELDS:
            problems.append(f"{where}: fields {sorted(doc)} instead of {sorted(DOC_FIELDS)}")
            continue
        if not isinstance(doc["id"], str) or not DOC_ID.match(doc["id"]):
            problems.append(f"{where}: id is not ig-... or mg-...")
        if doc["id"] in doc_by_id:
            problems.append(f"{where}: duplicate id")
        doc_by_id[doc["id"]] = doc
        if doc["lang"] != "zh":
            problems.append(f"{where}: lang {doc['lang']!r}, not 'zh'")
        if not isinstance(doc["title"], str) or not doc["title"].strip():
            problems.append(f"{where}: empty title")
        content = doc["content"]
        if not isinstance(content, str):
            problems.append(f"{where}: content is not a string")
            continue
        if not MIN_CONTENT <= len(content) <= MAX_CONTENT:
            problems.append(f"{where}: content of {len(content)} characters")
        if "\n\n\n" in content or content != content.strip():
            problems.append(f"{where}: paragraphs not separated by exactly one blank line")
        if not HAN.search(content):
            problems.append(f"{where}: no Chinese in the content")

    # Queries.
    query_by_id = {}
    groups = collections.defaultdict(dict)  # group -> kind -> query
    for query in queries:
        where = f"query {query.get('id')!r}"
        if set(query) != QUERY_FIELDS:
            problems.append(f"{where}: fields {sorted(query)} instead of {sorted(QUERY_FIELDS)}")
            continue
        match = QUERY_ID.match(query["id"]) if isinstance(query["id"], str) else None
        if not match:
            problems.append(f"{where}: id is not qa-NNN or qa-NNN-kw")
            continue
        if query["id"] in query_by_id:
            problems.append(f"{where}: duplicate id")
        query_by_id[query["id"]] = query
        group, keyword_suffix = match.group(1), match.group(2)
        expected_kind = "keyword" if keyword_suffix else "question"
        if query["kind"] != expected_kind:
            problems.append(f"{where}: kind {query['kind']!r}, the id says {expected_kind!r}")
        if query["kind"] in groups[group]:
            problems.append(f"{where}: a second {query['kind']} in group {group}")
        groups[group][query["kind"]] = query
        if query["lang"] != "zh":
            problems.append(f"{where}: lang {query['lang']!r}, not 'zh'")
        if not isinstance(query["query"], str) or not query["query"].strip():
            problems.append(f"{where}: empty query")
        if query["split"] not in ("tune", "heldout"):
            problems.append(f"{where}: split {query['split']!r}")
        elif query["split"] != split_of(group):
            problems.append(f"{where}: split {query['split']!r}, the rule gives {split_of(group)!r}")
        relevant = query["relevant"]
        if not isinstance(relevant, dict) or not relevant:
            problems.append(f"{where}: no relevant documents")
            continue
        for doc_id, grade in relevant.items():
            if doc_id not in doc_by_id:
                problems.append(f"{where}: relevant {doc_id!r} is not a document")
            if grade not in (1, 2):
                problems.append(f"{where}: grade {grade!r} for {doc_id!r}")
        if 2 not in relevant.values():
            problems.append(f"{where}: no grade-2 document")
        if query["kind"] == "question":
            for doc_id in relevant:
                title = doc_by_id.get(doc_id, {}).get("title", "")
                if len(title) >= 4 and title in query["query"]:
                    warnings.append(f"{where}: holds the title of {doc_id} ({title})")

    for group, kinds in sorted(groups.items()):
        if "question" not in kinds:
            problems.append(f"group {group}: a keyword form without its question")
            continue
        if "keyword" in kinds:
            question, keyword = kinds["question"], kinds["keyword"]
            if keyword["split"] != question["split"]:
                problems.append(f"group {group}: the keyword form is in another split")
            if keyword["relevant"] != question["relevant"]:
                problems.append(f"group {group}: the keyword form has other judgements")

    group_splits = collections.Counter(
        kinds["question"]["split"] for kinds in groups.values() if "question" in kinds)
    if groups:
        share = group_splits["heldout"] / max(1, sum(group_splits.values()))
        if not 0.4 <= share <= 0.6:
            problems.append(f"splits: {share:.0%} of the groups are heldout, not 40-60 %")

    # Summary.
    by_source = collections.Counter(doc_id.split("-")[0] for doc_id in doc_by_id)
    lengths = [len(doc["content"]) for doc in doc_by_id.values()]
    cells = collections.Counter((q["kind"], q["split"]) for q in query_by_id.values())
    sizes = [len(q["relevant"]) for q in query_by_id.values() if q["kind"] == "question"]
    grades = collections.Counter(
        grade for q in query_by_id.values() if q["kind"] == "question" for grade in q["relevant"].values())
    question_lengths = [len(q["query"]) for q in query_by_id.values() if q["kind"] == "question"]
    judged = {doc_id for q in query_by_id.values() for doc_id in q["relevant"]}
    print(f"documents: {len(doc_by_id)} ({', '.join(f'{k}: {v}' for k, v in sorted(by_source.items()))}); "
          f"content {min(lengths, default=0)}-{max(lengths, default=0)} characters, "
          f"median {statistics.median(lengths) if lengths else 0:.0f}; "
          f"{len(judged)} of them judged relevant to some query")
    print(f"queries: {len(query_by_id)} in {len(groups)} groups "
          f"({group_splits['tune']} tune, {group_splits['heldout']} heldout)")
    for kind in ("question", "keyword"):
        print(f"  {kind}: {cells[(kind, 'tune')]} tune, {cells[(kind, 'heldout')]} heldout")
    if sizes:
        print(f"questions: {min(question_lengths)}-{max(question_lengths)} characters "
              f"(median {statistics.median(question_lengths):.0f}); "
              f"{min(sizes)}-{max(sizes)} relevant documents each (median {statistics.median(sizes):.0f}); "
              f"{grades[2]} judgements at grade 2, {grades[1]} at grade 1")
    for warning in warnings:
        print(f"warning: {warning}")
    print(f"{len(problems)} violations")
    for problem in problems:
        print(f"  {problem}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
