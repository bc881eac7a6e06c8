// libkaudit_tracer.so: loaded by the CUDA driver through CUDA_INJECTION64_PATH,
// which calls InitializeInjection() during cuInit. Records what ran on the
// GPU (CUPTI activity), who launched it (cached unwinding), and in which
// call (kaudit_tracer.h), into one journal per process (journal_writer.h).
//
// Rules this file keeps, because the traced program must never notice it:
// - the launch path takes two timestamps, a cache lookup and one uncontended
//   lock; unwinding happens once per new CUfunction, host stub or graph exec;
// - CUPTI's worker thread only queues the buffers it delivers; the records
//   are encoded and written by a background flusher (or, when a module
//   unloads and at exit, by the thread that triggers it), never by a launch;
// - nothing here waits on the GPU; a forked child never calls CUPTI;
// - every failure becomes a note in the journal, not an error in the program.
#include "tracer/inject/caller.h"
#include "tracer/inject/json_line.h"
#include "tracer/inject/journal_writer.h"
#include "tracer/inject/records.h"
#include "tracer/journal_format.h"
#include "tracer/kaudit_tracer.h"

#include <cupti.h>
#include <dlfcn.h>
#include <nlohmann/json.hpp>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cctype>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#define KAUDIT_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using nlohmann::json;
using namespace kaudit::tracer;
using namespace kaudit::tracer::inject;

constexpr size_t kBufferBytes = 8u << 20;         // host activity buffers
constexpr size_t kDeviceBufferBytes = 16u << 20;  // CUPTI's device-side buffer per context

// ---------------------------------------------------------------- API table
// timer: reading the time between two CUDA events, recorded like a copy so
// that a submission timing itself inside a call shows (timer-read-in-call).
enum class ApiKind : uint8_t { none, launch_first, launch_second, graph_launch, copy, timer };
struct ApiInfo {
  ApiKind kind = ApiKind::none;
  uint16_t name = 0;  // index into g_api_names
};

// The tracer's state is never destroyed: CUPTI and other libraries' exit
// code can call back into the tracer after its exit handler, and static
// destructors would leave those calls with freed objects.
template <typename T, typename... Args>
T& immortal(Args&&... args) {
  return *new T(std::forward<Args>(args)...);
}

std::vector<ApiInfo>& g_runtime_api = immortal<std::vector<ApiInfo>>();
std::vector<ApiInfo>& g_driver_api = immortal<std::vector<ApiInfo>>();
std::vector<std::string>& g_api_names = immortal<std::vector<std::string>>(1, std::string());

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

ApiKind classify_api(std::string_view name) {
  if (name.find("HostFunc") != std::string_view::npos || name.find("MultiDevice") != std::string_view::npos)
    return ApiKind::none;
  if (starts_with(name, "cudaGraphLaunch") || starts_with(name, "cuGraphLaunch")) return ApiKind::graph_launch;
  // cudaLaunchKernelExC(config, func, ...) and cuLaunchKernelEx(config, f, ...)
  if (starts_with(name, "cudaLaunchKernelEx") || starts_with(name, "cuLaunchKernelEx")) return ApiKind::launch_second;
  // cudaLaunchKernel(func, ...), cuLaunchKernel(f, ...), cuLaunch(f), cuLaunchGrid(f, ...), cooperative kinds
  if (starts_with(name, "cudaLaunch") || starts_with(name, "cuLaunch")) return ApiKind::launch_first;
  if (starts_with(name, "cudaMemcpy") || starts_with(name, "cudaMemset") || starts_with(name, "cuMemcpy") ||
      starts_with(name, "cuMemset"))
    return ApiKind::copy;
  if (starts_with(name, "cudaEventElapsedTime") || starts_with(name, "cuEventElapsedTime")) return ApiKind::timer;
  return ApiKind::none;
}

// Returns the callback ids to enable.
std::vector<CUpti_CallbackId> build_api_table(CUpti_CallbackDomain domain, uint32_t size, std::vector<ApiInfo>& table) {
  std::vector<CUpti_CallbackId> enabled;
  table.assign(size, ApiInfo{});
  for (uint32_t cbid = 1; cbid < size; ++cbid) {
    const char* name = nullptr;
    if (cuptiGetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS || name == nullptr) continue;
    const ApiKind kind = classify_api(name);
    if (kind == ApiKind::none) continue;
    // Callback names may carry a version suffix (cudaLaunchKernel_v7000).
    std::string clean = name;
    if (const size_t v = clean.find("_v"); v != std::string::npos && v + 2 < clean.size() &&
                                           std::isdigit(static_cast<unsigned char>(clean[v + 2])))
      clean.erase(v);
    g_api_names.push_back(clean);
    table[cbid] = ApiInfo{kind, static_cast<uint16_t>(g_api_names.size() - 1)};
    enabled.push_back(cbid);
  }
  return enabled;
}

