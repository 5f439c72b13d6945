#!/usr/bin/env python3
"""Kernel quality table: fuser's kernels against hand-written CUDA, and an
H200 roofline model of fuser's plan against eager PyTorch.

For each example fusion (examples/NAME.mlir):
  fuser   compiled by `fuserc compile` (sm_90); its bundle's launch plan run
          in Python (bench/quality/fuserbundle.py) for the example's sizes;
          its PTX through `ptxas -v` (registers, spills); the widths of its
          global loads and stores read from the PTX.
  CUDA    bench/cuda/NAME.cu through `nvcc -ptx -arch=sm_90` and `ptxas -v`;
          its launches and buffers from the file's @launch / @buffer lines.
  model   bytes moved over the minimum for both, and a roofline model for an
          H200 (4.3 TB/s copy bandwidth, 4 us per launch) of fuser's plan
          against eager PyTorch (one kernel per op, whole tensors).

Writes bench/results/kernels.md. Pure Python 3; the CUDA columns are skipped
with a note when the toolkit (nvcc, ptxas) is absent.

usage: kernels.py [--build DIR] [--cuda DIR] [--out FILE.md] [--only NAME]...
"""
import argparse
import datetime
import os
import platform
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuserbundle as fb  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

H200_BW = 4.3e12      # bytes/s: measured device-to-device copy bandwidth
LAUNCH_S = 4e-6       # seconds per kernel launch
# Thread instructions an H200 issues per second at most: 132 SMs x 4
# schedulers x one warp instruction (32 threads) per clock x 1.98 GHz.
H200_ISSUE = 132 * 4 * 32 * 1.98e9
ELEM = {"i1": 1, "i8": 1, "i32": 4, "i64": 8, "f16": 2, "bf16": 2, "f32": 4, "f64": 8,
        "f8E4M3FN": 1, "f8E5M2": 1, "f8E8M0FNU": 1}

# Sizes for the examples with dynamic dims (the model needs numbers): each
# pair replaces text in the example to make it static.
STATIC_SUBST = {
    "dynamic_dims": [("<?x?", "<4096x4096")],
    "log_softmax": [("<?x", "<4096x")],
    "var_mean": [("<?x", "<8192x"), ("<?xf32", "<8192xf32")],
}
# Eager PyTorch views: no kernel, reading them reads their source.
VIEW_OPS = {"fuser.broadcast", "fuser.permute", "fuser.reshape", "fuser.slice"}
FREE_OPS = {"fuser.constant", "func.return"}


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, **kw)


def parse_tensor(t):
    """'8192x4096xbf16' -> ([8192, 4096], 'bf16'); 'f32' -> ([], 'f32')."""
    parts = t.split("x")
    return [int(p) if p != "?" else -1 for p in parts[:-1]], parts[-1]


def nbytes(shape, dtype):
    n = ELEM[dtype]
    for s in shape:
        n *= s
    return n


# ---- PTX ------------------------------------------------------------------

MEM_RE = re.compile(r"\b(ld|st)\.global((?:\.[\w:]+)*)\s")


def widths(body):
    """Sorted distinct widths in bits of global loads and of global stores."""
    out = {"ld": set(), "st": set()}
    for m in MEM_RE.finditer(body):
        vec, bits = 1, None
        for tok in m.group(2).split(".")[1:]:
            if re.fullmatch(r"v\d+", tok):
                vec = int(tok[1:])
            elif re.fullmatch(r"[bfsu]\d+", tok):
                bits = int(tok[1:])
        if bits:
            out[m.group(1)].add(vec * bits)
    return {k: sorted(v, reverse=True) for k, v in out.items()}


def instructions_per_byte(body):
    """PTX instructions per byte of global memory the kernel moves,
    estimated from its text: instructions over the bytes of the
    ld.global/st.global among them, each counted once. Each path of a kernel
    (vector body, unaligned fallback, tail) moves its own elements once, so
    the ratio tracks the dynamic one. A kernel that loops (a backward branch
    around global accesses: a grid-stride loop, a loop over a long row) is
    measured over the loop that moves the most bytes, which runs many times
    for each time the code around it runs once."""
    instrs, labels = [], {}
    for line in body.splitlines():
        line = line.strip()
        if (not line or line[0] in "{}" or line.startswith("//")
                or line.startswith((".reg", ".shared", ".local", ".param", ".loc", ".pragma"))):
            continue
        if line.endswith(":"):
            labels[line[:-1]] = len(instrs)
            continue
        moved = 0
        m = MEM_RE.search(line)
        if m:
            vec, bits = 1, 0
            for tok in m.group(2).split(".")[1:]:
                if re.fullmatch(r"v\d+", tok):
                    vec = int(tok[1:])
                elif re.fullmatch(r"[bfsu]\d+", tok):
                    bits = int(tok[1:])
            moved = vec * bits // 8
        instrs.append((line, moved))
    ranges = [(0, len(instrs))]
    for j, (line, _) in enumerate(instrs):
        m = re.search(r"\bbra(?:\.uni)?\s+(\S+);", line)
        if m and labels.get(m.group(1), len(instrs)) <= j:
            ranges.append((labels[m.group(1)], j + 1))
    loops = [r for r in ranges[1:] if sum(b for _, b in instrs[r[0]:r[1]])]
    a, b = max(loops, key=lambda r: sum(x for _, x in instrs[r[0]:r[1]])) if loops else ranges[0]
    return (b - a) / max(sum(x for _, x in instrs[a:b]), 1)


def fmt_widths(ws):
    f = lambda v: "/".join(str(x) for x in v) if v else "-"
    return "ld %s, st %s" % (f(ws["ld"]), f(ws["st"]))


PTXAS_FN = re.compile(r"Compiling entry function '([^']+)'")
PTXAS_SPILL = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
PTXAS_REGS = re.compile(r"Used (\d+) registers")


def ptxas_info(ptxas, ptx_path):
    """{kernel: (registers, spill store bytes, spill load bytes)} or None."""
    if not ptxas:
        return None
    r = run([ptxas, "-v", "-arch=sm_90", ptx_path, "-o", os.devnull])
    if r.returncode:
        sys.stderr.write(r.stderr)
        return None
    info, cur, spill = {}, None, (0, 0)
    for line in r.stderr.splitlines():
        m = PTXAS_FN.search(line)
        if m:
            cur, spill = m.group(1), (0, 0)
            continue
        m = PTXAS_SPILL.search(line)
        if m and cur:
            spill = (int(m.group(2)), int(m.group(3)))
        m = PTXAS_REGS.search(line)
        if m and cur:
            info[cur] = (int(m.group(1)),) + spill
    return info


# ---- the example's graph (generic MLIR) -----------------------------------

OP_RE = re.compile(r'^\s*(?:(%[\w]+)(?::(\d+))? = )?"([\w.]+)"\((.*?)\)')


