#!/usr/bin/env python3
"""Regenerates documents.jsonl from the unpacked Debian packages (Python 3, standard library only).

    python3 extract.py ROOT [ROOT ...] [-o documents.jsonl]

Each ROOT is a directory a .deb was unpacked into with `dpkg-deb -x` (see README.md). The script
finds in it the Simplified Chinese HTML of
- installation-guide-amd64: usr/share/doc/installation-guide-amd64/zh_CN/*.html (ids "ig-..."),
- maint-guide-zh-cn:        usr/share/doc/maint-guide-zh-cn/html/*.zh-cn.html   (ids "mg-...").

Both are DocBook XSL output. Every heading of a chapter, section or appendix (h1-h5 in a
"titlepage") starts a section; a section's text is what follows its heading up to the next
heading, so a parent section holds only its introduction. The navigation bars, tables of contents,
admonition labels, footnotes and the index are left out. Paragraphs, list items, table rows and preformatted
blocks are separated by blank lines; whitespace inside a paragraph is collapsed (and dropped
between two Han characters, where it is only the source's line break).

A section is kept when it has at least MIN_CHARS characters of text and is mostly Chinese (Han
characters at least MIN_HAN_SHARE of the Han characters plus Latin letters outside code blocks).
Content longer than MAX_CHARS is cut at the last paragraph boundary before it. The id is the
package prefix and the section's anchor: the id the source gives the section (for example
ig-boot-usb-files), or, where it has none, the one DocBook XSL generated (ig-idm1251), which holds
for this version of the package only. The title is the heading without its number ("4.3.1. ",
"第 4 章 ", "附录 A. ").
"""

import argparse
import glob
import html.parser
import json
import os
import re
import sys

MIN_CHARS = 80
MAX_CHARS = 6000
MIN_HAN_SHARE = 0.2

SOURCES = [
    # (id prefix, glob under the unpacked root, files left out)
    ("ig", "usr/share/doc/installation-guide-amd64/zh_CN/*.html",
     # apf: the GNU GPL itself (an appendix); index: the table of contents.
     {"apf.html", "index.html"}),
    ("mg", "usr/share/doc/maint-guide-zh-cn/html/*.zh-cn.html", {"index.zh-cn.html"}),
]

BLOCK_TAGS = {"p", "div", "li", "dt", "dd", "tr", "pre", "table", "ul", "ol", "dl", "blockquote",
              "br", "h1", "h2", "h3", "h4", "h5", "h6", "hr"}
SKIPPED_DIV_CLASSES = {"navheader", "navfooter", "toc", "list-of-tables", "list-of-examples",
                       "list-of-figures", "index", "footnotes"}
ADMONITIONS = {"note", "tip", "warning", "caution", "important"}
VOID_TAGS = {"br", "hr", "img", "meta", "link", "input", "col", "area", "base"}

HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
LATIN = re.compile(r"[A-Za-z]")
TITLE_NUMBER = re.compile(
    r"^\s*(?:第\s*\S+\s*[章节部分]\s*|附录\s*[A-Z]\.?\s*|[A-Z0-9]+(?:\.[0-9]+)*\.\s+)")


class Section:
    def __init__(self, anchor, level, title):
        self.anchor = anchor
        self.level = level
        self.title = title
        self.blocks = []  # (text, preformatted)


