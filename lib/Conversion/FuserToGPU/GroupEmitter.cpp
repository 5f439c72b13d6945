//===- GroupEmitter.cpp - values of a group's tensors on demand ----------===//
//
// See GroupEmitter.h.
//
//===----------------------------------------------------------------------===//

#include "ElementwiseEmitter.h"
#include "KernelBuilder.h"
#include "GroupEmitter.h"
#include "RandomEmitter.h"

#include "fuser/Analysis/GroupAnalysis.h"
#include "fuser/Analysis/IndexMath.h"
#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Transforms/Segments.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace mlir::fuser;

Index GroupEmitter::operandIndex(Operation *op, unsigned i,
                                       const Index &idx) {
  // A reshape's operand where the scheduler knows a better form than the
  // linear index (the multi-index its own values are memoized under).
  if (isa<ReshapeOp>(op) && cast<RankedTensorType>(op->getOperand(i).getType()).getRank() > 0)
    if (std::optional<Index> known =
            viewIndex(op->getOperand(i), linearIndex(op->getResult(0), idx)))
      return *known;
  return operandIndexOf(op, i, idx, fe.shapes);
}

void GroupEmitter::analyze(Value root, const Index &rootIdx) {
  // Depth first, operands in order, by an explicit stack. An access under a
  // pad or concat is guarded: read only where its index is in bounds.
  struct Item {
    Value v;
    Index idx;
    bool guarded;
  };
  SmallVector<Item> work{{root, rootIdx, false}};
  while (!work.empty()) {
    auto [v, idx, guarded] = work.pop_back_val();
    // Seen unguarded, a value is read everywhere anyway; seen guarded, it is
    // analyzed again if it turns up unguarded.
    if (!visited.insert(MemoKey{v, idx, guarded ? 1u : 0u}).second ||
        (guarded && visited.contains(MemoKey{v, idx, 0})))
      continue;
    if (isInput(v)) {
      leafOffsets.push_back({v, memoryOffset(v, idx)});
      leafGuarded.push_back(guarded);
      continue;
    }
    Operation *op = v.getDefiningOp();
    // A reduction's result is computed by the kernel's reduction; its input
    // is analyzed from there.
    if (isReductionOp(op))
      continue;
    if (isa<IotaOp, PadOp, ConcatOp>(op))
      mergeable = false;
    if (isa<ConcatOp>(op)) {
      concatAccesses.push_back({op, idx});
      // Within a piece of a split dim, one operand: read unguarded.
      if (std::optional<unsigned> k = concatOperandOfPiece(op, idx)) {
        work.push_back({op->getOperand(*k), operandIndex(op, *k, idx), guarded});
        continue;
      }
    }
    if (isScatterOp(op)) {
      // self is read at the result's position; the index and the source
      // along whole lines, through their pointers (no affine offset to
      // merge dims by).
      mergeable = false;
      work.push_back({op->getOperand(0), operandIndex(op, 0, idx), guarded});
      continue;
    }
    if (isIndexingOp(op)) {
      // The table is read at positions computed from data (no affine
      // offset to merge dims by); the index is read at the result's
      // position like an elementwise operand.
      mergeable = false;
      if (isa<IndexSelectOp>(op)) {
        auto [base, stride] = tableAccess(op, idx);
        tableReads.push_back({op, base, stride});
      }
      work.push_back({op->getOperand(1), operandIndex(op, 1, idx), guarded});
      continue;
    }
    // A random op computes its result's row-major index: the iteration
    // space must keep that expressible, as it keeps the inputs' offsets.
    if (isa<RandOp, RandnOp, BernoulliOp>(op))
      indexOffsets.push_back(linearIndex(v, idx));
    bool guards = isa<PadOp, ConcatOp>(op);
    for (unsigned i = numOperandsRead(op); i-- > 0;)
      work.push_back({op->getOperand(i), operandIndex(op, i, idx), guarded || guards});
  }
}

