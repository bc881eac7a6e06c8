#include "runner/session/submission_session.h"

#include "runner/session/channel_message.h"

#include "runner/session/channel.h"
#include "runner/process/hardware.h"
#include "runner/session/launch.h"
#include "runner/judge/compare.h"
#include "runner/judge/probe_findings.h"
#include "runner/process/tensor_file.h"
#include "runner/process/machine_load.h"
#include "runner/judge/verify_timing.h"
#include "common/utf8.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <numeric>
#include <thread>

namespace kaudit::run {
namespace fs = std::filesystem;
using json = nlohmann::json;

SubmissionSession::SubmissionSession(const RunPlan& plan, const Workspace& ws, RunResult& result,
                                     DeviceAccess& device)
    : plan_(plan), ws_(ws), result_(result), device_(device) {}

// A run that ends before run() (the reference failed) stops the set-up: the
// thread's watch kills the process group within a second.
SubmissionSession::~SubmissionSession() {
  abandon_set_up_ = true;
  if (set_up_.joinable()) set_up_.join();
}

void SubmissionSession::start() {
  const std::string shapes_file =
      plan_.problem.shapes.empty() ? "" : plan_.in_copy(ws_.work(), plan_.problem.shapes).string();
  const fs::path cfg_path = ws_.submission_config_dir() / "submission.json";
  json cfg = {{"role", "submission"},
              {"device", plan_.options.device},
              {"format", plan_.format},
              {"reference", plan_.in_copy(ws_.work(), plan_.problem.reference).string()},
              {"shapes_file", shapes_file},
              {"solution", (ws_.work() / "solution.py").string()},
              {"xfer", ws_.xfer().string()},
              {"channel_fd", kChannelFd},
              {"init_seed", plan_.options.init_seed},
              {"first_seed", plan_.first_seed()},
              {"bounds_seeds", plan_.bounds_seeds()},
              {"shape_selection", plan_.options.shapes},
              {"trace", plan_.options.trace},
              {"nproc_limit", plan_.harness_nproc_limit()}};
  std::ofstream(cfg_path) << common::json_text(cfg);
  started_ = phase_started_ = clock_type::now();
  timeout_s_ = plan_.setup_s;
  child_ = std::make_unique<Child>(child_spec(plan_, ws_, Role::submission, cfg_path));
  // Without the sandbox the submission could rewrite the reference's input
  // files before run.cpp seals them: its code then waits for run().
  if (!plan_.isolation.sandboxed) return;
  set_up_beside_ = buffer_phases_ = true;
  set_up_ = std::thread([this] {
    try {
      set_up_out_ = drive(*child_, Speaker::submission, plan_.setup_s,
                          [this](const json& m) { return on_set_up_message(m); },
                          [this] { return abandon_set_up_ ? -1.0 : 0.0; });
    } catch (...) {  // rethrown on the run's thread (join_set_up)
      set_up_error_ = std::current_exception();
    }
  });
}

// The set-up's messages, on the set-up thread: the greeting, the set-up
// phase, an error, tampering, ready. Anything else stops the thread there
// and is handled by run(), on the run's thread, as before.
double SubmissionSession::on_set_up_message(const json& m) {
  const std::string ev = m["event"];
  if (ev == "hello" || ev == "ready" || ev == "error" || ev == "tampered" ||
      (ev == "phase" && m.value("phase", std::string()) == "setup" && !ready_))
    return on_message(m);
  held_message_ = m;
  return -1;
}

// Waits for the set-up thread (if start() began one); its phases go to the
// result, after the reference's.
void SubmissionSession::join_set_up() {
  if (!set_up_.joinable()) return;
  set_up_.join();
  buffer_phases_ = false;
  for (auto& p : set_up_phases_) result_.phases.push_back(std::move(p));
  set_up_phases_.clear();
  if (set_up_error_) std::rethrow_exception(set_up_error_);
}

// The set-up's outcome: the thread's, with a message it held back handled
// here, or driven now.
Outcome SubmissionSession::set_up_outcome() {
  auto handler = [this](const json& m) { return on_message(m); };
  if (!set_up_beside_) return drive(*child_, Speaker::submission, plan_.setup_s, handler);
  Outcome out = std::move(set_up_out_);
  if (!held_message_) return out;
  const json m = std::move(*held_message_);
  held_message_.reset();
  const double next = on_message(m);
  if (next < 0) return out;
  const double left_s = plan_.setup_s - std::chrono::duration<double>(clock_type::now() - started_).count();
  Outcome rest = drive(*child_, Speaker::submission, next > 0 ? next : std::max(left_s, 1.0), handler);
  rest.bad_messages.insert(rest.bad_messages.begin(), out.bad_messages.begin(), out.bad_messages.end());
  return rest;
}

void SubmissionSession::run(const fs::path& stage_config_path, const std::map<std::pair<int, int>, json>& inputs,
                            const std::vector<int>& samples_per_shape, const std::set<int>& seeded_shapes) {
  join_set_up();
  inputs_ = &inputs;
  samples_per_shape_ = samples_per_shape;
  seeded_shapes_ = seeded_shapes;
  auto handler = [this](const json& m) { return on_message(m); };
  // Import and build first, without the device's turn; then the calls.
  Outcome out = set_up_outcome();
  bad_messages_ = std::move(out.bad_messages);
  if (ready_ && !report_.error.is_object() && !violated_) {
    turn_ = device_.take(DeviceTurns::Kind::shared);
    phase_started_ = clock_type::now();  // the wait is device_wait_seconds
    timeout_s_ = plan_.phase_s;
    child_->send_line(stage_config_path.string());
    out = drive(*child_, Speaker::submission, plan_.phase_s, handler, [this] {
      const double held_s = lend_turn_while_building();
      if (first_call_pending_) note_build();
      return first_call_without_build() || holds_back_timers() ? -1.0 : held_s;
    });
    bad_messages_.insert(bad_messages_.end(), out.bad_messages.begin(), out.bad_messages.end());
  }
  timed_out_ = out.timed_out || out.stopped;
  for (const auto& b : bad_messages_) report_.violations.push_back("a malformed message (" + b + ")");
}

double SubmissionSession::on_message(const json& m) {
  const std::string ev = m["event"];
  if (ev == "hello") {
    if (said_hello_) return violation("a second 'hello'");
    said_hello_ = true;
    report_.pid = m["pid"].get<long>();
    start_parts_ = measures_of(m, "parts");
    std::set<int> run = child_->descendants();
    run.insert(child_->pid());
    harness_process_ = process_with_namespace_pid(static_cast<int>(report_.pid), run);
    first_channel_check();
    child_->send_line("go");  // the harness imports the solution only now
    return 0;
  }
  // Checked at every message: the harness waits for the runner after most of
  // them (a timed call's report, ready, a turn), so the descriptor is what it
  // wrote through, not what code running after it put back.
  if (!channel_intact())
    return violation("the harness's channel (file descriptor 3) was no longer the runner's pipe");
  if (ev == "ready") return ready_ ? violation("a second 'ready'") : on_ready();
  if (ev == "phase") return on_phase(m);
  if (ev == "turn") return on_turn();
  if (ev == "device_idle") return on_device_idle();
  if (ev == "returned") return on_first_return(m);
  if (ev == "call" && m["kind"] == "correctness") return on_correctness_call(m);
  if (ev == "checks") {
    report_.correctness_counts[m["shape"].get<int>()] = m;
    return 0;
  }
  if (ev == "probe" && m["probe"] == "stream-order") {
    report_.stream_order[m["shape"].get<int>()] = {{"outputs", m["outputs"]}, {"differing", m["differing"]}};
    return plan_.call_s;
  }
  if (ev == "mode_start") return on_mode_start(m);
  if (ev == "warm_done") return on_warm_done(m);
  if (ev == "null_timed") return on_null_timed(m);
  if (ev == "call_ready") return on_call_ready(m);
  if (ev == "timed") return on_timed(m);
  if (ev == "mode_end") return on_mode_end(m);
  if (ev == "timing") return on_timing(m);
  if (ev == "ops") return on_ops(m);
  if (ev == "state_dict") {
    // Checked by the channel's schema: status a string, keys an integer, reason a string.
    evidence::StateDictShape sd;
    sd.shape_index = m["shape"].get<int>();
    sd.status = m["status"].get<std::string>();
    if (m.contains("keys")) sd.keys = m["keys"].get<long long>();
    if (m.contains("reason")) sd.reason = m["reason"].get<std::string>();
    report_.state_dict[sd.shape_index] = sd;
    return 0;
  }
  if (ev == "tampered") {
    for (const auto& n : m["names"])
      if (n.is_string() && report_.tampered.size() < 50) report_.tampered.push_back(n.get<std::string>());
    return 0;
  }
  if (ev == "error") {
    report_.error = m;
    return -1;
  }
  if (ev == "done") {
    if (open_mode_ || !unsummarized_.empty()) return violation("'done' while a timing mode was still open");
    report_.done = true;
    report_.device_memory = measures_of(m, "device_memory");
    return -1;
  }
  return violation("an unexpected '" + ev + "' message");
}

// A message out of protocol: recorded, and the run stops there (what comes
// after it cannot be trusted).
double SubmissionSession::violation(const std::string& what) {
  report_.violations.push_back(what + " in " + phase_text());
  violated_ = true;
  return -1;
}

void SubmissionSession::first_channel_check() {
  if (!harness_process_) {
    channel_.unavailable = "the harness's process was not found from the id it gave";
    return;
  }
  channel_.usable = child_->channel_held_by(*harness_process_) == ChannelHolder::yes;
  if (channel_.usable)
    ++channel_.checked;
  else
    channel_.unavailable = "/proc did not show the runner's pipe as the harness's file descriptor " +
                           std::to_string(kChannelFd) + " before the solution was imported";
}

// Whether the harness still writes to the runner's pipe. Only /proc naming
// another file at that descriptor, read again a moment later, proves a swap
// (a pipe to a relay of the submission's own, which can rewrite every line).
// A process that is ending has released its descriptors (its exit is judged
// on its own); a closed or unreadable descriptor proves nothing either way:
// the check is then unavailable, never a finding.
bool SubmissionSession::channel_intact() {
  if (channel_.replaced) return false;
  if (!channel_.usable) return true;
  ChannelHolder h = child_->channel_held_by(*harness_process_);
  for (int again = 0; again < 3 && h == ChannelHolder::other_file; ++again) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    h = child_->channel_held_by(*harness_process_);
    if (h != ChannelHolder::other_file) ++channel_.transient;
  }
  switch (h) {
    case ChannelHolder::yes: ++channel_.checked; return true;
    case ChannelHolder::gone: return true;
    case ChannelHolder::closed:
    case ChannelHolder::hidden:
      channel_.usable = false;
      channel_.unavailable = "the harness's file descriptor " + std::to_string(kChannelFd) + " was " +
                             (h == ChannelHolder::closed ? "closed" : "unreadable to /proc") + " in " + phase_text() +
                             ": that proves no swap, and the channel was not checked after it";
      return true;
    case ChannelHolder::other_file: break;
  }
  report_.tampered.push_back("the channel (file descriptor " + std::to_string(kChannelFd) +
                             ": another file was put there, whose lines someone else can rewrite)");
  channel_.replaced = true;
  return false;
}

