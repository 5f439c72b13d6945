// A tracer's location text may hold "{}" (torch.fx's "<eval_with_key>.{}"
// node names): the run-time size check's message shows it as "{ }", since
// "{}" marks where the check's values go.
func.func @f(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %0 = fuser.add %x, %y : tensor<?xf32> loc("<eval_with_key>.{}":3:7)
  return %0 : tensor<?xf32>
}
