//===- Passes.td - fuser conversion passes ------------------*- tablegen -*-===//
#ifndef FUSER_CONVERSION_PASSES_TD
#define FUSER_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def EmitKernelsPass : Pass<"fuser-emit-kernels", "ModuleOp"> {
  let summary = "Turn each segmented fusion into GPU kernels and a launch plan";
  let description = [{
    For each fusion (a `func.func` whose ops carry `fuser.segment` from
    `fuser-segment`), runs the scheduler named for each segment to build a
    `gpu.func` in a `gpu.module @<fusion>_kernels`, and replaces the fusion by
    its launch plan: a `func.func` over memrefs (arguments, then results,
    marked `fuser.plan`) that reads the dynamic dims, checks them, allocates
    intermediates, and launches the kernels with `fuser.launch`.

    Each segment's kernels take the decisions of its `fuser.schedules` entry
    (`fuser-schedule`) and the heuristic's where the entry leaves one out:
    one attribute always gives the same kernels.

    Kernels take bare pointers (`!llvm.ptr`, `noalias`, inputs `readonly`)
    and 32- or 64-bit sizes. fuser emits kernel bodies itself rather than
    through linalg tiling: dynamic shapes with 128-bit accesses need
    divisibility and alignment decided at launch, which upstream GPU mapping
    cannot express (docs/architecture.md).
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "Target GPU: sm_80, sm_89, sm_90 or sm_100 (sets the SM count "
           "the launch heuristics fill)">,
    Option<"indexBits", "index-bits", "unsigned", /*default=*/"0",
           "Width of index math: 32, 64, or 0 to choose per kernel (32 "
           "when every tensor has fewer than 2^31 elements; both variants, "
           "picked at launch, for dynamic sizes)">,
    Option<"math", "math", "std::string", /*default=*/"\"fast\"",
           "Accuracy tier of the transcendental functions (MathBuilder): "
           "fast (f32 within 2 ulp, f64 precise) or precise (within 1 ulp); "
           "see docs/math.md">,
    Option<"assumeAligned", "assume-aligned", "bool", /*default=*/"false",
           "Every tensor argument and result starts at a 16-byte aligned "
           "address: the plan checks it (a call with a misaligned one fails, "
           "naming it) and no kernel carries a misaligned-buffer fallback "
           "(docs/compile-speed.md)">,
    Option<"allowTf32", "allow-tf32", "bool", /*default=*/"false",
           "Matrix products of f32 operands (fuser.matmul, fuser.linear) may "
           "multiply them as TF32, 10-bit mantissas, as "
           "torch.backends.cuda.matmul.allow_tf32 does (docs/matmul.md)">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Print, per segment, a remark naming each kernel with its index "
           "width, block and the decisions its scheduler took at emission "
           "(fuser-schedule's explain prints the keys)">,
    Option<"plantBug", "plant-bug", "std::string", /*default=*/"\"\"",
           "For testing the CPU emulation only: emit a known schedule bug "
           "(missing-barrier, wrong-tail, wrong-index, inner-outer-drop-partial, "
           "inner-outer-row-map, last-block-no-fence, concat-piece-position) that it must catch, "
           "fail without a diagnostic (silent-failure), or succeed with IR "
           "that does not verify (invalid-ir)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::gpu::GPUDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect", "::mlir::fuser::FuserDialect",
    "::mlir::NVVM::NVVMDialect"
  ];
}

def LowerIfsPass : Pass<"fuser-lower-ifs"> {
  let summary = "Lower scf.if and scf.for to cf branches, in time linear in the ops";
  let description = [{
    What upstream's `convert-scf-to-cf` does for `scf.if` and `scf.for`, in
    the reverse of program order. Lowering an `scf.if` splits its block
    after it, which moves every op behind it to a new block; upstream goes
    front to back, so a block with n ifs moves O(n^2) ops, and a fusion of
    1000 sins (each with its rare-path branch, MathExpansion.h) spent 4 s
    there. Back to front, each split moves only the ops up to the previous
    split. Loops are lowered too, because an if inside a loop's body may only
    become blocks once the loop has. An if or loop inside any other op
    (scf.while, ...) is left to `convert-scf-to-cf`, which runs after this.
  }];
  let dependentDialects = ["::mlir::cf::ControlFlowDialect"];
}

def LowerKernelsToNVVMPass : Pass<"fuser-lower-kernels-to-nvvm", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Lower fuser's kernels to the LLVM and NVVM dialects";
  let description = [{
    Upstream's patterns for gpu, arith, cf, memref and vector ops, under a
    conversion target that keeps the LLVM intrinsics fuser's kernels use
    (fabs, floor, sqrt, copysign, maximum, ...) as they are. Upstream's
    `convert-gpu-to-nvvm` marks those illegal to turn them into libdevice
    calls, which would make the PTX depend on the CUDA toolkit being
    installed and compute different bits than the CPU emulation; NVPTX lowers
    each of them to one instruction.
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect"
  ];
}

def SerializeKernelsPass : Pass<"fuser-serialize-kernels", "ModuleOp"> {
  let summary = "Compile each kernel of each gpu.module to PTX, in parallel";
  let description = [{
    Does what upstream's `gpu-module-to-binary{format=isa}` does for fuser's
    modules (one `gpu.binary` of PTX assembly per `gpu.module`, for the
    module's `#nvvm.target`), but with fuser's own LLVM step (LLVM's
    `default<ON>` middle end for the target's level N, no libdevice lookup,
    the time of each step recorded as properties of the `gpu.object`:
    docs/compile-speed.md), and it hands each kernel to LLVM on its own
    and runs them on the context's thread pool: LLVM is
    most of a compile, and a fusion's module holds several kernels (index
    widths, the misaligned-buffer fallback, split reductions). The PTX of
    the kernels is joined in their order under one header, so the bundle and
    the runtime see one module, the same as before. A module with anything
    beside kernels at its top level (a device function, a global) is
    compiled whole, and so is every module when the context has one thread
    (multithreading off, or a pool of one): splitting then only adds LLVM's
    per-module setup.

    The driver creates the pass with `createSerializeKernelsPass(PtxByModule *)`
    instead: the PTX and the times then go to that map and the `gpu.object`
    holds an empty text, because an attribute stays in the context for good
    (docs/embedding.md, "What a context keeps").
  }];
}

#endif // FUSER_CONVERSION_PASSES_TD
