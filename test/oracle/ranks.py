#!/usr/bin/python3
"""Sharded fusions on 2, 4 and 8 emulated devices against one device
(issue 22, docs/sharding.md).

Each example of examples/sharded/ runs with its grid made 1, 2, 4 and 8
devices (`fuserc run --ranks N`, each rank a thread with its own emulated
device, the fake NCCL between them) on the same whole inputs. Every result
must equal the one-device result: bit for bit where sharding keeps each
element's order of arithmetic (splits along dims nothing reduces, gathers,
a GEMM split by its output columns), and within the documented bound where
a reduction is split (each device reduces its part, the parts are summed
in member order: docs/sharding.md, Numerics). The inputs are the whole
tensors, and so are the results (fuserc joins the ranks' parts), so a
wrong part, a wrong order of parts or a missing collective shows as a
wrong element. A PyTorch reference checks the one-device result itself.

Also the errors of fuserc run --ranks: a rank count that does not match
the grid, and a missing fake NCCL.

    /usr/bin/python3 test/oracle/ranks.py [--fuserc PATH] [-v]

Exit status 0 when every case passes, 1 otherwise, 77 without numpy or
torch."""

import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

try:
    import numpy as np
    import torch
    import torch.nn.functional as F
except ImportError as e:
    print("ranks: skipped: %s has no %s (install python3-torch and python3-numpy)"
          % (sys.executable, e.name))
    sys.exit(77)

BF16_ULP = 2.0 ** -7  # bf16's spacing at 1: 8 bits of precision

# example -> for each result: None (bit for bit at every rank count), or
# the bound on |sharded - one device| as a multiple of the result's largest
# magnitude (a split reduction rounds each part).
EXAMPLES = {
    "tensor_parallel_mlp": [4 * BF16_ULP],  # row-parallel partial sums, rounded to bf16 each
    "data_parallel_sgd": [1e-5],            # f32 sums of parts of the batch
    # layer_norm on each device's rows: bit for bit; the block's output sums
    # the row-parallel linear's parts (a reduce_scatter)
    "sequence_parallel_layer_norm": [None, 4 * BF16_ULP],
}


