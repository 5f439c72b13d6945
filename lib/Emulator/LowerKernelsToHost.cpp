//===- LowerKernelsToHost.cpp - gpu.func kernels as host functions --------===//
//
// Kernel `k(args...)` becomes `k(args..., ctx)`, a function computing what
// one GPU thread computes, and `k.entry(params, ctx)` that unpacks a
// cuLaunchKernel-style parameter array and calls it. Inside:
//  - thread, block and grid ids and sizes are read from the thread context;
//  - gpu.barrier and gpu.shuffle call into the emulator, which switches
//    between emulated threads there (and only there);
//  - workgroup memory (shared memory) is the block's buffer in the context;
//    every access also reports itself to the emulator's race check.
// The rest of the kernel (arith, scf, LLVM intrinsics, loads and stores) is
// untouched: the CPU runs the same operations the GPU runs.
//
//===----------------------------------------------------------------------===//

#include "ThreadContext.h"

#include "fuser/Emulator/Emulator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::fuser;
using namespace mlir::fuser::emu;

namespace {

class KernelLowering {
public:
  KernelLowering(ModuleOp host, gpu::GPUFuncOp kernel, bool countTraffic)
      : host(host), kernel(kernel), b(host.getContext()), loc(kernel.getLoc()),
        ptrTy(LLVM::LLVMPointerType::get(host.getContext())),
        countTraffic(countTraffic) {}

  LogicalResult run();

private:
  Value field(int64_t offset, Type type) {
    Value p = LLVM::GEPOp::create(b, loc, ptrTy, b.getI8Type(), ctx,
                                  ArrayRef<LLVM::GEPArg>{(int32_t)offset});
    return LLVM::LoadOp::create(b, loc, type, p);
  }
  Value dimension(int64_t base, gpu::Dimension d) {
    Value v = field(base + 4 * static_cast<int64_t>(d), b.getI32Type());
    return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), v);
  }
  void declare(StringRef name, TypeRange args, TypeRange results) {
    if (host.lookupSymbol(name))
      return;
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(host.getBody());
    auto f = func::FuncOp::create(b, loc, name, b.getFunctionType(args, results));
    f.setPrivate();
  }
  LogicalResult lowerSharedAccess(Operation *op, Value memref, ValueRange indices,
                                  Value stored, Type loaded);

  ModuleOp host;
  gpu::GPUFuncOp kernel;
  OpBuilder b;
  Location loc;
  Type ptrTy;
  bool countTraffic;
  Value ctx, sharedBase;
  /// Byte offset of each workgroup attribution in the block's shared memory.
  DenseMap<Value, int64_t> sharedOffset;
  bool synchronizes = false;
};

} // namespace

LogicalResult KernelLowering::lowerSharedAccess(Operation *op, Value memref,
                                                ValueRange indices, Value stored,
                                                Type loaded) {
  auto type = cast<MemRefType>(memref.getType());
  b.setInsertionPoint(op);
  // Row-major element offset, then the byte offset in the block's buffer.
  Value linear = arith::ConstantIndexOp::create(b, loc, 0);
  int64_t stride = 1;
  for (int64_t d = type.getRank() - 1; d >= 0; --d) {
    Value scaled = arith::MulIOp::create(b, loc, indices[d],
                                         arith::ConstantIndexOp::create(b, loc, stride));
    linear = arith::AddIOp::create(b, loc, linear, scaled);
    stride *= type.getDimSize(d);
  }
  // An i1 takes a byte, as in the GPU's shared memory.
  int64_t size = (type.getElementTypeBitWidth() + 7) / 8;
  Value bytes = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, linear, arith::ConstantIndexOp::create(b, loc, size)),
      arith::ConstantIndexOp::create(b, loc, sharedOffset.lookup(memref)));
  Value bytes64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), bytes);
  func::CallOp::create(b, loc, kSharedAccessFn, TypeRange{},
                       ValueRange{ctx, bytes64,
                                  arith::ConstantIntOp::create(b, loc, size, 64),
                                  arith::ConstantIntOp::create(b, loc, stored ? 1 : 0, 32)});
  Value addr = LLVM::GEPOp::create(b, loc, ptrTy, b.getI8Type(), sharedBase,
                                   ValueRange{bytes64});
  if (stored) {
    LLVM::StoreOp::create(b, loc, stored, addr, size);
    op->erase();
  } else {
    Value v = LLVM::LoadOp::create(b, loc, loaded, addr, size);
    op->getResult(0).replaceAllUsesWith(v);
    op->erase();
  }
  return success();
}

