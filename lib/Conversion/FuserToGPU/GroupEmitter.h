//===- GroupEmitter.h - values of a group's tensors on demand --*- C++ -*-===//
//
// The machinery every scheduler shares: the symbolic index analysis of a
// group (how each input is read, expressed in the group's iteration dims),
// the choice of iteration space (merged dims, lanes), and the emission of a
// tensor's value at an index on demand, from the group's inputs, with
// results memoized per unit. Schedulers derive from GroupEmitter and build
// their kernel shapes around it.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_CONVERSION_FUSERTOGPU_GROUPEMITTER_H
#define FUSER_CONVERSION_FUSERTOGPU_GROUPEMITTER_H

#include "KernelBuilder.h"

#include "fuser/Analysis/IndexMath.h"
#include "fuser/Transforms/Segments.h"

#include "mlir/IR/AffineExpr.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/Hashing.h"

namespace mlir::fuser {

/// A value computed for one unit: a scalar shared by all lanes, or a vector.
struct Lanes {
  Value value;
  bool uniform;
};

/// A value at an index, computed for `lanes` lanes.
struct MemoKey {
  Value v;
  Index idx;
  unsigned lanes;
};

struct MemoKeyInfo {
  static MemoKey getEmptyKey() { return {DenseMapInfo<Value>::getEmptyKey(), {}, 0}; }
  static MemoKey getTombstoneKey() {
    return {DenseMapInfo<Value>::getTombstoneKey(), {}, 0};
  }
  static unsigned getHashValue(const MemoKey &k) {
    return llvm::hash_combine(k.v.getAsOpaquePointer(), k.lanes, k.idx.linear,
                              llvm::hash_combine_range(k.idx.exprs.begin(), k.idx.exprs.end()));
  }
  static bool isEqual(const MemoKey &a, const MemoKey &b) {
    return a.v == b.v && a.lanes == b.lanes && a.idx == b.idx;
  }
};

/// The values already emitted for the unit being built: a hash map (a list
/// searched linearly made emission quadratic in the fusion's size), with an
/// undo log so that what was emitted inside a region is forgotten when the
/// region ends (it does not dominate what follows).
class Memo {
public:
  std::optional<Lanes> lookup(const MemoKey &k) const {
    auto it = map.find(k);
    if (it == map.end())
      return std::nullopt;
    return it->second;
  }
  void insert(const MemoKey &k, Lanes l) {
    if (map.try_emplace(k, l).second)
      log.push_back(k);
  }
  size_t mark() const { return log.size(); }
  /// Forgets everything inserted since `mark`.
  void restore(size_t mark) {
    while (log.size() > mark)
      map.erase(log.pop_back_val());
  }
  void clear() {
    map.clear();
    log.clear();
  }
  /// Forgets the entries whose key satisfies `pred`.
  void eraseIf(function_ref<bool(const MemoKey &)> pred) {
    SmallVector<MemoKey> kept;
    for (MemoKey &k : log) {
      if (pred(k))
        map.erase(k);
      else
        kept.push_back(k);
    }
    log = std::move(kept);
  }

private:
  DenseMap<MemoKey, Lanes, MemoKeyInfo> map;
  SmallVector<MemoKey> log;
};

/// Static shared memory a block may hold (without the dynamic opt-in that
/// kDynamicSharedAttr asks for).
inline constexpr int64_t kStaticSharedBytes = 48 * 1024;

inline unsigned byteSize(Type t) {
  return t.isInteger(1) ? 1 : t.getIntOrFloatBitWidth() / 8;
}

inline Type elementTypeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

/// One contribution of a scatter (scatter_add, index_add) added into its
/// element: `acc + s` in the element type, rounded after the addition
/// (16-bit floats through f32, as c10::Half does; integers wrap), which is
/// PyTorch's CPU order of rounding.
Value scatterAccumulate(OpBuilder &b, Location loc, Value acc, Value s);

class GroupEmitter {
public:
  GroupEmitter(FusionEmitter &fe, const Segment &seg)
      : fe(fe), seg(seg), ctx(fe.fusion.getContext()),
        numSymbols(fe.shapes.symbols().size()) {}
  virtual ~GroupEmitter() = default;

protected:
  // -- symbolic analysis ------------------------------------------------------
  ArrayRef<AffineExpr> shapeOf(Value v) { return fe.shapes.shape(v); }
  SmallVector<AffineExpr> multiIndex(Value v, const Index &idx) {
    return multiIndexIn(shapeOf(v), idx);
  }
  AffineExpr linearIndex(Value v, const Index &idx) { return linearIndexIn(shapeOf(v), idx, ctx); }
  /// The element offset at which input `v` holds its element at `idx`: the
  /// row-major linear index, or for a fusion argument that is a view
  /// (`fuser.strides`) the sum of the index times the strides.
  AffineExpr memoryOffset(Value v, const Index &idx) {
    ArrayRef<AffineExpr> strides = fe.shapes.strides(v);
    if (strides.empty())
      return linearIndex(v, idx);
    AffineExpr e = getAffineConstantExpr(0, ctx);
    for (auto [i, s] : llvm::zip(multiIndex(v, idx), strides))
      e = e + i * s;
    return simplify(e, refRank, numSymbols);
  }
  /// The stride in elements of input `v` along `dim`: the view's, or the
  /// product of the later sizes.
  AffineExpr memoryStride(Value v, unsigned dim) {
    ArrayRef<AffineExpr> strides = fe.shapes.strides(v);
    if (!strides.empty())
      return strides[dim];
    AffineExpr stride = getAffineConstantExpr(1, ctx);
    for (AffineExpr size : shapeOf(v).drop_front(dim + 1))
      stride = stride * size;
    return simplify(stride, 0, numSymbols);
  }
  /// The index of operand `i` of `op` for result index `idx`.
  Index operandIndex(Operation *op, unsigned i, const Index &idx);
  void analyze(Value v, const Index &idx);
  bool isInput(Value v) { return seg.inputs.contains(v); }

