//===- MatmulSegment.cpp - matmul and linear as library calls -------------===//
//
// A segment of one fuser.matmul or fuser.linear becomes no kernel: the plan
// gets a fuser.gemm (the bundle's GEMM instruction), which the runtime runs
// through cuBLASLt on a GPU and through a reference GEMM on the emulator
// (docs/matmul.md). This file maps torch.matmul's shapes onto the GEMM's
// row-major m x k by k x n product with one batch stride per operand.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "fuser/Analysis/GroupAnalysis.h"
#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Transforms/Segments.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::fuser;

namespace {
/// The GEMM of a segment, as affine sizes of the fusion's dynamic dims.
struct GemmShape {
  AffineExpr m, n, k, batch, lda, ldb, ldd, strideA, strideB, strideD;
  bool transA = false, transB = false;
};
} // namespace

/// The product of `shape[begin, end)`.
static AffineExpr product(ArrayRef<AffineExpr> shape, size_t begin, size_t end, MLIRContext *ctx) {
  AffineExpr p = getAffineConstantExpr(1, ctx);
  for (size_t i = begin; i < end; ++i)
    p = p * shape[i];
  return p;
}

/// Whether an operand of rank `rank` with batch dims (those before its
/// last two) reads one matrix per batch element: it has a batch dim that is
/// not a static 1. fuser-decompose broadcast every operand that had some of
/// the result's batch dims but not all, so "some" means "all" here.
static bool hasBatch(RankedTensorType t) {
  if (t.getRank() <= 2)
    return false;
  return llvm::any_of(t.getShape().drop_back(2), [](int64_t d) { return d != 1; });
}

/// The value whose buffer the GEMM reads for `operand`, and whether it
/// reads it transposed: the input of a permute fuser-segment marked
/// kTransposedOperandAttr (no kernel writes the transpose).
static std::pair<Value, bool> storedOperand(Value operand) {
  if (auto p = operand.getDefiningOp<PermuteOp>(); p && p->hasAttr(kTransposedOperandAttr))
    return {p.getInput(), true};
  return {operand, false};
}

static GemmShape matmulShape(FusionEmitter &fe, MatmulOp mm) {
  MLIRContext *ctx = mm.getContext();
  RankedTensorType at = mm.getLhs().getType(), bt = mm.getRhs().getType();
  ArrayRef<AffineExpr> a = fe.shapes.shape(mm.getLhs()), b = fe.shapes.shape(mm.getRhs()),
                       r = fe.shapes.shape(mm.getResult());
  int64_t ra = at.getRank(), rb = bt.getRank();
  AffineExpr one = getAffineConstantExpr(1, ctx);
  GemmShape g;
  // A 1-D lhs is a 1 x k row, a 1-D rhs a k x 1 column.
  g.m = ra >= 2 ? a[ra - 2] : one;
  g.k = a[ra - 1];
  g.n = rb >= 2 ? b[rb - 1] : one;
  // Row strides of the stored matrices: a transposed operand is stored with
  // its last two dims swapped (A as k x m, B as n x k).
  g.transA = storedOperand(mm.getLhs()).second;
  g.transB = storedOperand(mm.getRhs()).second;
  g.lda = g.transA ? g.m : g.k;
  g.ldb = g.transB ? g.k : g.n;
  g.ldd = g.n;
  int64_t nb = r.size() - (ra >= 2) - (rb >= 2);
  g.batch = product(r, 0, nb, ctx);
  g.strideA = hasBatch(at) ? g.m * g.k : getAffineConstantExpr(0, ctx);
  g.strideB = hasBatch(bt) ? g.k * g.n : getAffineConstantExpr(0, ctx);
  g.strideD = g.m * g.n;
  // One matrix of B for a batch of A's: the batch is more rows of one GEMM
  // (A's matrices and D's are contiguous, unless A is read transposed),
  // which the library runs better than a batch of small ones.
  if (hasBatch(at) && !hasBatch(bt) && !g.transA) {
    g.m = g.m * g.batch;
    g.batch = one;
    g.strideA = g.strideD = getAffineConstantExpr(0, ctx);
  }
  return g;
}

