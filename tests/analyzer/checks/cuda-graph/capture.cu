// Stream capture, instantiation and replay from C++.
#include <cuda_runtime.h>

__global__ void add_one(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}

void run(float* x, int n, cudaStream_t stream) {
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // expect: cuda-graph
  add_one<<<(n + 255) / 256, 256, 0, stream>>>(x, n);
  cudaStreamEndCapture(stream, &graph);
  cudaGraphInstantiate(&exec, graph, 0);  // expect: cuda-graph
  cudaGraphLaunch(exec, stream);  // expect: cuda-graph
}
