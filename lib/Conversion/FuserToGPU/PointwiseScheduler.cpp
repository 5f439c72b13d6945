//===- PointwiseScheduler.cpp - one kernel for a pointwise segment --------===//
//
// Every output of the segment has the reference shape. The kernel walks
// that iteration space in units of `lanes` consecutive elements along the
// innermost dim, one unit per thread per step of a grid-stride loop, and for
// each unit computes every output from the segment's inputs without writing
// anything in between.
//
// Index math is symbolic: each value is reached with an index (per-dim
// affine expressions over the iteration dims, or its row-major linear index
// after a reshape), and each input's element offset is an expression in the
// iteration dims. From those expressions:
//  - adjacent iteration dims that every access treats alike merge (a pure
//    elementwise fusion becomes one flat dim, so odd inner sizes still get
//    128-bit accesses with a scalar tail);
//  - an input whose offset moves by 1 with the innermost dim is read with
//    vector loads, one that does not move is read once and kept in a
//    register (a broadcast is never materialized), anything else is read
//    lane by lane;
//  - the vector path needs the inner size to divide by the lane count and
//    the vector accesses to be aligned; what cannot be proven at compile time
//    is checked by the launch plan, which passes a flag choosing the vector
//    loop or the scalar loop.
//
//===----------------------------------------------------------------------===//

#include "ElementwiseEmitter.h"
#include "IndexMath.h"
#include "KernelBuilder.h"
#include "PointwiseScheduler.h"

#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Transforms/Segments.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fuser;


//===----------------------------------------------------------------------===//
// Symbolic analysis
//===----------------------------------------------------------------------===//

Index PointwiseScheduler::operandIndex(Operation *op, unsigned i,
                                       const Index &idx) {
  Value operand = op->getOperand(i);
  auto operandType = cast<RankedTensorType>(operand.getType());
  if (operandType.getRank() == 0)
    return Index{};
  AffineExpr zero = getAffineConstantExpr(0, ctx);
  Value result = op->getResult(0);
  return TypeSwitch<Operation *, Index>(op)
      .Case<BroadcastOp>([&](BroadcastOp bc) {
        SmallVector<AffineExpr> m = multiIndex(result, idx), out;
        for (auto [k, d] : llvm::enumerate(bc.getDims()))
          out.push_back(operandType.getDimSize(k) == 1 ? zero : m[d]);
        return Index{false, out};
      })
      .Case<PermuteOp>([&](PermuteOp p) {
        SmallVector<AffineExpr> m = multiIndex(result, idx);
        SmallVector<AffineExpr> out(m.size());
        for (auto [k, d] : llvm::enumerate(p.getPerm()))
          out[d] = m[k];
        return Index{false, out};
      })
      .Case<ReshapeOp>([&](ReshapeOp) {
        return Index{true, {linearIndex(result, idx)}};
      })
      .Case<SliceOp>([&](SliceOp s) {
        SmallVector<AffineExpr> m = multiIndex(result, idx), out;
        for (auto [k, e] : llvm::enumerate(m))
          out.push_back(e * s.getStep()[k] + s.getStart()[k]);
        return Index{false, out};
      })
      .Case<PadOp>([&](PadOp p) {
        SmallVector<AffineExpr> m = multiIndex(result, idx), out;
        for (auto [k, e] : llvm::enumerate(m))
          out.push_back(e - p.getLow()[k]);
        return Index{false, out};
      })
      .Case<ConcatOp>([&](ConcatOp c) {
        int64_t dim = c.getDimAttr().getInt();
        SmallVector<AffineExpr> m = multiIndex(result, idx);
        AffineExpr offset = zero;
        for (unsigned k = 0; k < i; ++k)
          offset = offset + shapeOf(c.getInputs()[k])[dim];
        m[dim] = m[dim] - offset;
        return Index{false, m};
      })
      .Default([&](Operation *) {
        // Elementwise: operands of the result's shape share its index.
        return idx;
      });
}

void PointwiseScheduler::analyze(Value v, const Index &idx) {
  for (auto &[seenValue, seenIndex] : visited)
    if (seenValue == v && seenIndex == idx)
      return;
  visited.push_back({v, idx});
  if (isInput(v)) {
    leafOffsets.push_back({v, linearIndex(v, idx)});
    return;
  }
  Operation *op = v.getDefiningOp();
  if (isa<IotaOp, PadOp, ConcatOp>(op))
    mergeable = false;
  for (unsigned i = 0; i < op->getNumOperands(); ++i)
    analyze(op->getOperand(i), operandIndex(op, i, idx));
}

