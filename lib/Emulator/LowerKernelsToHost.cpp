//===- LowerKernelsToHost.cpp - gpu.func kernels as host functions --------===//
//
// Kernel `k(args...)` becomes `k(args..., ctx)`, a function computing what
// one GPU thread computes, and `k.entry(params, ctx)` that unpacks a
// cuLaunchKernel-style parameter array and calls it. Inside:
//  - thread, block and grid ids and sizes are read from the thread context;
//  - gpu.barrier and gpu.shuffle call into the emulator, which switches
//    between emulated threads there (and only there);
//  - workgroup memory (shared memory) is the block's buffer in the context;
//    every access also reports itself to the emulator's race check;
//  - every global load and store is checked against the bounds of the
//    kernel parameter it addresses through (the emulator fills them per
//    launch from its allocations), every shared access against the block's
//    shared memory: an access outside is skipped and reported, so that no
//    kernel, whatever a bundle says, touches host memory it does not own;
//  - a fence, an atomic add (the arrival of a block at a last-block
//    counter) and the accesses marked kCrossBlockAttr report to the
//    emulator's check that blocks hand values over with fences;
//  - every scf.for adds its trip count to the launch's work before it runs,
//    and is skipped (and reported) past the emulator's work limit.
// The rest of the kernel (arith, scf, LLVM intrinsics) is untouched: the
// CPU runs the same operations the GPU runs.
//
//===----------------------------------------------------------------------===//

#include "ThreadContext.h"

#include "fuser/Dialect/Fuser/IR/FuserAttrNames.h"

#include "fuser/Emulator/Emulator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/MathExtras.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::fuser;
using namespace mlir::fuser::emu;

/// The largest alignment a global access may state (fuser's say at most 16).
static constexpr int64_t kMaxAccessAlignment = 256;

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
  /// Runs `access` (a load or store whose address is the i64 `address`) only
  /// when [address, address + size) lies in [begin, end) and the address is
  /// a multiple of `alignment` (1: any); else reports it as parameter
  /// `param` (-1: shared memory) and, for a load, gives zeros.
  void guard(Operation *access, Value address, int64_t size, Value begin, Value end,
             int32_t param, int64_t elementBytes, int64_t alignment = 1);
  /// Adds the loop's trip count to the launch's work; skips the loop past
  /// the limit.
  void countWork(scf::ForOp loop);
  Value i64(int64_t v) { return arith::ConstantIntOp::create(b, loc, v, 64); }

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
  // The byte offset in the block's buffer, computed in i64 from the element
  // offset: a wild index must not wrap into the buffer.
  Value linear64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), linear);
  int64_t base = sharedOffset.lookup(memref);
  Value bytes64 = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, linear64, i64(size)),
                                        i64(base));
  Operation *access;
  Value addr = LLVM::GEPOp::create(b, loc, ptrTy, b.getI8Type(), sharedBase,
                                   ValueRange{bytes64});
  if (stored) {
    access = LLVM::StoreOp::create(b, loc, stored, addr, size);
  } else {
    access = LLVM::LoadOp::create(b, loc, loaded, addr, size);
    op->getResult(0).replaceAllUsesWith(access->getResult(0));
  }
  op->erase();
  // Inside this attribution's own bytes: the race check then sees only
  // accesses that stay there.
  b.setInsertionPoint(access);
  func::CallOp::create(b, loc, kSharedAccessFn, TypeRange{},
                       ValueRange{ctx, bytes64, i64(size),
                                  arith::ConstantIntOp::create(b, loc, stored ? 1 : 0, 32)});
  int64_t attributionBytes = type.getNumElements() * size;
  guard(access, bytes64, size, i64(base), i64(base + attributionBytes), -1, size);
  return success();
}

/// Moves `op` into the then-branch of a new scf.if on `cond` (placed where
/// `op` was) whose results replace op's; returns the else-block, empty,
/// whose yield the caller adds.
static Block *wrapInIf(OpBuilder &b, Location loc, Operation *op, Value cond) {
  auto ifOp = scf::IfOp::create(b, loc, op->getResultTypes(), cond, /*withElseRegion=*/true);
  Block *thenBlock = ifOp.thenBlock();
  if (op->getNumResults() == 0) {
    op->moveBefore(thenBlock->getTerminator());
    Block *elseBlock = ifOp.elseBlock();
    elseBlock->getTerminator()->erase();
    return elseBlock;
  }
  b.setInsertionPointToEnd(thenBlock);
  auto yield = scf::YieldOp::create(b, loc, op->getResults());
  for (auto [r, ifResult] : llvm::zip(op->getResults(), ifOp.getResults()))
    r.replaceAllUsesExcept(ifResult, yield);
  op->moveBefore(yield);
  return ifOp.elseBlock();
}

