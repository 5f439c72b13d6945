//===- Schedule.cpp - the schedule keys and #fuser.schedule ---------------===//

#include "fuser/Dialect/Fuser/IR/Schedule.h"
#include "fuser/Dialect/Fuser/IR/FuserOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::fuser;

namespace {
// What `fuserc tune` tries beside each key's default: the neighbours that
// bench/gpu/variants.py timed, and a step past them.
constexpr int64_t kTryBlock[] = {128, 512, 1024};
constexpr int64_t kTryUnits[] = {2, 4};
constexpr int64_t kTryWaves[] = {0, 2, 4, 16};
constexpr int64_t kTryVectorBytes[] = {4, 8};
constexpr int64_t kTryTile[] = {16, 64};
constexpr int64_t kTryTileRows[] = {4, 16};
constexpr int64_t kTryTileWaves[] = {2, 4, 8};
constexpr int64_t kTryReductionBlock[] = {128, 512};
constexpr int64_t kTryReductionWaves[] = {2, 4};
constexpr int64_t kTryRows[] = {1, 2, 4, 16, 32};
constexpr int64_t kTryMinBlocks[] = {0, 2};
constexpr int64_t kTryMaxBlocks[] = {1, 4};
constexpr int64_t kTryMaxRegisters[] = {64, 128};
constexpr int64_t kTryScanBlock[] = {128, 512, 1024};
constexpr int64_t kTryScanWaves[] = {2, 4};

// The defaults are measured, not guessed: the H200 runs of
// bench/gpu/variants.py (bench/results/variants.md, variants-io.md).
const ScheduleKeyInfo kKeys[kNumScheduleKeys] = {
    {ScheduleKey::PointwiseBlock, "pointwise.block", 32, 1024, true, 256,
     "threads per block of a pointwise kernel",
     "measured: 128-thread blocks were slower everywhere", kTryBlock},
    {ScheduleKey::PointwiseUnits, "pointwise.units", 1, 8, false, 1,
     "vector units per thread per loop step of a pointwise kernel",
     "measured: more units were slower except on f32 bias_gelu", kTryUnits},
    {ScheduleKey::PointwiseWaves, "pointwise.waves", 0, 64, false, 8,
     "a pointwise kernel's grid cap in full waves (0: no cap)",
     "measured: 3-15% faster than one wave on transcendental fusions from 256 MB",
     kTryWaves},
    {ScheduleKey::PointwiseVectorBytes, "pointwise.vector_bytes", 1, 16, true, std::nullopt,
     "the widest access of a pointwise kernel in bytes: lanes = this / the narrowest "
     "contiguous element's bytes",
     "16, the widest load or store a thread issues; one lane (the narrowest element's "
     "bytes) where an element's arithmetic is estimated at 512 instructions or more, "
     "compute-bound many times over, where lanes only multiply the code LLVM compiles "
     "(PointwiseScheduler.cpp)",
     kTryVectorBytes},
    {ScheduleKey::TransposeTile, "transpose.tile", 16, 64, true, 32,
     "the square tile a block of a transpose kernel stages in shared memory, in elements a "
     "side (padded by one column against bank conflicts)",
     "32: a warp reads one tile row of 4-byte elements in one 128-byte line", kTryTile},
    {ScheduleKey::TransposeRows, "transpose.rows", 1, 32, true, 8,
     "threads along a transpose kernel's tile rows: a block is transpose.tile x this, each "
     "thread moving transpose.tile / this rows per phase",
     "8: 32 x 8 blocks on the default tile, 4 tile rows a thread", kTryTileRows},
    {ScheduleKey::TransposeWaves, "transpose.waves", 1, 64, false, 1,
     "a transpose kernel's grid cap in full waves; blocks then loop over the tiles",
     "1: one full wave, each block looping over tiles", kTryTileWaves},
    {ScheduleKey::ReductionBlock, "reduction.block", 64, 512, true, 256,
     "threads per block of an inner reduction or normalization kernel whose rows take fewer "
     "threads: rows per block = this / threads per row (a row never splits differently)",
     "256: 8 rows of 32 threads, 4 of 64, ...", kTryReductionBlock},
    {ScheduleKey::ReductionWaves, "reduction.waves", 1, 64, false, 1,
     "an inner reduction or normalization kernel's grid cap in full waves; blocks then loop "
     "over the rows",
     "1: one full wave, each block looping over rows", kTryReductionWaves},
    {ScheduleKey::ReductionThreads, "reduction.threads", 32, 1024, true, std::nullopt,
     "threads along each row of an inner reduction or normalization kernel whose row length "
     "is known at compile time (not a row split across blocks); a normalization whose row "
     "does not fit their registers reads it again per pass",
     "the fewest that leave each thread at least 4 vector units, more until a "
     "normalization's row fits the registers; a normalization whose element's arithmetic is "
     "compute-bound (an estimate of 256 instructions or more) one vector unit a thread, up to "
     "512 threads (ReductionHeuristics.cpp); a row's length known only at launch is decided "
     "by the plan",
     /*tryValues: none; the row sums' tree, so the results' last bits, change with it*/ {}},
    {ScheduleKey::ReductionSplits, "reduction.splits", 1, 1024, false, std::nullopt,
     "blocks that share each row of a one-pass inner reduction, or the reduced extent of an "
     "outer (column) reduction, each writing partials that the last block to finish adds in "
     "split order; 1: never split (not a normalization, which cannot split)",
     "inner: fewer than 128 rows of at least 32768 elements split in ceil(256 / rows), at "
     "most length / 16384; outer: fewer than 256 column tiles with 8 steps a split split in "
     "ceil(256 / tiles), at most depth / (8 x rows of threads); sizes known only at launch "
     "decide in the plan (ReductionHeuristics.cpp)",
     /*tryValues: none; the partials' order, so the results' last bits, change with it*/ {}},
    {ScheduleKey::ReductionColumnThreads, "reduction.column_threads", 1, 1024, true,
     std::nullopt,
     "threads along the kept dim in a block of an outer (column) reduction or normalization "
     "kernel, each taking one vector unit of adjacent columns",
     "as many as the columns have vector units, at most 32 (a warp reads 32 adjacent units); "
     "an outer normalization takes fewer where a thread's share of the column would not fit "
     "(ReductionHeuristics.cpp, OuterNormalization.cpp)",
     /*tryValues: none; with the split count it follows, a sum's order changes*/ {}},
    {ScheduleKey::ReductionColumnRows, "reduction.column_rows", 1, 64, true, std::nullopt,
     "rows of threads along the reduced dims in a block of an outer (column) reduction or "
     "normalization kernel: row r adds positions r, r + rows, ... and the rows' partials are "
     "added in row order",
     "256 threads / reduction.column_threads, at most 32; an outer normalization takes enough "
     "that a thread holds at most 16 values of its column (ReductionHeuristics.cpp, "
     "OuterNormalization.cpp)",
     /*tryValues: none; a column sum's order changes with it*/ {}},
    {ScheduleKey::ReductionVectorBytes, "reduction.vector_bytes", 1, 16, true, 16,
     "the widest access of a reduction or normalization kernel in bytes: lanes = this / the "
     "narrowest element that moves with the innermost dim, at most 8",
     "16, the widest load or store a thread issues; fewer lanes where a static inner size "
     "needs, and the scalar body where the plan's checks fail at launch",
     /*tryValues: none; the units along a row, so the row sums' tree, change with it*/ {}},
    {ScheduleKey::InnerOuterRows, "innerouter.rows", 1, 4096, false, 8,
     "rows each block of an inner-outer kernel walks before the grid grows",
     "measured: 13-20% faster than 32 at 2603 rows of 4096", kTryRows},
    {ScheduleKey::InnerOuterMinBlocksPerSM, "innerouter.min_blocks_per_sm", 0, 8, false, 1,
     "an inner-outer kernel's grid floor in blocks per SM, rows permitting",
     "measured: 2-3x faster than no floor below 1000 rows", kTryMinBlocks},
    {ScheduleKey::InnerOuterMaxBlocksPerSM, "innerouter.max_blocks_per_sm", 1, 16, false, 2,
     "an inner-outer kernel's grid cap in blocks per SM",
     "measured: 4 was 4-40% slower from 256 MB", kTryMaxBlocks},
    {ScheduleKey::InnerOuterMinThreads, "innerouter.min_threads", 32, 512, true, std::nullopt,
     "threads along each register-held row of an inner-outer kernel, at least",
     "the fewest threads that hold the row at 16 values each, chosen at emission (static "
     "rows) or at launch (dynamic rows)",
     /*tryValues: none; the row reductions' tree, so dx's last bits, change with it*/ {}},
    {ScheduleKey::InnerOuterMaxRegisters, "innerouter.max_registers", 32, 255, false,
     std::nullopt, "registers a thread of an inner-outer row kernel may use, at most",
     "no cap: 65536 / threads in the block, as ptxas allocates", kTryMaxRegisters},
    {ScheduleKey::ScanBlock, "scan.block", 32, 1024, true, 256,
     "threads per block of a scan kernel (a warp per line along the contiguous dim, else a "
     "thread per line)",
     "256: 8 warps; a scan's order of accumulation depends on the position only, never on "
     "the block", kTryScanBlock},
    {ScheduleKey::ScanWaves, "scan.waves", 1, 64, false, 1,
     "a scan kernel's grid cap in full waves; blocks then loop over the lines",
     "1: one full wave, each block looping over lines", kTryScanWaves},
    {ScheduleKey::KernelIndexBits, "kernel.index_bits", 32, 64, true, std::nullopt,
     "the width of the segment's index math in bits (offsets, loop counters, sizes passed "
     "at launch)",
     "the index-bits compile option where it forces one, else per kernel: 32 bits when every "
     "tensor it touches has fewer than 2^31 - 2^24 elements, 64 otherwise, and both variants "
     "where sizes are known only at launch, the plan choosing; 32 on sizes that may not fit "
     "fails the compile (static) or the launch (dynamic), never wraps",
     /*tryValues: none; 64 bits is never faster, 32 is already chosen where it holds*/ {}},
};
} // namespace

