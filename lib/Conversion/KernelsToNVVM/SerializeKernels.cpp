//===- SerializeKernels.cpp - Kernels to PTX, one LLVM job per kernel -----===//
//
// gpu-module-to-binary{format=isa} compiles a gpu.module as one LLVM module,
// on one thread. A fusion's module holds several kernels (the 32- and
// 64-bit index variants, the misaligned-buffer fallback, the two kernels of
// a split reduction) and LLVM is most of a compile, so this pass clones the
// module once per kernel, compiles the clones with fuser's own LLVM step
// (compileToPtx, lib/Target/PTX) on the context's thread pool, and joins the
// PTX under one header: the bundle and the runtime still see one module.
// Each module's gpu.object carries LLVM's thread time for the compile report
// (docs/compile-speed.md); or, for the driver, the PTX and times go to a
// PtxByModule instead of the IR (PtxCodegen.h says why).
//
//===----------------------------------------------------------------------===//

#include "fuser/Conversion/Passes.h"
#include "fuser/Target/PtxCodegen.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Threading.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/ThreadPool.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_SERIALIZEKERNELSPASS
#include "fuser/Conversion/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// One LLVM compile: a clone of a gpu.module holding one kernel (or the
/// whole module).
struct Job {
  unsigned module; // index into the modules being compiled
  OwningOpRef<gpu::GPUModuleOp> piece;
  std::optional<SmallVector<char, 0>> ptx;
  uint64_t translateUs = 0, middleEndUs = 0, backEndUs = 0;
};

/// How `m` splits into one LLVM compile per kernel.
struct KernelSplit {
  SmallVector<StringRef> kernels;
  /// The kernel that uses each global (workgroup buffer).
  llvm::StringMap<StringRef> globalOwner;
  /// The functions beside the kernels (the math library's rare paths) each
  /// kernel calls, and how many kernels call each.
  llvm::StringMap<SmallVector<StringRef>> helpersOf;
  llvm::StringMap<unsigned> helperUsers;
};

/// Whether `m` holds nothing at its top level but kernels, globals no two
/// kernels share, declarations, and helper functions that use no symbol:
/// then each kernel compiles on its own with a copy of the helpers it calls,
/// and the PTX texts join without two definitions of one symbol. Each body
/// is walked once: a fusion can have hundreds of kernels.
bool splitByKernel(gpu::GPUModuleOp m, KernelSplit &split) {
  llvm::StringSet<> globals, helpers;
  SmallVector<LLVM::LLVMFuncOp> bodies;
  for (Operation &op : m.getBody()->getOperations()) {
    if (auto g = dyn_cast<LLVM::GlobalOp>(op)) {
      globals.insert(g.getSymName());
      continue;
    }
    auto f = dyn_cast<LLVM::LLVMFuncOp>(op);
    if (!f)
      return false;
    if (f.isExternal())
      continue;
    if (!f->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName())) {
      std::optional<SymbolTable::UseRange> uses = SymbolTable::getSymbolUses(f.getOperation());
      if (!uses || !uses->empty())
        return false; // a helper that calls or reads something
      helpers.insert(f.getSymName());
      continue;
    }
    split.kernels.push_back(f.getSymName());
    bodies.push_back(f);
  }
  for (LLVM::LLVMFuncOp f : bodies) {
    std::optional<SymbolTable::UseRange> uses = SymbolTable::getSymbolUses(f.getOperation());
    if (!uses)
      return false; // an unknown op that may use symbols
    llvm::StringSet<> called;
    for (const SymbolTable::SymbolUse &use : *uses) {
      StringRef name = use.getSymbolRef().getRootReference();
      if (helpers.contains(name)) {
        if (called.insert(name).second) {
          split.helpersOf[f.getSymName()].push_back(name);
          ++split.helperUsers[name];
        }
        continue;
      }
      if (!globals.contains(name))
        continue;
      auto [it, inserted] = split.globalOwner.try_emplace(name, f.getSymName());
      if (!inserted && it->second != f.getSymName())
        return false; // shared by two kernels
    }
  }
  return true;
}

