//===- KernelBuilder.cpp - shared machinery of the schedulers -------------===//

#include "KernelBuilder.h"

#include "fuser/Analysis/GroupAnalysis.h"
#include "fuser/Dialect/Fuser/IR/FuserAttrNames.h"

#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Transforms/Segments.h"

#include "fuser_bundle_format.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::fuser;

//===----------------------------------------------------------------------===//
// ExprExpander
//===----------------------------------------------------------------------===//

void ExprExpander::setHoistPoint() {
  if (lastHoisted) {
    b.setInsertionPointAfter(lastHoisted);
    return;
  }
  Operation *fn = b.getInsertionBlock()->getParentOp();
  while (!isa<FunctionOpInterface>(fn))
    fn = fn->getParentOp();
  b.setInsertionPointToStart(&fn->getRegion(0).front());
}

Value ExprExpander::constant(int64_t v) {
  return expand(getAffineConstantExpr(v, b.getContext()));
}

Value ExprExpander::expand(AffineExpr e) {
  for (auto &scope : llvm::reverse(scopes))
    if (Value hit = scope.lookup(e))
      return hit;
  // Constants (and, when asked, every dim-free expression) are built once at
  // the function entry, where they dominate every later use.
  bool hoist = isa<AffineConstantExpr>(e) || (hoistSymbolic && e.isSymbolicOrConstant());
  if (!hoist) {
    Value v = build(e);
    scopes.back()[e] = v;
    return v;
  }
  Value v;
  {
    OpBuilder::InsertionGuard g(b);
    setHoistPoint();
    v = build(e);
    if (Operation *def = v.getDefiningOp())
      lastHoisted = def;
  }
  scopes.front()[e] = v;
  return v;
}

Value ExprExpander::build(AffineExpr e) {
  if (auto c = dyn_cast<AffineConstantExpr>(e)) {
    if (isa<IndexType>(type))
      return arith::ConstantIndexOp::create(b, loc, c.getValue());
    return arith::ConstantIntOp::create(b, loc, type, c.getValue());
  }
  if (auto d = dyn_cast<AffineDimExpr>(e))
    return dim(d.getPosition());
  if (auto s = dyn_cast<AffineSymbolExpr>(e))
    return symbol(s.getPosition());
  auto bin = cast<AffineBinaryOpExpr>(e);
  Value l = expand(bin.getLHS()), r = expand(bin.getRHS());
  // Sizes and offsets never overflow (the index width is chosen so; see
  // FusionEmitter::max32BitElements): `nsw` lets LLVM split a sign-extended
  // offset into a register plus a constant, so that the units of a thread
  // share one address register.
  auto nsw = arith::IntegerOverflowFlags::nsw;
  switch (e.getKind()) {
  case AffineExprKind::Add:
    return arith::AddIOp::create(b, loc, l, r, nsw);
  case AffineExprKind::Mul:
    return arith::MulIOp::create(b, loc, l, r, nsw);
  default:
    break;
  }
  // Divisions (by a positive divisor). A dividend that is never negative
  // (sizes and offsets are not) divides unsigned, which is exact and the
  // cheapest. But MLIR's simplification may leave a term that is negative
  // for some indices inside a division whose whole is not (it pulls
  // constants out: (x + 4) floordiv 4 -> x floordiv 4 + 1, with x < 0
  // possible, in a chain of permutes and reshapes): such a dividend
  // divides with the floor's sign rules (unsigned, -3 floordiv 4 read
  // 2^30 + 2 elements past the buffer).
  if (knownNonNegative(bin.getLHS())) {
    switch (e.getKind()) {
    case AffineExprKind::FloorDiv:
      return arith::DivUIOp::create(b, loc, l, r);
    case AffineExprKind::CeilDiv:
      return arith::CeilDivUIOp::create(b, loc, l, r);
    case AffineExprKind::Mod:
      return arith::RemUIOp::create(b, loc, l, r);
    default:
      llvm_unreachable("unexpected affine expression kind");
    }
  }
  // Truncating quotient and remainder, then the floor's (or ceiling's)
  // correction where the remainder is not 0.
  Value q = arith::DivSIOp::create(b, loc, l, r);
  Value rem = arith::RemSIOp::create(b, loc, l, r);
  Value zero = constant(0);
  Value one = constant(1);
  switch (e.getKind()) {
  case AffineExprKind::FloorDiv: {
    Value below = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, rem, zero);
    return arith::SubIOp::create(b, loc, q, arith::SelectOp::create(b, loc, below, one, zero));
  }
  case AffineExprKind::CeilDiv: {
    Value above = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, rem, zero);
    return arith::AddIOp::create(b, loc, q, arith::SelectOp::create(b, loc, above, one, zero));
  }
  case AffineExprKind::Mod: {
    Value below = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, rem, zero);
    return arith::AddIOp::create(b, loc, rem, arith::SelectOp::create(b, loc, below, r, zero));
  }
  default:
    llvm_unreachable("unexpected affine expression kind");
  }
}

