#include "report/batch.h"

#include "report/text.h"
#include "evidence/json_fields.h"
#include "evidence/run_correctness.h"
#include "evidence/run_phases.h"
#include "evidence/run_settings.h"
#include "evidence/run_timing.h"
#include "evidence/run_trace.h"
#include "common/utf8.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace kaudit::report {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

constexpr std::uintmax_t kMaxSourceBytes = 4u << 20;
constexpr int kContextLines = 3;     // lines shown above and below a finding
constexpr std::size_t kKernelRows = 12;

std::string str(const json& j, const char* key, const std::string& fallback = "") {
  if (!j.is_object() || !j.contains(key)) return fallback;
  const json& v = j[key];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number() || v.is_boolean()) return common::json_text(v);
  return fallback;
}

std::optional<double> num(const json& j, const char* key) { return evidence::finite_number(j, key); }

int integer(const json& j, const char* key) {
  const auto v = num(j, key);
  if (!v || *v < 0 || *v > 1e9) return 0;
  return static_cast<int>(*v);
}

const json& field(const json& j, const char* key) {
  static const json null_json;
  if (!j.is_object() || !j.contains(key)) return null_json;
  return j[key];
}

// Reads a JSON document; on failure notes why and returns nullopt.
std::optional<json> read_json(const fs::path& file, const std::string& label, const char* schema,
                              std::vector<std::string>& notes, bool note_missing = true) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) {
    if (note_missing) notes.push_back(label + " is missing");
    return std::nullopt;
  }
  std::ifstream in(file, std::ios::binary);
  json doc = json::parse(in, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    notes.push_back(label + " is not a readable JSON object");
    return std::nullopt;
  }
  if (schema != nullptr && str(doc, "schema") != schema)
    notes.push_back(label + " has schema '" + str(doc, "schema", "(none)") + "', expected " + schema +
                    "; shown as far as it could be read");
  return doc;
}

std::string one_of(const std::string& v, std::initializer_list<const char*> allowed, const std::string& fallback) {
  for (const char* a : allowed)
    if (v == a) return v;
  return fallback;
}

bool safe_key(const std::string& key) {
  return !key.empty() && key != "." && key != ".." && key.find('/') == std::string::npos &&
         key.find('\\') == std::string::npos && key.find('\0') == std::string::npos;
}

