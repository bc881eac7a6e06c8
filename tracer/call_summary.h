// Per-call answers from a trace: what ran during each call the harness
// marked, whose kernels they were, and what ran where it should not have.
#pragma once

#include "tracer/families.h"
#include "tracer/trace.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace kaudit::tracer {

struct Bucket {
  size_t count = 0;
  uint64_t gpu_ns = 0;
};

struct CallSummary {
  long pid = 0;
  uint32_t call = 0;  // 0: GPU work launched outside any call
  std::string phase, shape, mode;
  int64_t index = 0;
  uint64_t begin = 0, end = 0;

  size_t kernels = 0;
  uint64_t gpu_ns = 0;  // sum of kernel durations
  uint64_t own_ns = 0, library_ns = 0, unknown_ns = 0;
  std::map<std::string, Bucket> libraries;  // by library name
  std::map<std::string, Bucket> families;   // by op family; copies and fills included
  std::set<uint32_t> streams;               // streams of kernels and transfers
  size_t graph_launches = 0;                // cudaGraphLaunch / cuGraphLaunch calls made during the call
  size_t graph_kernels = 0;                 // kernels that ran as graph nodes
  size_t transfers = 0;
  uint64_t transfer_bytes = 0, transfer_ns = 0;
  // This call's GPU work still running after the call ended (the harness
  // synchronizes before it ends a call, so this is work hidden from it).
  size_t late_kernels = 0;
  uint64_t late_ns = 0;
  // Time the GPU was busy with this call's kernels, copies and fills: the
  // length of the union of their intervals (overlapping streams count once),
  // and when the first began and the last ended.
  uint64_t busy_ns = 0;
  uint64_t first_start = 0, last_end = 0;
  // Work of other calls, or of no call, that ran inside this call's interval.
  size_t foreign_kernels = 0;
  // Launches in this call with no GPU record (lost; see the process's notes).
  size_t unrecorded_launches = 0;
  // GPU timer reads (cudaEventElapsedTime...) made during the call: the
  // harness reads its events after a call ends, so these are the submission's.
  size_t timer_reads = 0;

  // Share of GPU time in the submission's own kernels (0 when no GPU time).
  double own_share() const;
};

// One summary per call of `process`, in call order, then one for work
// outside any call (call 0) when there was any.
std::vector<CallSummary> summarize_calls(const Process& process, const Families& families);

nlohmann::json to_json(const CallSummary& summary);

}  // namespace kaudit::tracer
