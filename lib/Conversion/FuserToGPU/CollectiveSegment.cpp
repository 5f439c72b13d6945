//===- CollectiveSegment.cpp - a collective segment in the plan -----------===//
//
// A fuser.collective is no kernel: the plan hands its buffers to the
// communication library (NCCL), which exchanges contiguous parts in member
// order (fuser-lower-collectives brought the split dim to the front). The
// plan computes the elements of one member's part from the fusion's sizes.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Transforms/Segments.h"

using namespace mlir;
using namespace mlir::fuser;

LogicalResult mlir::fuser::emitCollectiveSegment(FusionEmitter &fe, const Segment &segment) {
  auto op = dyn_cast<CollectiveOp>(segment.ops.front());
  if (!op || segment.ops.size() != 1)
    return segment.ops.front()->emitOpError("segment ")
           << segment.index << " is a collective segment; it holds one fuser.collective";
  auto bufferOf = [&](Value v) -> FailureOr<Value> {
    Value buf = fe.buffers.lookup(v);
    if (!buf)
      return op.emitOpError("reads a value that is not in memory (fuser-segment should have "
                            "made it a kernel's output)"),
             failure();
    if (!cast<MemRefType>(buf.getType()).getLayout().isIdentity())
      return op.emitOpError("takes a view argument (fuser.strides); the communication "
                            "library reads dense buffers: pass it dense"),
             failure();
    return buf;
  };
  FailureOr<Value> src = bufferOf(op.getInput()), dst = bufferOf(op.getResult());
  if (failed(src) || failed(dst))
    return failure();
  // One member's part: the input of all_reduce and all_gather, the result
  // of reduce_scatter and slice, a part of all_to_all's input (the parts
  // are along its leading dim).
  StringRef kind = op.getKind();
  Value part = kind == "reduce_scatter" || kind == "slice" ? op.getResult() : op.getInput();
  ArrayRef<AffineExpr> dims = fe.shapes.shape(part);
  if (kind == "all_to_all")
    dims = dims.drop_front();
  AffineExpr count = getAffineConstantExpr(1, op.getContext());
  for (AffineExpr e : dims)
    count = count * e;
  CommunicateOp::create(fe.planBuilder, op.getLoc(), op.getKindAttr(), *src, *dst,
                        fe.planExpr(count), op.getReductionAttr(), op.getGridAxesAttr());
  return success();
}
