// permute_add: out[b, i, j] = x[b, j, i] + y[b, i, j];
// x: 64 x 512 x 768, y and out: 64 x 768 x 512, f32.
// One kernel: a 32 x 32 tile of x goes through shared memory (padded
// against bank conflicts) so that both the reads of x and the writes of out
// coalesce, as the transpose schedulers of nvFuser and Inductor do.
//
// @example permute_add
// @launch permute_add_kernel reads=x,y writes=result0

#define D1 512 /* x's dim 1, out's dim 2 */
#define D2 768 /* x's dim 2, out's dim 1 */
#define TILE 32

extern "C" __global__ void __launch_bounds__(256)
permute_add_kernel(const float *__restrict__ x, const float *__restrict__ y,
                   float *__restrict__ out) {
  __shared__ float tile[TILE][TILE + 1];
  int b = blockIdx.z;
  int j0 = blockIdx.x * TILE; /* along D1 */
  int i0 = blockIdx.y * TILE; /* along D2 */
  const float *xb = x + (long long)b * D1 * D2;
  const float *yb = y + (long long)b * D2 * D1;
  float *ob = out + (long long)b * D2 * D1;
  // Read x[b, j0 + r, i0 + tx]: rows of x along D2 coalesce.
  for (int r = threadIdx.y; r < TILE; r += blockDim.y)
    tile[r][threadIdx.x] = __ldg(xb + (long long)(j0 + r) * D2 + i0 + threadIdx.x);
  __syncthreads();
  // Write out[b, i0 + r, j0 + tx] = x[b, j0 + tx, i0 + r] + y[...].
  for (int r = threadIdx.y; r < TILE; r += blockDim.y) {
    long long o = (long long)(i0 + r) * D1 + j0 + threadIdx.x;
    ob[o] = tile[threadIdx.x][r] + __ldg(yb + o);
  }
}
