#!/usr/bin/env python3
"""Generates the bad-input corpus of the reliability review (issue 12) into a folder.

    make-corpus.py OUT_DIR [SOURCE_TREE]

reads the machine templates from SOURCE_TREE (default: this checkout) and writes OUT_DIR/<ID>/... (the case's files) and OUT_DIR/manifest.json, the list of cases run by
run-corpus.py. Each case is one ipisim command line (or a few, where the first ones prepare the
input) and what must happen:
  "error": exit 2 and a first stderr line matching `where` (FILE:LINE: key:, or the flag name);
  "ok":    exit 0 (a valid control input).
In `args` and `where`, {dir} is the case's folder and {src} the source tree (its machines/ and
experiments/), filled in by run-corpus.py. The classes of input follow the review: unknown keys,
wrong types and units, NaN/inf, overflow, impossible topologies and combinations, unknown names,
bad --set/--seed/--out, bad CLI flags, broken machine files, special files and symlink loops,
machine import.
"""
import json
import os
import re
import shutil
import sys

SRC = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else os.path.normpath(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

EXP = """[experiment]
name = "corpus_e"
description = "reliability corpus template"
workload = "ipi_latency"
machine = "toy4"
seed = 1

[kernel]
version = "6.13"

[params]
rounds = 2
sender = 0

[sweep]
sender = [0, 1]

[published]
source = "corpus template"

[[published.rows]]
params = { sender = 1 }
metrics = { total_ns = 100 }
note = "n"

[report]
kind = "pivot"
title = "t"
rows = "sender"
columns = "rounds"
value = "total_ns"
scale = 1
"""

TLB = """[experiment]
name = "corpus_tlb"
workload = "tlb_flush2"
machine = "toy4"

[kernel]
version = "6.13"
tlb_flush = "ipi"

[params]
threads = 2
mode = "threads"
warmup = "1 us"
measure = "5 us"
"""

CPUINFO = """[experiment]
name = "corpus_cpuinfo"
workload = "cpuinfo"
machine = "toy8"

[kernel]
version = "5.17"
hz = 1000

[params]
busy_fraction = 0.5
idle_state = "C1"
opens = 2
gap = "1 ms"
opener_cpu = 0
"""

FASTCAT = """[experiment]
name = "corpus_fastcat"
workload = "fastcat"
machine = "toy4"

[kernel]
version = "6.12"

[params]
groups = 1
iterations = 1
domain = "local"
sleep_ms = 1
"""

PING = """[experiment]
name = "corpus_ping"
workload = "ipi_ping"

[params]
cpus = 2
duration = "5 us"
delay_min = "10 ns"
delay_max = "1 us"
wake_latency = "500 ns"
"""


def read(path):
    with open(os.path.join(SRC, path), encoding="utf-8") as f:
        return f.read()


TOY4 = read("machines/toy4.toml")
TOY4_ARM = read("machines/toy4_arm.toml")

cases = []


def edit(text, old, new, count=1):
    """`text` with `old` replaced by `new`; `old` must occur exactly `count` times."""
    if text.count(old) != count:
        raise SystemExit(f"make-corpus: template edit {old!r} matches {text.count(old)} times")
    return text.replace(old, new)


def write(path, content, mode="w"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, mode, **({} if "b" in mode else {"encoding": "utf-8"})) as f:
        f.write(content)


def add(cid, category, what, expect, args, where=None, files=None, setup=None, steps=None):
    cases.append({"id": cid, "category": category, "input": what, "expect": expect, "args": args,
                  "where": where, "files": files or {}, "setup": setup or [], "steps": steps or []})


def run_args(exp="{dir}/e.toml", machines="{src}/machines", extra=()):
    return ["--machines", machines, "run", exp, "-q", "--out", "{dir}/out", *extra]


def located(file="{dir}/e.toml", key=None):
    """A first stderr line FILE:LINE: (key:)."""
    return "^" + file + r":\d+: " + (re.escape(key) + ":" if key else "")


def exp(cid, what, text, expect="error", key=None, extra=(), where=None):
    """An experiment file case, run against the shipped machines."""
    add(cid, "experiment", what, expect, run_args(extra=extra),
        where if where is not None else (located(key=key) if expect == "error" else None),
        files={"e.toml": text})


def workload(cid, what, text, expect="error", key=None, extra=()):
    add(cid, "workload", what, expect, run_args(extra=extra),
        located(key=key) if expect == "error" else None, files={"e.toml": text})


def machine(cid, what, text, expect="error", key=None, arm=False):
    """A machine file case: the file is machines/m.toml, run by a small experiment."""
    runner = edit(EXP, 'machine = "toy4"', 'machine = "m"') if arm else edit(TLB, 'machine = "toy4"', 'machine = "m"')
    add(cid, "machine", what, expect, run_args(machines="{dir}/machines"),
        located("{dir}/machines/m.toml", key) if expect == "error" else None,
        files={"e.toml": runner, "machines/m.toml": text})


def cli(cid, what, args, expect="error", where=None, files=None, setup=None, steps=None):
    add(cid, "cli", what, expect, args, where, files, setup, steps)


def set_case(cid, what, value, expect="error", key=None, base=EXP):
    """A --set override: errors are `--set: key: problem`."""
    where = "^--set: " + (re.escape(key) + ":" if key else "")
    add(cid, "cli-set", what, expect, run_args(extra=["--set", value]), where if expect == "error" else None,
        files={"e.toml": base})


def experiment_cases():
    exp("E01", "misspelled required key in [experiment]", edit(EXP, "workload =", "workloadd ="))
    exp("E02", "misspelled required key in [params]", edit(EXP, "rounds = 2", "roundz = 2"))
    exp("E03", "misspelled key in [sweep]", edit(EXP, "sender = [0, 1]", "sendr = [0, 1]"), key="sweep.sendr")
    exp("E04", "misspelled key in [published]", edit(EXP, "source =", "sorce ="), key="published.sorce")
    exp("E05", "misspelled required key in [[published.rows]]", edit(EXP, "metrics =", "metric ="))
    exp("E06", "misspelled key in a published row's params", edit(EXP, "params = { sender", "params = { sendr"),
        key="published.rows[0].params.sendr")
    exp("E07", "misspelled metric in a published row", edit(EXP, "{ total_ns", "{ total_nss"),
        key="published.rows[0].metrics.total_nss")
    exp("E08", "misspelled key in [report]", edit(EXP, 'title = "t"', 'titel = "t"'), key="report.titel")
    exp("E09", "misspelled required key in [kernel]", edit(EXP, 'version = "6.13"', 'verison = "6.13"'))
    exp("E10", "unknown top-level section", EXP + "\n[extra]\nx = 1\n", key="extra")
    exp("E11", "[experiment] missing", edit(EXP, "[experiment]\n", "[experimentx]\n"))
    exp("E12", "experiment.name missing", edit(EXP, 'name = "corpus_e"\n', ""))
    exp("E13", "experiment.workload missing", edit(EXP, 'workload = "ipi_latency"\n', ""))
    exp("E14", "unknown workload", edit(EXP, '"ipi_latency"', '"ipi_latencyy"'), key="experiment.workload")
    exp("E15", "unknown machine", edit(EXP, '"toy4"', '"toy44"'), key="experiment.machine")
    exp("E16", "machine name with a path", edit(EXP, '"toy4"', '"../machines/toy4"'), key="experiment.machine")
    exp("E17", "machine name empty", edit(EXP, '"toy4"', '""'), key="experiment.machine")
    exp("E18", "name with a slash", edit(EXP, '"corpus_e"', '"a/b"'), key="experiment.name")
    exp("E19", "name empty", edit(EXP, '"corpus_e"', '""'), key="experiment.name")
    add("E20", "experiment", "name of 300 characters, default --out", "error",
        ["--machines", "{src}/machines", "run", "{dir}/e.toml", "-q"], "^results/n{300}: --out: ",
        files={"e.toml": edit(EXP, '"corpus_e"', '"' + "n" * 300 + '"')})
    exp("E21", "name \"..\"", edit(EXP, '"corpus_e"', '".."'), key="experiment.name")
    exp("E22", "seed is a string", edit(EXP, "seed = 1", 'seed = "1"'), key="experiment.seed")
    exp("E23", "seed negative", edit(EXP, "seed = 1", "seed = -1"), key="experiment.seed")
    exp("E24", "seed is a float", edit(EXP, "seed = 1", "seed = 1.5"), key="experiment.seed")
    exp("E25", "seed beyond int64", edit(EXP, "seed = 1", "seed = 9223372036854775808"))
    exp("E26", "rounds is a string", edit(EXP, "rounds = 2", 'rounds = "2"'), key="params.rounds")
    exp("E27", "rounds is a float", edit(EXP, "rounds = 2", "rounds = 2.5"), key="params.rounds")
    exp("E28", "rounds is a bool", edit(EXP, "rounds = 2", "rounds = true"), key="params.rounds")
    exp("E29", "rounds is an array", edit(EXP, "rounds = 2", "rounds = [2]"), key="params.rounds")
    exp("E30", "rounds is a table", edit(EXP, "rounds = 2", "rounds = { a = 2 }"), key="params.rounds")
    exp("E31", "rounds = 0", edit(EXP, "rounds = 2", "rounds = 0"), key="params.rounds")
    exp("E32", "rounds negative", edit(EXP, "rounds = 2", "rounds = -5"), key="params.rounds")
    exp("E33", "rounds = 2^40 (huge count)", edit(EXP, "rounds = 2", "rounds = 1099511627776"), key="params.rounds")
    exp("E34", "rounds = int64 max", edit(EXP, "rounds = 2", "rounds = 9223372036854775807"), key="params.rounds")
    exp("E35", "rounds = int64 min", edit(EXP, "rounds = 2", "rounds = -9223372036854775808"), key="params.rounds")
    exp("E36", "rounds required but missing", edit(EXP, "rounds = 2\n", ""))
    exp("E37", "sender beyond the machine's CPUs", edit(EXP, "sender = 0", "sender = 4"), key="params.sender")
    exp("E38", "sweep is not an array", edit(EXP, "sender = [0, 1]", "sender = 1"), key="sweep.sender")
    exp("E39", "sweep empty", edit(EXP, "sender = [0, 1]", "sender = []"), key="sweep.sender")
    exp("E40", "sweep value of the wrong type", edit(EXP, "sender = [0, 1]", 'sender = [0, "1"]'))
    exp("E41", "sweep value beyond the machine (late in the sweep)", edit(EXP, "sender = [0, 1]", "sender = [0, 1, 2, 9]"),
        key="sweep.sender[3]")
    exp("E42", "sweep of a kernel key with an unknown choice",
        edit(EXP, "sender = [0, 1]", 'kernel.tlb_flush = ["ipi", "nope"]'))
    exp("E43", "sweep of an unknown dotted key", edit(EXP, "sender = [0, 1]", "kernel.nope = [1, 2]"))
    exp("E44", "sweep of 5 x 8192 values (2^65 points)",
        edit(EXP, "sender = [0, 1]", "\n".join(f"kernel.x{i} = [{', '.join(['0'] * 8192)}]" for i in range(5))))
    exp("E45", "sweep of 2 x 65536 values (2^32 points)",
        edit(EXP, "sender = [0, 1]", "sender = [" + ", ".join(str(i) for i in range(65536)) + "]\nrounds = [" +
             ", ".join(str(i) for i in range(1, 65537)) + "]"))
    exp("E46", "kernel.version missing", edit(EXP, 'version = "6.13"\n', ""))
    exp("E47", "kernel.version garbage", edit(EXP, '"6.13"', '"six"'), key="kernel.version")
    exp("E48", "kernel.version 99.0, newer than any kernel the model knows", edit(EXP, '"6.13"', '"99.0"'),
        key="kernel.version")
    exp("E48b", "kernel.version 4.19, older than any kernel the model knows", edit(EXP, '"6.13"', '"4.19"'),
        key="kernel.version")
    exp("E48c", "kernel.version 6.18-rc1 (control: the newest kernel the model knows)",
        edit(EXP, '"6.13"', '"6.18-rc1"'), expect="ok")
    exp("E49", "kernel.hz = 123", EXP.replace('version = "6.13"', 'version = "6.13"\nhz = 123'), key="kernel.hz")
    exp("E50", "kernel choice for another arch (gic_barrier on x86)",
        EXP.replace('version = "6.13"', 'version = "6.13"\ngic_barrier = "wmb"'), key="kernel.gic_barrier")
    exp("E51", "published row param of the wrong type", edit(EXP, "{ sender = 1 }", '{ sender = "1" }'))
    exp("E52", "published row that matches no point", edit(EXP, "{ sender = 1 }", "{ sender = 3 }"))
    exp("E53", "published metric is a string", edit(EXP, "total_ns = 100", 'total_ns = "100"'),
        key="published.rows[0].metrics.total_ns")
    exp("E54", "published metric nan", edit(EXP, "total_ns = 100", "total_ns = nan"),
        key="published.rows[0].metrics.total_ns")
    exp("E55", "published metric inf", edit(EXP, "total_ns = 100", "total_ns = inf"),
        key="published.rows[0].metrics.total_ns")
    exp("E56", "published rows params not a table", edit(EXP, "params = { sender = 1 }", "params = 1"))
    exp("E57", "report kind unknown", edit(EXP, '"pivot"', '"histogram"'), key="report.kind")
    exp("E58", "report rows not a parameter", edit(EXP, 'rows = "sender"', 'rows = "cpu"'), key="report.rows")
    exp("E59", "report value names no metric", edit(EXP, 'value = "total_ns"', 'value = "totl_ns"'),
        key="report.value")
    exp("E60", "report scale = 0", edit(EXP, "scale = 1", "scale = 0"), key="report.scale")
    exp("E61", "report scale = nan", edit(EXP, "scale = 1", "scale = nan"), key="report.scale")
    exp("E62", "report scale = -inf", edit(EXP, "scale = 1", "scale = -inf"), key="report.scale")
    exp("E63", "report scale = +inf", edit(EXP, "scale = 1", "scale = inf"), key="report.scale")
    lines = edit(EXP, 'kind = "pivot"\ntitle = "t"\nrows = "sender"\ncolumns = "rounds"\nvalue = "total_ns"\nscale = 1',
                 'kind = "lines"\nline = "{sender}: {total_ns} {nope}"')
    exp("E64", "report line with an unknown placeholder", lines, key="report.line")
    exp("E65", "report lines without line", edit(lines, 'line = "{sender}: {total_ns} {nope}"\n', ""))
    exp("E66", "report line valid (control)", edit(lines, " {nope}", ""), expect="ok")
    exp("E67", "TOML syntax error (unclosed string)", edit(EXP, '"corpus_e"', '"corpus_e'))
    exp("E68", "TOML duplicate key", edit(EXP, "rounds = 2", "rounds = 2\nrounds = 3"))
    exp("E69", "TOML duplicate table", EXP + "\n[params]\nx = 1\n")
    exp("E70", "100000 nested arrays", edit(EXP, "rounds = 2", "rounds = " + "[" * 100000 + "]" * 100000))
    exp("E71", "invalid UTF-8 in a string", edit(EXP, '"corpus_e"', '"corpus_\udcff"'))
    exp("E72", "NUL byte in the file", edit(EXP, "rounds = 2", "rounds = 2\0"))
    exp("E73", "the valid template (control)", EXP, expect="ok")
    exp("E74", "a key given twice through a dotted key and a table",
        EXP + "\n[kernel.tlb_flush]\nx = 1\n")
    exp("E75", "report rows on a parameter that is not swept (control)", edit(EXP, 'rows = "sender"', 'rows = "rounds"'),
        expect="ok")
    exp("E76", "sweep repeating a value (one point run twice)", edit(EXP, "sender = [0, 1]", "sender = [0, 1, 0]"),
        key="sweep.sender[2]")
    exp("E77", "seed at the top of its range with 2 runs (the second run's seed overflows)",
        edit(EXP, "seed = 1", "seed = 9223372036854775807\nruns = 2"), key="experiment.runs")


def workload_cases():
    workload("W01", "cpuinfo busy_fraction = nan", edit(CPUINFO, "0.5", "nan"), key="params.busy_fraction")
    workload("W02", "cpuinfo busy_fraction = -nan", edit(CPUINFO, "0.5", "-nan"), key="params.busy_fraction")
    workload("W03", "cpuinfo busy_fraction = inf", edit(CPUINFO, "0.5", "inf"), key="params.busy_fraction")
    workload("W04", "cpuinfo busy_fraction = 1.5", edit(CPUINFO, "0.5", "1.5"), key="params.busy_fraction")
    workload("W05", "cpuinfo busy_fraction = -0.1", edit(CPUINFO, "0.5", "-0.1"), key="params.busy_fraction")
    workload("W06", "cpuinfo unknown idle state", edit(CPUINFO, '"C1"', '"C9"'), key="params.idle_state")
    workload("W07", "cpuinfo opener_cpu beyond the machine", edit(CPUINFO, "opener_cpu = 0", "opener_cpu = 8"),
             key="params.opener_cpu")
    workload("W08", "cpuinfo gap = 1e7 s (1e19 ps)", edit(CPUINFO, '"1 ms"', '"1e7 s"'), key="params.gap")
    workload("W09", "cpuinfo gap below 1 ms", edit(CPUINFO, '"1 ms"', '"1 us"'), key="params.gap")
    workload("W10", "cpuinfo opens = 2^40", edit(CPUINFO, "opens = 2", "opens = 1099511627776"), key="params.opens")
    workload("W11", "cpuinfo on an arm64 machine", edit(CPUINFO, '"toy8"', '"toy4_arm"'))
    workload("W12", "cpuinfo valid (control)", CPUINFO, expect="ok")
    workload("W13", "fastcat sleep_ms = 2^62", edit(FASTCAT, "sleep_ms = 1", "sleep_ms = 4611686018427387904"),
             key="params.sleep_ms")
    workload("W14", "fastcat sleep_ms = -1", edit(FASTCAT, "sleep_ms = 1", "sleep_ms = -1"), key="params.sleep_ms")
    workload("W15", "fastcat groups = 2^40", edit(FASTCAT, "groups = 1", "groups = 1099511627776"),
             key="params.groups")
    workload("W16", "fastcat iterations = 2^63-1", edit(FASTCAT, "iterations = 1", "iterations = 9223372036854775807"),
             key="params.iterations")
    workload("W17", "fastcat remote domain on a one-L3 machine", edit(FASTCAT, '"local"', '"remote"'),
             key="params.domain")
    workload("W18", "fastcat unknown domain", edit(FASTCAT, '"local"', '"far"'), key="params.domain")
    workload("W19", "fastcat on an arm64 machine", edit(FASTCAT, '"toy4"', '"toy4_arm"'))
    workload("W20", "fastcat sleep_ms = 0 (control)", edit(FASTCAT, "sleep_ms = 1", "sleep_ms = 0"), expect="ok")
    workload("W21", "ipi_ping duration = 0 ns", edit(PING, '"5 us"', '"0 ns"'), key="params.duration")
    workload("W22", "ipi_ping duration = -0 us", edit(PING, '"5 us"', '"-0 us"'), key="params.duration")
    workload("W23", "ipi_ping cpus = 1", edit(PING, "cpus = 2", "cpus = 1"), key="params.cpus")
    workload("W24", "ipi_ping cpus = 100000", edit(PING, "cpus = 2", "cpus = 100000"), key="params.cpus")
    workload("W25", "ipi_ping delay_max below delay_min", edit(PING, '"1 us"', '"1 ps"'), key="params.delay_max")
    workload("W26", "ipi_ping with a machine it cannot use", edit(PING, "[experiment]\n", '[experiment]\nmachine = "toy4"\n'))
    workload("W27", "ipi_ping valid (control)", PING, expect="ok")
    workload("W28", "tlb_flush2 threads = 0", edit(TLB, "threads = 2", "threads = 0"), key="params.threads")
    workload("W29", "tlb_flush2 threads beyond the machine", edit(TLB, "threads = 2", "threads = 5"),
             key="params.threads")
    workload("W30", "tlb_flush2 unknown flush protocol", edit(TLB, 'tlb_flush = "ipi"', 'tlb_flush = "rar"'),
             key="kernel.tlb_flush")
    workload("W31", "tlb_flush2 measure = 0 ns", edit(TLB, '"5 us"', '"0 ns"'), key="params.measure")
    workload("W32", "tlb_flush2 measure negative", edit(TLB, '"5 us"', '"-1 us"'), key="params.measure")
    workload("W33", "tlb_flush2 measure without a unit", edit(TLB, '"5 us"', '"50"'), key="params.measure")
    workload("W34", "tlb_flush2 measure as a number", edit(TLB, '"5 us"', "50"), key="params.measure")
    workload("W35", "tlb_flush2 measure in parsecs", edit(TLB, '"5 us"', '"50 pc"'), key="params.measure")
    workload("W36", "tlb_flush2 measure = 1e400 us", edit(TLB, '"5 us"', '"1e400 us"'), key="params.measure")
    workload("W37", "tlb_flush2 measure = nan us", edit(TLB, '"5 us"', '"nan us"'), key="params.measure")
    workload("W38", "tlb_flush2 measure = inf s", edit(TLB, '"5 us"', '"inf s"'), key="params.measure")
    workload("W39", "tlb_flush2 warmup = 2^63 ps", edit(TLB, '"1 us"', '"9223372036854775808 ps"'),
             key="params.warmup")
    workload("W40", "tlb_flush2 warmup = 1.7e19 ps", edit(TLB, '"1 us"', '"1.7e19 ps"'), key="params.warmup")
    workload("W41", "tlb_flush2 warmup + measure beyond 2^63 ps",
             edit(edit(TLB, '"1 us"', '"4611686018427387904 ps"'), '"5 us"', '"4611686018427387904 ps"'))
    workload("W42", "tlb_flush2 warmup = 1e6 s (huge simulated time)", edit(TLB, '"1 us"', '"1e6 s"'),
             key="params.warmup")
    workload("W43", "tlb_flush2 measure 50us, no space (control)", edit(TLB, '"5 us"', '"5us"'), expect="ok")
    workload("W44", "tlb_flush2 processes (control)", edit(TLB, '"threads"', '"processes"'), expect="ok")
    workload("W45", "tlb_flush2 unknown mode", edit(TLB, '"threads"', '"fibers"'), key="params.mode")
    workload("W46", "tlb_flush2 rar-naive on a machine without RAR",
             edit(edit(TLB, '"toy4"', '"milan_36c"'), '"ipi"', '"rar-naive"'), key="kernel.tlb_flush")
    workload("W47", "tlb_flush2 invlpgb on arm64", edit(edit(TLB, '"toy4"', '"toy4_arm"'), 'tlb_flush = "ipi"\n', ""))
    workload("W48", "tlb_flush2 invlpgb on 6.1 (control: flush protocols are not version-gated)",
             edit(edit(edit(TLB, '"ipi"', '"invlpgb"'), '"6.13"', '"6.1"'), '"toy4"', '"milan_36c"'), expect="ok")
    workload("W49", "tlb_flush2 valid (control)", TLB, expect="ok")
    workload("W50", "tlb_flush2 measure = 0.5e-3 ps (rounds to 0)", edit(TLB, '"5 us"', '"0.0005 ps"'),
             key="params.measure")


def machine_cases():
    m = TOY4
    machine("M01", "misspelled top-level key", edit(m, 'vendor = "generic"', 'vendorr = "generic"'))
    machine("M02", "misspelled key in [topology]", edit(m, "packages = 1", "packagez = 1"))
    machine("M03", "misspelled key in [coherence]", edit(m, 'same_l3 = "50 ns"', 'same_l33 = "50 ns"'))
    machine("M04", "misspelled key in [cpu]", edit(m, "irq_entry =", "irq_entryy ="))
    machine("M05", "misspelled key in the second [[idle]]", edit(m, 'exit_latency = "1 us"', 'exit_latencyy = "1 us"'))
    machine("M06", "misspelled key in [intc]", edit(m, 'kind = "xapic_mmio"', 'kindd = "xapic_mmio"'))
    machine("M07", "misspelled key in [intc.params]", edit(m, "icr_write =", "icr_writ ="))
    machine("M08", "misspelled key in [intc.fabric]", edit(m, "accept =", "acept ="))
    machine("M09", "misspelled key in [tlb]", edit(m, "entries = 64", "entriez = 64"))
    machine("M10", "misspelled section [topolgy]", edit(m, "[topology]", "[topolgy]"))
    machine("M11", "cores_per_l3 = 0", edit(m, "cores_per_l3 = 2", "cores_per_l3 = 0"), key="topology.cores_per_l3")
    machine("M12", "2^21 CPUs", edit(edit(edit(m, "packages = 1", "packages = 64"), "cores_per_l3 = 2",
                                             "cores_per_l3 = 256"), "l3_per_die = 1", "l3_per_die = 128"))
    machine("M13", "negative latency", edit(m, 'same_l3 = "50 ns"', 'same_l3 = "-50 ns"'), key="coherence.same_l3")
    machine("M14", "latency 2^63 ps", edit(m, 'same_l3 = "50 ns"', 'same_l3 = "9223372036854775808 ps"'),
            key="coherence.same_l3")
    machine("M15", "latency 1e7 s (1e19 ps)", edit(m, 'same_l3 = "50 ns"', 'same_l3 = "1e7 s"'),
            key="coherence.same_l3")
    machine("M16", "latency 2e19 ps", edit(m, 'same_l3 = "50 ns"', 'same_l3 = "2e19 ps"'), key="coherence.same_l3")
    machine("M17", "latency without a unit", edit(m, 'same_l3 = "50 ns"', 'same_l3 = "50"'), key="coherence.same_l3")
    machine("M18", "latency as a number", edit(m, 'same_l3 = "50 ns"', "same_l3 = 50"), key="coherence.same_l3")
    machine("M19", "latency nan ns", edit(m, 'same_l3 = "50 ns"', 'same_l3 = "nan ns"'), key="coherence.same_l3")
    machine("M20", "latency inf ns", edit(m, 'same_l3 = "50 ns"', 'same_l3 = "inf ns"'), key="coherence.same_l3")
    machine("M21", "clock = 0 GHz", edit(m, 'clock = "1 GHz"', 'clock = "0 GHz"'), key="clock")
    machine("M22", "clock = 1e30 GHz", edit(m, 'clock = "1 GHz"', 'clock = "1e30 GHz"'), key="clock")
    machine("M23", "clock = 1e13 GHz", edit(m, 'clock = "1 GHz"', 'clock = "1e13 GHz"'), key="clock")
    machine("M24", "clock as a number", edit(m, 'clock = "1 GHz"', "clock = 1e9"), key="clock")
    machine("M25", "clock nan GHz", edit(m, 'clock = "1 GHz"', 'clock = "nan GHz"'), key="clock")
    machine("M26", "clock negative", edit(m, 'clock = "1 GHz"', 'clock = "-1 GHz"'), key="clock")
    machine("M27", "clock in an unknown unit", edit(m, 'clock = "1 GHz"', 'clock = "1 GW"'), key="clock")
    machine("M28", "unknown intc kind", edit(m, '"xapic_mmio"', '"apic9000"'), key="intc.kind")
    machine("M29", "gicv3 on x86", edit(m, '"xapic_mmio"', '"gicv3"'), key="intc.kind")
    machine("M30", "unknown arch", edit(m, 'arch = "x86"', 'arch = "riscv"'), key="arch")
    machine("M31", "vendor intel on arm64", edit(TOY4_ARM, 'vendor = "generic"', 'vendor = "intel"'), key="vendor",
            arm=True)
    machine("M32", "threads_per_core = 3 on x86", edit(m, "threads_per_core = 2", "threads_per_core = 3"),
            key="topology.threads_per_core")
    machine("M33", "numa_nodes that do not divide", edit(m, "numa_nodes = 1", "numa_nodes = 3"),
            key="topology.numa_nodes")
    machine("M34", "numa_nodes = 0", edit(m, "numa_nodes = 1", "numa_nodes = 0"), key="topology.numa_nodes")
    machine("M35", "no [[idle]] states", re.sub(r"\[\[idle\]\]\n(.*\n){5}", "", m))
    machine("M36", "duplicate idle state names", edit(m, 'name = "C6"', 'name = "C1"'), key="idle[2].name")
    machine("M37", "a deeper idle state polls", edit(m, 'mechanism = "hlt"', 'mechanism = "poll"', count=2))
    machine("M38", "idle states not sorted",
            edit(edit(m, 'exit_latency = "100 us"', 'exit_latency = "0.5 us"'), 'wake_latency = "100 us"',
                 'wake_latency = "0.5 us"'),
            key="idle[2].exit_latency")
    machine("M38b", "an idle state's wake_latency above its exit_latency",
            edit(m, 'wake_latency = "1 us"', 'wake_latency = "1.5 us"'), key="idle[1].wake_latency")
    machine("M39", "fabric capacity = 0", edit(m, "capacity = 64", "capacity = 0"), key="intc.fabric.capacity")
    machine("M40", "fabric capacity = -1", edit(m, "capacity = 64", "capacity = -1"), key="intc.fabric.capacity")
    machine("M41", "fabric capacity = 2^32", edit(m, "capacity = 64", "capacity = 4294967296"),
            key="intc.fabric.capacity")
    machine("M42", "tlb entries = 0", edit(m, "entries = 64", "entries = 0"), key="tlb.entries")
    machine("M43", "tlb entries = 2^32", edit(m, "entries = 64", "entries = 4294967296"), key="tlb.entries")
    machine("M44", "nr_dyn_asids = 0", edit(m, "nr_dyn_asids = 6", "nr_dyn_asids = 0"), key="tlb.nr_dyn_asids")
    machine("M45", "smt_throughput_percent = 0", edit(m, "smt_throughput_percent = 50", "smt_throughput_percent = 0"),
            key="cpu.smt_throughput_percent")
    machine("M46", "rar_payloads = 257", edit(m, "rar_payloads = 64", "rar_payloads = 257"), key="tlb.rar_payloads")
    machine("M47", "duplicate key in [tlb]", edit(m, "entries = 64", "entries = 64\nentries = 65"))
    machine("M48", "binary garbage", "\udcfe\udcff\x00\x01 garbage =")
    machine("M49", "empty machine file", "")
    machine("M50", "arm64 with apic ids", edit(TOY4_ARM, 'hw_id = "mpidr_flat"', 'hw_id = "apic"'),
            key="topology.hw_id", arm=True)
    machine("M51", "l3_per_die = 0", edit(m, "l3_per_die = 1", "l3_per_die = 0"), key="topology.l3_per_die")
    machine("M52", "xapic with 512 CPUs", edit(edit(m, "cores_per_l3 = 2", "cores_per_l3 = 256"), "same_l3 = \"500 ns\"",
                                                 "same_l3 = \"500 ns\""), key="intc.kind")
    machine("M53", "unknown cpu_numbering", edit(m, '"smt_last"', '"random"'), key="topology.cpu_numbering")
    machine("M54", "missing [tlb]", m[: m.index("[tlb]")])
    machine("M55", "missing [intc.params]", re.sub(r"\[intc\.params\]\n(.*\n)*?\n", "", m, count=1))
    machine("M56", "extra unknown section", m + "\n[foo]\nx = 1\n", key="foo")
    machine("M57", "every latency 0 ns (control)", re.sub(r'"[0-9.]+ (ns|us)"', '"0 ns"', m), expect="ok")
    machine("M58", "ICR write 1e7 s", edit(m, 'icr_write = "50 ns"', 'icr_write = "1e7 s"'),
            key="intc.params.icr_write")
    machine("M59", "description missing", edit(m, m.splitlines()[1] + "\n", ""))
    machine("M60", "unclosed table header", edit(m, "[cpu]", "[cpu"))
    machine("M61", "packages is a string", edit(m, "packages = 1", 'packages = "1"'), key="topology.packages")
    machine("M62", "threads_per_core = 0", edit(m, "threads_per_core = 2", "threads_per_core = 0"),
            key="topology.threads_per_core")
    machine("M63", "packages = 65", edit(m, "packages = 1", "packages = 65"), key="topology.packages")
    machine("M64", "invlpgb_count_max = 2^32", edit(m, "invlpgb_count_max = 8", "invlpgb_count_max = 4294967296"),
            key="tlb.invlpgb_count_max")
    machine("M65", "the toy4 copy unchanged (control)", m, expect="ok")
    machine("M66", "the toy4_arm copy unchanged (control)", TOY4_ARM, expect="ok", arm=True)
    machine("M67", "idle exit_latency 1e6 s (huge but legal; control)", edit(m, 'exit_latency = "100 us"', 'exit_latency = "1e6 s"'), expect="ok")
    machine("M68", "smt_throughput_percent = 101", edit(m, "smt_throughput_percent = 50", "smt_throughput_percent = 101"),
            key="cpu.smt_throughput_percent")
    machine("M69", "line_occupancy negative", edit(m, 'line_occupancy = "0 ns"', 'line_occupancy = "-1 ns"'),
            key="coherence.line_occupancy")
    machine("M70", "a cost with an unknown mark", edit(m, 'l1_hit = "1 ns"', 'l1_hit = { value = "1 ns", mark = "Z" }'))


def file_cases():
    cli("F01", "experiment file does not exist", run_args(exp="{dir}/nope.toml"), where="^{dir}/nope\\.toml: ")
    cli("F02", "experiment file is a directory", run_args(exp="{dir}/d.toml"), where="^{dir}/d\\.toml: ",
        setup=[["mkdir", "d.toml"]])
    cli("F03", "experiment file is a FIFO", run_args(exp="{dir}/fifo.toml"), where="^{dir}/fifo\\.toml: ",
        setup=[["mkfifo", "fifo.toml"]])
    cli("F04", "experiment file is /dev/zero", run_args(exp="/dev/zero"), where="^/dev/zero: ")
    cli("F05", "experiment file is /dev/null (empty)", run_args(exp="/dev/null"), where="^/dev/null:")
    cli("F06", "experiment file is a symlink loop", run_args(exp="{dir}/loop.toml"), where="^{dir}/loop\\.toml: ",
        setup=[["symlink", "loop.toml", "loop.toml"]])
    cli("F07", "experiment file is a dangling symlink", run_args(exp="{dir}/dangling.toml"),
        where="^{dir}/dangling\\.toml: ", setup=[["symlink", "missing.toml", "dangling.toml"]])
    cli("F08", "empty experiment file", run_args(), where="^{dir}/e\\.toml:", files={"e.toml": ""})
    cli("F09", "experiment name that is no file nor shipped experiment",
        ["--experiments", "{src}/experiments", "run", "seed00x_nope", "-q", "--out", "{dir}/out"],
        where="^seed00x_nope: ")
    cli("F10", "machines folder does not exist", run_args(machines="{dir}/nomachines"), where="^{dir}/e\\.toml:\\d+: ",
        files={"e.toml": TLB})
    cli("F11", "machines folder holds a symlink loop next to a good machine", run_args(machines="{dir}/machines"),
        expect="ok", files={"e.toml": TLB, "machines/toy4.toml": TOY4},
        setup=[["symlink", "b.toml", "machines/a.toml"], ["symlink", "a.toml", "machines/b.toml"]])
    cli("F12", "machines folder holds a dangling symlink and a *.toml folder next to a good machine",
        run_args(machines="{dir}/machines"), expect="ok", files={"e.toml": TLB, "machines/toy4.toml": TOY4},
        setup=[["symlink", "gone.toml", "machines/x.toml"], ["mkdir", "machines/d.toml"]])
    cli("F13", "the machine file is a symlink loop", run_args(machines="{dir}/machines"),
        where="^{dir}/e\\.toml:\\d+: experiment\\.machine:",
        files={"e.toml": TLB}, setup=[["symlink", "toy4.toml", "machines/toy4.toml"]])
    cli("F14", "the machine file is a directory", run_args(machines="{dir}/machines"),
        where="^{dir}/e\\.toml:\\d+: experiment\\.machine:", files={"e.toml": TLB}, setup=[["mkdir", "machines/toy4.toml"]])
    cli("F15", "list with a machines folder holding a symlink loop", ["--machines", "{dir}/machines", "list"],
        expect="ok", files={"machines/toy4.toml": TOY4}, setup=[["symlink", "l.toml", "machines/l.toml"]])
    cli("F16", "machines folder is a file", run_args(machines="{dir}/e.toml"), where="^{dir}/e\\.toml:\\d+: ",
        files={"e.toml": TLB})


def cli_cases():
    good = run_args()
    files = {"e.toml": EXP}
    cli("C01", "no subcommand", [], where="subcommand")
    cli("C02", "unknown subcommand", ["runn"], where="runn")
    cli("C03", "unknown flag", [*good, "--bogus"], where="--bogus", files=files)
    cli("C04", "run without an experiment", ["run"], where="experiment")
    cli("C05", "--jobs 0", [*good, "--jobs", "0"], where="^--jobs: must be at least 1, got 0", files=files)
    cli("C06", "--jobs -1", [*good, "--jobs", "-1"], where="--jobs", files=files)
    cli("C07", "--jobs abc", [*good, "--jobs", "abc"], where="--jobs", files=files)
    cli("C08", "--shard 3/2", [*good, "--shard", "3/2"], where="--shard", files=files)
    cli("C09", "--shard x", [*good, "--shard", "x"], where="--shard", files=files)
    cli("C10", "--shard 0/0", [*good, "--shard", "0/0"], where="--shard", files=files)
    cli("C11", "--format xml", [*good, "--format", "xml"], where="--format", files=files)
    cli("C12", "--metrics naming no metric", [*good, "--metrics", "nope"], where="--metrics", files=files)
    cli("C13", "--trace-point beyond the sweep", [*good, "--trace", "{dir}/t.json", "--trace-point", "99"],
        where="--trace-point", files=files)
    cli("C14", "--trace-window garbage", [*good, "--trace", "{dir}/t.json", "--trace-window", "x..y"],
        where="--trace-window", files=files)
    cli("C15", "--trace-window without --trace", [*good, "--trace-window", "1us..2us"], where="--trace",
        files=files)
    cli("C16", "reproduce --only a name that is no experiment",
        ["--experiments", "{src}/experiments", "reproduce", "--only", "nonexistent", "-q", "--out", "{dir}/out"],
        where="--only")
    cli("C17", "list --machines a folder that does not exist", ["--machines", "/nonexistent", "list"],
        where="^/nonexistent: --machines:")
    cli("C18", "list --experiments a folder that does not exist", ["--experiments", "/nonexistent", "list"],
        where="^/nonexistent: --experiments:")
    cli("C19", "list --machines a file", ["--machines", "{dir}/e.toml", "list"], where="^{dir}/e\\.toml: --machines:",
        files=files)
    cli("C20", "list --params of an unknown name", ["list", "--params", "nope"], where="nope")
    cli("C21", "machine show an unknown machine", ["--machines", "{src}/machines", "machine", "show", "nope"],
        where="nope")
    cli("C22", "machine import of a missing file", ["machine", "import", "{dir}/nope.xml"], where="^{dir}/nope\\.xml")
    cli("C23", "machine import of a file that is not XML", ["machine", "import", "{dir}/e.toml"],
        where="^{dir}/e\\.toml", files=files)
    cli("C24", "plot a folder without results", ["plot", "{dir}"], where="^{dir}")
    cli("C25", "compare folders that do not exist", ["compare", "{dir}/a", "{dir}/b"], where="^{dir}/a")
    cli("C26", "merge of folders that do not exist", ["merge", "{dir}/a", "--out", "{dir}/m"], where="^{dir}/a")
    cli("C27", "--out is empty", [*good[:-1], ""], where="--out", files=files)
    cli("C28", "--out is an existing regular file", [*good[:-1], "{dir}/e.toml"], where="^{dir}/e\\.toml: --out:",
        files=files)
    cli("C29", "--out under an existing file", [*good[:-1], "{dir}/e.toml/sub"], where="^{dir}/e\\.toml/sub: --out:",
        files=files)
    cli("C30", "--out in /proc", [*good[:-1], "/proc/ipisim_corpus"], where="^/proc/ipisim_corpus: --out:", files=files)
    cli("C31", "--out is /dev/null", [*good[:-1], "/dev/null"], where="^/dev/null: --out:", files=files)
    cli("C32", "--out holds another experiment's results",
        [*good, ], where="^{dir}/out: --out:", files=files,
        steps=[["--machines", "{src}/machines", "run", "{dir}/p.toml", "-q", "--out", "{dir}/out"]])
    cases[-1]["files"]["p.toml"] = PING
    cli("C33", "--resume without results (control)", [*good, "--resume"], expect="ok", files=files)
    cli("C34", "reproduce --out empty", ["reproduce", "--out", "", "--only", "seed002_gic_barrier"], where="--out")
    cli("C35", "merge --out empty", ["merge", "{dir}", "--out", ""], where="--out")
    cli("C36", "--machines empty", ["--machines", "", "run", "{dir}/e.toml", "-q", "--out", "{dir}/out"],
        where="--machines", files=files)
    cli("C37", "machine import -o empty", ["machine", "import", "{src}/tests/data/hwloc/two_packages.xml", "-o", ""],
        where="--output")
    cli("C38", "check with an unknown protocol", ["check", "--protocol", "nope", "--seeds", "1", "--out", "{dir}/c"],
        where="nope")
    cli("C39", "run --help (control)", ["run", "--help"], expect="ok")
    cli("C40", "--version (control)", ["--version"], expect="ok")
    cli("C41", "check --jobs 0 (was the default, silently)",
        ["check", "--protocol", "ipi", "--seeds", "1", "--jobs", "0", "--out", "{dir}/c"], where="^--jobs: must be at least 1")
    cli("C42", "sensitivity --top 0", ["--experiments", "{src}/experiments", "sensitivity", "seed002_gic_barrier",
                                        "--top", "0"], where="^--top: must be at least 1")
    cli("C43", "check --first-seed whose seeds would wrap past 2^64 - 1",
        ["check", "--protocol", "ipi", "--seeds", "3", "--first-seed", "18446744073709551615", "--out", "{dir}/c"],
        where="^ipisim check: --first-seed:")
    cli("C44", "--seed at the top of its range with the file's runs", [*good, "--seed", "9223372036854775807",
                                                                       "--set", "experiment.runs=2"],
        where="experiment.runs", files=files)
    calibrate_cases()


# `ipisim calibrate` on the ranged toy of tests/data/calibrate: targets-file and flag mistakes.
CAL_HEAD = 'params = ["cpu.irq_entry"]\n'
CAL_TARGET = ('[[target]]\nexperiment = "micro_cacheline"\nat = { distance = "same_l3" }\nmetric = "one_way_ns"\n'
              'measured = 50.0\nsigma = 1.0\n')


def calibrate_cases():
    def cal(cid, what, targets, key=None, extra=(), expect="error", where=None):
        args = ["--experiments", "{src}/experiments", "calibrate", "{src}/tests/data/calibrate/toy4_ranged.toml",
                "--targets", "{dir}/t.toml", "--out", "{dir}/fitted.toml", "-q", "--max-evaluations", "3", *extra]
        if where is None and expect == "error":
            where = located("{dir}/t.toml", key)
        add(cid, "calibrate", what, expect, args, where, files={"t.toml": targets})

    cal("K01", "a good targets file (control)", CAL_HEAD + CAL_TARGET, expect="ok")
    cal("K02", "a parameter the machine lacks", 'params = ["cpu.irq_entyr"]\n' + CAL_TARGET, "params[0]")
    cal("K03", "a published parameter", 'params = ["cpu.syscall"]\n' + CAL_TARGET, "params[0]")
    cal("K04", "an unmarked parameter", 'params = ["cpu.eoi"]\n' + CAL_TARGET, "params[0]")
    cal("K05", "a parameter named twice", 'params = ["cpu.irq_entry", "cpu.irq_entry"]\n' + CAL_TARGET, "params[1]")
    cal("K06", "no params", CAL_TARGET, "params")
    cal("K07", "no target", CAL_HEAD, "target")
    cal("K08", "a NaN measured value", CAL_HEAD + edit(CAL_TARGET, "50.0", "nan"), "target[0].measured")
    cal("K09", "an infinite sigma", CAL_HEAD + edit(CAL_TARGET, "sigma = 1.0", "sigma = inf"), "target[0].sigma")
    cal("K10", "a negative sigma", CAL_HEAD + edit(CAL_TARGET, "sigma = 1.0", "sigma = -1.0"), "target[0].sigma")
    cal("K11", "an unknown metric", CAL_HEAD + edit(CAL_TARGET, "one_way_ns", "rtt_ns"), "target[0].metric")
    cal("K12", "an experiment that does not exist", CAL_HEAD + edit(CAL_TARGET, "micro_cacheline", "nope"),
        "target[0].experiment")
    cal("K13", "a point beyond the sweep", CAL_HEAD + edit(CAL_TARGET, 'at = { distance = "same_l3" }', "point = 9"),
        "target[0].point")
    cal("K14", "swept values no point has", CAL_HEAD + edit(CAL_TARGET, '"same_l3"', '"cross_package"'),
        "target[0].at")
    cal("K15", "an unknown key in a target", CAL_HEAD + CAL_TARGET + "colour = 1\n", "target[0].colour")
    cal("K16", "an interval without the measured value",
        CAL_HEAD + edit(CAL_TARGET, "sigma = 1.0", "interval = [60.0, 70.0]"), "target[0].interval")
    cal("K17", "--params naming no cost", CAL_HEAD + CAL_TARGET, extra=["--params", "cpu.nope"],
        where="^--params: cpu\\.nope:")
    cal("K18", "--params with an empty name", CAL_HEAD + CAL_TARGET, extra=["--params", "cpu.irq_entry,"],
        where="^--params:")


def set_cases():
    set_case("S01", "empty key component", "params..rounds=1", key="params..rounds")
    set_case("S02", "no '='", "params.rounds", key="params.rounds")
    set_case("S03", "empty key", "=5")
    set_case("S04", "string for an integer", "params.rounds=abc", key="params.rounds")
    set_case("S05", "unknown key", "params.nonexistent=1", key="params.nonexistent")
    set_case("S06", "through a non-table", "experiment.name.x=1", key="experiment.name.x")
    set_case("S07", "broken array", "params.rounds=[1,2", key="params.rounds")
    set_case("S08", "empty sweep", "sweep.sender=[]", key="sweep.sender")
    set_case("S09", "negative count", "params.rounds=-1", key="params.rounds")
    set_case("S10", "new top-level table", "foo.bar=1", key="foo")
    set_case("S11", "extra TOML after a newline", "params.rounds=1\n[experiment]\nx=1", key="params.rounds")
    set_case("S12", "integer beyond int64", "params.rounds=99999999999999999999", key="params.rounds")
    set_case("S13", "unbalanced quote", 'experiment.name="abc', key="experiment.name")
    set_case("S14", "trailing dot", "params.rounds.=1", key="params.rounds.")
    set_case("S15", "'.=1'", ".=1", key=".")
    set_case("S16", "a swept key", "params.sender=1", key="params.sender")
    set_case("S17", "a swept key with a bad value", "params.sender=99", key="params.sender")
    set_case("S18", "seed as a float", "experiment.seed=1.5", key="experiment.seed")
    set_case("S19", "scalar sweep", "sweep.sender=1", key="sweep.sender")
    set_case("S20", "nan scale", "report.scale=nan", key="report.scale")
    set_case("S21", "cpuinfo busy_fraction=nan", "params.busy_fraction=nan", key="params.busy_fraction",
             base=CPUINFO)
    set_case("S22", "duration without a unit", "params.measure=5", key="params.measure", base=TLB)
    set_case("S23", "100 kB description (control)", "experiment.description=" + "x" * 100000, expect="ok")
    set_case("S24", "a valid override (control)", "params.rounds=1", expect="ok")
    set_case("S25", "a valid sweep override (control)", "sweep.sender=[1]", expect="ok")
    for cid, what, seed in [("S26", "--seed -1", "-1"), ("S27", "--seed 2^64", "18446744073709551616"),
                            ("S28", "--seed 2^63", "9223372036854775808"), ("S29", "--seed abc", "abc"),
                            ("S30", "--seed 1e3", "1e3"), ("S31", "--seed empty", "")]:
        add(cid, "cli-set", what, "error", run_args(extra=["--seed", seed]), "--seed", files={"e.toml": EXP})
    add("S32", "cli-set", "--seed 0x10 (control: hex)", "ok", run_args(extra=["--seed", "0x10"]), None,
        files={"e.toml": EXP})


def import_cases():
    xml_src = os.path.join(SRC, "tests/data/hwloc")
    xmls = sorted(f for f in os.listdir(xml_src) if f.endswith(".xml")) if os.path.isdir(xml_src) else []
    if not xmls:
        return
    xml = read(os.path.join("tests/data/hwloc", xmls[0]))
    models = re.findall(r'name="CPUModel" value="([^"]*)"', xml)
    evil = 'Evil &quot;CPU&quot; \\ 9000 &#10;[tlb]&#10;x = 1'
    text = re.sub(r'(name="CPUModel" value=")[^"]*"', lambda mt: mt.group(1) + evil + '"', xml) if models else xml
    runner = edit(TLB, 'machine = "toy4"', 'machine = "imported"')
    cli("I01", "machine import of a CPU model with a quote, a backslash and a newline: the file loads",
        ["--machines", "{dir}/machines", "machine", "show", "imported"], expect="ok",
        files={"evil.xml": text, "e.toml": runner},
        steps=[["machine", "import", "{dir}/evil.xml", "-o", "{dir}/machines/imported.toml"]])
    cli("I02", "machine import of a truncated XML file", ["machine", "import", "{dir}/cut.xml"],
        where="^{dir}/cut\\.xml", files={"cut.xml": xml[: len(xml) // 2]})


def main():
    if len(sys.argv) not in (2, 3):
        raise SystemExit("usage: make-corpus.py OUT_DIR [SOURCE_TREE]")
    out = os.path.abspath(sys.argv[1])
    experiment_cases()
    workload_cases()
    machine_cases()
    file_cases()
    cli_cases()
    set_cases()
    import_cases()
    ids = [c["id"] for c in cases]
    if len(set(ids)) != len(ids):
        raise SystemExit("make-corpus: duplicate case ids")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    for c in cases:
        d = os.path.join(out, c["id"])
        os.makedirs(d)
        for name, content in c.pop("files").items():
            write(os.path.join(d, name), content.encode("utf-8", "surrogateescape"), "wb")
        for action, *paths in c.pop("setup"):
            target = os.path.join(d, paths[-1])
            os.makedirs(os.path.dirname(target), exist_ok=True)
            if action == "mkdir":
                os.makedirs(target)
            elif action == "mkfifo":
                os.mkfifo(target)
            else:  # symlink TARGET LINK
                os.symlink(paths[0], target)
    with open(os.path.join(out, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(cases, f, indent=1)
    print(f"make-corpus: {len(cases)} cases in {out}")


if __name__ == "__main__":
    main()