void GroupEmitter::planIterationSpace(ArrayRef<int> dimClass, ArrayRef<unsigned> order) {
  // Size-1 dims are always index 0.
  SmallVector<unsigned> live;
  for (unsigned k : order.empty() ? llvm::to_vector(llvm::seq<unsigned>(0, refRank))
                                  : SmallVector<unsigned>(order)) {
    auto c = ShapeAnalysis::constantValue(refShape[k]);
    if (!c || *c != 1)
      live.push_back(k);
  }
  // Offsets every access computes, in d-space: the inputs' and the outputs'.
  SmallVector<AffineExpr> offsets;
  for (auto &[v, off] : leafOffsets)
    offsets.push_back(off);
  offsets.append(indexOffsets.begin(), indexOffsets.end());
  offsets.push_back(linearize(
      llvm::to_vector(llvm::map_range(llvm::seq<unsigned>(0, refRank),
                                      [&](unsigned k) { return getAffineDimExpr(k, ctx); })),
      refShape));
  SmallVector<SmallVector<AffineExpr>> coeffs;
  if (mergeable) {
    for (AffineExpr off : offsets) {
      if (!off)
        continue;
      auto c = linearCoefficients(off, refRank);
      if (!c) {
        mergeable = false;
        break;
      }
      coeffs.push_back(*c);
    }
  }
  // Group adjacent live dims: d_a and d_b (b after a) merge when every access
  // has coeff(a) == coeff(b) * size(b), i.e. treats them as one row-major dim.
  SmallVector<SmallVector<unsigned>> groups;
  for (unsigned k : live) {
    // A dim split into pieces iterates over one piece: it merges with none.
    bool split = pieces.count > 1 && ((int)k == pieces.dim ||
                                      (!groups.empty() && (int)groups.back().back() == pieces.dim));
    if (mergeable && !split && !groups.empty() &&
        (dimClass.empty() || dimClass[groups.back().back()] == dimClass[k])) {
      unsigned a = groups.back().back();
      bool ok = llvm::all_of(coeffs, [&](ArrayRef<AffineExpr> c) {
        AffineExpr lhs = simplify(c[a + 1], 0, numSymbols);
        AffineExpr rhs = simplify(c[k + 1] * refShape[k], 0, numSymbols);
        return lhs == rhs;
      });
      if (ok) {
        groups.back().push_back(k);
        continue;
      }
    }
    groups.push_back({k});
  }
  numIterDims = groups.size();
  dimSubstitution.assign(refRank, getAffineConstantExpr(0, ctx));
  iterSizes.clear();
  for (auto [g, dims] : llvm::enumerate(groups)) {
    AffineExpr size = getAffineConstantExpr(1, ctx);
    for (unsigned k : dims)
      size = size * ((int)k == pieces.dim && pieces.count > 1
                         ? getAffineConstantExpr(pieces.size, ctx)
                         : refShape[k]);
    iterSizes.push_back(simplify(size, 0, numSymbols));
    dimSubstitution[dims.back()] = getAffineDimExpr(g, ctx);
  }
  laneDim = groups.empty() ? -1 : (int)groups.back().back();
}

void GroupEmitter::indexByIteration(KernelBuilder &k) {
  k.expander = std::make_unique<ExprExpander>(
      k.b, k.loc, k.idxTy, [this](unsigned j) { return iterValues[j]; },
      [&k](unsigned s) { return k.symbol(s); }, /*hoistSymbolic=*/true);
}

AffineExpr GroupEmitter::maxElementsWith(AffineExpr own) {
  AffineExpr maxElements = simplify(own, 0, numSymbols);
  auto add = [&](AffineExpr n) {
    auto a = ShapeAnalysis::constantValue(maxElements), c = ShapeAnalysis::constantValue(n);
    maxElements = (a && c) ? getAffineConstantExpr(std::max(*a, *c), ctx)
                           : simplify(maxElements + n, 0, numSymbols);
  };
  SmallVector<AffineExpr> seen{maxElements};
  auto addOnce = [&](AffineExpr n) {
    n = simplify(n, 0, numSymbols);
    if (llvm::is_contained(seen, n))
      return;
    seen.push_back(n);
    add(n);
  };
  // An input by the memory it spans and by its element count: a stride-0
  // view of 2^32 rows spans one row, but a scatter's index walk, a
  // gather's bounds check on the table's dim and the dims the plan passes
  // the kernel are as long as the view (they wrapped in 32 bits: a
  // scatter_add of 2^32 + 2 ones added 2).
  for (Value in : seg.inputs) {
    AffineExpr n = fe.shapes.span(in);
    seen.push_back(simplify(n, 0, numSymbols));
    add(n);
  }
  for (Value in : seg.inputs)
    if (isa<RankedTensorType>(in.getType()))
      addOnce(fe.shapes.numElements(in));
  // The values the kernel computes inside: one larger than its reference
  // and inputs (a rand or iota of 2^32 + 8 elements of which a slice keeps
  // the last 8) is indexed by element too, its Philox counter or its value
  // the element's row-major index, and wrapped in 32 bits. Each distinct
  // count once, so that ops of the reference's shape add nothing.
  for (Operation *op : seg.ops)
    for (Value r : op->getResults()) {
      if (!isa<RankedTensorType>(r.getType()))
        continue;
      AffineExpr n = simplify(fe.shapes.numElements(r), 0, numSymbols);
      if (llvm::is_contained(seen, n))
        continue;
      seen.push_back(n);
      add(n);
    }
  return maxElements;
}

