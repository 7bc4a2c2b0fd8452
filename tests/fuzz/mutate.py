#!/usr/bin/env python3
"""Writes mutants of ipisim's experiment and machine files, for the corpus replay test.

    mutate.py OUT_DIR [--seed N] [--count N] [--src TREE]

Each mutant is a folder OUT_DIR/<NNNN>/ holding e.toml (the experiment) and, when a machine file
was mutated, machines/<name>.toml (the test then uses that folder as --machines). The seeds are
the shipped experiments and machines, the good configs and the bad configs of tests/data. The
mutations are those of the reliability review's fuzzer: delete, duplicate or swap lines; a number
replaced by an edge value (0, -1, 2^31, 2^32, 2^63-1, -2^63, 2^64, 1e308, nan, inf, 1e19, ...);
a unit changed or dropped; a string replaced by a name from a dictionary; a character flipped;
a line from another file inserted; the file truncated; an array emptied, nested or mixed; a
table header inserted. The same seed gives the same mutants (Python's own Mersenne Twister).

tests/fuzz/corpus is `mutate.py tests/fuzz/corpus --seed 12 --count 300`; .ci/run adds fresh
mutants of another seed each commit.
"""
import argparse
import os
import random
import re
import shutil

NUMBERS = ["0", "-1", "1", "2147483648", "4294967296", "9223372036854775807", "-9223372036854775808",
           "18446744073709551616", "1e308", "-1e308", "nan", "-nan", "inf", "-inf", "1e19", "0.5", "-0.0",
           "65536", "8193", "1_000"]
UNITS = ["ps", "ns", "us", "ms", "s", "", "GHz", "kHz", "pc", "ns ns", "e9 ns"]
WORDS = ["", "ipi", "invlpgb", "rar-naive", "rar-optimized", "x2apic_phys", "gicv3", "xapic_mmio", "toy4",
         "toy4_arm", "kunpeng920", "milan_36c", "a/b", "..", "../machines/toy4", "x" * 300, "C1", "POLL", "wmb",
         "dsb_ishst", "threads", "processes", "6.13", "5.17", "99.99", "\\u0000", "é", "local", "remote"]
HEADERS = ["[params]", "[kernel]", "[sweep]", "[report]", "[published]", "[[published.rows]]", "[machine]",
           "[[idle]]", "[intc.params]", "[tlb]", "[experiment]", "[x]"]
FLIPS = ['"', "'", "[", "]", "{", "}", "=", "#", "\n", "\0", "\\", ".", ",", "\xff"]

# The small experiment that runs a mutated machine file (machines/m.toml).
MACHINE_RUNNER = """[experiment]
name = "fuzz_machine"
workload = "{workload}"
machine = "m"

[kernel]
version = "6.13"

[params]
{params}"""
RUNNER_PARAMS = {
    "tlb_flush2": 'threads = 2\nwarmup = "1 us"\nmeasure = "5 us"\n',
    "ipi_latency": "rounds = 2\nsender = 0\n",
}


def read(path):
    """The file without its comment lines (they only make the corpus larger)."""
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        return "".join(line for line in f if not line.lstrip().startswith("#"))


def seeds(src):
    """(experiment text, machine text or None, machine-runner workload) of every seed file."""
    out = []
    for folder in ["experiments", "tests/data/good_configs", "tests/data/bad_configs"]:
        d = os.path.join(src, folder)
        for name in sorted(os.listdir(d)):
            if name.endswith(".toml"):
                out.append((read(os.path.join(d, name)), None))
    for folder in ["machines", "tests/data/bad_machines"]:
        d = os.path.join(src, folder)
        for name in sorted(os.listdir(d)):
            if name.endswith(".toml"):
                text = read(os.path.join(d, name))
                out.append((None, text))
    return out


def mutate_numbers(text, rng):
    spots = list(re.finditer(r"(?<![\w.])-?\d[\d_.eE+-]*", text))
    if not spots:
        return text
    m = rng.choice(spots)
    return text[: m.start()] + rng.choice(NUMBERS) + text[m.end():]


def mutate_unit(text, rng):
    spots = list(re.finditer(r'"(-?[\d.eE+]+) ?([a-zA-Z]+)"', text))
    if not spots:
        return text
    m = rng.choice(spots)
    number = rng.choice([m.group(1), rng.choice(NUMBERS)])
    unit = rng.choice(UNITS)
    return text[: m.start()] + f'"{number} {unit}"'.replace(" \"", '"') + text[m.end():]


def mutate_string(text, rng):
    spots = list(re.finditer(r'"[^"\n]*"', text))
    if not spots:
        return text
    m = rng.choice(spots)
    return text[: m.start()] + '"' + rng.choice(WORDS) + '"' + text[m.end():]


def mutate_lines(text, rng, other):
    lines = text.split("\n")
    if not lines:
        return text
    i = rng.randrange(len(lines))
    op = rng.randrange(6)
    if op == 0:
        del lines[i]
    elif op == 1:
        lines.insert(i, lines[i])
    elif op == 2:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif op == 3:
        other_lines = other.split("\n")
        lines.insert(i, rng.choice(other_lines))
    elif op == 4:
        lines.insert(i, rng.choice(HEADERS))
    else:
        m = re.match(r"(\s*[\w.]+\s*=\s*)(.*)", lines[i])
        if m:
            value = m.group(2)
            lines[i] = m.group(1) + rng.choice([f"[{value}]", "[]", f"[{value}, \"x\"]", f"[[{value}]]",
                                                f"{{ value = {value} }}", "true", value + value])
    return "\n".join(lines)


def mutate_chars(text, rng):
    if not text:
        return text
    i = rng.randrange(len(text))
    op = rng.randrange(3)
    if op == 0:
        return text[:i] + rng.choice(FLIPS) + text[i + 1:]
    if op == 1:
        return text[:i]  # truncated
    return text[:i] + rng.choice(FLIPS) + text[i:]


def mutate(text, rng, other):
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(10)
        if op < 3:
            text = mutate_numbers(text, rng)
        elif op < 4:
            text = mutate_unit(text, rng)
        elif op < 6:
            text = mutate_string(text, rng)
        elif op < 9:
            text = mutate_lines(text, rng, other)
        else:
            text = mutate_chars(text, rng)
    return text


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(text.encode("utf-8", "surrogateescape"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--src", default=os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                                                   "..")))
    a = ap.parse_args()
    rng = random.Random(a.seed)
    pool = seeds(a.src)
    texts = [e if e is not None else m for e, m in pool]
    shutil.rmtree(a.out, ignore_errors=True)
    for n in range(a.count):
        experiment, machine = rng.choice(pool)
        other = rng.choice(texts)
        d = os.path.join(a.out, f"{n:04d}")
        if machine is None:
            write(os.path.join(d, "e.toml"), mutate(experiment, rng, other))
        else:
            workload = "tlb_flush2" if 'arch = "x86"' in machine else "ipi_latency"
            write(os.path.join(d, "e.toml"), MACHINE_RUNNER.format(workload=workload, params=RUNNER_PARAMS[workload]))
            write(os.path.join(d, "machines", "m.toml"), mutate(machine, rng, other))
    print(f"mutate: {a.count} mutants (seed {a.seed}) in {a.out}")


if __name__ == "__main__":
    main()
