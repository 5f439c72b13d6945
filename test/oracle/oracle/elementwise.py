"""Every elementwise op of the dialect, for every element type it accepts.

Each (op, type) case has two parts in one fusion:
  values: a 1-D tensor of every special value (unary), or every pair of
          special values (binary), plus random values of every magnitude and
          random bit patterns; its length is not a multiple of the vector
          width;
  shaped: a rank-3 tensor of prime sizes, with a rank-0 second operand for
          binary ops (the scalar combines without a broadcast).
References: PyTorch on the same inputs; f16 and bf16 compute in f32 and round
once (eager PyTorch's half arithmetic), see docs/oracle.md.
"""

import dataclasses
from typing import Callable, Optional, Tuple

import numpy as np
import torch

from . import exact, values
from .core import (ALL_TYPES, FLOAT_TYPES, HALF_TYPES, INT_TYPES, INTLIKE_TYPES,
                   NUMERIC_TYPES, Arg, Case, Exact, Expect, Part, Result, Ulps,
                   from_f64, from_torch, iinfo, is_float, is_int, mlir_type,
                   np_dtype, to_f64, to_torch)

# ---------------------------------------------------------------------------
# Tolerances (docs/oracle.md lists each with its reason)
# ---------------------------------------------------------------------------

EXACT = Exact()


def transcendental(t):
    """fuser's lib/Math (its default Fast tier) is within 2 ulp of the exact
    result, PyTorch's CPU functions (glibc/Sleef) within 1 ulp: the bound
    against PyTorch f32 is 2 ulp, and the f64 reference (math_alt) holds
    fuser to its own 2 ulp where the two differ by more. Half types compute
    in f32 and round once on both sides: 1 ulp of the half type."""
    if not is_float(t):
        return EXACT
    return Ulps(1) if t in HALF_TYPES else Ulps(2)


def composite(t):
    """Ops PyTorch computes with several roundings (sigmoid, silu, gelu,
    tanh-gelu, lerp, rsqrt, reciprocal through 1/x...)."""
    if not is_float(t):
        return EXACT
    return Ulps(1) if t in HALF_TYPES else Ulps(4)


def derived(t):
    """lib/Math's functions composed from its core ones (Derived.cpp: tan,
    the inverse trig and the hyperbolic functions): a few roundings between
    the core calls, measured at most 4 ulp in f32 and f64 (docs/math.md).
    Half types compute in f32 and round once: 1 ulp of the half type."""
    if not is_float(t):
        return EXACT
    return Ulps(1) if t in HALF_TYPES else Ulps(4)


def exact_or_half(t):
    """Exact in f32/f64/integers; the half types round an f32 result once
    on both sides, so they are exact too."""
    return EXACT


# ---------------------------------------------------------------------------
# References
# ---------------------------------------------------------------------------

def compute_type(t):
    return "f32" if t in HALF_TYPES else t


def torch_ref(fn):
    """fn on torch tensors of the compute type; the result rounded to the
    result type by the caller."""
    def ref(arrays, types, rtype):
        ts = [to_torch(a, t).to(torch_dtype_of(compute_type(t))) for a, t in zip(arrays, types)]
        return from_torch(fn(*ts), rtype)
    return ref


def torch_dtype_of(t):
    from .core import torch_dtype
    return torch_dtype(t)


def int_div_ref(mode):
    """Integer div: PyTorch where defined; x / 0 -> 0 and INT_MIN / -1 ->
    INT_MIN (fuser's documented results, PyTorch raises or is undefined)."""
    def ref(arrays, types, rtype):
        a, b = (np.broadcast_to(x, np.broadcast_shapes(arrays[0].shape, arrays[1].shape))
                for x in arrays)
        lo, _ = iinfo(types[0])
        special = (b == 0) | ((a == lo) & (b == -1))
        bb = np.where(special, 1, b).astype(b.dtype)
        r = torch.div(to_torch(a, types[0]), to_torch(bb, types[1]), rounding_mode=mode).numpy()
        r = np.where(b == 0, 0, r)
        r = np.where((a == lo) & (b == -1), lo, r)
        return r.astype(np_dtype(rtype))
    return ref


