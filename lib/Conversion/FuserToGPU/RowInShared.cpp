//===- RowInShared.cpp - persistent rows held partly in shared memory -----===//
//
// A normalization keeps its row on chip between its passes. The registers
// of 512 threads hold up to 49152 two-byte values (ReductionScheduler.cpp);
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

bool ReductionScheduler::heldInShared(AffineExpr offset, unsigned lanes) {
  if (lanes > 1 && laneStride(offset) != std::optional<int64_t>(1))
    return false;
  auto dependsOn = [&](ArrayRef<unsigned> dims) {
    return llvm::any_of(dims, [&](unsigned j) { return offset.isFunctionOfDim(j); });
  };
  return dependsOn(keptIter) && dependsOn(reducedIter);
}

bool ReductionScheduler::sharedByRows(AffineExpr offset, unsigned lanes) {
  if (lanes > 1 && laneStride(offset) != std::optional<int64_t>(1))
    return false;
  auto dependsOn = [&](ArrayRef<unsigned> dims) {
    return llvm::any_of(dims, [&](unsigned j) { return offset.isFunctionOfDim(j); });
  };
  return !dependsOn(keptIter) && dependsOn(reducedIter);
}

bool ReductionScheduler::sharedByRows(Value in, bool movesAlongRow) {
  bool read = false, shared = true;
  for (auto &[v, off] : leafOffsets) {
    if (v != in)
      continue;
    read = true;
    AffineExpr o = toIteration(off);
    auto dependsOn = [&](ArrayRef<unsigned> dims) {
      return llvm::any_of(dims, [&](unsigned j) { return o.isFunctionOfDim(j); });
    };
    shared &= !dependsOn(keptIter) && (!movesAlongRow || dependsOn(reducedIter));
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
  // Thread tx's slot `slot` in a [slot][thread][lane] buffer: rowThreads is
  // the most threads a row may have (the buffer's size), rowThreadsValue
  // the row's threads in this launch.
  auto indexer = [&](int64_t slot) {
    Value base = arith::MulIOp::create(
        b, loc,
        arith::AddIOp::create(
            b, loc, rowTx, arith::MulIOp::create(b, loc, rowThreadsValue, kb->constant(slot))),
        kb->constant(lanes));
    return [&b, loc, base, this](unsigned l) {
      return asIndex(arith::AddIOp::create(b, loc, base, kb->constant(l)));
    };
  };
  auto loadShared = [&](Value memref, auto index) {
    SmallVector<Value> elems;
    for (unsigned l = 0; l < lanes; ++l)
      elems.push_back(memref::LoadOp::create(b, loc, memref, ValueRange{index(l)}));
    if (lanes == 1)
      return elems[0];
    return Value(vector::FromElementsOp::create(b, loc, VectorType::get({lanes}, elem), elems));
  };
  auto storeShared = [&](Value v, Value memref, auto index) {
    for (unsigned l = 0; l < lanes; ++l) {
      Value e = lanes > 1 ? vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{(int64_t)l})
                                .getResult()
                          : v;
      memref::StoreOp::create(b, loc, e, memref, ValueRange{index(l)});
    }
  };

  if (invariantFirstRow && u->slot >= 0 && sharedByRows(offset, lanes)) {
    // The rows' shared input: the block's first row loads it and keeps it,
    // the later rows read it back (each thread its own slots).
    size_t k = llvm::find(u->invariants, std::make_pair(input, offset)) - u->invariants.begin();
    if (k == u->invariants.size())
      u->invariants.push_back({input, offset});
    Value memref =
        sharedBuffer(invariantBuffers, k, elem, invariantSlots * rowThreads * lanes);
    auto index = indexer(u->slot);
    Type t = lanes > 1 ? Type(VectorType::get({lanes}, elem)) : elem;
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{t}, invariantFirstRow, true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    {
      ExprScope scope(*kb->expander);
      Value v = maskedLoad(input, elem, offset, lanes);
      storeShared(v, memref, index);
      scf::YieldOp::create(b, loc, v);
    }
    b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    {
      ExprScope scope(*kb->expander);
      scf::YieldOp::create(b, loc, loadShared(memref, index));
    }
    return Lanes{ifOp.getResult(0), lanes == 1};
  }

  if (u->sharedSlot < 0 || !heldInShared(offset, lanes))
    return std::nullopt;
  auto *at = llvm::find(u->inShared, std::make_pair(input, offset));
  size_t k = at - u->inShared.begin();
  Value memref = sharedBuffer(rowBuffers, k, elem, rowSharedSlots * rowThreads * lanes);
  auto index = indexer(u->sharedSlot);
  if (at != u->inShared.end())
    return Lanes{loadShared(memref, index), lanes == 1}; // a later pass
  Value v = maskedLoad(input, elem, offset, lanes);
  storeShared(v, memref, index);
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
    AffineExpr off = toIteration(linearIndex(k.v, k.idx));
    return llvm::is_contained(u.inShared, std::make_pair(k.v, off));
  });
}