// ------------------------------------------------------------------ state
// Lock order: g_launcher_mutex, then g_journal_mutex, then g_launch_mutex.
std::mutex g_launcher_mutex;
std::mutex g_journal_mutex;
std::mutex g_launch_mutex;

JournalWriter& g_journal = immortal<JournalWriter>();  // guarded by g_journal_mutex
std::atomic<int> g_journal_fd{-1};       // for the crash handler
std::atomic<bool> g_injected{false};     // InitializeInjection ran
std::atomic<int> g_status{0};            // kaudit_tracer_status()
std::atomic<bool> g_activity{false};     // activity callbacks registered
std::atomic<bool> g_finished{false};     // the exit handler has begun
std::atomic<bool> g_closed{false};       // the end line was written: records are no longer read
bool g_cuda_forked_child = false;        // forked from a process that used CUDA
CUpti_SubscriberHandle g_subscriber = nullptr;

struct LaunchRecord {
  uint32_t corr;
  uint32_t parent;
  uint32_t launcher;
  uint32_t call;
  uint16_t api;
  uint8_t captured;
  int32_t status;
  uint32_t tid;
  uint64_t enter;
  uint64_t exit;
};
std::vector<LaunchRecord>& g_launches = immortal<std::vector<LaunchRecord>>();  // guarded by g_launch_mutex
std::atomic<uint64_t> g_launch_count{0};

auto& g_launcher_ids = immortal<std::unordered_map<uintptr_t, uint32_t>>();  // guarded by g_launcher_mutex
// Activity buffers this tracer handed to CUPTI (a second CUPTI client can
// hand out its own, which must not be freed here).
std::mutex g_buffers_mutex;
auto& g_our_buffers = immortal<std::unordered_set<uint8_t*>>();
uint32_t g_next_launcher = 1;

std::atomic<uint32_t> g_current_call{0};
std::atomic<uint32_t> g_next_call{1};
std::atomic<uint64_t> g_dropped{0};
std::atomic<uint64_t> g_buffer_failures{0};

// Background flusher: a plain pthread so that a forked child, where it does
// not exist, can forget it without touching a std::thread.
pthread_t g_flusher{};
std::atomic<bool> g_flusher_running{false};
std::mutex g_flusher_mutex;
std::condition_variable& g_flusher_cv = immortal<std::condition_variable>();
bool g_flusher_stop = false;
unsigned g_flush_ms = 1000;

// Delivered activity buffers wait here for the flusher (guarded by
// g_buffers_mutex): encoding them on CUPTI's worker thread would hold it,
// and whatever CUPTI locks it has, while launches go on.
struct Delivered {
  uint8_t* buffer;
  size_t valid;
  size_t dropped;
};
auto& g_delivered = immortal<std::vector<Delivered>>();
void encode_delivered();

// Which parts of the tracer run (KAUDIT_TRACE_PARTS, for measuring the
// tracer's own overhead; docs/tracer.md): both by default.
bool g_want_api = true;
bool g_want_activity = true;
bool g_kernel_activity_only = false;  // "kernels": CUPTI's cost of kernel records alone

struct Pending {
  bool captured = false;
  uint16_t api = 0;
  uint32_t corr = 0;
  uint32_t parent = 0;  // the enclosing launch API (a driver call made by the runtime)
  uint32_t launcher = 0;
  uint32_t call = 0;
  uint64_t enter = 0;
};
constexpr int kMaxDepth = 4;
struct CacheSlot {
  uintptr_t key;
  uint32_t id;
};
// One thread-local object: in a library loaded with dlopen every
// thread-local access is a call (__tls_get_addr); a launch makes one.
struct ThreadState {
  std::array<Pending, kMaxDepth> stack{};
  int depth = 0;
  uint32_t tid = 0;
  std::array<CacheSlot, 64> launcher_cache{};
};
thread_local ThreadState t_state;

uint32_t thread_id(ThreadState& t) {
  if (t.tid == 0) t.tid = static_cast<uint32_t>(::syscall(SYS_gettid));
  return t.tid;
}
uint32_t thread_id() { return thread_id(t_state); }

uint64_t now() {
  if (!g_injected.load(std::memory_order_relaxed) || g_cuda_forked_child) return 0;
  uint64_t ts = 0;
  cuptiGetTimestamp(&ts);
  return ts;
}