static GemmShape linearShape(FusionEmitter &fe, LinearOp l) {
  MLIRContext *ctx = l.getContext();
  ArrayRef<AffineExpr> x = fe.shapes.shape(l.getInput()), w = fe.shapes.shape(l.getWeight());
  GemmShape g;
  g.m = product(x, 0, x.size() - 1, ctx);
  g.k = x.back();
  g.n = w[0];
  // The weight is stored [out, in]: B transposed, its rows k long.
  g.transB = true;
  g.lda = g.k;
  g.ldb = g.k;
  g.ldd = g.n;
  g.batch = getAffineConstantExpr(1, ctx);
  g.strideA = g.strideB = g.strideD = getAffineConstantExpr(0, ctx);
  return g;
}

LogicalResult mlir::fuser::emitMatmulSegment(FusionEmitter &fe, const Segment &segment) {
  // One matmul or linear, and perhaps the activation of its epilogue.
  Operation *op = segment.ops.front(), *epilogue = nullptr;
  if (segment.ops.size() == 2 && isEpilogueOf(segment.ops[1], op))
    epilogue = segment.ops[1];
  else if (segment.ops.size() != 1)
    return op->emitOpError("segment ")
           << segment.index << " is a library call with " << segment.ops.size()
           << " ops; it holds one matmul or linear and at most the activation of its epilogue";
  GemmShape g;
  Value a, b, bias;
  if (auto mm = dyn_cast<MatmulOp>(op)) {
    g = matmulShape(fe, mm);
    a = storedOperand(mm.getLhs()).first;
    b = storedOperand(mm.getRhs()).first;
  } else if (auto l = dyn_cast<LinearOp>(op)) {
    g = linearShape(fe, l);
    a = l.getInput();
    b = l.getWeight();
    bias = l.getBias();
  } else {
    return op->emitOpError("is not a library call");
  }
  auto bufferOf = [&](Value v) -> FailureOr<Value> {
    Value buf = fe.buffers.lookup(v);
    if (!buf)
      return op->emitOpError("reads a value that is not in memory (fuser-segment should have "
                             "made it a kernel's output)"),
             failure();
    if (!cast<MemRefType>(buf.getType()).getLayout().isIdentity())
      return op->emitOpError("reads a view argument (fuser.strides); a library call takes "
                             "dense row-major operands only for now: pass it dense"),
             failure();
    return buf;
  };
  // With an epilogue, the GEMM writes the activation's result.
  Value out = epilogue ? epilogue->getResult(0) : op->getResult(0);
  FailureOr<Value> ab = bufferOf(a), bb = bufferOf(b), db = bufferOf(out);
  if (failed(ab) || failed(bb) || failed(db))
    return failure();
  Value biasBuffer;
  if (bias) {
    FailureOr<Value> buf = bufferOf(bias);
    if (failed(buf))
      return failure();
    biasBuffer = *buf;
  }
  // A row stride is at least 1 even for rows of no elements (cuBLASLt's
  // rule, and the runtime's check): an empty dim makes an empty product or
  // an empty result, whose strides nothing reads.
  auto leading = [&](AffineExpr e) -> Value {
    if (auto c = dyn_cast<AffineConstantExpr>(e))
      return fe.planConstant(std::max<int64_t>(c.getValue(), 1));
    return arith::MaxSIOp::create(fe.planBuilder, op->getLoc(), fe.planExpr(e),
                                  fe.planConstant(1));
  };
  // One value at a time, in this order: the plan (and the bundle's bytes)
  // must not depend on the order a compiler evaluates arguments in.
  Value m = fe.planExpr(g.m), n = fe.planExpr(g.n), k = fe.planExpr(g.k);
  Value batch = fe.planExpr(g.batch);
  Value lda = leading(g.lda), ldb = leading(g.ldb), ldd = leading(g.ldd);
  Value strideA = fe.planExpr(g.strideA), strideB = fe.planExpr(g.strideB),
        strideD = fe.planExpr(g.strideD);
  GemmOp gemm = GemmOp::create(fe.planBuilder, op->getLoc(), *ab, *bb, *db, biasBuffer, m, n, k,
                               batch, lda, ldb, ldd, strideA, strideB, strideD,
                               /*trans_a=*/UnitAttr(), /*trans_b=*/UnitAttr(),
                               /*allow_tf32=*/UnitAttr(), /*activation=*/StringAttr());
  if (fe.allowTf32 && cast<RankedTensorType>(a.getType()).getElementType().isF32())
    gemm.setAllowTf32(true);
  if (epilogue)
    gemm.setActivation(isa<ReluOp>(epilogue) ? "relu" : "gelu_tanh");
  if (g.transA)
    gemm.setTransA(true);
  if (g.transB)
    gemm.setTransB(true);
  return success();
}
