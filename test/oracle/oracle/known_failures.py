"""Mismatches that are fuser bugs being tracked, kept out of the ctest run so
that CI stays green while each is fixed. Remove an entry once its bug is
fixed: the oracle then checks those elements again (and says, when an entry
no longer excuses anything, that it can go).

Each entry names the cases it concerns (fnmatch globs over case names, or
"case:part label"), what goes wrong, a one-line reproducer, and either an
`excuse` (a function of got, want, element type and the inputs that returns
the mask of elements the bug explains; every other element is still checked),
or an `error` (a regular expression: a matching part whose fuserc run fails
with such a message is excused), or neither (the matching cases or parts are
skipped).

`run.py --include-known` ignores this list."""

import dataclasses
from typing import Callable, List, Optional

import numpy as np


@dataclasses.dataclass
class KnownFailure:
    name: str
    cases: List[str]
    what: str
    reproducer: str
    excuse: Optional[Callable] = None
    # A regular expression: a matching part whose fuserc run fails with a
    # message matching it is excused (and otherwise checked as usual).
    error: Optional[str] = None
    excused: int = 0   # elements (or failing parts) excused in this run


def _inf_or_zero_for_layer_norm(got, want, t):
    """A mean of inf (or an rstd of 0) where PyTorch's is finite or NaN."""
    from .core import is_float, to_f64
    if not is_float(t) or got.ndim < 1 or got.shape[-1] != 1:
        return np.zeros(got.shape, bool)   # only the (rows, 1) mean and rstd
    g, w = to_f64(got, t), to_f64(want, t)
    return (np.isinf(g) & ~np.isinf(w)) | ((g == 0) & (w != 0))


KNOWN_FAILURES = [
    KnownFailure(
        "layer-norm-mean",
        ["normalization/layer_norm/*:*huge rows*"],
        "layer_norm's mean overflows to inf for rows of finite values near 1e37 (the "
        "row sum overflows before the division; PyTorch's Welford mean is about 2e37) "
        "and its rstd is then 0; for a row holding an inf fuser's mean is inf where "
        "PyTorch's native_layer_norm gives NaN.",
        "build/bin/fuserc run test/oracle/repro/layer_norm_mean_overflow.mlir --device cpu --random 1",
        lambda got, want, t, ctx: _inf_or_zero_for_layer_norm(got, want, t)),
]
