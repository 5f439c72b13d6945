//===- RowInShared.cpp - persistent rows held partly in shared memory -----===//
//
// A normalization keeps its row on chip between its passes. The registers
// of 512 threads hold up to 49152 two-byte values (ReductionHeuristics.cpp);
// a longer row (up to 65536 bf16 elements, its length static or known at
// launch) keeps the loads of each thread's later units in shared memory
// instead (64 values a thread stay in registers, 40 beside a weight and a
// bias): the first pass loads them
// from global memory and stores them to the thread's own slots, each later
// pass loads them back. A thread reads only what it wrote, so no barrier
// is needed beyond those the passes already have (which also keep LLVM
// from reusing the first pass's registers).
//
// Only accesses of one row that move along it are kept there (x, dy); a
// value the rows share (layer_norm's weight) is read again from global
// memory (L1 and L2 serve it), a row's scalars (its mean) stay in
// registers.
//
// An inner-outer kernel with its column accumulators in shared memory also
// keeps the inputs the rows share there (keepInvariantsInShared): the
// block's first row loads them from global memory and stores each
// thread's share, the later rows load them back.
//
// Layout: one buffer per kept access of a unit, [slot][thread][lane], so
// that a unit's lanes are contiguous (one 16-byte access a thread when
// LLVM merges the lane accesses) and consecutive threads are adjacent.
//
//===----------------------------------------------------------------------===//

#include "ReductionScheduler.h"

#include "fuser/Dialect/Fuser/IR/FuserAttrNames.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::fuser;

static bool dependsOnAny(AffineExpr e, ArrayRef<unsigned> dims) {
  return llvm::any_of(dims, [&](unsigned j) { return e.isFunctionOfDim(j); });
}

bool ReductionScheduler::heldInShared(AffineExpr offset, unsigned lanes) {
  if (lanes > 1 && laneStride(offset) != std::optional<int64_t>(1))
    return false;
  return dependsOnAny(offset, keptIter) && dependsOnAny(offset, reducedIter);
}

bool ReductionScheduler::sharedByRows(AffineExpr offset, unsigned lanes) {
  if (lanes > 1 && laneStride(offset) != std::optional<int64_t>(1))
    return false;
  return !dependsOnAny(offset, keptIter) && dependsOnAny(offset, reducedIter);
}

bool ReductionScheduler::sharedByRows(Value in, bool movesAlongRow) {
  bool read = false, shared = true;
  for (auto &[v, off] : leafOffsets) {
    if (v != in)
      continue;
    read = true;
    AffineExpr o = toIteration(off);
    shared &= !dependsOnAny(o, keptIter) && (!movesAlongRow || dependsOnAny(o, reducedIter));
  }
  return read && shared;
}

Value ReductionScheduler::sharedBuffer(SmallVector<Value> &buffers, size_t k, Type elem,
                                       int64_t elements) {
  if (k < buffers.size() &&
      cast<MemRefType>(buffers[k].getType()).getElementType() == elem &&
      cast<MemRefType>(buffers[k].getType()).getNumElements() >= elements)
    return buffers[k];
  // The kernel's workgroup memory becomes dynamic (over 48 KiB beside a
  // weight and a bias, or beside an inner-outer kernel's accumulators).
  auto workgroup = gpu::AddressSpaceAttr::get(ctx, gpu::GPUDialect::getWorkgroupAddressSpace());
  Value m = kb->func.addWorkgroupAttribution(
      MemRefType::get({elements}, elem, MemRefLayoutAttrInterface(), workgroup), kb->loc);
  kb->func->setAttr(kDynamicSharedAttr, UnitAttr::get(ctx));
  if (k < buffers.size())
    buffers[k] = m;
  else
    buffers.push_back(m);
  return m;
}

