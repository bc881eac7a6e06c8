// What one run is asked to do (`kaudit run`'s flags, and what kaudit audit
// passes for each submission): the data every layer of the runner reads.
#pragma once

#include "runner/process/device_turns.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kaudit::run {

struct RunOptions {
  std::filesystem::path problem;   // problem folder
  std::filesystem::path solution;  // the submission's .py
  std::string device = "cuda";     // "cuda" or "cpu"
  std::vector<std::string> modes = {"bench", "fresh", "rewrite"};
  bool trace = false;
  // With trace: the reference's process traced too (its own glue, for
  // library-does-the-work; runner/judge/trace_summary.h).
  bool trace_reference = true;
  std::string python;                // empty: /usr/bin/python3 for cpu, python3 on PATH for cuda
  std::filesystem::path harness;     // empty: found by run/resources.h
  std::filesystem::path tracer_lib;  // empty: $KAUDIT_TRACER_LIB, else found by run/resources.h
  int seeds = 3;                     // correctness seeds per shape
  std::vector<double> stress_scales = {0.01, 100.0};
  int warmup = 3;
  std::optional<int> trials;         // timed calls per mode; default: problem's num_perf_trials
  int samples = 3;                   // timed calls per mode whose outputs are verified
  // A shape whose inputs of one call exceed this gets one sampled call per
  // mode (the last): every sample's inputs stay on disk until the reference
  // has seen them, and MoE weights are GiBs.
  std::uintmax_t large_input_bytes = std::uintmax_t{1} << 30;
  // A shape whose inputs exceed this and that one seed draws again bit for
  // bit has the correctness cases of its other seeds drawn from their seed
  // in each process, not written to files and read back (docs/runner.md).
  std::uintmax_t seeded_case_bytes = std::uintmax_t{64} << 20;
  // Bytes written before every timed call so that each mode starts from the
  // same cache state; default twice the device's L2, on the CPU twice the
  // host's last-level cache (at most 256 MiB).
  std::optional<double> cache_flush_bytes;
  std::optional<double> setup_timeout_s;  // import, build, model set-up; default 600 cuda, 120 cpu
  std::optional<double> phase_timeout_s;  // each shape's correctness and each mode; default 300 / 60
  // Each correctness call, from the previous one's result (the first: from
  // the phase's start, model set-up included); default 60 s, at most the
  // phase timeout. A kernel that never ends costs this, not a whole phase.
  std::optional<double> call_timeout_s;
  std::optional<std::filesystem::path> hardware;  // a kaudit-hardware/1 file; default: by device name
  std::string peak_basis = "measured";            // or "datasheet"
  std::optional<std::filesystem::path> rule_pack;
  std::vector<std::string> pass_env;  // extra environment variables passed to the children
  bool keep_temp = false;             // keep the temporary folder (its path is in the result)
  std::map<std::string, std::string> env;  // variables set in the children (e.g. CUDA_VISIBLE_DEVICES per job)
  std::filesystem::path trace_output;      // with trace: copy trace.json and trace.chrome.json here
  bool poison = true;
  // Run the children without the sandbox, as kaudit's own user: only where
  // no sandbox can be had, and the run's isolation says so.
  bool unsafe_no_sandbox = false;
  // Tasks (processes and threads) each child and everything it starts may
  // have at once (run/task_limit.h), where this machine allows the cgroup.
  long max_tasks = 4096;
  int init_seed = 42;
  // The input probes (run/input_probes.h): at most this many shapes near the
  // graded ones (0: none), and inputs redrawn from these distributions.
  int off_grid_shapes = 6;
  // The graded shapes run: "all", or "smallest" (the one with the smallest
  // product of its sizes: a run sized for a CPU; its verdict speaks for that
  // shape only).
  std::string shapes = "all";
  std::vector<std::string> distributions = {"permuted", "shifted", "scaled", "heavy-tailed", "special", "input-ends"};
  // Runs that share one device (kaudit audit --jobs N) share these turns:
  // untimed GPU work (the reference's input generation and expected outputs,
  // the submission's correctness calls) takes a shared turn, each timing mode
  // an exclusive one, so that no other run's work lands in a timed call;
  // imports, builds and the comparisons in C++ need none. Null: the run has
  // the device to itself.
  std::shared_ptr<DeviceTurns> device_turns;
  // In the sandbox the reference computes expected outputs beside the
  // submission's calls, sharing the device with them (runner/session/run.h);
  // false: only once the submission's process has exited. kaudit audit's
  // retry alone of a run that failed for the machine makes it false, so
  // that device memory the reference held beside it cannot fail it twice.
  bool expected_beside = true;
  // A second reference process answering the timed samples' expected
  // outputs beside the first (docs/runner.md, "The reference's helper").
  // Unset: one where the expected outputs are computed beside the
  // submission's calls, on a GPU the run has to itself (a batch of one).
  std::optional<bool> reference_helper;
  // When the helper starts: with the first reference process, or once the
  // first has made the inputs (its import and CUDA's start then never
  // contend with the submission's own start; it has the correctness calls'
  // time to be ready before the first timed samples come).
  enum class HelperStart { with_reference, after_inputs };
  HelperStart reference_helper_start = HelperStart::with_reference;
  // Told, from the runner's thread, each step of the run as it starts:
  // "reference", then the submission's phases ("correctness, shape 1").
  // kaudit audit's progress lines show it. The text of a phase comes from
  // the submission's process: whoever prints it must make it inert.
  std::function<void(const std::string&)> on_phase;
};

}  // namespace kaudit::run