def int_remainder_ref(arrays, types, rtype):
    """Integer remainder: PyTorch; x % 0 -> 0 (documented), INT_MIN % -1 -> 0."""
    a, b = (np.broadcast_to(x, np.broadcast_shapes(arrays[0].shape, arrays[1].shape))
            for x in arrays)
    lo, _ = iinfo(types[0])
    special = (b == 0) | ((a == lo) & (b == -1))
    bb = np.where(special, 1, b).astype(b.dtype)
    r = torch.remainder(to_torch(a, types[0]), to_torch(bb, types[1])).numpy()
    return np.where(special, 0, r).astype(np_dtype(rtype))


def int_fmod_ref(arrays, types, rtype):
    """Integer fmod: PyTorch (C's %); x fmod 0 -> 0 (documented; PyTorch
    raises) and INT_MIN fmod -1 -> 0 (C leaves it undefined)."""
    a, b = (np.broadcast_to(x, np.broadcast_shapes(arrays[0].shape, arrays[1].shape))
            for x in arrays)
    special = (b == 0) | (b == -1)
    bb = np.where(special, 1, b).astype(b.dtype)
    r = torch.fmod(to_torch(a, types[0]), to_torch(bb, types[1])).numpy()
    return np.where(special, 0, r).astype(np_dtype(rtype))


def int_pow_ref(arrays, types, rtype):
    """Integer pow: PyTorch (wrapping) for exponents >= 0; a negative exponent
    gives 0 except for bases 1 and -1 (documented; PyTorch raises)."""
    a, b = (np.broadcast_to(x, np.broadcast_shapes(arrays[0].shape, arrays[1].shape))
            for x in arrays)
    neg = b < 0
    bb = np.where(neg, 0, b).astype(b.dtype)
    r = torch.pow(to_torch(a, types[0]), to_torch(bb, types[1])).numpy()
    odd = (b % 2) != 0
    nr = np.where(a == 1, 1, np.where(a == -1, np.where(odd, -1, 1), 0))
    return np.where(neg, nr, r).astype(np_dtype(rtype))


def fma_ref(arrays, types, rtype):
    t = types[0]
    if is_int(t):
        a, b, c = arrays
        with np.errstate(over="ignore"):
            return (a.astype(np_dtype(t)) * b + c).astype(np_dtype(t))
    if t in HALF_TYPES:
        # one f32 fma, rounded to the half type (f16/bf16 compute in f32)
        f = [from_f64(to_f64(x, t), "f32") for x in arrays]
        return from_f64(to_f64(exact.fma(*f, "f32"), "f32"), t)
    return exact.fma(*arrays, t)


def cast_ref(arrays, types, rtype):
    """Tensor.to(dtype), except float -> integer out of range or NaN, where
    PyTorch is undefined: fuser saturates and gives 0 for NaN (documented)."""
    (a,), (t,) = arrays, types
    x = to_torch(a, t)
    if is_float(t) and rtype in INT_TYPES:
        v = to_f64(a, t)
        lo, hi = iinfo(rtype)
        tr = np.trunc(np.nan_to_num(v, nan=0.0, posinf=0.0, neginf=0.0))
        inrange = np.isfinite(v) & (tr >= float(lo)) & (tr < float(hi + 1))
        safe = np.where(inrange, v, 0.0)
        r = torch.from_numpy(safe).to(torch_dtype_of(rtype)).numpy()
        sat = np.where(np.isnan(v), 0, np.where(v > 0, hi, lo))
        return np.where(inrange, r, sat).astype(np_dtype(rtype))
    return from_torch(x.to(torch_dtype_of(rtype)), rtype)


# ---------------------------------------------------------------------------
# Op table
# ---------------------------------------------------------------------------

