//===- CheckFusions.cpp - the compiler's input is fusions, and only that --===//
//
// fuserc compile, fuserCompile and fuser-compile take fusions: func.func ops
// of fuser tensor ops ending in a return, over ranked tensors of fuser's
// element types. Anything else in the module (a hand-written launch plan, a
// gpu.module, a function of other dialects, a body that never returns) would
// otherwise flow through the pipeline into a bundle that runs wrong kernels
// or none, so it is an error here, with the location of what does not belong.
// So is a dropout's or bernoulli's p that ops fold to a constant out of
// [0, 1]: the verifier refuses a written one, and would refuse this one
// mid-pipeline once canonicalization folded it.
//
//===----------------------------------------------------------------------===//

#include "fuser/Transforms/Passes.h"

#include "fuser/Dialect/Fuser/IR/FuserAttrNames.h"
#include "fuser/Dialect/Fuser/IR/FuserDialect.h"
#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Dialect/Fuser/IR/Probability.h"

#include "fuser_runtime.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_CHECKFUSIONSPASS
#include "fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// The constant `v` folds to, through ops whose folders give one (an add of
/// two constants), or null. Each op is folded as a detached clone, so that
/// a folder that works in place changes nothing of the input. `memo` holds
/// each value's answer: a chain that reads each value twice (x + x, 30
/// deep) is folded once per op, not 2^30 times.
Attribute foldedConstant(Value v, DenseMap<Value, Attribute> &memo, unsigned depth = 0) {
  if (auto it = memo.find(v); it != memo.end())
    return it->second;
  Attribute a;
  if (matchPattern(v, m_Constant(&a)))
    return memo[v] = a;
  Operation *op = v.getDefiningOp();
  if (!op || op->getNumResults() != 1 || op->getNumRegions() || depth > 32)
    return memo[v] = Attribute();
  SmallVector<Attribute> operands;
  for (Value o : op->getOperands()) {
    Attribute c = foldedConstant(o, memo, depth + 1);
    if (!c)
      return memo[v] = Attribute();
    operands.push_back(c);
  }
  Operation *clone = op->clone();
  SmallVector<OpFoldResult> results;
  Attribute folded;
  if (succeeded(clone->fold(operands, results)) && results.size() == 1) {
    if (auto attr = dyn_cast<Attribute>(results[0]))
      folded = attr;
    else if (Value same = cast<Value>(results[0]); same != clone->getResult(0))
      folded = foldedConstant(same, memo, depth + 1); // an operand: of the input
  }
  clone->destroy();
  return memo[v] = folded;
}

/// A dropout's or bernoulli's p that folds to a constant out of [0, 1]: the
/// verifier's error for a written one (Probability.h), before
/// canonicalization makes the constant and the verifier fails mid-pipeline.
LogicalResult checkFoldedProbabilities(func::FuncOp f) {
  DenseMap<Value, Attribute> memo;
  WalkResult r = f.walk([&](Operation *op) {
    Value p;
    if (auto d = dyn_cast<DropoutOp>(op))
      p = d.getP();
    else if (auto b = dyn_cast<BernoulliOp>(op))
      p = b.getP();
    else
      return WalkResult::advance();
    while (auto b = p.getDefiningOp<BroadcastOp>()) // as the verifier does
      p = b.getInput();
    std::optional<double> v = probabilityOutOfRange(foldedConstant(p, memo));
    if (!v)
      return WalkResult::advance();
    op->emitOpError("p must be in [0, 1], got ")
        << probabilityText(*v) << " (the value its operands fold to)";
    return WalkResult::interrupt();
  });
  return failure(r.wasInterrupted());
}

bool isIdentifier(StringRef s) {
  if (s.empty() || !(std::isalpha((unsigned char)s[0]) || s[0] == '_'))
    return false;
  return llvm::all_of(s, [](char c) { return std::isalnum((unsigned char)c) || c == '_'; });
}