def graph(fuser_opt, text):
    """Arguments [(shape, dtype)], results, and ops [(name, operand refs,
    operand types, result refs, result types)] of the first function."""
    r = run([fuser_opt, "--mlir-print-op-generic", "-"], input=text)
    if r.returncode:
        raise RuntimeError("fuser-opt failed:\n" + r.stderr)
    args, results, ops = [], [], []
    for line in r.stdout.splitlines():
        if '"func.func"' in line:
            ft = re.search(r"function_type = \((.*?)\) -> (.*?), sym_name", line)
            args = [parse_tensor(t) for t in re.findall(r"tensor<([^>]*)>", ft.group(1))]
            results = [parse_tensor(t) for t in re.findall(r"tensor<([^>]*)>", ft.group(2))]
            continue
        m = OP_RE.match(line)
        if not m or m.group(3) in ("builtin.module", "func.func"):
            continue
        res, nres, name, operands = m.group(1), m.group(2), m.group(3), m.group(4)
        sig = line[line.rindex(" : (") + 4:]
        ins, outs = sig.split(") -> ", 1)
        in_types = [parse_tensor(t) for t in re.findall(r"tensor<([^>]*)>", ins)]
        out_types = [parse_tensor(t) for t in re.findall(r"tensor<([^>]*)>", outs)]
        refs = [o.strip() for o in operands.split(",") if o.strip()]
        n = int(nres) if nres else (1 if res else 0)
        rrefs = [res] if n == 1 else ["%s#%d" % (res, i) for i in range(n)]
        ops.append((name, refs, in_types, rrefs, out_types))
    return args, results, ops


def eager_kernels(args, ops):
    """Eager PyTorch, one kernel per op: [(op, read bytes, written bytes)].
    Views cost nothing and reading one reads its source; scalar constants are
    Python numbers; rms_norm runs as PyTorch's composite (upcast, pow, mean,
    add, rsqrt, mul, cast back, mul by the weight)."""
    size = {"%%arg%d" % i: nbytes(s, d) for i, (s, d) in enumerate(args)}
    kernels = []
    for name, refs, in_types, rrefs, out_types in ops:
        reads = sum(size.get(r, nbytes(*t)) for r, t in zip(refs, in_types))
        if name in VIEW_OPS:
            for r in rrefs:
                size[r] = size.get(refs[0], nbytes(*in_types[0]))
            continue
        if name in FREE_OPS:
            for r, t in zip(rrefs, out_types):
                size[r] = 0 if not t[0] else nbytes(*t)
            continue
        writes = [nbytes(*t) for t in out_types]
        for r, w in zip(rrefs, writes):
            size[r] = w
        if name == "fuser.rms_norm":
            (shape, dt) = in_types[0]
            full, f32 = nbytes(shape, dt), nbytes(shape, "f32")
            rows = f32 // 4 // shape[-1] * 4
            steps = []
            if dt != "f32":
                steps.append(("to(float32)", full, f32))
            steps += [("pow", f32, f32), ("mean", f32, rows), ("add eps", rows, rows),
                      ("rsqrt", rows, rows), ("mul", f32 + rows, f32)]
            if dt != "f32":
                steps.append(("type_as", f32, full))
            if len(refs) > 1:
                steps.append(("mul weight", full + nbytes(*in_types[1]), full))
            kernels += steps
            continue
        if name in ("fuser.quantize", "fuser.scaled_cast"):
            kernels += _eager_fp8_scaling(name, in_types, out_types)
            continue
        kernels.append((name.replace("fuser.", ""), reads, sum(writes)))
    return kernels


def _eager_fp8_scaling(name, in_types, out_types):
    """torchao's Float8 scaling in eager PyTorch: x.to(float32), abs, amax,
    the scale's arithmetic on the amaxes (to(float64), clamp, div,
    to(float32): four small kernels; delayed scaling has none), x * scale,
    clamp to the finite range, .to(float8)."""
    (shape, dt) = in_types[0]
    full, f32 = nbytes(shape, dt), nbytes(shape, "f32")
    groups = nbytes(*out_types[-1])  # the amax: one f32 per group
    q = nbytes(*out_types[0])
    steps = []
    if dt != "f32":
        steps.append(("to(float32)", full, f32))
    steps += [("abs", f32, f32), ("amax", f32, groups)]
    scale = groups
    if name == "fuser.quantize":
        steps += [("to(float64)", groups, 2 * groups), ("clamp", 2 * groups, 2 * groups),
                  ("div", 2 * groups, 2 * groups), ("to(float32)", 2 * groups, groups)]
    else:
        scale = nbytes(*in_types[1])
    steps += [("mul scale", f32 + scale, f32), ("clamp", f32, f32), ("to(float8)", f32, q)]
    return steps


# ---- hand-written CUDA ----------------------------------------------------

def cuda_model(cu_text, names, tensor_bytes):
    """Launches [(kernel, read, written)] from the .cu's @launch lines."""
    buffers = dict(zip(names, tensor_bytes))
    for m in re.finditer(r"@buffer\s+(\w+)\s+(\d+)", cu_text):
        buffers[m.group(1)] = int(m.group(2))
    launches = []
    for m in re.finditer(r"@launch\s+(\w+)\s+reads=(\S+)\s+writes=(\S+)", cu_text):
        rd = sum(buffers[b] for b in m.group(2).split(","))
        wr = sum(buffers[b] for b in m.group(3).split(","))
        launches.append((m.group(1), rd, wr))
    return launches


# ---- main -------------------------------------------------------------------

def model_us(kernels):
    return sum((rd + wr) / H200_BW + LAUNCH_S for (_, rd, wr) in kernels) * 1e6


def mb(b):
    return b / 1e6


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


NORM_SIZES = [1, 100, 1024, 4097, 8192, 16384, 32768, 65536]
NORM_ROWS = 4


def norm_source(op, k, dynamic):
    """A normalization over rows of k elements (every dim dynamic when asked)."""
    r, kk = ("?", "?") if dynamic else (NORM_ROWS, k)
    dt = "f32" if op in ("softmax", "log_softmax") else "bf16"
    x, w, s = "tensor<%sx%sx%s>" % (r, kk, dt), "tensor<%sx%s>" % (kk, dt), "tensor<%sx1xf32>" % r
    if op in ("softmax", "log_softmax"):
        return dt, ("func.func @f(%%x: %s) -> %s {\n  %%0 = fuser.%s %%x dim = 1 : %s\n"
                    "  return %%0 : %s\n}\n" % (x, x, op, x, x))
    if op == "layer_norm":
        return dt, ("func.func @f(%%x: %s, %%w: %s, %%b: %s) -> (%s, %s, %s) {\n"
                    "  %%y:3 = fuser.layer_norm %%x weight %%w bias %%b dims = [1] eps = 1.0e-05"
                    " : (%s, %s, %s) -> (%s, %s, %s)\n"
                    "  return %%y#0, %%y#1, %%y#2 : %s, %s, %s\n}\n"
                    % (x, w, w, x, s, s, x, w, w, x, s, s, x, s, s))
    return dt, ("func.func @f(%%x: %s, %%w: %s) -> %s {\n"
                "  %%0 = fuser.rms_norm %%x weight %%w dims = [1] eps = 1.0e-06 : (%s, %s) -> %s\n"
                "  return %%0 : %s\n}\n" % (x, w, x, x, w, x, x))


