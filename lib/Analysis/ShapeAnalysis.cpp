//===- ShapeAnalysis.cpp - symbolic sizes of a fusion's tensors -----------===//
//
// Dims are tied together with a union-find over (value, dim) slots. A class
// learns its size from a static dim, from a fusion argument's dynamic dim (a
// new symbol), or from an op that computes it (pad, concat, reshape). When two
// classes with different known sizes meet, the analysis records that they
// must be equal at run time.
//
//===----------------------------------------------------------------------===//

#include "fuser/Analysis/ShapeAnalysis.h"
#include "fuser/Dialect/Fuser/IR/FuserAttrNames.h"

#include "fuser/Dialect/Fuser/IR/FuserOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AffineExpr.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/SaveAndRestore.h"

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// Union-find over dim slots; each class may know its size. The root of a
/// class is its earliest slot (fusion arguments come first), and a class
/// remembers which slot gave it its size, to name it in messages.
class DimClasses {
public:
  int make(AffineExpr size, std::string name) {
    int id = parent.size();
    parent.push_back(id);
    sizes.push_back(size);
    names.push_back(std::move(name));
    origins.push_back(id);
    return id;
  }
  int find(int x) {
    while (parent[x] != x)
      x = parent[x] = parent[parent[x]];
    return x;
  }
  AffineExpr size(int x) { return sizes[find(x)]; }
  const std::string &name(int x) { return names[x]; }

  /// Ties two slots; records an equality when both already know a size,
  /// its message ending in `context` (the op that ties them).
  void unite(int a, int b, SmallVectorImpl<ShapeAnalysis::Constraint> &out,
             StringRef context = "") {
    int ra = find(a), rb = find(b);
    if (ra == rb)
      return;
    if (rb < ra)
      std::swap(ra, rb);
    AffineExpr ea = sizes[ra], eb = sizes[rb];
    if (ea && eb && ea != eb)
      out.push_back({ShapeAnalysis::Constraint::Equal, eb, ea,
                     names[origins[rb]] + " ({}) must equal " +
                         names[origins[ra]] + " ({})" + context.str()});
    // A constant size wins; then one that no cotangent gives (a cotangent
    // has the forward result's shape, which the forward's ops size: a pad's
    // a0 + 2 is the size, the cotangent's dim is checked against it);
    // otherwise the earlier class's.
    bool constantB = ea && eb && isa<AffineConstantExpr>(eb) && !isa<AffineConstantExpr>(ea);
    bool forwardB = ea && eb && fromCotangent(ea) && !fromCotangent(eb);
    if (!ea || constantB || forwardB) {
      sizes[ra] = eb;
      origins[ra] = origins[rb];
    }
    parent[rb] = ra;
  }

  /// The symbols of cotangent arguments (kCotangentAttr).
  llvm::SmallDenseSet<unsigned> cotangentSymbols;
  /// Whether `e` involves a cotangent's dim.
  bool fromCotangent(AffineExpr e) const {
    bool found = false;
    if (e && !cotangentSymbols.empty())
      e.walk([&](AffineExpr sub) {
        if (auto sym = dyn_cast<AffineSymbolExpr>(sub))
          found |= cotangentSymbols.contains(sym.getPosition());
      });
    return found;
  }

private:
  SmallVector<int> parent;
  SmallVector<AffineExpr> sizes;
  SmallVector<std::string> names;
  SmallVector<int> origins;
};

class Analyzer {
public:
  explicit Analyzer(func::FuncOp f) : fusion(f), ctx(f.getContext()) {}