@dataclasses.dataclass
class Op:
    name: str
    arity: int
    types: Tuple[str, ...]
    ref: Callable                       # (arrays, types, result type) -> storage
    rule: Callable = exact_or_half      # result type -> Rule
    attr: str = ""                      # after the operands, e.g. " rounding_mode = floor"
    label: str = ""                     # case name if not `name`
    result: Optional[str] = None        # "i1" for predicates
    domain: Optional[Callable] = None   # (type, arrays, rng) -> arrays
    int_ref: Optional[Callable] = None  # reference for integer types
    # Alternative reference where PyTorch's kernel at the op's type is less
    # accurate than fuser's: (arrays, types, result type) -> (want, rule, why)
    alt: Optional[Callable] = None


def _t(fn):
    return torch_ref(fn)


def f64_alt(fn, atol=None, f32_ulps=1):
    """PyTorch in f64 on the same inputs, rounded to the result type: within
    1 ulp (`f32_ulps` for f32 results; plus `atol(arrays64)` for formulas
    that cancel), for f16, bf16 and f32 results."""
    def alt(arrays, types, rtype):
        if rtype not in ("f16", "bf16", "f32"):
            return None
        ts = [torch.from_numpy(to_f64(a, t)) for a, t in zip(arrays, types)]
        want = from_f64(fn(*ts).numpy(), rtype)
        tol = None if atol is None else atol([x.numpy() for x in ts], rtype)
        return want, Ulps(f32_ulps if rtype == "f32" else 1, tol), "PyTorch f64"
    return alt


def math_alt(fn, atol=None):
    """f64_alt for the ops lib/Math computes: its Fast tier (the default) is
    within 2 ulp of the exact result for f32 (docs/math.md), which is within
    2 ulp of the f64 reference rounded to f32."""
    return f64_alt(fn, atol, f32_ulps=2)


def _formula_atol(arrays64, rtype):
    """x/2 * (1 + erf(..)) and x/2 * (1 + tanh(..)) cancel for negative x:
    an f32 computation is off by up to |x| * eps(f32) however accurate
    erf/tanh are."""
    return np.abs(arrays64[0]) * 2.0 ** -23


def swapped_alt(fn):
    """PyTorch with the operands swapped: for maximum/minimum of +0 and -0
    PyTorch's scalar path returns the first operand and its vectorized path
    (vmaxps/vminps) the second, so either zero is PyTorch's answer."""
    def alt(arrays, types, rtype):
        a, b = arrays
        ta, tb = types
        return torch_ref(fn)([b, a], [tb, ta], rtype), Exact(), "PyTorch, operands swapped"
    return alt


def either_zero_alt(arrays, types, rtype):
    """The reference with +0 and -0 equal (Ulps(0)): for clamp of a zero by
    a zero bound, PyTorch's scalar path (std::max) returns the input and its
    vectorized path (vmaxps) the bound, so either zero is PyTorch's."""
    return torch_ref(torch.clamp)(arrays, types, rtype), Ulps(0), "PyTorch, either zero"


def lerp_formula(start, end, weight):
    """torch.lerp's formula with PyTorch ops, for the f64 alternative:
    start + w * (end - start) when |w| < 0.5, else end - (end - start) *
    (1 - w)."""
    small = weight.abs() < 0.5
    return torch.where(small, start + weight * (end - start), end - (end - start) * (1 - weight))


