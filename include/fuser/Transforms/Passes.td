//===- Passes.td - fuser transformation passes --------------*- tablegen -*-===//
#ifndef FUSER_TRANSFORMS_PASSES_TD
#define FUSER_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def CheckFusionsPass : Pass<"fuser-check-fusions", "ModuleOp"> {
  let summary = "Reject a module that holds anything but fusions";
  let description = [{
    The first pass of `fuser-compile` (and of `fuserc compile` and
    `fuserCompile`): every top-level op must be a `func.func` with one block
    of fuser tensor ops ending in `func.return`, over ranked tensors of
    fuser's element types and at most `FUSER_MAX_RANK` dims, with argument
    and result names (`fuser.name`) that are unique identifiers, and no
    attribute of fuser's own passes (`fuser.plan`, ...). A hand-written
    launch plan or `gpu.module`, a function of other dialects, or a body that
    does not return would otherwise compile into a bundle that runs wrong
    kernels or none.
  }];
  let dependentDialects = ["::mlir::fuser::FuserDialect"];
}

def CheckShardingPass : Pass<"fuser-check-sharding", "func::FuncOp"> {
  let summary = "Refuse a split into parts that are not equal and static; annotate whole values";
  let description = [{
    Runs between `sharding-propagation` and `shard-partition` (the
    `fuser-partition` pipeline). Upstream's partition gives each device
    `size / devices` elements of a split dim, rounded down, so a remainder
    would be silently lost; fuser's rules also assume equal parts (a mean
    over a split dim averages the parts' means). Errors:
    - a split dim whose size the devices do not divide;
    - a split dim whose size, or a grid whose shape, is known only at launch;
    - uneven parts or halos (`sharded_dims_offsets`, `halo_sizes`);
    - a sharding over an undefined grid or a grid axis it lacks.

    It also completes what propagation leaves out: a value whose users are
    annotated but which has no annotation of its own (an argument nobody
    split, an op whose operands are all whole) is annotated whole, which
    upstream's partition needs (it crashes without). And an operand
    annotated for its op (`annotate_for_users`) with another split than the
    op computes with, which propagation keeps as written and partition would
    turn into parts of different shapes, is resharded: the op's results'
    splits decide, then its operands' in order.

    With `before-propagation`, it only checks the annotations as written (a
    sharding that does not come from a `shard.sharding` op crashes
    upstream's propagation), and annotates nothing.
  }];
  let options = [
    Option<"beforePropagation", "before-propagation", "bool", /*default=*/"false",
           "Only check the annotations as written, before sharding-propagation">,
  ];
  let dependentDialects = ["::mlir::shard::ShardDialect"];
}

def RecordGridPass : Pass<"fuser-record-grid", "func::FuncOp"> {
  let summary = "Record a sharded fusion's grid and the split of each argument and result";
  let description = [{
    Runs after `fuser-check-sharding`, before `shard-partition` (the
    `fuser-partition` pipeline), which rewrites the signature into one
    device's types and drops the annotations. It keeps what a caller needs
    to hand each device its part and to join the results: `fuser.grid`
    (the grid's static shape) on the function and `fuser.split` (per dim,
    the mask of grid axes that split it) on every argument and result. A
    function with no `shard.shard` is left alone. Errors: shardings over
    two grids in one fusion, a grid of more than 4 axes, a dim split by
    axes in descending order (the bundle keeps a set of axes per dim).
  }];
  let dependentDialects = ["::mlir::shard::ShardDialect"];
}

def LowerCollectivesPass : Pass<"fuser-lower-collectives", "ModuleOp"> {
  let summary = "Turn the shard dialect's collectives into fuser.collective";
  let description = [{
    Runs after `shard-partition`. Each `shard.all_reduce`,
    `shard.all_gather`, `shard.reduce_scatter`, `shard.all_slice` and
    `shard.all_to_all` becomes
    a `fuser.collective` over a new leading dim of the group's size, with
    the `fuser.permute` and `fuser.reshape` that bring the split dim to the
    front (and back): the communication library exchanges contiguous parts.
    A reduction the library lacks is mapped where it is exact (`any` and
    `all` of i1: max and min) and an error otherwise. Other shard ops
    (send, recv, halos, process indices, broadcasts) are errors: fuser runs
    none of them yet. Grids nothing refers to any more are erased (the
    fusion keeps its grid's shape in `fuser.grid`).
  }];
  let dependentDialects = ["::mlir::shard::ShardDialect", "::mlir::fuser::FuserDialect"];
}

def LiftRankZeroPass : Pass<"fuser-lift-rank-zero", "func::FuncOp"> {
  let summary = "Rewrite ops along a dim of a rank-0 tensor as ops of a [1] tensor";
  let description = [{
    PyTorch reads dim 0 or -1 of a scalar as the dim of its one element
    (torch.sum(s, 0), s.cumsum(0), torch.softmax(s, -1)); fuser's ops take a
    rank-0 input with dim 0. This pass rewrites each such reduction,
    var_mean, scan, softmax and log_softmax as the same op over the input
    reshaped to tensor<1xT>, its results reshaped back to rank 0 (cumsum,
    cumprod and prod: the input, as PyTorch copies a scalar), so that the passes
    after it meet no dim a tensor lacks. fuser-decompose runs the
    same rewrite; fuser-partition runs this pass before its propagation.
  }];
  let dependentDialects = ["::mlir::fuser::FuserDialect"];
}

def DecomposeCompositesPass : Pass<"fuser-decompose", "func::FuncOp"> {
  let summary = "Expand composite fuser ops (softmax, log_softmax, layer_norm, "
                "rms_norm) into primitive fuser ops";
  let description = [{
    Rewrites each composite op into reductions, broadcasts and elementwise ops
    with the same PyTorch semantics, so that the segmenter and the schedulers
    only see primitive ops and can fuse a hand-written normalization and the
    composite one alike. f16 and bf16 inputs are cast to f32 for the
    computation and the result is cast back.
  }];
  let dependentDialects = ["::mlir::fuser::FuserDialect"];
}

def SegmentPass : Pass<"fuser-segment", "ModuleOp"> {
  let summary = "Partition each fusion into the fewest groups a scheduler takes";
  let description = [{
    Annotates every op of every fusion with `fuser.segment = N`, the group it
    belongs to, and the fusion with `fuser.schedulers`, the scheduler of each
    group (`pointwise`, `reduction`, `normalization`, `inner-outer`), groups numbered so that
    each comes after the groups it reads. Values that cross from one group to
    another become intermediates in global memory; `fuser-emit-kernels`
    builds the kernels of each group.

    Groups grow greedily, consumers first: walking the ops from last to
    first, each op joins the group of a consumer when the merged group is
    acyclic and a scheduler accepts it (so a prologue joins the reduction
    that reads it instead of being written out); then groups that share no
    path merge the same way (sibling reductions of one input become one
    kernel). Constants and iotas are copied into every group that uses them.
    With `dump`, prints each group, its scheduler and why each boundary
    between groups was needed; with `dot`, writes a DOT picture.
  }];
  let options = [
    Option<"dump", "dump", "bool", /*default=*/"false",
           "Print the segments and the reasons for their boundaries to stderr">,
    Option<"dot", "dot", "std::string", /*default=*/"\"\"",
           "Write a DOT picture of each fusion, ops coloured by segment, to "
           "<dot>.<fusion>.dot">,
  ];
  let dependentDialects = ["::mlir::fuser::FuserDialect"];
}

def SchedulePass : Pass<"fuser-schedule", "ModuleOp"> {
  let summary = "Write each segment's schedule decisions on its fusion, as #fuser.schedule";
  let description = [{
    Between fuser-segment and fuser-emit-kernels: gives each segmented fusion
    `fuser.schedules`, one `#fuser.schedule` per segment (in the order of
    `fuser.schedulers`) holding every decision of that segment's scheduler
    that is a schedule key (Schedule.h): the fusion's own `fuser.schedule`
    where it sets one, else the `schedule` option's, else the heuristic's
    default. fuser-emit-kernels reads only these entries. A fusion that
    already has `fuser.schedules` (written by hand, or scheduled before)
    keeps them: a user's schedule is verified and used.

    With `explain`, prints per segment (as a remark) its scheduler, ops and
    outputs, the chip, each decision with where it came from and why, the
    launch rule the decisions feed, and the decisions the scheduler still
    takes at emission (docs/schedulers.md, "Schedules as IR").
  }];
  let options = [
    Option<"schedule", "schedule", "std::string", /*default=*/"\"\"",
           "Decisions forced, as comma-separated KEY=VALUE (every segment that "
           "reads the key) or KEY[SEGMENT]=VALUE (that segment alone, which must "
           "read it): "
           "pointwise.block, pointwise.units, pointwise.waves, pointwise.vector_bytes, "
           "transpose.tile, transpose.rows, transpose.waves, "
           "reduction.block, reduction.waves, reduction.threads, reduction.splits, "
           "reduction.column_threads, reduction.column_rows, reduction.vector_bytes, innerouter.rows, "
           "innerouter.min_blocks_per_sm, innerouter.max_blocks_per_sm, "
           "innerouter.min_threads, innerouter.max_registers, scan.block, scan.waves, "
           "kernel.index_bits "
           "(docs/schedulers.md)">,
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "Target GPU, for explain's launch rules (its SM count)">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Print each segment's decisions and the facts behind them">,
  ];
  let dependentDialects = ["::mlir::fuser::FuserDialect"];
}

def VjpPass : Pass<"fuser-vjp", "ModuleOp"> {
  let summary = "Add the reverse-mode derivative of fusions: @f_vjp from @f";
  let description = [{
    For each fusion `@f(inputs) -> (results)` (or only `fusion`), adds
    `@f_vjp(inputs..., cotangents...) -> (gradients...)`: one cotangent
    argument per floating-point result (its type, named `grad_<result>`),
    one gradient result per floating-point input (its type, named
    `grad_<input>`), in order; `wrt` and `results` pick inputs and results
    by position. `@f` is unchanged. The body recomputes the forward from the
    inputs and applies each op's rule in reverse (PyTorch's derivative
    formulas and conventions: docs/autodiff.md), then canonicalize and cse
    simplify it. An op without a rule is an error naming it, and nothing is
    added.
  }];
  let options = [
    Option<"fusion", "fusion", "std::string", /*default=*/"\"\"",
           "Differentiate only the fusion of this name (default: every fusion)">,
    ListOption<"wrt", "wrt", "int64_t",
               "Inputs to differentiate with respect to, by position (default: "
               "every floating-point input)">,
    ListOption<"results", "results", "int64_t",
               "Results whose cotangents the backward takes, by position "
               "(default: every floating-point result)">,
    Option<"residuals", "residuals", "bool", /*default=*/"false",
           "Build @f_fwd (the results, then the residuals the backward reads) and "
           "@f_bwd (the residuals, then the cotangents) instead of @f_vjp">,
  ];
  let dependentDialects = ["::mlir::fuser::FuserDialect"];
}

#endif // FUSER_TRANSFORMS_PASSES_TD