std::optional<Lanes> ReductionScheduler::loadHook(Value input, AffineExpr offset,
                                                  unsigned lanes) {
  Unit *u = currentUnit;
  Type elem = elementTypeOf(input);
  if (!u || elem.isInteger(1))
    return std::nullopt;
  OpBuilder &b = kb->b;
  Location loc = kb->loc;
  // rowThreads is the most threads a row may have (the buffers' size),
  // rowThreadsValue the row's threads in this launch.
  if (invariantFirstRow && u->slot >= 0 && sharedByRows(offset, lanes)) {
    // The rows' shared input: the block's first row loads it and keeps it,
    // the later rows read it back (each thread its own slots).
    size_t k = llvm::find(u->invariants, std::make_pair(input, offset)) - u->invariants.begin();
    if (k == u->invariants.size())
      u->invariants.push_back({input, offset});
    Value memref =
        sharedBuffer(invariantBuffers, k, elem, invariantSlots * rowThreads * lanes);
    Type t = lanes > 1 ? Type(VectorType::get({lanes}, elem)) : elem;
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{t}, invariantFirstRow, true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    {
      ExprScope scope(*kb->expander);
      Value v = maskedLoad(input, elem, offset, lanes);
      storeThreadSlot(memref, rowTx, rowThreadsValue, u->slot, lanes, v);
      scf::YieldOp::create(b, loc, v);
    }
    b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    {
      ExprScope scope(*kb->expander);
      scf::YieldOp::create(
          b, loc, loadThreadSlot(memref, rowTx, rowThreadsValue, u->slot, lanes, elem));
    }
    return Lanes{ifOp.getResult(0), lanes == 1};
  }

  if (u->sharedSlot < 0 || !heldInShared(offset, lanes))
    return std::nullopt;
  auto *at = llvm::find(u->inShared, std::make_pair(input, offset));
  size_t k = at - u->inShared.begin();
  Value memref = sharedBuffer(rowBuffers, k, elem, rowSharedSlots * rowThreads * lanes);
  if (at != u->inShared.end()) // a later pass
    return Lanes{loadThreadSlot(memref, rowTx, rowThreadsValue, u->sharedSlot, lanes, elem),
                 lanes == 1};
  Value v = maskedLoad(input, elem, offset, lanes);
  storeThreadSlot(memref, rowTx, rowThreadsValue, u->sharedSlot, lanes, v);
  u->inShared.push_back({input, offset});
  return Lanes{v, lanes == 1};
}

void ReductionScheduler::forgetPass(Unit &u, bool keepComputed) {
  if (keepComputed)
    return;
  u.memo.eraseIf([&](const MemoKey &k) {
    if (!isInput(k.v))
      return true;
    if (u.sharedSlot < 0)
      return false;
    AffineExpr off = toIteration(memoryOffset(k.v, k.idx));
    return llvm::is_contained(u.inShared, std::make_pair(k.v, off));
  });
}

Value mlir::fuser::threadSlotIndex(KernelBuilder &k, Value tx, Value threads, Value slot,
                                   unsigned lanes, unsigned lane) {
  Value u = arith::AddIOp::create(k.b, k.loc, tx, arith::MulIOp::create(k.b, k.loc, threads, slot));
  return arith::AddIOp::create(k.b, k.loc, arith::MulIOp::create(k.b, k.loc, u, k.constant(lanes)),
                               k.constant(lane));
}


Value ReductionScheduler::loadThreadSlot(Value memref, Value tx, Value threads, int64_t slot,
                                         unsigned lanes, Type t) {
  OpBuilder &b = kb->b;
  SmallVector<Value> elems;
  for (unsigned l = 0; l < lanes; ++l)
    elems.push_back(memref::LoadOp::create(
        b, kb->loc, memref, ValueRange{asIndex(threadSlotIndex(*kb, tx, threads, kb->constant(slot), lanes, l))}));
  if (lanes == 1)
    return elems[0];
  return vector::FromElementsOp::create(b, kb->loc, VectorType::get({lanes}, t), elems);
}

void ReductionScheduler::storeThreadSlot(Value memref, Value tx, Value threads, int64_t slot,
                                         unsigned lanes, Value v) {
  OpBuilder &b = kb->b;
  for (unsigned l = 0; l < lanes; ++l) {
    Value e = lanes > 1 ? vector::ExtractOp::create(b, kb->loc, v, ArrayRef<int64_t>{(int64_t)l})
                              .getResult()
                        : v;
    memref::StoreOp::create(
        b, kb->loc, e, memref,
        ValueRange{asIndex(threadSlotIndex(*kb, tx, threads, kb->constant(slot), lanes, l))});
  }
}
