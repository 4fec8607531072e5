#!/usr/bin/env python3
"""Validate the docgate search relevance set (documents.jsonl + queries.jsonl).

Standard library only.  Prints a summary and exits non-zero if any
violation is found, listing every violation.

Usage: python3 check_set.py [DIR]   (DIR defaults to this script's directory)
"""
import json
import os
import re
import sys
import unicodedata
from collections import Counter

MIN_DOCS = {"zh": 75, "en": 65, "mixed": 70}
MIN_QUERIES = {"zh": 40, "en": 35, "mixed": 35}
MIN_VERBATIM_SHARE = 0.80
MIN_EMBEDDED_ZH = 10
DOC_ID_RE = {"zh": re.compile(r"^zh-\d{3}$"), "en": re.compile(r"^en-\d{3}$"),
             "mixed": re.compile(r"^mix-\d{3}$")}
QUERY_ID_RE = {"zh": re.compile(r"^q-zh-\d{3}$"), "en": re.compile(r"^q-en-\d{3}$"),
               "mixed": re.compile(r"^q-mix-\d{3}$")}
CONTENT_LEN = (150, 1500)
# English stemming allowance: the folded query word minus one of these
# trailing suffixes must be a substring of the document text.
STRIP_SUFFIXES = ("ing", "es", "ed", "s")
CJK_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
LATIN_RE = re.compile(r"[A-Za-z]")


def fold(s):
    """NFKC normalisation followed by case folding."""
    return unicodedata.normalize("NFKC", s).casefold()


def query_terms(query):
    """Split a query into terms: double-quoted phrases or whitespace words.

    Returns a list of (term, is_phrase) with the term already folded and the
    quotes stripped.  Phrases keep their inner whitespace.
    """
    q = fold(query)
    terms = []
    for m in re.finditer(r'"([^"]*)"|(\S+)', q):
        if m.group(1) is not None:
            phrase = m.group(1).strip()
            if phrase:
                terms.append((phrase, True))
        else:
            terms.append((m.group(2), False))
    return terms


def term_candidates(term, is_phrase):
    """Forms of the term accepted as a match (stemming for English words)."""
    cands = [term]
    if not is_phrase and re.fullmatch(r"[a-z]+", term):
        for suf in STRIP_SUFFIXES:
            if term.endswith(suf) and len(term) - len(suf) >= 3:
                cands.append(term[: -len(suf)])
    return cands


# A Latin or digit edge of a term must be a word edge in the document: not inside a longer word,
# except where the case changes (readinessProbe holds "probe"), or after "_" or "." (lock_timeout
# holds "timeout"), which is where docgate's analyzer splits identifiers. English inflections may
# follow the word.
WORD_TAIL = r"(?:s|es|ed|d|ing|er|ers|ion|ions|ment)?"
WORD_START = r"(?:(?<![A-Za-z0-9])|(?<=[a-z])(?=[A-Z]))"
WORD_END = r"(?:(?![A-Za-z0-9])|(?<=[a-z])(?=[A-Z]))"


def term_in_text(term, is_phrase, text):
    """Whether the folded term occurs in `text` (NFKC, case kept) as a word or words."""
    for cand in term_candidates(term, is_phrase):
        start = WORD_START if re.match(r"[a-z0-9]", cand) else ""
        tail, end = (WORD_TAIL, WORD_END) if re.search(r"[a-z0-9]$", cand) else ("", "")
        if re.search(start + "(?i:" + re.escape(cand) + tail + ")" + end, text):
            return True
    return False


def doc_text(doc):
    return unicodedata.normalize("NFKC", doc["title"] + "\n" + doc["content"])


def load_jsonl(path, violations, label):
    rows = []
    if not os.path.exists(path):
        violations.append(f"{label}: file not found: {path}")
        return rows
    with open(path, "rb") as fh:
        raw = fh.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        violations.append(f"{label}: not valid UTF-8: {exc}")
        return rows
    for n, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        if "\\u" in line:
            violations.append(f"{label}:{n}: contains \\u escape (write UTF-8 directly)")
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            violations.append(f"{label}:{n}: invalid JSON: {exc}")
            continue
        if not isinstance(obj, dict):
            violations.append(f"{label}:{n}: line is not a JSON object")
            continue
        obj["_line"] = n
        rows.append(obj)
    return rows