def measured_traffic(fuserc, work):
    """Rows of the table of normalizations measured on the CPU emulator:
    how many times the kernels read the input and write the output."""
    rows = []
    for op in ("softmax", "log_softmax", "layer_norm", "rms_norm"):
        cells = {}
        for dynamic in (False, True):
            for k in NORM_SIZES:
                dt, text = norm_source(op, k, dynamic)
                path = os.path.join(work, "norm_%s_%s_%d.mlir" % (op, "dyn" if dynamic else "static", k))
                with open(path, "w") as f:
                    f.write(text)
                cmd = [fuserc, "run", path, "--device", "cpu", "--random", "1", "--traffic", "--quiet"]
                if dynamic:
                    cmd += ["--dims", "%d,%d" % (NORM_ROWS, k) + (",%d,%d" % (k, k) if op == "layer_norm"
                                                                  else ",%d" % k if op == "rms_norm" else "")]
                r = run(cmd)
                rd = re.search(r"^\s+x\s+\S+\s+read ([\d.]+)x", r.stdout, re.M)
                wr = re.search(r"^\s+result0\s+\S+\s+read [\d.]+x\s+written ([\d.]+)x", r.stdout, re.M)
                cells[(dynamic, k)] = ("%s / %s" % (rd.group(1), wr.group(1)) if rd and wr and not r.returncode
                                       else "failed")
        for dynamic in (False, True):
            rows.append("| %s %s | %s | %s |" % (
                op, dt, "launch" if dynamic else "static",
                " | ".join(cells[(dynamic, k)] for k in NORM_SIZES)))
        sys.stderr.write("kernels.py: measured %s\n" % op)
    return rows


BACKWARD_SIZES = [1, 100, 1024, 4097, 8192, 12288, 16384, 32768]
BACKWARD_ROWS = 64


def norm_backward_source(rms, k, dynamic):
    """layer_norm (rms_norm) backward from primitives over rows of k bf16
    elements, f32 compute: dx, dw (and db), as examples/layer_norm_backward.mlir."""
    n, h = ("?", "?") if dynamic else (BACKWARD_ROWS, k)
    x, xf = "tensor<%sx%sxbf16>" % (n, h), "tensor<%sx%sxf32>" % (n, h)
    s, w, wf = "tensor<%sx1xf32>" % n, "tensor<%sxbf16>" % h, "tensor<%sxf32>" % h
    args = "%%x: %s, %%dy: %s, " % (x, x) + ("" if rms else "%%mean: %s, " % s) + \
        "%%rstd: %s, %%w: %s" % (s, w)
    outs = "%s, %s" % (x, wf) + ("" if rms else ", %s" % wf)
    L = ["func.func @f(%s) -> (%s) {" % (args, outs),
         "  %%xf = fuser.cast %%x : %s to %s" % (x, xf),
         "  %%dyf = fuser.cast %%dy : %s to %s" % (x, xf),
         "  %%wf = fuser.cast %%w : %s to %s" % (w, wf),
         "  %%rb = fuser.broadcast %%rstd dims = [0, 1] : %s -> %s" % (s, xf),
         "  %%wb = fuser.broadcast %%wf dims = [1] : %s -> %s" % (wf, xf)]
    if rms:
        L.append("  %%xhat = fuser.mul %%xf, %%rb : %s" % xf)
    else:
        L += ["  %%mb = fuser.broadcast %%mean dims = [0, 1] : %s -> %s" % (s, xf),
              "  %%xc = fuser.sub %%xf, %%mb : %s" % xf,
              "  %%xhat = fuser.mul %%xc, %%rb : %s" % xf]
    L += ["  %%wdy = fuser.mul %%dyf, %%wb : %s" % xf,
          "  %%p = fuser.mul %%wdy, %%xhat : %s" % xf,
          "  %%c1 = fuser.mean %%p dims = [1] keepdim = true : %s -> %s" % (xf, s),
          "  %%c1b = fuser.broadcast %%c1 dims = [0, 1] : %s -> %s" % (s, xf),
          "  %%t1 = fuser.mul %%xhat, %%c1b : %s" % xf,
          "  %%t2 = fuser.sub %%wdy, %%t1 : %s" % xf]
    if rms:
        L.append("  %%dxf = fuser.mul %%t2, %%rb : %s" % xf)
    else:
        L += ["  %%c2 = fuser.mean %%wdy dims = [1] keepdim = true : %s -> %s" % (xf, s),
              "  %%c2b = fuser.broadcast %%c2 dims = [0, 1] : %s -> %s" % (s, xf),
              "  %%t3 = fuser.sub %%t2, %%c2b : %s" % xf,
              "  %%dxf = fuser.mul %%t3, %%rb : %s" % xf]
    L += ["  %%dx = fuser.cast %%dxf : %s to %s" % (xf, x),
          "  %%q = fuser.mul %%dyf, %%xhat : %s" % xf,
          "  %%dw = fuser.sum %%q dims = [0] : %s -> %s" % (xf, wf)]
    if rms:
        L.append("  return %%dx, %%dw : %s\n}" % outs)
    else:
        L += ["  %%db = fuser.sum %%dyf dims = [0] : %s -> %s" % (xf, wf),
              "  return %%dx, %%dw, %%db : %s\n}" % outs]
    return "\n".join(L) + "\n"


def measured_backward_traffic(fuserc, work):
    """Rows of the table of backward fusions measured on the CPU emulator:
    launches, and how many times the kernels read x and dy and write dx."""
    rows = []
    for rms in (False, True):
        for dynamic in (False, True):
            cells = []
            for k in BACKWARD_SIZES:
                path = os.path.join(work, "bwd_%s_%s_%d.mlir" % ("rms" if rms else "ln",
                                                                 "dyn" if dynamic else "static", k))
                with open(path, "w") as f:
                    f.write(norm_backward_source(rms, k, dynamic))
                n = BACKWARD_ROWS
                dims = [n, k, n, k] + ([] if rms else [n]) + [n, k]
                cmd = [fuserc, "run", path, "--device", "cpu", "--random", "1", "--traffic",
                       "--quiet"]
                if dynamic:
                    cmd += ["--dims", ",".join(str(d) for d in dims)]
                r = run(cmd)
                got = {}
                # every tensor of the fusion: the bytes asked of it over its
                # size (each read once or written once: 1.00x; the per-block
                # column partials, written once and read once, are the
                # runtime's and not counted on either side)
                asked = size = 0
                for m in re.finditer(r"^\s+\S+\s+(\w+)\[([\d,]*)\]\s+read [\d.]+x\s+written "
                                     r"[\d.]+x\s+\((\d+) and (\d+) bytes\)", r.stdout, re.M):
                    elems = 1
                    for d in filter(None, m.group(2).split(",")):
                        elems *= int(d)
                    size += elems * {"bf16": 2, "f16": 2, "f32": 4}[m.group(1)]
                    asked += int(m.group(3)) + int(m.group(4))
                got["all"] = "%.2fx" % (asked / size) if size else None
                for name, col in (("x", 1), ("dy", 1), ("result0", 2)):
                    m = re.search(r"^\s+%s\s+\S+\s+read ([\d.]+)x\s+written ([\d.]+)x" % name,
                                  r.stdout, re.M)
                    got[name] = m.group(col) if m else None
                launches = None
                if not dynamic:
                    ins = run([fuserc, "inspect", path])
                    m = re.search(r"launches: (\d+) kernel", ins.stdout)
                    launches = m.group(1) if m else None
                if r.returncode or None in got.values():
                    cells.append("failed")
                else:
                    cells.append("%s%s / %s / %s (%s)" % (
                        "%s: " % launches if launches else "", got["x"], got["dy"],
                        got["result0"], got["all"]))
            rows.append("| %s backward bf16 | %s | %s |" % (
                "rms_norm" if rms else "layer_norm", "launch" if dynamic else "static",
                " | ".join(cells)))
    sys.stderr.write("kernels.py: measured the backward fusions\n")
    return rows


