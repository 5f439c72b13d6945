#!/usr/bin/env python3
"""make gpu-pack: the folder a GPU machine without LLVM needs to run fuser's
GPU check (check.sh) and GPU benchmark (harness.py), in one go (run-all.sh).

Built here, with the compiler and the CPU emulator:
  bundles/      the benchmark fusions of bench/gpu/fusions/ (dynamic row
                count: one bundle serves every size; the matmul table's
                have other dims known at launch too), compiled for sm_90
  cases/        small reference cases for the check: each example of
                examples/ (shrunk where its sizes are large) and each
                benchmark fusion at a few rows, with inputs drawn from a
                seed and the expected outputs computed by the CPU emulator
                (`fuserc run --device cpu`), all as .npy; cases/cases.txt
                lists them
  variants/     schedule variants of the pointwise fusions for variants.py:
                FUSION@VARIANT.bundle, each compiled with one entry of
                SCHEDULE_VARIANTS as `fuserc compile --schedule`
  variants-io/  the inner-outer (backward) fusions in each of INNER_OUTER_VARIANTS,
                a column sum in each of COLUMN_VARIANTS (sums reordered)
  variants-rt/  short-row reductions, a transpose and scans in each of
                REDUCTION_VARIANTS, TRANSPOSE_VARIANTS and SCAN_VARIANTS
  runtime/      the plain-C runtime's sources (built there with cc)
  npy/          the .npy reader (tools/fuserc/npy.c)
  check.sh, check_runner.c, harness.py, variants.py, run-all.sh, README.txt,
  MANIFEST.txt

Large benchmark inputs are not carried: harness.py draws them on the GPU from
a seed. The folder stays under 50 MB (checked).

usage: pack.py [--build DIR] [--out DIR]
Pure Python 3, no third-party modules.
"""
import argparse
import array
import os
import random
import re
import shutil
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "quality"))
import fuserbundle as fb  # noqa: E402

LIMIT_BYTES = 50 * 1000 * 1000

# Schedule variants timed against the default by variants.py on the GPU:
# the pointwise fusions whose arithmetic (a transcendental) competes with
# their memory traffic, and one without (add_mul_chain). name -> --schedule.
# The H200 runs (bench/results/variants.md) chose the defaults; "w1" is
# the one-wave cap before them.
SCHEDULE_VARIANTS = [
    ("base", ""),
    ("w1", "pointwise.waves=1"),
    ("w4", "pointwise.waves=4"),
    ("w16", "pointwise.waves=16"),
    ("w0", "pointwise.waves=0"),
    ("u2", "pointwise.units=2"),
    ("v8", "pointwise.vector_bytes=8"),
]
VARIANT_FUSIONS = [os.path.join(HERE, "fusions", n + ".mlir")
                   for n in ("bias_gelu", "silu", "add_mul_chain")]
# The inner-outer kernel's grid (layer_norm and rms_norm backward): "base"
# is the default (a block per 8 rows, at least one per SM as the rows
# allow, at most two per SM); "old" the rule before the H200 measured it.
# Runs 2-5 chose the grid (variants-io.md); run 6 asks whether more warps
# an SM help the row kernel (Nsight Compute: latency-bound at 24% occupancy,
# 123 registers, 256 threads a row): twice the threads a row (8 values a
# thread), a register cap for 3 or 4 blocks an SM, and both.
INNER_OUTER_VARIANTS = [
    ("base", ""),
    ("t512", "innerouter.min_threads=512"),
    ("t512r64", "innerouter.min_threads=512,innerouter.max_registers=64"),
    ("r80b3", "innerouter.max_registers=80,innerouter.max_blocks_per_sm=3"),
    ("r64b4", "innerouter.max_registers=64,innerouter.max_blocks_per_sm=4"),
    ("b4", "innerouter.max_blocks_per_sm=4"),
]
# An outer (column) sum's block (reduction.column_threads and column_rows)
# and split (reduction.splits): not timed on a GPU yet. They reorder the
# column sums, so they run with the inner-outer variants (sums reordered
# within 1e-3 pass).
COLUMN_VARIANTS = [
    ("base", ""),
    ("ct16", "reduction.column_threads=16"),
    ("cr32", "reduction.column_rows=32"),
    ("ct64cr16", "reduction.column_threads=64,reduction.column_rows=16"),
    ("sp1", "reduction.splits=1"),
]
INNER_OUTER_FUSIONS = [(os.path.join(HERE, d, n + ".mlir"), v)
                       for d, n, v in (("fusions", "layer_norm_backward", INNER_OUTER_VARIANTS),
                                       ("fusions", "rms_norm_backward", INNER_OUTER_VARIANTS),
                                       ("variants-rt", "column_sum_1024", COLUMN_VARIANTS))]