def lerp_ref(arrays, types, rtype):
    """fuser's documented lerp, as PyTorch's CPU vector kernel (lerp_vec) and
    its CUDA kernel compute it: fma(w, end - start, start) when |w| < 0.5,
    else fma(w - 1, end - start, end), in the compute type (f32 for halves),
    each fma exact (one rounding), then rounded to the result type.
    PyTorch 1.13 tests w < 0.5 instead of |w| < 0.5, which differs for
    w <= -0.5; PyTorch's scalar path rounds w * (end - start) first."""
    ct = compute_type(types[0])
    shape = np.broadcast_shapes(*(np.shape(a) for a in arrays))
    s, e, w = (np.broadcast_to(from_f64(to_f64(a, t), ct), shape) for a, t in zip(arrays, types))
    with np.errstate(all="ignore"):
        diff = e - s
        below = w - w.dtype.type(1)
    r = np.where(np.abs(w) < 0.5, exact.fma(w, diff, s, ct), exact.fma(below, diff, e, ct))
    return r if ct == rtype else from_f64(to_f64(r, ct), rtype)


def fmod_alt(arrays, types, rtype):
    """numpy's fmod (libm's, exact) where PyTorch's vectorized fmod (Sleef)
    returns NaN for huge quotients (FLT_MAX fmod 1e-45)."""
    ct = compute_type(types[0])
    a, b = (from_f64(to_f64(x, t), ct) for x, t in zip(arrays, types))
    return from_f64(np.fmod(a, b).astype(np.float64), rtype), Exact(), "libm fmod"


def remainder_alt(arrays, types, rtype):
    """PyTorch's scalar remainder (r = fmod(a, b); r += b when r != 0 and
    its sign differs from b's) with numpy's fmod (libm's, exact), where
    PyTorch's vectorized fmod (Sleef) returns NaN for huge quotients
    (FLT_MAX % 1e-45)."""
    ct = compute_type(types[0])
    a, b = (from_f64(to_f64(x, t), ct) for x, t in zip(arrays, types))
    r = np.fmod(a, b)
    r = np.where((r != 0) & ((b < 0) != (r < 0)), r + b, r)
    return from_f64(r.astype(np.float64), rtype), Exact(), "fmod-based remainder"


def floor_divide_alt(arrays, types, rtype):
    """numpy.floor_divide: PyTorch's floor-division algorithm (fmod, then
    round the quotient) with libm's exact fmod, where PyTorch's vectorized
    fmod (Sleef) returns NaN for quotients that overflow."""
    ct = compute_type(types[0])
    a, b = (from_f64(to_f64(x, t), ct) for x, t in zip(arrays, types))
    want = np.floor_divide(a, b)
    return from_f64(want.astype(np.float64), rtype), Exact(), "numpy floor_divide"


def _nonneg_small_exponent(t, arrays, rng):
    # integer pow: mostly small exponents (large ones just wrap to 0/1/-1)
    if is_int(t):
        a, b = arrays
        n = b.size
        k = rng.integers(0, 4, n).reshape(b.shape)
        small = rng.integers(-3, 12, n).reshape(b.shape).astype(b.dtype)
        b = np.where(k > 0, small, b).astype(b.dtype)
        return [a, b]
    return arrays


def _gelu_tanh(x):
    return torch.nn.functional.gelu(x, approximate="tanh")


F = FLOAT_TYPES
N = NUMERIC_TYPES
A = ALL_TYPES

