//===- Tuning.h - tuning files: schedules chosen per fusion -----*- C++ -*-===//
//
// A tuning file (written by `fuserc tune`, docs/tuning.md) names, for a
// fusion and a chip, the schedule to compile it with. Its entries are keyed
// by a hash of the fusion's structure, so that a tuning made once applies
// wherever the same fusion is compiled again, whatever its name or the SSA
// names of its values. This file is the one definition of that key and of
// the file's syntax.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_DRIVER_TUNING_H
#define FUSER_DRIVER_TUNING_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace mlir::fuser {

/// 16 hex digits: a hash (SHA-256, truncated) of the fusion as the compiler
/// reads it: its ops, their attributes, its types and its arguments' and
/// results' attributes, in the generic form without locations. Not in the
/// hash: the fusion's name and visibility, its arguments' names
/// (`fuser.name`, from SSA names), and its own `fuser.schedule`, which a
/// tuning sets. Nor what it refers to outside itself: a sharded fusion's
/// grid (tune skips sharded fusions; an entry written by hand applies to
/// every grid).
std::string fusionTuningHash(func::FuncOp fusion);

/// Sets `fuser.schedule` on each fusion of `module` that the tuning file
/// text `tuning` has an entry for (its hash and `chip`); where the fusion
/// carries a `fuser.schedule` of its own, its decisions win key by key (and
/// segment by segment) and the entry fills in the rest. A malformed line,
/// an entry whose schedule does not verify, or one that disagrees with the
/// fusion's own (a floor above a cap) is an error naming `source` and the
/// line; nothing is applied then.
LogicalResult applyTuning(ModuleOp module, llvm::StringRef tuning, llvm::StringRef chip,
                          llvm::StringRef source = "tuning");

/// The segments fuser-segment cuts `fusion` into, in order: each one's
/// scheduler name, as `fuser.schedulers` writes it. A tuner needs them to
/// try a key on one segment alone (`KEY[SEGMENT]=VALUE`). Segments a copy
/// of the fusion; failure (with the diagnostics) where it does not check
/// or segment.
FailureOr<std::vector<std::string>> fusionSegmentSchedulers(func::FuncOp fusion);

} // namespace mlir::fuser

#endif
