"""Random fusions against PyTorch (docs/oracle.md, "Random fusions").

A seed gives one random, well-typed fusion graph (random.Random(seed)): one
to three inputs; ops of every family (unary and binary elementwise math,
comparisons and where, clamp/lerp/fma, casts, constants, broadcast, reshape,
permute, slice, pad, concat, the reductions sum/max/min/mean/prod with
keepdim, var_mean, softmax, log_softmax, layer_norm, rms_norm) over f32,
f16, bf16, i32 and i1; shapes with size-1, prime and sometimes empty dims,
some of them dynamic (`?`), one graph in ten with rows of 1000 to 8191; one
to three outputs.

The graph is a JSON-able dict (`nodes`, `outputs`, and `syms`: the sizes of
the dim symbols; a dim is a product of symbols, so that reshapes can merge
and split dims and the shrinker can shrink a size everywhere at once).
`infer` types it as the verifier does; `part` makes it an oracle Part
(fusion text, .npy inputs, what every result must be) that core.execute runs
through `fuserc run --device cpu`, batched with other graphs.

Reference. Every op is evaluated with the oracle's own references
(elementwise.OPS, reductions.reference, normalization.*_ref) on the values
the ops before it gave, each result rounded to its type, in several samples:
  0      PyTorch in f64 (for elementwise ops the oracle's f64 alternative
         where it has one), rounded to the result type: the reference;
  1      PyTorch at the op's type (the oracle's primary reference; f32 for
         reductions and normalizations);
  2      a plain f32 kernel: sums, products and means one element after the
         other, var_mean and the normalizations in two passes;
  3, 4   the same with the elements by increasing (decreasing) magnitude,
         every result then moved up (down) by its op's oracle bound, to +0
         (-0) where 0 is within the bound;
  5...   the same in random orders, moved by random fractions of the bounds;
  100    sample 0 with the models of the open bugs in KNOWN_BUGS;
  200, 201  sample 0 with floor, comparisons, remainder... (DISCONTINUOUS)
         taken across their jumps where their operands may be off by as
         much as the samples above say (_across).
A result passes where it is within
the bound (ulps, atol) of its last op that computes (shape ops and where
carry their operands' bounds) plus SPREAD times the distance of the
farthest sample from sample 0; NaN exactly where sample 0 has NaN; +0/-0
exactly where that bound is exact and no sample differs; integers exact,
or between the smallest and largest sample where samples differ. Where the
samples differ by more than half the value (ill-conditioned) only NaN and
the infinities are checked; elements whose samples disagree on NaN, on
infinity, or on an i1 are unstable: not checked. Both are counted. With no
inexact op upstream every sample is the same and the check is bit for bit.

On a mismatch or a compile error the graph is shrunk (outputs dropped,
outputs replaced by their operands, ops by operands of their type, values
cut into new inputs, sizes shrunk, dims made static, special input values
dropped) while it fails the same way, and the smallest graph is written as
seed-<N>.mlir, with the graph as JSON in its header so that
`random_fusions.py --repro FILE` (and the ctest) can check it again.
"""

import copy
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

import numpy as np
import torch

from . import elementwise, normalization, reductions, values
from .core import (Arg, Env, Expect, FusercBroken, Part, Result, Rule, Ulps, compare,
                   execute, from_f64, is_float, mlir_type, np_dtype, ordered, to_f64,
                   write_case_files)
from .known_failures import KNOWN_FAILURES
from .shapes import _expand, _literal

# ---------------------------------------------------------------------------
# Reproducers kept out of the ctest run: file name -> why (a compiler bug
# being fixed). Remove an entry when its bug is fixed.
# ---------------------------------------------------------------------------

KNOWN = {
}


class KnownBug:
    """A fuser bug found here and not fixed yet. `model(g, i, args, vals,
    outs)` returns node i's results as the bug makes them (on the f64
    reference's values); the sample of these models (KNOWN_MODE) makes the
    elements the bug touches unstable, so that the seeds pass while the bug
    is open. Remove the entry (and the file's line in KNOWN) once it is
    fixed."""

    def __init__(self, name, what, reproducer, applies, model):
        self.name, self.what, self.reproducer = name, what, reproducer
        self.applies, self.model = applies, model


# fuserc errors that are known bugs: a graph failing with a matching message
# is counted, not failed. (pattern, name, what, reproducer)
KNOWN_ERRORS = [
]


# Mismatches of graphs of a known shape that are a known bug: such a graph
# is still run and checked, and a mismatch is counted, not failed.
# (name, what, reproducer, predicate(graph, types))
KNOWN_PATTERNS = [
]

KNOWN_BUGS = [
]

TYPES = ("f32", "f16", "bf16", "i32", "i1")
FLOATS = ("f32", "f16", "bf16")
NUMERIC = ("f32", "f16", "bf16", "i32")
MAX_ELEMS = 2048        # elements of any one value (most graphs)
LARGE_ELEMS = 1 << 16   # one graph in ten: long rows (the schedulers' other variants)
SIZES = [1, 2, 3, 5, 7, 11, 13, 17, 31, 32, 33, 64, 97, 128, 257]
SIZE_W = [14, 8, 10, 10, 9, 7, 6, 5, 4, 3, 3, 2, 2, 1, 1]
LARGE_SIZES = [1000, 1024, 1031, 2048, 4097, 8191]

EW = {(op.label or op.name): op for op in elementwise.OPS}
UNARY_FLOAT = ["exp", "exp2", "expm1", "log", "log2", "log1p", "sqrt", "rsqrt",
               "reciprocal", "sin", "cos", "tanh", "sigmoid", "erf", "gelu", "gelu_tanh",
               "silu", "log10", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh",
               "acosh", "atanh"]
UNARY_NUM = ["neg", "abs", "relu", "floor", "ceil", "round", "trunc", "sign"]
PREDICATES = ["isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit"]
BINARY = ["add", "sub", "mul", "div", "div_trunc", "div_floor", "pow", "maximum", "minimum",
          "remainder", "fmod", "atan2", "and", "or", "xor"]
COMPARE = ["eq", "ne", "lt", "le", "gt", "ge"]
TERNARY = ["clamp", "lerp", "fma"]
# max/min of i1 are any/all (their known failure, i1 in the emulator's
# shared memory, is fixed); sum/prod of i1 promote in PyTorch, so not here.
REDUCE = {"sum": NUMERIC, "prod": NUMERIC, "max": NUMERIC + ("i1",),
          "min": NUMERIC + ("i1",), "mean": FLOATS}


class Invalid(Exception):
    """The graph does not type-check (a generator bug, or a shrink step
    that does not apply)."""


# ---------------------------------------------------------------------------
# Types: a value is (dtype, dims, dyn); a dim is a tuple of symbols whose
# sizes multiply (a reshape merges dims by joining their symbols).
# ---------------------------------------------------------------------------

class Val:
    __slots__ = ("dtype", "dims", "dyn", "sizes")

    def __init__(self, dtype, dims, dyn, syms):
        self.dtype = dtype
        self.dims = [tuple(d) for d in dims]
        self.dyn = [bool(x) for x in dyn]
        self.sizes = tuple(int(np.prod([syms[s] for s in d])) if d else 1 for d in self.dims)

    @property
    def rank(self):
        return len(self.dims)

    def type(self):
        return mlir_type([None if y else s for s, y in zip(self.sizes, self.dyn)], self.dtype)

    def elems(self):
        return int(np.prod(self.sizes)) if self.sizes else 1


def infer(g, outputs=True):
    """{(node, k): Val} for every result, checking what the verifier checks
    (and what fuserc needs at run time to know every size); raises Invalid.
    outputs=False: the outputs are not checked (a graph being built)."""
    syms = g["syms"]
    vals = {}

    def V(ref):
        ref = tuple(ref)
        if ref not in vals:
            raise Invalid("use of %s before its definition" % (ref,))
        return vals[ref]

    for i, n in enumerate(g["nodes"]):
        op = n["op"]
        a = [V(r) for r in n.get("args", [])]
        out = []
        if op == "input":
            out = [Val(n["dtype"], n["dims"], n["dyn"], syms)]
        elif op == "const":
            out = [Val(n["dtype"], n["dims"], n["dyn"], syms)]
        elif op == "ew" or op == "where":
            name = n.get("name", "where")
            if op == "where":
                if a[0].dtype != "i1":
                    raise Invalid("where condition is %s" % a[0].dtype)
                same = a[1:]
                rdt = a[1].dtype
            else:
                e = EW[name]
                if len(a) != e.arity:
                    raise Invalid("%s takes %d operands" % (name, e.arity))
                same = a
                if a[0].dtype not in e.types:
                    raise Invalid("%s on %s" % (name, a[0].dtype))
                if name == "div" and not is_float(a[0].dtype):
                    raise Invalid("integer div without rounding mode")
                rdt = e.result or a[0].dtype
            if len(set(x.dtype for x in same)) != 1:
                raise Invalid("%s: element types differ" % name)
            shaped = [x for x in a if x.rank]
            if not shaped:
                out = [Val(rdt, [], [], syms)]
            else:
                f = shaped[0]
                dyn = list(f.dyn)
                for x in shaped[1:]:
                    if x.rank != f.rank or x.sizes != f.sizes:
                        raise Invalid("%s: shapes %s and %s" % (name, f.sizes, x.sizes))
                    dyn = [p and q for p, q in zip(dyn, x.dyn)]
                out = [Val(rdt, f.dims, dyn, syms)]
        elif op == "cast":
            x, = a
            out = [Val(n["to"], x.dims, x.dyn, syms)]
        elif op == "broadcast":
            x, = a
            m, dims, dyn = n["map"], n["dims"], n["dyn"]
            r = Val(x.dtype, dims, dyn, syms)
            if len(m) != x.rank or any(q <= p for p, q in zip(m, m[1:])) or \
                    any(d < 0 or d >= r.rank for d in m):
                raise Invalid("broadcast map %s" % m)
            for k, d in enumerate(m):
                if x.sizes[k] != r.sizes[d]:
                    if x.sizes[k] != 1 or x.dyn[k]:
                        raise Invalid("broadcast of dim %d" % k)
                    if r.dyn[d]:
                        raise Invalid("broadcast expands into a ? dim")
                elif r.dyn[d] and not x.dyn[k]:
                    raise Invalid("broadcast: ? result dim of a static operand dim")
            for d in range(r.rank):
                if d not in m and r.dyn[d]:
                    raise Invalid("broadcast: new ? dim")
            out = [r]
        elif op == "reshape":
            x, = a
            r = Val(x.dtype, n["dims"], n["dyn"], syms)
            if r.elems() != x.elems():
                raise Invalid("reshape %s -> %s" % (x.sizes, r.sizes))
            if sum(r.dyn) > 1:
                raise Invalid("reshape with more than one ?")
            if any(r.dyn):
                k = r.dyn.index(True)
                if int(np.prod([s for j, s in enumerate(r.sizes) if j != k])) == 0:
                    raise Invalid("reshape: ? next to an empty dim")
            out = [r]
        elif op in ("slice", "pad", "concat"):
            r = Val(a[0].dtype, n["dims"], n["dyn"], syms)
            x = a[0]
            if op == "slice":
                st, li, sp = n["start"], n["limit"], n["step"]
                if not len(st) == len(li) == len(sp) == x.rank == r.rank:
                    raise Invalid("slice of rank %d" % x.rank)
                for j in range(x.rank):
                    if not (0 <= st[j] <= li[j] <= x.sizes[j]) or sp[j] < 1 or \
                            r.sizes[j] != (li[j] - st[j] + sp[j] - 1) // sp[j] or r.dyn[j]:
                        raise Invalid("slice dim %d" % j)
            elif op == "pad":
                v = a[1]
                if v.rank != 0 or v.dtype != x.dtype or r.rank != x.rank:
                    raise Invalid("pad value %s" % v.type())
                for j in range(x.rank):
                    lo, hi = n["low"][j], n["high"][j]
                    if lo < 0 or hi < 0 or r.sizes[j] != x.sizes[j] + lo + hi or \
                            r.dyn[j] != x.dyn[j]:
                        raise Invalid("pad dim %d" % j)
            else:
                d = n["dim"]
                if not 0 <= d < x.rank or r.rank != x.rank:
                    raise Invalid("concat dim %d" % d)
                for y in a[1:]:
                    if y.dtype != x.dtype or y.rank != x.rank or any(
                            y.sizes[j] != x.sizes[j] for j in range(x.rank) if j != d):
                        raise Invalid("concat of %s and %s" % (x.type(), y.type()))
                for j in range(x.rank):
                    want = sum(y.sizes[j] for y in a) if j == d else x.sizes[j]
                    wdyn = any(y.dyn[j] for y in a) if j == d else all(y.dyn[j] for y in a)
                    if r.sizes[j] != want or r.dyn[j] != wdyn:
                        raise Invalid("concat dim %d" % j)
            out = [r]
        elif op == "permute":
            x, = a
            p = n["perm"]
            if sorted(p) != list(range(x.rank)):
                raise Invalid("perm %s" % p)
            out = [Val(x.dtype, [x.dims[j] for j in p], [x.dyn[j] for j in p], syms)]
        elif op in ("reduce", "var_mean"):
            x, = a
            dims, kd = n["axes"], n["keepdim"]
            if not dims or len(set(dims)) != len(dims) or any(d < 0 or d >= x.rank for d in dims):
                raise Invalid("reduction dims %s" % dims)
            if op == "reduce":
                if x.dtype not in REDUCE[n["name"]]:
                    raise Invalid("%s of %s" % (n["name"], x.dtype))
            elif x.dtype not in FLOATS:
                raise Invalid("var_mean of %s" % x.dtype)
            rd = [(() if j in dims else x.dims[j]) for j in range(x.rank) if kd or j not in dims]
            ry = [(False if j in dims else x.dyn[j]) for j in range(x.rank) if kd or j not in dims]
            out = [Val(x.dtype, rd, ry, syms)] * (2 if op == "var_mean" else 1)
        elif op in ("softmax", "log_softmax"):
            x, = a
            if x.dtype not in FLOATS or not 0 <= n["dim"] < x.rank:
                raise Invalid("%s dim %d of %s" % (op, n["dim"], x.type()))
            out = [x]
        elif op in ("layer_norm", "rms_norm"):
            x = a[0]
            nd = n["nd"]
            if x.dtype not in FLOATS or not 1 <= nd <= x.rank:
                raise Invalid("%s of %s" % (op, x.type()))
            for p in a[1:]:
                if p.dtype != x.dtype or p.sizes != x.sizes[x.rank - nd:]:
                    raise Invalid("%s parameter %s" % (op, p.type()))
            out = [x]
            if op == "layer_norm":
                st = "f32" if x.dtype in ("f16", "bf16") else x.dtype
                sd = [(() if j >= x.rank - nd else x.dims[j]) for j in range(x.rank)]
                sy = [(False if j >= x.rank - nd else x.dyn[j]) for j in range(x.rank)]
                s = Val(st, sd, sy, syms)
                out = [x, s, s]
        else:
            raise Invalid("unknown op %s" % op)
        for k, v in enumerate(out):
            if v.elems() > 4 * LARGE_ELEMS:
                raise Invalid("too large: %s" % v.type())
            vals[(i, k)] = v
    if not outputs:
        return vals
    if not g["outputs"]:
        raise Invalid("no outputs")
    for r in g["outputs"]:
        V(r)
        if g["nodes"][r[0]]["op"] in ("input", "const"):
            raise Invalid("an input or constant as an output")
    return vals


