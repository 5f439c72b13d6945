//===- Segment.cpp - partition fusions into kernel groups -----------------===//
//
// Groups start as single ops and merge greedily (see the pass description);
// GroupAnalysis decides whether a merged group is one kernel. The reason a
// merge across a value edge was refused is kept for --fuser-segment=dump.
//
//===----------------------------------------------------------------------===//

#include "fuser/Analysis/GroupAnalysis.h"
#include "fuser/Dialect/Fuser/IR/FuserAttrNames.h"
#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Transforms/Passes.h"
#include "fuser/Transforms/Segments.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/MapVector.h"
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

namespace {

class Segmenter {
public:
  Segmenter(func::FuncOp fusion, const ShapeAnalysis &shapes)
      : fusion(fusion), shapes(shapes) {}

  LogicalResult run(bool dump, StringRef dot);

private:
  /// The group of each op (groups are indices into `members`).
  DenseMap<Operation *, int> groupOf;
  SmallVector<SmallVector<Operation *>> members; // empty when merged away
  /// Why the edge from one group to another stayed a boundary.
  std::map<std::pair<int, int>, std::string> boundaryReason;

  SmallVector<Value> outputsOf(ArrayRef<Operation *> ops);
  /// Groups whose ops read a result of group `g`.
  SmallVector<int> successors(int g);
  bool reaches(int from, int to, int skipDirect);
  bool tryMerge(int a, int b);
  std::string describe(int g);

  func::FuncOp fusion;
  const ShapeAnalysis &shapes;
  SmallVector<Operation *> order; // program order, free ops excluded
};

} // namespace

SmallVector<Value> Segmenter::outputsOf(ArrayRef<Operation *> ops) {
  llvm::DenseSet<Operation *> in(ops.begin(), ops.end());
  SmallVector<Value> outs;
  for (Operation *op : ops)
    for (Value r : op->getResults())
      if (llvm::any_of(r.getUsers(), [&](Operation *u) {
            return !in.contains(u) && !isFree(u);
          }))
        outs.push_back(r);
  return outs;
}

SmallVector<int> Segmenter::successors(int g) {
  SmallVector<int> out;
  for (Operation *op : members[g])
    for (Operation *u : op->getUsers()) {
      auto it = groupOf.find(u);
      if (it != groupOf.end() && it->second != g && !llvm::is_contained(out, it->second))
        out.push_back(it->second);
    }
  return out;
}

/// Whether group `from` reaches `to` along a path other than the direct
/// edge (a merge of the two would then make a cycle).
bool Segmenter::reaches(int from, int to, int skipDirect) {
  SmallVector<int> stack;
  llvm::DenseSet<int> seen;
  for (int s : successors(from))
    if (s != skipDirect)
      stack.push_back(s);
  while (!stack.empty()) {
    int g = stack.pop_back_val();
    if (g == to)
      return true;
    if (!seen.insert(g).second)
      continue;
    for (int s : successors(g))
      stack.push_back(s);
  }
  return false;
}

bool Segmenter::tryMerge(int a, int b) {
  if (a == b || members[a].empty() || members[b].empty())
    return false;
  if (reaches(a, b, b) || reaches(b, a, a)) {
    boundaryReason[{std::min(a, b), std::max(a, b)}] =
        "merging would make a cycle through another kernel";
    return false;
  }
  SmallVector<Operation *> merged(members[a]);
  merged.append(members[b]);
  llvm::sort(merged, [](Operation *x, Operation *y) { return x->isBeforeInBlock(y); });
  std::string why;
  if (failed(classifyGroup(merged, outputsOf(merged), shapes, &why))) {
    boundaryReason[{std::min(a, b), std::max(a, b)}] = why;
    return false;
  }
  for (Operation *op : members[b])
    groupOf[op] = a;
  members[a] = std::move(merged);
  members[b].clear();
  return true;
}

std::string Segmenter::describe(int g) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(
      members[g], os, [&](Operation *op) { os << op->getName().getStringRef().drop_front(6); },
      " ");
  return s;
}