# The norm family, at a ResNet-like activation: (N, C, H, W), groups.
NORM_FAMILY_SHAPE, NORM_FAMILY_GROUPS = (8, 32, 16, 16), 8


def measured_norm_family(fuserc, work):
    """Rows of the norm-family table: batch_norm, instance_norm and group_norm,
    forward and backward, channels-first and -last, bf16 (the fusions of
    test/oracle/oracle/norm_family.py): launches, and how many times the
    kernels read x (and dy) and write y (dx)."""
    sys.path.insert(0, os.path.join(ROOT, "test", "oracle"))
    try:
        import numpy as np
        from oracle import core, norm_family as nf  # noqa: E402
    except ImportError as e:
        # (the generator needs numpy and torch: /usr/bin/python3 on Debian)
        sys.stderr.write("kernels.py: norm family skipped: %s\n" % e)
        return ["| (skipped: %s; run with /usr/bin/python3) | | | | | |" % e]
    rng = np.random.default_rng(0)
    rows = []
    for norm in ("batch_norm", "instance_norm", "group_norm"):
        for last in (False, True):
            cells = []
            for direction in ("forward", "backward"):
                make = nf._forward_part if direction == "forward" else nf._backward_part
                part = make(rng, norm, last, NORM_FAMILY_SHAPE, NORM_FAMILY_GROUPS, "bf16",
                            False)
                name = "%s_%s_%s" % (norm, "nhwc" if last else "nchw", direction)
                path = os.path.join(work, name + ".mlir")
                with open(path, "w") as f:
                    f.write(core.fusion_text(name, [part]))
                ins = run([fuserc, "inspect", path, "--no-ptxas"])
                m = re.search(r"launches: (\d+) kernel", ins.stdout)
                r = run([fuserc, "run", path, "--device", "cpu", "--random", "1", "--traffic",
                         "--quiet"])
                got = []
                for tensor, col in (("x", 1), ("dy", 1), ("result0", 2)):
                    t = re.search(r"^\s+%s\s+\S+\s+read ([\d.]+)x\s+written ([\d.]+)x" % tensor,
                                  r.stdout, re.M)
                    if t:
                        got.append(t.group(col))
                if r.returncode or not m:
                    cells += ["failed", ""]
                else:
                    cells += [m.group(1), " / ".join(got)]
            rows.append("| %s | %s | %s |" % (norm, "NHWC" if last else "NCHW",
                                              " | ".join(cells)))
    sys.stderr.write("kernels.py: measured the norm family\n")
    return rows


def measured_indexing(fuserc, work):
    """Rows of the indexing table: the fusions of test/oracle/oracle/indexing.py
    (checked there against PyTorch) at model sizes: launches, and the bytes
    the kernels ask of each tensor over its size (`fuserc run --traffic`),
    with the inputs the oracle generates (indices in range)."""
    sys.path.insert(0, os.path.join(ROOT, "test", "oracle"))
    try:
        import numpy as np
        from oracle import indexing as ix  # noqa: E402
    except ImportError as e:
        sys.stderr.write("kernels.py: indexing skipped: %s\n" % e)
        return ["| (skipped: %s; run with /usr/bin/python3) | | | |" % e]
    from oracle import scatters as sc  # noqa: E402
    rng = np.random.default_rng(0)
    # (what, part, nvFuser's published segment count for the same fusion)
    fusions = [
        ("embedding: table[ids] * sqrt(d) + pos, bf16 32000x1024 table, 512 ids",
         lambda: ix._embedding_part(rng, "bf16", 32000, 1024, 512, False), "-"),
        ("cross-entropy forward: logsumexp(x) - x[target], bf16 64x32000",
         lambda: ix._cross_entropy_part(rng, 64, 32000, False), "-"),
        ("cross-entropy mean with ignore_index (-100), bf16 64x32000",
         lambda: ix._cross_entropy_mean_part(rng, 64, 32000, False), "-"),
        ("cross-entropy backward: (softmax(x) - one_hot(target)) * g, bf16 64x32000",
         lambda: ix._cross_entropy_backward_part(rng, 64, 32000, False), "-"),
        ("cross-entropy backward as autograd writes it: softmax(x) * g + "
         "scatter_add of -g at the target, f32 64x32000",
         lambda: sc._gather_backward_part(rng, 64, 32000),
         "no scatter op (Thunder rewrites it as iota + where)"),
        ("RoPE (Llama rotate_half), q bf16 2x128x8x64 -> 2x8x128x64, 4096 positions",
         lambda: ix._rope_part(rng, 2, 128, 8, 64, 64, 4096),
         "3 per tensor (6 for q and k, Llama-2: NVIDIA/Fuser#2599, 2024); 2 with the "
         "resize scheduler (Llama-3: NVIDIA/Fuser#3830, 2025)"),
        ("RoPE, GPT-NeoX partial rotary (32 of 64 channels), q bf16 2x128x8x64 -> "
         "2x8x128x64, 4096 positions",
         lambda: ix._rope_part(rng, 2, 128, 8, 64, 32, 4096), "-"),
        ("RoPE, GPT-J interleaved pairs, q f32 2x128x8x64, 4096 positions",
         lambda: ix._rope_gptj_part(rng, 2, 128, 8, 64, 4096), "-"),
        ("RoPE backward (Llama), dy bf16 2x8x128x64 -> dq 2x128x8x64, 4096 positions",
         lambda: ix._rope_backward_part(rng, 2, 128, 8, 64, 4096), "-"),
        ("embedding backward: index_add of dy rows into a zero table, f32 2000x64, 256 ids",
         lambda: sc._embedding_backward_part(rng, "f32", 2000, 64, 256), "-"),
        ("embedding backward: index_add of dy rows into a zero table, bf16 32000x256, "
         "4096 ids",
         lambda: sc._embedding_backward_part(rng, "bf16", 32000, 256, 4096), "-"),
        ("RoPE on q and k, grouped-query (32 query heads, 8 key heads), bf16 "
         "2x128x{32,8}x64 -> permuted, 4096 positions",
         lambda: ix._rope_part(rng, 2, 128, 32, 64, 64, 4096, kv_heads=8),
         "see the Llama row"),
    ]
    rows = _measure_parts(fuserc, work, "indexing", fusions)
    sys.stderr.write("kernels.py: measured the indexing fusions\n")
    return rows


