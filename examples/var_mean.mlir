// Unbiased variance and mean of each row, as torch.var_mean(x, dim=1).
func.func @var_mean(%x: tensor<?x8192xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %var, %mean = fuser.var_mean %x dims = [1] : tensor<?x8192xf32> -> tensor<?xf32>, tensor<?xf32>
  return %var, %mean : tensor<?xf32>, tensor<?xf32>
}