bool ExprExpander::knownNonNegative(AffineExpr e) {
  if (auto c = dyn_cast<AffineConstantExpr>(e))
    return c.getValue() >= 0;
  if (isa<AffineDimExpr, AffineSymbolExpr>(e))
    return true;
  auto it = nonNegative.find(e);
  if (it != nonNegative.end())
    return it->second;
  auto bin = cast<AffineBinaryOpExpr>(e);
  bool result;
  switch (e.getKind()) {
  case AffineExprKind::Add:
  case AffineExprKind::Mul:
    result = knownNonNegative(bin.getLHS()) && knownNonNegative(bin.getRHS());
    break;
  case AffineExprKind::Mod:
    result = true; // by a positive divisor, built with the floor's sign rules
    break;
  default:
    result = knownNonNegative(bin.getLHS());
    break;
  }
  nonNegative[e] = result;
  return result;
}

//===----------------------------------------------------------------------===//
// FusionEmitter
//===----------------------------------------------------------------------===//

FusionEmitter::FusionEmitter(func::FuncOp fusion, const ShapeAnalysis &shapes,
                             TargetInfo target, unsigned indexBits,
                             gpu::GPUModuleOp module, func::FuncOp plan)
    : fusion(fusion), shapes(shapes), target(target), indexBits(indexBits),
      module(module), plan(plan), planBuilder(plan.getContext()),
      loc(fusion.getLoc()) {
  planBuilder.setInsertionPointToStart(&plan.getBody().front());
  DenseMap<unsigned, memref::ExtractStridedMetadataOp> metadata;
  for (const ShapeAnalysis::Symbol &s : shapes.symbols()) {
    Value arg = plan.getArgument(s.arg);
    if (!s.stride) {
      symbolValues.push_back(memref::DimOp::create(planBuilder, loc, arg, s.dim));
      continue;
    }
    auto &m = metadata[s.arg];
    if (!m)
      m = memref::ExtractStridedMetadataOp::create(planBuilder, loc, arg);
    symbolValues.push_back(m.getStrides()[s.dim]);
  }
  planExpander = std::make_unique<ExprExpander>(
      planBuilder, loc, planBuilder.getIndexType(),
      [](unsigned) -> Value { llvm_unreachable("plan expressions have no dims"); },
      [this](unsigned k) { return symbolValues[k]; });
}

Value FusionEmitter::planExpr(AffineExpr e) { return planExpander->expand(e); }
Value FusionEmitter::planConstant(int64_t v) { return planExpander->constant(v); }

/// The buffer `buffer` views (a view is the same bytes), or itself.
static Value viewedBuffer(Value buffer) {
  while (auto view = buffer.getDefiningOp<BufferViewOp>())
    buffer = view.getSource();
  return buffer;
}

bool FusionEmitter::alignmentPromised(Value buffer) {
  if (!assumeAligned || !buffer)
    return false;
  buffer = viewedBuffer(buffer);
  if (buffer.getDefiningOp<memref::AllocOp>())
    return true;
  auto arg = dyn_cast<BlockArgument>(buffer);
  return arg && arg.getOwner()->getParentOp() == plan.getOperation();
}

