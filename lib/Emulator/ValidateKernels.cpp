//===- ValidateKernels.cpp - a bundle's kernel module, checked before the JIT ===//
//
// The emulator JIT-compiles the MLIR a bundle carries and runs it on the
// host, and a bundle may come from anywhere. So before anything is lowered,
// the module must look like what fuser's compiler emits for kernels: gpu
// modules of gpu.func kernels whose parameters are pointers and integers,
// made of ops from a fixed list (arithmetic, structured control flow, loads
// and stores through a parameter, barriers and shuffles, the LLVM math
// intrinsics fuser uses), and beside them private helper functions that
// compute on values only (the math library's rare paths), which a kernel
// may call. Nothing else: no other calls, no function pointers or globals,
// no inline assembly, no integer-to-pointer casts. Together with the bounds
// checks LowerKernelsToHost puts on every access and the JIT's closed
// symbol table (HostJit), a kernel can compute, and read and write its own
// buffers, and nothing more (docs/bundle.md, the trust model).
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/IR/FuserAttrNames.h"
#include "fuser/Emulator/Emulator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/Pass.h"

#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace {

/// Every op a kernel may hold, by name. Whole dialects are listed where all
/// their ops only compute on values (arith, and vector's shape ops).
bool isAllowedInKernel(Operation *op) {
  static const llvm::StringSet<> allowed = {
      // gpu: the kernel's frame and its synchronization
      "gpu.return", "gpu.thread_id", "gpu.block_id", "gpu.block_dim", "gpu.grid_dim",
      "gpu.barrier", "gpu.shuffle",
      // structured control flow
      "scf.for", "scf.if", "scf.yield",
      // global memory through parameters; workgroup memory
      "llvm.getelementptr", "llvm.load", "llvm.store", "memref.load", "memref.store",
      // a split reduction's last block: fences and its counter (checked below)
      "llvm.fence", "llvm.atomicrmw",
      // values
      "llvm.mlir.constant", "llvm.mlir.undef", "llvm.mlir.poison", "llvm.mlir.zero",
      "llvm.bitcast", "llvm.extractelement", "llvm.insertelement", "llvm.shufflevector",
      "vector.broadcast", "vector.splat", "vector.extract", "vector.insert",
      "vector.extract_strided_slice", "vector.insert_strided_slice", "vector.shuffle",
      "vector.from_elements", "vector.bitcast", "vector.shape_cast", "vector.reduction",
      "vector.fma", "ub.poison",
      // the LLVM intrinsics fuser's math and reductions use
      "llvm.intr.fma", "llvm.intr.fmuladd", "llvm.intr.maximum", "llvm.intr.minimum",
      "llvm.intr.maxnum", "llvm.intr.minnum", "llvm.intr.sqrt", "llvm.intr.fabs",
      "llvm.intr.copysign", "llvm.intr.floor", "llvm.intr.ceil", "llvm.intr.trunc",
      "llvm.intr.round", "llvm.intr.roundeven", "llvm.intr.rint", "llvm.intr.nearbyint",
      "llvm.intr.abs", "llvm.intr.smax", "llvm.intr.smin", "llvm.intr.umax",
      "llvm.intr.umin", "llvm.intr.ctlz", "llvm.intr.cttz", "llvm.intr.ctpop",
      "llvm.intr.ldexp",
      // sm_89's paired fp8 conversion (its arithmetic replaces it before the JIT)
      "nvvm.convert.f32x2.to.f8x2"};
  if (allowed.contains(op->getName().getStringRef()))
    return true;
  return isa<arith::ArithDialect>(op->getDialect());
}

bool isParameterType(Type t) {
  return isa<LLVM::LLVMPointerType>(t) || t.isInteger(32) || t.isInteger(64);
}

/// Values a kernel may hold: integers, floats, index, vectors of them, and
/// pointers (to global memory, derived from a parameter; memref values of
/// workgroup attributions).
bool isValueType(Type t) {
  if (auto v = dyn_cast<VectorType>(t))
    t = v.getElementType();
  return isa<IntegerType, FloatType, IndexType, LLVM::LLVMPointerType>(t);
}

/// Whether `t` is a type a helper function takes and returns: f32, f64,
/// integers, and vectors of them (not the halves, whose arithmetic
/// ExpandHalfFloats rewrites only inside kernels' ops, nor pointers).
bool isHelperType(Type t) {
  if (auto v = dyn_cast<VectorType>(t))
    t = v.getElementType();
  return t.isF32() || t.isF64() || isa<IntegerType>(t);
}