  LogicalResult run(SmallVectorImpl<ShapeAnalysis::Symbol> &symbols,
                    SmallVectorImpl<ShapeAnalysis::Constraint> &constraints,
                    DenseMap<Value, SmallVector<AffineExpr>> &shapes);
  /// The reshapes whose rule would guess that took their sizes from other
  /// ops (or the one dim left after them) instead: ShapeAnalysis::sizedByUses.
  ArrayRef<ReshapeOp> reshapesSizedByUses() const { return sizedByUses; }

private:
  /// `loc` as a run-time check's message shows it: a `{}` in it (a tracer's
  /// node name such as "<eval_with_key>.{}") would read as one of the
  /// check's value placeholders (fuser.check), so it is written `{ }`.
  static std::string locationText(Location loc) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << loc;
    for (size_t p = s.find("{}"); p != std::string::npos; p = s.find("{}", p + 3))
      s.replace(p, 2, "{ }");
    return s;
  }
  std::string argName(unsigned i) {
    if (auto n = fusion.getArgAttrOfType<StringAttr>(i, kNameAttr))
      return n.str();
    return "arg" + std::to_string(i);
  }
  std::string describe(Value v, unsigned d) {
    std::string s = "dim " + std::to_string(d) + " of ";
    if (auto arg = dyn_cast<BlockArgument>(v))
      return s + argName(arg.getArgNumber());
    return s + "'" + v.getDefiningOp()->getName().getStringRef().str() + "'";
  }
  /// ", in 'fuser.<op>' at <loc>": which op a run-time size check is about
  /// (a fusion may hold several pads or gathers).
  static std::string where(Operation *op) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << ", in '" << op->getName() << "' at " << locationText(op->getLoc());
    return s;
  }
  /// For a run-time check on `values`: where one of them comes from a
  /// reshape whose dims the rule guessed, which reshape, since a wrong
  /// guess (`[?,?,?] -> [?,?]` keeps dim 0 where torch's `view(-1, n)`
  /// merged the first two) shows first as this check failing elsewhere.
  std::string ruleHint(ArrayRef<Value> values) {
    if (sizedByRule.empty())
      return "";
    llvm::SmallPtrSet<Operation *, 8> guessed;
    for (ReshapeOp r : sizedByRule)
      guessed.insert(r);
    SmallVector<Value> work(values.begin(), values.end());
    llvm::DenseSet<Value> seen;
    while (!work.empty()) {
      Value v = work.pop_back_val();
      Operation *def = v.getDefiningOp();
      if (!def || !seen.insert(v).second)
        continue;
      if (guessed.contains(def)) {
        std::string s;
        llvm::raw_string_ostream os(s);
        os << "; the sizes of the 'fuser.reshape' at " << locationText(def->getLoc())
           << " are the reshape rule's guess (it keeps the input's leading dims, "
              "docs/dialect.md): if it splits them otherwise, as torch's view(-1, n) "
              "does, give it fuser.sizes";
        return s;
      }
      for (Value o : def->getOperands())
        work.push_back(o);
    }
    return "";
  }
  /// Creates the slots of `v`: static dims know their size.
  void addValue(Value v) {
    auto t = cast<RankedTensorType>(v.getType());
    order.push_back(v);
    SmallVector<int> &s = slots[v];
    for (unsigned d = 0; d < t.getRank(); ++d) {
      int64_t size = t.getDimSize(d);
      s.push_back(classes.make(ShapedType::isDynamic(size)
                                   ? AffineExpr()
                                   : getAffineConstantExpr(size, ctx),
                               describe(v, d)));
    }
  }
  int slot(Value v, unsigned d) { return slots[v][d]; }
  AffineExpr size(Value v, unsigned d) { return classes.size(slot(v, d)); }
  void unite(Value a, unsigned da, Value b, unsigned db) {
    classes.unite(slot(a, da), slot(b, db), *constraints, visiting ? where(visiting) : "");
  }
  /// The op visit() is reading, whose ties a failed check names.
  Operation *visiting = nullptr;
  /// Sets the size of a dynamic result dim computed by an op (pad, concat,
  /// reshape): ties it to the computed size. Dims computed by the same
  /// expression are one class: they are the same size at every launch, and
  /// an op that fuser-segment copies into a second segment must come out
  /// the size of its original, including the size a tie gave the original
  /// (an earlier argument's symbol wins over the expression in a class).
  void define(Value v, unsigned d, AffineExpr e, StringRef what) {
    auto [it, isNew] = definedBy.try_emplace(e, 0);
    if (isNew)
      it->second = classes.make(e, what.str());
    classes.unite(slot(v, d), it->second, *constraints, visiting ? where(visiting) : "");
  }
  AffineExpr product(Value v, ArrayRef<unsigned> dims) {
    AffineExpr p = getAffineConstantExpr(1, ctx);
    for (unsigned d : dims) {
      AffineExpr e = size(v, d);
      if (!e)
        return {};
      p = p * e;
    }
    return p;
  }
  SmallVector<unsigned> allDims(Value v) {
    SmallVector<unsigned> r;
    for (unsigned d = 0; d < cast<RankedTensorType>(v.getType()).getRank(); ++d)
      r.push_back(d);
    return r;
  }
  LogicalResult visit(Operation *op);
  bool reshape(ReshapeOp r, bool late, bool resultKnown = false, bool backward = false);
  bool sliceSizes(SliceOp s);
  bool concatSize(ConcatOp c);
  bool padSizes(PadOp p, bool late = false);
  bool sourcesFromIndices();
  void scatterBounds(Operation *op);
  void gatherBounds(GatherOp g);
  void scatterIntoEmpty(Operation *op, Value self, Value index, unsigned dim);
  void reshapeCount(ReshapeOp r);
  bool resolveGuessingReshape();
  bool reshapesBack(ReshapeOp r);
  bool invertsStatedSizes(ReshapeOp r);
  LogicalResult statedSizes(Operation *op, AffineMapAttr sizes);

  func::FuncOp fusion;
  MLIRContext *ctx;
  DimClasses classes;
  DenseMap<Value, SmallVector<int>> slots;
  SmallVector<Value> order; ///< Values in program order, for stable messages.
  DenseMap<AffineExpr, int> definedBy; ///< A computed size's class (define).
  unsigned numDimSymbols = 0; ///< The arguments' dynamic dims (kSizesAttr's symbols).
  SmallVector<ReshapeOp> pendingReshapes; ///< Inputs' sizes not known when seen.
  SmallVector<ReshapeOp> deferredReshapes; ///< kDimsFromUsesAttr: sized last.
  /// Reshapes whose rule would guess (ShapeAnalysis::reshapeGuessesDims):
  /// their uses size them first, the rule only what nothing else gives.
  SmallVector<ReshapeOp> guessingReshapes;
  SmallVector<ReshapeOp> sizedByUses; ///< Guessing reshapes their uses sized (or the one dim left).
  SmallVector<ReshapeOp> sizedByUsesPending; ///< ...whose input is not known yet.
  SmallVector<ReshapeOp> backwardReshapes; ///< kDimsFromUsesAttr ones left to the rule.
  SmallVector<ReshapeOp> sizedByRule; ///< Guessing reshapes the rule sized (ruleHint).
  /// Reshapes the rule reads two ways (reshape): named in the error when
  /// nothing else sizes them.
  llvm::SmallPtrSet<Operation *, 4> twoReadings;
  SmallVector<ReshapeOp> reshapes; ///< Every reshape, in program order (reshapesBack).
  SmallVector<GatherOp> gathers; ///< Index bounds checked last.
  SmallVector<Operation *> revisit; ///< Slices, pads, concats of inputs not sized when seen.
  SmallVector<Operation *> scatters; ///< scatter_add, index_add: bounds checked last.
  SmallVectorImpl<ShapeAnalysis::Constraint> *constraints = nullptr;
};

} // namespace

/// A concat's dynamic dim along `dim`: the sum of its inputs'; false
/// while one of them is unknown (a reshape's result its uses size).
bool Analyzer::concatSize(ConcatOp c) {
  llvm::SaveAndRestore<Operation *> at(visiting, c.getOperation());
  int64_t dim = c.getDimAttr().getInt();
  if (!c.getType().isDynamicDim(dim))
    return true;
  AffineExpr total = getAffineConstantExpr(0, ctx);
  for (Value in : c.getInputs()) {
    AffineExpr e = size(in, dim);
    if (!e)
      return false;
    total = total + e;
  }
  define(c.getResult(), dim, total, describe(c.getResult(), dim));
  return true;
}

/// A slice's limits checked against its input's dynamic dims; false (and
/// nothing done) while one of them is unknown (the input of a reshape
/// sized by its uses, kDimsFromUsesAttr, is known only after every op).
bool Analyzer::sliceSizes(SliceOp s) {
  llvm::SaveAndRestore<Operation *> at(visiting, s.getOperation());
  RankedTensorType in = s.getInput().getType();
  for (unsigned i = 0; i < in.getRank(); ++i)
    if (in.isDynamicDim(i) && !size(s.getInput(), i))
      return false;
  for (unsigned i = 0; i < in.getRank(); ++i) {
    if (!in.isDynamicDim(i))
      continue;
    AffineExpr n = size(s.getInput(), i);
    if (s.getLimit()[i] != SliceOp::kToEnd) {
      constraints->push_back({ShapeAnalysis::Constraint::LessEqual,
                              getAffineConstantExpr(s.getLimit()[i], ctx), n,
                              "slice limit {} must not exceed " + describe(s.getInput(), i) +
                                  " ({})" + where(s) + ruleHint({s.getInput()})});
      continue;
    }
    // To the end of a dynamic dim: ceil((size - start) / step) elements.
    int64_t start = s.getStart()[i];
    if (start > 0)
      constraints->push_back({ShapeAnalysis::Constraint::LessEqual,
                              getAffineConstantExpr(start, ctx), n,
                              "slice start {} must not exceed " + describe(s.getInput(), i) +
                                  " ({})" + where(s) + ruleHint({s.getInput()})});
    define(s.getResult(), i, (n - start).ceilDiv(s.getStep()[i]), describe(s.getResult(), i));
  }
  return true;
}

