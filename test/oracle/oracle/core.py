"""Core of the oracle: element types, .npy storage, fusion text, running
fuserc, and comparing its results with PyTorch.

A *part* is one independent computation: arguments (name, MLIR type, value),
MLIR lines, results (SSA value, MLIR type) and what each result must equal
(a reference array and a comparison rule). A *case* is a named list of parts
that the runner puts into one fusion (one compile, one run); on a mismatch it
reruns the failing part alone and prints a one-line reproducer.
"""

import dataclasses
import os
import re
import subprocess
import tempfile
import time
from typing import Dict, List, Optional, Sequence

import warnings

import numpy as np
import torch

# Edge values overflow and produce NaN on purpose all the time.
np.seterr(all="ignore")
warnings.filterwarnings("ignore", category=RuntimeWarning)

# ---------------------------------------------------------------------------
# Element types
# ---------------------------------------------------------------------------

INT_TYPES = ("i8", "i32", "i64")
FLOAT_TYPES = ("f16", "bf16", "f32", "f64")
HALF_TYPES = ("f16", "bf16")
NUMERIC_TYPES = INT_TYPES + FLOAT_TYPES
ALL_TYPES = ("i1",) + NUMERIC_TYPES
INTLIKE_TYPES = ("i1",) + INT_TYPES
# Stored and cast, never computed on (docs/fp8.md); not in ALL_TYPES, whose
# suites compute. Storage: the uint8 bit patterns (docs/npy.md).
FP8_TYPES = ("f8E4M3FN", "f8E5M2", "f8E8M0FNU")

# fuser type -> (numpy storage dtype, torch dtype)
_NP = {"i1": np.bool_, "i8": np.int8, "i32": np.int32, "i64": np.int64,
       "f16": np.float16, "bf16": np.uint16, "f32": np.float32, "f64": np.float64,
       "f8E4M3FN": np.uint8, "f8E5M2": np.uint8, "f8E8M0FNU": np.uint8}
_TORCH = {"i1": torch.bool, "i8": torch.int8, "i32": torch.int32, "i64": torch.int64,
          "f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32,
          "f64": torch.float64}
# bits of each float type: (total, mantissa)
_FBITS = {"f16": (16, 10), "bf16": (16, 7), "f32": (32, 23), "f64": (64, 52),
          "f8E4M3FN": (8, 3), "f8E5M2": (8, 2), "f8E8M0FNU": (8, 0)}


def np_dtype(t):
    return _NP[t]


def torch_dtype(t):
    return _TORCH[t]


def is_float(t):
    return t in FLOAT_TYPES


def is_int(t):
    return t in INT_TYPES


def type_of_torch(dt):
    for k, v in _TORCH.items():
        if v == dt:
            return k
    raise KeyError(dt)


def to_torch(a, t):
    """A torch tensor with the values of storage array `a` of fuser type `t`."""
    a = np.array(order="C", copy=True, object=a)
    if t == "bf16":
        return torch.from_numpy(a.view(np.int16).copy()).view(torch.bfloat16)
    return torch.from_numpy(a.copy())


def from_torch(x, t):
    """The storage array (as .npy holds it) of torch tensor `x` as type `t`."""
    x = x.detach().contiguous()
    if x.dtype != _TORCH[t]:
        x = x.to(_TORCH[t])
    if t == "bf16":
        return x.view(torch.int16).numpy().view(np.uint16).copy()
    return x.numpy().copy()


def to_f64(a, t):
    """float64 values of a storage array (exact for every type but i64)."""
    a = np.asarray(a)
    if t == "bf16":
        u = (a.astype(np.uint32) << np.uint32(16)).reshape(-1)
        return u.view(np.float32).astype(np.float64).reshape(a.shape)
    if t in FP8_TYPES:
        from .fp8 import code_values
        return code_values(t)[a.astype(np.int64)]
    return a.astype(np.float64)


def from_f64(v, t):
    """Storage array of type `t` for float64 values `v` (RNE for floats;
    integers must be in range)."""
    v = np.asarray(v, dtype=np.float64)
    if t == "bf16":
        return from_torch(torch.from_numpy(v.astype(np.float32)), "bf16")
    if t == "i1":
        return v != 0
    return v.astype(_NP[t])


