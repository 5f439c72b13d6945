// Changes of split of more than one grid axis on a 2x2 grid, which the
// partition makes one axis at a time (fuser-reshard-in-steps writes the
// steps; sharded-reshard-steps.test). Each was a diagnostic, a crash or a
// result of the wrong shape before. x is 4x6x8 throughout.
shard.grid @grid(shape = 2x2)

// Whole to split over both axes at once: the result was split over axis 0
// only and joined as garbage of shape 4x12x8.
func.func @whole_to_two(%x: tensor<4x6x8xf32>) -> tensor<4x6x8xf32> {
  %s = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<4x6x8xf32>
  %t = shard.sharding @grid split_axes = [[0], [1]] : !shard.sharding
  %r = shard.shard %xs to %t : tensor<4x6x8xf32>
  return %r : tensor<4x6x8xf32>
}

// Split over both axes to whole: only axis 0 was gathered.
func.func @two_to_whole(%x: tensor<4x6x8xf32>) -> tensor<4x6x8xf32> {
  %s = shard.sharding @grid split_axes = [[0], [1]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<4x6x8xf32>
  %e = fuser.exp %xs : tensor<4x6x8xf32>
  %es = shard.shard %e to %s : tensor<4x6x8xf32>
  %w = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %r = shard.shard %es to %w : tensor<4x6x8xf32>
  return %r : tensor<4x6x8xf32>
}

// A split moved from axis 0 to axis 1: a crash.
func.func @axis_move(%x: tensor<4x6x8xf32>) -> tensor<4x6x8xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<4x6x8xf32>
  %t = shard.sharding @grid split_axes = [[1]] : !shard.sharding
  %r = shard.shard %xs to %t : tensor<4x6x8xf32>
  return %r : tensor<4x6x8xf32>
}

