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

/// How the GEMM reads one stored matrix operand: its leading dimension,
/// whether it reads it transposed, and its batch stride, all in elements.
struct StoredMatrix {
  AffineExpr ld, batchStride;
  bool trans = false;
};

/// Dims of a stored operand as the GEMM sees them: `rows` (several dims
/// joined, as linear's leading dims, or one), then `cols` (one dim, or none
/// for a vector read as one column), and `batch` dims before them.
struct OperandDims {
  SmallVector<int64_t> batch, rows;
  std::optional<int64_t> cols;
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

static bool isStaticOne(AffineExpr e) {
  auto c = dyn_cast<AffineConstantExpr>(e);
  return c && c.getValue() == 1;
}

/// The stride of dims `dims` of a view taken as one dim: each one's
/// stride is the next one's times its size (dims of static size 1 aside).
/// Statically false: a diagnostic; not known until launch: a plan check.
/// Returns the innermost dim's stride (0 with no dim of size other than 1).
static FailureOr<AffineExpr> joinedStride(FusionEmitter &fe, Operation *op, Value v,
                                          ArrayRef<int64_t> dims, StringRef what) {
  ArrayRef<AffineExpr> shape = fe.shapes.shape(v), strides = fe.shapes.strides(v);
  MLIRContext *ctx = op->getContext();
  SmallVector<int64_t> kept;
  for (int64_t d : dims)
    if (!isStaticOne(shape[d]))
      kept.push_back(d);
  if (kept.empty())
    return getAffineConstantExpr(0, ctx);
  for (size_t i = 0; i + 1 < kept.size(); ++i) {
    AffineExpr outer = strides[kept[i]], inner = strides[kept[i + 1]] * shape[kept[i + 1]];
    if (outer == inner)
      continue;
    std::string head = (llvm::Twine("reads a view whose ") + what +
                        " dims the GEMM cannot step through with one stride: the stride of "
                        "dim " + llvm::Twine(kept[i]) + " (")
                           .str();
    std::string mid = (llvm::Twine(") is not the stride times the size of dim ") +
                       llvm::Twine(kept[i + 1]) + " (")
                          .str();
    std::string tail = "); pass it dense";
    auto co = dyn_cast<AffineConstantExpr>(outer), ci = dyn_cast<AffineConstantExpr>(inner);
    if (co && ci)
      return op->emitOpError(head + std::to_string(co.getValue()) + mid +
                             std::to_string(ci.getValue()) + tail),
             failure();
    // Known at launch only: the plan checks it before any launch ({} are
    // the check's values).
    Value a = fe.planExpr(outer), b = fe.planExpr(inner);
    Value ok = arith::CmpIOp::create(fe.planBuilder, op->getLoc(), arith::CmpIPredicate::eq, a, b);
    CheckOp::create(fe.planBuilder, op->getLoc(), ok,
                    "'" + op->getName().getStringRef().str() + "' " + head + "{}" + mid + "{}" +
                        tail,
                    ValueRange{a, b});
  }
  return strides[kept.back()];
}

/// The layout of the matrix the GEMM reads for `v`, stored with `dims`:
/// a dense value is row-major (its rows `cols` long); a view argument is
/// read row-major when its columns are one element apart and transposed
/// (column-major) when its rows are, with the other stride as the leading
/// dimension. A dim of static size 1 takes any stride. Anything else is a
/// diagnostic: the library reads no other layout.
static FailureOr<StoredMatrix> storedMatrix(FusionEmitter &fe, Operation *op, Value v,
                                            const OperandDims &dims) {
  MLIRContext *ctx = op->getContext();
  ArrayRef<AffineExpr> shape = fe.shapes.shape(v), strides = fe.shapes.strides(v);
  AffineExpr one = getAffineConstantExpr(1, ctx), zero = getAffineConstantExpr(0, ctx);
  AffineExpr rows = one, cols = dims.cols ? shape[*dims.cols] : one;
  for (int64_t d : dims.rows)
    rows = rows * shape[d];
  StoredMatrix s;
  // A view of no elements reads nothing, whatever its strides (PyTorch's
  // `randn(8, 0).t()` has strides (1, 1), an expanded empty batch 0): it is
  // read as the dense value it equals.
  bool empty = llvm::any_of(shape, [](AffineExpr e) {
    auto c = dyn_cast<AffineConstantExpr>(e);
    return c && c.getValue() == 0;
  });
  if (strides.empty() || empty) {
    s.ld = cols;
    s.batchStride = zero;
    if (!dims.batch.empty() && llvm::any_of(dims.batch, [&](int64_t d) {
          return !isStaticOne(shape[d]);
        }))
      s.batchStride = rows * cols;
    return s;
  }
  FailureOr<AffineExpr> rowStride = joinedStride(fe, op, v, dims.rows, "row");
  FailureOr<AffineExpr> batchStride = joinedStride(fe, op, v, dims.batch, "batch");
  if (failed(rowStride) || failed(batchStride))
    return failure();
  AffineExpr colStride = dims.cols ? strides[*dims.cols] : one;
  s.batchStride = *batchStride;
  auto describe = [&] {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "[";
    llvm::interleaveComma(strides, os, [&](AffineExpr e) {
      if (auto c = dyn_cast<AffineConstantExpr>(e))
        os << c.getValue();
      else
        os << "?";
    });
    os << "]";
    return text;
  };
  if (isStaticOne(cols) || isStaticOne(colStride)) {
    // Row-major: rows `ld` apart. A single row takes any stride.
    s.ld = isStaticOne(rows) ? cols : *rowStride;
  } else if (isStaticOne(rows) || isStaticOne(*rowStride)) {
    // Column-major: the transpose, row-major, its rows `ld` apart.
    s.trans = true;
    s.ld = colStride;
  } else {
    return op->emitOpError("reads a view argument with strides ")
           << describe()
           << ": the GEMM reads a matrix whose rows or whose columns are one element "
              "apart (a static stride 1 in one of its last two dims); pass it dense";
  }
  // A leading dimension shorter than the rows it steps over is read by no
  // library (cuBLASLt's rule; the runtime checks it at launch when dynamic).
  AffineExpr need = s.trans ? rows : cols;
  auto ld = dyn_cast<AffineConstantExpr>(s.ld);
  auto n = dyn_cast<AffineConstantExpr>(need);
  if (ld && n && ld.getValue() < std::max<int64_t>(n.getValue(), 1) &&
      !isStaticOne(s.trans ? cols : rows))
    return op->emitOpError("reads a view argument with strides ")
           << describe() << ": its " << (s.trans ? "columns" : "rows") << " are "
           << ld.getValue() << " elements apart, fewer than the "
           << std::max<int64_t>(n.getValue(), 1)
           << " elements of each (an expanded or overlapping matrix); pass it dense";
  return s;
}

/// The dims of `v` (of `rank`, the stored value of a matmul operand) as
/// the GEMM reads them: the last two dims are the matrix, the ones before
/// it the batch. A 1-D lhs is a 1 x k row, a 1-D rhs a k x 1 column. A
/// transposed operand's stored value has its last two dims swapped.
static OperandDims matmulOperandDims(int64_t rank, bool isRhs) {
  OperandDims d;
  if (rank == 1) {
    if (isRhs)
      d.rows = {0}; // k x 1
    else
      d.cols = 0; // 1 x k
    return d;
  }
  for (int64_t i = 0; i + 2 < rank; ++i)
    d.batch.push_back(i);
  d.rows = {rank - 2};
  d.cols = rank - 1;
  return d;
}

static FailureOr<GemmShape> matmulShape(FusionEmitter &fe, MatmulOp mm) {
  MLIRContext *ctx = mm.getContext();
  RankedTensorType at = mm.getLhs().getType(), bt = mm.getRhs().getType();
  ArrayRef<AffineExpr> a = fe.shapes.shape(mm.getLhs()), b = fe.shapes.shape(mm.getRhs()),
                       r = fe.shapes.shape(mm.getResult());
  int64_t ra = at.getRank(), rb = bt.getRank();
  AffineExpr one = getAffineConstantExpr(1, ctx);
  GemmShape g;
  g.m = ra >= 2 ? a[ra - 2] : one;
  g.k = a[ra - 1];
  g.n = rb >= 2 ? b[rb - 1] : one;
  // The stored matrices: a permute marked as a transposed operand is read
  // through its input, swapped; a view may swap it again.
  auto [sa, permutedA] = storedOperand(mm.getLhs());
  auto [sb, permutedB] = storedOperand(mm.getRhs());
  FailureOr<StoredMatrix> la = storedMatrix(fe, mm, sa, matmulOperandDims(ra, false));
  FailureOr<StoredMatrix> lb = storedMatrix(fe, mm, sb, matmulOperandDims(rb, true));
  if (failed(la) || failed(lb))
    return failure();
  g.transA = permutedA != la->trans;
  g.transB = permutedB != lb->trans;
  g.lda = la->ld;
  g.ldb = lb->ld;
  g.ldd = g.n;
  int64_t nb = r.size() - (ra >= 2) - (rb >= 2);
  g.batch = product(r, 0, nb, ctx);
  g.strideA = la->batchStride;
  g.strideB = lb->batchStride;
  g.strideD = g.m * g.n;
  // One matrix of B for a batch of A's: the batch is more rows of one GEMM
  // (A's matrices and D's are contiguous: dense, not read transposed),
  // which the library runs better than a batch of small ones.
  if (hasBatch(at) && !hasBatch(bt) && !g.transA && fe.shapes.strides(sa).empty()) {
    g.m = g.m * g.batch;
    g.batch = one;
    g.strideA = g.strideD = getAffineConstantExpr(0, ctx);
  }
  return g;
}

static FailureOr<GemmShape> linearShape(FusionEmitter &fe, LinearOp l) {
  MLIRContext *ctx = l.getContext();
  ArrayRef<AffineExpr> x = fe.shapes.shape(l.getInput()), w = fe.shapes.shape(l.getWeight());
  int64_t rx = x.size();
  GemmShape g;
  g.m = product(x, 0, rx - 1, ctx);
  g.k = x.back();
  g.n = w[0];
  // x's leading dims are the rows of A; the weight is stored [out, in],
  // B transposed (n x k).
  OperandDims xd, wd;
  for (int64_t i = 0; i + 1 < rx; ++i)
    xd.rows.push_back(i);
  xd.cols = rx - 1;
  wd.rows = {0};
  wd.cols = 1;
  FailureOr<StoredMatrix> la = storedMatrix(fe, l, l.getInput(), xd);
  FailureOr<StoredMatrix> lb = storedMatrix(fe, l, l.getWeight(), wd);
  if (failed(la) || failed(lb))
    return failure();
  g.transA = la->trans;
  g.transB = !lb->trans;
  g.lda = la->ld;
  g.ldb = lb->ld;
  g.ldd = g.n;
  g.batch = getAffineConstantExpr(1, ctx);
  g.strideA = g.strideB = g.strideD = getAffineConstantExpr(0, ctx);
  return g;
}

LogicalResult mlir::fuser::emitMatmulSegment(FusionEmitter &fe, const Segment &segment) {
  // One matmul or linear, and perhaps the activation of its epilogue or
  // the bias gradient it writes beside the product (whose ops may come
  // before it in the block).
  auto library = llvm::find_if(segment.ops, [](Operation *o) { return isLibraryOp(o); });
  if (library == segment.ops.end())
    return segment.ops.front()->emitOpError("segment ")
           << segment.index << " is a library call segment without a matmul or linear";
  Operation *op = *library, *epilogue = nullptr, *biasGradient = nullptr;
  SmallVector<Operation *> rest;
  for (Operation *other : segment.ops)
    if (other != op)
      rest.push_back(other);
  if (rest.size() == 1 && isEpilogueOf(rest.front(), op))
    epilogue = rest.front();
  else if (!rest.empty() && !(biasGradient = biasGradientOf(rest, op, fe.shapes)))
    return op->emitOpError("segment ")
           << segment.index << " is a library call with " << segment.ops.size()
           << " ops; it holds one matmul or linear and at most the activation of its epilogue "
              "or the bias gradient it writes";
  FailureOr<GemmShape> shape;
  Value a, b, bias;
  if (auto mm = dyn_cast<MatmulOp>(op)) {
    shape = matmulShape(fe, mm);
    a = storedOperand(mm.getLhs()).first;
    b = storedOperand(mm.getRhs()).first;
  } else if (auto l = dyn_cast<LinearOp>(op)) {
    shape = linearShape(fe, l);
    a = l.getInput();
    b = l.getWeight();
    bias = l.getBias();
  } else {
    return op->emitOpError("is not a library call");
  }
  if (failed(shape))
    return failure();
  const GemmShape &g = *shape;
  // Operands may be view arguments (their layout is in the GEMM's leading
  // dimensions, trans flags and batch strides); the result and the bias
  // are dense.
  auto bufferOf = [&](Value v, bool mayBeView) -> FailureOr<Value> {
    Value buf = fe.buffers.lookup(v);
    if (!buf)
      return op->emitOpError("reads a value that is not in memory (fuser-segment should have "
                             "made it a kernel's output)"),
             failure();
    if (!cast<MemRefType>(buf.getType()).getLayout().isIdentity() &&
        !(mayBeView && !fe.shapes.strides(v).empty()))
      return op->emitOpError(mayBeView ? "reads a buffer with a layout the GEMM cannot describe"
                                       : "takes a bias that is a view argument (fuser.strides); "
                                         "the bias must be dense: pass it dense"),
             failure();
    return buf;
  };
  // With an epilogue, the GEMM writes the activation's result.
  Value out = epilogue ? epilogue->getResult(0) : op->getResult(0);
  FailureOr<Value> ab = bufferOf(a, true), bb = bufferOf(b, true), db = bufferOf(out, false);
  if (failed(ab) || failed(bb) || failed(db))
    return failure();
  // A gelu whose input other ops read too: the library writes that input
  // (the matmul's result, which the segment outputs) beside D.
  Value auxBuffer;
  if (epilogue && epilogueKeepsInput(epilogue, op)) {
    FailureOr<Value> buf = bufferOf(op->getResult(0), false);
    if (failed(buf))
      return failure();
    auxBuffer = *buf;
  }
  // A bias gradient is written where the bias would be read.
  if (biasGradient)
    bias = biasGradient->getResult(0);
  Value biasBuffer;
  if (bias) {
    FailureOr<Value> buf = bufferOf(bias, false);
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
  GemmOp gemm = GemmOp::create(fe.planBuilder, op->getLoc(), *ab, *bb, *db, biasBuffer, auxBuffer, m, n, k,
                               batch, lda, ldb, ldd, strideA, strideB, strideD,
                               /*trans_a=*/UnitAttr(), /*trans_b=*/UnitAttr(),
                               /*allow_tf32=*/UnitAttr(), /*activation=*/StringAttr(),
                               /*bias_grad=*/StringAttr());
  // TF32 is a permission, not a duty: a GEMM that writes a bias gradient
  // multiplies in full f32, so the gradient is the sum of the operand's
  // own values (what cuBLASLt sums of a TF32 operand is not documented).
  if (fe.allowTf32 && !biasGradient && cast<RankedTensorType>(a.getType()).getElementType().isF32())
    gemm.setAllowTf32(true);
  // The lhs, summed over k: the rows of g^T.
  if (biasGradient)
    gemm.setBiasGrad("a");
  if (epilogue)
    gemm.setActivation(isa<ReluOp>(epilogue) ? "relu" : "gelu_tanh");
  if (g.transA)
    gemm.setTransA(true);
  if (g.transB)
    gemm.setTransB(true);
  return success();
}