bool isElementType(Type t) {
  // Signless only: isInteger(8) also holds for ui8 and si8, which no op
  // accepts (an unsigned input passed this check and failed inside fuser).
  return t.isSignlessInteger(1) || t.isSignlessInteger(8) || t.isSignlessInteger(32) ||
         t.isSignlessInteger(64) ||
         t.isF16() || t.isBF16() || t.isF32() || t.isF64() || isFloat8(t);
}

/// A tensor type a fusion may take or return; else why not.
LogicalResult checkTensorType(Operation *at, Type t, const Twine &what) {
  auto rt = dyn_cast<RankedTensorType>(t);
  if (!rt)
    return at->emitError() << what << " must be a ranked tensor, got " << t;
  if (!isElementType(rt.getElementType()))
    return at->emitError() << what << " has element type " << rt.getElementType()
                           << "; fusions use i1, i8, i32, i64, f16, bf16, f32, f64, "
                              "f8E4M3FN, f8E5M2 and f8E8M0FNU"
                           << (rt.getElementType().isInteger() &&
                                       !rt.getElementType().isSignlessInteger()
                                   ? " (integers are signless: i8, not ui8 or si8)"
                                   : "");
  if (rt.getRank() > FUSER_MAX_RANK)
    return at->emitError() << what << " has rank " << rt.getRank() << "; at most "
                           << FUSER_MAX_RANK << " dims";
  return success();
}