llvm::ArrayRef<ScheduleKeyInfo> mlir::fuser::scheduleKeys() { return kKeys; }

const ScheduleKeyInfo &mlir::fuser::scheduleKeyInfo(ScheduleKey key) {
  return kKeys[unsigned(key)];
}

const ScheduleKeyInfo *mlir::fuser::lookupScheduleKey(llvm::StringRef name) {
  for (const ScheduleKeyInfo &k : kKeys)
    if (name == k.name)
      return &k;
  return nullptr;
}

std::string mlir::fuser::scheduleKeyNames() {
  std::string names;
  for (unsigned i = 0; i < kNumScheduleKeys; ++i) {
    if (i)
      names += i + 1 == kNumScheduleKeys ? " or " : ", ";
    names += kKeys[i].name;
  }
  return names;
}

/// "a power of two from 32 to 1024".
static std::string legalValues(const ScheduleKeyInfo &key) {
  return std::string(key.powerOfTwo ? "a power of two" : "an integer") + " from " +
         std::to_string(key.lo) + " to " + std::to_string(key.hi);
}

std::string mlir::fuser::checkScheduleValue(const ScheduleKeyInfo &key, int64_t value) {
  if (value >= key.lo && value <= key.hi && (!key.powerOfTwo || llvm::isPowerOf2_64(value)))
    return "";
  return legalValues(key);
}

