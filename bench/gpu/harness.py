#!/usr/bin/env python3
"""fuser's GPU benchmark against PyTorch eager and torch.compile.

Loads fuser's prebuilt bundles (bundles/*.bundle of the GPU pack, compiled
elsewhere: no LLVM here) through the plain-C runtime with ctypes, and times
each benchmark fusion with CUDA events beside the same computation written
in PyTorch, run eagerly and through torch.compile, on the same inputs, after
checking that the three agree. Memory-bound fusions with traffic from about
1 MB to 1 GB per call (GB/s), then the matmul table (TFLOP/s: F.linear, a
transformer MLP block, a linear layer's backward), within one time budget.

    python3 harness.py --runtime build/libfuser_runtime.so --bundles bundles \
        --out results/gpu.md [--budget SECONDS] [--matmul-reserve SECONDS] [--quick]
    python3 harness.py --selftest --runtime LIB --bundles DIR [--driver LIBCUDA]
        [--cublaslt LIBCUBLASLT]

--selftest needs no PyTorch and no GPU: with --driver pointing at a fake CUDA
driver (test/runtime's libfuser_fake_cuda.so) and --cublaslt at the fake
cuBLASLt (libfuser_fake_cublaslt.so, found beside the driver by default) it
checks the ctypes bindings: loads every bundle, infers the sizes of every
benchmark size and matmul shape and runs each fusion once on the fake device.

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
TORCH_DTYPES = {"i1": "bool", "i8": "int8", "i32": "int32", "i64": "int64", "f16": "float16",
                "bf16": "bfloat16", "f32": "float32", "f64": "float64"}


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


# Bytes read and written per row of each memory-bound benchmark.
PER_ROW = {"bias_gelu": 2 * 4 * HIDDEN, "silu": 2 * 4 * HIDDEN, "add_mul_chain": 2 * 4 * 1024 + 4,
           "softmax": 2 * 4 * HIDDEN, "layer_norm": 2 * 2 * HIDDEN, "rms_norm": 2 * 2 * HIDDEN,
           # x and dy read, dx written (bf16); mean and rstd (f32) read
           "layer_norm_backward": 3 * 2 * HIDDEN + 8, "rms_norm_backward": 3 * 2 * HIDDEN + 4}


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

    # The backward fusions: eager is torch.autograd.grad of F.layer_norm or
    # F.rms_norm (PyTorch's own backward kernels), the forward run once per
    # input set outside the timed region and its graph retained; mean and
    # rstd are the forward's statistics of x, so every contender computes
    # the same gradients.
    graphs = {}

    def retained(key, build):
        if key not in graphs:
            graphs.clear()  # one input set at a time: the last size's graph goes
            graphs[key] = build()
        return graphs[key]

    def eager_layer_norm_backward(x, dy, mean, rstd, w):
        def build():
            xg = x.detach().requires_grad_()
            wg = w.detach().requires_grad_()
            bg = torch.zeros_like(w, requires_grad=True)
            return F.layer_norm(xg, (x.shape[-1],), wg, bg, 1e-5), (xg, wg, bg)
        y, leaves = retained(("ln", x.data_ptr(), dy.data_ptr(), w.data_ptr()), build)
        return torch.autograd.grad(y, leaves, dy, retain_graph=True)

    def eager_rms_norm_backward(x, dy, rstd, w):
        def build():
            xg = x.detach().requires_grad_()
            wg = w.detach().requires_grad_()
            return eager_rms_norm(xg, wg), (xg, wg)
        y, leaves = retained(("rms", x.data_ptr(), dy.data_ptr(), w.data_ptr()), build)
        return torch.autograd.grad(y, leaves, dy, retain_graph=True)

    def stats(x, centered):
        xf = x.float()
        mean = xf.mean(-1, keepdim=True)
        var = ((xf - mean) ** 2 if centered else xf * xf).mean(-1, keepdim=True)
        eps = 1e-5 if centered else 1e-6
        return mean, torch.rsqrt(var + eps)

    def make_layer_norm_backward(r, g):
        x = randn((r, HIDDEN), bf16, g)
        mean, rstd = stats(x, True)
        return dict(x=x, dy=randn((r, HIDDEN), bf16, g), mean=mean, rstd=rstd,
                    w=(1 + 0.1 * torch.randn(HIDDEN, device=dev, generator=g)).to(bf16))

    def make_rms_norm_backward(r, g):
        x = randn((r, HIDDEN), bf16, g)
        _, rstd = stats(x, False)
        return dict(x=x, dy=randn((r, HIDDEN), bf16, g), rstd=rstd,
                    w=(1 + 0.1 * torch.randn(HIDDEN, device=dev, generator=g)).to(bf16))

    H = HIDDEN
    return {
        "bias_gelu": (PER_ROW["bias_gelu"],
                      lambda r, g: dict(x=randn((r, H), f32, g), bias=randn((H,), f32, g)),
                      eager_bias_gelu, f32),
        "silu": (PER_ROW["silu"], lambda r, g: dict(x=randn((r, H), f32, g)), eager_silu, f32),
        "add_mul_chain": (PER_ROW["add_mul_chain"],
                          lambda r, g: dict(x=randn((r, 1024), f32, g), row=randn((1024,), f32, g),
                                            col=randn((r, 1), f32, g),
                                            alpha=torch.tensor(0.75, device=dev)),
                          eager_add_mul_chain, f32),
        "softmax": (PER_ROW["softmax"], lambda r, g: dict(x=randn((r, H), f32, g, 4.0)),
                    eager_softmax, f32),
        "layer_norm": (PER_ROW["layer_norm"],
                       lambda r, g: dict(x=randn((r, H), bf16, g), w=randn((H,), bf16, g),
                                         b=randn((H,), bf16, g)),
                       eager_layer_norm, bf16),
        "rms_norm": (PER_ROW["rms_norm"],
                     lambda r, g: dict(x=randn((r, H), bf16, g), w=randn((H,), bf16, g)),
                     eager_rms_norm, bf16),
        "layer_norm_backward": (PER_ROW["layer_norm_backward"], make_layer_norm_backward,
                                eager_layer_norm_backward, bf16),
        "rms_norm_backward": (PER_ROW["rms_norm_backward"], make_rms_norm_backward,
                              eager_rms_norm_backward, bf16),
    }


def backward_specs(torch):
    """The backward benchmarks' torch.compile function (the fusion's formula
    in torch ops, which Inductor fuses) and reference (the same formula in
    float64 on the same inputs), each returning every gradient."""
    f64 = torch.float64

    def layer_norm_bwd(x, dy, mean, rstd, w, dtype=torch.float32):
        xf, dyf, wf = x.to(dtype), dy.to(dtype), w.to(dtype)
        xhat = (xf - mean.to(dtype)) * rstd.to(dtype)
        wdy = dyf * wf
        c1 = (wdy * xhat).mean(-1, keepdim=True)
        c2 = wdy.mean(-1, keepdim=True)
        dx = (wdy - xhat * c1 - c2) * rstd.to(dtype)
        return dx.to(x.dtype), (dyf * xhat).sum(0), dyf.sum(0)

    def rms_norm_bwd(x, dy, rstd, w, dtype=torch.float32):
        xf, dyf, wf = x.to(dtype), dy.to(dtype), w.to(dtype)
        xhat = xf * rstd.to(dtype)
        wdy = dyf * wf
        c1 = (wdy * xhat).mean(-1, keepdim=True)
        dx = (wdy - xhat * c1) * rstd.to(dtype)
        return dx.to(x.dtype), (dyf * xhat).sum(0)

    def ref(fn, centered):
        """[(value, bound)]: dx rounded once from float64 (bound None: the
        dtype's tolerance); each column sum in float64 with the bound of
        f32 accumulation over the rows, rows 2^-24 sum |term|."""
        def r(**kw):
            out = fn(**kw, dtype=f64)
            x = kw["x"].to(f64)
            xhat = ((x - kw["mean"].to(f64)) if centered else x) * kw["rstd"].to(f64)
            dy = kw["dy"].to(f64).abs()
            rows = x.shape[0]
            bounds = [(dy * xhat.abs()).sum(0) * rows * 2.0 ** -24, dy.sum(0) * rows * 2.0 ** -24]
            return [(out[0], None)] + [(o, b) for o, b in zip(out[1:], bounds)]
        return r

    return {"layer_norm_backward": (layer_norm_bwd, ref(layer_norm_bwd, True)),
            "rms_norm_backward": (rms_norm_bwd, ref(rms_norm_bwd, False))}


def agree_gradient(torch, got, want, bound):
    """agree() against want rounded to got's type; with a bound (an f32
    column sum against its float64 value), |got - want| <= bound plus the
    final rounding, 2^-23 |want|."""
    if bound is None or got.dtype not in (torch.float32, torch.float64):
        return agree(torch, got, want.to(got.dtype))
    diff = (got.to(torch.float64) - want).abs()
    ok = bool((diff <= bound + want.abs() * 2.0 ** -23).all()) and not bool(torch.isnan(got).any())
    return ok, float(torch.nan_to_num(diff, nan=float("inf")).max()) if diff.numel() else 0.0


# The normalizations first: if the time budget runs out, pointwise goes.
ORDER = ["softmax", "layer_norm", "rms_norm", "layer_norm_backward", "rms_norm_backward",
         "bias_gelu", "silu", "add_mul_chain"]
TOL = {"float32": (1e-4, 1e-5), "bfloat16": (1.6e-2, 1e-2)}  # (rtol, atol)


# ---------------------------------------------------------------------------
# The matmul table (issue 18): GEMM-bound benchmarks, in TFLOP/s
# ---------------------------------------------------------------------------

# Run after the memory-bound table (ORDER), in this order: what the time
# budget leaves out goes last. Shapes are (M, K, N) for the linears (x
# [M, K], w [N, K]) and (M, H, F) for mlp_block (M tokens, hidden H, ffn F).
# Each benchmark has its GPU shapes and the smaller ones of the dry run on
# the CPU emulator (--dry-run-cpu: every GEMM 256^3 or smaller, the static
# hidden 4096 of mlp_block and linear_backward_bf16 kept); --quick runs the
# first two of either.
MATMUL_ORDER = ["linear_bf16", "mlp_block", "linear_backward_bf16"]
MATMUL_SHAPES = {
    # Llama-7B's projections (q/k/v/o, gate/up, down) and a smaller model's.
    "linear_bf16": ([(4096, 4096, 4096), (8192, 4096, 11008), (4096, 11008, 4096),
                     (16384, 1024, 4096)],
                    [(64, 64, 64), (128, 64, 172), (64, 172, 64), (256, 16, 64)]),
    # GPT-style MLP, ffn = 4 x hidden; hidden is static in the fusion.
    "mlp_block": ([(2048, 4096, 16384), (8192, 4096, 16384)],
                  [(16, 4096, 256), (31, 4096, 128)]),
    # K, the input features, is static (4096) in the fusion.
    "linear_backward_bf16": ([(8192, 4096, 4096), (8192, 4096, 11008)],
                             [(64, 4096, 64), (100, 4096, 40)]),
}


def matmul_args(name, s):
    """The fusion's argument shapes for the shape tuple s."""
    M, K, N = s
    if name == "linear_bf16":
        return {"x": [M, K], "w": [N, K], "b": [N]}
    if name == "mlp_block":
        H, Fh = K, N
        return {"x": [M, H], "ln_w": [H], "ln_b": [H], "w1": [Fh, H], "b1": [Fh],
                "w2": [H, Fh], "b2": [H]}
    if name == "linear_backward_bf16":
        return {"x": [M, K], "w": [N, K], "dy": [M, N]}
    raise KeyError(name)


