#include "runner/plan/child_env.h"

#include <cstdlib>
#include <map>

namespace kaudit::run {
namespace fs = std::filesystem;

namespace {

// Variables a child may see. Everything else (tokens, credentials, a
// harness's own settings) stays out.
const std::vector<std::string> kPassedEnv = {
    "CUDA_VISIBLE_DEVICES", "CUDA_HOME", "CUDA_PATH", "LD_LIBRARY_PATH", "NCCL_NVLS_ENABLE", "TORCH_SYMM_MEM_DISABLE_MULTICAST", "NVSHMEM_DISABLE_NVLS",
    "OMP_NUM_THREADS", "MKL_NUM_THREADS", "TORCH_CUDA_ARCH_LIST", "CC", "CXX"};

}  // namespace

std::vector<std::string> child_env(const RunOptions& o, const fs::path& home, const fs::path& trace_dir,
                                   const fs::path& tracer_lib) {
  std::map<std::string, std::string> env = {
      {"PATH", env_or("PATH", "/usr/local/bin:/usr/bin:/bin")},
      {"HOME", home.string()},
      {"TMPDIR", (home / "tmp").string()},
      {"LANG", "C.UTF-8"},
      {"PYTHONDONTWRITEBYTECODE", "1"},
      {"PYTHONUNBUFFERED", "1"},
      {"PYTHONHASHSEED", "0"},
      {"PYTHONNOUSERSITE", "1"},
  };
  std::vector<std::string> names = kPassedEnv;
  names.insert(names.end(), o.pass_env.begin(), o.pass_env.end());
  for (const auto& n : names)
    if (const char* v = std::getenv(n.c_str())) env[n] = v;
  // Compiled Triton kernels and torch extensions are the run's own: a cache
  // shared between runs would let one submission plant code another loads.
  env["TRITON_CACHE_DIR"] = (home / ".cache" / "triton").string();
  env["TORCH_EXTENSIONS_DIR"] = (home / ".cache" / "torch_extensions").string();
  // One thread per child on the CPU: steadier wall-clock times on a shared machine.
  if (o.device == "cpu" && !env.count("OMP_NUM_THREADS")) env["OMP_NUM_THREADS"] = "1";
  for (const auto& [k, v] : o.env) env[k] = v;
  if (!tracer_lib.empty()) {
    env["CUDA_INJECTION64_PATH"] = tracer_lib.string();
    env["KAUDIT_TRACE_DIR"] = trace_dir.string();
  }
  std::vector<std::string> out;
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

}  // namespace kaudit::run