/// A pad's dynamic result dims (its input's plus the amounts) and the
/// checks of what negative amounts crop; false (and nothing done) while an
/// input dim is unknown, as sliceSizes. `late`: when nothing else sizes
/// the input, a dim its result knows gives it (the result less the
/// amounts): fuser-vjp's gradient of a slice or concat pads a broadcast of
/// the cotangent, sized by nothing but the operand the pad gives back.
bool Analyzer::padSizes(PadOp p, bool late) {
  llvm::SaveAndRestore<Operation *> at(visiting, p.getOperation());
  if (late)
    for (unsigned i = 0; i < p.getType().getRank(); ++i) {
      AffineExpr result = size(p.getResult(), i);
      if (!p.getType().isDynamicDim(i) || size(p.getInput(), i) || !result)
        continue;
      int64_t added = p.getLow()[i] + p.getHigh()[i];
      if (added > 0) // the result holds at least what the pad adds
        constraints->push_back({ShapeAnalysis::Constraint::LessEqual,
                                getAffineConstantExpr(added, ctx), result,
                                "pad adds {} elements to " + describe(p.getInput(), i) +
                                    ", more than its result's {}" + where(p)});
      define(p.getInput(), i, result - added, describe(p.getInput(), i));
    }
  for (unsigned i = 0; i < p.getType().getRank(); ++i)
    if (p.getType().isDynamicDim(i) && !size(p.getInput(), i))
      return false;
  for (unsigned i = 0; i < p.getType().getRank(); ++i) {
    if (!p.getType().isDynamicDim(i))
      continue;
    // Negative amounts crop: the dim must hold what they crop.
    int64_t crop = std::max<int64_t>(0, -p.getLow()[i]) + std::max<int64_t>(0, -p.getHigh()[i]);
    if (crop > 0)
      constraints->push_back({ShapeAnalysis::Constraint::LessEqual,
                              getAffineConstantExpr(crop, ctx), size(p.getInput(), i),
                              "pad crops {} elements from " + describe(p.getInput(), i) +
                                  ", which has {}" + where(p) + ruleHint({p.getInput()})});
    define(p.getResult(), i, size(p.getInput(), i) + p.getLow()[i] + p.getHigh()[i],
           describe(p.getResult(), i));
  }
  return true;
}

/// A source dim nothing else sizes takes its index's size: only the
/// positions of the index are read from the source (torch.gather's
/// gradient scatters a cotangent broadcast to the index's shape, sized by
/// nothing but this use). True if one was given.
bool Analyzer::sourcesFromIndices() {
  bool given = false;
  for (Operation *op : scatters) {
    auto sc = dyn_cast<ScatterAddOp>(op);
    if (!sc)
      continue;
    // Only where nothing else reads the source: another reader (a sum of
    // it) sees its whole extent, which the index only bounds.
    Value source = sc.getSource();
    if (!llvm::all_of(source.getUses(), [](OpOperand &use) {
          auto user = dyn_cast<ScatterAddOp>(use.getOwner());
          return user && &use == &user.getSourceMutable();
        }))
      continue;
    for (unsigned i = 0; i < sc.getIndex().getType().getRank(); ++i)
      if (!size(source, i) && size(sc.getIndex(), i)) {
        unite(sc.getIndex(), i, source, i);
        given = true;
      }
  }
  return given;
}

/// A scatter's non-empty index into an empty dim of self is out of range
/// everywhere, and no result element is there to walk the index and
/// report it: the plan checks elements <= elements x size (the verifier,
/// when every size is static).
void Analyzer::scatterIntoEmpty(Operation *op, Value self, Value index, unsigned dim) {
  auto selfT = cast<RankedTensorType>(self.getType());
  if (!selfT.isDynamicDim(dim) && cast<RankedTensorType>(index.getType()).hasStaticShape())
    return;
  AffineExpr n = product(index, allDims(index)), extent = size(self, dim);
  if (n && extent)
    constraints->push_back({ShapeAnalysis::Constraint::LessEqual, n, n * extent,
                            op->getName().getStringRef().str() + ": an index of {} elements "
                                "adds into " + describe(self, dim) +
                                ", which is empty (elements x size = {}): every index is "
                                "out of range" + where(op)});
}

/// A reshape's whole element count, in against out, where every dim of
/// both is known (a reshape whose dims other ops sized, not its rule).
void Analyzer::reshapeCount(ReshapeOp r) {
  llvm::SaveAndRestore<Operation *> at(visiting, r.getOperation());
  AffineExpr in = product(r.getInput(), allDims(r.getInput()));
  AffineExpr out = product(r.getResult(), allDims(r.getResult()));
  if (in && out && in != out)
    constraints->push_back({ShapeAnalysis::Constraint::Equal, in, out,
                            "reshape needs the same number of elements: {} in, {} out" +
                                where(r)});
}

/// A gather's index no larger than its input in every dim but `dim`, once
/// every size is known (an input that is a reshape sized late included),
/// checked when the fusion runs where a size is dynamic.
void Analyzer::gatherBounds(GatherOp g) {
  RankedTensorType in = g.getInput().getType(), index = g.getIndex().getType();
  int64_t dim = g.getDimAttr().getInt();
  for (unsigned i = 0; i < index.getRank(); ++i) {
    if ((int64_t)i == dim || !(in.isDynamicDim(i) || index.isDynamicDim(i)))
      continue;
    AffineExpr n = size(g.getIndex(), i), m = size(g.getInput(), i);
    if (n && m)
      constraints->push_back({ShapeAnalysis::Constraint::LessEqual, n, m,
                              "gather index size {} of " + describe(g.getIndex(), i) +
                                  " must not exceed the input's ({})" + where(g) +
                                  ruleHint({g.getInput(), g.getIndex()})});
  }
}

/// A scatter_add's or index_add's bounds, once every size is known: the
/// empty-dim check, and for scatter_add an index no larger than the source
/// in every dim, nor than self in every dim but `dim`, checked when the
/// fusion runs where a size is dynamic (the verifier compared static ones).
void Analyzer::scatterBounds(Operation *op) {
  if (auto a = dyn_cast<IndexAddOp>(op)) {
    scatterIntoEmpty(a, a.getSelf(), a.getIndex(), a.getDimAttr().getInt());
    return;
  }
  auto sc = cast<ScatterAddOp>(op);
  scatterIntoEmpty(sc, sc.getSelf(), sc.getIndex(), sc.getDimAttr().getInt());
  auto atMost = [&](Value small, Value large, unsigned i, StringRef whose) {
    if (!(cast<RankedTensorType>(small.getType()).isDynamicDim(i) ||
          cast<RankedTensorType>(large.getType()).isDynamicDim(i)))
      return;
    AffineExpr n = size(small, i), m = size(large, i);
    if (n && m && n != m)
      constraints->push_back({ShapeAnalysis::Constraint::LessEqual, n, m,
                              "scatter_add index size {} of " + describe(small, i) +
                                  " must not exceed " + whose.str() + " ({})" + where(sc) +
                                  ruleHint({small, large})});
  };
  for (unsigned i = 0; i < sc.getIndex().getType().getRank(); ++i) {
    atMost(sc.getIndex(), sc.getSource(), i, "the source's");
    if ((int64_t)i != sc.getDimAttr().getInt())
      atMost(sc.getIndex(), sc.getSelf(), i, "self's");
  }
}