// ----------------------------------------------------------------- journal
std::string line_of(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string read_cmdline() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string self_exe() {
  std::array<char, 4096> buf{};
  const ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  return n > 0 ? std::string(buf.data(), static_cast<size_t>(n)) : std::string();
}

// Opens the journal and writes the process line. Caller holds g_journal_mutex.
void open_journal_locked(long forked_from) {
  // After the end line nothing more is written: reopening would truncate the journal.
  if (g_journal.is_open() || g_closed.load()) return;
  if (!g_journal.open(journal_path_for(::getpid()))) return;
  g_journal_fd.store(g_journal.fd());
  json argv = json::array();
  const std::string cmdline = read_cmdline();
  for (size_t at = 0; at < cmdline.size();) {
    const size_t end = cmdline.find('\0', at);
    argv.push_back(cmdline.substr(at, end == std::string::npos ? std::string::npos : end - at));
    if (end == std::string::npos) break;
    at = end + 1;
  }
  json j = {{"type", "process"},
            {"schema", kJournalSchema},
            {"pid", ::getpid()},
            {"ppid", ::getppid()},
            {"exe", self_exe()},
            {"argv", argv},
            {"unix_time_ns", std::chrono::duration_cast<std::chrono::nanoseconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count()}};
  if (forked_from != 0) j["forked_from"] = forked_from;
  std::string out = line_of(j);
  if (const char* nvtx = std::getenv("NVTX_INJECTION64_PATH"); nvtx != nullptr && *nvtx != '\0')
    out += line_of({{"type", "note"},
                    {"level", "warning"},
                    {"text", std::string("NVTX_INJECTION64_PATH is set (") + nvtx +
                                 "): an NVTX call before CUDA's first use can make CUPTI refuse the tracer"}});
  g_journal.append(out);
}

void write_line(const json& j) {
  std::lock_guard lock(g_journal_mutex);
  open_journal_locked(0);
  g_journal.append(line_of(j));
}

void note(std::string_view level, std::string text) {
  write_line({{"type", "note"}, {"level", level}, {"text", std::move(text)}});
}

std::string cupti_error(CUptiResult r) {
  const char* text = nullptr;
  cuptiGetResultString(r, &text);
  return text != nullptr ? text : ("CUPTI error " + std::to_string(static_cast<int>(r)));
}

// Moves the launch records into `out`. Caller holds g_journal_mutex.
void drain_launches_locked(std::string& out) {
  std::vector<LaunchRecord> batch;
  {
    std::lock_guard lock(g_launch_mutex);
    batch.swap(g_launches);
  }
  for (const LaunchRecord& r : batch) {
    JsonLine j(out, "launch");
    j.num("corr", r.corr).str("api", g_api_names[r.api]).num("tid", r.tid).num("enter", r.enter).num("exit", r.exit);
    if (r.parent != 0) j.num("parent", r.parent);
    if (r.launcher != 0) j.num("launcher", r.launcher);
    if (r.call != 0) j.num("call", r.call);
    if (r.captured != 0) j.boolean("captured", true);
    if (r.status != 0) j.num("status", r.status);
  }
}

// ---------------------------------------------------------------- launches
json chain_json(const Caller& c) { return json(c.chain); }

// The launcher id for `key`; unwinds on first sight. `stub` is the runtime
// host stub, whose registering object is a fallback when unwinding fails.
uint32_t launcher_for(ThreadState& t, uintptr_t key, const void* stub, uint16_t api) {
  CacheSlot& slot = t.launcher_cache[(key >> 4) % t.launcher_cache.size()];
  if (slot.key == key && slot.id != 0) return slot.id;
  uint32_t id = 0;
  {
    std::lock_guard lock(g_launcher_mutex);
    if (auto it = g_launcher_ids.find(key); it != g_launcher_ids.end()) {
      id = it->second;
    } else {
      Caller caller = find_caller();
      std::string how = "stack";
      std::string registered = stub != nullptr ? object_of(stub) : std::string();
      if (caller.object.empty() && !registered.empty()) {
        caller.object = registered;
        how = "registration";
      }
      id = g_next_launcher++;
      g_launcher_ids.emplace(key, id);
      json j = {{"type", "launcher"}, {"id", id},           {"api", g_api_names[api]}, {"object", caller.object},
                {"symbol", caller.symbol}, {"how", how}, {"chain", chain_json(caller)}};
      if (!registered.empty()) j["registered_in"] = registered;
      write_line(j);
    }
  }
  slot = CacheSlot{key, id};
  return id;
}

void on_api(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData* cb) {
  const std::vector<ApiInfo>& table = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? g_runtime_api : g_driver_api;
  if (cbid >= table.size()) return;
  const ApiInfo info = table[cbid];
  if (info.kind == ApiKind::none) return;
  ThreadState& t = t_state;
  if (cb->callbackSite == CUPTI_API_ENTER) {
    // A runtime call may make driver calls of its own (with their own
    // correlation ids, which GPU records can carry): record them as nested.
    if (t.depth >= kMaxDepth) return;
    Pending& p = t.stack[static_cast<size_t>(t.depth)];
    p.parent = t.depth > 0 ? t.stack[static_cast<size_t>(t.depth - 1)].corr : 0;
    ++t.depth;
    p.captured = false;
    p.api = info.name;
    p.corr = cb->correlationId;
    p.call = g_current_call.load(std::memory_order_relaxed);
    p.launcher = 0;
    if (info.kind != ApiKind::copy && info.kind != ApiKind::timer && cb->functionParams != nullptr) {
      const void* const* params = static_cast<const void* const*>(cb->functionParams);
      const void* target = info.kind == ApiKind::launch_second ? params[1] : params[0];
      const bool runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
      const uintptr_t tag = info.kind == ApiKind::graph_launch ? 2 : (runtime ? 0 : 1);
      const uintptr_t key = (reinterpret_cast<uintptr_t>(target) << 2) | tag;
      p.launcher = launcher_for(t, key, runtime && info.kind != ApiKind::graph_launch ? target : nullptr, info.name);
    }
    p.enter = now();
    return;
  }
  if (t.depth == 0 || t.stack[static_cast<size_t>(t.depth - 1)].corr != cb->correlationId) return;
  const Pending& p = t.stack[static_cast<size_t>(--t.depth)];
  LaunchRecord r{p.corr,   p.parent,     p.launcher, p.call, p.api, static_cast<uint8_t>(p.captured),
                 0,        thread_id(t), p.enter,    now()};
  if (cb->functionReturnValue != nullptr) r.status = *static_cast<const int*>(cb->functionReturnValue);
  g_launch_count.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard lock(g_launch_mutex);
  g_launches.push_back(r);
}

// --------------------------------------------------------------- resources
const char* node_type_name(int type) {
  switch (type) {
    case CU_GRAPH_NODE_TYPE_KERNEL: return "kernel";
    case CU_GRAPH_NODE_TYPE_MEMCPY: return "memcpy";
    case CU_GRAPH_NODE_TYPE_MEMSET: return "memset";
    case CU_GRAPH_NODE_TYPE_HOST: return "host";
    case CU_GRAPH_NODE_TYPE_GRAPH: return "graph";
    case CU_GRAPH_NODE_TYPE_EMPTY: return "empty";
    default: return "other";
  }
}

void on_resource(CUpti_CallbackId cbid, const CUpti_ResourceData* res) {
  switch (cbid) {
    case CUPTI_CBID_RESOURCE_MODULE_LOADED: {
      const auto* m = static_cast<const CUpti_ModuleResourceData*>(res->resourceDescriptor);
      const Caller c = find_caller();
      write_line({{"type", "module"}, {"id", m->moduleId}, {"cubin_bytes", m->cubinSize}, {"loader", c.object},
                  {"symbol", c.symbol}, {"chain", chain_json(c)}, {"ts", now()}});
      return;
    }
    case CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING:
      // Kernel records point at names that CUPTI frees with their module
      // (Triton unloads its modules when Python exits): deliver and encode
      // the records of this module while their names are valid.
      if (g_activity.load()) cuptiActivityFlushAll(0);
      encode_delivered();
      return;
    case CUPTI_CBID_RESOURCE_STREAM_CREATED: {
      uint32_t id = 0;
      if (cuptiGetStreamIdEx(res->context, res->resourceHandle.stream, 0, &id) != CUPTI_SUCCESS) return;
      const Caller c = find_caller();
      write_line({{"type", "stream"}, {"id", id}, {"creator", c.object}, {"ts", now()}, {"tid", thread_id()}});
      return;
    }
    case CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED: {
      const auto* g = static_cast<const CUpti_GraphData*>(res->resourceDescriptor);
      uint64_t node = 0;
      uint32_t graph = 0;
      cuptiGetGraphNodeId(g->node, &node);
      cuptiGetGraphId(g->graph, &graph);
      json j = {{"type", "graph_node"}, {"node", node}, {"graph", graph},
                {"node_type", node_type_name(static_cast<int>(g->nodeType))}};
      ThreadState& t = t_state;
      if (t.depth > 0) {
        // Stream capture: the node inherits the captured launch's launcher and call.
        for (int i = 0; i < t.depth; ++i) t.stack[static_cast<size_t>(i)].captured = true;
        const Pending& p = t.stack[static_cast<size_t>(t.depth - 1)];
        j["corr"] = p.corr;
        j["launcher"] = p.launcher;
        j["call"] = p.call;
        j["api"] = g_api_names[p.api];
      } else {
        // cudaGraphAdd*Node and friends: rare, so unwind here.
        const Caller c = find_caller();
        j["object"] = c.object;
        j["chain"] = chain_json(c);
        j["call"] = g_current_call.load();
      }
      write_line(j);
      return;
    }
    case CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED: {
      const auto* g = static_cast<const CUpti_GraphData*>(res->resourceDescriptor);
      uint64_t node = 0;
      uint64_t original = 0;
      cuptiGetGraphNodeId(g->node, &node);
      cuptiGetGraphNodeId(g->originalNode, &original);
      write_line({{"type", "graph_node_clone"}, {"node", node}, {"original", original}});
      return;
    }
    case CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED: {
      const auto* g = static_cast<const CUpti_GraphData*>(res->resourceDescriptor);
      uint32_t exec = 0;
      uint32_t graph = 0;
      cuptiGetGraphExecId(g->graphExec, &exec);
      cuptiGetGraphId(g->graph, &graph);
      write_line({{"type", "graph_exec"}, {"exec", exec}, {"graph", graph}, {"call", g_current_call.load()}});
      return;
    }
    default:
      return;
  }
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (g_cuda_forked_child || g_finished.load(std::memory_order_relaxed)) return;
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API || domain == CUPTI_CB_DOMAIN_DRIVER_API)
    on_api(domain, cbid, static_cast<const CUpti_CallbackData*>(data));
  else if (domain == CUPTI_CB_DOMAIN_RESOURCE)
    on_resource(cbid, static_cast<const CUpti_ResourceData*>(data));
}