  /// The most elements any tensor of the segment's kernel has: `own` (its
  /// iteration space) and the segment's inputs; where they are not all
  /// constants, their sum (a bound of each).
  AffineExpr maxElementsWith(AffineExpr own);
  /// The index widths a kernel touching at most `maxElements` elements
  /// needs and, where it needs both, the plan's i1 that 32 bits suffice.
  struct IndexWidths {
    SmallVector<unsigned> widths;
    Value fits32;
  };
  IndexWidths planIndexWidths(AffineExpr maxElements);
  /// Calls `emitVariant(width)` for each of `widths`, with variantCondition
  /// set to the plan's condition for that width (null for the only one).
  void forEachIndexWidth(const IndexWidths &widths, function_ref<void(unsigned)> emitVariant);
  void forEachIndexWidth(AffineExpr maxElements, function_ref<void(unsigned)> emitVariant) {
    forEachIndexWidth(planIndexWidths(maxElements), emitVariant);
  }

  // -- vector accesses (VectorAccesses.cpp: one definition for every
  //    scheduler) -------------------------------------------------------------
  /// Chooses vectorLanes, at most `lanes`, and what the plan checks at launch
  /// before the vector body may run (divisibility, alignment): with
  /// `wholeRows`, rows of the innermost iteration dim hold whole units (a
  /// static size halves the lanes until they divide it, a dynamic one is
  /// checked); each `contiguous` access (a value and its iteration-space
  /// offset, lane stride 1) starts a unit where every other term of its
  /// offset, and each of `moreTerms`, is a multiple of the lanes (checked at
  /// launch where not known), and its buffer is aligned to the unit's bytes.
  /// A term known not to be a multiple, or an access that is not linear,
  /// leaves one lane and no checks.
  void planLanes(unsigned lanes, bool wholeRows,
                 ArrayRef<std::pair<Value, AffineExpr>> contiguous,
                 ArrayRef<AffineExpr> moreTerms = {});
  /// The plan's i1: every check planLanes chose holds (true with one lane).
  Value planVectorOk();
  /// Whether planVectorOk() holds on every call, known now: every size the
  /// vectors need divisible at compile time, and alignment promised
  /// (assume-aligned) or not needed. Then no scalar body or misaligned
  /// fallback is needed.
  bool vectorsAlwaysOk() const;
  /// In the kernel: i1, whether the plan's vector flag (the kernel's flag
  /// `vectorFlag`) is set.
  Value vectorFlagSet(KernelBuilder &k);
  /// body(vectorLanes) where the kernel's flag says the vector accesses are
  /// aligned and whole, body(1) elsewhere (only body(1) without lanes).
  void emitVectorOrScalar(function_ref<void(unsigned)> body);
  /// In a kernel of vector units that must also run where the plan's checks
  /// fail (rows of a static length, whole vector units, whose buffers may
  /// be misaligned): the kernel's i1 that they hold. While set, each vector
  /// access of a fusion buffer reads or writes its unit with one vector
  /// access where it holds and lane by lane where it does not, so that one
  /// kernel serves both (the arithmetic, most of a normalization's code,
  /// is emitted and compiled once). Null elsewhere.
  Value unitAccessesAligned;
  /// Loads `lanes` consecutive elements of buffer `v` from element
  /// `offset`: one access, or under unitAccessesAligned, one where it
  /// holds and lane by lane elsewhere.
  Value loadUnit(Value v, Type elem, Value offset, unsigned lanes);
  /// Stores `value` (scalar or vector) to buffer `v` at element `offset`,
  /// as loadUnit reads.
  void storeUnit(Value v, Value value, Value offset);

