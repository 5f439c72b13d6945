//===- GroupAnalysis.cpp - which scheduler can take a set of ops ----------===//

#include "fuser/Analysis/GroupAnalysis.h"

#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "mlir/IR/TypeUtilities.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace mlir::fuser;

bool mlir::fuser::isReductionOp(Operation *op) {
  return isa<SumOp, ProdOp, MaxOp, MinOp, MeanOp, AnyOp, AllOp, VarMeanOp>(op);
}

unsigned mlir::fuser::numOperandsRead(Operation *op) {
  if (isa<RandOp, RandnOp>(op))
    return 2; // seed and offset; `like` lends its shape
  if (isa<SizeOp>(op))
    return 0;
  return op->getNumOperands();
}

bool mlir::fuser::isIndexingOp(Operation *op) {
  return isa<GatherOp, IndexSelectOp, ScatterAddOp, IndexAddOp>(op);
}

bool mlir::fuser::isScatterOp(Operation *op) { return isa<ScatterAddOp, IndexAddOp>(op); }

bool mlir::fuser::isLibraryOp(Operation *op) { return isa<MatmulOp, LinearOp, CollectiveOp>(op); }

bool mlir::fuser::isEpilogueOf(Operation *op, Operation *library) {
  if (!isa<MatmulOp, LinearOp>(library) || op->getNumOperands() != 1 ||
      op->getOperand(0) != library->getResult(0))
    return false;
  if (!library->getResult(0).hasOneUse())
    return epilogueKeepsInput(op, library);
  if (isa<ReluOp>(op))
    return true;
  auto gelu = dyn_cast<GeluOp>(op);
  return gelu && gelu.getApproximate() == GeluApproximation::tanh;
}

bool mlir::fuser::epilogueKeepsInput(Operation *op, Operation *library) {
  auto gelu = dyn_cast<GeluOp>(op);
  if (!isa<MatmulOp, LinearOp>(library) || !gelu || gelu.getApproximate() != GeluApproximation::tanh ||
      gelu->getOperand(0) != library->getResult(0) || library->getResult(0).hasOneUse())
    return false;
  auto t = cast<RankedTensorType>(library->getResult(0).getType());
  Type e = t.getElementType();
  if (!(e.isF16() || e.isBF16() || e.isF32()) || t.getRank() == 0)
    return false;
  int64_t n = t.getShape().back();
  // A 1-D rhs makes n 1: no row of 8.
  if (auto mm = dyn_cast<MatmulOp>(library); mm && mm.getRhs().getType().getRank() == 1)
    return false;
  return !ShapedType::isDynamic(n) && n > 0 && n % 8 == 0;
}

Operation *mlir::fuser::biasGradientOf(ArrayRef<Operation *> ops, Operation *library,
                                       const ShapeAnalysis &shapes) {
  auto mm = dyn_cast<MatmulOp>(library);
  if (!mm || ops.empty() || ops.size() > 3 || mm.getLhs().getType().getRank() != 2 ||
      mm.getRhs().getType().getRank() != 2)
    return nullptr;
  auto transposed = mm.getLhs().getDefiningOp<PermuteOp>();
  if (!transposed || transposed.getPerm() != ArrayRef<int64_t>{1, 0})
    return nullptr;
  RankedTensorType d = mm.getType();
  Type e = d.getElementType();
  if (!(e.isF16() || e.isBF16() || e.isF32()) || ShapedType::isDynamic(d.getDimSize(1)) ||
      d.getDimSize(1) <= 0)
    return nullptr;
  auto inOps = [&](Operation *op) { return op && llvm::is_contained(ops, op); };
  SumOp sum;
  for (Operation *op : ops)
    if (auto s = dyn_cast<SumOp>(op))
      sum = s;
  if (!sum || sum.getKeepdim())
    return nullptr;
  // g, perhaps through a cast to f32 that only the sum reads.
  Value g = sum.getInput();
  unsigned chain = 1;
  if (auto widen = g.getDefiningOp<CastOp>(); inOps(widen)) {
    if (!widen->hasOneUse() || !getElementTypeOrSelf(widen.getType()).isF32())
      return nullptr;
    g = widen.getInput();
    ++chain;
  }
  auto gt = cast<RankedTensorType>(g.getType());
  if (gt.getElementType() != e || gt.getRank() < 2)
    return nullptr;
  SmallVector<int64_t> rows;
  for (int64_t i = 0; i + 1 < gt.getRank(); ++i)
    rows.push_back(i);
  SmallVector<int64_t> dims(sum.getDims());
  llvm::sort(dims);
  if (dims != rows)
    return nullptr;
  // The GEMM's lhs is g^T, or (g reshaped to rows)^T with g's columns,
  // dense: read with TRANS_A, the one layout of cuBLASLt's bias gradient
  // known to run (Transformer Engine's weight gradient). A view argument
  // could flip the flag.
  Value stored = transposed.getInput();
  if (!shapes.strides(stored).empty() || !shapes.strides(g).empty())
    return nullptr;
  if (stored != g) {
    auto reshape = stored.getDefiningOp<ReshapeOp>();
    if (!reshape || reshape.getInput() != g ||
        shapes.shape(stored).back() != shapes.shape(g).back())
      return nullptr;
  }
  // The sum in the GEMM's type, or in f32 and cast back to it.
  Operation *last = sum;
  if (sum->hasOneUse())
    if (auto narrow = dyn_cast<CastOp>(*sum->getUsers().begin()); inOps(narrow)) {
      last = narrow;
      ++chain;
    }
  if (chain != ops.size() || getElementTypeOrSelf(last->getResult(0).getType()) != e)
    return nullptr;
  return last;
}

