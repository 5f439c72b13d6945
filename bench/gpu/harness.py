#!/usr/bin/env python3
"""fuser's GPU benchmark against PyTorch eager and torch.compile.

Loads fuser's prebuilt bundles (bundles/*.bundle of the GPU pack, compiled
elsewhere: no LLVM here) through the plain-C runtime with ctypes, and times
each benchmark fusion with CUDA events beside the same computation written
in PyTorch, run eagerly and through torch.compile, on the same inputs, after
checking that the three agree. Traffic from about 1 MB to 1 GB per call.

    python3 harness.py --runtime build/libfuser_runtime.so --bundles bundles \
        --out results/gpu.md [--budget SECONDS] [--quick]
    python3 harness.py --selftest --runtime LIB --bundles DIR [--driver LIBCUDA]

--selftest needs no PyTorch and no GPU: with --driver pointing at a fake CUDA
driver (test/runtime's libfuser_fake_cuda.so) it checks the ctypes bindings:
loads every bundle, infers the sizes of every benchmark size and runs each
fusion once on the fake device.

Method (also written into the results): see bench/README.md.
"""
import argparse
import ctypes
import datetime
import os
import platform
import statistics
import sys
import time

# ---------------------------------------------------------------------------
# The runtime, through ctypes (runtime/include/fuser_runtime.h)
# ---------------------------------------------------------------------------

vp = ctypes.c_void_p


class TensorInfo(ctypes.Structure):
    # fuser_tensor_info; strides: NULL for a dense tensor, else an argument
    # compiled as a view (rank entries, -1 where passed at run time).
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_int),
                ("rank", ctypes.c_uint32), ("dims", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64))]


class DynDimInfo(ctypes.Structure):
    _fields_ = [("tensor", ctypes.c_uint32), ("dim", ctypes.c_uint32)]


class RtOptions(ctypes.Structure):
    _fields_ = [("device_ordinal", ctypes.c_int), ("cuda_driver_path", ctypes.c_char_p)]


DTYPE_NAMES = {1: "i1", 2: "i8", 3: "i32", 4: "i64", 5: "f16", 6: "bf16", 7: "f32", 8: "f64"}
DTYPE_SIZES = {1: 1, 2: 1, 3: 4, 4: 8, 5: 2, 6: 2, 7: 4, 8: 8}


class FuserError(Exception):
    pass


