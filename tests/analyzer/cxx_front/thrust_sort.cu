#include <torch/extension.h>
#include <thrust/sort.h>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <cub/cub.cuh>

torch::Tensor sort_rows(torch::Tensor x) {
  auto out = x.clone();
  float* p = out.data_ptr<float>();
  const int64_t n = out.numel();
  thrust::sort(thrust::device, thrust::device_ptr<float>(p), thrust::device_ptr<float>(p) + n);
  size_t bytes = 0;
  cub::DeviceRadixSort::SortKeys(nullptr, bytes, p, p, static_cast<int>(n));
  return out;
}