void KernelLowering::guard(Operation *access, Value address, int64_t size, Value begin,
                           Value end, int32_t param, int64_t elementBytes,
                           int64_t alignment) {
  b.setInsertionPoint(access);
  Type i64Ty = b.getI64Type(), i32Ty = b.getI32Type();
  // begin <= address, address + size <= end and address + size does not
  // wrap, unsigned. The last is needed where begin is 0 (the first
  // workgroup buffer): address -size passes the first test and wraps to 0
  // in the second, a store just before the block's shared memory.
  Value last = arith::AddIOp::create(b, loc, address, i64(size));
  Value inside = arith::AndIOp::create(
      b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, address, begin),
      arith::AndIOp::create(
          b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, last, end),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, last, address)));
  // A GPU faults on an access that is not aligned to what it moves (or to
  // less, where the access says so); the host may fault too.
  if (alignment > 1)
    inside = arith::AndIOp::create(
        b, loc, inside,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                              arith::AndIOp::create(b, loc, address, i64(alignment - 1)),
                              i64(0)));
  declare(kBadAccessFn, {ptrTy, i32Ty, i64Ty, i64Ty, i64Ty, i64Ty, i32Ty, i64Ty, i64Ty}, {});
  bool isStore = access->getNumResults() == 0;
  SmallVector<Type> results(access->getResultTypes());
  Block *elseBlock = wrapInIf(b, loc, access, inside);
  // Else: report, and give zeros to a load.
  b.setInsertionPointToStart(elseBlock);
  func::CallOp::create(b, loc, kBadAccessFn, TypeRange{},
                       ValueRange{ctx, arith::ConstantIntOp::create(b, loc, param, 32), address,
                                  i64(size), begin, end,
                                  arith::ConstantIntOp::create(b, loc, isStore ? 1 : 0, 32),
                                  i64(elementBytes), i64(alignment)});
  SmallVector<Value> zeros;
  for (Type t : results)
    zeros.push_back(LLVM::ZeroOp::create(b, loc, t));
  scf::YieldOp::create(b, loc, zeros);
}

