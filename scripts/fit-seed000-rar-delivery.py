#!/usr/bin/env python3
"""Fits the two [F] xAPIC/RAR delivery parameters of machines/sapphire_rapids_30c.toml to
seed 000's naive-RAR column (5-60 threads), as docs/calibration.md allows, by a grid search.

  scripts/fit-seed000-rar-delivery.py [--build build] [--router 100:150:10] [--reply 200:1400:200] [--runs N]
                                      [--interval]

For every (intc.fabric.router_service, intc.params.rar_reply) pair it runs `ipisim run
seed000_rar` on the rar-naive column only with those two values (--set machine.KEY), and
computes the objective J = sum over the cells of ln(model / published)^2. Each cell is the mean
of the experiment's runs (seed000_rar.toml: 4, as the published rows), or of --runs N runs: more
runs estimate the model's mean more closely, which the noisy 60-thread cell needs (the shipped
values come from --runs 16). It prints every
point and, for the best one, the residual per cell. Nothing else is read or fitted: the
published values come from experiments/seed000_rar.toml.

--interval also says how well the column determines the two values (docs/uncertainty.md, "What
a fit leaves open"): a quadratic response surface J(router, reply) fitted by least squares to
every grid point (which averages the cells' run-to-run noise that makes neighbouring points'
J differ), its minimum J*, the cells' common relative spread s^2 = J* / (7 cells - 2
parameters), and the covariance 2 s^2 H^-1 of the two values from the surface's Hessian H (J
is a sum of squared log errors, so its Hessian is twice J^T J). It prints each value's 1-sigma
and 95% interval (+-1.96 sigma) and their correlation. The grid has to span the minimum by a
few sigma on each side for the surface to be a fair quadratic.
"""
import argparse
import json
import math
import os
import re
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
THREADS = [5, 10, 20, 30, 40, 50, 60]


def span(text):
    lo, hi, step = (float(x) for x in text.split(":"))
    out, v = [], lo
    while v <= hi + 1e-9:
        out.append(v)
        v += step
    return out


def published():
    text = open(os.path.join(ROOT, "experiments", "seed000_rar.toml")).read()
    rows = re.findall(r'params = \{ threads = (\d+), kernel\.tlb_flush = "rar-naive" \}\s*\n'
                      r'metrics = \{ loops_per_sec = (\d+) \}', text)
    return {int(t): float(v) for t, v in rows}