def finfo(t):
    """(max, min normal, min subnormal, eps) of a float type, as float64."""
    if t == "bf16":
        return (float(torch.finfo(torch.bfloat16).max), 2.0 ** -126, 2.0 ** -133, 2.0 ** -7)
    fi = np.finfo(_NP[t])
    sub = {"f16": 2.0 ** -24, "f32": 2.0 ** -149, "f64": 5e-324}[t]
    return (float(fi.max), float(fi.tiny), sub, float(fi.eps))


def iinfo(t):
    fi = np.iinfo(_NP[t])
    return int(fi.min), int(fi.max)


_UINT = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}
_SINT = {8: np.int16, 16: np.int32, 32: np.int64, 64: np.int64}


def _bits(a, t):
    nb, _ = _FBITS[t]
    a = np.asarray(a)
    if a.ndim == 0:
        a = a.reshape(1)
    return a.view(_UINT[nb]), nb


def ordered(a, t):
    """Float storage as integers ordered like the values (+0 and -0 both 0;
    adjacent floats differ by 1; inf is next to the largest finite)."""
    shape = np.shape(a)
    b, nb = _bits(a, t)
    st = _SINT[nb]
    mag = (b & _UINT[nb]((1 << (nb - 1)) - 1)).astype(st)
    neg = (b >> _UINT[nb](nb - 1)).astype(bool)
    np.negative(mag, out=mag, where=neg)
    return mag.reshape(shape)


def ulp_distance(a, b, t):
    """|a - b| in units in the last place of type t, elementwise (int64 for
    f64, saturated at 2^61)."""
    oa, ob = ordered(a, t), ordered(b, t)
    if _FBITS[t][0] == 64:
        cap = np.int64(1 << 61)
        oa, ob = np.clip(oa, -cap, cap), np.clip(ob, -cap, cap)
    return np.abs(oa - ob)


def isnan(a, t):
    if is_float(t):
        shape = np.shape(a)
        b, nb = _bits(a, t)
        _, mb = _FBITS[t]
        mag = b & _UINT[nb]((1 << (nb - 1)) - 1)
        return (mag > _UINT[nb](((1 << (nb - 1 - mb)) - 1) << mb)).reshape(shape)
    return np.zeros(np.shape(a), bool)


def mlir_type(shape, t):
    dims = "".join(("?" if d is None or d < 0 else str(d)) + "x" for d in shape)
    return "tensor<%s%s>" % (dims, t)


