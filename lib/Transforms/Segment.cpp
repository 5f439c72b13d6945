//===- Segment.cpp - partition fusions into kernel groups -----------------===//
//
// Groups start as single ops and merge greedily (see the pass description);
// GroupAnalysis decides whether a merged group is one kernel. The reason a
// merge across a value edge was refused is kept for --fuser-segment=dump.
//
//===----------------------------------------------------------------------===//

#include "SplitReductions.h"

#include "fuser/Analysis/GroupAnalysis.h"
#include "fuser/Analysis/IndexGrowth.h"
#include "fuser/Dialect/Fuser/IR/FuserAttrNames.h"
#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Dialect/Fuser/IR/FusionName.h"
#include "fuser/Transforms/Passes.h"
#include "fuser/Transforms/Segments.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_SEGMENTPASS
#include "fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

/// Ops with no operands are copied into each group that uses them.
static bool isFree(Operation *op) { return isa<ConstantOp, IotaOp>(op); }

/// A result that is a view of another value's bytes: in no group.
static bool isResultView(Operation *op) { return op->hasAttr(kResultViewAttr); }
/// A transpose a GEMM reads through its flags: in no group.
static bool isTransposedOperand(Operation *op) { return op->hasAttr(kTransposedOperandAttr); }
/// A reshape of an argument a GEMM reads in place: in no group.
static bool isOperandView(Operation *op) { return op->hasAttr(kOperandViewAttr); }
/// Ops in no group: views of bytes other ops write.
static bool isView(Operation *op) {
  return isResultView(op) || isTransposedOperand(op) || isOperandView(op);
}

/// Whether `p` swaps its last two dims and keeps the others.
static bool swapsLastTwo(PermuteOp p) {
  ArrayRef<int64_t> perm = p.getPerm();
  int64_t r = perm.size();
  if (r < 2 || perm[r - 2] != r - 1 || perm[r - 1] != r - 2)
    return false;
  for (int64_t i = 0; i + 2 < r; ++i)
    if (perm[i] != i)
      return false;
  return true;
}

/// Whether only matmuls read `p`'s result (a transposed operand's users).
static bool onlyMatmulsRead(Operation *p) {
  return !p->use_empty() && llvm::all_of(p->getUsers(), [](Operation *u) { return isa<MatmulOp>(u); });
}

/// Marks each fuser.reshape of a dense fusion argument (no strides) whose
/// every user is a matmul or linear, or a transpose of its last two dims
/// that only matmuls read, as an operand view (kOperandViewAttr): the
/// library reads the argument's buffer with the reshape's shape, and no
/// kernel copies it. (fuser-vjp reshapes a linear layer's [B, S, H] input
/// and gradient to rows for the weight gradient's one GEMM.)
static void markOperandViews(func::FuncOp fusion) {
  fusion.walk([&](ReshapeOp r) {
    auto arg = dyn_cast<BlockArgument>(r.getInput());
    if (!arg || argStrides(fusion, arg.getArgNumber()) || r->use_empty() ||
        r->hasAttr(kResultViewAttr))
      return;
    for (Operation *u : r->getUsers()) {
      if (isa<MatmulOp, LinearOp>(u))
        continue;
      auto p = dyn_cast<PermuteOp>(u);
      if (!p || !swapsLastTwo(p) || !onlyMatmulsRead(p))
        return;
    }
    r->setAttr(kOperandViewAttr, UnitAttr::get(fusion.getContext()));
  });
}

/// Marks each fuser.permute that swaps the last two dims and whose every
/// user reads it as a matmul operand (kTransposedOperandAttr): the GEMM
/// reads the permute's input with its transpose flag, and no kernel writes
/// the transpose. (A gradient's `g^T @ x`, an attention score's `k^T`.) The
/// input must be in memory anyway: an argument (not a view: a library call
/// reads dense operands) or a value some kernel computes; not a constant.
static void markTransposedOperands(func::FuncOp fusion) {
  fusion.walk([&](PermuteOp p) {
    if (!swapsLastTwo(p) || !onlyMatmulsRead(p))
      return;
    Value in = p.getInput();
    if (auto arg = dyn_cast<BlockArgument>(in)) {
      // A view is read in place when the GEMM can read it at all: a static
      // unit stride in its last two dims (MatmulSegment.cpp). Otherwise a
      // kernel writes the transpose, dense.
      if (auto strides = argStrides(fusion, arg.getArgNumber()))
        if (strides->back() != 1 && (*strides)[strides->size() - 2] != 1)
          return;
    } else if (Operation *def = in.getDefiningOp();
               isFree(def) || (isView(def) && !isOperandView(def))) {
      return;
    }
    p->setAttr(kTransposedOperandAttr, UnitAttr::get(fusion.getContext()));
  });
}

/// The ops that read `op`'s result `v`, looking through transposed
/// operands to the matmuls that read them.
static SmallVector<Operation *> readersOf(Value v) {
  SmallVector<Operation *> users;
  for (Operation *u : v.getUsers()) {
    if (isTransposedOperand(u))
      llvm::append_range(users, u->getUsers());
    else
      users.push_back(u);
  }
  return users;
}

/// Marks each result that is a fuser.reshape of a value some kernel computes
/// as a view (kResultViewAttr): the kernel writes the value into the
/// result's buffer, and the reshape costs no kernel. A value that already
/// has a buffer (returned itself, or viewed by an earlier result) is viewed
/// through an identity cast: a second store in the same kernel.
static void markResultViews(func::FuncOp fusion) {
  Operation *ret = fusion.getBody().front().getTerminator();
  llvm::SmallPtrSet<Value, 8> claimed(ret->operand_begin(), ret->operand_end());
  for (Value v : ret->getOperands()) {
    auto r = v.getDefiningOp<ReshapeOp>();
    if (!r || !r->hasOneUse())
      continue;
    Value u = r.getInput();
    Operation *def = u.getDefiningOp();
    if (!def || isFree(def) || isa<ReshapeOp>(def))
      continue;
    if (!claimed.insert(u).second) {
      OpBuilder b(r);
      r.getInputMutable().assign(CastOp::create(b, r.getLoc(), u.getType(), u));
    }
    r->setAttr(kResultViewAttr, UnitAttr::get(fusion.getContext()));
  }
}

