#!/usr/bin/env bash
# Makes bench/relevance_qa/documents.jsonl from the two Debian packages its text comes from
# (README.md, "Source"). The text is the packages' (GPL-2 / GPL-2+), so it is not kept in the
# repository: this fetches the exact versions from Debian's archive and extracts them again,
# byte for byte the file the judgements were made on (its SHA-256 is checked).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/documents.jsonl"
expected=a427d102ab5e9e745f98942fd12b5afc1da24c9d926c0c849744fbed636cf5a9

if [[ -f "$out" ]] && [[ "$(sha256sum "$out" | cut -d' ' -f1)" == "$expected" ]]; then
  echo "fetch.sh: $out is there"
  exit 0
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"  # apt-get download writes as _apt
cd "$work"
apt-get download -qq installation-guide-amd64=20230508+deb12u1 maint-guide-zh-cn=1.2.53 \
  || { apt-get update -qq && apt-get download -qq installation-guide-amd64=20230508+deb12u1 \
       maint-guide-zh-cn=1.2.53; }
dpkg-deb -x installation-guide-amd64_20230508+deb12u1_all.deb ig
dpkg-deb -x maint-guide-zh-cn_1.2.53_all.deb mg
python3 "$here/extract.py" ig mg -o "$out"
actual="$(sha256sum "$out" | cut -d' ' -f1)"
if [[ "$actual" != "$expected" ]]; then
  echo "fetch.sh: $out has SHA-256 $actual, not $expected: the judgements do not fit it" >&2
  exit 1
fi
echo "fetch.sh: wrote $out"