def _measure_parts(fuserc, work, prefix, fusions):
    """A table row per (what, make, note) of `fusions`: `make()` gives an
    oracle part; its launches and each tensor's bytes asked over its size."""
    from oracle import core  # noqa: E402
    rows = []
    for k, (what, make, nvfuser) in enumerate(fusions):
        part = make()
        name = "%s_%d" % (prefix, k)
        d = os.path.join(work, name)
        path, inputs = core.write_case_files(d, name, [part])
        ins = run([fuserc, "inspect", path, "--no-ptxas"])
        m = re.search(r"launches: (\d+) kernel", ins.stdout)
        cmd = [fuserc, "run", path, "--device", "cpu", "--traffic", "--quiet"]
        for n, ip in inputs:
            cmd += ["--input", "%s=%s" % (n, ip)]
        r = run(cmd)
        got = []
        for t in re.finditer(r"^\s+(\S+)\s+\S+\s+read ([\d.]+)x\s+written ([\d.]+)x",
                             r.stdout, re.M):
            tensor, rd, wr = t.groups()
            got.append("%s %s" % (tensor, ("read " + rd) if float(rd) else ("written " + wr)))
        if r.returncode or not m:
            rows.append("| %s | failed | | %s |" % (what, nvfuser))
        else:
            rows.append("| %s | %s | %s | %s |" % (what, m.group(1), ", ".join(got), nvfuser))
    return rows


def measured_fp8(fuserc, work):
    """Rows of the fp8 table: the scaling recipes of test/oracle/oracle/fp8.py
    (checked there bit for bit) at model sizes, measured as the indexing
    fusions are."""
    sys.path.insert(0, os.path.join(ROOT, "test", "oracle"))
    try:
        import numpy as np
        from oracle import bits, fp8, fp8_composites  # noqa: E402
    except ImportError as e:
        sys.stderr.write("kernels.py: fp8 skipped: %s\n" % e)
        return ["| (skipped: %s; run with /usr/bin/python3) | | | |" % e]
    rng = np.random.default_rng(0)
    fusions = [
        ("layer_norm then per-row current scaling to e4m3 (Transformer Engine's "
         "LayerNormLinear input), bf16 256x4096",
         lambda: fp8.layer_norm_quant_part(rng, 256, 4096), "-"),
        ("1x128 block-scaled e4m3 quantization with f32 scales (DeepSeek-V3 "
         "activations), bf16 256x7168",
         lambda: fp8.block_quant_part(rng, 256, 7168), "-"),
        ("MX block scaling to e4m3: 1x32 blocks, e8m0 scales from the amax's exponent "
         "bits (OCP Microscaling), bf16 256x4096",
         lambda: bits.mx_quant_part(rng, 256, 4096), "-"),
        ("per-tensor current scaling to e4m3: amax, then the scaled cast, bf16 256x4096",
         lambda: fp8.current_scaling_part(rng, 256, 4096, "f8E4M3FN", False), "-"),
        ("per-row current scaling to e5m2 (gradients), bf16 256x4096",
         lambda: fp8.current_scaling_part(rng, 256, 4096, "f8E5M2", True), "-"),
        ("`fuser.quantize row` (f32 scales, torchao's rowwise recipe) to e4m3, bf16 256x4096",
         lambda: fp8_composites.quantize_part(rng, 256, 4096, "f8E4M3FN", "row"), "-"),
        ("`fuser.quantize block 32` (e8m0 scales, OCP MX) to e4m3, bf16 256x4096",
         lambda: fp8_composites.quantize_part(rng, 256, 4096, "f8E4M3FN", "block", 32, "e8m0"),
         "-"),
        ("`fuser.scaled_cast` per tensor (delayed scaling: the scale given, amax out) to "
         "e4m3, bf16 256x4096",
         lambda: fp8_composites.scaled_cast_part(rng, 256, 4096, "f8E4M3FN", False),
         "the rank-0 scale: one 4-byte load a thread, served by the cache"),
    ]
    rows = _measure_parts(fuserc, work, "fp8", fusions)
    sys.stderr.write("kernels.py: measured the fp8 fusions\n")
    return rows


# Forward fusions whose backward fuser-vjp derives (docs/autodiff.md), bf16,
# BACKWARD_ROWS rows of AUTODIFF_H.
AUTODIFF_H = 4096
AUTODIFF_FUSIONS = [
    ("layer_norm (weight, bias)", "x: ?x{h}xbf16, w: {h}xbf16, b: {h}xbf16",
     "%y, %m, %r = fuser.layer_norm %x weight %w bias %b dims = [1] eps = 1.0e-05 : "
     "(tensor<?x{h}xbf16>, tensor<{h}xbf16>, tensor<{h}xbf16>) -> (tensor<?x{h}xbf16>, "
     "tensor<?x1xf32>, tensor<?x1xf32>)", "2: 1.00 / 1.00 / 1.00 (layer_norm_backward)"),
    ("rms_norm (weight)", "x: ?x{h}xbf16, w: {h}xbf16",
     "%y = fuser.rms_norm %x weight %w dims = [1] eps = 1.0e-06 : (tensor<?x{h}xbf16>, "
     "tensor<{h}xbf16>) -> tensor<?x{h}xbf16>", "2: 1.00 / 1.00 / 1.00 (rms_norm_backward)"),
    ("softmax", "x: ?x{h}xbf16", "%y = fuser.softmax %x dim = 1 : tensor<?x{h}xbf16>",
     "1 (softmax backward from y and dy)"),
]


