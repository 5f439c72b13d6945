//===- ComputeEstimate.cpp - an element's arithmetic, roughly -------------===//
//
// See ComputeEstimate.h.
//
//===----------------------------------------------------------------------===//

#include "ComputeEstimate.h"

#include "fuser/Dialect/Fuser/IR/FuserOps.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fuser;

int64_t mlir::fuser::estimatedInstructionsPerElement(ArrayRef<Operation *> ops) {
  auto isFloat = [](Value v) {
    return isa<FloatType>(cast<ShapedType>(v.getType()).getElementType());
  };
  int64_t total = 0;
  for (Operation *op : ops)
    total += TypeSwitch<Operation *, int64_t>(op)
                 .Case<ExpOp, Exp2Op, Expm1Op, LogOp, Log2Op, Log10Op, Log1pOp, SinOp, CosOp,
                       TanOp, TanhOp, SigmoidOp, ErfOp, AsinOp, AcosOp, AtanOp, SinhOp, CoshOp,
                       AsinhOp, AcoshOp, AtanhOp, GeluOp, SiluOp, PowOp, Atan2Op>(
                     [](auto) { return 32; })
                 .Case<RemainderOp, FmodOp>(
                     [&](Operation *o) { return isFloat(o->getResult(0)) ? 32 : 8; })
                 .Case<DivOp>([&](DivOp d) {
                   return isFloat(d.getResult()) && d.getRoundingMode() == RoundingMode::floor
                              ? 32
                              : 8;
                 })
                 .Case<SqrtOp, RsqrtOp, ReciprocalOp>([](auto) { return 8; })
                 .Default([](Operation *) { return 1; });
  return total;
}
