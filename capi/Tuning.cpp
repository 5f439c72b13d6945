//===- Tuning.cpp - schedule keys, chips and fusion hashes for tuners -----===//

#include "fuser-c/Tuning.h"

#include "fuser/Dialect/Fuser/IR/Schedule.h"
#include "fuser/Driver/Tuning.h"
#include "fuser/Target/Chips.h"
#include "fuser/Transforms/Segments.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::fuser;

unsigned fuserGetNumScheduleKeys(void) { return kNumScheduleKeys; }

bool fuserGetScheduleKey(unsigned pos, FuserScheduleKeyInfo *out) {
  if (!out || pos >= kNumScheduleKeys)
    return false;
  const ScheduleKeyInfo &k = scheduleKeys()[pos];
  *out = FuserScheduleKeyInfo{};
  out->name = k.name;
  out->meaning = k.meaning;
  out->lo = k.lo;
  out->hi = k.hi;
  out->powerOfTwo = k.powerOfTwo;
  out->hasDefault = k.defaultValue.has_value();
  out->defaultValue = k.defaultValue.value_or(0);
  for (int64_t v : k.tryValues)
    if (out->numTryValues < std::size(out->tryValues))
      out->tryValues[out->numTryValues++] = v;
  return true;
}

bool fuserGetChipInfo(MlirStringRef chip, FuserChipInfo *out) {
  const ChipInfo *c = chip.data ? lookupChip(unwrap(chip)) : nullptr;
  if (!c || !out)
    return false;
  *out = FuserChipInfo{c->sm,
                       c->smCount,
                       c->maxThreadsPerSM,
                       c->maxBlocksPerSM,
                       65536,
                       c->sharedMemoryPerSM,
                       c->sharedMemoryPerBlock,
                       c->dramGBps};
  return true;
}

bool fuserPrintFusionTuningHash(MlirModule module, MlirStringRef fusion,
                                MlirStringCallback callback, void *userData) {
  if (mlirModuleIsNull(module) || !fusion.data || !callback)
    return false;
  for (auto f : unwrap(module).getOps<func::FuncOp>())
    if (f.getSymName() == unwrap(fusion) && !f.isExternal()) {
      std::string hash = fusionTuningHash(f);
      callback(mlirStringRefCreate(hash.data(), hash.size()), userData);
      return true;
    }
  return false;
}

intptr_t fuserPrintFusionSegments(MlirModule module, MlirStringRef fusion,
                                  MlirStringCallback callback, void *userData) {
  if (mlirModuleIsNull(module) || !fusion.data || !callback)
    return -1;
  for (auto f : unwrap(module).getOps<func::FuncOp>()) {
    if (f.getSymName() != unwrap(fusion) || f.isExternal())
      continue;
    // Quiet: a compile of the fusion reports what is wrong with it.
    ScopedDiagnosticHandler quiet(f.getContext(), [](Diagnostic &) { return success(); });
    FailureOr<std::vector<std::string>> schedulers = fusionSegmentSchedulers(f);
    if (failed(schedulers))
      return -1;
    for (const std::string &name : *schedulers)
      callback(mlirStringRefCreate(name.data(), name.size()), userData);
    return intptr_t(schedulers->size());
  }
  return -1;
}

bool fuserScheduleKeyAppliesTo(unsigned pos, MlirStringRef scheduler) {
  std::optional<GroupKind> kind =
      scheduler.data ? parseGroupKind(unwrap(scheduler)) : std::nullopt;
  return kind && pos < kNumScheduleKeys && keyAppliesTo(scheduleKeys()[pos].key, *kind);
}
