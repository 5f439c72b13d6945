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

#endif // FUSER_TRANSFORMS_PASSES_TD
