//===- BundleWriter.cpp - plans and PTX to a kernel bundle ----------------===//
//
// Each plan function becomes the straight-line register program of
// docs/bundle.md: every index or i1 SSA value gets a register, arith ops map
// to instructions one to one (casts between index, i1 and integers share the
// register), memref.dim of a dynamic dim reads the caller's dims, allocs and
// launches become ALLOC and LAUNCH. Layout is computed first, then written,
// so the same module always gives the same bytes.
//
//===----------------------------------------------------------------------===//

#include "fuser/Target/Bundle.h"

// The format's one definition, shared with the runtime that reads it.
#include "fuser_bundle_format.h"
#include "fuser_runtime.h"

#include "fuser/Dialect/Fuser/IR/FuserAttrNames.h"
#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Target/PtxCodegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cstring>

using namespace mlir;
using namespace mlir::fuser;

namespace {

struct Instr {
  uint16_t opcode;
  uint32_t dst = FUSER_BUNDLE_NONE, a = FUSER_BUNDLE_NONE, b = FUSER_BUNDLE_NONE;
  int64_t imm = 0;
};
struct Param {
  uint8_t kind;
  uint32_t index;
};
struct Launch {
  uint32_t kernel; // string
  SmallVector<Param> params;
  uint32_t grid[3], block[3], smem;
};
struct Tensor {
  uint32_t name;
  uint8_t dtype;
  SmallVector<int64_t> dims;
  /// An argument that is a view: its strides, -1 where passed at launch;
  /// empty when dense.
  SmallVector<int64_t> strides;
};
/// A GEMM record (fuser_bundle_format.h): buffers, registers, dtypes.
struct Gemm {
  uint32_t a, b, d, bias = FUSER_BUNDLE_NONE;
  uint32_t aux = 0; // the pre-activation's buffer with EPILOGUE_AUX, else 0
  uint32_t regs[10]; // m n k batch lda ldb ldd strideA strideB strideD
  uint8_t abDtype, dDtype, flags = 0, epilogue = FUSER_BUNDLE_GEMM_EPILOGUE_NONE;
};
/// A COLLECTIVE record (fuser_bundle_format.h).
struct Collective {
  uint8_t kind, reduction = 0, dtype, group = 0;
  uint32_t src, dst, count;
};
struct Fusion {
  uint32_t name;
  uint32_t numArgs, numResults, numDynamicDims = 0, numRegs = 0;
  uint32_t numIntermediates = 0;
  std::vector<Tensor> tensors;
  SmallVector<Instr> instrs;
  std::vector<Launch> launches;
  /// GEMM instructions' imm is an index into this until the layout
  /// replaces it with the record's file offset.
  std::vector<Gemm> gemms;
  /// The same for COLLECTIVE instructions.
  std::vector<Collective> collectives;
  /// A sharded fusion's grid (its GRID record), empty otherwise, and the
  /// split mask of every dim of every tensor, in signature order.
  SmallVector<int64_t> grid;
  SmallVector<uint8_t> splits;
  uint32_t ptxModule, emulationModule = FUSER_BUNDLE_NONE;
};
struct Module {
  uint32_t name, kind;
  std::string data; // without the terminating NUL
  uint32_t sm = 0, ptx = 0;
};

/// The string table: each distinct string once, in first-use order.
class Strings {
public:
  uint32_t get(StringRef s) {
    auto it = offsets.find(s);
    if (it != offsets.end())
      return it->second;
    uint32_t off = data.size();
    offsets[s] = off;
    data.append(s.begin(), s.end());
    data.push_back('\0');
    return off;
  }
  const std::string &bytes() const { return data; }

private:
  llvm::StringMap<uint32_t> offsets;
  std::string data;
};

FailureOr<uint8_t> dtypeOf(Type t, Location loc) {
  if (t.isInteger(1)) return FUSER_BUNDLE_DTYPE_I1;
  if (t.isInteger(8)) return FUSER_BUNDLE_DTYPE_I8;
  if (t.isInteger(32)) return FUSER_BUNDLE_DTYPE_I32;
  if (t.isInteger(64)) return FUSER_BUNDLE_DTYPE_I64;
  if (t.isF16()) return FUSER_BUNDLE_DTYPE_F16;
  if (t.isBF16()) return FUSER_BUNDLE_DTYPE_BF16;
  if (t.isF32()) return FUSER_BUNDLE_DTYPE_F32;
  if (t.isF64()) return FUSER_BUNDLE_DTYPE_F64;
  if (isa<Float8E4M3FNType>(t)) return FUSER_BUNDLE_DTYPE_F8E4M3FN;
  if (isa<Float8E5M2Type>(t)) return FUSER_BUNDLE_DTYPE_F8E5M2;
  if (isa<Float8E8M0FNUType>(t)) return FUSER_BUNDLE_DTYPE_F8E8M0FNU;
  return emitError(loc, "the bundle has no dtype for ") << t;
}

/// Whether `s` is a name a bundle accepts for a tensor: [A-Za-z_][A-Za-z0-9_]*
/// (the runtime's validator checks the same, runtime/src/bundle.c).
static bool isBundleIdentifier(StringRef s) {
  auto alpha = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  };
  if (s.empty() || !alpha(s[0]))
    return false;
  return llvm::all_of(s, [&](char c) { return alpha(c) || (c >= '0' && c <= '9'); });
}

/// Translates one plan function.
class PlanTranslator {
public:
  PlanTranslator(func::FuncOp plan, Strings &strings) : plan(plan), strings(strings) {}

