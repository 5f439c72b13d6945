//===- EmitKernels.cpp - fusions to kernels and launch plans --------------===//
//
// For each segmented fusion: analyze its shapes, create its gpu.module, build
// the plan function (memref arguments, then memref results), emit the checks
// the shapes imply, allocate intermediates, and let each segment's scheduler
// add its kernels and launches. The fusion is then replaced by its plan.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "PointwiseScheduler.h"
#include "ReductionScheduler.h"

#include "fuser/Analysis/GroupAnalysis.h"
#include "fuser/Analysis/ShapeAnalysis.h"
#include "fuser/Conversion/Passes.h"
#include "fuser/Dialect/Fuser/IR/FuserAttrNames.h"
#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Transforms/Segments.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_EMITKERNELSPASS
#include "fuser/Conversion/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

/// A tensor's buffer in the plan; a view argument's carries its strides.
static MemRefType bufferType(Type tensorType, std::optional<SmallVector<int64_t>> strides = {}) {
  auto t = cast<RankedTensorType>(tensorType);
  if (strides)
    return MemRefType::get(t.getShape(), t.getElementType(),
                           StridedLayoutAttr::get(t.getContext(), 0, *strides));
  return MemRefType::get(t.getShape(), t.getElementType());
}

/// The printable name of argument `i` of `fusion`.
static std::string argumentName(func::FuncOp fusion, unsigned i) {
  if (auto n = fusion.getArgAttrOfType<StringAttr>(i, kNameAttr))
    return n.str();
  return "arg" + std::to_string(i);
}

/// Emits `fuser.check` ops for the shape constraints and `fuser.result_dim`
/// for the dynamic dims of the results.
static void emitChecks(FusionEmitter &fe, func::FuncOp plan, unsigned numArgs) {
  OpBuilder &b = fe.planBuilder;
  Location loc = fe.loc;
  for (const ShapeAnalysis::Constraint &c : fe.shapes.constraints()) {
    Value lhs = fe.planExpr(c.lhs), rhs = fe.planExpr(c.rhs);
    auto pred = c.kind == ShapeAnalysis::Constraint::Equal ? arith::CmpIPredicate::eq
                                                           : arith::CmpIPredicate::sle;
    Value ok = arith::CmpIOp::create(b, loc, pred, lhs, rhs);
    CheckOp::create(b, loc, ok, c.what, ValueRange{lhs, rhs});
  }
  Operation *ret = fe.fusion.getBody().front().getTerminator();
  for (auto [i, v] : llvm::enumerate(ret->getOperands())) {
    auto t = cast<RankedTensorType>(v.getType());
    ArrayRef<AffineExpr> shape = fe.shapes.shape(v);
    for (unsigned d = 0; d < t.getRank(); ++d) {
      if (t.isDynamicDim(d))
        ResultDimOp::create(b, loc, plan.getArgument(numArgs + i), d,
                            fe.planExpr(shape[d]));
    }
  }
}

/// Forced 32-bit index math on a static tensor too large for it: an error
/// here, never a kernel whose offsets wrap (sizes known only at launch: the
/// plan checks them, FusionEmitter::indexWidths).
static LogicalResult checkFits32Bits(func::FuncOp fusion, const Segment &s,
                                     int64_t max32) {
  auto check = [&](Value v, Location at) -> LogicalResult {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t || !t.hasStaticShape() || t.getNumElements() < max32)
      return success();
    return emitError(at, "segment ")
           << s.index << " takes 32-bit index math (index-bits 32 or kernel.index_bits = 32), "
           << "but " << t << " has " << t.getNumElements()
           << " elements; 32-bit index math holds below " << max32
           << " here (2^31 less twice the threads of the largest grid the segment's schedule "
              "launches, at least 2^24; about a third of 2^31 where the grid grows with the "
              "size, pointwise.waves = 0): compile with index-bits 0 (per kernel) or 64";
  };
  for (Value in : s.inputs)
    if (failed(check(in, fusion.getLoc())))
      return failure();
  for (Operation *op : s.ops)
    for (Value r : op->getResults())
      if (failed(check(r, op->getLoc())))
        return failure();
  return success();
}

