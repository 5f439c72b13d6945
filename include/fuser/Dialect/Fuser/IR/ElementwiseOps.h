//===- ElementwiseOps.h - the one list of fuser's elementwise ops -*- C++ -*-===//
//
// Every op whose result element depends only on the operands' elements at
// the same index (a rank-0 operand stands for every index). The kernel
// emitter computes them per element and the sharding rules split them
// along any dim; both take this list, so a new elementwise op is added
// here once.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_DIALECT_FUSER_IR_ELEMENTWISEOPS_H
#define FUSER_DIALECT_FUSER_IR_ELEMENTWISEOPS_H

#define FUSER_ELEMENTWISE_OPS                                                  \
  NegOp, AbsOp, ExpOp, Exp2Op, Expm1Op, LogOp, Log2Op, Log1pOp, SqrtOp,        \
      RsqrtOp, ReciprocalOp, SinOp, CosOp, TanhOp, SigmoidOp, ErfOp, Log10Op,  \
      TanOp, AsinOp, AcosOp, AtanOp, SinhOp, CoshOp, AsinhOp, AcoshOp,         \
      AtanhOp, ReluOp, GeluOp, SiluOp, FloorOp, CeilOp, RoundOp, TruncOp,      \
      FracOp, SignOp, NotOp, IsNanOp, IsInfOp, IsFiniteOp, IsPosInfOp,         \
      IsNegInfOp, SignbitOp, AddOp, SubOp, MulOp, DivOp, PowOp, MaximumOp,     \
      MinimumOp, RemainderOp, FmodOp, Atan2Op, EqOp, NeOp, LtOp, LeOp, GtOp,   \
      GeOp, AndOp, OrOp, XorOp, ShlOp, ShrOp, WhereOp, ClampOp, LerpOp, FmaOp, \
      CastOp, BitcastOp

#endif // FUSER_DIALECT_FUSER_IR_ELEMENTWISEOPS_H
