"""Reading fuser kernel bundles (docs/bundle.md) and running their launch
plans in Python, without MLIR and without a GPU: the signatures, the PTX, and
which kernels a call launches with which buffers for given sizes.

Used by bench/quality/kernels.py (the traffic model) and bench/gpu/pack.py.
Pure Python 3, no third-party modules.
"""
import struct

DTYPES = {1: ("i1", 1), 2: ("i8", 1), 3: ("i32", 4), 4: ("i64", 8),
          5: ("f16", 2), 6: ("bf16", 2), 7: ("f32", 4), 8: ("f64", 8)}
NONE = 0xFFFFFFFF


class BundleError(Exception):
    pass


class Tensor:
    def __init__(self, name, dtype, dims):
        self.name, self.dtype, self.dims = name, dtype, dims

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

    def run_plan(self, dyn_dims, aligned=True):
        """Runs the plan program: returns (dims, launches, allocs) where dims
        are all dynamic dims (the results' filled in), launches the executed
        launches as (Launch, grid, block, smem) with register values
        resolved, and allocs {buffer index: bytes}."""
        dims = list(dyn_dims)
        for attempt in range(2):  # first pass fills the results' dims
            regs = [0] * max(self.num_regs, 1)
            launches, allocs, failed = [], {}, None
            for (op, dst, a, b, imm) in self.instrs:
                r = regs
                if op == 1: r[dst] = imm
                elif op == 2: r[dst] = dims[a]
                elif op == 3: r[dst] = r[a] + r[b]
                elif op == 4: r[dst] = r[a] - r[b]
                elif op == 5: r[dst] = r[a] * r[b]
                elif op == 6:
                    q = abs(r[a]) // abs(r[b]); r[dst] = q if (r[a] >= 0) == (r[b] > 0) else -q
                elif op == 7: r[dst] = -(-r[a] // r[b])
                elif op == 8: r[dst] = r[a] - r[b] * int(r[a] / r[b])
                elif op == 9: r[dst] = min(r[a], r[b])
                elif op == 10: r[dst] = max(r[a], r[b])
                elif op == 11: r[dst] = int(r[a] == r[b])
                elif op == 12: r[dst] = int(r[a] != r[b])
                elif op == 13: r[dst] = int(r[a] < r[b])
                elif op == 14: r[dst] = int(r[a] <= r[b])
                elif op == 15: r[dst] = r[a] & r[b]
                elif op == 16: r[dst] = r[a] | r[b]
                elif op == 17: r[dst] = r[b] if r[a] != 0 else r[imm]
                elif op == 18: r[dst] = 1 if (aligned and imm <= 256) else 0
                elif op == 19:
                    if r[a] == 0 and failed is None:
                        failed = "ASSERT %d failed" % len(launches)
                elif op == 20: allocs[a] = r[b]
                elif op == 21:
                    if b == NONE or r[b] != 0:
                        L = self.launches[a]
                        launches.append((L, [r[g] for g in L.grid], [r[k] for k in L.block],
                                         r[L.smem]))
                elif op == 22:
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
    if data[:8] != b"FUSERBND":
        raise BundleError("not a fuser bundle")
    (version, hsize, fsize, nfus, nmod, foff, moff, soff, ssize) = struct.unpack_from(
        "<IIQIIQQQQ", data, 8)
    if version != 1:
        raise BundleError("bundle version %d" % version)

    def string(off):
        end = data.index(b"\0", soff + off)
        return data[soff + off:end].decode()

    modules = []
    for i in range(nmod):
        name, kind, doff, dsize, target, ptxv = struct.unpack_from("<IIQQII", data, moff + 32 * i)
        modules.append((string(name), kind, data[doff:doff + dsize - 1].decode(), target, ptxv))
    fusions = []
    for i in range(nfus):
        (name, na, nr, nd, nregs, ninst, nl, ni, toff, ioff, loff, pmod,
         emod) = struct.unpack_from("<IIIIIIIIQQQII", data, foff + 64 * i)
        f = Fusion()
        f.name, f.num_dyn, f.num_regs, f.num_intermediates = string(name), nd, nregs, ni
        for t in range(na + nr):
            tname, dt, rank, _, doff, _ = struct.unpack_from("<IBBHQQ", data, toff + 24 * t)
            dims = list(struct.unpack_from("<%dq" % rank, data, doff)) if rank else []
            (f.args if t < na else f.results).append(Tensor(string(tname), dt, dims))
        for k in range(ninst):
            op, _, dst, a, b, imm = struct.unpack_from("<HHIIIq", data, ioff + 24 * k)
            f.instrs.append((op, dst, a, b, imm))
        for k in range(nl):
            kname, np_, poff, g0, g1, g2, b0, b1, b2, smem, _ = struct.unpack_from(
                "<IIQ3I3III", data, loff + 48 * k)
            params = [struct.unpack_from("<B3xI", data, poff + 8 * p) for p in range(np_)]
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
                       if kind == 1 and (used is None or p in used)})
        for i in bufs:
            if i < nargs or i in seen:
                rd += size(i)
            else:
                wr += size(i)
                seen.add(i)
        out.append((L.kernel, rd, wr))
    return out, sum(tb)