class DocBookHtml(html.parser.HTMLParser):
    """Cuts one DocBook XSL HTML page into its sections."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.sections = []
        self.stack = []          # open elements: (tag, skip, is_pre)
        self.skip_depth = 0      # > 0 inside something left out
        self.pre_depth = 0
        self.in_titlepage = 0    # depth of titlepage divs
        self.heading = None      # [level, anchor, text] while inside a section heading
        self.buffer = []
        self.in_admonition_header = 0
        self.in_title_para = 0

    # -- text collection
    def flush(self):
        text = "".join(self.buffer)
        self.buffer = []
        if not self.sections:
            return
        preformatted = self.pre_depth > 0
        if preformatted:
            text = text.strip("\n")
            if text.strip():
                self.sections[-1].blocks.append((text.rstrip(), True))
        else:
            text = collapse(text)
            if text:
                self.sections[-1].blocks.append((text, False))

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = set((attrs.get("class") or "").split())
        skip = False
        if tag == "div" and classes & SKIPPED_DIV_CLASSES:
            skip = True
        if tag in ("script", "style", "head", "title"):
            skip = True
        # The label of an admonition ("警告", "注意") is a <th> or an <h3 class="title"> in it.
        if tag == "th" and self.admonition_open():
            skip = True
        if tag == "div" and "titlepage" in classes:
            self.in_titlepage += 1
        if tag in ("h1", "h2", "h3", "h4", "h5") and self.in_titlepage and self.skip_depth == 0 \
                and "title" in classes and not self.admonition_open():
            self.flush()
            self.heading = [int(tag[1]), None, []]
        elif tag in ("h1", "h2", "h3", "h4", "h5", "h6") and self.admonition_open():
            skip = True
        if tag == "a" and (attrs.get("name") or attrs.get("id")):
            anchor = attrs.get("name") or attrs.get("id")
            if self.heading is not None and self.heading[1] is None:
                self.heading[1] = anchor
        if tag in BLOCK_TAGS and self.heading is None and self.skip_depth == 0:
            self.flush()
        if tag == "pre":
            self.pre_depth += 1
        if tag not in VOID_TAGS:
            self.stack.append((tag, skip, classes))
            if skip:
                self.skip_depth += 1

    def handle_startendtag(self, tag, attrs):
        if tag == "a":
            attrs_d = dict(attrs)
            anchor = attrs_d.get("name") or attrs_d.get("id")
            if anchor:
                if self.heading is not None and self.heading[1] is None:
                    self.heading[1] = anchor
            return
        if tag in BLOCK_TAGS and self.heading is None and self.skip_depth == 0:
            self.flush()

    def handle_endtag(self, tag):
        # Close up to the matching open element (DocBook's HTML is well nested; be lenient).
        index = len(self.stack) - 1
        while index >= 0 and self.stack[index][0] != tag:
            index -= 1
        if index < 0:
            return
        while len(self.stack) > index:
            open_tag, skip, classes = self.stack.pop()
            self.close(open_tag, skip, classes)

    def close(self, tag, skip, classes):
        if tag in ("h1", "h2", "h3", "h4", "h5") and self.heading is not None:
            level, anchor, parts = self.heading
            self.heading = None
            title = collapse("".join(parts))
            title = TITLE_NUMBER.sub("", title).strip()
            self.sections.append(Section(anchor, level, title))
        elif tag in BLOCK_TAGS and self.skip_depth == 0:
            self.flush()
        if tag == "pre":
            self.pre_depth -= 1
        if tag == "div" and "titlepage" in classes:
            self.in_titlepage -= 1
        if skip:
            self.skip_depth -= 1

    def admonition_open(self):
        return any(t == "div" and c & ADMONITIONS for t, _, c in self.stack)

    def handle_data(self, data):
        if self.skip_depth:
            return
        if self.heading is not None:
            self.heading[2].append(data)
        else:
            self.buffer.append(data)

    def close_all(self):
        self.flush()


def collapse(text):
    # A line break between two Han characters is the source's wrapping, not a space.
    text = re.sub(r"(?<=[\u3000-\u9fff\uff00-\uffef])[ \t\r]*\n\s*(?=[\u3000-\u9fff\uff00-\uffef])",
                  "", text)
    text = re.sub(r"\s+", " ", text)
    return text.strip()


def han_share(blocks):
    prose = " ".join(text for text, pre in blocks if not pre)
    han = len(HAN.findall(prose))
    latin = len(LATIN.findall(prose))
    return han / (han + latin) if han + latin else 0.0


def content_of(blocks):
    paragraphs = [text for text, _ in blocks]
    content = "\n\n".join(paragraphs)
    if len(content) <= MAX_CHARS:
        return content
    kept = []
    length = 0
    for paragraph in paragraphs:
        extra = len(paragraph) + (2 if kept else 0)
        if length + extra > MAX_CHARS:
            break
        kept.append(paragraph)
        length += extra
    if not kept:  # one paragraph longer than the limit: cut it at a sentence end
        cut = paragraphs[0][:MAX_CHARS]
        end = max(cut.rfind("。"), cut.rfind(". "), cut.rfind("\n"))
        kept = [cut[: end + 1] if end > 0 else cut]
    return "\n\n".join(kept)


def page_order(path):
    """The reading order of DocBook's file names: pr01, ch01, ch01s01, ..., apa, apas01, ..."""
    name = os.path.basename(path)
    match = re.match(r"(pr|ch|ap)([0-9a-z]+?)(?:s(\d+))?\.html$", name)
    if match:
        kind = {"pr": 0, "ch": 1, "ap": 2}[match.group(1)]
        return (kind, match.group(2).rjust(3, "0"), int(match.group(3) or 0), name)
    return (3, name, 0, name)