/// Whether every dynamic dim of `op`'s single result takes its size from
/// the tensors the result combines with, not from an operand: a constant or
/// iota of `?` size, a broadcast to a new or expanded `?` dim, and the
/// elementwise ops (casts, arithmetic, where) of such values and scalars.
static bool isSizedByUse(Operation *op, const llvm::SmallPtrSetImpl<Operation *> &sizedByUse) {
  if (op->getNumResults() != 1 || op->getNumRegions() != 0)
    return false;
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || type.hasStaticShape())
    return false;
  if (isa<ConstantOp, IotaOp>(op))
    return true;
  if (auto b = dyn_cast<BroadcastOp>(op)) {
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (!type.isDynamicDim(d))
        continue;
      const int64_t *mapped = llvm::find(b.getDims(), d);
      if (mapped == b.getDims().end())
        return true; // a new dim
      if (b.getInput().getType().getDimSize(mapped - b.getDims().begin()) == 1)
        return true; // expanded from 1
    }
    return false;
  }
  if (isReductionOp(op) || isScanOp(op) || isIndexingOp(op) || isLibraryOp(op) ||
      isa<RandOp, RandnOp, BernoulliOp, DropoutOp, ReshapeOp, SizeOp>(op))
    return false;
  bool any = false;
  for (Value in : op->getOperands()) {
    if (cast<RankedTensorType>(in.getType()).getRank() == 0)
      continue;
    Operation *def = in.getDefiningOp();
    if (!def || !sizedByUse.contains(def) ||
        cast<RankedTensorType>(in.getType()).getShape() != type.getShape())
      return false;
    any = true;
  }
  return any;
}

/// A constant or an iota that an op reads from memory (a library call's
/// operand, a scatter's index or source, a gather's table) becomes a value
/// a kernel writes: a constant the broadcast of its rank-0 value, an iota
/// itself plus 0. Free ops are recomputed in each kernel that uses them and
/// are in no memory, and canonicalization folds the broadcast a user writes
/// for this back into a constant (torch's `a @ torch.ones(5, 3)`).
static void materializeFreeOperands(func::FuncOp fusion) {
  Block &body = fusion.getBody().front();
  for (Operation &op : llvm::make_early_inc_range(body.without_terminator())) {
    for (OpOperand &operand : op.getOpOperands()) {
      Operation *def = operand.get().getDefiningOp();
      if (!def || !isFree(def) || !readsFromMemory(&op, operand.getOperandNumber()))
        continue;
      auto t = cast<RankedTensorType>(operand.get().getType());
      auto scalar = RankedTensorType::get({}, t.getElementType());
      OpBuilder b(&op);
      Location loc = def->getLoc();
      Value written;
      if (auto c = dyn_cast<ConstantOp>(def)) {
        Value c0 = ConstantOp::create(b, loc, scalar, c.getValue());
        written = BroadcastOp::create(b, loc, t, c0, ArrayRef<int64_t>{});
      } else {
        Type e = t.getElementType();
        Attribute zero = isa<FloatType>(e) ? Attribute(b.getFloatAttr(e, 0.0))
                                           : Attribute(b.getIntegerAttr(e, 0));
        Value z = ConstantOp::create(b, loc, t, cast<TypedAttr>(zero));
        written = AddOp::create(b, loc, operand.get(), z);
      }
      operand.set(written);
      // A constant sized by this use alone would be left with no use to
      // size it.
      if (def->use_empty())
        def->erase();
    }
  }
}

/// A value sized by its uses (isSizedByUse) and used by tensors of
/// different sizes is really one value per use: `zeros_like(a)` and
/// `zeros_like(b)` for a `?` and b `?` are both `fuser.constant 0 :
/// tensor<?xf32>`, which the canonicalizer's constant uniquing and CSE
/// merge into one value, whose single size would then have to equal both
/// (an ASSERT that fails a valid call). Before the shapes are analyzed,
/// each such op gets one copy per using op, so that each use sizes its own
/// (uses that cannot size one, reductions and reshapes, keep the original
/// with the first use that can); walking the block backwards splits whole chains (a cast of a shared
/// constant, then the constant). A value the fusion returns, and every
/// value it is computed from, keeps its uses: its size comes from them. The
/// copies cost nothing: these ops are
/// recomputed by every kernel that reads them anyway.
static void splitValuesSizedByUse(func::FuncOp fusion) {
  Block &body = fusion.getBody().front();
  llvm::SmallPtrSet<Operation *, 16> sizedByUse;
  for (Operation &op : body.without_terminator())
    if (isSizedByUse(&op, sizedByUse))
      sizedByUse.insert(&op);
  // What a returned value is computed from keeps all its uses too (the
  // result's size comes through them).
  llvm::SmallPtrSet<Operation *, 16> anchored;
  SmallVector<Operation *> work;
  for (Value r : body.getTerminator()->getOperands())
    if (Operation *def = r.getDefiningOp(); def && sizedByUse.contains(def))
      work.push_back(def);
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (!anchored.insert(op).second)
      continue;
    for (Value in : op->getOperands())
      if (Operation *def = in.getDefiningOp(); def && sizedByUse.contains(def))
        work.push_back(def);
  }
  SmallVector<Operation *> ops(llvm::make_pointer_range(body.without_terminator()));
  for (Operation *op : llvm::reverse(ops)) {
    if (!sizedByUse.contains(op) || anchored.contains(op))
      continue;
    Value v = op->getResult(0);
    // A use whose result does not carry the value's dims (a reduction over
    // them, a reshape that merges them) cannot size a copy of its own: it
    // shares the value with the first use that can.
    auto sizes = [](Operation *user) { return !isReductionOp(user) && !isa<ReshapeOp>(user); };
    llvm::SetVector<Operation *> users;
    for (OpOperand &use : v.getUses())
      if (sizes(use.getOwner()))
        users.insert(use.getOwner());
    if (users.size() < 2)
      continue;
    OpBuilder b(op);
    for (Operation *user : users.getArrayRef().drop_front()) {
      Operation *copy = b.clone(*op);
      sizedByUse.insert(copy);
      user->replaceUsesOfWith(v, copy->getResult(0));
    }
  }
}

