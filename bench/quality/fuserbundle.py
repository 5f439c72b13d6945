"""Reading fuser kernel bundles (docs/bundle.md) and running their launch
plans in Python, without MLIR and without a GPU: the signatures, the PTX, and
which kernels a call launches with which buffers for given sizes.

Used by bench/quality/kernels.py (the traffic model) and bench/gpu/pack.py.
Pure Python 3, no third-party modules.
"""
import os
import re
import struct
import zlib


def _format_constants():
    """The #defines of runtime/include/fuser_bundle_format.h, the one
    definition of the format: {"VERSION": 2, "HEADER_SIZE": 72, ...} without
    the FUSER_BUNDLE_ prefix."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                        "runtime", "include", "fuser_bundle_format.h")
    out = {}
    with open(path) as f:
        for m in re.finditer(r'^#define FUSER_BUNDLE_(\w+)\s+("[^"]*"|\w+)', f.read(), re.M):
            v = m.group(2)
            out[m.group(1)] = v.strip('"').encode() if v.startswith('"') else int(v.rstrip("uU"), 0)
    return out


FORMAT = _format_constants()
NONE = FORMAT["NONE"]
DTYPES = {FORMAT["DTYPE_" + n.upper()]: (n, size) for n, size in (
    ("i1", 1), ("i8", 1), ("i32", 4), ("i64", 8), ("f16", 2), ("bf16", 2), ("f32", 4), ("f64", 8),
    ("f8E4M3FN", 1), ("f8E5M2", 1), ("f8E8M0FNU", 1))}
OP = {k[3:]: v for k, v in FORMAT.items() if k.startswith("OP_")}
# The records, field by field in the order of the header's offsets; their
# sizes are checked against it here, once.
_MODULE, _FUSION, _TENSOR = "<IIQQII", "<IIIIIIIIQQQII", "<IBBHQQ"
_INSTR, _LAUNCH, _PARAM = "<HHIIIq", "<IIQ3I3III", "<B3xI"
for _fmt, _name in ((_MODULE, "MODULE"), (_FUSION, "FUSION"), (_TENSOR, "TENSOR"),
                    (_INSTR, "INSTR"), (_LAUNCH, "LAUNCH"), (_PARAM, "PARAM")):
    assert struct.calcsize(_fmt) == FORMAT[_name + "_SIZE"], _name


class BundleError(Exception):
    pass


class Tensor:
    def __init__(self, name, dtype, dims, strides=None):
        self.name, self.dtype, self.dims = name, dtype, dims
        # An argument compiled as a view: its strides in elements, -1 where
        # the caller passes one (read by STRIDE); None when dense.
        self.strides = strides

    @property
    def dtype_name(self):
        return DTYPES[self.dtype][0]

    @property
    def elem_bytes(self):
        return DTYPES[self.dtype][1]


class Launch:
    def __init__(self, kernel, params, grid, block, smem):
        self.kernel, self.params = kernel, params  # params: [(kind, index)]
        self.grid, self.block, self.smem = grid, block, smem


class Fusion:
    def __init__(self):
        self.name = ""
        self.args, self.results = [], []
        self.num_dyn = 0
        self.num_regs = 0
        self.instrs = []    # (op, dst, a, b, imm)
        self.launches = []  # Launch records (registers, not values)
        self.num_intermediates = 0
        self.ptx = ""
        self.emulation = None

    @property
    def tensors(self):
        return self.args + self.results

    def dyn_dims_of_args(self, shapes):
        """The fusion's dynamic dims with the arguments' taken from `shapes`
        (one list of ints per argument) and the results' left at 0."""
        dims = []
        for i, t in enumerate(self.tensors):
            for d, size in enumerate(t.dims):
                if size < 0:
                    dims.append(shapes[i][d] if i < len(self.args) else 0)
        return dims

    def dense_stride(self, dims, arg, dim):
        """The dense (row-major) stride of dim `dim` of argument `arg` for
        dynamic dims `dims`: what STRIDE reads when the caller passes no
        strides (a size 0 counts as 1, as PyTorch's contiguous strides)."""
        s = 1
        for size in self.shapes(dims)[arg][dim + 1:]:
            s *= max(size, 1)
        return s

    def run_plan(self, dyn_dims, aligned=True, arg_strides=None):
        """Runs the plan program: returns (dims, launches, allocs) where dims
        are all dynamic dims (the results' filled in), launches the executed
        launches as (Launch, grid, block, smem) with register values
        resolved, and allocs {buffer index: bytes}. `arg_strides`: None, or
        per argument None (dense) or its strides, for STRIDE. Library calls
        (GEMM) and collectives are not kernels: their counts are left in
        self.gemms and self.collectives."""
        dims = list(dyn_dims)
        for attempt in range(2):  # first pass fills the results' dims
            regs = [0] * max(self.num_regs, 1)
            launches, allocs, failed = [], {}, None
            self.gemms = self.collectives = 0
            for (op, dst, a, b, imm) in self.instrs:
                r = regs
                if op == OP["CONST"]: r[dst] = imm
                elif op == OP["DIM"]: r[dst] = dims[a]
                elif op == OP["ADD"]: r[dst] = r[a] + r[b]
                elif op == OP["SUB"]: r[dst] = r[a] - r[b]
                elif op == OP["MUL"]: r[dst] = r[a] * r[b]
                elif op == OP["DIV"]:
                    q = abs(r[a]) // abs(r[b]); r[dst] = q if (r[a] >= 0) == (r[b] > 0) else -q
                elif op == OP["CEILDIV"]: r[dst] = -(-r[a] // r[b])
                elif op == OP["REM"]: r[dst] = r[a] - r[b] * int(r[a] / r[b])
                elif op == OP["MIN"]: r[dst] = min(r[a], r[b])
                elif op == OP["MAX"]: r[dst] = max(r[a], r[b])
                elif op == OP["EQ"]: r[dst] = int(r[a] == r[b])
                elif op == OP["NE"]: r[dst] = int(r[a] != r[b])
                elif op == OP["LT"]: r[dst] = int(r[a] < r[b])
                elif op == OP["LE"]: r[dst] = int(r[a] <= r[b])
                elif op == OP["AND"]: r[dst] = r[a] & r[b]
                elif op == OP["OR"]: r[dst] = r[a] | r[b]
                elif op == OP["SELECT"]: r[dst] = r[b] if r[a] != 0 else r[imm]
                elif op == OP["ALIGNED"]: r[dst] = 1 if (aligned and imm <= 256) else 0
                elif op == OP["ASSERT"]:
                    if r[a] == 0 and failed is None:
                        failed = "ASSERT %d failed" % len(launches)
                elif op == OP["ALLOC"]: allocs[a] = r[b]
                elif op == OP["LAUNCH"]:
                    if b == NONE or r[b] != 0:
                        L = self.launches[a]
                        launches.append((L, [r[g] for g in L.grid], [r[k] for k in L.block],
                                         r[L.smem]))
                elif op == OP["INDEX_CHECK"]:
                    pass  # reads the index error word after the launches
                elif op == OP["STRIDE"]:
                    passed = arg_strides[a] if arg_strides else None
                    r[dst] = passed[b] if passed else self.dense_stride(dims, a, b)
                elif op == OP["GEMM"]: self.gemms += 1
                elif op == OP["COLLECTIVE"]: self.collectives += 1
                elif op == OP["GRID"]: pass
                elif op == OP["RESULT_DIM"]:
                    if attempt == 0:
                        dims[b] = r[a]
                else:
                    raise BundleError("unknown opcode %d" % op)
            if attempt == 1 and failed:
                raise BundleError("%s: plan %s" % (self.name, failed))
        return dims, launches, allocs

    def shapes(self, dims):
        """Concrete shapes of the arguments and results for dynamic dims."""
        out, k = [], 0
        for t in self.tensors:
            s = []
            for size in t.dims:
                if size < 0:
                    s.append(dims[k]); k += 1
                else:
                    s.append(size)
            out.append(s)
        return out

    def tensor_bytes(self, dims):
        b = []
        for t, s in zip(self.tensors, self.shapes(dims)):
            n = t.elem_bytes
            for v in s:
                n *= v
            b.append(n)
        return b


def load(path_or_bytes):
    data = path_or_bytes
    if isinstance(data, str):
        with open(data, "rb") as f:
            data = f.read()
    F = FORMAT
    if data[:F["MAGIC_SIZE"]] != F["MAGIC"]:
        raise BundleError("not a fuser bundle")
    version = struct.unpack_from("<I", data, F["H_VERSION"])[0]
    if version != F["FORMAT_VERSION"]:
        raise BundleError("bundle format version %d (this reader reads %d; recompile the bundle)"
                          % (version, F["FORMAT_VERSION"]))
    if len(data) < F["HEADER_SIZE"]:
        raise BundleError("the file is shorter than the header")
    (version, hsize, fsize, nfus, nmod, foff, moff, soff, ssize) = struct.unpack_from(
        "<IIQIIQQQQ", data, F["H_VERSION"])
    (checksum,) = struct.unpack_from("<I", data, F["H_CHECKSUM"])
    at = F["H_CHECKSUM"]
    computed = zlib.crc32(data[at + 4:], zlib.crc32(b"\0\0\0\0", zlib.crc32(data[:at])))
    if hsize != F["HEADER_SIZE"] or fsize != len(data) or checksum != computed:
        raise BundleError("corrupted bundle (header size %d, file size %d of %d, checksum 0x%08x, "
                          "computed 0x%08x)" % (hsize, fsize, len(data), checksum, computed))

    def string(off):
        end = data.index(b"\0", soff + off)
        return data[soff + off:end].decode()

    modules = []
    for i in range(nmod):
        name, kind, doff, dsize, target, ptxv = struct.unpack_from(_MODULE, data, moff + F["MODULE_SIZE"] * i)
        payload = data[doff:doff + dsize - 1]
        # A cubin is machine code (bytes); PTX and the emulator's MLIR are text.
        modules.append((string(name), kind,
                        payload if kind == FORMAT["MODULE_CUBIN"] else payload.decode(),
                        target, ptxv))
    fusions = []
    for i in range(nfus):
        (name, na, nr, nd, nregs, ninst, nl, ni, toff, ioff, loff, pmod,
         emod) = struct.unpack_from(_FUSION, data, foff + F["FUSION_SIZE"] * i)
        f = Fusion()
        f.name, f.num_dyn, f.num_regs, f.num_intermediates = string(name), nd, nregs, ni
        for t in range(na + nr):
            tname, dt, rank, _, doff, stoff = struct.unpack_from(_TENSOR, data, toff + F["TENSOR_SIZE"] * t)
            dims = list(struct.unpack_from("<%dq" % rank, data, doff)) if rank else []
            # The strides record (0: none, a dense tensor).
            strides = list(struct.unpack_from("<%dq" % rank, data, stoff)) if stoff else None
            (f.args if t < na else f.results).append(Tensor(string(tname), dt, dims, strides))
        for k in range(ninst):
            op, _, dst, a, b, imm = struct.unpack_from(_INSTR, data, ioff + F["INSTR_SIZE"] * k)
            f.instrs.append((op, dst, a, b, imm))
        for k in range(nl):
            kname, np_, poff, g0, g1, g2, b0, b1, b2, smem, _ = struct.unpack_from(
                _LAUNCH, data, loff + F["LAUNCH_SIZE"] * k)
            params = [struct.unpack_from(_PARAM, data, poff + F["PARAM_SIZE"] * p) for p in range(np_)]
            f.launches.append(Launch(string(kname), params, [g0, g1, g2], [b0, b1, b2], smem))
        f.ptx = modules[pmod][2]
        f.emulation = modules[emod][2] if emod != NONE else None
        fusions.append(f)
    return fusions


def ptx_entries(ptx):
    """{kernel name: (parameter names in order, body text)} of a PTX module."""
    import re
    out = {}
    for m in re.finditer(r"\.entry\s+([A-Za-z_$][\w$]*)\s*\(([^)]*)\)", ptx):
        name, params = m.group(1), re.findall(r"([A-Za-z_$][\w$]*)\s*(?:,|$)", m.group(2).strip())
        start = ptx.find("{", m.end())
        depth, i = 0, start
        while i < len(ptx):
            if ptx[i] == "{":
                depth += 1
            elif ptx[i] == "}":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        out[name] = (params, ptx[start:i + 1])
    return out


def used_params(entry):
    """Indices of the parameters a kernel body actually reads (ld.param)."""
    params, body = entry
    return {i for i, p in enumerate(params) if "[" + p + "]" in body or "[" + p + "+" in body}


def traffic(fusion, dims, launches, allocs):
    """The global-memory traffic model of an executed plan: each launch reads
    every argument buffer it is passed and writes every result buffer; an
    intermediate (or a result passed to a later launch) is written by the
    first launch that takes it and read by the later ones. Returns
    (per-launch [(kernel, read bytes, written bytes)], minimum bytes) where
    the minimum is one read of each argument and one write of each result.
    A pointer parameter the kernel's PTX never loads is not counted."""
    entries = ptx_entries(fusion.ptx)
    nargs, nres = len(fusion.args), len(fusion.results)
    tb = fusion.tensor_bytes(dims)
    size = lambda i: tb[i] if i < nargs + nres else allocs.get(i, 0)
    seen, out = set(), []
    for (L, grid, block, smem) in launches:
        rd = wr = 0
        used = used_params(entries[L.kernel]) if L.kernel in entries else None
        bufs = sorted({idx for p, (kind, idx) in enumerate(L.params)
                       if kind == FORMAT["PARAM_PTR"] and (used is None or p in used)})
        for i in bufs:
            if i < nargs or i in seen:
                rd += size(i)
            else:
                wr += size(i)
                seen.add(i)
        out.append((L.kernel, rd, wr))
    return out, sum(tb)