Value FusionEmitter::planAligned(Value buffer, int64_t bytes) {
  // The promise covers the caller's buffers: an argument or result of the
  // plan, or a view of one. A buffer the plan allocates is 256-byte aligned
  // (docs/bundle.md, ALLOC). Anything else is asked at launch, as without
  // the promise.
  if (!alignmentPromised(buffer))
    return IsAlignedOp::create(planBuilder, loc, buffer, bytes);
  Value root = viewedBuffer(buffer);
  Value yes = arith::ConstantIntOp::create(planBuilder, loc, 1, 1);
  if (root.getDefiningOp<memref::AllocOp>())
    return yes;
  auto arg = cast<BlockArgument>(root);
  // Every vector access needs at most 16 bytes: one check of 16 per buffer
  // covers them all, and is what the option promises.
  if (!alignmentChecked.insert(root).second)
    return yes;
  std::string what = "buffer " + std::to_string(arg.getArgNumber());
  if (auto name = plan.getArgAttrOfType<StringAttr>(arg.getArgNumber(), kNameAttr))
    what = "'" + name.getValue().str() + "'";
  // At the plan's start, after the alignment checks before it (in the order
  // the schedulers first need each buffer): a call fails before any kernel
  // runs.
  OpBuilder atStart(&plan.front(), plan.front().begin());
  if (lastAlignmentCheck)
    atStart.setInsertionPointAfter(lastAlignmentCheck);
  Value ok = IsAlignedOp::create(atStart, loc, root, 16);
  lastAlignmentCheck = CheckOp::create(atStart, loc, ok,
                  what + " does not start at a 16-byte aligned address, and this fusion was "
                         "compiled for aligned buffers only (assume-aligned): pass an aligned "
                         "buffer, or compile without assume-aligned",
                  ValueRange{});
  return yes;
}

Value FusionEmitter::indexErrorWord() {
  if (!errorWord) {
    auto t = MemRefType::get({kIndexErrorWordSize}, planBuilder.getI64Type());
    errorWord = memref::AllocOp::create(planBuilder, loc, t);
    ZeroedOp::create(planBuilder, loc, errorWord);
  }
  return errorWord;
}

unsigned FusionEmitter::indexSite(Operation *op) {
  auto [it, inserted] = siteOf.try_emplace(op, sites.size());
  if (inserted) {
    std::string line;
    llvm::raw_string_ostream os(line);
    os << op->getName() << " dim " << cast<IntegerAttr>(op->getAttr("dim")).getInt()
       << " at " << op->getLoc();
    // One line per site.
    std::replace(line.begin(), line.end(), '\n', ' ');
    std::replace(line.begin(), line.end(), '\t', ' ');
    // A scatter reports the index's element, and what it did not do, after
    // a tab (docs/bundle.md, INDEX_CHECK).
    if (isScatterOp(op))
      line += "\tof its index (row-major); nothing was added for it";
    sites.push_back(line);
  }
  return it->second;
}

std::string FusionEmitter::newKernelName() {
  return (fusion.getSymName() + "_" + Twine(kernelCount++)).str();
}

/// 32-bit index math holds while every offset and every grid-stride loop
/// value stays below 2^31: a loop's start and its next value each add up to
/// the grid's threads to an element index (the pointwise tail loop starts
/// at `units x lanes + thread`), so the margin is twice the most threads a
/// launch can have, at least 2^24 (the default schedules' grids: 8 waves of
/// 132 SMs x 2048 threads take 4.3M).
static constexpr int64_t kMax32BitElements = (int64_t(1) << 31) - (int64_t(1) << 24);

int64_t FusionEmitter::max32BitElements() const {
  // The grids are capped at `waves` full waves (the largest of the waves
  // keys, defaults included; pointwise.waves = 0 lets the grid grow with
  // the size: a thread per vector unit, so at most as many threads as
  // elements plus a block).
  int64_t waves = 0;
  for (ScheduleKey key : {ScheduleKey::PointwiseWaves, ScheduleKey::TransposeWaves,
                          ScheduleKey::ReductionWaves, ScheduleKey::ScanWaves}) {
    int64_t v = schedule.valueOr(key);
    if (v == 0)
      return (kMax32BitElements - 2048) / 3;
    waves = std::max(waves, v);
  }
  int64_t threads = waves * target.smCount * target.maxThreadsPerSM;
  return std::min(kMax32BitElements, (int64_t(1) << 31) - 2 * threads);
}

