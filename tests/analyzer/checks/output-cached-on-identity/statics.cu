// Static state that can hold results across calls is suspicious.
#include <torch/extension.h>
#include <unordered_map>

static std::unordered_map<const void*, at::Tensor> g_results;  // expect: output-cached-on-identity
static const int kBlock = 256;

torch::Tensor run(torch::Tensor x) {
  static torch::Tensor last;  // expect: output-cached-on-identity
  auto it = g_results.find(x.data_ptr());
  if (it != g_results.end()) return it->second;
  last = x * 2;
  return last;
}