/// A reshape sized by its uses (kDimsFromUsesAttr, or one whose rule
/// would guess how its dims split and whose uses sized them instead) keeps
/// those sizes as kSizesAttr: a copy of it in another segment (recomputed
/// there, or read there by a reduction) may have no use that sizes it, and
/// the reshape rule's guess from its input would then give the copy other
/// dims than its original (`[?] -> [?, ?]` as `[n, 1]`).
static void recordSizesFromUses(func::FuncOp fusion, const ShapeAnalysis &shapes) {
  unsigned numDimSymbols = llvm::count_if(shapes.symbols(), [](const ShapeAnalysis::Symbol &s) {
    return !s.stride;
  });
  fusion.walk([&](ReshapeOp r) {
    if (!r->hasAttr(kDimsFromUsesAttr) && !shapes.sizedByUses(r))
      return;
    AffineMap sizes = AffineMap::get(0, numDimSymbols, shapes.shape(r.getResult()),
                                     r.getContext());
    r->setAttr(kSizesAttr, AffineMapAttr::get(sizes));
    r->removeAttr(kDimsFromUsesAttr);
  });
}

/// The most ops fuser-segment clones to recompute one value in another
/// group; a larger cone stays an intermediate in memory.
static constexpr unsigned kMaxRecomputedOps = 64;

/// Ops whose value at an element a kernel can recompute from the fusion's
/// arguments alone: no reductions anywhere upstream. Every op that is not a
/// reduction qualifies when its operands do (random ops too: their values
/// are a function of seed, offset and index).
/// An indexing op qualifies when what it reads from memory (a gather's
/// table, a scatter's index and source) are arguments (values computed by
/// some kernel would have to be in memory before the reader).
static bool isRecomputable(Operation *op) {
  if (isIndexingOp(op))
    return llvm::all_of(op->getOpOperands(), [&](OpOperand &operand) {
      return !readsFromMemory(op, operand.getOperandNumber()) ||
             isa<BlockArgument>(operand.get());
    });
  return !isReductionOp(op) && !isScanOp(op) && !isLibraryOp(op);
}

/// Whether an indexing op reads `v` from memory (a gather's table at
/// positions computed from data, a scatter's index and source along whole
/// lines), so `v` must be in memory, never recomputed by the reader.
static bool readAtComputedPositions(Value v) {
  return llvm::any_of(v.getUses(), [](OpOperand &use) {
    return isTransposedOperand(use.getOwner()) ||
           readsFromMemory(use.getOwner(), use.getOperandNumber());
  });
}

/// Values of a fusion that stay in memory for their readers however cheap
/// they are to recompute: their read index grew past a bound
/// (IndexGrowth.h), with the reason.
using WrittenValues = llvm::MapVector<Value, std::string>;

/// The cone of `v`: the ops that compute it from the fusion's arguments, in
/// program order, or failure when `v` depends on a reduction (or a result
/// view, or a value in `written`) or the cone is larger than
/// kMaxRecomputedOps.
static bool recomputeCone(Value v, SmallVectorImpl<Operation *> &ops,
                          const WrittenValues &written) {
  llvm::SetVector<Operation *> seen;
  SmallVector<Value> stack{v};
  while (!stack.empty()) {
    Operation *def = stack.pop_back_val().getDefiningOp();
    if (!def || seen.contains(def))
      continue; // arguments are there for every group
    if (isFree(def)) {
      seen.insert(def); // a constant: each group its own copy
      continue;
    }
    if (!isRecomputable(def) || isView(def) || seen.size() >= kMaxRecomputedOps ||
        llvm::any_of(def->getResults(), [&](Value r) { return written.contains(r); }))
      return false;
    seen.insert(def);
    llvm::append_range(stack, def->getOperands());
  }
  ops.assign(seen.begin(), seen.end());
  llvm::sort(ops, [](Operation *x, Operation *y) { return x->isBeforeInBlock(y); });
  return true;
}

/// Values that cross from one segment into another and that the reading
/// segment can recompute from the fusion's arguments (a cast of an input, a
/// broadcast of the mean, the xhat of a layer_norm backward): the cone of
/// ops that computes them is cloned into the reader instead of being
/// written to memory by one kernel and read back by the other. Memory
/// bound kernels pay nothing for the extra arithmetic, and the bytes of an
/// intermediate (an f32 copy of a bf16 input: 4 bytes written and read per
/// element) are saved. Returns how many values were recomputed.
static unsigned recomputeAcrossSegments(Block &body, const WrittenValues &written) {
  auto segmentOf = [](Operation *op) {
    auto a = op->getAttrOfType<IntegerAttr>(kSegmentAttr);
    return a ? a.getInt() : -1;
  };
  unsigned recomputed = 0;
  // A library call's segment computes nothing but what the library does (a
  // bias gradient's sum reads its input from memory, as the GEMM does).
  llvm::DenseSet<int64_t> librarySegments;
  for (Operation &op : body.without_terminator())
    if (isLibraryOp(&op))
      librarySegments.insert(segmentOf(&op));
  // Per reading segment: the clone of each original value.
  DenseMap<int64_t, IRMapping> clones;
  for (Operation &op : llvm::make_early_inc_range(body.without_terminator())) {
    int64_t reader = segmentOf(&op);
    if (reader < 0 || isFree(&op) || librarySegments.contains(reader))
      continue;
    for (OpOperand &operand : op.getOpOperands()) {
      Value v = operand.get();
      Operation *def = v.getDefiningOp();
      if (!def || isFree(def) || segmentOf(def) == reader || segmentOf(def) < 0)
        continue;
      // An indexing op reads its table (a scatter its index and source)
      // from memory: the value stays there (readAtComputedPositions).
      if (readsFromMemory(&op, operand.getOperandNumber()))
        continue;
      IRMapping &map = clones[reader];
      if (Value known = map.lookupOrNull(v)) {
        operand.set(known);
        continue;
      }
      SmallVector<Operation *> ops;
      if (!recomputeCone(v, ops, written))
        continue;
      OpBuilder b(&op);
      for (Operation *o : ops) {
        if (map.contains(o->getResult(0)))
          continue;
        Operation *c = b.clone(*o, map);
        c->setAttr(kSegmentAttr, b.getI64IntegerAttr(reader));
      }
      operand.set(map.lookup(v));
      ++recomputed;
    }
  }
  return recomputed;
}