# ---------------------------------------------------------------------------
# Fusion text
# ---------------------------------------------------------------------------

def _ssa(ref):
    i, k = ref
    return "%%v%d_%d" % (i, k)


def _types(ts):
    return ts[0] if len(set(ts)) == 1 else ", ".join(ts)


def lines(g, vals):
    """The fuser ops of the graph, one string per op (arguments are the
    input nodes, `%inN`)."""
    out = []
    for i, n in enumerate(g["nodes"]):
        op = n["op"]
        if op == "input":
            continue
        args = [tuple(r) for r in n.get("args", [])]
        A = [_ssa(r) if g["nodes"][r[0]]["op"] != "input" else "%%in%d" % r[0] for r in args]
        T = [vals[r].type() for r in args]
        r0 = vals[(i, 0)]
        lhs = _ssa((i, 0))
        if op == "ew":
            e = EW[n["name"]]
            s = "%s = fuser.%s %s%s : %s" % (lhs, e.name, ", ".join(A), e.attr, _types(T))
        elif op == "where":
            s = "%s = fuser.where %s : %s" % (lhs, ", ".join(A), _types(T))
        elif op == "cast":
            s = "%s = fuser.cast %s : %s to %s" % (lhs, A[0], T[0], r0.type())
        elif op == "const":
            v = from_f64(np.array([_const_value(n)]), n["dtype"]) if is_float(n["dtype"]) \
                else np.asarray([_const_value(n)]).astype(np_dtype(n["dtype"]))
            s = "%s = fuser.constant %s : %s" % (lhs, _literal(v[0], n["dtype"]), r0.type())
        elif op == "broadcast":
            s = "%s = fuser.broadcast %s dims = %s : %s -> %s" % (lhs, A[0], n["map"], T[0],
                                                                 r0.type())
        elif op == "reshape":
            s = "%s = fuser.reshape %s : %s -> %s" % (lhs, A[0], T[0], r0.type())
        elif op == "slice":
            s = "%s = fuser.slice %s start = %s limit = %s step = %s : %s -> %s" % (
                lhs, A[0], n["start"], n["limit"], n["step"], T[0], r0.type())
        elif op == "pad":
            s = "%s = fuser.pad %s, %s low = %s high = %s : %s, %s -> %s" % (
                lhs, A[0], A[1], n["low"], n["high"], T[0], T[1], r0.type())
        elif op == "concat":
            s = "%s = fuser.concat %s dim = %d : %s -> %s" % (
                lhs, ", ".join(A), n["dim"], ", ".join(T), r0.type())
        elif op == "permute":
            s = "%s = fuser.permute %s perm = %s : %s -> %s" % (lhs, A[0], n["perm"], T[0],
                                                               r0.type())
        elif op == "reduce":
            s = "%s = fuser.%s %s dims = %s%s : %s -> %s" % (
                lhs, n["name"], A[0], n["axes"], " keepdim = true" if n["keepdim"] else "",
                T[0], r0.type())
        elif op == "var_mean":
            s = "%s, %s = fuser.var_mean %s dims = %s%s%s : %s -> %s, %s" % (
                lhs, _ssa((i, 1)), A[0], n["axes"],
                " correction = %d" % n["correction"] if n["correction"] != 1 else "",
                " keepdim = true" if n["keepdim"] else "", T[0], r0.type(), r0.type())
        elif op in ("softmax", "log_softmax"):
            s = "%s = fuser.%s %s dim = %d : %s" % (lhs, op, A[0], n["dim"], T[0])
        elif op == "layer_norm":
            ops = A[0] + (" weight " + A[1] if n["w"] else "") + \
                (" bias " + A[-1] if n["b"] else "")
            st = vals[(i, 1)].type()
            s = "%s, %s, %s = fuser.layer_norm %s dims = %s eps = %.6e : (%s) -> (%s, %s, %s)" % (
                lhs, _ssa((i, 1)), _ssa((i, 2)), ops, _norm_dims(r0, n), n["eps"],
                ", ".join(T), r0.type(), st, st)
        elif op == "rms_norm":
            ops = A[0] + (" weight " + A[1] if n["w"] else "")
            s = "%s = fuser.rms_norm %s dims = %s eps = %.6e : (%s) -> %s" % (
                lhs, ops, _norm_dims(r0, n), n["eps"], ", ".join(T), r0.type())
        else:
            raise Invalid(op)
        out.append(s)
    return out


def _norm_dims(x, n):
    return list(range(x.rank - n["nd"], x.rank))


def _const_value(n):
    v = n["value"]
    if isinstance(v, str):
        return float(v)     # "nan", "inf", "-inf"
    return v


def fusion(g, name=None):
    """The whole func.func, as `fuserc run` takes it."""
    vals = infer(g)
    from .core import fusion_text
    return fusion_text(name or "seed_%d" % g["seed"], [Part("", _args(g, vals, None),
                                                              lines(g, vals), _results(g, vals))])


def _args(g, vals, data):
    return [Arg("in%d" % i, vals[(i, 0)].type(), None if data is None else data[i],
                n["dtype"]) for i, n in enumerate(g["nodes"]) if n["op"] == "input"]


def _results(g, vals, expects=None):
    out = []
    for j, r in enumerate(g["outputs"]):
        r = tuple(r)
        v = vals[r]
        out.append(Result(_ssa(r)[1:], v.type(), v.dtype, None if expects is None else expects[j]))
    return out


# ---------------------------------------------------------------------------
# Generator
# ---------------------------------------------------------------------------

