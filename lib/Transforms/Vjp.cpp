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
//===----------------------------------------------------------------------===//

#include "VjpRules.h"

#include "fuser/Dialect/Fuser/IR/FuserAttrNames.h"
#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Transforms/Autodiff.h"
#include "fuser/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
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
/// `types`, checked: in range, unique, differentiable.
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
  if (options.residuals)
    return f.emitError("fuser-vjp: the residuals form (@f_fwd, @f_bwd) is not built yet; "
                       "use @f_vjp, which recomputes the forward");
  std::string name = (f.getName() + "_vjp").str();
  auto module = f->getParentOfType<ModuleOp>();
  if (module && SymbolTable::lookupSymbolIn(module, name))
    return f.emitError("fuser-vjp: '") << name << "' exists already";

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
  for (auto [k, r] : llvm::enumerate(*seeds))
    vjp.setArgAttr(ft.getNumInputs() + k, kNameAttr,
                   b.getStringAttr(freshName("grad_" + nameOf(f, r, true), taken)));
  for (auto [k, i] : llvm::enumerate(*wrt)) {
    vjp.setResultAttr(k, kNameAttr, b.getStringAttr(freshName("grad_" + nameOf(f, i, false), taken)));
    vjp.setResultAttr(k, kSameShapeAsAttr, b.getI64IntegerAttr(i));
  }

  // The forward, recomputed.
  OpBuilder ib = OpBuilder::atBlockEnd(body);
  IRMapping map;
  for (unsigned i = 0; i < ft.getNumInputs(); ++i)
    map.map(f.getArgument(i), body->getArgument(i));
  SmallVector<Operation *> forward;
  Block &fBody = f.getBody().front();
  for (Operation &op : fBody.without_terminator())
    forward.push_back(ib.clone(op, map));

  // The backward: gradients flow from the cotangents to the inputs.
  DenseMap<Value, Value> grads;
  auto accumulate = [&](Value v, Value g) {
    if (!g)
      return;
    g = fitToType(ib, g.getLoc(), g, v.getType());
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
    }
  }
};

} // namespace