/// One device's fusion of a sharded program (fuser-record-grid's output, or
/// written so): `fuser.grid` is 1 to 4 static sizes, `fuser.split` on a
/// tensor one mask of the grid's axes per dim, each axis on at most one dim.
LogicalResult checkGrid(func::FuncOp f) {
  Attribute gridAttr = f->getAttr(kGridAttr);
  auto grid = dyn_cast_or_null<DenseI64ArrayAttr>(gridAttr);
  if (gridAttr && (!grid || grid.empty() || grid.size() > 4 ||
                   llvm::any_of(grid.asArrayRef(), [](int64_t s) { return s < 1 || s > INT32_MAX; })))
    return f.emitError("'") << f.getName() << "' has " << kGridAttr << " = " << gridAttr
                            << "; a grid is array<i64: ...> of 1 to 4 sizes, each at least 1";
  FunctionType type = f.getFunctionType();
  for (unsigned i = 0, e = type.getNumInputs() + type.getNumResults(); i < e; ++i) {
    bool isArg = i < type.getNumInputs();
    unsigned k = isArg ? i : i - type.getNumInputs();
    Attribute a = isArg ? f.getArgAttr(k, kSplitAttr) : f.getResultAttr(k, kSplitAttr);
    if (!a)
      continue;
    std::string what = (isArg ? "argument " : "result ") + std::to_string(k);
    if (!grid)
      return f.emitError(what) << " has " << kSplitAttr << " but '" << f.getName()
                               << "' has no " << kGridAttr;
    auto split = dyn_cast<DenseI64ArrayAttr>(a);
    // Checked before the signature's types are: a split of a value that
    // is not a tensor read a rank from another type.
    Type t = isArg ? type.getInput(k) : type.getResult(k);
    if (failed(checkTensorType(f, t, "fusion " + what)))
      return failure();
    int64_t rank = cast<RankedTensorType>(t).getRank();
    if (!split || (int64_t)split.size() != rank)
      return f.emitError(what) << " has " << kSplitAttr << " = " << a << "; it needs " << rank
                               << " masks of grid axes, one per dim";
    int64_t seen = 0;
    for (int64_t m : split.asArrayRef()) {
      if (m < 0 || m >= (int64_t(1) << grid.size()) || (m & seen))
        return f.emitError(what) << " has " << kSplitAttr << " = " << a
                                 << ": a mask names an axis the grid lacks, or an axis splits "
                                    "two dims";
      seen |= m;
    }
  }
  // Each collective's group: axes the grid has, and as many devices as
  // they hold (the runtime sizes the parts by the grid, the op by
  // group_size: a mismatch would leave parts unwritten).
  WalkResult walk = f.walk([&](CollectiveOp c) {
    if (!grid) {
      c.emitOpError("communicates among devices, but '")
          << f.getName() << "' has no " << kGridAttr << " (the grid it runs on)";
      return WalkResult::interrupt();
    }
    int64_t devices = 1;
    for (int64_t a : c.getGridAxes()) {
      if (a >= (int64_t)grid.size()) {
        c.emitOpError("groups by grid axis ") << a << ", but the grid " << gridAttr << " has "
                                              << grid.size() << " axes";
        return WalkResult::interrupt();
      }
      devices *= grid[a];
    }
    if (devices != (int64_t)c.getGroupSize()) {
      c.emitOpError("has group_size ")
          << c.getGroupSize() << ", but grid axes [" << c.getGridAxes() << "] of "
          << gridAttr << " group " << devices << " devices";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

LogicalResult checkFusion(func::FuncOp f) {
  if (f.isExternal())
    return f.emitError("'") << f.getName()
                            << "' has no body: a fusion is a func.func with one";
  for (NamedAttribute a : f->getDiscardableAttrs())
    // A user writes the grid (sharding) and the fusion's schedule
    // (docs/schedulers.md); every other fuser.* attribute is a pass's.
    if (a.getName().getValue().starts_with("fuser.") && a.getName() != kGridAttr &&
        a.getName() != kScheduleAttr)
      return f.emitError("'")
             << f.getName() << "' carries '" << a.getName().getValue()
             << "', which fuser's own passes set: the input must be fusions, not their output";
  if (!llvm::hasSingleElement(f.getBody()))
    return f.emitError("'") << f.getName()
                            << "' has more than one block: a fusion is straight-line";
  if (failed(checkGrid(f)))
    return failure();
  Block &body = f.getBody().front();
  if (!isa<func::ReturnOp>(body.getTerminator()))
    return body.getTerminator()->emitError("a fusion ends with func.return");
  FunctionType type = f.getFunctionType();
  llvm::StringMap<std::string> names; // name -> "argument 0"
  for (unsigned i = 0; i < type.getNumInputs(); ++i) {
    if (failed(checkTensorType(f, type.getInput(i), "fusion argument " + Twine(i))))
      return failure();
    if (Attribute n = f.getArgAttr(i, kNameAttr); n && !isa<StringAttr>(n))
      return f.emitError("argument ") << i << " has " << kNameAttr << " = " << n
                                      << "; a name is a string";
    if (auto n = f.getArgAttrOfType<StringAttr>(i, kNameAttr)) {
      if (!isIdentifier(n.getValue()))
        return f.emitError("argument ") << i << " is named '" << n.getValue()
                                        << "', which is not an identifier "
                                           "([A-Za-z_][A-Za-z0-9_]*)";
      auto [it, fresh] = names.try_emplace(n.getValue(), "argument " + std::to_string(i));
      if (!fresh)
        return f.emitError() << it->second << " and argument " << i << " are both named '"
                             << n.getValue() << "'";
    }
  }
  for (unsigned i = 0; i < type.getNumResults(); ++i) {
    if (failed(checkTensorType(f, type.getResult(i), "fusion result " + Twine(i))))
      return failure();
    if (Attribute n = f.getResultAttr(i, kNameAttr); n && !isa<StringAttr>(n))
      return f.emitError("result ") << i << " has " << kNameAttr << " = " << n
                                    << "; a name is a string";
    if (auto n = f.getResultAttrOfType<StringAttr>(i, kNameAttr)) {
      if (!isIdentifier(n.getValue()))
        return f.emitError("result ") << i << " is named '" << n.getValue()
                                      << "', which is not an identifier "
                                         "([A-Za-z_][A-Za-z0-9_]*)";
      auto [it, fresh] = names.try_emplace(n.getValue(), "result " + std::to_string(i));
      if (!fresh)
        return f.emitError() << it->second << " and result " << i << " are both named '"
                             << n.getValue() << "'";
    }
    if (Attribute like = f.getResultAttr(i, kSameShapeAsAttr)) {
      auto a = dyn_cast<IntegerAttr>(like);
      auto rt = cast<RankedTensorType>(type.getResult(i));
      // getInt() of a wider integer would truncate it (2^90 read as 0).
      if (!a || a.getValue().getSignificantBits() > 64 || a.getInt() < 0 ||
          a.getInt() >= (int64_t)type.getNumInputs())
        return f.emitError("result ") << i << " has " << kSameShapeAsAttr << " = " << like
                                      << ", which is not an argument's position";
      auto at = cast<RankedTensorType>(type.getInput(a.getInt()));
      bool same = at.getRank() == rt.getRank();
      for (int64_t d = 0; same && d < rt.getRank(); ++d)
        same = at.isDynamicDim(d) || rt.isDynamicDim(d) || at.getDimSize(d) == rt.getDimSize(d);
      if (!same)
        return f.emitError("result ") << i << " of type " << rt << " cannot have the shape of argument "
                                      << a.getInt() << " (" << at << ")";
    }
  }
  for (Operation &op : body.without_terminator()) {
    if (op.getName().getDialectNamespace() == "shard")
      return op.emitError("'") << op.getName()
                               << "' is a sharding op: run fuser-opt --fuser-shard first "
                                  "(fuserc and the C API do), which makes the fusion one "
                                  "device's (docs/sharding.md)";
    if (!isa<FuserDialect>(op.getDialect()) || isa<LaunchOp, CheckOp, ResultDimOp, IsAlignedOp, ZeroedOp>(op))
      return op.emitError("'") << op.getName()
                               << "' is not a fuser tensor op: a fusion holds fuser ops "
                                  "and a return";
    if (op.getNumRegions())
      return op.emitError("ops with regions are not fusion ops");
    // Stated sizes (docs/dialect.md): an affine map, on the ops the shape
    // analysis reads them from; elsewhere they would be ignored in silence.
    if (Attribute sizes = op.getAttr(kSizesAttr)) {
      if (!isa<ReshapeOp, BroadcastOp>(op))
        return op.emitOpError("has '")
               << kSizesAttr << "', which only a reshape or a broadcast takes";
      if (!isa<AffineMapAttr>(sizes))
        return op.emitOpError("'") << kSizesAttr << "' must be an affine map over the "
                                   << "fusion's dynamic argument dims, got " << sizes;
    }
  }
  return success();
}

struct CheckFusionsPass : public fuser::impl::CheckFusionsPassBase<CheckFusionsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (Operation &op : *module.getBody()) {
      auto f = dyn_cast<func::FuncOp>(op);
      if (op.getName().getDialectNamespace() == "shard") {
        op.emitError("'") << op.getName()
                          << "' belongs to a sharded fusion: run fuser-opt --fuser-shard "
                             "first (fuserc and the C API do), which makes it one device's "
                             "program (docs/sharding.md)";
        return signalPassFailure();
      }
      if (!f) {
        op.emitError("'") << op.getName()
                          << "' is not a fusion: the input holds func.func fusions only";
        return signalPassFailure();
      }
      if (failed(checkFusion(f)) || failed(checkFoldedProbabilities(f)))
        return signalPassFailure();
      // Each fusion's kernels become the gpu.module `<name>_kernels`, a
      // symbol beside the fusions (the bundle finds them by that name).
      std::string kernels = (f.getSymName() + "_kernels").str();
      if (auto other = module.lookupSymbol<func::FuncOp>(kernels)) {
        other.emitError("fusion '")
            << kernels << "' has the name fuser gives the kernels of fusion '" << f.getSymName()
            << "': rename one of them";
        return signalPassFailure();
      }
    }
  }
};

} // namespace