# Row reductions with short rows (several a block) and a transpose, under
# the reduction.* and transpose.* keys: not timed on a GPU yet; the first
# run says whether the defaults stand and how well fuserc tune's cost
# model ranks them (make model-check, docs/tuning.md).
REDUCTION_VARIANTS = [
    ("base", ""),
    ("rb128", "reduction.block=128"),
    ("rb512", "reduction.block=512"),
    ("rw2", "reduction.waves=2"),
    ("rw4", "reduction.waves=4"),
]
SCAN_VARIANTS = [
    ("base", ""),
    ("sb64", "scan.block=64"),
    ("sb1024", "scan.block=1024"),
    ("sw4", "scan.waves=4"),
]
TRANSPOSE_VARIANTS = [
    ("base", ""),
    ("t16", "transpose.tile=16"),
    ("t64r16", "transpose.tile=64,transpose.rows=16"),
    ("tr4", "transpose.rows=4"),
    ("tw4", "transpose.waves=4"),
]
RT_FUSIONS = [(os.path.join(HERE, "variants-rt", n + ".mlir"), v)
              for n, v in (("softmax_128", REDUCTION_VARIANTS),
                           ("layer_norm_256_bf16", REDUCTION_VARIANTS),
                           ("permute_add", TRANSPOSE_VARIANTS),
                           ("cumsum_rows", SCAN_VARIANTS),
                           ("cumsum_cols", SCAN_VARIANTS))]
SEED = 20261129

# Shrinking the examples whose inputs are too large to carry: the row
# counts (or batch) shrink, the inner sizes that pick the schedule stay.
SMALL = {
    "add_mul_chain": [("2048x", "24x")],
    "bf16_scale_tanh": [("8192x", "12x")],
    "bias_gelu": [("4096x1024", "40x1024")],
    "column_sum": [("65536x", "1000x")],
    "dropout_residual_layer_norm": [("8192x", "9x")],
    "dropout_residual_layer_norm_backward": [("8192x", "9x")],
    "fp8_layer_norm_quantize": [("8192x", "9x")],
    "gelu_backward": [("4096x4096", "12x4096")],
    "layer_norm": [("8192x", "9x")],
    "layer_norm_backward": [("2048x", "9x")],
    "layer_norm_manual": [("4096x", "10x")],
    "log_softmax_backward": [("2048x", "5x")],
    "permute_add": [("64x512x768", "3x64x96"), ("64x768x512", "3x96x64")],
    "rms_norm": [("8192x", "9x")],
    "rms_norm_backward": [("2048x", "9x")],
    "silu": [("8192x", "20x")],
    "softmax": [("4096x4096", "8x4096")],
    "softmax_backward_dim0": [("128x8192", "128x1000"), ("<8192xf32>", "<1000xf32>")],
    "swiglu_backward": [("4096x11008", "7x11008")],
    "two_kernels": [("256x", "8x")],
    "two_outputs": [("4096x4096", "12x4096")],
}
# Argument shapes for the cases with dynamic dims: {case: {arg: shape}}.
DYNAMIC = {
    "dynamic_dims": {"x": [37, 45], "y": [37, 45], "s": []},
    "dynamic_dims_aligned": {"x": [64, 256], "y": [64, 256], "s": []},
    "log_softmax": {"x": [5, 32000]},
    "var_mean": {"x": [9, 8192]},
}
# Tolerances (check_runner's `tol DTYPE REL ABS`) for cases whose GPU result
# may differ from the emulator's by more than the default: a matmul's
# products are added in cuBLASLt's order there and in order of k on the
# emulator (docs/matmul.md), so a bf16 result may round the other way, and
# the next op and the next matmul carry that on. With the pack's inputs
# (uniform in [-4, 4)) mlp_block's hidden values are about 50 and its
# results about 3000 (a bf16 ulp there is 16): four ulps, and 32 absolute
# for results that cancel.
# attention_block (f32): a GEMM's order moves a score by about 1e-6 of
# |q| |k|; the softmax, the two GEMMs after it and their cancellations carry
# that to about 1e-4 of the results (a few hundred): 0.4% and 1 absolute.
TOLERANCES = {
    "mlp_block": ["tol bf16 0.03125 32"],
    "attention_block": ["tol f32 0.004 1"],
}
# Benchmark fusions checked at these row counts (odd ones test the tails).
BENCH_ROWS = [1, 7, 64]
# The matmul table's fusions have dynamic dims besides the rows: their
# cases' argument shapes ("r": the case's rows), small, so that the pack
# carries little (the hidden 4096 of mlp_block and linear_backward_bf16 is
# static). Every other benchmark fusion gets the rows for its dynamic dims.
BENCH_SHAPES = {
    "linear_bf16": {"x": ["r", 72], "w": [40, 72], "b": [40]},
    "mlp_block": {"x": ["r", 4096], "ln_w": [4096], "ln_b": [4096], "w1": [24, 4096],
                  "b1": [24], "w2": [4096, 24], "b2": [4096]},
    "linear_backward_bf16": {"x": ["r", 4096], "w": [24, 4096], "dy": ["r", 24]},
}
# Their tolerances on the GPU (check_runner's `tol`), where cuBLASLt adds the
# products in another order than the emulator: each is within
# (k + 2) 2^-24 (|a| @ |b| + |bias|) of the exact sum (2^-23 allowed on
# the GPU for the tensor cores' accumulation), with the pack's inputs
# (|v| < 4) at most 3 (k + 2) 2^-24 16 k: 0.015 for linear_bf16 (k = 72),
# 0.012 for the backward's dW and db (k = 64 rows) and 0.005 for its dx
# (k = 24); then one bf16 ulp of rounding. mlp_block: as the example's
# (TOLERANCES below), four ulps and 32 absolute (with hidden 4096 its
# hidden values are a few hundred and its results a few thousand, where a
# bf16 ulp is 16 or 32).
BENCH_TOLERANCES = {
    "linear_bf16": ["tol bf16 0.0078125 0.02"],
    "linear_backward_bf16": ["tol bf16 0.0078125 0.02"],
    "mlp_block": ["tol bf16 0.03125 32"],
}