def matmul_flops(name, s):
    """2 m n k per GEMM, summed: one GEMM for linear, two for the others
    (mlp_block's up and down projections; dx and dW; db is not counted)."""
    M, K, N = s
    return (2 if name == "linear_bf16" else 4) * M * K * N


def matmul_label(name, s):
    return ("M=%d H=%d F=%d" if name == "mlp_block" else "M=%d K=%d N=%d") % tuple(s)


def matmul_specs(torch, F, dev=None):
    """name -> (make(shape, gen) -> inputs, eager(inputs) -> a call returning
    the outputs, the function torch.compile gets, reference(**inputs) ->
    [(want, bound)] per output, in float64)."""
    dev = dev or DEV
    bf16, f64 = torch.bfloat16, torch.float64

    def randn(shape, g, scale=1.0, shift=0.0):
        return (torch.randn(shape, device=dev, dtype=torch.float32, generator=g) * scale
                + shift).to(bf16)

    def make_linear(s, g):
        M, K, N = s
        return dict(x=randn((M, K), g), w=randn((N, K), g, K ** -0.5), b=randn((N,), g))

    def make_mlp(s, g):
        M, H, Fh = s
        return dict(x=randn((M, H), g), ln_w=randn((H,), g, 0.1, 1.0), ln_b=randn((H,), g, 0.1),
                    w1=randn((Fh, H), g, H ** -0.5), b1=randn((Fh,), g, 0.1),
                    w2=randn((H, Fh), g, Fh ** -0.5), b2=randn((H,), g, 0.1))

    def make_backward(s, g):
        M, K, N = s
        return dict(x=randn((M, K), g), w=randn((N, K), g, K ** -0.5), dy=randn((M, N), g))

    def linear(x, w, b):
        return (F.linear(x, w, b),)

    def mlp_block(x, ln_w, ln_b, w1, b1, w2, b2):
        h = F.layer_norm(x, (x.shape[-1],), ln_w, ln_b, 1e-5)
        h = F.gelu(F.linear(h, w1, b1), approximate="tanh")
        return (F.linear(h, w2, b2) + x,)

    def linear_backward(x, w, dy):
        """What torch.compile gets: the three with explicit matmuls."""
        return dy @ w, dy.t() @ x, dy.sum(0)

    def plain(fn):
        return lambda inputs: (lambda: fn(**inputs))

    def eager_linear_backward(inputs):
        """torch.autograd.grad of F.linear: the forward once, here, outside
        the timed region; each call runs the backward (retain_graph)."""
        x = inputs["x"].detach().requires_grad_()
        w = inputs["w"].detach().requires_grad_()
        b = torch.zeros(w.shape[0], dtype=bf16, device=dev, requires_grad=True)
        y = F.linear(x, w, b)
        dy = inputs["dy"]
        return lambda: torch.autograd.grad(y, (x, w, b), dy, retain_graph=True)

    # References in float64, each with the bound of f32 accumulation over k
    # products (docs/matmul.md, test/oracle/oracle/matmul.py): the exact
    # result rounded once to bf16, (k + 2) 2^-24 (|a| @ |b| + |bias|) apart
    # from what a GEMM accumulating in f32 may give before its one rounding.
    U, B = 2.0 ** -24, 2.0 ** -8

    def r(t):  # one rounding to bf16
        return t.to(bf16).to(f64)

    def ref_linear(x, w, b):
        x, w, b = x.to(f64), w.to(f64), b.to(f64)
        k = x.shape[1]
        return [(r(x @ w.t() + b), (k + 2) * U * (x.abs() @ w.abs().t() + b.abs()))]

    def ref_backward(x, w, dy):
        x, w, dy = x.to(f64), w.to(f64), dy.to(f64)
        m, n = dy.shape
        return [(r(dy @ w), (n + 2) * U * (dy.abs() @ w.abs())),
                (r(dy.t() @ x), (m + 2) * U * (dy.abs().t() @ x.abs())),
                (r(dy.sum(0)), (m + 2) * U * dy.abs().sum(0))]

    def ref_mlp(x, ln_w, ln_b, w1, b1, w2, b2):
        """Rounded to bf16 where eager rounds (after the layer norm, each
        linear, the gelu, the sum). The bound carries each step's error
        through the next as test/oracle's ref_mlp_block does (a bf16 ulp
        per rounding, f32 accumulation over k products, gelu' below 1.13),
        but an operand's errors cross a GEMM as what they are, rounding
        errors of independent elements: their sum over k is within Z = 8
        times the root of the sum of squares of its terms' bounds
        (Hoeffding: 2 exp(-Z^2 / 2), about 3e-14 per element, to fail by
        chance), where adding the bounds themselves (|e| @ |w|^T) would
        allow about sqrt(k) times more, so much that a missing residual
        passes. fuser's gelu in the GEMM's epilogue, on the unrounded
        product, is within it."""
        x, ln_w, ln_b, w1, b1, w2, b2 = (t.to(f64) for t in (x, ln_w, ln_b, w1, b1, w2, b2))
        H, Fh, Z = w1.shape[1], w1.shape[0], 8.0
        xw = F.layer_norm(x, (H,), None, None, 1e-5) * ln_w
        ln = r(xw + ln_b)
        # per element: e = an independent part (its square's bound: s) plus
        # a bounded one (d); the layer norm, computed in f32 and rounded,
        # is one bf16 ulp from the reference's rounding
        d_ln = 2 * B * ln.abs() + 2.0 ** -18 * (xw.abs() + ln_b.abs())
        del xw
        h = r(ln @ w1.t() + b1)
        s_h = d_ln.square() @ w1.square().t()
        d_h = (H + 2) * U * (ln.abs() @ w1.abs().t() + b1.abs()) + 2 * B * h.abs()
        del ln, d_ln
        g = r(F.gelu(h, approximate="tanh"))
        s_g = 1.13 ** 2 * s_h
        d_g = 1.13 * d_h + 2 * B * g.abs()
        del h, s_h, d_h
        o = r(g @ w2.t() + b2)
        s_o = (s_g.sqrt() + d_g).square() @ w2.square().t()
        d_o = (Fh + 2) * U * (g.abs() @ w2.abs().t() + b2.abs()) + 2 * B * o.abs()
        del g, s_g, d_g
        y = r(o + x)
        return [(y, Z * s_o.sqrt() + d_o + 2 * B * y.abs())]

    return {
        "linear_bf16": (make_linear, plain(linear), linear, ref_linear),
        "mlp_block": (make_mlp, plain(mlp_block), mlp_block, ref_mlp),
        "linear_backward_bf16": (make_backward, eager_linear_backward, linear_backward,
                                 ref_backward),
    }