GroupEmitter::IndexWidths GroupEmitter::planIndexWidths(AffineExpr maxElements) {
  IndexWidths iw;
  iw.widths = fe.indexWidths(maxElements);
  if (iw.widths.size() > 1)
    iw.fits32 = fe.planFitsIn32Bits(maxElements);
  return iw;
}

void GroupEmitter::forEachIndexWidth(const IndexWidths &iw,
                                     function_ref<void(unsigned)> emitVariant) {
  for (unsigned w : iw.widths) {
    variantCondition = Value();
    if (Value fits32 = iw.fits32)
      variantCondition = w == 32 ? fits32
                                 : arith::XOrIOp::create(
                                       fe.planBuilder, fe.loc, fits32,
                                       arith::ConstantIntOp::create(fe.planBuilder, fe.loc, 1, 1))
                                       .getResult();
    emitVariant(w);
  }
}

Value GroupEmitter::materialize(Lanes x, unsigned lanes) {
  if (lanes == 1 || !x.uniform)
    return x.value;
  auto vt = VectorType::get({lanes}, x.value.getType());
  return vector::BroadcastOp::create(kb->b, kb->loc, vt, x.value);
}

Index GroupEmitter::shiftLane(const Index &idx, Value v, int64_t by) {
  // Shifting the unit by `by` elements moves the lane dim: in d-space that
  // is the ref dim mapped to the lane, which every index expression is built
  // from, so substitute d_lane -> d_lane + by.
  SmallVector<AffineExpr> repl;
  for (unsigned k = 0; k < refRank; ++k)
    repl.push_back(getAffineDimExpr(k, ctx) + ((int)k == laneDim ? by : 0));
  Index out = idx;
  for (AffineExpr &e : out.exprs)
    e = e.replaceDims(repl);
  return out;
}

Lanes GroupEmitter::emitScalarized(Value v, const Index &idx,
                                         unsigned lanes) {
  SmallVector<Value> elems;
  for (unsigned l = 0; l < lanes; ++l)
    elems.push_back(emit(v, shiftLane(idx, v, l), 1).value);
  auto vt = VectorType::get({lanes}, elems[0].getType());
  return {vector::FromElementsOp::create(kb->b, kb->loc, vt, elems), false};
}

Value GroupEmitter::maskedLoad(Value v, Type elem, AffineExpr offset, unsigned lanes) {
  if (!loadMask && !rowMask)
    return loadUnit(v, elem, kb->expander->expand(offset), lanes);
  OpBuilder &b = kb->b;
  Value mask = !loadMask  ? rowMask
               : !rowMask ? loadMask
                          : arith::AndIOp::create(b, kb->loc, loadMask, rowMask).getResult();
  Type t = lanes > 1 ? Type(VectorType::get({lanes}, elem)) : elem;
  auto ifOp = scf::IfOp::create(b, kb->loc, TypeRange{t}, mask, true);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  {
    // Index arithmetic built here stays here.
    ExprScope scope(*kb->expander);
    scf::YieldOp::create(b, kb->loc, loadUnit(v, elem, kb->expander->expand(offset), lanes));
  }
  b.setInsertionPointToStart(&ifOp.getElseRegion().front());
  scf::YieldOp::create(b, kb->loc,
                       Value(arith::ConstantOp::create(b, kb->loc, t, b.getZeroAttr(t))));
  return ifOp.getResult(0);
}

bool GroupEmitter::emitsOperandsFirst(Value v) {
  if (known.count(v) || isInput(v))
    return false;
  Operation *op = v.getDefiningOp();
  return !isa<ConstantOp, IotaOp, SizeOp, PadOp, ConcatOp, GatherOp, IndexSelectOp,
                  ScatterAddOp, IndexAddOp>(op) &&
         op->getNumOperands() > 0;
}