namespace {

/// Groups as labels (the index a group started with, kept by the group that
/// absorbs another), each with its ops, its neighbours in the group graph
/// and the values it computes for other groups, all updated as groups merge
/// so that a merge costs what the smaller group holds: segmenting a chain of
/// n ops used to cost n^2 (each merge walked, sorted and classified the
/// whole growing group).
class Segmenter {
public:
  Segmenter(func::FuncOp fusion, const ShapeAnalysis &shapes)
      : fusion(fusion), shapes(shapes) {}

  LogicalResult run(bool dump, StringRef dot);

private:
  /// The group label of `op`; -1 when it is in none (free ops, the return).
  int groupOf(Operation *op) {
    auto it = node.find(op);
    return it == node.end() ? -1 : labelOf[find(it->second)];
  }
  int find(int n) {
    while (parent[n] != n)
      n = parent[n] = parent[parent[n]];
    return n;
  }
  /// The ops of group `g`, in program order.
  ArrayRef<Operation *> members(int g);
  bool alive(int g) { return !ops[nodeOf[g]].empty(); }
  /// Whether group `from` reaches `to` along a path of hard edges other
  /// than the direct edge (a merge of the two would then make a cycle).
  bool reaches(int from, int to, int skipDirect);
  /// Whether the reader of `v` will recompute it (recomputeCone): such a
  /// value makes a soft edge, which recomputeAcrossSegments removes.
  bool isSoft(Value v);
  bool tryMerge(int a, int b);

  // Union-find over the groups' first nodes; per node: its ops (valid at
  // roots), whether they are sorted. Per label: its root node.
  DenseMap<Operation *, int> node;
  SmallVector<int> parent, labelOf, nodeOf;
  SmallVector<SmallVector<Operation *>> ops;
  SmallVector<bool> sorted;
  // Per label.
  SmallVector<llvm::SetVector<int>> succ, pred;
  /// The edges along which some value is not recomputed (it depends on a
  /// reduction): only these order the groups. A cycle of groups through
  /// soft edges is none once the readers recompute (group_norm backward's
  /// dw and db, two column sums that each read the other's casts through
  /// the dx kernel, are one kernel).
  SmallVector<llvm::SetVector<int>> hardSucc, hardPred;
  DenseMap<Value, bool> softness;
  SmallVector<SmallVector<Value>> outs; ///< values other groups or the return read
  SmallVector<bool> hasReduction;
  SmallVector<bool> hasIndexing; ///< holds a gather, index_select or scatter
  SmallVector<bool> isLibrary;   ///< a matmul or linear: a group of its own
  /// Why the edge from one group to another stayed a boundary.
  std::map<std::pair<int, int>, std::string> boundaryReason;

  func::FuncOp fusion;
  const ShapeAnalysis &shapes;
  /// Values written to memory for their readers (IndexGrowth.h), once the
  /// ops are known to be kernel ops: no group holds both such a value and a
  /// reader of it.
  WrittenValues written;
  SmallVector<Operation *> order; // program order, free ops excluded
};

} // namespace

ArrayRef<Operation *> Segmenter::members(int g) {
  int n = nodeOf[g];
  if (!sorted[n]) {
    llvm::sort(ops[n], [](Operation *x, Operation *y) { return x->isBeforeInBlock(y); });
    sorted[n] = true;
  }
  return ops[n];
}

bool Segmenter::isSoft(Value v) {
  auto [it, inserted] = softness.try_emplace(v, false);
  if (inserted && !readAtComputedPositions(v)) {
    SmallVector<Operation *> cone;
    it->second = recomputeCone(v, cone, written);
  }
  return it->second;
}

bool Segmenter::reaches(int from, int to, int skipDirect) {
  SmallVector<int> stack;
  llvm::DenseSet<int> seen;
  for (int s : hardSucc[from])
    if (s != skipDirect)
      stack.push_back(s);
  while (!stack.empty()) {
    int g = stack.pop_back_val();
    if (g == to)
      return true;
    if (!seen.insert(g).second)
      continue;
    for (int s : hardSucc[g])
      stack.push_back(s);
  }
  return false;
}