def check_documents(docs, v):
    by_id = {}
    for d in docs:
        where = f"documents.jsonl:{d['_line']}"
        keys = set(d) - {"_line"}
        if keys != {"id", "lang", "title", "content"}:
            v.append(f"{where}: fields must be id, lang, title, content (got {sorted(keys)})")
            continue
        if not all(isinstance(d[k], str) for k in ("id", "lang", "title", "content")):
            v.append(f"{where}: all fields must be strings")
            continue
        did, lang = d["id"], d["lang"]
        if lang not in DOC_ID_RE:
            v.append(f"{where}: {did}: unknown lang {lang!r}")
            continue
        if not DOC_ID_RE[lang].match(did):
            v.append(f"{where}: id {did!r} does not match lang {lang}")
        if did in by_id:
            v.append(f"{where}: duplicate document id {did}")
        by_id[did] = d
        if not d["title"].strip():
            v.append(f"{where}: {did}: empty title")
        n = len(d["content"])
        if not CONTENT_LEN[0] <= n <= CONTENT_LEN[1]:
            v.append(f"{where}: {did}: content length {n} outside {CONTENT_LEN}")
        if d["content"] != d["content"].strip():
            v.append(f"{where}: {did}: content has leading/trailing whitespace")
        if "\n\n\n" in d["content"]:
            v.append(f"{where}: {did}: paragraphs must be separated by exactly one blank line")
        full = d["title"] + d["content"]
        if lang == "en" and CJK_RE.search(full):
            v.append(f"{where}: {did}: English document contains CJK characters")
        if lang in ("zh", "mixed") and not CJK_RE.search(full):
            v.append(f"{where}: {did}: {lang} document contains no CJK characters")
        if lang == "mixed" and len(re.findall(r"[A-Za-z][A-Za-z0-9_.-]*", unicodedata.normalize("NFKC", full))) < 5:
            v.append(f"{where}: {did}: mixed document has too few Latin terms")
    return by_id


def embedded_in_run(word, text):
    """True if word occurs with a CJK character directly before or after it."""
    start = 0
    while True:
        i = text.find(word, start)
        if i < 0:
            return False
        before = text[i - 1] if i > 0 else ""
        after = text[i + len(word)] if i + len(word) < len(text) else ""
        if (before and CJK_RE.match(before)) or (after and CJK_RE.match(after)):
            return True
        start = i + 1


def check_queries(queries, by_id, v):
    seen = set()
    stats = Counter()
    embedded = []
    for q in queries:
        where = f"queries.jsonl:{q['_line']}"
        keys = set(q) - {"_line"}
        if keys != {"id", "lang", "query", "kind", "relevant"}:
            v.append(f"{where}: fields must be id, lang, query, kind, relevant (got {sorted(keys)})")
            continue
        qid, lang, text, kind, rel = q["id"], q["lang"], q["query"], q["kind"], q["relevant"]
        if lang not in QUERY_ID_RE:
            v.append(f"{where}: {qid}: unknown lang {lang!r}")
            continue
        if not isinstance(qid, str) or not QUERY_ID_RE[lang].match(qid):
            v.append(f"{where}: query id {qid!r} does not match lang {lang}")
        if qid in seen:
            v.append(f"{where}: duplicate query id {qid}")
        seen.add(qid)
        if not isinstance(text, str) or not text.strip():
            v.append(f"{where}: {qid}: empty query")
            continue
        if text.count('"') % 2:
            v.append(f"{where}: {qid}: unbalanced double quotes")
        norm = unicodedata.normalize("NFKC", text)
        has_cjk, has_latin = bool(CJK_RE.search(norm)), bool(LATIN_RE.search(norm))
        if lang == "zh" and (not has_cjk or has_latin):
            v.append(f"{where}: {qid}: zh query must be Chinese only: {text!r}")
        if lang == "en" and (has_cjk or not has_latin):
            v.append(f"{where}: {qid}: en query must be Latin only: {text!r}")
        if lang == "mixed" and not (has_cjk and has_latin):
            v.append(f"{where}: {qid}: mixed query needs Chinese and Latin: {text!r}")
        if kind not in ("verbatim", "topic"):
            v.append(f"{where}: {qid}: kind must be verbatim or topic, got {kind!r}")
        stats[("kind", kind)] += 1
        if not isinstance(rel, dict) or not rel:
            v.append(f"{where}: {qid}: relevant must be a non-empty object")
            continue
        for did, g in rel.items():
            if did not in by_id:
                v.append(f"{where}: {qid}: relevant document {did} does not exist")
            if g not in (1, 2) or isinstance(g, bool):
                v.append(f"{where}: {qid}: grade for {did} must be 1 or 2, got {g!r}")
        if 2 not in rel.values():
            v.append(f"{where}: {qid}: no document with grade 2")
        stats[("nrel", len(rel))] += 1
        terms = query_terms(text)
        if not terms:
            v.append(f"{where}: {qid}: query has no terms")
            continue
        if any(p for _, p in terms):
            stats["phrase"] += 1
        present = [d for d in rel if d in by_id]
        all_match = all(term_in_text(t, p, doc_text(by_id[d])) for d in present for t, p in terms)
        if kind == "verbatim":
            for did in present:
                dt = doc_text(by_id[did])
                for term, is_phrase in terms:
                    if not term_in_text(term, is_phrase, dt):
                        shown = f'"{term}"' if is_phrase else term
                        v.append(f"{where}: {qid} ({text!r}) verbatim but {shown!r} not in {did}")
        elif kind == "topic" and present and all_match:
            v.append(f"{where}: {qid} ({text!r}) labelled topic but every term occurs in every relevant document")
        # case/width variant: some query term is written differently (width or case)
        # from every relevant document, so it only matches after NFKC + case folding
        raw_terms = [m.group(1) or m.group(2) for m in re.finditer(r'"([^"]*)"|(\S+)', text)]
        for rt in raw_terms:
            if rt and present and not any(
                    rt in by_id[d]["title"] + by_id[d]["content"] for d in present) and any(
                    fold(rt) in fold(doc_text(by_id[d])) for d in present):
                stats["variant"] += 1
                break
        if lang == "zh":
            cjk_words = [t for t, p in terms if not p and CJK_RE.fullmatch(t[0]) and all(CJK_RE.match(c) for c in t)]
            if cjk_words and all(
                any(embedded_in_run(w, doc_text(by_id[d])) for w in cjk_words)
                for d in rel if d in by_id
            ):
                embedded.append(qid)
    return stats, embedded