Lanes GroupEmitter::emit(Value v, const Index &idx, unsigned lanes) {
  auto lookup = [&](Value x, const Index &i, unsigned l) -> std::optional<Lanes> {
    auto knownIt = known.find(x);
    if (knownIt != known.end())
      return knownIt->second;
    return memo.lookup(MemoKey{x, i, l});
  };
  if (std::optional<Lanes> hit = lookup(v, idx, lanes))
    return *hit;
  // Post-order over the operands: a frame is expanded (its operands pushed,
  // first operand on top, so they are emitted in order) and then, once they
  // are all in the memo, emitted.
  struct Frame {
    Value v;
    Index idx;
    bool expanded;
  };
  SmallVector<Frame> stack{{v, idx, false}};
  while (!stack.empty()) {
    if (lookup(stack.back().v, stack.back().idx, lanes)) {
      stack.pop_back();
      continue;
    }
    if (!stack.back().expanded && emitsOperandsFirst(stack.back().v)) {
      stack.back().expanded = true;
      Operation *op = stack.back().v.getDefiningOp();
      Index at = stack.back().idx;
      unsigned n = isa<BroadcastOp, PermuteOp, ReshapeOp, SliceOp>(op) ? 1 : numOperandsRead(op);
      for (unsigned i = n; i-- > 0;)
        stack.push_back({op->getOperand(i), operandIndex(op, i, at), false});
      continue;
    }
    Frame f = stack.pop_back_val();
    emitOne(f.v, f.idx, lanes);
  }
  return *lookup(v, idx, lanes);
}

/// Marks a memo key's lanes as a load memoized by its offset (the key's
/// index the iteration-space offset), apart from values by their index.
static constexpr unsigned kLoadByOffset = 1u << 30;

Lanes GroupEmitter::emitOne(Value v, const Index &idx, unsigned lanes) {
  Lanes result;
  if (isInput(v)) {
    Type elem = elementTypeOf(v);
    AffineExpr off = toIteration(memoryOffset(v, idx));
    if (std::optional<Lanes> s = loadHook(v, off, lanes)) {
      memo.insert({v, idx, lanes}, *s);
      return *s;
    }
    // With a dim split into pieces, one element is often reached by two
    // paths with different indices (through a reshape and directly): the
    // loads are also memoized by offset, so that it is read once.
    MemoKey byOffset{v, Index{true, {off}}, lanes | kLoadByOffset};
    if (pieces.count > 1) {
      if (std::optional<Lanes> hit = memo.lookup(byOffset)) {
        memo.insert({v, idx, lanes}, *hit);
        return *hit;
      }
    }
    std::optional<int64_t> stride = laneStride(off);
    if (lanes > 1 && stride && *stride == 1) {
      result = {maskedLoad(v, elem, off, lanes), false};
    } else if (lanes == 1 || (stride && *stride == 0)) {
      result = {maskedLoad(v, elem, off, 1), true};
    } else {
      result = emitScalarized(v, idx, lanes);
    }
    if (pieces.count > 1)
      memo.insert(byOffset, result);
  } else {
    result = emitOp(v.getDefiningOp(), idx, lanes);
  }
  memo.insert({v, idx, lanes}, result);
  return result;
}

std::optional<Lanes> GroupEmitter::laneIndices(AffineExpr e, unsigned lanes) {
  std::optional<int64_t> stride = laneStride(e);
  if (lanes > 1 && !(stride && (*stride == 0 || *stride == 1)))
    return std::nullopt;
  OpBuilder &b = kb->b;
  Location loc = kb->loc;
  Value base = kb->expander->expand(e);
  if (lanes == 1 || *stride == 0)
    return Lanes{base, true};
  auto vt = VectorType::get({lanes}, kb->idxTy);
  SmallVector<APInt> steps;
  for (unsigned l = 0; l < lanes; ++l)
    steps.push_back(APInt(kb->idxTy.getIntOrFloatBitWidth(), l));
  Value ramp = arith::ConstantOp::create(b, loc, vt, DenseIntElementsAttr::get(vt, steps));
  return Lanes{arith::AddIOp::create(b, loc, vector::BroadcastOp::create(b, loc, vt, base), ramp),
               false};
}