// Both axes swapped: an internal error.
func.func @swapped(%x: tensor<4x6x8xf32>) -> tensor<4x6x8xf32> {
  %s = shard.sharding @grid split_axes = [[0], [1]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<4x6x8xf32>
  %t = shard.sharding @grid split_axes = [[1], [0]] : !shard.sharding
  %r = shard.shard %xs to %t : tensor<4x6x8xf32>
  return %r : tensor<4x6x8xf32>
}

// A whole operand meeting a value split over both axes: refused.
func.func @whole_operand(%x: tensor<4x6x8xf32>, %y: tensor<4x6x8xf32>) -> tensor<4x6x8xf32> {
  %s = shard.sharding @grid split_axes = [[0], [1]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<4x6x8xf32>
  %z = fuser.add %xs, %y : tensor<4x6x8xf32>
  %r = fuser.mul %z, %xs : tensor<4x6x8xf32>
  return %r : tensor<4x6x8xf32>
}

// A sum over a dim split over axis 1 whose result is split over axis 0:
// refused.
func.func @sum_other_axis(%x: tensor<4x6x8xf32>) -> tensor<4x8xf32> {
  %s = shard.sharding @grid split_axes = [[], [1]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<4x6x8xf32>
  %y = fuser.sum %xs dims = [1] : tensor<4x6x8xf32> -> tensor<4x8xf32>
  %t = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %r = shard.shard %y to %t : tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// A softmax over a dim split over both axes at once: its operand is
// gathered one axis at a time (upstream's resharding left it null, and
// cloning the op crashed), its result split again at the return.
func.func @two_axes_softmax(%x: tensor<4x6x8xf32>) -> tensor<4x6x8xf32> {
  %s = shard.sharding @grid split_axes = [[0, 1]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<4x6x8xf32>
  %0 = fuser.softmax %xs dim = 0 : tensor<4x6x8xf32>
  %r = shard.shard %0 to %s : tensor<4x6x8xf32>
  return %r : tensor<4x6x8xf32>
}

// Both axes merged into dim 0: not one all_to_all (upstream moves a dim's
// last axis to another dim only where the axes before it match), so steps;
// it was refused.
func.func @merge_axes(%x: tensor<4x6x8xf32>) -> tensor<4x6x8xf32> {
  %s = shard.sharding @grid split_axes = [[0], [1]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<4x6x8xf32>
  %t = shard.sharding @grid split_axes = [[0, 1]] : !shard.sharding
  %r = shard.shard %xs to %t : tensor<4x6x8xf32>
  return %r : tensor<4x6x8xf32>
}

// Operands annotated for the add with swapped axes: the reshard that
// fuser-check-sharding adds to reconcile them is made in steps too.
func.func @for_users_swapped(%x: tensor<4x6x8xf32>, %y: tensor<4x6x8xf32>) -> tensor<4x6x8xf32> {
  %s = shard.sharding @grid split_axes = [[0], [1]] : !shard.sharding
  %t = shard.sharding @grid split_axes = [[1], [0]] : !shard.sharding
  %xs = shard.shard %x to %s annotate_for_users : tensor<4x6x8xf32>
  %ys = shard.shard %y to %t annotate_for_users : tensor<4x6x8xf32>
  %r = fuser.add %xs, %ys : tensor<4x6x8xf32>
  return %r : tensor<4x6x8xf32>
}

// An op's results annotated with splits it cannot compute together: y by
// rows, the mean whole (an internal error; with a weight a crash), the
// rstd over the other axis (a plan whose ranks disagreed).
func.func @results_apart(%x: tensor<4x6x8xf32>) -> (tensor<4x6x8xf32>, tensor<4x1x1xf32>, tensor<4x1x1xf32>) {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<4x6x8xf32>
  %y, %m, %rs = fuser.layer_norm %xs dims = [1, 2] eps = 1.0e-05 : (tensor<4x6x8xf32>) -> (tensor<4x6x8xf32>, tensor<4x1x1xf32>, tensor<4x1x1xf32>)
  %ys = shard.shard %y to %s : tensor<4x6x8xf32>
  %w = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %ms = shard.shard %m to %w : tensor<4x1x1xf32>
  %o = shard.sharding @grid split_axes = [[1]] : !shard.sharding
  %rss = shard.shard %rs to %o : tensor<4x1x1xf32>
  return %ys, %ms, %rss : tensor<4x6x8xf32>, tensor<4x1x1xf32>, tensor<4x1x1xf32>
}

// y over the normalized dim, the mean by rows: the held mean takes no
// split of its size-1 dims (the hold once split one and was refused).
func.func @results_cols(%x: tensor<4x6x8xf32>) -> (tensor<4x6x8xf32>, tensor<4x1x1xf32>) {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<4x6x8xf32>
  %y, %m, %rs = fuser.layer_norm %xs dims = [1, 2] eps = 1.0e-05 : (tensor<4x6x8xf32>) -> (tensor<4x6x8xf32>, tensor<4x1x1xf32>, tensor<4x1x1xf32>)
  %c = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %ys = shard.shard %y to %c : tensor<4x6x8xf32>
  %ms = shard.shard %m to %s : tensor<4x1x1xf32>
  return %ys, %ms : tensor<4x6x8xf32>, tensor<4x1x1xf32>
}

// Values annotated whole and read directly too, before and after the
// annotation: upstream's propagation broke dominance (a crash in fuserc).
func.func @whole_read_directly(%x: tensor<4x6x8xf32>, %y: tensor<4x6x8xf32>) -> (tensor<4x6x8xf32>, tensor<4x6x8xf32>, tensor<4x6x8xf32>) {
  %w = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %ys = shard.shard %y to %w : tensor<4x6x8xf32>
  %xs = shard.shard %x to %s : tensor<4x6x8xf32>
  %e = fuser.exp %xs : tensor<4x6x8xf32>
  %a = fuser.add %e, %ys : tensor<4x6x8xf32>
  %es = shard.shard %e to %w : tensor<4x6x8xf32>
  %b = fuser.mul %es, %y : tensor<4x6x8xf32>
  %c = fuser.add %e, %e : tensor<4x6x8xf32>
  return %a, %b, %c : tensor<4x6x8xf32>, tensor<4x6x8xf32>, tensor<4x6x8xf32>
}

// The same with the input annotated for the op and the rstd unannotated:
// the rstd, held as the op computes it, once took the split of y's
// normalized dim on its size-1 dim (refused).
func.func @results_unannotated(%x: tensor<4x6x8xf32>) -> (tensor<4x6x8xf32>, tensor<4x6x1xf32>, tensor<4x6x1xf32>) {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %s annotate_for_users : tensor<4x6x8xf32>
  %y, %m, %rs = fuser.layer_norm %xs dims = [2] eps = 1.0e-05 : (tensor<4x6x8xf32>) -> (tensor<4x6x8xf32>, tensor<4x6x1xf32>, tensor<4x6x1xf32>)
  %c = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  %ys = shard.shard %y to %c : tensor<4x6x8xf32>
  %w = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %ms = shard.shard %m to %w : tensor<4x6x1xf32>
  %e = fuser.exp %rs : tensor<4x6x1xf32>
  return %ys, %ms, %e : tensor<4x6x8xf32>, tensor<4x6x1xf32>, tensor<4x6x1xf32>
}