class Gen:
    def __init__(self, seed):
        self.R = random.Random(seed)
        self.g = {"seed": seed, "syms": [], "nodes": [], "outputs": []}
        self.vals = {}
        self.pool = []          # refs usable as operands (no constants)
        self.live = set()       # refs that depend on an input
        self.budget = LARGE_ELEMS if self.R.random() < 0.1 else MAX_ELEMS

    def sym(self, size):
        self.g["syms"].append(size)
        return len(self.g["syms"]) - 1

    def size(self, empty=0.0):
        if self.R.random() < empty:
            return 0
        if self.budget > MAX_ELEMS and self.R.random() < 0.3:
            return self.R.choice(LARGE_SIZES)
        return self.R.choices(SIZES, SIZE_W)[0]

    def add(self, node, pool=True):
        self.g["nodes"].append(node)
        i = len(self.g["nodes"]) - 1
        try:
            allv = infer(self.g, outputs=False)
        except Invalid:
            self.g["nodes"].pop()
            raise
        vals = [allv[(i, k)] for k in range(3) if (i, k) in allv]
        refs = [(i, k) for k in range(len(vals))]
        live = node["op"] == "input" or any(tuple(r) in self.live for r in node.get("args", []))
        for r, v in zip(refs, vals):
            self.vals[r] = v
            if pool and node["op"] != "const":
                self.pool.append(r)
            if live:
                self.live.add(r)
        return refs

    def pick(self, ok=lambda v: True, recent=True):
        c = [r for r in self.pool if ok(self.vals[r])]
        if not c:
            return None
        if recent:
            return self.R.choices(c, [(1 + k) ** 2 for k in range(len(c))])[0]
        return self.R.choice(c)

    # -- inputs ------------------------------------------------------------
    def input(self, dtype, dims, dyn):
        kinds = {"f": ["normal", "normal", "unit", "positive", "wide"],
                 "i": ["small", "small", "nonneg", "wide"], "b": ["bool"]}
        k = "b" if dtype == "i1" else ("i" if dtype == "i32" else "f")
        return self.add({"op": "input", "dtype": dtype, "dims": [list(d) for d in dims],
                         "dyn": list(dyn), "kind": self.R.choice(kinds[k]),
                         "specials": self.R.random() < 0.4})[0]

    def inputs(self):
        R = self.R
        empty = 0.06 if R.random() < 0.3 else 0.0
        dyn_rate = R.choice([0.0, 0.0, 0.3, 0.6])
        self.dyn_rate = dyn_rate
        rank = R.choices([0, 1, 2, 3, 4], [3, 20, 40, 27, 10])[0]
        while True:
            dims = [(self.sym(self.size(empty)),) for _ in range(rank)]
            if self.elems(dims) <= self.budget:
                break
            self.g["syms"] = self.g["syms"][:len(self.g["syms"]) - rank]
        t0 = R.choices(TYPES, [45, 15, 15, 15, 10])[0]
        n_in = R.choices([1, 2, 3], [35, 40, 25])[0]
        self.n_inputs = n_in
        self.input(t0, dims, [R.random() < dyn_rate for _ in dims])
        for _ in range(n_in - 1):
            t = t0 if R.random() < 0.5 else R.choice(TYPES)
            how = R.choices(["same", "ones", "suffix", "scalar", "fresh"], [45, 15, 15, 10, 15])[0]
            d, y = list(dims), [R.random() < dyn_rate for _ in dims]
            if how == "ones" and rank:
                for j in range(rank):
                    if R.random() < 0.5:
                        d[j], y[j] = (), False
            elif how == "suffix" and rank:
                k = R.randint(1, rank)
                d, y = d[rank - k:], y[rank - k:]
            elif how == "scalar":
                d, y = [], []
            elif how == "fresh":
                r = R.choice([1, 2, 3])
                d = [(self.sym(self.size(empty)),) for _ in range(r)]
                if self.elems(d) > self.budget:
                    d = [(self.sym(self.R.choice([1, 2, 3, 5])),) for _ in range(r)]
                y = [R.random() < dyn_rate for _ in d]
            self.input(t, d, y)

    def elems(self, dims):
        """Elements of a value of these dims, counting empty dims as 1 (a
        reduction over them gives the rest)."""
        return int(np.prod([max(int(np.prod([self.g["syms"][s] for s in d])), 1) if d else 1
                            for d in dims])) if dims else 1

    # -- operands ----------------------------------------------------------
    def const(self, dtype, like=None):
        """A constant node of `dtype`: rank 0, or shaped like `like`."""
        R = self.R
        if dtype == "i1":
            v = R.random() < 0.5
        elif dtype == "i32":
            v = R.choice([0, 1, -1, 2, 3, 7, -100, 2147483647, -2147483648, R.randint(-50, 50)])
        else:
            v = R.choice([0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, -2.5, 1e-3, 100.0, 0.1,
                          "nan", "inf", "-inf", R.uniform(-4, 4), R.uniform(-4, 4)])
            if not isinstance(v, str):
                v = float(to_f64(from_f64(np.array([v]), dtype), dtype)[0])
        if dtype == "i1":
            v = bool(v)
        if like is None or R.random() < 0.6:
            dims, dyn = [], []
        else:
            lv = self.vals[like]
            dims, dyn = lv.dims, lv.dyn
        return self.add({"op": "const", "dtype": dtype, "value": v,
                         "dims": [list(d) for d in dims], "dyn": list(dyn)}, pool=False)[0]

    def partner(self, a, dtype=None):
        """A second operand for `a`: of a's element type (or `dtype`) and
        shape, or rank 0."""
        R = self.R
        va = self.vals[a]
        t = dtype or va.dtype
        same = lambda v: v.dtype == t and (v.sizes == va.sizes or v.rank == 0)
        c = R.random()
        if c < 0.45:
            r = self.pick(same)
            if r is not None:
                return r
        if c < 0.55 and t == va.dtype:
            return a
        if c < 0.8:
            return self.const(t, a)
        # a cast of a value of the same shape
        r = self.pick(lambda v: v.sizes == va.sizes and v.rank == va.rank)
        if r is not None and self.vals[r].dtype != t:
            return self.add({"op": "cast", "args": [list(r)], "to": t})[0]
        return self.const(t, a)

    # -- op families -------------------------------------------------------
    def f_unary(self):
        a = self.pick(lambda v: v.dtype in FLOATS)
        if a is None:
            return False
        self.add({"op": "ew", "name": self.R.choice(UNARY_FLOAT), "args": [list(a)]})
        return True

    def f_unary_num(self):
        a = self.pick(lambda v: v.dtype in NUMERIC)
        if a is None:
            return False
        self.add({"op": "ew", "name": self.R.choice(UNARY_NUM), "args": [list(a)]})
        return True

    def f_not(self):
        a = self.pick(lambda v: v.dtype in ("i32", "i1"))
        if a is None:
            return False
        self.add({"op": "ew", "name": "not", "args": [list(a)]})
        return True

    def f_predicate(self):
        a = self.pick()
        self.add({"op": "ew", "name": self.R.choice(PREDICATES), "args": [list(a)]})
        return True

    def _binary(self, names):
        a = self.pick()
        t = self.vals[a].dtype
        ok = [n for n in names if t in EW[n].types and not (n == "div" and not is_float(t))]
        if not ok:
            return False
        b = self.partner(a)
        args = [list(a), list(b)]
        if self.R.random() < 0.4:
            args.reverse()
        self.add({"op": "ew", "name": self.R.choice(ok), "args": args})
        return True

    def f_binary(self):
        return self._binary(BINARY)

    def f_compare(self):
        return self._binary(COMPARE)

    def f_where(self):
        a = self.pick()
        va = self.vals[a]
        c = self.pick(lambda v: v.dtype == "i1" and (v.sizes == va.sizes or v.rank == 0))
        if c is None or self.R.random() < 0.4:
            # a comparison of a value of a's shape with a constant
            x = self.pick(lambda v: v.sizes == va.sizes and v.rank == va.rank and v.dtype != "i1")
            if x is None:
                x = a
            k = self.const(self.vals[x].dtype)
            c = self.add({"op": "ew", "name": self.R.choice(COMPARE),
                          "args": [list(x), list(k)]})[0]
        b = self.partner(a)
        args = [list(a), list(b)] if self.R.random() < 0.6 else [list(b), list(a)]
        self.add({"op": "where", "args": [list(c)] + args})
        return True

    def f_ternary(self):
        a = self.pick(lambda v: v.dtype in NUMERIC)
        if a is None:
            return False
        t = self.vals[a].dtype
        ok = [n for n in TERNARY if t in EW[n].types]
        name = self.R.choice(ok)
        if name == "clamp" and self.R.random() < 0.7:
            lo, hi = self.const(t), self.const(t)
        else:
            lo, hi = self.partner(a), self.partner(a)
        self.add({"op": "ew", "name": name, "args": [list(a), list(lo), list(hi)]})
        return True

    def f_cast(self):
        a = self.pick()
        t = self.R.choice([x for x in TYPES if x != self.vals[a].dtype])
        self.add({"op": "cast", "args": [list(a)], "to": t})
        return True

    def f_broadcast(self):
        R = self.R
        a = self.pick(lambda v: v.rank <= 4)
        va = self.vals[a]
        known = sorted(set(s for v in self.vals.values() for d in v.dims for s in d))
        ones = [j for j in range(va.rank) if va.sizes[j] == 1 and not va.dyn[j]]
        dims, dyn = list(va.dims), list(va.dyn)
        m = list(range(va.rank))
        if ones and R.random() < 0.6:
            for j in ones:
                if R.random() < 0.7:
                    s = R.choice(known) if known and R.random() < 0.7 else self.sym(self.size())
                    dims[j] = (s,)
        else:
            for _ in range(R.choice([1, 1, 2])):
                if len(dims) >= 5:
                    break
                p = R.randint(0, len(dims))
                s = R.choice(known) if known and R.random() < 0.5 else self.sym(self.size())
                dims.insert(p, (s,))
                dyn.insert(p, False)
                m = [x + 1 if x >= p else x for x in m]
        for k, d in enumerate(m):
            if dims[d] != va.dims[k]:
                dyn[d] = False
        if self.elems(dims) > self.budget:
            return False
        self.add({"op": "broadcast", "args": [list(a)], "map": m,
                  "dims": [list(d) for d in dims], "dyn": dyn})
        return True

    def f_reshape(self):
        R = self.R
        a = self.pick()
        va = self.vals[a]
        dims = list(va.dims)
        choices = ["unit"]
        if va.rank >= 2:
            choices += ["merge", "flatten"]
        if any(len(d) >= 2 for d in dims):
            choices += ["split", "split"]
        if any(s == 1 for s in va.sizes):
            choices += ["drop1"]
        how = R.choice(choices)
        if how == "unit":
            dims.insert(R.randint(0, len(dims)), ())
        elif how == "merge":
            j = R.randint(0, len(dims) - 2)
            dims[j:j + 2] = [dims[j] + dims[j + 1]]
        elif how == "flatten":
            dims = [tuple(s for d in dims for s in d)]
        elif how == "split":
            j = R.choice([k for k, d in enumerate(dims) if len(d) >= 2])
            c = R.randint(1, len(dims[j]) - 1)
            dims[j:j + 1] = [dims[j][:c], dims[j][c:]]
        else:
            j = R.choice([k for k, s in enumerate(va.sizes) if s == 1])
            dims.pop(j)
        if len(dims) > 5:
            return False
        dyn = [False] * len(dims)
        if any(va.dyn) and dims and R.random() < 0.7:
            dyn[R.randrange(len(dims))] = True
        node = {"op": "reshape", "args": [list(a)], "dims": [list(d) for d in dims], "dyn": dyn}
        try:
            self.add(node)
        except Invalid:
            node["dyn"] = [False] * len(dims)
            self.add(node)
        return True

    def f_permute(self):
        a = self.pick(lambda v: v.rank >= 2)
        if a is None:
            return False
        p = list(range(self.vals[a].rank))
        while p == sorted(p):
            self.R.shuffle(p)
        self.add({"op": "permute", "args": [list(a)], "perm": p})
        return True

    def f_slice(self):
        R = self.R
        a = self.pick(lambda v: v.rank >= 1 and v.elems() > 0)
        if a is None:
            return False
        va = self.vals[a]
        st, li, sp, dims = [], [], [], []
        for j in range(va.rank):
            size = va.sizes[j]
            if R.random() < 0.5 or size <= 1:
                s0, l0, p0 = 0, size, 1
            else:
                s0 = R.randint(0, size - 1)
                l0 = R.randint(s0, size)
                p0 = R.choice([1, 1, 2, 3])
            st.append(s0)
            li.append(l0)
            sp.append(p0)
            n = (l0 - s0 + p0 - 1) // p0
            dims.append(va.dims[j] if (s0, l0, p0) == (0, size, 1) else (self.sym(n),))
        if all(d == e for d, e in zip(dims, va.dims)):
            return False                # the identity slice folds away
        self.add({"op": "slice", "args": [list(a)], "start": st, "limit": li, "step": sp,
                  "dims": [list(d) for d in dims], "dyn": [False] * va.rank})
        return True

    def f_pad(self):
        R = self.R
        a = self.pick(lambda v: v.rank >= 1)
        if a is None:
            return False
        va = self.vals[a]
        lo = [R.choice([0, 0, 1, 2, 3]) for _ in range(va.rank)]
        hi = [R.choice([0, 0, 1, 2, 3]) for _ in range(va.rank)]
        if not any(lo) and not any(hi):
            hi[-1] = 1
        dims = [va.dims[j] if lo[j] + hi[j] == 0 else (self.sym(va.sizes[j] + lo[j] + hi[j]),)
                for j in range(va.rank)]
        if self.elems(dims) > self.budget:
            return False
        v = self.pick(lambda w: w.rank == 0 and w.dtype == va.dtype) \
            if R.random() < 0.3 else None
        if v is None:
            v = self.const(va.dtype)
        self.add({"op": "pad", "args": [list(a), list(v)], "low": lo, "high": hi,
                  "dims": [list(d) for d in dims], "dyn": list(va.dyn)})
        return True

    def f_concat(self):
        R = self.R
        a = self.pick(lambda v: v.rank >= 1)
        if a is None:
            return False
        va = self.vals[a]
        d = R.randrange(va.rank)
        others = [r for r in self.pool if r != a and self.vals[r].dtype == va.dtype and
                  self.vals[r].rank == va.rank and all(
                      self.vals[r].sizes[j] == va.sizes[j] for j in range(va.rank) if j != d)]
        ops = [a] + R.sample(others, min(len(others), R.choice([1, 1, 2])))
        if len(ops) == 1:
            ops.append(a)
        if R.random() < 0.5:
            R.shuffle(ops)
        vs = [self.vals[r] for r in ops]
        dims = list(va.dims)
        total = sum(v.sizes[d] for v in vs)
        dims[d] = (self.sym(total),)
        dyn = [all(v.dyn[j] for v in vs) for j in range(va.rank)]
        dyn[d] = any(v.dyn[d] for v in vs)
        if self.elems(dims) > self.budget:
            return False
        self.add({"op": "concat", "args": [list(r) for r in ops], "dim": d,
                  "dims": [list(x) for x in dims], "dyn": dyn})
        return True

    def _dims(self, rank):
        R = self.R
        k = R.choices(range(1, rank + 1), [4] + [1] * (rank - 1))[0]
        return R.sample(range(rank), k)

    def f_reduce(self):
        R = self.R
        a = self.pick(lambda v: v.rank >= 1 and v.dtype in NUMERIC)
        if a is None:
            return False
        va = self.vals[a]
        name = R.choice([n for n, ts in REDUCE.items() if va.dtype in ts])
        self.add({"op": "reduce", "name": name, "args": [list(a)], "axes": self._dims(va.rank),
                  "keepdim": R.random() < 0.5})
        return True

    def f_var_mean(self):
        R = self.R
        a = self.pick(lambda v: v.rank >= 1 and v.dtype in FLOATS)
        if a is None:
            return False
        self.add({"op": "var_mean", "args": [list(a)], "axes": self._dims(self.vals[a].rank),
                  "keepdim": R.random() < 0.5, "correction": R.choice([0, 1, 1])})
        return True

    def f_softmax(self):
        a = self.pick(lambda v: v.rank >= 1 and v.dtype in FLOATS)
        if a is None:
            return False
        self.add({"op": self.R.choice(["softmax", "log_softmax"]), "args": [list(a)],
                  "dim": self.R.randrange(self.vals[a].rank)})
        return True

    def _param(self, va, nd):
        """A weight or bias: a new input of the normalized shape, while the
        graph has fewer than 3 inputs."""
        ninputs = sum(1 for n in self.g["nodes"] if n["op"] == "input")
        if ninputs >= 3 or self.R.random() < 0.4:
            return None
        d = va.dims[va.rank - nd:]
        return self.input(va.dtype, d, [self.R.random() < self.dyn_rate for _ in d])

    def f_norm(self, which):
        R = self.R
        a = self.pick(lambda v: v.rank >= 1 and v.dtype in FLOATS)
        if a is None:
            return False
        va = self.vals[a]
        nd = R.choice([1, 1, 2]) if va.rank >= 2 else 1
        w = self._param(va, nd)
        node = {"op": which, "args": [list(a)] + ([list(w)] if w else []), "nd": nd,
                "eps": R.choice([1e-5, 1e-6, 0.1]), "w": w is not None}
        if which == "layer_norm":
            b = self._param(va, nd)
            node["b"] = b is not None
            if b:
                node["args"].append(list(b))
        self.add(node)
        return True

    FAMILIES = [("unary", 14), ("unary_num", 6), ("not", 2), ("predicate", 3), ("binary", 16),
                ("compare", 6), ("where", 6), ("ternary", 5), ("cast", 8), ("broadcast", 6),
                ("reshape", 5), ("permute", 5), ("reduce", 9), ("var_mean", 3),
                ("softmax", 4), ("layer_norm", 3), ("rms_norm", 3), ("slice", 3),
                ("pad", 2), ("concat", 2)]

    def family(self, name):
        if name in ("layer_norm", "rms_norm"):
            return self.f_norm(name)
        return getattr(self, "f_" + name)()

    def generate(self):
        R = self.R
        self.inputs()
        n_ops = R.choices(range(1, 25), [2, 2, 3, 4, 5, 6, 6, 6, 6, 6, 6, 5, 5, 5, 4, 4, 4, 3, 3,
                                         3, 2, 2, 2, 2])[0]
        made = 0
        tries = 0
        while made < n_ops and tries < 10 * n_ops:
            tries += 1
            fam = R.choices([f for f, _ in self.FAMILIES], [w for _, w in self.FAMILIES])[0]
            n0 = len(self.g["nodes"])
            if self.family(fam):
                made += 1
            else:
                del self.g["nodes"][n0:]
        # outputs: the last value, and up to two more (results of ops that
        # read an input)
        cands = [r for r in self.pool if r in self.live and
                 self.g["nodes"][r[0]]["op"] not in ("input", "const")]
        if not cands:
            a = self.pool[-1]
            t = self.vals[a].dtype
            self.add({"op": "ew", "name": "abs" if t in NUMERIC else "not", "args": [list(a)]})
            cands = [self.pool[-1]]
        used = set(tuple(r) for n in self.g["nodes"] for r in n.get("args", []))
        sinks = [r for r in cands if r not in used]
        outs = [cands[-1]]
        for _ in range(R.choices([0, 1, 2], [50, 30, 20])[0]):
            r = R.choice(sinks if sinks and R.random() < 0.8 else cands)
            if r not in outs:
                outs.append(r)
        self.g["outputs"] = [list(r) for r in outs]
        return prune(self.g)