// ---------------------------------------------------------------- activity
void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *max_records = 0;
  *buffer = g_closed.load() ? nullptr : static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  if (*buffer == nullptr) {
    if (!g_closed.load()) g_buffer_failures.fetch_add(1);
    return;
  }
  std::lock_guard lock(g_buffers_mutex);
  g_our_buffers.insert(*buffer);
}

void release_buffer(uint8_t* buffer) {
  bool ours = false;
  {
    std::lock_guard lock(g_buffers_mutex);
    ours = g_our_buffers.erase(buffer) != 0;
  }
  if (ours) std::free(buffer);
}

// Encodes and writes every delivered buffer, then the launches. Called by
// the flusher, and by whichever thread unloads a module or ends the process.
void encode_delivered() {
  std::vector<Delivered> batch;
  {
    std::lock_guard lock(g_buffers_mutex);
    batch.swap(g_delivered);
  }
  std::lock_guard lock(g_journal_mutex);
  std::string out;
  for (const Delivered& d : batch) {
    out.clear();
    out.reserve(d.valid);
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(d.buffer, d.valid, &record) == CUPTI_SUCCESS) append_record_line(record, out);
    if (d.dropped > 0)
      out += line_of({{"type", "note"},
                      {"level", "loss"},
                      {"text", "CUPTI dropped " + std::to_string(d.dropped) + " activity records (buffers full)"}});
    g_journal.append(out);
    release_buffer(d.buffer);
  }
  out.clear();
  drain_launches_locked(out);
  g_journal.append(out);
}