OPS = [
    # unary
    Op("neg", 1, N, _t(torch.neg)),
    Op("abs", 1, N, _t(torch.abs)),
    Op("exp", 1, F, _t(torch.exp), transcendental, alt=math_alt(torch.exp)),
    Op("exp2", 1, F, _t(torch.exp2), transcendental, alt=math_alt(torch.exp2)),
    Op("expm1", 1, F, _t(torch.expm1), transcendental, alt=math_alt(torch.expm1)),
    Op("log", 1, F, _t(torch.log), transcendental, alt=math_alt(torch.log)),
    Op("log2", 1, F, _t(torch.log2), transcendental, alt=math_alt(torch.log2)),
    Op("log1p", 1, F, _t(torch.log1p), transcendental, alt=math_alt(torch.log1p)),
    Op("sqrt", 1, F, _t(torch.sqrt)),
    Op("rsqrt", 1, F, _t(torch.rsqrt), composite, alt=f64_alt(torch.rsqrt)),
    Op("reciprocal", 1, F, _t(torch.reciprocal)),
    Op("sin", 1, F, _t(torch.sin), transcendental, alt=math_alt(torch.sin)),
    Op("cos", 1, F, _t(torch.cos), transcendental, alt=math_alt(torch.cos)),
    Op("tanh", 1, F, _t(torch.tanh), transcendental, alt=math_alt(torch.tanh)),
    Op("sigmoid", 1, F, _t(torch.sigmoid), composite, alt=math_alt(torch.sigmoid)),
    Op("erf", 1, F, _t(torch.erf), transcendental, alt=math_alt(torch.erf)),
    Op("log10", 1, F, _t(torch.log10), transcendental, alt=math_alt(torch.log10)),
    Op("tan", 1, F, _t(torch.tan), derived, alt=f64_alt(torch.tan, f32_ulps=4)),
    Op("asin", 1, F, _t(torch.asin), derived, alt=f64_alt(torch.asin, f32_ulps=4)),
    Op("acos", 1, F, _t(torch.acos), derived, alt=f64_alt(torch.acos, f32_ulps=4)),
    Op("atan", 1, F, _t(torch.atan), transcendental, alt=math_alt(torch.atan)),
    Op("sinh", 1, F, _t(torch.sinh), derived, alt=f64_alt(torch.sinh, f32_ulps=4)),
    Op("cosh", 1, F, _t(torch.cosh), derived, alt=f64_alt(torch.cosh, f32_ulps=4)),
    Op("asinh", 1, F, _t(torch.asinh), derived, alt=f64_alt(torch.asinh, f32_ulps=4)),
    Op("acosh", 1, F, _t(torch.acosh), derived, alt=f64_alt(torch.acosh, f32_ulps=4)),
    Op("atanh", 1, F, _t(torch.atanh), derived, alt=f64_alt(torch.atanh, f32_ulps=4)),
    Op("relu", 1, N, _t(torch.relu)),
    Op("gelu", 1, F, _t(torch.nn.functional.gelu), composite,
       alt=f64_alt(torch.nn.functional.gelu, _formula_atol)),
    Op("gelu", 1, F, _t(_gelu_tanh), composite, attr=" approximate = tanh", label="gelu_tanh",
       alt=f64_alt(_gelu_tanh, _formula_atol)),
    Op("silu", 1, F, _t(torch.nn.functional.silu), composite,
       alt=f64_alt(torch.nn.functional.silu)),
    Op("floor", 1, N, _t(torch.floor)),
    Op("ceil", 1, N, _t(torch.ceil)),
    Op("round", 1, N, _t(torch.round)),
    Op("trunc", 1, N, _t(torch.trunc)),
    Op("frac", 1, F, _t(torch.frac)),
    Op("sign", 1, N, _t(torch.sign)),
    Op("not", 1, INTLIKE_TYPES, _t(torch.bitwise_not)),
    Op("isnan", 1, A, _t(torch.isnan), result="i1"),
    Op("isinf", 1, A, _t(torch.isinf), result="i1"),
    Op("isfinite", 1, A, _t(torch.isfinite), result="i1"),
    Op("isposinf", 1, A, _t(torch.isposinf), result="i1"),
    Op("isneginf", 1, A, _t(torch.isneginf), result="i1"),
    Op("signbit", 1, A, _t(torch.signbit), result="i1"),
    # binary
    Op("add", 2, N, _t(torch.add)),
    Op("sub", 2, N, _t(torch.sub)),
    Op("mul", 2, N, _t(torch.mul)),
    Op("div", 2, F, _t(torch.div)),
    Op("div", 2, N, _t(lambda a, b: torch.div(a, b, rounding_mode="trunc")),
       attr=" rounding_mode = trunc", label="div_trunc", int_ref=int_div_ref("trunc")),
    Op("div", 2, N, _t(lambda a, b: torch.div(a, b, rounding_mode="floor")),
       attr=" rounding_mode = floor", label="div_floor", int_ref=int_div_ref("floor"),
       alt=floor_divide_alt),
    Op("pow", 2, N, _t(torch.pow), transcendental, domain=_nonneg_small_exponent,
       int_ref=int_pow_ref, alt=math_alt(torch.pow)),
    Op("maximum", 2, A, _t(torch.maximum), alt=swapped_alt(torch.maximum)),
    Op("minimum", 2, A, _t(torch.minimum), alt=swapped_alt(torch.minimum)),
    Op("remainder", 2, N, _t(torch.remainder), int_ref=int_remainder_ref, alt=remainder_alt),
    Op("fmod", 2, N, _t(torch.fmod), int_ref=int_fmod_ref, alt=fmod_alt),
    Op("atan2", 2, F, _t(torch.atan2), transcendental, alt=math_alt(torch.atan2)),
    Op("eq", 2, A, _t(torch.eq), result="i1"),
    Op("ne", 2, A, _t(torch.ne), result="i1"),
    Op("lt", 2, A, _t(torch.lt), result="i1"),
    Op("le", 2, A, _t(torch.le), result="i1"),
    Op("gt", 2, A, _t(torch.gt), result="i1"),
    Op("ge", 2, A, _t(torch.ge), result="i1"),
    Op("and", 2, INTLIKE_TYPES, _t(torch.bitwise_and)),
    Op("or", 2, INTLIKE_TYPES, _t(torch.bitwise_or)),
    Op("xor", 2, INTLIKE_TYPES, _t(torch.bitwise_xor)),
    # ternary
    Op("clamp", 3, N, _t(torch.clamp), alt=either_zero_alt),
    Op("lerp", 3, F, lerp_ref, composite, alt=f64_alt(lerp_formula)),
    Op("fma", 3, N, fma_ref),
]