def generate(seed):
    return Gen(seed).generate()


# ---------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------

def input_data(g, i, v):
    """The values of input node i (deterministic in the seed, the node and
    its shape)."""
    n = g["nodes"][i]
    rng = np.random.default_rng([g["seed"] & 0xFFFFFFFF, i, len(v.sizes)] + list(v.sizes))
    t = n["dtype"]
    kind = n.get("kind", "normal")
    if t == "i1":
        x = values.random(t, v.sizes, rng)
    else:
        x = values.random(t, v.sizes, rng, kind)
    if n.get("specials") and x.size:
        sp = values.specials(t)
        pick = rng.random(x.shape) < 0.08
        x[pick] = sp[rng.integers(0, len(sp), int(pick.sum()))]
    return np.array(x, order="C", copy=True)


# ---------------------------------------------------------------------------
# Reference
# ---------------------------------------------------------------------------

N_RANDOM = 4            # random samples besides the five fixed ones (0 to 4)
KNOWN_MODE = 100        # the sample with the known bugs' models (KNOWN_BUGS)
JUMP_MODE = 200         # samples 200, 201: sample 0 with discontinuous ops taken
                        # across their jumps (upwards first, downwards first)
DISCONTINUOUS = ("floor", "ceil", "round", "sign", "remainder", "fmod", "div_trunc", "div_floor",
                 "eq", "ne", "lt", "le", "gt", "ge")
USE_KNOWN_MODELS = True  # off: --include-known, and --repro FILE
SHAPE_OPS = ("broadcast", "reshape", "permute", "slice", "pad", "concat", "const")
F32_VARIANTS = ("var_mean", "softmax", "log_softmax", "layer_norm", "rms_norm")
SPREAD = 2.0            # the bound's factor on the samples' spread


def _rule_bound(rule):
    """(ulps, atol or None) of an oracle rule."""
    if isinstance(rule, Ulps):
        return rule.ulps, rule.atol
    return 0, None


def _step(x, t, k):
    """Storage array x of float type t moved by k (an integer array) units in
    the last place (core.ordered's order: -0 and +0 are one value)."""
    o = ordered(x, t).astype(np.int64) + k
    nb = {"f16": 16, "bf16": 16, "f32": 32}[t]
    u = {16: np.uint16, 32: np.uint32}[nb]
    bits = np.where(o >= 0, o, (-o) | (1 << (nb - 1))).astype(np.int64).astype(u)
    return bits.view(np_dtype(t)).reshape(np.shape(x))


def _perturb(x, t, ulps, atol, mode, rng):
    """x moved by up to its bound: up (mode 3), down (mode 4) or by a random
    fraction (modes 5...). Infinities and NaN stay. Where 0 is within the
    bound, mode 3 gives +0 and mode 4 -0 (an approximation lands on either
    zero there: gelu(-6) is -0 in f32 arithmetic, +0 in PyTorch's)."""
    if not is_float(t) or x.size == 0 or (not ulps and atol is None):
        return x
    f = to_f64(x, t)
    fin = np.isfinite(f)
    zero = None
    if mode in (3, 4):
        near = fin & (np.abs(ordered(x, t)) <= ulps)
        if atol is not None:
            near |= fin & (np.abs(f) <= np.broadcast_to(np.asarray(atol, np.float64), x.shape))
        zero = from_f64(np.full(x.shape, 0.0 if mode == 3 else -0.0), t), near
    if mode == 3:
        s = np.ones(x.shape)
    elif mode == 4:
        s = -np.ones(x.shape)
    else:
        s = rng.uniform(-1, 1, x.shape)
    if atol is not None:
        a = np.nan_to_num(np.broadcast_to(np.asarray(atol, dtype=np.float64), x.shape),
                          nan=0.0, posinf=0.0)
        g = f + s * a
        x = np.where(fin & np.isfinite(g), from_f64(g, t), x)
    if ulps:
        k = np.rint(s * ulps).astype(np.int64)
        moved = _step(x, t, k)
        ok = fin & np.isfinite(to_f64(moved, t)) | (fin & np.isinf(to_f64(moved, t)))
        x = np.where(ok & ~np.isnan(to_f64(moved, t)), moved, x)
    if zero is not None:
        x = np.where(zero[1], zero[0], x)
    return x


def _fast_fma(arrays, t):
    f = [to_f64(a, t) for a in arrays]
    return from_f64(f[0] * f[1] + f[2], t)


def _reduce_f32(name, x, t, n):
    """PyTorch at the op's compute type (f32 for f16, bf16 and f32), rounded
    to t: [result] or [var, mean]; None for integers, max and min (exact)."""
    if not is_float(t) or name in ("max", "min"):
        return None
    f = torch.from_numpy(to_f64(x, t)).float()
    axes, kd = tuple(n["axes"]), n["keepdim"]
    try:
        if name == "sum":
            r = [f.sum(dim=axes, keepdim=kd)]
        elif name == "mean":
            r = [f.mean(dim=axes, keepdim=kd)]
        elif name == "prod":
            r = [torch.from_numpy(np.asarray(np.prod(f.numpy(), axis=axes, keepdims=kd),
                                             dtype=np.float32))]
        else:
            if f.numel() == 0:
                return None
            r = list(torch.var_mean(f, dim=axes, correction=n.get("correction", 1), keepdim=kd))
    except RuntimeError:
        return None
    return [from_f64(np.asarray(y.double().numpy()), t) for y in r]


def _reduce_ordered(name, x, t, n, mode, rng):
    """sum, prod or mean in f32, one element after the other in the order of
    sample `mode` (_rows): partial results that overflow or underflow
    (0 * inf) in one order and not in another make those elements unstable,
    as they are for any kernel."""
    if not is_float(t) or name not in ("sum", "prod", "mean"):
        return None
    axes, kd = list(n["axes"]), n["keepdim"]
    m, kshape, cnt = _rows(x, t, axes, mode, rng)
    if cnt == 0:
        r = np.full(kshape, 1.0 if name == "prod" else (0.0 if name == "sum" else np.nan),
                    np.float32)
    elif name == "prod":
        r = np.cumprod(m, axis=-1, dtype=np.float32)[..., -1]
    else:
        r = np.cumsum(m, axis=-1, dtype=np.float32)[..., -1]
        if name == "mean":
            r = (r / np.float32(cnt)).astype(np.float32)
    if kd:
        r = _keep(r, x.shape, axes)
    return [from_f64(np.asarray(r, np.float64), t)]


def _either_mean(m, ref, x, t, axes, keepdim):
    """m, except where the reduced slice holds an infinity: there the
    opposite of the f64 reference `ref` (NaN for inf, inf for NaN).
    PyTorch's Welford mean is inf or NaN depending on where the infinity
    is (inf when it comes last), so either is accepted there: the sample
    makes the element unstable."""
    f = to_f64(x, t)
    if f.size == 0:
        return m
    has = np.isinf(f).any(axis=tuple(axes), keepdims=keepdim).reshape(m.shape)
    if not has.any():
        return m
    mt = "f32" if t in ("f16", "bf16") and m.dtype == np.float32 else t
    cur = to_f64(ref, mt)
    other = np.where(np.isnan(cur), np.inf, np.nan)
    return np.where(has, from_f64(other, mt), m)