unsigned FusionEmitter::forcedIndexBits() const {
  return schedule.get(ScheduleKey::KernelIndexBits).value_or(indexBits);
}

SmallVector<unsigned> FusionEmitter::indexWidths(AffineExpr maxElements) {
  std::optional<int64_t> known = ShapeAnalysis::constantValue(maxElements);
  unsigned forced = forcedIndexBits();
  int64_t max32 = max32BitElements();
  if (forced == 32 && !(known && *known < max32)) {
    // Forced 32 bits where the sizes may not fit: the plan checks them, as
    // it picks the 64-bit variant when it has one. (A static type too large
    // fails the compile first: emitFusion.)
    Value n = planExpr(maxElements);
    CheckOp::create(planBuilder, loc, planFitsIn32Bits(maxElements),
                    "a kernel compiled for 32-bit index math (index-bits 32 or "
                    "kernel.index_bits = 32) may address {} "
                    "elements (a bound: its tensors' sizes, summed where known only at "
                    "launch); 32-bit index math holds below {}: compile with index-bits 0 or 64",
                    ValueRange{n, planConstant(max32)});
  }
  if (forced)
    return {forced};
  if (known)
    return {*known < max32 ? 32u : 64u};
  return {32, 64};
}

Value FusionEmitter::planFitsIn32Bits(AffineExpr maxElements) {
  return arith::CmpIOp::create(planBuilder, loc, arith::CmpIPredicate::slt,
                               planExpr(maxElements),
                               planConstant(max32BitElements()));
}

//===----------------------------------------------------------------------===//
// KernelBuilder
//===----------------------------------------------------------------------===//