static LogicalResult emitFusion(func::FuncOp fusion, gpu::GPUModuleOp module,
                                TargetInfo target, unsigned indexBits,
                                StringRef plantBug, MathAccuracy math, bool assumeAligned,
                                bool allowTf32, bool explain) {
  FailureOr<ShapeAnalysis> shapes = ShapeAnalysis::analyze(fusion);
  if (failed(shapes))
    return failure();
  FailureOr<SmallVector<Segment>> segments = getSegments(fusion);
  if (failed(segments))
    return failure();
  // The fusion's own schedule reaches the kernels through fuser-schedule's
  // per-segment entries; emitting without them would drop it silently.
  if (fusion->hasAttr(kScheduleAttr) && !fusion->hasAttr(kSchedulesAttr))
    return fusion.emitError("carries ")
           << kScheduleAttr << " but no " << kSchedulesAttr
           << ": run fuser-schedule before fuser-emit-kernels";

  // The plan: memref arguments, then one memref per result.
  OpBuilder b(fusion);
  FunctionType ft = fusion.getFunctionType();
  unsigned numArgs = ft.getNumInputs();
  SmallVector<Type> types;
  for (auto [i, t] : llvm::enumerate(ft.getInputs()))
    types.push_back(bufferType(t, argStrides(fusion, i)));
  for (Type t : ft.getResults())
    types.push_back(bufferType(t));
  auto plan = func::FuncOp::create(b, fusion.getLoc(),
                                   (fusion.getSymName() + ".plan").str(),
                                   b.getFunctionType(types, {}));
  plan->setAttr(kPlanAttr, b.getUnitAttr());
  plan->setAttr(kNumArgsAttr, b.getI64IntegerAttr(numArgs));
  // A sharded fusion's grid and the split of each tensor (fuser-record-grid)
  // go to the bundle's GRID record.
  if (Attribute grid = fusion->getAttr(kGridAttr)) {
    plan->setAttr(kGridAttr, grid);
    for (unsigned i = 0; i < numArgs; ++i)
      if (Attribute split = fusion.getArgAttr(i, kSplitAttr))
        plan.setArgAttr(i, kSplitAttr, split);
    for (unsigned i = 0; i < ft.getNumResults(); ++i)
      if (Attribute split = fusion.getResultAttr(i, kSplitAttr))
        plan.setArgAttr(numArgs + i, kSplitAttr, split);
  }
  // Given names first; a default name (argN, resultN) that a given one
  // already takes gets '_' appended until it is free, so that defaults never
  // collide with a user's `%result0`.
  llvm::StringSet<> taken;
  for (unsigned i = 0; i < numArgs; ++i)
    if (auto n = fusion.getArgAttrOfType<StringAttr>(i, kNameAttr))
      taken.insert(n.getValue());
  for (unsigned i = 0; i < ft.getNumResults(); ++i)
    if (auto n = fusion.getResultAttrOfType<StringAttr>(i, kNameAttr))
      taken.insert(n.getValue());
  auto freeName = [&](std::string name) {
    while (taken.contains(name))
      name += "_";
    taken.insert(name);
    return name;
  };
  for (unsigned i = 0; i < numArgs; ++i) {
    std::string name = fusion.getArgAttr(i, kNameAttr) ? argumentName(fusion, i)
                                                        : freeName(argumentName(fusion, i));
    plan.setArgAttr(i, kNameAttr, b.getStringAttr(name));
  }
  for (unsigned i = 0; i < ft.getNumResults(); ++i) {
    std::string name;
    if (auto n = fusion.getResultAttrOfType<StringAttr>(i, kNameAttr))
      name = n.str();
    else
      name = freeName("result" + std::to_string(i));
    plan.setArgAttr(numArgs + i, kNameAttr, b.getStringAttr(name));
  }
  Block *body = plan.addEntryBlock();
  OpBuilder rb = OpBuilder::atBlockEnd(body);
  func::ReturnOp::create(rb, fusion.getLoc());

  FusionEmitter fe(fusion, *shapes, target, indexBits, module, plan);
  fe.plantBug = plantBug.str();
  fe.math = math;
  fe.assumeAligned = assumeAligned;
  fe.allowTf32 = allowTf32;
  fe.explain = explain;
  fe.planBuilder.setInsertionPoint(body->getTerminator());
  for (unsigned i = 0; i < numArgs; ++i)
    fe.buffers[fusion.getArgument(i)] = plan.getArgument(i);
  Operation *ret = fusion.getBody().front().getTerminator();
  for (auto [i, v] : llvm::enumerate(ret->getOperands())) {
    if (fe.buffers.count(v))
      return fusion.emitError("result ")
             << i << " is an argument or another result; fuser does not "
                     "copy buffers yet";
    fe.buffers[v] = plan.getArgument(numArgs + i);
  }
  emitChecks(fe, plan, numArgs);
  // fuser.size into an integer narrower than the extent may be: checked.
  fusion.walk([&](SizeOp size) {
    Type t = size.getType().getElementType();
    ArrayRef<AffineExpr> shape = fe.shapes.shape(size.getInput());
    AffineExpr extent = shape[size.getDim()];
    if (!t.isInteger() || t.getIntOrFloatBitWidth() >= 64 || ShapeAnalysis::constantValue(extent))
      return;
    int64_t max = APInt::getSignedMaxValue(t.getIntOrFloatBitWidth()).getSExtValue();
    Value n = fe.planExpr(extent), limit = fe.planConstant(max);
    Value ok = arith::CmpIOp::create(fe.planBuilder, fe.loc, arith::CmpIPredicate::sle, n, limit);
    std::string what;
    llvm::raw_string_ostream os(what);
    os << "fuser.size of dim " << size.getDim() << " is {}, which does not fit in " << t
       << " (at most {})";
    CheckOp::create(fe.planBuilder, fe.loc, ok, os.str(), ValueRange{n, limit});
  });
  // Results that are views (fuser-segment's kResultViewAttr): the reshaped
  // value is written straight into the result's buffer.
  for (auto [i, v] : llvm::enumerate(ret->getOperands())) {
    auto r = v.getDefiningOp<ReshapeOp>();
    if (!r || !r->hasAttr(kResultViewAttr))
      continue;
    Value source = r.getInput();
    if (fe.buffers.count(source))
      return r.emitOpError("is a result view of a value that already has a buffer");
    fe.buffers[source] = BufferViewOp::create(fe.planBuilder, fe.loc,
                                              bufferType(source.getType()),
                                              plan.getArgument(numArgs + i));
  }

  // Operands that are views (fuser-segment's kOperandViewAttr): a library
  // call reads the argument's bytes with the reshape's shape.
  fusion.walk([&](ReshapeOp r) {
    if (r->hasAttr(kOperandViewAttr))
      fe.buffers[r.getResult()] = BufferViewOp::create(
          fe.planBuilder, fe.loc, bufferType(r.getType()), fe.buffers.lookup(r.getInput()));
  });

  // Intermediates: segment outputs that are not results live in allocated
  // buffers with their computed sizes.
  for (const Segment &s : *segments)
    for (Value out : s.outputs) {
      if (fe.buffers.count(out))
        continue;
      SmallVector<Value> dynSizes;
      auto t = cast<RankedTensorType>(out.getType());
      for (unsigned d = 0; d < t.getRank(); ++d)
        if (t.isDynamicDim(d))
          dynSizes.push_back(fe.planExpr(fe.shapes.shape(out)[d]));
      fe.buffers[out] = memref::AllocOp::create(fe.planBuilder, fe.loc,
                                                bufferType(t), dynSizes);
    }

  auto isRowOrColumn = [](GroupKind k) {
    return k == GroupKind::Reduction || k == GroupKind::Normalization ||
           k == GroupKind::InnerOuter;
  };
  // Values computed by the segments emitted so far (the fusion's arguments
  // are ready from the start), and the segments a horizontal kernel has
  // already taken.
  DenseSet<Value> ready(fusion.getArguments().begin(), fusion.getArguments().end());
  DenseSet<unsigned> emitted;
  // The pointwise segments after `first` that can share its launch: every
  // value they read is ready when `first` launches, and they are what the
  // pointwise scheduler takes (HorizontalPointwise.cpp). At most
  // kHorizontalSegments in one kernel, and kHorizontalOps ops: the kernels
  // of a fusion go through LLVM in parallel, one kernel does not (eight
  // segments of 25 transcendental ops took 0.57 s as one kernel, 0.36 s as
  // eight, on 2 cores), so only light segments, whose launch is a large
  // part of their time, share one.
  constexpr size_t kHorizontalSegments = 8, kHorizontalOps = 64;
  auto horizontalCandidates = [&](const Segment &first) {
    SmallVector<const Segment *> c{&first};
    size_t ops = first.ops.size();
    for (const Segment &t : *segments) {
      if (c.size() == kHorizontalSegments)
        break;
      if (t.index <= first.index || emitted.contains(t.index) || t.outputs.empty() ||
          ops + t.ops.size() > kHorizontalOps ||
          t.scheduler != GroupKind::Pointwise || llvm::any_of(t.ops, llvm::IsaPred<IndexAddOp>) ||
          !llvm::all_of(t.inputs, [&](Value v) { return ready.contains(v); }))
        continue;
      SmallVector<Value> outs(t.outputs.begin(), t.outputs.end());
      FailureOr<GroupInfo> info = classifyGroup(t.ops, outs, *shapes);
      if (failed(info) || info->kind != GroupKind::Pointwise)
        continue;
      // Forced 32-bit index math that `t` (under its own schedule) cannot
      // take is `t`'s error at its own turn; here it only keeps `t` out.
      Schedule first = fe.schedule;
      fe.schedule = Schedule::fromAttr(dyn_cast_or_null<ScheduleAttr>(t.schedule));
      bool fits = true;
      if (fe.forcedIndexBits() == 32) {
        ScopedDiagnosticHandler quiet(fusion.getContext(), [](Diagnostic &) { return success(); });
        fits = succeeded(checkFits32Bits(fusion, t, fe.max32BitElements()));
      }
      fe.schedule = first;
      if (!fits)
        continue;
      c.push_back(&t);
      ops += t.ops.size();
    }
    return c;
  };
  for (const Segment &s : *segments) {
    if (s.outputs.empty() || emitted.contains(s.index))
      continue;
    LogicalResult r = failure();
    fe.explained.clear();
    fe.segmentReportsIndexErrors = llvm::any_of(s.ops, isIndexingOp);
    // The segment's schedule is the only one its kernels read.
    fe.schedule = Schedule::fromAttr(dyn_cast_or_null<ScheduleAttr>(s.schedule));
    // (A library call's segment, a matmul's or collective's, does its own
    // indexing: the index width is not its decision.)
    if (fe.forcedIndexBits() == 32 && keyAppliesTo(ScheduleKey::KernelIndexBits, s.scheduler) &&
        failed(checkFits32Bits(fusion, s, fe.max32BitElements())))
      return failure();
    // The scheduler fuser-segment named must be one that takes the ops: a
    // segmented fusion written by hand (fuser-opt) may name another, and
    // emitting a reduction's ops as pointwise ones, or the reverse, would
    // crash. (Matmul, collective and scan segments check their own ops.)
    FailureOr<GroupInfo> info = failure();
    if (s.scheduler == GroupKind::Pointwise || isRowOrColumn(s.scheduler)) {
      SmallVector<Value> outs(s.outputs.begin(), s.outputs.end());
      std::string why;
      info = classifyGroup(s.ops, outs, *shapes, &why);
      if (failed(info))
        return s.ops.front()->emitOpError("segment ")
               << s.index << " cannot be a " << groupKindName(s.scheduler) << " kernel: " << why;
      if (isRowOrColumn(s.scheduler) != isRowOrColumn(info->kind) ||
          (s.scheduler == GroupKind::Pointwise && info->kind != GroupKind::Pointwise))
        return s.ops.front()->emitOpError("segment ")
               << s.index << " is a " << groupKindName(info->kind) << " group, but "
               << kSchedulersAttr << " names the " << groupKindName(s.scheduler)
               << " scheduler for it";
    }
    SmallVector<const Segment *> together;
    switch (s.scheduler) {
    case GroupKind::Pointwise:
      if (!llvm::any_of(s.ops, llvm::IsaPred<IndexAddOp>)) {
        SmallVector<const Segment *> candidates = horizontalCandidates(s);
        if (candidates.size() > 1)
          together = PointwiseScheduler::emitHorizontal(fe, candidates);
      }
      r = together.empty() ? emitPointwiseSegment(fe, s) : success();
      break;
    case GroupKind::Matmul:
      r = emitMatmulSegment(fe, s);
      break;
    case GroupKind::Collective:
      r = emitCollectiveSegment(fe, s);
      break;
    case GroupKind::Scan: {
      auto scan = llvm::find_if(s.ops, isScanOp);
      if (scan == s.ops.end())
        return s.ops.front()->emitOpError("segment ") << s.index << " is a scan without a scan op";
      r = emitScanSegment(fe, s, *scan);
      break;
    }
    case GroupKind::Reduction:
    case GroupKind::Normalization:
    case GroupKind::InnerOuter:
      r = emitReductionSegment(fe, s, *info);
      break;
    }
    if (failed(r))
      return failure();
    if (together.empty())
      together.push_back(&s);
    std::string which;
    for (const Segment *t : together) {
      emitted.insert(t->index);
      ready.insert(t->outputs.begin(), t->outputs.end());
      which += (which.empty() ? "" : ", ") + std::to_string(t->index);
    }
    if (explain && !fe.explained.empty())
      emitRemark(fusion.getLoc())
          << "kernels of @" << fusion.getSymName()
          << (together.size() > 1 ? " segments " : " segment ") << which << " ("
          << groupKindName(s.scheduler) << " scheduler"
          << (together.size() > 1 ? ", one horizontal kernel" : "") << "):" << fe.explained;
  }
  // After every launch: an index out of range fails the call.
  if (!fe.indexSites().empty())
    IndexCheckOp::create(fe.planBuilder, fe.loc, fe.indexErrorWord(),
                         llvm::join(fe.indexSites(), "\n"));

  // The plan takes the fusion's place (and name).
  std::string name = fusion.getSymName().str();
  fusion.erase();
  plan.setSymName(name);
  return success();
}