def eval_node(g, i, args, vals, mode, rng):
    """[(storage array, ulps, atol)] of node i on operand arrays `args`, as
    sample `mode` computes it."""
    n = g["nodes"][i]
    op = n["op"]
    rv = vals[(i, 0)]
    shape = rv.sizes
    argrefs = [tuple(r) for r in n.get("args", [])]
    at = [vals[r].dtype for r in argrefs]
    if op == "const":
        x = np.full(shape, _const_value(n), dtype=np.float64 if is_float(n["dtype"]) else None)
        return [(from_f64(x, n["dtype"]) if is_float(n["dtype"])
                 else np.asarray(x).astype(np_dtype(n["dtype"])), 0, None)]
    if op == "where":
        c, a, b = (np.broadcast_to(x, shape) for x in args)
        return [(np.array(np.where(c, a, b), dtype=args[1].dtype, order="C"), 0, None)]
    if op == "ew":
        e = EW[n["name"]]
        t = at[0]
        rt = e.result or t
        prim_rule = e.rule(rt)
        ulps, atol = _rule_bound(prim_rule)
        use_alt = e.alt is not None and is_float(t)
        if n["name"] == "fma" and is_float(t) and (mode != 0 or int(np.prod(shape)) > 4096):
            # the exact reference (Python fractions) for sample 0 of small
            # tensors; f64 a * b + c rounded once (within 1 ulp) otherwise
            want = _fast_fma(args, t)
            # fuser's fma is correctly rounded: the samples are not moved,
            # but a check against the f64 value allows its 1 ulp
            ulps = 1 if mode == 0 else 0
        elif use_alt and mode != 1:
            aw, ar, _ = e.alt(list(args), [t] * e.arity, rt)
            au, aa = _rule_bound(ar)
            ulps, atol = max(ulps, au), aa
            want = aw
        else:
            want = elementwise._reference(e, list(args), [t] * e.arity, rt)
            if use_alt:
                _, ar, _ = e.alt(list(args), [t] * e.arity, rt)
                au, aa = _rule_bound(ar)
                ulps, atol = max(ulps, au), aa
        want = np.array(np.broadcast_to(want, shape), order="C")
        if n["name"] == "clamp" and is_float(t) and mode == 1:
            # a zero clamped by a zero bound may be either zero (the oracle's
            # either_zero_alt): sample 1 has the other one
            z = to_f64(want, t) == 0
            want = np.where(z, from_f64(-to_f64(want, t), t), want)
        if n["name"] == "signbit" and is_float(t) and mode == 1:
            # the sign of a NaN an op made is the platform's (x86's 0/0 is
            # -NaN, a GPU's +NaN; torch 1.13's CPU cast of a NaN to bf16 is
            # 0xffff): sample 1 has the other sign, so either passes
            nan = np.isnan(np.broadcast_to(to_f64(args[0], t), shape))
            want = np.where(nan, ~np.asarray(want, bool), want)
        if atol is not None:
            atol = np.broadcast_to(atol, shape)
        return [(want, ulps, atol)]
    if op == "cast":
        return [(elementwise.cast_ref([args[0]], [at[0]], n["to"]), 0, None)]
    if op == "broadcast":
        return [(np.array(_expand(args[0], shape, n["map"]), order="C"), 0, None)]
    if op == "reshape":
        return [(np.array(args[0].reshape(shape), order="C"), 0, None)]
    if op == "permute":
        return [(np.array(np.transpose(args[0], n["perm"]), order="C"), 0, None)]
    if op == "slice":
        ix = tuple(slice(a, b, c) for a, b, c in zip(n["start"], n["limit"], n["step"]))
        return [(np.array(args[0][ix], order="C"), 0, None)]
    if op == "pad":
        v = np.asarray(args[1]).reshape(())
        return [(np.array(np.pad(args[0], list(zip(n["low"], n["high"])), mode="constant",
                                 constant_values=v), order="C"), 0, None)]
    if op == "concat":
        return [(np.array(np.concatenate(args, axis=n["dim"]), order="C"), 0, None)]
    if op in ("reduce", "var_mean"):
        name = n["name"] if op == "reduce" else "var_mean"
        refs = reductions.reference(name, args[0], at[0], n["axes"], n["keepdim"],
                                    n.get("correction", 1))
        op_type = _reduce_f32(name, args[0], at[0], n) if mode == 1 else \
            _reduce_ordered(name, args[0], at[0], n, mode, rng) if mode >= 2 else None
        out = []
        for (v, rt, rule), k in zip(refs, range(len(refs))):
            u, a = _rule_bound(rule)
            v = np.array(np.asarray(v).reshape(vals[(i, k)].sizes), order="C")
            if mode == 1 and name in ("max", "min") and is_float(rt):
                # the max of +0 and -0 is either zero (the order decides)
                z = to_f64(v, rt) == 0
                v = np.where(z, from_f64(-to_f64(v, rt), rt), v)
            if op_type is not None:
                v = np.array(op_type[k].reshape(v.shape), order="C")
                if name == "var_mean" and k == 1:
                    v = _either_mean(v, np.asarray(refs[1][0]).reshape(v.shape), args[0], at[0],
                                     n["axes"], n["keepdim"])
            out.append((v, u, None if a is None else np.broadcast_to(a, v.shape)))
        return out
    if op in ("softmax", "log_softmax"):
        want, rule, alts = normalization.softmax_ref(args[0], at[0], n["dim"],
                                                     op == "log_softmax")
        if mode == 1 and alts:
            want = alts[0][0]
        u, a = _rule_bound(rule)
        return [(want, u, a)]
    if op == "layer_norm":
        x = args[0]
        w = args[1] if n["w"] else None
        b = args[-1] if n["b"] else None
        refs, _, alts = normalization.layer_norm_ref(x, at[0], n["nd"], w, b, n["eps"])
        out = []
        for k, (v, rule) in enumerate(refs):
            if mode == 1 and k < len(alts):
                v = alts[k][0]
            if mode == 1 and k == 1:
                v = _either_mean(np.asarray(v).reshape(vals[(i, 1)].sizes),
                                 np.asarray(refs[1][0]).reshape(vals[(i, 1)].sizes), x, at[0],
                                 _norm_dims(vals[(i, 0)], n), True)
            u, a = _rule_bound(rule)
            v = np.array(np.asarray(v).reshape(vals[(i, k)].sizes), order="C")
            out.append((v, u, None if a is None else np.broadcast_to(a, v.shape)))
        return out
    if op == "rms_norm":
        w = args[1] if n["w"] else None
        want, rule, alts = normalization.rms_norm_ref(args[0], at[0], n["nd"], w, n["eps"])
        if mode == 1 and alts:
            want = alts[0][0]
        u, a = _rule_bound(rule)
        return [(want, u, a)]
    raise Invalid(op)


def _carried_bound(n, i, args, bounds, vals):
    """The bound of a result that only moves or selects its operands' values
    (shape ops, where): the bound of the op that computed them, moved the
    same way (ulps: the largest; atol: moved element by element)."""
    op = n["op"]
    refs = [tuple(r) for r in n["args"]]
    data = [1, 2] if op == "where" else ([0] if op == "pad" else list(range(len(refs))))
    ulps = max(bounds[refs[k]][0] for k in data)
    if all(bounds[refs[k]][1] is None for k in data):
        return ulps, None
    a = [np.zeros(vals[refs[k]].sizes) if bounds[refs[k]][1] is None else
         np.broadcast_to(np.asarray(bounds[refs[k]][1], np.float64), vals[refs[k]].sizes)
         for k in data]
    shape = vals[(i, 0)].sizes
    if op == "where":
        c = np.broadcast_to(args[0], shape)
        return ulps, np.where(c, np.broadcast_to(a[0], shape), np.broadcast_to(a[1], shape))
    if op == "reshape":
        return ulps, a[0].reshape(shape)
    if op == "permute":
        return ulps, np.transpose(a[0], n["perm"])
    if op == "broadcast":
        return ulps, _expand(a[0], shape, n["map"])
    if op == "slice":
        return ulps, a[0][tuple(slice(p, q, r) for p, q, r in zip(n["start"], n["limit"],
                                                                    n["step"]))]
    if op == "pad":
        return ulps, np.pad(a[0], list(zip(n["low"], n["high"])))
    return ulps, np.concatenate(a, axis=n["dim"])


def _discontinuous(g, i, vals):
    """Whether node i jumps where its float operands cross a value (floor,
    a comparison, a float -> integer cast...)."""
    n = g["nodes"][i]
    args = [tuple(r) for r in n.get("args", [])]
    if not args or not is_float(vals[args[0]].dtype):
        return False
    if n["op"] == "cast":
        return not is_float(n["to"])
    return n["op"] == "ew" and n["name"] in DISCONTINUOUS


def _same(a, b, t):
    if is_float(t):
        fa, fb = to_f64(a, t), to_f64(b, t)
        return (fa == fb) | (np.isnan(fa) & np.isnan(fb))
    return a == b


def _across(g, i, args, vals, reach, rng, base, mode):
    """Node i's result with its float operands moved by up to `reach` (how
    far a correct kernel's values may be from sample 0's) where that crosses
    a jump: the first of (+, +), (+, -), (-, -), (-, +) (sample 200; 201:
    the other way round) that changes the result, element by element. A
    remainder (fmod) whose quotient is that uncertain can be anything
    between 0 and the divisor (with the dividend's sign): 200 gives the
    divisor, 201 zero."""
    refs = [tuple(r) for r in g["nodes"][i]["args"]]
    t = vals[(i, 0)].dtype
    out, done = base.copy(), np.zeros(base.shape, bool)
    order = [(1, 1, 1), (1, -1, 1), (-1, -1, -1), (-1, 1, -1)]
    if mode != JUMP_MODE:
        order.reverse()
    name = g["nodes"][i]["name" if g["nodes"][i]["op"] == "ew" else "op"]
    if name in ("remainder", "fmod"):
        ta, tb = (vals[r].dtype for r in refs)
        a, b = (np.broadcast_to(to_f64(x, tt), base.shape) for x, tt in zip(args, (ta, tb)))
        ra, rb = (np.broadcast_to(reach.get(r, 0.0), base.shape) for r in refs)
        with np.errstate(all="ignore"):
            wide = ra + np.abs(a / b) * rb >= np.abs(b) / 8
            wide &= np.isfinite(a) & np.isfinite(b) & (b != 0)
            # remainder takes the divisor's sign, fmod the dividend's
            s = b if name == "remainder" else a
            edge = (np.copysign(np.abs(b), s) * (1 - 2.0 ** -8) if mode == JUMP_MODE
                    else np.copysign(0.0, s))
        out = np.where(wide, from_f64(edge, t), out)
        done |= wide
    for signs in order:
        moved = []
        for k, (x, r) in enumerate(zip(args, refs)):
            rt = vals[r].dtype
            if is_float(rt) and r in reach:
                f = to_f64(x, rt)
                m = f + signs[k] * reach[r]
                moved.append(np.where(np.isfinite(m), from_f64(m, rt), x))
            else:
                moved.append(x)
        y = np.array(np.broadcast_to(eval_node(g, i, moved, vals, 0, rng)[0][0], base.shape))
        new = ~_same(y, base, t) & ~done
        out = np.where(new, y, out)
        done |= new
    return out


def _reach(samples, bounds, vals):
    """For every float value: how far from sample 0 a correct kernel's value
    may be: the farthest sample, plus the bound of its op."""
    out = {}
    for ref, v in vals.items():
        if not is_float(v.dtype) or ref not in samples[0]:
            continue
        x0 = samples[0][ref]
        f = np.stack([to_f64(s[ref], v.dtype) for s in samples])
        with np.errstate(invalid="ignore"):
            d = np.nan_to_num(np.abs(f - f[0]).max(0), nan=0.0, posinf=0.0)
        u, a = bounds[ref]
        if u:
            one = np.abs(to_f64(_step(x0, v.dtype, np.ones(x0.shape, np.int64)), v.dtype) - f[0])
            d = d + u * np.nan_to_num(one, nan=0.0, posinf=0.0)
        if a is not None:
            d = d + np.nan_to_num(np.broadcast_to(np.asarray(a, np.float64), x0.shape),
                                  nan=0.0, posinf=0.0)
        out[ref] = d
    return out


def evaluate(g, vals, data, mode, reach=None):
    """Every result of the graph in sample `mode`: {ref: array}, and the
    bound (ulps, atol) each result is checked with: its op's, or for shape
    ops and where the bound of the values they carry."""
    rng = np.random.default_rng([g["seed"] & 0xFFFFFFFF, mode, 99])
    res, bounds = {}, {}
    for i, n in enumerate(g["nodes"]):
        if n["op"] == "input":
            res[(i, 0)] = data[i]
            bounds[(i, 0)] = (0, None)
            continue
        args = [res[tuple(r)] for r in n.get("args", [])]
        outs = eval_node(g, i, args, vals, 0 if mode >= JUMP_MODE else mode, rng)
        if mode in (JUMP_MODE, JUMP_MODE + 1) and _discontinuous(g, i, vals):
            outs = [(_across(g, i, args, vals, reach, rng, outs[0][0], mode),) +
                    tuple(outs[0][1:])]
        if 2 <= mode < KNOWN_MODE and n["op"] in F32_VARIANTS:
            outs = _f32_variant(g, i, args, vals, mode, rng, outs)
        if mode == KNOWN_MODE:
            for kb in KNOWN_BUGS:
                if kb.applies(g, i):
                    outs = kb.model(g, i, args, vals, outs)
        for k, (x, u, a) in enumerate(outs):
            t = vals[(i, k)].dtype
            x = np.array(np.asarray(x).reshape(vals[(i, k)].sizes), order="C")
            if x.dtype != np.dtype(np_dtype(t)):
                raise Invalid("reference of %s gave %s for %s" % (n["op"], x.dtype, t))
            if 3 <= mode < KNOWN_MODE:
                x = _perturb(x, t, u, a, mode, rng)
            res[(i, k)] = x
            bounds[(i, k)] = (u, a)
            if n["op"] in SHAPE_OPS + ("where",) and n["op"] != "const" and mode == 0:
                bounds[(i, k)] = _carried_bound(n, i, args, bounds, vals)
    return res, bounds


