// Banned C++ symbols after macro resolution: cublasSgemm is a macro for
// cublasSgemm_v2; handle set-up alone is not reported when a compute call exists.
#include <cublas_v2.h>

void gemm(const float* a, const float* b, float* c, int n) {
  cublasHandle_t handle;
  cublasCreate(&handle);
  const float one = 1.0f, zero = 0.0f;
  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n);  // expect: banned-call
  cublasDestroy(handle);
}

__global__ void scale(float* x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= s;
}
