// The trace model: what ran on the GPU in each traced process, who launched
// it and in which call. Built from the tracer's journals (one per process)
// or read back from a trace document ("schema": "kaudit-trace/1"). Needs no
// GPU. Field meanings are documented in docs/tracer.md.
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace kaudit::tracer {

class Families;

struct Note {
  std::string level;  // "info", "warning", "loss" (something was not seen), "harness"
  std::string text;
};

// Who asked for launches of one CUfunction, host stub or graph exec.
struct Launcher {
  uint32_t id = 0;
  std::string api;     // the API of the first launch seen (cuLaunchKernelEx, cudaLaunchKernel, ...)
  std::string object;  // path of the shared object (or program) that launched; empty when unknown
  std::string symbol;  // nearest symbol in it, when known
  std::string how;     // "stack" (unwound) or "registration" (object that registered the host stub)
  std::vector<std::string> chain;  // distinct objects from the launcher outwards
};

// One call of the submission, as the harness marked it (kaudit_tracer.h).
struct Call {
  uint32_t id = 0;
  std::string phase, shape, mode;
  int64_t index = 0;
  uint64_t begin = 0;  // CUPTI timestamps, ns; 0 when unknown (marked before CUDA started)
  uint64_t end = 0;    // 0 when the call never ended
  uint32_t tid = 0;
  bool implicit_end = false;  // ended by the next begin
};

// One launching API call (kernel launch, graph launch, copy or fill).
struct Launch {
  uint32_t corr = 0;
  uint32_t parent = 0;    // non-zero: made inside that launch API (a driver call of the runtime)
  uint32_t launcher = 0;  // 0: none (copies) or unknown
  uint32_t call = 0;      // 0: outside any call
  std::string api;
  uint32_t tid = 0;
  uint64_t enter = 0, exit = 0;
  bool captured = false;  // recorded into a CUDA graph, not executed
  int status = 0;         // the API's return code
};

struct Kernel {
  std::string name;       // as CUPTI reports it (mangled for C++ kernels)
  std::string demangled;  // empty when the name is not mangled
  std::array<int, 3> grid{}, block{}, cluster{};
  int regs = 0;
  int smem_static = 0, smem_dynamic = 0;
  uint32_t local_per_thread = 0;
  uint32_t device = 0, context = 0, stream = 0;
  uint32_t graph = 0;       // non-zero: launched as a node of a CUDA graph
  uint64_t graph_node = 0;
  uint64_t start = 0, end = 0;  // GPU timestamps, ns; 0 when the record was incomplete
  uint32_t corr = 0;
  bool device_launched = false;
  // Joined from the launch (by correlation id) and, for graph kernels, from
  // the node's capture.
  uint32_t launcher = 0;
  uint32_t call = 0;
  std::string api;
  uint32_t tid = 0;
  uint64_t api_enter = 0;

  const std::string& display_name() const { return demangled.empty() ? name : demangled; }
  uint64_t duration() const { return end > start ? end - start : 0; }
};

// A memcpy or memset on the device.
struct Transfer {
  std::string kind;       // "memcpy" or "memset"
  std::string copy_kind;  // "HtoD", "DtoH", "DtoD", ... (memcpy only)
  uint64_t bytes = 0;
  uint32_t device = 0, context = 0, stream = 0;
  uint32_t graph = 0;
  uint64_t graph_node = 0;
  uint64_t start = 0, end = 0;
  uint32_t corr = 0;
  uint32_t runtime_corr = 0;  // memcpy: the runtime call's id when the runtime made it
  uint32_t call = 0;
  std::string api;
  uint32_t tid = 0;
  uint64_t api_enter = 0;

  uint64_t duration() const { return end > start ? end - start : 0; }
};

struct Module {
  uint32_t id = 0;
  uint64_t cubin_bytes = 0;
  std::string loader;  // object that loaded it
  std::vector<std::string> chain;
  uint64_t ts = 0;
};

struct Stream {
  uint32_t id = 0;
  std::string creator;
  uint64_t ts = 0;
  uint32_t tid = 0;
};

struct Device {
  uint32_t id = 0;
  std::string name, cc;
  uint32_t sms = 0;
  uint64_t memory_bytes = 0, l2_bytes = 0;
};

struct Marker {
  uint32_t id = 0;
  std::string name, domain;
  uint64_t ts = 0;
};

struct GraphNode {
  uint64_t node = 0;
  uint32_t graph = 0;
  std::string node_type;
  uint32_t corr = 0;      // the captured launch, 0 when added explicitly
  uint32_t launcher = 0;  // its launcher; 0 when added explicitly (then `object`)
  std::string object;
  uint32_t call = 0;      // the call during which the node was made
  uint64_t original = 0;  // the node this one was cloned from (graph instantiation), 0 if none
};

struct Process {
  long pid = 0, ppid = 0;
  long forked_from = 0;  // non-zero: a fork() child of that process
  std::string exe;
  std::vector<std::string> argv;
  int64_t unix_time_ns = 0;
  uint32_t cupti_api_version = 0, cupti_compiled_version = 0;
  int driver_version = 0;
  bool cupti_seen = false;  // InitializeInjection ran (CUDA was initialised)
  bool subscribed = false;
  std::string end_reason;  // "exit", "signal", "unload"; empty: the process ended without the tracer's flush
  int end_signal = 0;
  uint64_t dropped = 0;  // activity records CUPTI dropped
  uint64_t launches_counted = 0;
  std::string source;  // the journal it was read from

  std::vector<Device> devices;
  std::vector<Launcher> launchers;
  std::vector<Call> calls;
  std::vector<Launch> launches;
  std::vector<Kernel> kernels;
  std::vector<Transfer> transfers;
  std::vector<Module> modules;
  std::vector<Stream> streams;
  std::vector<Marker> markers;
  std::vector<GraphNode> graph_nodes;
  std::vector<Note> notes;  // from the tracer and from loading (what was lost)

  const Launcher* launcher(uint32_t id) const;
  const Call* call(uint32_t id) const;
  bool complete() const { return end_reason == "exit" || end_reason == "unload" || end_reason == "finish"; }
};

struct Trace {
  std::vector<std::string> command;  // what `kaudit trace` ran, when it did
  std::optional<int> exit_status;    // its exit status; 128+N for signal N
  std::vector<Process> processes;    // sorted by pid
  std::vector<Note> notes;
};

// Reads one journal (JSON Lines from libkaudit_tracer.so). Malformed lines
// (a process killed mid-write) are skipped and noted. Joins kernels and
// transfers to their launches and calls and notes what was lost. The traced
// process can write its journal without bound: past `max_bytes` the rest is
// left unread and the loss noted.
constexpr std::size_t kMaxJournalBytes = std::size_t{4} << 30;
Process load_journal(std::istream& in, const std::string& source, std::size_t max_bytes = kMaxJournalBytes);
Process load_journal_file(const std::string& path);  // throws std::runtime_error
// Every kaudit-trace.*.jsonl in `dir`, sorted by pid.
Trace load_journal_dir(const std::string& dir);
// A trace document, or a single journal when the file is JSON Lines.
Trace load_trace_file(const std::string& path);  // throws std::runtime_error

// The trace document. With `families`, kernels also carry their library,
// role and family, for people and tools that read the file alone.
nlohmann::json to_json(const Trace& trace, const Families* families = nullptr);
Trace trace_from_json(const nlohmann::json& doc);  // throws std::runtime_error

}  // namespace kaudit::tracer