def _rows(x, t, axes, mode, rng):
    """x as f32 with the reduced `axes` moved last and flattened, their
    elements in the order of sample `mode`: as they are (2), by increasing
    (3) or decreasing (4) magnitude, or a random order (5...); and the kept
    shape and the count."""
    f = to_f64(x, t).astype(np.float32)
    axes = list(axes)
    keep = [j for j in range(f.ndim) if j not in axes]
    m = np.transpose(f, keep + axes)
    kshape = m.shape[:len(keep)]
    cnt = int(np.prod([f.shape[j] for j in axes]))
    m = m.reshape(kshape + (cnt,))
    if mode in (3, 4) and cnt > 1:
        # smallest magnitudes first (an underflow to 0 before an inf: NaN),
        # or largest first (an overflow to inf before a 0: NaN)
        o = np.argsort(np.abs(m), axis=-1, kind="stable")
        m = np.take_along_axis(m, o if mode == 3 else o[..., ::-1], axis=-1)
    elif mode >= 5:
        m = m[..., rng.permutation(cnt)]
    return m, kshape, cnt


def _seqsum(m):
    if m.shape[-1] == 0:
        return np.zeros(m.shape[:-1], np.float32)
    return np.cumsum(m, axis=-1, dtype=np.float32)[..., -1]


def _keep(r, x_shape, axes):
    """A reduced array (kept shape) with the reduced axes back as size 1."""
    return r.reshape([1 if j in axes else s for j, s in enumerate(x_shape)])


def _f32_variant(g, i, args, vals, mode, rng, outs):
    """The normalizations and var_mean as a plain f32 kernel computes them
    (two passes, sums one element after the other in the order of sample
    `mode`), for samples 2 and after: where an f32 intermediate overflows
    or underflows (a variance of 1e40, a mean of 1e38) their inf, NaN or 0
    are as plausible as fuser's, and the f64 reference has none. Elements
    over empty rows keep the reference."""
    n = g["nodes"][i]
    op = n["op"]
    t = vals[tuple(n["args"][0])].dtype
    x = args[0]
    if x.size == 0:
        return outs
    with np.errstate(all="ignore"):
        if op == "var_mean":
            axes = list(n["axes"])
            m, kshape, cnt = _rows(x, t, axes, mode, rng)
            if cnt - n["correction"] <= 0:
                return outs
            mean = _seqsum(m) / np.float32(cnt)
            d = m - mean[..., None]
            var = _seqsum(d * d) / np.float32(cnt - n["correction"])
            rs = vals[(i, 0)].sizes
            return [(from_f64(var.astype(np.float64).reshape(rs), t), outs[0][1], outs[0][2]),
                    (from_f64(mean.astype(np.float64).reshape(rs), t), outs[1][1], outs[1][2])]
        f = to_f64(x, t).astype(np.float32)
        if op in ("softmax", "log_softmax"):
            dim = n["dim"]
            if f.shape[dim] == 0:
                return outs
            mx = f.max(axis=dim, keepdims=True)
            e = np.exp(f - mx).astype(np.float32)
            m, kshape, cnt = _rows(e, "f32", [dim], mode, rng)
            s = _keep(_seqsum(m), f.shape, [dim])
            y = (f - mx) - np.log(s) if op == "log_softmax" else e / s
            return [(from_f64(y.astype(np.float64), t), outs[0][1], outs[0][2])]
        axes = list(range(f.ndim - n["nd"], f.ndim))
        if int(np.prod([f.shape[j] for j in axes])) == 0:
            return outs
        w = to_f64(args[1], t).astype(np.float32) if n["w"] else None
        if op == "rms_norm":
            m, kshape, cnt = _rows(f * f, "f32", axes, mode, rng)
            r = np.float32(1) / np.sqrt(_keep(_seqsum(m) / np.float32(cnt), f.shape, axes) +
                                        np.float32(n["eps"]))
            y = f * r
            if w is not None:
                y = y * w
            return [(from_f64(y.astype(np.float64), t), outs[0][1], outs[0][2])]
        # layer_norm
        b = to_f64(args[-1], t).astype(np.float32) if n["b"] else None
        m, kshape, cnt = _rows(x, t, axes, mode, rng)
        mean = _keep(_seqsum(m) / np.float32(cnt), f.shape, axes)
        d = f - mean
        dm, _, _ = _rows(d * d, "f32", axes, mode, rng)
        var = _keep(_seqsum(dm) / np.float32(cnt), f.shape, axes)
        rstd = np.float32(1) / np.sqrt(var + np.float32(n["eps"]))
        y = d * rstd
        if w is not None:
            y = y * w
        if b is not None:
            y = y + b
        mt = vals[(i, 1)].dtype
        return [(from_f64(y.astype(np.float64), t), outs[0][1], outs[0][2]),
                (from_f64(mean.astype(np.float64), mt), outs[1][1], outs[1][2]),
                (from_f64(rstd.astype(np.float64), mt), outs[2][1], outs[2][2])]


class Envelope(Rule):
    """A result within the bound of its last op plus SPREAD times the
    spread of the reference samples; see the module docstring."""

    def __init__(self, samples, t, ulps, atol, exact_zero_sign, known=()):
        self.known = list(known)   # KnownFailure entries that may excuse elements
        self.last_bad = None
        self.ulps = ulps
        self.t = t
        s0 = samples[0]
        self.unstable = np.zeros(s0.shape, bool)
        if is_float(t):
            f = np.stack([to_f64(s, t) for s in samples])
            nan = np.isnan(f)
            fin = np.isfinite(f)
            self.unstable = (nan != nan[0]).any(0) | (fin != fin[0]).any(0) | \
                ((~fin & ~nan & (f != f[0])).any(0))
            with np.errstate(invalid="ignore"):
                d = np.where(fin.all(0), np.abs(f - f[0]).max(0), 0.0)
            # ill-conditioned: the samples disagree by half the value or more
            # (sin of 7e6 after a mean; x - y of nearly equal values): the
            # bound says nothing about the value there, only NaN and the
            # infinities are checked
            self.ill = (d > np.abs(f[0]) / 2) & ~self.unstable
            self.spread = d
            a = 0.0 if atol is None else np.nan_to_num(np.asarray(atol, np.float64),
                                                       nan=0.0, posinf=0.0)
            self.atol = SPREAD * d + a
            z = (f == 0).all(0)
            sb = np.signbit(f)
            self.zero_sign = exact_zero_sign & z & (sb == sb[0]).all(0) & (d == 0)
            self.zero_neg = sb[0]
            self.inexact = int(np.count_nonzero(d > 0))
            self.name = "%d ulp + %g x spread of %d samples" % (ulps, SPREAD, len(samples))
        else:
            s = np.stack(samples)
            self.ill = np.zeros(s0.shape, bool)
            self.lo, self.hi = s.min(0), s.max(0)
            self.unstable = self.lo != self.hi
            self.inexact = 0
            self.name = "exact (within the samples where they differ)"

    def describe(self):
        return self.name

    def check(self, got, want, t):
        if is_float(t):
            if self.atol is None or not np.any(self.atol):
                rule = Ulps(self.ulps)
            else:
                rule = Ulps(self.ulps, self.atol)
            bad = rule.check(got, want, t)
            if self.zero_sign.any():
                g = to_f64(got, t)
                bad |= self.zero_sign & ((g != 0) | (np.signbit(g) != self.zero_neg))
            if self.ill.any():
                g, w = to_f64(got, t), to_f64(want, t)
                kind = (np.isnan(g) != np.isnan(w)) | (np.isinf(g) != np.isinf(w)) | \
                    (np.isinf(g) & (g != w))
                bad = np.where(self.ill, kind, bad)
            bad &= ~self.unstable
        elif t == "i1":
            bad = (got != want) & ~self.unstable
        else:
            bad = (got < self.lo) | (got > self.hi)
        for kf in self.known:
            if bad.any():
                m = kf.excuse(got, want, t, None) & bad
                kf.excused += int(np.count_nonzero(m))
                bad &= ~m
        self.last_bad = (got, want, bad)
        return bad


def _kind(v, t):
    if not is_float(t):
        return "int" if t != "i1" else "bool"
    f = float(to_f64(np.asarray([v]), t)[0])
    if np.isnan(f):
        return "nan"
    if np.isinf(f):
        return "inf"
    return "zero" if f == 0 else "finite"


def failure_kinds(p):
    """(kind of the result, kind of the reference) of the failing elements of
    part p after compare(): how a graph fails, for the shrinker."""
    kinds = set()
    for r in p.results:
        rule = r.expect.rule if r.expect else None
        if isinstance(rule, Envelope) and rule.last_bad is not None:
            got, want, bad = rule.last_bad
            for ix in np.argwhere(bad)[:64]:
                ix = tuple(ix)
                kinds.add((_kind(got[ix], r.dtype), _kind(want[ix], r.dtype)))
    return frozenset(kinds)


def part(g, label=None):
    """The oracle Part of graph g (its inputs, ops and what every output
    must be), and facts about it for the statistics."""
    vals = infer(g)
    data = {i: input_data(g, i, vals[(i, 0)]) for i, n in enumerate(g["nodes"])
            if n["op"] == "input"}
    samples = []
    bounds = None
    modes = list(range(5 + N_RANDOM))
    if USE_KNOWN_MODELS and any(kb.applies(g, i) for kb in KNOWN_BUGS
                                for i in range(len(g["nodes"]))):
        modes.append(KNOWN_MODE)
    for mode in modes:
        res, b = evaluate(g, vals, data, mode)
        samples.append(res)
        if mode == 0:
            bounds = b
    if any(_discontinuous(g, i, vals) for i in range(len(g["nodes"]))):
        reach = _reach(samples, bounds, vals)
        for mode in (JUMP_MODE, JUMP_MODE + 1):
            samples.append(evaluate(g, vals, data, mode, reach)[0])
    expects = []
    stats = {"elements": 0, "unstable": 0, "inexact": 0, "ill": 0}
    for r in g["outputs"]:
        r = tuple(r)
        t = vals[r].dtype
        u, a = bounds[r]
        known = []
        if g["nodes"][r[0]]["op"] == "layer_norm" and r[1] > 0:
            known.append(KF["layer-norm-mean"])
        if not USE_KNOWN_MODELS:
            known = []
        env = Envelope([s[r] for s in samples], t, u, a, exact_zero_sign=(u == 0 and a is None),
                       known=known)
        stats["elements"] += samples[0][r].size
        stats["unstable"] += int(np.count_nonzero(env.unstable))
        stats["ill"] += int(np.count_nonzero(env.ill))
        stats["inexact"] += env.inexact
        expects.append(Expect(samples[0][r], env))
    p = Part(label or "seed %d" % g["seed"], _args(g, vals, data), lines(g, vals),
             _results(g, vals, expects))
    return p, stats


def describe(g):
    """What each output of graph g is checked against (for --seed N -v)."""
    p, _ = part(g)
    out = []
    for j, (r, res) in enumerate(zip(g["outputs"], p.results)):
        rule = res.expect.rule
        n = g["nodes"][r[0]]
        what = n.get("name", n["op"])
        inexact = int(np.count_nonzero(getattr(rule, "spread", np.zeros(0)) > 0))
        out.append("  result %d (%s, from %s): %d elements, %d within a spread, %d unstable; %s"
                   % (j, res.type, what, res.expect.want.size, inexact,
                      int(np.count_nonzero(rule.unstable)), rule.describe()))
    return "\n".join(out)


KF = {kf.name: kf for kf in KNOWN_FAILURES}


# ---------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------

def fuser_opt(env):
    p = os.path.join(os.path.dirname(env.fuserc), "fuser-opt")
    return p if os.path.exists(p) else None


