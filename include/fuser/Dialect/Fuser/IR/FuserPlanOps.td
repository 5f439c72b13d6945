//===- FuserPlanOps.td - host-side launch plan ops ----------*- tablegen -*-===//
//
// After kernel emission a fusion becomes a plan: a func.func over memrefs
// (arguments, then results) whose body computes launch sizes from dims with
// arith on index values, checks them, allocates intermediates with
// memref.alloc, and launches kernels with fuser.launch. The bundle writer
// turns a plan into the program of docs/bundle.md.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_DIALECT_FUSER_IR_FUSERPLANOPS_TD
#define FUSER_DIALECT_FUSER_IR_FUSERPLANOPS_TD

include "fuser/Dialect/Fuser/IR/FuserBase.td"
include "mlir/IR/SymbolInterfaces.td"

def Fuser_LaunchOp : Fuser_Op<"launch", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>, AttrSizedOperandSegments]> {
  let summary = "launch a kernel of the fusion's gpu.module";
  let description = [{
    Launches `kernel` (a `gpu.func` or, after lowering, a function of a
    `gpu.binary`) with the given grid, block and dynamic shared memory sizes.
    Each memref argument is passed as a pointer to its data, each index
    argument as an integer of the width `index_bits` lists for it (in order
    of the index arguments), which must match the kernel's parameter. With
    `if`, the launch happens only when the condition holds (variants chosen at
    launch).

    ```mlir
    fuser.launch @f_kernels::@f_0 grid(%g, %c1, %c1) block(%c256, %c1, %c1)
        smem(%c0) args(%x, %y, %n : memref<?xf32>, memref<?xf32>, index)
        index_bits [32]
    ```
  }];
  let arguments = (ins SymbolRefAttr:$kernel,
                       Index:$gridX, Index:$gridY, Index:$gridZ,
                       Index:$blockX, Index:$blockY, Index:$blockZ,
                       Index:$sharedMemory, Optional<I1>:$condition,
                       Variadic<AnyTypeOf<[AnyMemRef, Index]>>:$kernelOperands,
                       DenseI32ArrayAttr:$index_bits);
  let assemblyFormat = [{
    $kernel `grid` `(` $gridX `,` $gridY `,` $gridZ `)`
    `block` `(` $blockX `,` $blockY `,` $blockZ `)` `smem` `(` $sharedMemory `)`
    (`if` `(` $condition^ `)`)?
    (`args` `(` $kernelOperands^ `:` type($kernelOperands) `)`)?
    `index_bits` $index_bits attr-dict
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Fuser_CheckOp : Fuser_Op<"check"> {
  let summary = "fail the call with a message unless a condition holds";
  let description = [{
    Checks run before any launch that follows them. In `message`, `{}` is
    replaced by the values of `values`, in order (at most two).

    ```mlir
    fuser.check %eq, "dim 0 of x ({}) differs from dim 0 of y ({})" (%a, %b : index, index)
    ```
  }];
  let arguments = (ins I1:$condition, StrAttr:$message, Variadic<Index>:$values);
  let assemblyFormat = [{
    $condition `,` $message (`(` $values^ `:` type($values) `)`)? attr-dict
  }];
  let hasVerifier = 1;
}

def Fuser_ResultDimOp : Fuser_Op<"result_dim"> {
  let summary = "the size the fusion computes for a dynamic dim of a result";
  let description = [{
    Declares that dim `dim` of result buffer `result` (an argument of the
    plan after the fusion's own arguments) has `size` elements. A call whose
    result has another size fails; a caller can also ask the plan for the
    result sizes (`fuser_fusion_infer_dims`).

    ```mlir
    fuser.result_dim %out[0] = %n : memref<?x1024xf32>
    ```
  }];
  let arguments = (ins AnyMemRef:$result, I64Attr:$dim, Index:$size);
  let assemblyFormat = [{
    $result `[` $dim `]` `=` $size attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

def Fuser_IsAlignedOp : Fuser_Op<"is_aligned", [Pure]> {
  let summary = "whether a buffer's address is a multiple of `alignment` bytes";
  let description = [{
    ```mlir
    %ok = fuser.is_aligned %x, 16 : memref<?xf32>
    ```
  }];
  let arguments = (ins AnyMemRef:$buffer, I64Attr:$alignment);
  let results = (outs I1:$result);
  let assemblyFormat = "$buffer `,` $alignment attr-dict `:` type($buffer)";
}

def Fuser_BufferViewOp : Fuser_Op<"buffer_view", [Pure]> {
  let summary = "the bytes of a buffer, read row-major with another shape";
  let description = [{
    A result that is a reshape of a value a kernel computes is that value's
    bytes: the kernel writes the value straight into the result's buffer,
    seen through a view with the value's shape (no copy kernel). Element
    types match; the element counts are equal by the fusion's shape checks.

    ```mlir
    %v = fuser.buffer_view %result : memref<64x1x128xf32> to memref<64x128xf32>
    ```
  }];
  let arguments = (ins AnyMemRef:$source);
  let results = (outs AnyMemRef:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `to` type($result)";
  let hasVerifier = 1;
}

def Fuser_ZeroedOp : Fuser_Op<"zeroed"> {
  let summary = "an intermediate whose bytes are zero when the next launch runs";
  let description = [{
    Marks a buffer of `memref.alloc`: the runtime zeroes it on the call's
    stream before the launches that follow (the bundle's ALLOC flag
    `FUSER_BUNDLE_ALLOC_ZEROED`). A split reduction's blocks count their
    arrivals on such counters to elect the last of them.

    ```mlir
    %c = memref.alloc(%n) : memref<?xi32>
    fuser.zeroed %c : memref<?xi32>
    ```
  }];
  let arguments = (ins AnyMemRef:$buffer);
  let assemblyFormat = "$buffer attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

def Fuser_IndexCheckOp : Fuser_Op<"index_check"> {
  let summary = "fail the call when a kernel recorded an index out of range";
  let description = [{
    `word` is the fusion's index error word (`memref<8xi64>`, zeroed before
    the first launch that takes it). A kernel that meets an index outside
    its range reads nothing there and records, once per call, the first
    such index it elects: word[0] = 1, word[1] = the site (a line of
    `sites`, from 0), word[2] = the element of the site's result, word[3] =
    the index value, word[4] = the size it must be below. The check waits
    for the call's stream, reads the word and fails the call with the
    fusion, the site and the value (bundle opcode INDEX_CHECK).

    ```mlir
    fuser.index_check %word, "fuser.gather dim 1 at loc(...)"
        : memref<8xi64>
    ```
  }];
  let arguments = (ins MemRefOf<[I64]>:$word, StrAttr:$sites);
  let assemblyFormat = "$word `,` $sites attr-dict `:` type($word)";
  let hasVerifier = 1;
}

def Fuser_GemmOp : Fuser_Op<"gemm", [AttrSizedOperandSegments]> {
  let summary = "a matrix multiply through the device's library (cuBLASLt)";
  let description = [{
    The bundle's GEMM instruction (docs/bundle.md), row-major: for each
    `b < batch`, `D_b = epilogue(opA(A_b) @ opB(B_b))` with `m x k` by
    `k x n` operands. `X_b` starts `stride_X * b` elements into `X` (0: the
    same matrix for every b); `lda`, `ldb`, `ldd` are row strides in
    elements; `trans_a` means A is stored `k x m`, `trans_b` that B is
    stored `n x k` (a linear layer's weight). With `bias`, the epilogue adds
    `bias[j]` (n elements of D's type), then applies `activation` (`relu`,
    or `gelu_tanh`: gelu with tanh's approximation), before the one
    rounding. Products accumulate in f32 (f64 for f64); `allow_tf32` lets
    f32 operands be multiplied as TF32. With `aux` (and `gelu_tanh`), the
    activation's input, after the bias and rounded once to D's type, is
    written there too, laid out as D (a training forward keeps it for the
    backward: cuBLASLt's GELU_AUX epilogue). With `bias_grad` (`"a"` or
    `"b"`) the library writes `bias` instead of reading it: the sum over
    `k` of opA(A) per row (`"a"`, m elements) or of opB(B) per column
    (`"b"`, n elements), accumulated as the products and rounded once to
    D's type; D is the plain product (a linear backward's bias gradient
    beside its weight gradient: cuBLASLt's BGRAD epilogues).

    ```mlir
    fuser.gemm %x, %w -> %y bias %b sizes(%m, %n, %k, %c1)
        ld(%k, %k, %n) batch_strides(%c0, %c0, %c0) {trans_b}
        : memref<?x1024xf32>, memref<4096x1024xf32>, memref<?x4096xf32>, memref<4096xf32>
    ```
  }];
  let arguments = (ins AnyMemRef:$a, AnyMemRef:$b, AnyMemRef:$d, Optional<AnyMemRef>:$bias,
                       Optional<AnyMemRef>:$aux,
                       Index:$m, Index:$n, Index:$k, Index:$batch,
                       Index:$lda, Index:$ldb, Index:$ldd,
                       Index:$strideA, Index:$strideB, Index:$strideD,
                       UnitAttr:$trans_a, UnitAttr:$trans_b, UnitAttr:$allow_tf32,
                       OptionalAttr<StrAttr>:$activation, OptionalAttr<StrAttr>:$bias_grad);
  let assemblyFormat = [{
    $a `,` $b `->` $d (`bias` $bias^)? (`aux` $aux^)? `sizes` `(` $m `,` $n `,` $k `,` $batch `)`
    `ld` `(` $lda `,` $ldb `,` $ldd `)`
    `batch_strides` `(` $strideA `,` $strideB `,` $strideD `)` attr-dict
    `:` type($a) `,` type($b) `,` type($d) (`,` type($bias)^)? (`aux` type($aux)^)?
  }];
  let hasVerifier = 1;
}

def Fuser_CommunicateOp : Fuser_Op<"communicate"> {
  let summary = "a collective among the devices of a group, through the communication library (NCCL)";
  let description = [{
    The bundle's COLLECTIVE instruction (docs/bundle.md): `count` elements
    of each member's part, between `src` and `dst` (distinct buffers; `dst`
    a result or an intermediate), among the devices that `grid_axes` of the
    plan's grid (`fuser.grid`) group. `kind` and `reduction` as
    `fuser.collective`'s: `all_reduce` (dst = reduce of every member's
    src, `count` elements), `all_gather` (dst = every member's src, in
    member order), `reduce_scatter` (dst = reduce of every member's part
    `j` of src, `j` this member), `slice` (dst = part `j` of src),
    `all_to_all` (dst's part `k` = member `k`'s part `j` of src).

    ```mlir
    fuser.communicate "all_reduce" %p -> %s count(%n) reduction = "sum"
        grid_axes = [0] : memref<16xf32>, memref<16xf32>
    ```
  }];
  let arguments = (ins StrAttr:$kind, AnyMemRef:$src, AnyMemRef:$dst, Index:$count,
                       OptionalAttr<StrAttr>:$reduction, DenseI64ArrayAttr:$grid_axes);
  let assemblyFormat = [{
    $kind $src `->` $dst `count` `(` $count `)` (`reduction` `=` $reduction^)?
    `grid_axes` `=` $grid_axes attr-dict `:` type($src) `,` type($dst)
  }];
  let hasVerifier = 1;
}

#endif // FUSER_DIALECT_FUSER_IR_FUSERPLANOPS_TD