class Runtime:
    def __init__(self, lib_path, driver=None, device=0, emulator_capi=None):
        L = self.lib = ctypes.CDLL(os.path.abspath(lib_path))
        sig = {
            "fuser_error_message": (ctypes.c_char_p, [vp]),
            "fuser_error_destroy": (None, [vp]),
            "fuser_rt_options_init": (None, [ctypes.POINTER(RtOptions)]),
            "fuser_rt_create": (vp, [ctypes.POINTER(RtOptions), ctypes.POINTER(vp)]),
            "fuser_rt_destroy": (None, [vp]),
            "fuser_rt_driver_name": (ctypes.c_char_p, [vp]),
            "fuser_bundle_load_file": (vp, [vp, ctypes.c_char_p, ctypes.POINTER(vp)]),
            "fuser_bundle_destroy": (None, [vp]),
            "fuser_bundle_num_fusions": (ctypes.c_size_t, [vp]),
            "fuser_bundle_get_fusion": (vp, [vp, ctypes.c_size_t]),
            "fuser_bundle_find_fusion": (vp, [vp, ctypes.c_char_p]),
            "fuser_fusion_name": (ctypes.c_char_p, [vp]),
            "fuser_fusion_num_args": (ctypes.c_size_t, [vp]),
            "fuser_fusion_num_results": (ctypes.c_size_t, [vp]),
            "fuser_fusion_num_dyn_dims": (ctypes.c_size_t, [vp]),
            "fuser_fusion_tensor": (ctypes.POINTER(TensorInfo), [vp, ctypes.c_size_t]),
            "fuser_fusion_dyn_dim": (ctypes.POINTER(DynDimInfo), [vp, ctypes.c_size_t]),
            "fuser_fusion_infer_dims": (vp, [vp, ctypes.POINTER(ctypes.c_int64), ctypes.c_size_t,
                                             ctypes.POINTER(ctypes.c_int64)]),
            "fuser_fusion_prepare": (vp, [vp]),
            "fuser_run": (vp, [vp, ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint64),
                               ctypes.POINTER(ctypes.c_int64), ctypes.c_size_t, vp, vp]),
            "fuser_mem_alloc": (vp, [vp, ctypes.c_size_t, ctypes.POINTER(ctypes.c_uint64)]),
            "fuser_mem_free": (vp, [vp, ctypes.c_uint64]),
            "fuser_stream_synchronize": (vp, [vp, vp]),
            "fuser_device_synchronize": (vp, [vp]),
        }
        for name, (res, args) in sig.items():
            fn = getattr(L, name)
            fn.restype, fn.argtypes = res, args
        rt = vp()
        if emulator_capi:  # testing only: fuser's CPU emulator (libFuserCAPI)
            capi = ctypes.CDLL(os.path.abspath(emulator_capi))
            capi.fuserEmulatorRuntimeCreate.restype = vp
            capi.fuserEmulatorRuntimeCreate.argtypes = [vp, ctypes.POINTER(vp)]
            self.check(capi.fuserEmulatorRuntimeCreate(None, ctypes.byref(rt)))
        else:
            opts = RtOptions()
            L.fuser_rt_options_init(ctypes.byref(opts))
            opts.device_ordinal = device
            self._driver = driver.encode() if driver else None
            opts.cuda_driver_path = self._driver
            self.check(L.fuser_rt_create(ctypes.byref(opts), ctypes.byref(rt)))
        self.rt = rt
        self.bundles = []
        self.emulator_allocations = []

    def check(self, err):
        if err:
            msg = self.lib.fuser_error_message(err).decode()
            self.lib.fuser_error_destroy(err)
            raise FuserError(msg)

    @property
    def driver_name(self):
        return self.lib.fuser_rt_driver_name(self.rt).decode()

    def load(self, path):
        b = vp()
        self.check(self.lib.fuser_bundle_load_file(self.rt, path.encode(), ctypes.byref(b)))
        self.bundles.append(b)
        return b

    def emulator_tensor(self, torch, like=None, shape=None, dtype=None):
        """--dry-run-cpu only: a torch CPU tensor in memory that the emulator
        allocated (its kernels reach nothing else), a copy of `like` or empty.
        Freed with free_emulator_tensors."""
        shape = list(like.shape) if like is not None else list(shape)
        dtype = like.dtype if like is not None else dtype
        n = 1
        for d in shape:
            n *= d
        nbytes = n * torch.empty((), dtype=dtype).element_size()
        ptr = ctypes.c_uint64()
        self.check(self.lib.fuser_mem_alloc(self.rt, max(nbytes, 1), ctypes.byref(ptr)))
        self.emulator_allocations.append(ptr.value)
        raw = (ctypes.c_char * max(nbytes, 1)).from_address(ptr.value)
        t = torch.frombuffer(raw, dtype=torch.uint8)[:nbytes].view(dtype).view(shape)
        if like is not None:
            t.copy_(like)
        return t

    def free_emulator_tensors(self):
        for p in self.emulator_allocations:
            self.check(self.lib.fuser_mem_free(self.rt, p))
        self.emulator_allocations = []

    def fusion(self, bundle, name=None):
        L = self.lib
        h = (L.fuser_bundle_find_fusion(bundle, name.encode()) if name
             else L.fuser_bundle_get_fusion(bundle, 0))
        if not h:
            raise FuserError("no fusion %r in the bundle" % name)
        return Fusion(self, h)

    def close(self):
        for b in self.bundles:
            self.lib.fuser_bundle_destroy(b)
        self.bundles = []
        if self.rt:
            self.lib.fuser_rt_destroy(self.rt)
            self.rt = None


