//===- ConcatPieces.cpp - a concat's dim split into the pieces it picks ---===//
//
// A concat picks, for each element, the operand whose range along the
// concat dim holds the element's position. Emitted element by element, that
// is a branch per element (a binary search of `if`s over the operands' starts,
// lane by lane when the concat dim is the lane dim), and each operand is read
// at the positions of the concat's result. RoPE's rotate_half
// (`concat(-x[..., h:], x[..., :h])` beside `x`) then reads every element of
// x twice: once for itself and once for its partner half a row away.
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
// A concat along a short dim that a reshape of the output's dim reaches
// (GPT-J's interleaved pairs, position = d mod 2) is split the other way:
// interleaved, piece p at k * d + p, where the position is the constant p.
// There the pieces share their loads through the memo of loads by offset
// (GroupEmitter::emitOne): the same element reached through the reshape
// and directly has different indices but one offset.
//
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

/// Whether `position` (d-space) is a constant in [0, k) at every piece
/// p < k of ref dim r interleaved k ways (d_r -> k * d_r + p).
static bool constantAtEachInterleavedPiece(AffineExpr position, unsigned r, int64_t k,
                                           unsigned rank, unsigned numSymbols) {
  MLIRContext *ctx = position.getContext();
  for (int64_t p = 0; p < k; ++p) {
    SmallVector<AffineExpr> repl;
    for (unsigned j = 0; j < rank; ++j)
      repl.push_back(j == r ? getAffineDimExpr(j, ctx) * k + p : getAffineDimExpr(j, ctx));
    auto c = dyn_cast<AffineConstantExpr>(simplify(position.replaceDims(repl), rank, numSymbols));
    if (!c || c.getValue() < 0 || c.getValue() >= k)
      return false;
  }
  return true;
}

bool GroupEmitter::planConcatPieces(unsigned unitLanes, unsigned lanesNow) {
  if (planBlockedPieces(unitLanes))
    return true;
  // Interleaved: a concat along a short dim reached through a reshape of
  // the output's dim (GPT-J's rotate pairs: [.., d] viewed as [.., d/2, 2],
  // concat(-x[.., 1:2], x[.., 0:1]) along the 2): its position is the
  // dim's value mod k. Split the dim k ways, piece p at k * d + p, and the
  // position is the constant p in each piece. Along the lane dim the
  // pieces' accesses move by k per unit, so no vector unit is possible:
  // only where the kernel has none anyway.
  for (auto &[op, idx] : concatAccesses) {
    auto concat = cast<ConcatOp>(op);
    int64_t cdim = concat.getDimAttr().getInt();
    std::optional<int64_t> k =
        ShapeAnalysis::constantValue(shapeOf(concat.getResult())[cdim]);
    if (!k || *k < 2 || *k > kMaxConcatPieces)
      continue;
    AffineExpr position = multiIndex(concat.getResult(), idx)[cdim];
    for (unsigned r = 0; r < refRank; ++r) {
      std::optional<int64_t> n = ShapeAnalysis::constantValue(refShape[r]);
      if (!n || *n < *k || *n % *k || ((int)r == laneDim && lanesNow > 1))
        continue;
      if (!constantAtEachInterleavedPiece(position, r, *k, refRank, numSymbols))
        continue;
      pieces = {(int)r, *n / *k, static_cast<unsigned>(*k), /*interleaved=*/true};
      return true;
    }
  }
  return false;
}

bool GroupEmitter::planBlockedPieces(unsigned unitLanes) {
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
  pieces = {dim, size, static_cast<unsigned>(extent / size), /*interleaved=*/false};
  return true;
}

Index GroupEmitter::pieceIndex(const Index &idx, unsigned p) {
  if (pieces.count < 2 || (p == 0 && !pieces.interleaved))
    return idx;
  SmallVector<AffineExpr> repl;
  for (unsigned k = 0; k < refRank; ++k) {
    AffineExpr d = getAffineDimExpr(k, ctx);
    if ((int)k != pieces.dim)
      repl.push_back(d);
    else if (pieces.interleaved)
      repl.push_back(d * pieces.count + p);
    else
      repl.push_back(d + p * pieces.size);
  }
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
  AffineExpr position = simplify(multiIndex(concat.getResult(), idx)[cdim], refRank, numSymbols);
  int64_t lo, hi;
  if (auto c = dyn_cast<AffineConstantExpr>(position)) {
    // A known position (an interleaved piece's).
    lo = c.getValue();
    hi = lo + 1;
  } else {
    // Where blocked pieces apply, the split dim's own value lies in
    // [0, size) (emitScalarized's lane shifts keep it there: a lane's
    // position is the unit's plus the lane, and both stay in the piece),
    // so the concat's position lies in [c, c + size) when it is that
    // value plus c.
    auto shift = dyn_cast<AffineConstantExpr>(
        simplify(position - getAffineDimExpr(pieces.dim, ctx), refRank, numSymbols));
    if (!shift || pieces.interleaved)
      return std::nullopt;
    lo = shift.getValue();
    hi = lo + pieces.size;
  }
  int64_t start = 0;
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

std::string GroupEmitter::piecesNote() const {
  return std::to_string(pieces.count) + (pieces.interleaved ? " interleaved" : "") +
         " pieces of " + std::to_string(pieces.size) + " along dim " +
         std::to_string(pieces.dim) + " (a concat's operands)";
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
