//===- ScheduleSegments.cpp - each segment's schedule, as an attribute ----===//
//
// fuser-schedule: after fuser-segment, before fuser-emit-kernels. Writes
// `fuser.schedules` on each segmented fusion: per segment, every decision of
// its scheduler that is a schedule key (Schedule.h), taken from the fusion's
// own `fuser.schedule`, else the `schedule` option, else the heuristic's
// default; in each, an entry for the segment alone (`KEY[SEGMENT]`) before
// the key for every segment. The emitters read only that entry, so the IR
// after this pass says how each kernel will be launched, a user can change
// it, and the same entry always gives the same kernels. `explain` prints the
// decisions and the facts behind them.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/IR/FuserAttrNames.h"
#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Target/Chips.h"
#include "fuser/Transforms/Passes.h"
#include "fuser/Transforms/Segments.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_SCHEDULEPASS
#include "fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// Where a decision came from, for explain.
enum class Source { Default, Option, OptionSegment, Fusion, FusionSegment, Given };

const char *sourceName(Source s) {
  switch (s) {
  case Source::Default:
    return "the heuristic's default";
  case Source::Option:
    return "the schedule option";
  case Source::OptionSegment:
    return "the schedule option's entry for this segment";
  case Source::Fusion:
    return "the fusion's fuser.schedule (the input's, or a tuning file's entry)";
  case Source::FusionSegment:
    return "the fusion's fuser.schedule's entry for this segment (the input's, or a tuning "
           "file's)";
  case Source::Given:
    return "the input's fuser.schedules";
  }
  return "";
}

/// The launch rule a scheduler's decisions feed, and what it still decides
/// at emission, for explain.
void explainRules(llvm::raw_ostream &os, GroupKind kind, const ChipInfo &chip) {
  switch (kind) {
  case GroupKind::Pointwise:
    os << "  launch: grid = min(ceil(units / (block x units per step)), waves x " << chip.smCount
       << " SMs x " << chip.maxThreadsPerSM
       << " / block), at least 1; a unit is `lanes` elements along the innermost dim\n"
          "  at emission: lanes (pointwise.vector_bytes of the narrowest element that moves "
          "with the innermost dim, fewer where a static inner size needs; the plan checks "
          "sizes and alignment at launch and takes the scalar loop otherwise), the index "
          "width where kernel.index_bits leaves it, and whether an input read across its "
          "contiguous dim makes it a transpose: then the transpose.* keys apply and the "
          "pointwise.* keys do not (a transpose.tile x (transpose.tile + 1) tile in shared "
          "memory per input read across, blocks of transpose.tile x transpose.rows, grid = "
          "min(tiles, transpose.waves x "
       << chip.smCount << " SMs x " << chip.maxThreadsPerSM
       << " / block))\n";
    return;
  case GroupKind::InnerOuter:
    os << "  launch: row kernel grid = min(max(ceil(rows / innerouter.rows), min(ceil(rows / "
          "rows a block holds at once), "
       << chip.smCount << " SMs x innerouter.min_blocks_per_sm)), " << chip.smCount
       << " SMs x innerouter.max_blocks_per_sm), at least 1; the column partials of each "
          "block are combined in a fixed order by the last block (or a combine kernel)\n"
          "  at emission: where the row lives (registers up to 16 values a thread, else "
          "shared memory, else re-read), threads along the row, the index width where "
          "kernel.index_bits leaves it\n";
    return;
  case GroupKind::Reduction:
  case GroupKind::Normalization:
    os << "  launch (inner kernels): block = threads per row x max(1, reduction.block / "
          "threads per row) rows, grid = min(ceil(rows / rows per block), reduction.waves x "
       << chip.smCount << " SMs x " << chip.maxThreadsPerSM
       << " / block); reduction.block and reduction.waves do not apply to outer (column) "
          "reductions, nor to a row split across blocks\n"
          "  launch (outer kernels): block = reduction.column_threads x "
          "reduction.column_rows, grid = min(column tiles, "
       << chip.smCount << " SMs x " << chip.maxThreadsPerSM
       << " / block) x splits\n"
          "  at emission: inner or outer reduction, threads per row where the schedule has no "
          "reduction.threads or the row's length is known only at launch, the split across "
          "blocks where it has no reduction.splits, the outer kernel's block where it has no "
          "reduction.column_threads or reduction.column_rows (each fixes a sum's order of "
          "accumulation: tune tries none of them), lanes (reduction.vector_bytes, fewer where "
          "a static inner size needs), row held in registers or shared memory or re-read, "
          "the index width where kernel.index_bits leaves it; fuser-emit-kernels=explain "
          "names each kernel's (ReductionHeuristics.cpp, docs/schedulers.md)\n";
    return;
  case GroupKind::Scan:
    os << "  launch: block = scan.block threads, a warp per line along the contiguous dim "
          "else a thread per line; grid = min(ceil(lines / lines per block), scan.waves x "
       << chip.smCount << " SMs x " << chip.maxThreadsPerSM
       << " / block)\n"
          "  at emission: warp or thread per line (the scanned dim contiguous or not), the "
          "index width where kernel.index_bits leaves it; the order of accumulation follows "
          "the position only, the same under every key (ScanScheduler.cpp)\n";
    return;
  case GroupKind::Matmul:
    os << "  no decision of this scheduler is a schedule key yet: the library's (cuBLASLt) "
          "algorithm is chosen at launch (MatmulSegment.cpp)\n";
    return;
  case GroupKind::Collective:
    os << "  no decision of this scheduler is a schedule key yet: a library call "
          "(CollectiveSegment.cpp)\n";
    return;
  }
}

