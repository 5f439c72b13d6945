//===- SplitReductions.cpp - reduce in two steps beside a row reduction ---===//
//
// A reduction over dims D of a tensor of shape S, in a fusion that also
// reduces a tensor of shape S over dims D2, a strict subset of D, becomes
// two reductions: one over D2 (keepdim), then one over D. The first shares
// the other reduction's kernel, whose rows it reduces in the same pass; the
// second reads the small reduced tensor.
//
// Why: instance_norm's backward computes dx from per-(n, c) sums over H x W
// (a normalization kernel that holds each row on chip), and dw and db as
// sums over N, H and W. Kept whole, dw and db were a reduction kernel of
// their own that read x and dy a second time. Split, the normalization
// kernel also writes the per-(n, c) sums of dy * xhat and dy, and a small
// kernel adds them over N: x and dy are read once (docs/schedulers.md,
// "Reductions split beside a row reduction").
//
// The row reduction may also be over another shape whose rows are made of
// whole runs of the reduction's trailing dims (group_norm: a (n, g) row of
// the channels' H x W runs): the first step reduces those runs, parts of
// the row kernel's rows (GroupInfo::rowSegments, "Parts of rows").
//
//===----------------------------------------------------------------------===//

#include "SplitReductions.h"

#include "fuser/Analysis/GroupAnalysis.h"
#include "fuser/Analysis/ShapeAnalysis.h"
#include "fuser/Dialect/Fuser/IR/FuserOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fuser;

namespace {
/// A reduction op's input and its reduced dims, sorted.
struct Reduced {
  Operation *op;
  Value input;
  SmallVector<int64_t> dims;
};
} // namespace

static std::optional<Reduced> reducedOf(Operation *op) {
  auto make = [&](Value in, ArrayRef<int64_t> dims) {
    Reduced r{op, in, SmallVector<int64_t>(dims)};
    llvm::sort(r.dims);
    return r;
  };
  if (auto v = dyn_cast<VarMeanOp>(op))
    return make(v.getInput(), v.getDims());
  std::optional<Reduced> r;
  llvm::TypeSwitch<Operation *>(op).Case<SumOp, ProdOp, MaxOp, MinOp, MeanOp, AnyOp, AllOp>(
      [&](auto red) { r = make(red.getInput(), red.getDims()); });
  return r;
}

/// The ops split: sum, mean, max and min (the ones whose two steps compute
/// the same value up to the order of accumulation).
static bool isSplittable(Operation *op) { return isa<SumOp, MeanOp, MaxOp, MinOp>(op); }

/// Whether every reduction or scan that `v` is computed from reduces a
/// tensor of `shape` over `dims`: then `v` is computed in the row kernel of
/// such a reduction, and so is a reduction of `v` over `dims`. Values read
/// from memory (arguments, library results) end the walk.
static bool onlyRowReductionsUpstream(Value v, ArrayRef<AffineExpr> shape,
                                      ArrayRef<int64_t> dims, const ShapeAnalysis &shapes) {
  SmallVector<Value> work{v};
  llvm::SmallPtrSet<Operation *, 32> seen;
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (!def || isLibraryOp(def) || !seen.insert(def).second)
      continue;
    if (isScanOp(def))
      return false;
    if (isReductionOp(def)) {
      std::optional<Reduced> r = reducedOf(def);
      if (!r || r->dims != dims || shapes.shape(r->input) != shape)
        return false;
    }
    llvm::append_range(work, def->getOperands());
  }
  return true;
}

