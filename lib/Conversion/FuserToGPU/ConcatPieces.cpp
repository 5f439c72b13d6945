//===- ConcatPieces.cpp - a concat's dim split into the pieces it picks ---===//
//
// A concat picks, for each element, the operand whose range along the
// concat dim holds the element's position. Emitted element by element, that
// is a branch per element (a chain of `if`s, lane by lane when the concat dim
// is the lane dim), and each operand is read at the positions of the concat's
// result. RoPE's rotate_half (`concat(-x[..., h:], x[..., :h])` beside `x`)
// then reads every element of x twice: once for itself and once for its
// partner half a row away.
//
// The pointwise scheduler instead splits the ref dim the concat runs along
// into `count` pieces of `size` elements, where every operand boundary falls
// on a piece boundary (size: the gcd of the dim's extent and the boundaries).
// The iteration space covers one piece along that dim, and a unit computes
// its elements in every piece: piece p at the position d + p * size. Within a
// piece the concat's operand is known at compile time, so:
//  - the element is the operand's, with no branch and no per-lane split (a
//    vector access stays a vector access);
//  - the unit's values are memoized across its pieces, so rotate_half's
//    partner reads are the other piece's own reads: x is read once.
// Concats along another dim or with dynamic sizes, that would need more than
// kMaxConcatPieces pieces, or whose pieces along the lane dim would be
// narrower than a vector unit keep the branches (GroupEmitter::emitOp).
//
//===----------------------------------------------------------------------===//

#include "GroupEmitter.h"

#include "fuser/Dialect/Fuser/IR/FuserOps.h"

#include <numeric>

using namespace mlir;
using namespace mlir::fuser;

/// More pieces than this would copy the unit's code as many times; past it
/// the branches are the cheaper code.
static constexpr unsigned kMaxConcatPieces = 8;

bool GroupEmitter::planConcatPieces(unsigned unitLanes) {
  int dim = -1;
  int64_t extent = 0, size = 0;
  for (auto &[op, idx] : concatAccesses) {
    auto concat = cast<ConcatOp>(op);
    int64_t cdim = concat.getDimAttr().getInt();
    AffineExpr position = multiIndex(concat.getResult(), idx)[cdim];
    for (unsigned r = 0; r < refRank; ++r) {
      if (dim >= 0 && (int)r != dim)
        continue;
      std::optional<int64_t> n = ShapeAnalysis::constantValue(refShape[r]);
      if (!n || *n < 2)
        continue;
      // The concat's position is the ref dim's plus a constant c.
      auto c = dyn_cast<AffineConstantExpr>(
          simplify(position - getAffineDimExpr(r, ctx), refRank, numSymbols));
      if (!c)
        continue;
      // Every operand boundary inside the dim's range splits it there.
      int64_t g = size ? size : *n, start = 0;
      bool known = true;
      for (Value in : concat.getInputs().drop_back()) {
        std::optional<int64_t> s = ShapeAnalysis::constantValue(shapeOf(in)[cdim]);
        if (!s) {
          known = false;
          break;
        }
        start += *s;
        int64_t boundary = start - c.getValue();
        if (boundary > 0 && boundary < *n)
          g = std::gcd(g, boundary);
      }
      if (!known)
        continue;
      dim = r;
      extent = *n;
      size = g;
      break;
    }
  }
  if (dim < 0 || extent / size < 2 || extent / size > kMaxConcatPieces)
    return false;
  // Along the lane dim, pieces that do not hold whole vector units of the
  // widest access would trade vector accesses (or coalesced scalar ones: a
  // thread would walk a row) for the branches.
  if (dim == laneDim && size % unitLanes != 0)
    return false;
  pieces = {dim, size, static_cast<unsigned>(extent / size)};
  return true;
}

Index GroupEmitter::pieceIndex(const Index &idx, unsigned p) {
  if (pieces.count < 2 || p == 0)
    return idx;
  SmallVector<AffineExpr> repl;
  for (unsigned k = 0; k < refRank; ++k)
    repl.push_back(getAffineDimExpr(k, ctx) + ((int)k == pieces.dim ? p * pieces.size : 0));
  Index out = idx;
  for (AffineExpr &e : out.exprs)
    e = e.replaceDims(repl);
  return out;
}

std::optional<unsigned> GroupEmitter::concatOperandOfPiece(Operation *op, const Index &idx) {
  auto concat = dyn_cast<ConcatOp>(op);
  if (!concat || pieces.count < 2)
    return std::nullopt;
  int64_t cdim = concat.getDimAttr().getInt();
  AffineExpr position = multiIndex(concat.getResult(), idx)[cdim];
  // Where the pieces apply, the split dim's own value lies in [0, size)
  // (emitScalarized's lane shifts keep it there: a lane's position is the
  // unit's plus the lane, and both stay in the piece), so the concat's
  // position lies in [c, c + size) when it is that value plus c.
  auto c = dyn_cast<AffineConstantExpr>(
      simplify(position - getAffineDimExpr(pieces.dim, ctx), refRank, numSymbols));
  if (!c)
    return std::nullopt;
  int64_t lo = c.getValue(), hi = lo + pieces.size, start = 0;
  for (auto [k, in] : llvm::enumerate(concat.getInputs())) {
    std::optional<int64_t> s = ShapeAnalysis::constantValue(shapeOf(in)[cdim]);
    if (!s)
      return std::nullopt;
    if (lo >= start && hi <= start + *s)
      return k;
    start += *s;
  }
  return std::nullopt;
}

void GroupEmitter::resetAnalysis() {
  mergeable = true;
  leafOffsets.clear();
  leafGuarded.clear();
  indexOffsets.clear();
  tableReads.clear();
  vectorTables = false;
  visited.clear();
  concatAccesses.clear();
  divisibility.clear();
  alignment.clear();
}
