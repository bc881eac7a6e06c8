// A plain CUDA C++ program for the tracer's GPU test: two streams, a
// captured and replayed graph, a cuBLAS GEMM, copies and a fill, each in a
// call of its own, and one kernel outside any call. tracer_gpu_test.cpp runs
// it under `kaudit trace` and checks that every kernel appears once, in the
// right call, launched by the right object.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                                  \
  do {                                                                            \
    cudaError_t err_ = (x);                                                       \
    if (err_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      std::exit(3);                                                               \
    }                                                                             \
  } while (0)

// The tracer's call interface, reached the way any harness reaches it.
struct Calls {
  int (*begin)(const char*, const char*, const char*, long long) = nullptr;
  int (*end)() = nullptr;
  Calls() {
    const char* path = std::getenv("CUDA_INJECTION64_PATH");
    void* lib = path != nullptr ? dlopen(path, RTLD_NOW) : nullptr;
    if (lib == nullptr) return;
    begin = reinterpret_cast<decltype(begin)>(dlsym(lib, "kaudit_call_begin"));
    end = reinterpret_cast<decltype(end)>(dlsym(lib, "kaudit_call_end"));
  }
  void open(const char* phase, long long index) {
    if (begin != nullptr) begin(phase, "1M", "test", index);
  }
  void close() {
    CHECK(cudaDeviceSynchronize());
    if (end != nullptr) end();
  }
};

__global__ void kaudit_test_stream_a(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * 2.0f + 1.0f;
}
__global__ void kaudit_test_stream_b(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] - 1.0f;
}
__global__ void kaudit_test_graph_first(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 3.0f;
}
__global__ void kaudit_test_graph_second(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 0.5f;
}
__global__ void kaudit_test_outside(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = 0.0f;
}

int main() {
  constexpr int n = 1 << 20;
  constexpr int dim = 512;
  const dim3 block(256), grid((n + 255) / 256);
  Calls calls;
  std::vector<float> host(n, 1.0f);
  float *x = nullptr, *y = nullptr, *a = nullptr, *b = nullptr, *c = nullptr;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&y, n * sizeof(float)));
  CHECK(cudaMalloc(&a, dim * dim * sizeof(float)));
  CHECK(cudaMalloc(&b, dim * dim * sizeof(float)));
  CHECK(cudaMalloc(&c, dim * dim * sizeof(float)));
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  cublasHandle_t blas;
  if (cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS) return 4;

  // 1: copies in and a fill.
  calls.open("copies_in", 1);
  CHECK(cudaMemcpy(x, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(y, 0, n * sizeof(float)));
  calls.close();

  // 2: one kernel on each of two streams.
  calls.open("two_streams", 2);
  kaudit_test_stream_a<<<grid, block, 0, s1>>>(x, n);
  kaudit_test_stream_b<<<grid, block, 0, s2>>>(y, n);
  CHECK(cudaGetLastError());
  calls.close();

  // 3: capture a graph of two kernels (nothing runs).
  calls.open("capture", 3);
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  kaudit_test_graph_first<<<grid, block, 0, s1>>>(x, n);
  kaudit_test_graph_second<<<grid, block, 0, s1>>>(x, n);
  CHECK(cudaStreamEndCapture(s1, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  calls.close();

  // 4: replay it once.
  calls.open("replay", 4);
  CHECK(cudaGraphLaunch(exec, s1));
  calls.close();

  // 5: a cuBLAS SGEMM.
  calls.open("gemm", 5);
  const float one = 1.0f, zero = 0.0f;
  cublasSetStream(blas, s2);
  if (cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, dim, dim, dim, &one, a, dim, b, dim, &zero, c, dim) !=
      CUBLAS_STATUS_SUCCESS)
    return 5;
  calls.close();

  // 6: copies out and device to device.
  calls.open("copies_out", 6);
  CHECK(cudaMemcpy(host.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpyAsync(y, x, n * sizeof(float), cudaMemcpyDeviceToDevice, s2));
  calls.close();

  // Outside any call.
  kaudit_test_outside<<<grid, block>>>(y, n);
  CHECK(cudaDeviceSynchronize());

  std::printf("tracer_cuda_app: x[0] = %g\n", host[0]);
  cublasDestroy(blas);
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  return 0;
}
