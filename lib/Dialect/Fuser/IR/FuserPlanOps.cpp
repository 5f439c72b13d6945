//===- FuserPlanOps.cpp - verifiers of the launch plan ops ----------------===//

#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Dialect/Fuser/IR/FuserAttrNames.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::fuser;

LogicalResult LaunchOp::verifySymbolUses(SymbolTableCollection &symbols) {
  Operation *container =
      symbols.lookupNearestSymbolFrom(*this, getKernel().getRootReference());
  if (!container)
    return emitOpError("kernel module @")
           << getKernel().getRootReference().getValue() << " does not exist";
  // After lowering, kernels live as PTX in a gpu.binary: nothing to check.
  if (container->getName().getStringRef() == "gpu.binary")
    return success();
  Operation *kernel = symbols.lookupNearestSymbolFrom(*this, getKernel());
  auto fn = dyn_cast_or_null<FunctionOpInterface>(kernel);
  if (!fn)
    return emitOpError("kernel ") << getKernel() << " does not exist";
  ArrayRef<Type> params = fn.getArgumentTypes();
  if (params.size() != getKernelOperands().size())
    return emitOpError("passes ")
           << getKernelOperands().size() << " arguments to kernel "
           << getKernel() << ", which takes " << params.size();
  unsigned indexOperand = 0;
  for (auto [i, operand, param] :
       llvm::enumerate(getKernelOperands().getTypes(), params)) {
    bool ok = isa<MemRefType>(operand)
                  ? isa<LLVM::LLVMPointerType>(param)
                  : param.isInteger(getIndexBits()[indexOperand++]);
    if (!ok)
      return emitOpError("argument ")
             << i << " of type " << operand << " does not fit kernel parameter "
             << i << " of type " << param
             << " (memrefs pass pointers, indices pass integers of the width "
                "index_bits gives)";
  }
  return success();
}

LogicalResult LaunchOp::verify() {
  size_t numIndex = llvm::count_if(getKernelOperands().getTypes(),
                                   [](Type t) { return t.isIndex(); });
  if (getIndexBits().size() != numIndex)
    return emitOpError("index_bits has ")
           << getIndexBits().size() << " entries for " << numIndex
           << " index arguments";
  for (int32_t w : getIndexBits())
    if (w != 32 && w != 64)
      return emitOpError("index_bits entries must be 32 or 64, got ") << w;
  return success();
}

LogicalResult CheckOp::verify() {
  size_t holes = 0;
  for (size_t p = getMessage().find("{}"); p != StringRef::npos;
       p = getMessage().find("{}", p + 2))
    ++holes;
  if (getValues().size() > 2)
    return emitOpError("takes at most 2 values, got ") << getValues().size();
  if (holes != getValues().size())
    return emitOpError("message has ")
           << holes << " '{}' placeholders for " << getValues().size()
           << " values";
  return success();
}

namespace {
/// A launch whose condition is a constant either always happens (drop the
/// condition) or never does (drop the launch).
struct FoldConstantLaunchCondition : OpRewritePattern<LaunchOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LaunchOp op, PatternRewriter &rewriter) const override {
    Value cond = op.getCondition();
    APInt value;
    if (!cond || !matchPattern(cond, m_ConstantInt(&value)))
      return failure();
    if (value.isZero()) {
      rewriter.eraseOp(op);
      return success();
    }
    rewriter.modifyOpInPlace(op, [&] { op.getConditionMutable().clear(); });
    return success();
  }
};
} // namespace

void LaunchOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                           MLIRContext *context) {
  results.add<FoldConstantLaunchCondition>(context);
}

LogicalResult ResultDimOp::verify() {
  auto t = cast<MemRefType>(getResult().getType());
  int64_t d = getDimAttr().getInt();
  if (d < 0 || d >= t.getRank())
    return emitOpError("dim ") << d << " is out of range for rank " << t.getRank();
  if (!t.isDynamicDim(d))
    return emitOpError("dim ") << d << " of " << t << " is static";
  auto arg = dyn_cast<BlockArgument>(getResult());
  auto plan = getOperation()->getParentOfType<FunctionOpInterface>();
  auto numArgs = plan ? plan->getAttrOfType<IntegerAttr>(kNumArgsAttr) : IntegerAttr();
  if (!arg || !numArgs || arg.getOwner() != &plan.getFunctionBody().front() ||
      (int64_t)arg.getArgNumber() < numArgs.getInt())
    return emitOpError("must name a result buffer of the enclosing plan");
  return success();
}