void wake_flusher();  // below, with the flusher

void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream, uint8_t* buffer, size_t, size_t valid) {
  if (g_closed.load()) {  // after the end line: nothing more is read
    release_buffer(buffer);
    return;
  }
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(context, stream, &dropped) == CUPTI_SUCCESS && dropped > 0)
    g_dropped.fetch_add(dropped);
  {
    std::lock_guard lock(g_buffers_mutex);
    g_delivered.push_back({buffer, valid, dropped});
  }
  wake_flusher();
}

bool g_flusher_woken = false;  // guarded by g_flusher_mutex

// Wakes the flusher for a delivered buffer; without a flusher (KAUDIT_TRACE_FLUSH_MS=0,
// or its thread could not start) the buffer is encoded here.
void wake_flusher() {
  if (!g_flusher_running) {
    encode_delivered();
    return;
  }
  {
    std::lock_guard lock(g_flusher_mutex);
    g_flusher_woken = true;
  }
  g_flusher_cv.notify_one();
}

void* flusher_main(void*) {
  pthread_setname_np(pthread_self(), "kaudit-flush");
  std::unique_lock lock(g_flusher_mutex);
  auto next_flush = std::chrono::steady_clock::now() + std::chrono::milliseconds(g_flush_ms);
  while (!g_flusher_stop) {
    g_flusher_cv.wait_until(lock, next_flush, [] { return g_flusher_stop || g_flusher_woken; });
    if (g_flusher_stop) break;
    g_flusher_woken = false;
    lock.unlock();
    if (std::chrono::steady_clock::now() >= next_flush) {
      // Completed records only: never waits on the GPU. CUPTI delivers the
      // buffers through buffer_completed, which wakes this thread again.
      if (g_activity.load()) cuptiActivityFlushAll(0);
      next_flush = std::chrono::steady_clock::now() + std::chrono::milliseconds(g_flush_ms);
    }
    encode_delivered();
    lock.lock();
  }
  return nullptr;
}