def extract(roots):
    documents = []
    stats = {"sections": 0, "short": 0, "english": 0, "cut": 0, "no_anchor": 0}
    seen = set()
    for prefix, pattern, left_out in SOURCES:
        files = []
        for root in roots:
            files += glob.glob(os.path.join(root, pattern))
        if prefix == "mg":
            order = ["start", "first", "modify", "dreq", "dother", "build", "checkit", "upload",
                     "update", "advanced"]
            files.sort(key=lambda p: (order.index(os.path.basename(p).split(".")[0])
                                      if os.path.basename(p).split(".")[0] in order else 99, p))
        else:
            files.sort(key=page_order)
        for path in files:
            if os.path.basename(path) in left_out:
                continue
            parser = DocBookHtml()
            with open(path, encoding="utf-8") as f:
                parser.feed(f.read())
            parser.close_all()
            for section in parser.sections:
                stats["sections"] += 1
                if not section.anchor:
                    stats["no_anchor"] += 1
                    continue
                content = "\n\n".join(text for text, _ in section.blocks)
                if len(content) < MIN_CHARS:
                    stats["short"] += 1
                    continue
                if han_share(section.blocks) < MIN_HAN_SHARE:
                    stats["english"] += 1
                    continue
                doc_id = prefix + "-" + section.anchor
                if doc_id in seen:
                    continue
                seen.add(doc_id)
                cut = content_of(section.blocks)
                if len(cut) < len(content):
                    stats["cut"] += 1
                documents.append({"id": doc_id, "lang": "zh", "title": section.title,
                                  "content": cut})
    return documents, stats


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("roots", nargs="+", help="directories the .deb files were unpacked into")
    parser.add_argument("-o", "--output",
                        default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                             "documents.jsonl"))
    args = parser.parse_args()
    documents, stats = extract(args.roots)
    if not documents:
        sys.exit("extract.py: no sections found under " + " ".join(args.roots))
    with open(args.output, "w", encoding="utf-8") as out:
        for document in documents:
            out.write(json.dumps(document, ensure_ascii=False) + "\n")
    by_prefix = {}
    for document in documents:
        by_prefix[document["id"].split("-")[0]] = by_prefix.get(document["id"].split("-")[0], 0) + 1
    print(f"extract.py: {len(documents)} documents {by_prefix} from {stats['sections']} sections; "
          f"left out: {stats['short']} under {MIN_CHARS} characters, {stats['english']} mostly "
          f"English, {stats['no_anchor']} without an anchor; {stats['cut']} cut to {MAX_CHARS} "
          f"characters", file=sys.stderr)


if __name__ == "__main__":
    main()