def fmt_value(v, t):
    """One element for messages: the value and, for floats, its bits."""
    if t == "i1":
        return str(bool(v))
    if is_int(t):
        return str(int(v))
    f = float(to_f64(np.asarray([v], dtype=_NP[t]), t)[0])
    bits, _ = _FBITS[t]
    u = _UINT[bits]
    raw = int(np.asarray([v], dtype=_NP[t]).view(u)[0])
    return "%r (0x%0*x)" % (f, bits // 4, raw)


# ---------------------------------------------------------------------------
# Comparison rules
# ---------------------------------------------------------------------------

class Rule:
    """How a result compares with its reference. `check` returns a boolean
    array of the elements that fail (same shape as the result)."""

    name = "rule"

    def check(self, got, want, t):
        raise NotImplementedError

    def describe(self):
        return self.name


class Exact(Rule):
    """Bit for bit; any NaN matches any NaN (payloads are not compared)."""

    name = "exact"

    def check(self, got, want, t):
        if is_float(t):
            gb, _ = _bits(got, t)
            wb, _ = _bits(want, t)
            diff = (gb != wb).reshape(np.shape(got))
            if diff.any():
                diff &= ~(isnan(got, t) & isnan(want, t))
            return diff
        return got != want


class Bits(Rule):
    """Bit for bit, NaN payloads and signs included: for ops that move
    elements without computing (cummax's values keep the input's NaN)."""

    name = "bits"

    def check(self, got, want, t):
        if is_float(t):
            gb, _ = _bits(got, t)
            wb, _ = _bits(want, t)
            return (gb != wb).reshape(np.shape(got))
        return got != want


class Ulps(Rule):
    """Within `ulps` units in the last place of the result type, or within
    `atol` (a number or an array shaped like the result) of the reference;
    NaN exactly where the reference is NaN. An infinite reference needs the
    same infinity unless `ulps` > 0 (the largest finite is 1 ulp from inf)."""

    def __init__(self, ulps, atol=None, name=None, signed_zero=False):
        self.ulps, self.atol, self.signed_zero = ulps, atol, signed_zero
        self.name = name or ("%g ulp" % ulps if atol is None else "%g ulp or atol" % ulps)

    def check(self, got, want, t):
        assert is_float(t), t
        gn, wn = isnan(got, t), isnan(want, t)
        ok = ulp_distance(got, want, t) <= self.ulps
        if self.atol is not None or self.signed_zero:
            g, w = to_f64(got, t), to_f64(want, t)
        if self.atol is not None and not ok.all():
            with np.errstate(invalid="ignore"):
                ok |= np.isfinite(w) & (np.abs(g - w) <= self.atol)
        if self.signed_zero:
            ok &= ~((g == 0) & (w == 0) & (np.signbit(g) != np.signbit(w)))
        both = gn | wn
        if both.any():
            ok = np.where(both, gn & wn, ok)
        return ~ok


@dataclasses.dataclass
class Expect:
    """What one result must be: within `rule` of `want`, or of one of the
    alternatives, elementwise. An alternative is (want, rule, why): another
    PyTorch computation of the same value (e.g. in f64) used where PyTorch's
    own kernel at the op's type is the less accurate one (docs/oracle.md)."""
    want: np.ndarray           # storage array of the result's type
    rule: Rule
    ctx: Optional[Dict[str, tuple]] = None   # name -> (array shaped like the result, type)
    alts: List[tuple] = dataclasses.field(default_factory=list)


# ---------------------------------------------------------------------------
# Parts and cases
# ---------------------------------------------------------------------------

@dataclasses.dataclass
class Arg:
    name: str                  # SSA name without '%'
    type: str                  # MLIR type (may have ? dims)
    value: np.ndarray          # storage array (a view's: its storage, 1-D)
    dtype: str                 # fuser element type
    # A view passed without a copy: (sizes, strides in elements) given to
    # fuserc run --view, and the `fuser.strides` the fusion declares (each
    # stride or "?").
    view: Optional[tuple] = None
    declared: Optional[tuple] = None


@dataclasses.dataclass
class Result:
    ssa: str                   # SSA value without '%' (e.g. "0" or "y")
    type: str
    dtype: str
    expect: Optional[Expect]   # None: computed, not checked


@dataclasses.dataclass
class Part:
    label: str
    args: List[Arg]
    lines: List[str]           # MLIR ops; SSA names are renamed per part
    results: List[Result]
    # A backward part (test/oracle/oracle/autodiff.py): `results` are the
    # forward's, unchecked; fuserc differentiates the fusion (--vjp) and runs
    # its _vjp with `cotangents` (one storage array per result); `grads` are
    # what the gradient of each floating-point argument must be, in order.
    cotangents: Optional[List[np.ndarray]] = None
    grads: Optional[List[Result]] = None


def checked_results(p):
    """The results of part `p` that the run returns and compare() checks."""
    return p.grads if p.grads is not None else p.results


def _float_arg(a):
    return is_float(a.dtype)


_SSA = re.compile(r"%([A-Za-z0-9_$.\-]+)")


def _rename(line, prefix):
    return _SSA.sub(lambda m: "%" + prefix + m.group(1).replace("-", "_"), line)


def fusion_text(name, parts: Sequence[Part]):
    """One func.func holding every part; part i's names get prefix p<i>_."""
    args, lines, results = [], [], []
    for i, p in enumerate(parts):
        pre = "p%d_" % i if len(parts) > 1 else ""
        for a in p.args:
            attr = ""
            if a.declared is not None:
                attr = " {fuser.strides = strided<[%s]>}" % ", ".join(str(s) for s in a.declared)
            args.append("%%%s%s: %s%s" % (pre, a.name, a.type, attr))
        for l in p.lines:
            lines.append("  " + _rename(l, pre))
        for r in p.results:
            results.append(("%" + pre + r.ssa, r.type))
    sig = "func.func @%s(%s) -> (%s) {\n" % (
        name, ", ".join(args), ", ".join(t for _, t in results))
    ret = "  return %s : %s\n}\n" % (", ".join(s for s, _ in results),
                                    ", ".join(t for _, t in results))
    return sig + "\n".join(lines) + "\n" + ret


def input_names(parts):
    out = []
    for i, p in enumerate(parts):
        pre = "p%d_" % i if len(parts) > 1 else ""
        for a in p.args:
            out.append((pre + a.name, a))
    return out


def view_options(parts):
    """fuserc run's --view options for the parts' view arguments."""
    out = []
    for name, a in input_names(parts):
        if a.view is not None:
            sizes, strides = a.view
            out += ["--view", "%s=%s:%s" % (name, ",".join(map(str, sizes)),
                                            ",".join(map(str, strides)))]
    return out


class Case:
    """A named list of parts run as one fusion. `parts` may be a function
    returning the list, called only when the case is selected."""

    def __init__(self, name, parts, extra=(), alone=False):
        self.name = name
        self._parts = parts
        self.extra = list(extra)      # more fuserc options
        self.alone = alone            # never batched with other cases

    @property
    def parts(self):
        if callable(self._parts):
            self._parts = self._parts()
        return self._parts

    @parts.setter
    def parts(self, v):
        self._parts = v


# ---------------------------------------------------------------------------
# Running fuserc
# ---------------------------------------------------------------------------

class Env:
    """Where fuserc is, where to keep failures, options."""

    def __init__(self, fuserc, workdir, keep_dir=None, verbose=False, source_root=None,
                 same_bits_cpu=None):
        self.fuserc = fuserc
        # Run every fusion a second time with the emulator's JIT compiling
        # for this CPU (FUSER_EMULATOR_CPU) and require the same bits.
        self.same_bits_cpu = same_bits_cpu
        self.workdir = workdir
        self.keep_dir = keep_dir
        self.verbose = verbose
        self.source_root = source_root
        self.runs = 0
        self.run_seconds = 0.0


class FusercBroken(Exception):
    """fuserc itself cannot start (a missing or half-written binary or
    library): no result means anything, so the run stops."""


def run_fuserc(env, mlir_path, inputs, outdir, extra=(), timeout=600, cpu=None):
    """Runs `fuserc run` on the CPU (the emulator's JIT compiling for `cpu`,
    else for what FUSER_EMULATOR_CPU or the host says); returns (rc, stderr,
    command)."""
    cmd = [env.fuserc, "run", mlir_path, "--device", "cpu", "--output-dir", outdir]
    for name, path in inputs:
        cmd += ["--input", "%s=%s" % (name, path)]
    cmd += list(extra)
    if cpu:
        cmd += ["--emulator-cpu", cpu]
    t0 = time.time()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    except OSError as e:
        raise FusercBroken("cannot run %s: %s" % (env.fuserc, e))
    env.runs += 1
    env.run_seconds += time.time() - t0
    err = p.stderr.decode(errors="replace")
    if p.returncode != 0 and "error while loading shared libraries" in err:
        raise FusercBroken(err.strip())
    return p.returncode, err, cmd


def is_vjp(parts):
    return any(p.grads is not None for p in parts)


def write_case_files(directory, fname, parts):
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, fname + ".mlir")
    with open(path, "w") as f:
        f.write(fusion_text(fname, parts))
    inputs = []
    for name, a in input_names(parts):
        ip = os.path.join(directory, name + ".npy")
        np.save(ip, np.array(order="C", copy=True, object=a.value))
        inputs.append((name, ip))
    if is_vjp(parts):
        # fuser-vjp names the cotangent of unnamed result k grad_result<k>;
        # only floating-point results have one (a part's cotangents, in order)
        k = 0
        for p in parts:
            cots = iter(p.cotangents)
            for r in p.results:
                if is_float(r.dtype):
                    name = "grad_result%d" % k
                    ip = os.path.join(directory, name + ".npy")
                    np.save(ip, np.array(order="C", copy=True, object=next(cots)))
                    inputs.append((name, ip))
                k += 1
    return path, inputs