std::vector<std::string> read_lines(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::string content(kMaxSourceBytes, '\0');
  in.read(content.data(), static_cast<std::streamsize>(content.size()));
  content.resize(static_cast<std::size_t>(in.gcount()));
  std::vector<std::string> lines;
  std::string line;
  std::istringstream ss(content);
  while (std::getline(ss, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

// The submission's path is relative to the folder kaudit ran from: the
// summary's `root` when it says so, the current folder, or the folder that
// holds the batch.
std::optional<fs::path> find_source(const std::string& path, const json& summary, const fs::path& out_dir) {
  if (path.empty()) return std::nullopt;
  const fs::path p(path);
  std::vector<fs::path> candidates;
  if (p.is_absolute()) {
    candidates.push_back(p);
  } else {
    if (const std::string root = str(summary, "root"); !root.empty()) candidates.push_back(fs::path(root) / p);
    candidates.push_back(fs::current_path() / p);
    candidates.push_back(fs::absolute(out_dir).parent_path() / p);
  }
  for (const auto& c : candidates) {
    std::error_code ec;
    if (fs::is_regular_file(c, ec)) return c;
  }
  return std::nullopt;
}

FindingView finding_view(const json& f, bool deciding) {
  FindingView v;
  v.id = str(f, "id", "(no id)");
  v.source = str(f, "source");
  v.category = str(f, "category");
  v.confidence = str(f, "confidence");
  v.message = str(f, "message");
  const json& loc = field(f, "location");
  v.file = str(loc, "file");
  v.symbol = str(loc, "symbol");
  v.line = integer(loc, "line");
  v.column = integer(loc, "column");
  v.deciding = deciding;
  return v;
}

void attach_excerpt(FindingView& f, const std::vector<std::string>& lines, const std::string& source_path) {
  if (f.line <= 0 || f.line > static_cast<int>(lines.size())) return;
  if (!f.file.empty() && basename_of(f.file) != basename_of(source_path)) return;
  Excerpt e;
  e.first_line = std::max(1, f.line - kContextLines);
  const int last = std::min(static_cast<int>(lines.size()), f.line + kContextLines);
  for (int n = e.first_line; n <= last; ++n) e.lines.push_back(lines[n - 1]);
  e.marked = f.line;
  f.excerpt = std::move(e);
}

std::string shape_label(const json& shape, int index) {
  if (shape.is_object() && !shape.empty()) {
    std::string out;
    for (const auto& [k, v] : shape.items()) {
      if (!out.empty()) out += ", ";
      out += k + "=" + (v.is_string() ? v.get<std::string>() : common::json_text(v));
    }
    return out;
  }
  if (shape.is_string()) return shape.get<std::string>();
  return "shape " + std::to_string(index);
}

void read_correctness(Submission& s, const json* run) {
  if (!run) return;
  for (const auto& c : evidence::correctness_from_json(field(*run, "correctness"))) {
    CorrectnessRow r;
    r.index = c.shape_index;
    r.shape = shape_label(c.shape, r.index);
    r.passed = c.passed;
    for (const auto& k : c.cases) {
      if (k.status == "skipped") continue;
      const bool stress = k.kind == "stress";
      (stress ? r.stress : r.seeds) += 1;
      (stress ? r.stress_passed : r.seeds_passed) += k.passed() ? 1 : 0;
      if (!k.passed() && r.first_failure.empty())
        r.first_failure = k.kind + " case " + std::to_string(k.index) + ": " + (k.reason.empty() ? k.status : k.reason);
      r.unwritten += k.unwritten_elements;
      if (!k.inputs_mutated.empty()) r.mutated_cases.push_back(k.index);
    }
    if (c.stream_order.is_object()) {
      r.stream_outputs = integer(c.stream_order, "outputs");
      r.stream_differing = integer(c.stream_order, "differing");
    }
    s.correctness.push_back(r);
  }
}

void read_timing(Submission& s, const json* verdict, const json* run) {
  const json* rows = nullptr;
  if (verdict && field(*verdict, "timing").is_array() && !field(*verdict, "timing").empty())
    rows = &(*verdict)["timing"];
  else if (run && field(*run, "timing").is_array())
    rows = &(*run)["timing"];
  if (run) {
    const evidence::RunSettings settings = evidence::run_settings_from_json(field(*run, "settings"));
    if (settings.fresh_over_bench_threshold > 0) s.ratio_threshold = settings.fresh_over_bench_threshold;
    s.device = str(*run, "device");
    s.hardware = str(field(*run, "hardware"), "name");
    const evidence::ShapeSelection& shapes = settings.shapes;
    if (shapes.selection == "smallest" && shapes.run && shapes.run->size() == 1 && shapes.graded.value_or(0) > 1)
      s.shapes_run = "only the smallest of the problem's " + std::to_string(*shapes.graded) +
                     " graded shapes (its shape " + std::to_string(shapes.run->front()) + "), a run sized for the " +
                     (s.device == "cpu" ? "CPU" : "device");
  }
  if (!rows) return;
  for (const auto& t : evidence::timing_from_json(*rows)) {
    TimingRow r;
    r.index = t.shape_index;
    r.shape = shape_label(t.shape, r.index);
    auto mode = [&](const char* name) -> const evidence::ModeTiming* {
      const auto m = t.modes.find(name);
      return m == t.modes.end() ? nullptr : &m->second;
    };
    const evidence::ModeTiming *bench = mode("bench"), *fresh = mode("fresh"), *rewrite = mode("rewrite");
    if (bench) r.bench_ms = bench->median_ms(), r.bench_pct = bench->percent_of_peak();
    if (fresh) r.fresh_ms = fresh->median_ms(), r.fresh_pct = fresh->percent_of_peak();
    if (rewrite) r.rewrite_ms = rewrite->median_ms();
    r.ratio = t.fresh_over_bench;
    s.timing.push_back(r);
  }
  auto geomean = [&](auto member) -> std::optional<double> {
    double log_sum = 0;
    int n = 0;
    for (const auto& r : s.timing)
      if (const auto& v = r.*member; v && *v > 0) log_sum += std::log(*v), ++n;
    if (n == 0) return std::nullopt;
    return std::exp(log_sum / n);
  };
  s.bench_pct = geomean(&TimingRow::bench_pct);
  s.fresh_pct = geomean(&TimingRow::fresh_pct);
}

std::string known_role(const std::string& library) {
  static const std::set<std::string> libraries = {"cuBLASLt", "cuBLAS",  "cuDNN", "cuFFT",      "cuSPARSE",
                                                  "cuSOLVER", "cuRAND",  "NCCL",  "flash-attn", "libtorch_cuda"};
  if (libraries.count(library)) return "library";
  if (library.empty() || library == "unknown") return "unknown";
  return "own";
}

void read_trace(Submission& s, const json* trace, const json* run) {
  std::map<std::string, std::string> roles;  // library -> role, as the trace says
  std::map<std::string, double> timed_ms, all_ms;
  if (trace) {
    std::map<std::tuple<std::string, std::string, std::string>, KernelRow> rows;
    std::map<std::tuple<std::string, std::string, std::string>, std::set<std::string>> phases;
    for (const auto& p : field(*trace, "processes")) {
      std::map<long long, std::string> launcher_object, call_phase;
      for (const auto& l : field(p, "launchers")) launcher_object[integer(l, "id")] = str(l, "object");
      for (const auto& c : field(p, "calls")) call_phase[integer(c, "id")] = str(c, "phase");
      for (const auto& k : field(p, "kernels")) {
        if (!k.is_object()) continue;
        std::string name = str(k, "demangled");
        if (name.empty()) name = str(k, "name", "(unnamed)");
        const std::string library = str(k, "library", "unknown");
        const std::string role = str(k, "role", known_role(library));
        const auto launcher_it = launcher_object.find(integer(k, "launcher"));
        const std::string launcher = launcher_it == launcher_object.end() ? "" : basename_of(launcher_it->second);
        const auto start = num(k, "start"), end = num(k, "end");
        const double ms = start && end && *end > *start ? (*end - *start) / 1e6 : 0.0;
        const int call = integer(k, "call");
        const auto phase_it = call_phase.find(call);
        const std::string phase = call == 0 ? "outside calls" : phase_it == call_phase.end() ? "?" : phase_it->second;
        auto key = std::make_tuple(name, library, launcher);
        KernelRow& r = rows[key];
        r.name = name, r.library = library, r.role = role, r.launcher = launcher;
        ++r.count;
        r.gpu_ms += ms;
        phases[key].insert(phase);
        roles[library] = role;
        all_ms[library] += ms;
        if (phase == "timed") timed_ms[library] += ms;
      }
    }
    std::vector<KernelRow> sorted;
    for (auto& [key, r] : rows) {
      for (const auto& ph : phases[key]) r.phases += (r.phases.empty() ? "" : ", ") + ph;
      sorted.push_back(r);
    }
    std::stable_sort(sorted.begin(), sorted.end(), [](const KernelRow& a, const KernelRow& b) {
      return a.gpu_ms != b.gpu_ms ? a.gpu_ms > b.gpu_ms : a.count > b.count;
    });
    if (sorted.size() > kKernelRows) {
      s.kernels_hidden = sorted.size() - kKernelRows;
      sorted.resize(kKernelRows);
    }
    s.kernels = std::move(sorted);
  }
  // The library split of timed calls: the run document's trace groups, or
  // the trace's own kernels.
  std::map<std::string, double> from_groups;
  if (run) {
    const json& t = field(*run, "trace");
    const auto trace_record = evidence::trace_record_from_json(t);
    s.trace_status = str(t, "status");
    for (const auto& g : trace_record.groups.value_or(std::vector<evidence::TraceGroup>{}))
      if (g.phase == "timed")
        for (const auto& [lib, ms] : g.library_gpu_ms) from_groups[lib] += ms;
    for (const auto& a : trace_record.authored_share.value_or(std::vector<evidence::AuthoredShare>{}))
      s.authored_share.emplace_back(a.shape, a.share);
    for (const auto& c : evidence::first_calls_from_json(field(*run, "first_calls")))
      if (c.phase == "correctness") s.first_call_seconds.emplace_back(std::to_string(std::max(c.shape, 0)), c.seconds);
  }
  const std::map<std::string, double>* chosen = nullptr;
  if (!from_groups.empty()) {
    chosen = &from_groups, s.libraries_basis = "all timed calls (run.json)";
  } else if (!timed_ms.empty()) {
    chosen = &timed_ms, s.libraries_basis = "all timed calls (trace.json)";
  } else if (!all_ms.empty()) {
    chosen = &all_ms, s.libraries_basis = "every traced call (trace.json marks no timed calls)";
  }
  if (chosen) {
    for (const auto& [lib, ms] : *chosen) {
      const auto it = roles.find(lib);
      s.libraries.push_back({lib, it != roles.end() ? it->second : known_role(lib), ms});
    }
    std::stable_sort(s.libraries.begin(), s.libraries.end(),
                     [](const LibraryTime& a, const LibraryTime& b) { return a.gpu_ms > b.gpu_ms; });
  }
}

// Static findings beside the verdict that could have decided (a lead the run
// did not confirm: "suspicious" there; cheat or benchmark-aware when no
// verdict was made), in order, each id once, none that also decides.
std::vector<std::string> unconfirmed_leads(const Submission& s) {
  std::set<std::string> seen;
  for (const auto& f : s.deciding) seen.insert(f.id);
  std::vector<std::string> ids;
  for (const auto& f : s.beside)
    if (f.source == "static" && (f.category == "suspicious" || f.category == "cheat" || f.category == "benchmark-aware") &&
        seen.insert(f.id).second)
      ids.push_back(f.id);
  return ids;
}

void read_submission(Submission& s, const json& summary, const fs::path& out_dir) {
  s.folder_readable = safe_key(s.key);
  std::error_code ec;
  const fs::path dir = out_dir / s.key;
  if (!s.folder_readable) {
    s.notes.push_back("its key is not a plain folder name, so none of its files were read");
  } else if (!fs::is_directory(dir, ec)) {
    s.folder_readable = false;
    s.notes.push_back("its folder is missing from the batch");
  }

  std::optional<json> verdict, analysis, run, trace;
  if (s.folder_readable) {
    verdict = read_json(dir / "verdict.json", "verdict.json", "kaudit-verdict/1", s.notes);
    analysis = read_json(dir / "analysis.json", "analysis.json", "kaudit-analysis/1", s.notes);
    run = read_json(dir / "run.json", "run.json", "kaudit-run/1", s.notes);
    trace = read_json(dir / "trace.json", "trace.json", "kaudit-trace/1", s.notes);
    s.has_chrome_trace = fs::is_regular_file(dir / "trace.chrome.json", ec);
    if (!s.has_chrome_trace) s.notes.push_back("trace.chrome.json is missing");
  }
  s.has_verdict = verdict.has_value();
  s.has_analysis = analysis.has_value();
  s.has_run = run.has_value();
  s.has_trace = trace.has_value();

  static const std::initializer_list<const char*> results = {"correct", "incorrect", "error", "infrastructure-error", "not-run"};
  static const std::initializer_list<const char*> integrities = {"clean", "benchmark-aware", "cheat", "not-run",
                                                                 "unverified"};
  if (verdict) {
    const std::string r = str(*verdict, "result"), i = str(*verdict, "integrity");
    if ((!r.empty() && r != s.result) || (!i.empty() && i != s.integrity))
      s.notes.push_back("summary.json says " + s.result + " / " + s.integrity + ", verdict.json says " + r + " / " +
                        i + "; verdict.json is shown");
    if (!r.empty()) s.result = r;
    if (!i.empty()) s.integrity = i;
    const json& reason = field(*verdict, "result_reason");
    if (reason.is_string()) {
      s.result_reason = reason.get<std::string>();
    } else if (reason.is_object()) {
      s.result_reason = str(reason, "phase");
      if (const std::string why = str(reason, "reason"); !why.empty())
        s.result_reason += (s.result_reason.empty() ? "" : ": ") + why;
    }
    if (const std::string why = str(*verdict, "integrity_reason"); !why.empty())
      s.notes.push_back("integrity unverified: " + why);
    for (const auto& c : field(*verdict, "caveats"))
      if (c.is_string()) s.notes.push_back(c.get<std::string>());
    for (const auto& r2 : field(*verdict, "reasons"))
      if (r2.is_string()) s.reasons.push_back(r2.get<std::string>());
    for (const auto& f : field(*verdict, "deciding"))
      if (f.is_object()) s.deciding.push_back(finding_view(f, true));
    for (const auto& f : field(*verdict, "beside"))
      if (f.is_object()) s.beside.push_back(finding_view(f, false));
  } else {
    // No verdict: show the evidence undecided, beside.
    if (analysis)
      for (const auto& file : field(*analysis, "files"))
        for (const auto& f : field(file, "findings"))
          if (f.is_object()) s.beside.push_back(finding_view(f, false));
    if (run)
      for (const auto& f : field(*run, "findings"))
        if (f.is_object()) s.beside.push_back(finding_view(f, false));
  }
  s.unconfirmed = unconfirmed_leads(s);
  if (run && s.result_reason.empty()) {
    s.result_reason = str(*run, "result_reason");
    const json& error = field(*run, "error");
    if (s.result_reason.empty() && error.is_object())
      s.result_reason = str(error, "phase") + (str(error, "reason").empty() ? "" : ": " + str(error, "reason"));
  }
  s.result = one_of(s.result, results, "unknown");
  s.integrity = one_of(s.integrity, integrities, "unknown");

  read_correctness(s, run ? &*run : nullptr);
  read_timing(s, verdict ? &*verdict : nullptr, run ? &*run : nullptr);
  read_trace(s, trace ? &*trace : nullptr, run ? &*run : nullptr);

  std::optional<fs::path> src;
  try {
    src = find_source(s.path, summary, out_dir);
  } catch (const fs::filesystem_error&) {
    // The current folder is gone, or a path is unreadable: no source lines.
  }
  if (src) {
    const auto lines = read_lines(*src);
    s.source_shown = src->string();
    for (auto& f : s.deciding) attach_excerpt(f, lines, s.path);
    for (auto& f : s.beside) attach_excerpt(f, lines, s.path);
  } else if (!s.path.empty()) {
    s.notes.push_back("its source file was not found, so no source lines are shown");
  }
}

// What kaudit audit --shard and kaudit merge recorded (docs/scale-out.md):
// a shard says so, a merge names its missing shards and resolved conflicts.
void scale_out_notes(const json& summary, std::vector<std::string>& notes) {
  const json& shard = field(summary, "shard");
  if (shard.is_object())
    notes.push_back("this batch is shard " + str(shard, "index", "?") + "/" + str(shard, "count", "?") +
                    " (numbered from 0) of a batch of " + str(field(shard, "inputs"), "count", "?") +
                    " submissions; kaudit merge joins the shards");
  const json& merge = field(summary, "merge");
  const json& absent = field(field(merge, "shards"), "missing");
  if (absent.is_array() && !absent.empty())
    notes.push_back("merged without shard(s) " + common::json_text(absent) + " (numbered from 0) of " +
                    str(field(merge, "shards"), "count", "?") + ": their " +
                    std::to_string(field(merge, "missing").size()) +
                    " submission(s) are listed as not-run, with status missing");
  for (const auto& c : field(merge, "conflicts"))
    if (c.is_object()) notes.push_back("conflict: " + str(c, "why") + "; kept " + str(c, "kept", "none"));
}

}  // namespace

Batch load_batch(const fs::path& out_dir) {
  Batch b;
  b.out_dir = out_dir;
  const fs::path summary_file = out_dir / "summary.json";
  std::ifstream in(summary_file, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + summary_file.string());
  const json summary = json::parse(in, nullptr, false);
  if (summary.is_discarded() || !summary.is_object())
    throw std::runtime_error(summary_file.string() + " is not a JSON object");
  if (str(summary, "schema") != "kaudit-audit/1")
    b.notes.push_back("summary.json has schema '" + str(summary, "schema", "(none)") +
                      "', expected kaudit-audit/1; shown as far as it could be read");
  scale_out_notes(summary, b.notes);
  b.kaudit_version = str(summary, "kaudit_version");
  b.gpu = str(summary, "gpu");
  b.root = str(summary, "root");
  std::set<std::string> anchors;
  for (const auto& e : field(summary, "submissions")) {
    if (!e.is_object()) {
      b.notes.push_back("summary.json lists an entry that is not an object; skipped");
      continue;
    }
    Submission s;
    s.key = str(e, "key");
    s.path = str(e, "path");
    s.problem = str(e, "problem");
    s.result = str(e, "result", "not-run");
    s.integrity = str(e, "integrity", "not-run");
    s.status = str(e, "status");
    s.seconds = num(e, "seconds");
    std::string anchor = "s-" + slug(s.key.empty() ? s.path : s.key);
    for (int n = 2; anchors.count(anchor); ++n) anchor = "s-" + slug(s.key) + "-" + std::to_string(n);
    anchors.insert(anchor);
    s.anchor = anchor;
    read_submission(s, summary, out_dir);
    b.submissions.push_back(std::move(s));
  }
  if (!field(summary, "submissions").is_array()) b.notes.push_back("summary.json lists no submissions");
  return b;
}

Counts count_verdicts(const Batch& batch) {
  Counts c;
  for (const auto& s : batch.submissions) {
    if (s.integrity == "clean")
      ++c.clean;
    else if (s.integrity == "benchmark-aware")
      ++c.benchmark_aware;
    else if (s.integrity == "cheat")
      ++c.cheat;
    else
      ++c.not_run;
    if (s.result == "correct")
      ++c.correct;
    else if (s.result == "incorrect")
      ++c.incorrect;
    else if (s.result == "error")
      ++c.error;
    else
      ++c.result_not_run;
  }
  return c;
}

std::vector<std::pair<std::string, std::vector<const Submission*>>> by_problem(const Batch& batch) {
  std::map<std::string, std::vector<const Submission*>> groups;
  for (const auto& s : batch.submissions) groups[s.problem].push_back(&s);
  std::vector<std::pair<std::string, std::vector<const Submission*>>> out;
  for (auto& [problem, list] : groups) {
    std::stable_sort(list.begin(), list.end(), [](const Submission* a, const Submission* b) {
      if (a->fresh_pct.has_value() != b->fresh_pct.has_value()) return a->fresh_pct.has_value();
      return a->fresh_pct && *a->fresh_pct > *b->fresh_pct;
    });
    if (!problem.empty()) out.emplace_back(problem, list);
  }
  // Problems with plain names first, odd ones (a hostile or broken summary) after, none last.
  auto plain = [](const std::string& p) {
    return std::all_of(p.begin(), p.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'; });
  };
  std::stable_partition(out.begin(), out.end(), [&](const auto& g) { return plain(g.first); });
  if (groups.count("")) out.emplace_back("", groups[""]);
  return out;
}

std::string cases_text(int passed, int total) {
  return total == 0 ? "–" : std::to_string(passed) + " of " + std::to_string(total);
}

std::string stream_order_text(const CorrectnessRow& r) {
  if (!r.stream_differing) return "–";
  if (*r.stream_differing == 0) return "ready";
  return std::to_string(*r.stream_differing) + " of " + std::to_string(r.stream_outputs.value_or(0)) + " unfinished";
}

std::string authored_share_text(const Submission& s) {
  std::string out;
  for (const auto& [shape, share] : s.authored_share)
    out += (out.empty() ? "shape " : ", shape ") + shape + ": " + fmt_pct(100.0 * share);
  return out;
}

std::string first_calls_text(const Submission& s) {
  std::string out;
  char buf[32];
  for (const auto& [shape, sec] : s.first_call_seconds) {
    std::snprintf(buf, sizeof buf, "%.1f s", sec);
    out += (out.empty() ? "shape " : ", shape ") + shape + ": " + buf;
  }
  return out;
}

std::string unconfirmed_text(const Submission& s) {
  std::string ids;
  for (const auto& id : s.unconfirmed) ids += (ids.empty() ? "" : ", ") + id;
  return ids;
}

std::string unconfirmed_sentence(const Submission& s) {
  if (s.unconfirmed.empty()) return "";
  return "The source holds patterns that could decide, not confirmed at run time: " + unconfirmed_text(s) +
         ". A static lead alone decides nothing (each id's policy is in docs/findings.md); they are listed beside "
         "the verdict below, with their lines.";
}

std::string mutated_text(const CorrectnessRow& r) {
  if (r.mutated_cases.empty()) return "–";
  std::string out = r.mutated_cases.size() == 1 ? "case " : "cases ";
  for (std::size_t i = 0; i < r.mutated_cases.size(); ++i) out += (i ? ", " : "") + std::to_string(r.mutated_cases[i]);
  return out;
}

EvidenceKind evidence_of(const Submission& s, const FindingView& f) {
  if (f.excerpt) return EvidenceKind::source;
  if (f.source == "trace" && (!s.kernels.empty() || !s.libraries.empty())) return EvidenceKind::kernels;
  // Probes of the correctness calls say where they looked ("shape 0, correctness",
  // "shape 2, stream-order probe"); the others looked at the timed calls.
  const bool of_correctness = f.symbol.find("correctness") != std::string::npos ||
                              f.symbol.find("stream-order") != std::string::npos;
  if (f.source == "probe" && of_correctness && !s.correctness.empty()) return EvidenceKind::correctness;
  if ((f.source == "probe" || f.source == "timing") && !s.timing.empty()) return EvidenceKind::timing;
  return EvidenceKind::none;
}

}  // namespace kaudit::report
