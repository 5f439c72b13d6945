#!/usr/bin/env python3
"""Times schedule variants of one fusion against each other on a GPU.

A variant is a bundle of the same fusion compiled with a different schedule
(`fuserc compile --schedule ...`; the pack's variants/ folder, written by
bench/gpu/pack.py from its SCHEDULE_VARIANTS). Bundles are named
BENCH@VARIANT.bundle in one folder, "base" the default schedule. For each
BENCH and each size, every variant runs on the same inputs (random normal,
from a seed; the dynamic dim chosen so that the bytes read plus written
reach the size); its results must equal the default's bit for bit (a
schedule changes where values are computed, never how), and its time is the
median of CUDA-event timings with the L2 flushed before each call
(harness.time_cuda). Prints a table with GB/s and the time relative to the
default; exits 1 when a variant fails or differs.

With --reordered-sums-ok (the inner-outer variants: the grid decides how a
column sum's rows are split among blocks, so dw and db are added in another
order) a result that is not the default's bits passes when it is within
1e-3 of the largest magnitude of the default's ("reordered" in the table);
anything further is a failure.

usage: variants.py --runtime libfuser_runtime.so --bundles DIR [--mb 256,1024]
                   [--out FILE.md] [--reordered-sums-ok] [--dry-run-cpu LIBFUSERCAPI]
"""
import argparse
import collections
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402



def size_of(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runtime", required=True)
    ap.add_argument("--bundles", required=True)
    ap.add_argument("--mb", default="256,1024", help="sizes in MB of traffic, comma-separated")
    ap.add_argument("--out", default=None)
    ap.add_argument("--reordered-sums-ok", action="store_true",
                    help="accept results within 1e-3 of the largest magnitude (sums added in another order)")
    ap.add_argument("--dry-run-cpu", metavar="LIBFUSERCAPI", default=None,
                    help="testing only: torch on the CPU, fuser on its emulator; sizes / 1024")
    a = ap.parse_args()

    import torch
    scale = 1.0
    if a.dry_run_cpu:
        harness.dry_run_shims(torch)
        scale = 1.0 / 1024
    dev = harness.DEV
    rt = harness.Runtime(a.runtime, device=0, emulator_capi=a.dry_run_cpu)
    sptr = harness.vp(torch.cuda.current_stream().cuda_stream)
    flush = torch.empty(int(256 * harness.MiB * scale), dtype=torch.int8, device=dev)

    groups = collections.OrderedDict()
    for f in sorted(os.listdir(a.bundles)):
        if f.endswith(".bundle") and "@" in f:
            bench, variant = f[:-len(".bundle")].split("@", 1)
            groups.setdefault(bench, []).append(variant)

    lines = ["| fusion | variant | shape | traffic MB | us | GB/s | vs first | same bits |",
             "|---|---|---|---:|---:|---:|---:|---|"]
    print("\n".join(lines), flush=True)
    failed = False
    g = torch.Generator(device=dev)
    for bench, variants in groups.items():
        # The first variant named "base" (the default schedule) leads.
        variants.sort(key=lambda v: (v != "base", v))
        fusions = []
        for v in variants:
            b = rt.load(os.path.join(a.bundles, "%s@%s.bundle" % (bench, v)))
            fu = rt.fusion(b)
            rt.check(rt.lib.fuser_fusion_prepare(fu.h))
            fusions.append(fu)
        f0 = fusions[0]
        args = f0.tensors[:f0.num_args]
        dyn = [(t, d) for (t, d) in f0.dyn if t < f0.num_args]
        for mb in [float(x) for x in a.mb.split(",")]:
            # Bytes per unit of the dynamic dims (all set to the same size).
            def shapes_at(n):
                arg_shapes = [[n if s < 0 else s for s in st] for (_, _, st) in args]
                return arg_shapes, f0.shapes(arg_shapes)

            def traffic(n):
                arg_shapes, (_, res) = shapes_at(n)
                tot = 0
                for (name, dt, _), s in zip(f0.tensors, arg_shapes + res):
                    tot += size_of(s) * harness.DTYPE_SIZES[
                        [k for k, v in harness.DTYPE_NAMES.items() if v == dt][0]]
                return tot
            per = max(1, traffic(2) - traffic(1)) if dyn else 0
            n = max(1, int(mb * 1e6 * scale // per)) if per else 1
            arg_shapes, (dims, res_shapes) = shapes_at(n)
            g.manual_seed(99)
            inputs = []
            for (name, dt, _), s in zip(args, arg_shapes):
                if dt in ("f16", "bf16", "f32", "f64"):
                    t = torch.randn(s, generator=g, device=dev).to(
                        getattr(torch, harness.TORCH_DTYPES[dt]))
                else:
                    t = torch.zeros(s, device=dev, dtype=torch.int32 if dt == "i32" else torch.int64)
                if dev == "cpu":
                    t = rt.emulator_tensor(torch, like=t)
                inputs.append(t)
            res_dtypes = [getattr(torch, harness.TORCH_DTYPES[dt]) for (_, dt, _) in f0.tensors[f0.num_args:]]
            first_out = None
            t_first = None
            for v, fu in zip(variants, fusions):
                outs = [torch.empty(s, dtype=d, device=dev) if dev != "cpu"
                        else rt.emulator_tensor(torch, shape=s, dtype=d)
                        for s, d in zip(res_shapes, res_dtypes)]
                call = fu.bind([t.data_ptr() for t in inputs], [o.data_ptr() for o in outs], dims)
                try:
                    call(sptr)
                    torch.cuda.synchronize()
                except harness.FuserError as e:
                    print("| %s | %s | failed: %s |" % (bench, v, str(e)[:120]), flush=True)
                    failed = True
                    continue
                same = "-"
                if first_out is None:
                    first_out = [o.clone() for o in outs]
                else:
                    same = "yes"
                    for x, y in zip(first_out, outs):
                        if torch.equal(x.view(torch.uint8) if x.dtype != torch.bool else x,
                                       y.view(torch.uint8) if y.dtype != torch.bool else y):
                            continue
                        xf, yf = x.float(), y.float()
                        bound = 1e-3 * max(1.0, xf.abs().max().item())
                        if a.reordered_sums_ok and (xf - yf).abs().max().item() <= bound:
                            same = "reordered"
                        else:
                            same = "**NO**"
                            break
                    failed |= same not in ("yes", "reordered")
                ms = harness.time_cuda(torch, lambda: call(sptr), flush,
                                       harness.reps_for(traffic(n) / 3e9 * 3, hi=60))
                if t_first is None:
                    t_first = ms
                row = "| %s | %s | %s | %.1f | %s | %.0f | %.3f | %s |" % (
                    bench, v, "x".join(str(d) for d in res_shapes[0]), traffic(n) / 1e6,
                    harness.fmt_us(ms), traffic(n) / ms / 1e6, ms / t_first, same)
                lines.append(row)
                print(row, flush=True)
            if dev == "cpu":
                rt.free_emulator_tensors()
    text = "\n".join(lines) + "\n"
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    rt.close()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