double SubmissionSession::on_ready() {
  ready_ = true;
  end_phase();
  current_phase_ = {{"phase", "inputs"}};  // reading them, once its turn on the device came
  if (plan_.options.on_phase) plan_.options.on_phase(phase_text());
  return -1;  // set up: it waits for its inputs and its turn on the device
}

// A yield point between untimed calls: a run waiting to time goes first
// (its wait is device_wait_seconds, not the phase's). Inside a timing mode
// the device stays this run's; after its timing modes, the first yield point
// gives the device back and takes a shared turn.
double SubmissionSession::on_turn() {
  if (!ready_) return violation("a 'turn' before 'ready'");
  if (!open_mode_) {
    const auto asked = clock_type::now();
    if (turn_.kind() == DeviceTurns::Kind::exclusive) {
      turn_.release();
      turn_ = device_.take(DeviceTurns::Kind::shared);
      phase_started_ += clock_type::now() - asked;
    } else if (device_.resume(turn_) > 0) {
      phase_started_ += clock_type::now() - asked;
    }
  }
  child_->send_line("go");
  return 0;
}

// File work follows: the device is given back until the next yield point.
// Inside a timing mode the device stays this run's whatever the harness says.
double SubmissionSession::on_device_idle() {
  if (ready_ && !open_mode_) device_.set_aside(turn_);
  return 0;
}

