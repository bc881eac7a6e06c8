#include "runner/judge/trace_summary.h"

#include "runner/judge/probe_findings.h"
#include "common/utf8.h"
#include "evidence/run_trace.h"

#ifdef KAUDIT_HAVE_TRACE_MODEL
#include "tracer/call_summary.h"
#include "tracer/chrome_trace.h"
#include "tracer/families.h"
#include "tracer/trace.h"
#endif

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <chrono>
#include <utility>
#include <optional>
#include <iterator>
#include <future>
#include <map>
#include <regex>
#include <type_traits>
#include <unordered_map>
#include <set>

namespace kaudit::run {

evidence::TraceRecord summarize_trace(const std::filesystem::path& journal_dir, long pid, const std::string& solution,
                                      std::vector<rules::Finding>& findings, const rules::RulePack* pack,
                                      const std::filesystem::path& export_dir, const TimedCallTimes& timed_ms,
                                      const std::filesystem::path& reference_dir) {
  JournalRead journals(journal_dir, pid, export_dir);
  std::optional<JournalRead> reference;
  if (!reference_dir.empty()) reference.emplace(reference_dir, 0, std::filesystem::path());
  return summarize_trace(journals, pid, solution, findings, pack, timed_ms, reference ? &*reference : nullptr);
}

JournalRead::State& JournalRead::state() { return *state_; }

#ifndef KAUDIT_HAVE_TRACE_MODEL
struct JournalRead::State {};
JournalRead::JournalRead(std::filesystem::path, long, std::filesystem::path) : state_(std::make_unique<State>()) {}
JournalRead::~JournalRead() = default;
void JournalRead::wait() {}
double JournalRead::read_seconds() const { return 0; }
double JournalRead::wait_seconds() const { return 0; }
JournalRead::Split JournalRead::split() const { return {}; }

evidence::TraceRecord summarize_trace(JournalRead&, long, const std::string&, std::vector<rules::Finding>&,
                                      const rules::RulePack*, const TimedCallTimes&, JournalRead*) {
  evidence::TraceRecord out;
  out.reason = "kaudit was built without the trace model";
  return out;
}
#else
namespace {

// A process's calls and launchers by id: which call a kernel belongs to,
// and which shared object launched it.
struct ProcessIndex {
  std::map<uint32_t, const tracer::Call*> calls;
  std::map<uint32_t, const tracer::Launcher*> launchers;
  explicit ProcessIndex(const tracer::Process& proc) {
    for (const auto& c : proc.calls) calls[c.id] = &c;
    for (const auto& l : proc.launchers) launchers[l.id] = &l;
  }
  const tracer::Call* call_of(const tracer::Kernel& k) const {
    const auto c = calls.find(k.call);
    return c == calls.end() ? nullptr : c->second;
  }
  std::string object_of(const tracer::Kernel& k) const {
    const auto l = launchers.find(k.launcher);
    return l == launchers.end() ? std::string() : l->second->object;
  }
};

// Whether a kernel's name matches the pack's banned kernel patterns,
// remembered per name: std::regex takes microseconds a name, and a
// PyTorch-op submission's timed calls run a million kernels with a few dozen
// names.
class BannedNames {
 public:
  explicit BannedNames(const rules::RulePack& pack) {
    for (const auto& p : pack.banned_kernel_patterns) {
      try {
        patterns_.emplace_back(p, std::regex::icase | std::regex::ECMAScript);
      } catch (const std::regex_error&) {
      }
    }
  }
  bool operator()(const std::string& name) {
    auto [seen, fresh] = known_.try_emplace(name, false);
    if (fresh)
      seen->second = std::any_of(patterns_.begin(), patterns_.end(),
                                 [&](const std::regex& r) { return std::regex_search(name, r); });
    return seen->second;
  }

