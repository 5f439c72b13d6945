//===- ReductionHeuristics.cpp - how a row or a column is reduced --------===//
//
// See ReductionHeuristics.h.
//
//===----------------------------------------------------------------------===//

#include "ReductionHeuristics.h"

#include "ComputeEstimate.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir::fuser;

/// Values a thread holds of a two-byte row beside the rest of the group's
/// inputs: rows whose held inputs are all two bytes wide (bf16, f16) pack
/// two values to a register, so 512 threads (128 registers each) hold up to
/// 96 values, 72 beside more than one other operand (layer_norm's weight
/// and bias): rows of up to 49152 and 36864 elements, 32-bit indices
/// (test/examples/norm-sizes-ptxas.test). At 104 values rms_norm spilled 4
/// bytes, at 80 layer_norm 20; 1024 threads of 64 values (64 registers
/// each) spilled 236 in softmax.
static int64_t halfRowLimit(const InnerFacts &f) {
  return f.inputs <= 2 ? kPersistentHalfValuesPerThread : kPersistentHalfValuesPerThreadBeside;
}

InnerRow mlir::fuser::chooseInnerRow(const InnerFacts &f) {
  InnerRow row;
  // Threads per row: at least 4 units each, a power of two in [32, 1024];
  // a normalization keeps the row in registers when each thread's share
  // fits, raising the thread count if needed. A count the schedule gives
  // (reduction.threads) is taken as it is: the row stays in registers where
  // its share fits them, else it is read again per pass.
  int64_t units = std::max<int64_t>(1, *f.length / f.lanes);
  auto share = [&](int64_t threads) { return (units + threads - 1) / threads * f.lanes; };
  row.threads = f.threads;
  if (!f.threads) {
    row.threads = 32;
    while (row.threads < 1024 && row.threads * 4 < units)
      row.threads *= 2;
  }
  if (!f.normalization)
    return row;
  // A normalization whose element's arithmetic is compute-bound many times
  // over (a chain of softmaxes) holds one unit a thread, in up to 512
  // threads (128 registers each): each value a thread holds is one more
  // copy of the arithmetic for LLVM to compile, and more threads hide its
  // latency better than more values a thread (ComputeEstimate.h).
  if (!f.threads && f.instructionsPerElement >= kComputeBoundRowInstructions)
    while (row.threads < kComputeBoundRowThreads && row.threads < units)
      row.threads *= 2;
  int64_t perThread = share(row.threads);
  while (!f.threads && row.threads < 1024 && perThread > kPersistentValuesPerThread) {
    row.threads *= 2;
    perThread = share(row.threads);
  }
  row.persistent = perThread <= kPersistentValuesPerThread;
  // Two-byte rows: 512 threads (or the schedule's, if fewer: more registers
  // each) hold up to halfRowLimit values each.
  int64_t halfLimit = halfRowLimit(f);
  int64_t halfThreads = f.threads ? f.threads : 512;
  int64_t halfPerThread = share(halfThreads);
  if (!row.persistent && f.halfRow && f.indexBits == 32 && halfThreads <= 512 &&
      halfPerThread <= halfLimit) {
    row.threads = halfThreads;
    perThread = halfPerThread;
    row.persistent = true;
  }
  // Longer ones, up to 65536 elements, in 512 threads: the values past 64 a
  // thread (40 beside a weight and a bias) in shared memory, 64 KB for
  // softmax's 65536 (88 KB for layer_norm's), stored by the first pass and
  // read by the later ones (RowInShared.cpp), beside the block reductions'
  // scratch.
  int64_t inRegisters = halfLimit - kRowInSharedRegisterRelief;
  int64_t sharedBytes = 512 * (halfPerThread - inRegisters) * 2 + 16 * 32 * 4 * f.reducerValues;
  if (!row.persistent && f.halfRow && f.indexBits == 32 && halfThreads == 512 &&
      halfPerThread <= kPersistentHalfRowValuesPerThread &&
      sharedBytes <= f.sharedMemoryPerBlock) {
    row.threads = 512;
    perThread = halfPerThread;
    row.persistent = true;
    row.rowValuesInRegisters = inRegisters;
  }
  // 64-bit indices leave a thread of 1024 (64 registers) too few for more
  // than 16 values: the row is read again per pass (a tensor of 2^31
  // elements and more; 12 bytes of spills otherwise,
  // test/examples/examples-ptxas.test).
  if (f.indexBits == 64 && row.threads == 1024 && perThread > 16)
    row.persistent = false;
  return row;
}