/// A module like `m` holding only the kernel `keep`, the globals it owns,
/// the helpers it calls and every declaration, in `m`'s order; only those
/// ops are copied. A helper that other kernels call too is renamed
/// `<keep>__<helper>` in the copy, so that the joined PTX defines each name
/// once.
OwningOpRef<gpu::GPUModuleOp> pieceFor(gpu::GPUModuleOp m, StringRef keep,
                                       const KernelSplit &split) {
  OwningOpRef<gpu::GPUModuleOp> piece(cast<gpu::GPUModuleOp>(m->cloneWithoutRegions()));
  Block *body = new Block();
  piece->getBodyRegion().push_back(body);
  OpBuilder b = OpBuilder::atBlockEnd(body);
  llvm::StringSet<> helpers;
  if (auto it = split.helpersOf.find(keep); it != split.helpersOf.end())
    helpers.insert(it->second.begin(), it->second.end());
  SmallVector<Operation *> renamed;
  Operation *kernel = nullptr;
  for (Operation &op : m.getBody()->getOperations()) {
    bool wanted = true, shared = false;
    if (auto f = dyn_cast<LLVM::LLVMFuncOp>(op)) {
      bool helper = helpers.contains(f.getSymName());
      shared = helper && split.helperUsers.lookup(f.getSymName()) > 1;
      wanted = f.isExternal() || f.getSymName() == keep || helper;
    } else if (auto g = dyn_cast<LLVM::GlobalOp>(op)) {
      wanted = split.globalOwner.lookup(g.getSymName()) == keep;
    }
    if (!wanted)
      continue;
    Operation *copy = b.clone(op);
    if (shared)
      renamed.push_back(copy);
    if (auto f = dyn_cast<LLVM::LLVMFuncOp>(op); f && f.getSymName() == keep)
      kernel = copy;
  }
  for (Operation *helper : renamed) {
    StringAttr old = SymbolTable::getSymbolName(helper);
    StringAttr fresh = StringAttr::get(helper->getContext(), keep + "__" + old.getValue());
    SymbolTable::setSymbolName(helper, fresh);
    if (failed(SymbolTable::replaceAllSymbolUses(old, fresh, kernel)))
      llvm::report_fatal_error("fuser-serialize-kernels: cannot rename a helper's uses");
  }
  return piece;
}

/// Marks `noinline` each helper called from two places or more. LLVM's
/// inliner would otherwise copy a math rare path (hundreds of instructions,
/// MathExpansion.h) into every caller, and a fusion of many sins spent most
/// of its compile there; a helper called once is left to the inliner's
/// weighing of its size. The call costs only on the rare path, where it
/// branches anyway.
void keepSharedHelpersOutOfLine(gpu::GPUModuleOp piece) {
  SmallVector<LLVM::LLVMFuncOp> helpers;
  for (auto f : piece.getOps<LLVM::LLVMFuncOp>())
    if (!f.isExternal() && !f->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()))
      helpers.push_back(f);
  if (helpers.empty())
    return; // most kernels: no walk over their bodies
  llvm::DenseMap<StringAttr, unsigned> calls;
  piece.walk([&](LLVM::CallOp call) {
    if (FlatSymbolRefAttr callee = call.getCalleeAttr())
      ++calls[callee.getAttr()];
  });
  for (LLVM::LLVMFuncOp f : helpers)
    if (calls.lookup(f.getSymNameAttr()) > 1)
      f.setNoInline(true);
}

/// The PTX after its header (the comment banner and the .version, .target
/// and .address_size directives): the kernels of one job, to append to
/// another job's text.
StringRef afterHeader(StringRef ptx) {
  size_t at = ptx.find(".address_size");
  if (at == StringRef::npos)
    return ptx;
  size_t eol = ptx.find('\n', at);
  return eol == StringRef::npos ? StringRef() : ptx.substr(eol + 1);
}