def op_types(op, t):
    """(operand types, result type) of an op on element type t."""
    return [t] * op.arity, (op.result or t)


# ---------------------------------------------------------------------------
# Building the parts
# ---------------------------------------------------------------------------

def _reference(op, arrays, types, rtype):
    t = types[0]
    if op.int_ref is not None and is_int(t):
        return op.int_ref(arrays, types, rtype)
    return op.ref(arrays, types, rtype)


def _ctx(names, arrays, types, shape):
    return {n: (np.broadcast_to(a, shape), t) for n, a, t in zip(names, arrays, types)}


def elementwise_part(op, t, label, arrays, shapes, rng=None):
    """One part applying `op` to `arrays` (operand i has shapes[i])."""
    types, rtype = op_types(op, t)
    names = ["a", "b", "c"][:op.arity]
    args = [Arg(n, mlir_type(s, ty), np.array(order="C", copy=True, object=a.reshape(s)), ty)
            for n, a, s, ty in zip(names, arrays, shapes, types)]
    out_shape = max(shapes, key=len)
    operand_types = [mlir_type(s, ty) for s, ty in zip(shapes, types)]
    if len(set(operand_types)) == 1:
        tys = operand_types[0]
    else:
        tys = ", ".join(operand_types)
    line = "%%0 = fuser.%s %s%s : %s" % (
        op.name, ", ".join("%" + n for n in names), op.attr, tys)
    arrs = [a.reshape(s) for a, s in zip(arrays, shapes)]
    want = _reference(op, arrs, types, rtype)
    want = np.array(order="C", copy=True, object=np.broadcast_to(want, out_shape))
    rule = op.rule(rtype)
    alts = []
    if op.alt is not None and not (is_int(t) or t == "i1"):
        a = op.alt(arrs, types, rtype)
        if a is not None:
            aw, ar, why = a
            alts.append((np.array(np.broadcast_to(aw, out_shape), order="C"), ar, why))
    return Part(label, args, [line],
                [Result("0", mlir_type(out_shape, rtype), rtype,
                        Expect(want, rule, _ctx(names, arrs, types, out_shape), alts))])


