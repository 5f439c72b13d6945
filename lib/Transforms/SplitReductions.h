//===- SplitReductions.h - reduce in two steps beside a row reduction -*- C++ -*-===//
//
// Part of fuser-segment (lib/Transforms/Segment.cpp), before the groups form.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_TRANSFORMS_SPLITREDUCTIONS_H
#define FUSER_LIB_TRANSFORMS_SPLITREDUCTIONS_H

#include "mlir/Support/LLVM.h"

namespace mlir {
namespace func {
class FuncOp;
}
namespace fuser {

/// Rewrites each sum, mean, max or min over dims D of a tensor of shape S,
/// where `fusion` also reduces a tensor of shape S over a strict subset D2
/// of D and the reduced value depends on no other reduction, as the same
/// reduction over D2 (keepdim) followed by one over D: the first step joins
/// the row reduction's kernel. Where the row reduction is over another
/// shape, D2 is the trailing run of D whose rows are parts of its rows
/// (rowSegmentsOf: group_norm's channels in its groups). A sum or mean of
/// a float narrower than f32 is computed in f32 through both steps and
/// rounded once. Returns the number of reductions split; fails (with
/// ShapeAnalysis's diagnostic) where the fusion's shapes cannot be
/// analyzed.
FailureOr<unsigned> splitReductionsBesideRows(func::FuncOp fusion);

} // namespace fuser
} // namespace mlir

#endif // FUSER_LIB_TRANSFORMS_SPLITREDUCTIONS_H