def as_float(a):
    """A result as float64: bf16 is stored as uint16 bit patterns."""
    if a.dtype == np.uint16:
        return (a.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return a.astype(np.float64)


def bf16(a):
    return torch.from_numpy((a.astype(np.uint32) << 16).view(np.float32)).to(torch.bfloat16)


def reference(name, inputs):
    """PyTorch's result for the example, eager (bf16 rounds per op)."""
    if name == "tensor_parallel_mlp":
        x, w1, b1, w2, b2 = (bf16(inputs[k]) for k in ("x", "w1", "b1", "w2", "b2"))
        h = F.gelu(F.linear(x, w1, b1), approximate="tanh")
        return [(F.linear(h, w2, b2) + x).float().numpy()]
    if name == "data_parallel_sgd":
        x, dy, w, lr = (torch.from_numpy(inputs[k]) for k in ("x", "dy", "w", "lr"))
        return [(w - (dy * x).sum(0) * lr).numpy()]
    if name == "sequence_parallel_layer_norm":
        x, g, b, w1, w2 = (bf16(inputs[k]) for k in ("x", "gamma", "beta", "w1", "w2"))
        y = F.layer_norm(x.float(), (x.shape[-1],), g.float(), b.float(), 1e-5).to(torch.bfloat16)
        h = F.gelu(F.linear(y, w1), approximate="tanh")
        return [y.float().numpy(), (F.linear(h, w2) + x).float().numpy()]
    raise KeyError(name)


def run(cmd, verbose):
    if verbose:
        print("  $ " + " ".join(cmd))
    return subprocess.run(cmd, capture_output=True, text=True)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fuserc", default=os.path.join(ROOT, "build", "bin", "fuserc"))
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args(argv)
    a.fuserc = os.environ.get("FUSER_ORACLE_FUSERC") or a.fuserc  # as run.py
    work = tempfile.mkdtemp(prefix="fuser-ranks-")
    failures = []
    rng = np.random.default_rng(22)
    for name, bounds in EXAMPLES.items():
        src = open(os.path.join(ROOT, "examples", "sharded", name + ".mlir")).read()
        # The whole inputs, the same for every grid: small values, so that
        # the bf16 sums stay well inside their range.
        sigs = re.search(r"func\.func @\w+\((.*?)\)\s*->", src, re.S).group(1)
        inputs = {}
        for arg, shape, dtype in re.findall(r"%(\w+): tensor<([0-9x]*?)x?(f32|bf16)>", sigs):
            dims = [int(d) for d in shape.split("x") if d]
            v = rng.uniform(-1, 1, dims).astype(np.float32)
            if dtype == "bf16":
                v = (torch.from_numpy(v).to(torch.bfloat16).view(torch.int16).numpy()
                     .view(np.uint16))
            inputs[arg] = v
            np.save(os.path.join(work, "%s.%s.npy" % (name, arg)), v)
        flags = sum((["--input", "%s=%s" % (k, os.path.join(work, "%s.%s.npy" % (name, k)))]
                     for k in inputs), [])
        results = {}
        for n in (1, 2, 4, 8):
            path = os.path.join(work, "%s.%d.mlir" % (name, n))
            open(path, "w").write(re.sub(r"shape = \d+", "shape = %d" % n, src, count=1))
            out = os.path.join(work, "%s.%d" % (name, n))
            p = run([a.fuserc, "run", path, "--device", "cpu", "--ranks", str(n),
                     "--output-dir", out] + flags, a.verbose)
            if p.returncode:
                failures.append("%s on %d ranks: fuserc failed:\n%s" % (name, n, p.stderr))
                continue
            files = sorted(f for f in os.listdir(out) if f.endswith(".npy"))
            results[n] = [np.load(os.path.join(out, f)) for f in files]
        if 1 not in results:
            continue
        one = results[1]
        # The one device against PyTorch (eager bf16 rounds per op; fuser's
        # GEMM sums in f32 and rounds once).
        for i, want in enumerate(reference(name, inputs)):
            got = as_float(one[i])
            err = np.max(np.abs(got - want))
            bound = 8 * BF16_ULP * max(1.0, np.max(np.abs(want)))
            if err > bound:
                failures.append("%s result %d on one device: %.3g from PyTorch (bound %.3g)"
                                % (name, i, err, bound))
        for n in (2, 4, 8):
            for i, bound in enumerate(bounds):
                if n not in results:
                    break
                got, want = results[n][i], one[i]
                if got.shape != want.shape:
                    failures.append("%s result %d on %d ranks: shape %s, one device %s"
                                    % (name, i, n, got.shape, want.shape))
                    continue
                if bound is None:
                    if not np.array_equal(got.view(np.uint8), want.view(np.uint8)):
                        bad = np.argwhere(got != want)
                        failures.append("%s result %d on %d ranks: %d elements differ from one "
                                        "device (bit for bit expected), first at %s"
                                        % (name, i, n, len(bad), bad[0].tolist() if len(bad) else "?"))
                    continue
                g, w = as_float(got), as_float(want)
                err, scale = np.max(np.abs(g - w)), np.max(np.abs(w))
                if err > bound * scale:
                    failures.append("%s result %d on %d ranks: %.3g from one device, over the "
                                    "bound %.3g x %.3g" % (name, i, n, err, bound, scale))
                elif a.verbose:
                    print("  %s result %d on %d ranks: %.3g from one device (bound %.3g)"
                          % (name, i, n, err, bound * scale))
        print("ranks: %s: 1, 2, 4 and 8 devices compared" % name)

    # Errors: a rank count that does not match the grid; no fake NCCL.
    mlp = os.path.join(ROOT, "examples", "sharded", "data_parallel_sgd.mlir")
    p = run([a.fuserc, "run", mlp, "--device", "cpu", "--random", "1", "--ranks", "3"], a.verbose)
    if p.returncode != 1 or "sharded over a grid of 2 devices: run it with --ranks 2" not in p.stderr:
        failures.append("--ranks 3 on a grid of 2: expected an error naming both, got %d: %s"
                        % (p.returncode, p.stderr))
    p = run([a.fuserc, "run", mlp, "--device", "cpu", "--random", "1"], a.verbose)
    if p.returncode != 1 or "run it with --ranks 2" not in p.stderr:
        failures.append("no --ranks on a grid of 2: expected an error, got %d: %s"
                        % (p.returncode, p.stderr))
    env = dict(os.environ, FUSER_NCCL_LIBRARY="/nonexistent/libnccl.so.2")
    if a.verbose:
        print("  $ FUSER_NCCL_LIBRARY=/nonexistent/libnccl.so.2 fuserc run ... --ranks 2")
    p = subprocess.run([a.fuserc, "run", mlp, "--device", "cpu", "--random", "1", "--ranks", "2"],
                       capture_output=True, text=True, env=env)
    if p.returncode != 1 or "/nonexistent/libnccl.so.2" not in p.stderr:
        failures.append("a missing NCCL: expected an error naming it, got %d: %s"
                        % (p.returncode, p.stderr))
    for f in failures:
        print("FAIL: " + f)
    print("ranks: %d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
