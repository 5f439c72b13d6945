// The checks fuser's sharding models make of every part upstream's
// partition hands an op or a return, run here without
// fuser-reshard-in-steps (which writes the changes below as one-axis steps
// in fuser-partition): a change the resharding leaves undone or half done
// is a diagnostic that names both splits and the steps, never a part of
// the wrong shape (a wrong result that ran) or a null one (a crash).
// RUN: fuser-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(sharding-propagation{traversal=forward-backward},shard-partition))' --verify-diagnostics

shard.grid @grid(shape = 2x2)
func.func @whole_to_two_axes(%x: tensor<4x6x8xf32>) -> tensor<4x6x8xf32> {
  %s = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<4x6x8xf32>
  %t = shard.sharding @grid split_axes = [[0], [1]] : !shard.sharding
  %r = shard.shard %xs to %t : tensor<4x6x8xf32>
  // expected-error @+1 {{'func.return' op cannot take operand 0 split [[]] as it needs it split, [[0], [1]] (a part of type 'tensor<2x3x8xf32>'; the partition made 'tensor<2x6x8xf32>'): the partition changes a split one grid axis at a time (gathers the last axis of a dim, or splits a dim over one more axis), not more at once nor from one axis to another; reshard it in steps, annotating it [[0]] first (a shard.shard each)}}
  return %r : tensor<4x6x8xf32>
}

// -----

shard.grid @grid(shape = 2x2)
func.func @axis_move(%x: tensor<4x6x8xf32>) -> tensor<4x6x8xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<4x6x8xf32>
  %t = shard.sharding @grid split_axes = [[1]] : !shard.sharding
  %r = shard.shard %xs to %t : tensor<4x6x8xf32>
  // expected-error @+1 {{'func.return' op cannot take operand 0 split [[0]] as it needs it split, [[1]]: the partition changes a split one grid axis at a time (gathers the last axis of a dim, or splits a dim over one more axis), not more at once nor from one axis to another; reshard it in steps, annotating it [[]] first (a shard.shard each)}}
  return %r : tensor<4x6x8xf32>
}

// -----

// Operands of an add with the axes swapped: the resharding returned the
// operand as it was, and the add was built on parts of two shapes.
shard.grid @grid(shape = 2x2)
func.func @swapped(%a: tensor<8x64xf32>, %b: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %sa = shard.sharding @grid split_axes = [[0], [1]] : !shard.sharding
  %sb = shard.sharding @grid split_axes = [[1], [0]] : !shard.sharding
  %as = shard.shard %a to %sa : tensor<8x64xf32>
  %bs = shard.shard %b to %sb : tensor<8x64xf32>
  // expected-error @+1 {{'fuser.add' op cannot take operand 1 split [[1], [0]] as it needs it split, [[0], [1]] (a part of type 'tensor<4x32xf32>'; the partition made 'tensor<8x16xf32>'): the partition changes a split one grid axis at a time (gathers the last axis of a dim, or splits a dim over one more axis), not more at once nor from one axis to another; reshard it in steps, annotating it [[], [0]], then [[]], then [[0]] first (a shard.shard each)}}
  %c = fuser.add %as, %bs : tensor<8x64xf32>
  return %c : tensor<8x64xf32>
}

// -----

// A softmax's line split over two axes at once: the resharding left the
// operand null (cloning the op crashed).
shard.grid @grid(shape = 2x2)
func.func @two_axes_line(%x: tensor<8x3xf32>) -> tensor<8x3xf32> {
  %s = shard.sharding @grid split_axes = [[0, 1]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8x3xf32>
  // expected-error @+1 {{'fuser.softmax' op cannot take operand 0 split [[0, 1]] as it needs it split, [[]]: the partition changes a split one grid axis at a time (gathers the last axis of a dim, or splits a dim over one more axis), not more at once nor from one axis to another; reshard it in steps, annotating it [[0]] first (a shard.shard each)}}
  %0 = fuser.softmax %xs dim = 0 : tensor<8x3xf32>
  return %0 : tensor<8x3xf32>
}