Lanes GroupEmitter::emitOp(Operation *op, const Index &idx,
                                 unsigned lanes) {
  OpBuilder &b = kb->b;
  Location loc = kb->loc;
  Value result = op->getResult(0);
  Type elem = elementTypeOf(result);

  if (auto c = dyn_cast<ConstantOp>(op))
    return {arith::ConstantOp::create(b, loc, c.getValue()), true};

  if (auto iota = dyn_cast<IotaOp>(op)) {
    AffineExpr e = toIteration(multiIndex(result, idx)[iota.getDimAttr().getInt()]);
    std::optional<Lanes> index = laneIndices(e, lanes);
    if (!index)
      return emitScalarized(result, idx, lanes);
    return {emitCast(b, loc, index->value, elem), index->uniform};
  }

  if (auto size = dyn_cast<SizeOp>(op)) {
    // The extent from the kernel's size parameters; the input is not read.
    Value n = kb->expander->expand(shapeOf(size.getInput())[size.getDim()]);
    return {emitCast(b, loc, n, elem), true};
  }

  if (isa<BroadcastOp, PermuteOp, ReshapeOp, SliceOp>(op))
    return emit(op->getOperand(0), operandIndex(op, 0, idx), lanes);

  if (isScatterOp(op))
    return emitScatter(op, idx, lanes);
  if (isIndexingOp(op))
    return emitIndexing(op, idx, lanes);

  if (isa<RandOp, RandnOp, BernoulliOp>(op)) {
    // The element's row-major index in the result: one per lane, like iota.
    AffineExpr e = toIteration(linearIndex(result, idx));
    std::optional<Lanes> lanesIndex = laneIndices(e, lanes);
    if (!lanesIndex)
      return emitScalarized(result, idx, lanes);
    Value index = lanesIndex->value;
    bool uniform = lanesIndex->uniform;
    // A unit starts where the lane dim is a multiple of the lanes (vector
    // accesses are aligned there); when every other term of the index is a
    // multiple too, proven or checked by the launch plan, the unit's first
    // index is one as well and whole Philox counters fall in the unit.
    bool aligned = false;
    if (!uniform && vectorLanes % lanes == 0) {
      if (auto c = linearCoefficients(e, numIterDims)) {
        aligned = true;
        for (unsigned j = 0; j < numIterDims; ++j) {
          AffineExpr term = simplify((*c)[j], 0, numSymbols);
          if (!isMultipleOf(term, lanes) && !llvm::is_contained(divisibility, term))
            aligned = false;
        }
      }
    }
    bool bernoulli = isa<BernoulliOp>(op);
    unsigned first = bernoulli ? 1 : 0;
    Value seed = emit(op->getOperand(first), Index{}, lanes).value;
    Value offset = emit(op->getOperand(first + 1), Index{}, lanes).value;
    Value p;
    if (bernoulli) {
      Lanes pl = emit(op->getOperand(0), operandIndex(op, 0, idx), lanes);
      p = uniform ? pl.value : materialize(pl, lanes);
    }
    return {emitRandom(b, loc, op, index, seed, offset, p, fe.math, aligned), uniform};
  }

  // Within a piece of a split dim, a concat is its one operand there.
  if (std::optional<unsigned> k = concatOperandOfPiece(op, idx))
    return emit(op->getOperand(*k), operandIndex(op, *k, idx), lanes);

  if (isa<PadOp, ConcatOp>(op)) {
    // Which operand (or the padding) an element comes from depends on the
    // index; when that choice varies across lanes, go lane by lane.
    SmallVector<AffineExpr> m = multiIndex(result, idx);
    bool laneDependent = false;
    for (AffineExpr e : m)
      if (numIterDims && toIteration(e).isFunctionOfDim(numIterDims - 1))
        laneDependent = true;
    if (lanes > 1 && laneDependent)
      return emitScalarized(result, idx, lanes);
    // Conditions: for pad, every operand index in bounds; for concat, the
    // concat index below each operand's end.
    SmallVector<Value> conds;
    SmallVector<unsigned> sources;
    auto inBounds = [&](Value operand, const Index &oi, ArrayRef<unsigned> dims) {
      Value all;
      for (unsigned d : dims) {
        Value i = kb->expander->expand(toIteration(oi.exprs[d]));
        Value size = kb->expander->expand(shapeOf(operand)[d]);
        Value ge = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, i,
                                         kb->constant(0));
        Value lt = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, size);
        Value c = arith::AndIOp::create(b, loc, ge, lt);
        all = all ? arith::AndIOp::create(b, loc, all, c).getResult() : c;
      }
      return all;
    };
    if (auto pad = dyn_cast<PadOp>(op)) {
      SmallVector<unsigned> dims;
      for (unsigned d = 0; d < pad.getType().getRank(); ++d)
        if (pad.getLow()[d] > 0 || pad.getHigh()[d] > 0)
          dims.push_back(d); // cropping alone never leaves the input

      Index oi = operandIndex(op, 0, idx);
      Value cond = dims.empty() ? Value() : inBounds(pad.getInput(), oi, dims);
      if (!cond)
        return emit(pad.getInput(), oi, lanes);
      Lanes padValue = emit(pad.getValue(), Index{}, lanes);
      Type t = lanes > 1 ? Type(VectorType::get({lanes}, elem)) : elem;
      auto ifOp = scf::IfOp::create(b, loc, TypeRange{t}, cond, true);
      {
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(&ifOp.getThenRegion().front());
        ExprScope scope(*kb->expander);
        size_t mark = memo.mark();
        Value v = materialize(emit(pad.getInput(), oi, lanes), lanes);
        memo.restore(mark);
        scf::YieldOp::create(b, loc, v);
        b.setInsertionPointToStart(&ifOp.getElseRegion().front());
        scf::YieldOp::create(b, loc, materialize(padValue, lanes));
      }
      return {ifOp.getResult(0), lanes == 1};
    }
    auto concat = cast<ConcatOp>(op);
    int64_t dim = concat.getDimAttr().getInt();
    // A binary search over the operands' starts along the dim: if (i <
    // start_mid) {search the first half} else {the second}. Its ifs nest
    // log2(operands) deep (a chain of ifs nested as deep as the operands,
    // and a 260-operand concat's kernel text was deeper than the emulator
    // reads), and an element takes log2 compares, not up to one per operand.
    Value i = kb->expander->expand(toIteration(m[dim]));
    Type t = lanes > 1 ? Type(VectorType::get({lanes}, elem)) : elem;
    SmallVector<AffineExpr> starts{getAffineConstantExpr(0, ctx)};
    for (Value in : concat.getInputs())
      starts.push_back(starts.back() + shapeOf(in)[dim]);
    // The value of operands [lo, hi) at the element, in its own scope.
    std::function<Value(unsigned, unsigned)> pick = [&](unsigned lo, unsigned hi) -> Value {
      ExprScope scope(*kb->expander);
      size_t mark = memo.mark();
      Value v;
      if (hi - lo == 1) {
        v = materialize(emit(concat.getInputs()[lo], operandIndex(op, lo, idx), lanes), lanes);
      } else {
        unsigned mid = lo + (hi - lo) / 2;
        Value cond = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::slt, i,
            kb->expander->expand(simplify(starts[mid], 0, numSymbols)));
        auto ifOp = scf::IfOp::create(b, loc, TypeRange{t}, cond, true);
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(&ifOp.getThenRegion().front());
        scf::YieldOp::create(b, loc, pick(lo, mid));
        b.setInsertionPointToStart(&ifOp.getElseRegion().front());
        scf::YieldOp::create(b, loc, pick(mid, hi));
        v = ifOp.getResult(0);
      }
      memo.restore(mark);
      return v;
    };
    return {pick(0, concat.getInputs().size()), lanes == 1};
  }

  // Elementwise.
  SmallVector<Lanes> operands;
  bool allUniform = true;
  for (unsigned i = 0; i < op->getNumOperands(); ++i) {
    operands.push_back(emit(op->getOperand(i), operandIndex(op, i, idx), lanes));
    allUniform &= operands.back().uniform;
  }
  SmallVector<Value> values;
  for (Lanes &o : operands)
    values.push_back(allUniform ? o.value : materialize(o, lanes));
  // The paired fp8 conversion from sm_90 on: sm_89 has it too, but LLVM
  // selects it there only from PTX 8.1, above the 7.8 fuser targets for sm_89.
  Value v = emitElementwise(b, loc, op, values, fe.math, /*fp8Instruction=*/fe.target.sm >= 90);
  assert(v && "no emitter for this elementwise op");
  return {v, allUniform};
}

