//===- Vjp.cpp - fuser-vjp: the backward fusion of a fusion ---------------===//
//
// @f(inputs) -> (results) gets @f_vjp(inputs..., cotangents...) ->
// (gradients...): the body recomputes f's forward from the inputs (fusions
// are memory bound: recomputing is cheaper than storing), then walks it
// backwards, each op's rule (VjpRules.cpp) turning its results' gradients
// into its operands'. Gradients reaching one value from several uses add
// up; a value no gradient reaches has none (no zero tensor is built, except
// for an input whose whole gradient is zero). canonicalize and cse then
// drop the forward ops the backward does not read and merge what the
// forward and the rules compute twice.
//
// Each gradient result carries `fuser.same_shape_as = i`: it has input i's
// shape, which ties dims that only a broadcast makes (the gradient of a sum)
// to the input's at run time.
//
// With `residuals`, splitResiduals then cuts the simplified @f_vjp in two:
// @f_fwd (f and the values the backward reads) and @f_bwd (the ops that
// depend on a cotangent).
//
//===----------------------------------------------------------------------===//

#include "VjpRules.h"

#include "fuser/Analysis/GroupAnalysis.h"
#include "fuser/Analysis/ShapeAnalysis.h"
#include "fuser/Dialect/Fuser/IR/FuserAttrNames.h"
#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Transforms/Autodiff.h"
#include "fuser/Transforms/Passes.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_VJPPASS
#include "fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

bool mlir::fuser::isDifferentiableType(Type t) {
  return t.isF16() || t.isBF16() || t.isF32() || t.isF64();
}

namespace {

Type elementOf(Type t) { return cast<RankedTensorType>(t).getElementType(); }

std::string nameOf(func::FuncOp f, unsigned i, bool result) {
  auto n = result ? f.getResultAttrOfType<StringAttr>(i, kNameAttr)
                  : f.getArgAttrOfType<StringAttr>(i, kNameAttr);
  if (n)
    return n.str();
  return (result ? "result" : "arg") + std::to_string(i);
}

/// The positions `chosen` (or, when empty, every differentiable one) of
/// `types`, checked: in range, unique, differentiable; in position order
/// whatever order `chosen` lists them in (the derived fusion's cotangents
/// and gradients come in input and result order, as documented: `wrt=1,0`
/// gave the gradients in the listed order, which a caller reading them by
/// position would swap).
FailureOr<SmallVector<int64_t>> positions(func::FuncOp f, TypeRange types, ArrayRef<int64_t> chosen,
                                          bool results) {
  StringRef what = results ? "result" : "input";
  SmallVector<int64_t> out;
  if (chosen.empty()) {
    for (auto [i, t] : llvm::enumerate(types))
      if (isDifferentiableType(elementOf(t)))
        out.push_back(i);
    return out;
  }
  for (int64_t i : chosen) {
    if (i < 0 || i >= (int64_t)types.size())
      return f.emitError("fuser-vjp: '")
             << f.getName() << "' has no " << what << " " << i << " (it has "
             << types.size() << ")";
    if (llvm::is_contained(out, i))
      return f.emitError("fuser-vjp: ") << what << " " << i << " is selected twice";
    if (!isDifferentiableType(elementOf(types[i])))
      return f.emitError("fuser-vjp: ")
             << what << " " << i << " ('" << nameOf(f, i, results) << "') is "
             << elementOf(types[i]) << "; only f16, bf16, f32 and f64 values have gradients";
    out.push_back(i);
  }
  llvm::sort(out);
  return out;
}

/// `base`, or `base` with a number appended, not yet in `taken`.
std::string freshName(const std::string &base, llvm::StringSet<> &taken) {
  std::string n = base;
  for (int k = 1; taken.contains(n); ++k)
    n = base + "_" + std::to_string(k);
  taken.insert(n);
  return n;
}

} // namespace

/// The shape analysis's symbol of each argument dim of `f` (the i-th
/// dynamic dim among its arguments' dims), -1 where the dim is static.
static SmallVector<SmallVector<int64_t>> argDimSymbols(func::FuncOp f) {
  SmallVector<SmallVector<int64_t>> table;
  int64_t next = 0;
  for (Type t : f.getArgumentTypes()) {
    SmallVector<int64_t> &row = table.emplace_back();
    if (auto rt = dyn_cast<RankedTensorType>(t))
      for (int64_t d = 0; d < rt.getRank(); ++d)
        row.push_back(rt.isDynamicDim(d) ? next++ : -1);
  }
  return table;
}