def measured_autodiff(fuserc, work):
    """Rows of the table of derived backward fusions: launches and each
    tensor's bytes asked over its size, for F_vjp and for F_bwd."""
    rows = []
    for k, (what, sig, line, hand) in enumerate(AUTODIFF_FUSIONS):
        args = ", ".join("%%%s: tensor<%s>" % tuple(a.split(": "))
                         for a in sig.format(h=AUTODIFF_H).split(", "))
        text = "func.func @f(%s) -> tensor<?x%dxbf16> {\n  %s\n  return %%y : tensor<?x%dxbf16>\n}\n" % (
            args, AUTODIFF_H, line.format(h=AUTODIFF_H), AUTODIFF_H)
        path = os.path.join(work, "autodiff_%d.mlir" % k)
        with open(path, "w") as f:
            f.write(text)
        cells = []
        for fusion, extra in (("f_vjp", []), ("f_bwd", ["--residuals"])):
            base = [path, "--vjp", "f", "--fusion", fusion] + extra
            # every dynamic dim is the row count; fuserc says how many there are
            probe = run([fuserc, "inspect"] + base + ["--no-ptxas", "--dims", "1"])
            n = re.search(r"has (\d+) dynamic dims", probe.stderr)
            dims = ",".join([str(BACKWARD_ROWS)] * (int(n.group(1)) if n else 1))
            ins = run([fuserc, "inspect"] + base + ["--no-ptxas", "--dims", dims])
            m = re.search(r"launches for dims [\d,]+: (\d+) kernel", ins.stdout)
            r = run([fuserc, "run"] + base + ["--device", "cpu", "--random", "1", "--traffic",
                                              "--quiet", "--dims", dims])
            got = []
            for t in re.finditer(r"^\s+(\S+)\s+\S+\s+read ([\d.]+)x\s+written ([\d.]+)x",
                                 r.stdout, re.M):
                tensor, rd, wr = t.groups()
                got.append("%s %s" % (tensor, ("read " + rd) if float(rd) else
                                      ("written " + wr) if float(wr) else "not read"))
            cells.append("failed" if r.returncode or not m else "%s: %s" % (
                m.group(1), ", ".join(got)))
        rows.append("| %s | %s | %s | %s |" % (what, cells[0], cells[1], hand))
    sys.stderr.write("kernels.py: measured the derived backward fusions\n")
    return rows