std::pair<AffineExpr, AffineExpr> GroupEmitter::tableAccess(Operation *op, const Index &idx) {
  int64_t dim = cast<IntegerAttr>(op->getAttr("dim")).getInt();
  Value table = op->getOperand(0);
  SmallVector<AffineExpr> m = multiIndex(op->getResult(0), idx);
  m[dim] = getAffineConstantExpr(0, ctx);
  return {memoryOffset(table, Index{false, m}), memoryStride(table, dim)};
}

Value GroupEmitter::tableOffset(Operation *op, const Index &idx, Value wide) {
  OpBuilder &b = kb->b;
  Location loc = kb->loc;
  auto [base, stride] = tableAccess(op, idx);
  Value at = kb->idxTy == b.getI64Type() ? wide : arith::TruncIOp::create(b, loc, kb->idxTy, wide);
  return arith::AddIOp::create(b, loc, kb->expander->expand(toIteration(base)),
                               arith::MulIOp::create(b, loc, at, kb->expander->expand(stride)));
}

void GroupEmitter::reportIndexError(Operation *op, const Index &idx, Value live, Value inRange,
                                    Value index, Value bound) {
  OpBuilder &b = kb->b;
  Location loc = kb->loc;
  Value outOfRange = arith::XOrIOp::create(
      b, loc, inRange, arith::ConstantOp::create(b, loc, b.getBoolAttr(true)));
  Value report = live ? arith::AndIOp::create(b, loc, live, outOfRange).getResult() : outOfRange;
  auto reportIf = scf::IfOp::create(b, loc, report, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&reportIf.getThenRegion().front());
  ExprScope scope(*kb->expander);
  Value element = kb->expander->expand(toIteration(linearIndex(op->getResult(0), idx)));
  kb->recordIndexError(fe.indexSite(op), element, index, bound);
}