/// checkScheduleConsistency for `s.values` alone.
static std::string checkOneSchedule(const Schedule &s) {
  // With the defaults for what `s` leaves out: a schedule is what its
  // kernels will take, so a floor of 4 is wrong under the default cap of 2
  // as much as under a cap of 2 written beside it.
  auto shown = [&](ScheduleKey key) {
    return std::to_string(s.valueOr(key)) + (s.get(key) ? "" : ", the default");
  };
  if (s.valueOr(ScheduleKey::TransposeRows) > s.valueOr(ScheduleKey::TransposeTile))
    return "transpose.rows (" + shown(ScheduleKey::TransposeRows) +
           ") is above transpose.tile (" + shown(ScheduleKey::TransposeTile) +
           "): a thread would have no tile row to move";
  if (s.valueOr(ScheduleKey::TransposeRows) * s.valueOr(ScheduleKey::TransposeTile) > 1024)
    return "transpose.tile (" + shown(ScheduleKey::TransposeTile) + ") x transpose.rows (" +
           shown(ScheduleKey::TransposeRows) + ") is a block of more than 1024 threads";
  // An outer kernel's block: both given, at most 1024 threads; rows given
  // alone beside the heuristic's up to 32 threads along the kept dim.
  std::optional<int64_t> columnThreads = s.get(ScheduleKey::ReductionColumnThreads),
                         columnRows = s.get(ScheduleKey::ReductionColumnRows);
  if (columnThreads && columnRows && *columnThreads * *columnRows > 1024)
    return "reduction.column_threads (" + std::to_string(*columnThreads) +
           ") x reduction.column_rows (" + std::to_string(*columnRows) +
           ") is a block of more than 1024 threads";
  if (!columnThreads && columnRows && *columnRows > 32)
    return "reduction.column_rows (" + std::to_string(*columnRows) +
           ") above 32 needs reduction.column_threads beside it (the heuristic takes up to "
           "32 threads along the kept dim, and a block holds at most 1024)";
  if (s.valueOr(ScheduleKey::InnerOuterMinBlocksPerSM) >
      s.valueOr(ScheduleKey::InnerOuterMaxBlocksPerSM))
    return "innerouter.min_blocks_per_sm (" + shown(ScheduleKey::InnerOuterMinBlocksPerSM) +
           ") is above innerouter.max_blocks_per_sm (" +
           shown(ScheduleKey::InnerOuterMaxBlocksPerSM) +
           "): the grid's floor would exceed its cap";
  return "";
}

