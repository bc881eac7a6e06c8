// Which GPU toolchains a submission needs, from its imports and calls: the
// audit runs only pure-PyTorch submissions on the CPU.
#include "analyzer/analyzer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace kaudit::analyzer;
using Names = std::vector<std::string>;

namespace {

Names toolchains_of(const std::string& path, const std::string& text) {
  Analyzer an(AnalyzerOptions{});
  SubmissionFacts facts;
  an.analyze_text(path, text, &facts);
  return facts.gpu_toolchains;
}

}  // namespace

TEST(GpuToolchains, PurePyTorchNeedsNone) {
  EXPECT_EQ(toolchains_of("s.py", "import torch\nclass ModelNew(torch.nn.Module):\n"
                                  "    def forward(self, x):\n        return torch.relu(x)\n"),
            Names{});
  EXPECT_EQ(toolchains_of("s.py", "# triton would be faster here\nimport torch\nx = 'load_inline'\n"), Names{})
      << "a word in a comment or a string is not a toolchain";
}

TEST(GpuToolchains, ImportsCallsAndDecoratorsCount) {
  EXPECT_EQ(toolchains_of("s.py", "import triton\nimport triton.language as tl\n"), Names{"triton"});
  EXPECT_EQ(toolchains_of("s.py", "from triton import jit as J\n@J\ndef k(x):\n    pass\n"), Names{"triton"});
  EXPECT_EQ(toolchains_of("s.py", "from torch.utils import cpp_extension\n"), Names{"torch-extension"});
  EXPECT_EQ(toolchains_of("s.py", "import cupy as cp\nimport ctypes\n"), (Names{"ctypes", "cupy"}));
  EXPECT_EQ(toolchains_of("s.py", "import importlib\nnb = __import__('numba')\n"), Names{})
      << "dynamic imports are dynamic-code's business, not a toolchain read";
}

TEST(GpuToolchains, EmbeddedSourcesAndCxxFiles) {
  EXPECT_EQ(toolchains_of("s.py", "from torch.utils.cpp_extension import load_inline\n"
                                  "m = load_inline(name='m', cpp_sources='int f();', cuda_sources='__global__ void k() {}')\n"),
            (Names{"embedded-c++", "torch-extension"}));
  EXPECT_EQ(toolchains_of("k.cu", "__global__ void k() {}\n"), Names{"c++/cuda"});
}
