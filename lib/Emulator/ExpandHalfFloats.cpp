//===- ExpandHalfFloats.cpp - f16 and bf16 without the host CPU's help ----===//
//
// The emulated kernels must compute the same bits on every host CPU. LLVM
// lowers f16 and bf16 conversions to whatever the JIT's target offers: a
// native instruction (F16C, AVX512-BF16's vcvtneps2bf16, which flushes
// subnormals), or a call into libgcc or compiler-rt (__truncsfbf2, which
// Debian 12's libgcc lacks; __extendhfsf2). So before the JIT:
//  - arithmetic on f16/bf16 computes in f32 (upstream's
//    arith-emulate-unsupported-floats, run just before this pass): exact for
//    comparisons, and one rounding back for +, -, *, / since f32 has more
//    than twice the precision of either half type;
//  - every arith.truncf to f16/bf16 and arith.extf from them becomes integer
//    arithmetic (this pass): round to nearest even, subnormals kept,
//    overflow to infinity, as PTX's cvt.rn.f16.f32 / cvt.rn.bf16.f32 and
//    PyTorch round; a NaN becomes the GPU's canonical NaN 0x7fff, so that no
//    payload depends on which operand the host's instructions propagate;
//  - anything else that computes on a half type is an error naming the op,
//    never a silent dependence on the host;
//  - then every remaining half value (loads, stores, selects, loop and
//    branch values, constants) becomes an i16 of the same bits: LLVM's x86
//    back end otherwise widens a bf16 it only moves to f32 and back, and the
//    way back is a call to __truncsfbf2.
// Works on scalars and vectors alike (every op used is elementwise).
//
//===----------------------------------------------------------------------===//

#include "fuser/Emulator/Emulator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace {

bool isHalf(Type t) {
  Type e = getElementTypeOrSelf(t);
  return e.isF16() || e.isBF16();
}

/// Builds elementwise integer and float arithmetic on values of one shape
/// (a scalar or a vector), with splat constants.
struct Arith {
  OpBuilder &b;
  Location loc;

