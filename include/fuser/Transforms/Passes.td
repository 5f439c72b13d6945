//===- Passes.td - fuser transformation passes --------------*- tablegen -*-===//
#ifndef FUSER_TRANSFORMS_PASSES_TD
#define FUSER_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def DecomposeCompositesPass : Pass<"fuser-decompose", "func::FuncOp"> {
  let summary = "Expand composite fuser ops (softmax, log_softmax, layer_norm, "
                "rms_norm) into primitive fuser ops";
  let description = [{
    Rewrites each composite op into reductions, broadcasts and elementwise ops
    with the same PyTorch semantics, so that the segmenter and the schedulers
    only see primitive ops and can fuse a hand-written normalization and the
    composite one alike. f16 and bf16 inputs are cast to f32 for the
    computation and the result is cast back.
  }];
  let dependentDialects = ["::mlir::fuser::FuserDialect"];
}

def SegmentPass : Pass<"fuser-segment", "ModuleOp"> {
  let summary = "Partition each fusion into the fewest groups a scheduler takes";
  let description = [{
    Annotates every op of every fusion with `fuser.segment = N`, the group it
    belongs to, and the fusion with `fuser.schedulers`, the scheduler of each
    group (`pointwise`, `transpose`, ...). Values that cross from one group to
    another become intermediates in global memory. `fuser-emit-kernels` builds
    one kernel per group. With `dump`, prints each group, its scheduler and
    why each boundary was needed.
  }];
  let options = [
    Option<"dump", "dump", "bool", /*default=*/"false",
           "Print the segments and the reasons for their boundaries to stderr">,
  ];
  let dependentDialects = ["::mlir::fuser::FuserDialect"];
}

#endif // FUSER_TRANSFORMS_PASSES_TD