 private:
  std::vector<std::regex> patterns_;
  std::unordered_map<std::string, bool> known_;
};

// Library kernels of the timed calls that the pack bans, and whether the
// submission's own kernels ran at all while timed.
void library_findings(const tracer::Process& proc, const ProcessIndex& index, const tracer::Families& families,
                      const rules::RulePack& pack, const std::string& solution, std::vector<rules::Finding>& findings) {
  BannedNames banned(pack);
  struct Hit {
    size_t count = 0;
    uint64_t ns = 0;
    std::string example;
  };
  std::map<std::string, Hit> hits;  // by library
  size_t timed_kernels = 0, own_kernels = 0;
  uint64_t timed_ns = 0;
  for (const auto& k : proc.kernels) {
    const tracer::Call* c = index.call_of(k);
    if (!c || c->phase != "timed") continue;
    ++timed_kernels;
    timed_ns += k.duration();
    const auto lib = families.library_of(index.object_of(k), k.display_name());
    if (lib.role == tracer::Role::own) ++own_kernels;
    if (lib.role != tracer::Role::library) continue;
    const std::string& name = k.display_name();
    if (!banned(name)) continue;
    Hit& h = hits[lib.name];
    ++h.count;
    h.ns += k.duration();
    if (h.example.empty()) h.example = common::cut_utf8(name, 120);
  }
  for (const auto& [lib, h] : hits) {
    const int share = timed_ns ? static_cast<int>(100.0 * h.ns / timed_ns + 0.5) : 0;
    findings.push_back(make_probe_finding(
        "banned-library-kernel", solution, lib,
        lib + " ran " + std::to_string(h.count) + " banned kernel(s) during timed calls (" + std::to_string(share) +
            "% of their GPU time), e.g. " + h.example + "."));
  }
  if (timed_kernels > 0 && own_kernels == 0)
    findings.push_back(make_probe_finding(
        "no-authored-kernel-ran", solution, "timed calls",
        "None of the " + std::to_string(timed_kernels) +
            " kernels of the timed calls was the submission's own; libraries launched all of them."));
}

// Whether a library kernel is glue (a copy, a fill, an elementwise cast):
// the pack's allowed_glue_kernels, as case-insensitive substrings.
bool is_glue(const std::string& name, const std::vector<std::string>& glue) {
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return std::any_of(glue.begin(), glue.end(), [&](const std::string& g) {
    std::string lg = g;
    std::transform(lg.begin(), lg.end(), lg.begin(), [](unsigned char c) { return std::tolower(c); });
    return !lg.empty() && lower.find(lg) != std::string::npos;
  });
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// What the problem's own reference spends per call, kernel name by kernel
// name, on library kernels its rule pack does not ban (routing, index maps,
// casts: its glue), by shape, over its marked expected-output calls (phase
// "reference", runner/harness/kaudit_harness_reference.py). A shape whose
// calls ran no banned kernel at all gets nothing: the pack does not name the
// reference's work there, so no line between its work and its glue can be
// drawn.
struct ReferenceGlue {
  std::map<std::string, std::map<std::string, double>> ns_per_call;  // shape -> kernel name -> ns a call
  evidence::ReferenceGlue record;                                    // trace.reference_glue
};

ReferenceGlue reference_glue(const tracer::Trace& trace, const tracer::Families& families,
                             const rules::RulePack& pack) {
  ReferenceGlue out;
  struct Shape {
    std::set<uint32_t> calls;
    uint64_t work = 0;
    std::map<std::string, uint64_t> glue;  // by kernel name, over all calls
  };
  std::map<std::string, Shape> by_shape;
  BannedNames banned(pack);
  for (const auto& proc : trace.processes) {
    const ProcessIndex index(proc);
    for (const auto& c : proc.calls)
      if (c.phase == "reference") by_shape[c.shape].calls.insert(c.id);
    for (const auto& k : proc.kernels) {
      const tracer::Call* c = index.call_of(k);
      if (!c || c->phase != "reference") continue;
      if (families.library_of(index.object_of(k), k.display_name()).role != tracer::Role::library) continue;
      Shape& shape = by_shape[c->shape];
      if (banned(k.display_name()))
        shape.work += k.duration();
      else
        shape.glue[k.display_name()] += k.duration();
    }
  }
  if (by_shape.empty()) {
    out.record.reason = "the reference's trace holds none of its calls";
    return out;
  }
  out.record.status = "ok";
  for (const auto& [shape, s] : by_shape) {
    const double calls = static_cast<double>(std::max<std::size_t>(s.calls.size(), 1));
    double glue_ns = 0;
    for (const auto& [name, ns] : s.glue) glue_ns += static_cast<double>(ns);
    if (s.work > 0)
      for (const auto& [name, ns] : s.glue) out.ns_per_call[shape][name] = static_cast<double>(ns) / calls;
    evidence::ReferenceGlueShape row;
    row.shape = shape;
    row.calls = static_cast<int>(s.calls.size());
    row.glue_ms_per_call = glue_ns / calls / 1e6;
    row.glue_kernels = static_cast<int>(s.glue.size());
    row.banned_ms_per_call = static_cast<double>(s.work) / calls / 1e6;
    row.counted = s.work > 0;
    out.record.shapes.push_back(row);
  }
  return out;
}

// The share of the graded timed calls' GPU time (mode bench) spent in the
// submission's own kernels, per shape: own / (own + library), with library
// glue left out of both sides. Glue is what the pack's glue list names, and
// per call each unbanned library kernel the problem's own reference also
// runs, up to what the reference spends on kernels of that name per call
// (times thresholds.reference_glue_allowance): routing the list does not
// name, done as the reference does it, is not taken for the library doing
// the work, while the work itself never hides behind the reference's glue.
// Under the pack's min_own_kernel_share, while some kernel of its own ran,
// the library did the work: a fig leaf. No own kernel at all is
// no-authored-kernel-ran, the same policy at share 0.
std::vector<evidence::AuthoredShare> authored_share(const tracer::Process& proc, const ProcessIndex& index,
                                                    const tracer::Families& families, const rules::RulePack& pack,
                                                    const ReferenceGlue& reference, const std::string& solution,
                                                    std::vector<rules::Finding>& findings) {
  struct Call {
    uint64_t own = 0, glue = 0;
    std::map<std::string, uint64_t> library;  // by kernel name
  };
  std::map<std::string, std::map<uint32_t, Call>> by_shape;  // shape -> call id -> its kernels
  BannedNames banned(pack);
  for (const auto& k : proc.kernels) {
    const tracer::Call* c = index.call_of(k);
    if (!c || c->phase != "timed" || c->mode != "bench") continue;
    const auto lib = families.library_of(index.object_of(k), k.display_name());
    Call& call = by_shape[c->shape][c->id];
    // Glue only where the problem allows it: a sort is routing glue in a MoE
    // and the work itself in a top-k, whose pack bans it.
    if (lib.role == tracer::Role::own)
      call.own += k.duration();
    else if (!banned(k.display_name()) && is_glue(k.display_name(), pack.allowed_glue_kernels))
      call.glue += k.duration();
    else
      call.library[banned(k.display_name()) ? std::string() : k.display_name()] += k.duration();
  }
  std::vector<evidence::AuthoredShare> out;
  std::string below;
  bool decides = false;  // some shape far under the threshold, not only near it
  const double min_share = pack.thresholds.min_own_kernel_share;
  const double lead_floor = min_share - pack.thresholds.own_share_lead_margin;
  static const std::map<std::string, double> kNoGlue;
  for (const auto& [shape, calls] : by_shape) {
    const auto ref = reference.ns_per_call.find(shape);
    const auto& ref_glue = ref == reference.ns_per_call.end() ? kNoGlue : ref->second;
    double own = 0, library = 0, glue = 0, counted = 0, ref_glue_ns = 0;
    for (const auto& [name, ns] : ref_glue) ref_glue_ns += ns;
    for (const auto& [id, call] : calls) {
      own += static_cast<double>(call.own);
      glue += static_cast<double>(call.glue);
      for (const auto& [name, ns] : call.library) {
        library += static_cast<double>(ns);
        const auto allowed = name.empty() ? ref_glue.end() : ref_glue.find(name);  // "": banned, never glue
        const double allowance =
            allowed == ref_glue.end() ? 0.0 : allowed->second * pack.thresholds.reference_glue_allowance;
        counted += std::max(0.0, static_cast<double>(ns) - allowance);
      }
    }
    const double share = own + counted > 0 ? own / (own + counted) : 1.0;
    evidence::AuthoredShare row;
    row.shape = shape;
    row.own_ms = own / 1e6;
    row.library_ms = library / 1e6;
    row.glue_ms = glue / 1e6;
    if (ref != reference.ns_per_call.end()) row.reference_glue_ms_per_call = ref_glue_ns / 1e6;
    row.library_counted_ms = counted / 1e6;
    row.share = share;
    out.push_back(row);
    if (own > 0 && share < min_share) {
      below += std::string(below.empty() ? "" : ", ") + "shape " + shape + ": " +
               std::to_string(static_cast<int>(100 * share + 0.5)) + "%";
      decides = decides || share < lead_floor;
    }
  }
  if (!below.empty()) {
    rules::Finding f = make_probe_finding(
        "library-does-the-work", solution, "timed calls",
        "Its own kernels ran only a small part of the graded calls' GPU time (" + below +
            "; the rule pack asks at least " + std::to_string(static_cast<int>(100 * min_share + 0.5)) +
            "%, glue the problem allows and the reference's own glue left out): library kernels did the rest" +
            (decides ? ", the problem's work." : ". Every shape is within the pack's lead margin of it: a lead, not proof."));
    // Near the threshold, routing or bookkeeping the glue list does not name
    // can make up the difference: shown beside the verdict, never deciding.
    if (!decides) f.confidence = rules::Confidence::low;
    findings.push_back(f);
  }
  return out;
}

// What the exported files keep: every call but the correctness, timed and
// warm-up calls past the first kExportedPerGroup of each shape and mode (for
// correctness calls: of each shape, the seed cases first), and of those,
// each group's first call, then each one's second (in the journal's order),
// only while their kernels come to at most kExportedKernels (as many
// records outside every call, of each kind). A
// submission that launches thousands of kernels per call would otherwise
// make files of gigabytes that take minutes to write and that Perfetto
// cannot open (kda's chunked-torch cheat: 300,000 kernels kept by the first
// rule alone, most of a 38 s trace step on an H100); the findings and the
// run's summary come from the whole trace.
constexpr int64_t kExportedPerGroup = 2;
constexpr std::size_t kExportedKernels = 20'000;

// `p` without its kernels, launches and transfers, copied without copying them.
tracer::Process without_records(tracer::Process& p) {
  auto kernels = std::exchange(p.kernels, {});
  auto launches = std::exchange(p.launches, {});
  auto transfers = std::exchange(p.transfers, {});
  auto put_back = [&] {
    p.kernels = std::move(kernels);
    p.launches = std::move(launches);
    p.transfers = std::move(transfers);
  };
  std::optional<tracer::Process> copy;
  try {
    copy.emplace(p);
  } catch (...) {
    put_back();
    throw;
  }
  put_back();
  return std::move(*copy);
}

// Built from `whole` record by record: a submission's journal can hold a
// million kernels, of which the export keeps a few thousand.
tracer::Trace trace_for_export(tracer::Trace& whole) {
  tracer::Trace out;
  out.command = whole.command;
  out.exit_status = whole.exit_status;
  out.notes = whole.notes;
  for (auto& whole_process : whole.processes) {
    std::map<uint32_t, std::size_t> kernels_of;  // by call
    for (const auto& k : whole_process.kernels) ++kernels_of[k.call];
    // Each group's first call before any group's second, so that the budget
    // never leaves the timed calls out for the correctness cases' sake.
    std::vector<const tracer::Call*> by_index;
    for (const auto& c : whole_process.calls) by_index.push_back(&c);
    std::stable_sort(by_index.begin(), by_index.end(),
                     [](const tracer::Call* a, const tracer::Call* b) { return a->index < b->index; });
    std::set<uint32_t> dropped;
    std::size_t budget = kExportedKernels;
    for (const tracer::Call* c : by_index) {
      const std::size_t n = kernels_of[c->id];
      if (((c->phase == "timed" || c->phase == "warmup" || c->phase == "correctness") && c->index >= kExportedPerGroup) ||
          n > budget)
        dropped.insert(c->id);
      else
        budget -= n;
    }
    tracer::Process& p = out.processes.emplace_back(without_records(whole_process));
    std::size_t outside_kernels = 0, outside_launches = 0, outside_transfers = 0;  // records of no call, kept
    auto under = [](std::size_t& kept_so_far) { return kept_so_far++ < kExportedKernels; };
    auto kept = [&](const auto& record) {
      if (record.call != 0) return dropped.count(record.call) == 0;
      using Record = std::decay_t<decltype(record)>;
      if constexpr (std::is_same_v<Record, tracer::Kernel>) return under(outside_kernels);
      else if constexpr (std::is_same_v<Record, tracer::Launch>) return under(outside_launches);
      else return under(outside_transfers);
    };
    std::copy_if(whole_process.kernels.begin(), whole_process.kernels.end(), std::back_inserter(p.kernels), kept);
    std::copy_if(whole_process.launches.begin(), whole_process.launches.end(), std::back_inserter(p.launches), kept);
    std::copy_if(whole_process.transfers.begin(), whole_process.transfers.end(), std::back_inserter(p.transfers),
                 kept);
    if (p.kernels.size() < whole_process.kernels.size())
      p.notes.push_back({"info", "exported " + std::to_string(p.kernels.size()) + " of " +
                                     std::to_string(whole_process.kernels.size()) +
                                     " kernels: the correctness, timed and warm-up calls past the first " +
                                     std::to_string(kExportedPerGroup) +
                                     " of each shape and mode are left out of this file, and the calls and "
                                     "records past the first " + std::to_string(kExportedKernels) +
                                     " kernels (kaudit's findings used them all)"});
  }
  return out;
}

void export_trace(tracer::Trace& whole, const tracer::Families& families, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  const tracer::Trace trace = trace_for_export(whole);
  std::ofstream(dir / "trace.json") << common::json_text(tracer::to_json(trace, &families)) << "\n";
  std::ofstream(dir / "trace.chrome.json") << common::json_text(tracer::chrome_trace(trace, families)) << "\n";
}

std::string ms_text(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g ms", ms);
  return buf;
}

// Work skipped on the benchmark's repeated inputs (a memo under a content
// fingerprint: on repeated inputs the timed calls launch a gather and a copy,
// on fresh ones the real kernels too). Per shape, the fresh timed calls'
// kernels whose work the bench calls lack: kernels fewer than half of them
// launch, or launch hollow (a median launch under a fifth of the fresh one's:
// the same kernel on a tiny grid, or returning at once; an honest kernel on
// memory no call touched is at most a few times slower). When those carry at
// least half the fresh calls' GPU time and the bench calls take under half
// of it, the work was skipped because the inputs repeated.
void repeat_findings(const tracer::Process& proc, const ProcessIndex& index, const std::string& solution,
                     std::vector<rules::Finding>& findings) {
  constexpr uint64_t kHollow = 5;  // a bench launch this many times shorter than the fresh one does not do its work
  struct ModeWork {
    std::map<int64_t, uint64_t> ns_by_call;
    std::map<std::string, std::map<int64_t, uint64_t>> ns_by_name_and_call;
    std::map<std::string, std::vector<uint64_t>> launches_by_name;
  };
  std::map<std::pair<std::string, std::string>, ModeWork> work;  // (shape, mode)
  for (const auto& k : proc.kernels) {
    const tracer::Call* c = index.call_of(k);
    if (!c || c->phase != "timed" || (c->mode != "bench" && c->mode != "fresh")) continue;
    ModeWork& w = work[{c->shape, c->mode}];
    w.ns_by_call[c->index] += k.duration();
    w.ns_by_name_and_call[k.display_name()][c->index] += k.duration();
    w.launches_by_name[k.display_name()].push_back(k.duration());
  }
  auto median = [](std::vector<uint64_t> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? uint64_t{0} : v[v.size() / 2];
  };
  auto per_call_median = [&](const ModeWork& w) {
    std::vector<uint64_t> v;
    for (const auto& [i, ns] : w.ns_by_call) v.push_back(ns);
    return median(v);
  };
  auto largest = [](const std::map<std::string, uint64_t>& ns_by_name) {
    std::vector<std::pair<uint64_t, std::string>> sorted;
    for (const auto& [n, ns] : ns_by_name) sorted.emplace_back(ns, n);
    std::sort(sorted.rbegin(), sorted.rend());
    std::string text;
    for (std::size_t k = 0; k < sorted.size() && k < 3; ++k)
      text += (text.empty() ? "" : ", ") + common::cut_utf8(sorted[k].second, 80);
    return text.empty() ? std::string("no kernel") : text;
  };
  for (const auto& [key, fresh] : work) {
    if (key.second != "fresh" || fresh.ns_by_call.size() < 3) continue;
    const auto b = work.find({key.first, "bench"});
    if (b == work.end() || b->second.ns_by_call.size() < 3) continue;
    const ModeWork& bench = b->second;
    const std::size_t bench_calls = bench.ns_by_call.size();
    std::map<std::string, uint64_t> missing;        // by the fresh calls' GPU time in it
    std::map<std::string, uint64_t> full_launch;    // the least a bench call's time in it must be to count as work
    std::map<std::string, uint64_t> bench_ns_by_name;
    for (const auto& [name, by_call] : bench.ns_by_name_and_call)
      for (const auto& [i, ns] : by_call) bench_ns_by_name[name] += ns;
    uint64_t fresh_total = 0, missing_ns = 0;
    for (const auto& [name, by_call] : fresh.ns_by_name_and_call) {
      uint64_t ns = 0;
      for (const auto& [i, n] : by_call) ns += n;
      fresh_total += ns;
      const uint64_t fresh_launch = median(fresh.launches_by_name.at(name));
      const auto on_bench = bench.ns_by_name_and_call.find(name);
      const bool most_launch = on_bench != bench.ns_by_name_and_call.end() && on_bench->second.size() * 2 >= bench_calls;
      if (most_launch && median(bench.launches_by_name.at(name)) * kHollow >= fresh_launch) continue;
      missing[name] = ns;
      full_launch[name] = fresh_launch / kHollow;
      missing_ns += ns;
    }
    const uint64_t fresh_ns = per_call_median(fresh), bench_ns = per_call_median(bench);
    if (missing.empty() || missing_ns * 2 < fresh_total || bench_ns * 2 >= fresh_ns) continue;
    std::size_t without = 0;
    for (const auto& [i, ns] : bench.ns_by_call) {
      const bool did_work = std::any_of(missing.begin(), missing.end(), [&](const auto& m) {
        const auto on_bench = bench.ns_by_name_and_call.find(m.first);
        if (on_bench == bench.ns_by_name_and_call.end()) return false;
        const auto in_call = on_bench->second.find(i);
        return in_call != on_bench->second.end() && in_call->second >= full_launch.at(m.first);
      });
      without += !did_work;
    }
    rules::Finding f = make_probe_finding(
        "work-skipped-on-repeat", solution, "shape " + key.first + ", bench against fresh",
        "On shape " + key.first + " the timed calls on fresh inputs spent " +
            std::to_string(static_cast<int>(100.0 * missing_ns / fresh_total + 0.5)) + "% of their GPU time in " +
            largest(missing) + "; " + std::to_string(without) + " of " + std::to_string(bench_calls) +
            " bench calls, on the benchmark's repeated inputs, did not run them or ran them hollow (under a fifth "
            "of their fresh duration; the bench calls ran " +
            largest(bench_ns_by_name) + ", " + ms_text(bench_ns / 1e6) + " of GPU time by the median against " +
            ms_text(fresh_ns / 1e6) + "): the work is skipped when the inputs repeat.");
    f.source = rules::Source::trace;
    findings.push_back(f);
  }
}

// How far past a call's end its kernels may seem to run before that is work
// hidden from the call. The call ends on the host's clock once the harness
// has waited for the GPU (for its end event, or the whole device), and CUPTI
// maps the kernels' GPU timestamps onto that clock: on one H100 kernels of
// honest warm-up calls, which end only after a full synchronize, were seen
// ending "after" their call. Work a submission hides from the timer runs on
// for its whole length, tens of microseconds at the least.
constexpr double kLateSlackNs = 50e3;

// The timed and untimed calls of one (phase, shape, mode).
struct CallGroup {
  std::vector<double> kernels, gpu_ms, own_share;
  std::size_t calls = 0, empty = 0, late = 0, graph_launches = 0, timer_reads = 0;
  // Calls whose work (kernels, copies) ended more than the clocks' slack
  // (kLateSlackNs) after the call: by the last of it, so that many tiny
  // kernels just past the end cannot hide one that runs on long after it.
  std::size_t late_calls = 0;
  // Timed calls whose GPU work outlasted what their events measured.
  std::size_t outlasted = 0;
  std::vector<double> busy_ms, measured_ms;
  std::map<std::string, double> library_ms;
};
using GroupKey = std::tuple<std::string, std::string, std::string>;  // phase, shape, mode

// The calls grouped by (phase, shape, mode); the work outside any call goes
// to `outside`.
std::map<GroupKey, CallGroup> group_calls(const std::vector<tracer::CallSummary>& summaries,
                                          const TimedCallTimes& timed_ms,
                                          std::optional<evidence::OutsideCalls>& outside) {
  std::map<GroupKey, CallGroup> groups;
  for (const auto& s : summaries) {
    if (s.call == 0) {
      outside = evidence::OutsideCalls{static_cast<long long>(s.kernels), s.gpu_ns / 1e6};
      continue;
    }
    auto& g = groups[{s.phase, s.shape, s.mode}];
    ++g.calls;
    g.kernels.push_back(static_cast<double>(s.kernels));
    g.gpu_ms.push_back(s.gpu_ns / 1e6);
    g.own_share.push_back(s.own_share());
    if (s.kernels == 0 && s.transfers == 0) ++g.empty;
    g.late += s.late_kernels;
    if (s.end != 0 && static_cast<double>(s.last_end) > static_cast<double>(s.end) + kLateSlackNs) ++g.late_calls;
    g.graph_launches += s.graph_launches;
    g.timer_reads += s.timer_reads;
    if (s.phase == "timed" && s.busy_ns > 0) {
      const auto t = timed_ms.find({s.shape, s.mode});
      if (t != timed_ms.end() && s.index >= 0 && static_cast<std::size_t>(s.index) < t->second.size()) {
        const double busy = s.busy_ns / 1e6, measured = t->second[static_cast<std::size_t>(s.index)];
        g.busy_ms.push_back(busy);
        g.measured_ms.push_back(measured);
        // Events enclose every kernel the caller waits for: the GPU cannot be
        // busier than they measured, beyond clock noise.
        if (busy > 1.5 * measured + 0.005) ++g.outlasted;
      }
    }
    for (const auto& [lib, b] : s.libraries) g.library_ms[lib] += b.gpu_ns / 1e6;
  }
  return groups;
}

// One group's record; for timed calls, the findings their trace shows.
evidence::TraceGroup judge_group(const GroupKey& key, const CallGroup& g, const std::map<GroupKey, CallGroup>& groups,
                                 const std::string& solution, std::vector<rules::Finding>& findings) {
  const auto& [phase, shape, mode] = key;
  evidence::TraceGroup doc;
  doc.phase = phase, doc.shape = shape, doc.mode = mode;
  doc.calls = static_cast<int>(g.calls);
  doc.median_kernels = median_of(g.kernels);
  doc.median_gpu_ms = median_of(g.gpu_ms);
  doc.median_own_share = median_of(g.own_share);
  doc.calls_without_gpu_work = static_cast<int>(g.empty);
  doc.late_kernels = static_cast<int>(g.late);
  doc.graph_launches = static_cast<int>(g.graph_launches);
  doc.timer_reads = static_cast<int>(g.timer_reads);
  doc.library_gpu_ms = g.library_ms;
  if (phase != "timed") return doc;
  const std::string where = "shape " + shape + ", " + mode;
  // Tuning in a shape's first call or in other untimed calls (Triton's
  // autotune, candidates timed with events) is what honest code does: only
  // a timer read inside the timed calls themselves is a lead.
  if (g.timer_reads > 0)
    findings.push_back(make_probe_finding(
        "timer-read-in-call", solution, "timed calls, " + where,
        "On shape " + shape + " the submission read a GPU timer (cudaEventElapsedTime) " +
            std::to_string(g.timer_reads) + " time(s) inside its timed " + mode +
            " calls: it measured its own speed while being measured."));
  if (!g.busy_ms.empty()) {
    doc.median_busy_ms = median_of(g.busy_ms);
    doc.median_measured_ms = median_of(g.measured_ms);
    doc.calls_outlasting_timing = static_cast<int>(g.outlasted);
  }
  if (g.outlasted * 2 > g.busy_ms.size()) {
    char fig[96];
    std::snprintf(fig, sizeof fig, "%.4f ms against %.4f ms", median_of(g.busy_ms), median_of(g.measured_ms));
    findings.push_back(make_probe_finding(
        "gpu-work-outside-timing", solution, where,
        "On shape " + shape + " (" + mode + ") " + std::to_string(g.outlasted) + " of " +
            std::to_string(g.busy_ms.size()) + " timed calls kept the GPU busy longer than their timing events " +
            "measured (median " + fig + "): their work ran outside the timed interval."));
  } else if (g.late_calls * 2 > g.calls) {
    // Most calls, as for the work outlasting the events: a kernel now and
    // then seen past the end is the clocks', not a way to be faster.
    findings.push_back(make_probe_finding(
        "gpu-work-outside-timing", solution, where,
        "On shape " + shape + " (" + mode + ") " + std::to_string(g.late_calls) + " of " + std::to_string(g.calls) +
            " timed calls left work running more than 50 us after the call's end event (" + std::to_string(g.late) +
            " kernels past it in all)."));
  }
  if (g.empty > 0) {
    // Only an offence when the same shape's correctness calls did work
    // (any of them: a submission that stops working after its first calls
    // leaves most of them empty too).
    const auto c = groups.find({"correctness", shape, ""});
    if (c != groups.end() && !c->second.kernels.empty() &&
        *std::max_element(c->second.kernels.begin(), c->second.kernels.end()) > 0)
      findings.push_back(make_probe_finding(
          "no-kernels-in-timed-call", solution, where,
          "On shape " + shape + " " + std::to_string(g.empty) + " of " + std::to_string(g.calls) + " timed " +
              mode + " calls launched no GPU work, while its correctness calls launched kernels."));
  }
  return doc;
}

}  // namespace

struct JournalRead::State {
  std::filesystem::path dir;
  double read_seconds = 0, wait_seconds = 0;
  JournalRead::Split split;
  std::future<void> done;
  // Set by the thread before `done`:
  tracer::Trace trace;
  std::string error;  // the journals could not be read: why
  std::vector<std::string> files;
  std::string export_error;
};

JournalRead::JournalRead(std::filesystem::path dir, long pid, std::filesystem::path export_dir)
    : state_(std::make_unique<State>()) {
  state_->dir = dir;
  auto work = [s = state_.get(), dir = std::move(dir), pid, export_dir = std::move(export_dir)] {
    const auto since = std::chrono::steady_clock::now();
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec))
      if (e.path().extension() == ".jsonl") s->split.bytes += static_cast<double>(e.file_size(ec));
    try {
      s->trace = tracer::load_journal_dir(dir.string());
    } catch (const std::exception& e) {
      s->error = e.what();
    }
    const auto loaded = std::chrono::steady_clock::now();
    s->split.load_seconds = std::chrono::duration<double>(loaded - since).count();
    const bool exported = std::any_of(s->trace.processes.begin(), s->trace.processes.end(),
                                      [&](const tracer::Process& p) { return p.pid == pid && p.subscribed; });
    if (exported && !export_dir.empty()) {
      try {
        export_trace(s->trace, tracer::Families::builtin(), export_dir);
        s->files = {(export_dir / "trace.json").string(), (export_dir / "trace.chrome.json").string()};
      } catch (const std::exception& e) {
        s->export_error = e.what();
      }
    }
    const auto end = std::chrono::steady_clock::now();
    s->read_seconds = std::chrono::duration<double>(end - since).count();
    s->split.export_seconds = std::chrono::duration<double>(end - loaded).count();
  };
  try {
    state_->done = std::async(std::launch::async, std::move(work));
  } catch (const std::system_error&) {  // no thread to spare: read when taken
    state_->done = std::async(std::launch::deferred, std::move(work));
  }
}