void stop_flusher() {
  if (!g_flusher_running) return;
  {
    std::lock_guard lock(g_flusher_mutex);
    g_flusher_stop = true;
  }
  g_flusher_cv.notify_all();
  pthread_join(g_flusher, nullptr);
  g_flusher_running = false;
}

// ------------------------------------------------------------ exit, crash
void finish(const char* reason) {
  if (g_finished.exchange(true)) return;
  const int previous_call = static_cast<int>(g_current_call.exchange(0));
  if (!g_cuda_forked_child) {
    stop_flusher();
    if (g_activity.load()) {
      // A second CUPTI client (torch.profiler) may have taken the buffer
      // callbacks and be gone by now: take them back, so that what CUPTI
      // still holds reaches this journal rather than a dead client.
      cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
      cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
      for (CUpti_ActivityKind kind : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                      CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_MARKER})
        cuptiActivityDisable(kind);
    }
    encode_delivered();  // the flusher is gone: what it had not written yet
  }
  std::lock_guard lock(g_journal_mutex);
  if (!g_journal.is_open()) return;
  std::string out;
  drain_launches_locked(out);
  if (previous_call != 0)
    out += line_of({{"type", "note"},
                    {"level", "warning"},
                    {"text", "call " + std::to_string(previous_call) + " was still open when the process ended"}});
  if (g_buffer_failures.load() > 0)
    out += line_of({{"type", "note"},
                    {"level", "loss"},
                    {"text", std::to_string(g_buffer_failures.load()) + " activity buffers could not be allocated"}});
  out += line_of({{"type", "end"},
                  {"reason", reason},
                  {"ts", g_cuda_forked_child ? 0 : now()},
                  {"dropped", g_dropped.load()},
                  {"launches", g_launch_count.load()}});
  g_journal.append(out);
  g_journal.close();
  g_journal_fd.store(-1);
  g_closed.store(true);
}

// on_exit() rather than atexit(): in a child forked from a CUDA process,
// CUDA's and CUPTI's own exit handlers wait for threads that exist only in
// the parent, so after writing its journal the child ends at once with the
// status it was given (stdio flushed first).
void at_exit(int status, void*) {
  finish("exit");
  if (g_cuda_forked_child) {
    std::fflush(nullptr);
    _exit(status);
  }
}

constexpr std::array<int, 6> kFatalSignals = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTERM};
std::array<struct sigaction, 6> g_previous_actions{};
std::array<bool, 6> g_installed{};

// Async-signal-safe: one write of a preformatted line, then the signal's
// previous disposition.
void on_fatal_signal(int sig) {
  const int fd = g_journal_fd.load();
  if (fd >= 0 && !g_finished.exchange(true)) {
    char line[96] = "{\"type\":\"end\",\"reason\":\"signal\",\"signal\":";
    size_t n = std::strlen(line);
    char digits[8];
    int d = 0;
    for (int v = sig; v > 0 && d < 7; v /= 10) digits[d++] = static_cast<char>('0' + v % 10);
    while (d > 0) line[n++] = digits[--d];
    line[n++] = '}';
    line[n++] = '\n';
    ssize_t ignored = ::write(fd, line, n);
    (void)ignored;
  }
  for (size_t i = 0; i < kFatalSignals.size(); ++i)
    if (kFatalSignals[i] == sig && g_installed[i]) sigaction(sig, &g_previous_actions[i], nullptr);
  raise(sig);
}

// Only where the program kept the default: a program's own handler wins.
void install_crash_handlers() {
  for (size_t i = 0; i < kFatalSignals.size(); ++i) {
    struct sigaction current {};
    if (sigaction(kFatalSignals[i], nullptr, &current) != 0) continue;
    if ((current.sa_flags & SA_SIGINFO) != 0 || current.sa_handler != SIG_DFL) continue;
    struct sigaction ours {};
    ours.sa_handler = on_fatal_signal;
    sigemptyset(&ours.sa_mask);
    ours.sa_flags = SA_NODEFER;
    if (sigaction(kFatalSignals[i], &ours, &g_previous_actions[i]) == 0) g_installed[i] = true;
  }
}

