// GPU tests of the tracer (ctest label `gpu`): runs a CUDA C++ program, a
// PyTorch/Triton script and misbehaving targets under `kaudit trace`, then
// checks the traces with the trace model. Skips, saying why, where there is
// no GPU. With KAUDIT_GPU_TEST_OUT set, the traces are kept there (they
// become the fixtures under tests/tracer/fixtures/).
#include "tests/tracer/trace_expectations.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using namespace kaudit::tracer;
using namespace kaudit::tracer::testing;

std::optional<std::string> no_gpu_reason() {
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW);
  if (cuda == nullptr) return "no GPU: libcuda.so.1 cannot be loaded (no NVIDIA driver)";
  using Init = int (*)(unsigned);
  using Count = int (*)(int*);
  auto init = reinterpret_cast<Init>(dlsym(cuda, "cuInit"));
  auto count = reinterpret_cast<Count>(dlsym(cuda, "cuDeviceGetCount"));
  int n = 0;
  if (init == nullptr || count == nullptr || init(0) != 0 || count(&n) != 0 || n == 0)
    return "no GPU: the driver reports no CUDA device";
  return std::nullopt;
}

bool python_has_torch_and_triton() {
  return std::system("python3 -c 'import torch, triton; assert torch.cuda.is_available()' >/dev/null 2>&1") == 0;
}

fs::path out_dir() {
  const char* keep = std::getenv("KAUDIT_GPU_TEST_OUT");
  fs::path dir = keep != nullptr && *keep != '\0' ? fs::path(keep) : fs::temp_directory_path() / "kaudit-gpu-test";
  fs::create_directories(dir);
  return dir;
}

// Runs `kaudit trace -q [--keep-journals NAME.journals] -o NAME.json --chrome NAME.chrome.json -- command`
// with a time limit; returns kaudit's exit status (124: it hung).
int kaudit_trace(const std::string& name, const std::string& command, const std::string& env = "",
                 bool keep_journals = false) {
  const fs::path dir = out_dir();
  const std::string keep = keep_journals ? " --keep-journals " + (dir / (name + ".journals")).string() : "";
  const std::string cmd = env + " timeout -k 10 120 " KAUDIT_BIN " trace -q" + keep + " -o " + (dir / (name + ".json")).string() +
                          " --chrome " + (dir / (name + ".chrome.json")).string() + " -- " + command + " > " +
                          (dir / (name + ".log")).string() + " 2>&1";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

Trace load(const std::string& name) { return load_trace_file((out_dir() / (name + ".json")).string()); }

class TracerGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = no_gpu_reason()) GTEST_SKIP() << *why;
  }
};

class TracerGpuPython : public TracerGpu {
 protected:
  void SetUp() override {
    TracerGpu::SetUp();
    if (IsSkipped()) return;
    if (!python_has_torch_and_triton()) GTEST_SKIP() << "python3 with torch, triton and a GPU is not available";
  }
};

TEST_F(TracerGpu, CudaProgramEveryKernelOnceInItsCallWithItsLauncher) {
  ASSERT_EQ(kaudit_trace("trace_cuda_app", CUDA_APP, "", true), 0);
  expect_cuda_app_trace(load("trace_cuda_app"));
}

TEST_F(TracerGpuPython, TorchAndTritonEveryKernelInItsCallWithItsLibrary) {
  ASSERT_EQ(kaudit_trace("trace_torch_app", "python3 " TORCH_APP), 0);
  expect_torch_app_trace(load("trace_torch_app"));
}

// The fault targets get a shorter time limit (timeout's own status 124 means
// a hang).
std::string faults(const std::string& mode) { return "timeout 60 python3 " FAULTS_APP " " + mode; }

TEST_F(TracerGpuPython, SegfaultingTargetIsNotedAndFlushedRecordsKept) {
  EXPECT_EQ(kaudit_trace("fault_segfault", faults("segfault")), 1);
  const Trace t = load("fault_segfault");
  const Process& p = cuda_process(t);
  EXPECT_EQ(p.end_reason, "signal");
  EXPECT_EQ(p.end_signal, 11);
  EXPECT_TRUE(has_note(p, "signal 11")) << notes(p);
  EXPECT_FALSE(p.kernels.empty());
}

TEST_F(TracerGpuPython, OsExitIsNoted) {
  EXPECT_EQ(kaudit_trace("fault_os_exit", faults("os_exit")), 0);
  const Trace t = load("fault_os_exit");
  const Process& p = cuda_process(t);
  EXPECT_FALSE(p.complete());
  EXPECT_TRUE(has_note(p, "without the tracer's exit flush")) << notes(p);
}

TEST_F(TracerGpuPython, ForkedChildGetsItsOwnJournalAndParentKeepsTracing) {
  EXPECT_EQ(kaudit_trace("fault_fork", faults("fork")), 0);
  const Trace t = load("fault_fork");
  ASSERT_EQ(t.processes.size(), 2u);
  const Process* parent = nullptr;
  const Process* child = nullptr;
  for (const Process& p : t.processes) (p.forked_from != 0 ? child : parent) = &p;
  ASSERT_NE(parent, nullptr);
  ASSERT_NE(child, nullptr);
  EXPECT_EQ(child->forked_from, parent->pid);
  EXPECT_TRUE(has_note(*child, "forked from a process that used CUDA")) << notes(*child);
  EXPECT_TRUE(child->complete());
  EXPECT_TRUE(parent->complete()) << notes(*parent);
  EXPECT_GE(parent->kernels.size(), 24u);
}

TEST_F(TracerGpuPython, SpawnedProcessIsTracedToo) {
  EXPECT_EQ(kaudit_trace("fault_spawn", faults("spawn")), 0);
  const Trace t = load("fault_spawn");
  size_t with_kernels = 0;
  for (const Process& p : t.processes) {
    with_kernels += p.kernels.empty() ? 0 : 1;
    if (p.cupti_seen) { EXPECT_TRUE(p.complete()) << p.pid << notes(p); }
  }
  EXPECT_EQ(with_kernels, 2u);
}

TEST_F(TracerGpuPython, SecondProfilerNeitherHangsNorCrashesAndLossIsNoted) {
  EXPECT_EQ(kaudit_trace("fault_profiler", faults("profiler")), 0);
  const Trace t = load("fault_profiler");
  const Process& p = cuda_process(t);
  EXPECT_TRUE(p.complete()) << notes(p);
  size_t unrecorded = 0;
  for (const CallSummary& s : summarize_calls(p, Families::builtin())) unrecorded += s.unrecorded_launches;
  // Either every launch still has its kernel, or the trace says some do not.
  if (unrecorded > 0) { EXPECT_TRUE(has_note(p, "no kernel record")) << notes(p); }
  RecordProperty("unrecorded_launches_under_torch_profiler", static_cast<int>(unrecorded));
  std::printf("under torch.profiler: %zu kernels recorded, %zu launches without a record%s\n", p.kernels.size(),
              unrecorded, notes(p).c_str());
}

TEST_F(TracerGpuPython, HiddenGpuNeitherHangsNorCrashes) {
  EXPECT_EQ(kaudit_trace("fault_no_gpu", faults("no_gpu"), "CUDA_VISIBLE_DEVICES="), 0);
  const Trace t = load("fault_no_gpu");
  for (const Process& p : t.processes) EXPECT_TRUE(p.kernels.empty());
}

}  // namespace