namespace {
/// How fuser.sizes maps over one fusion's argument dims become maps over
/// another's, whose argument argOf[i] is the first's argument i (-1: none).
struct SymbolRenumbering {
  SymbolRenumbering(func::FuncOp from, func::FuncOp to, ArrayRef<int64_t> argOf) {
    SmallVector<SmallVector<int64_t>> src = argDimSymbols(from), dst = argDimSymbols(to);
    for (const SmallVector<int64_t> &row : dst)
      numTo += llvm::count_if(row, [](int64_t s) { return s >= 0; });
    for (auto [i, row] : llvm::enumerate(src))
      for (auto [d, sym] : llvm::enumerate(row)) {
        if (sym < 0)
          continue;
        int64_t a = i < argOf.size() ? argOf[i] : -1;
        symbolTo.push_back(a >= 0 && d < dst[a].size() ? dst[a][d] : -1);
      }
  }
  /// Rewrites `op`'s fuser.sizes (a user's statement of sizes); one over a
  /// dim the other fusion has no argument for is dropped, and the shape
  /// analysis's rules size the op there.
  void apply(Operation *op) const {
    auto sizes = op->getAttrOfType<AffineMapAttr>(kSizesAttr);
    if (!sizes)
      return;
    AffineMap m = sizes.getValue();
    bool ok = m.getNumSymbols() == symbolTo.size() && m.getNumDims() == 0;
    SmallVector<AffineExpr> repl;
    for (unsigned k = 0; ok && k < m.getNumSymbols(); ++k) {
      ok = symbolTo[k] >= 0 || !m.isFunctionOfSymbol(k);
      repl.push_back(getAffineSymbolExpr(std::max<int64_t>(symbolTo[k], 0), op->getContext()));
    }
    if (!ok) {
      op->removeAttr(kSizesAttr);
      return;
    }
    op->setAttr(kSizesAttr,
                AffineMapAttr::get(m.replaceDimsAndSymbols({}, repl, 0, numTo)));
  }
  SmallVector<int64_t> symbolTo;
  unsigned numTo = 0;
};
} // namespace