/// The sizes a fusion states for `op`'s result (kSizesAttr: an affine map
/// over the dynamic argument dims, one result per dim, a static dim's own
/// size), as fuser-segment records them for a reshape its uses sized, or
/// as a fusion writes them where nothing else could tell (a reshape's
/// split, a broadcast to another argument's sizes that nothing else uses).
LogicalResult Analyzer::statedSizes(Operation *op, AffineMapAttr sizes) {
  AffineMap map = sizes.getValue();
  auto t = cast<RankedTensorType>(op->getResult(0).getType());
  if (map.getNumDims() != 0 || map.getNumSymbols() != numDimSymbols ||
      map.getNumResults() != t.getRank())
    return op->emitOpError("'") << kSizesAttr << "' must map the fusion's " << numDimSymbols
                                << " dynamic argument dims (symbols) to " << t.getRank()
                                << " sizes, got " << sizes;
  for (unsigned d = 0; d < t.getRank(); ++d) {
    AffineExpr e = map.getResult(d);
    if (!t.isDynamicDim(d)) {
      if (e != getAffineConstantExpr(t.getDimSize(d), ctx)) {
        std::string given;
        llvm::raw_string_ostream os(given);
        e.print(os);
        return op->emitOpError("'") << kSizesAttr << "' gives dim " << d << " the size "
                                    << given << ", its type " << t.getDimSize(d);
      }
      continue;
    }
    define(op->getResult(0), d, e, describe(op->getResult(0), d));
  }
  return success();
}

/// One step for the reshapes whose rule guesses: every one whose result
/// dims other ops sized keeps them, and one with a single result dim left
/// unsized gives it the input's element count over the others (as
/// torch's `view(s, k, -1)`); their element counts are checked. If there
/// is none, the rule sizes every one whose input is known, at once, and
/// fuser-vjp's reshapes back still unsized take the rule from their
/// result. False when nothing changed.
bool Analyzer::resolveGuessingReshape() {
  bool changed = false;
  SmallVector<ReshapeOp> left;
  for (ReshapeOp r : guessingReshapes) {
    Value res = r.getResult();
    // A dim sized by a cotangent alone is not one the uses give: the
    // cotangent has the forward result's shape, which the forward sized
    // (by this same rule, if nothing else), and is checked against it.
    SmallVector<unsigned> unknown, known;
    for (unsigned d = 0; d < r.getType().getRank(); ++d)
      (size(res, d) && !classes.fromCotangent(size(res, d)) ? known : unknown).push_back(d);
    AffineExpr in = product(r.getInput(), allDims(r.getInput()));
    AffineExpr others = product(res, known);
    auto zero = dyn_cast_or_null<AffineConstantExpr>(others);
    if (unknown.size() == 1 && in && !(zero && zero.getValue() == 0))
      define(res, unknown[0], in.floorDiv(others), describe(res, unknown[0]));
    else if (!unknown.empty()) {
      left.push_back(r);
      continue;
    }
    // Every result dim known: the element count, and an input dim nothing
    // else sizes computed from it (the rule's other way round).
    sizedByUses.push_back(r);
    if (!reshape(r, /*late=*/true, /*resultKnown=*/true))
      sizedByUsesPending.push_back(r);
    changed = true;
  }
  guessingReshapes = std::move(left);
  if (changed)
    return true;
  // Nothing else sizes them: the rule, for every one whose input is known
  // at once, so that no reshape takes as its uses' sizes what the rule
  // guessed for another (their sizes would then depend on op order).
  left.clear();
  for (ReshapeOp r : guessingReshapes) {
    if (!product(r.getInput(), allDims(r.getInput()))) {
      left.push_back(r);
      continue;
    }
    if (reshapesBack(r)) {
      sizedByUses.push_back(r);
      if (!reshape(r, /*late=*/true, /*resultKnown=*/true))
        sizedByUsesPending.push_back(r);
      changed = true;
      continue;
    }
    sizedByRule.push_back(r);
    if (!reshape(r, /*late=*/true))
      pendingReshapes.push_back(r);
    changed = true;
  }
  guessingReshapes = std::move(left);
  // And fuser-vjp's reshapes back whose input nothing sized: the rule from
  // the result (the guess of the reshape they invert).
  SmallVector<ReshapeOp> backward = std::move(backwardReshapes);
  backwardReshapes.clear();
  for (ReshapeOp r : backward) {
    changed = true;
    if (invertsStatedSizes(r))
      continue;
    if (!reshape(r, /*late=*/false, /*resultKnown=*/false, /*backward=*/true))
      pendingReshapes.push_back(r);
  }
  return changed;
}

/// A reshape back (fuser-vjp's gradient of a reshape) whose input nothing
/// sized, of a reshape that states its sizes (fuser.sizes) from `r`'s
/// result type to its input type: `r`'s input has that reshape's result
/// dims, one for one. The rule run backward from `r`'s result would guess
/// them, and where the forward states its sizes the rule reads it two
/// ways (channels-last group_norm's groups: the gradient landed on W).
bool Analyzer::invertsStatedSizes(ReshapeOp r) {
  Value in = r.getInput();
  auto inT = cast<RankedTensorType>(in.getType());
  for (ReshapeOp fwd : reshapes) {
    if (fwd == r || !fwd->hasAttr(kSizesAttr) || fwd.getInput().getType() != r.getType() ||
        fwd.getType() != inT)
      continue;
    bool known = true;
    for (unsigned d = 0; known && d < inT.getRank(); ++d)
      known = (bool)size(fwd.getResult(), d);
    if (!known)
      continue;
    for (unsigned d = 0; d < inT.getRank(); ++d)
      if (inT.isDynamicDim(d))
        unite(fwd.getResult(), d, in, d);
    return reshape(r, /*late=*/true, /*resultKnown=*/true);
  }
  return false;
}

/// A guessing reshape back to the shape another reshape came from: its
/// input has that reshape's result dims, one for one, and its result type
/// that reshape's input's (static sizes equal, `?` where `?`). Then its
/// result dims are that input's: group_norm's `[N,C,H,W] -> [N,G,C/G*H*W]`
/// and back, where pairing dims would split the rest another way (the
/// element count alone cannot tell H from W). The first such reshape
/// before it in program order decides. Failing that, a reshape of the same
/// dims to the same type elsewhere in the fusion gives its result's dims:
/// in a backward fusion the forward reshape that `r` inverts may be gone
/// (nothing needs its value), and fuser-vjp's gradient of it, a reshape
/// of the cotangent's dims to the dims its uses give, is such a twin.
/// Never from dims a cotangent alone gives, and not the inverse through
/// fuser-vjp's reshapes back: those carry the cotangent's dims, which
/// would size the forward and accept a cotangent of another shape. False,
/// sizing nothing, when there is none.
bool Analyzer::reshapesBack(ReshapeOp r) {
  Value in = r.getInput(), res = r.getResult();
  auto resT = r.getType();
  auto inRank = cast<RankedTensorType>(in.getType()).getRank();
  // `source`'s dims (of `r`'s result type) known and not a cotangent's;
  // `matched`'s dims the same classes as `r`'s input's.
  auto takes = [&](Value source, Value matched) {
    auto sourceT = cast<RankedTensorType>(source.getType());
    auto matchedT = cast<RankedTensorType>(matched.getType());
    if (matched == in || matchedT.getRank() != inRank || sourceT.getRank() != resT.getRank())
      return false;
    for (unsigned d = 0; d < inRank; ++d)
      if (!size(matched, d) || size(matched, d) != size(in, d))
        return false;
    for (unsigned d = 0; d < resT.getRank(); ++d)
      if (resT.getDimSize(d) != sourceT.getDimSize(d) || !size(source, d) ||
          classes.fromCotangent(size(source, d)))
        return false;
    for (unsigned d = 0; d < resT.getRank(); ++d)
      if (resT.isDynamicDim(d))
        unite(source, d, res, d);
    return true;
  };
  for (ReshapeOp earlier : reshapes) {
    if (earlier == r)
      break;
    if (!earlier->hasAttr(kDimsFromUsesAttr) && !earlier->hasAttr(kRefinesShapeAttr) &&
        takes(earlier.getInput(), earlier.getResult()))
      return true;
  }
  for (ReshapeOp twin : reshapes)
    if (twin != r && takes(twin.getResult(), twin.getInput()))
      return true;
  return false;
}

