#!/usr/bin/env python3
"""Checks fuserc tune's cost model against schedule variants timed on a GPU.

bench/gpu/variants.py times each fusion of the GPU pack under several
schedules (bench/results/variants.md, variants-io.md: the newest "## Run N"
table of each). For every (fusion, size) of those tables this script asks
the cost model for the same schedules at the same sizes
(`fuserc tune FUSION --dims ... --model-only --try ...`, the part's
bandwidth given with --bandwidth) and compares:

- rank agreement: Spearman's rho between measured and modelled times over
  the variants of one (fusion, size);
- what tune would have done: the model's pick (its fastest, when 2% ahead
  of the heuristic's, else the heuristic's), and that pick's measured time
  over the heuristic's (above 1.000 the model would have made it slower);
- how far the model is from the measured times: modelled / measured us of
  the heuristic's schedule.

Writes a markdown report (bench/results/model-check.md). No GPU needed: it
reads timings a GPU run wrote.

usage: model_check.py --fuserc build/bin/fuserc [--bandwidth 4800]
                      [--results bench/results] [--out FILE.md]
"""
import argparse
import math
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# Variant names -> schedules: pack.py's tables now, and the names earlier
# runs used (bench/gpu/pack.py at 6e30c5f).
LEGACY = {
    "old": "innerouter.rows=32,innerouter.min_blocks_per_sm=0",
    "rows4": "innerouter.rows=4",
    "rows16": "innerouter.rows=16",
    "floor0": "innerouter.min_blocks_per_sm=0",
}


def schedules():
    text = open(os.path.join(HERE, "pack.py")).read()
    table = dict(LEGACY)
    for name, sched in re.findall(r'\("(\w+)", "([^"]*)"\)', text):
        table.setdefault(name, sched)
    return table


def newest_run(path):
    """The rows of the newest '## Run N' table: (fusion, variant, shape, us)."""
    if not os.path.exists(path):
        return None, []
    sections = re.split(r"^## ", open(path).read(), flags=re.M)
    runs = []
    for sec in sections:
        m = re.match(r"Run (\d+)", sec)
        if m:
            runs.append((int(m.group(1)), sec))
    if not runs:
        return None, []
    number, sec = max(runs)
    rows = []
    for line in sec.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 5 and re.match(r"^[\d.]+$", cells[4] or "x") and cells[0] != "fusion":
            rows.append((cells[0], cells[1], cells[2], float(cells[3]), float(cells[4])))
    return number, rows


def source_of(fusion):
    for d in ("fusions", "variants", "variants-rt"):
        p = os.path.join(HERE, d, fusion + ".mlir")
        if os.path.exists(p):
            return p
    return None


def dynamic_arg_dims(path):
    text = open(path).read()
    sig = text[text.index("func.func"):]
    sig = sig[:sig.index("->")]
    return sig.count("?")


def model(fuserc, src, rows, tries, bandwidth):
    cmd = [fuserc, "tune", src, "--dims", ",".join([str(rows)] * dynamic_arg_dims(src)),
           "--model-only", "--bandwidth", str(bandwidth)]
    for t in tries:
        cmd += ["--try", t]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError("%s failed:\n%s%s" % (" ".join(cmd), out.stdout, out.stderr))
    times = {}
    for line in out.stdout.splitlines():
        m = re.match(r"\s+\d+\s+([\d.]+) us\s.*?\s{2}(\S+)$", line)
        if m:
            times[m.group(2)] = float(m.group(1))
    return times


def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    r = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2.0
        i = j + 1
    return r


