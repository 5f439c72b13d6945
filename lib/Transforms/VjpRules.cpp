//===- VjpRules.cpp - the backward of each fuser op ------------------------===//
//
// One rule per differentiable op: PyTorch's derivative formulas
// (tools/autograd/derivatives.yaml), with its conventions at the points
// where a function has no derivative (relu'(0) = 0, abs'(0) = 0, ties of
// maximum split in halves, max over dims shared evenly by the tied
// elements). Each rule computes in f32 for f16 and bf16 operands and rounds
// each gradient once to the operand's type, as PyTorch's fused backward
// kernels do; gradients flow between ops in the primal value's type, as
// autograd's do. The composites (softmax, log_softmax, layer_norm,
// rms_norm, dropout) have whole rules: their compact backward graphs, which
// the schedulers know, not the chain of their primitives' rules.
//
//===----------------------------------------------------------------------===//

#include "VjpRules.h"

#include "fuser/Dialect/Fuser/IR/FuserAttrNames.h"
#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Transforms/Autodiff.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fuser;

namespace {

bool isHalf(Type t) { return t.isF16() || t.isBF16(); }

/// `v` as a value of type `type`, which differs from v's at most in which
/// dims are static: a fuser.reshape that moves no data, marked as one that
/// keeps every dim (kRefinesShapeAttr), so that the shape analysis ties
/// the dims one for one (a `[?, ?]` gradient of a `[?, 1]` operand).
Value fitToType(OpBuilder &b, Location loc, Value v, Type type) {
  if (!v || v.getType() == type)
    return v;
  auto op = ReshapeOp::create(b, loc, type, v);
  auto from = cast<RankedTensorType>(v.getType()), to = cast<RankedTensorType>(type);
  bool sameDims = from.getRank() == to.getRank();
  for (int64_t i = 0; sameDims && i < from.getRank(); ++i)
    sameDims = from.isDynamicDim(i) || to.isDynamicDim(i) ||
               from.getDimSize(i) == to.getDimSize(i);
  if (sameDims)
    op->setAttr(kRefinesShapeAttr, b.getUnitAttr());
  return op;
}

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

/// Builds the ops of one rule at one location, in the rule's compute type.
struct Grad {
  OpBuilder &b;
  Location loc;

  /// f32 for halves, else the value's own type.
  Value wide(Value v) {
    if (!v)
      return v;
    Type e = typeOf(v).getElementType();
    return isHalf(e) ? cast(v, b.getF32Type()) : v;
  }
  Value cast(Value v, Type elem) {
    if (typeOf(v).getElementType() == elem)
      return v;
    return CastOp::create(b, loc, typeOf(v).clone(elem), v);
  }
  /// `v` rounded to the element type of `like`.
  Value narrow(Value v, Value like) { return cast(v, typeOf(like).getElementType()); }

  Value c(Value like, double x) {
    Type e = typeOf(like).getElementType();
    return ConstantOp::create(b, loc, RankedTensorType::get({}, e), b.getFloatAttr(e, x));
  }
  /// A tensor of type `t` holding 0 (the self of a scatter that takes a
  /// gradient back to the positions a gather read).
  Value zerosOf(Type t) {
    return ConstantOp::create(b, loc, t,
                              b.getFloatAttr(llvm::cast<RankedTensorType>(t).getElementType(), 0.0));
  }
  Value add(Value x, Value y) { return AddOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return SubOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return MulOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return DivOp::create(b, loc, x, y, RoundingMode::none); }
  Value neg(Value x) { return NegOp::create(b, loc, x); }
  Value where(Value cond, Value x, Value y) { return WhereOp::create(b, loc, cond, x, y); }
  Value lt(Value x, Value y) { return LtOp::create(b, loc, x, y); }
  Value le(Value x, Value y) { return LeOp::create(b, loc, x, y); }
  Value gt(Value x, Value y) { return GtOp::create(b, loc, x, y); }
  Value ge(Value x, Value y) { return GeOp::create(b, loc, x, y); }
  Value eq(Value x, Value y) { return EqOp::create(b, loc, x, y); }

  /// Sums `g` over every dim when the operand it flows to is rank 0 (an
  /// elementwise op's scalar operand).
  Value sumTo(Value g, Value operand) {
    if (!g || typeOf(operand).getRank() != 0 || typeOf(g).getRank() == 0)
      return g;
    SmallVector<int64_t> all;
    for (int64_t d = 0; d < typeOf(g).getRank(); ++d)
      all.push_back(d);
    return SumOp::create(b, loc, g, all, false);
  }
  /// The gradient `g` (compute type) of `operand`: summed to its rank,
  /// rounded to its type.
  Value to(Value g, Value operand) {
    if (!g)
      return g;
    return narrow(sumTo(g, operand), operand);
  }

  /// `r`, reduced over `dims` of `like` (with or without kept dims), back
  /// in `like`'s shape.
  Value expand(Value r, RankedTensorType like, ArrayRef<int64_t> dims, bool keepdim) {
    SmallVector<int64_t> map;
    for (int64_t i = 0; i < like.getRank(); ++i)
      if (keepdim || !llvm::is_contained(dims, i))
        map.push_back(i);
    return BroadcastOp::create(b, loc, like.clone(typeOf(r).getElementType()), r, map);
  }
  /// A parameter of `like`'s trailing dims (a norm's weight), in its shape.
  Value expandTrailing(Value p, RankedTensorType like) {
    SmallVector<int64_t> map;
    for (int64_t i = like.getRank() - typeOf(p).getRank(); i < like.getRank(); ++i)
      map.push_back(i);
    return BroadcastOp::create(b, loc, like.clone(typeOf(p).getElementType()), p, map);
  }