void PointwiseScheduler::planIterationSpace() {
  // Size-1 dims are always index 0.
  SmallVector<unsigned> live;
  for (unsigned k = 0; k < refRank; ++k) {
    auto c = ShapeAnalysis::constantValue(refShape[k]);
    if (!c || *c != 1)
      live.push_back(k);
  }
  // Offsets every access computes, in d-space: the inputs' and the outputs'.
  SmallVector<AffineExpr> offsets;
  for (auto &[v, off] : leafOffsets)
    offsets.push_back(off);
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
    if (mergeable && !groups.empty()) {
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
      size = size * refShape[k];
    iterSizes.push_back(simplify(size, 0, numSymbols));
    dimSubstitution[dims.back()] = getAffineDimExpr(g, ctx);
  }
  laneDim = groups.empty() ? -1 : (int)groups.back().back();
}

//===----------------------------------------------------------------------===//
// Emission
//===----------------------------------------------------------------------===//

Value PointwiseScheduler::materialize(Lanes x, unsigned lanes) {
  if (lanes == 1 || !x.uniform)
    return x.value;
  auto vt = VectorType::get({lanes}, x.value.getType());
  return vector::BroadcastOp::create(kb->b, kb->loc, vt, x.value);
}

Index PointwiseScheduler::shiftLane(const Index &idx, Value v, int64_t by) {
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

Lanes PointwiseScheduler::emitScalarized(Value v, const Index &idx,
                                         unsigned lanes) {
  SmallVector<Value> elems;
  for (unsigned l = 0; l < lanes; ++l)
    elems.push_back(emit(v, shiftLane(idx, v, l), 1).value);
  auto vt = VectorType::get({lanes}, elems[0].getType());
  return {vector::FromElementsOp::create(kb->b, kb->loc, vt, elems), false};
}

Lanes PointwiseScheduler::emit(Value v, const Index &idx, unsigned lanes) {
  for (auto &[key, val] : llvm::reverse(memo))
    if (key.v == v && key.lanes == lanes && key.idx == idx)
      return val;
  Lanes result;
  if (isInput(v)) {
    Type elem = elementTypeOf(v);
    AffineExpr off = toIteration(linearIndex(v, idx));
    if (Value s = stagedLoad(v, off)) {
      memo.push_back({{v, idx, lanes}, {s, true}});
      return {s, true};
    }
    std::optional<int64_t> stride = laneStride(off);
    if (lanes > 1 && stride && *stride == 1) {
      result = {kb->load(kb->pointer(v), elem, kb->expander->expand(off), lanes), false};
    } else if (lanes == 1 || (stride && *stride == 0)) {
      result = {kb->load(kb->pointer(v), elem, kb->expander->expand(off), 1), true};
    } else {
      result = emitScalarized(v, idx, lanes);
    }
  } else {
    result = emitOp(v.getDefiningOp(), idx, lanes);
  }
  memo.push_back({{v, idx, lanes}, result});
  return result;
}

Lanes PointwiseScheduler::emitOp(Operation *op, const Index &idx,
                                 unsigned lanes) {
  OpBuilder &b = kb->b;
  Location loc = kb->loc;
  Value result = op->getResult(0);
  Type elem = elementTypeOf(result);

  if (auto c = dyn_cast<ConstantOp>(op))
    return {arith::ConstantOp::create(b, loc, c.getValue()), true};

  if (auto iota = dyn_cast<IotaOp>(op)) {
    AffineExpr e = toIteration(multiIndex(result, idx)[iota.getDimAttr().getInt()]);
    std::optional<int64_t> stride = laneStride(e);
    if (lanes > 1 && !(stride && (*stride == 0 || *stride == 1)))
      return emitScalarized(result, idx, lanes);
    Value base = kb->expander->expand(e);
    Value v = base;
    bool uniform = lanes == 1 || *stride == 0;
    if (!uniform) {
      auto vt = VectorType::get({lanes}, kb->idxTy);
      SmallVector<APInt> steps;
      for (unsigned l = 0; l < lanes; ++l)
        steps.push_back(APInt(kb->idxTy.getIntOrFloatBitWidth(), l));
      Value ramp = arith::ConstantOp::create(b, loc, vt, DenseIntElementsAttr::get(vt, steps));
      v = arith::AddIOp::create(b, loc, vector::BroadcastOp::create(b, loc, vt, base), ramp);
    }
    return {emitCast(b, loc, v, elem), uniform};
  }

  if (isa<BroadcastOp, PermuteOp, ReshapeOp, SliceOp>(op))
    return emit(op->getOperand(0), operandIndex(op, 0, idx), lanes);

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
        if (pad.getLow()[d] || pad.getHigh()[d])
          dims.push_back(d);
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
        size_t memoSize = memo.size();
        Value v = materialize(emit(pad.getInput(), oi, lanes), lanes);
        memo.resize(memoSize);
        scf::YieldOp::create(b, loc, v);
        b.setInsertionPointToStart(&ifOp.getElseRegion().front());
        scf::YieldOp::create(b, loc, materialize(padValue, lanes));
      }
      return {ifOp.getResult(0), lanes == 1};
    }
    auto concat = cast<ConcatOp>(op);
    int64_t dim = concat.getDimAttr().getInt();
    // if (i < end0) a0 else if (i < end1) a1 ... else aN
    Value i = kb->expander->expand(toIteration(m[dim]));
    Type t = lanes > 1 ? Type(VectorType::get({lanes}, elem)) : elem;
    std::function<Value(unsigned, AffineExpr)> chain = [&](unsigned k,
                                                          AffineExpr start) -> Value {
      Value in = concat.getInputs()[k];
      Index oi = operandIndex(op, k, idx);
      if (k + 1 == concat.getInputs().size()) {
        ExprScope scope(*kb->expander);
        size_t memoSize = memo.size();
        Value v = materialize(emit(in, oi, lanes), lanes);
        memo.resize(memoSize);
        return v;
      }
      AffineExpr end = start + shapeOf(in)[dim];
      Value cond = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i,
                                         kb->expander->expand(simplify(end, 0, numSymbols)));
      auto ifOp = scf::IfOp::create(b, loc, TypeRange{t}, cond, true);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      {
        ExprScope scope(*kb->expander);
        size_t memoSize = memo.size();
        Value v = materialize(emit(in, oi, lanes), lanes);
        memo.resize(memoSize);
        scf::YieldOp::create(b, loc, v);
      }
      b.setInsertionPointToStart(&ifOp.getElseRegion().front());
      {
        ExprScope scope(*kb->expander);
        scf::YieldOp::create(b, loc, chain(k + 1, end));
      }
      return ifOp.getResult(0);
    };
    return {chain(0, getAffineConstantExpr(0, ctx)), lanes == 1};
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
  Value v = emitElementwise(b, loc, op, values);
  assert(v && "no emitter for this elementwise op");
  return {v, allUniform};
}