/// The sizes a reshape ties or computes; false while its input's sizes are
/// unknown. `late`: after every op and result has been seen, a dim of the
/// input may be computed from the result instead. `resultKnown`: every
/// result dim is known already (kDimsFromUsesAttr): nothing is paired,
/// only the element count checked.
bool Analyzer::reshape(ReshapeOp r, bool late, bool resultKnown, bool backward) {
  llvm::SaveAndRestore<Operation *> at(visiting, r.getOperation());
  // `backward`: the rule run from the result to the input (src and dst).
  Value src = backward ? r.getResult() : r.getInput();
  Value dst = backward ? r.getInput() : r.getResult();
  // A refinement (fuser-vjp's): the same dims, one for one.
  if (r->hasAttr(kRefinesShapeAttr) &&
      r.getInput().getType().getRank() == r.getType().getRank()) {
    for (unsigned i = 0; i < r.getType().getRank(); ++i)
      unite(r.getInput(), i, r.getResult(), i);
    return true;
  }
  // With one dynamic result dim, it is the input's element count over
  // the static ones. With more, leading dims keep their input's sizes
  // (dims of static size 1 aside): dynamic result dims pair with the
  // input's dynamic dims, in order, until one is left in the rest
  // (`[?,?,1,1] -> [?,?]`, group_norm's `[?,C,?,?] -> [?,G,?]`), then
  // trailing dims from the back; docs/dialect.md states the rule.
  auto inT = cast<RankedTensorType>(src.getType()), out = cast<RankedTensorType>(dst.getType());
  auto nonUnit = [](RankedTensorType t) {
    SmallVector<unsigned> dims;
    for (unsigned i = 0; i < t.getRank(); ++i)
      if (t.getDimSize(i) != 1)
        dims.push_back(i);
    return dims;
  };
  SmallVector<unsigned> inDims = nonUnit(inT), outDims = nonUnit(out);
  auto numDynamic = [&](ArrayRef<unsigned> dims) {
    return llvm::count_if(dims, [&](unsigned d) { return out.isDynamicDim(d); });
  };
  auto leadingPairs = [&] {
    unsigned n = 0;
    while (!resultKnown &&
           numDynamic(ArrayRef<unsigned>(outDims).drop_front(n)) > 1 && n < inDims.size() &&
           n < outDims.size() && inT.getDimSize(inDims[n]) == out.getDimSize(outDims[n]))
      ++n;
    return n;
  };
  unsigned leadAll = leadingPairs();
  // A guess with two ways to read: after two or more dynamic dims paired,
  // the one dynamic result dim left sits beside a static split of two or
  // more input dims (channels-last group_norm's `[?,?,?,?] -> [?,?,G,?]`,
  // [N, H*W, G, C/G] in torch, which pairing H made [N, H, G, W*C/G]: the
  // same element count, so no check failed, and the groups were wrong).
  // The rule pairs only the first dynamic dim, and the others are left to
  // other ops or to fuser.sizes (an error names the dim when nothing sizes
  // it). So is a space-to-depth `[?,?,?,?] -> [?,?,?,2,?,2]` (H paired
  // with H/2 left two static splits for W), and Swin's window partition
  // `[?,?,?,?] -> [?,?,7,?,7,?]` (H paired with H/7, then C from the back,
  // left W/49 for W/7). Torch's head split
  // `[?,?,?] -> [?,?,H,?]` and rotary pairs `[...,?] -> [...,?,2]` leave
  // one input dim and one static split: still guessed, as they are written.
  unsigned lead = leadAll;
  if (!resultKnown) {
    unsigned dynamicPairs = 0, firstPairEnd = 0;
    for (unsigned i = 0; i < leadAll; ++i)
      if (out.isDynamicDim(outDims[i]) && ++dynamicPairs == 1)
        firstPairEnd = i + 1;
    ArrayRef<unsigned> restOutDims = ArrayRef<unsigned>(outDims).drop_front(leadAll);
    size_t staticSplits = restOutDims.size() - numDynamic(restOutDims);
    if (dynamicPairs >= 2 && staticSplits > 0 &&
        ((numDynamic(restOutDims) == 1 && inDims.size() - leadAll >= 2) || staticSplits >= 2)) {
      for (unsigned i = 0; i < firstPairEnd; ++i)
        if (out.isDynamicDim(outDims[i]))
          unite(src, inDims[i], dst, outDims[i]);
      twoReadings.insert(r);
      return false;
    }
  }
  for (unsigned i = 0; i < lead; ++i)
    if (out.isDynamicDim(outDims[i]))
      unite(src, inDims[i], dst, outDims[i]);
  // Then trailing dims the same way from the back, while more than one
  // dynamic result dim is left between: attention's `[?,?,?] ->
  // [B,H,?,?]` keeps the last S; the other is the rest's count over B*H.
  unsigned trail = 0;
  auto middle = [&](ArrayRef<unsigned> dims) {
    return dims.drop_front(lead).drop_back(trail);
  };
  while (!resultKnown && numDynamic(middle(outDims)) > 1 && lead + trail < inDims.size() &&
         lead + trail < outDims.size() &&
         inT.getDimSize(inDims[inDims.size() - 1 - trail]) ==
             out.getDimSize(outDims[outDims.size() - 1 - trail])) {
    if (out.isDynamicDim(outDims[outDims.size() - 1 - trail]))
      unite(src, inDims[inDims.size() - 1 - trail], dst,
            outDims[outDims.size() - 1 - trail]);
    ++trail;
  }
  SmallVector<unsigned> restIn(middle(inDims));
  SmallVector<unsigned> dynamicOut, staticOut;
  for (unsigned i : middle(outDims))
    (out.isDynamicDim(i) ? dynamicOut : staticOut).push_back(i);
  SmallVector<unsigned> restOut(middle(outDims));
  AffineExpr in = product(src, restIn);
  AffineExpr staticProduct = product(dst, staticOut);
  if (!in && late) {
    // Known only from its result (fuser-vjp's reshape of a gradient
    // back to its operand's shape, whose other dims the fusion's
    // result ties): the one input dim left is the result's element
    // count over the other, static, input dims.
    AffineExpr outCount = product(dst, restOut);
    SmallVector<unsigned> unknown;
    int64_t known = 1;
    for (unsigned d : restIn) {
      AffineExpr e = size(src, d);
      if (!e)
        unknown.push_back(d);
      else if (auto c = dyn_cast<AffineConstantExpr>(e))
        known *= c.getValue();
      else
        known = 0;
    }
    if (!outCount || unknown.size() != 1 || known <= 0)
      return false;
    define(src, unknown[0], outCount.floorDiv(known),
           describe(src, unknown[0]));
    in = product(src, restIn);
  }
  if (!in)
    return false; // resolved later by unification, or an error
  // More than one dynamic dim left between the pairs: the rule cannot
  // give them. Pending: another op may size them, and the element count is
  // checked once they are (reshapeCount), or they are an error.
  if (dynamicOut.size() > 1 && !resultKnown)
    return false;
  // Beside a static 0 the one dynamic dim cannot be inferred either (any
  // size gives no elements, as torch.reshape's -1 beside a 0): pending
  // too, rather than a division by 0 when the fusion runs.
  auto zero = dyn_cast<AffineConstantExpr>(staticProduct);
  if (dynamicOut.size() == 1 && !resultKnown && zero && zero.getValue() == 0)
    return false;
  // The one dynamic dim is the count divided by the others' product,
  // rounded down: where that product does not divide the count, the
  // message says so, not just the rounded count it gives.
  std::string what = "reshape needs the same number of elements: {} in, {} out";
  if (dynamicOut.size() == 1 && !resultKnown) {
    define(dst, dynamicOut[0], in.floorDiv(staticProduct),
           describe(dst, dynamicOut[0]));
    what = "reshape needs the same number of elements: {} in, which the product of the "
           "result's other dims does not divide, so no size of " +
           describe(dst, dynamicOut[0]) + " fits ({} out, rounded down)";
  }
  bool inDynamic = llvm::any_of(restIn, [&](unsigned d) { return inT.isDynamicDim(d); });
  AffineExpr outCount = product(dst, restOut);
  if ((dynamicOut.size() <= 1 || resultKnown) && (inDynamic || !dynamicOut.empty()) &&
      outCount != in)
    constraints->push_back({ShapeAnalysis::Constraint::Equal, in, outCount, what + where(r)});
  return true;
}