LogicalResult Segmenter::run(bool dump, StringRef dot) {
  Block &body = fusion.getBody().front();
  for (Operation &op : body.without_terminator()) {
    if (!isa<FuserDialect>(op.getDialect()) || isa<LaunchOp, CheckOp, IsAlignedOp, ResultDimOp>(op))
      return op.emitOpError("cannot be placed in a kernel");
    if (isa<SoftmaxOp, LogSoftmaxOp, LayerNormOp, RmsNormOp>(op))
      return op.emitOpError("must be expanded by fuser-decompose first");
    if (isFree(&op))
      continue;
    groupOf[&op] = members.size();
    members.push_back({&op});
    order.push_back(&op);
  }
  // Consumers first: each op joins a consumer's group when it can.
  for (Operation *op : llvm::reverse(order))
    for (Operation *user : op->getUsers()) {
      auto it = groupOf.find(user);
      if (it != groupOf.end())
        tryMerge(it->second, groupOf[op]);
    }
  // Siblings: groups with no path between them merge when a scheduler
  // takes them together.
  for (unsigned a = 0; a < members.size(); ++a)
    for (unsigned b = a + 1; b < members.size(); ++b)
      if (!members[a].empty() && !members[b].empty())
        tryMerge(a, b);

  // Number the groups so that each comes after those it reads.
  SmallVector<int> live;
  for (unsigned g = 0; g < members.size(); ++g)
    if (!members[g].empty())
      live.push_back(g);
  SmallVector<int> numbered;
  llvm::DenseSet<int> placed;
  while (numbered.size() < live.size()) {
    for (int g : live) {
      if (placed.contains(g))
        continue;
      bool ready = true;
      for (Operation *op : members[g])
        for (Value in : op->getOperands())
          if (Operation *def = in.getDefiningOp()) {
            auto it = groupOf.find(def);
            if (it != groupOf.end() && it->second != g && !placed.contains(it->second))
              ready = false;
          }
      if (ready) {
        numbered.push_back(g);
        placed.insert(g);
      }
    }
  }
  DenseMap<int, int> index;
  for (auto [i, g] : llvm::enumerate(numbered))
    index[g] = i;

  Builder b(fusion.getContext());
  SmallVector<Attribute> schedulers;
  for (int g : numbered) {
    GroupInfo info = *classifyGroup(members[g], outputsOf(members[g]), shapes);
    schedulers.push_back(b.getStringAttr(groupKindName(info.kind)));
    for (Operation *op : members[g])
      op->setAttr(kSegmentAttr, b.getI64IntegerAttr(index[g]));
  }
  // Free ops: one copy per group that uses them.
  for (Operation &op : llvm::make_early_inc_range(body.without_terminator())) {
    if (!isFree(&op))
      continue;
    llvm::MapVector<int, SmallVector<OpOperand *>> usesByGroup;
    for (OpOperand &use : op.getUses()) {
      auto it = groupOf.find(use.getOwner());
      usesByGroup[it == groupOf.end() ? -1 : index[it->second]].push_back(&use);
    }
    if (usesByGroup.empty()) {
      op.erase();
      continue;
    }
    bool first = true;
    for (auto &[g, uses] : usesByGroup) {
      if (g < 0) {
        // Returned directly: it needs a kernel; put it in group 0 if any.
        if (numbered.empty())
          return op.emitOpError("a fusion that only returns constants has no kernel to "
                                "compute them");
        g = 0;
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

  if (dump) {
    llvm::errs() << "fusion @" << fusion.getSymName() << ": " << numbered.size()
                 << (numbered.size() == 1 ? " segment\n" : " segments\n");
    for (auto [i, g] : llvm::enumerate(numbered))
      llvm::errs() << "  segment " << i << ": " << cast<StringAttr>(schedulers[i]).getValue()
                   << ", " << members[g].size() << " ops (" << describe(g) << ")\n";
    for (auto [i, g] : llvm::enumerate(numbered))
      for (int s : successors(g)) {
        auto it = boundaryReason.find({std::min(g, s), std::max(g, s)});
        llvm::errs() << "  boundary " << i << " -> " << index[s] << ": "
                     << (it == boundaryReason.end() ? "no merge was tried" : it->second)
                     << "\n";
      }
  }
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

namespace {
struct SegmentPass : fuser::impl::SegmentPassBase<SegmentPass> {
  using SegmentPassBase::SegmentPassBase;

  void runOnOperation() override {
    for (auto fusion : getOperation().getOps<func::FuncOp>()) {
      if (fusion.isExternal() || fusion->hasAttr(kPlanAttr))
        continue;
      // Kernels are named after their fusion, and PTX names are identifiers:
      // LLVM aborts on some other characters and writes PTX that ptxas
      // rejects for others ('.', a leading digit).
      StringRef name = fusion.getSymName();
      if (name.empty() || llvm::isDigit(name.front()) ||
          !llvm::all_of(name, [](char c) {
            return llvm::isAlnum(c) || c == '_' || c == '$';
          })) {
        fusion.emitError("fusion name '")
            << name
            << "' is not a PTX identifier: use letters, digits, '_' and '$', "
               "not starting with a digit";
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
        if (!isa<BlockArgument>(v) && returned.insert(v).second)
          continue;
        OpBuilder b(ret);
        operand.set(CastOp::create(b, ret->getLoc(), v.getType(), v));
      }
      FailureOr<ShapeAnalysis> shapes = ShapeAnalysis::analyze(fusion);
      if (failed(shapes) || failed(Segmenter(fusion, *shapes).run(dump, dot)))
        return signalPassFailure();
    }
  }
};
} // namespace

FailureOr<SmallVector<Segment>> mlir::fuser::getSegments(func::FuncOp fusion) {
  auto names = fusion->getAttrOfType<ArrayAttr>(kSchedulersAttr);
  if (!names)
    return fusion.emitError("fusion is not segmented; run fuser-segment first");
  SmallVector<Segment> segments(names.size());
  for (auto [i, n] : llvm::enumerate(names)) {
    segments[i].index = i;
    segments[i].scheduler = cast<StringAttr>(n).str();
  }
  Block &body = fusion.getBody().front();
  DenseMap<Operation *, unsigned> segmentOf;
  for (Operation &op : body.without_terminator()) {
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
        if (!def || segmentOf[def] != s.index) {
          if (def && segmentOf[def] > s.index)
            return op->emitOpError("reads a value of a later segment");
          s.inputs.insert(in);
        }
      }
      for (Value r : op->getResults())
        for (OpOperand &use : r.getUses())
          if (use.getOwner() == ret || segmentOf[use.getOwner()] != s.index)
            s.outputs.insert(r);
    }
  }
  return segments;
}