  FailureOr<Fusion> run();

private:
  uint32_t reg(Value v) {
    auto it = regs.find(v);
    if (it != regs.end())
      return it->second;
    return regs[v] = fusion.numRegs++;
  }
  uint32_t constant(int64_t v) {
    uint32_t r = fusion.numRegs++;
    fusion.instrs.push_back({FUSER_BUNDLE_OP_CONST, r, FUSER_BUNDLE_NONE, FUSER_BUNDLE_NONE, v});
    return r;
  }
  void emit(uint16_t op, Value dst, Value a, Value b) {
    fusion.instrs.push_back({op, reg(dst), reg(a), reg(b), 0});
  }
  LogicalResult translate(Operation *op);

  func::FuncOp plan;
  Strings &strings;
  Fusion fusion;
  DenseMap<Value, uint32_t> regs;
  DenseMap<Value, uint32_t> buffers;
  /// For each memref argument, the caller's dynamic-dim index of each dim.
  DenseMap<Value, SmallVector<int64_t>> dynamicDimIndex;
};

} // namespace

LogicalResult PlanTranslator::translate(Operation *op) {
  Location loc = op->getLoc();
  auto binary = [&](uint16_t code) {
    emit(code, op->getResult(0), op->getOperand(0), op->getOperand(1));
    return success();
  };
  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case<arith::ConstantOp>([&](arith::ConstantOp c) -> LogicalResult {
        auto i = dyn_cast<IntegerAttr>(c.getValue());
        if (!i)
          return c.emitOpError("a plan holds only integer constants");
        int64_t v = i.getType().isInteger(1) ? (int64_t)i.getValue().getZExtValue()
                                             : i.getValue().getSExtValue();
        fusion.instrs.push_back({FUSER_BUNDLE_OP_CONST, reg(c), FUSER_BUNDLE_NONE, FUSER_BUNDLE_NONE, v});
        return success();
      })
      .Case<memref::DimOp>([&](memref::DimOp d) -> LogicalResult {
        std::optional<int64_t> dim = d.getConstantIndex();
        auto it = dynamicDimIndex.find(d.getSource());
        if (!dim || it == dynamicDimIndex.end())
          return d.emitOpError("a plan reads dims of its arguments at constant indices only");
        int64_t k = it->second[*dim];
        if (k < 0) {
          auto t = cast<MemRefType>(d.getSource().getType());
          fusion.instrs.push_back({FUSER_BUNDLE_OP_CONST, reg(d), FUSER_BUNDLE_NONE, FUSER_BUNDLE_NONE, t.getDimSize(*dim)});
        } else {
          fusion.instrs.push_back({FUSER_BUNDLE_OP_DIM, reg(d), (uint32_t)k, FUSER_BUNDLE_NONE, 0});
        }
        return success();
      })
      .Case<memref::ExtractStridedMetadataOp>(
          [&](memref::ExtractStridedMetadataOp m) -> LogicalResult {
            // A view argument's strides: STRIDE reads a dynamic one from the
            // caller, a static one is a constant. Nothing else of it.
            auto arg = dyn_cast<BlockArgument>(m.getSource());
            auto layout = dyn_cast<StridedLayoutAttr>(m.getSource().getType().getLayout());
            if (!arg || arg.getOwner()->getParentOp() != plan.getOperation() ||
                arg.getArgNumber() >= fusion.numArgs || !layout)
              return m.emitOpError("a plan reads the strides of its view arguments only");
            if (!m.getBaseBuffer().use_empty() || !m.getOffset().use_empty() ||
                llvm::any_of(m.getSizes(), [](Value v) { return !v.use_empty(); }))
              return m.emitOpError("a plan reads only the strides of a view argument");
            for (auto [d, v] : llvm::enumerate(m.getStrides())) {
              if (v.use_empty())
                continue;
              int64_t st = layout.getStrides()[d];
              if (ShapedType::isDynamic(st))
                fusion.instrs.push_back({FUSER_BUNDLE_OP_STRIDE, reg(v), arg.getArgNumber(),
                                         (uint32_t)d, 0});
              else
                fusion.instrs.push_back(
                    {FUSER_BUNDLE_OP_CONST, reg(v), FUSER_BUNDLE_NONE, FUSER_BUNDLE_NONE, st});
            }
            return success();
          })
      .Case<arith::AddIOp>([&](auto) { return binary(FUSER_BUNDLE_OP_ADD); })
      .Case<arith::SubIOp>([&](auto) { return binary(FUSER_BUNDLE_OP_SUB); })
      .Case<arith::MulIOp>([&](auto) { return binary(FUSER_BUNDLE_OP_MUL); })
      .Case<arith::DivUIOp, arith::DivSIOp>([&](auto) { return binary(FUSER_BUNDLE_OP_DIV); })
      .Case<arith::CeilDivUIOp, arith::CeilDivSIOp>([&](auto) { return binary(FUSER_BUNDLE_OP_CEILDIV); })
      .Case<arith::RemUIOp, arith::RemSIOp>([&](auto) { return binary(FUSER_BUNDLE_OP_REM); })
      .Case<arith::MinUIOp, arith::MinSIOp>([&](auto) { return binary(FUSER_BUNDLE_OP_MIN); })
      .Case<arith::MaxUIOp, arith::MaxSIOp>([&](auto) { return binary(FUSER_BUNDLE_OP_MAX); })
      .Case<arith::AndIOp>([&](auto) { return binary(FUSER_BUNDLE_OP_AND); })
      .Case<arith::OrIOp>([&](auto) { return binary(FUSER_BUNDLE_OP_OR); })
      .Case<arith::XOrIOp>([&](arith::XOrIOp x) -> LogicalResult {
        if (!x.getType().isInteger(1))
          return x.emitOpError("a plan xors only i1 values");
        return binary(FUSER_BUNDLE_OP_NE);
      })
      .Case<arith::CmpIOp>([&](arith::CmpIOp c) -> LogicalResult {
        Value a = c.getLhs(), b = c.getRhs();
        using P = arith::CmpIPredicate;
        switch (c.getPredicate()) {
        case P::eq: emit(FUSER_BUNDLE_OP_EQ, c, a, b); break;
        case P::ne: emit(FUSER_BUNDLE_OP_NE, c, a, b); break;
        case P::slt: case P::ult: emit(FUSER_BUNDLE_OP_LT, c, a, b); break;
        case P::sle: case P::ule: emit(FUSER_BUNDLE_OP_LE, c, a, b); break;
        case P::sgt: case P::ugt: emit(FUSER_BUNDLE_OP_LT, c, b, a); break;
        case P::sge: case P::uge: emit(FUSER_BUNDLE_OP_LE, c, b, a); break;
        }
        return success();
      })
      .Case<arith::SelectOp>([&](arith::SelectOp s) -> LogicalResult {
        fusion.instrs.push_back({FUSER_BUNDLE_OP_SELECT, reg(s), reg(s.getCondition()),
                                 reg(s.getTrueValue()), (int64_t)reg(s.getFalseValue())});
        return success();
      })
      .Case<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtUIOp>(
          [&](Operation *cast) -> LogicalResult {
            // Values are non-negative integers: the register is shared.
            regs[cast->getResult(0)] = reg(cast->getOperand(0));
            return success();
          })
      .Case<memref::CastOp>([&](memref::CastOp c) -> LogicalResult {
        // A cast of a buffer is the same buffer.
        auto it = buffers.find(c.getSource());
        if (it == buffers.end())
          return c.emitOpError("casts a value that is not a buffer of the plan");
        buffers[c.getResult()] = it->second;
        return success();
      })
      .Case<BufferViewOp>([&](BufferViewOp v) -> LogicalResult {
        // A view of a buffer is the same buffer.
        auto it = buffers.find(v.getSource());
        if (it == buffers.end())
          return v.emitOpError("views a value that is not a buffer of the plan");
        buffers[v.getResult()] = it->second;
        return success();
      })
      // The flag of its buffer's ALLOC.
      .Case<ZeroedOp>([&](ZeroedOp z) -> LogicalResult {
        auto it = buffers.find(z.getBuffer());
        for (auto &in : fusion.instrs)
          if (it != buffers.end() && in.opcode == FUSER_BUNDLE_OP_ALLOC && in.a == it->second) {
            in.imm = FUSER_BUNDLE_ALLOC_ZEROED;
            return success();
          }
        return z.emitOpError("marks no buffer the plan allocated before it");
      })
      .Case<IsAlignedOp>([&](IsAlignedOp a) -> LogicalResult {
        fusion.instrs.push_back({FUSER_BUNDLE_OP_ALIGNED, reg(a), buffers.lookup(a.getBuffer()), FUSER_BUNDLE_NONE,
                                 (int64_t)a.getAlignment()});
        return success();
      })
      .Case<CheckOp>([&](CheckOp c) -> LogicalResult {
        uint32_t v0 = c.getValues().size() > 0 ? reg(c.getValues()[0]) : FUSER_BUNDLE_NONE;
        uint32_t v1 = c.getValues().size() > 1 ? reg(c.getValues()[1]) : FUSER_BUNDLE_NONE;
        fusion.instrs.push_back({FUSER_BUNDLE_OP_ASSERT, v1, reg(c.getCondition()), v0,
                                 (int64_t)strings.get(c.getMessage())});
        return success();
      })
      .Case<IndexCheckOp>([&](IndexCheckOp c) -> LogicalResult {
        static_assert(kIndexErrorWordSize == FUSER_INDEX_WORD_SIZE,
                      "the index error word has one layout");
        auto it = buffers.find(c.getWord());
        if (it == buffers.end())
          return c.emitOpError("checks a word that is not a buffer of the plan");
        fusion.instrs.push_back({FUSER_BUNDLE_OP_INDEX_CHECK, FUSER_BUNDLE_NONE, it->second,
                                 FUSER_BUNDLE_NONE, (int64_t)strings.get(c.getSites())});
        return success();
      })
      .Case<ResultDimOp>([&](ResultDimOp d) -> LogicalResult {
        int64_t k = dynamicDimIndex[d.getResult()][d.getDimAttr().getInt()];
        fusion.instrs.push_back({FUSER_BUNDLE_OP_RESULT_DIM, FUSER_BUNDLE_NONE, reg(d.getSize()), (uint32_t)k, 0});
        return success();
      })
      .Case<memref::AllocOp>([&](memref::AllocOp a) -> LogicalResult {
        MemRefType t = a.getType();
        FailureOr<uint8_t> dt = dtypeOf(t.getElementType(), loc);
        if (failed(dt))
          return failure();
        int64_t staticBytes = t.getElementType().isInteger(1)
                                  ? 1
                                  : t.getElementTypeBitWidth() / 8;
        for (int64_t d : t.getShape())
          if (!ShapedType::isDynamic(d))
            staticBytes *= d;
        uint32_t size = constant(staticBytes);
        for (Value d : a.getDynamicSizes()) {
          uint32_t r = fusion.numRegs++;
          fusion.instrs.push_back({FUSER_BUNDLE_OP_MUL, r, size, reg(d), 0});
          size = r;
        }
        uint32_t index = fusion.numArgs + fusion.numResults + fusion.numIntermediates++;
        buffers[a] = index;
        fusion.instrs.push_back({FUSER_BUNDLE_OP_ALLOC, FUSER_BUNDLE_NONE, index, size,
                                 0});
        return success();
      })
      .Case<LaunchOp>([&](LaunchOp l) -> LogicalResult {
        Launch launch;
        launch.kernel = strings.get(l.getKernel().getLeafReference().getValue());
        launch.grid[0] = reg(l.getGridX()), launch.grid[1] = reg(l.getGridY());
        launch.grid[2] = reg(l.getGridZ());
        launch.block[0] = reg(l.getBlockX()), launch.block[1] = reg(l.getBlockY());
        launch.block[2] = reg(l.getBlockZ());
        launch.smem = reg(l.getSharedMemory());
        unsigned indexOperand = 0;
        for (Value v : l.getKernelOperands()) {
          if (isa<MemRefType>(v.getType())) {
            auto it = buffers.find(v);
            if (it == buffers.end())
              return l.emitOpError("passes a buffer that is neither an "
                                   "argument, a result nor an allocation");
            launch.params.push_back({FUSER_BUNDLE_PARAM_PTR, it->second});
          } else {
            int32_t bits = l.getIndexBits()[indexOperand++];
            uint8_t kind = bits == 32 ? FUSER_BUNDLE_PARAM_I32 : FUSER_BUNDLE_PARAM_I64;
            launch.params.push_back({kind, reg(v)});
          }
        }
        uint32_t index = fusion.launches.size();
        fusion.launches.push_back(std::move(launch));
        fusion.instrs.push_back({FUSER_BUNDLE_OP_LAUNCH, FUSER_BUNDLE_NONE, index,
                                 l.getCondition() ? reg(l.getCondition()) : FUSER_BUNDLE_NONE, 0});
        return success();
      })
      .Case<GemmOp>([&](GemmOp g) -> LogicalResult {
        Gemm gemm;
        auto bufferOf = [&](Value v, uint32_t &out) {
          auto it = buffers.find(v);
          if (it == buffers.end())
            return false;
          out = it->second;
          return true;
        };
        if (!bufferOf(g.getA(), gemm.a) || !bufferOf(g.getB(), gemm.b) ||
            !bufferOf(g.getD(), gemm.d) || (g.getBias() && !bufferOf(g.getBias(), gemm.bias)) ||
            (g.getAux() && !bufferOf(g.getAux(), gemm.aux)))
          return g.emitOpError("reads or writes a buffer that is neither an argument, a result "
                               "nor an allocation");
        Value regs[10] = {g.getM(),   g.getN(),   g.getK(),       g.getBatch(),   g.getLda(),
                          g.getLdb(), g.getLdd(), g.getStrideA(), g.getStrideB(), g.getStrideD()};
        for (unsigned i = 0; i < 10; ++i)
          gemm.regs[i] = reg(regs[i]);
        FailureOr<uint8_t> ab = dtypeOf(cast<MemRefType>(g.getA().getType()).getElementType(), loc);
        FailureOr<uint8_t> d = dtypeOf(cast<MemRefType>(g.getD().getType()).getElementType(), loc);
        if (failed(ab) || failed(d))
          return failure();
        gemm.abDtype = *ab;
        gemm.dDtype = *d;
        if (g.getTransA())
          gemm.flags |= FUSER_BUNDLE_GEMM_FLAG_TRANS_A;
        if (g.getTransB())
          gemm.flags |= FUSER_BUNDLE_GEMM_FLAG_TRANS_B;
        if (g.getAllowTf32())
          gemm.flags |= FUSER_BUNDLE_GEMM_FLAG_TF32;
        if (auto grad = g.getBiasGrad())
          gemm.epilogue = *grad == "a" ? FUSER_BUNDLE_GEMM_EPILOGUE_BGRAD_A
                                       : FUSER_BUNDLE_GEMM_EPILOGUE_BGRAD_B;
        else if (g.getBias())
          gemm.epilogue |= FUSER_BUNDLE_GEMM_EPILOGUE_BIAS;
        if (auto act = g.getActivation())
          gemm.epilogue |= *act == "relu" ? FUSER_BUNDLE_GEMM_EPILOGUE_RELU
                                          : FUSER_BUNDLE_GEMM_EPILOGUE_GELU;
        if (g.getAux())
          gemm.epilogue |= FUSER_BUNDLE_GEMM_EPILOGUE_AUX;
        fusion.instrs.push_back({FUSER_BUNDLE_OP_GEMM, FUSER_BUNDLE_NONE, FUSER_BUNDLE_NONE,
                                 FUSER_BUNDLE_NONE, (int64_t)fusion.gemms.size()});
        fusion.gemms.push_back(gemm);
        return success();
      })
      .Case<CommunicateOp>([&](CommunicateOp c) -> LogicalResult {
        Collective coll;
        auto src = buffers.find(c.getSrc()), dst = buffers.find(c.getDst());
        if (src == buffers.end() || dst == buffers.end())
          return c.emitOpError("reads or writes a buffer that is neither an argument, a result "
                               "nor an allocation");
        if (fusion.grid.empty())
          return c.emitOpError("is in a plan without a grid (fuser.grid)");
        coll.src = src->second;
        coll.dst = dst->second;
        coll.count = reg(c.getCount());
        FailureOr<uint8_t> dt = dtypeOf(cast<MemRefType>(c.getSrc().getType()).getElementType(), loc);
        if (failed(dt))
          return failure();
        coll.dtype = *dt;
        coll.kind = llvm::StringSwitch<uint8_t>(c.getKind())
                        .Case("all_reduce", FUSER_BUNDLE_COLLECTIVE_ALL_REDUCE)
                        .Case("all_gather", FUSER_BUNDLE_COLLECTIVE_ALL_GATHER)
                        .Case("reduce_scatter", FUSER_BUNDLE_COLLECTIVE_REDUCE_SCATTER)
                        .Case("all_to_all", FUSER_BUNDLE_COLLECTIVE_ALL_TO_ALL)
                        .Default(FUSER_BUNDLE_COLLECTIVE_SLICE);
        if (auto r = c.getReduction())
          coll.reduction = llvm::StringSwitch<uint8_t>(*r)
                               .Case("sum", FUSER_BUNDLE_REDUCTION_SUM)
                               .Case("prod", FUSER_BUNDLE_REDUCTION_PROD)
                               .Case("max", FUSER_BUNDLE_REDUCTION_MAX)
                               .Case("min", FUSER_BUNDLE_REDUCTION_MIN)
                               .Default(FUSER_BUNDLE_REDUCTION_AVG);
        for (int64_t axis : c.getGridAxes()) {
          if (axis >= (int64_t)fusion.grid.size())
            return c.emitOpError("groups by grid axis ")
                   << axis << ", but the grid has " << fusion.grid.size() << " axes";
          coll.group |= uint8_t(1u << axis);
        }
        fusion.instrs.push_back({FUSER_BUNDLE_OP_COLLECTIVE, FUSER_BUNDLE_NONE,
                                 FUSER_BUNDLE_NONE, FUSER_BUNDLE_NONE,
                                 (int64_t)fusion.collectives.size()});
        fusion.collectives.push_back(coll);
        return success();
      })
      .Case<func::ReturnOp>([](auto) { return success(); })
      .Default([&](Operation *o) {
        return o->emitOpError("cannot be expressed in a bundle's plan program");
      });
}