LogicalResult Analyzer::visit(Operation *op) {
  // Every value of a fusion body is a ranked tensor (a scalar is a rank-0
  // tensor). Checked before anything reads a result's shape: an op from
  // another dialect may return anything.
  for (auto [i, r] : llvm::enumerate(op->getResults()))
    if (!isa<RankedTensorType>(r.getType()))
      return op->emitOpError("is not supported in a fusion body: result ")
             << i << " is " << r.getType()
             << ", not a ranked tensor (a scalar is a rank-0 tensor: fuser.constant)";
  for (Value r : op->getResults())
    addValue(r);
  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case<ConstantOp, IotaOp, SizeOp>([](auto) { return success(); })
      .Case<CummaxOp, CumminOp>([&](Operation *op) {
        // Values and indices, both of the input's shape.
        for (Value res : op->getResults())
          for (unsigned d = 0; d < cast<RankedTensorType>(res.getType()).getRank(); ++d)
            unite(op->getOperand(0), d, res, d);
        return success();
      })
      .Case<BroadcastOp>([&](BroadcastOp b) {
        if (auto sizes = b->getAttrOfType<AffineMapAttr>(kSizesAttr))
          if (failed(statedSizes(b, sizes)))
            return failure();
        for (auto [i, d] : llvm::enumerate(b.getDims())) {
          int64_t s = b.getInput().getType().getDimSize(i);
          if (s == 1 && b.getType().getDimSize(d) != 1)
            continue; // expands
          unite(b.getInput(), i, b.getResult(), d);
        }
        return success();
      })
      .Case<SumOp, ProdOp, MaxOp, MinOp, MeanOp, AnyOp, AllOp, VarMeanOp>(
          [&](auto r) {
            ArrayRef<int64_t> dims = r.getDims();
            unsigned out = 0;
            for (unsigned i = 0; i < r.getInput().getType().getRank(); ++i) {
              bool reduced = llvm::is_contained(dims, (int64_t)i);
              if (!reduced || r.getKeepdim()) {
                if (!reduced)
                  for (Value res : r->getResults())
                    unite(r.getInput(), i, res, out);
                ++out;
              }
            }
            return success();
          })
      .Case<MatmulOp>([&](MatmulOp mm) {
        // Contraction dims are equal; batch dims broadcast right-aligned
        // (a static 1 takes the other's size; others are equal).
        Value a = mm.getLhs(), b = mm.getRhs(), r = mm.getResult();
        RankedTensorType rt = mm.getType();
        int64_t ra = mm.getLhs().getType().getRank(), rb = mm.getRhs().getType().getRank();
        unite(a, ra - 1, b, rb == 1 ? 0 : rb - 2);
        int64_t rr = rt.getRank();
        int64_t nb = rr - (ra >= 2) - (rb >= 2); // batch dims of the result
        for (Value x : {a, b}) {
          int64_t rx = cast<RankedTensorType>(x.getType()).getRank();
          int64_t xb = rx > 2 ? rx - 2 : 0;
          for (int64_t i = 0; i < xb; ++i)
            if (cast<RankedTensorType>(x.getType()).getDimSize(i) != 1 ||
                rt.getDimSize(nb - xb + i) == 1)
              unite(x, i, r, nb - xb + i);
        }
        if (ra >= 2)
          unite(a, ra - 2, r, nb);
        if (rb >= 2)
          unite(b, rb - 1, r, rr - 1);
        return success();
      })
      .Case<LinearOp>([&](LinearOp l) {
        Value x = l.getInput(), r = l.getResult();
        int64_t rx = l.getInput().getType().getRank();
        unite(x, rx - 1, l.getWeight(), 1);
        for (int64_t i = 0; i + 1 < rx; ++i)
          unite(x, i, r, i);
        unite(l.getWeight(), 0, r, rx - 1);
        if (l.getBias())
          unite(l.getBias(), 0, r, rx - 1);
        return success();
      })
      .Case<CollectiveOp>([&](CollectiveOp c) {
        // The parts' leading dim (all_gather's result, reduce_scatter's and
        // slice's input) is static; the other dims are the same.
        int64_t inShift = 0, outShift = 0;
        if (c.getKind() == "all_gather")
          outShift = 1;
        else if (c.getKind() == "reduce_scatter" || c.getKind() == "slice")
          inShift = 1;
        for (int64_t d = 0; d + inShift < c.getInput().getType().getRank(); ++d)
          unite(c.getInput(), d + inShift, c.getResult(), d + outShift);
        return success();
      })
      .Case<PermuteOp>([&](PermuteOp p) {
        for (auto [i, d] : llvm::enumerate(p.getPerm()))
          unite(p.getResult(), i, p.getInput(), d);
        return success();
      })
      .Case<SliceOp>([&](SliceOp s) {
        if (!sliceSizes(s))
          revisit.push_back(s);
        return success();
      })
      .Case<GatherOp>([&](GatherOp g) {
        // The result has the index's shape; the index may be smaller than
        // the input in every dim but the gathered one.
        RankedTensorType index = g.getIndex().getType();
        for (unsigned i = 0; i < index.getRank(); ++i)
          unite(g.getIndex(), i, g.getResult(), i);
        gathers.push_back(g); // bounds checked once every size is known
        return success();
      })
      .Case<IndexSelectOp>([&](IndexSelectOp s) {
        int64_t dim = s.getDimAttr().getInt();
        for (unsigned i = 0; i < s.getType().getRank(); ++i) {
          if ((int64_t)i == dim)
            unite(s.getIndex(), 0, s.getResult(), i);
          else
            unite(s.getInput(), i, s.getResult(), i);
        }
        return success();
      })
      .Case<ScatterAddOp>([&](ScatterAddOp sc) {
        // The result has self's shape; the index may be smaller than the
        // source in every dim, and than self in every dim but `dim`.
        // The bounds are checked once every size is known (scatterBounds).
        RankedTensorType index = sc.getIndex().getType();
        for (unsigned i = 0; i < index.getRank(); ++i)
          unite(sc.getSelf(), i, sc.getResult(), i);
        scatters.push_back(sc);
        return success();
      })
      .Case<IndexAddOp>([&](IndexAddOp a) {
        int64_t dim = a.getDimAttr().getInt();
        scatters.push_back(a);
        for (unsigned i = 0; i < a.getType().getRank(); ++i) {
          unite(a.getSelf(), i, a.getResult(), i);
          if ((int64_t)i == dim)
            unite(a.getIndex(), 0, a.getSource(), i);
          else
            unite(a.getSelf(), i, a.getSource(), i);
        }
        return success();
      })
      .Case<PadOp>([&](PadOp p) {
        if (!padSizes(p))
          revisit.push_back(p);
        return success();
      })
      .Case<ConcatOp>([&](ConcatOp c) {
        int64_t dim = c.getDimAttr().getInt();
        for (Value in : c.getInputs())
          for (unsigned i = 0; i < c.getType().getRank(); ++i)
            if ((int64_t)i != dim)
              unite(in, i, c.getResult(), i);
        if (!concatSize(c))
          revisit.push_back(c);
        return success();
      })
      .Case<ReshapeOp>([&](ReshapeOp r) -> LogicalResult {
        reshapes.push_back(r);
        if (auto sizes = r->getAttrOfType<AffineMapAttr>(kSizesAttr)) {
          // Sized already (fuser-segment's record of what the uses gave, or
          // the fusion's own statement): the element count is checked after
          // every op, as for a reshape sized by its uses.
          if (failed(statedSizes(r, sizes)))
            return failure();
          deferredReshapes.push_back(r);
          return success();
        }
        if (r->hasAttr(kDimsFromUsesAttr))
          deferredReshapes.push_back(r);
        else if (ShapeAnalysis::reshapeGuessesDims(r))
          guessingReshapes.push_back(r);
        else if (!reshape(r, /*late=*/false))
          pendingReshapes.push_back(r);
        return success();
      })
      .Default([&](Operation *op) -> LogicalResult {
        if (!isa<FuserDialect>(op->getDialect()) || op->getNumResults() != 1)
          return op->emitOpError("is not supported in a fusion body");
        if (isa<SoftmaxOp, LogSoftmaxOp, LayerNormOp, RmsNormOp, DropoutOp>(op))
          return op->emitOpError("must be expanded by fuser-decompose first");
        // Elementwise: every operand of rank > 0 has the result's shape.
        Value res = op->getResult(0);
        for (Value in : op->getOperands())
          if (cast<RankedTensorType>(in.getType()).getRank() > 0)
            for (unsigned d = 0; d < cast<RankedTensorType>(res.getType()).getRank(); ++d)
              unite(in, d, res, d);
        return success();
      });
}