def run(build, router, reply, work, runs):
    """The naive column with the two values set (--set on a marked cost marks it "set")."""
    out = os.path.join(work, "out")
    subprocess.run([os.path.join(ROOT, build, "ipisim"), "run", "seed000_rar", "--quiet",
                    "--set", 'machine.intc.fabric.router_service="%g ns"' % router,
                    "--set", 'machine.intc.params.rar_reply="%g ns"' % reply,
                    "--set", 'sweep.kernel.tlb_flush=["rar-naive"]', "--set", "sweep.threads=%s" % json.dumps(THREADS),
                    "--out", out] + (["--set", "experiment.runs=%d" % runs] if runs else []),
                   check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
    rows = json.load(open(os.path.join(out, "results.json")))["rows"]
    return {r["params"]["threads"]: r["metrics"]["loops_per_sec"] for r in rows}


def solve(a, b):
    """Solves a x = b (a square, lists) by Gaussian elimination with partial pivoting."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        if abs(m[p][c]) < 1e-300:
            raise ZeroDivisionError("singular system")
        m[c], m[p] = m[p], m[c]
        for r in range(c + 1, n):
            f = m[r][c] / m[c][c]
            for k in range(c, n + 1):
                m[r][k] -= f * m[c][k]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (m[r][n] - sum(m[r][k] * x[k] for k in range(r + 1, n))) / m[r][r]
    return x


def surface_interval(points, cells=len(THREADS), params=2):
    """points: [(router, reply, J)]. The quadratic surface's minimum and the two values' spread."""
    rs = [p[0] for p in points]
    qs = [p[1] for p in points]
    r0, q0 = sum(rs) / len(rs), sum(qs) / len(qs)
    sr = (max(rs) - min(rs)) / 2 or 1.0
    sq = (max(qs) - min(qs)) / 2 or 1.0
    rows, js = [], []
    for r, q, j in points:
        x, y = (r - r0) / sr, (q - q0) / sq
        rows.append([1.0, x, y, x * x, y * y, x * y])
        js.append(j)
    xtx = [[sum(row[i] * row[k] for row in rows) for k in range(6)] for i in range(6)]
    xtj = [sum(row[i] * j for row, j in zip(rows, js)) for i in range(6)]
    a, b, c, d, e, f = solve(xtx, xtj)
    resid = [j - sum(ci * xi for ci, xi in zip((a, b, c, d, e, f), row)) for row, j in zip(rows, js)]
    h = [[2 * d, f], [f, 2 * e]]  # the Hessian, normalized coordinates
    det = h[0][0] * h[1][1] - h[0][1] * h[1][0]
    if not (h[0][0] > 0 and det > 0):
        print("\nthe surface has no minimum (Hessian not positive definite): the grid does not "
              "determine the two values; widen it or add runs")
        return
    x, y = solve(h, [-b, -c])
    jmin = a + b * x + c * y + d * x * x + e * y * y + f * x * y
    s2 = jmin / (cells - params)
    hinv = [[h[1][1] / det, -h[0][1] / det], [-h[1][0] / det, h[0][0] / det]]
    cov = [[2 * s2 * hinv[i][k] for k in range(2)] for i in range(2)]
    sig_r = math.sqrt(cov[0][0]) * sr
    sig_q = math.sqrt(cov[1][1]) * sq
    corr = cov[0][1] / math.sqrt(cov[0][0] * cov[1][1])
    rmin, qmin = r0 + x * sr, q0 + y * sq
    rms = math.sqrt(sum(v * v for v in resid) / max(1, len(resid) - 6))
    print("\nresponse surface over %d grid points (rms of J about it %.4f):" % (len(points), rms))
    print("  minimum: router_service=%.1f ns rar_reply=%.0f ns, J*=%.4f, cell spread s=%.1f%% "
          "(J* / %d degrees of freedom)" % (rmin, qmin, jmin, 100 * math.sqrt(s2), cells - params))
    print("  router_service: 1 sigma %.1f ns, 95%% interval [%.1f, %.1f] ns" %
          (sig_r, rmin - 1.96 * sig_r, rmin + 1.96 * sig_r))
    print("  rar_reply:      1 sigma %.0f ns, 95%% interval [%.0f, %.0f] ns" %
          (sig_q, qmin - 1.96 * sig_q, qmin + 1.96 * sig_q))
    print("  correlation %+.2f" % corr)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--router", default="100:150:10", help="router_service grid, ns: lo:hi:step")
    ap.add_argument("--reply", default="200:1400:200", help="rar_reply grid, ns: lo:hi:step")
    ap.add_argument("--runs", type=int, default=0, help="runs per cell (default: the experiment's)")
    ap.add_argument("--interval", action="store_true",
                    help="also the two values' spread from a quadratic surface over the grid")
    args = ap.parse_args()
    pub = published()
    best = None
    points = []
    with tempfile.TemporaryDirectory() as work:
        for router in span(args.router):
            for reply in span(args.reply):
                model = run(args.build, router, reply, work, args.runs)
                j = sum(math.log(model[t] / pub[t]) ** 2 for t in THREADS)
                print("router_service=%6.1f ns rar_reply=%7.1f ns  J=%.4f  %s" %
                      (router, reply, j, " ".join("%dk" % round(model[t] / 1000) for t in THREADS)), flush=True)
                points.append((router, reply, j))
                if best is None or j < best[0]:
                    best = (j, router, reply, model)
    j, router, reply, model = best
    print("\nbest: router_service=%g ns rar_reply=%g ns J=%.4f" % (router, reply, j))
    for t in THREADS:
        print("  %2d threads: model %7.0f  published %7.0f  error %+6.1f%%" %
              (t, model[t], pub[t], 100 * (model[t] / pub[t] - 1)))
    if args.interval:
        surface_interval(points)


if __name__ == "__main__":
    main()
