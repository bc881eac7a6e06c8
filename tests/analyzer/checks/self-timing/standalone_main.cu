// self-timing: near-misses in a standalone .cu. main() is the file's own test
// harness, and events recorded only to order streams are not timing.
#include <cuda_runtime.h>
#include <cstdio>

__global__ void scale(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 2.0f;
}

void launch(float* x, int n, cudaStream_t s, cudaEvent_t done) {
    scale<<<(n + 255) / 256, 256, 0, s>>>(x, n);
    cudaEventRecord(done, s);  // orders work; nothing reads a time
    cudaStreamSynchronize(s);
}

int main() {
    float* x;
    int n = 1 << 20;
    cudaMalloc(&x, n * sizeof(float));
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    cudaEventRecord(a);
    scale<<<(n + 255) / 256, 256>>>(x, n);
    cudaEventRecord(b);
    cudaDeviceSynchronize();
    float ms = 0.0f;
    cudaEventElapsedTime(&ms, a, b);
    std::printf("%f\n", ms);
    return 0;
}