std::string mlir::fuser::checkScheduleConsistency(const Schedule &s) {
  std::string error = checkOneSchedule(s);
  if (!error.empty())
    return error;
  for (const Schedule::OfSegment &entry : s.segments) {
    error = checkOneSchedule(s.forSegment(entry.segment));
    if (!error.empty())
      return "segment " + std::to_string(entry.segment) + ": " + error;
  }
  return "";
}

ScheduleKeyName mlir::fuser::parseScheduleKeyName(llvm::StringRef text, std::string &error) {
  ScheduleKeyName result;
  llvm::StringRef name = text.trim();
  if (name.contains('[') || name.contains(']')) {
    unsigned segment = 0;
    bool closed = name.consume_back("]");
    auto [base, index] = name.rsplit('[');
    if (!closed || !name.contains('[') || index.getAsInteger(10, segment) ||
        segment > kMaxScheduleSegment) {
      error = "'" + text.trim().str() + "' must be KEY or KEY[SEGMENT], SEGMENT from 0 to " +
              std::to_string(kMaxScheduleSegment);
      return result;
    }
    result.segment = segment;
    name = base.trim();
  }
  result.key = lookupScheduleKey(name);
  if (!result.key)
    error = "unknown key '" + name.str() + "'; known: " + scheduleKeyNames();
  return result;
}

Schedule::OfSegment &Schedule::ofSegment(unsigned segment) {
  auto it = llvm::lower_bound(
      segments, segment, [](const OfSegment &e, unsigned s) { return e.segment < s; });
  if (it == segments.end() || it->segment != segment) {
    OfSegment entry{};
    entry.segment = segment;
    it = segments.insert(it, entry);
  }
  return *it;
}

Schedule Schedule::forSegment(unsigned segment) const {
  Schedule result;
  std::copy(std::begin(values), std::end(values), std::begin(result.values));
  for (const OfSegment &entry : segments)
    if (entry.segment == segment)
      for (unsigned i = 0; i < kNumScheduleKeys; ++i)
        if (entry.values[i])
          result.values[i] = entry.values[i];
  return result;
}

int64_t Schedule::valueOr(ScheduleKey key) const {
  if (std::optional<int64_t> v = get(key))
    return *v;
  assert(scheduleKeyInfo(key).defaultValue && "the key has no default");
  return *scheduleKeyInfo(key).defaultValue;
}