  /// Gives `k` an expander whose dims are the iteration dims' current
  /// values (iterValues) and whose symbols are its size parameters, with
  /// expressions of symbols alone built once at the kernel's start.
  void indexByIteration(KernelBuilder &k);

  /// Maps a d-space expression to the merged iteration space.
  AffineExpr toIteration(AffineExpr e) {
    return simplify(e.replaceDims(dimSubstitution), numIterDims, numSymbols);
  }
  /// The coefficient of the lane dim in an iteration-space expression, when
  /// it is a constant.
  std::optional<int64_t> laneStride(AffineExpr e) {
    if (numIterDims == 0)
      return 0;
    auto c = linearCoefficients(e, numIterDims);
    if (!c)
      return std::nullopt;
    AffineExpr s = simplify((*c)[numIterDims], 0, numSymbols);
    if (auto k = dyn_cast<AffineConstantExpr>(s))
      return k.getValue();
    return std::nullopt;
  }
  // -- concat pieces (ConcatPieces.cpp) ---------------------------------------
  /// Splits the ref dim that the analyzed concats run along into pieces
  /// that each concat takes from one operand alone (sets `pieces`); false
  /// when no such split exists, it would take more than a few pieces, or
  /// pieces along the lane dim would not hold whole units of `unitLanes`.
  /// Interleaved pieces along the lane dim only where the kernel has
  /// `lanesNow` 1 (no vector units to lose). Call after planIterationSpace
  /// (it reads laneDim).
  bool planConcatPieces(unsigned unitLanes, unsigned lanesNow);
  /// The blocked split alone (pieces of consecutive positions).
  bool planBlockedPieces(unsigned unitLanes);
  /// `idx` (d-space) at piece `p` of the split dim: that dim d becomes
  /// d + p * pieces.size (blocked) or d * pieces.count + p (interleaved);
  /// `idx` itself without a split.
  Index pieceIndex(const Index &idx, unsigned p);
  /// The operand a concat takes its elements at `idx` from, where the split
  /// into pieces makes it the same operand for the whole unit; none
  /// otherwise (and for any other op).
  std::optional<unsigned> concatOperandOfPiece(Operation *op, const Index &idx);
  /// The split for a kernel's explain note: "2 pieces of 32 along dim 3
  /// (a concat's operands)".
  std::string piecesNote() const;
  /// Forgets the analysis and the lanes' plan, to plan again.
  void resetAnalysis();