struct SchedulePass : fuser::impl::SchedulePassBase<SchedulePass> {
  using SchedulePassBase::SchedulePassBase;

  void runOnOperation() override {
    ModuleOp m = getOperation();
    const ChipInfo *chipInfo = lookupChip(chip);
    if (!chipInfo) {
      m.emitError("unknown chip '") << chip << "'; expected " << knownChipNames();
      return signalPassFailure();
    }
    std::string error;
    std::optional<Schedule> forced = Schedule::parse(schedule, error);
    if (!forced) {
      m.emitError("schedule option: ") << error;
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> fusions;
    for (auto fusion : m.getOps<func::FuncOp>())
      if (fusion->hasAttr(kSchedulersAttr))
        fusions.push_back(fusion);
    // The option's decisions for one segment: with one fusion, each must
    // fit it (scheduleFusion); with several (a file of fusions compiled
    // together), each fusion takes those that fit it, and one that fits
    // none is an error.
    std::vector<Schedule::OfSegment> usedBySegment;
    for (const Schedule::OfSegment &entry : forced->segments) {
      Schedule::OfSegment none{};
      none.segment = entry.segment;
      usedBySegment.push_back(none);
    }
    for (func::FuncOp fusion : fusions) {
      Schedule forcedHere = *forced;
      bool strict = fusions.size() == 1;
      if (!strict) {
        FailureOr<SmallVector<Segment>> segments = getSegments(fusion);
        if (failed(segments))
          return signalPassFailure();
        for (auto [e, entry] : llvm::enumerate(forcedHere.segments))
          for (const ScheduleKeyInfo &k : scheduleKeys()) {
            std::optional<int64_t> &v = entry.values[unsigned(k.key)];
            if (!v)
              continue;
            if (entry.segment < segments->size() &&
                keyAppliesTo(k.key, (*segments)[entry.segment].scheduler))
              usedBySegment[e].values[unsigned(k.key)] = *v;
            else
              v.reset();
          }
      }
      if (failed(scheduleFusion(fusion, forcedHere, *chipInfo, strict)))
        return signalPassFailure();
    }
    if (fusions.size() > 1)
      for (auto [e, entry] : llvm::enumerate(forced->segments))
        for (const ScheduleKeyInfo &k : scheduleKeys())
          if (entry.values[unsigned(k.key)] && !usedBySegment[e].values[unsigned(k.key)]) {
            m.emitError("the schedule option sets ")
                << k.name << "[" << entry.segment << "], but no fusion of the module has a "
                << "segment " << entry.segment << " that reads it (--fuser-segment=dump "
                << "lists each fusion's segments)";
            return signalPassFailure();
          }
  }

  LogicalResult scheduleFusion(func::FuncOp fusion, const Schedule &forced,
                               const ChipInfo &chipInfo, bool strictOption) {
    // A schedule already there (written by hand, or an earlier run) is
    // used as it is; getSegments checks it against the segments.
    bool given = fusion->hasAttr(kSchedulesAttr);
    FailureOr<SmallVector<Segment>> segments = getSegments(fusion);
    if (failed(segments))
      return failure();
    Schedule ofFusion =
        Schedule::fromAttr(fusion->getAttrOfType<ScheduleAttr>(kScheduleAttr));
    if (!given && (failed(checkSegmentEntries(fusion, *segments, ofFusion,
                                              "its " + kScheduleAttr.str() +
                                                  " (the input's, or a tuning file's entry)")) ||
                   (strictOption &&
                    failed(checkSegmentEntries(fusion, *segments, forced, "the schedule option")))))
      return failure();
    SmallVector<Attribute> entries(segments->size());
    for (const Segment &s : *segments) {
      Schedule written = Schedule::fromAttr(dyn_cast_or_null<ScheduleAttr>(s.schedule));
      // A segment's own entry wins over every segment's, the fusion's
      // over the option's.
      Schedule fusionHere = ofFusion.forSegment(s.index), forcedHere = forced.forSegment(s.index);
      Schedule chosen;
      Source source[kNumScheduleKeys] = {};
      for (const ScheduleKeyInfo &k : scheduleKeys()) {
        if (!keyAppliesTo(k.key, s.scheduler))
          continue;
        unsigned i = unsigned(k.key);
        if (given) {
          chosen.values[i] = written.values[i];
          source[i] = Source::Given;
        } else if (fusionHere.values[i]) {
          chosen.values[i] = fusionHere.values[i];
          source[i] =
              setForSegment(ofFusion, s.index, i) ? Source::FusionSegment : Source::Fusion;
        } else if (forcedHere.values[i]) {
          chosen.values[i] = forcedHere.values[i];
          source[i] = setForSegment(forced, s.index, i) ? Source::OptionSegment : Source::Option;
        } else {
          chosen.values[i] = k.defaultValue;
          source[i] = Source::Default;
        }
      }
      // Each value is legal alone; together they may not be (a floor from
      // the fusion above a cap from the option).
      std::string disagree = checkScheduleConsistency(chosen);
      if (!disagree.empty())
        return fusion.emitError("segment ") << s.index << "'s schedule: " << disagree;
      entries[s.index] = chosen.toAttr(fusion.getContext());
      if (explain)
        explainSegment(fusion, s, chosen, source, chipInfo);
    }
    if (!given)
      fusion->setAttr(kSchedulesAttr, ArrayAttr::get(fusion.getContext(), entries));
    return success();
  }

  /// Whether `schedule` has an entry of segment `segment` for key `i`.
  static bool setForSegment(const Schedule &schedule, unsigned segment, unsigned i) {
    for (const Schedule::OfSegment &entry : schedule.segments)
      if (entry.segment == segment)
        return entry.values[i].has_value();
    return false;
  }

  /// Every decision `schedule` makes for one segment names a segment of
  /// `fusion` whose scheduler takes it: a decision that would be dropped
  /// is an error, not a silent no-op.
  static LogicalResult checkSegmentEntries(func::FuncOp fusion, ArrayRef<Segment> segments,
                                           const Schedule &schedule, const std::string &where) {
    for (const Schedule::OfSegment &entry : schedule.segments)
      for (const ScheduleKeyInfo &k : scheduleKeys()) {
        if (!entry.values[unsigned(k.key)])
          continue;
        if (entry.segment >= segments.size())
          return fusion.emitError() << where << " sets " << k.name << "[" << entry.segment
                                    << "], but @" << fusion.getSymName() << " has "
                                    << segments.size() << " segment"
                                    << (segments.size() == 1 ? "" : "s")
                                    << " (--fuser-segment=dump lists them)";
        GroupKind kind = segments[entry.segment].scheduler;
        if (!keyAppliesTo(k.key, kind))
          return fusion.emitError()
                 << where << " sets " << k.name << "[" << entry.segment << "], but segment "
                 << entry.segment << " of @" << fusion.getSymName() << " is "
                 << groupKindWithArticle(kind) << " segment and " << k.name
                 << " is a decision of "
                 << keyOwnerText(k.key);
      }
    return success();
  }

  void explainSegment(func::FuncOp fusion, const Segment &s, const Schedule &chosen,
                      const Source *source, const ChipInfo &chip) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "schedule of @" << fusion.getSymName() << " segment " << s.index << ": "
       << groupKindName(s.scheduler) << " scheduler, " << s.ops.size() << " ops, outputs";
    for (Value out : s.outputs)
      os << " " << out.getType();
    os << "; " << chip.name << ", " << chip.smCount << " SMs, " << chip.maxThreadsPerSM
       << " threads an SM\n";
    for (const ScheduleKeyInfo &k : scheduleKeys()) {
      if (!keyAppliesTo(k.key, s.scheduler))
        continue;
      unsigned i = unsigned(k.key);
      std::optional<int64_t> value = chosen.values[i];
      bool byHeuristic = source[i] == Source::Default || !value;
      if (!value)
        value = k.defaultValue;
      os << "  " << k.name << " = ";
      if (value)
        os << *value;
      else
        os << "(heuristic)";
      os << ": " << k.meaning << "; ";
      if (byHeuristic)
        os << (value ? "the heuristic's default, " : "") << k.whenAbsent;
      else
        os << "from " << sourceName(source[i]);
      os << "\n";
    }
    explainRules(os, s.scheduler, chip);
    // One remark, its lines in order; the trailing newline is the
    // diagnostic's.
    if (!text.empty() && text.back() == '\n')
      text.pop_back();
    mlir::emitRemark(fusion.getLoc(), text);
  }
};

} // namespace
