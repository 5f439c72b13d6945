// layer_norm with weight and bias, bf16 in and out, f32 compute,
// 8192 x 4096, with the mean and rstd outputs (f32, 8192 x 1).
// One persistent kernel: a block of 512 threads per row, 8 bf16 (one
// 16-byte load) per thread kept in registers, mean then centered variance
// (two block reductions over registers), biased variance as
// torch.native_layer_norm.
//
// @example layer_norm
// @launch layer_norm_kernel reads=x,w,b writes=result0,result1,result2

#define N_COLS 4096
#define THREADS 512
#define EPS 1.0e-05f

__device__ __forceinline__ float bf16_to_f32(unsigned short h) {
  return __uint_as_float(((unsigned)h) << 16);
}
__device__ __forceinline__ unsigned short f32_to_bf16(float f) {
  unsigned short h;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
}
__device__ __forceinline__ void unpack8(uint4 u, float *f) {
  unsigned w[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    f[2 * k] = bf16_to_f32((unsigned short)(w[k] & 0xFFFF));
    f[2 * k + 1] = bf16_to_f32((unsigned short)(w[k] >> 16));
  }
}
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
layer_norm_kernel(const unsigned short *__restrict__ x, const unsigned short *__restrict__ w,
                  const unsigned short *__restrict__ b, unsigned short *__restrict__ y,
                  float *__restrict__ mean_out, float *__restrict__ rstd_out, long long rows) {
  __shared__ float smem[32];
  long long r = blockIdx.x;
  int c = threadIdx.x * 8;
  float v[8], wv[8], bv[8];
  unpack8(__ldg(reinterpret_cast<const uint4 *>(x + r * N_COLS + c)), v);
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < 8; ++k)
    s += v[k];
  float mean = block_sum(s, smem) * (1.0f / N_COLS);
  float ss = 0.0f;
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    v[k] -= mean;
    ss += v[k] * v[k];
  }
  float var = block_sum(ss, smem) * (1.0f / N_COLS);
  float rstd = rsqrtf(var + EPS);
  unpack8(__ldg(reinterpret_cast<const uint4 *>(w + c)), wv);
  unpack8(__ldg(reinterpret_cast<const uint4 *>(b + c)), bv);
  unsigned o[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    unsigned short lo = f32_to_bf16(v[2 * k] * rstd * wv[2 * k] + bv[2 * k]);
    unsigned short hi = f32_to_bf16(v[2 * k + 1] * rstd * wv[2 * k + 1] + bv[2 * k + 1]);
    o[k] = (unsigned)lo | ((unsigned)hi << 16);
  }
  *reinterpret_cast<uint4 *>(y + r * N_COLS + c) = make_uint4(o[0], o[1], o[2], o[3]);
  if (threadIdx.x == 0) {
    mean_out[r] = mean;
    rstd_out[r] = rstd;
  }
}