Lanes GroupEmitter::emitIndexing(Operation *op, const Index &idx, unsigned lanes) {
  // result[m] = table[m with m[dim] := index value]: the index read where
  // the result's element is (gather: the same position; index_select:
  // m[dim] of the 1-D index), checked against the table's size along dim
  // before the table is read. One element, or with `lanes` > 1 one vector:
  // an index_select whose index is the same for the unit's lanes and
  // whose table the scheduler checked for vector access (vectorTables).
  OpBuilder &b = kb->b;
  Location loc = kb->loc;
  Value result = op->getResult(0), table = op->getOperand(0);
  int64_t dim = cast<IntegerAttr>(op->getAttr("dim")).getInt();
  Type elem = elementTypeOf(result);
  if (lanes > 1 && !(vectorTables && llvm::any_of(tableReads, [&](const TableRead &r) {
                      return r.op == op && laneStride(toIteration(r.base)) == 1;
                    })))
    return emitScalarized(result, idx, lanes);
  Lanes indexLanes = emit(op->getOperand(1), operandIndex(op, 1, idx), lanes);
  if (lanes > 1 && !indexLanes.uniform)
    return emitScalarized(result, idx, lanes);
  Value index = indexLanes.value;
  Value bound = kb->expander->expand(shapeOf(table)[dim]);
  // Compare in 64 bits: an i64 index past 2^31 must not wrap into range in
  // a 32-bit kernel. Unsigned: a negative index is out of range too.
  Type i64 = b.getI64Type();
  Value wide = index.getType() == i64 ? index : arith::ExtSIOp::create(b, loc, i64, index);
  Value wideBound = bound.getType() == i64 ? bound : arith::ExtUIOp::create(b, loc, i64, bound);
  Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, wide, wideBound);
  // Units past the end of their row (or rows past the last) read nothing
  // and report nothing: their index is a stand-in.
  Value live = !loadMask  ? rowMask
               : !rowMask ? loadMask
                          : arith::AndIOp::create(b, loc, loadMask, rowMask).getResult();
  Value read = live ? arith::AndIOp::create(b, loc, live, inRange).getResult() : inRange;
  Type t = lanes > 1 ? Type(VectorType::get({lanes}, elem)) : elem;
  auto ifOp = scf::IfOp::create(b, loc, TypeRange{t}, read, true);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    ExprScope scope(*kb->expander);
    scf::YieldOp::create(b, loc,
                         loadUnit(table, elem, tableOffset(op, idx, wide), lanes));
    b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    scf::YieldOp::create(b, loc, Value(arith::ConstantOp::create(b, loc, t, b.getZeroAttr(t))));
  }
  // Out of range where the element is live: record it, once per call (a
  // vector unit reports its first element: all its lanes share the index).
  reportIndexError(op, idx, live, inRange, index, bound);
  return {ifOp.getResult(0), lanes == 1};
}

