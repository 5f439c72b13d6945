//===- Tuning.cpp - tuning files: schedules chosen per fusion -------------===//
//
// The file is text, one entry a line:
//
//   # comment (fuserc tune writes what it measured here)
//   HASH CHIP SCHEDULE
//
// HASH is fusionTuningHash, CHIP a --chip name, SCHEDULE the `schedule`
// option's syntax without spaces (`pointwise.block=512,pointwise.units=2`).
// Blank lines and lines starting with '#' are ignored; the last entry for a
// hash and chip wins, so appending a newer tuning to a file updates it.
//
//===----------------------------------------------------------------------===//

#include "fuser/Driver/Tuning.h"

#include "fuser/Dialect/Fuser/IR/FuserAttrNames.h"
#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Dialect/Fuser/IR/Schedule.h"
#include "fuser/Pipelines/Pipelines.h"
#include "fuser/Target/Chips.h"
#include "fuser/Transforms/Passes.h"
#include "fuser/Transforms/Segments.h"

#include "mlir/IR/Builders.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/SHA256.h"

using namespace mlir;
using namespace mlir::fuser;

std::string mlir::fuser::fusionTuningHash(func::FuncOp fusion) {
  // A copy, so that the fusion itself is left as it is: renamed, its own
  // schedule and its arguments' names dropped.
  OwningOpRef<func::FuncOp> copy = fusion.clone();
  func::FuncOp f = *copy;
  f.setSymName("fusion");
  f.setSymVisibilityAttr(nullptr);
  f->removeAttr(kScheduleAttr);
  for (unsigned i = 0; i < f.getNumArguments(); ++i)
    f.removeArgAttr(i, kNameAttr);
  for (unsigned i = 0; i < f.getNumResults(); ++i)
    f.removeResultAttr(i, StringAttr::get(f.getContext(), kNameAttr));
  std::string text;
  llvm::raw_string_ostream os(text);
  f->print(os, OpPrintingFlags().printGenericOpForm().enableDebugInfo(false));
  auto sum = llvm::SHA256::hash(llvm::arrayRefFromStringRef(text));
  return llvm::toHex(llvm::ArrayRef<uint8_t>(sum).take_front(8), /*LowerCase=*/true);
}

LogicalResult mlir::fuser::applyTuning(ModuleOp module, StringRef tuning, StringRef chip,
                                       StringRef source) {
  MLIRContext *ctx = module.getContext();
  struct Entry {
    Schedule schedule;
    unsigned line;
  };
  llvm::StringMap<Entry> entries; // HASH -> schedule, for `chip`
  SmallVector<StringRef> lines;
  tuning.split(lines, '\n');
  auto fail = [&](unsigned line, const Twine &message, unsigned column = 1) {
    return emitError(FileLineColLoc::get(ctx, source, line, column)) << message;
  };
  for (auto [index, raw] : llvm::enumerate(lines)) {
    unsigned lineNo = index + 1;
    StringRef line = raw.trim();
    if (line.empty() || line.starts_with("#"))
      continue;
    // An entry is printable ASCII: the messages below quote it, and a
    // control byte quoted raw (an escape sequence, a NUL) garbles them.
    for (auto [column, c] : llvm::enumerate(line))
      if ((c < 0x20 && c != '\t') || (unsigned char)c >= 0x7f)
        return fail(lineNo,
                    "byte 0x" + llvm::utohexstr((unsigned char)c, /*LowerCase=*/true,
                                                /*Width=*/2) +
                        " is not printable ASCII: a tuning entry is text (docs/tuning.md)",
                    raw.find(line) + column + 1);
    SmallVector<StringRef> fields;
    line.split(fields, ' ', -1, /*KeepEmpty=*/false);
    if (fields.size() != 3)
      return fail(lineNo, "a tuning entry is 'HASH CHIP SCHEDULE' (three fields separated by "
                          "spaces), got '" + line + "'");
    StringRef hash = fields[0], entryChip = fields[1], text = fields[2];
    if (hash.size() != 16 || !llvm::all_of(hash, llvm::isHexDigit))
      return fail(lineNo, "the fusion hash must be 16 hex digits, got '" + hash + "'");
    if (!lookupChip(entryChip))
      return fail(lineNo, "unknown chip '" + entryChip + "'; expected " + knownChipNames());
    std::string error;
    std::optional<Schedule> schedule = Schedule::parse(text, error);
    if (!schedule)
      return fail(lineNo, "bad schedule: " + error);
    if (entryChip == chip)
      entries[hash.lower()] = Entry{*schedule, lineNo};
  }
  if (entries.empty())
    return success();
  for (auto f : module.getOps<func::FuncOp>()) {
    if (f.isExternal())
      continue;
    auto it = entries.find(fusionTuningHash(f));
    if (it == entries.end())
      continue;
    // The fusion's own decisions win key by key: a key it sets for every
    // segment overrides the entry's for every segment and for each one; the
    // entry fills in the rest.
    Schedule merged = it->second.schedule;
    Schedule own = Schedule::fromAttr(f->getAttrOfType<ScheduleAttr>(kScheduleAttr));
    for (unsigned i = 0; i < kNumScheduleKeys; ++i) {
      if (!own.values[i])
        continue;
      merged.values[i] = own.values[i];
      for (Schedule::OfSegment &entry : merged.segments)
        entry.values[i].reset();
    }
    for (const Schedule::OfSegment &entry : own.segments)
      for (unsigned i = 0; i < kNumScheduleKeys; ++i)
        if (entry.values[i])
          merged.ofSegment(entry.segment).values[i] = entry.values[i];
    std::string disagree = checkScheduleConsistency(merged);
    if (!disagree.empty())
      return fail(it->second.line, "the entry for '" + f.getSymName() +
                                       "' and the fusion's own " + kScheduleAttr +
                                       " disagree: " + disagree);
    f->setAttr(kScheduleAttr, merged.toAttr(ctx));
  }
  return success();
}

FailureOr<std::vector<std::string>> mlir::fuser::fusionSegmentSchedulers(func::FuncOp fusion) {
  // The compile's own stages up to segmentation (lib/Pipelines), on a copy.
  OwningOpRef<ModuleOp> module = ModuleOp::create(fusion.getLoc());
  module->push_back(fusion.clone());
  PassManager pm(fusion.getContext());
  buildCheckStage(pm);
  buildDecomposeStage(pm);
  pm.addPass(createSegmentPass());
  if (failed(pm.run(*module)))
    return failure();
  auto segmented = *module->getOps<func::FuncOp>().begin();
  auto names = segmented->getAttrOfType<ArrayAttr>(kSchedulersAttr);
  if (!names)
    return segmented.emitError("fuser-segment left no ") << kSchedulersAttr;
  std::vector<std::string> result;
  for (Attribute n : names)
    result.push_back(cast<StringAttr>(n).getValue().str());
  return result;
}