def where_part(t, label, shape, rng, cond_scalar=False):
    cshape = () if cond_scalar else shape
    c = values.random("i1", cshape, rng)
    a = values.with_specials(t, shape, rng)
    b = values.random(t, (), rng)  # rank-0 else-branch
    args = [Arg("c", mlir_type(cshape, "i1"), c, "i1"), Arg("a", mlir_type(shape, t), a, t),
            Arg("b", mlir_type((), t), b, t)]
    line = "%%0 = fuser.where %%c, %%a, %%b : %s, %s, %s" % (
        mlir_type(cshape, "i1"), mlir_type(shape, t), mlir_type((), t))
    want = np.where(np.broadcast_to(c, shape), a, np.broadcast_to(b, shape))
    want = np.array(order="C", copy=True, object=want.astype(a.dtype))
    return Part(label, args, [line], [Result("0", mlir_type(shape, t), t,
                Expect(want, EXACT, {"c": (np.broadcast_to(c, shape), "i1"), "a": (a, t)}))])


def op_values(op, t, rng):
    """Input arrays for the 'values' part."""
    types, _ = op_types(op, t)
    if op.arity == 1:
        n = len(values.specials(t))
        arrays = [values.with_specials(t, (n + 1003,), rng)]
    elif op.arity == 2:
        a, b = values.cross(t, t, rng, extra=1001)
        arrays = [a, b]
    else:
        n = 1001
        arrays = [values.with_specials(t, (n,), rng) for _ in range(3)]
        if op.name == "clamp":
            # low <= high mostly, some crossed bounds and NaN bounds
            lo, hi = arrays[1], arrays[2]
            sw = rng.random(n) < 0.8
            f = to_f64(lo, t), to_f64(hi, t)
            swap = sw & (f[0] > f[1])
            lo2, hi2 = np.where(swap, hi, lo), np.where(swap, lo, hi)
            arrays = [arrays[0], lo2.astype(lo.dtype), hi2.astype(hi.dtype)]
    if op.domain:
        arrays = op.domain(t, arrays, rng)
    return arrays


def op_cases(rng_for):
    cases = []
    for op in OPS:
        for t in op.types:
            name = "elementwise/%s/%s" % (op.label or op.name, t)
            cases.append(Case(name, _bind(_op_parts, op, t, name, rng_for)))
    for t in ALL_TYPES:
        name = "elementwise/where/%s" % t
        cases.append(Case(name, _bind(_where_parts, t, name, rng_for)))
    return cases


def _bind(fn, *a):
    return lambda: fn(*a)


def _where_parts(t, name, rng_for):
    rng = rng_for(name)
    return [where_part(t, "values", (1031,), rng),
            where_part(t, "rank-0 condition", (3, 5, 7), rng, True)]


def _op_parts(op, t, name, rng_for):
    rng = rng_for(name)
    arrays = op_values(op, t, rng)
    parts = [elementwise_part(op, t, "values", arrays, [a.shape for a in arrays])]
    shape = (3, 5, 7)
    sh = [values.random(t, shape, rng)]
    shapes = [shape]
    for i in range(1, op.arity):
        sh.append(values.random(t, (), rng))
        shapes.append(())
    if op.domain:
        sh = op.domain(t, sh, rng)
    parts.append(elementwise_part(op, t, "3x5x7 with rank-0 operands", sh, shapes))
    return parts


def cast_cases(rng_for):
    cases = []
    for s in ALL_TYPES:
        name = "cast/from_%s" % s
        cases.append(Case(name, _bind(_cast_parts, s, name, rng_for)))
    return cases