// A timing mode starts: the device alone (runs sharing it wait), and the
// calls whose outputs are checked are drawn now, known only to the runner.
// The harness runs all its modes back to back: the exclusive turn is taken
// once, at the first, and kept until the harness's next yield point (each
// hand-over waits for every other run's next yield point), unless it has
// been held a while and other runs wait (DeviceAccess::hand_over_between_modes).
double SubmissionSession::on_mode_start(const json& m) {
  const std::pair<int, std::string> key{m["shape"].get<int>(), m["mode"].get<std::string>()};
  const auto& modes = plan_.options.modes;
  const int shapes = static_cast<int>(samples_per_shape_.size());
  if (!ready_ || open_mode_ || key.first < 0 || key.first >= shapes ||
      std::find(modes.begin(), modes.end(), key.second) == modes.end() || drawn_.count(key))
    return violation("a 'mode_start' out of order");
  open_mode_ = key;
  warmed_ = false;
  next_call_ = 0;
  call_running_ = false;
  std::vector<int> calls(static_cast<std::size_t>(plan_.trials));
  std::iota(calls.begin(), calls.end(), 0);
  std::shuffle(calls.begin(), calls.end(), rng_);
  const auto n = std::min<std::size_t>(calls.size(), static_cast<std::size_t>(samples_per_shape_[key.first]));
  drawn_[key] = std::set<int>(calls.begin(), calls.begin() + static_cast<std::ptrdiff_t>(n));
  if (device_.takes_turns() && turn_.kind() != DeviceTurns::Kind::exclusive) {
    turn_.release();
    const auto asked = clock_type::now();
    turn_ = device_.take(DeviceTurns::Kind::exclusive);
    exclusive_since_ = clock_type::now();
    phase_started_ += exclusive_since_ - asked;  // the wait is device_wait_seconds
  } else if (const auto waited = device_.hand_over_between_modes(turn_, exclusive_since_)) {
    exclusive_since_ = clock_type::now();
    phase_started_ += std::chrono::duration_cast<clock_type::duration>(std::chrono::duration<double>(*waited));
  }
  child_->send_line("go");
  return plan_.phase_s;
}

// The warm-up is over: kNullCalls null calls (the harness's own work around a
// call, on the runner's clock), then the first timed call's seed.
double SubmissionSession::on_warm_done(const json& m) {
  if (!open_mode_ || warmed_ || m["shape"].get<int>() != open_mode_->first || m["mode"] != open_mode_->second)
    return violation("a 'warm_done' out of order");
  warmed_ = true;
  null_calls_left_ = kNullCalls;
  call_started_ = clock_type::now();
  child_->send_line("null");
  return 0;
}

double SubmissionSession::on_null_timed(const json& m) {
  const auto now = clock_type::now();
  if (!open_mode_ || !warmed_ || null_calls_left_ <= 0 || m["shape"].get<int>() != open_mode_->first ||
      m["mode"] != open_mode_->second)
    return violation("a 'null_timed' out of order");
  report_.null_calls[*open_mode_].push_back(
      {m["ms"].get<double>(), std::chrono::duration<double, std::milli>(now - call_started_).count()});
  if (--null_calls_left_ > 0) {
    call_started_ = clock_type::now();
    child_->send_line("null");
    return 0;
  }
  const long long seed = next_seed();
  call_seeds_[*open_mode_].push_back(seed);
  child_->send_line(std::to_string(seed));
  return 0;
}

long long SubmissionSession::next_seed() { return std::uniform_int_distribution<long long>(1, (1LL << 31) - 1)(rng_); }

double SubmissionSession::on_call_ready(const json& m) {
  if (!open_mode_ || !warmed_ || null_calls_left_ > 0 || call_running_ || m["shape"].get<int>() != open_mode_->first ||
      m["mode"] != open_mode_->second ||
      m["call"].get<int>() != next_call_ || next_call_ >= plan_.trials)
    return violation("a 'call_ready' out of order");
  call_running_ = true;
  if (harness_process_) waited_before_call_ms_ = runqueue_wait_ms(*harness_process_);
  call_started_ = clock_type::now();  // before "go": the call may be over before this thread runs again
  child_->send_line("go");
  return 0;
}