FailureOr<Fusion> PlanTranslator::run() {
  auto numArgsAttr = plan->getAttrOfType<IntegerAttr>(kNumArgsAttr);
  if (!numArgsAttr)
    return plan.emitError("plan has no fuser.num_args");
  fusion.name = strings.get(plan.getSymName());
  fusion.numArgs = numArgsAttr.getInt();
  fusion.numResults = plan.getNumArguments() - fusion.numArgs;
  // Which tensor of the signature, in messages: "argument 1 'x'".
  auto describe = [&](unsigned i) {
    return (i < fusion.numArgs ? "argument " + std::to_string(i)
                               : "result " + std::to_string(i - fusion.numArgs));
  };
  llvm::StringMap<unsigned> seen;
  for (BlockArgument arg : plan.getArguments()) {
    auto t = cast<MemRefType>(arg.getType());
    unsigned i = arg.getArgNumber();
    Tensor tensor;
    auto nameAttr = plan.getArgAttrOfType<StringAttr>(i, kNameAttr);
    StringRef name = nameAttr ? nameAttr.getValue() : StringRef("");
    // Names are how tools find inputs and name output files (fuserc run
    // writes DIR/<name>.npy): identifiers only, and each once, so that no
    // name is a path and no two tensors share a file or an --input.
    if (!isBundleIdentifier(name))
      return plan.emitError("fusion '")
             << plan.getSymName() << "': " << describe(i) << " is named '" << name
             << "', which is not an identifier ([A-Za-z_][A-Za-z0-9_]*)";
    auto [it, inserted] = seen.try_emplace(name, i);
    if (!inserted)
      return plan.emitError("fusion '")
             << plan.getSymName() << "': " << describe(i) << " and "
             << describe(it->second) << " are both named '" << name
             << "'; the arguments and results of a fusion need distinct names";
    if (t.getRank() > FUSER_MAX_RANK)
      return plan.emitError("fusion '")
             << plan.getSymName() << "': " << describe(i) << " '" << name << "' has rank "
             << t.getRank() << ", more than FUSER_MAX_RANK (" << FUSER_MAX_RANK << ")";
    tensor.name = strings.get(name);
    FailureOr<uint8_t> dt = dtypeOf(t.getElementType(), plan.getLoc());
    if (failed(dt))
      return failure();
    tensor.dtype = *dt;
    if (auto layout = dyn_cast<StridedLayoutAttr>(t.getLayout())) {
      if (i >= fusion.numArgs)
        return plan.emitError("fusion '")
               << plan.getSymName() << "': " << describe(i) << " '" << name
               << "' has strides; results are dense";
      for (int64_t st : layout.getStrides())
        tensor.strides.push_back(ShapedType::isDynamic(st) ? -1 : st);
    } else if (!t.getLayout().isIdentity()) {
      return plan.emitError("fusion '") << plan.getSymName() << "': " << describe(i)
                                        << " has a layout a bundle cannot describe: " << t;
    }
    SmallVector<int64_t> &index = dynamicDimIndex[arg];
    for (int64_t d : t.getShape()) {
      tensor.dims.push_back(ShapedType::isDynamic(d) ? -1 : d);
      index.push_back(ShapedType::isDynamic(d) ? fusion.numDynamicDims++ : -1);
    }
    buffers[arg] = arg.getArgNumber();
    fusion.tensors.push_back(std::move(tensor));
  }
  // A sharded fusion: its GRID first, before anything runs.
  if (auto grid = plan->getAttrOfType<DenseI64ArrayAttr>(kGridAttr)) {
    ArrayRef<int64_t> sizes = grid.asArrayRef();
    if (sizes.empty() || sizes.size() > FUSER_BUNDLE_GRID_MAX_AXES ||
        llvm::any_of(sizes, [](int64_t s) { return s < 1 || s > UINT32_MAX; }))
      return plan.emitError("fusion '") << plan.getSymName() << "': grid " << grid
                                        << " is not 1 to " << FUSER_BUNDLE_GRID_MAX_AXES
                                        << " axes of static sizes";
    fusion.grid.assign(sizes.begin(), sizes.end());
    for (BlockArgument arg : plan.getArguments()) {
      unsigned i = arg.getArgNumber();
      int64_t rank = cast<MemRefType>(arg.getType()).getRank();
      auto split = plan.getArgAttrOfType<DenseI64ArrayAttr>(i, kSplitAttr);
      if (split && (int64_t)split.size() != rank)
        return plan.emitError("fusion '") << plan.getSymName() << "': " << describe(i)
                                          << " has a split of " << split.size()
                                          << " dims for its rank " << rank;
      for (int64_t d = 0; d < rank; ++d) {
        int64_t mask = split ? split[d] : 0;
        if (mask < 0 || mask >= (int64_t(1) << sizes.size()))
          return plan.emitError("fusion '") << plan.getSymName() << "': " << describe(i)
                                            << " dim " << d << " is split by axes (mask "
                                            << mask << ") the grid lacks";
        fusion.splits.push_back((uint8_t)mask);
      }
    }
    fusion.instrs.push_back({FUSER_BUNDLE_OP_GRID, FUSER_BUNDLE_NONE, FUSER_BUNDLE_NONE,
                             FUSER_BUNDLE_NONE, 0});
  }
  for (Operation &op : plan.getBody().front())
    if (failed(translate(&op)))
      return failure();
  return fusion;
}

