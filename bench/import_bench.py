#!/usr/bin/env python3
"""Imports of large files (issue 39): a Word file of about 5 MB and a PDF of 300 pages, each
POSTed to /api/v1/documents/import of a docgate serving a throwaway SQLite database, timed from
the request to the 201; and the converter alone, run as docgate runs it, for its peak RSS.

Usage: bench/import_bench.py BUILD_DIR [RUNS]   (docs/benchmarks.md, "Imports")
Needs pandoc, pdftotext and chromium (scripts/deps.sh). Fixtures are made here, from Debian tools.
"""
import json
import os
import random
import re
import resource
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request
import zlib

PARAGRAPH = ("审核通过的文档会被切分、向量化并建立全文索引，因此每一次批准都只能发生一次。"
             "The gate holds the review and the document rows while it decides. ")


def noise_png(path, width, height, seed):
    """A PNG of random pixels (incompressible, so it weighs what a photo does)."""
    rng = random.Random(seed)
    rows = b"".join(b"\x00" + rng.randbytes(width * 3) for _ in range(height))

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data +
                struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    with open(path, "wb") as out:
        out.write(b"\x89PNG\r\n\x1a\n")
        out.write(chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)))
        out.write(chunk(b"IDAT", zlib.compress(rows, 1)))
        out.write(chunk(b"IEND", b""))


def make_docx(work):
    """About 5 MB: 400 sections of text and four photos' worth of pixels."""
    lines = ["# 运维手册", ""]
    for section in range(400):
        lines += [f"## 第 {section + 1} 节", ""]
        lines += [PARAGRAPH * 4, ""]
        if section % 100 == 0:
            png = os.path.join(work, f"figure{section}.png")
            noise_png(png, 700, 560, section)
            lines += [f"![图 {section}]({png})", ""]
    source = os.path.join(work, "manual.md")
    with open(source, "w") as out:
        out.write("\n".join(lines))
    docx = os.path.join(work, "manual.docx")
    subprocess.run(["pandoc", source, "-o", docx], check=True)
    return docx


def make_pdf(work, pages=300):
    """A PDF of `pages` A4 pages of Chinese and English text, printed by Chromium."""
    body = "".join(f'<h2>第 {page + 1} 页</h2>' + f"<p>{PARAGRAPH * 9}</p>" * 3 +
                   '<div style="break-after: page"></div>' for page in range(pages))
    html = os.path.join(work, "pages.html")
    with open(html, "w") as out:
        out.write('<!DOCTYPE html><html lang="zh-CN"><head><meta charset="utf-8">'
                  "<style>body{font:14px 'Noto Sans CJK SC',sans-serif}</style></head>"
                  f"<body>{body}</body></html>")
    pdf = os.path.join(work, "pages.pdf")
    subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu",
                    "--no-pdf-header-footer", f"--user-data-dir={work}/chromium",
                    f"--print-to-pdf={pdf}", html], check=True, capture_output=True)
    info = subprocess.run(["pdfinfo", pdf], capture_output=True, text=True).stdout
    found = re.search(r"Pages:\s+(\d+)", info)
    return pdf, int(found.group(1)) if found else None


def peak_rss_mib(command):
    """The command's peak RSS, in MiB (measured in a fresh process, whose only child it is), and
    its wall time."""
    probe = ("import resource, subprocess, sys, time; t = time.monotonic(); "
             "subprocess.run(sys.argv[1:], check=True, capture_output=True); "
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, time.monotonic() - t)")
    kib, seconds = subprocess.run([sys.executable, "-c", probe, *command], check=True,
                                  capture_output=True, text=True).stdout.split()
    return int(kib) / 1024, float(seconds)


def start_docgate(binary, work):
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOCGATE_")}
    env.update(DOCGATE_DATABASE_URL=f"sqlite://{work}/docgate.db",
               DOCGATE_JWT_SECRET="import-bench-secret-0123456789abcdef012345",
               DOCGATE_LISTEN="127.0.0.1:0", DOCGATE_LOG_LEVEL="info", DOCGATE_LOG_FORMAT="text")
    process = subprocess.Popen([binary, "serve"], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    for line in process.stdout:
        found = re.search(r"serving (http://\S+)", line)
        if found:
            base = found.group(1).rstrip("/") + "/"
            token = subprocess.run([binary, "token", "--sub", "bench", "--roles", "author"],
                                   env=env, capture_output=True, text=True, check=True).stdout
            return process, base, token.strip()
    raise SystemExit("docgate did not start")


def post_import(base, token, path):
    boundary = "docgate-import-bench"
    with open(path, "rb") as f:
        data = f.read()
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; "
            f"filename=\"{os.path.basename(path)}\"\r\n\r\n").encode() + data + \
        f"\r\n--{boundary}--\r\n".encode()
    request = urllib.request.Request(
        base + "api/v1/documents/import", data=body, method="POST",
        headers={"Authorization": f"Bearer {token}",
                 "Content-Type": f"multipart/form-data; boundary={boundary}"})
    started = time.monotonic()
    with urllib.request.urlopen(request, timeout=120) as answer:
        doc = json.load(answer)
    return time.monotonic() - started, doc


def content_of(base, token, document_id):
    request = urllib.request.Request(base + f"api/v1/documents/{document_id}/content",
                                     headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=60) as answer:
        return json.load(answer)["content"]


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    binary = os.path.join(build, "docgate")
    work = tempfile.mkdtemp(prefix="docgate-import-bench-")
    try:
        docx = make_docx(work)
        pdf, pages = make_pdf(work)
        process, base, token = start_docgate(binary, work)
        try:
            for label, path, command in [
                ("Word", docx, ["pandoc", "--sandbox", "-f", "docx", "-t", "gfm-raw_html",
                                "--wrap=none", "-o", os.path.join(work, "out.md"), docx]),
                (f"PDF, {pages} pages", pdf, ["pdftotext", "-layout", "-enc", "UTF-8", "-nopgbrk",
                                              pdf, os.path.join(work, "out.txt")])]:
                # Alternated, so that a change in the machine's load shows in both.
                times, alone, rss, markdown = [], [], 0.0, 0
                for _ in range(runs):
                    seconds, doc = post_import(base, token, path)
                    times.append(seconds)
                    markdown = len(content_of(base, token, doc["id"]).encode())
                    peak, seconds = peak_rss_mib(command)
                    alone.append(seconds)
                    rss = max(rss, peak)
                print(f"{label}: {os.path.getsize(path) / 1e6:.1f} MB file, {markdown} bytes of "
                      f"Markdown: import median {statistics.median(times):.2f} s "
                      f"(min {min(times):.2f}, max {max(times):.2f}, {runs} runs); converter alone "
                      f"median {statistics.median(alone):.2f} s, peak RSS {rss:.0f} MiB")
        finally:
            process.terminate()
            process.wait()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