// The call's time as the runner's clock saw it, and whether its output is
// checked: told only now, after the call returned.
double SubmissionSession::on_timed(const json& m) {
  const auto now = clock_type::now();
  if (!open_mode_ || !call_running_ || m["shape"].get<int>() != open_mode_->first ||
      m["mode"] != open_mode_->second || m["call"].get<int>() != next_call_)
    return violation("a 'timed' report out of order");
  call_running_ = false;
  TimedCall call{m["ms"].get<double>(), std::chrono::duration<double, std::milli>(now - call_started_).count()};
  if (const auto waited = harness_process_ ? runqueue_wait_ms(*harness_process_) : std::nullopt;
      waited && waited_before_call_ms_)
    call.waited_ms = *waited - *waited_before_call_ms_;
  if (call.bracket_ms - call.ms > clock_slack_ms(plan_.cpu, call.ms)) {
    // Not the submission's own threads (a process could load the CPU to
    // excuse itself), nor kaudit's (this thread is running).
    std::set<int> own = child_->descendants();
    own.insert(child_->pid());
    own.insert(static_cast<int>(::getpid()));
    call.contended = runnable_tasks_outside(own) >= usable_cores();
  }
  report_.timed_calls[*open_mode_].push_back(call);
  const long long seed = next_seed();
  call_seeds_[*open_mode_].push_back(seed);
  child_->send_line(std::string(drawn_[*open_mode_].count(next_call_) ? "keep " : "next ") + std::to_string(seed));
  ++next_call_;
  return 0;
}

double SubmissionSession::on_mode_end(const json& m) {
  if (!open_mode_ || call_running_ || m["shape"].get<int>() != open_mode_->first ||
      m["mode"] != open_mode_->second || next_call_ != plan_.trials)
    return violation("a 'mode_end' before every timed call");
  unsummarized_.insert(*open_mode_);
  open_mode_.reset();
  return plan_.phase_s;  // the device stays this run's until its next yield point (on_turn)
}

// A mode's summary, once the mode ended (the harness sends them after its
// last mode, once the device is shared again): its samples must be exactly
// the calls the runner drew; its times are the ones reported call by call,
// never a list sent at the end.
double SubmissionSession::on_timing(const json& m) {
  const std::pair<int, std::string> key{m["shape"].get<int>(), m["mode"].get<std::string>()};
  if (!unsummarized_.erase(key)) return violation("a 'timing' summary out of order");
  std::set<int> returned;
  for (const auto& sample : m["samples"]) returned.insert(sample["call"].get<int>());
  if (returned != drawn_[key] || m["samples"].size() != returned.size())
    return violation("timing samples that are not the calls the runner chose");
  // A seeded sample's inputs are the ones the runner's seed draws: the seed
  // named must be the one the runner sent for that call, and no other shape
  // or mode may name one (its inputs are handed over).
  const bool seeded = key.second != "bench" && seeded_shapes_.count(key.first);
  const auto& seeds = call_seeds_[key];
  for (const auto& sample : m["samples"]) {
    const int call = sample["call"].get<int>();
    if (seeded != sample.contains("seed") || seeded == sample.contains("inputs") ||
        (seeded && (call < 0 || call >= static_cast<int>(seeds.size()) || sample["seed"].get<long long>() != seeds[call])))
      return violation(seeded ? "a timing sample that does not name the seed the runner sent for its call"
                              : "a timing sample without its inputs");
  }
  for (const auto& sample : m["samples"]) {
    seal_handed(sample.value("outputs", json::array()));
    seal_handed(sample.value("inputs", json::array()));  // handed over, or the reference's named ones
  }
  json t = m;
  t["times_ms"] = json::array();
  for (const auto& c : report_.timed_calls[key]) t["times_ms"].push_back(c.ms);
  report_.timings[key] = t;
  if (samples_listener_ && seeded) samples_listener_(key.first, key.second, m["samples"]);
  return 0;
}

// What ATen ran in a group of calls: op names and counts, and what each op
// did ([elements, ns]), kept as sent but bounded; a count or a measure that
// is not one is out of protocol.
double SubmissionSession::on_ops(const json& m) {
  if (report_.aten_ops.size() >= 4096) return violation("more 'ops' records than calls");
  const auto non_negative = [](const json& v) { return v.is_number_integer() && v.get<long long>() >= 0; };
  const auto measure = [](const json& v) { return std::min(v.get<long long>(), evidence::kMaxOpMeasure); };
  evidence::AtenOpsGroup group;
  group.shape = m["shape"].get<int>();
  group.phase = m["phase"].get<std::string>();
  group.calls = m["calls"].get<long long>();
  for (const auto& [name, count] : m["ops"].items()) {
    if (!non_negative(count)) return violation("an 'ops' record with a bad count");
    if (group.ops.size() < 2000) group.ops[common::cut_utf8(name, 200)] = measure(count);
  }
  if (m.contains("work")) {
    group.work.emplace();
    for (const auto& [name, w] : m["work"].items()) {
      if (!w.is_array() || w.size() != 2 || !non_negative(w[0]) || !non_negative(w[1]))
        return violation("an 'ops' record with a bad measure of an op's work");
      if (group.work->size() < 2000)
        (*group.work)[common::cut_utf8(name, 200)] = {measure(w[0]), measure(w[1])};
    }
  }
  if (m.contains("input_elements")) {
    if (!non_negative(m["input_elements"])) return violation("an 'ops' record with a bad count of input elements");
    group.input_elements = measure(m["input_elements"]);
  }
  for (const auto& g : m["gaps"])
    if (g.is_string() && group.gaps.size() < 20) group.gaps.push_back(common::cut_utf8(g.get<std::string>(), 300));
  report_.aten_ops.push_back(std::move(group));
  return 0;
}