LogicalResult
Analyzer::run(SmallVectorImpl<ShapeAnalysis::Symbol> &symbols,
              SmallVectorImpl<ShapeAnalysis::Constraint> &constraintsOut,
              DenseMap<Value, SmallVector<AffineExpr>> &shapes) {
  constraints = &constraintsOut;
  Block &body = fusion.getBody().front();
  for (BlockArgument arg : body.getArguments()) {
    auto t = dyn_cast<RankedTensorType>(arg.getType());
    if (!t)
      return fusion.emitError("fusion argument ")
             << arg.getArgNumber() << " must be a ranked tensor, got "
             << arg.getType();
    order.push_back(arg);
    SmallVector<int> &s = slots[arg];
    for (unsigned d = 0; d < t.getRank(); ++d) {
      AffineExpr e;
      if (t.isDynamicDim(d)) {
        e = getAffineSymbolExpr(symbols.size(), ctx);
        if (fusion.getArgAttr(arg.getArgNumber(), kCotangentAttr))
          classes.cotangentSymbols.insert(symbols.size());
        symbols.push_back({arg.getArgNumber(), d});
      } else {
        e = getAffineConstantExpr(t.getDimSize(d), ctx);
      }
      s.push_back(classes.make(e, describe(arg, d)));
    }
  }
  numDimSymbols = symbols.size();
  for (Operation &op : body.without_terminator()) {
    visiting = &op;
    if (failed(visit(&op)))
      return failure();
  }
  visiting = nullptr;
  // Results that have an argument's shape (fuser.same_shape_as).
  for (auto [i, v] : llvm::enumerate(body.getTerminator()->getOperands())) {
    auto like = fusion.getResultAttrOfType<IntegerAttr>(i, kSameShapeAsAttr);
    if (!like)
      continue;
    int64_t a = like.getInt();
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (a < 0 || a >= (int64_t)body.getNumArguments() || !t ||
        cast<RankedTensorType>(body.getArgument(a).getType()).getRank() != t.getRank())
      return fusion.emitError("result ") << i << " has " << kSameShapeAsAttr << " = " << a
                                         << ", which is not an argument of its rank";
    for (unsigned d = 0; d < t.getRank(); ++d)
      unite(body.getArgument(a), d, v, d);
  }
  // Reshapes sized by their uses (kDimsFromUsesAttr): where every result
  // dim is known now, only the element count is checked; otherwise the
  // general rule, with the others, below.
  for (ReshapeOp r : deferredReshapes) {
    unsigned rank = r.getType().getRank();
    bool known = true;
    for (unsigned d = 0; d < rank && known; ++d)
      known = bool(size(r.getResult(), d));
    if (!known) {
      pendingReshapes.push_back(r);
      continue;
    }
    if (reshape(r, /*late=*/true, /*resultKnown=*/true))
      continue;
    // Its input's dims unknown (a cotangent broadcast to the forward
    // reshape's result, sized by nothing else): fuser-vjp's reshape back
    // is the inverse of a forward reshape from this result's shape, whose
    // dims the rule gave; the rule, run from the result, gives them again,
    // once nothing else can (resolveGuessingReshape): the forward reshape
    // may be one its uses size.
    backwardReshapes.push_back(r);
  }
  // Reshapes whose input sizes were unknown when seen, in rounds until
  // none is resolved (one may resolve another's input).
  for (bool progress = true; progress;) {
    progress = false;
    SmallVector<ReshapeOp> pending = std::move(pendingReshapes);
    pendingReshapes.clear();
    for (ReshapeOp r : pending) {
      if (reshape(r, /*late=*/true))
        progress = true;
      else
        pendingReshapes.push_back(r);
    }
    // Reshapes whose result dims are known, waiting for their input's.
    for (SmallVector<ReshapeOp> *waiting : {&sizedByUsesPending, &backwardReshapes}) {
      SmallVector<ReshapeOp> known = std::move(*waiting);
      waiting->clear();
      for (ReshapeOp r : known) {
        if (reshape(r, /*late=*/true, /*resultKnown=*/true))
          progress = true;
        else
          waiting->push_back(r);
      }
    }
    SmallVector<Operation *> ops = std::move(revisit);
    revisit.clear();
    for (Operation *op : ops) {
      bool done = TypeSwitch<Operation *, bool>(op)
                      .Case<SliceOp>([&](SliceOp s) { return sliceSizes(s); })
                      .Case<PadOp>([&](PadOp p) { return padSizes(p); })
                      .Case<ConcatOp>([&](ConcatOp c) { return concatSize(c); });
      if (done)
        progress = true;
      else
        revisit.push_back(op);
    }
    if (progress)
      continue;
    // Reshapes whose rule guesses how dims split: a use that sizes every
    // result dim (`[s*k, h] -> [?,?,?]` multiplied by a `[s, k, h]`)
    // says how, and the element count is checked; otherwise the rule
    // sizes the first, and what it gives may size the next.
    progress = resolveGuessingReshape();
    if (progress)
      continue;
    // Nothing left to learn forward: sizes from the other side, where
    // nothing else gives them (the uses of a value sized by its uses).
    progress = sourcesFromIndices();
    ops = std::move(revisit);
    revisit.clear();
    for (Operation *op : ops) {
      if (auto p = dyn_cast<PadOp>(op); p && padSizes(p, /*late=*/true))
        progress = true;
      else
        revisit.push_back(op);
    }
  }
  for (Operation *op : scatters)
    scatterBounds(op);
  // Reshapes left with dims the rule could not give, which other ops then
  // sized: their element counts are checked now.
  for (ReshapeOp r : pendingReshapes)
    reshapeCount(r);
  for (ReshapeOp r : sizedByUsesPending)
    reshapeCount(r);
  for (GatherOp g : gathers)
    gatherBounds(g);
  for (Value v : order) {
    auto t = cast<RankedTensorType>(v.getType());
    SmallVector<AffineExpr> &shape = shapes[v];
    for (unsigned d = 0; d < t.getRank(); ++d) {
      AffineExpr e = size(v, d);
      if (!e) {
        Operation *where = v.getDefiningOp();
        // The rule that could have sized it, for the op that made it.
        StringRef rule =
            isa_and_nonnull<BroadcastOp, ConstantOp, IotaOp>(where)
                ? "(a broadcast, constant or iota takes a '?' dim's size from the tensors "
                  "it combines with, and nothing combines with this one: docs/dialect.md)"
            : twoReadings.contains(where)
                ? "(the reshape rule reads this reshape two ways: pairing the input's "
                  "second dynamic dim with the result's leaves the same element count as "
                  "merging it into the next, as channels-last group_norm's [N,H,W,C] -> "
                  "[N,H*W,G,C/G] does: docs/dialect.md; the C API's "
                  "fuserBuildReshapeSized states the sizes)"
                : "(a reshape infers one dynamic result dim beyond the leading and trailing "
                  "dims it keeps: docs/dialect.md)";
        return (where ? where->emitOpError() : fusion.emitError())
               << "cannot determine the size of " << classes.name(slot(v, d))
               << " from the fusion's arguments; tie it to an argument's dim " << rule
               << ", or state the op's sizes ('" << kSizesAttr << "')";
      }
      shape.push_back(e);
    }
  }
  return success();
}