bool mlir::fuser::readsFromMemory(Operation *op, unsigned operand) {
  if (isLibraryOp(op))
    return true; // the library reads its operands from memory
  if (isa<GatherOp, IndexSelectOp>(op))
    return operand == 0; // the table
  if (isScatterOp(op))
    return operand == 1 || operand == 2; // the index and the source
  return false;
}

bool mlir::fuser::isScanOp(Operation *op) {
  return isa<CumsumOp, CumprodOp, CummaxOp, CumminOp>(op);
}

std::string mlir::fuser::whyInMemory(Operation *op) {
  std::string name = "'" + op->getName().getStringRef().str() + "'";
  if (isa<CollectiveOp>(op))
    return name + " is communication among devices (NCCL): a segment of its own, whose "
                  "input must be in memory, written by an earlier kernel";
  if (isLibraryOp(op))
    return name + " is a library call (cuBLASLt): a segment of its own, whose operands must "
                  "be in memory, written by an earlier kernel";
  if (isScatterOp(op))
    return name + " reads its index and source along whole lines: they must be in memory, "
                  "written by an earlier kernel";
  return name + " reads its input at positions computed from data: the input must be in "
                "memory, written by an earlier kernel";
}

Operation *mlir::fuser::gatherOfOwnValue(ArrayRef<Operation *> group) {
  Operation *found = nullptr;
  for (Operation *op : group)
    if (isIndexingOp(op))
      found = op;
  if (!found)
    return nullptr;
  llvm::SmallPtrSet<Operation *, 16> members(group.begin(), group.end());
  for (Operation *op : group)
    for (OpOperand &operand : op->getOpOperands())
      if (readsFromMemory(op, operand.getOperandNumber()))
        if (Operation *def = operand.get().getDefiningOp(); def && members.contains(def))
          return op;
  return nullptr;
}

StringRef mlir::fuser::groupKindName(GroupKind kind) {
  switch (kind) {
  case GroupKind::Pointwise: return "pointwise";
  case GroupKind::Reduction: return "reduction";
  case GroupKind::Normalization: return "normalization";
  case GroupKind::InnerOuter: return "inner-outer";
  case GroupKind::Scan: return "scan";
  case GroupKind::Matmul: return "matmul";
  case GroupKind::Collective: return "collective";
  }
  return "?";
}

static constexpr GroupKind kAllGroupKinds[] = {
    GroupKind::Pointwise, GroupKind::Reduction, GroupKind::Normalization, GroupKind::InnerOuter,
    GroupKind::Scan,      GroupKind::Matmul,    GroupKind::Collective};

std::optional<GroupKind> mlir::fuser::parseGroupKind(StringRef name) {
  for (GroupKind kind : kAllGroupKinds)
    if (groupKindName(kind) == name)
      return kind;
  return std::nullopt;
}

std::string mlir::fuser::groupKindNames() {
  std::string names;
  for (size_t i = 0; i < std::size(kAllGroupKinds); ++i) {
    if (i)
      names += i + 1 == std::size(kAllGroupKinds) ? " or " : ", ";
    names += groupKindName(kAllGroupKinds[i]).str();
  }
  return names;
}