double SubmissionSession::on_phase(const json& m) {
  // Each phase comes once: a phase's deadline is renewed only by the next
  // one, so a repeated phase could keep a run alive without end.
  const json key = {m.value("phase", std::string()), m.value("shape", -1), m.value("mode", std::string())};
  if (!phases_seen_.insert(common::json_text(key)).second) return violation("a 'phase' message repeated");
  end_phase();
  current_phase_ = m;
  if (plan_.options.on_phase) plan_.options.on_phase(phase_text());
  const std::string ph = m.value("phase", std::string());
  // A shape's first call may build (load_inline in forward) or JIT-compile:
  // it gets the set-up budget; every later call, a call's limit.
  first_call_pending_ = ph == "correctness" || ph == "probe";
  first_call_returned_ = false;
  if (first_call_pending_) {
    processes_at_phase_ = child_->descendants();
    cpu_ticks_.clear();
    build_shown_.clear();
    note_build();  // the CPU time the next look counts from
    build_seen_ = clock_type::now();
  }
  timeout_s_ = ph == "setup" || first_call_pending_ ? plan_.setup_s : plan_.phase_s;
  return timeout_s_;
}

// A first call past a call's limit on a shared device while another run
// waits to time: a build (a process the call started: ninja, a compiler)
// keeps the set-up budget; with none for a call's limit, the call holds the
// device for nothing a build needs (a kernel that never ends inside
// forward), and the run is stopped. kaudit audit runs it again with the
// device to itself, where it has the whole budget (audit/environment.h).
namespace {

// A process's command name (/proc/PID/comm), printable ASCII only: it is
// the submission's to choose.
std::string process_name(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
  std::string name, shown;
  std::getline(in, name);
  for (const char c : name.substr(0, 16)) shown += c > 0x20 && c < 0x7f ? c : '?';
  return shown.empty() ? "?" : shown;
}

}  // namespace

