//===- KernelBuilder.h - shared machinery of the schedulers -----*- C++ -*-===//
//
// FusionEmitter holds what every scheduler of one fusion shares: the shape
// analysis, the target, the gpu.module the kernels go into, and the plan
// function being built (with the plan-side values of every buffer and
// symbol). KernelBuilder builds one gpu.func: its parameters (buffer
// pointers, symbols, flags), index arithmetic from affine expressions, and
// vector loads and stores.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_CONVERSION_FUSERTOGPU_KERNELBUILDER_H
#define FUSER_CONVERSION_FUSERTOGPU_KERNELBUILDER_H


#include "fuser/Analysis/ShapeAnalysis.h"
#include "fuser/Dialect/Fuser/IR/Schedule.h"
#include "fuser/Math/MathExpansion.h"
#include "fuser/Target/Chips.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::fuser {

struct Segment;

/// What the launch heuristics know about a chip: its row of the one chip
/// table (fuser/Target/Chips.h).
using TargetInfo = ChipInfo;

/// Expands affine expressions into integer arithmetic of one type, with a
/// cache per region scope (a value built inside an scf.if does not dominate
/// the code after it).
class ExprExpander {
public:
  /// With `hoistSymbolic`, expressions free of dims are built once at the
  /// start of the function (symbols must then be function arguments).
  ExprExpander(OpBuilder &b, Location loc, Type type,
               std::function<Value(unsigned)> dim,
               std::function<Value(unsigned)> symbol, bool hoistSymbolic = false)
      : b(b), loc(loc), type(type), dim(std::move(dim)),
        symbol(std::move(symbol)), hoistSymbolic(hoistSymbolic) {
    scopes.emplace_back();
  }
  Value expand(AffineExpr e);
  Value constant(int64_t v);
  void pushScope() { scopes.emplace_back(); }
  void popScope() { scopes.pop_back(); }
  Type getType() const { return type; }

private:
  OpBuilder &b;
  Location loc;
  Type type;
  std::function<Value(unsigned)> dim, symbol;
  bool hoistSymbolic;
  SmallVector<DenseMap<AffineExpr, Value>> scopes;
  /// The last op built at the function entry; hoisted ops go after it.
  Operation *lastHoisted = nullptr;
  /// Positions `b` at the function entry, after earlier hoisted ops.
  void setHoistPoint();
  Value build(AffineExpr e);
  /// Whether `e` is never negative: dims, symbols (indices, sizes,
  /// strides), constants >= 0 and what adds, multiplies and divides them
  /// (memoized: an expression is a DAG whose tree may be exponential).
  bool knownNonNegative(AffineExpr e);
  DenseMap<AffineExpr, bool> nonNegative;
};

/// RAII scope of an ExprExpander for the body of a nested region.
struct ExprScope {
  ExprScope(ExprExpander &e) : e(e) { e.pushScope(); }
  ~ExprScope() { e.popScope(); }
  ExprExpander &e;
};

/// Shared state while one fusion becomes kernels and a plan.
class FusionEmitter {
public:
  FusionEmitter(func::FuncOp fusion, const ShapeAnalysis &shapes,
                TargetInfo target, unsigned indexBits, gpu::GPUModuleOp module,
                func::FuncOp plan);

  func::FuncOp fusion;
  const ShapeAnalysis &shapes;
  TargetInfo target;
  unsigned indexBits; ///< 32, 64, or 0 to choose per kernel.
  /// Testing only: a schedule bug to emit on purpose (see EmitKernelsPass).
  std::string plantBug;
  /// Accuracy tier of the transcendental functions (MathBuilder).
  MathAccuracy math = MathAccuracy::Fast;
  /// The caller promises 16-byte aligned tensors (EmitKernelsPass's
  /// assume-aligned): alignment is checked in the plan, never branched on.
  bool assumeAligned = false;
  /// f32 matrix products may multiply as TF32 (EmitKernelsPass's allow-tf32).
  bool allowTf32 = false;
  /// The schedule of the segment being emitted (its `fuser.schedules`
  /// entry); the heuristic decides what it leaves out.
  Schedule schedule;
  /// EmitKernelsPass's explain: a remark a segment naming each kernel, its
  /// index width and block, and what its scheduler decided at emission
  /// (`kernelNote`).
  bool explain = false;
  /// The scheduler's words for the kernel it launches next (the decision and
  /// the rule or key behind it); KernelBuilder::launch takes and clears it.
  std::string kernelNote;
  /// The current segment's kernel lines (explain).
  std::string explained;
  gpu::GPUModuleOp module;
  func::FuncOp plan;
  OpBuilder planBuilder;
  Location loc;
  /// Plan-side memref of each fusion tensor that lives in memory.
  DenseMap<Value, Value> buffers;
  /// Plan-side index value of each symbol.
  SmallVector<Value> symbolValues;