MATMUL_METHOD = [
    "- Benchmarks (issue 18): `linear_bf16`, F.linear(x, w, b) in bf16, x [M, K], w [N, K], "
    "b [N]; `mlp_block`, examples/mlp_block.mlir's block (layer_norm, linear, gelu (tanh), "
    "linear, + residual) in bf16 with M tokens, hidden H, ffn F; `linear_backward_bf16`, a "
    "linear layer's backward in bf16: dx = dy @ w, dW = dy^T @ x, db = dy summed over the "
    "rows (f32 accumulation, one rounding). Inputs normal from a seeded generator, weights "
    "scaled by 1/sqrt(fan-in), the layer norm's weight 1 + 0.1 N(0, 1), biases 0.1 N(0, 1).",
    "- fuser: bundles of bench/gpu/fusions/linear_bf16.mlir (every dim known at launch, so "
    "one bundle serves every shape: one cuBLASLt GEMM with the bias in its epilogue, no "
    "kernel), mlp_block.mlir (hidden 4096 static, tokens and ffn at launch: the layer norm "
    "kernel, a GEMM with the bias and the gelu in its epilogue, a GEMM with the bias, the "
    "residual kernel) and linear_backward_bf16.mlir (K = 4096 static, M and N at launch: two "
    "GEMMs, db folded into dW's as cuBLASLt's bias-gradient epilogue, no kernel); cuBLASLt "
    "is the library PyTorch loaded.",
    "- eager: F.linear; the block as F.layer_norm, F.linear, F.gelu(approximate='tanh'), "
    "F.linear, + x; the backward as torch.autograd.grad of F.linear(x, w, b) with respect "
    "to x, w and b (the forward run once outside the timed region, its graph retained). "
    "torch.compile: of the same functions, the backward as `dy @ w, dy.t() @ x, "
    "dy.sum(0)`; warmed up and recompiled outside the timed region, a failure reported, as "
    "above. PyTorch's matmul settings are its defaults, TF32 off.",
    "- Agreement, before timing, at every shape: every output of each of the three against "
    "float64 computed on the GPU and rounded once to bf16: |out - ref| <= bound + |ref| / "
    "128 (one bf16 ulp), the bound of f32 accumulation over k products, "
    "(k + 2) 2^-24 (|a| @ |b| + |bias|) (docs/matmul.md, test/oracle/oracle/matmul.py); for "
    "mlp_block the reference rounds to bf16 where eager does and the bound carries each "
    "step's error through the next (test/oracle's ref_mlp_block), an operand's rounding "
    "errors crossing a GEMM as independent terms (8 times the root of the sum of their "
    "squared bounds: Hoeffding, about 3e-14 per element to fail by chance). The column "
    "gives the largest error as a fraction of what is allowed (1: at the bound).",
    "- Timing: as above (CUDA events, the L2 flushed before each call, 3 warm-up calls, "
    "median of 15 to 100 calls). TFLOP/s = 2 m n k per GEMM, summed (linear 2MKN, "
    "mlp_block 4MHF, the backward 4MKN with db not counted), / the time.",
]