KernelBuilder::KernelBuilder(FusionEmitter &fe, StringRef name,
                             unsigned indexBits, ArrayRef<Value> ins,
                             ArrayRef<Value> outs, ArrayRef<unsigned> syms,
                             unsigned numFlags, ArrayRef<int64_t> blockSize,
                             ArrayRef<Value> extraBuffers)
    : fe(fe), b(fe.module.getContext()), loc(fe.loc),
      idxTy(b.getIntegerType(indexBits)), inputs(ins), outputs(outs),
      extras(extraBuffers), symbols(syms), numFlags(numFlags) {
  MLIRContext *ctx = b.getContext();
  if (fe.segmentReportsIndexErrors) {
    extras.push_back(fe.indexErrorWord());
    reportsIndexErrors = true;
  }
  auto ptrTy = LLVM::LLVMPointerType::get(ctx);
  SmallVector<Type> types;
  types.append(inputs.size() + outputs.size() + extras.size(), ptrTy);
  types.append(symbols.size(), idxTy);
  types.append(numFlags, b.getI32Type());
  b.setInsertionPointToEnd(fe.module.getBody());
  func = gpu::GPUFuncOp::create(b, loc, name, b.getFunctionType(types, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  if (!blockSize.empty()) {
    SmallVector<int32_t> block(blockSize.begin(), blockSize.end());
    block.resize(3, 1);
    func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr(block));
  }
  // Inputs are never written and no buffer overlaps another (the runtime
  // documents that outputs must not alias inputs): noalias + readonly is what
  // makes NVPTX use the read-only `ld.global.nc` path.
  for (unsigned i = 0; i < inputs.size() + outputs.size() + extras.size(); ++i) {
    func.setArgAttr(i, "llvm.noalias", b.getUnitAttr());
    if (i < inputs.size())
      func.setArgAttr(i, "llvm.readonly", b.getUnitAttr());
  }
  b.setInsertionPointToStart(&func.getBody().front());
  expander = std::make_unique<ExprExpander>(
      b, loc, idxTy, [](unsigned) -> Value { return {}; },
      [this](unsigned k) { return symbol(k); });
}

void KernelBuilder::setMaxThreadsPerBlock(int64_t threads) {
  // The block's registers, allocated per thread in multiples of 8.
  int64_t regs = fe.target.registersPerBlock / threads / 8 * 8;
  if (regs < 255)
    func->setAttr("nvvm.maxnreg", b.getI32IntegerAttr(regs));
}

void KernelBuilder::capRegisters(int64_t regs) {
  if (auto cap = func->getAttrOfType<IntegerAttr>("nvvm.maxnreg"))
    regs = std::min<int64_t>(regs, cap.getInt());
  func->setAttr("nvvm.maxnreg", b.getI32IntegerAttr(regs));
}

Value KernelBuilder::pointer(Value tensor) {
  for (auto [i, v] : llvm::enumerate(inputs))
    if (v == tensor)
      return func.getArgument(i);
  for (auto [i, v] : llvm::enumerate(outputs))
    if (v == tensor)
      return func.getArgument(inputs.size() + i);
  llvm_unreachable("tensor is not a parameter of this kernel");
}

Value KernelBuilder::extraPointer(unsigned i) {
  return func.getArgument(inputs.size() + outputs.size() + i);
}

Value KernelBuilder::indexErrorWordPointer() {
  assert(reportsIndexErrors && "the kernel takes no index error word");
  return extraPointer(extras.size() - 1);
}

void KernelBuilder::recordIndexError(unsigned site, Value element, Value value, Value bound) {
  // One thread wins the exchange and writes the rest: the word then holds
  // one consistent report, read by the plan after the call's kernels end.
  Type i64 = b.getI64Type();
  auto toI64 = [&](Value v) -> Value {
    if (v.getType() == i64)
      return v;
    return arith::ExtSIOp::create(b, loc, i64, v);
  };
  auto toU64 = [&](Value v) -> Value {
    if (v.getType() == i64)
      return v;
    return arith::ExtUIOp::create(b, loc, i64, v);
  };
  Value word = indexErrorWordPointer();
  auto ptrTy = LLVM::LLVMPointerType::get(b.getContext());
  auto c64 = [&](int64_t v) { return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v)); };
  Value flag = LLVM::GEPOp::create(b, loc, ptrTy, i64, word,
                                   ValueRange{Value(c64(FUSER_INDEX_WORD_FLAG))},
                                   LLVM::GEPNoWrapFlags::inbounds);
  auto xchg = LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::xchg, flag, c64(1),
                                        LLVM::AtomicOrdering::monotonic, "device");
  xchg->setAttr(kIndexErrorAttr, b.getUnitAttr());
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, xchg, c64(0));
  auto ifOp = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  auto put = [&](int64_t at, Value v) {
    Value addr = LLVM::GEPOp::create(b, loc, ptrTy, i64, word, ValueRange{Value(c64(at))},
                                     LLVM::GEPNoWrapFlags::inbounds);
    LLVM::StoreOp::create(b, loc, v, addr, 8);
  };
  put(FUSER_INDEX_WORD_SITE, c64(site));
  put(FUSER_INDEX_WORD_ELEMENT, toU64(element));
  put(FUSER_INDEX_WORD_VALUE, toI64(value));
  put(FUSER_INDEX_WORD_BOUND, toU64(bound));
}

Value KernelBuilder::symbol(unsigned k) {
  auto it = llvm::find(symbols, k);
  // segmentSymbols missed a size the kernel indexes with: stop rather than
  // read another parameter in its place.
  if (it == symbols.end())
    llvm::report_fatal_error("fuser: internal error: kernel '" + func.getName() +
                             "' indexes with dynamic dim " + Twine(k) +
                             ", which is not among its parameters");
  return func.getArgument(inputs.size() + outputs.size() + extras.size() +
                          (it - symbols.begin()));
}

Value KernelBuilder::flag(unsigned i) {
  return func.getArgument(inputs.size() + outputs.size() + extras.size() +
                          symbols.size() + i);
}