void KernelLowering::countWork(scf::ForOp loop) {
  b.setInsertionPoint(loop);
  Type i64Ty = b.getI64Type();
  auto toI64 = [&](Value v) -> Value {
    if (v.getType().isIndex())
      return arith::IndexCastOp::create(b, loc, i64Ty, v);
    if (v.getType().getIntOrFloatBitWidth() < 64)
      return arith::ExtSIOp::create(b, loc, i64Ty, v);
    return v;
  };
  Value lb = toI64(loop.getLowerBound()), ub = toI64(loop.getUpperBound());
  Value step = toI64(loop.getStep());
  // trips = ub > lb ? ceil((ub - lb) / step) : 0; a step below 1 never ends.
  Value positive = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, step, i64(0));
  Value safeStep = arith::SelectOp::create(b, loc, positive, step, i64(1));
  Value span = arith::SubIOp::create(b, loc, ub, lb);
  Value trips = arith::DivUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, span, arith::SubIOp::create(b, loc, safeStep, i64(1))),
      safeStep);
  trips = arith::SelectOp::create(
      b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, ub, lb), trips, i64(0));
  Value workPtr = field(kWorkOffset, ptrTy);
  Value limit = field(kWorkLimitOffset, i64Ty);
  Value work = LLVM::LoadOp::create(b, loc, i64Ty, workPtr);
  // Saturating: work + trips past the limit stays past it.
  Value room = arith::SubIOp::create(b, loc, limit, work);
  Value fits = arith::AndIOp::create(
      b, loc, positive, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, trips, room));
  Value newWork = arith::SelectOp::create(b, loc, fits, arith::AddIOp::create(b, loc, work, trips),
                                          arith::AddIOp::create(b, loc, limit, i64(1)));
  LLVM::StoreOp::create(b, loc, newWork, workPtr);
  declare(kWorkExceededFn, {ptrTy, i64Ty}, {});
  SmallVector<Value> inits(loop.getInitArgs());
  Block *elseBlock = wrapInIf(b, loc, loop, fits);
  b.setInsertionPointToStart(elseBlock);
  func::CallOp::create(b, loc, kWorkExceededFn, TypeRange{}, ValueRange{ctx, trips});
  scf::YieldOp::create(b, loc, inits);
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
  // Each pointer parameter's bounds, read once per thread.
  DenseMap<Value, std::pair<Value, Value>> paramBounds;
  DenseMap<Value, int32_t> paramIndex;
  {
    Value table = field(kBoundsOffset, ptrTy);
    for (unsigned i = 0; i < numArgs; ++i) {
      if (!isa<LLVM::LLVMPointerType>(argTypes[i]))
        continue;
      auto at = [&](int64_t offset) -> Value {
        Value p = LLVM::GEPOp::create(b, loc, ptrTy, b.getI8Type(), table,
                                      ArrayRef<LLVM::GEPArg>{(int32_t)offset});
        return LLVM::LoadOp::create(b, loc, b.getI64Type(), p);
      };
      Value arg = entry.getArgument(i);
      paramBounds[arg] = {at(16 * i), at(16 * i + 8)};
      paramIndex[arg] = i;
    }
  }
  // The parameter a global address derives from, through GEPs; null when it
  // derives from anything else.
  auto rootParam = [&](Value addr) -> Value {
    while (auto gep = addr.getDefiningOp<LLVM::GEPOp>())
      addr = gep.getBase();
    return paramBounds.count(addr) ? addr : Value();
  };
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
  // The alignment a global access needs: what it says (NVPTX splits an
  // access that says less; one that says more than it has is undefined,
  // and LLVM may merge it into a wider access that faults), else its
  // type's (its bytes rounded up to a power of two, as LLVM's NVPTX
  // layout gives a vector). The access is then compiled for the host with
  // that alignment, which the guard checks: a bundle whose kernel claims
  // more than it has cannot fault the emulator. fuser's kernels say
  // min(16, bytes) (KernelBuilder).
  auto accessAlignment = [&](Operation *access, Type t) -> int64_t {
    int64_t natural = (int64_t)llvm::PowerOf2Ceil((uint64_t)byteSize(t));
    std::optional<uint64_t> said;
    if (auto ld = dyn_cast<LLVM::LoadOp>(access))
      said = ld.getAlignment();
    else if (auto st = dyn_cast<LLVM::StoreOp>(access))
      said = st.getAlignment();
    int64_t align = said && *said ? (int64_t)*said : natural;
    // LLVM takes a power of two and rounds anything else; the guard must
    // check what the host code assumes. fuser says at most 16.
    if (!llvm::isPowerOf2_64((uint64_t)align) || align > kMaxAccessAlignment)
      return -1;
    if (auto ld = dyn_cast<LLVM::LoadOp>(access))
      ld.setAlignment(align);
    else if (auto st = dyn_cast<LLVM::StoreOp>(access))
      st.setAlignment(align);
    else if (auto rmw = dyn_cast<LLVM::AtomicRMWOp>(access))
      rmw.setAlignment(align);
    return align;
  };
  auto guardGlobal = [&](Operation *access, Value addr, Type t) -> LogicalResult {
    Value root = rootParam(addr);
    if (!root)
      return access->emitError("the CPU emulation needs every global load and store "
                               "to address memory through a kernel parameter");
    int64_t align = accessAlignment(access, t);
    if (align < 0)
      return access->emitError("the CPU emulation takes a global access aligned to a power "
                               "of two of at most ")
             << kMaxAccessAlignment << " bytes (fuser's kernels say at most 16)";
    b.setInsertionPoint(access);
    Value a = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), addr);
    Type element = getElementTypeOrSelf(t);
    int64_t elementBytes = isa<LLVM::LLVMPointerType>(element)
                               ? 8
                               : (element.getIntOrFloatBitWidth() + 7) / 8;
    auto [begin, end] = paramBounds.lookup(root);
    guard(access, a, byteSize(t), begin, end, paramIndex.lookup(root), elementBytes, align);
    return success();
  };
  auto reportGlobal = [&](Value addr, Type t, bool isStore) {
    Type i64 = b.getI64Type();
    declare(kGlobalAccessFn, {ptrTy, i64, i64, b.getI32Type()}, {});
    Value a = LLVM::PtrToIntOp::create(b, loc, i64, addr);
    func::CallOp::create(b, loc, kGlobalAccessFn, TypeRange{},
                         ValueRange{ctx, a, arith::ConstantIntOp::create(b, loc, byteSize(t), 64),
                                    arith::ConstantIntOp::create(b, loc, isStore ? 1 : 0, 32)});
  };
  auto reportCrossBlock = [&](Value addr, bool isStore) {
    Type i64 = b.getI64Type();
    declare(kCrossBlockFn, {ptrTy, i64, b.getI32Type()}, {});
    Value a = LLVM::PtrToIntOp::create(b, loc, i64, addr);
    func::CallOp::create(b, loc, kCrossBlockFn, TypeRange{},
                         ValueRange{ctx, a, arith::ConstantIntOp::create(b, loc, isStore, 32)});
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
    } else if (isa<LLVM::FenceOp>(op)) {
      declare(kFenceFn, {ptrTy}, {});
      func::CallOp::create(b, loc, kFenceFn, TypeRange{}, ValueRange{ctx});
      op->erase();
    } else if (auto rmw = dyn_cast<LLVM::AtomicRMWOp>(op)) {
      // The blocks run one after another: a plain read-modify-write is
      // atomic here; the emulator records the arrival first (not for the
      // index error word's exchange, which hands no values between blocks).
      if (!rmw->hasAttr(kIndexErrorAttr)) {
        declare(kArriveFn, {ptrTy}, {});
        func::CallOp::create(b, loc, kArriveFn, TypeRange{}, ValueRange{ctx});
      }
      rmw->removeAttr(kIndexErrorAttr);
      rmw.setSyncscope(std::nullopt);
      if (countTraffic) {
        reportGlobal(rmw.getPtr(), rmw.getVal().getType(), false);
        reportGlobal(rmw.getPtr(), rmw.getVal().getType(), true);
      }
      if (failed(guardGlobal(op, rmw.getPtr(), rmw.getVal().getType())))
        return failure();
    } else if (auto ld = dyn_cast<LLVM::LoadOp>(op)) {
      if (ld->hasAttr(kCrossBlockAttr))
        reportCrossBlock(ld.getAddr(), false);
      if (countTraffic)
        reportGlobal(ld.getAddr(), ld.getType(), false);
      if (failed(guardGlobal(op, ld.getAddr(), ld.getType())))
        return failure();
    } else if (auto st = dyn_cast<LLVM::StoreOp>(op)) {
      if (st->hasAttr(kCrossBlockAttr))
        reportCrossBlock(st.getAddr(), true);
      if (countTraffic)
        reportGlobal(st.getAddr(), st.getValue().getType(), true);
      if (failed(guardGlobal(op, st.getAddr(), st.getValue().getType())))
        return failure();
    } else if (auto gep = dyn_cast<LLVM::GEPOp>(op)) {
      // An out-of-bounds inbounds GEP is poison, and LLVM may then assume
      // the bounds check on its address passes: no such flags here.
      gep.setNoWrapFlags(LLVM::GEPNoWrapFlags::none);
    } else if (auto loop = dyn_cast<scf::ForOp>(op)) {
      countWork(loop);
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
  // A kernel whose attributions live in dynamic shared memory has none of
  // its own; its launches must pass at least their bytes.
  if (kernel->hasAttr(kDynamicSharedAttr)) {
    entryFn->setAttr(kStaticSharedAttr, b.getI64IntegerAttr(0));
    entryFn->setAttr(kDynamicSharedNeededAttr, b.getI64IntegerAttr(sharedBytes));
  } else {
    entryFn->setAttr(kStaticSharedAttr, b.getI64IntegerAttr(sharedBytes));
  }
  SmallVector<int32_t> params;
  for (unsigned i = 0; i < numArgs; ++i) {
    Type t = argTypes[i];
    if (isa<LLVM::LLVMPointerType>(t))
      params.push_back(-8);
    else if (t.isInteger(32) || t.isInteger(64))
      params.push_back(t.getIntOrFloatBitWidth() / 8);
    else
      return kernel.emitError("the CPU emulation takes kernel parameters of types "
                              "!llvm.ptr, i32 and i64 only");
  }
  entryFn->setAttr(kParamsAttr, b.getDenseI32ArrayAttr(params));
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
    registry.insert<arith::ArithDialect, func::FuncDialect, LLVM::LLVMDialect,
                    scf::SCFDialect>();
  }
  void runOnOperation() override {
    ModuleOp m = getOperation();
    SmallVector<gpu::GPUModuleOp> modules(m.getOps<gpu::GPUModuleOp>());
    for (gpu::GPUModuleOp gm : modules) {
      for (auto k : gm.getOps<gpu::GPUFuncOp>())
        if (failed(KernelLowering(m, k, countTraffic).run()))
          return signalPassFailure();
      // The functions beside the kernels (the math library's rare paths,
      // MathExpansion.h) move to the host module as they are. Their names
      // say what they compute (function and type), so one already there
      // from another gpu.module is the same function.
      for (auto f : llvm::make_early_inc_range(gm.getOps<func::FuncOp>()))
        if (!SymbolTable::lookupSymbolIn(m, f.getSymName()))
          f->moveBefore(m.getBody(), m.getBody()->end());
      gm.erase();
    }
    m->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
  }
};
} // namespace

std::unique_ptr<Pass> mlir::fuser::createLowerKernelsToHostPass(bool countTraffic) {
  return std::make_unique<LowerKernelsToHostPass>(countTraffic);
}