// While a first call builds (a process it started: ninja, a compiler) and
// another run waits to time, the build needs no device, and on the H200 runs
// waited up to 130 s for 60 s load_inline builds under a shared turn. The
// run's other processes (the harness's, with every thread of the
// submission's; the sandbox's) are stopped, so they can launch nothing into
// the other runs' timed calls, the build's processes run on, and the turn
// is lent until the runs waiting to time are done; then they go on. The
// seconds held stopped move the call's deadline on and are the run's
// device_wait_seconds, not its first call's.
double SubmissionSession::lend_turn_while_building() {
  if (!first_call_pending_ || first_call_returned_ || !harness_process_ ||
      turn_.kind() != DeviceTurns::Kind::shared || !device_.others_waiting_to_time())
    return 0;
  std::vector<int> stopped, building;
  for (const int p : child_->descendants()) (processes_at_phase_.count(p) ? stopped : building).push_back(p);
  if (building.empty()) return 0;
  if (std::find(stopped.begin(), stopped.end(), *harness_process_) == stopped.end()) stopped.push_back(*harness_process_);
  for (const int p : stopped) ::kill(p, SIGSTOP);
  // Lent only once the harness's every thread is seen stopped; where the
  // machine does not show it (a sandbox's /proc), the run goes on holding its turn.
  const auto asked = clock_type::now();
  while (!all_threads_stopped(*harness_process_)) {
    if (clock_type::now() - asked > std::chrono::milliseconds(200)) {
      for (const int p : stopped) ::kill(p, SIGCONT);
      return 0;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  const auto lent = clock_type::now();
  device_.set_aside(turn_);
  device_.resume(turn_);  // a shared turn again, once the runs waiting to time are done
  for (const int p : stopped) ::kill(p, SIGCONT);
  const auto held = clock_type::now() - lent;
  phase_started_ += held;
  build_seen_ = clock_type::now();  // the build ran on while the run was held
  lent_while_building_s_ += std::chrono::duration<double>(held).count();
  for (const int p : building)
    if (build_processes_.size() < 8) build_processes_.insert(process_name(p));
  return std::chrono::duration<double>(held).count();
}

// A build runs now: a process the phase did not start with (ninja, nvcc,
// ptxas), or CPU time spent since the last look by a process of the run
// other than the harness's own threads (a compile worker started before the
// phase), or by children the harness ran and reaped between two looks (a
// ptxas of a second). The harness's own threads are no build: a call that
// waits on a kernel that never ends spins there.
void SubmissionSession::note_build() {
  bool building = false;
  std::map<int, CpuTicks> ticks;
  std::set<int> processes = child_->descendants();
  processes.insert(child_->pid());
  for (const int p : processes) {
    if (!processes_at_phase_.count(p) && p != child_->pid()) {
      building = true;
      if (build_processes_.size() < 8) build_processes_.insert(process_name(p));
    }
    const auto t = cpu_ticks(p);
    if (!t) continue;
    ticks[p] = *t;
    const auto before = cpu_ticks_.find(p);
    if (before == cpu_ticks_.end()) continue;
    const bool harness = harness_process_ && p == *harness_process_;
    const bool reaped = t->children > before->second.children, working = !harness && t->own > before->second.own;
    if (!reaped && !working) continue;
    building = true;
    if (build_processes_.size() < 8)
      build_processes_.insert(process_name(p) + (working ? " (CPU time)" : " (children's CPU time)"));
  }
  cpu_ticks_ = std::move(ticks);
  if (building) build_seen_ = clock_type::now();
  // A first call past two calls' limits on its build's budget says in the
  // progress line what it counts as its build, so that a stopped batch
  // (whose runs in flight leave no run.json) still shows it.
  const auto past = clock_type::now() - phase_started_;
  if (building && plan_.options.on_phase && past > std::chrono::duration<double>(2 * plan_.call_s)) {
    std::string seen;
    for (const auto& name : build_processes_) seen += (seen.empty() ? "" : ", ") + name;
    if (seen != build_shown_) plan_.options.on_phase(phase_text() + ", first call building: " + seen);
    build_shown_ = seen;
  }
}

// Once the first call's forward has returned, what still runs is what it
// launched: no build or compile is left to wait for, and runs waiting to
// time wait for it only kStepAsideAfterReturnS (else a call's limit; on an
// H100 three runs waited 57 to 84 s to time behind a Triton kernel that
// never ended). Stepping aside decides nothing: the run is made again alone,
// where it has every limit in full.
bool SubmissionSession::holds_back_timers() {
  if (!first_call_pending_ || !device_.others_waiting_to_time()) return false;
  const auto now = clock_type::now();
  const std::chrono::duration<double> limit(std::min(plan_.call_s, kStepAsideWithoutBuildS));
  const std::chrono::duration<double> after_return(std::min(plan_.call_s, kStepAsideAfterReturnS));
  const bool returned_long_ago = first_call_returned_ && now - returned_at_ >= after_return && now - build_seen_ >= after_return;
  if (!returned_long_ago && (now - phase_started_ < limit || now - build_seen_ < limit)) return false;
  stepped_aside_after_s_ = std::chrono::duration<double>(now - phase_started_).count();
  stepped_aside_why_ = returned_long_ago
                           ? "its first call, whose forward had returned " +
                                 std::to_string(static_cast<int>(std::chrono::duration<double>(now - returned_at_).count())) +
                                 " s before, with no build running"
                           : "its first call, with no build running for " +
                                 std::to_string(static_cast<int>(std::chrono::duration<double>(now - build_seen_).count())) +
                                 " s";
  return true;
}

// A first call has the set-up budget while it builds; with no build for two
// calls' limits it is a kernel that never ends, shared device or not. On the
// H200 a Triton kernel's lazy module load waited inside forward on a kernel
// that never ended, and the run held the device alone for the whole set-up
// budget (600 s) while the batch waited.
bool SubmissionSession::first_call_without_build() {
  if (!first_call_pending_ || first_call_returned_) return false;
  const auto now = clock_type::now();
  const std::chrono::duration<double> limit(2 * plan_.call_s);
  if (now - phase_started_ < limit || now - build_seen_ < limit) return false;
  no_build_for_s_ = std::chrono::duration<double>(now - build_seen_).count();
  first_call_stopped_after_s_ = std::chrono::duration<double>(now - phase_started_).count();
  return true;
}

// The first call's forward returned: a build or compile would have been
// inside it, so what still runs (the kernels it launched, which the harness
// waits for) has a call's limit from now. Once per phase, before its first
// call's result: no submission renews its deadline with it.
double SubmissionSession::on_first_return(const json& m) {
  if (!first_call_pending_ || first_call_returned_ || m["shape"] != current_phase_.value("shape", -1))
    return violation("a 'returned' that is not its phase's first call");
  first_call_returned_ = true;
  returned_at_ = clock_type::now();
  timeout_s_ = plan_.call_s;
  return timeout_s_;
}

// The first call of a phase has returned: how long it took (from the
// phase's start, the model's construction included) goes to run.json.
void SubmissionSession::end_first_call() {
  if (!first_call_pending_) return;
  first_call_pending_ = false;
  evidence::FirstCall call;
  call.phase = current_phase_.value("phase", std::string());
  call.shape = current_phase_.value("shape", -1);
  call.seconds = std::chrono::duration<double>(clock_type::now() - phase_started_).count();
  call.build_processes.assign(build_processes_.begin(), build_processes_.end());
  if (lent_while_building_s_ > 0) call.lent_while_building_s = lent_while_building_s_;
  result_.first_calls.push_back(std::move(call));
  build_processes_.clear();
  lent_while_building_s_ = 0;
  timeout_s_ = plan_.call_s;
}

double SubmissionSession::on_correctness_call(const json& m) {
  const int i = m["shape"], j = m["case"];
  end_first_call();
  if (!inputs_) return plan_.call_s;
  const auto orig_it = inputs_->find({i, j});
  if (orig_it == inputs_->end() || report_.outputs.count({i, j}) || report_.raised.count({i, j}))
    return violation("a correctness call that was not asked for");
  if (m.contains("raised")) return on_raised_call(m, i, j);
  if (!valid_entries(m["outputs"], ws_.xfer(), "out")) return violation("correctness outputs outside its folder");
  report_.outputs[{i, j}] = m["outputs"];
  seal_handed(m["outputs"]);
  // Inputs after the call against the bytes handed over: compared here,
  // then the copies go.
  const json& after = m["inputs_after"];
  // A case drawn from its seed in the harness names the inputs' fingerprint,
  // held against the reference's (run.cpp, hold_seeded_inputs).
  const bool seeded = orig_it->second.is_object();
  if (seeded != m.contains("inputs_digest"))
    return violation(seeded ? "a correctness call drawn from its seed without the inputs' fingerprint"
                            : "an inputs fingerprint for a correctness call read from files");
  if (seeded) report_.case_digests[{i, j}] = m["inputs_digest"];
  // A stress case's inputs were scaled in the harness, and a seeded case's
  // were drawn there: it hands them over as the call got them.
  const bool scaled = m.contains("inputs_before");
  if (scaled && !valid_entries(m["inputs_before"], ws_.xfer(), "out")) return violation("inputs handed back outside its folder");
  if (seeded && !after.empty() && !scaled) return violation("changed inputs of a seeded case without the inputs before the call");
  const json& orig = scaled ? m["inputs_before"] : orig_it->second;
  for (std::size_t k = 0; k < after.size() && k < orig.size(); ++k) {
    if (!valid_entry(after[k], ws_.xfer(), "out")) return violation("inputs handed back outside its folder");
    bool same = true;
    if (after[k].contains("file") && orig[k].contains("file")) {
      try {
        same = same_tensor_files(ws_.xfer() / after[k]["file"].get<std::string>(),
                                 ws_.xfer() / orig[k]["file"].get<std::string>());
      } catch (const std::exception&) {
        same = false;
      }
      std::error_code ec;
      fs::remove(ws_.xfer() / after[k]["file"].get<std::string>(), ec);
    } else {
      same = after[k] == orig[k];
    }
    if (!same) report_.mutated[{i, j}].push_back(static_cast<int>(k));
  }
  if (scaled)
    for (const auto& e : orig)
      if (e.contains("file")) {
        std::error_code ec;
        fs::remove(ws_.xfer() / e["file"].get<std::string>(), ec);
      }
  if (call_listener_) call_listener_(i, j, report_.outputs[{i, j}]);
  return plan_.call_s;
}

// The files a message names, as they are now: the harness wrote and closed
// them before it sent the message, and nothing may change them after it
// (handed_files).
void SubmissionSession::seal_handed(const json& entries) {
  std::vector<std::string> names;
  for (const auto& e : entries)
    if (e.is_object() && e.contains("file") && e["file"].is_string()) names.push_back(e["file"].get<std::string>());
  for (auto& [name, stamp] : seal_files(ws_.xfer(), names).stamps) handed_.stamps.emplace(name, std::move(stamp));
}

// A call that raised: a graded case's exception is the run's error, as it
// always was; an input probe's is evidence (runner/judge/input_probes.h). The
// harness raises no differently for either, so no call tells it which it is.
double SubmissionSession::on_raised_call(const json& m, int i, int j) {
  const json& r = m["raised"];
  report_.raised[{i, j}] = {{"type", r.value("type", std::string())}, {"message", r.value("message", std::string())}};
  if (i < static_cast<int>(samples_per_shape_.size()) && j < static_cast<int>(plan_.cases.size()))
    result_.set_error("correctness", r.value("type", std::string("Error")) + ": " + r.value("message", std::string()),
                      {{"traceback", r.value("traceback", std::string())}});
  return plan_.call_s;
}

// The harness's phases (set-up, then correctness and timing per shape and
// mode) each end where the next begins, or where the process stops talking.
void SubmissionSession::end_phase() {
  json step = {{"phase", current_phase_.value("phase", std::string("start"))}};
  for (const char* k : {"shape", "mode"})
    if (current_phase_.contains(k)) step[k] = current_phase_[k];
  if (step["phase"] == "start" && !start_parts_.empty()) step["parts"] = start_parts_;
  if (buffer_phases_)
    set_up_phases_.push_back(result_.phase("submission", step, phase_started_));
  else
    result_.add_phase("submission", step, phase_started_);
  phase_started_ = clock_type::now();
}

std::string SubmissionSession::phase_text() const {
  std::string t = current_phase_.value("phase", std::string("start"));
  if (current_phase_.contains("shape")) t += ", shape " + std::to_string(current_phase_.value("shape", 0));
  if (current_phase_.contains("mode")) t += ", mode " + current_phase_.value("mode", std::string());
  return t;
}

void SubmissionSession::finish(int shapes, int cases) {
  end_phase();
  ExitStatus status = child_->finish(std::chrono::seconds(timed_out_ ? 0 : 5));
  // bubblewrap exits with 128 + N when what it ran died of signal N.
  if (plan_.isolation.sandboxed && status.exited && status.code > 128 && status.code < 128 + 65)
    status = ExitStatus{false, 0, status.code - 128};
  turn_.release();
  record_process(status);
  judge_ending(status, shapes, cases);
}

void SubmissionSession::record_process(const ExitStatus& status) {
  json p = {{"exit", status.describe()},
            {"seconds", std::chrono::duration<double>(clock_type::now() - started_).count()},
            {"stdout_tail", tail(child_->stdout_text(), 4000)},
            {"stderr_tail", tail(child_->stderr_text(), 4000)}};
  if (!bad_messages_.empty()) p["bad_messages"] = bad_messages_;
  p["channel_checks"] = {{"checked", channel_.checked}, {"replaced", channel_.replaced}};
  if (channel_.transient > 0) p["channel_checks"]["transient"] = channel_.transient;
  if (!channel_.unavailable.empty()) p["channel_checks"]["unavailable"] = channel_.unavailable;
  result_.submission_process = p;
}

// A timeout, an error the harness reported, an exit before "done", or
// results missing after it: each is the run's error; an exit with status 0
// before the results is also a finding (a printed PASS counts for nothing).
void SubmissionSession::judge_ending(const ExitStatus& status, int shapes, int cases) {
  const std::string phase = current_phase_.value("phase", std::string("start"));
  const std::string solution = plan_.options.solution.string();
  const std::string exited_early = " before the harness handed over any result; an exit status or a printed PASS "
                                   "counts for nothing.";
  const json& error = report_.error;
  if (!report_.violations.empty()) {
    std::string list;
    for (std::size_t k = 0; k < report_.violations.size() && k < 3; ++k) list += (k ? "; " : "") + report_.violations[k];
    result_.findings.push_back(make_probe_finding(
        "protocol-violation", solution, phase_text(),
        std::to_string(report_.violations.size()) + " message(s) on the harness's channel broke its protocol: " + list +
            ". The harness never writes these; code in the submission's process did."));
  }
  if (!report_.tampered.empty()) {
    std::string list;
    for (std::size_t k = 0; k < report_.tampered.size() && k < 8; ++k) list += (k ? ", " : "") + report_.tampered[k];
    result_.findings.push_back(make_probe_finding("harness-tampered", solution, phase_text(),
                                                  "The submission replaced functions the harness relies on: " + list + "."));
  }
  if (violated_) {
    result_.set_error(phase, "the submission broke the harness's protocol (" + report_.violations.back() +
                                 "); the run was stopped there");
  } else if (stepped_aside_after_s_) {
    result_.set_error(phase, "stopped after " + std::to_string(static_cast<int>(*stepped_aside_after_s_)) + " s in " +
                                 phase_text() + " (" + stepped_aside_why_ +
                                 ") while other runs of the batch waited to time; the process group was killed");
  } else if (no_build_for_s_) {
    result_.set_error(phase, "timed out after " + std::to_string(static_cast<int>(first_call_stopped_after_s_)) +
                                 " s in " + phase_text() + " (its first call, with no build running for " +
                                 std::to_string(static_cast<int>(*no_build_for_s_)) +
                                 " s: a kernel that never ends, or work that is no build; a build keeps the set-up "
                                 "budget of " + std::to_string(static_cast<int>(plan_.setup_s)) +
                                 " s); the process group was killed");
  } else if (timed_out_) {
    const std::string which =
        !first_call_pending_ ? ""
        : first_call_returned_
            ? " (its first call, after forward returned: what the call launched never finished)"
            : " (its first call, which has the set-up budget for builds and compiles)";
    result_.set_error(phase, "timed out after " + std::to_string(static_cast<int>(timeout_s_)) + " s in " +
                                 phase_text() + which + "; the process group was killed");
  } else if (error.is_object()) {
    result_.set_error(error.value("phase", std::string("start")),
                      error.value("type", std::string("Error")) + ": " + error.value("message", std::string()),
                      {{"traceback", error.value("traceback", std::string())}});
    const std::string code = error.value("message", std::string());
    if (error.value("type", std::string()) == "SystemExit" && (code.empty() || code == "0" || code == "None"))
      result_.findings.push_back(make_probe_finding("exited-before-results", solution, phase_text(),
                                                    "The submission called sys.exit(0) in " + phase_text() + exited_early));
  } else if (!report_.done) {
    result_.set_error(phase, "the process ended (" + status.describe() + ") in " + phase_text() +
                                 " without handing over its results");
    if (status.exited && status.code == 0)
      result_.findings.push_back(make_probe_finding("exited-before-results", solution, phase_text(),
                                                    "The submission's process exited with status 0 in " +
                                                        phase_text() + exited_early));
  } else {
    // Done: every expected result must be there.
    for (int i = 0; i < shapes; ++i) {
      for (int j = 0; j < cases; ++j)
        if (!report_.outputs.count({i, j})) result_.set_error("correctness", "results missing for shape " + std::to_string(i));
      for (const auto& mode : plan_.options.modes)
        if (!report_.timings.count({i, mode}))
          result_.set_error("timing", "timings missing for shape " + std::to_string(i) + ", mode " + mode);
    }
  }
}

json stage_config(const RunPlan& plan, const Workspace& ws, const std::map<std::pair<int, int>, json>& inputs,
                  const std::map<int, json>& habits, const std::set<int>& seeded_shapes, int shapes,
                  double l2_bytes) {
  const RunOptions& o = plan.options;
  const int cases = static_cast<int>(plan.cases.size());
  auto inputs_of = [&](int i, int j) {
    const auto it = inputs.find({i, j});
    return it == inputs.end() ? json() : it->second;
  };
  json correctness = json::array();
  for (int i = 0; i < shapes; ++i)
    for (int j = 0; j < cases; ++j) correctness.push_back(stage_call(i, j, inputs_of(i, j)));
  const int sample_count = std::min(o.samples, plan.trials);
  // Shapes with large inputs: one sample per mode (RunOptions::large_input_bytes).
  json samples_by_shape = json::array();
  for (int i = 0; i < shapes; ++i) {
    std::uintmax_t bytes = 0;
    for (const auto& e : inputs_of(i, 0)) {
      std::error_code ec;
      if (e.contains("file") && e["file"].is_string()) bytes += fs::file_size(ws.xfer() / e["file"].get<std::string>(), ec);
    }
    samples_by_shape.push_back(bytes > o.large_input_bytes ? std::min(1, sample_count) : sample_count);
  }
  json reference_changing = json::array();  // shapes whose reference writes into its inputs
  for (const auto& [shape, h] : habits)
    if (!h["changes_inputs"].empty()) reference_changing.push_back(shape);
  return {{"correctness", correctness},
          {"modes", o.modes},
          {"warmup", o.warmup},
          {"trials", plan.trials},
          {"samples_per_shape", samples_by_shape},
          // Every mode's timed calls start from the same cache state (docs/runner.md, "Timing").
          {"flush_bytes", o.cache_flush_bytes.value_or(
                              2 * (plan.cpu ? std::min(host_last_level_cache_bytes(), 128.0 * (1 << 20)) : l2_bytes))},
          // Fresh inputs kept alive so that each call's addresses differ from the
          // calls before it; on the GPU no more than a run beside others can
          // hold (16 GiB made an MoE run's submission reserve 37 GB of an
          // H100's 80: two such runs side by side ran out of device memory).
          {"keep_alive_bytes", plan.cpu ? 256.0 * (1 << 20) : 4.0 * (1 << 30)},
          {"poison", o.poison},
          {"timing_turns", o.device_turns != nullptr},
          {"reference_changes_inputs", reference_changing},
          {"seeded_shapes", seeded_shapes}};
}

}  // namespace kaudit::run