// --------------------------------------------------------------------- fork
void before_fork() {
  g_launcher_mutex.lock();
  g_journal_mutex.lock();
  g_launch_mutex.lock();
  g_buffers_mutex.lock();
}

void after_fork_parent() {
  g_buffers_mutex.unlock();
  g_launch_mutex.unlock();
  g_journal_mutex.unlock();
  g_launcher_mutex.unlock();
}

void after_fork_child() {
  g_buffers_mutex.unlock();
  g_launch_mutex.unlock();
  g_journal_mutex.unlock();
  g_launcher_mutex.unlock();
  const bool traced_parent = g_injected.load() && g_status.load() == 1;
  g_flusher_running = false;  // the thread stayed in the parent
  g_launches.clear();          // the parent writes its own
  g_delivered.clear();         // the parent's buffers
  t_state.depth = 0;
  if (!g_journal.is_open()) return;  // the parent had written nothing: start afresh if CUDA is used here
  const long parent = static_cast<long>(::getppid());
  g_journal.close();
  g_finished.store(false);
  {
    std::lock_guard lock(g_journal_mutex);
    open_journal_locked(parent);
  }
  if (traced_parent) {
    g_cuda_forked_child = true;
    g_status.store(-1);
    note("loss", "forked from a process that used CUDA: CUDA cannot be used in this child, and nothing it does on "
                 "the GPU is traced");
  }
}

[[gnu::constructor]] void on_load() { pthread_atfork(before_fork, after_fork_parent, after_fork_child); }
[[gnu::destructor]] void on_unload() {
  if (g_injected.load() || g_journal.is_open()) finish("unload");
}

void enable_callbacks() {
  const auto runtime = build_api_table(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE, g_runtime_api);
  const auto driver = build_api_table(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE, g_driver_api);
  if (g_want_api) {
    for (CUpti_CallbackId id : runtime) cuptiEnableCallback(1, g_subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, id);
    for (CUpti_CallbackId id : driver) cuptiEnableCallback(1, g_subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id);
  }
  for (CUpti_CallbackId id :
       {CUPTI_CBID_RESOURCE_MODULE_LOADED, CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING, CUPTI_CBID_RESOURCE_STREAM_CREATED, CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED,
        CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED, CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED})
    cuptiEnableCallback(1, g_subscriber, CUPTI_CB_DOMAIN_RESOURCE, id);
}

void enable_activity_kinds() {
  // CONCURRENT_KERNEL, not KERNEL (which serialises kernels); no GRAPH_TRACE
  // (which would hide graph nodes behind one record).
  if (const CUptiResult r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL); r != CUPTI_SUCCESS) {
    g_status.store(-1);
    note("loss", "CUPTI refused kernel activity (" + cupti_error(r) + ")");
  }
  if (g_kernel_activity_only) return;
  for (CUpti_ActivityKind kind : {CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_DEVICE,
                                  CUPTI_ACTIVITY_KIND_MARKER})
    if (const CUptiResult r = cuptiActivityEnable(kind); r != CUPTI_SUCCESS)
      note("info", "CUPTI activity kind " + std::to_string(static_cast<int>(kind)) + " unavailable: " + cupti_error(r));
}

int driver_version() {
  void* cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (cuda == nullptr) return 0;
  int version = 0;
  using Fn = int (*)(int*);
  if (auto fn = reinterpret_cast<Fn>(dlsym(cuda, "cuDriverGetVersion")); fn != nullptr) fn(&version);
  dlclose(cuda);
  return version;
}

// KAUDIT_TRACE_PARTS: "api" (launch callbacks only), "activity" (GPU
// records only), "kernels" (kernel records only) or "none" (a subscriber
// that enables nothing) leaves the rest out, to measure what each part and
// CUPTI itself cost; the journal says so with a loss note, so such a trace
// never passes for whole.
void read_trace_parts() {
  const char* parts = std::getenv(kEnvTraceParts);
  if (parts == nullptr || *parts == '\0' || std::string_view(parts) == "all") return;
  const std::string_view p = parts;
  g_want_api = p == "api";
  g_want_activity = p == "activity" || p == "kernels";
  g_kernel_activity_only = p == "kernels";
  note("loss", std::string(kEnvTraceParts) + "=" + parts + ": " +
                   (g_want_api               ? "no GPU activity (kernels, copies) recorded"
                    : g_kernel_activity_only ? "kernel records only: no launch callbacks, copies, fills or markers"
                    : g_want_activity        ? "no launch callbacks: no launchers, calls or capture marks recorded"
                    : p == "none"            ? "subscribed only: nothing recorded"
                                             : "unknown value: nothing recorded") +
                   " (a setting for measuring the tracer's overhead)");
}

}  // namespace