  /// The number of elements of `x` over `dims`, as a rank-0 tensor of `like`'s
  /// element type: a constant for static dims, fuser.size for the others.
  Value count(Value x, ArrayRef<int64_t> dims, Value like) {
    RankedTensorType t = typeOf(x);
    Type e = typeOf(like).getElementType();
    int64_t known = 1;
    Value n;
    for (int64_t d : dims) {
      if (!t.isDynamicDim(d)) {
        known *= t.getDimSize(d);
        continue;
      }
      Value s = SizeOp::create(b, loc, RankedTensorType::get({}, e), x, d);
      n = n ? mul(n, s) : s;
    }
    Value k = c(like, (double)known);
    return n ? (known == 1 ? n : mul(n, k)) : k;
  }
};

/// All dims of `t`.
SmallVector<int64_t> allDims(RankedTensorType t) {
  SmallVector<int64_t> d;
  for (int64_t i = 0; i < t.getRank(); ++i)
    d.push_back(i);
  return d;
}

/// Dims of a rank-`rank` tensor before its trailing `dims`.
SmallVector<int64_t> leadingDims(int64_t rank, ArrayRef<int64_t> normalized) {
  SmallVector<int64_t> d;
  for (int64_t i = 0; i < rank; ++i)
    if (!llvm::is_contained(normalized, i))
      d.push_back(i);
  return d;
}

using Grads = SmallVectorImpl<Value>;

/// Unary ops: the operand's gradient from x, y = f(x) and g (compute type).
LogicalResult unary(Grad &G, Operation *op, Value g, Grads &out) {
  Value xIn = op->getOperand(0);
  Value x = G.wide(xIn), y = G.wide(op->getResult(0));
  auto one = [&] { return G.c(x, 1.0); };
  Value r = TypeSwitch<Operation *, Value>(op)
                .Case<NegOp>([&](auto) { return G.neg(g); })
                .Case<FracOp>([&](auto) { return g; })
                .Case<AbsOp>([&](auto) {
                  // g * sign(x) with sign(0) = sign(NaN) = 0, as torch.sgn
                  Value zero = G.c(x, 0.0);
                  Value s = G.where(G.gt(x, zero), one(),
                                    G.where(G.lt(x, zero), G.c(x, -1.0), zero));
                  return G.mul(g, s);
                })
                .Case<ExpOp>([&](auto) { return G.mul(g, y); })
                .Case<Exp2Op>([&](auto) { return G.mul(G.mul(g, y), G.c(x, M_LN2)); })
                .Case<Expm1Op>([&](auto) { return G.mul(g, G.add(y, one())); })
                .Case<LogOp>([&](auto) { return G.div(g, x); })
                .Case<Log2Op>([&](auto) { return G.div(g, G.mul(x, G.c(x, M_LN2))); })
                .Case<Log1pOp>([&](auto) { return G.div(g, G.add(x, one())); })
                .Case<SqrtOp>([&](auto) { return G.div(g, G.mul(G.c(x, 2.0), y)); })
                .Case<RsqrtOp>([&](auto) {
                  return G.mul(G.mul(G.c(x, -0.5), g), G.mul(G.mul(y, y), y));
                })
                .Case<ReciprocalOp>([&](auto) { return G.mul(G.neg(g), G.mul(y, y)); })
                .Case<SinOp>([&](auto) { return G.mul(g, CosOp::create(G.b, G.loc, x)); })
                .Case<CosOp>([&](auto) {
                  return G.mul(g, G.neg(SinOp::create(G.b, G.loc, x)));
                })
                .Case<TanhOp>([&](auto) { return G.mul(g, G.sub(one(), G.mul(y, y))); })
                // derivatives.yaml's formulas, one for one
                .Case<Log10Op>([&](auto) { return G.div(g, G.mul(x, G.c(x, M_LN10))); })
                .Case<TanOp>([&](auto) { return G.mul(g, G.add(one(), G.mul(y, y))); })
                .Case<AsinOp>([&](auto) {
                  return G.mul(g, RsqrtOp::create(G.b, G.loc, G.sub(one(), G.mul(x, x))));
                })
                .Case<AcosOp>([&](auto) {
                  return G.mul(g, G.neg(RsqrtOp::create(G.b, G.loc, G.sub(one(), G.mul(x, x)))));
                })
                .Case<AtanOp>([&](auto) { return G.div(g, G.add(G.mul(x, x), one())); })
                .Case<SinhOp>([&](auto) { return G.mul(g, CoshOp::create(G.b, G.loc, x)); })
                .Case<CoshOp>([&](auto) { return G.mul(g, SinhOp::create(G.b, G.loc, x)); })
                .Case<AsinhOp>([&](auto) {
                  return G.mul(g, RsqrtOp::create(G.b, G.loc, G.add(G.mul(x, x), one())));
                })
                .Case<AcoshOp>([&](auto) {
                  return G.mul(g, RsqrtOp::create(G.b, G.loc, G.sub(G.mul(x, x), one())));
                })
                .Case<AtanhOp>([&](auto) { return G.div(g, G.sub(one(), G.mul(x, x))); })
                .Case<SigmoidOp>([&](auto) { return G.mul(G.mul(g, G.sub(one(), y)), y); })
                .Case<ErfOp>([&](auto) {
                  Value e = ExpOp::create(G.b, G.loc, G.neg(G.mul(x, x)));
                  return G.mul(G.mul(G.c(x, 2.0 / std::sqrt(M_PI)), e), g);
                })
                .Case<ReluOp>([&](auto) {
                  // threshold_backward: 0 where the result is <= 0 (NaN passes g)
                  return G.where(G.le(y, G.c(y, 0.0)), G.c(g, 0.0), g);
                })
                .Case<SiluOp>([&](auto) {
                  Value s = SigmoidOp::create(G.b, G.loc, x);
                  return G.mul(G.mul(g, s), G.add(one(), G.mul(x, G.sub(one(), s))));
                })
                .Case<GeluOp>([&](GeluOp gelu) {
                  if (gelu.getApproximate() == GeluApproximation::none) {
                    Value cdf = G.mul(G.c(x, 0.5),
                                      G.add(one(), ErfOp::create(G.b, G.loc,
                                                                 G.mul(x, G.c(x, M_SQRT1_2)))));
                    Value pdf = G.mul(ExpOp::create(G.b, G.loc,
                                                    G.mul(G.c(x, -0.5), G.mul(x, x))),
                                      G.c(x, M_2_SQRTPI * M_SQRT1_2 * 0.5));
                    return G.mul(g, G.add(cdf, G.mul(x, pdf)));
                  }
                  const double beta = M_SQRT2 * M_2_SQRTPI * 0.5, kappa = 0.044715;
                  Value x2 = G.mul(x, x), x3 = G.mul(x2, x);
                  Value inner = G.mul(G.c(x, beta), G.add(x, G.mul(G.c(x, kappa), x3)));
                  Value t = TanhOp::create(G.b, G.loc, inner);
                  Value left = G.mul(G.c(x, 0.5), x), right = G.add(one(), t);
                  Value dLeft = G.mul(G.c(x, 0.5), right);
                  Value dInner = G.mul(G.c(x, beta),
                                       G.add(one(), G.mul(G.c(x, 3.0 * kappa), x2)));
                  Value dRight = G.mul(G.mul(left, G.sub(one(), G.mul(t, t))), dInner);
                  return G.mul(g, G.add(dLeft, dRight));
                })
                .Default([](Operation *) { return Value(); });
  out[0] = G.to(r, xIn);
  return success();
}

LogicalResult binary(Grad &G, Operation *op, Value g, Grads &out) {
  Value aIn = op->getOperand(0), bIn = op->getOperand(1);
  Value a = G.wide(aIn), bv = G.wide(bIn), y = G.wide(op->getResult(0));
  Value zero = G.c(g, 0.0);
  Value ga, gb;
  TypeSwitch<Operation *>(op)
      .Case<AddOp>([&](auto) { ga = g, gb = g; })
      .Case<SubOp>([&](auto) { ga = g, gb = G.neg(g); })
      .Case<MulOp>([&](auto) { ga = G.mul(g, bv), gb = G.mul(g, a); })
      .Case<DivOp>([&](DivOp d) {
        if (d.getRoundingMode() != RoundingMode::none)
          return; // piecewise constant
        // div_tensor_other_backward: -g * ((a / b) / b), not -g * a / (b * b),
        // whose b * b overflows or underflows where the quotients do not.
        ga = G.div(g, bv);
        gb = G.mul(G.neg(g), G.div(G.div(a, bv), bv));
      })
      .Case<PowOp>([&](auto) {
        // pow_backward_self and pow_backward_exponent
        Value e1 = PowOp::create(G.b, G.loc, a, G.sub(bv, G.c(bv, 1.0)));
        // g * (b * a^(b-1)), in that order: (g * b) overflows where the
        // whole does not when a^(b-1) is tiny.
        ga = G.where(G.eq(bv, G.c(bv, 0.0)), zero, G.mul(g, G.mul(bv, e1)));
        // where a == 0 and b >= 0 the exponent's gradient is 0 (log 0 is -inf)
        Value logA = G.mul(y, LogOp::create(G.b, G.loc, a));
        Value safe = G.where(G.eq(a, G.c(a, 0.0)),
                             G.where(G.ge(bv, G.c(bv, 0.0)), zero, logA), logA);
        gb = G.mul(g, safe);
      })
      .Case<MaximumOp, MinimumOp>([&](Operation *m) {
        // ties split the gradient in halves; the losing side gets 0
        bool isMax = isa<MaximumOp>(m);
        Value half = G.div(g, G.c(g, 2.0));
        Value tie = G.eq(a, bv);
        Value aLoses = isMax ? G.lt(a, bv) : G.gt(a, bv);
        Value bLoses = isMax ? G.gt(a, bv) : G.lt(a, bv);
        ga = G.where(aLoses, zero, G.where(tie, half, g));
        gb = G.where(bLoses, zero, G.where(tie, half, g));
      })
      .Case<RemainderOp>([&](auto) {
        ga = g;
        gb = G.mul(G.neg(g), DivOp::create(G.b, G.loc, a, bv, RoundingMode::floor));
      })
      .Case<FmodOp>([&](auto) {
        ga = g;
        gb = G.mul(G.neg(g), DivOp::create(G.b, G.loc, a, bv, RoundingMode::trunc));
      })
      .Case<Atan2Op>([&](auto) {
        Value r = G.div(G.c(a, 1.0), G.add(G.mul(a, a), G.mul(bv, bv)));
        ga = G.mul(G.mul(g, bv), r);
        gb = G.mul(G.mul(g, G.neg(a)), r);
      });
  out[0] = G.to(ga, aIn);
  out[1] = G.to(gb, bIn);
  return success();
}

LogicalResult ternary(Grad &G, Operation *op, Value g, Grads &out) {
  Value zero = G.c(g, 0.0);
  if (auto w = dyn_cast<WhereOp>(op)) {
    Value cnd = w.getCondition();
    out[1] = G.to(G.where(cnd, g, zero), w.getLhs());
    out[2] = G.to(G.where(cnd, zero, g), w.getRhs());
    return success();
  }
  Value p0 = op->getOperand(0), p1 = op->getOperand(1), p2 = op->getOperand(2);
  Value x = G.wide(p0), u = G.wide(p1), v = G.wide(p2);
  if (isa<ClampOp>(op)) {
    // clamp_backward_min_max: x inside [lo, hi]; lo where x < lo < hi; hi
    // where x > hi, or everywhere when hi < lo
    out[0] = G.to(G.where(G.ge(x, u), G.where(G.le(x, v), g, zero), zero), p0);
    out[1] = G.to(G.where(G.lt(x, u), G.where(G.lt(u, v), g, zero), zero), p1);
    out[2] = G.to(G.where(G.gt(x, v), g, G.where(G.lt(v, u), g, zero)), p2);
    return success();
  }
  if (isa<LerpOp>(op)) {
    out[0] = G.to(G.mul(g, G.sub(G.c(v, 1.0), v)), p0);
    out[1] = G.to(G.mul(g, v), p1);
    out[2] = G.to(G.mul(g, G.sub(u, x)), p2);
    return success();
  }
  // fma(a, b, c) = a * b + c
  out[0] = G.to(G.mul(g, u), p0);
  out[1] = G.to(G.mul(g, x), p1);
  out[2] = G.to(g, p2);
  return success();
}

/// sum, mean, max, min over dims.
LogicalResult reduction(Grad &G, Operation *op, ArrayRef<int64_t> dims, bool keepdim, Value gIn,
                        Grads &out) {
  Value xIn = op->getOperand(0);
  RankedTensorType xt = typeOf(xIn);
  if (isa<SumOp>(op)) {
    out[0] = G.expand(gIn, xt, dims, keepdim); // no arithmetic: no rounding
    return success();
  }
  Value g = G.wide(gIn), x = G.wide(xIn);
  RankedTensorType wt = typeOf(x);
  if (isa<MeanOp>(op)) {
    out[0] = G.to(G.div(G.expand(g, wt, dims, keepdim), G.count(x, dims, x)), xIn);
    return success();
  }
  // amax / amin: shared evenly by the elements equal to the extremum
  // (scale_grad_by_count); a NaN extremum gives NaN to its whole line
  Value yb = G.expand(G.wide(op->getResult(0)), wt, dims, keepdim);
  Value mask = G.cast(G.eq(x, yb), wt.getElementType());
  Value n = SumOp::create(G.b, G.loc, mask, dims, /*keepdim=*/true);
  Value share = G.div(G.expand(g, wt, dims, keepdim), G.expand(n, wt, dims, true));
  out[0] = G.to(G.mul(share, mask), xIn);
  return success();
}

LogicalResult varMean(Grad &G, VarMeanOp op, Value gVar, Value gMean, Grads &out) {
  Value xIn = op.getInput();
  Value x = G.wide(xIn);
  RankedTensorType wt = typeOf(x);
  ArrayRef<int64_t> dims = op.getDims();
  bool keep = op.getKeepdim();
  Value n = G.count(x, dims, x);
  Value r;
  if (gVar) {
    // (2 / (N - correction)) * g * (x - x.mean(dims)), as var_backward:
    // the plain mean, not var_mean's own (a running mean, NaN for a line
    // holding an inf where the plain one is inf, which leaves the finite
    // elements -inf as PyTorch gives).
    Value dof = G.sub(n, G.c(x, (double)op.getCorrection()));
    Value mean = MeanOp::create(G.b, G.loc, x, dims, /*keepdim=*/true);
    Value centered = G.sub(x, G.expand(mean, wt, dims, /*keep=*/true));
    r = G.mul(G.mul(G.div(G.c(x, 2.0), dof), G.expand(G.wide(gVar), wt, dims, keep)),
              centered);
  }
  if (gMean) {
    Value m = G.div(G.expand(G.wide(gMean), wt, dims, keep), n);
    r = r ? G.add(r, m) : m;
  }
  out[0] = G.to(r, xIn);
  return success();
}

/// The broadcast's gradient: summed over the dims it created and those it
/// expanded from size 1.
LogicalResult broadcast(Grad &G, BroadcastOp op, Value g, Grads &out) {
  RankedTensorType in = op.getInput().getType(), res = op.getType();
  SmallVector<int64_t> expanded, fresh;
  for (auto [i, d] : llvm::enumerate(op.getDims()))
    if (in.getDimSize(i) == 1 && res.getDimSize(d) != 1)
      expanded.push_back(d);
  for (int64_t d = 0; d < res.getRank(); ++d)
    if (!llvm::is_contained(op.getDims(), d))
      fresh.push_back(d);
  Value r = G.wide(g);
  if (!expanded.empty())
    r = SumOp::create(G.b, G.loc, r, expanded, /*keepdim=*/true);
  if (!fresh.empty())
    r = SumOp::create(G.b, G.loc, r, fresh, /*keepdim=*/false);
  out[0] = fitToType(G.b, G.loc, G.narrow(r, op.getInput()), in);
  return success();
}

/// pad(g, -low, -high, 0): crops what the op padded and pads back with
/// zeros what it cropped.
Value unpad(Grad &G, Value g, ArrayRef<int64_t> low, ArrayRef<int64_t> high) {
  SmallVector<int64_t> l, h;
  for (int64_t v : low)
    l.push_back(-v);
  for (int64_t v : high)
    h.push_back(-v);
  return PadOp::create(G.b, G.loc, g, G.c(g, 0.0), l, h);
}

LogicalResult slice(Grad &G, SliceOp op, Value g, Grads &out) {
  RankedTensorType in = op.getInput().getType();
  ArrayRef<int64_t> start = op.getStart(), step = op.getStep();
  SmallVector<int64_t> low(in.getRank()), high(in.getRank());
  Value r = g;
  for (int64_t d = 0; d < in.getRank(); ++d) {
    // A dynamic dim taken whole (start 0, step 1, to its end) needs no pad.
    if (in.isDynamicDim(d) && start[d] == 0 && step[d] == 1 &&
        op.getLimit()[d] == SliceOp::kToEnd)
      continue;
    if (in.isDynamicDim(d))
      return op.emitOpError("has no gradient in fuser-vjp along dim ")
             << d << ", whose size is known only at launch: the gradient pads by "
                "size - limit, which fuser.pad cannot take at launch";
    int64_t n = typeOf(r).getDimSize(d);
    if (step[d] > 1 && n > 0) {
      // interleave step - 1 zeros after each element: [.., n, ..] ->
      // [.., n, 1, ..] -> pad to [.., n, step, ..] -> [.., n * step, ..]
      RankedTensorType t = typeOf(r);
      SmallVector<int64_t> split(t.getShape());
      split.insert(split.begin() + d + 1, 1);
      Value s = ReshapeOp::create(G.b, G.loc, t.clone(split), r);
      SmallVector<int64_t> lo(split.size(), 0), hi(split.size(), 0);
      hi[d + 1] = step[d] - 1;
      s = PadOp::create(G.b, G.loc, s, G.c(s, 0.0), lo, hi);
      SmallVector<int64_t> joined(t.getShape());
      joined[d] = n * step[d];
      r = ReshapeOp::create(G.b, G.loc, t.clone(joined), s);
      n *= step[d];
    }
    low[d] = start[d];
    high[d] = in.getDimSize(d) - start[d] - n; // negative: crops the interleave's tail
  }
  out[0] = PadOp::create(G.b, G.loc, r, G.c(r, 0.0), low, high);
  return success();
}

LogicalResult concat(Grad &G, ConcatOp op, Value g, Grads &out) {
  int64_t dim = op.getDimAttr().getInt();
  int64_t rank = op.getType().getRank();
  SmallVector<int64_t> sizes;
  for (Value in : op.getInputs())
    sizes.push_back(typeOf(in).getDimSize(dim));
  for (auto [i, in] : llvm::enumerate(op.getInputs())) {
    int64_t before = 0, after = 0;
    for (auto [j, s] : llvm::enumerate(sizes)) {
      if (j == i)
        continue;
      if (ShapedType::isDynamic(s))
        return op.emitOpError("has no gradient in fuser-vjp: operand ")
               << j << " has a size along dim " << dim
               << " known only at launch, and the other operands' gradients crop by it";
      (j < i ? before : after) += s;
    }
    SmallVector<int64_t> low(rank, 0), high(rank, 0);
    low[dim] = before;
    high[dim] = after;
    out[i] = fitToType(G.b, G.loc, unpad(G, g, low, high), in.getType());
  }
  return success();
}

LogicalResult softmax(Grad &G, Operation *op, int64_t dim, bool isLog, Value gIn, Grads &out) {
  Value g = G.wide(gIn), y = G.wide(op->getResult(0));
  RankedTensorType wt = typeOf(y);
  SmallVector<int64_t> dims{dim};
  Value r;
  if (isLog) {
    // g - exp(y) * sum(g)
    Value s = SumOp::create(G.b, G.loc, g, dims, false);
    r = G.sub(g, G.mul(ExpOp::create(G.b, G.loc, y), G.expand(s, wt, dims, false)));
  } else {
    // y * (g - sum(g * y))
    Value s = SumOp::create(G.b, G.loc, G.mul(g, y), dims, false);
    r = G.mul(y, G.sub(g, G.expand(s, wt, dims, false)));
  }
  out[0] = G.narrow(r, op->getOperand(0));
  return success();
}

/// layer_norm and rms_norm: dx = rstd * (gw - mean(gw) - xhat * mean(gw * xhat)),
/// gw = g * w, xhat = (x - mean) * rstd (rms_norm: no mean, no mean(gw)
/// term); dw = sum over the leading dims of g * xhat, db of g.
LogicalResult norm(Grad &G, Operation *op, Value xIn, Value w, Value bias, ArrayRef<int64_t> dims,
                   Value mean, Value rstd, Value gyIn, Value gMean, Value gRstd, Grads &out) {
  Value x = G.wide(xIn);
  RankedTensorType wt = typeOf(x);
  SmallVector<int64_t> lead = leadingDims(wt.getRank(), dims);
  Value rstdB = G.expand(G.cast(rstd, wt.getElementType()), wt, dims, true);
  Value centered = x;
  if (mean)
    centered = G.sub(x, G.expand(G.cast(mean, wt.getElementType()), wt, dims, true));
  Value xhat = G.mul(centered, rstdB);
  Value n = G.count(x, dims, x);
  Value dx;
  if (gyIn) {
    Value gy = G.wide(gyIn);
    Value gw = w ? G.mul(gy, G.expandTrailing(G.wide(w), wt)) : gy;
    Value proj = MeanOp::create(G.b, G.loc, G.mul(gw, xhat), dims, true);
    Value inner = G.sub(gw, G.mul(xhat, G.expand(proj, wt, dims, true)));
    if (mean)
      inner = G.sub(inner, G.expand(MeanOp::create(G.b, G.loc, gw, dims, true), wt, dims, true));
    dx = G.mul(rstdB, inner);
    auto paramGrad = [&](Value v, Value param) -> Value {
      if (lead.empty())
        return G.narrow(v, param);
      return G.narrow(SumOp::create(G.b, G.loc, v, lead, false), param);
    };
    if (w)
      out[1] = paramGrad(G.mul(gy, xhat), w);
    if (bias)
      out[2] = paramGrad(gy, bias);
  }
  // mean and rstd as results: d mean / dx = 1 / N, d rstd / dx = -rstd^2 xhat / N
  if (gMean) {
    Value t = G.div(G.expand(G.cast(gMean, wt.getElementType()), wt, dims, true), n);
    dx = dx ? G.add(dx, t) : t;
  }
  if (gRstd) {
    Value s = G.mul(G.expand(G.cast(gRstd, wt.getElementType()), wt, dims, true),
                    G.div(G.mul(G.neg(G.mul(rstdB, rstdB)), xhat), n));
    dx = dx ? G.add(dx, s) : s;
  }
  out[0] = dx ? G.narrow(dx, xIn) : Value();
  return success();
}

LogicalResult dropout(Grad &G, DropoutOp op, Value gIn, Grads &out) {
  // native_dropout_backward: g * mask * scale, scale = 1 / (1 - p) (0 when p
  // is 1), computed as the forward computes it
  Value g = G.wide(gIn);
  Type f = typeOf(g).getElementType();
  Value keepP = G.sub(G.c(g, 1.0), G.cast(op.getP(), f));
  Value inverse = G.div(G.c(g, 1.0), keepP);
  Value scale = G.where(G.eq(keepP, G.c(g, 0.0)), G.c(g, 0.0), inverse);
  out[0] = G.narrow(G.mul(G.mul(g, G.cast(op.getMask(), f)), scale), op.getInput());
  return success();
}

/// `x == x or x != x`: true everywhere (NaN included), with x's sizes (a
/// constant with `?` dims has none of its own).
Value allTrueLike(Grad &G, Value x) {
  return OrOp::create(G.b, G.loc, G.eq(x, x), NeOp::create(G.b, G.loc, x, x));
}

/// A rank-0 i64 constant.
Value i64Scalar(Grad &G, int64_t x) {
  return ConstantOp::create(G.b, G.loc, RankedTensorType::get({}, G.b.getI64Type()),
                            G.b.getI64IntegerAttr(x));
}

/// gather(v, index, dim) where `v`'s sizes may be known only at launch:
/// the index (an iota) and the table (a gradient may be a broadcast sized
/// only by its uses: the gradient of a sum) take no sizes from a gather,
/// nor does fuser.size, so both are tied to `sized`, a forward value of
/// v's shape with sizes of its own: the index adds 0 times its values as
/// i64 (a float's cast saturates, NaN gives 0: the product is always 0),
/// the table is where(true, v, v) with the condition of its shape.
Value gatherTiedTo(Grad &G, Value v, Value index, int64_t dim, Value sized) {
  if (!typeOf(v).hasStaticShape()) {
    index = AddOp::create(G.b, G.loc, index,
                          MulOp::create(G.b, G.loc, G.cast(sized, G.b.getI64Type()),
                                        i64Scalar(G, 0)));
    v = G.where(allTrueLike(G, sized), v, v);
  }
  return GatherOp::create(G.b, G.loc, v, index, dim);
}

/// `v` reversed along `dim`: a gather at size - 1 - index (gatherTiedTo
/// for `sized`).
Value flip(Grad &G, Value v, int64_t dim, Value sized) {
  RankedTensorType t = typeOf(v);
  Type i64 = G.b.getI64Type();
  bool dynamic = !t.hasStaticShape();
  Value iota = IotaOp::create(G.b, G.loc, t.clone(i64), dim);
  Value n = SizeOp::create(G.b, G.loc, RankedTensorType::get({}, i64), dynamic ? sized : v, dim);
  Value index = SubOp::create(G.b, G.loc, SubOp::create(G.b, G.loc, n, i64Scalar(G, 1)), iota);
  return gatherTiedTo(G, v, index, dim, sized);
}

/// The gradient of pad's value: the sum of g over the positions it fills,
/// g summed where a mask of the input's positions, padded like it, is false
/// (exact). With sizes known only at launch the mask is x == x or x != x
/// (true everywhere, NaN included), which has x's sizes; a constant would
/// have none of its own. (It was the sum of g less the sum over the
/// input's positions, in f64, which cancels: an inf in g gave NaN.)
Value padValueGradient(Grad &G, PadOp op, Value g) {
  Value x = op.getInput();
  RankedTensorType in = typeOf(x);
  auto sumAll = [&](Value v) {
    SmallVector<int64_t> all = allDims(typeOf(v));
    return all.empty() ? v : SumOp::create(G.b, G.loc, v, all, false).getResult();
  };
  Value wg = G.wide(g);
  Type i1 = G.b.getI1Type();
  Value inside =
      in.hasStaticShape()
          ? ConstantOp::create(G.b, G.loc, in.clone(i1), G.b.getBoolAttr(true)).getResult()
          : allTrueLike(G, x);
  Value no = ConstantOp::create(G.b, G.loc, RankedTensorType::get({}, i1), G.b.getBoolAttr(false));
  Value placed = PadOp::create(G.b, G.loc, inside, no, op.getLow(), op.getHigh());
  return G.narrow(sumAll(G.where(placed, G.c(wg, 0.0), wg)), op.getValue());
}

/// The sums of `g` from each position to the end of `dim` (PyTorch's
/// reversed_cumsum): as PyTorch, flip, cumsum, flip. (With dims known at
/// launch this was total - cumsum + g in f64, which cancels: g = [1e30, 1,
/// 1, 1] gave [1e30, 1, 1, 1], an inf in g NaN everywhere.) `sized`: a
/// forward value of g's shape (flip says why).
Value reversedCumsum(Grad &G, Value g, int64_t dim, Value sized) {
  return flip(G, CumsumOp::create(G.b, G.loc, flip(G, g, dim, sized), dim), dim, sized);
}

/// cumprod_backward as PyTorch computes it:
/// - over a dim of one element, g (cumprod is the identity there: g * y / x
///   made an inf or NaN x a NaN gradient);
/// - before a line's first zero, reversed_cumsum(g * y) / x over the terms
///   before that zero alone (past it y is 0, and 0 times an inf or NaN
///   there made every earlier gradient NaN);
/// - at the first zero z, the product of the elements before it times
///   sum over k in [z, z2) of g_k * prod_{z < j <= k} x_j (z2 the second
///   zero): the prefix factored out of the sum, so that an inf prefix gives
///   inf, not the inf - inf of spreading it over terms of both signs;
/// - after it, 0.
LogicalResult cumulativeProduct(Grad &G, CumprodOp op, Value gIn, Grads &out) {
  int64_t dim = op.getDimAttr().getInt();
  Value xIn = op.getInput();
  RankedTensorType in = typeOf(xIn);
  if (in.getDimSize(dim) == 1) {
    out[0] = gIn;
    return success();
  }
  Value x = G.wide(xIn), g = G.wide(gIn), y = G.wide(op.getResult());
  Type e = typeOf(x).getElementType();
  Value zero = G.c(x, 0.0), one = G.c(x, 1.0);
  Value no = ConstantOp::create(G.b, G.loc, RankedTensorType::get({}, G.b.getI1Type()),
                                G.b.getBoolAttr(false));
  Value isZero = G.eq(x, zero);
  Value zerosSoFar = CumsumOp::create(G.b, G.loc, G.cast(isZero, e), dim);
  Value before = G.eq(zerosSoFar, zero);
  Value fromFirst = G.eq(zerosSoFar, one); // [z, z2)
  Value first = G.where(isZero, fromFirst, no);
  Value afterFirst = G.where(isZero, no, fromFirst); // (z, z2)
  // Sizes from the result, not x (CumsumOp's rule says why).
  Value a = G.div(reversedCumsum(G, G.where(before, G.mul(g, y), zero), dim, op.getResult()),
                  G.where(before, x, one));
  Value prefix = CumprodOp::create(G.b, G.loc, G.where(before, x, one), dim);
  Value partial = CumprodOp::create(G.b, G.loc, G.where(afterFirst, x, one), dim);
  Value terms = G.where(fromFirst, G.mul(g, partial), zero);
  Value sum = SumOp::create(G.b, G.loc, terms, ArrayRef<int64_t>{dim}, true);
  Value atFirst = G.mul(prefix, G.expand(sum, typeOf(x), {dim}, true));
  Value r = G.where(before, a, G.where(first, atFirst, zero));
  if (in.isDynamicDim(dim)) {
    // A dim of one element at launch: the identity's gradient.
    Value n = SizeOp::create(G.b, G.loc, RankedTensorType::get({}, e), op.getResult(), dim);
    r = G.where(G.eq(n, one), g, r);
  }
  out[0] = G.narrow(r, xIn);
  return success();
}

/// `c` moved one place along `dim` toward the end, 1 in front: element k
/// is c[k - 1], element 0 is 1 (the exclusive scan of an inclusive one). A
/// gather at max(k - 1, 0) (gatherTiedTo for `sized`).
Value shiftInOne(Grad &G, Value c, int64_t dim, Value sized) {
  Value iota = IotaOp::create(G.b, G.loc, typeOf(c).clone(G.b.getI64Type()), dim);
  Value first = G.eq(iota, i64Scalar(G, 0));
  Value index = G.where(first, iota, G.sub(iota, i64Scalar(G, 1)));
  return G.where(first, G.c(c, 1.0), gatherTiedTo(G, c, index, dim, sized));
}

/// At each element of `x`, the product of the other elements of its line
/// along `dim`, as PyTorch's prod_safe_zeros_backward computes it: the
/// product of those before it (from the front) times the product of those
/// after it (from the back). No division, so a zero, an inf or a NaN in
/// the line gives what the product of the others is.
Value productOfOthers(Grad &G, Value x, int64_t dim) {
  Value front = shiftInOne(G, CumprodOp::create(G.b, G.loc, x, dim), dim, x);
  Value reversed = flip(G, x, dim, x);
  Value back = flip(G, shiftInOne(G, CumprodOp::create(G.b, G.loc, reversed, dim), dim, x),
                    dim, x);
  return G.mul(front, back);
}

/// prod_backward, as PyTorch decides it, for the two products PyTorch has:
/// - along one dim (torch.prod(x, dim)): g * (y / x) where no element of
///   the whole tensor is 0, else g times the product of the others
///   (productOfOthers) in every line;
/// - over every dim (torch.prod(x), a rank-0 result): g * (y / x) where no
///   element is 0, g times the product of the others where exactly one
///   is, 0 everywhere where two or more are (PyTorch's zeros_like,
///   outside create_graph).
/// The choice is tensor-wide: with a zero anywhere, a line holding an inf
/// gets the product of its others (finite), not inf / inf.
/// A product over several dims but not all (no PyTorch op) decides per
/// line: g * (y / x) where no reduced element is 0; where exactly one is,
/// the product of the others at that element and 0 elsewhere; 0 where two
/// or more are.
LogicalResult product(Grad &G, ProdOp op, Value gIn, Grads &out) {
  Value xIn = op.getInput();
  ArrayRef<int64_t> dims = op.getDims();
  if (dims.empty()) { // the identity (a rank-0 input: PyTorch returns g)
    out[0] = G.narrow(G.wide(gIn), xIn);
    return success();
  }
  Value x = G.wide(xIn), g = G.wide(gIn), y = G.wide(op.getResult());
  RankedTensorType wt = typeOf(x);
  bool keep = op.getKeepdim();
  Value zero = G.c(x, 0.0), one = G.c(x, 1.0);
  Value isZero = G.eq(x, zero);
  Value gb = G.expand(g, wt, dims, keep);
  Value quotient = G.mul(gb, G.div(G.expand(y, wt, dims, keep), x));
  bool allDimsReduced = (int64_t)dims.size() == wt.getRank();
  if (dims.size() == 1 || allDimsReduced) {
    Value others;
    if (dims.size() == 1) {
      others = productOfOthers(G, x, dims[0]);
    } else {
      // Row-major order, as PyTorch's view(-1); back by the uses' sizes.
      int64_t n = wt.hasStaticShape() ? wt.getNumElements() : ShapedType::kDynamic;
      Value flat = ReshapeOp::create(G.b, G.loc, wt.clone({n}), x);
      auto back = ReshapeOp::create(G.b, G.loc, wt, productOfOthers(G, flat, 0));
      if (!wt.hasStaticShape())
        back->setAttr(kDimsFromUsesAttr, G.b.getUnitAttr());
      others = back;
    }
    Value safe = G.mul(gb, others);
    SmallVector<int64_t> every = allDims(wt);
    Type f32 = G.b.getF32Type();
    // The number of zeros in the tensor, as f32: exact for 0 and 1, and
    // never below 2 once it reaches 2.
    Value zeros = SumOp::create(G.b, G.loc, G.cast(isZero, f32), every, false);
    Value none = G.eq(zeros, G.c(zeros, 0.0));
    // torch.prod(x): every dim, a rank-0 result. Over a rank-1 input it
    // reads the same as torch.prod(x, 0), which differs only with two
    // zeros or more and an inf or NaN (NaN there, 0 here): the whole
    // product is taken, keepdim says a dim's.
    bool whole = allDimsReduced && (dims.size() > 1 || !keep);
    Value r = whole ? G.where(none, quotient,
                              G.where(G.eq(zeros, G.c(zeros, 1.0)), safe, zero))
                    : G.where(none, quotient, safe);
    out[0] = G.narrow(r, xIn);
    return success();
  }
  Value zerosInLine = SumOp::create(G.b, G.loc, G.cast(isZero, wt.getElementType()), dims, true);
  Value others = ProdOp::create(G.b, G.loc, G.where(isZero, one, x), dims, true);
  Value single = G.where(isZero, G.mul(gb, G.expand(others, wt, dims, true)), zero);
  Value nz = G.expand(zerosInLine, wt, dims, true);
  Value r = G.where(G.eq(nz, zero), quotient, G.where(G.eq(nz, one), single, zero));
  out[0] = G.narrow(r, xIn);
  return success();
}

/// `x` with its last two dims swapped.
Value transposeLast2(Grad &G, Value x) {
  RankedTensorType t = typeOf(x);
  SmallVector<int64_t> perm;
  for (int64_t i = 0; i < t.getRank(); ++i)
    perm.push_back(i);
  std::swap(perm[t.getRank() - 2], perm[t.getRank() - 1]);
  return PermuteOp::create(G.b, G.loc, x, perm);
}

/// `g`, a gradient of `like`'s batch broadcast to more (or wider) batch
/// dims, summed back to `like`'s shape: over the leading dims `like` lacks,
/// and over its dims of size 1 that were broadcast (kept as 1).
Value sumToBatch(Grad &G, Value g, RankedTensorType like) {
  RankedTensorType t = typeOf(g);
  int64_t extra = t.getRank() - like.getRank();
  SmallVector<int64_t> lead;
  for (int64_t i = 0; i < extra; ++i)
    lead.push_back(i);
  if (!lead.empty())
    g = SumOp::create(G.b, G.loc, g, lead, false);
  SmallVector<int64_t> ones;
  for (int64_t i = 0; i + 2 < like.getRank(); ++i)
    if (like.getDimSize(i) == 1 && typeOf(g).getDimSize(i) != 1)
      ones.push_back(i);
  if (!ones.empty())
    g = SumOp::create(G.b, G.loc, g, ones, true);
  return fitToType(G.b, G.loc, g, like);
}

/// `v` of shape [d0, ..., dn] as the matrix [d0 * ... * d(n-1), dn] (rows
/// first) or [d0, d1 * ... * dn] (not), or null where the result would have
/// two dims known only at launch: a reshape the shape analysis cannot size.
Value asMatrix(Grad &G, Value v, bool rowsFirst) {
  RankedTensorType t = typeOf(v);
  auto product = [](ArrayRef<int64_t> dims) {
    int64_t n = 1;
    for (int64_t d : dims)
      n = ShapedType::isDynamic(d) || ShapedType::isDynamic(n) ? ShapedType::kDynamic : n * d;
    return n;
  };
  ArrayRef<int64_t> shape = t.getShape();
  SmallVector<int64_t> m = rowsFirst ? SmallVector<int64_t>{product(shape.drop_back()), shape.back()}
                                     : SmallVector<int64_t>{shape.front(), product(shape.drop_front())};
  if (ArrayRef<int64_t>(m) == shape)
    return v;
  if (ShapedType::isDynamic(m[0]) && ShapedType::isDynamic(m[1]))
    return Value();
  return ReshapeOp::create(G.b, G.loc, t.clone(m), v);
}

/// torch.matmul's backward: a vector operand is a 1 x k row (lhs) or a
/// k x 1 column (rhs), and the result's cotangent gets those dims back;
/// grad_a = g @ b^T and grad_b = a^T @ g, summed over the batch dims each
/// operand was broadcast along, in the operands' type. Where one operand
/// has batch dims and the other none, PyTorch folds the batch into the
/// matrix ([B, M, K] @ [K, N] is [B*M, K] @ [K, N]), so the gradient of
/// the operand without batch dims is one product over the whole batch,
/// accumulated in f32 and rounded once; so is it here (a batched product
/// summed rounds each batch's partial to a half type first, and a sum that
/// cancels loses most of its bits). Where the folded matrices would have
/// two dims known only at launch, the batched products and their sum run
/// in f32 and round once at the end.
LogicalResult matmulRule(Grad &G, MatmulOp op, Value g, SmallVectorImpl<Value> &out) {
  RankedTensorType at = op.getLhs().getType(), bt = op.getRhs().getType(), rt = op.getType();
  auto reshape = [&](Value v, ArrayRef<int64_t> shape) -> Value {
    if (typeOf(v).getShape() == shape)
      return v;
    return ReshapeOp::create(G.b, G.loc, typeOf(v).clone(shape), v);
  };
  Value a = op.getLhs(), b = op.getRhs();
  if (at.getRank() == 1)
    a = reshape(a, {1, at.getDimSize(0)});
  if (bt.getRank() == 1)
    b = reshape(b, {bt.getDimSize(0), 1});
  SmallVector<int64_t> gShape(rt.getShape());
  if (at.getRank() == 1)
    gShape.insert(gShape.end() - (bt.getRank() == 1 ? 0 : 1), 1);
  if (bt.getRank() == 1)
    gShape.push_back(1);
  Value g2 = reshape(g, gShape);
  auto mm = [&](Value x, Value y) -> Value { return MatmulOp::create(G.b, G.loc, x, y); };
  // The batched products summed to `like`, in f32 for halves (one rounding).
  auto summed = [&](Value x, Value y, Value like) -> Value {
    Value p = mm(G.wide(x), G.wide(y));
    return G.narrow(sumToBatch(G, p, typeOf(like).clone(typeOf(p).getElementType())), like);
  };
  int64_t aRank = typeOf(a).getRank(), bRank = typeOf(b).getRank();
  Value ga, gb;
  if (aRank == 2 && bRank > 2) {
    // grad_a = sum over the batch of g[i] @ b[i]^T: g as [M, batch * N]
    // (its batch dims moved after M) @ b^T as [batch * N, K].
    SmallVector<int64_t> perm{bRank - 2};
    for (int64_t i = 0; i < bRank; ++i)
      if (i != bRank - 2)
        perm.push_back(i);
    Value gm = asMatrix(G, PermuteOp::create(G.b, G.loc, g2, perm), /*rowsFirst=*/false);
    Value bm = asMatrix(G, transposeLast2(G, b), /*rowsFirst=*/true);
    ga = gm && bm ? mm(gm, bm) : summed(g2, transposeLast2(G, b), a);
  } else {
    ga = sumToBatch(G, mm(g2, transposeLast2(G, b)), typeOf(a));
  }
  if (bRank == 2 && aRank > 2) {
    // grad_b = a^T @ g over every row of the batch: [K, batch * M] @
    // [batch * M, N].
    Value am = asMatrix(G, a, /*rowsFirst=*/true), gm = asMatrix(G, g2, /*rowsFirst=*/true);
    gb = am && gm ? mm(transposeLast2(G, am), gm) : summed(transposeLast2(G, a), g2, b);
  } else {
    gb = sumToBatch(G, mm(transposeLast2(G, a), g2), typeOf(b));
  }
  out[0] = fitToType(G.b, G.loc, reshape(ga, at.getShape()), at);
  out[1] = fitToType(G.b, G.loc, reshape(gb, bt.getShape()), bt);
  return success();
}

/// F.linear's backward: grad_x = g @ w, grad_w = g^T @ x over every row
/// of x, grad_bias = g summed over the rows (in f32 for halves, rounded
/// once). grad_w is one GEMM over the rows of x and g as matrices (their
/// leading dims as one: a reshape, whose sizes the shape analysis derives
/// unless the matrix would have two dims known only at launch), else a
/// batched GEMM over the leading dims summed, both in f32 and rounded once
/// (a reshape of `[?, ?, ?]` into rows would not say which dims it joins).
LogicalResult linearRule(Grad &G, LinearOp op, Value g, SmallVectorImpl<Value> &out) {
  RankedTensorType xt = op.getInput().getType(), wt = op.getWeight().getType();
  out[0] = fitToType(G.b, G.loc, MatmulOp::create(G.b, G.loc, g, op.getWeight()), xt);
  Value gw;
  Value g2 = asMatrix(G, g, /*rowsFirst=*/true), x2 = asMatrix(G, op.getInput(), true);
  if (g2 && x2) {
    gw = MatmulOp::create(G.b, G.loc, transposeLast2(G, g2), x2);
  } else {
    // [..., out, S] @ [..., S, in] per leading index, summed in f32.
    gw = MatmulOp::create(G.b, G.loc, G.wide(transposeLast2(G, g)), G.wide(op.getInput()));
    SmallVector<int64_t> lead;
    for (int64_t i = 0; i + 2 < xt.getRank(); ++i)
      lead.push_back(i);
    gw = G.narrow(SumOp::create(G.b, G.loc, gw, lead, false), op.getWeight());
  }
  out[1] = fitToType(G.b, G.loc, gw, wt);
  if (Value bias = op.getBias()) {
    Value gb = G.wide(g);
    SmallVector<int64_t> lead;
    for (int64_t i = 0; i + 1 < typeOf(g).getRank(); ++i)
      lead.push_back(i);
    if (!lead.empty())
      gb = SumOp::create(G.b, G.loc, gb, lead, false);
    out[2] = fitToType(G.b, G.loc, G.narrow(gb, bias), bias.getType());
  }
  return success();
}

/// Marks every op a rule inserts (kFirstOrderAttr) while it is set on the
/// rule's builder; the builder's own listener still hears of every op.
struct MarkFirstOrder : OpBuilder::Listener {
  explicit MarkFirstOrder(OpBuilder::Listener *previous) : previous(previous) {}
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint at) override {
    if (op->getNumOperands() > 0) // constants are shared and have no gradient
      op->setAttr(kFirstOrderAttr, UnitAttr::get(op->getContext()));
    if (previous)
      previous->notifyOperationInserted(op, at);
  }
  void notifyBlockInserted(Block *block, Region *region, Region::iterator at) override {
    if (previous)
      previous->notifyBlockInserted(block, region, at);
  }
  OpBuilder::Listener *previous;
};