void PointwiseScheduler::emitUnit(Value linear, unsigned lanes) {
  OpBuilder &b = kb->b;
  ExprScope scope(*kb->expander);
  // Iteration dims from the linear element index of the unit's first lane.
  iterValues.assign(numIterDims, Value());
  Value rest = linear;
  for (unsigned j = numIterDims; j-- > 0;) {
    if (j == 0) {
      iterValues[0] = rest;
      break;
    }
    Value size = kb->expander->expand(iterSizes[j]);
    iterValues[j] = arith::RemUIOp::create(b, kb->loc, rest, size);
    rest = arith::DivUIOp::create(b, kb->loc, rest, size);
  }
  memo.clear();
  SmallVector<AffineExpr> dIdx;
  for (unsigned k = 0; k < refRank; ++k)
    dIdx.push_back(getAffineDimExpr(k, ctx));
  for (Value out : seg.outputs) {
    Index idx{false, dIdx};
    Lanes v = emit(out, idx, lanes);
    AffineExpr off = toIteration(linearIndex(out, idx));
    kb->store(kb->pointer(out), materialize(v, lanes), kb->expander->expand(off));
  }
}

void PointwiseScheduler::emitKernel(unsigned indexBits) {
  const int64_t block = 256;
  SmallVector<unsigned> symbols;
  for (unsigned k = 0; k < numSymbols; ++k)
    symbols.push_back(k);
  SmallVector<Value> inputs = orderedInputs(seg);
  SmallVector<Value> outputs(seg.outputs.begin(), seg.outputs.end());
  std::string name = fe.newKernelName();
  KernelBuilder k(fe, name, indexBits, inputs, outputs, symbols,
                  /*numFlags=*/1, {block});
  kb = &k;
  OpBuilder &b = k.b;
  Location loc = k.loc;
  k.expander = std::make_unique<ExprExpander>(
      b, loc, k.idxTy, [this](unsigned j) { return iterValues[j]; },
      [&k](unsigned s) { return k.symbol(s); }, /*hoistSymbolic=*/true);

  AffineExpr total = getAffineConstantExpr(1, ctx);
  for (AffineExpr s : iterSizes)
    total = total * s;
  total = simplify(total, 0, numSymbols);
  Value n = k.expander->expand(total);
  Value tid = k.threadId(gpu::Dimension::x);
  Value bid = k.blockId(gpu::Dimension::x);
  Value gdim = k.gridDim(gpu::Dimension::x);
  Value blockV = k.constant(block);
  Value first = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, bid, blockV), tid);
  Value stride = arith::MulIOp::create(b, loc, gdim, blockV);

  auto scalarLoop = [&](Value from) {
    auto loop = scf::ForOp::create(b, loc, from, n, stride);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    emitUnit(loop.getInductionVar(), 1);
  };

  if (vectorLanes > 1) {
    Value isVector = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                           k.flag(0), arith::ConstantIntOp::create(b, loc, 0, 32));
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, isVector, true);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      ExprScope scope(*k.expander);
      Value lanesV = k.constant(vectorLanes);
      Value units = arith::DivUIOp::create(b, loc, n, lanesV);
      auto loop = scf::ForOp::create(b, loc, first, units, stride);
      {
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPointToStart(loop.getBody());
        emitUnit(arith::MulIOp::create(b, loc, loop.getInductionVar(), lanesV), vectorLanes);
      }
      if (numIterDims <= 1) // a flat space has a tail of fewer than `lanes`
        scalarLoop(arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, units, lanesV), first));
      b.setInsertionPointToStart(&ifOp.getElseRegion().front());
      ExprScope scope2(*k.expander);
      scalarLoop(first);
    }
  } else {
    scalarLoop(first);
  }
  k.finish();

  // The plan: vector flag, grid size, launch condition.
  OpBuilder &pb = fe.planBuilder;
  Value planN = fe.planExpr(total);
  Value vecOk;
  if (vectorLanes > 1) {
    vecOk = arith::ConstantIntOp::create(pb, fe.loc, 1, 1);
    for (AffineExpr e : divisibility) {
      Value rem = arith::RemUIOp::create(pb, fe.loc, fe.planExpr(e),
                                         fe.planConstant(vectorLanes));
      vecOk = arith::AndIOp::create(
          pb, fe.loc, vecOk,
          arith::CmpIOp::create(pb, fe.loc, arith::CmpIPredicate::eq, rem,
                                fe.planConstant(0)));
    }
    for (auto &[buf, bytes] : alignment)
      vecOk = arith::AndIOp::create(
          pb, fe.loc, vecOk,
          IsAlignedOp::create(pb, fe.loc, fe.buffers.lookup(buf), bytes));
  }
  Value units = planN;
  if (vecOk)
    units = arith::SelectOp::create(
        pb, fe.loc, vecOk,
        arith::CeilDivUIOp::create(pb, fe.loc, planN, fe.planConstant(vectorLanes)),
        planN);
  // Enough blocks for every unit, at most one full wave at full occupancy;
  // the grid-stride loop covers the rest.
  int64_t maxBlocks = fe.target.smCount * (fe.target.maxThreadsPerSM / block);
  Value blocks = arith::MinUIOp::create(
      pb, fe.loc,
      arith::CeilDivUIOp::create(pb, fe.loc, units, fe.planConstant(block)),
      fe.planConstant(maxBlocks));
  Value cond = arith::CmpIOp::create(pb, fe.loc, arith::CmpIPredicate::sgt, planN,
                                     fe.planConstant(0));
  if (variantCondition)
    cond = arith::AndIOp::create(pb, fe.loc, cond, variantCondition);
  Value flag = vecOk ? arith::IndexCastUIOp::create(pb, fe.loc, pb.getIndexType(), vecOk).getResult()
                     : fe.planConstant(0);
  k.launch({blocks}, {block}, Value(), cond, {flag});
  kb = nullptr;
}