def output_names(parts):
    """The .npy files fuserc run writes, in the order compare() takes them."""
    if not is_vjp(parts):
        return ["result%d" % i for i in range(sum(len(p.results) for p in parts))]
    return ["grad_" + name for name, a in input_names(parts) if _float_arg(a)]


def _run_fwd_bwd(env, d, path, fname, parts, inputs, out, extra, cpu=None):
    """The residual form of a backward part: F_fwd on the inputs, then F_bwd
    on what it reads (inputs, F_fwd's results and residuals, cotangents, by
    name, as `fuserc inspect` lists its arguments); the JIT compiles for
    `cpu` when given."""
    fwd_out = os.path.join(d, "out-fwd" + ("-" + cpu if cpu else ""))
    n_fwd = sum(len(p.args) for p in parts)
    rc, err, cmd = run_fuserc(env, path, inputs[:n_fwd], fwd_out,
                              extra + ["--vjp", fname, "--fusion", fname + "_fwd"], cpu=cpu)
    if rc != 0:
        return rc, err, cmd
    icmd = [env.fuserc, "inspect", path, "--vjp", fname, "--residuals", "--fusion",
            fname + "_bwd", "--no-ptxas"]
    p = subprocess.run(icmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    m = re.search(r"fusion %s_bwd\((.*?)\) ->" % re.escape(fname), p.stdout.decode())
    if p.returncode != 0 or not m:
        return 1, p.stderr.decode() or "no %s_bwd in fuserc inspect" % fname, icmd
    files = dict(inputs)
    for f in os.listdir(fwd_out):
        files.setdefault(f[:-4], os.path.join(fwd_out, f))
    names = [a.split(":")[0].strip() for a in m.group(1).split(", ") if a]
    # shape_of_<input>: the input, passed for its shape only
    bwd_inputs = [(n, files[n] if n in files else files[n[len("shape_of_"):]]) for n in names]
    return run_fuserc(env, path, bwd_inputs, out,
                      extra + ["--vjp", fname, "--fusion", fname + "_bwd"], cpu=cpu)


def execute(env, fname, parts, extra=(), directory=None):
    """Compiles and runs `parts` as one fusion; returns (results list or None,
    stderr, command)."""
    own = directory is None
    d = directory or tempfile.mkdtemp(prefix="oracle-", dir=env.workdir)
    try:
        path, inputs = write_case_files(d, fname, parts)
        out = os.path.join(d, "out")
        extra = list(extra) + view_options(parts)
        residual = is_vjp(parts) and "--residuals" in extra
        if is_vjp(parts) and not residual:
            extra += ["--vjp", fname, "--fusion", fname + "_vjp"]

        def run(outdir, cpu=None):
            if residual:
                return _run_fwd_bwd(env, d, path, fname, parts, inputs, outdir, extra, cpu)
            return run_fuserc(env, path, inputs, outdir, extra, cpu=cpu)
        rc, err, cmd = run(out)
        if rc != 0:
            return None, err, cmd
        res = []
        names = output_names(parts)
        n = len(names)
        for name in names:
            res.append(np.load(os.path.join(out, name + ".npy")))
        if env.same_bits_cpu:
            other = os.path.join(d, "out-" + env.same_bits_cpu)
            rc, err2, cmd2 = run(other, env.same_bits_cpu)
            if rc != 0:
                return None, err2, cmd2
            for i in range(n):
                a = res[i]
                b = np.load(os.path.join(other, names[i] + ".npy"))
                ab = np.ascontiguousarray(a).view(np.uint8)
                bb = np.ascontiguousarray(b).view(np.uint8)
                if a.shape != b.shape or not np.array_equal(ab, bb):
                    w = a.dtype.itemsize
                    bad = np.nonzero(np.any(ab.reshape(-1, w) != bb.reshape(-1, w), axis=1))[0]
                    j = int(bad[0]) if len(bad) else 0
                    return None, ("result %d differs between the JIT for the default CPU and "
                                  "for %s: %d elements, the first at flat index %d: %r vs %r" % (
                                      i, env.same_bits_cpu, len(bad), j,
                                      a.reshape(-1)[j], b.reshape(-1)[j])), cmd2
        return res, err, cmd
    finally:
        if own:
            import shutil
            shutil.rmtree(d, ignore_errors=True)


# ---------------------------------------------------------------------------
# Checking
# ---------------------------------------------------------------------------

# ORACLE_STATS=1: compare() records (part, result, type, max ulp, max relative
# error) of every float result here; run.py prints them (to calibrate bounds).
STATS = [] if os.environ.get("ORACLE_STATS") else None


def compare(parts, results, excuse=None, max_report=4):
    """Per part, a list of problem strings (empty when the part passes).
    `excuse(got, wants, type, ctx, bad)` may return a mask of the elements
    a known failure explains, given the references (primary first) and the
    failing elements; they are not counted (see known_failures.py)."""
    problems = []
    k = 0
    for p in parts:
        msgs = []
        for ri, r in enumerate(checked_results(p)):
            got = results[k]
            k += 1
            e = r.expect
            if e is None:
                continue
            want = np.asarray(e.want)
            if got.dtype != want.dtype:
                msgs.append("result %d (%s): dtype %s, expected %s" % (ri, r.type, got.dtype, want.dtype))
                continue
            if got.shape != want.shape:
                msgs.append("result %d (%s): shape %s, expected %s" % (ri, r.type, got.shape, want.shape))
                continue
            bad = e.rule.check(got, want, r.dtype)
            if STATS is not None and is_float(r.dtype) and got.size:
                g, w = to_f64(got, r.dtype), to_f64(want, r.dtype)
                fin = np.isfinite(g) & np.isfinite(w)
                if fin.any():
                    d = ulp_distance(got, want, r.dtype)[fin]
                    rel = (np.abs(g - w)[fin] / np.maximum(np.abs(w[fin]), 1e-300))
                    STATS.append((p.label, ri, r.type, int(d.max()), float(rel.max())))
            for aw, ar, _ in e.alts:
                if bad.any():
                    bad &= ar.check(got, np.asarray(aw), r.dtype)
            if excuse is not None and bad.any():
                bad &= ~excuse(got, [want] + [np.asarray(aw) for aw, _, _ in e.alts],
                               r.dtype, e.ctx, bad)
            nbad = int(np.count_nonzero(bad))
            if nbad:
                idx = np.argwhere(bad)[:max_report]
                rules = e.rule.describe() + "".join(
                    "; or %s of %s" % (ar.describe(), why) for _, ar, why in e.alts)
                lines = ["result %d (%s, %s): %d of %d elements differ" % (
                    ri, r.type, rules, nbad, got.size)]
                for ix in idx:
                    ix = tuple(int(i) for i in ix)
                    s = "  at %s: got %s, want %s" % (
                        list(ix), fmt_value(got[ix], r.dtype), fmt_value(want[ix], r.dtype))
                    if is_float(r.dtype):
                        s += " (%d ulp)" % int(ulp_distance(
                            np.asarray([got[ix]]), np.asarray([want[ix]]), r.dtype)[0])
                    for aw, _, why in e.alts:
                        s += ", %s %s" % (why, fmt_value(np.asarray(aw)[ix], r.dtype))
                    if e.ctx:
                        s += "; inputs " + ", ".join(
                            "%s=%s" % (n, fmt_value(v[ix], vt)) for n, (v, vt) in e.ctx.items())
                    lines.append(s)
                msgs.append("\n".join(lines))
        problems.append(msgs)
    return problems


class PartBuilder:
    """Builds a part line by line:

        pb = PartBuilder("label")
        x = pb.arg("x", array, "f32", dims=(None, 7))   # tensor<?x7xf32>
        pb.line("%0 = fuser.exp %x : tensor<?x7xf32>")
        pb.result("0", array.shape, "f32", want, Ulps(2), dims=(None, 7))
    """

    def __init__(self, label):
        self.label = label
        self.args, self.lines, self.results = [], [], []

    def arg(self, name, value, t, dims=None):
        value = np.array(value, order="C", copy=True)
        shape = value.shape if dims is None else dims
        ty = mlir_type(shape, t)
        self.args.append(Arg(name, ty, value, t))
        return ty

    def arg_view(self, name, view, t, declared, dims=None):
        """A view argument from torch tensor `view` (a permute, a slice, an
        expand of another tensor: its strides and storage offset are
        PyTorch's): fuser reads it through its strides, without a copy.
        `declared`: the strides the fusion declares (ints, "?" where the
        caller passes them); `dims`: the type's dims (None: the view's)."""
        sizes, strides = tuple(view.shape), tuple(view.stride())
        span = 0 if 0 in sizes else 1 + sum((n - 1) * st for n, st in zip(sizes, strides))
        flat = torch.as_strided(view, (span,), (1,), view.storage_offset())
        storage = from_torch(flat, t)
        ty = mlir_type(sizes if dims is None else dims, t)
        self.args.append(Arg(name, ty, storage, t, view=(sizes, strides),
                             declared=tuple(declared)))
        return ty

    def line(self, text):
        self.lines.append(text)

    def result(self, ssa, shape, t, want, rule, dims=None, ctx=None, alts=()):
        ty = mlir_type(shape if dims is None else dims, t)
        exp = None if want is None else Expect(
            np.array(np.broadcast_to(want, shape), order="C"), rule, ctx, list(alts))
        self.results.append(Result(ssa, ty, t, exp))
        return ty

    def part(self):
        return Part(self.label, self.args, self.lines, self.results)