def use_torch_cublaslt(torch):
    """The runtime opens cuBLASLt by its soname unless FUSER_CUBLASLT_LIBRARY
    names one; PyTorch's wheels keep theirs under site-packages, off the
    loader's path. Point the runtime at the copy PyTorch loaded (a small
    matmul makes sure it is), so that both use the same library. Returns
    the path, or None (the runtime's default)."""
    if os.environ.get("FUSER_CUBLASLT_LIBRARY"):
        return os.environ["FUSER_CUBLASLT_LIBRARY"]
    try:
        a = torch.ones((16, 16), device=DEV, dtype=torch.bfloat16)
        (a @ a).sum().item()
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1] if len(line.split()) >= 6 else ""
                if os.path.basename(path).startswith("libcublasLt.so"):
                    os.environ["FUSER_CUBLASLT_LIBRARY"] = path
                    return path
    except Exception:
        pass
    return None


def agree_bound(torch, got, want, bound):
    """(ok, largest |got - want| / allowed), allowed = bound + |want| / 128
    (one bf16 ulp of want or more); NaN fails."""
    allowed = bound + want.abs() / 128
    diff = (got.to(torch.float64) - want).abs()
    ok = bool((diff <= allowed).all())
    ratio = torch.nan_to_num(diff / allowed.clamp_min(1e-300), nan=float("inf"))
    return ok, float(ratio.max()) if ratio.numel() else 0.0