InnerSplit mlir::fuser::chooseInnerSplit(const InnerFacts &f) {
  // Fewer rows than two waves of blocks (a block of 1024 threads per row
  // would leave SMs idle): each row splits across blocks; the last block of
  // a row to finish combines the partials in split order. Only a single
  // pass: a normalization's later passes need the whole row's result.
  InnerSplit s;
  if (f.splits) {
    s.may = s.must = f.splits > 1 && f.reduction && f.passes == 1;
    return s;
  }
  s.may = f.reduction && f.passes == 1 && (!f.rows || *f.rows < kSplitBlocksTarget / 2) &&
          (!f.length || *f.length >= kInnerSplitMinLength);
  s.must = s.may && f.rows && f.length;
  return s;
}

llvm::SmallVector<DynamicRowKernel> mlir::fuser::dynamicRowKernels(const InnerFacts &f) {
  // Rows of whole vectors stay in registers, in blocks of up to 512 threads
  // (128 registers each), or with 32-bit indices and at most one other
  // operand of 1024 (64 registers: rows up to 32768 elements). Other rows
  // (not whole vectors, or a misaligned buffer) stay in scalar slots with
  // 32-bit indices, kScalarValuesPerThread a thread (each slot has its own
  // mask and address). Longer rows are read again for each pass.
  llvm::SmallVector<DynamicRowKernel> kernels;
  if (!f.normalization || f.length)
    return kernels;
  int64_t perThread = dynamicValuesPerThread(f.indexBits);
  bool wide = f.indexBits == 32;
  if (f.lanes > 1) {
    int64_t small = kMaxDynamicThreads * perThread;
    kernels.push_back({1, small, /*vector=*/true, 0, 0, -1});
    // Longer rows, up to 32768 elements: 1024 threads, 64 registers each;
    // not for a group with more than one operand beside the row
    // (layer_norm's weight and bias): loading both for every slot of the
    // last pass spills at 64 registers (test/examples/norm-sizes-ptxas.test);
    // not for two-byte rows (below: log_softmax over f16 spilled 16 bytes
    // here).
    if (wide && f.inputs <= 2 && !f.halfRow)
      kernels.push_back({small + 1, 1024 * perThread, /*vector=*/true, 1024, 0, -1});
    // Longer two-byte rows, up to 65536 elements: 512 threads of 128 masked
    // values, those past 64 (40 beside a weight and a bias) kept in shared
    // memory between the passes (RowInShared.cpp), as for a static length.
    if (wide && f.halfRow)
      kernels.push_back({small + 1, 512 * kPersistentHalfRowValuesPerThread, /*vector=*/true,
                         512, kPersistentHalfRowValuesPerThread,
                         halfRowLimit(f) - kRowInSharedRegisterRelief});
  }
  if (wide)
    kernels.push_back({1, kMaxDynamicThreads * kScalarValuesPerThread, /*vector=*/false, 0,
                       kScalarValuesPerThread, -1});
  return kernels;
}

OuterBlock mlir::fuser::chooseOuterBlock(std::optional<int64_t> columns,
                                         std::optional<int64_t> depth, unsigned lanes,
                                         bool normalization, OuterKeys keys) {
  OuterBlock block;
  // A narrow kept dim (a channels-last norm's 32 channels are 4 units of 8
  // bf16) would leave most of 32 threads along it without a column: they
  // would repeat the last column's loads. The block then has as many
  // threads along it as it has units (a power of two), and the rest of 256
  // (at most 32) along the reduced dims.
  if (columns) {
    int64_t units = std::max<int64_t>(1, (*columns + lanes - 1) / lanes);
    block.x = std::min<int64_t>(kOuterX, (int64_t)llvm::PowerOf2Ceil(units));
    block.y = std::min<int64_t>(32, kOuterX * kOuterY / block.x);
  }
  // The schedule's block (Schedule.cpp has checked it is at most 1024
  // threads when both are given, and rows alone at most 32); rows follow
  // the threads it gives as above, at least one.
  if (keys.threads) {
    block.x = keys.threads;
    block.y = std::max<int64_t>(1, std::min<int64_t>(32, kOuterX * kOuterY / block.x));
  }
  if (keys.rows)
    block.y = keys.rows;
  // Split the reduced extent across blocks when the column tiles alone
  // would leave most SMs idle and each split still has work (8 steps of
  // the block's rows of threads at least); sizes known only at launch
  // decide in the plan.
  if (keys.splits) {
    block.split = !normalization && keys.splits > 1;
    return block;
  }
  block.split = !normalization &&
                (!columns || !depth ||
                 ((*columns / lanes + block.x - 1) / block.x < kSplitBlocksTarget &&
                  *depth >= 8 * block.y));
  return block;
}