LogicalResult BufferViewOp::verify() {
  auto from = cast<MemRefType>(getSource().getType());
  auto to = cast<MemRefType>(getResult().getType());
  if (from.getElementType() != to.getElementType())
    return emitOpError("views ") << from.getElementType() << " elements as "
                                 << to.getElementType() << "; element types must match";
  if (from.hasStaticShape() && to.hasStaticShape() &&
      from.getNumElements() != to.getNumElements())
    return emitOpError("views ") << from.getNumElements() << " elements as "
                                 << to.getNumElements();
  return success();
}

LogicalResult ZeroedOp::verify() {
  // (canonicalization makes an alloc static behind a memref.cast)
  Operation *def = getBuffer().getDefiningOp();
  while (def && def->getName().getStringRef() == "memref.cast")
    def = def->getOperand(0).getDefiningOp();
  if (!def || def->getName().getStringRef() != "memref.alloc")
    return emitOpError("marks a buffer of memref.alloc only (an intermediate of the plan)");
  return success();
}

LogicalResult IndexCheckOp::verify() {
  auto t = cast<MemRefType>(getWord().getType());
  if (!t.hasStaticShape() || t.getRank() != 1 || t.getDimSize(0) != kIndexErrorWordSize)
    return emitOpError("word must be a memref<") << kIndexErrorWordSize << "xi64>, got " << t;
  if (getSites().empty())
    return emitOpError("sites must name at least one indexing op");
  return success();
}

LogicalResult GemmOp::verify() {
  auto a = cast<MemRefType>(getA().getType()), b = cast<MemRefType>(getB().getType()),
       d = cast<MemRefType>(getD().getType());
  Type ab = a.getElementType();
  auto isGemmFloat = [](Type t) { return t.isF16() || t.isBF16() || t.isF32() || t.isF64(); };
  if (!isGemmFloat(ab))
    return emitOpError("operands must be f16, bf16, f32 or f64, got ") << ab;
  if (b.getElementType() != ab)
    return emitOpError("operand element types ") << ab << " and " << b.getElementType()
                                                 << " differ";
  // The pairs cuBLASLt runs: the operands' type, or f32 for halves.
  Type out = d.getElementType();
  if (out != ab && !(out.isF32() && (ab.isF16() || ab.isBF16())))
    return emitOpError("result element type ")
           << out << " cannot hold a product of " << ab
           << " (the operands' type, or f32 for f16 and bf16 operands)";
  if (getBias() && cast<MemRefType>(getBias().getType()).getElementType() != out)
    return emitOpError("bias element type ")
           << cast<MemRefType>(getBias().getType()).getElementType()
           << " differs from the result's " << out;
  if (getAllowTf32() && !ab.isF32())
    return emitOpError("allow_tf32 applies to f32 operands only, got ") << ab;
  if (auto act = getActivation(); act && *act != "relu" && *act != "gelu_tanh")
    return emitOpError("activation must be relu or gelu_tanh, got '") << *act << "'";
  if (auto grad = getBiasGrad()) {
    if (*grad != "a" && *grad != "b")
      return emitOpError("bias_grad must be \"a\" or \"b\" (the operand whose sum over k "
                         "it writes), got '")
             << *grad << "'";
    if (!getBias())
      return emitOpError("bias_grad writes a bias gradient, but there is no bias buffer");
    if (getActivation() || getAux())
      return emitOpError("bias_grad stands alone: no activation and no aux beside it");
    if (cast<MemRefType>(getBias().getType()).getRank() != 1)
      return emitOpError("bias_grad writes a vector; its buffer must have rank 1");
  }
  if (getAux()) {
    if (getActivation() != std::optional<StringRef>("gelu_tanh"))
      return emitOpError("aux (the activation's input) needs activation gelu_tanh");
    if (cast<MemRefType>(getAux().getType()).getElementType() != out)
      return emitOpError("aux element type ")
             << cast<MemRefType>(getAux().getType()).getElementType()
             << " differs from the result's " << out;
  }
  return success();
}
LogicalResult CommunicateOp::verify() {
  auto src = cast<MemRefType>(getSrc().getType()), dst = cast<MemRefType>(getDst().getType());
  if (src.getElementType() != dst.getElementType())
    return emitOpError("element types ") << src.getElementType() << " and "
                                         << dst.getElementType() << " differ";
  if (getSrc() == getDst())
    return emitOpError("reads and writes one buffer; src and dst must be distinct");
  return verifyCollective(*this, getKind(), getReduction(), src.getElementType(),
                          getGridAxes());
}