  /// Chooses the iteration space: drops dims of size 1 and merges adjacent
  /// dims that every access treats as one row-major dim. With `dimClass`,
  /// only dims of the same class merge (a reduction keeps its reduced dims
  /// apart from the kept ones).
  /// With `order` (a permutation of the d-dims), the iteration dims follow
  /// it instead of the reference's order: its last live dim is the lane dim.
  void planIterationSpace(ArrayRef<int> dimClass = {}, ArrayRef<unsigned> order = {});
  /// The index of `operand` of a reshape whose result is read at row-major
  /// `linear`, where a scheduler knows a better form than the linear one
  /// (the multi-index its own values are memoized under); none otherwise.
  virtual std::optional<Index> viewIndex(Value operand, AffineExpr linear) {
    return std::nullopt;
  }
  /// A replacement for reading `input` at `offset` (iteration space), e.g.
  /// from shared memory; none to read global memory.
  virtual std::optional<Lanes> loadHook(Value input, AffineExpr offset, unsigned lanes) {
    return std::nullopt;
  }

  // -- emission ---------------------------------------------------------------
  /// The value of `v` at `idx`: operands first, by an explicit stack (a
  /// chain of ten thousand ops must not recurse ten thousand times), each
  /// value once per unit (memo).
  Lanes emit(Value v, const Index &idx, unsigned lanes);
  /// Emits one value whose operands emit() has already emitted.
  Lanes emitOne(Value v, const Index &idx, unsigned lanes);
  /// Whether emitting `v` emits its operands at its own index, so that
  /// emit() can emit them first (elementwise ops and views); not pads and
  /// concats, whose operands are emitted inside the branches that pick them.
  bool emitsOperandsFirst(Value v);
  /// Loads input `v` at iteration-space `offset`; under `loadMask`, only
  /// where the mask holds (zeros elsewhere).
  Value maskedLoad(Value v, Type elem, AffineExpr offset, unsigned lanes);
  Lanes emitOp(Operation *op, const Index &idx, unsigned lanes);
  Lanes emitScalarized(Value v, const Index &idx, unsigned lanes);
  /// A gather's or index_select's elements at `idx`: the index checked
  /// against the table's extent, the table read only in range, an index
  /// out of range recorded in the fusion's index error word.
  Lanes emitIndexing(Operation *op, const Index &idx, unsigned lanes);
  /// A scatter_add's or index_add's element at `idx`: self's element plus,
  /// in order along the index's line, every source element whose index
  /// names it; out-of-range indices recorded in the index error word.
  Lanes emitScatter(Operation *op, const Index &idx, unsigned lanes);
  /// A gather's or index_select's table access for its result's element
  /// at `idx` (d-space): the offset with the index taken as 0, and the
  /// table's stride along dim (what the index value multiplies).
  std::pair<AffineExpr, AffineExpr> tableAccess(Operation *op, const Index &idx);
  /// The table offset of emitIndexing's element at `idx` for index value
  /// `wide` (i64): the element with the index taken as 0, plus the index
  /// times the table's stride along dim.
  Value tableOffset(Operation *op, const Index &idx, Value wide);
  /// Records `index` (out of range at the element `idx` of op's result,
  /// where it must be below `bound`) when `live` (or always, if null).
  void reportIndexError(Operation *op, const Index &idx, Value live, Value inRange,
                        Value index, Value bound);
  /// The index expression `e` at each lane (`e`, `e + 1`, ...: iota's and
  /// the random ops' per-lane indices), uniform when `e` does not move
  /// with the lane; none when its lane stride is not 0 or 1 (scalarize).
  std::optional<Lanes> laneIndices(AffineExpr e, unsigned lanes);
  Value materialize(Lanes x, unsigned lanes);
  Index shiftLane(const Index &idx, Value v, int64_t by);
  /// `v` (an idxTy value) as an index, for shared-memory subscripts.
  Value asIndex(Value v);