namespace {
struct EmitKernelsPass : fuser::impl::EmitKernelsPassBase<EmitKernelsPass> {
  using EmitKernelsPassBase::EmitKernelsPassBase;

  void runOnOperation() override {
    ModuleOp m = getOperation();
    const TargetInfo *target = lookupChip(chip);
    if (!target) {
      m.emitError("unknown chip '") << chip << "'; expected " << knownChipNames();
      return signalPassFailure();
    }
    if (!plantBug.empty() && plantBug != "missing-barrier" && plantBug != "wrong-tail" &&
        plantBug != "wrong-index" && plantBug != "inner-outer-drop-partial" &&
        plantBug != "inner-outer-row-map" && plantBug != "last-block-no-fence" &&
        plantBug != "concat-piece-position" && plantBug != "silent-failure" &&
        plantBug != "invalid-ir") {
      m.emitError("plant-bug must be missing-barrier, wrong-tail, wrong-index, "
                  "inner-outer-drop-partial, inner-outer-row-map, last-block-no-fence, "
                  "concat-piece-position, silent-failure or invalid-ir, got '")
          << plantBug << "'";
      return signalPassFailure();
    }
    // A pass that fails without a diagnostic: the driver must still say
    // which stage failed (test/tools/fuserc/silent-failure.test).
    if (plantBug == "silent-failure")
      return signalPassFailure();
    MathAccuracy accuracy;
    if (!parseMathAccuracy(math, accuracy)) {
      m.emitError("math must be fast or precise, got '") << math << "'";
      return signalPassFailure();
    }
    if (indexBits != 0 && indexBits != 32 && indexBits != 64) {
      m.emitError("index-bits must be 0, 32 or 64, got ") << (unsigned)indexBits;
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> fusions;
    for (auto f : m.getOps<func::FuncOp>())
      if (!f.isExternal() && !f->hasAttr(kPlanAttr))
        fusions.push_back(f);
    if (fusions.empty())
      return;
    m->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), UnitAttr::get(&getContext()));
    OpBuilder b(m.getBodyRegion());
    for (func::FuncOp f : fusions) {
      b.setInsertionPoint(f);
      auto module = gpu::GPUModuleOp::create(b, f.getLoc(),
                                             (f.getSymName() + "_kernels").str());
      if (failed(emitFusion(f, module, *target, indexBits, plantBug, accuracy, assumeAligned,
                            allowTf32, explain)))
        return signalPassFailure();
    }
    // A pass that succeeds but leaves IR that does not verify: the driver,
    // which verifies once a stage in release builds, must still name the
    // stage (test/tools/fuserc/invalid-ir.test). The container attribute
    // belongs on a module only, which no pass of the stage looks at.
    if (plantBug == "invalid-ir")
      for (auto plan : m.getOps<func::FuncOp>())
        if (plan->hasAttr(kPlanAttr))
          plan->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), UnitAttr::get(&getContext()));
  }
};
} // namespace