LogicalResult mlir::fuser::differentiate(func::FuncOp f, const VjpOptions &options) {
  if (f.isExternal() || !llvm::hasSingleElement(f.getBody()))
    return f.emitError("fuser-vjp: '") << f.getName() << "' is not a fusion with one block";
  FunctionType ft = f.getFunctionType();
  FailureOr<SmallVector<int64_t>> wrt = positions(f, ft.getInputs(), options.wrt, false);
  if (failed(wrt))
    return failure();
  FailureOr<SmallVector<int64_t>> seeds = positions(f, ft.getResults(), options.results, true);
  if (failed(seeds))
    return failure();
  std::string name = (f.getName() + "_vjp").str();
  auto module = f->getParentOfType<ModuleOp>();
  SmallVector<std::string> made{name};
  if (options.residuals)
    made = {(f.getName() + "_fwd").str(), (f.getName() + "_bwd").str()};
  for (const std::string &n : made)
    if (module && SymbolTable::lookupSymbolIn(module, n))
      return f.emitError("fuser-vjp: '") << n << "' exists already";

  SmallVector<Type> argTypes(ft.getInputs()), resultTypes;
  for (int64_t r : *seeds)
    argTypes.push_back(ft.getResult(r));
  for (int64_t i : *wrt)
    resultTypes.push_back(ft.getInput(i));
  OpBuilder b(f->getContext());
  b.setInsertionPointAfter(f);
  Location loc = f.getLoc();
  auto vjp = func::FuncOp::create(b, loc, name, b.getFunctionType(argTypes, resultTypes));
  Block *body = vjp.addEntryBlock();

  // Names: the inputs keep theirs (and their strides); cotangents and
  // gradients are grad_<name>, made unique.
  llvm::StringSet<> taken;
  for (unsigned i = 0; i < ft.getNumInputs(); ++i) {
    vjp.setArgAttrs(i, f.getArgAttrDict(i));
    taken.insert(nameOf(f, i, false));
  }
  for (auto [k, r] : llvm::enumerate(*seeds)) {
    vjp.setArgAttr(ft.getNumInputs() + k, kCotangentAttr, b.getUnitAttr());
    vjp.setArgAttr(ft.getNumInputs() + k, kNameAttr,
                   b.getStringAttr(freshName("grad_" + nameOf(f, r, true), taken)));
  }
  for (auto [k, i] : llvm::enumerate(*wrt)) {
    vjp.setResultAttr(k, kNameAttr, b.getStringAttr(freshName("grad_" + nameOf(f, i, false), taken)));
    vjp.setResultAttr(k, kSameShapeAsAttr, b.getI64IntegerAttr(i));
  }

  // The forward, recomputed, from a copy in which no op works along a dim
  // of a scalar (each is the op of a [1] tensor between two reshapes,
  // whose rules exist); `f` stays as written.
  OwningOpRef<func::FuncOp> liftedF = cast<func::FuncOp>(f->clone());
  liftRankZero(*liftedF);
  OpBuilder ib = OpBuilder::atBlockEnd(body);
  IRMapping map;
  for (unsigned i = 0; i < ft.getNumInputs(); ++i)
    map.map(liftedF->getArgument(i), body->getArgument(i));
  SmallVector<Operation *> forward;
  Block &fBody = liftedF->getBody().front();
  // fuser.sizes maps over f's argument dims, over vjp's (f's come first).
  SmallVector<int64_t> same;
  for (unsigned i = 0; i < ft.getNumInputs(); ++i)
    same.push_back(i);
  SymbolRenumbering toVjp(f, vjp, same);
  for (Operation &op : fBody.without_terminator()) {
    forward.push_back(ib.clone(op, map));
    forward.back()->walk([&](Operation *o) { toVjp.apply(o); });
  }

  // The backward: gradients flow from the cotangents to the inputs.
  DenseMap<Value, Value> grads;
  auto accumulate = [&](Value v, Value g) {
    if (!g) // the rules give each operand's gradient the operand's type
      return;
    auto [it, fresh] = grads.try_emplace(v, g);
    if (!fresh)
      it->second = AddOp::create(ib, g.getLoc(), it->second, g);
  };
  Operation *ret = fBody.getTerminator();
  for (auto [k, r] : llvm::enumerate(*seeds))
    accumulate(map.lookup(ret->getOperand(r)), body->getArgument(ft.getNumInputs() + k));
  for (Operation *op : llvm::reverse(forward)) {
    SmallVector<Value> resultGrads;
    bool any = false;
    for (Value res : op->getResults()) {
      resultGrads.push_back(grads.lookup(res));
      any |= (bool)resultGrads.back();
    }
    if (!any)
      continue;
    SmallVector<Value> operandGrads;
    if (failed(buildOperandGradients(ib, op, resultGrads, operandGrads))) {
      vjp.erase();
      return failure();
    }
    for (auto [operand, g] : llvm::zip(op->getOperands(), operandGrads))
      accumulate(operand, g);
  }
  SmallVector<Value> results;
  for (int64_t i : *wrt) {
    Value g = grads.lookup(body->getArgument(i));
    if (!g) // no path from a cotangent: the gradient is zero
      g = ConstantOp::create(ib, loc, ft.getInput(i), ib.getFloatAttr(elementOf(ft.getInput(i)), 0.0));
    results.push_back(g);
  }
  func::ReturnOp::create(ib, loc, results);
  return success();
}