def classify_error(env, g, err):
    """'reject' when the verifier rejects the graph (a generator bug), else
    'error' (the compiler failed on a valid graph); and a key naming the
    failure without positions or names."""
    first = next((l for l in err.splitlines() if "error" in l), err.strip()[:200])
    key = re.sub(r"^.*?error: ", "", first)
    key = re.sub(r"^[\w$.]+: ", "", key)         # fuserc's "NAME: " (the fusion's name)
    key = re.sub(r"0x[0-9a-fA-F]+|%[\w$.]+|\d+|tensor<[^>]*>|'[^']*'|\S+\.(mlir|npy)", "_",
                 key)
    opt = fuser_opt(env)
    if opt:
        d = tempfile.mkdtemp(prefix="randgen-", dir=env.workdir)
        try:
            path = os.path.join(d, "g.mlir")
            with open(path, "w") as f:
                f.write(fusion(g))
            p = subprocess.run([opt, path], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            if p.returncode != 0:
                return "reject", key, p.stderr.decode(errors="replace").strip()
        finally:
            shutil.rmtree(d, ignore_errors=True)
    elif "op operand" in err or "verif" in err or "expected" in err:
        return "reject", key, err.strip()
    return "error", key, err.strip()


def known_error(err):
    """The KNOWN_ERRORS entry whose pattern fuserc's message `err` matches."""
    if not USE_KNOWN_MODELS:
        return None
    for pat, name, _, _ in KNOWN_ERRORS:
        if re.search(pat, err):
            return name
    return None


def run_one(env, g):
    """Checks graph g alone: (signature, message, stats). signature is None
    when it passes, ('mismatch',), ('error', key) or ('reject', key)."""
    try:
        p, stats = part(g)
    except Invalid as e:
        return ("invalid",), str(e), None
    res, err, cmd = execute(env, "seed_%d" % g["seed"], [p], getattr(env, "extra", ()))
    if res is None:
        k = known_error(err)
        if k:
            return ("known", k), err.strip(), stats
        kind, key, msg = classify_error(env, g, err)
        return (kind, key), msg, stats
    probs = compare([p], res)[0]
    if probs:
        k = known_pattern(g)
        if k:
            return ("known", k), "\n".join(probs), stats
        return ("mismatch", failure_kinds(p)), "\n".join(probs), stats
    return None, "", stats


def known_pattern(g):
    """The KNOWN_PATTERNS entry graph g matches."""
    if not USE_KNOWN_MODELS:
        return None
    vals = infer(g)
    for name, _, _, pred in KNOWN_PATTERNS:
        if pred(g, vals):
            return name
    return None


def same_failure(orig, new):
    """Whether signature `new` is the failure `orig` (the shrinker keeps a
    smaller graph only then): the same error, or a mismatch sharing a kind
    of wrong element (e.g. NaN for a finite value)."""
    if new is None or orig is None or new[0] != orig[0]:
        return False
    if orig[0] == "mismatch":
        return bool(orig[1] & new[1])
    return new == orig


def corrupt(got, result, seed, ulps):
    """Self-test (--corrupt ULPS): moves one element of a result, chosen by
    the seed, by `ulps` units in the last place (integers: by 1, i1:
    flipped). Returns the element's category: 'unstable' (not checked),
    'exact' (no inexact op upstream, last op exact), 'bound' (within a
    bound), or 'empty'."""
    if got.size == 0:
        return "empty"
    rng = np.random.default_rng([seed & 0xFFFFFFFF, 5])
    ix = tuple(int(rng.integers(0, s)) for s in got.shape)
    rule = result.expect.rule
    t = result.dtype
    if rule.unstable[ix]:
        cat = "unstable"
    elif rule.ill[ix]:
        cat = "ill-conditioned"
    elif is_float(t) and (rule.ulps or np.broadcast_to(rule.atol, got.shape)[ix] > 0):
        cat = "bound"
    else:
        cat = "exact"
    if t == "i1":
        got[ix] = not got[ix]
    elif not is_float(t):
        got[ix] = got[ix] + 1 if got[ix] < np.iinfo(got.dtype).max else got[ix] - 1
    else:
        one = np.asarray([got[ix]])
        if not np.isfinite(to_f64(one, t)[0]):
            return "not finite"
        got[ix] = _step(one, t, np.asarray([ulps]))[0]
    return cat


def run_batch(env, graphs):
    """Runs graphs as one fusion (one compile and run); a batch that fails
    to compile runs graph by graph. Returns [(graph, signature, message,
    stats)]."""
    built = []
    out = []
    for g in graphs:
        try:
            p, stats = part(g)
        except Exception as e:  # Invalid, or a bug of the reference
            out.append((g, ("invalid",), "%s\n%s" % (e, traceback.format_exc()), None))
            continue
        built.append((g, p, stats))
    if not built:
        return out
    res, err, cmd = execute(env, "batch", [p for _, p, _ in built], getattr(env, "extra", ()))
    if res is None:
        if len(built) == 1:
            g, p, stats = built[0]
            k = known_error(err)
            if k:
                out.append((g, ("known", k), err.strip(), stats))
                return out
            kind, key, msg = classify_error(env, g, err)
            out.append((g, (kind, key), msg, stats))
            return out
        for g, _, _ in built:
            sig, msg, stats = run_one(env, g)
            out.append((g, sig, msg, stats))
        return out
    k = 0
    for g, p, stats in built:
        n = len(p.results)
        if getattr(env, "corrupt", None) is not None and n:
            cat = corrupt(res[k], p.results[0], g["seed"], env.corrupt)
            probs = compare([p], res[k:k + n])[0]
            k += n
            env.corrupt_log.append((cat, bool(probs)))
            if cat == "exact" and not probs and env.verbose:
                print("missed exact: seed %d %s" % (g["seed"], p.results[0].type))
            out.append((g, None, "", stats))
            continue
        probs = compare([p], res[k:k + n])[0]
        k += n
        if probs and known_pattern(g):
            out.append((g, ("known", known_pattern(g)), "\n".join(probs), stats))
            continue
        if probs:
            sig, msg, stats2 = run_one(env, g)
            if sig is None:
                out.append((g, ("batched",), "fails only batched with other graphs:\n" +
                            "\n".join(probs), stats))
            else:
                out.append((g, sig, msg, stats))
        else:
            out.append((g, None, "", stats))
    return out


# ---------------------------------------------------------------------------
# Shrinking
# ---------------------------------------------------------------------------

def prune(g):
    """Drops the nodes no output needs (renumbering the rest) and the
    symbols no node uses."""
    need = set()
    stack = [r[0] for r in g["outputs"]]
    while stack:
        i = stack.pop()
        if i in need:
            continue
        need.add(i)
        stack += [r[0] for r in g["nodes"][i].get("args", [])]
    keep = sorted(need)
    new = {o: k for k, o in enumerate(keep)}
    nodes = []
    for o in keep:
        n = copy.deepcopy(g["nodes"][o])
        if "args" in n:
            n["args"] = [[new[r[0]], r[1]] for r in n["args"]]
        nodes.append(n)
    g2 = dict(g, nodes=nodes, outputs=[[new[r[0]], r[1]] for r in g["outputs"]])
    # the symbols in use, renumbered
    used = sorted(set(s for n in nodes for d in n.get("dims", []) for s in d))
    sm = {o: k for k, o in enumerate(used)}
    for n in nodes:
        if "dims" in n:
            n["dims"] = [[sm[s] for s in d] for d in n["dims"]]
    g2["syms"] = [g["syms"][o] for o in used]
    return g2


def _replace(g, old, new):
    g = copy.deepcopy(g)
    for n in g["nodes"]:
        if "args" in n:
            n["args"] = [list(new) if tuple(r) == old else r for r in n["args"]]
    g["outputs"] = [list(new) if tuple(r) == old else r for r in g["outputs"]]
    seen = []
    for r in g["outputs"]:
        if r not in seen:
            seen.append(r)
    g["outputs"] = seen
    return g


def _cut(g, ref, v):
    """g with value `ref` replaced by a new input of its type (node 0)."""
    g = copy.deepcopy(g)
    kind = {"i1": "bool", "i32": "small"}.get(v.dtype, "normal")
    node = {"op": "input", "dtype": v.dtype, "dims": [list(d) for d in v.dims],
            "dyn": list(v.dyn), "kind": kind, "specials": False}
    old = (ref[0] + 1, ref[1])

    def move(r):
        r = (r[0] + 1, r[1])
        return [0, 0] if r == old else list(r)
    for n in g["nodes"]:
        if "args" in n:
            n["args"] = [move(r) for r in n["args"]]
    g["nodes"].insert(0, node)
    g["outputs"] = [move(r) for r in g["outputs"]]
    return g


def candidates(g):
    """Smaller graphs to try, most reducing first."""
    vals = infer(g)
    # drop outputs
    if len(g["outputs"]) > 1:
        for j in range(len(g["outputs"])):
            yield "drop output %d" % j, dict(copy.deepcopy(g), outputs=[
                r for k, r in enumerate(g["outputs"]) if k != j])
    # return an output's operand instead (of any type)
    for j, r in enumerate(g["outputs"]):
        for q in g["nodes"][r[0]].get("args", []):
            if g["nodes"][q[0]]["op"] not in ("input", "const") and q not in g["outputs"]:
                g2 = copy.deepcopy(g)
                g2["outputs"][j] = list(q)
                yield "output %d: its operand %s" % (j, tuple(q)), g2
    # replace an op's result by an operand or an earlier value of its type
    for i in range(len(g["nodes"]) - 1, -1, -1):
        n = g["nodes"][i]
        if n["op"] in ("input", "const"):
            continue
        for k in range(3):
            r = (i, k)
            if r not in vals:
                break
            v = vals[r]
            subs = [tuple(a) for a in n.get("args", [])]
            subs += [q for q in vals if q[0] < i and q not in subs]
            for q in subs:
                w = vals[q]
                if g["nodes"][q[0]]["op"] == "const":
                    continue
                if w.dtype == v.dtype and w.sizes == v.sizes:
                    yield "replace %s by %s" % (r, q), _replace(g, r, q)
    # cut the graph at a value: an op's result becomes a new input
    for i in range(len(g["nodes"]) - 1, -1, -1):
        if g["nodes"][i]["op"] in ("input", "const"):
            continue
        for k in range(3):
            if (i, k) in vals:
                yield "cut at %s" % ((i, k),), _cut(g, (i, k), vals[(i, k)])
    # drop a layer_norm / rms_norm parameter
    for i, n in enumerate(g["nodes"]):
        if n["op"] in ("layer_norm", "rms_norm") and len(n["args"]) > 1:
            for which in ("w", "b"):
                if n.get(which):
                    g2 = copy.deepcopy(g)
                    m = g2["nodes"][i]
                    idx = 1 if which == "w" else len(m["args"]) - 1
                    m["args"].pop(idx)
                    m[which] = False
                    yield "drop %s of node %d" % (which, i), g2
    # shrink dims
    for s, size in enumerate(g["syms"]):
        for new in sorted(set([1, size // 2, size - 1])):
            if 0 < new < size and size > 1:
                g2 = copy.deepcopy(g)
                g2["syms"][s] = new
                yield "sym %d: %d -> %d" % (s, size, new), g2
    # static dims, plain inputs
    for i, n in enumerate(g["nodes"]):
        if n["op"] == "input" and any(n["dyn"]):
            g2 = copy.deepcopy(g)
            g2["nodes"][i]["dyn"] = [False] * len(n["dyn"])
            yield "static dims of input %d" % i, g2
        if n["op"] == "input" and n.get("specials"):
            g2 = copy.deepcopy(g)
            g2["nodes"][i]["specials"] = False
            yield "no special values in input %d" % i, g2
        if n["op"] == "input" and n.get("kind") not in ("normal", "small", "bool"):
            g2 = copy.deepcopy(g)
            g2["nodes"][i]["kind"] = "small" if n["dtype"] == "i32" else "normal"
            yield "plain values in input %d" % i, g2


def _static_everywhere(g):
    """The same graph with every ? made static (a fallback shrink step)."""
    g2 = copy.deepcopy(g)
    for n in g2["nodes"]:
        if "dyn" in n:
            n["dyn"] = [False] * len(n["dyn"])
    return g2


def shrink(env, g, sig, budget_runs=150, budget_s=120.0, log=None):
    """The smallest graph found that fails with signature `sig`."""
    t0 = time.time()
    runs = 0
    g = prune(g)
    best_msg = None
    changed = True
    tried = set()
    while changed and runs < budget_runs and time.time() - t0 < budget_s:
        changed = False
        cands = list(candidates(g))
        cands.insert(0, ("all dims static", _static_everywhere(g)))
        for what, g2 in cands:
            try:
                g2 = prune(g2)
                infer(g2)
            except (Invalid, KeyError, IndexError):
                continue
            key = json.dumps(g2, sort_keys=True)
            if key in tried:
                continue
            tried.add(key)
            runs += 1
            s2, msg, _ = run_one(env, g2)
            if same_failure(sig, s2):
                g = g2
                best_msg = msg
                changed = True
                if log:
                    log("    shrink: %s (%d ops)" % (what, count_ops(g)))
                break
            if runs >= budget_runs or time.time() - t0 >= budget_s:
                break
    return g, best_msg, runs


def count_ops(g):
    return sum(1 for n in g["nodes"] if n["op"] != "input")


# ---------------------------------------------------------------------------
# Reproducers
# ---------------------------------------------------------------------------

def repro_text(g, what, original_ops, path):
    """A reproducer: a header (seed, what failed, how to run it, the graph as
    JSON) and the fusion."""
    head = ["// Random fusion found by seed %d of test/oracle/random_fusions.py, shrunk from %d "
            "to %d ops." % (g["seed"], original_ops, count_ops(g))]
    for l in what.strip().splitlines()[:6]:
        head.append("// failed: " + re.sub(r"/tmp/\S*/", "", l.strip()))
    head.append("// reproduce: /usr/bin/python3 test/oracle/random_fusions.py --repro %s -v"
                % path)
    head.append("// graph: " + json.dumps(g, sort_keys=True, separators=(",", ":")))
    return "\n".join(head) + "\n" + fusion(g)


def load_repro(path):
    with open(path) as f:
        for l in f:
            if l.startswith("// graph: "):
                return json.loads(l[len("// graph: "):])
    raise ValueError("%s: no '// graph:' line" % path)


def write_inputs(env, g, directory):
    """The fusion and its .npy inputs in `directory`; the fuserc command."""
    p, _ = part(g)
    path, inputs = write_case_files(directory, "seed_%d" % g["seed"], [p])
    cmd = [env.fuserc, "run", path, "--device", "cpu", "--output-dir",
           os.path.join(directory, "out")]
    for name, ip in inputs:
        cmd += ["--input", "%s=%s" % (name, ip)]
    return " ".join(shlex.quote(c) for c in cmd)


# ---------------------------------------------------------------------------
# Statistics and the command line
# ---------------------------------------------------------------------------

class Stats:
    def __init__(self):
        self.generated = self.compiled = self.checked = 0
        self.invalid = self.rejected = self.errors = self.mismatches = self.batched = 0
        self.ops = []
        self.elements = self.unstable = self.inexact = self.ill = 0
        self.op_counts = {}
        self.kept = self.kept_failed = self.kept_known = 0
        self.known_errors = {}
        self.seeds = []

    def add_graph(self, g):
        self.generated += 1
        self.ops.append(count_ops(g))
        for n in g["nodes"]:
            k = n["op"] if n["op"] not in ("ew", "reduce") else n["name"]
            self.op_counts[k] = self.op_counts.get(k, 0) + 1


def main(argv, root):
    import argparse
    ap = argparse.ArgumentParser(
        prog="random_fusions.py",
        description="Random fusion graphs through `fuserc run --device cpu`, checked against "
                    "PyTorch (docs/oracle.md)")
    ap.add_argument("--seeds", default=None, help="A:B, the seeds A to B-1 (default 0:200)")
    ap.add_argument("--seed", type=int, default=None, help="one seed")
    ap.add_argument("--time", type=float, default=None,
                    help="long mode: random seeds until SECONDS have passed")
    ap.add_argument("--repro", action="append", default=[],
                    help="check a kept reproducer (repeatable)")
    ap.add_argument("--no-kept", action="store_true",
                    help="do not re-run the reproducers in test/oracle/random/")
    ap.add_argument("--fuserc", default=None,
                    help="fuserc binary (default build/bin/fuserc; $FUSER_ORACLE_FUSERC wins)")
    ap.add_argument("--keep", default=None,
                    help="where reproducers of new failures go (default test/oracle/random/)")
    ap.add_argument("--batch", type=int, default=8, help="graphs per fuserc run (default 8)")
    ap.add_argument("--no-shrink", action="store_true", help="report failures unshrunk")
    ap.add_argument("--include-known", action="store_true",
                    help="also run the reproducers in KNOWN, and check what KNOWN_BUGS excuse")
    ap.add_argument("--plant-bug", default=None,
                    help="pass --plant-bug BUG to fuserc (self-test: how many graphs catch it)")
    ap.add_argument("--corrupt", type=int, default=None, metavar="ULPS",
                    help="self-test: move one element of each graph's first result by ULPS ulps "
                         "(integers by 1, i1 flipped) and count how often the check notices")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args(argv)

    global USE_KNOWN_MODELS
    USE_KNOWN_MODELS = not (a.include_known or a.repro)
    fuserc = os.environ.get("FUSER_ORACLE_FUSERC") or a.fuserc or \
        os.path.join(root, "build", "bin", "fuserc")
    if not os.path.exists(fuserc):
        print("random fusions: error: no fuserc at %s" % fuserc)
        return 1
    here = os.path.join(root, "test", "oracle", "random")
    keep = a.keep or here
    work = tempfile.mkdtemp(prefix="fuser-random-")
    env = Env(fuserc, work, keep, a.verbose, root)
    env.extra = ["--plant-bug", a.plant_bug] if a.plant_bug else []
    env.corrupt = a.corrupt
    env.corrupt_log = []
    if a.plant_bug or a.corrupt is not None:
        a.no_shrink = a.no_kept = True
    t0 = time.time()
    st = Stats()
    failures = []

    def log(s):
        print(s)
        sys.stdout.flush()

    try:
        # kept reproducers first
        kept = list(a.repro)
        if not a.repro and not a.no_kept and a.seed is None and os.path.isdir(here):
            kept = sorted(os.path.join(here, f) for f in os.listdir(here) if f.endswith(".mlir"))
        for path in kept:
            base = os.path.basename(path)
            if base in KNOWN and not a.repro and not a.include_known:
                # run without the known bugs' models: say when it passes
                USE_KNOWN_MODELS = False
                try:
                    sig, _, _ = run_one(env, load_repro(path))
                finally:
                    USE_KNOWN_MODELS = True
                if sig is None:
                    log("known failure %s passes now: fixed? remove it from randgen.KNOWN (%s)"
                        % (base, KNOWN[base]))
                elif a.verbose:
                    log("known failure %s, not counted: %s" % (base, KNOWN[base]))
                st.kept_known += 1
                continue
            g = load_repro(path)
            sig, msg, _ = run_one(env, g)
            st.kept += 1
            st.kept_failed += sig is not None
            if a.verbose or sig is not None:
                log("%s %s" % ("FAIL" if sig else "ok  ", path))
            if a.verbose and a.repro:
                log(fusion(g))
            if sig is not None:
                failures.append((path, msg))
                log(_indent(msg))
                d = os.path.join(work, "repro-" + base[:-5])
                log("  reproduce: " + write_inputs(env, g, d))

        if a.seed is not None:
            seeds = iter([a.seed])
        elif a.time is not None:
            base = int(time.time()) * 1000 % (1 << 31)
            seeds = (base + k for k in range(1 << 30))
        elif a.repro:
            seeds = iter([])
        else:
            lo, hi = (int(x) for x in (a.seeds or "0:200").split(":"))
            seeds = iter(range(lo, hi))
        deadline = None if a.time is None else t0 + a.time
        while True:
            batch = []
            for s in seeds:
                batch.append(s)
                if len(batch) >= a.batch:
                    break
            if not batch or (deadline and time.time() > deadline):
                break
            graphs = []
            for s in batch:
                try:
                    g = generate(s)
                except Exception as e:  # a generator bug: report it, go on
                    st.generated += 1
                    st.invalid += 1
                    log("GENERATOR BUG seed %d: %s\n%s" % (s, e, _indent(traceback.format_exc())))
                    failures.append(("seed %d" % s, "generator: %s" % e))
                    continue
                st.add_graph(g)
                st.seeds.append(s)
                graphs.append(g)
                if a.seed is not None:
                    log(fusion(g))
                    if a.verbose:
                        log(describe(g))
            tb = time.time()
            n0 = env.runs
            results = run_batch(env, graphs)
            for g, sig, msg, stats in results:
                if sig is not None and sig[0] == "invalid":
                    st.invalid += 1
                    log("GENERATOR BUG seed %d: %s" % (g["seed"], msg))
                    failures.append(("seed %d" % g["seed"], "generator: " + msg))
                    continue
                if stats:
                    st.elements += stats["elements"]
                    st.unstable += stats["unstable"]
                    st.ill += stats["ill"]
                    st.inexact += stats["inexact"]
                if sig is None:
                    st.compiled += 1
                    st.checked += 1
                    continue
                if sig[0] == "known":
                    st.known_errors[sig[1]] = st.known_errors.get(sig[1], 0) + 1
                    if any(sig[1] == kp[0] for kp in KNOWN_PATTERNS):
                        st.compiled += 1        # it ran; its mismatch is a known bug
                        st.checked += 1
                    if a.verbose:
                        log("known error %s: seed %d" % (sig[1], g["seed"]))
                    continue
                if sig[0] == "reject":
                    st.rejected += 1
                    log("GENERATOR BUG seed %d: the verifier rejects the graph:\n%s" % (
                        g["seed"], _indent(msg)))
                    failures.append(("seed %d" % g["seed"], "rejected: " + msg))
                    continue
                if sig[0] == "error":
                    st.errors += 1
                else:
                    st.compiled += 1
                    st.checked += 1
                    if sig[0] == "batched":
                        st.batched += 1
                    else:
                        st.mismatches += 1
                log("FAIL seed %d (%s, %d ops):\n%s" % (g["seed"], sig[0], count_ops(g),
                                                       _indent(msg)))
                failures.append(("seed %d" % g["seed"], msg))
                if sig[0] in ("mismatch", "error") and not a.no_shrink:
                    g2, msg2, runs = shrink(env, g, sig, log=log if a.verbose else None)
                    msg2 = msg2 or msg
                    os.makedirs(keep, exist_ok=True)
                    path = os.path.join(keep, "seed-%d.mlir" % g["seed"])
                    with open(path, "w") as f:
                        f.write(repro_text(g2, msg2, count_ops(g), os.path.relpath(path, root)
                                           if path.startswith(root + os.sep) else path))
                    d = os.path.join(work, "seed-%d" % g["seed"])
                    line = write_inputs(env, g2, d)
                    log("  shrunk to %d ops in %d runs: %s\n%s\n  reproduce: /usr/bin/python3 "
                        "test/oracle/random_fusions.py --repro %s -v\n  or: %s" % (
                            count_ops(g2), runs, path, _indent(fusion(g2)), path, line))
            if a.verbose:
                log("  seeds %d..%d: %d graphs, %d fuserc runs, %.2f s" % (
                    batch[0], batch[-1], len(graphs), env.runs - n0, time.time() - tb))
    except FusercBroken as e:
        print("random fusions: error: fuserc cannot start, stopping: %s" % e)
        return 1
    finally:
        if not failures:
            shutil.rmtree(work, ignore_errors=True)
    ops = st.ops or [0]
    if st.kept or st.kept_known:
        print("random fusions: kept reproducers: %d run, %d failed; %d known failures not "
              "counted (randgen.KNOWN)" % (st.kept, st.kept_failed, st.kept_known))
    if a.time is not None and st.seeds:
        print("random fusions: seeds %d to %d" % (st.seeds[0], st.seeds[-1]))
    if st.generated or not (st.kept or st.kept_known):
        print("random fusions: %d graphs generated, %d compiled, %d checked; ops per graph %.1f "
              "(%d to %d); %d output elements, %d within a spread (inexact upstream), %d "
              "ill-conditioned (only NaN/inf checked), %d unstable (not checked); %d "
              "mismatches, %d only batched, %d compile/run errors, "
              "%d rejected by the verifier, %d invalid; %d fuserc runs, %.1f s in fuserc, "
              "%.1f s total" % (
                  st.generated, st.compiled, st.checked, float(np.mean(ops)), min(ops), max(ops),
                  st.elements, st.inexact, st.ill, st.unstable, st.mismatches, st.batched,
                  st.errors,
                  st.rejected, st.invalid, env.runs, env.run_seconds, time.time() - t0))
    for kf in KNOWN_FAILURES:
        if kf.excused:
            print("  known failure %s: %d elements excused" % (kf.name, kf.excused))
    for name, cnt in sorted(st.known_errors.items()):
        print("  known bug %s: %d graphs excused" % (name, cnt))
    if env.corrupt is not None:
        cats = {}
        for cat, hit in env.corrupt_log:
            c = cats.setdefault(cat, [0, 0])
            c[0] += 1
            c[1] += hit
        print("  self-test, one element of each first result moved by %d ulp: %s" % (
            a.corrupt, "; ".join("%s: %d of %d noticed" % (c, v[1], v[0])
                                 for c, v in sorted(cats.items()))))
        return 0
    if a.verbose and st.op_counts:
        print("  ops: " + ", ".join("%s %d" % kv for kv in sorted(st.op_counts.items())))
    if failures:
        print("failures (files in %s):" % work)
        for what, msg in failures:
            print("  %s: %s" % (what, (msg.strip().splitlines() or ["?"])[0][:200]))
        return 1
    return 0


def _indent(s):
    return "\n".join("  " + l for l in s.splitlines())
