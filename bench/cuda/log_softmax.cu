// log_softmax over rows, f32, ? x 32000 (dynamic row count).
// One persistent kernel: a block of 1024 threads per row, the row in
// registers (8 float4 per thread, the last partly masked), max and sum
// block reductions, y = x - max - log(sum).
//
// @example log_softmax
// @launch log_softmax_kernel reads=x writes=result0

#define N_COLS 32000
#define THREADS 1024
#define N_VEC (N_COLS / 4)
#define VEC_PER_THREAD ((N_VEC + THREADS - 1) / THREADS)

__device__ __forceinline__ float fmax_nan(float a, float b) { return (a > b || a != a) ? a : b; }
__device__ __forceinline__ float warp_max(float v) {
  for (int o = 16; o > 0; o >>= 1)
    v = fmax_nan(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
template <bool IS_MAX> __device__ __forceinline__ float block_reduce(float v, float *smem) {
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  v = IS_MAX ? warp_max(v) : warp_sum(v);
  if (lane == 0)
    smem[warp] = v;
  __syncthreads();
  v = lane < THREADS / 32 ? smem[lane] : (IS_MAX ? -__int_as_float(0x7f800000) : 0.0f);
  v = IS_MAX ? warp_max(v) : warp_sum(v);
  __syncthreads();
  return v;
}

extern "C" __global__ void __launch_bounds__(THREADS)
log_softmax_kernel(const float *__restrict__ x, float *__restrict__ out, long long rows) {
  __shared__ float smem[32];
  const float NEG_INF = -__int_as_float(0x7f800000);
  long long r = blockIdx.x;
  const float4 *xr = reinterpret_cast<const float4 *>(x + r * N_COLS);
  float4 *orow = reinterpret_cast<float4 *>(out + r * N_COLS);
  float4 v[VEC_PER_THREAD];
  float m = NEG_INF;
#pragma unroll
  for (int k = 0; k < VEC_PER_THREAD; ++k) {
    int i = k * THREADS + threadIdx.x;
    v[k] = i < N_VEC ? __ldg(xr + i) : make_float4(NEG_INF, NEG_INF, NEG_INF, NEG_INF);
    m = fmax_nan(fmax_nan(m, v[k].x), fmax_nan(v[k].y, fmax_nan(v[k].z, v[k].w)));
  }
  m = block_reduce<true>(m, smem);
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < VEC_PER_THREAD; ++k)
    s += (expf(v[k].x - m) + expf(v[k].y - m)) + (expf(v[k].z - m) + expf(v[k].w - m));
  s = block_reduce<false>(s, smem);
  float ls = logf(s);
#pragma unroll
  for (int k = 0; k < VEC_PER_THREAD; ++k) {
    int i = k * THREADS + threadIdx.x;
    if (i < N_VEC) {
      float4 o;
      o.x = (v[k].x - m) - ls;
      o.y = (v[k].y - m) - ls;
      o.z = (v[k].z - m) - ls;
      o.w = (v[k].w - m) - ls;
      orow[i] = o;
    }
  }
}