class Fusion:
    def __init__(self, rt, handle):
        L = rt.lib
        self.rt, self.h = rt, handle
        self.name = L.fuser_fusion_name(handle).decode()
        self.num_args = L.fuser_fusion_num_args(handle)
        self.num_results = L.fuser_fusion_num_results(handle)
        self.num_dyn = L.fuser_fusion_num_dyn_dims(handle)
        self.tensors = []
        for i in range(self.num_args + self.num_results):
            t = L.fuser_fusion_tensor(handle, i).contents
            self.tensors.append((t.name.decode(), DTYPE_NAMES[t.dtype],
                                 [t.dims[d] for d in range(t.rank)]))
        self.dyn = [(L.fuser_fusion_dyn_dim(handle, i).contents.tensor,
                     L.fuser_fusion_dyn_dim(handle, i).contents.dim) for i in range(self.num_dyn)]

    @property
    def arg_names(self):
        return [t[0] for t in self.tensors[:self.num_args]]

    def shapes(self, arg_shapes):
        """(dyn dims, result shapes) for the argument shapes (list per arg)."""
        dims = (ctypes.c_int64 * max(self.num_dyn, 1))()
        for i, (t, d) in enumerate(self.dyn):
            if t < self.num_args:
                dims[i] = arg_shapes[t][d]
        self.rt.check(self.rt.lib.fuser_fusion_infer_dims(self.h, dims, self.num_dyn, dims))
        out, k = [], 0
        for (name, dt, static) in self.tensors:
            s = []
            for size in static:
                if size < 0:
                    s.append(dims[k]); k += 1
                else:
                    s.append(size)
            out.append(s)
        return [dims[i] for i in range(self.num_dyn)], out[self.num_args:]

    def bind(self, arg_ptrs, result_ptrs, dyn_dims):
        return Call(self, arg_ptrs, result_ptrs, dyn_dims)


class Call:
    """One prepared fuser_run: the pointer and dim arrays built once."""

    def __init__(self, fusion, arg_ptrs, result_ptrs, dyn_dims):
        self.fn = fusion.rt.lib.fuser_run
        self.check = fusion.rt.check
        self.h = fusion.h
        self.args = (ctypes.c_uint64 * max(len(arg_ptrs), 1))(*arg_ptrs)
        self.results = (ctypes.c_uint64 * max(len(result_ptrs), 1))(*result_ptrs)
        self.dims = (ctypes.c_int64 * max(len(dyn_dims), 1))(*dyn_dims)
        self.n = len(dyn_dims)

    def __call__(self, stream=None):
        err = self.fn(self.h, self.args, self.results, self.dims, self.n, stream, None)
        if err:
            self.check(err)


# ---------------------------------------------------------------------------
# The benchmarks
# ---------------------------------------------------------------------------

HIDDEN = 4096
TARGETS_MB = [1, 4, 16, 64, 256, 1024]
DEV = "cuda"  # "cpu" only in the --dry-run-cpu test
MiB = 1 << 20