  Type like(Type shape, Type element) {
    if (auto v = dyn_cast<VectorType>(shape))
      return v.clone(element);
    return element;
  }
  Value cst(Type t, uint64_t v) {
    auto e = cast<IntegerType>(getElementTypeOrSelf(t));
    TypedAttr a = b.getIntegerAttr(e, APInt(e.getWidth(), v, /*isSigned=*/false,
                                            /*implicitTrunc=*/true));
    if (auto vt = dyn_cast<VectorType>(t))
      a = DenseElementsAttr::get(vt, a);
    return arith::ConstantOp::create(b, loc, t, a);
  }
  Value fcst(Type t, double v) {
    auto e = cast<FloatType>(getElementTypeOrSelf(t));
    TypedAttr a = b.getFloatAttr(e, v);
    if (auto vt = dyn_cast<VectorType>(t))
      a = DenseElementsAttr::get(vt, a);
    return arith::ConstantOp::create(b, loc, t, a);
  }
  Value andi(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value ori(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value addi(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value subi(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value shl(Value x, Value y) { return arith::ShLIOp::create(b, loc, x, y); }
  Value shr(Value x, Value y) { return arith::ShRUIOp::create(b, loc, x, y); }
  Value minsi(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value select(Value c, Value x, Value y) { return arith::SelectOp::create(b, loc, c, x, y); }
  Value bitcast(Type t, Value v) { return arith::BitcastOp::create(b, loc, t, v); }
};

/// An IEEE binary format: mantissa bits (without the implicit one) and
/// exponent bias.
struct Format {
  unsigned width, mantissa, exponent;
  int64_t bias() const { return (int64_t(1) << (exponent - 1)) - 1; }
  int64_t maxExponent() const { return (int64_t(1) << exponent) - 1; }
};

Format formatOf(Type t) {
  Type e = getElementTypeOrSelf(t);
  if (e.isF16())
    return {16, 10, 5};
  if (e.isBF16())
    return {16, 7, 8};
  if (e.isF32())
    return {32, 23, 8};
  return {64, 52, 11};
}

/// x (f32 or f64) rounded to the nearest even f16 or bf16.
Value truncToHalf(OpBuilder &b, Location loc, Value x, Type resultType) {
  Arith a{b, loc};
  Format s = formatOf(x.getType()), d = formatOf(resultType);
  Type it = a.like(x.getType(), b.getIntegerType(s.width));
  auto c = [&](uint64_t v) { return a.cst(it, v); };
  using P = arith::CmpIPredicate;

  Value bits = a.bitcast(it, x);
  uint64_t signBit = uint64_t(1) << (s.width - 1);
  Value sign = a.andi(bits, c(signBit));
  Value abs = a.andi(bits, c(~signBit));
  uint64_t infBits = uint64_t(s.maxExponent()) << s.mantissa;
  Value isNaN = a.cmp(P::ugt, abs, c(infBits));
  Value mant = a.andi(abs, c((uint64_t(1) << s.mantissa) - 1));
  Value exp = a.shr(abs, c(s.mantissa));
  Value isSub = a.cmp(P::eq, exp, c(0));
  // The significand with its implicit one, and the exponent it scales by.
  Value sig = a.select(isSub, mant, a.ori(mant, c(uint64_t(1) << s.mantissa)));
  Value e = a.select(isSub, c(1), exp);
  // d: the destination's biased exponent (may be < 1: a subnormal result).
  Value dExp = a.addi(e, c(uint64_t(d.bias() - s.bias())));
  Value normal = a.cmp(P::sge, dExp, c(1));
  // Bits dropped: the mantissa difference, plus 1 - d below the normal range;
  // more than mantissa + 2 always rounds to zero (sig < 2^(mantissa + 1)).
  Value extra = a.select(normal, c(0), a.subi(c(1), dExp));
  Value shift = a.minsi(a.addi(c(s.mantissa - d.mantissa), extra), c(s.mantissa + 2));
  // Round to nearest, ties to even: add half an ulp minus one, plus the
  // lowest kept bit; a carry moves into the exponent (up to infinity).
  Value halfUlp = a.shl(c(1), a.subi(shift, c(1)));
  Value odd = a.andi(a.shr(sig, shift), c(1));
  Value rounded = a.shr(a.addi(a.addi(sig, a.subi(halfUlp, c(1))), odd), shift);
  Value base = a.select(normal, a.shl(a.subi(dExp, c(1)), c(d.mantissa)), c(0));
  Value r = a.addi(base, rounded);
  uint64_t dInf = uint64_t(d.maxExponent()) << d.mantissa;
  r = a.select(a.cmp(P::sge, dExp, c(d.maxExponent())), c(dInf), r);
  r = a.ori(r, a.shr(sign, c(s.width - 16)));
  // NaN: the GPU's canonical NaN (0x7fff), whatever the sign and payload.
  r = a.select(isNaN, c(0x7fff), r);
  Type i16 = a.like(x.getType(), b.getI16Type());
  Value r16 = arith::TruncIOp::create(b, loc, i16, r);
  return a.bitcast(resultType, r16);
}

/// x (f16 or bf16) widened exactly to f32, then to the result type.
Value extendHalf(OpBuilder &b, Location loc, Value x, Type resultType) {
  Arith a{b, loc};
  Type i16 = a.like(x.getType(), b.getI16Type());
  Type i32 = a.like(x.getType(), b.getI32Type());
  Type f32 = a.like(x.getType(), b.getF32Type());
  auto c = [&](uint64_t v) { return a.cst(i32, v); };
  using P = arith::CmpIPredicate;
  Value h = arith::ExtUIOp::create(b, loc, i32, a.bitcast(i16, x));
  Value r;
  if (getElementTypeOrSelf(x.getType()).isBF16()) {
    // bf16 is the upper half of an f32.
    r = a.shl(h, c(16));
  } else {
    Value sign = a.shl(a.andi(h, c(0x8000)), c(16));
    Value exp = a.andi(a.shr(h, c(10)), c(0x1f));
    Value mant = a.andi(h, c(0x3ff));
    Value normal = a.ori(a.shl(a.addi(exp, c(127 - 15)), c(23)), a.shl(mant, c(13)));
    Value special = a.ori(c(0x7f800000), a.shl(mant, c(13)));
    // Subnormal (and zero): mant * 2^-24, exact in f32.
    Value sub = arith::MulFOp::create(b, loc, arith::UIToFPOp::create(b, loc, f32, mant),
                                      a.fcst(f32, 0x1p-24));
    r = a.select(a.cmp(P::eq, exp, c(0x1f)), special, normal);
    r = a.select(a.cmp(P::eq, exp, c(0)), a.bitcast(i32, sub), r);
    r = a.ori(r, sign);
  }
  Value f = a.bitcast(f32, r);
  if (getElementTypeOrSelf(resultType).isF32())
    return f;
  return arith::ExtFOp::create(b, loc, resultType, f);
}

/// LLVM intrinsics on half types that compute the same bits in f32 and back:
/// exact ones (abs, sign, rounding to an integer, min/max) and sqrt (one
/// rounding of an f32 result, harmless with f32's precision).
bool widensExactly(Operation *op) {
  StringRef name = op->getName().getStringRef();
  static const char *const kWidened[] = {
      "llvm.intr.fabs",    "llvm.intr.copysign", "llvm.intr.floor",   "llvm.intr.ceil",
      "llvm.intr.trunc",   "llvm.intr.roundeven", "llvm.intr.round",  "llvm.intr.rint",
      "llvm.intr.nearbyint", "llvm.intr.minimum", "llvm.intr.maximum", "llvm.intr.minnum",
      "llvm.intr.maxnum",  "llvm.intr.sqrt"};
  for (const char *w : kWidened)
    if (name == w)
      return true;
  return false;
}

/// Ops that move or select half-precision bits without computing on them.
bool movesBitsOnly(Operation *op) {
  StringRef name = op->getName().getStringRef();
  static const char *const kAllowed[] = {
      "arith.constant", "arith.bitcast", "arith.select", "llvm.load", "llvm.store",
      "llvm.getelementptr", "llvm.mlir.undef", "llvm.mlir.poison", "llvm.mlir.zero",
      "llvm.insertelement", "llvm.extractelement", "llvm.shufflevector",
      "memref.load", "memref.store", "vector.broadcast", "vector.splat",
      "vector.extract", "vector.insert", "vector.extract_strided_slice",
      "vector.insert_strided_slice", "vector.shuffle", "vector.from_elements",
      "vector.bitcast", "scf.yield", "scf.if", "scf.for", "scf.while",
      "scf.condition", "func.return", "func.call", "gpu.return"};
  for (const char *a : kAllowed)
    if (name == a)
      return true;
  return false;
}

/// i16 (or a vector of i16) for a half type, else null.
Type bitsTypeOf(Type t) {
  if (!isHalf(t))
    return Type();
  Type i16 = IntegerType::get(t.getContext(), 16);
  if (auto v = dyn_cast<VectorType>(t))
    return v.clone(i16);
  return i16;
}

/// Gives every half-typed value the i16 type of its bits, in place. Only ops
/// that move bits remain on halves (checked before), and those take any type.
void retypeHalvesAsIntegers(ModuleOp module) {
  SmallVector<Operation *> bitcasts;
  module.walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (Type t = bitsTypeOf(arg.getType()))
            arg.setType(t);
    if (auto f = dyn_cast<FunctionOpInterface>(op)) {
      auto type = cast<FunctionType>(f.getFunctionType());
      auto convert = [](TypeRange in) {
        SmallVector<Type> out;
        for (Type t : in)
          out.push_back(bitsTypeOf(t) ? bitsTypeOf(t) : t);
        return out;
      };
      f.setType(FunctionType::get(op->getContext(), convert(type.getInputs()),
                                  convert(type.getResults())));
    }
    if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
      if (Type t = bitsTypeOf(cst.getType())) {
        TypedAttr bits;
        if (auto f = dyn_cast<FloatAttr>(cst.getValue()))
          bits = IntegerAttr::get(t, f.getValue().bitcastToAPInt());
        else
          bits = cast<DenseElementsAttr>(cst.getValue()).bitcast(cast<VectorType>(t).getElementType());
        cst.setValueAttr(bits);
      }
    }
    if (isa<arith::BitcastOp>(op))
      bitcasts.push_back(op);
    for (Value r : op->getResults())
      if (Type t = bitsTypeOf(r.getType()))
        r.setType(t);
  });
  // A bitcast between a half and its bits is now from i16 to i16.
  for (Operation *op : bitcasts)
    if (op->getOperand(0).getType() == op->getResult(0).getType()) {
      op->getResult(0).replaceAllUsesWith(op->getOperand(0));
      op->erase();
    }
}

struct ExpandHalfFloatsPass : PassWrapper<ExpandHalfFloatsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ExpandHalfFloatsPass)
  StringRef getArgument() const override { return "fuser-expand-half-floats"; }
  StringRef getDescription() const override {
    return "Expand f16/bf16 conversions into integer arithmetic and reject any "
           "other computation on half types, so that the CPU emulation computes "
           "the same bits on every host CPU";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect>();
  }
  void runOnOperation() override {
    auto half = [](Value v) { return isHalf(v.getType()); };
    SmallVector<Operation *> widened;
    getOperation().walk([&](Operation *op) {
      if (widensExactly(op) &&
          (llvm::any_of(op->getOperands(), half) || llvm::any_of(op->getResults(), half)))
        widened.push_back(op);
    });
    for (Operation *op : widened) {
      OpBuilder b(op);
      Location loc = op->getLoc();
      Arith a{b, loc};
      OperationState state(loc, op->getName());
      for (Value v : op->getOperands())
        state.addOperands(half(v) ? extendHalf(b, loc, v, a.like(v.getType(), b.getF32Type()))
                                  : v);
      for (Type t : op->getResultTypes())
        state.addTypes(isHalf(t) ? a.like(t, b.getF32Type()) : t);
      state.addAttributes(op->getAttrs());
      Operation *wide = b.create(state);
      for (auto [oldResult, newResult] : llvm::zip(op->getResults(), wide->getResults()))
        oldResult.replaceAllUsesWith(
            isHalf(oldResult.getType())
                ? truncToHalf(b, loc, newResult, oldResult.getType())
                : newResult);
      op->erase();
    }
    SmallVector<Operation *> conversions;
    getOperation().walk([&](Operation *op) {
      if (isa<arith::TruncFOp>(op) && isHalf(op->getResult(0).getType()) &&
          !isHalf(op->getOperand(0).getType()))
        conversions.push_back(op);
      else if (isa<arith::ExtFOp>(op) && isHalf(op->getOperand(0).getType()) &&
               !isHalf(op->getResult(0).getType()))
        conversions.push_back(op);
    });
    for (Operation *op : conversions) {
      OpBuilder b(op);
      Value in = op->getOperand(0);
      Type out = op->getResult(0).getType();
      Value r = isa<arith::TruncFOp>(op) ? truncToHalf(b, op->getLoc(), in, out)
                                          : extendHalf(b, op->getLoc(), in, out);
      op->getResult(0).replaceAllUsesWith(r);
      op->erase();
    }
    WalkResult result = getOperation().walk([&](Operation *op) {
      if (movesBitsOnly(op))
        return WalkResult::advance();
      if (llvm::any_of(op->getOperands(), half) || llvm::any_of(op->getResults(), half)) {
        op->emitError("the CPU emulation computes f16 and bf16 in f32; '")
            << op->getName() << "' on a half type would compute differently on "
            << "different host CPUs";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    retypeHalvesAsIntegers(getOperation());
  }
};

} // namespace

std::unique_ptr<Pass> mlir::fuser::createExpandHalfFloatsPass() {
  return std::make_unique<ExpandHalfFloatsPass>();
}