def as_list(out):
    """A function's results as a list (one tensor, or a tuple of them)."""
    return list(out) if isinstance(out, (tuple, list)) else [out]


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


def cell(text, n):
    """text for a table cell: one line, no column separator, at most n chars."""
    return " ".join(text.split()).replace("|", "/")[:n]


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
    lt_preset = bool(os.environ.get("FUSER_CUBLASLT_LIBRARY"))
    cublaslt = None if a.dry_run_cpu else use_torch_cublaslt(torch)
    rt = Runtime(a.runtime, device=0, emulator_capi=a.dry_run_cpu)
    stream = torch.cuda.current_stream()
    sptr = vp(stream.cuda_stream)
    specs = bench_specs(torch, F)
    backward = backward_specs(torch)
    names = [n for n in ORDER if not a.only or n in a.only]
    mm_names = [n for n in MATMUL_ORDER if not a.only or n in a.only]
    targets = TARGETS_MB[:3] if a.quick else TARGETS_MB
    # The matmul table runs after the memory-bound one, which stops at its
    # own deadline so that the matmul table keeps --matmul-reserve seconds
    # of the budget (at most half of it); the matmul table stops at the
    # budget, and has what the first left over.
    reserve = min(a.matmul_reserve, a.budget / 2) if mm_names else 0.0
    mem_budget = a.budget - reserve

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
                                            "written after each benchmark)")]
        if mm_names:
            lines.append("- cuBLASLt for fuser's GEMMs: %s" % (
                cublaslt + (" (FUSER_CUBLASLT_LIBRARY)" if lt_preset else
                            " (the one PyTorch loaded)") if cublaslt else
                "by its soname (libcublasLt.so.13, .12)" if not a.dry_run_cpu else
                "none: the CPU emulator's reference GEMM"))
        lines += ["", "## Memory-bound fusions: GB/s", ""]
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
        if mm_names:
            lines += ["", "## Matmul: TFLOP/s", "",
                      "| benchmark | shape | GFLOP per call | fuser us | fuser TFLOP/s | eager us | "
                      "eager TFLOP/s | torch.compile us | torch.compile TFLOP/s | speedup vs eager | "
                      "speedup vs torch.compile | all three agree (largest error / allowed) |",
                      "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
            lines += mm_rows
            lines.append("")
            lines.append("- goal, never slower than torch.compile: %s" % (
                "not measured (no torch.compile figures)" if not mm_compared else
                "met in all %d cells measured" % len(mm_compared) if not mm_slower else
                "not met in %d of %d cells: %s" % (len(mm_slower), len(mm_compared),
                                                  "; ".join(mm_slower))))
            for n, note in mm_notes.items():
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
        if mm_names:
            lines += ["### Matmul table", ""] + MATMUL_METHOD + [
                "- Budget: this table runs after the memory-bound one, whose deadline was %d s "
                "into the run (`--budget` %d s less `--matmul-reserve`, at most half the budget) "
                "so that this one keeps its share; this one's is %d s (shapes left then are "
                "reported skipped), and it skips torch.compile after 70%% of its window." % (
                    mem_budget, a.budget, a.budget), ""]
        text = "\n".join(lines)
        if a.out:
            os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
            with open(a.out, "w") as f:
                f.write(text)
        return text

    compile_notes = {}
    mm_rows, mm_compared, mm_slower, mm_notes = [], [], [], {}
    for name in names:
        per_row, make, eager, _ = specs[name]
        bundle = rt.load(os.path.join(a.bundles, name + ".bundle"))
        fusion = rt.fusion(bundle, name)
        rt.check(rt.lib.fuser_fusion_prepare(fusion.h))
        compiled, compile_error = None, None
        try:
            compiled = torch.compile(backward[name][0] if name in backward else eager)
        except Exception as e:  # torch.compile itself unavailable
            compile_error = "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:200])
        g = torch.Generator(device=DEV)
        g.manual_seed(1234)
        for mb in targets:
            rows = max(1, round(mb * scale * 1e6 / per_row))
            if time.time() - t_start > mem_budget:
                rows_out.append("| %s | %dx%d | - | skipped: time budget of %d s spent | | | | | | | | |"
                                % (name, rows, 1024 if name == "add_mul_chain" else HIDDEN,
                                   mem_budget))
                continue
            inputs = make(rows, g)
            if DEV == "cpu":  # the emulator reaches only its own allocations
                inputs = {k: rt.emulator_tensor(torch, like=v) for k, v in inputs.items()}
            try:
                arg_shapes = [list(inputs[n].shape) for n in fusion.arg_names]
                dims, res_shapes = fusion.shapes(arg_shapes)
                res_dtypes = [getattr(torch, TORCH_DTYPES[dt])
                              for (_, dt, _) in fusion.tensors[fusion.num_args:]]
                outs = [torch.empty(s, dtype=d, device=DEV) if DEV != "cpu"
                        else rt.emulator_tensor(torch, shape=s, dtype=d)
                        for s, d in zip(res_shapes, res_dtypes)]
                call = fusion.bind([inputs[n].data_ptr() for n in fusion.arg_names],
                                   [o.data_ptr() for o in outs], dims)
                run_fuser = lambda: call(sptr)  # noqa: E731
                run_fuser()
                fuser_error = None
            except FuserError as e:
                fuser_error = str(e)
            ref = as_list(eager(**inputs))
            torch.cuda.synchronize()
            traffic = sum(t.numel() * t.element_size() for t in inputs.values()) + \
                sum(t.numel() * t.element_size()
                    for t in (outs if fuser_error is None else ref))
            # torch.compile: warm it up (compiling, recompiling for a new
            # size) outside the timed region.
            out_c = None
            if compiled is not None and compile_error is None:
                if time.time() - t_start > 0.7 * mem_budget:
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
            if name in backward:
                gold = backward[name][1](**inputs)
            else:
                gold = [(eager(**{k: v.float() for k, v in inputs.items()}).to(ref[0].dtype), None)]
            checks = []
            ok_all = True
            for label, out in (("fuser", outs if fuser_error is None else None),
                               ("eager", ref), ("compile", out_c)):
                if out is None:
                    continue
                ok, err = True, 0.0
                for o, (want, bound) in zip(as_list(out), gold):
                    o_ok, o_err = agree_gradient(torch, o, want, bound)
                    ok, err = ok and o_ok, max(err, o_err)
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

    # The matmul table: the same flow, shapes instead of sizes, TFLOP/s.
    # Its window runs from here to the budget.
    t_mm = time.time() - t_start
    mm_specs = matmul_specs(torch, F)
    for name in mm_names:
        make, eager_for, target, reference = mm_specs[name]
        shapes = MATMUL_SHAPES[name][1 if a.dry_run_cpu else 0]
        if a.quick:
            shapes = shapes[:2]
        compiled, compile_error = None, None
        try:
            compiled = torch.compile(target)
        except Exception as e:  # torch.compile itself unavailable
            compile_error = "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:200])
        g = torch.Generator(device=DEV)
        g.manual_seed(1234)
        fusion = None
        for s in shapes:
            label, flops = matmul_label(name, s), matmul_flops(name, s)
            if time.time() - t_start > a.budget:
                mm_rows.append("| %s | %s | %.4g | skipped: time budget of %d s spent "
                               "| | | | | | | | |" % (name, label, flops / 1e9, a.budget))
                continue
            inputs = outs = call = run_eager = out_e = out_c = None
            try:
                if fusion is None:
                    bundle = rt.load(os.path.join(a.bundles, name + ".bundle"))
                    fusion = rt.fusion(bundle, name)
                    rt.check(rt.lib.fuser_fusion_prepare(fusion.h))
                inputs = make(s, g)
                if DEV == "cpu":  # the emulator reaches only its own allocations
                    inputs = {k: rt.emulator_tensor(torch, like=v) for k, v in inputs.items()}
                fuser_error = None
                try:
                    dims, res_shapes = fusion.shapes([list(inputs[n].shape)
                                                      for n in fusion.arg_names])
                    outs = [torch.empty(sh, dtype=torch.bfloat16, device=DEV) if DEV != "cpu"
                            else rt.emulator_tensor(torch, shape=sh, dtype=torch.bfloat16)
                            for sh in res_shapes]
                    call = fusion.bind([inputs[n].data_ptr() for n in fusion.arg_names],
                                       [o.data_ptr() for o in outs], dims)
                    run_fuser = lambda: call(sptr)  # noqa: E731
                    run_fuser()
                except FuserError as e:
                    fuser_error = str(e)
                    outs = None
                run_eager = eager_for(inputs)
                out_e = run_eager()
                torch.cuda.synchronize()
                # torch.compile: warmed up (compiled, recompiled for a new
                # shape) outside the timed region, as in the first table.
                if compiled is not None and compile_error is None:
                    if time.time() - t_start > t_mm + 0.7 * (a.budget - t_mm):
                        mm_notes[name] = "torch.compile skipped from %s: time budget" % label
                    else:
                        try:
                            t0 = time.time()
                            for _ in range(2):
                                out_c = compiled(**inputs)
                            torch.cuda.synchronize()
                            ct = time.time() - t0
                            if ct > 1.0:
                                print("harness: torch.compile of %s at %s: %.1f s"
                                      % (name, label, ct), flush=True)
                        except Exception as e:
                            compile_error = "%s: %s" % (type(e).__name__,
                                                        str(e).strip().splitlines()[0][:200]
                                                        if str(e).strip() else "")
                            out_c = None
                # Agreement, before timing: every output of each of the
                # three against float64, within the GEMM's bound.
                refs = reference(**inputs)
                checks, ok_all = [], True
                for lab, got in (("fuser", outs), ("eager", out_e), ("compile", out_c)):
                    if got is None:
                        continue
                    ok, worst = True, 0.0
                    for o, (want, bound) in zip(got, refs):
                        ok1, w1 = agree_bound(torch, o, want, bound)
                        ok, worst = ok and ok1, max(worst, w1)
                    ok_all &= ok
                    checks.append("%s %s%.2g" % (lab, "" if ok else "DIFFERS ", worst))
                del refs
                # ms at 500 TFLOP/s, 3 contenders; the dry run's emulator
                # GEMMs are slow: the fewest calls there
                reps = reps_for(3 * flops / 5e11) if DEV != "cpu" else 15
                t_f = time_cuda(torch, run_fuser, flush, reps) if outs is not None else None
                t_e = time_cuda(torch, run_eager, flush, reps)
                t_c = (time_cuda(torch, lambda: compiled(**inputs), flush, reps)
                       if out_c is not None else None)
                tflops = lambda t: "%.3g" % (flops / t / 1e9) if t else "-"  # noqa: E731
                row = "| %s | %s | %.4g | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    name, label, flops / 1e9,
                    fmt_us(t_f) if t_f else "failed: " + cell(fuser_error or "", 80), tflops(t_f),
                    fmt_us(t_e), tflops(t_e),
                    fmt_us(t_c) if t_c else ("failed" if compile_error else "skipped (time)"),
                    tflops(t_c),
                    "%.2fx" % (t_e / t_f) if t_f else "-",
                    "%.2fx" % (t_c / t_f) if (t_f and t_c) else "-",
                    ("yes" if ok_all else "**NO**") + ": " + ", ".join(checks))
                if t_f and t_c:
                    mm_compared.append(name)
                    if t_f > t_c:
                        mm_slower.append("%s at %s (%.1f vs %.1f us)" % (name, label,
                                                                        t_f * 1e3, t_c * 1e3))
            except Exception as e:  # one shape's failure is reported, the run goes on
                row = "| %s | %s | %.4g | failed: %s: %s | | | | | | | | |" % (
                    name, label, flops / 1e9, type(e).__name__,
                    cell(str(e).strip().splitlines()[0] if str(e).strip() else "", 160))
            mm_rows.append(row)
            print(row, flush=True)
            del inputs, outs, call, run_eager, out_e, out_c
            rt.free_emulator_tensors()
        if compile_error:
            mm_notes[name] = "torch.compile failed: " + compile_error
        if hasattr(torch, "_dynamo"):
            torch._dynamo.reset()
        report(False)

    text = report(True)
    print()
    print(text)
    rt.close()
    return 0


