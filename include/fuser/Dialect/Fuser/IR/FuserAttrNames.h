//===- FuserAttrNames.h - names of fuser's discardable attributes -*- C++ -*-===//
//
// One definition of each attribute name the passes, the C API and the bundle
// writer put on or read from functions (fuser-segment's own are in
// fuser/Transforms/Segments.h).
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_DIALECT_FUSER_IR_FUSERATTRNAMES_H
#define FUSER_DIALECT_FUSER_IR_FUSERATTRNAMES_H

#include "llvm/ADT/StringRef.h"

namespace mlir::fuser {

/// On a fusion's (or plan's) argument or result: its name in the bundle and
/// in messages, an identifier.
inline constexpr llvm::StringLiteral kNameAttr = "fuser.name";
/// On a fusion's argument: it is a view, read through these strides in
/// elements (a builtin `strided<[...]>` layout with offset 0; `?` for a
/// stride passed at launch; 0 for an expanded dim). Results are dense.
inline constexpr llvm::StringLiteral kStridesAttr = "fuser.strides";
/// On a fusion's result: it has the run-time shape of the argument at this
/// position (an i64). fuser-vjp puts it on each gradient, whose dims a
/// broadcast may make (the gradient of a sum) and nothing else ties to the
/// input's; the shape analysis ties them.
inline constexpr llvm::StringLiteral kSameShapeAsAttr = "fuser.same_shape_as";
/// On a fuser.reshape: its result has its input's dims, one for one; only
/// which of them are known at compile time differs (fuser-vjp gives a
/// gradient its operand's type so). The shape analysis ties the dims in
/// pairs, where the general reshape rule would pair them by sizes.
inline constexpr llvm::StringLiteral kRefinesShapeAttr = "fuser.refines_shape";
/// On a fuser.reshape: its result's dims are the ones its uses (or the
/// fusion's result) give, not the general rule's guess from its input
/// (fuser-vjp's reshape of a gradient back to `[?, ?]` from `[?]`, which
/// the rule would split as `[n, 1]`). The shape analysis sizes it after
/// every other op; only where nothing ties a dim does the rule apply.
inline constexpr llvm::StringLiteral kDimsFromUsesAttr = "fuser.dims_from_uses";
/// On a fuser.reshape: its result's sizes, an affine map with no dims whose
/// symbol i is the i-th dynamic dim among the fusion's arguments' dims, in
/// order (the shape analysis's symbols), one result per result dim.
/// fuser-segment replaces kDimsFromUsesAttr with it once the uses have
/// sized the reshape, so that a copy of the reshape in another segment,
/// which its uses there may not size, keeps those sizes. The element count
/// is still checked against the input's.
inline constexpr llvm::StringLiteral kSizesAttr = "fuser.sizes";
/// On an argument of a fusion fuser-vjp built (@f_vjp, @f_bwd): a
/// cotangent, whose shape is the forward result's. Its dims do not size a
/// reshape the forward sized by its rule (the shape analysis's guessing
/// reshapes): they are checked against it when the fusion runs, as torch
/// checks a grad_output's shape.
inline constexpr llvm::StringLiteral kCotangentAttr = "fuser.cotangent";
/// On an op of a gradient fuser-vjp built: it is part of the gradient of a
/// prod or cumprod, whose rule picks, by where, between a quotient and a
/// product of the others at zeros. Its value is PyTorch's; its own
/// derivative at a zero is not (the unpicked side's NaN, the picked side's
/// derivative through the where), so fuser-vjp refuses to differentiate it
/// again rather than give a wrong second derivative.
inline constexpr llvm::StringLiteral kFirstOrderAttr = "fuser.first_order";
/// On a fusion: a #fuser.schedule whose decisions every segment of the
/// fusion takes, and with `KEY[SEGMENT]` one segment alone (written in the
/// input or by a tuning file; wins over the `schedule` option).
inline constexpr llvm::StringLiteral kScheduleAttr = "fuser.schedule";
/// On a segmented fusion: an array of #fuser.schedule, one per segment in
/// the order of `fuser.schedulers`, written by fuser-schedule (or by hand);
/// fuser-emit-kernels builds each segment's kernels from its entry alone.
inline constexpr llvm::StringLiteral kSchedulesAttr = "fuser.schedules";
/// On a sharded fusion (and its plan): the shape of the device grid it
/// runs on, a DenseI64ArrayAttr of static sizes (docs/sharding.md; the
/// bundle's GRID record). fuser-record-grid puts it there before partition.
inline constexpr llvm::StringLiteral kGridAttr = "fuser.grid";
/// On a sharded fusion's (and its plan's) argument or result: for each
/// dim, the bit mask of the grid axes that split it (0: whole), a
/// DenseI64ArrayAttr. The types are one device's; a split dim's whole size
/// is the local size times the product of its axes' sizes.
inline constexpr llvm::StringLiteral kSplitAttr = "fuser.split";
/// On a launch plan (a func.func fuser-emit-kernels made from a fusion).
inline constexpr llvm::StringLiteral kPlanAttr = "fuser.plan";
/// On a launch plan: how many of its memref arguments are the fusion's
/// arguments (the rest are its results).
inline constexpr llvm::StringLiteral kNumArgsAttr = "fuser.num_args";
/// On a kernel (gpu.func): its workgroup attributions live in dynamic shared
/// memory, laid out in order, each 16-byte aligned, and its launches pass
/// their total: a block may then use more than the 48 KiB of static shared
/// memory PTX allows (up to the target's opt-in limit). The NVVM lowering
/// turns the attributions into views of gpu.dynamic_shared_memory; the CPU
/// emulator places them in the launch's dynamic shared memory.
inline constexpr llvm::StringLiteral kDynamicSharedAttr = "fuser.dynamic_shared";

/// On a kernel's llvm.load or llvm.store: an access to memory that blocks
/// of one launch hand to each other (a split reduction's partials, read by
/// the last block). The CPU emulation checks that each such value was made
/// visible (a fence before the writer's atomic arrival, a fence after the
/// reader's) and the NVVM lowering drops the mark.
inline constexpr llvm::StringLiteral kCrossBlockAttr = "fuser.cross_block";

/// On a kernel's llvm.atomicrmw: the exchange that elects the thread which
/// records an index out of range in the fusion's index error word (not a
/// block's arrival: the CPU emulation's fence check ignores it).
inline constexpr llvm::StringLiteral kIndexErrorAttr = "fuser.index_error";
/// The index error word's i64 elements (fuser.index_check; its layout is
/// FUSER_INDEX_WORD_* of runtime/include/fuser_bundle_format.h, which the
/// bundle writer checks against this).
inline constexpr int64_t kIndexErrorWordSize = 8;

/// The bytes a kernel's workgroup attributions take when laid out in order,
/// each 16-byte aligned (the layout of kDynamicSharedAttr).
inline constexpr int64_t alignSharedBytes(int64_t bytes) { return (bytes + 15) / 16 * 16; }
} // namespace mlir::fuser

#endif
