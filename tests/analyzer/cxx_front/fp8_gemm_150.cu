// A realistic ~150-line load_inline CUDA source: an fp8 GEMM with shared
// memory tiles, a templated epilogue, __CUDA_ARCH__-guarded paths and the
// usual torch glue. Used for timing and for device-pass facts.
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda_runtime.h>
#include <cuda_fp8.h>
#include <cuda_bf16.h>
#include <mma.h>

namespace {

constexpr int BM = 128;
constexpr int BN = 128;
constexpr int BK = 64;
constexpr int WARPS = 8;

struct GemmParams {
  const __nv_fp8_e4m3* a;
  const __nv_fp8_e4m3* b;
  __nv_bfloat16* c;
  const float* scale_a;
  const float* scale_b;
  int M;
  int N;
  int K;
};

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffff, v, offset);
  return v;
}

template <typename Out>
__device__ __forceinline__ Out to_out(float v) {
  return static_cast<Out>(v);
}

template <>
__device__ __forceinline__ __nv_bfloat16 to_out<__nv_bfloat16>(float v) {
  return __float2bfloat16(v);
}

__device__ __forceinline__ float load_fp8(const __nv_fp8_e4m3* p, int i) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  __nv_fp8_e4m3 x = p[i];
  return float(x);
#else
  __half_raw h = __nv_cvt_fp8_to_halfraw(p[i].__x, __NV_E4M3);
  return __half2float(__half(h));
#endif
}

template <int TM, int TN>
__global__ void __launch_bounds__(WARPS * 32) fp8_gemm_kernel(GemmParams p) {
  __shared__ float as[BM][BK + 1];
  __shared__ float bs[BK][BN + 1];
  const int tid = threadIdx.x;
  const int row0 = blockIdx.y * BM;
  const int col0 = blockIdx.x * BN;
  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.f;

  for (int k0 = 0; k0 < p.K; k0 += BK) {
    for (int idx = tid; idx < BM * BK; idx += blockDim.x) {
      int r = idx / BK, c = idx % BK;
      int gr = row0 + r, gc = k0 + c;
      as[r][c] = (gr < p.M && gc < p.K) ? load_fp8(p.a, gr * p.K + gc) : 0.f;
    }
    for (int idx = tid; idx < BK * BN; idx += blockDim.x) {
      int r = idx / BN, c = idx % BN;
      int gr = k0 + r, gc = col0 + c;
      bs[r][c] = (gr < p.K && gc < p.N) ? load_fp8(p.b, gr * p.N + gc) : 0.f;
    }
    __syncthreads();
    const int ty = tid / (BN / TN), tx = tid % (BN / TN);
#pragma unroll 4
    for (int kk = 0; kk < BK; ++kk) {
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += as[ty * TM + i][kk] * bs[kk][tx * TN + j];
    }
    __syncthreads();
  }
  const int ty = tid / (BN / TN), tx = tid % (BN / TN);
  const float sa = *p.scale_a, sb = *p.scale_b;
  for (int i = 0; i < TM; ++i)
    for (int j = 0; j < TN; ++j) {
      int r = row0 + ty * TM + i, c = col0 + tx * TN + j;
      if (r < p.M && c < p.N) p.c[r * p.N + c] = to_out<__nv_bfloat16>(acc[i][j] * sa * sb);
    }
}

__global__ void row_norm_kernel(const __nv_bfloat16* x, float* out, int rows, int cols) {
  int row = blockIdx.x;
  float s = 0.f;
  for (int c = threadIdx.x; c < cols; c += 32) {
    float v = __bfloat162float(x[row * cols + c]);
    s += v * v;
  }
  s = warp_sum(s);
  if (threadIdx.x == 0 && row < rows) out[row] = sqrtf(s);
}

}  // namespace

torch::Tensor fp8_gemm(torch::Tensor a, torch::Tensor b, torch::Tensor scale_a, torch::Tensor scale_b) {
  TORCH_CHECK(a.is_cuda() && b.is_cuda(), "inputs must be CUDA tensors");
  TORCH_CHECK(a.scalar_type() == at::kFloat8_e4m3fn, "a must be fp8 e4m3");
  TORCH_CHECK(a.dim() == 2 && b.dim() == 2, "2-D inputs");
  TORCH_CHECK(a.size(1) == b.size(0), "inner dimensions differ");
  const c10::cuda::OptionalCUDAGuard guard(a.device());
  const int M = a.size(0), K = a.size(1), N = b.size(1);
  auto c = torch::empty({M, N}, a.options().dtype(torch::kBFloat16));
  GemmParams p;
  p.a = reinterpret_cast<const __nv_fp8_e4m3*>(a.data_ptr());
  p.b = reinterpret_cast<const __nv_fp8_e4m3*>(b.data_ptr());
  p.c = reinterpret_cast<__nv_bfloat16*>(c.data_ptr());
  p.scale_a = scale_a.data_ptr<float>();
  p.scale_b = scale_b.data_ptr<float>();
  p.M = M;
  p.N = N;
  p.K = K;
  dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
  dim3 block(WARPS * 32);
  auto stream = at::cuda::getCurrentCUDAStream();
  fp8_gemm_kernel<8, 8><<<grid, block, 0, stream>>>(p);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return c;
}

torch::Tensor row_norms(torch::Tensor x) {
  TORCH_CHECK(x.scalar_type() == at::kBFloat16, "x must be bf16");
  const int rows = x.size(0), cols = x.size(1);
  auto out = torch::empty({rows}, x.options().dtype(torch::kFloat32));
  row_norm_kernel<<<rows, 32, 0, at::cuda::getCurrentCUDAStream()>>>(
      reinterpret_cast<const __nv_bfloat16*>(x.data_ptr()), out.data_ptr<float>(), rows, cols);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("fp8_gemm", &fp8_gemm, "fp8 GEMM with per-tensor scales");
  m.def("row_norms", &row_norms, "row norms of a bf16 matrix");
}