def row_length_table(sizes, rows):
    """A markdown table of measured rows, one column per row length."""
    return (["| fusion | row length | " + " | ".join(str(k) for k in sizes) + " |",
             "|---|---|" + "---:|" * len(sizes)] + rows + [""])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--cuda", default=os.environ.get("CUDA_HOME", "/usr/local/cuda"))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "kernels.md"))
    ap.add_argument("--only", action="append")
    a = ap.parse_args()

    fuserc = os.path.join(a.build, "bin", "fuserc")
    fuser_opt = os.path.join(a.build, "bin", "fuser-opt")
    find = lambda tool: (os.path.join(a.cuda, "bin", tool)
                         if os.access(os.path.join(a.cuda, "bin", tool), os.X_OK)
                         else shutil.which(tool))
    nvcc, ptxas = find("nvcc"), find("ptxas")
    work = os.path.join(a.build, "bench", "quality")
    os.makedirs(work, exist_ok=True)
    notes = []
    if not (nvcc and ptxas):
        notes.append("CUDA toolkit not found (nvcc/ptxas): registers, spills and the "
                     "hand-written CUDA columns are skipped.")
    cuda_version = ""
    if nvcc:
        m = re.search(r"release ([\d.]+)", run([nvcc, "--version"]).stdout)
        cuda_version = m.group(1) if m else "?"

    names = sorted(f[:-5] for f in os.listdir(os.path.join(ROOT, "examples"))
                   if f.endswith(".mlir"))
    if a.only:
        names = [n for n in names if n in a.only]
    quality, model = [], []
    for name in names:
        src_path = os.path.join(ROOT, "examples", name + ".mlir")
        text = open(src_path).read()
        static = text
        for old, new in STATIC_SUBST.get(name, []):
            static = static.replace(old, new)
        bundle = os.path.join(work, name + ".bundle")
        r = run([fuserc, "compile", src_path, "-o", bundle, "--no-emulation"])
        if r.returncode:
            sys.stderr.write(r.stderr)
            quality.append("| %s | compile failed | | | | | | | | | |" % name)
            continue
        args, _, ops = graph(fuser_opt, static)
        fusion = fb.load(bundle)[0]
        shapes = [s for (s, _) in args]
        dims, launches, allocs = fusion.run_plan(fusion.dyn_dims_of_args(shapes))
        if fusion.gemms or fusion.collectives:
            # The library calls' traffic and time are cuBLASLt's (NCCL's), not
            # modelled here: docs/matmul.md and bench/results/gpu.md measure them.
            quality.append("| %s | %d + %d GEMM%s (cuBLASLt, not modelled here: docs/matmul.md) | | | | | | | | | |"
                           % (name, len(launches), fusion.gemms, "s" if fusion.gemms != 1 else ""))
            continue
        f_kernels, minimum = fb.traffic(fusion, dims, launches, allocs)
        f_bytes = sum(rd + wr for (_, rd, wr) in f_kernels)
        ptx_path = os.path.join(work, name + ".ptx")
        with open(ptx_path, "w") as f:
            f.write(fusion.ptx)
        entries = fb.ptx_entries(fusion.ptx)
        launched = []
        for (L, _, _, _) in launches:
            if L.kernel not in launched:
                launched.append(L.kernel)
        info = ptxas_info(ptxas, ptx_path) if ptxas else None
        fw = {"ld": set(), "st": set()}
        for k in launched:
            w = widths(entries[k][1])
            fw["ld"].update(w["ld"]); fw["st"].update(w["st"])
        fw = {k: sorted(v, reverse=True) for k, v in fw.items()}
        ipb = max(instructions_per_byte(entries[k][1]) for k in launched)
        regs = lambda inf, ks, i: ", ".join(str(inf[k][i]) if k in inf else "?" for k in ks) \
            if inf is not None else "n/a"
        spills = lambda inf, ks: ", ".join(str(inf[k][1] + inf[k][2]) if k in inf else "?"
                                          for k in ks) if inf is not None else "n/a"
        row = "| %s | %d (%d in PTX) | %s | %s | %s | %.2fx |" % (
            name, len(launches), len(entries), regs(info, launched, 0), spills(info, launched),
            fmt_widths(fw), f_bytes / minimum)

        cu_path = os.path.join(ROOT, "bench", "cuda", name + ".cu")
        c_kernels = None
        if os.path.exists(cu_path):
            cu = open(cu_path).read()
            tnames = [t.name for t in fusion.tensors]
            c_kernels = cuda_model(cu, tnames, fusion.tensor_bytes(dims))
        if c_kernels is not None and nvcc and ptxas:
            cptx = os.path.join(work, name + ".cu.ptx")
            r = run([nvcc, "-ptx", "-arch=sm_90", "-O3", cu_path, "-o", cptx])
            if r.returncode:
                sys.stderr.write(r.stderr)
                row += " nvcc failed | | | | |"
            else:
                cinfo = ptxas_info(ptxas, cptx)
                ctext = open(cptx).read()
                centries = fb.ptx_entries(ctext)
                ks = list(centries)
                cw = {"ld": set(), "st": set()}
                for k in ks:
                    w = widths(centries[k][1])
                    cw["ld"].update(w["ld"]); cw["st"].update(w["st"])
                cw = {k: sorted(v, reverse=True) for k, v in cw.items()}
                c_bytes = sum(rd + wr for (_, rd, wr) in c_kernels)
                row += " %d | %s | %s | %s | %.2fx |" % (
                    len(c_kernels), regs(cinfo, ks, 0), spills(cinfo, ks), fmt_widths(cw),
                    c_bytes / minimum)
        elif c_kernels is not None:
            c_bytes = sum(rd + wr for (_, rd, wr) in c_kernels)
            row += " %d | n/a | n/a | n/a | %.2fx |" % (len(c_kernels), c_bytes / minimum)
        else:
            row += " no .cu | | | | |"
        quality.append(row)

        e_kernels = eager_kernels(args, ops)
        e_bytes = sum(rd + wr for (_, rd, wr) in e_kernels)
        fus_us, eag_us = model_us(f_kernels), model_us(e_kernels)
        sizes = ", ".join("x".join(str(v) for v in s) for s in shapes if s)
        bound = "memory" if ipb < H200_ISSUE / H200_BW else "**issue**"
        model.append("| %s | %s | %.1f | %d | %.1f | %.1f | %.1f | %s | %d | %.1f | %.1f | %.2fx |" % (
            name, sizes, mb(minimum), len(f_kernels), mb(f_bytes), fus_us, ipb, bound,
            len(e_kernels), mb(e_bytes), eag_us, eag_us / fus_us))
        sys.stderr.write("kernels.py: %s done\n" % name)

    measured = [] if a.only else measured_traffic(fuserc, work)
    measured_backward = [] if a.only else measured_backward_traffic(fuserc, work)
    measured_family = [] if a.only else measured_norm_family(fuserc, work)
    measured_index = [] if a.only else measured_indexing(fuserc, work)
    measured_f8 = [] if a.only else measured_fp8(fuserc, work)
    measured_ad = [] if a.only else measured_autodiff(fuserc, work)

    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    out = []
    out.append("# Kernel quality: fuser vs hand-written CUDA, and an H200 model vs eager PyTorch\n")
    out.append("Generated by `make bench` (bench/quality/kernels.py).\n")
    out.append("- date: %s" % date)
    out.append("- machine: %s, %d logical CPUs (no GPU needed: nothing here runs a kernel)"
               % (cpu_name(), os.cpu_count() or 0))
    out.append("- fuser: `fuserc compile` for sm_90 (default options); CUDA: %s" % (
        "nvcc/ptxas %s, `nvcc -ptx -arch=sm_90 -O3`, `ptxas -v -arch=sm_90`" % cuda_version
        if nvcc and ptxas else "not available"))
    for n in notes:
        out.append("- note: " + n)
    out.append("")
    out.append("## Kernels\n")
    out.append("| example | fuser kernels launched | fuser registers | fuser spill bytes | "
               "fuser global widths (bits) | fuser bytes / minimum | CUDA kernels | "
               "CUDA registers | CUDA spill bytes | CUDA global widths (bits) | "
               "CUDA bytes / minimum |")
    out.append("|---|---:|---:|---:|---|---:|---:|---:|---:|---|---:|")
    out += quality
    out.append("")
    if measured:
        out.append("## Normalizations across row lengths, measured on the CPU emulator\n")
        out.append("Times the kernels read the input x / write the output, per element: "
                   "counted by `fuserc run --traffic` over every global load and store the "
                   "emulated kernels issue (%d rows; *static*: the row length is compiled in, "
                   "*launch*: every dim dynamic, known at launch). 1.00 / 1.00 is the "
                   "minimum: the row stays on chip. Above the documented limits "
                   "(docs/schedulers.md) the fallback reads the row once per pass. softmax and "
                   "log_softmax in f32, layer_norm (weight, bias, mean, rstd) and rms_norm "
                   "(weight) in bf16 with f32 compute.\n" % NORM_ROWS)
        out += row_length_table(NORM_SIZES, measured)
        out.append("## Backward fusions across row lengths, measured on the CPU emulator\n")
        out.append("layer_norm and rms_norm backward from primitives (dx, dw, db; bf16 in, f32 "
                   "compute, %d rows): *launches* (static lengths; `fuserc inspect`): times the "
                   "kernels read x / read dy / write dx, per element, counted by `fuserc run "
                   "--traffic`, and (in parentheses) the bytes the kernels ask of all the "
                   "fusion's tensors over their sizes (1.00x: each read or written once; the "
                   "emulator counts each thread's requests, so a row's mean and rstd, read by "
                   "every unit of every thread of the row (one request per warp on a GPU), "
                   "and a weight read once per row where it is not kept on chip across rows "
                   "(L1 and L2 hits on a GPU), count above it: docs/schedulers.md). 2 launches "
                   "and 1.00 / 1.00 / 1.00 "
                   "is the inner-outer kernel "
                   "and its combine with the rows on chip (the per-block column partials, "
                   "blocks x columns x 4 bytes per column sum written once and read once, "
                   "come on top: docs/schedulers.md); rows of more than 16384: the rows' "
                   "kernel and the column sums' own split kernel, which its last block "
                   "finishes (2 launches, x and dy read twice); 2.00 or more at launch, the "
                   "rows read again (scalar or long rows known only at launch).\n" % BACKWARD_ROWS)
        out += row_length_table(BACKWARD_SIZES, measured_backward)
        out.append("## batch_norm, instance_norm, group_norm, measured on the CPU emulator\n")
        out.append("Forward with batch statistics (y, mean, rstd) and backward (dx, dw, db "
                   "from x, dy, the saved statistics and w), written from primitives as "
                   "test/oracle/oracle/norm_family.py writes them (checked there against "
                   "PyTorch), bf16 with f32 compute, x of %s (N, C, H, W), %d groups: "
                   "*launches* (`fuserc inspect`) and the times the kernels read x / write y "
                   "(forward) or read x / read dy / write dx (backward), per element "
                   "(`fuserc run --traffic`). nvFuser's figure for each of these is 1 launch "
                   "(its grid-persistent kernels synchronize the whole grid); fuser has no "
                   "grid-wide barrier, so a statistic over the batch (batch_norm, and every "
                   "column reduction) is one kernel and its use another. A backward's dw "
                   "and db sum over every dim but C: the normalization kernel also sums "
                   "them over its rows' parts, a (n, c) row for instance_norm, each "
                   "channel's H x W run of a (n, g) row for group_norm NCHW (up to 8 "
                   "channels a group), and a second kernel adds those over N "
                   "(docs/schedulers.md, \"Reductions split beside a row reduction\"); "
                   "group_norm NHWC's channels interleave along its rows, so its dw and db "
                   "re-read x and dy in their own kernel.\n"
                   % ("x".join(map(str, NORM_FAMILY_SHAPE)), NORM_FAMILY_GROUPS))
        out.append("| norm | layout | forward launches | forward x / y | backward launches | "
                   "backward x / dy / dx |")
        out.append("|---|---|---:|---|---:|---|")
        out += measured_family + [""]
        out.append("## Indexing fusions, measured on the CPU emulator\n")
        out.append("Fusions with gather, index_select, scatter_add and index_add as "
                   "test/oracle/oracle/indexing.py and scatters.py write them (checked there "
                   "against PyTorch), with indices in range: "
                   "*launches* (`fuserc inspect`) and the bytes the kernels ask of each "
                   "tensor over its size (`fuserc run --traffic`; the emulator counts each "
                   "thread's requests: a value every lane of a warp reads, like an index "
                   "broadcast along a row, is one request per warp on a GPU, and a table "
                   "row picked by several positions is an L2 hit after the first). A table "
                   "reads below 1.00 when only some of its rows are picked; a scatter's "
                   "index is read once per element of its line, an index_add's of more "
                   "than 32 positions once per tile of rows (docs/schedulers.md, "
                   "\"Scatters\"). *nvFuser* gives its published segment counts for the "
                   "same fusion where its issues state them.\n")
        out.append("| fusion | launches | bytes asked / size, per tensor | nvFuser |")
        out.append("|---|---:|---|---|")
        out += measured_index + [""]
        out.append("## fp8 quantization fusions, measured on the CPU emulator\n")
        out.append("The scaling recipes of fp8 training as test/oracle/oracle/fp8.py writes "
                   "them (checked there bit for bit; docs/fp8.md), measured as the indexing "
                   "fusions above: *launches* and the bytes the kernels ask of each tensor "
                   "over its size. The minimum is 1.00 for every tensor: each input read "
                   "once, each output written once.\n")
        out.append("| fusion | launches | bytes asked / size, per tensor | note |")
        out.append("|---|---:|---|---|")
        out += measured_f8 + [""]
        out.append("## Backward fusions derived by fuser-vjp, measured on the CPU emulator\n")
        out.append("The forward fusion alone, differentiated by `fuserc --vjp` (docs/autodiff.md), "
                   "bf16, %d rows of %d: *launches* (`fuserc inspect`) and the bytes the kernels "
                   "ask of each tensor over its size (`fuserc run --traffic`, counted as in the "
                   "tables above: a row's statistics and a weight re-read per row count each "
                   "thread's requests). `F_vjp` recomputes the forward from the inputs; `F_bwd` "
                   "(`--residuals`) reads what `F_fwd` saved. *hand-written*: the backward from "
                   "primitives of the table above at 4096 (launches: x / dy / dx).\n"
                   % (BACKWARD_ROWS, AUTODIFF_H))
        out.append("| forward | F_vjp: launches, bytes asked / size | F_bwd: launches, bytes "
                   "asked / size | hand-written |")
        out.append("|---|---|---|---|")
        out += measured_ad + [""]
    out.append("## H200 roofline model: fuser's plan vs eager PyTorch\n")
    out.append("**A model, not a measurement**: each kernel costs its bytes at %.1f TB/s "
               "(the measured device-to-device copy bandwidth of an H200) plus %g us of "
               "launch; compute is taken as free. Measured GPU figures come from "
               "bench/gpu/ (bench/results/gpu.md).\n" % (H200_BW / 1e12, LAUNCH_S * 1e6))
    out.append("| example | argument sizes | minimum MB | fuser kernels | fuser MB | fuser model us | "
               "fuser PTX instr / byte | bound | "
               "eager kernels | eager MB | eager model us | model speedup |")
    out.append("|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|")
    out += model
    out.append("")
    out.append("## Method\n")
    out.append("- *kernels launched*: the LAUNCH instructions fuser's plan executes for the "
               "example's sizes (dynamic examples: %s), found by running the bundle's plan "
               "program in Python (bench/quality/fuserbundle.py) with every buffer "
               "256-byte aligned; *in PTX* counts the `.entry` functions (a kernel with "
               "dynamic sizes has a 32-bit and a 64-bit index variant)." % "; ".join(
                   "%s %s" % (k, ", ".join("%s -> %s" % p for p in v))
                   for k, v in STATIC_SUBST.items()))
    out.append("- *registers*, *spill bytes* (spill stores + spill loads): `ptxas -v -arch=sm_90` "
               "of the launched kernels (fuser) or of every kernel in the .cu (CUDA), one "
               "figure per kernel.")
    out.append("- *global widths*: the distinct widths in bits of `ld.global` and `st.global` "
               "instructions in those kernels' PTX (vector count times element bits), widest "
               "first; a narrower width beside the widest is usually the fallback path for "
               "unaligned buffers or the tail.")
    out.append("- *bytes / minimum*: global-memory traffic of the plan divided by the minimum, "
               "one read of every argument and one write of every result. Traffic model: each "
               "launch reads whole every argument buffer its PTX loads a pointer to and writes "
               "whole every result; an intermediate (or a result passed on to a later launch) "
               "is written by the first launch that takes it and read by later ones; "
               "broadcast operands count their own size once (they stay in cache). For the "
               "hand-written CUDA the launches and work buffers are the `@launch` and "
               "`@buffer` lines of each bench/cuda/*.cu. A kernel that re-read its input "
               "from memory would be undercounted by this model; fuser's persistent kernels "
               "and these .cu files keep rows in registers and read each element once.")
    out.append("- *fuser PTX instr / byte*: for the launched kernel with the most, its PTX "
               "instructions over the bytes its `ld.global`/`st.global` instructions move, both "
               "counted in the PTX text (each path of a kernel, the vector body, the unaligned "
               "fallback and the tail, moves its own elements once, so the ratio follows the "
               "dynamic one; ptxas may remove or add some); a kernel with a loop around global "
               "accesses (grid-stride, long rows) is measured over the loop that moves the "
               "most bytes. *bound*: memory when that ratio is "
               "below %.1f, the thread instructions an H200 issues per second at most (132 SMs "
               "x 4 schedulers x 32 threads x 1.98 GHz) over the bytes it moves per second "
               "(%.1f TB/s); else **issue**: the kernel may not reach the memory bound, and its "
               "model time is optimistic. For random numbers this is where Philox's cost shows "
               "(about 23 instructions per 32-bit element, docs/random.md)." % (
                   H200_ISSUE / H200_BW, H200_BW / 1e12))
    out.append("- *eager PyTorch*: one kernel per op of the example as written (softmax, "
               "log_softmax, layer_norm, var_mean, gelu are single PyTorch kernels; rms_norm "
               "is PyTorch's composite of up to 8 kernels), each reading its operands whole "
               "and writing its results whole; broadcast, permute, reshape and slice are "
               "views (no kernel) and scalar constants are Python numbers.")
    out.append("- The hand-written CUDA twins (bench/cuda/) are written as nvFuser and "
               "Inductor emit kernels: one fused kernel (two for two_kernels, which needs a "
               "grid-wide dependency), fp32 compute, 16-byte vector accesses where the "
               "shape allows, row-persistent normalizations, a shared-memory tile for the "
               "transpose, a grid reduction for column_sum.")
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        f.write("\n".join(out) + "\n")
    print("\n".join(out))
    sys.stderr.write("kernels.py: wrote %s\n" % a.out)


if __name__ == "__main__":
    main()