/// `rule` with each op it builds marked first-order only.
LogicalResult firstOrderOnly(Grad &G, function_ref<LogicalResult()> rule) {
  OpBuilder::Listener *previous = G.b.getListener();
  MarkFirstOrder mark(previous);
  G.b.setListener(&mark);
  LogicalResult r = rule();
  G.b.setListener(previous);
  return r;
}

/// Whether `v` is, or is computed from, a value of a type that carries a
/// gradient (f16, bf16, f32, f64): not only integer, boolean and fp8
/// arguments moved or combined.
bool computedFromDifferentiable(Value v) {
  llvm::SmallPtrSet<Operation *, 16> seen;
  SmallVector<Value> work{v};
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (isDifferentiableType(typeOf(x).getElementType()))
      return true;
    Operation *d = x.getDefiningOp();
    if (d && seen.insert(d).second)
      llvm::append_range(work, d->getOperands());
  }
  return false;
}

LogicalResult noRule(Operation *op, StringRef why) {
  return op->emitOpError("has no gradient rule in fuser-vjp: ") << why;
}

} // namespace

LogicalResult mlir::fuser::buildOperandGradients(OpBuilder &b, Operation *op,
                                                 ArrayRef<Value> resultGrads,
                                                 SmallVectorImpl<Value> &out) {
  out.assign(op->getNumOperands(), Value());
  Grad G{b, op->getLoc()};
  Value g = resultGrads.empty() ? Value() : resultGrads[0];
  LogicalResult r =
      TypeSwitch<Operation *, LogicalResult>(op)
          // Piecewise constant, integer or boolean valued, or not a function
          // of their operands' values: no gradient.
          .Case<FloorOp, CeilOp, RoundOp, TruncOp, SignOp, ConstantOp, IotaOp, SizeOp, RandOp, RandnOp,
                BernoulliOp, EqOp, NeOp, LtOp, LeOp, GtOp, GeOp, IsNanOp, IsInfOp, IsFiniteOp,
                IsPosInfOp, IsNegInfOp, SignbitOp,
                AnyOp, AllOp, AndOp, OrOp, XorOp, NotOp, ShlOp, ShrOp>(
              [](auto) { return success(); })
          .Case<NegOp, AbsOp, ExpOp, Exp2Op, Expm1Op, LogOp, Log2Op, Log1pOp, SqrtOp, RsqrtOp,
                ReciprocalOp, SinOp, CosOp, TanhOp, SigmoidOp, ErfOp, ReluOp, SiluOp, GeluOp,
                Log10Op, TanOp, AsinOp, AcosOp, AtanOp, SinhOp, CoshOp, AsinhOp, AcoshOp,
                AtanhOp, FracOp>(
              [&](Operation *o) { return unary(G, o, G.wide(g), out); })
          .Case<AddOp, SubOp, MulOp, DivOp, PowOp, MaximumOp, MinimumOp, RemainderOp, FmodOp,
                Atan2Op>(
              [&](Operation *o) { return binary(G, o, G.wide(g), out); })
          .Case<WhereOp, ClampOp, LerpOp, FmaOp>(
              [&](Operation *o) { return ternary(G, o, G.wide(g), out); })
          .Case<CastOp>([&](CastOp c) -> LogicalResult {
            Type from = c.getInput().getType().getElementType();
            Type to = c.getType().getElementType();
            // From an fp8 value computed in the fusion from values that carry
            // a gradient (a quantize), it would have to flow on through a
            // type fuser does not compute in. One moved from fp8 arguments
            // (an fp8 table's index_select) carries none, as in PyTorch.
            if (isFloat8(from) && computedFromDifferentiable(c.getInput()))
              return c.emitOpError("has no gradient rule in fuser-vjp from ")
                     << from << ": fp8 values carry no gradient (differentiate the fusion "
                                "before quantizing)";
            if (!isDifferentiableType(from) || !isDifferentiableType(to))
              return success();
            out[0] = G.cast(g, from); // grad.to(self.dtype)
            return success();
          })
          .Case<BroadcastOp>([&](BroadcastOp o) { return broadcast(G, o, g, out); })
          .Case<SumOp, MeanOp, MaxOp, MinOp>([&](auto o) {
            return reduction(G, o, o.getDims(), o.getKeepdim(), g, out);
          })
          .Case<VarMeanOp>([&](VarMeanOp o) {
            return varMean(G, o, resultGrads[0], resultGrads[1], out);
          })
          .Case<ReshapeOp>([&](ReshapeOp o) {
            // Back to the input's dims, which the gradient's uses (or its
            // result's fuser.same_shape_as) give: `[?] -> [?, ?]` has no
            // way to say how the dims split.
            auto back = ReshapeOp::create(b, o.getLoc(), o.getInput().getType(), g);
            if (!o.getInput().getType().hasStaticShape())
              back->setAttr(kDimsFromUsesAttr, b.getUnitAttr());
            out[0] = back;
            return success();
          })
          .Case<MatmulOp>([&](MatmulOp o) { return matmulRule(G, o, g, out); })
          .Case<LinearOp>([&](LinearOp o) { return linearRule(G, o, g, out); })
          .Case<PermuteOp>([&](PermuteOp o) {
            SmallVector<int64_t> inverse(o.getPerm().size());
            for (auto [i, p] : llvm::enumerate(o.getPerm()))
              inverse[p] = i;
            out[0] = fitToType(b, o.getLoc(), PermuteOp::create(b, o.getLoc(), g, inverse),
                               o.getInput().getType());
            return success();
          })
          .Case<SliceOp>([&](SliceOp o) { return slice(G, o, g, out); })
          .Case<PadOp>([&](PadOp o) {
            out[0] = fitToType(b, o.getLoc(), unpad(G, g, o.getLow(), o.getHigh()),
                               o.getInput().getType());
            out[1] = padValueGradient(G, o, g);
            return success();
          })
          .Case<ConcatOp>([&](ConcatOp o) { return concat(G, o, g, out); })
          .Case<GatherOp>([&](GatherOp o) {
            Type t = o.getInput().getType();
            out[0] = ScatterAddOp::create(b, o.getLoc(), t, G.zerosOf(t), o.getIndex(), g,
                                          o.getDimAttr().getInt());
            return success();
          })
          .Case<IndexSelectOp>([&](IndexSelectOp o) {
            Type t = o.getInput().getType();
            out[0] = IndexAddOp::create(b, o.getLoc(), t, G.zerosOf(t), o.getIndex(), g,
                                        o.getDimAttr().getInt());
            return success();
          })
          .Case<ScatterAddOp>([&](ScatterAddOp o) -> LogicalResult {
            out[0] = g;
            if (o.getIndex().getType().getShape() != o.getSource().getType().getShape())
              return o.emitOpError("has no gradient rule in fuser-vjp for a source larger "
                                   "than its index (the elements the index does not reach)");
            Value picked = GatherOp::create(b, o.getLoc(), g, o.getIndex(),
                                            o.getDimAttr().getInt());
            out[2] = fitToType(b, o.getLoc(), picked, o.getSource().getType());
            return success();
          })
          .Case<IndexAddOp>([&](IndexAddOp o) {
            out[0] = g;
            Value picked = IndexSelectOp::create(b, o.getLoc(), g, o.getIndex(),
                                                 o.getDimAttr().getInt());
            out[2] = fitToType(b, o.getLoc(), picked, o.getSource().getType());
            return success();
          })
          .Case<SoftmaxOp>([&](SoftmaxOp o) {
            return softmax(G, o, o.getDimAttr().getInt(), false, g, out);
          })
          .Case<LogSoftmaxOp>([&](LogSoftmaxOp o) {
            return softmax(G, o, o.getDimAttr().getInt(), true, g, out);
          })
          .Case<LayerNormOp>([&](LayerNormOp o) {
            SmallVector<Value> tmp(3);
            if (failed(norm(G, o, o.getInput(), o.getWeight(), o.getBias(), o.getDims(),
                            o.getMean(), o.getRstd(), resultGrads[0], resultGrads[1],
                            resultGrads[2], tmp)))
              return failure();
            // operands: input, then the optional weight and bias
            out[0] = tmp[0];
            unsigned next = 1;
            if (o.getWeight())
              out[next++] = tmp[1];
            if (o.getBias())
              out[next++] = tmp[2];
            return success();
          })
          .Case<RmsNormOp>([&](RmsNormOp o) {
            // rstd as the forward computes it (the forward's ops, after
            // fuser-decompose, and these are one value after cse)
            Value x = G.wide(o.getInput());
            Value ms = MeanOp::create(b, o.getLoc(), G.mul(x, x), o.getDims(), true);
            Value rstd = RsqrtOp::create(
                b, o.getLoc(), G.add(ms, G.c(x, o.getEps().convertToDouble())));
            SmallVector<Value> tmp(3);
            if (failed(norm(G, o, o.getInput(), o.getWeight(), Value(), o.getDims(), Value(),
                            rstd, g, Value(), Value(), tmp)))
              return failure();
            out[0] = tmp[0];
            if (o.getWeight())
              out[1] = tmp[1];
            return success();
          })
          .Case<DropoutOp>([&](DropoutOp o) { return dropout(G, o, g, out); })
          .Case<ProdOp>(
              [&](ProdOp o) { return firstOrderOnly(G, [&] { return product(G, o, g, out); }); })
          .Case<CumsumOp>([&](CumsumOp o) {
            // Sizes from the scan's result: its input may be a broadcast
            // sized only by its uses (each use its own copy after
            // fuser-segment), so a new use of it would be sized by nothing.
            out[0] = G.narrow(reversedCumsum(G, g, o.getDimAttr().getInt(), o.getResult()),
                              o.getInput());
            return success();
          })
          .Case<CumprodOp>([&](CumprodOp o) {
            return firstOrderOnly(G, [&] { return cumulativeProduct(G, o, g, out); });
          })
          .Case<CummaxOp, CumminOp>([&](Operation *o) {
            // each position's gradient goes to the element its value came
            // from: a scatter_add of g at the indices
            // (zeros of the values' sizes where they are known only at
            // launch: a constant has none of its own, CumsumOp says why)
            int64_t dim = o->getAttrOfType<IntegerAttr>("dim").getInt();
            Type t = o->getOperand(0).getType();
            Value values = o->getResult(0);
            Value zeros = typeOf(values).hasStaticShape()
                              ? G.zerosOf(t)
                              : G.where(allTrueLike(G, values), G.c(values, 0.0),
                                        G.c(values, 0.0));
            out[0] = ScatterAddOp::create(b, o->getLoc(), t, zeros, o->getResult(1), g, dim);
            return success();
          })

          .Case<BitcastOp>([](Operation *o) {
            // Bits of integer or fp8 arguments (an MX scale's codes) carry
            // no gradient; a float's reinterpreted would need a derivative.
            if (!computedFromDifferentiable(o->getOperand(0)))
              return success();
            return noRule(o, "a bitcast reinterprets bits; it has no derivative");
          })
          .Case<ScaledCastOp, QuantizeOp>([](Operation *o) {
            return noRule(o, "fp8 quantization carries no gradient; differentiate the "
                             "fusion before quantizing");
          })
          .Default([](Operation *o) { return noRule(o, "no rule for this op"); });
  if (failed(r))
    return failure();
  if (op->hasAttr(kFirstOrderAttr) && llvm::any_of(out, [](Value v) { return bool(v); }))
    return op->emitOpError("is part of the gradient of a prod or cumprod, which fuser-vjp "
                           "differentiates once: its derivative at a zero is not PyTorch's "
                           "(")
           << kFirstOrderAttr << ")";
  // Only differentiable operands take a gradient; shapes that differ only
  // in which dims are static are fitted.
  for (auto [v, operand] : llvm::zip(out, op->getOperands())) {
    if (!v)
      continue;
    if (!isDifferentiableType(typeOf(operand).getElementType())) {
      v = Value();
      continue;
    }
    v = fitToType(b, op->getLoc(), v, operand.getType());
  }
  return success();
}