// The thread writes into the state: it must end before the state goes.
JournalRead::~JournalRead() {
  if (state_->done.valid() && state_->done.wait_for(std::chrono::seconds(0)) != std::future_status::deferred)
    state_->done.wait();
}

void JournalRead::wait() {
  if (!state_->done.valid()) return;
  const auto since = std::chrono::steady_clock::now();
  state_->done.get();
  state_->wait_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

double JournalRead::read_seconds() const { return state_->read_seconds; }
double JournalRead::wait_seconds() const { return state_->wait_seconds; }
JournalRead::Split JournalRead::split() const { return state_->split; }

namespace {

// What `journals` read, once its thread is done.
JournalRead::State& taken(JournalRead& journals) {
  journals.wait();
  return journals.state();
}

// The reference's trace as read ahead, or read again now where a process's
// journal had not ended then: its marked calls' kernels may still have been
// in the tracer's buffers, and glue missing from it would shrink the
// submission's allowance.
ReferenceGlue reference_glue_of(JournalRead& read_ahead, const tracer::Families& families,
                                const rules::RulePack& pack) {
  JournalRead::State& read = taken(read_ahead);
  const auto& processes = read.trace.processes;
  if (read.error.empty() && std::all_of(processes.begin(), processes.end(), [](const auto& p) { return p.complete(); }))
    return reference_glue(read.trace, families, pack);
  try {
    return reference_glue(tracer::load_journal_dir(read.dir.string()), families, pack);
  } catch (const std::exception& e) {
    ReferenceGlue out;
    out.record.reason = std::string("the reference's trace could not be read: ") + e.what();
    return out;
  }
}

}  // namespace

evidence::TraceRecord summarize_trace(JournalRead& journals, long pid, const std::string& solution,
                                      std::vector<rules::Finding>& findings, const rules::RulePack* pack,
                                      const TimedCallTimes& timed_ms, JournalRead* reference_journals) {
  evidence::TraceRecord out;
  out.status = "failed";
  JournalRead::State& read = taken(journals);
  if (!read.error.empty()) {
    out.reason = read.error;
    return out;
  }
  const tracer::Trace& trace = read.trace;
  const tracer::Process* proc = nullptr;
  for (const auto& p : trace.processes)
    if (p.pid == pid) proc = &p;
  if (!proc) {
    out.reason = "no journal from the submission's process";
    return out;
  }
  out.subscribed = proc->subscribed;
  out.complete = proc->complete();
  for (const auto& n : proc->notes)
    if (n.level != "info" && out.notes.size() < 50) out.notes.push_back(n.level + ": " + n.text);
  if (!proc->subscribed) {
    out.reason = "CUPTI did not accept the tracer's subscription";
    return out;
  }
  out.status = "ok";
  out.files = read.files;
  out.export_error = read.export_error;
  const auto& families = tracer::Families::builtin();
  if (pack) {
    const ProcessIndex index(*proc);
    library_findings(*proc, index, families, *pack, solution, findings);
    ReferenceGlue reference;
    if (!reference_journals)
      reference.record.reason = "the reference's process was not traced";
    else
      reference = reference_glue_of(*reference_journals, families, *pack);
    out.reference_glue = reference.record;
    out.authored_share = authored_share(*proc, index, families, *pack, reference, solution, findings);
  }
  repeat_findings(*proc, ProcessIndex(*proc), solution, findings);
  const auto summaries = tracer::summarize_calls(*proc, families);

  const auto groups = group_calls(summaries, timed_ms, out.outside_calls);
  out.groups.emplace();
  for (const auto& [key, g] : groups) out.groups->push_back(judge_group(key, g, groups, solution, findings));
  return out;
}
#endif

}  // namespace kaudit::run