Lanes GroupEmitter::emitScatter(Operation *op, const Index &idx, unsigned lanes) {
  // Output-stationary, so deterministic without atomics: the element m of
  // the result starts from self[m] and walks the index's line through m
  // (scatter_add: the index positions p with p = m but at dim; index_add:
  // the whole 1-D index) in order, adding source[p] where index[p] names
  // m[dim], rounding to the element type after each addition, as
  // PyTorch's CPU kernel does.
  if (lanes > 1)
    return emitScalarized(op->getResult(0), idx, lanes);
  OpBuilder &b = kb->b;
  Location loc = kb->loc;
  bool indexAdd = isa<IndexAddOp>(op);
  Value result = op->getResult(0), index = op->getOperand(1), source = op->getOperand(2);
  int64_t dim = cast<IntegerAttr>(op->getAttr("dim")).getInt();
  Type elem = elementTypeOf(result), indexElem = elementTypeOf(index);
  Value self = emit(op->getOperand(0), operandIndex(op, 0, idx), 1).value;

  SmallVector<AffineExpr> m = multiIndex(result, idx);
  AffineExpr zero = getAffineConstantExpr(0, ctx);
  // Offsets of position 0 of the line in the index and the source, and
  // their strides along it.
  auto lineAccess = [&](Value v) -> std::pair<Value, Value> {
    SmallVector<AffineExpr> at(m);
    at[dim] = zero;
    return {kb->expander->expand(toIteration(memoryOffset(v, Index{false, at}))),
            kb->expander->expand(memoryStride(v, dim))};
  };
  auto [sourceBase, sourceStride] = lineAccess(source);
  // index_add's 1-D index: from its start, along its stride (1 unless it
  // is a view).
  Value indexBase = kb->constant(0),
        indexStride = kb->expander->expand(memoryStride(index, 0));
  Value n = kb->expander->expand(shapeOf(index)[indexAdd ? 0 : dim]);
  // Walk only where the element is live, and (scatter_add) inside the
  // index's extent in the other dims: elsewhere no index names it.
  Value walk = !loadMask  ? rowMask
               : !rowMask ? loadMask
                          : arith::AndIOp::create(b, loc, loadMask, rowMask).getResult();
  if (!indexAdd) {
    std::tie(indexBase, indexStride) = lineAccess(index);
    for (unsigned k = 0; k < m.size(); ++k) {
      if ((int64_t)k == dim || shapeOf(index)[k] == shapeOf(result)[k])
        continue;
      Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           kb->expander->expand(toIteration(m[k])),
                                           kb->expander->expand(shapeOf(index)[k]));
      walk = walk ? arith::AndIOp::create(b, loc, walk, inside).getResult() : inside;
    }
  }
  Value zeroIdx = kb->constant(0);
  if (walk)
    n = arith::SelectOp::create(b, loc, walk, n, zeroIdx);
  Type i64 = b.getI64Type();
  auto wide64 = [&](Value v, bool isSigned) -> Value {
    if (v.getType() == i64)
      return v;
    return isSigned ? arith::ExtSIOp::create(b, loc, i64, v).getResult()
                    : arith::ExtUIOp::create(b, loc, i64, v).getResult();
  };
  Value bound = kb->expander->expand(shapeOf(result)[dim]);
  Value wideBound = wide64(bound, false);
  Value here = wide64(kb->expander->expand(toIteration(m[dim])), false);

  auto loop = scf::ForOp::create(b, loc, zeroIdx, n, kb->constant(1), ValueRange{self});
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    ExprScope scope(*kb->expander);
    Value j = loop.getInductionVar(), acc = loop.getRegionIterArgs()[0];
    Value at = arith::AddIOp::create(b, loc, indexBase,
                                     arith::MulIOp::create(b, loc, j, indexStride));
    Value value = kb->load(kb->pointer(index), indexElem, at, 1);
    Value wide = wide64(value, true);
    // Unsigned: a negative index is out of range too.
    Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, wide, wideBound);
    Value match = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, wide, here);
    auto ifMatch = scf::IfOp::create(b, loc, TypeRange{elem}, match, true);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&ifMatch.getThenRegion().front());
      Value off = arith::AddIOp::create(b, loc, sourceBase,
                                        arith::MulIOp::create(b, loc, j, sourceStride));
      Value s = kb->load(kb->pointer(source), elem, off, 1);
      scf::YieldOp::create(b, loc, scatterAccumulate(b, loc, acc, s));
      b.setInsertionPointToStart(&ifMatch.getElseRegion().front());
      scf::YieldOp::create(b, loc, acc);
    }
    // Out of range: nothing added; recorded with the index's position
    // (every element of the line sees it; one report wins).
    Value outOfRange = arith::XOrIOp::create(
        b, loc, inRange, arith::ConstantOp::create(b, loc, b.getBoolAttr(true)));
    auto reportIf = scf::IfOp::create(b, loc, outOfRange, /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&reportIf.getThenRegion().front());
      kb->recordIndexError(fe.indexSite(op), at, value, bound);
    }
    scf::YieldOp::create(b, loc, ifMatch.getResult(0));
  }
  return {loop.getResult(0), true};
}

Value mlir::fuser::scatterAccumulate(OpBuilder &b, Location loc, Value acc, Value s) {
  Type elem = acc.getType();
  if (elem.isF16() || elem.isBF16()) {
    Type f32 = b.getF32Type();
    return arith::TruncFOp::create(
        b, loc, elem,
        arith::AddFOp::create(b, loc, arith::ExtFOp::create(b, loc, f32, acc),
                              arith::ExtFOp::create(b, loc, f32, s)));
  }
  if (isa<FloatType>(elem))
    return arith::AddFOp::create(b, loc, acc, s);
  return arith::AddIOp::create(b, loc, acc, s);
}

Value GroupEmitter::asIndex(Value v) {
  return arith::IndexCastUIOp::create(kb->b, kb->loc, kb->b.getIndexType(), v);
}