static ArrayRef<int64_t> reductionDims(Operation *op) {
  return cast<DenseI64ArrayAttr>(op->getAttr("dims")).asArrayRef();
}

/// Whether `dims` (sorted) are the trailing dims of `shape`, dims of static
/// size 1 aside.
static bool areTrailingDims(ArrayRef<AffineExpr> shape, ArrayRef<int64_t> dims) {
  if (dims.empty())
    return false;
  for (unsigned d = dims.front(); d < shape.size(); ++d) {
    auto c = ShapeAnalysis::constantValue(shape[d]);
    if (!llvm::is_contained(dims, (int64_t)d) && !(c && *c == 1))
      return false;
  }
  return true;
}

/// The product of `shape`'s sizes at `dims` (every dim when `dims` is null).
static AffineExpr productOf(ArrayRef<AffineExpr> shape, std::optional<ArrayRef<int64_t>> dims,
                            MLIRContext *ctx) {
  AffineExpr p = getAffineConstantExpr(1, ctx);
  for (auto [d, e] : llvm::enumerate(shape))
    if (!dims || llvm::is_contained(*dims, (int64_t)d))
      p = p * e;
  return p;
}

std::optional<int64_t> mlir::fuser::rowSegmentsOf(ArrayRef<AffineExpr> rowShape,
                                                  ArrayRef<int64_t> rowDims,
                                                  ArrayRef<AffineExpr> shape,
                                                  ArrayRef<int64_t> dims) {
  SmallVector<int64_t> rd(rowDims), sd(dims);
  llvm::sort(rd);
  llvm::sort(sd);
  if (rowShape.empty() || shape.empty() || !areTrailingDims(rowShape, rd) ||
      !areTrailingDims(shape, sd))
    return std::nullopt;
  // Products compared as a constant times a multiset of the other factors
  // (sizes known only at launch: `s0 * (s1 * 4)` and `s0 * 4 * s1` are one
  // product, which AffineExpr's uniquing does not see).
  struct Factors {
    int64_t constant = 1;
    SmallVector<std::string> others;
    bool operator==(const Factors &o) const {
      return constant == o.constant && others == o.others;
    }
  };
  auto factorsOf = [](ArrayRef<AffineExpr> sizes, std::optional<ArrayRef<int64_t>> dims) {
    Factors f;
    SmallVector<AffineExpr> work;
    for (auto [d, e] : llvm::enumerate(sizes))
      if (!dims || llvm::is_contained(*dims, (int64_t)d))
        work.push_back(e);
    while (!work.empty()) {
      AffineExpr e = work.pop_back_val();
      if (auto c = dyn_cast<AffineConstantExpr>(e)) {
        f.constant *= c.getValue();
      } else if (auto b = dyn_cast<AffineBinaryOpExpr>(e);
                 b && b.getKind() == AffineExprKind::Mul) {
        work.push_back(b.getLHS());
        work.push_back(b.getRHS());
      } else {
        std::string text;
        llvm::raw_string_ostream os(text);
        e.print(os);
        f.others.push_back(text);
      }
    }
    llvm::sort(f.others);
    return f;
  };
  if (!(factorsOf(rowShape, std::nullopt) == factorsOf(shape, std::nullopt)))
    return std::nullopt;
  Factors row = factorsOf(rowShape, ArrayRef(rd)), part = factorsOf(shape, ArrayRef(sd));
  // (Empty rows or parts: nothing to add, and no part to number.)
  if (row.constant <= 0 || part.constant <= 0 || row.others != part.others ||
      row.constant % part.constant || row.constant / part.constant > kMaxRowSegments)
    return std::nullopt;
  return row.constant / part.constant;
}

static bool fail(std::string *whyNot, const Twine &why) {
  if (whyNot)
    *whyNot = why.str();
  return false;
}

/// A scan's group: the scan and ops that compute its input, writing only
/// the scan's results (what reads a scan's result needs a kernel of its
/// own: a scan's kernel finishes an element only once the line before it
/// is combined).
static bool classifyScan(Operation *scan, ArrayRef<Operation *> group, ArrayRef<Value> outputs,
                         std::string *whyNot) {
  for (Operation *op : group) {
    if (op != scan && (isScanOp(op) || isReductionOp(op)))
      return fail(whyNot, "a scan is a kernel of its own beside the ops that compute its input");
    for (Value in : op->getOperands())
      if (in.getDefiningOp() == scan)
        return fail(whyNot, "a value computed from a scan's result needs another kernel");
  }
  for (Value out : outputs)
    if (out.getDefiningOp() != scan)
      return fail(whyNot, "a scan's kernel writes the scan's results only");
  return true;
}