LogicalResult KernelLowering::run() {
  MLIRContext *mctx = host.getContext();
  unsigned numArgs = kernel.getNumArguments();
  SmallVector<Type> argTypes(kernel.getArgumentTypes());
  argTypes.push_back(ptrTy);
  b.setInsertionPointToEnd(host.getBody());
  auto fn = func::FuncOp::create(b, loc, kernel.getName(), b.getFunctionType(argTypes, {}));
  fn.setPrivate();
  IRMapping map;
  kernel.getBody().cloneInto(&fn.getBody(), map);
  if (!llvm::hasSingleElement(fn.getBody()))
    return kernel.emitError("the CPU emulation needs structured control flow "
                            "(one block per kernel)");
  Block &entry = fn.getBody().front();
  ctx = entry.addArgument(ptrTy, loc);

  // The kernel's own ops (not the context reads built below).
  SmallVector<Operation *> ops;
  fn.walk([&](Operation *op) { ops.push_back(op); });

  b.setInsertionPointToStart(&entry);
  sharedBase = field(kSharedMemoryOffset, ptrTy);
  // Workgroup attributions follow the arguments; lay them out 16-aligned.
  int64_t sharedBytes = 0;
  for (unsigned i = numArgs; i < numArgs + kernel.getNumWorkgroupAttributions(); ++i) {
    Value attr = entry.getArgument(i);
    auto t = cast<MemRefType>(attr.getType());
    if (!t.hasStaticShape())
      return kernel.emitError("workgroup memory must have a static shape");
    sharedOffset[attr] = sharedBytes;
    sharedBytes += (t.getNumElements() * ((t.getElementTypeBitWidth() + 7) / 8) + 15) / 16 * 16;
  }

  // Bytes of a loaded or stored value.
  auto byteSize = [](Type t) -> int64_t {
    if (auto v = dyn_cast<VectorType>(t))
      return v.getNumElements() * ((v.getElementTypeBitWidth() + 7) / 8);
    if (isa<LLVM::LLVMPointerType>(t))
      return 8;
    return (t.getIntOrFloatBitWidth() + 7) / 8;
  };
  auto reportGlobal = [&](Value addr, Type t, bool isStore) {
    Type i64 = b.getI64Type();
    declare(kGlobalAccessFn, {ptrTy, i64, i64, b.getI32Type()}, {});
    Value a = LLVM::PtrToIntOp::create(b, loc, i64, addr);
    func::CallOp::create(b, loc, kGlobalAccessFn, TypeRange{},
                         ValueRange{ctx, a, arith::ConstantIntOp::create(b, loc, byteSize(t), 64),
                                    arith::ConstantIntOp::create(b, loc, isStore ? 1 : 0, 32)});
  };
  for (Operation *op : ops) {
    b.setInsertionPoint(op);
    auto replace = [&](Value v) {
      op->getResult(0).replaceAllUsesWith(v);
      op->erase();
    };
    if (auto t = dyn_cast<gpu::ThreadIdOp>(op)) {
      replace(dimension(kThreadIdOffset, t.getDimension()));
    } else if (auto t = dyn_cast<gpu::BlockIdOp>(op)) {
      replace(dimension(kBlockIdOffset, t.getDimension()));
    } else if (auto t = dyn_cast<gpu::BlockDimOp>(op)) {
      replace(dimension(kBlockDimOffset, t.getDimension()));
    } else if (auto t = dyn_cast<gpu::GridDimOp>(op)) {
      replace(dimension(kGridDimOffset, t.getDimension()));
    } else if (isa<gpu::BarrierOp>(op)) {
      synchronizes = true;
      declare(kBarrierFn, {ptrTy}, {});
      func::CallOp::create(b, loc, kBarrierFn, TypeRange{}, ValueRange{ctx});
      op->erase();
    } else if (auto s = dyn_cast<gpu::ShuffleOp>(op)) {
      synchronizes = true;
      Type i32 = b.getI32Type();
      declare(kShuffleFn, {ptrTy, i32, i32, i32, i32}, {i32});
      Value v = s.getValue();
      if (v.getType() != i32) {
        if (v.getType().getIntOrFloatBitWidth() != 32)
          return s.emitError("the CPU emulation shuffles 32-bit values only");
        v = arith::BitcastOp::create(b, loc, i32, v);
      }
      Value mode = arith::ConstantIntOp::create(b, loc, static_cast<int64_t>(s.getMode()), 32);
      auto call = func::CallOp::create(b, loc, kShuffleFn, TypeRange{i32},
                                       ValueRange{ctx, v, s.getOffset(), s.getWidth(), mode});
      Value r = call.getResult(0);
      if (r.getType() != s.getShuffleResult().getType())
        r = arith::BitcastOp::create(b, loc, s.getShuffleResult().getType(), r);
      s.getShuffleResult().replaceAllUsesWith(r);
      // Every lane of fuser's shuffles is in range: valid is always true.
      s.getValid().replaceAllUsesWith(arith::ConstantIntOp::create(b, loc, 1, 1));
      op->erase();
    } else if (isa<gpu::ReturnOp>(op)) {
      func::ReturnOp::create(b, loc);
      op->erase();
    } else if (auto l = dyn_cast<memref::LoadOp>(op)) {
      if (sharedOffset.count(l.getMemRef())) {
        declare(kSharedAccessFn, {ptrTy, b.getI64Type(), b.getI64Type(), b.getI32Type()}, {});
        if (failed(lowerSharedAccess(op, l.getMemRef(), l.getIndices(), Value(), l.getType())))
          return failure();
      }
    } else if (auto st = dyn_cast<memref::StoreOp>(op)) {
      if (sharedOffset.count(st.getMemRef())) {
        declare(kSharedAccessFn, {ptrTy, b.getI64Type(), b.getI64Type(), b.getI32Type()}, {});
        if (failed(lowerSharedAccess(op, st.getMemRef(), st.getIndices(), st.getValue(), Type())))
          return failure();
      }
    } else if (auto ld = dyn_cast<LLVM::LoadOp>(op)) {
      if (countTraffic)
        reportGlobal(ld.getAddr(), ld.getType(), false);
    } else if (auto st = dyn_cast<LLVM::StoreOp>(op)) {
      if (countTraffic)
        reportGlobal(st.getAddr(), st.getValue().getType(), true);
    } else if (isa<gpu::GPUDialect>(op->getDialect())) {
      return op->emitError("the CPU emulation does not support this op");
    }
  }
  // The workgroup attributions are gone; drop their block arguments.
  for (Value attr : llvm::make_first_range(sharedOffset))
    if (!attr.use_empty())
      return kernel.emitError("workgroup memory is used by an op other than "
                              "memref.load and memref.store");
  for (unsigned i = entry.getNumArguments() - 1; i-- > numArgs;)
    entry.eraseArgument(i);

  // k.entry(params, ctx): params[i] points at the value of parameter i.
  b.setInsertionPointToEnd(host.getBody());
  auto entryFn = func::FuncOp::create(b, loc, (kernel.getName() + kEntrySuffix).str(),
                                      b.getFunctionType({ptrTy, ptrTy}, {}));
  entryFn->setAttr(kStaticSharedAttr, b.getI64IntegerAttr(sharedBytes));
  if (synchronizes)
    entryFn->setAttr(kSynchronizesAttr, b.getUnitAttr());
  Block *eb = entryFn.addEntryBlock();
  b.setInsertionPointToStart(eb);
  SmallVector<Value> callArgs;
  for (unsigned i = 0; i < numArgs; ++i) {
    Value slot = LLVM::GEPOp::create(b, loc, ptrTy, ptrTy, eb->getArgument(0),
                                     ArrayRef<LLVM::GEPArg>{(int32_t)i});
    Value valuePtr = LLVM::LoadOp::create(b, loc, ptrTy, slot);
    callArgs.push_back(LLVM::LoadOp::create(b, loc, argTypes[i], valuePtr));
  }
  callArgs.push_back(eb->getArgument(1));
  func::CallOp::create(b, loc, fn, callArgs);
  func::ReturnOp::create(b, loc);
  (void)mctx;
  return success();
}

namespace {
struct LowerKernelsToHostPass
    : PassWrapper<LowerKernelsToHostPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(LowerKernelsToHostPass)
  explicit LowerKernelsToHostPass(bool countTraffic) : countTraffic(countTraffic) {}
  bool countTraffic;
  StringRef getArgument() const override { return "fuser-lower-kernels-to-host"; }
  StringRef getDescription() const override {
    return "Lower gpu.module kernels to host functions of one emulated thread";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, func::FuncDialect, LLVM::LLVMDialect>();
  }
  void runOnOperation() override {
    ModuleOp m = getOperation();
    SmallVector<gpu::GPUModuleOp> modules(m.getOps<gpu::GPUModuleOp>());
    for (gpu::GPUModuleOp gm : modules) {
      for (auto k : gm.getOps<gpu::GPUFuncOp>())
        if (failed(KernelLowering(m, k, countTraffic).run()))
          return signalPassFailure();
      gm.erase();
    }
    m->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
  }
};
} // namespace

std::unique_ptr<Pass> mlir::fuser::createLowerKernelsToHostPass(bool countTraffic) {
  return std::make_unique<LowerKernelsToHostPass>(countTraffic);
}
