// column_sum: sum over the leading dim of 65536 x 1024 (an outer reduction).
// One kernel, as nvFuser's outer-reduction scheduler with a grid reduction
// emits it: each block sums a 32-column x 4096-row tile (threads along the
// columns so that reads coalesce, partial sums across the block's rows in
// shared memory), writes its partial row to a work buffer, and the last
// block of each column tile (a counter, reset after use) adds the partials.
//
// @example column_sum
// @buffer partials 65536
// @buffer counters 128
// @launch column_sum_kernel reads=x,partials,counters writes=partials,counters,result0

#define N_ROWS 65536
#define N_COLS 1024
#define SPLITS 16
#define ROWS_PER_SPLIT (N_ROWS / SPLITS)
#define TX 32
#define TY 16

extern "C" __global__ void __launch_bounds__(TX * TY)
column_sum_kernel(const float *__restrict__ x, float *__restrict__ out,
                  float *__restrict__ partials, unsigned *__restrict__ counters) {
  __shared__ float tile[TY][TX + 1];
  __shared__ bool last;
  int col = blockIdx.x * TX + threadIdx.x;
  int split = blockIdx.y;
  const float *p = x + (long long)split * ROWS_PER_SPLIT * N_COLS + col;
  float s = 0.0f;
#pragma unroll 8
  for (int r = threadIdx.y; r < ROWS_PER_SPLIT; r += TY)
    s += __ldg(p + (long long)r * N_COLS);
  tile[threadIdx.y][threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.y == 0) {
    float t = 0.0f;
#pragma unroll
    for (int k = 0; k < TY; ++k)
      t += tile[k][threadIdx.x];
    partials[split * N_COLS + col] = t;
    __threadfence();
  }
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0)
    last = atomicAdd(&counters[blockIdx.x], 1u) == SPLITS - 1;
  __syncthreads();
  if (last && threadIdx.y == 0) {
    float t = 0.0f;
#pragma unroll
    for (int k = 0; k < SPLITS; ++k)
      t += __ldcg(partials + k * N_COLS + col);
    out[col] = t;
    if (threadIdx.x == 0)
      counters[blockIdx.x] = 0;
  }
}
