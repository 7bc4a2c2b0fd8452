#!/usr/bin/env python3
"""Runs the corpus make-corpus.py wrote through ipisim and classifies every case.

    run-corpus.py IPISIM CORPUS_DIR [--src SRC] [--timeout S] [--report-only] [--verbose]

Classes: clear (exit 2, first stderr line matches the case's location: FILE:LINE: key: or the
flag), unlocated (exit 2, message elsewhere or not located), generic (another exit code with a
message), silent (exit 0 on a bad input), ok (a valid control exits 0), rejected (a valid control
fails), crash (a signal, a sanitizer report or an uncaught exception), hang (timeout). Prints the
counts and every case that is not clear/ok; exits 1 if there is one, unless --report-only.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

CRASH_MARKERS = ("runtime error:", "AddressSanitizer", "LeakSanitizer", "terminate called", "Segmentation fault",
                 "std::bad_alloc", "Assertion")


def fill(text, case_dir, src):
    return text.replace("{dir}", case_dir).replace("{src}", src)


def fill_where(where, case_dir, src):
    return where.replace("{dir}", re.escape(case_dir)).replace("{src}", re.escape(src))


def run(binary, args, timeout, cwd):
    try:
        p = subprocess.run([binary, *args], cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout)
        return p.returncode, p.stderr.decode("utf-8", "replace"), False
    except subprocess.TimeoutExpired as e:
        return None, (e.stderr or b"").decode("utf-8", "replace"), True


def classify(case, binary, corpus, src, timeout):
    case_dir = os.path.join(corpus, case["id"])
    for step in case["steps"]:
        rc, err, _ = run(binary, [fill(a, case_dir, src) for a in step], timeout, case_dir)
        if rc != 0:
            return "rejected", f"preparing step exited {rc}: {err.strip()[:200]}"
    rc, err, timed_out = run(binary, [fill(a, case_dir, src) for a in case["args"]], timeout, case_dir)
    first = next((line for line in err.splitlines() if line.strip()), "")
    if timed_out:
        return "hang", f"no exit within {timeout} s"
    if rc < 0 or rc >= 128 or any(m in err for m in CRASH_MARKERS):
        return "crash", f"exit {rc}: {first[:200]}"
    if case["expect"] == "ok":
        return ("ok", "") if rc == 0 else ("rejected", f"exit {rc}: {first[:200]}")
    if rc == 0:
        return "silent", "exit 0"
    if rc != 2:
        return "generic", f"exit {rc}: {first[:200]}"
    where = fill_where(case["where"] or "", case_dir, src)
    if re.search(where, first):
        return "clear", first[:200]
    return "unlocated", f"expected /{where}/, got: {first[:200]}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ipisim")
    ap.add_argument("corpus")
    ap.add_argument("--src", default=os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                                                   "..")))
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()
    binary = os.path.abspath(a.ipisim)
    corpus = os.path.abspath(a.corpus)
    with open(os.path.join(corpus, "manifest.json"), encoding="utf-8") as f:
        cases = json.load(f)
    counts = {}
    bad = []
    start = time.monotonic()
    for case in cases:
        cls, detail = classify(case, binary, corpus, os.path.abspath(a.src), a.timeout)
        counts[cls] = counts.get(cls, 0) + 1
        if cls not in ("clear", "ok"):
            bad.append((case, cls, detail))
        if a.verbose:
            print(f"{case['id']:5} {cls:9} {case['input']}: {detail}")
    elapsed = time.monotonic() - start
    for case, cls, detail in bad:
        print(f"{case['id']:5} {cls:9} {case['category']}: {case['input']}\n      {detail}")
    controls = sum(1 for c in cases if c["expect"] == "ok")
    print(f"corpus: {len(cases)} tried ({len(cases) - controls} bad inputs, {controls} valid controls) in "
          f"{elapsed:.1f} s: {counts.get('clear', 0)} clear errors, {counts.get('ok', 0)} valid runs, "
          f"{counts.get('unlocated', 0)} unlocated errors, {counts.get('generic', 0)} other exits, "
          f"{counts.get('crash', 0)} crashes, {counts.get('hang', 0)} hangs, {counts.get('silent', 0)} silent "
          f"accepts, {counts.get('rejected', 0)} valid inputs rejected")
    return 0 if a.report_only or not bad else 1


if __name__ == "__main__":
    sys.exit(main())
