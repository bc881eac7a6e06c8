// What CUPTI itself adds to a kernel launch, without the tracer and without
// Python (docs/performance.md, "Tracer"): the floor under kaudit's overhead.
//
//   cupti_floor VARIANT [ROUNDS]
//
// VARIANT "off" never touches CUPTI. Every other variant subscribes to CUPTI
// (with a callback that does nothing) and registers activity buffers, then
// alternates, within the one process, bursts of 200 launches of a tiny kernel
// in three states:
//   base       nothing enabled;
//   callbacks  the launch callbacks of the runtime and the driver enabled
//              (an empty callback: CUPTI's dispatch cost alone);
//   kernels    concurrent-kernel activity enabled (CUPTI's cost of a kernel
//              record: what kaudit's GPU evidence needs).
// Alternating in one process removes the process-to-process noise of the
// machine. Variants set one CUPTI attribute before CUDA starts:
//   default, pinned (profiling data in pinned host memory), no-per-thread
//   (one activity buffer for all threads), devbuf16 (16 MiB device buffer,
//   as the tracer sets), zeroed (buffers handed over already zeroed).
// Before any of that, the last 10 of 20 warm-up bursts give the subscribed
// state before anything was ever enabled (warm_us).
// Host time per launch is the burst's wall time / 200; the burst is followed
// by an untimed synchronisation, so the launch queue never fills. Prints one
// JSON line: median host µs per launch per state, and the kernel records
// CUPTI delivered against the launches made while kernels were enabled.
#include <cuda_runtime.h>
#include <cupti.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

__global__ void floor_tiny(float* x) {
  if (threadIdx.x == 0) x[blockIdx.x] += 1.0f;
}

constexpr int kBurst = 200;
constexpr size_t kBufferBytes = 8u << 20;
bool g_zeroed = false;
std::atomic<long> g_kernel_records{0};
std::atomic<long> g_dropped{0};

void CUPTIAPI requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *max_records = 0;
  *buffer = static_cast<uint8_t*>(g_zeroed ? std::calloc(1, kBufferBytes) : std::aligned_alloc(8, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
}

void CUPTIAPI completed(CUcontext context, uint32_t stream, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS)
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) g_kernel_records.fetch_add(1);
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(context, stream, &dropped) == CUPTI_SUCCESS) g_dropped.fetch_add(dropped);
  std::free(buffer);
}

void CUPTIAPI nothing(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

void check(CUptiResult r, const char* what) {
  if (r != CUPTI_SUCCESS) {
    const char* text = nullptr;
    cuptiGetResultString(r, &text);
    std::fprintf(stderr, "%s: %s\n", what, text != nullptr ? text : "?");
    std::exit(1);
  }
}

// Host µs per launch of one burst; the queue is drained afterwards, untimed.
double burst(float* x) {
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kBurst; ++i) floor_tiny<<<1, 32>>>(x);
  const auto t1 = std::chrono::steady_clock::now();
  check(cudaDeviceSynchronize(), "synchronize");
  return std::chrono::duration<double, std::micro>(t1 - t0).count() / kBurst;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

void set_callbacks(CUpti_SubscriberHandle subscriber, uint32_t enable) {
  check(cuptiEnableCallback(enable, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API,
                            CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000),
        "runtime callback");
  for (CUpti_CallbackId id : {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx})
    check(cuptiEnableCallback(enable, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id), "driver callback");
}

}  // namespace

int main(int argc, char** argv) {
  const std::string variant = argc > 1 ? argv[1] : "default";
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 25;
  const bool use_cupti = variant != "off";
  CUpti_SubscriberHandle subscriber{};
  if (use_cupti) {
    check(cuptiSubscribe(&subscriber, nothing, nullptr), "subscribe");
    if (variant == "pinned") {
      uint8_t on = 1;
      size_t n = sizeof(on);
      check(cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED, &n, &on), "pinned");
    } else if (variant == "no-per-thread") {
      uint8_t off = 0;
      size_t n = sizeof(off);
      check(cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, &n, &off), "per-thread");
    } else if (variant == "devbuf16") {
      size_t bytes = 16u << 20;
      size_t n = sizeof(bytes);
      check(cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &n, &bytes), "device buffer");
    } else if (variant == "zeroed") {
      g_zeroed = true;
      uint8_t on = 1;
      size_t n = sizeof(on);
      check(cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &n, &on), "zeroed");
    } else if (variant != "default") {
      std::fprintf(stderr, "unknown variant %s\n", variant.c_str());
      return 2;
    }
    check(cuptiActivityRegisterCallbacks(requested, completed), "buffers");
  }
  float* x = nullptr;
  check(cudaMalloc(&x, 1024 * sizeof(float)), "malloc");
  // Load the module, warm the queue; the later half is the subscribed state
  // before anything was ever enabled (enabling may leave traces behind).
  std::vector<double> warm;
  for (int i = 0; i < 20; ++i) warm.push_back(burst(x));
  warm.erase(warm.begin(), warm.begin() + 10);

  std::vector<double> base, callbacks, kernels;
  long kernel_launches = 0;
  for (int r = 0; r < rounds; ++r) {
    base.push_back(burst(x));
    if (!use_cupti) continue;
    set_callbacks(subscriber, 1);
    callbacks.push_back(burst(x));
    set_callbacks(subscriber, 0);
    check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "enable kernels");
    kernels.push_back(burst(x));
    kernel_launches += kBurst;
    check(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "disable kernels");
  }
  if (use_cupti) check(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "flush");
  std::printf(
      "{\"variant\":\"%s\",\"rounds\":%d,\"burst\":%d,\"warm_us\":%.3f,\"base_us\":%.3f,\"callbacks_us\":%.3f,\"kernels_us\":%.3f,"
      "\"kernel_launches\":%ld,\"kernel_records\":%ld,\"dropped\":%ld}\n",
      variant.c_str(), rounds, kBurst, median(warm), median(base), median(callbacks), median(kernels), kernel_launches,
      g_kernel_records.load(), g_dropped.load());
  return 0;
}