FailureOr<GroupInfo> mlir::fuser::classifyGroup(ArrayRef<Operation *> group,
                                                ArrayRef<Value> outputs,
                                                const ShapeAnalysis &shapes,
                                                std::string *whyNot) {
  GroupInfo info;
  for (Operation *op : group)
    if (isLibraryOp(op)) {
      // Alone, or with the activation cuBLASLt applies in its epilogue, or
      // with the bias gradient it writes beside the product.
      SmallVector<Operation *> rest;
      for (Operation *other : group)
        if (other != op)
          rest.push_back(other);
      bool withEpilogue = rest.size() == 1 && isEpilogueOf(rest.front(), op);
      if (!rest.empty() && !withEpilogue && !biasGradientOf(rest, op, shapes)) {
        fail(whyNot, whyInMemory(op));
        return failure();
      }
      info.kind = isa<CollectiveOp>(op) ? GroupKind::Collective : GroupKind::Matmul;
      return info;
    }
  if (Operation *g = gatherOfOwnValue(group)) {
    fail(whyNot, whyInMemory(g));
    return failure();
  }
  for (Operation *op : group)
    if (isScanOp(op)) {
      if (!classifyScan(op, group, outputs, whyNot))
        return failure();
      info.kind = GroupKind::Scan;
      info.scan = op;
      return info;
    }
  for (Operation *op : group)
    if (isReductionOp(op))
      info.reductions.push_back(op);

  if (info.reductions.empty()) {
    // Pointwise: one iteration space, that of the outputs.
    for (Value out : outputs)
      if (shapes.shape(out) != shapes.shape(outputs.front())) {
        fail(whyNot, "outputs of a pointwise group differ in shape");
        return failure();
      }
    info.kind = GroupKind::Pointwise;
    return info;
  }

  // LLVM's time on one kernel grows faster than its size: 30 chained
  // softmaxes in one normalization kernel (60 passes over a row held in
  // registers) took 7 s to compile, 100 took 107 s. Past this many
  // reductions a group splits (each split costs one write and one read of
  // the row), so compile time stays linear in the fusion's size.
  if (info.reductions.size() > kMaxReductionsPerKernel) {
    fail(whyNot, "more than " + Twine(kMaxReductionsPerKernel) +
                     " reductions in one kernel (compile time grows faster than the kernel)");
    return failure();
  }

  // One reduction domain (the same input shape and the same reduced dims),
  // or two over the same shape whose dims are complementary: the row and
  // the column domain of an inner-outer group. Reductions over another
  // shape whose rows are parts of the domain's rows (rowSegmentsOf) join
  // the domain's rows as row segments. The domain is the first reduction's
  // that leaves no other reduction over another shape but such parts.
  auto sortedDims = [](Operation *r) {
    SmallVector<int64_t> dims = llvm::to_vector(reductionDims(r));
    llvm::sort(dims);
    return dims;
  };
  auto segmentsBeside = [&](Operation *r, Operation *ref) -> std::optional<int64_t> {
    return rowSegmentsOf(shapes.shape(ref->getOperand(0)), sortedDims(ref),
                         shapes.shape(r->getOperand(0)), sortedDims(r));
  };
  Operation *first = info.reductions.front();
  for (Operation *candidate : info.reductions) {
    ArrayRef<AffineExpr> s = shapes.shape(candidate->getOperand(0));
    if (llvm::all_of(info.reductions, [&](Operation *r) {
          return ArrayRef<AffineExpr>(shapes.shape(r->getOperand(0))) == s ||
                 segmentsBeside(r, candidate);
        })) {
      first = candidate;
      break;
    }
  }
  info.space = llvm::to_vector(shapes.shape(first->getOperand(0)));
  info.reducedDims = sortedDims(first);
  SmallVector<int64_t> otherDims;
  SmallVector<Operation *> domain, other;
  for (Operation *r : info.reductions) {
    SmallVector<int64_t> dims = sortedDims(r);
    if (ArrayRef<AffineExpr>(shapes.shape(r->getOperand(0))) != ArrayRef(info.space)) {
      if (std::optional<int64_t> k = segmentsBeside(r, first)) {
        info.rowSegments.push_back({r, *k});
        continue;
      }
      fail(whyNot, "reductions over different shapes or dims need separate kernels");
      return failure();
    }
    if (dims == info.reducedDims) {
      domain.push_back(r);
      continue;
    }
    if (!other.empty() && dims != otherDims) {
      fail(whyNot, "reductions over different shapes or dims need separate kernels");
      return failure();
    }
    otherDims = dims;
    other.push_back(r);
  }
  // Each part's block reduction: 16 x 32 values of each accumulator type
  // (Reducer: f32 for narrower floats, var_mean a count, mean and m2).
  int64_t scratch = 0;
  for (auto &[op, k] : info.rowSegments) {
    Type elem = getElementTypeOrSelf(op->getOperand(0).getType());
    int64_t bytes = std::max<int64_t>(4, (elem.getIntOrFloatBitWidth() + 7) / 8);
    scratch += k * 16 * 32 * bytes * (isa<VarMeanOp>(op) ? 3 : 1);
  }
  if (scratch > kMaxRowSegmentScratchBytes) {
    fail(whyNot, "the parts of rows reduced on their own would take more than " +
                     Twine(kMaxRowSegmentScratchBytes) +
                     " bytes of shared memory for their block reductions");
    return failure();
  }
  if (!info.rowSegments.empty() && !other.empty()) {
    fail(whyNot, "reductions over parts of rows beside reductions across rows need "
                 "separate kernels");
    return failure();
  }
  unsigned rank = info.space.size();
  // Whether `dims` are the trailing dims of S (dims of size 1 aside).
  auto isInnerDims = [&](ArrayRef<int64_t> dims) { return areTrailingDims(info.space, dims); };
  if (!other.empty()) {
    // The row domain is the trailing one; the column domain reduces every
    // other dim.
    if (isInnerDims(otherDims)) {
      std::swap(domain, other);
      std::swap(info.reducedDims, otherDims);
    }
    bool complementary = isInnerDims(info.reducedDims) &&
                         info.reducedDims.size() + otherDims.size() == rank;
    for (int64_t d : otherDims)
      complementary &= !llvm::is_contained(info.reducedDims, d);
    if (!complementary) {
      fail(whyNot, "reductions over different shapes or dims need separate kernels");
      return failure();
    }
    AffineExpr row = getAffineConstantExpr(1, shapes.getContext());
    for (int64_t d : info.reducedDims)
      row = row * info.space[d];
    if (auto n = ShapeAnalysis::constantValue(row); n && *n > kInnerOuterMaxRow) {
      fail(whyNot, "rows of more than " + Twine(kInnerOuterMaxRow) +
                       " elements do not stay on chip beside the column reductions' "
                       "accumulators: those need a kernel of their own");
      return failure();
    }
    info.reductions = domain;
    info.outerReductions = other;
  }
  if (!info.rowSegments.empty())
    info.reductions = domain;
  SmallVector<AffineExpr> reduced, reducedKeep;
  for (unsigned d = 0; d < rank; ++d) {
    bool isReduced = llvm::is_contained(info.reducedDims, (int64_t)d);
    if (!isReduced)
      reduced.push_back(info.space[d]);
    reducedKeep.push_back(isReduced ? getAffineConstantExpr(1, shapes.getContext())
                                    : info.space[d]);
  }
  // Inner: every dim after the first reduced one is reduced or of size 1.
  info.inner = true;
  for (unsigned d = info.reducedDims.front(); d < rank; ++d) {
    bool isReduced = llvm::is_contained(info.reducedDims, (int64_t)d);
    auto c = ShapeAnalysis::constantValue(info.space[d]);
    if (!isReduced && !(c && *c == 1))
      info.inner = false;
  }

  // Spaces: S-space values (shape S), R-space values (the reduced shape,
  // with or without kept dims). Track which S values depend on a reduction.
  llvm::DenseSet<Value> dependsOnReduction, dependsOnOuter;
  // The column domain's reduced shape: S without the row domain's kept
  // dims, or with them as 1.
  SmallVector<AffineExpr> outer, outerKeep;
  for (unsigned d = 0; d < rank; ++d) {
    bool isReduced = llvm::is_contained(info.reducedDims, (int64_t)d);
    if (isReduced)
      outer.push_back(info.space[d]);
    outerKeep.push_back(isReduced ? info.space[d] : getAffineConstantExpr(1, shapes.getContext()));
  }
  auto isOuterR = [&](Value v) {
    ArrayRef<AffineExpr> s = shapes.shape(v);
    return s == ArrayRef(outer) || s == ArrayRef(outerKeep);
  };
  auto isS = [&](Value v) { return ArrayRef(shapes.shape(v)) == ArrayRef(info.space); };
  // A reduced-shape value may also add or drop dims of static size 1 (a
  // keepdim=false statistic whose size-1 dims were reduced too, reshaped):
  // its elements are the same rows in the same order.
  auto withoutUnitDims = [](ArrayRef<AffineExpr> shape) {
    SmallVector<AffineExpr> out;
    for (AffineExpr e : shape)
      if (ShapeAnalysis::constantValue(e) != 1)
        out.push_back(e);
    return out;
  };
  SmallVector<AffineExpr> reducedCore = withoutUnitDims(reduced);
  auto isExactR = [&](Value v) {
    ArrayRef<AffineExpr> s = shapes.shape(v);
    return s == ArrayRef(reduced) || s == ArrayRef(reducedKeep);
  };
  auto isR = [&](Value v) {
    return isExactR(v) || withoutUnitDims(shapes.shape(v)) == reducedCore;
  };
  bool sAfterReduction = false;
  llvm::SmallPtrSet<Operation *, 32> inGroup(group.begin(), group.end());
  auto isRowSegment = [&](Operation *op) { return info.rowSegmentsOf(op) > 0; };
  for (Operation *op : group) {
    auto reads = op->getOperands().take_front(numOperandsRead(op));
    if (isRowSegment(op)) {
      // Written when its rows end, read by nothing in the kernel (that
      // would need the value of another part of the row).
      for (Value r : op->getResults())
        for (Operation *user : r.getUsers())
          if (inGroup.contains(user)) {
            fail(whyNot, "a reduction over parts of rows is read in the rows' kernel: "
                         "that needs another kernel");
            return failure();
          }
      continue;
    }
    if (llvm::is_contained(info.outerReductions, op)) {
      if (!isS(op->getOperand(0))) {
        fail(whyNot, "a reduction input is not of the reduced shape");
        return failure();
      }
      for (Value r : op->getResults())
        dependsOnOuter.insert(r);
      continue;
    }
    if (llvm::any_of(reads, [&](Value v) { return dependsOnOuter.contains(v); })) {
      // After the column reductions: values of their reduced shape that the
      // combine kernel computes per column, never used by the row work (that
      // would need every row block to have finished).
      // (A row reduction of such a value is row work too: over a [1, 1]
      // tensor both domains have the column's shape, and the emitter
      // found no value for its input: a SIGSEGV.)
      if (llvm::any_of(reads, [&](Value v) { return dependsOnReduction.contains(v); }) ||
          isReductionOp(op) ||
          isa<PermuteOp, SliceOp, PadOp, ConcatOp, BroadcastOp, IndexSelectOp>(op) ||
          llvm::any_of(op->getResults(), [&](Value r) { return !isOuterR(r); })) {
        fail(whyNot, "a value computed from a reduction across rows feeds the rows' "
                     "computation or is moved: that needs another kernel");
        return failure();
      }
      for (Value r : op->getResults())
        dependsOnOuter.insert(r);
      continue;
    }
    if (isReductionOp(op)) {
      if (!isS(op->getOperand(0))) {
        fail(whyNot, "a reduction input is not of the reduced shape");
        return failure();
      }
      for (Value r : op->getResults())
        dependsOnReduction.insert(r);
      continue;
    }
    bool fromReduction =
        llvm::any_of(reads, [&](Value v) { return dependsOnReduction.contains(v); });
    // Values computed from a reduction live in the registers of the row
    // they belong to: an op that reads another element than its own index
    // (permute, slice, pad, concat; a reshape other than adding or dropping
    // the reduced unit dims) would need other rows' values, even where the
    // shapes match (a square permute).
    // A reshape of an S value (or of a view of S) renumbers nothing: the
    // element at each row-major index stays in its row, so the kernel
    // computes the view at the S element of the same index.
    auto isSOrView = [&](Value v) { return isS(v) || info.sViews.contains(v); };
    bool makesView = false;
    if (fromReduction) {
      bool remaps = isa<PermuteOp, SliceOp, PadOp, ConcatOp, IndexSelectOp>(op);
      if (auto r = dyn_cast<ReshapeOp>(op)) {
        makesView = isSOrView(r.getInput()) && !isS(r.getResult());
        remaps = !(isR(r.getInput()) && isR(r.getResult())) && !makesView &&
                 !(isSOrView(r.getInput()) && isS(r.getResult()));
      } else if (!isa<BroadcastOp>(op)) {
        makesView = llvm::any_of(reads, [&](Value v) { return info.sViews.contains(v); });
      }
      if (remaps) {
        fail(whyNot, "a value computed from a reduction is permuted, reshaped, "
                     "sliced, padded or concatenated: that needs another kernel");
        return failure();
      }
    }
    for (Value r : op->getResults()) {
      if (!fromReduction)
        continue;
      dependsOnReduction.insert(r);
      if (isS(r)) {
        sAfterReduction = true;
        // The way back from reduced values to S: a broadcast along exactly
        // the reduced dims.
        if (auto b = dyn_cast<BroadcastOp>(op)) {
          Value src = b.getInput();
          if (dependsOnReduction.contains(src) && isR(src)) {
            ArrayRef<int64_t> dims = b.getDims();
            bool keepForm = b.getInput().getType().getRank() == (int64_t)rank;
            SmallVector<int64_t> expected, got;
            if (isExactR(src)) {
              for (unsigned d = 0; d < rank; ++d)
                if (keepForm || !llvm::is_contained(info.reducedDims, (int64_t)d))
                  expected.push_back(d);
              got.assign(dims.begin(), dims.end());
            } else {
              // Another arrangement of size-1 dims: its other dims map to
              // the kept dims not of size 1, and its size-1 dims expand
              // anywhere else (a reduced dim or one of size 1).
              for (unsigned d = 0; d < rank; ++d)
                if (!llvm::is_contained(info.reducedDims, (int64_t)d) &&
                    ShapeAnalysis::constantValue(info.space[d]) != 1)
                  expected.push_back(d);
              ArrayRef<AffineExpr> from = shapes.shape(src);
              for (auto [k, d] : llvm::enumerate(dims))
                if (ShapeAnalysis::constantValue(from[k]) != 1)
                  got.push_back(d);
            }
            if (ArrayRef(expected) != ArrayRef(got)) {
              fail(whyNot, "a reduced value broadcasts along other dims than the reduced ones");
              return failure();
            }
          }
        }
      } else if (makesView) {
        info.sViews.insert(r);
      } else if (!isR(r)) {
        fail(whyNot, "a value computed from a reduction is neither of the reduced "
                     "shape nor of the shape reduced");
        return failure();
      }
    }
  }
  for (Value out : outputs) {
    // S-space outputs that do not depend on a reduction are written as the
    // reduction reads its elements (each element is visited once).
    if (dependsOnOuter.contains(out) || isRowSegment(out.getDefiningOp()))
      continue;
    if (!isS(out) && !isR(out) && !info.sViews.contains(out)) {
      fail(whyNot, "an output is neither of the reduced shape nor of the shape reduced");
      return failure();
    }
  }
  if (!info.outerReductions.empty()) {
    if (!info.sViews.empty()) {
      fail(whyNot, "the rows' values are reshaped beside reductions across rows: "
                   "the column reductions need a kernel of their own");
      return failure();
    }
    info.kind = GroupKind::InnerOuter;
    return info;
  }
  if (!sAfterReduction) {
    info.kind = GroupKind::Reduction;
    return info;
  }
  if (!info.inner) {
    AffineExpr depth = getAffineConstantExpr(1, shapes.getContext());
    for (int64_t d : info.reducedDims)
      depth = depth * info.space[d];
    auto n = ShapeAnalysis::constantValue(depth);
    if (!n || *n > kOuterNormalizationMaxDepth) {
      fail(whyNot, Twine("normalizing along non-trailing dims over ") +
                       (n ? "more than " + Twine(kOuterNormalizationMaxDepth) + " elements"
                          : Twine("an extent known only at launch")) +
                       " needs a reduction kernel and a pointwise kernel (every block of "
                       "a column would have to wait for the others: a grid-wide barrier)");
      return failure();
    }
  }
  info.kind = GroupKind::Normalization;
  return info;
}