def bench_specs(torch, F, dev=None):
    """name -> (bundle, fusion, bytes per row, make(rows, gen) -> inputs,
    eager function, output dtype)."""
    dev = dev or DEV


    def randn(shape, dtype, g, scale=1.0):
        return (torch.randn(shape, device=dev, dtype=torch.float32, generator=g) * scale).to(dtype)

    f32, bf16 = torch.float32, torch.bfloat16

    def eager_bias_gelu(x, bias):
        return F.gelu(x + bias, approximate="tanh")

    def eager_silu(x):
        return F.silu(x)

    def eager_add_mul_chain(x, row, col, alpha):
        return (x + row) * col * alpha + x

    def eager_softmax(x):
        return torch.softmax(x, dim=1)

    def eager_layer_norm(x, w, b):
        return F.layer_norm(x, (x.shape[-1],), w, b, 1e-5)

    if hasattr(F, "rms_norm"):
        def eager_rms_norm(x, w):
            return F.rms_norm(x, (x.shape[-1],), w, 1e-6)
    else:
        def eager_rms_norm(x, w):
            xf = x.float()
            r = torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6)
            return (xf * r).to(x.dtype) * w

    H = HIDDEN
    return {
        "bias_gelu": (2 * 4 * H, lambda r, g: dict(x=randn((r, H), f32, g), bias=randn((H,), f32, g)),
                      eager_bias_gelu, f32),
        "silu": (2 * 4 * H, lambda r, g: dict(x=randn((r, H), f32, g)), eager_silu, f32),
        "add_mul_chain": (2 * 4 * 1024 + 4,
                          lambda r, g: dict(x=randn((r, 1024), f32, g), row=randn((1024,), f32, g),
                                            col=randn((r, 1), f32, g),
                                            alpha=torch.tensor(0.75, device=dev)),
                          eager_add_mul_chain, f32),
        "softmax": (2 * 4 * H, lambda r, g: dict(x=randn((r, H), f32, g, 4.0)), eager_softmax, f32),
        "layer_norm": (2 * 2 * H, lambda r, g: dict(x=randn((r, H), bf16, g), w=randn((H,), bf16, g),
                                                    b=randn((H,), bf16, g)),
                       eager_layer_norm, bf16),
        "rms_norm": (2 * 2 * H, lambda r, g: dict(x=randn((r, H), bf16, g), w=randn((H,), bf16, g)),
                     eager_rms_norm, bf16),
    }


# The normalizations first: if the time budget runs out, pointwise goes.
ORDER = ["softmax", "layer_norm", "rms_norm", "bias_gelu", "silu", "add_mul_chain"]
TOL = {"float32": (1e-4, 1e-5), "bfloat16": (1.6e-2, 1e-2)}  # (rtol, atol)


def agree(torch, got, want):
    """(ok, max abs difference) with |got - want| <= atol + rtol |want|."""
    rtol, atol = TOL[str(want.dtype).replace("torch.", "")]
    g, w = got.float(), want.float()
    diff = (g - w).abs()
    bad = diff > atol + rtol * w.abs()
    bad |= torch.isnan(g) != torch.isnan(w)
    return (not bool(bad.any())), float(torch.nan_to_num(diff, nan=0.0).max())


def time_cuda(torch, fn, flush, reps, warm=3):
    """Median ms of `fn` between two CUDA events, the L2 flushed before each
    run by zeroing a buffer larger than L2 (as Triton's do_bench does); the
    flush also keeps the GPU busy while the host enqueues the next run, so
    the figure is GPU time, not launch latency."""
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for i in range(reps):
        flush.zero_()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in zip(starts, ends))


def reps_for(ms_estimate, budget_s=0.25, lo=15, hi=100):
    return max(lo, min(hi, int(budget_s * 1e3 / max(ms_estimate + 0.1, 1e-3))))


