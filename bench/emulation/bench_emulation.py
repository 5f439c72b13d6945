#!/usr/bin/python3
"""CPU-emulation speed: elements per second through fuser's GPU kernels run
on the CPU emulator (docs/cpu-emulation.md), on one core.

    /usr/bin/python3 bench/emulation/bench_emulation.py [--build build] [--write]

Method (also written into bench/results/emulation.md):
  - each fusion has dynamic dims; `fuserc compile` makes one bundle;
  - the bundle is loaded once into an emulator runtime through the C API
    (ctypes: fuserEmulatorRuntimeCreate, fuser_bundle_load), so the MLIR
    compile and the JIT happen before any timing;
  - inputs are filled once (uniform [-4, 4)); each sample is one fuser_run
    plus fuser_device_synchronize (the emulator runs the launch inside
    fuser_run), timed with the process's CPU clock (time.process_time);
  - the process is pinned to one CPU (sched_setaffinity) and the emulator
    is single-threaded, so the figure is one core's;
  - elements/s = elements / median time; and, to take the per-call constant
    (plan interpretation, launch set-up) out, the slope between a small and
    a large size: (n_large - n_small) / (t_large - t_small).
Needs numpy (for the inputs); no torch."""

import argparse
import ctypes
import datetime
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

FUSIONS = {
    # name: (mlir, dims for a size n -> dyn dims list, elements processed)
    "pointwise": ("""
func.func @pointwise(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %e = fuser.exp %x : tensor<?xf32>
  %0 = fuser.mul %e, %y : tensor<?xf32>
  return %0 : tensor<?xf32>
}
""", "exp(x) * y, f32, flat (n elements)"),
    "softmax": ("""
func.func @softmax(%x: tensor<?x4096xf32>) -> tensor<?x4096xf32> {
  %0 = fuser.softmax %x dim = 1 : tensor<?x4096xf32>
  return %0 : tensor<?x4096xf32>
}
""", "softmax over rows of 4096, f32 (a block reduction per row)"),
}


class Api:
    def __init__(self, build):
        lib = os.path.join(build, "lib")
        self.rt_lib = ctypes.CDLL(os.path.join(lib, "libfuser_runtime.so"), mode=ctypes.RTLD_GLOBAL)
        self.capi = ctypes.CDLL(os.path.join(lib, "libFuserCAPI.so"), mode=ctypes.RTLD_GLOBAL)
        P, S, U64 = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint64
        r = self.rt_lib
        r.fuser_error_message.restype = ctypes.c_char_p
        r.fuser_error_message.argtypes = [P]
        r.fuser_bundle_load.argtypes = [P, P, S, ctypes.POINTER(P)]
        r.fuser_bundle_load.restype = P
        r.fuser_bundle_find_fusion.argtypes = [P, ctypes.c_char_p]
        r.fuser_bundle_find_fusion.restype = P
        r.fuser_mem_alloc.argtypes = [P, S, ctypes.POINTER(U64)]
        r.fuser_mem_alloc.restype = P
        r.fuser_mem_free.argtypes = [P, U64]
        r.fuser_mem_free.restype = P
        r.fuser_mem_copy_h2d.argtypes = [P, U64, P, S]
        r.fuser_mem_copy_h2d.restype = P
        r.fuser_run.argtypes = [P, ctypes.POINTER(U64), ctypes.POINTER(U64),
                                ctypes.POINTER(ctypes.c_int64), S, P, P]
        r.fuser_run.restype = P
        r.fuser_device_synchronize.argtypes = [P]
        r.fuser_device_synchronize.restype = P
        self.capi.fuserEmulatorRuntimeCreate.argtypes = [P, ctypes.POINTER(P)]
        self.capi.fuserEmulatorRuntimeCreate.restype = P

    def check(self, e):
        if e:
            raise RuntimeError(self.rt_lib.fuser_error_message(e).decode())

    def runtime(self):
        rt = ctypes.c_void_p()
        self.check(self.capi.fuserEmulatorRuntimeCreate(None, ctypes.byref(rt)))  # defaults: -O0 JIT
        return rt