Value KernelBuilder::threadId(gpu::Dimension d) {
  return arith::IndexCastUIOp::create(b, loc, idxTy, gpu::ThreadIdOp::create(b, loc, d));
}
Value KernelBuilder::blockId(gpu::Dimension d) {
  return arith::IndexCastUIOp::create(b, loc, idxTy, gpu::BlockIdOp::create(b, loc, d));
}
Value KernelBuilder::gridDim(gpu::Dimension d) {
  return arith::IndexCastUIOp::create(b, loc, idxTy, gpu::GridDimOp::create(b, loc, d));
}

Type KernelBuilder::memoryType(Type t) {
  return t.isInteger(1) || isFloat8(t) ? IntegerType::get(t.getContext(), 8) : t;
}

Value KernelBuilder::toMemory(Value v) {
  auto vt = dyn_cast<VectorType>(v.getType());
  Type elem = vt ? vt.getElementType() : v.getType();
  Type mem = memoryType(elem);
  if (mem == elem)
    return v;
  Type memTy = vt ? Type(vt.clone(mem)) : mem;
  if (elem.isInteger(1))
    return arith::ExtUIOp::create(b, loc, memTy, v);
  return arith::BitcastOp::create(b, loc, memTy, v);
}

Value KernelBuilder::fromMemory(Value v, Type elementType) {
  if (memoryType(elementType) == elementType)
    return v;
  auto vt = dyn_cast<VectorType>(v.getType());
  Type regTy = vt ? Type(vt.clone(elementType)) : elementType;
  if (elementType.isInteger(1)) {
    Value zero = arith::ConstantOp::create(b, loc, v.getType(), b.getZeroAttr(v.getType()));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
  }
  return arith::BitcastOp::create(b, loc, regTy, v);
}

Value KernelBuilder::load(Value ptr, Type elementType, Value offset,
                          unsigned lanes, bool crossBlock) {
  Type mem = memoryType(elementType);
  unsigned size = mem.getIntOrFloatBitWidth() / 8;
  auto ptrTy = LLVM::LLVMPointerType::get(b.getContext());
  Value addr = LLVM::GEPOp::create(b, loc, ptrTy, mem, ptr, ValueRange{offset},
                                   LLVM::GEPNoWrapFlags::inbounds);
  Type loadTy = lanes > 1 ? Type(VectorType::get({lanes}, mem)) : mem;
  auto ld = LLVM::LoadOp::create(b, loc, loadTy, addr, std::min(16u, size * lanes));
  if (crossBlock)
    ld->setAttr(kCrossBlockAttr, b.getUnitAttr());
  return fromMemory(ld, elementType);
}

void KernelBuilder::store(Value ptr, Value value, Value offset, bool crossBlock) {
  value = toMemory(value);
  auto vt = dyn_cast<VectorType>(value.getType());
  Type elem = vt ? vt.getElementType() : value.getType();
  unsigned lanes = vt ? vt.getNumElements() : 1;
  unsigned size = elem.getIntOrFloatBitWidth() / 8;
  auto ptrTy = LLVM::LLVMPointerType::get(b.getContext());
  Value addr = LLVM::GEPOp::create(b, loc, ptrTy, elem, ptr, ValueRange{offset},
                                   LLVM::GEPNoWrapFlags::inbounds);
  auto st = LLVM::StoreOp::create(b, loc, value, addr, std::min(16u, size * lanes));
  if (crossBlock)
    st->setAttr(kCrossBlockAttr, b.getUnitAttr());
}

void KernelBuilder::fence() {
  LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::acq_rel, "device");
}

Value KernelBuilder::atomicAdd(Value ptr, Value offset, Value value) {
  auto ptrTy = LLVM::LLVMPointerType::get(b.getContext());
  Value addr = LLVM::GEPOp::create(b, loc, ptrTy, b.getI32Type(), ptr, ValueRange{offset},
                                   LLVM::GEPNoWrapFlags::inbounds);
  return LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::add, addr, value,
                                   LLVM::AtomicOrdering::monotonic, "device");
}

void KernelBuilder::launch(ArrayRef<Value> grid, ArrayRef<int64_t> block,
                           Value sharedBytes, Value condition,
                           ArrayRef<Value> flags) {
  SmallVector<Value> b;
  for (int64_t v : block)
    b.push_back(fe.planConstant(v));
  launch(grid, b, sharedBytes, condition, flags);
}