bool Segmenter::tryMerge(int a, int b) {
  if (a == b || !alive(a) || !alive(b))
    return false;
  for (int g : {a, b})
    if (isLibrary[g]) {
      // Only the activation of its epilogue, or the bias gradient it
      // writes beside the product, joins a library call.
      int other = g == a ? b : a;
      if (members(g).size() == 1 && members(other).size() == 1 &&
          isEpilogueOf(members(other).front(), members(g).front()))
        break;
      if (members(g).size() == 1 && biasGradientOf(members(other), members(g).front(), shapes))
        break;
      // (A library group may hold a bias gradient's sum before its GEMM.)
      boundaryReason[{std::min(a, b), std::max(a, b)}] =
          whyInMemory(*llvm::find_if(members(g), [](Operation *o) { return isLibraryOp(o); }));
      return false;
    }
  // A value written to memory for its readers (its read index grew past a
  // bound: IndexGrowth.h) stays apart from them.
  for (auto [from, to] : {std::pair(a, b), std::pair(b, a)})
    for (Value v : outs[from])
      if (auto w = written.find(v); w != written.end() &&
          llvm::any_of(v.getUsers(), [&, to = to](Operation *u) { return groupOf(u) == to; })) {
        boundaryReason[{std::min(a, b), std::max(a, b)}] =
            "a fuser." + v.getDefiningOp()->getName().getStringRef().drop_front(6).str() +
            " value is written to memory: " + w->second;
        return false;
      }
  if (reaches(a, b, b) || reaches(b, a, a)) {
    boundaryReason[{std::min(a, b), std::max(a, b)}] =
        "merging would make a cycle through another kernel";
    return false;
  }
  // The merged group's outputs: its values that something outside reads.
  auto readOutside = [&](Value v) {
    return llvm::any_of(v.getUsers(), [&](Operation *u) {
      if (isFree(u))
        return false;
      int g = groupOf(u);
      return g != a && g != b;
    });
  };
  SmallVector<Value> mergedOuts;
  for (int g : {a, b})
    for (Value v : outs[g])
      if (readOutside(v))
        mergedOuts.push_back(v);
  std::string why;
  bool ok;
  if (!hasReduction[a] && !hasReduction[b]) {
    // Pointwise (what classifyGroup decides without reductions): one
    // iteration space, that of the outputs.
    ok = llvm::all_of(mergedOuts, [&](Value v) {
      return shapes.shape(v) == shapes.shape(mergedOuts.front());
    });
    if (!ok)
      why = "outputs of a pointwise group differ in shape";
    if (ok && (hasIndexing[a] || hasIndexing[b])) {
      SmallVector<Operation *> merged(members(a));
      merged.append(members(b).begin(), members(b).end());
      if (Operation *g = gatherOfOwnValue(merged)) {
        ok = false;
        why = whyInMemory(g);
      }
    }
  } else {
    SmallVector<Operation *> merged(members(a));
    merged.append(members(b).begin(), members(b).end());
    llvm::sort(merged, [](Operation *x, Operation *y) { return x->isBeforeInBlock(y); });
    SmallVector<Value> sortedOuts;
    for (Operation *op : merged)
      for (Value r : op->getResults())
        if (llvm::is_contained(mergedOuts, r))
          sortedOuts.push_back(r);
    ok = succeeded(classifyGroup(merged, sortedOuts, shapes, &why));
  }
  if (!ok) {
    boundaryReason[{std::min(a, b), std::max(a, b)}] = why;
    return false;
  }
  // Merge: the larger node set absorbs the smaller; label a survives.
  int na = nodeOf[a], nb = nodeOf[b];
  if (ops[na].size() < ops[nb].size())
    std::swap(na, nb);
  parent[nb] = na;
  ops[na].append(ops[nb].begin(), ops[nb].end());
  ops[nb].clear();
  sorted[na] = false;
  nodeOf[a] = na;
  nodeOf[b] = nb; // emptied: label b is gone
  labelOf[na] = a;
  // Edges, all and hard ones: b's become a's.
  auto moveEdges = [&](SmallVector<llvm::SetVector<int>> &out,
                       SmallVector<llvm::SetVector<int>> &in) {
    for (int s : out[b]) {
      in[s].remove(b);
      if (s != a) {
        in[s].insert(a);
        out[a].insert(s);
      }
    }
    for (int p : in[b]) {
      out[p].remove(b);
      if (p != a) {
        out[p].insert(a);
        in[a].insert(p);
      }
    }
    out[a].remove(b);
    in[a].remove(b);
    out[b].clear();
    in[b].clear();
  };
  moveEdges(succ, pred);
  moveEdges(hardSucc, hardPred);
  outs[a] = std::move(mergedOuts);
  outs[b].clear();
  hasReduction[a] = hasReduction[a] || hasReduction[b];
  hasIndexing[a] = hasIndexing[a] || hasIndexing[b];
  isLibrary[a] = isLibrary[a] || isLibrary[b];
  return true;
}