  /// Whether `buffer` (plan side) is covered by assumeAligned: a plan
  /// argument or result, a view of one, or a buffer the plan allocates
  /// (256-byte aligned).
  bool alignmentPromised(Value buffer);
  /// The plan's answer to "is `buffer` aligned to `bytes`": an IsAlignedOp,
  /// or for a promised buffer a constant true, after a fuser.check at the
  /// plan's start (one per caller's buffer) that fails the call, naming the
  /// buffer, when it is not.
  Value planAligned(Value buffer, int64_t bytes);
  /// Expands `e` into index arithmetic in the plan.
  Value planExpr(AffineExpr e);
  Value planConstant(int64_t v);
  /// A fresh kernel name: `<fusion>_<n>`.
  std::string newKernelName();
  /// The index widths to emit for a kernel touching tensors of at most
  /// `maxElements` elements: {32}, {64}, or {32, 64} (chosen at launch).
  SmallVector<unsigned> indexWidths(AffineExpr maxElements);
  /// The width the segment's schedule (kernel.index_bits) or else the
  /// index-bits option forces; 0: chosen per kernel.
  unsigned forcedIndexBits() const;
  /// The most elements a 32-bit kernel of the segment being emitted may
  /// address: its offsets and grid-stride loop values stay below 2^31 for
  /// the largest grid its schedule (`schedule`) can launch.
  int64_t max32BitElements() const;
  /// The plan condition under which the 32-bit variant runs.
  Value planFitsIn32Bits(AffineExpr maxElements);

  /// Set while a segment with an indexing op (gather, index_select) is
  /// emitted: its kernels take the fusion's index error word as their last
  /// extra buffer, and the plan ends with fuser.index_check.
  bool segmentReportsIndexErrors = false;
  /// The index error word: a zeroed memref<kIndexErrorWordSize x i64>
  /// allocated in the plan when the first kernel that reports into it is
  /// built.
  Value indexErrorWord();
  /// The site number of indexing op `op` in the error word (its line in
  /// fuser.index_check's sites).
  unsigned indexSite(Operation *op);
  /// One line per site: the op, its dim and its location.
  ArrayRef<std::string> indexSites() const { return sites; }
  /// Buffers whose alignment the plan already checks (assumeAligned), and
  /// the last of those checks.
  DenseSet<Value> alignmentChecked;
  Operation *lastAlignmentCheck = nullptr;

private:
  Value errorWord;
  DenseMap<Operation *, unsigned> siteOf;
  SmallVector<std::string> sites;
  std::unique_ptr<ExprExpander> planExpander;
  unsigned kernelCount = 0;
};

/// One gpu.func under construction.
class KernelBuilder {
public:
  /// Parameters, in order: a pointer per input buffer (noalias, readonly),
  /// a pointer per output buffer (noalias), a pointer per extra plan buffer
  /// (scratch the scheduler allocates in the plan, noalias), the symbols'
  /// values, then `numFlags` i32 flags. `blockSize` empty: set at launch.
  KernelBuilder(FusionEmitter &fe, StringRef name, unsigned indexBits,
                ArrayRef<Value> inputs, ArrayRef<Value> outputs,
                ArrayRef<unsigned> symbols, unsigned numFlags,
                ArrayRef<int64_t> blockSize, ArrayRef<Value> extraBuffers = {});

  FusionEmitter &fe;
  gpu::GPUFuncOp func;
  OpBuilder b;
  Location loc;
  Type idxTy;
  std::unique_ptr<ExprExpander> expander;

  Value pointer(Value tensor);
  /// The pointer parameter of extra plan buffer `i`.
  Value extraPointer(unsigned i);
  /// The pointer parameter of the fusion's index error word (kernels built
  /// while FusionEmitter::segmentReportsIndexErrors is set).
  Value indexErrorWordPointer();
  Value symbol(unsigned k);
  Value flag(unsigned i);
  Value constant(int64_t v) { return expander->constant(v); }
  /// Thread, block and grid ids as idxTy.
  Value threadId(gpu::Dimension d);
  Value blockId(gpu::Dimension d);
  Value gridDim(gpu::Dimension d);

