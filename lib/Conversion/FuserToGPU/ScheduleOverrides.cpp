//===- ScheduleOverrides.cpp - schedule decisions forced by the caller ----===//

#include "ScheduleOverrides.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir::fuser;

namespace {
struct Key {
  const char *name;
  std::optional<int64_t> ScheduleOverrides::*field;
  int64_t lo, hi;
  bool powerOfTwo;
  const char *meaning;
};

const Key kKeys[] = {
    {"pointwise.block", &ScheduleOverrides::pointwiseBlock, 32, 1024, true,
     "threads per block of a pointwise kernel"},
    {"pointwise.units", &ScheduleOverrides::pointwiseUnits, 1, 8, false,
     "vector units per thread per loop step of a pointwise kernel"},
    {"pointwise.waves", &ScheduleOverrides::pointwiseWaves, 0, 64, false,
     "a pointwise kernel's grid cap in full waves (0: no cap)"},
    {"innerouter.rows", &ScheduleOverrides::innerOuterRows, 1, 4096, false,
     "rows each block of an inner-outer kernel walks before the grid grows"},
    {"innerouter.min_blocks_per_sm", &ScheduleOverrides::innerOuterMinBlocksPerSM, 0, 8, false,
     "an inner-outer kernel's grid floor in blocks per SM, rows permitting"},
    {"innerouter.max_blocks_per_sm", &ScheduleOverrides::innerOuterMaxBlocksPerSM, 1, 16, false,
     "an inner-outer kernel's grid cap in blocks per SM"},
    {"innerouter.min_threads", &ScheduleOverrides::innerOuterMinThreads, 32, 512, true,
     "threads along each register-held row of an inner-outer kernel, at least"},
    {"innerouter.max_registers", &ScheduleOverrides::innerOuterMaxRegisters, 32, 255, false,
     "registers a thread of an inner-outer row kernel may use, at most"},
};
} // namespace

std::optional<ScheduleOverrides> ScheduleOverrides::parse(llvm::StringRef text,
                                                          std::string &error) {
  ScheduleOverrides result;
  llvm::SmallVector<llvm::StringRef> entries;
  text.split(entries, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (llvm::StringRef entry : entries) {
    entry = entry.trim();
    auto [name, value] = entry.split('=');
    name = name.trim();
    value = value.trim();
    const Key *key = nullptr;
    for (const Key &k : kKeys)
      if (name == k.name)
        key = &k;
    if (!key) {
      error = "unknown key '" + name.str() + "'; known:";
      for (const Key &k : kKeys)
        error += std::string(" ") + k.name;
      return std::nullopt;
    }
    int64_t v = 0;
    bool bad = !entry.contains('=') || value.getAsInteger(10, v) || v < key->lo ||
               v > key->hi || (key->powerOfTwo && !llvm::isPowerOf2_64(v));
    if (bad) {
      error = "key '" + name.str() + "' (" + key->meaning + ") must be " +
              (key->powerOfTwo ? "a power of two" : "an integer") + " from " +
              std::to_string(key->lo) + " to " + std::to_string(key->hi) + ", got '" +
              value.str() + "'";
      return std::nullopt;
    }
    if (result.*(key->field)) {
      error = "key '" + name.str() + "' is given twice";
      return std::nullopt;
    }
    result.*(key->field) = v;
  }
  return result;
}