def spearman(a, b):
    ra, rb = ranks(a), ranks(b)
    n = len(a)
    ma, mb = sum(ra) / n, sum(rb) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = math.sqrt(sum((x - ma) ** 2 for x in ra))
    vb = math.sqrt(sum((y - mb) ** 2 for y in rb))
    return cov / (va * vb) if va and vb else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fuserc", required=True)
    ap.add_argument("--bandwidth", type=int, default=4800, help="the timed part's GB/s (H200: 4800)")
    ap.add_argument("--results", default=os.path.join(ROOT, "bench", "results"))
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    table = schedules()
    lines = []
    rhos, picks, bests, scale = [], [], [], []
    worse = 0
    for name in ("variants.md", "variants-io.md", "variants-rt.md"):
        number, rows = newest_run(os.path.join(a.results, name))
        if not rows:
            continue
        groups = {}
        for fusion, variant, shape, mb, us in rows:
            groups.setdefault((fusion, shape, mb), []).append((variant, us))
        lines.append("\n## %s, run %d\n" % (name, number))
        section_rhos = []
        summary_at = len(lines)
        lines.append("| fusion | shape | MB | measured / heuristic's | modelled / heuristic's "
                     "| rho | model's pick: measured | modelled / measured us |")
        lines.append("|---|---|---:|---|---|---:|---|---:|")
        for (fusion, shape, mb), vs in groups.items():
            src = source_of(fusion)
            known = [(v, us) for v, us in vs if v in table]
            if not src or "base" not in dict(known) or len(known) < 2:
                continue
            rows_n = int(shape.split("x")[0])
            tries = [table[v] for v, _ in known if v != "base"]
            predicted = model(a.fuserc, src, rows_n, tries, a.bandwidth)
            base_us = dict(known)["base"]
            base_pred = predicted["(heuristic's)"]
            names = [v for v, _ in known]
            meas = [us / base_us for _, us in known]
            pred = [predicted["(heuristic's)" if v == "base" else table[v]] / base_pred
                    for v in names]
            rho = spearman(meas, pred)
            best = min(range(len(pred)), key=lambda i: (pred[i], names[i] != "base"))
            pick = best if pred[best] < 0.98 else names.index("base")
            rhos.append(rho)
            if rho == rho:
                section_rhos.append(rho)
            picks.append(meas[pick])
            bests.append(min(meas))
            scale.append(base_pred / base_us)
            worse += meas[pick] > 1.02
            fmt = lambda xs: ", ".join("%s %.3f" % (n, x) for n, x in
                                       sorted(zip(names, xs), key=lambda p: p[1]))
            lines.append("| %s | %s | %.0f | %s | %s | %s | %s %.3f | %.2f |" % (
                fusion, shape, mb, fmt(meas), fmt(pred),
                "%.2f" % rho if rho == rho else "-", names[pick], meas[pick],
                base_pred / base_us))
        lines.insert(summary_at, "Mean rho over this table's %d groups where both vary: %s.\n" % (
            len(section_rhos),
            "%.2f" % (sum(section_rhos) / len(section_rhos)) if section_rhos else "-"))
    if not rhos:
        sys.stderr.write("model_check.py: no timed variants found in %s\n" % a.results)
        return 1
    geo = lambda xs: math.exp(sum(math.log(x) for x in xs) / len(xs))
    valid = [r for r in rhos if r == r]
    head = [
        "# fuserc tune's cost model against measured schedule variants",
        "",
        "Generated by `bench/gpu/model_check.py --bandwidth %d` (`make model-check`) from the "
        "newest run of bench/results/variants.md and variants-io.md (an NVIDIA H200): for each "
        "fusion and size, the model's time for the same schedules at the same sizes "
        "(`fuserc tune --model-only --try ...`, docs/tuning.md) beside the measured one, both "
        "over the heuristic's schedule." % a.bandwidth,
        "",
        "- %d (fusion, size) groups; Spearman's rho between measured and modelled times, mean "
        "over the %d groups where both vary: **%.2f**." % (len(rhos), len(valid),
                                                          sum(valid) / max(1, len(valid))),
        "- What tune would have picked (its fastest when 2%% ahead, else the heuristic's): "
        "geometric mean of its measured time over the heuristic's **%.3f**; the best variant "
        "measured: %.3f; %d of %d picks measured more than 2%% slower than the heuristic's."
        % (geo(picks), geo(bests), worse, len(picks)),
        "- Modelled over measured time of the heuristic's schedule: %.2f to %.2f (geometric "
        "mean %.2f): the model's absolute times are a bandwidth bound, not a prediction."
        % (min(scale), max(scale), geo(scale)),
    ]
    text = "\n".join(head + lines) + "\n"
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