def _half_conversion_values(s):
    """Every bit pattern of bf16 and f16 (NaNs, subnormals, infinities);
    from f32, every finite bf16 and f16 value, each halfway point between
    neighbours (a tie: to even) and the f32 values either side of it, which
    round down and up."""
    if s in ("bf16", "f16"):
        return np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np_dtype(s))
    if s != "f32":
        return np.zeros(0, np_dtype(s))
    out = []
    for half in ("bf16", "f16"):
        bits = np.arange(0x7fff, dtype=np.uint32)
        if half == "bf16":
            v = (bits << 16).view(np.float32)
        else:
            v = bits.astype(np.uint16).view(np.float16).astype(np.float32)
        v = v[np.isfinite(v)]
        lo, hi = v[:-1].astype(np.float64), v[1:].astype(np.float64)
        mid = ((lo + hi) / 2).astype(np.float32)   # exact: the halves have few bits
        up = np.nextafter(mid, np.float32(np.inf))
        down = np.nextafter(mid, np.float32(0))
        out += [v, mid, up, down]
    x = np.concatenate(out)
    return np.concatenate([x, -x])


def _double_rounding_values(s, rng):
    """Values PyTorch converts to bf16 and f16 through f32, rounding twice
    (c10::BFloat16 and c10::Half are built from a float): f64 values just off
    a halfway point of bf16 or f16 (by less than half an f32 ulp, so f32
    lands on the halfway point and the tie goes to even), normal and
    subnormal; integers past 2^24 likewise for bf16."""
    if s == "f64":
        mids = []
        h = rng.integers(0, 0x7bff, 300).astype(np.uint16).view(np.float16)
        h = np.concatenate([h, np.arange(1, 40, dtype=np.uint16).view(np.float16)])
        lo = h.astype(np.float64)
        hi = np.nextafter(h, np.float16(np.inf)).astype(np.float64)
        mids.append((lo + hi) / 2)
        b = np.concatenate([rng.integers(0, 0x7f7f, 300), np.arange(1, 40)]).astype(np.uint32)
        lo = (b << 16).view(np.float32).astype(np.float64)
        hi = ((b + 1) << 16).view(np.float32).astype(np.float64)
        mids.append((lo + hi) / 2)
        m = np.concatenate(mids)
        v = np.concatenate([m * (1 + 2.0 ** -40), m * (1 - 2.0 ** -40)])
        return np.concatenate([v, -v])
    if s in ("i32", "i64"):
        k = np.arange(128, 256, dtype=np.int64)
        v = [k * 2 ** 17 + 2 ** 16 + 1, k * 2 ** 17 + 2 ** 16 - 1]
        if s == "i64":
            v += [k * 2 ** 40 + 2 ** 39 + 1, k * 2 ** 40 + 2 ** 39 - 1]
        v = np.concatenate(v)
        return np.concatenate([v, -v]).astype(np_dtype(s))
    return np.zeros(0, np_dtype(s))


def _cast_parts(s, name, rng_for):
    parts = []
    rng = rng_for(name)
    n = len(values.specials(s))
    x = values.with_specials(s, (n + 1001,), rng)
    if is_float(s):
        # values around every integer range boundary
        edges = []
        for r in INT_TYPES:
            lo, hi = iinfo(r)
            edges += [lo, hi, lo - 1.0, hi + 1.0, lo + 0.5, hi - 0.5, lo * 2.0, hi * 2.0]
        e = from_f64(np.array(edges, np.float64), s)
        x = np.concatenate([x, e])
    x = np.concatenate([x, _double_rounding_values(s, rng), _half_conversion_values(s)])
    for d in ALL_TYPES:
        if d == s:
            continue
        want = cast_ref([x], [s], d)
        rule = EXACT
        args = [Arg("a", mlir_type(x.shape, s), x, s)]
        line = "%%0 = fuser.cast %%a : %s to %s" % (mlir_type(x.shape, s), mlir_type(x.shape, d))
        parts.append(Part("to %s" % d, args, [line],
                          [Result("0", mlir_type(x.shape, d), d,
                                  Expect(want, rule, {"a": (x, s)}))]))
    return parts


def cases(rng_for):
    return op_cases(rng_for) + cast_cases(rng_for)