/// Splits the first reduction of `fusion` that qualifies (not one in
/// `made`, the ops earlier splits created); returns whether it split one.
/// `shapes` describes the fusion as it is.
static bool splitOne(func::FuncOp fusion, const ShapeAnalysis &shapes,
                     llvm::SmallPtrSetImpl<Operation *> &made) {
  SmallVector<Reduced> reductions;
  fusion.walk([&](Operation *op) {
    if (std::optional<Reduced> r = reducedOf(op))
      reductions.push_back(*r);
  });
  for (const Reduced &r : reductions) {
    if (!isSplittable(r.op) || made.contains(r.op))
      continue;
    ArrayRef<AffineExpr> shape = shapes.shape(r.input);
    // The reduction beside it that reduces the most dims of D.
    const Reduced *row = nullptr;
    for (const Reduced &o : reductions) {
      if (o.op == r.op || o.dims.size() >= r.dims.size() ||
          (row && row->dims.size() >= o.dims.size()) ||
          !llvm::includes(r.dims, o.dims) || shapes.shape(o.input) != shape)
        continue;
      row = &o;
    }
    // Else a row reduction of another shape whose rows are made of whole
    // runs of D's trailing dims (group_norm: per-group rows of the
    // channels' H x W runs; GroupInfo::rowSegments): the first step reduces
    // those runs, parts of the row kernel's rows.
    SmallVector<int64_t> firstDims;
    if (row) {
      firstDims = row->dims;
    } else {
      SmallVector<int64_t> trailing;
      for (int64_t d = (int64_t)shape.size() - 1; d >= 0; --d) {
        if (llvm::is_contained(r.dims, d))
          trailing.insert(trailing.begin(), d);
        else if (ShapeAnalysis::constantValue(shape[d]) != 1)
          break;
      }
      if (trailing.empty() || trailing.size() == r.dims.size())
        continue;
      for (const Reduced &o : reductions) {
        if (o.op == r.op || shapes.shape(o.input) == shape ||
            !rowSegmentsOf(shapes.shape(o.input), o.dims, shape, trailing))
          continue;
        row = &o;
        break;
      }
      if (!row)
        continue;
      firstDims = trailing;
    }
    if (!onlyRowReductionsUpstream(r.input, shapes.shape(row->input), row->dims, shapes))
      continue;
    // Where the dims left for a second step all have static size 1 (a
    // batch of one), there is no second step: the reduction is the row's
    // dims' (keepdim), reshaped to its type, index arithmetic.
    bool rest = llvm::any_of(r.dims, [&](int64_t d) {
      std::optional<int64_t> n = ShapeAnalysis::constantValue(shape[d]);
      return !llvm::is_contained(firstDims, d) && (!n || *n != 1);
    });
    OpBuilder b(r.op);
    Location loc = r.op->getLoc();
    auto resultType = cast<RankedTensorType>(r.op->getResult(0).getType());
    if (!rest) {
      Value out = llvm::TypeSwitch<Operation *, Value>(r.op)
                      .Case<SumOp, MeanOp, MaxOp, MinOp>([&](auto red) -> Value {
                        using Op = decltype(red);
                        auto rows = Op::create(b, loc, r.input, firstDims, /*keepdim=*/true);
                        made.insert(rows);
                        return rows;
                      });
      if (out.getType() != resultType) {
        out = ReshapeOp::create(b, loc, resultType, out);
        made.insert(out.getDefiningOp());
      }
      r.op->getResult(0).replaceAllUsesWith(out);
      r.op->erase();
      return true;
    }

    Value in = r.input;
    // A sum or mean of f16, bf16 or fp8 accumulates in f32 and rounds once:
    // both steps stay in f32 and the result is rounded at the end.
    Type elem = resultType.getElementType();
    bool widen = isa<SumOp, MeanOp>(r.op) && isa<FloatType>(elem) &&
                 elem.getIntOrFloatBitWidth() < 32;
    if (widen) {
      auto inType = cast<RankedTensorType>(in.getType());
      in = CastOp::create(b, loc, inType.clone(b.getF32Type()), in);
      made.insert(in.getDefiningOp());
    }
    Value out = llvm::TypeSwitch<Operation *, Value>(r.op)
                    .Case<SumOp, MeanOp, MaxOp, MinOp>([&](auto red) -> Value {
                      using Op = decltype(red);
                      auto first = Op::create(b, loc, in, firstDims, /*keepdim=*/true);
                      auto second = Op::create(b, loc, first, r.dims, red.getKeepdim());
                      made.insert(first);
                      made.insert(second);
                      return second;
                    });
    if (widen) {
      out = CastOp::create(b, loc, resultType, out);
      made.insert(out.getDefiningOp());
    }
    r.op->getResult(0).replaceAllUsesWith(out);
    r.op->erase();
    return true;
  }
  return false;
}

FailureOr<unsigned> mlir::fuser::splitReductionsBesideRows(func::FuncOp fusion) {
  // One split at a time, each on a fresh analysis: a split erases an op
  // that later candidates may read, and makes values the last analysis
  // never saw. The ops a split makes are never split again, so this ends.
  llvm::SmallPtrSet<Operation *, 16> made;
  unsigned split = 0;
  while (true) {
    FailureOr<ShapeAnalysis> shapes = ShapeAnalysis::analyze(fusion);
    if (failed(shapes))
      return failure();
    if (!splitOne(fusion, *shapes, made))
      return split;
    ++split;
  }
}