/// The ops of `vjp` (simplified) that depend on a cotangent: the backward.
/// Everything else is the forward's, computed by @f_fwd; the values of it
/// the backward reads are the residuals @f_fwd returns and @f_bwd takes
/// (elementwise and data-movement ops are recomputed by @f_bwd instead).
LogicalResult mlir::fuser::splitResiduals(func::FuncOp f, func::FuncOp vjp) {
  Block &body = vjp.getBody().front();
  unsigned numInputs = f.getNumArguments();
  llvm::DenseSet<Value> backward;
  for (BlockArgument a : body.getArguments().drop_front(numInputs))
    backward.insert(a);
  llvm::SetVector<Operation *> bwdOps;
  for (Operation &op : body.without_terminator())
    if (llvm::any_of(op.getOperands(), [&](Value v) { return backward.contains(v); })) {
      bwdOps.insert(&op);
      for (Value r : op.getResults())
        backward.insert(r);
    }
  // Residuals, in first-use order. As AOTAutograd's partitioner does, the
  // values of elementwise and data-movement ops are recomputed by @f_bwd
  // from their operands (a fusion is memory bound: recomputing costs no
  // bytes, saving costs a write and a read); reductions, scans, scatters,
  // matmuls and the composites' results are saved, and so are the inputs
  // they read.
  llvm::SetVector<Value> residuals;
  llvm::SmallPtrSet<Operation *, 16> copied;
  auto recomputed = [](Operation *d) {
    return !(isReductionOp(d) || isScanOp(d) || isScatterOp(d) || isLibraryOp(d) ||
             isa<SoftmaxOp, LogSoftmaxOp, LayerNormOp, RmsNormOp, DropoutOp, ScaledCastOp,
                 QuantizeOp>(d));
  };
  std::function<void(Value)> note = [&](Value v) {
    if (backward.contains(v))
      return;
    Operation *d = v.getDefiningOp();
    if (d && recomputed(d)) {
      if (copied.insert(d).second)
        for (Value in : d->getOperands())
          note(in);
      return;
    }
    residuals.insert(v);
  };
  for (Operation *op : bwdOps)
    for (Value v : op->getOperands())
      note(v);
  for (Value v : body.getTerminator()->getOperands())
    note(v);
  // Which arguments of @f_vjp have the same run-time shape: the shape
  // analysis of a copy with the composites expanded (it takes no
  // composites); without an answer, none is assumed equal.
  SmallVector<SmallVector<AffineExpr>> argShapes;
  {
    OwningOpRef<ModuleOp> scratch = ModuleOp::create(vjp.getLoc());
    auto copy = cast<func::FuncOp>(vjp->clone());
    scratch->push_back(copy);
    RewritePatternSet patterns(vjp.getContext());
    populateDecomposeCompositesPatterns(patterns);
    ScopedDiagnosticHandler quiet(vjp.getContext(), [](Diagnostic &) { return success(); });
    if (succeeded(applyPatternsGreedily(copy, std::move(patterns))))
      if (FailureOr<ShapeAnalysis> shapes = ShapeAnalysis::analyze(copy); succeeded(shapes))
        for (BlockArgument a : copy.getArguments())
          argShapes.push_back(SmallVector<AffineExpr>(shapes->shape(a)));
  }
  auto sameShape = [&](Value a, Value b) {
    auto x = dyn_cast<BlockArgument>(a), y = dyn_cast<BlockArgument>(b);
    return x && y && !argShapes.empty() && a.getType() == b.getType() &&
           argShapes[x.getArgNumber()] == argShapes[y.getArgNumber()];
  };

  OpBuilder b(f->getContext());
  b.setInsertionPointAfter(vjp);
  Location loc = f.getLoc();
  FunctionType ft = f.getFunctionType();
  llvm::StringSet<> taken;
  for (unsigned i = 0; i < numInputs; ++i)
    taken.insert(nameOf(f, i, false));
  for (unsigned i = 0; i < ft.getNumResults(); ++i)
    taken.insert(nameOf(f, i, true));
  // Inputs the backward reads come first: the caller passes the same
  // buffers again, under the inputs' names; @f_fwd returns only the values
  // it computes (residual0, ...).
  SmallVector<Value> ordered;
  for (Value v : residuals)
    if (isa<BlockArgument>(v))
      ordered.push_back(v);
  llvm::sort(ordered, [](Value a, Value b) {
    return cast<BlockArgument>(a).getArgNumber() < cast<BlockArgument>(b).getArgNumber();
  });
  unsigned numSavedInputs = ordered.size();
  for (Value v : residuals)
    if (!isa<BlockArgument>(v))
      ordered.push_back(v);
  residuals = llvm::SetVector<Value>(ordered.begin(), ordered.end());
  SmallVector<std::string> residualNames;
  for (auto [k, v] : llvm::enumerate(residuals)) {
    if (auto arg = dyn_cast<BlockArgument>(v))
      residualNames.push_back(nameOf(f, arg.getArgNumber(), false));
    else
      residualNames.push_back(freshName("residual" + std::to_string(k - numSavedInputs), taken));
  }

  // @f_fwd: f's results, then the residuals.
  SmallVector<Type> fwdResults(ft.getResults());
  for (Value v : residuals.getArrayRef().drop_front(numSavedInputs))
    fwdResults.push_back(v.getType());
  auto fwd = func::FuncOp::create(b, loc, (f.getName() + "_fwd").str(),
                                  b.getFunctionType(ft.getInputs(), fwdResults));
  Block *fwdBody = fwd.addEntryBlock();
  OpBuilder fb = OpBuilder::atBlockEnd(fwdBody);
  IRMapping fromF, fromVjp;
  for (unsigned i = 0; i < numInputs; ++i) {
    fwd.setArgAttrs(i, f.getArgAttrDict(i));
    fromF.map(f.getArgument(i), fwdBody->getArgument(i));
    fromVjp.map(body.getArgument(i), fwdBody->getArgument(i));
  }
  for (Operation &op : f.getBody().front().without_terminator())
    fb.clone(op, fromF);
  SmallVector<int64_t> inputsFirst;
  for (unsigned i = 0; i < numInputs; ++i)
    inputsFirst.push_back(i);
  SymbolRenumbering vjpToFwd(vjp, fwd, inputsFirst);
  for (Operation &op : body.without_terminator())
    if (!bwdOps.contains(&op))
      vjpToFwd.apply(fb.clone(op, fromVjp));
  SmallVector<Value> fwdValues;
  for (Value v : f.getBody().front().getTerminator()->getOperands())
    fwdValues.push_back(fromF.lookupOrDefault(v));
  for (Value v : residuals.getArrayRef().drop_front(numSavedInputs))
    fwdValues.push_back(fromVjp.lookupOrDefault(v));
  auto fwdRet = func::ReturnOp::create(fb, loc, fwdValues);
  for (unsigned i = 0; i < ft.getNumResults(); ++i)
    fwd.setResultAttrs(i, f.getResultAttrDict(i));
  for (auto [k, n] : llvm::enumerate(ArrayRef(residualNames).drop_front(numSavedInputs)))
    fwd.setResultAttr(ft.getNumResults() + k, kNameAttr, b.getStringAttr(n));
  // A residual that is one of f's results (softmax's y) is not returned
  // twice: @f_bwd takes the result, under its name.
  {
    IRRewriter rewriter(f->getContext());
    DominanceInfo dom;
    eliminateCommonSubExpressions(rewriter, dom, fwd);
    unsigned numResults = ft.getNumResults();
    llvm::BitVector drop(fwd.getNumResults());
    for (unsigned k = numResults; k < fwd.getNumResults(); ++k)
      for (unsigned r = 0; r < numResults; ++r)
        if (fwdRet->getOperand(k) == fwdRet->getOperand(r)) {
          drop.set(k);
          residualNames[numSavedInputs + k - numResults] = nameOf(f, r, true);
          break;
        }
    fwdRet->eraseOperands(drop);
    if (failed(fwd.eraseResults(drop)))
      return failure();
  }

  // @f_bwd: the residuals, then the cotangents; the gradients. A gradient's
  // shape is tied to an argument of the same run-time shape: its input
  // when that is a residual, else a residual or cotangent the shape
  // analysis of @f_vjp proves equal, else (a dynamic shape only the input
  // has) the input itself, passed for its shape and not read.
  SmallVector<Type> bwdArgs;
  for (Value v : residuals)
    bwdArgs.push_back(v.getType());
  unsigned numCotangents = body.getNumArguments() - numInputs;
  for (BlockArgument a : body.getArguments().drop_front(numInputs))
    bwdArgs.push_back(a.getType());
  Operation *ret = body.getTerminator();
  SmallVector<std::pair<unsigned, int64_t>> ties; // result -> bwd argument
  SmallVector<unsigned> shapeOnly;                // inputs passed for their shape
  for (auto [k, g] : llvm::enumerate(ret->getOperands())) {
    auto like = vjp.getResultAttrOfType<IntegerAttr>(k, kSameShapeAsAttr);
    if (!like)
      continue;
    Value input = body.getArgument(like.getInt());
    if (cast<RankedTensorType>(input.getType()).hasStaticShape())
      continue;
    int64_t at = -1;
    for (unsigned j = 0; j < residuals.size() + numCotangents && at < 0; ++j) {
      Value cand = j < residuals.size() ? residuals[j] : body.getArgument(numInputs + j - residuals.size());
      if (cand == input || sameShape(cand, input))
        at = j;
    }
    if (at < 0) {
      at = bwdArgs.size();
      bwdArgs.push_back(input.getType());
      shapeOnly.push_back(like.getInt());
    }
    ties.push_back({(unsigned)k, at});
  }
  auto bwd = func::FuncOp::create(b, loc, (f.getName() + "_bwd").str(),
                                  b.getFunctionType(bwdArgs, vjp.getResultTypes()));
  Block *bwdBody = bwd.addEntryBlock();
  OpBuilder bb = OpBuilder::atBlockEnd(bwdBody);
  IRMapping toBwd;
  for (auto [k, v] : llvm::enumerate(residuals)) {
    toBwd.map(v, bwdBody->getArgument(k));
    if (auto arg = dyn_cast<BlockArgument>(v)) // its declared strides too
      bwd.setArgAttrs(k, f.getArgAttrDict(arg.getArgNumber()));
    bwd.setArgAttr(k, kNameAttr, b.getStringAttr(residualNames[k]));
  }
  for (unsigned c = 0; c < numCotangents; ++c) {
    toBwd.map(body.getArgument(numInputs + c), bwdBody->getArgument(residuals.size() + c));
    bwd.setArgAttrs(residuals.size() + c, vjp.getArgAttrDict(numInputs + c));
  }
  for (auto [k, i] : llvm::enumerate(shapeOnly)) {
    unsigned at = residuals.size() + numCotangents + k;
    bwd.setArgAttr(at, kNameAttr,
                   b.getStringAttr(freshName("shape_of_" + nameOf(f, i, false), taken)));
  }
  // vjp's argument i as an argument of bwd: a saved input, a cotangent, or
  // an input passed for its shape.
  SmallVector<int64_t> bwdArgOf(body.getNumArguments(), -1);
  for (auto [k, v] : llvm::enumerate(residuals))
    if (auto arg = dyn_cast<BlockArgument>(v))
      bwdArgOf[arg.getArgNumber()] = k;
  for (unsigned c = 0; c < numCotangents; ++c)
    bwdArgOf[numInputs + c] = residuals.size() + c;
  for (auto [k, i] : llvm::enumerate(shapeOnly))
    if (bwdArgOf[i] < 0)
      bwdArgOf[i] = residuals.size() + numCotangents + k;
  SymbolRenumbering vjpToBwd(vjp, bwd, bwdArgOf);
  for (Operation &op : body.without_terminator())
    if (copied.contains(&op) || bwdOps.contains(&op))
      vjpToBwd.apply(bb.clone(op, toBwd));
  SmallVector<Value> grads;
  for (Value g : ret->getOperands())
    grads.push_back(toBwd.lookupOrDefault(g));
  func::ReturnOp::create(bb, loc, grads);
  for (unsigned k = 0; k < vjp.getNumResults(); ++k)
    bwd.setResultAttr(k, kNameAttr, vjp.getResultAttr(k, kNameAttr));
  for (auto [k, at] : ties)
    bwd.setResultAttr(k, kSameShapeAsAttr, b.getI64IntegerAttr(at));
  vjp.erase();
  return success();
}

