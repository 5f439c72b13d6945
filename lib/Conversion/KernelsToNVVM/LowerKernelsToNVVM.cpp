//===- LowerKernelsToNVVM.cpp - fuser kernels to LLVM + NVVM --------------===//
//
// The same patterns as upstream's convert-gpu-to-nvvm, with a target that
// leaves LLVM intrinsics legal (see the pass description).
//
//===----------------------------------------------------------------------===//

#include "fuser/Conversion/Passes.h"
#include "fuser/Dialect/Fuser/IR/FuserAttrNames.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_LOWERKERNELSTONVVMPASS
#include "fuser/Conversion/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;

namespace {

/// arith.mului_extended on i32 as mul.lo.u32 and mul.hi.u32 (Philox's
/// rounds). Upstream's lowering multiplies in i64; once InstCombine turns
/// the next round's zext(trunc(x)) into a 64-bit mask, NVPTX can no longer
/// match mul.wide.u32 and emits 64-bit multiplies (several IMADs each) and
/// 64-bit xors for the whole round.
struct MulUIExtendedToNVVM : ConvertOpToLLVMPattern<arith::MulUIExtendedOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(arith::MulUIExtendedOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Type t = op.getLhs().getType();
    if (!getElementTypeOrSelf(t).isInteger(32))
      return failure();
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    Value lo = LLVM::MulOp::create(rewriter, loc, lhs, rhs);
    auto mulHi = [&](Value a, Value b) {
      return LLVM::CallIntrinsicOp::create(rewriter, loc, i32,
                                           rewriter.getStringAttr("llvm.nvvm.mulhi.ui"),
                                           ValueRange{a, b})
          .getResult(0);
    };
    Value hi;
    if (auto vt = dyn_cast<VectorType>(t)) {
      hi = LLVM::PoisonOp::create(rewriter, loc, vt);
      for (int64_t i = 0; i < vt.getNumElements(); ++i) {
        Value at = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI64Type(), i);
        Value l = LLVM::ExtractElementOp::create(rewriter, loc, lhs, at);
        Value r = LLVM::ExtractElementOp::create(rewriter, loc, rhs, at);
        Value h = mulHi(l, r);
        hi = LLVM::InsertElementOp::create(rewriter, loc, hi, h, at);
      }
    } else {
      hi = mulHi(lhs, rhs);
    }
    rewriter.replaceOp(op, ValueRange{lo, hi});
    return success();
  }
};

/// The workgroup attributions of a kernel marked kDynamicSharedAttr become
/// views of its dynamic shared memory at their offsets (in order, each
/// 16-byte aligned, as the launch's byte count assumes): static shared
/// memory is limited to 48 KiB a block.
void moveToDynamicSharedMemory(gpu::GPUFuncOp f) {
  if (!f->hasAttr(fuser::kDynamicSharedAttr) || f.getNumWorkgroupAttributions() == 0)
    return;
  MLIRContext *ctx = f.getContext();
  OpBuilder b(ctx);
  b.setInsertionPointToStart(&f.getBody().front());
  Location loc = f.getLoc();
  auto workgroup = gpu::AddressSpaceAttr::get(ctx, gpu::GPUDialect::getWorkgroupAddressSpace());
  auto bytesTy = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                                 MemRefLayoutAttrInterface(), workgroup);
  Value base = gpu::DynamicSharedMemoryOp::create(b, loc, bytesTy);
  int64_t offset = 0;
  for (BlockArgument a : f.getWorkgroupAttributions()) {
    auto t = cast<MemRefType>(a.getType());
    Value at = arith::ConstantIndexOp::create(b, loc, offset);
    a.replaceAllUsesWith(memref::ViewOp::create(b, loc, t, base, at, ValueRange{}).getResult());
    offset += fuser::alignSharedBytes(t.getNumElements() * ((t.getElementTypeBitWidth() + 7) / 8));
  }
  unsigned first = f.getFirstWorkgroupAttributionIndex();
  for (unsigned i = f.getNumWorkgroupAttributions(); i-- > 0;)
    f.getBody().front().eraseArgument(first + i);
  f->setAttr(gpu::GPUFuncOp::getNumWorkgroupAttributionsAttrName(), b.getI64IntegerAttr(0));
}

struct LowerKernelsToNVVMPass
    : fuser::impl::LowerKernelsToNVVMPassBase<LowerKernelsToNVVMPass> {
  void runOnOperation() override {
    gpu::GPUModuleOp m = getOperation();
    MLIRContext *ctx = &getContext();
    m.walk(moveToDynamicSharedMemory);
    // The CPU emulation's mark of accesses blocks hand to each other; the
    // GPU needs only the fences around them.
    m.walk([](Operation *op) {
      op->removeAttr(fuser::kCrossBlockAttr);
      op->removeAttr(fuser::kIndexErrorAttr);
    });
    {
      // gpu.all_reduce and friends expand in-dialect first.
      RewritePatternSet patterns(ctx);
      populateGpuRewritePatterns(patterns);
      // ceildiv and friends have no direct LLVM lowering.
      arith::populateArithExpandOpsPatterns(patterns);
      // Not converging is no error: the IR stays valid, and the full
      // conversion below names anything left. A chain of constants that
      // folds one level per round (a row of zeros selected lane by lane)
      // can need more rounds than the driver's limit.
      (void)applyPatternsGreedily(m, std::move(patterns));
    }
    LowerToLLVMOptions options(ctx);
    LLVMTypeConverter converter(ctx, options);
    configureGpuToNVVMTypeConverter(converter);
    RewritePatternSet patterns(ctx);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    // The math library's out-of-line rare paths (MathExpansion.h) are
    // private func.func next to the kernels.
    populateFuncToLLVMConversionPatterns(converter, patterns);
    populateFinalizeMemRefToLLVMConversionPatterns(converter, patterns);
    populateVectorToLLVMConversionPatterns(converter, patterns);
    ub::populateUBToLLVMConversionPatterns(converter, patterns);
    populateGpuToNVVMConversionPatterns(converter, patterns);
    patterns.add<MulUIExtendedToNVVM>(converter, /*benefit=*/2);
    LLVMConversionTarget target(*ctx);
    target.addLegalDialect<NVVM::NVVMDialect>();
    target.addIllegalDialect<gpu::GPUDialect>();
    target.addLegalOp<gpu::GPUModuleOp>();
    // Full conversion: an op left over fails here, with its name, rather
    // than later in the translation to LLVM IR.
    if (failed(applyFullConversion(m, target, std::move(patterns))))
      return signalPassFailure();
    // Upstream declares dynamic shared memory as an internal zero-length
    // global: NVPTX then gives it one byte of static shared memory, and
    // LLVM may treat the accesses past that byte as undefined and drop
    // them. External, it is `.extern .shared .b8 name[]`, CUDA's `extern
    // __shared__` array: the launch's dynamic bytes.
    for (auto g : m.getOps<LLVM::GlobalOp>())
      if (g.getAddrSpace() == (unsigned)NVVM::NVVMMemorySpace::Shared &&
          g.getSymName().starts_with("__dynamic_shmem__"))
        g.setLinkage(LLVM::Linkage::External);
  }
};
} // namespace