std::optional<SmallVector<int64_t>> mlir::fuser::argStrides(func::FuncOp fusion, unsigned i) {
  auto layout = fusion.getArgAttrOfType<StridedLayoutAttr>(i, kStridesAttr);
  auto type = dyn_cast<RankedTensorType>(fusion.getArgumentTypes()[i]);
  if (!layout || !type || (int64_t)layout.getStrides().size() != type.getRank())
    return std::nullopt;
  SmallVector<int64_t> strides(layout.getStrides());
  // Static strides equal to the dense row-major ones (a size-1 dim takes
  // any) make no view. `dense` is the product of the sizes after dim d
  // (as PyTorch's contiguous strides, a 0 size counts as 1).
  int64_t dense = 1;
  for (int64_t d = type.getRank() - 1; d >= 0; --d) {
    int64_t size = type.getDimSize(d);
    if (size != 1 && (ShapedType::isDynamic(strides[d]) || ShapedType::isDynamic(dense) ||
                      strides[d] != dense))
      return strides;
    if (ShapedType::isDynamic(size))
      dense = ShapedType::kDynamic;
    else if (!ShapedType::isDynamic(dense))
      dense *= std::max<int64_t>(size, 1);
  }
  return std::nullopt;
}

FailureOr<ShapeAnalysis> ShapeAnalysis::analyze(func::FuncOp fusion) {
  ShapeAnalysis result;
  result.ctx = fusion.getContext();
  Analyzer analyzer(fusion);
  if (failed(analyzer.run(result.symbols_, result.constraints_, result.shapes)))
    return failure();
  for (ReshapeOp r : analyzer.reshapesSizedByUses())
    result.reshapesSizedByUses.insert(r);
  // Views: each dynamic stride is a symbol after the dims'.
  for (BlockArgument arg : fusion.getArguments()) {
    std::optional<SmallVector<int64_t>> st = argStrides(fusion, arg.getArgNumber());
    if (!st)
      continue;
    SmallVector<AffineExpr> &exprs = result.strides_[arg];
    for (auto [d, s] : llvm::enumerate(*st)) {
      if (ShapedType::isDynamic(s)) {
        exprs.push_back(getAffineSymbolExpr(result.symbols_.size(), result.ctx));
        result.symbols_.push_back({arg.getArgNumber(), unsigned(d), /*stride=*/true});
      } else {
        exprs.push_back(getAffineConstantExpr(s, result.ctx));
      }
    }
  }
  return result;
}

ArrayRef<AffineExpr> ShapeAnalysis::strides(Value v) const {
  auto it = strides_.find(v);
  if (it == strides_.end())
    return {};
  return it->second;
}

AffineExpr ShapeAnalysis::span(Value v) const {
  ArrayRef<AffineExpr> st = strides(v);
  if (st.empty())
    return numElements(v);
  AffineExpr e = getAffineConstantExpr(1, ctx);
  for (auto [size, stride] : llvm::zip(shape(v), st))
    e = e + (size - 1) * stride;
  return e;
}

ArrayRef<AffineExpr> ShapeAnalysis::shape(Value v) const {
  auto it = shapes.find(v);
  assert(it != shapes.end() && "value is not a tensor of the analyzed fusion");
  return it->second;
}

AffineExpr ShapeAnalysis::numElements(Value v) const {
  AffineExpr p = getAffineConstantExpr(1, ctx);
  for (AffineExpr e : shape(v))
    p = p * e;
  return p;
}

bool ShapeAnalysis::reshapeGuessesDims(ReshapeOp r) {
  if (r->hasAttr(kSizesAttr) || r->hasAttr(kDimsFromUsesAttr))
    return false;
  if (r->hasAttr(kRefinesShapeAttr) && r.getInput().getType().getRank() == r.getType().getRank())
    return false;
  return llvm::count_if(r.getType().getShape(),
                        [](int64_t s) { return ShapedType::isDynamic(s); }) > 1;
}

std::optional<int64_t> ShapeAnalysis::constantValue(AffineExpr e) {
  if (auto c = dyn_cast<AffineConstantExpr>(e))
    return c.getValue();
  return std::nullopt;
}