/// Little-endian serialization at known offsets.
class Writer {
public:
  explicit Writer(uint64_t size) : out(size, '\0') {}
  void u8(uint64_t at, uint8_t v) { out[at] = (char)v; }
  void u16(uint64_t at, uint16_t v) { put(at, v, 2); }
  void u32(uint64_t at, uint32_t v) { put(at, v, 4); }
  void u64(uint64_t at, uint64_t v) { put(at, v, 8); }
  void bytes(uint64_t at, const void *p, size_t n) { std::memcpy(&out[at], p, n); }
  std::string take() { return std::move(out); }

private:
  void put(uint64_t at, uint64_t v, unsigned n) {
    for (unsigned i = 0; i < n; ++i)
      out[at + i] = (char)((v >> (8 * i)) & 0xff);
  }
  std::string out;
};

static uint64_t align8(uint64_t x) { return (x + 7) & ~uint64_t(7); }

FailureOr<std::string> mlir::fuser::writeBundle(ModuleOp module,
                                                const BundleOptions &options) {
  Strings strings;
  std::vector<Fusion> fusions;
  std::vector<Module> modules;
  for (auto plan : module.getOps<func::FuncOp>()) {
    if (!plan->hasAttr(kPlanAttr))
      continue;
    FailureOr<Fusion> f = PlanTranslator(plan, strings).run();
    if (failed(f))
      return failure();
    // The fusion's PTX: the gpu.binary its launches name.
    std::string binaryName = (plan.getSymName() + "_kernels").str();
    auto binary = module.lookupSymbol<gpu::BinaryOp>(binaryName);
    if (!binary)
      return plan.emitError("no compiled kernels (gpu.binary @") << binaryName << ")";
    auto object = cast<gpu::ObjectAttr>(binary.getObjects()[0]);
    if (object.getFormat() != gpu::CompilationTarget::Assembly)
      return binary.emitError("kernels must be compiled to PTX assembly");
    std::string ptx = object.getObject().str();
    if (options.ptxByModule) {
      auto kept = options.ptxByModule->find(binaryName);
      if (kept == options.ptxByModule->end())
        return binary.emitError("no PTX was kept for this module");
      ptx = kept->second.ptx;
    }
    f->ptxModule = modules.size();
    modules.push_back({strings.get(binaryName), FUSER_BUNDLE_MODULE_PTX, std::move(ptx),
                       options.sm, options.ptx});
    // Its cubin, named after it: the runtime finds it by that name.
    if (options.cubinByModule)
      if (auto cubin = options.cubinByModule->find(binaryName);
          cubin != options.cubinByModule->end())
        modules.push_back({strings.get(binaryName + FUSER_BUNDLE_CUBIN_SUFFIX),
                           FUSER_BUNDLE_MODULE_CUBIN, cubin->second, options.sm, 0});
    auto emu = options.emulation.find(plan.getSymName());
    if (emu != options.emulation.end()) {
      f->emulationModule = modules.size();
      modules.push_back({strings.get(binaryName + ".mlir"), FUSER_BUNDLE_MODULE_EMULATOR,
                         emu->second, 0, 0});
    }
    fusions.push_back(std::move(*f));
  }
  // The string table ends with a NUL byte even when it holds no string (a
  // module without fusions): readers check that before anything else.
  if (strings.bytes().empty())
    strings.get("");

  // Layout.
  uint64_t at = FUSER_BUNDLE_HEADER_SIZE;
  uint64_t fusionTable = at;
  at += FUSER_BUNDLE_FUSION_SIZE * fusions.size();
  uint64_t moduleTable = at;
  at += FUSER_BUNDLE_MODULE_SIZE * modules.size();
  struct FusionLayout {
    uint64_t tensors, instrs, launches, gemms, grid = 0, splits = 0, collectives;
    SmallVector<uint64_t> dims, strides, params;
  };
  // Library calls need a reader of minor version 1; a bundle without them
  // keeps minor 0 and loads in every runtime of format 2.
  bool anyGemm = llvm::any_of(fusions, [](const Fusion &f) { return !f.gemms.empty(); });
  std::vector<FusionLayout> layouts;
  for (Fusion &f : fusions) {
    FusionLayout l;
    l.tensors = at;
    at += FUSER_BUNDLE_TENSOR_SIZE * f.tensors.size();
    for (Tensor &t : f.tensors) {
      l.dims.push_back(at);
      at += 8 * t.dims.size();
    }
    for (Tensor &t : f.tensors) {
      l.strides.push_back(t.strides.empty() ? 0 : at);
      at += 8 * t.strides.size();
    }
    l.instrs = at;
    at += FUSER_BUNDLE_INSTR_SIZE * f.instrs.size();
    l.launches = at;
    at += FUSER_BUNDLE_LAUNCH_SIZE * f.launches.size();
    for (Launch &launch : f.launches) {
      l.params.push_back(at);
      at += FUSER_BUNDLE_PARAM_SIZE * launch.params.size();
    }
    l.gemms = at;
    at += FUSER_BUNDLE_GEMM_SIZE * f.gemms.size();
    l.collectives = at;
    at += FUSER_BUNDLE_COLLECTIVE_SIZE * f.collectives.size();
    if (!f.grid.empty()) {
      l.grid = at;
      at += FUSER_BUNDLE_GRID_SIZE;
      l.splits = at;
      at = align8(at + f.splits.size());
    }
    for (Instr &in : f.instrs) {
      if (in.opcode == FUSER_BUNDLE_OP_GEMM)
        in.imm = l.gemms + FUSER_BUNDLE_GEMM_SIZE * in.imm;
      else if (in.opcode == FUSER_BUNDLE_OP_COLLECTIVE)
        in.imm = l.collectives + FUSER_BUNDLE_COLLECTIVE_SIZE * in.imm;
      else if (in.opcode == FUSER_BUNDLE_OP_GRID)
        in.imm = l.grid;
    }
    layouts.push_back(std::move(l));
  }
  uint64_t stringTable = at;
  at = align8(at + strings.bytes().size());
  SmallVector<uint64_t> moduleData;
  for (Module &m : modules) {
    moduleData.push_back(at);
    at = align8(at + m.data.size() + 1);
  }
  uint64_t size = at;

  Writer w(size);
  w.bytes(FUSER_BUNDLE_H_MAGIC, FUSER_BUNDLE_MAGIC, FUSER_BUNDLE_MAGIC_SIZE);
  w.u32(FUSER_BUNDLE_H_VERSION, FUSER_BUNDLE_FORMAT_VERSION);
  w.u32(FUSER_BUNDLE_H_HEADER_SIZE, FUSER_BUNDLE_HEADER_SIZE);
  // The least minor version a reader needs: 5 for a cubin, 4 for a GEMM
  // that writes a bias gradient, 3 for a sharded fusion (GRID, COLLECTIVE),
  // 2 for a GEMM that writes its pre-activation, 1 for any other GEMM, else
  // 0.
  auto anyEpilogue = [&](uint8_t bits) {
    return llvm::any_of(fusions, [&](const Fusion &f) {
      return llvm::any_of(f.gemms, [&](const Gemm &g) { return (g.epilogue & bits) != 0; });
    });
  };
  bool anyAux = anyEpilogue(FUSER_BUNDLE_GEMM_EPILOGUE_AUX);
  bool anyBiasGrad =
      anyEpilogue(FUSER_BUNDLE_GEMM_EPILOGUE_BGRAD_A | FUSER_BUNDLE_GEMM_EPILOGUE_BGRAD_B);
  bool anyGrid = llvm::any_of(fusions, [](const Fusion &f) { return !f.grid.empty(); });
  bool anyCubin = llvm::any_of(
      modules, [](const Module &m) { return m.kind == FUSER_BUNDLE_MODULE_CUBIN; });
  w.u32(FUSER_BUNDLE_H_MINOR,
        anyCubin ? 5 : anyBiasGrad ? 4 : anyGrid ? 3 : anyAux ? 2 : anyGemm ? 1 : 0);
  w.u64(FUSER_BUNDLE_H_FILE_SIZE, size);
  w.u32(FUSER_BUNDLE_H_NUM_FUSIONS, fusions.size());
  w.u32(FUSER_BUNDLE_H_NUM_MODULES, modules.size());
  w.u64(FUSER_BUNDLE_H_FUSION_TABLE, fusionTable);
  w.u64(FUSER_BUNDLE_H_MODULE_TABLE, moduleTable);
  w.u64(FUSER_BUNDLE_H_STRING_TABLE, stringTable);
  w.u64(FUSER_BUNDLE_H_STRING_TABLE_SIZE, strings.bytes().size());
  w.bytes(stringTable, strings.bytes().data(), strings.bytes().size());
  for (auto [i, m] : llvm::enumerate(modules)) {
    uint64_t r = moduleTable + FUSER_BUNDLE_MODULE_SIZE * i;
    w.u32(r + FUSER_BUNDLE_M_NAME, m.name);
    w.u32(r + FUSER_BUNDLE_M_KIND, m.kind);
    w.u64(r + FUSER_BUNDLE_M_DATA, moduleData[i]);
    w.u64(r + FUSER_BUNDLE_M_SIZE, m.data.size() + 1);
    w.u32(r + FUSER_BUNDLE_M_TARGET, m.sm);
    w.u32(r + FUSER_BUNDLE_M_ISA, m.ptx);
    w.bytes(moduleData[i], m.data.data(), m.data.size());
  }
  for (auto [i, f] : llvm::enumerate(fusions)) {
    const FusionLayout &l = layouts[i];
    uint64_t r = fusionTable + FUSER_BUNDLE_FUSION_SIZE * i;
    w.u32(r + FUSER_BUNDLE_F_NAME, f.name);
    w.u32(r + FUSER_BUNDLE_F_NUM_ARGS, f.numArgs);
    w.u32(r + FUSER_BUNDLE_F_NUM_RESULTS, f.numResults);
    w.u32(r + FUSER_BUNDLE_F_NUM_DYN, f.numDynamicDims);
    w.u32(r + FUSER_BUNDLE_F_NUM_REGS, f.numRegs);
    w.u32(r + FUSER_BUNDLE_F_NUM_INSTRS, f.instrs.size());
    w.u32(r + FUSER_BUNDLE_F_NUM_LAUNCHES, f.launches.size());
    w.u32(r + FUSER_BUNDLE_F_NUM_INTER, f.numIntermediates);
    w.u64(r + FUSER_BUNDLE_F_TENSORS, l.tensors);
    w.u64(r + FUSER_BUNDLE_F_INSTRS, l.instrs);
    w.u64(r + FUSER_BUNDLE_F_LAUNCHES, l.launches);
    w.u32(r + FUSER_BUNDLE_F_PTX_MODULE, f.ptxModule);
    w.u32(r + FUSER_BUNDLE_F_EMU_MODULE, f.emulationModule);
    for (auto [j, t] : llvm::enumerate(f.tensors)) {
      uint64_t tr = l.tensors + FUSER_BUNDLE_TENSOR_SIZE * j;
      w.u32(tr + FUSER_BUNDLE_T_NAME, t.name);
      w.u8(tr + FUSER_BUNDLE_T_DTYPE, t.dtype);
      w.u8(tr + FUSER_BUNDLE_T_RANK, t.dims.size());
      w.u64(tr + FUSER_BUNDLE_T_DIMS, l.dims[j]);
      for (auto [k, d] : llvm::enumerate(t.dims))
        w.u64(l.dims[j] + 8 * k, (uint64_t)d);
      w.u64(tr + FUSER_BUNDLE_T_STRIDES, l.strides[j]);
      for (auto [k, st] : llvm::enumerate(t.strides))
        w.u64(l.strides[j] + 8 * k, (uint64_t)st);
    }
    for (auto [j, in] : llvm::enumerate(f.instrs)) {
      uint64_t ir = l.instrs + FUSER_BUNDLE_INSTR_SIZE * j;
      w.u16(ir + FUSER_BUNDLE_I_OPCODE, in.opcode);
      w.u32(ir + FUSER_BUNDLE_I_DST, in.dst);
      w.u32(ir + FUSER_BUNDLE_I_A, in.a);
      w.u32(ir + FUSER_BUNDLE_I_B, in.b);
      w.u64(ir + FUSER_BUNDLE_I_IMM, (uint64_t)in.imm);
    }
    for (auto [j, launch] : llvm::enumerate(f.launches)) {
      uint64_t lr = l.launches + FUSER_BUNDLE_LAUNCH_SIZE * j;
      w.u32(lr + FUSER_BUNDLE_L_KERNEL, launch.kernel);
      w.u32(lr + FUSER_BUNDLE_L_NUM_PARAMS, launch.params.size());
      w.u64(lr + FUSER_BUNDLE_L_PARAMS, l.params[j]);
      for (int k = 0; k < 3; ++k) {
        w.u32(lr + FUSER_BUNDLE_L_GRID + 4 * k, launch.grid[k]);
        w.u32(lr + FUSER_BUNDLE_L_BLOCK + 4 * k, launch.block[k]);
      }
      w.u32(lr + FUSER_BUNDLE_L_SMEM, launch.smem);
      for (auto [k, p] : llvm::enumerate(launch.params)) {
        uint64_t pr = l.params[j] + FUSER_BUNDLE_PARAM_SIZE * k;
        w.u8(pr + FUSER_BUNDLE_P_KIND, p.kind);
        w.u32(pr + FUSER_BUNDLE_P_INDEX, p.index);
      }
    }
    for (auto [j, g] : llvm::enumerate(f.gemms)) {
      uint64_t gr = l.gemms + FUSER_BUNDLE_GEMM_SIZE * j;
      w.u32(gr + FUSER_BUNDLE_G_A, g.a);
      w.u32(gr + FUSER_BUNDLE_G_B, g.b);
      w.u32(gr + FUSER_BUNDLE_G_D, g.d);
      w.u32(gr + FUSER_BUNDLE_G_BIAS, g.bias);
      static constexpr unsigned fields[10] = {
          FUSER_BUNDLE_G_M,        FUSER_BUNDLE_G_N,        FUSER_BUNDLE_G_K,
          FUSER_BUNDLE_G_BATCH,    FUSER_BUNDLE_G_LDA,      FUSER_BUNDLE_G_LDB,
          FUSER_BUNDLE_G_LDD,      FUSER_BUNDLE_G_STRIDE_A, FUSER_BUNDLE_G_STRIDE_B,
          FUSER_BUNDLE_G_STRIDE_D};
      for (unsigned k = 0; k < 10; ++k)
        w.u32(gr + fields[k], g.regs[k]);
      w.u8(gr + FUSER_BUNDLE_G_AB_DTYPE, g.abDtype);
      w.u8(gr + FUSER_BUNDLE_G_D_DTYPE, g.dDtype);
      w.u8(gr + FUSER_BUNDLE_G_FLAGS, g.flags);
      w.u8(gr + FUSER_BUNDLE_G_EPILOGUE, g.epilogue);
      w.u32(gr + FUSER_BUNDLE_G_AUX, g.aux);
    }
    for (auto [j, c] : llvm::enumerate(f.collectives)) {
      uint64_t cr = l.collectives + FUSER_BUNDLE_COLLECTIVE_SIZE * j;
      w.u8(cr + FUSER_BUNDLE_C_KIND, c.kind);
      w.u8(cr + FUSER_BUNDLE_C_REDUCTION, c.reduction);
      w.u8(cr + FUSER_BUNDLE_C_DTYPE, c.dtype);
      w.u8(cr + FUSER_BUNDLE_C_GROUP, c.group);
      w.u32(cr + FUSER_BUNDLE_C_SRC, c.src);
      w.u32(cr + FUSER_BUNDLE_C_DST, c.dst);
      w.u32(cr + FUSER_BUNDLE_C_COUNT, c.count);
    }
    if (!f.grid.empty()) {
      w.u32(l.grid + FUSER_BUNDLE_GR_AXES, f.grid.size());
      for (auto [k, s] : llvm::enumerate(f.grid))
        w.u32(l.grid + FUSER_BUNDLE_GR_SIZES + 4 * k, (uint32_t)s);
      w.u64(l.grid + FUSER_BUNDLE_GR_SPLITS, l.splits);
      w.bytes(l.splits, f.splits.data(), f.splits.size());
    }
  }
  // Last: the checksum over everything above (its own field still 0).
  std::string bytes = w.take();
  uint32_t checksum = fuser_bundle_checksum(bytes.data(), bytes.size());
  for (unsigned i = 0; i < 4; ++i)
    bytes[FUSER_BUNDLE_H_CHECKSUM + i] = (char)((checksum >> (8 * i)) & 0xff);
  return bytes;
}