void KernelBuilder::launch(ArrayRef<Value> grid, ArrayRef<Value> block,
                           Value sharedBytes, Value condition,
                           ArrayRef<Value> flags) {
  OpBuilder &pb = fe.planBuilder;
  SmallVector<Value> operands;
  for (Value v : inputs)
    operands.push_back(fe.buffers.lookup(v));
  for (Value v : outputs)
    operands.push_back(fe.buffers.lookup(v));
  operands.append(extras.begin(), extras.end());
  SmallVector<int32_t> widths;
  for (unsigned k : symbols) {
    operands.push_back(fe.symbolValues[k]);
    widths.push_back(idxTy.getIntOrFloatBitWidth());
  }
  operands.append(flags.begin(), flags.end());
  widths.append(flags.size(), 32);
  auto ref = SymbolRefAttr::get(fe.module.getNameAttr(),
                                {FlatSymbolRefAttr::get(func.getNameAttr())});
  auto c = [&](int64_t v) { return fe.planConstant(v); };
  SmallVector<Value> g(grid.begin(), grid.end());
  while (g.size() < 3)
    g.push_back(c(1));
  SmallVector<Value> bl(block.begin(), block.end());
  while (bl.size() < 3)
    bl.push_back(c(1));
  if (!sharedBytes && func->hasAttr(kDynamicSharedAttr)) {
    int64_t bytes = 0;
    for (BlockArgument a : func.getWorkgroupAttributions()) {
      auto t = cast<MemRefType>(a.getType());
      bytes += alignSharedBytes(t.getNumElements() * ((t.getElementTypeBitWidth() + 7) / 8));
    }
    sharedBytes = c(bytes);
  }
  LaunchOp::create(pb, fe.loc, ref, g[0], g[1], g[2], bl[0], bl[1], bl[2],
                   sharedBytes ? sharedBytes : c(0), condition, operands,
                   pb.getDenseI32ArrayAttr(widths));
  if (fe.explain) {
    llvm::raw_string_ostream os(fe.explained);
    os << "\n  " << func.getName() << ": " << idxTy.getIntOrFloatBitWidth()
       << "-bit index, block ";
    for (auto [i, v] : llvm::enumerate(bl)) {
      if (i)
        os << " x ";
      if (std::optional<int64_t> n = getConstantIntValue(v))
        os << *n;
      else
        os << "(at launch)";
    }
    if (!fe.kernelNote.empty())
      os << "; " << fe.kernelNote;
  }
  fe.kernelNote.clear();
}

SmallVector<Value> mlir::fuser::orderedInputs(const Segment &segment) {
  SmallVector<Value> args, others;
  for (Value v : segment.inputs)
    (isa<BlockArgument>(v) ? args : others).push_back(v);
  llvm::sort(args, [](Value a, Value b) {
    return cast<BlockArgument>(a).getArgNumber() < cast<BlockArgument>(b).getArgNumber();
  });
  args.append(others.begin(), others.end());
  return args;
}

SmallVector<unsigned> mlir::fuser::segmentSymbols(const ShapeAnalysis &shapes,
                                                  const Segment &segment) {
  llvm::SmallBitVector used(shapes.symbols().size());
  auto noteAll = [&](ArrayRef<AffineExpr> exprs) {
    for (AffineExpr e : exprs)
      e.walk([&](AffineExpr x) {
        if (auto s = dyn_cast<AffineSymbolExpr>(x))
          used.set(s.getPosition());
      });
  };
  auto note = [&](Value v) {
    if (isa<RankedTensorType>(v.getType()))
      noteAll(shapes.shape(v));
  };
  for (Value v : segment.inputs) {
    note(v);
    // A view's dynamic strides index its reads.
    noteAll(shapes.strides(v));
  }
  for (Value v : segment.outputs)
    note(v);
  for (Operation *op : segment.ops) {
    for (Value v : op->getOperands())
      note(v);
    for (Value v : op->getResults())
      note(v);
  }
  SmallVector<unsigned> symbols;
  for (unsigned k : used.set_bits())
    symbols.push_back(k);
  return symbols;
}