LogicalResult Segmenter::run(bool dump, StringRef dot) {
  Block &body = fusion.getBody().front();
  for (Operation &op : body.without_terminator()) {
    if (!isa<FuserDialect>(op.getDialect()) || isa<LaunchOp, CheckOp, IsAlignedOp, ResultDimOp, ZeroedOp>(op))
      return op.emitOpError("cannot be placed in a kernel");
    if (isa<SoftmaxOp, LogSoftmaxOp, LayerNormOp, RmsNormOp, DropoutOp>(op))
      return op.emitOpError("must be expanded by fuser-decompose first");
    if (isAlongDimOfScalar(&op))
      return op.emitOpError("along dim 0 of a rank-0 tensor must be lifted to a [1] tensor by "
                            "fuser-lift-rank-zero (fuser-decompose runs it) first");
    if (isFree(&op) || isView(&op))
      continue;
    int g = parent.size();
    node[&op] = g;
    parent.push_back(g);
    labelOf.push_back(g);
    nodeOf.push_back(g);
    ops.push_back({&op});
    sorted.push_back(true);
    // (a scan too: only classifyGroup decides what joins it)
    hasReduction.push_back(isReductionOp(&op) || isScanOp(&op));
    hasIndexing.push_back(isIndexingOp(&op));
    isLibrary.push_back(isLibraryOp(&op));
    order.push_back(&op);
  }
  written = valuesWithIndexGrowth(fusion, shapes);
  unsigned numGroups = order.size();
  succ.resize(numGroups);
  pred.resize(numGroups);
  hardSucc.resize(numGroups);
  hardPred.resize(numGroups);
  outs.resize(numGroups);
  for (Operation *op : order) {
    int g = groupOf(op);
    for (Value r : op->getResults()) {
      bool outside = false;
      for (Operation *u : readersOf(r)) {
        if (isFree(u))
          continue;
        outside = true;
        int h = groupOf(u);
        if (h >= 0 && h != g) {
          succ[g].insert(h);
          pred[h].insert(g);
          if (!isSoft(r)) {
            hardSucc[g].insert(h);
            hardPred[h].insert(g);
          }
        }
      }
      if (outside)
        outs[g].push_back(r);
    }
  }
  // Consumers first: each op joins a consumer's group when it can.
  for (Operation *op : llvm::reverse(order))
    for (Operation *user : op->getUsers()) {
      int g = groupOf(user);
      if (g >= 0)
        tryMerge(g, groupOf(op));
    }
  // Siblings: groups with no path between them merge when a scheduler
  // takes them together.
  for (unsigned a = 0; a < numGroups; ++a)
    for (unsigned b = a + 1; b < numGroups; ++b)
      if (alive(a) && alive(b))
        tryMerge(a, b);

  // Number the groups so that each comes after those it reads (through
  // hard edges: what it reads through soft ones it recomputes): passes over
  // the groups in label order, each placing the groups whose predecessors
  // are all placed.
  SmallVector<int> live;
  for (unsigned g = 0; g < numGroups; ++g)
    if (alive(g))
      live.push_back(g);
  SmallVector<int> numbered;
  DenseMap<int, unsigned> waiting;
  for (int g : live)
    waiting[g] = hardPred[g].size();
  llvm::DenseSet<int> placed;
  while (numbered.size() < live.size()) {
    for (int g : live) {
      if (placed.contains(g) || waiting[g])
        continue;
      numbered.push_back(g);
      placed.insert(g);
      for (int s : hardSucc[g])
        --waiting[s];
    }
  }
  DenseMap<int, int> index;
  for (auto [i, g] : llvm::enumerate(numbered))
    index[g] = i;

  Builder b(fusion.getContext());
  SmallVector<Attribute> schedulers;
  // Per segment, the shape every output of a pointwise segment has (empty
  // otherwise): a returned constant or iota of that shape joins it.
  SmallVector<std::optional<SmallVector<AffineExpr>>> pointwiseShape;
  for (int g : numbered) {
    SmallVector<Value> groupOuts;
    for (Operation *op : members(g))
      for (Value r : op->getResults())
        if (llvm::is_contained(outs[g], r))
          groupOuts.push_back(r);
    GroupInfo info = *classifyGroup(members(g), groupOuts, shapes);
    schedulers.push_back(b.getStringAttr(groupKindName(info.kind)));
    std::optional<SmallVector<AffineExpr>> common;
    if (info.kind == GroupKind::Pointwise && !groupOuts.empty()) {
      common = SmallVector<AffineExpr>(shapes.shape(groupOuts[0]));
      for (Value o : groupOuts)
        if (ArrayRef<AffineExpr>(*common) != shapes.shape(o))
          common.reset();
    }
    pointwiseShape.push_back(common);
    for (Operation *op : members(g))
      op->setAttr(kSegmentAttr, b.getI64IntegerAttr(index[g]));
  }
  // Free ops: one copy per group that uses them.
  for (Operation &op : llvm::make_early_inc_range(body.without_terminator())) {
    if (!isFree(&op))
      continue;
    llvm::MapVector<int, SmallVector<OpOperand *>> usesByGroup;
    for (OpOperand &use : op.getUses()) {
      int g = groupOf(use.getOwner());
      usesByGroup[g < 0 ? -1 : index[g]].push_back(&use);
    }
    if (usesByGroup.empty()) {
      op.erase();
      continue;
    }
    bool first = true;
    for (auto &[g, uses] : usesByGroup) {
      if (g < 0) {
        // Returned directly: it needs a kernel. A pointwise segment of its
        // shape writes it too; else it is a pointwise segment of its own (a
        // fill: the zero gradient of an input fuser-vjp finds no path to).
        ArrayRef<AffineExpr> shape = shapes.shape(op.getResult(0));
        auto same = llvm::find_if(pointwiseShape, [&](const auto &s) {
          return s && ArrayRef<AffineExpr>(*s) == shape;
        });
        if (same != pointwiseShape.end()) {
          g = same - pointwiseShape.begin();
        } else {
          g = schedulers.size();
          schedulers.push_back(b.getStringAttr(groupKindName(GroupKind::Pointwise)));
          pointwiseShape.push_back(SmallVector<AffineExpr>(shape));
        }
      }
      Operation *copy = &op;
      if (!first) {
        OpBuilder builder(&op);
        copy = builder.clone(op);
        for (OpOperand *use : uses)
          use->set(copy->getResult(0));
      }
      copy->setAttr(kSegmentAttr, b.getI64IntegerAttr(g));
      first = false;
    }
  }
  fusion->setAttr(kSchedulersAttr, b.getArrayAttr(schedulers));
  unsigned recomputed = recomputeAcrossSegments(body, written);
  // Ops whose every reader now recomputes them are dead. (Collected first:
  // erasing under a reverse iterator invalidates the iterator's base.)
  SmallVector<Operation *> all;
  for (Operation &op : body.without_terminator())
    all.push_back(&op);
  for (Operation *op : llvm::reverse(all))
    if (op->use_empty() && !isView(op))
      op->erase();

  if (dump) {
    llvm::errs() << "fusion @" << fusion.getSymName() << ": " << schedulers.size()
                 << (schedulers.size() == 1 ? " segment\n" : " segments\n");
    // From the IR: the ops recomputed in a segment are its members too.
    SmallVector<SmallVector<StringRef>> names(schedulers.size());
    for (Operation &op : body.without_terminator())
      if (auto a = op.getAttrOfType<IntegerAttr>(kSegmentAttr); a && !isFree(&op))
        names[a.getInt()].push_back(op.getName().getStringRef().drop_front(6));
    for (unsigned i = 0; i < schedulers.size(); ++i)
      llvm::errs() << "  segment " << i << ": " << cast<StringAttr>(schedulers[i]).getValue()
                   << ", " << names[i].size() << " ops (" << llvm::join(names[i], " ")
                   << ")" << (i >= numbered.size() ? ": fills a returned constant or iota" : "")
                   << "\n";
    for (auto [i, g] : llvm::enumerate(numbered))
      for (int s : succ[g]) {
        auto it = boundaryReason.find({std::min(g, s), std::max(g, s)});
        llvm::errs() << "  boundary " << i << " -> " << index[s] << ": "
                     << (it == boundaryReason.end() ? "no merge was tried" : it->second)
                     << (hardSucc[g].contains(s) ? "" : " (recomputed there: no intermediate)")
                     << "\n";
      }
    if (recomputed)
      llvm::errs() << "  " << recomputed << (recomputed == 1 ? " value" : " values")
                   << " that a segment reads from another recomputed there from the "
                      "arguments (no intermediate)\n";
    for (OpOperand &result : body.getTerminator()->getOpOperands())
      if (Operation *def = result.get().getDefiningOp(); def && isResultView(def))
        llvm::errs() << "  result " << result.getOperandNumber()
                     << ": a reshape of segment "
                     << def->getOperand(0).getDefiningOp()
                            ->getAttrOfType<IntegerAttr>(kSegmentAttr).getInt()
                     << "'s value, written there by its kernel (no copy)\n";
  }
  if (dump)
    for (Operation &op : body.without_terminator())
      if (isTransposedOperand(&op))
        for (Operation *u : op.getUsers())
          llvm::errs() << "  a transpose (fuser.permute) that segment "
                       << u->getAttrOfType<IntegerAttr>(kSegmentAttr).getInt()
                       << "'s GEMM reads through its transpose flag (no kernel)\n";
  if (dump)
    for (Operation &op : body.without_terminator())
      if (isOperandView(&op))
        llvm::errs() << "  a reshape (fuser.reshape) of argument "
                     << cast<BlockArgument>(op.getOperand(0)).getArgNumber()
                     << " that a GEMM reads in place (no kernel)\n";
  if (!dot.empty()) {
    std::string path = (dot + "." + fusion.getSymName() + ".dot").str();
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_Text);
    if (ec)
      return fusion.emitError("cannot write ") << path << ": " << ec.message();
    static const char *colours[] = {"lightblue", "lightgoldenrod", "palegreen", "pink",
                                    "lightsalmon", "plum", "khaki", "lightcyan"};
    os << "digraph \"" << fusion.getSymName() << "\" {\n  node [style=filled];\n";
    DenseMap<Operation *, unsigned> id;
    for (Operation &op : body.without_terminator()) {
      unsigned n = id.size();
      id[&op] = n;
      if (isResultView(&op)) {
        os << "  op" << n << " [label=\"reshape\\nresult view\" fillcolor=white];\n";
        continue;
      }
      if (isTransposedOperand(&op)) {
        os << "  op" << n << " [label=\"permute\\nread transposed\" fillcolor=white];\n";
        continue;
      }
      if (isOperandView(&op)) {
        os << "  op" << n << " [label=\"reshape\\nread in place\" fillcolor=white];\n";
        continue;
      }
      int g = op.getAttrOfType<IntegerAttr>(kSegmentAttr).getInt();
      os << "  op" << n << " [label=\"" << op.getName().getStringRef().drop_front(6)
         << "\\nsegment " << g << "\" fillcolor=" << colours[g % 8] << "];\n";
    }
    for (BlockArgument arg : body.getArguments())
      os << "  arg" << arg.getArgNumber() << " [label=\"arg " << arg.getArgNumber()
         << "\" shape=box fillcolor=white];\n";
    for (Operation &op : body.without_terminator())
      for (Value in : op.getOperands()) {
        if (auto arg = dyn_cast<BlockArgument>(in))
          os << "  arg" << arg.getArgNumber() << " -> op" << id[&op] << ";\n";
        else
          os << "  op" << id[in.getDefiningOp()] << " -> op" << id[&op] << ";\n";
      }
    os << "}\n";
  }
  return success();
}