def main():
    base = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    v = []
    docs = load_jsonl(os.path.join(base, "documents.jsonl"), v, "documents.jsonl")
    queries = load_jsonl(os.path.join(base, "queries.jsonl"), v, "queries.jsonl")
    by_id = check_documents(docs, v)
    stats, embedded = check_queries(queries, by_id, v)

    doc_langs = Counter(d.get("lang") for d in docs)
    q_langs = Counter(q.get("lang") for q in queries)
    for lang, n in MIN_DOCS.items():
        if doc_langs[lang] < n:
            v.append(f"documents: {doc_langs[lang]} {lang} documents, need >= {n}")
    for lang, n in MIN_QUERIES.items():
        if q_langs[lang] < n:
            v.append(f"queries: {q_langs[lang]} {lang} queries, need >= {n}")
    n_q = len(queries)
    n_verb = stats[("kind", "verbatim")]
    if n_q and n_verb / n_q < MIN_VERBATIM_SHARE:
        v.append(f"queries: only {n_verb}/{n_q} verbatim, need >= {MIN_VERBATIM_SHARE:.0%}")
    if len(embedded) < MIN_EMBEDDED_ZH:
        v.append(f"queries: only {len(embedded)} zh queries matched inside longer Chinese runs, need >= {MIN_EMBEDDED_ZH}")

    rel_docs = set()
    grades = Counter()
    for q in queries:
        if isinstance(q.get("relevant"), dict):
            rel_docs.update(q["relevant"])
            grades.update(q["relevant"].values())
    lengths = {lang: [len(d["content"]) for d in docs if d.get("lang") == lang and isinstance(d.get("content"), str)]
               for lang in ("zh", "en", "mixed")}

    print("documents.jsonl")
    print(f"  total {len(docs)}: zh {doc_langs['zh']}, en {doc_langs['en']}, mixed {doc_langs['mixed']}")
    for lang, ls in lengths.items():
        if ls:
            print(f"  {lang:5s} content length min {min(ls)}, median {sorted(ls)[len(ls)//2]}, max {max(ls)}")
    print(f"  documents judged relevant to at least one query: {len(rel_docs)}")
    print("queries.jsonl")
    print(f"  total {n_q}: zh {q_langs['zh']}, en {q_langs['en']}, mixed {q_langs['mixed']}")
    print(f"  kind: verbatim {n_verb} ({(n_verb / n_q if n_q else 0):.1%}), topic {stats[('kind', 'topic')]}")
    print(f"  judgements: {sum(grades.values())} (grade 2: {grades[2]}, grade 1: {grades[1]})")
    dist = sorted((k[1], c) for k, c in stats.items() if isinstance(k, tuple) and k[0] == "nrel")
    print("  relevant docs per query: " + ", ".join(f"{k}:{c}" for k, c in dist))
    print(f"  phrase queries: {stats['phrase']}; queries whose case/width differs from all relevant docs: {stats['variant']}")
    print(f"  zh queries matched inside longer Chinese runs: {len(embedded)}")
    print("  JSON valid, ids unique, relevant ids exist, grade-2 per query, verbatim terms present: "
          + ("yes" if not v else "see violations"))
    if v:
        print(f"\n{len(v)} violation(s):")
        for line in v:
            print("  " + line)
        return 1
    print("\nOK: 0 violations")
    return 0


if __name__ == "__main__":
    sys.exit(main())