namespace {

struct VjpPass : public fuser::impl::VjpPassBase<VjpPass> {
  using VjpPassBase::VjpPassBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> targets;
    for (auto f : module.getOps<func::FuncOp>())
      if (fusion.empty() || f.getName() == fusion)
        targets.push_back(f);
    if (!fusion.empty() && targets.empty()) {
      module.emitError("fuser-vjp: no fusion named '") << fusion << "'";
      return signalPassFailure();
    }
    VjpOptions options;
    options.wrt.assign(wrt.begin(), wrt.end());
    options.results.assign(results.begin(), results.end());
    options.residuals = residuals;
    OpPassManager simplify(func::FuncOp::getOperationName());
    simplify.addPass(createCanonicalizerPass());
    simplify.addPass(createCSEPass());
    for (func::FuncOp f : targets) {
      if (failed(differentiate(f, options)))
        return signalPassFailure();
      auto vjp = cast<func::FuncOp>(f->getNextNode());
      if (failed(runPipeline(simplify, vjp)))
        return signalPassFailure();
      if (!residuals)
        continue;
      if (failed(splitResiduals(f, vjp)))
        return signalPassFailure();
      auto fwd = cast<func::FuncOp>(f->getNextNode());
      auto bwd = cast<func::FuncOp>(fwd->getNextNode());
      if (failed(runPipeline(simplify, fwd)) || failed(runPipeline(simplify, bwd)))
        return signalPassFailure();
    }
  }
};

} // namespace