/// Segments `fusion` once its results are values (the pass below): with
/// `split`, splits reductions beside rows first. Returns the number split.
static FailureOr<unsigned> segmentFusion(func::FuncOp fusion, bool split, bool dump,
                                         StringRef dot) {
  materializeFreeOperands(fusion);
  splitValuesSizedByUse(fusion);
  unsigned splits = 0;
  if (split) {
    FailureOr<unsigned> n = splitReductionsBesideRows(fusion);
    if (failed(n))
      return failure();
    splits = *n;
  }
  markResultViews(fusion);
  markOperandViews(fusion);
  markTransposedOperands(fusion);
  FailureOr<ShapeAnalysis> shapes = ShapeAnalysis::analyze(fusion);
  if (failed(shapes))
    return failure();
  recordSizesFromUses(fusion, *shapes);
  if (failed(Segmenter(fusion, *shapes).run(dump, dot)))
    return failure();
  return splits;
}

namespace {
struct SegmentPass : fuser::impl::SegmentPassBase<SegmentPass> {
  using SegmentPassBase::SegmentPassBase;

  void runOnOperation() override {
    for (auto fusion : getOperation().getOps<func::FuncOp>()) {
      if (fusion.isExternal() || fusion->hasAttr(kPlanAttr))
        continue;
      // Kernels are named after their fusion (FusionName.h).
      if (!isValidFusionName(fusion.getSymName())) {
        fusion.emitError(invalidFusionNameMessage(fusion.getSymName()));
        return signalPassFailure();
      }
      // Sizes are 64-bit in kernels and plans: a static shape of 2^64
      // elements wrapped to an empty tensor, compiled and "ran".
      auto tooLarge = [](Type type) {
        auto t = dyn_cast<RankedTensorType>(type);
        if (!t || llvm::is_contained(t.getShape(), 0))
          return false;
        Type e = t.getElementType();
        unsigned bits = e.isIntOrFloat() ? e.getIntOrFloatBitWidth() : 64;
        uint64_t bytes = std::max<uint64_t>(1, bits / 8);
        for (int64_t d : t.getShape())
          if (!ShapedType::isDynamic(d) &&
              (__builtin_mul_overflow(bytes, (uint64_t)d, &bytes) ||
               bytes > (uint64_t)INT64_MAX))
            return true;
        return false;
      };
      WalkResult big = fusion.walk<WalkOrder::PreOrder>([&](Operation *op) {
        SmallVector<Type> types(op->getResultTypes());
        if (op == fusion.getOperation())
          llvm::append_range(types, fusion.getArgumentTypes());
        for (Type t : types)
          if (tooLarge(t)) {
            op->emitError("the type ")
                << t << " is 2^63 bytes or more; sizes are 64-bit";
            return WalkResult::interrupt();
          }
        return WalkResult::advance();
      });
      if (big.wasInterrupted())
        return signalPassFailure();
      // A result that is an argument, or the same value as an earlier
      // result, has its own buffer to fill: an identity cast makes it a
      // value that a kernel writes (a copy kernel for an argument; for a
      // duplicate, a second store in the kernel that computes it).
      Operation *ret = fusion.getBody().front().getTerminator();
      llvm::SmallPtrSet<Value, 8> returned;
      for (OpOperand &operand : ret->getOpOperands()) {
        Value v = operand.get();
        // A constant or iota is copied into each kernel that reads it; one
        // of `?` size returned takes its size from its other uses, so it is
        // computed and written like any value, through the cast (a copy of
        // its own would have no size).
        Operation *def = v.getDefiningOp();
        bool freeOfUseSize = def && isFree(def) &&
                             !cast<RankedTensorType>(v.getType()).hasStaticShape();
        if (!isa<BlockArgument>(v) && !freeOfUseSize && returned.insert(v).second)
          continue;
        OpBuilder b(ret);
        // One with an argument's shape (fuser.same_shape_as: fuser-vjp's
        // zero gradient) is sized by that: its own copy, so that the zero
        // gradients of two inputs, one constant after cse, are not tied.
        if (freeOfUseSize && fusion.getResultAttr(operand.getOperandNumber(), kSameShapeAsAttr)) {
          operand.set(b.clone(*def)->getResult(0));
          if (def->use_empty())
            def->erase();
          continue;
        }
        operand.set(CastOp::create(b, ret->getLoc(), v.getType(), v));
      }
      // A reduction over more dims than a row reduction beside it is split
      // in two where that makes no more kernels (SplitReductions.h): tried
      // on copies, quietly, and only where a fusion has two reductions.
      bool split = false;
      if (llvm::count_if(fusion.getBody().front(), [](Operation &op) {
            return isReductionOp(&op);
          }) > 1) {
        ScopedDiagnosticHandler quiet(&getContext(), [](Diagnostic &) { return success(); });
        auto segments = [](func::FuncOp f) {
          return f->getAttrOfType<ArrayAttr>(kSchedulersAttr).size();
        };
        // Segmenting is tried only where there is something to split.
        func::FuncOp withSplit = fusion.clone();
        splitValuesSizedByUse(withSplit);
        FailureOr<unsigned> n = splitReductionsBesideRows(withSplit);
        // (segmentFusion's own splitValuesSizedByUse finds nothing left.)
        if (succeeded(n) && *n &&
            succeeded(segmentFusion(withSplit, /*split=*/false, false, ""))) {
          func::FuncOp whole = fusion.clone();
          split = succeeded(segmentFusion(whole, /*split=*/false, false, "")) &&
                  segments(withSplit) <= segments(whole);
          whole.erase();
        }
        withSplit.erase();
      }
      FailureOr<unsigned> n = segmentFusion(fusion, split, dump, dot);
      if (failed(n))
        return signalPassFailure();
      if (dump && *n)
        llvm::errs() << "  " << *n << (*n == 1 ? " reduction" : " reductions")
                     << " over more dims than a row reduction beside it split in two: the "
                        "row's dims in the row's kernel, then the rest, if a dim of it holds "
                        "more than one element (no more kernels, fewer bytes)\n";
    }
  }
};
} // namespace