/// The most times a loop in a helper may run (exact fmod's f64 steps: 43).
constexpr int64_t kMaxHelperLoopTrips = 64;

/// Whether `op`, an scf.for in a helper, runs a constant number of times,
/// at most kMaxHelperLoopTrips, and holds no other loop: a helper's work
/// stays bounded, as the emulator's work limit assumes.
bool isBoundedHelperLoop(Operation *op) {
  auto constant = [](Value v) -> std::optional<int64_t> {
    APInt c;
    if (matchPattern(v, m_ConstantInt(&c)))
      return c.getSExtValue();
    return std::nullopt;
  };
  std::optional<int64_t> lo = constant(op->getOperand(0)), hi = constant(op->getOperand(1)),
                         step = constant(op->getOperand(2));
  if (!lo || !hi || !step || *step <= 0)
    return false;
  int64_t trips = *hi > *lo ? (*hi - *lo + *step - 1) / *step : 0;
  bool nested = false;
  op->getRegion(0).walk([&](Operation *inner) { nested |= inner->getNumRegions() != 0; });
  return trips <= kMaxHelperLoopTrips && !nested;
}

/// A function beside the kernels: the math library's out-of-line rare
/// paths (MathExpansion.h) and exact fmod's steps (ElementwiseEmitter.cpp),
/// `func.func private @__fuser_...`. It computes on values only: one block
/// of the value ops kernels may hold, no memory, no calls (so no
/// recursion), no GPU ops, and no control flow but `scf.for` loops, as
/// kernels have.
LogicalResult validateHelper(func::FuncOp f) {
  if (!f.isPrivate() || !f.getSymName().starts_with("__fuser_") || f.isExternal())
    return f.emitError("a gpu.module of a bundle holds gpu.func kernels and fuser's helper "
                       "functions (private, with a body, named '__fuser_...') only; '")
           << f.getSymName() << "' is neither";
  for (Type t : llvm::concat<const Type>(f.getArgumentTypes(), f.getResultTypes()))
    if (!isHelperType(t))
      return f.emitError("helper function '")
             << f.getSymName() << "' takes or returns " << t
             << "; helpers compute on f32, f64, integers and vectors of them only";
  if (!llvm::hasSingleElement(f.getBody()))
    return f.emitError("helper function '") << f.getSymName() << "' has more than one block";
  WalkResult r = f.getBody().walk([&](Operation *op) {
    bool memory = isa<LLVM::LoadOp, LLVM::StoreOp, LLVM::GEPOp, LLVM::FenceOp,
                      LLVM::AtomicRMWOp, memref::LoadOp, memref::StoreOp>(op);
    bool loop = op->getName().getStringRef() == "scf.for";
    if (loop && !isBoundedHelperLoop(op)) {
      op->emitError("a loop in a helper function runs a constant number of times, at most ")
          << kMaxHelperLoopTrips << ", and holds no loop (a helper's work must stay "
                                    "bounded for the CPU emulation's work limit)";
      return WalkResult::interrupt();
    }
    bool control = (op->getNumRegions() != 0 && !loop) || isa<gpu::GPUDialect>(op->getDialect());
    if ((!isAllowedInKernel(op) && !isa<func::ReturnOp>(op)) || memory || control) {
      op->emitError("'") << op->getName()
                         << "' is not an op fuser emits in a helper function: the CPU "
                            "emulation refuses to compile it";
      return WalkResult::interrupt();
    }
    for (Type t : op->getResultTypes())
      if (!isHelperType(t)) {
        op->emitError("a helper value of type ") << t << " (the CPU emulation takes numbers "
                                                          "and vectors of them only)";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

LogicalResult validateKernel(gpu::GPUFuncOp kernel) {
  if (!kernel.isKernel())
    return kernel.emitError("the CPU emulation runs gpu.func kernels only; '")
           << kernel.getName() << "' is not marked kernel";
  for (Type t : kernel.getArgumentTypes())
    if (!isParameterType(t))
      return kernel.emitError("kernel '")
             << kernel.getName() << "' takes a parameter of type " << t
             << "; kernels take !llvm.ptr, i32 and i64 only";
  if (kernel.getNumPrivateAttributions())
    return kernel.emitError("kernel '") << kernel.getName()
                                        << "' has private attributions, which fuser never emits";
  for (BlockArgument a : kernel.getWorkgroupAttributions()) {
    auto t = dyn_cast<MemRefType>(a.getType());
    if (!t || !t.hasStaticShape() || !t.getLayout().isIdentity() ||
        !isValueType(t.getElementType()))
      return kernel.emitError("kernel '")
             << kernel.getName() << "': workgroup memory must be a static memref of numbers";
  }
  WalkResult r = kernel.getBody().walk([&](Operation *op) {
    // The verifier has resolved a call's callee to a func.func of the
    // kernel's own gpu.module, with the call's types, and every func.func
    // there is a helper that validateHelper checks (and helpers call
    // nothing, so nothing recurses).
    if (isa<func::CallOp>(op))
      return WalkResult::advance();
    if (!isAllowedInKernel(op)) {
      op->emitError("'") << op->getName()
                         << "' is not an op fuser emits in kernels: the CPU emulation "
                            "refuses to compile it";
      return WalkResult::interrupt();
    }
    if (auto rmw = dyn_cast<LLVM::AtomicRMWOp>(op)) {
      bool counter =
          rmw.getBinOp() == LLVM::AtomicBinOp::add && rmw.getVal().getType().isInteger(32);
      bool errorWord = rmw.getBinOp() == LLVM::AtomicBinOp::xchg &&
                       rmw.getVal().getType().isInteger(64) && rmw->hasAttr(fuser::kIndexErrorAttr);
      if (!counter && !errorWord) {
        op->emitError("fuser's kernels add to i32 counters and exchange the index error "
                      "word's flag only: the CPU emulation refuses this atomic");
        return WalkResult::interrupt();
      }
    }
    for (Type t : op->getResultTypes())
      if (!isValueType(t)) {
        op->emitError("a kernel value of type ") << t << " (the CPU emulation takes numbers, "
                                                         "vectors of them and pointers only)";
        return WalkResult::interrupt();
      }
    // Workgroup memory is indexed only by the loads and stores that the
    // lowering checks; it never escapes into another op.
    for (Value v : op->getOperands())
      if (isa<MemRefType>(v.getType()) && !isa<memref::LoadOp, memref::StoreOp>(op)) {
        op->emitError("workgroup memory used by '") << op->getName() << "'";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  if (r.wasInterrupted())
    return failure();
  // One block: structured control flow only.
  if (!llvm::hasSingleElement(kernel.getBody()))
    return kernel.emitError("the CPU emulation needs structured control flow (one block "
                            "per kernel)");
  return success();
}

} // namespace

LogicalResult mlir::fuser::validateEmulationModule(ModuleOp module) {
  if (module->getNumRegions() != 1 || !module.getBody())
    return module.emitError("not a module");
  for (Operation &op : *module.getBody()) {
    auto gm = dyn_cast<gpu::GPUModuleOp>(op);
    if (!gm)
      return op.emitError("a bundle's kernel module holds gpu.module ops only, not '")
             << op.getName() << "'";
    for (Operation &inner : gm.getBody()->getOperations()) {
      if (auto helper = dyn_cast<func::FuncOp>(inner)) {
        if (failed(validateHelper(helper)))
          return failure();
        continue;
      }
      auto kernel = dyn_cast<gpu::GPUFuncOp>(inner);
      if (!kernel)
        return inner.emitError("a gpu.module of a bundle holds gpu.func kernels and helper "
                               "functions only, not '")
               << inner.getName() << "'";
      if (failed(validateKernel(kernel)))
        return failure();
    }
  }
  return success();
}

namespace {
struct ValidateKernelsPass
    : PassWrapper<ValidateKernelsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ValidateKernelsPass)
  StringRef getArgument() const override { return "fuser-validate-emulation-module"; }
  StringRef getDescription() const override {
    return "Check that a module holds only what fuser emits for kernels, before the CPU "
           "emulation compiles it";
  }
  void runOnOperation() override {
    if (failed(fuser::validateEmulationModule(getOperation())))
      signalPassFailure();
  }
};
} // namespace

std::unique_ptr<Pass> mlir::fuser::createValidateEmulationModulePass() {
  return std::make_unique<ValidateKernelsPass>();
}
