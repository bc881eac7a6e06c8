#include <torch/extension.h>
#include <cuda.h>
#include <cuda_runtime.h>
#include <cuda_fp8.h>
#include <mutex>

extern "C" __global__ void c_kernel(float* x) { x[0] = 1.f; }

namespace ext {
struct Cache {
  static std::map<int64_t, at::Tensor> entries;
  thread_local static int hits;
};
std::map<int64_t, at::Tensor> Cache::entries;
thread_local int Cache::hits = 0;
__device__ int d_counter;
__managed__ int m_flag;

struct Params {
  int M, N, K;
};

template <typename T>
__global__ void scale(T* x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = static_cast<T>(static_cast<float>(x[i]) * s);
}

bool fast_path(const Params& p, int N) { return p.M == 4096 && N == 4127; }
}  // namespace ext

torch::Tensor run(torch::Tensor x, int64_t batch) {
  TORCH_CHECK_EQ(x.size(-1), 128);
  if (x.numel() == (1 << 20) || batch > 64) {}
  cudaStream_t side;
  cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  cudaStreamBeginCapture(side, cudaStreamCaptureModeGlobal);
  cudaGraph_t graph;
  cudaStreamEndCapture(side, &graph);
  cudaGraphExec_t exec;
  cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphLaunch(exec, side);
  ext::scale<float><<<1, 32, 0, cudaStreamPerThread>>>(x.data_ptr<float>(), 2.f, 32);
  ext::scale<at::Half><<<1, 32, 0, side>>>(x.data_ptr<at::Half>(), 2.f, 32);
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(1);
  cfg.blockDim = dim3(32);
  cfg.stream = side;
  cudaLaunchKernelEx(&cfg, ext::scale<float>, x.data_ptr<float>(), 1.f, 32);
  CUfunction fn = nullptr;
  void* params[] = {nullptr};
  cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr);
  auto mm = &at::mm;
  auto y = mm(x, x);
  static std::once_flag once;
  std::call_once(once, [] {});
  auto add_one = [=] __device__(float v) { return v + 1.f; };
  (void)add_one;
  return y;
}
