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
// Layout: one buffer per kept access of a unit, [slot][thread][lane], so
// that a unit's lanes are contiguous (one 16-byte access a thread when
// LLVM merges the lane accesses) and consecutive threads are adjacent.
//
//===----------------------------------------------------------------------===//

#include "ReductionScheduler.h"

#include "fuser/Dialect/Fuser/IR/FuserAttrNames.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
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

std::optional<Lanes> ReductionScheduler::loadHook(Value input, AffineExpr offset,
                                                  unsigned lanes) {
  Unit *u = currentUnit;
  Type elem = elementTypeOf(input);
  if (!u || u->sharedSlot < 0 || elem.isInteger(1) || !heldInShared(offset, lanes))
    return std::nullopt;
  OpBuilder &b = kb->b;
  Location loc = kb->loc;
  auto *at = llvm::find(u->inShared, std::make_pair(input, offset));
  size_t buffer = at - u->inShared.begin();
  int64_t elements = rowSharedSlots * rowThreads * lanes;
  if (buffer == rowBuffers.size() ||
      cast<MemRefType>(rowBuffers[buffer].getType()).getElementType() != elem ||
      cast<MemRefType>(rowBuffers[buffer].getType()).getNumElements() < elements) {
    // A buffer per access; the kernel's workgroup memory becomes dynamic
    // (over 48 KiB beside a weight and a bias).
    auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                                gpu::GPUDialect::getWorkgroupAddressSpace());
    Value m = kb->func.addWorkgroupAttribution(
        MemRefType::get({elements}, elem, MemRefLayoutAttrInterface(), workgroup), loc);
    kb->func->setAttr(kDynamicSharedAttr, UnitAttr::get(ctx));
    if (buffer < rowBuffers.size())
      rowBuffers[buffer] = m;
    else
      rowBuffers.push_back(m);
  }
  // rowThreads is the most threads a row may have (the buffer's size),
  // rowThreadsValue the row's threads in this launch.
  Value base = arith::MulIOp::create(
      b, loc,
      arith::AddIOp::create(
          b, loc, rowTx,
          arith::MulIOp::create(b, loc, rowThreadsValue, kb->constant(u->sharedSlot))),
      kb->constant(lanes));
  auto index = [&](unsigned l) {
    return asIndex(arith::AddIOp::create(b, loc, base, kb->constant(l)));
  };
  Value memref = rowBuffers[buffer];
  if (at != u->inShared.end()) {
    // A later pass: the values this thread stored in the first.
    SmallVector<Value> elems;
    for (unsigned l = 0; l < lanes; ++l)
      elems.push_back(memref::LoadOp::create(b, loc, memref, ValueRange{index(l)}));
    if (lanes == 1)
      return Lanes{elems[0], true};
    return Lanes{vector::FromElementsOp::create(b, loc, VectorType::get({lanes}, elem), elems),
                 false};
  }
  Value v = maskedLoad(input, elem, offset, lanes);
  for (unsigned l = 0; l < lanes; ++l) {
    Value e = lanes > 1 ? vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{(int64_t)l})
                              .getResult()
                        : v;
    memref::StoreOp::create(b, loc, e, memref, ValueRange{index(l)});
  }
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