std::string mlir::fuser::keyOwnerText(ScheduleKey key) {
  if (isKernelKey(key))
    return "every scheduler that emits kernels (a matmul or collective segment is a library "
           "call)";
  return ("the " + groupKindName(schedulerOfKey(key)) + " scheduler").str();
}

std::string mlir::fuser::groupKindWithArticle(GroupKind kind) {
  StringRef name = groupKindName(kind);
  return (StringRef("aeiou").contains(name.take_front(1)) ? "an " : "a ") + name.str();
}

FailureOr<SmallVector<Segment>> mlir::fuser::getSegments(func::FuncOp fusion) {
  auto names = fusion->getAttrOfType<ArrayAttr>(kSchedulersAttr);
  if (!names)
    return fusion.emitError("fusion is not segmented; run fuser-segment first");
  SmallVector<Segment> segments(names.size());
  for (auto [i, n] : llvm::enumerate(names)) {
    segments[i].index = i;
    auto name = dyn_cast<StringAttr>(n);
    std::optional<GroupKind> kind = name ? parseGroupKind(name.getValue()) : std::nullopt;
    if (!kind)
      return fusion.emitError("segment ")
             << i << " has scheduler " << n << " in " << kSchedulersAttr << "; expected "
             << groupKindNames();
    segments[i].scheduler = *kind;
  }
  // Each segment's schedule: every decision in it must be one its
  // scheduler takes (the attribute's verifier has checked the values).
  if (Attribute attr = fusion->getAttr(kSchedulesAttr)) {
    auto list = cast<ArrayAttr>(attr); // verified by the dialect
    if (list.size() != names.size())
      return fusion.emitError() << kSchedulesAttr << " has " << list.size()
                                << " entries for " << names.size() << " segments";
    for (auto [i, entry] : llvm::enumerate(list)) {
      Segment &s = segments[i];
      s.schedule = entry;
      Schedule decisions = Schedule::fromAttr(cast<ScheduleAttr>(entry));
      for (const ScheduleKeyInfo &k : scheduleKeys())
        if (decisions.get(k.key) && !keyAppliesTo(k.key, s.scheduler))
          return fusion.emitError("segment ")
                 << i << " is " << groupKindWithArticle(s.scheduler) << " segment, but its "
                 << kSchedulesAttr << " entry sets " << k.name << ", a decision of "
                 << keyOwnerText(k.key);
    }
  }
  Block &body = fusion.getBody().front();
  DenseMap<Operation *, unsigned> segmentOf;
  for (Operation &op : body.without_terminator()) {
    if (isView(&op))
      continue;
    auto attr = op.getAttrOfType<IntegerAttr>(kSegmentAttr);
    if (!attr || attr.getInt() < 0 || attr.getInt() >= (int64_t)names.size())
      return op.emitOpError("has no valid ") << kSegmentAttr << " annotation";
    segmentOf[&op] = attr.getInt();
    segments[attr.getInt()].ops.push_back(&op);
  }
  Operation *ret = body.getTerminator();
  for (Segment &s : segments) {
    for (Operation *op : s.ops) {
      for (Value in : op->getOperands()) {
        Operation *def = in.getDefiningOp();
        // The GEMM reads a transposed operand's input, and an operand
        // view's argument.
        while (def && (isTransposedOperand(def) || isOperandView(def))) {
          in = def->getOperand(0);
          def = in.getDefiningOp();
        }
        if (!def || segmentOf.lookup(def) != s.index) {
          if (def && segmentOf.lookup(def) > s.index)
            return op->emitOpError("reads a value of a later segment");
          s.inputs.insert(in);
        }
      }
      for (Value r : op->getResults())
        for (OpOperand &use : r.getUses())
          if (use.getOwner() == ret || isView(use.getOwner()) ||
              segmentOf.lookup(use.getOwner()) != s.index)
            s.outputs.insert(r);
    }
  }
  return segments;
}
