// var_mean over rows (unbiased variance and mean), f32, ? x 8192.
// One persistent kernel: a block of 1024 threads per row, 2 float4 per
// thread in registers, mean then centered sum of squares.
//
// @example var_mean
// @launch var_mean_kernel reads=x writes=result0,result1

#define N_COLS 8192
#define THREADS 1024
#define VEC_PER_THREAD (N_COLS / 4 / THREADS)

__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ __forceinline__ float block_sum(float v, float *smem) {
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  v = warp_sum(v);
  if (lane == 0)
    smem[warp] = v;
  __syncthreads();
  v = warp_sum(lane < THREADS / 32 ? smem[lane] : 0.0f);
  __syncthreads();
  return v;
}

extern "C" __global__ void __launch_bounds__(THREADS)
var_mean_kernel(const float *__restrict__ x, float *__restrict__ var_out,
                float *__restrict__ mean_out, long long rows) {
  __shared__ float smem[32];
  long long r = blockIdx.x;
  const float4 *xr = reinterpret_cast<const float4 *>(x + r * N_COLS);
  float4 v[VEC_PER_THREAD];
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < VEC_PER_THREAD; ++k) {
    v[k] = __ldg(xr + k * THREADS + threadIdx.x);
    s += (v[k].x + v[k].y) + (v[k].z + v[k].w);
  }
  float mean = block_sum(s, smem) * (1.0f / N_COLS);
  float ss = 0.0f;
#pragma unroll
  for (int k = 0; k < VEC_PER_THREAD; ++k) {
    float a = v[k].x - mean, b = v[k].y - mean, c = v[k].z - mean, d = v[k].w - mean;
    ss += (a * a + b * b) + (c * c + d * d);
  }
  ss = block_sum(ss, smem);
  if (threadIdx.x == 0) {
    var_out[r] = ss / (float)(N_COLS - 1);
    mean_out[r] = mean;
  }
}