  /// The element type values of `elementType` have in memory (global or
  /// shared): i1 is a byte, fp8 its code as an i8 (LLVM has no fp8 type).
  static Type memoryType(Type elementType);
  /// A register value (scalar or vector) as memoryType holds it, and back.
  Value toMemory(Value v);
  Value fromMemory(Value v, Type elementType);

  /// Loads `lanes` consecutive elements of `elementType` at element `offset`
  /// of `ptr`: a vector of lanes > 1, aligned to min(16, size) bytes. i1
  /// tensors are stored one byte per element.
  /// `crossBlock`: the value was written by another block of this launch
  /// (kCrossBlockAttr).
  Value load(Value ptr, Type elementType, Value offset, unsigned lanes,
             bool crossBlock = false);
  /// Stores a scalar or vector at element `offset` of `ptr`; `crossBlock`:
  /// another block of this launch reads it.
  void store(Value ptr, Value value, Value offset, bool crossBlock = false);
  /// A device-scope acquire-release fence (PTX `fence.acq_rel.gpu`): this
  /// thread's accesses before it are ordered before its accesses after it,
  /// for every thread of the device.
  void fence();
  /// Atomically adds `value` (i32) to element `offset` of the i32 buffer
  /// `ptr` (relaxed, device scope); returns the old value.
  Value atomicAdd(Value ptr, Value offset, Value value);
  /// Records, unless a thread already did in this call, an index out of
  /// range in the index error word: `value` (the index, any integer type)
  /// met at row-major `element` (idxTy) of indexing op `site`'s result,
  /// where it must be below `bound` (idxTy). Call under the condition.
  void recordIndexError(unsigned site, Value element, Value value, Value bound);
  /// Adds a kernel launch to the plan: grid and block sizes, condition (or
  /// null), flags as plan index values.
  void launch(ArrayRef<Value> grid, ArrayRef<int64_t> block, Value sharedBytes,
              Value condition, ArrayRef<Value> flags);
  /// As launch, with block sizes computed by the plan.
  void launch(ArrayRef<Value> grid, ArrayRef<Value> block, Value sharedBytes,
              Value condition, ArrayRef<Value> flags);

  /// The most threads any launch of this kernel has: registers are capped
  /// at what such a block may use (`.maxnreg`, 64 for 1024 threads), or the
  /// launch would fail for lack of registers. Not `.maxntid`: with it ptxas
  /// aims at full occupancy (32 registers for 512 threads) and spills to get
  /// there. Kernels whose block size is fixed get `.maxntid` from their
  /// known block size.
  void setMaxThreadsPerBlock(int64_t threads);
  /// Caps the registers a thread may use at `regs` (`.maxnreg`), below any
  /// cap setMaxThreadsPerBlock set: ptxas spills what does not fit.
  void capRegisters(int64_t regs);

  void finish() { gpu::ReturnOp::create(b, loc); }

private:
  SmallVector<Value> inputs, outputs, extras;
  SmallVector<unsigned> symbols;
  unsigned numFlags;
  bool reportsIndexErrors = false;
};

/// A segment's inputs as kernel parameters: fusion arguments in signature
/// order, then intermediates in order of first use.
SmallVector<Value> orderedInputs(const Segment &segment);

/// The symbols (dynamic dims) the shapes of a segment's values use: the only
/// ones its kernels take as parameters, so that a kernel never receives a
/// size it does not index with (a 32-bit kernel of a small output was handed
/// the 2^31-element dim of another output, and the call failed).
SmallVector<unsigned> segmentSymbols(const ShapeAnalysis &shapes, const Segment &segment);

/// Builds the kernel(s) and plan launches of one segment.
LogicalResult emitPointwiseSegment(FusionEmitter &fe, const Segment &segment);
/// A pointwise segment whose index_add reads a long index: the kernel of
/// tiles of rows (IndexAddScheduler.cpp). False, having emitted nothing,
/// where the segment does not take it.
bool emitIndexAddSegment(FusionEmitter &fe, const Segment &segment);
/// The same for a scan segment (ScanScheduler.cpp): `scan` is its cumsum.
LogicalResult emitScanSegment(FusionEmitter &fe, const Segment &segment, Operation *scan);
/// A matmul or linear segment: a fuser.gemm in the plan, no kernel.
LogicalResult emitMatmulSegment(FusionEmitter &fe, const Segment &segment);
/// A collective segment: a fuser.communicate in the plan, no kernel.
LogicalResult emitCollectiveSegment(FusionEmitter &fe, const Segment &segment);

} // namespace mlir::fuser

#endif
