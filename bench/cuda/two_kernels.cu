// two_kernels: each row of x (256 x 65536, f32) divided by its maximum, then
// summed down the columns. The column sums need every row's maximum first,
// so the peers emit two kernels too: a row-max kernel (a block per row) and
// a column-sum kernel (a thread per column, coalesced across the row) that
// divides in registers.
//
// @example two_kernels
// @buffer rowmax 1024
// @launch row_max_kernel reads=x writes=rowmax
// @launch col_sum_div_kernel reads=x,rowmax writes=result0

#define N_ROWS 256
#define N_COLS 65536
#define THREADS 1024

__device__ __forceinline__ float fmax_nan(float a, float b) { return (a > b || a != a) ? a : b; }

extern "C" __global__ void __launch_bounds__(THREADS)
row_max_kernel(const float *__restrict__ x, float *__restrict__ rowmax) {
  __shared__ float smem[32];
  const float4 *xr = reinterpret_cast<const float4 *>(x + (long long)blockIdx.x * N_COLS);
  float m = -__int_as_float(0x7f800000);
#pragma unroll 4
  for (int i = threadIdx.x; i < N_COLS / 4; i += THREADS) {
    float4 v = __ldg(xr + i);
    m = fmax_nan(fmax_nan(m, v.x), fmax_nan(v.y, fmax_nan(v.z, v.w)));
  }
  for (int o = 16; o > 0; o >>= 1)
    m = fmax_nan(m, __shfl_xor_sync(0xffffffffu, m, o));
  if ((threadIdx.x & 31) == 0)
    smem[threadIdx.x >> 5] = m;
  __syncthreads();
  if (threadIdx.x < 32) {
    m = smem[threadIdx.x];
    for (int o = 16; o > 0; o >>= 1)
      m = fmax_nan(m, __shfl_xor_sync(0xffffffffu, m, o));
    if (threadIdx.x == 0)
      rowmax[blockIdx.x] = m;
  }
}

extern "C" __global__ void __launch_bounds__(256)
col_sum_div_kernel(const float *__restrict__ x, const float *__restrict__ rowmax,
                   float *__restrict__ out) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
#pragma unroll 8
  for (int r = 0; r < N_ROWS; ++r)
    s += __ldg(x + (long long)r * N_COLS + col) / __ldg(rowmax + r);
  out[col] = s;
}