def bench(api, rt, bundle_path, name, rows_list, row_elems, repeats):
    data = open(bundle_path, "rb").read()
    bundle = ctypes.c_void_p()
    api.check(api.rt_lib.fuser_bundle_load(rt, data, len(data), ctypes.byref(bundle)))
    fusion = api.rt_lib.fuser_bundle_find_fusion(bundle, name.encode())
    results = []
    rng = np.random.default_rng(0)
    for rows in rows_list:
        n = rows * row_elems
        nargs = 2 if name == "pointwise" else 1
        bufs = []
        for _ in range(nargs + 1):
            p = ctypes.c_uint64()
            api.check(api.rt_lib.fuser_mem_alloc(rt, max(4 * n, 4), ctypes.byref(p)))
            bufs.append(p.value)
        for b in bufs[:nargs]:
            a = rng.uniform(-4, 4, n).astype(np.float32)
            api.check(api.rt_lib.fuser_mem_copy_h2d(rt, b, a.ctypes.data, 4 * n))
        args = (ctypes.c_uint64 * nargs)(*bufs[:nargs])
        res = (ctypes.c_uint64 * 1)(bufs[nargs])
        if name == "pointwise":
            dims = [n] * 3
        else:
            dims = [rows, rows]
        d = (ctypes.c_int64 * len(dims))(*dims)
        api.check(api.rt_lib.fuser_run(fusion, args, res, d, len(dims), None, None))  # warm
        api.check(api.rt_lib.fuser_device_synchronize(rt))
        cpu, wall = [], []
        for _ in range(repeats):
            c0, w0 = time.process_time(), time.perf_counter()
            api.check(api.rt_lib.fuser_run(fusion, args, res, d, len(dims), None, None))
            api.check(api.rt_lib.fuser_device_synchronize(rt))
            cpu.append(time.process_time() - c0)
            wall.append(time.perf_counter() - w0)
        for b in bufs:
            api.check(api.rt_lib.fuser_mem_free(rt, b))
        results.append((n, statistics.median(cpu), min(cpu), statistics.median(wall)))
    return results


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--cpu", type=int, default=None, help="CPU to pin to (default: the first allowed)")
    ap.add_argument("--write", action="store_true", help="write bench/results/emulation.md")
    a = ap.parse_args(argv)
    allowed = sorted(os.sched_getaffinity(0))
    cpu = a.cpu if a.cpu is not None else allowed[0]
    os.sched_setaffinity(0, {cpu})
    fuserc = os.path.join(a.build, "bin", "fuserc")
    api = Api(a.build)
    rt = api.runtime()
    work = tempfile.mkdtemp(prefix="fuser-bench-emu-")
    sizes = {"pointwise": ([1 << 20, 1 << 26], 1), "softmax": ([256, 4096], 4096)}
    rows = []
    for name, (mlir, what) in FUSIONS.items():
        src = os.path.join(work, name + ".mlir")
        with open(src, "w") as f:
            f.write(mlir)
        bundle = os.path.join(work, name + ".bundle")
        subprocess.run([fuserc, "compile", src, "-o", bundle], check=True)
        counts, row_elems = sizes[name]
        r = bench(api, rt, bundle, name, counts, row_elems, a.repeats)
        (n0, c0, m0, w0), (n1, c1, m1, w1) = r
        rows.append((name, what, r, (n1 - n0) / (c1 - c0), n1 / c1, n1 / w1))
    cpuinfo = "unknown"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpuinfo = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    lines = []
    lines.append("# CPU emulation speed")
    lines.append("")
    lines.append("Generated by `/usr/bin/python3 bench/emulation/bench_emulation.py --write`.")
    lines.append("")
    lines.append("- date: %s" % datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"))
    lines.append("- machine: %s, %d logical CPUs; pinned to CPU %d" % (cpuinfo, os.cpu_count(), cpu))
    lines.append("- emulator: default options (forward order, no race check, -O0 JIT: FuserEmulatorOptions.optLevel 0)")
    lines.append("")
    lines.append("| fusion | elements | CPU time per run (median of %d) | min | elements/s (size / median) |"
                 % a.repeats)
    lines.append("|---|---:|---:|---:|---:|")
    for name, what, r, slope, total, wall in rows:
        for n, c, m, w in r:
            lines.append("| %s | %d | %.3f s | %.3f s | %.1f M |" % (name, n, c, m, n / c / 1e6))
    lines.append("")
    lines.append("| fusion | what | elements/s, slope between the two sizes | elements/s, largest size | goal |")
    lines.append("|---|---|---:|---:|---|")
    for name, what, r, slope, total, wall in rows:
        goal = "at least 50 M on one core" if name == "pointwise" else "-"
        lines.append("| %s | %s | **%.1f M** | %.1f M | %s |" % (name, what, slope / 1e6, total / 1e6, goal))
    lines.append("")
    lines.append("## Method")
    lines.append("")
    method = __doc__.split("Method (also written into bench/results/emulation.md):")[1]
    method = method.split("Needs numpy")[0]
    for l in method.strip("\n").splitlines():
        lines.append(l[2:] if l.startswith("  ") else l)
    lines.append("")
    lines.append("The machine is shared (other jobs may run on the other CPU), so the")
    lines.append("figures are lower bounds of a quiet machine's. The CPU time excludes")
    lines.append("time the process waited for the CPU.")
    text = "\n".join(lines) + "\n"
    print(text)
    if a.write:
        with open(os.path.join(ROOT, "bench", "results", "emulation.md"), "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