def selftest(a):
    """No torch, no GPU: the ctypes bindings against a (fake) driver, and
    for the matmul bundles a (fake) cuBLASLt."""
    lt = a.cublaslt
    if not lt and a.driver:
        fake = os.path.join(os.path.dirname(os.path.abspath(a.driver)), "libfuser_fake_cublaslt.so")
        lt = fake if os.path.exists(fake) else None
    if lt:
        os.environ["FUSER_CUBLASLT_LIBRARY"] = os.path.abspath(lt)
    rt = Runtime(a.runtime, driver=a.driver)
    print("selftest: runtime on the %s driver, cuBLASLt %s" % (
        rt.driver_name, os.environ.get("FUSER_CUBLASLT_LIBRARY", "by its soname")))
    per_row = PER_ROW
    dtype_codes = {v: k for k, v in DTYPE_NAMES.items()}

    def run_once(f, arg_shapes, res_shapes, dims):
        """Allocate every argument and result on the (fake) device, one call."""
        ptrs = []
        for (n, dt, _), shape in zip(f.tensors, arg_shapes + res_shapes):
            nbytes = DTYPE_SIZES[dtype_codes[dt]]
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
                run_once(f, arg_shapes, res_shapes, dims)
            print("selftest: %-14s args %s -> results %s, dyn dims %s: ok" % (
                name, " ".join(n for n in f.arg_names), res_shapes, dims))
    # The matmul bundles: the sizes of every shape inferred and checked; the
    # first dry-run shape run on the fake device (the fake cuBLASLt computes
    # its GEMMs on the host).
    for name in MATMUL_ORDER:
        bundle = rt.load(os.path.join(a.bundles, name + ".bundle"))
        f = rt.fusion(bundle, name)
        gpu, dry = MATMUL_SHAPES[name]
        for s in gpu + dry[:1]:
            args = matmul_args(name, s)
            arg_shapes = [args[n] for n in f.arg_names]
            dims, res_shapes = f.shapes(arg_shapes)
            M, K, N = s
            want = {"linear_bf16": [[M, N]], "mlp_block": [[M, K]],
                    "linear_backward_bf16": [[M, K], [N, K], [N]]}[name]
            if res_shapes != want:
                print("selftest: %s at %s: results %s, expected %s" % (
                    name, matmul_label(name, s), res_shapes, want))
                status = 1
                continue
            ran = s in dry
            if ran:
                run_once(f, arg_shapes, res_shapes, dims)
            print("selftest: %-20s %-22s -> results %s%s: ok" % (
                name, matmul_label(name, s), res_shapes, ", run" if ran else ""))
    rt.close()
    print("selftest: ok" if status == 0 else "selftest: FAILED")
    return status


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--runtime", default=os.path.join(here, "build", "libfuser_runtime.so"))
    ap.add_argument("--bundles", default=os.path.join(here, "bundles"))
    ap.add_argument("--out", default=None)
    ap.add_argument("--budget", type=float, default=330.0,
                    help="seconds after which remaining sizes are skipped")
    ap.add_argument("--matmul-reserve", type=float, default=100.0,
                    help="seconds of the budget kept for the matmul table, which runs after "
                         "the memory-bound one (at most half the budget)")
    ap.add_argument("--quick", action="store_true",
                    help="only the three smallest sizes, and the first two matmul shapes")
    ap.add_argument("--only", action="append")
    ap.add_argument("--selftest", action="store_true")
    ap.add_argument("--driver", default=None, help="CUDA driver library (selftest)")
    ap.add_argument("--cublaslt", default=None,
                    help="cuBLASLt library (selftest; default: libfuser_fake_cublaslt.so "
                         "beside --driver when there is one)")
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