DESCR = {"i1": "|b1", "i8": "|i1", "i32": "<i4", "i64": "<i8", "f16": "<f2",
         "bf16": "<u2", "f32": "<f4", "f64": "<f8"}


def run(cmd, **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, **kw)
    if r.returncode:
        sys.stderr.write("pack.py: %s failed:\n%s%s" % (" ".join(cmd), r.stdout, r.stderr))
        sys.exit(1)
    return r


def save_npy(path, dtype, shape, payload):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %r, }" % (
        DESCR[dtype], tuple(shape))
    header += " " * ((-(10 + len(header) + 1)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(payload)


def bf16_bits(x):
    u = struct.unpack("<I", struct.pack("<f", x))[0]
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF


def random_payload(rng, dtype, n):
    """n values uniform in [-4, 4) (integers in [-100, 100), bools 0/1)."""
    vals = [rng.uniform(-4.0, 4.0) for _ in range(n)]
    if dtype == "f32":
        return array.array("f", vals).tobytes()
    if dtype == "f64":
        return array.array("d", vals).tobytes()
    if dtype == "bf16":
        return array.array("H", (bf16_bits(v) for v in vals)).tobytes()
    if dtype == "f16":
        return b"".join(struct.pack("<e", v) for v in vals)
    if dtype in ("i32", "i64", "i8"):
        code = {"i32": "i", "i64": "q", "i8": "b"}[dtype]
        return array.array(code, (rng.randrange(-100, 100) for _ in range(n))).tobytes()
    if dtype == "i1":
        return bytes(rng.randrange(2) for _ in range(n))
    raise ValueError(dtype)


def make_case(fuserc, out, cases, name, bundle_rel, fusion, arg_shapes, rng, tols=()):
    """Inputs from the seed, expected outputs from the CPU emulator."""
    bundle = os.path.join(out, bundle_rel)
    f = fb.load(bundle)[0] if not fusion else [x for x in fb.load(bundle) if x.name == fusion][0]
    d = os.path.join(out, "cases", name)
    os.makedirs(os.path.join(d, "expected"), exist_ok=True)
    inputs = []
    for t in f.args:
        shape = arg_shapes.get(t.name, t.dims) if arg_shapes else t.dims
        if any(s < 0 for s in shape):
            raise SystemExit("pack.py: case %s: no size for dynamic argument %s" % (name, t.name))
        n = 1
        for s in shape:
            n *= s
        path = os.path.join(d, t.name + ".npy")
        save_npy(path, t.dtype_name, shape, random_payload(rng, t.dtype_name, n))
        inputs.append((t.name, path))
    cmd = [fuserc, "run", bundle, "--device", "cpu", "--fusion", f.name, "--quiet",
           "--output-dir", os.path.join(d, "expected")]
    for (n, p) in inputs:
        cmd += ["--input", "%s=%s" % (n, p)]
    run(cmd)
    rel = lambda p: os.path.relpath(p, os.path.join(out, "cases"))
    lines = ["case %s %s %s" % (name, os.path.relpath(bundle, os.path.join(out, "cases")), f.name)]
    lines += ["in %s %s" % (n, rel(p)) for (n, p) in inputs]
    lines += ["out %s %s" % (t.name, rel(os.path.join(d, "expected", t.name + ".npy")))
              for t in f.results]
    lines += list(tols)
    lines.append("end")
    cases.append("\n".join(lines))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    out = os.path.abspath(a.out or os.path.join(a.build, "gpu-pack"))
    fuserc = os.path.join(os.path.abspath(a.build), "bin", "fuserc")
    if not os.access(fuserc, os.X_OK):
        raise SystemExit("pack.py: %s not found: build fuser first" % fuserc)
    if os.path.isdir(out):
        shutil.rmtree(out)
    for sub in ("bundles", "examples", "cases", "variants", "variants-io", "variants-rt", "runtime/src", "runtime/include",
                "npy"):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
    rng = random.Random(SEED)
    cases = []

    # The benchmark fusions (dynamic rows), and small cases of them.
    bench = sorted(f[:-5] for f in os.listdir(os.path.join(HERE, "fusions")) if f.endswith(".mlir"))
    for name in bench:
        rel = os.path.join("bundles", name + ".bundle")
        run([fuserc, "compile", os.path.join(HERE, "fusions", name + ".mlir"),
             "-o", os.path.join(out, rel)])
        f = fb.load(os.path.join(out, rel))[0]
        for rows in BENCH_ROWS:
            shapes = {t.name: [rows if s < 0 else s for s in t.dims] for t in f.args}
            for arg, shape in BENCH_SHAPES.get(name, {}).items():
                shapes[arg] = [rows if s == "r" else s for s in shape]
            make_case(fuserc, out, cases, "bench_%s_%drows" % (name, rows), rel, f.name,
                      shapes, rng, BENCH_TOLERANCES.get(name, ()))
        sys.stderr.write("pack.py: bundles/%s.bundle\n" % name)

    # Schedule variants (variants.py).
    extra = sorted(os.path.join(HERE, "variants", f)
                   for f in os.listdir(os.path.join(HERE, "variants")) if f.endswith(".mlir"))
    for src in VARIANT_FUSIONS + extra:
        name = os.path.basename(src)[:-5]
        for vname, schedule in SCHEDULE_VARIANTS:
            run([fuserc, "compile", src, "--schedule", schedule,
                 "-o", os.path.join(out, "variants", "%s@%s.bundle" % (name, vname))])
    sys.stderr.write("pack.py: variants/: %d fusions x %d schedules\n"
                     % (len(VARIANT_FUSIONS) + len(extra), len(SCHEDULE_VARIANTS)))
    for folder, fusions in (("variants-io", INNER_OUTER_FUSIONS), ("variants-rt", RT_FUSIONS)):
        for src, table in fusions:
            name = os.path.basename(src)[:-5]
            for vname, schedule in table:
                run([fuserc, "compile", src, "--schedule", schedule,
                     "-o", os.path.join(out, folder, "%s@%s.bundle" % (name, vname))])
        sys.stderr.write("pack.py: %s/: %d fusions, %d schedules\n"
                         % (folder, len(fusions), sum(len(t) for _, t in fusions)))

    # Every example, shrunk where needed.
    examples = sorted(f[:-5] for f in os.listdir(os.path.join(ROOT, "examples"))
                      if f.endswith(".mlir"))
    for name in examples:
        text = open(os.path.join(ROOT, "examples", name + ".mlir")).read()
        for old, new in SMALL.get(name, []):
            if old not in text:
                raise SystemExit("pack.py: %s: '%s' not found to shrink" % (name, old))
            text = text.replace(old, new)
        src = os.path.join(out, "examples", name + ".mlir")
        with open(src, "w") as f:
            f.write(text)
        rel = os.path.join("examples", name + ".bundle")
        run([fuserc, "compile", src, "-o", os.path.join(out, rel)])
        variants = [(name, DYNAMIC.get(name))]
        if name == "dynamic_dims":
            variants.append(("dynamic_dims_aligned", DYNAMIC["dynamic_dims_aligned"]))
        for case, shapes in variants:
            make_case(fuserc, out, cases, "example_" + case, rel, None, shapes, rng,
                      TOLERANCES.get(name, ()))
        sys.stderr.write("pack.py: examples/%s.bundle\n" % name)

    with open(os.path.join(out, "cases", "cases.txt"), "w") as f:
        f.write("# fuser GPU check cases: written by bench/gpu/pack.py (make gpu-pack).\n"
                "# Inputs drawn from seed %d; expected outputs from the CPU emulator.\n\n"
                % SEED)
        f.write("\n\n".join(cases) + "\n")

    # Sources and scripts.
    for src in os.listdir(os.path.join(ROOT, "runtime", "src")):
        shutil.copy(os.path.join(ROOT, "runtime", "src", src), os.path.join(out, "runtime", "src"))
    for h in ("fuser_runtime.h", "fuser_bundle_format.h"):
        shutil.copy(os.path.join(ROOT, "runtime", "include", h),
                    os.path.join(out, "runtime", "include"))
    for n in ("npy.c", "npy.h"):
        shutil.copy(os.path.join(ROOT, "tools", "fuserc", n), os.path.join(out, "npy"))
    for n in ("check.sh", "run-all.sh", "harness.py", "variants.py", "profile.sh", "check_runner.c"):
        shutil.copy(os.path.join(HERE, n), out)
    for n in ("check.sh", "run-all.sh", "harness.py", "variants.py", "profile.sh"):
        os.chmod(os.path.join(out, n), 0o755)
    rev = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                         stdout=subprocess.PIPE, universal_newlines=True).stdout.strip()
    # A pack built from a work tree with changes says so: its results are
    # not those of the commit alone.
    dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                           stdout=subprocess.PIPE, universal_newlines=True).stdout.strip()
    if rev and dirty:
        rev += " with uncommitted changes"
    with open(os.path.join(out, "VERSION"), "w") as f:
        import datetime
        f.write("fuser %s, packed %s\n" % (rev or "?", datetime.datetime.now(
            datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")))
    with open(os.path.join(out, "README.txt"), "w") as f:
        f.write("fuser GPU pack (make gpu-pack, fuser %s).\n\n"
                "On a machine with an NVIDIA GPU, its driver, a C compiler and (for the\n"
                "benchmark) PyTorch with CUDA; no LLVM, no CUDA toolkit needed:\n\n"
                "  sh run-all.sh          # check.sh, then harness.py; prints both tables\n"
                "  sh check.sh            # the check alone (pass/fail table with timings)\n"
                "  python3 harness.py --runtime build/libfuser_runtime.so   # the benchmark alone\n\n"
                "Results go to $OUT (when set) or ./results: gpu-check.md, gpu.md.\n"
                "See bench/README.md in the fuser repository for the method.\n" % rev)

    total, listing = 0, []
    for dp, _, files in os.walk(out):
        for n in sorted(files):
            p = os.path.join(dp, n)
            s = os.path.getsize(p)
            total += s
            listing.append("%10d  %s" % (s, os.path.relpath(p, out)))
    with open(os.path.join(out, "MANIFEST.txt"), "w") as f:
        f.write("\n".join(sorted(listing, key=lambda l: l[12:])) + "\n")
        f.write("%10d  total\n" % total)
    print("pack.py: %s: %d files, %.1f MB, %d check cases" % (
        out, len(listing), total / 1e6, len(cases)))
    if total > LIMIT_BYTES:
        raise SystemExit("pack.py: the pack is %.1f MB, over the 50 MB limit" % (total / 1e6))


if __name__ == "__main__":
    main()