std::optional<Schedule> Schedule::parse(llvm::StringRef text, std::string &error) {
  Schedule result;
  llvm::SmallVector<llvm::StringRef> entries;
  text.split(entries, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (llvm::StringRef entry : entries) {
    entry = entry.trim();
    auto [name, value] = entry.split('=');
    name = name.trim();
    value = value.trim();
    ScheduleKeyName named = parseScheduleKeyName(name, error);
    if (!named.key)
      return std::nullopt;
    const ScheduleKeyInfo *key = named.key;
    int64_t v = 0;
    if (!entry.contains('=') || value.getAsInteger(10, v) ||
        !checkScheduleValue(*key, v).empty()) {
      error = "key '" + name.str() + "' (" + key->meaning + ") must be " + legalValues(*key) +
              ", got '" + value.str() + "'";
      return std::nullopt;
    }
    std::optional<int64_t> &slot = result.at(key->key, named.segment);
    if (slot) {
      error = "key '" + name.str() + "' is given twice";
      return std::nullopt;
    }
    slot = v;
  }
  error = checkScheduleConsistency(result);
  if (!error.empty())
    return std::nullopt;
  return result;
}

Schedule Schedule::fromAttr(ScheduleAttr attr) {
  Schedule s;
  if (!attr)
    return s;
  // The verifier has checked every entry.
  std::string error;
  for (NamedAttribute e : attr.getEntries()) {
    ScheduleKeyName named = parseScheduleKeyName(e.getName().getValue(), error);
    if (!named.key)
      continue;
    s.at(named.key->key, named.segment) = cast<IntegerAttr>(e.getValue()).getInt();
  }
  return s;
}

ScheduleAttr Schedule::toAttr(MLIRContext *context) const {
  Builder b(context);
  SmallVector<NamedAttribute> entries;
  for (const ScheduleKeyInfo &k : kKeys)
    if (std::optional<int64_t> v = get(k.key))
      entries.push_back(b.getNamedAttr(k.name, b.getI64IntegerAttr(*v)));
  for (const OfSegment &entry : segments)
    for (const ScheduleKeyInfo &k : kKeys)
      if (std::optional<int64_t> v = entry.values[unsigned(k.key)])
        entries.push_back(b.getNamedAttr(
            std::string(k.name) + "[" + std::to_string(entry.segment) + "]",
            b.getI64IntegerAttr(*v)));
  return ScheduleAttr::get(context, b.getDictionaryAttr(entries));
}

//===----------------------------------------------------------------------===//
// #fuser.schedule<KEY = VALUE, ...>
//===----------------------------------------------------------------------===//

LogicalResult ScheduleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   DictionaryAttr entries) {
  Schedule s;
  for (NamedAttribute e : entries) {
    StringRef name = e.getName().getValue();
    std::string error;
    ScheduleKeyName named = parseScheduleKeyName(name, error);
    if (!named.key)
      return emitError() << "#fuser.schedule: " << error;
    const ScheduleKeyInfo *key = named.key;
    auto value = dyn_cast<IntegerAttr>(e.getValue());
    if (!value || !value.getType().isSignlessInteger(64))
      return emitError() << "#fuser.schedule: key '" << name << "' must be an i64 integer";
    std::string must = checkScheduleValue(*key, value.getInt());
    if (!must.empty())
      return emitError() << "#fuser.schedule: key '" << name << "' (" << key->meaning
                         << ") must be " << must << ", got " << value.getInt();
    // Two spellings of one decision ("reduction.block[1]" and
    // "reduction.block[01]", as strings) are one key given twice.
    std::optional<int64_t> &slot = s.at(key->key, named.segment);
    if (slot)
      return emitError() << "#fuser.schedule: key '" << name << "' is given twice";
    slot = value.getInt();
  }
  std::string disagree = checkScheduleConsistency(s);
  if (!disagree.empty())
    return emitError() << "#fuser.schedule: " << disagree;
  return success();
}

Attribute ScheduleAttr::parse(AsmParser &parser, Type) {
  MLIRContext *ctx = parser.getContext();
  Builder b(ctx);
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<NamedAttribute> entries;
  if (parser.parseLess())
    return {};
  if (failed(parser.parseOptionalGreater())) {
    do {
      std::string name;
      int64_t value = 0;
      SMLoc at = parser.getCurrentLocation();
      if (parser.parseKeywordOrString(&name))
        return {};
      // `KEY[SEGMENT]`: the decision of one segment alone.
      if (succeeded(parser.parseOptionalLSquare())) {
        int64_t segment = 0;
        if (parser.parseInteger(segment) || parser.parseRSquare())
          return {};
        name += "[" + std::to_string(segment) + "]";
      }
      if (parser.parseEqual())
        return {};
      // parseInteger would take `true` and `false` as 1-bit integers.
      StringRef word;
      SMLoc valueAt = parser.getCurrentLocation();
      if (succeeded(parser.parseOptionalKeyword(&word))) {
        parser.emitError(valueAt) << "#fuser.schedule: key '" << name
                                  << "' needs an integer, got '" << word << "'";
        return {};
      }
      if (parser.parseInteger(value))
        return {};
      for (NamedAttribute &e : entries)
        if (e.getName() == name) {
          parser.emitError(at) << "#fuser.schedule: key '" << name << "' is given twice";
          return {};
        }
      entries.push_back(b.getNamedAttr(name, b.getI64IntegerAttr(value)));
    } while (succeeded(parser.parseOptionalComma()));
    if (parser.parseGreater())
      return {};
  }
  return getChecked([&] { return parser.emitError(loc); }, ctx,
                    b.getDictionaryAttr(entries));
}

void ScheduleAttr::print(AsmPrinter &printer) const {
  printer << "<";
  // In the table's order, the order a reader expects; one segment's after
  // every segment's, by segment.
  Schedule s = Schedule::fromAttr(*this);
  bool first = true;
  auto show = [&](const std::optional<int64_t> *values, std::optional<unsigned> segment) {
    for (const ScheduleKeyInfo &k : scheduleKeys())
      if (std::optional<int64_t> v = values[unsigned(k.key)]) {
        printer << (first ? "" : ", ") << k.name;
        if (segment)
          printer << "[" << *segment << "]";
        printer << " = " << *v;
        first = false;
      }
  };
  show(s.values, std::nullopt);
  for (const Schedule::OfSegment &entry : s.segments)
    show(entry.values, entry.segment);
  printer << ">";
}