def driver_version():
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
        v = ctypes.c_int()
        if cuda.cuDriverGetVersion(ctypes.byref(v)) == 0:
            return "%d.%d" % (v.value // 1000, (v.value % 1000) // 10)
    except OSError:
        pass
    return "?"


def fmt_us(ms):
    return "%.1f" % (ms * 1e3) if ms is not None else "-"


def dry_run_shims(torch):
    """--dry-run-cpu: torch on the CPU, CUDA events as wall clock, so that
    the harness's whole flow runs here against fuser's CPU emulator."""
    import types
    global DEV
    DEV = "cpu"

    class Event:
        def __init__(self, enable_timing=True):
            self.t = None

        def record(self):
            self.t = time.perf_counter()

        def elapsed_time(self, end):
            return (end.t - self.t) * 1e3

    torch.cuda.Event = Event
    torch.cuda.synchronize = lambda *a: None
    torch.cuda.init = lambda: None
    torch.cuda.get_device_properties = lambda i: types.SimpleNamespace(
        name="CPU dry run (fuser's CPU emulator)", multi_processor_count=0, total_memory=0)
    torch.cuda.current_stream = lambda: types.SimpleNamespace(cuda_stream=None)


def run_bench(a):
    import torch
    import torch.nn.functional as F

    t_start = time.time()
    scale = 1.0
    if a.dry_run_cpu:
        dry_run_shims(torch)
        scale = 1.0 / 64  # sizes and buffers 64 times smaller
    torch.cuda.init()
    torch.backends.cuda.matmul.allow_tf32 = False
    dev_props = torch.cuda.get_device_properties(0)
    # The runtime retains the device's primary context, the one torch uses.
    rt = Runtime(a.runtime, device=0, emulator_capi=a.dry_run_cpu)
    stream = torch.cuda.current_stream()
    sptr = vp(stream.cuda_stream)
    specs = bench_specs(torch, F)
    names = [n for n in ORDER if not a.only or n in a.only]
    targets = TARGETS_MB[:3] if a.quick else TARGETS_MB

    flush = torch.empty(int(256 * MiB * scale), dtype=torch.int8, device=DEV)
    # Peak copy bandwidth: 512 MiB read + 512 MiB written.
    src = torch.empty(int(512 * MiB * scale), dtype=torch.int8, device=DEV).random_(0, 100)
    dst = torch.empty_like(src)
    copy_ms = time_cuda(torch, lambda: dst.copy_(src), flush, 30)
    copy_gbs = 2 * src.numel() / copy_ms / 1e6
    del src, dst
    print("harness: copy bandwidth %.0f GB/s (1 GiB moved per copy, median of 30)" % copy_gbs,
          flush=True)

    rows_out, goals_bw, slower = [], [], []
    compared = []

    def report(done):
        elapsed = time.time() - t_start
        date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        try:
            import triton
            triton_v = triton.__version__
        except Exception:
            triton_v = "not installed"
        lines = ["# fuser on the GPU: against PyTorch eager and torch.compile", "",
                 "Generated by bench/gpu/harness.py (bench/gpu/run-all.sh on the GPU pack of "
                 "`make gpu-pack`).", "",
                 "- date: %s" % date,
                 "- GPU: %s, %d SMs, %.0f GiB; CUDA driver %s" % (
                     dev_props.name, dev_props.multi_processor_count,
                     dev_props.total_memory / 2**30, driver_version()),
                 "- host: %s, %d logical CPUs, Python %s" % (platform.processor() or platform.machine(),
                                                            os.cpu_count() or 0,
                                                            platform.python_version()),
                 "- PyTorch %s (CUDA %s), Triton %s; fuser runtime through ctypes (%s driver)" % (
                     torch.__version__, torch.version.cuda, triton_v, rt.driver_name),
                 "- copy bandwidth measured here: **%.0f GB/s** (device-to-device copy of 512 MiB, "
                 "bytes read + written, median of 30)" % copy_gbs,
                 "- harness time: %.0f s%s" % (elapsed, "" if done else " (incomplete: "
                                            "written after each benchmark)"), ""]
        lines += ["| benchmark | rows x hidden | traffic MB | fuser us | fuser GB/s | % of copy BW | "
                  "copy GB/s (same bytes) | eager us | torch.compile us | speedup vs eager | "
                  "speedup vs torch.compile | all three agree (max abs diff from f32 reference) |",
                  "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
        lines += rows_out
        lines.append("")
        if goals_bw:
            worst = min(goals_bw, key=lambda x: x[2])
            lines.append("- goal, at least 90%% of copy bandwidth at large sizes (traffic >= 200 MB): "
                         "lowest %.0f%% (%s at %.0f MB): %s" % (
                             worst[2], worst[0], worst[1] / 1e6, "met" if worst[2] >= 90 else "not met"))
        lines.append("- goal, never slower than torch.compile: %s" % (
            "not measured (no torch.compile figures)" if not compared else
            "met in all %d cells measured" % len(compared) if not slower else
            "not met in %d of %d cells: %s" % (len(slower), len(compared), "; ".join(slower))))
        for n, note in compile_notes.items():
            lines.append("- %s: %s" % (n, note))
        lines += ["", "## Method", "",
                  "- Inputs: drawn on the GPU from a seeded generator (normal; softmax inputs x4), "
                  "rows x hidden sized so that one call moves about 1, 4, 16, 64, 256 and 1024 MB "
                  "(every input read once plus the output written once: *traffic*).",
                  "- fuser: the bundle compiled beforehand (bench/gpu/fusions/*.mlir, dynamic row "
                  "count, so one bundle serves every size), loaded by libfuser_runtime.so "
                  "through ctypes; `fuser_run` with the tensors' device pointers on PyTorch's "
                  "current stream (the runtime retains the device's primary context, which "
                  "PyTorch uses).",
                  "- eager: the same computation in torch ops (F.gelu(x + bias, approximate='tanh'), "
                  "F.silu, (x + row) * col * alpha + x, torch.softmax, F.layer_norm, F.rms_norm "
                  "or its composite where absent). torch.compile: `torch.compile(fn)` of that "
                  "function, mode default, warmed up (compiled, and recompiled when a new size "
                  "arrives: after the first size PyTorch marks the row count dynamic) outside "
                  "the timed region; a failure is reported, not fatal.",
                  "- Agreement, at every size: fuser's, eager's and torch.compile's outputs each "
                  "against a reference, the same torch function on the inputs converted to f32, "
                  "its result rounded once to the output type; |a - ref| <= atol + rtol |ref| "
                  "(f32: rtol 1e-4, atol 1e-5; bf16: rtol 1.6e-2, atol 1e-2, about two bf16 "
                  "ulps), NaN where NaN. The column gives each one's largest difference.",
                  "- Timing: CUDA events around each call, the L2 cache flushed before each call "
                  "by zeroing 256 MiB (as Triton's do_bench), 3 warm-up calls, median of 15 to "
                  "100 calls; GPU time (the flush keeps the GPU busy while the host enqueues, "
                  "so host launch overhead is hidden for every contender alike).",
                  "- GB/s = traffic / fuser time; % of copy BW against the 512 MiB copy above; "
                  "*copy GB/s (same bytes)*: a device-to-device copy moving the same traffic, "
                  "timed the same way, for scale at small sizes.",
                  ""]
        text = "\n".join(lines)
        if a.out:
            os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
            with open(a.out, "w") as f:
                f.write(text)
        return text

    compile_notes = {}
    for name in names:
        per_row, make, eager, _ = specs[name]
        bundle = rt.load(os.path.join(a.bundles, name + ".bundle"))
        fusion = rt.fusion(bundle, name)
        rt.check(rt.lib.fuser_fusion_prepare(fusion.h))
        compiled, compile_error = None, None
        try:
            compiled = torch.compile(eager)
        except Exception as e:  # torch.compile itself unavailable
            compile_error = "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:200])
        g = torch.Generator(device=DEV)
        g.manual_seed(1234)
        for mb in targets:
            rows = max(1, round(mb * scale * 1e6 / per_row))
            if time.time() - t_start > a.budget:
                rows_out.append("| %s | %dx%d | - | skipped: time budget of %d s spent | | | | | | | | |"
                                % (name, rows, 1024 if name == "add_mul_chain" else HIDDEN,
                                   a.budget))
                continue
            inputs = make(rows, g)
            if DEV == "cpu":  # the emulator reaches only its own allocations
                inputs = {k: rt.emulator_tensor(torch, like=v) for k, v in inputs.items()}
            try:
                arg_shapes = [list(inputs[n].shape) for n in fusion.arg_names]
                dims, res_shapes = fusion.shapes(arg_shapes)
                out_dtype = specs[name][3]
                outs = [torch.empty(s, dtype=out_dtype, device=DEV) if DEV != "cpu"
                        else rt.emulator_tensor(torch, shape=s, dtype=out_dtype)
                        for s in res_shapes]
                call = fusion.bind([inputs[n].data_ptr() for n in fusion.arg_names],
                                   [o.data_ptr() for o in outs], dims)
                run_fuser = lambda: call(sptr)  # noqa: E731
                run_fuser()
                fuser_error = None
            except FuserError as e:
                fuser_error = str(e)
            ref = eager(**inputs)
            torch.cuda.synchronize()
            traffic = sum(t.numel() * t.element_size() for t in inputs.values()) + \
                ref.numel() * ref.element_size()
            # torch.compile: warm it up (compiling, recompiling for a new
            # size) outside the timed region.
            out_c = None
            if compiled is not None and compile_error is None:
                if time.time() - t_start > 0.7 * a.budget:
                    compile_notes[name] = "skipped from %d rows: time budget" % rows
                else:
                    try:
                        t0 = time.time()
                        for _ in range(2):
                            out_c = compiled(**inputs)
                        torch.cuda.synchronize()
                        ct = time.time() - t0
                        if ct > 1.0:
                            print("harness: torch.compile of %s at %d rows: %.1f s"
                                  % (name, rows, ct), flush=True)
                    except Exception as e:
                        compile_error = "%s: %s" % (type(e).__name__,
                                                    str(e).strip().splitlines()[0][:200]
                                                    if str(e).strip() else "")
                        out_c = None
            # Agreement: each of the three against the computation in f32 on
            # the same inputs, rounded once to the output type.
            gold = eager(**{k: v.float() for k, v in inputs.items()}).to(ref.dtype)
            checks = []
            ok_all = True
            for label, out in (("fuser", outs[0] if fuser_error is None else None),
                               ("eager", ref), ("compile", out_c)):
                if out is None:
                    continue
                ok, err = agree(torch, out, gold)
                ok_all &= ok
                checks.append("%s %s%.2g" % (label, "" if ok else "DIFFERS ", err))
            del gold
            est = traffic / 3e9  # ms at 3 TB/s
            reps = reps_for(est * 3)
            t_f = time_cuda(torch, run_fuser, flush, reps) if fuser_error is None else None
            t_e = time_cuda(torch, lambda: eager(**inputs), flush, reps)
            t_c = (time_cuda(torch, lambda: compiled(**inputs), flush, reps)
                   if out_c is not None else None)
            half = torch.empty(traffic // 2, dtype=torch.int8, device=DEV)
            half2 = torch.empty_like(half)
            t_copy = time_cuda(torch, lambda: half2.copy_(half), flush, reps)
            del half, half2
            gbs = traffic / t_f / 1e6 if t_f else None
            pct = 100 * gbs / copy_gbs if gbs else None
            row = "| %s | %dx%d | %.1f | %s | %s | %s | %.0f | %s | %s | %s | %s | %s |" % (
                name, rows, inputs["x"].shape[1], traffic / 1e6,
                fmt_us(t_f) if t_f else "failed: " + (fuser_error or "")[:80],
                "%.0f" % gbs if gbs else "-", "%.0f%%" % pct if pct else "-",
                traffic / t_copy / 1e6, fmt_us(t_e),
                fmt_us(t_c) if t_c else ("failed" if compile_error else "skipped (time)"),
                "%.2fx" % (t_e / t_f) if t_f else "-",
                "%.2fx" % (t_c / t_f) if (t_f and t_c) else "-",
                ("yes" if ok_all else "**NO**") + ": " + ", ".join(checks))
            rows_out.append(row)
            print(row, flush=True)
            if t_f and traffic >= 200e6:
                goals_bw.append((name, traffic, pct))
            if t_f and t_c:
                compared.append(name)
            if t_f and t_c and t_f > t_c:
                slower.append("%s at %.0f MB (%.1f vs %.1f us)" % (name, traffic / 1e6,
                                                                    t_f * 1e3, t_c * 1e3))
            del inputs, ref, out_c
            if fuser_error is None:
                del outs, call
            rt.free_emulator_tensors()
        if compile_error:
            compile_notes[name] = "torch.compile failed: " + compile_error
        if hasattr(torch, "_dynamo"):
            torch._dynamo.reset()
        report(False)

    text = report(True)
    print()
    print(text)
    rt.close()
    return 0


def selftest(a):
    """No torch, no GPU: the ctypes bindings against a (fake) driver."""
    rt = Runtime(a.runtime, driver=a.driver)
    print("selftest: runtime on the %s driver" % rt.driver_name)
    per_row = {"bias_gelu": 2 * 4 * HIDDEN, "silu": 2 * 4 * HIDDEN, "add_mul_chain": 2 * 4 * 1024 + 4,
               "softmax": 2 * 4 * HIDDEN, "layer_norm": 2 * 2 * HIDDEN, "rms_norm": 2 * 2 * HIDDEN}
    status = 0
    for name in ORDER:
        path = os.path.join(a.bundles, name + ".bundle")
        bundle = rt.load(path)
        f = rt.fusion(bundle, name)
        for mb in (TARGETS_MB[0], TARGETS_MB[-1]):
            rows = max(1, round(mb * 1e6 / per_row[name]))
            arg_shapes = [[rows if s < 0 else s for s in t[2]] for t in f.tensors[:f.num_args]]
            dims, res_shapes = f.shapes(arg_shapes)
            if mb == TARGETS_MB[0]:  # run the small size on the fake device
                ptrs = []
                for (n, dt, _), shape in zip(f.tensors, arg_shapes + res_shapes):
                    nbytes = DTYPE_SIZES[{v: k for k, v in DTYPE_NAMES.items()}[dt]]
                    for s in shape:
                        nbytes *= s
                    p = ctypes.c_uint64()
                    rt.check(rt.lib.fuser_mem_alloc(rt.rt, max(nbytes, 1), ctypes.byref(p)))
                    ptrs.append(p.value)
                call = f.bind(ptrs[:f.num_args], ptrs[f.num_args:], dims)
                call(None)
                rt.check(rt.lib.fuser_stream_synchronize(rt.rt, None))
                for p in ptrs:
                    rt.check(rt.lib.fuser_mem_free(rt.rt, p))
            print("selftest: %-14s args %s -> results %s, dyn dims %s: ok" % (
                name, " ".join(n for n in f.arg_names), res_shapes, dims))
    rt.close()
    print("selftest: ok")
    return status


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--runtime", default=os.path.join(here, "build", "libfuser_runtime.so"))
    ap.add_argument("--bundles", default=os.path.join(here, "bundles"))
    ap.add_argument("--out", default=None)
    ap.add_argument("--budget", type=float, default=330.0,
                    help="seconds after which remaining sizes are skipped")
    ap.add_argument("--quick", action="store_true", help="only the three smallest sizes")
    ap.add_argument("--only", action="append")
    ap.add_argument("--selftest", action="store_true")
    ap.add_argument("--driver", default=None, help="CUDA driver library (selftest)")
    ap.add_argument("--dry-run-cpu", metavar="LIBFUSERCAPI", default=None,
                    help="testing only: run the whole harness on the CPU, torch on the CPU "
                         "and fuser on its CPU emulator from this libFuserCAPI.so (use the "
                         "libfuser_runtime.so it links to as --runtime); sizes / 64")
    a = ap.parse_args()
    if a.selftest:
        return selftest(a)
    return run_bench(a)


if __name__ == "__main__":
    sys.exit(main())
