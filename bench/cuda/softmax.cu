// softmax over rows, f32, 4096 x 4096.
// One persistent kernel as nvFuser's inner-persistent scheduler emits it:
// a block per row, the row held in registers (4 float4 per thread), a max
// and a sum block reduction, one read and one write of every element.
//
// @example softmax
// @launch softmax_kernel reads=x writes=result0

#define N_COLS 4096
#define THREADS 256
#define VEC_PER_THREAD (N_COLS / 4 / THREADS)

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
softmax_kernel(const float *__restrict__ x, float *__restrict__ out, long long rows) {
  __shared__ float smem[32];
  long long r = blockIdx.x;
  const float4 *xr = reinterpret_cast<const float4 *>(x + r * N_COLS);
  float4 *orow = reinterpret_cast<float4 *>(out + r * N_COLS);
  float4 v[VEC_PER_THREAD];
  float m = -__int_as_float(0x7f800000);
#pragma unroll
  for (int k = 0; k < VEC_PER_THREAD; ++k) {
    v[k] = __ldg(xr + k * THREADS + threadIdx.x);
    m = fmax_nan(fmax_nan(m, v[k].x), fmax_nan(v[k].y, fmax_nan(v[k].z, v[k].w)));
  }
  m = block_reduce<true>(m, smem);
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < VEC_PER_THREAD; ++k) {
    v[k].x = expf(v[k].x - m);
    v[k].y = expf(v[k].y - m);
    v[k].z = expf(v[k].z - m);
    v[k].w = expf(v[k].w - m);
    s += (v[k].x + v[k].y) + (v[k].z + v[k].w);
  }
  s = block_reduce<false>(s, smem);
#pragma unroll
  for (int k = 0; k < VEC_PER_THREAD; ++k) {
    float4 o;
    o.x = v[k].x / s;
    o.y = v[k].y / s;
    o.z = v[k].z / s;
    o.w = v[k].w / s;
    orow[k * THREADS + threadIdx.x] = o;
  }
}