// ====================================================================== API
KAUDIT_EXPORT int InitializeInjection(void) {
  if (g_injected.exchange(true)) return 1;
  if (const char* ms = std::getenv(kEnvFlushMs); ms != nullptr && *ms != '\0') g_flush_ms = std::strtoul(ms, nullptr, 10);
  uint32_t version = 0;
  cuptiGetVersion(&version);
  const CUptiResult subscribed = cuptiSubscribe(&g_subscriber, on_callback, nullptr);
  json cupti = {{"type", "cupti"},
                {"api_version", version},
                {"compiled_api_version", CUPTI_API_VERSION},
                {"driver_version", driver_version()},
                {"subscribed", subscribed == CUPTI_SUCCESS}};
  if (subscribed != CUPTI_SUCCESS) cupti["error"] = cupti_error(subscribed);
  write_line(cupti);
  if (subscribed != CUPTI_SUCCESS) {
    g_status.store(-1);
    note("loss", "CUPTI refused the tracer's subscription (" + cupti_error(subscribed) +
                     "): another CUPTI client (Nsight Systems, a profiler, CUPTI as NVTX injection) came first; nothing "
                     "in this process is traced");
    on_exit(at_exit, nullptr);
    return 1;
  }
  if (version != CUPTI_API_VERSION)
    note("warning", "CUPTI API version " + std::to_string(version) + " differs from the one the tracer was built with (" +
                        std::to_string(CUPTI_API_VERSION) + ")");
  read_trace_parts();
  enable_callbacks();
  size_t device_buffer = kDeviceBufferBytes;
  size_t attr_size = sizeof(device_buffer);
  cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &attr_size, &device_buffer);
  if (const CUptiResult r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed); r != CUPTI_SUCCESS) {
    g_status.store(-1);
    note("loss", "CUPTI refused the activity buffers (" + cupti_error(r) + "): no GPU records in this process");
    on_exit(at_exit, nullptr);
    return 1;
  }
  g_activity.store(true);
  g_status.store(1);
  if (g_want_activity) enable_activity_kinds();
  on_exit(at_exit, nullptr);
  install_crash_handlers();
  if (g_flush_ms > 0 && pthread_create(&g_flusher, nullptr, flusher_main, nullptr) == 0) g_flusher_running = true;
  return 1;
}

KAUDIT_EXPORT int kaudit_call_begin(const char* phase, const char* shape, const char* mode, long long index) {
  const uint64_t ts = now();
  const uint32_t id = g_next_call.fetch_add(1);
  std::string out;
  if (const uint32_t open = g_current_call.exchange(0); open != 0) {
    out += line_of({{"type", "call_end"}, {"call", open}, {"ts", ts}, {"implicit", true}});
    out += line_of({{"type", "note"},
                    {"level", "warning"},
                    {"text", "call " + std::to_string(open) + " was not ended before call " + std::to_string(id) +
                                 " began; it was ended there"}});
  }
  out += line_of({{"type", "call_begin"},
                  {"call", id},
                  {"phase", phase != nullptr ? phase : ""},
                  {"shape", shape != nullptr ? shape : ""},
                  {"mode", mode != nullptr ? mode : ""},
                  {"index", index},
                  {"ts", ts},
                  {"tid", thread_id()}});
  {
    std::lock_guard lock(g_journal_mutex);
    open_journal_locked(0);
    g_journal.append(out);
  }
  g_current_call.store(id);
  return static_cast<int>(id);
}

KAUDIT_EXPORT int kaudit_call_end(void) {
  const uint32_t open = g_current_call.exchange(0);
  if (open == 0) return 0;
  write_line({{"type", "call_end"}, {"call", open}, {"ts", now()}});
  return static_cast<int>(open);
}

KAUDIT_EXPORT int kaudit_tracer_status(void) { return g_status.load(); }

KAUDIT_EXPORT void kaudit_tracer_note(const char* text) { note("harness", text != nullptr ? text : ""); }

KAUDIT_EXPORT void kaudit_tracer_finish(void) { finish("finish"); }

KAUDIT_EXPORT void kaudit_tracer_flush(void) {
  if (g_cuda_forked_child) return;
  if (g_activity.load()) cuptiActivityFlushAll(0);
  encode_delivered();
}