LogicalResult PointwiseScheduler::run() {
  ref = seg.outputs.front();
  refShape = llvm::to_vector(shapeOf(ref));
  refRank = refShape.size();
  for (Value out : seg.outputs)
    if (ArrayRef<AffineExpr>(shapeOf(out)) != ArrayRef<AffineExpr>(refShape))
      return out.getDefiningOp()->emitOpError(
          "is an output of a pointwise segment whose outputs differ in shape");
  SmallVector<AffineExpr> dIdx;
  for (unsigned k = 0; k < refRank; ++k)
    dIdx.push_back(getAffineDimExpr(k, ctx));
  for (Value out : seg.outputs)
    analyze(out, Index{false, dIdx});
  planIterationSpace();

  // Lanes: 16 bytes of the narrowest type accessed contiguously.
  unsigned narrowest = 16;
  SmallVector<std::pair<Value, AffineExpr>> contiguous;
  for (Value out : seg.outputs) {
    narrowest = std::min(narrowest, byteSize(elementTypeOf(out)));
    contiguous.push_back({out, toIteration(linearIndex(out, Index{false, dIdx}))});
  }
  for (auto &[v, off] : leafOffsets) {
    AffineExpr o = toIteration(off);
    if (laneStride(o) == std::optional<int64_t>(1)) {
      narrowest = std::min(narrowest, byteSize(elementTypeOf(v)));
      contiguous.push_back({v, o});
    }
  }
  vectorLanes = numIterDims == 0 ? 1 : 16 / narrowest;
  // Rows of a multi-dim space must hold whole units; a static inner size
  // picks the widest lane count that divides it.
  if (numIterDims > 1) {
    AffineExpr inner = iterSizes.back();
    if (auto c = ShapeAnalysis::constantValue(inner)) {
      while (vectorLanes > 1 && *c % vectorLanes)
        vectorLanes /= 2;
    } else {
      divisibility.push_back(inner);
    }
  }
  // Each contiguous access starts a unit at offset c0 + sum c_j m_j with the
  // lane dim a multiple of `lanes`: the other terms must be multiples too.
  for (auto &[v, off] : contiguous) {
    auto c = linearCoefficients(off, numIterDims);
    assert(c && "contiguous access has linear coefficients");
    for (unsigned j = 0; j < numIterDims; ++j) {
      AffineExpr term = simplify((*c)[j], 0, numSymbols);
      if (!isMultipleOf(term, vectorLanes))
        divisibility.push_back(term);
    }
    alignment.push_back({v, std::min(16u, vectorLanes * byteSize(elementTypeOf(v)))});
  }
  // A term that is a constant and not a multiple rules the vector path out.
  for (AffineExpr e : divisibility)
    if (ShapeAnalysis::constantValue(e))
      vectorLanes = 1;
  if (vectorLanes == 1) {
    divisibility.clear();
    alignment.clear();
  }
  // Deduplicate alignment checks per buffer, in a deterministic order.
  llvm::MapVector<Value, unsigned> align;
  for (auto &[v, bytes] : alignment)
    align[v] = std::max(align[v], bytes);
  alignment.assign(align.begin(), align.end());

  AffineExpr maxElements = simplify(fe.shapes.numElements(ref), 0, numSymbols);
  for (Value in : seg.inputs) {
    AffineExpr n = fe.shapes.numElements(in);
    // Use the larger when both are constants; otherwise track the sum, an
    // upper bound of both.
    auto a = ShapeAnalysis::constantValue(maxElements), c = ShapeAnalysis::constantValue(n);
    maxElements = (a && c) ? getAffineConstantExpr(std::max(*a, *c), ctx)
                           : simplify(maxElements + n, 0, numSymbols);
  }
  SmallVector<unsigned> widths = fe.indexWidths(maxElements);
  Value fits32 = widths.size() > 1 ? fe.planFitsIn32Bits(maxElements) : Value();
  bool transpose = planTranspose();
  for (unsigned w : widths) {
    variantCondition = Value();
    if (fits32) {
      variantCondition = w == 32 ? fits32
                                 : arith::XOrIOp::create(
                                       fe.planBuilder, fe.loc, fits32,
                                       arith::ConstantIntOp::create(fe.planBuilder, fe.loc, 1, 1))
                                       .getResult();
    }
    if (transpose)
      emitTransposeKernel(w);
    else
      emitKernel(w);
  }
  return success();
}

LogicalResult mlir::fuser::emitPointwiseSegment(FusionEmitter &fe,
                                                const Segment &segment) {
  return PointwiseScheduler(fe, segment).run();
}