  FusionEmitter &fe;
  const Segment &seg;
  MLIRContext *ctx;
  unsigned numSymbols;

  Value ref;
  SmallVector<AffineExpr> refShape;
  unsigned refRank = 0;

  // Analysis results.
  bool mergeable = true;
  SmallVector<std::pair<Value, AffineExpr>> leafOffsets; // d-space
  /// Per leaf: read only where a pad or concat picks it, so that its offset
  /// may lie outside the input elsewhere (it must not be read there).
  SmallVector<bool> leafGuarded;
  /// Index expressions ops compute from their own shape (random ops'), in
  /// d-space: not accesses, but the iteration space must express them.
  SmallVector<AffineExpr> indexOffsets;
  /// index_select's table reads (d-space): the offset of the element with
  /// the index taken as 0, and the table's stride along dim. Where the
  /// index is one value for a unit's lanes and the offset moves by 1 with
  /// the lane, the unit's elements are one vector load; a scheduler that
  /// puts these accesses in its vector checks (divisibility of the stride,
  /// alignment of the table) sets `vectorTables`.
  struct TableRead {
    Operation *op;
    AffineExpr base, stride;
  };
  SmallVector<TableRead> tableReads;
  bool vectorTables = false;
  DenseSet<MemoKey, MemoKeyInfo> visited; ///< (value, index) pairs analyzed
  /// The concats analyzed, each at the index it was reached at (d-space).
  SmallVector<std::pair<Operation *, Index>> concatAccesses;
  /// A ref dim split into `count` pieces of `size` elements (ConcatPieces.cpp):
  /// the iteration space covers one piece along `dim`, and a unit computes
  /// its elements in every piece. Blocked pieces are runs of consecutive
  /// positions; interleaved ones take every count-th. No split when count
  /// is 1.
  struct ConcatPieces {
    int dim = -1;
    int64_t size = 0;
    unsigned count = 1;
    bool interleaved = false;
  };
  ConcatPieces pieces;

  // The iteration space: merged dims m_0..m_{q-1} with sizes iterSizes.
  SmallVector<AffineExpr> dimSubstitution; // d_k -> m-space
  SmallVector<AffineExpr> iterSizes;
  unsigned numIterDims = 0;
  int laneDim = -1; ///< The d-space dim that maps to the lane dim.
  unsigned vectorLanes = 1;
  SmallVector<AffineExpr> divisibility; ///< must be multiples of vectorLanes
  SmallVector<std::pair<Value, unsigned>> alignment; ///< buffer, bytes

  // Emission state.
  KernelBuilder *kb = nullptr;
  SmallVector<Value> iterValues;
  Memo memo;
  /// Values computed elsewhere in the kernel (a reduction's result: uniform
  /// over a row, or one per column lane): emit returns them as they are.
  DenseMap<Value, Lanes> known;
  /// When set (i1 values), loads happen only where both hold: the unit
  /// being emitted may lie past the end of its row (loadMask), the row past
  /// the last row (rowMask).
  Value loadMask, rowMask;
  /// Launch condition of the index-width variant being emitted (or null).
  Value variantCondition;
  /// The kernel flag that holds the plan's vector decision: 0, or another
  /// where several segments share the kernel (a horizontal pointwise
  /// kernel, PointwiseScheduler.cpp).
  unsigned vectorFlag = 0;

  // Transpose shape: the iteration dim inputs are staged along (or -1), the
  // staged accesses and their shared-memory tiles, and where in the tile the
  // current thread reads.
  int transposeDim = -1;
  struct Staged {
    Value input;
    AffineExpr offset; ///< iteration space
    Value tile;        ///< workgroup memref
  };
  SmallVector<Staged> staged;
  Value tileRow, tileCol;
};

} // namespace mlir::fuser

#endif