struct SerializeKernelsPass
    : fuser::impl::SerializeKernelsPassBase<SerializeKernelsPass> {
  SerializeKernelsPass() = default;
  explicit SerializeKernelsPass(PtxByModule *out) : out(out) {}

  /// Where the PTX and times go instead of the IR, when set.
  PtxByModule *out = nullptr;

  /// ptxas refuses a kernel whose parameters take more than 4352 bytes (PTX
  /// ISA before 8.1) or 32764 (8.1 and newer): caught here, with the limit
  /// and what to do, rather than when a GPU first loads the bundle.
  LogicalResult checkParameterSpace(gpu::GPUModuleOp m, gpu::TargetAttrInterface target) {
    unsigned ptx = 0;
    if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(target))
      if (StringRef f = nvvm.getFeatures(); f.consume_front("+ptx"))
        f.getAsInteger(10, ptx);
    uint64_t limit = ptx >= 81 ? 32764 : 4352;
    for (auto f : m.getOps<LLVM::LLVMFuncOp>()) {
      if (f.isExternal())
        continue;
      uint64_t bytes = 0;
      for (Type t : f.getArgumentTypes()) {
        uint64_t size = t.isInteger(32) || t.isF32() ? 4 : 8;
        bytes = (bytes + size - 1) / size * size + size;
      }
      if (bytes > limit) {
        StringRef fusion = m.getName();
        fusion.consume_back("_kernels");
        return f.emitError("fusion '")
               << fusion << "' needs a kernel ('" << f.getName() << "') with "
               << f.getNumArguments() << " parameters, " << bytes
               << " bytes: PTX " << ptx / 10 << "." << ptx % 10 << " allows at most " << limit
               << (ptx >= 81 ? ". Split the fusion into smaller ones"
                             : ". Split the fusion, or compile for PTX 8.1 or newer "
                               "(--ptx 81: 32764 bytes, with a CUDA 12.1 or newer driver)");
      }
    }
    return success();
  }

  void runOnOperation() override {
    ModuleOp top = getOperation();
    SmallVector<gpu::GPUModuleOp> modules(top.getOps<gpu::GPUModuleOp>());
    SmallVector<gpu::TargetAttrInterface> targets;
    std::vector<Job> jobs;
    // One thread: compile each module whole (splitting only adds LLVM's
    // per-module setup, about a tenth of a kernel's time).
    MLIRContext &ctx = getContext();
    bool parallel = ctx.isMultithreadingEnabled() && ctx.getThreadPool().getMaxConcurrency() > 1;
    for (auto [i, m] : llvm::enumerate(modules)) {
      ArrayAttr attrs = m.getTargetsAttr();
      gpu::TargetAttrInterface target =
          attrs && attrs.size() == 1 ? dyn_cast<gpu::TargetAttrInterface>(attrs[0])
                                     : gpu::TargetAttrInterface();
      if (!target) {
        m.emitError("expected exactly one GPU target attribute (nvvm-attach-target)");
        return signalPassFailure();
      }
      targets.push_back(target);
      if (failed(checkParameterSpace(m, target)))
        return signalPassFailure();
      KernelSplit split;
      if (!parallel || !splitByKernel(m, split) || split.kernels.size() < 2) {
        jobs.push_back({(unsigned)i, OwningOpRef<gpu::GPUModuleOp>(m.clone()), {}});
        continue;
      }
      for (StringRef keep : split.kernels)
        jobs.push_back({(unsigned)i, pieceFor(m, keep, split), {}});
    }

    gpu::TargetOptions options({}, {}, {}, {}, gpu::CompilationTarget::Assembly);
    LogicalResult compiled =
        failableParallelForEach(&getContext(), jobs, [&](Job &job) {
          auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(targets[job.module]);
          if (!nvvm) { // not fuser's target: upstream's serializer
            job.ptx = targets[job.module].serializeToObject(job.piece.get(), options);
            return success(job.ptx.has_value());
          }
          keepSharedHelpersOutOfLine(job.piece.get());
          FailureOr<fuser::PtxCodegenResult> r = fuser::compileToPtx(job.piece.get(), nvvm);
          if (failed(r))
            return failure();
          job.ptx.emplace(r->ptx.begin(), r->ptx.end());
          job.translateUs = r->translateUs;
          job.middleEndUs = r->middleEndUs;
          job.backEndUs = r->backEndUs;
          return success();
        });
    if (failed(compiled)) {
      top.emitError("compiling the kernels to PTX failed");
      return signalPassFailure();
    }

    // Join each module's PTX in kernel order, under the first job's header.
    OpBuilder b(&getContext());
    for (auto [i, m] : llvm::enumerate(modules)) {
      SmallVector<char, 0> ptx;
      uint64_t translateUs = 0, middleEndUs = 0, backEndUs = 0;
      for (Job &job : jobs) {
        if (job.module != i)
          continue;
        translateUs += job.translateUs;
        middleEndUs += job.middleEndUs;
        backEndUs += job.backEndUs;
        StringRef text(job.ptx->data(), job.ptx->size());
        if (!ptx.empty())
          text = afterHeader(text);
        ptx.append(text.begin(), text.end());
      }
      if (out) {
        PtxCodegenResult &r = (*out)[m.getName()];
        r.ptx.assign(ptx.begin(), ptx.end());
        r.translateUs = translateUs;
        r.middleEndUs = middleEndUs;
        r.backEndUs = backEndUs;
        ptx.clear();
      }
      auto object = dyn_cast_or_null<gpu::ObjectAttr>(targets[i].createObject(m, ptx, options));
      if (!object) {
        m.emitError("could not wrap the PTX of this module");
        return signalPassFailure();
      }
      if (!out) {
        // LLVM's time, summed over the module's kernels, for the compile
        // report (fuserCompileResultGetTiming, docs/compile-speed.md).
        NamedAttrList properties(object.getProperties());
        properties.set(kLlvmTranslateUs, b.getI64IntegerAttr(translateUs));
        properties.set(kLlvmMiddleEndUs, b.getI64IntegerAttr(middleEndUs));
        properties.set(kNvptxBackEndUs, b.getI64IntegerAttr(backEndUs));
        object = gpu::ObjectAttr::get(&getContext(), object.getTarget(), object.getFormat(),
                                      object.getObject(), properties.getDictionary(&getContext()),
                                      object.getKernels());
      }
      b.setInsertionPointAfter(m);
      gpu::BinaryOp::create(b, m.getLoc(), m.getName(), /*offloadingHandler=*/nullptr,
                            b.getArrayAttr({object}));
      m.erase();
    }
  }
};

} // namespace

std::unique_ptr<Pass> mlir::fuser::createSerializeKernelsPass(PtxByModule *out) {
  return std::make_unique<SerializeKernelsPass>(out);
}
