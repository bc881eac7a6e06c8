// report.md: the same content as report.html, as tables and lists.
#include "report/report.h"
#include "report/text.h"

#include <sstream>

namespace kaudit::report {
namespace {

std::string problem_title(const std::string& p) { return p.empty() ? "(no problem)" : p; }

std::string integrity_cell(const std::string& integrity) {
  if (integrity == "cheat" || integrity == "benchmark-aware") return "**" + integrity + "**";
  return integrity;
}

std::string location(const FindingView& f) {
  std::string where = f.file;
  if (f.line > 0) where += ":" + std::to_string(f.line);
  if (!f.symbol.empty()) where += where.empty() ? f.symbol : " (" + f.symbol + ")";
  return where;
}

std::string deciding_ids(const Submission& s) {
  std::string ids;
  for (const auto& f : s.deciding)
    if (ids.find(f.id) == std::string::npos) ids += (ids.empty() ? "" : ", ") + f.id;
  return ids.empty() ? "–" : md(ids);
}

void excerpt(std::ostringstream& o, const Excerpt& e) {
  std::string body;
  const int width = static_cast<int>(std::to_string(e.first_line + static_cast<int>(e.lines.size())).size());
  for (std::size_t i = 0; i < e.lines.size(); ++i) {
    const int n = e.first_line + static_cast<int>(i);
    std::string num = std::to_string(n);
    num.insert(0, static_cast<std::size_t>(width) - num.size(), ' ');
    body += (n == e.marked ? "→ " : "  ") + num + " | " + md_code(e.lines[i]) + "\n";
  }
  const std::string fence = md_fence(body);
  o << "\n" << fence << "\n" << body << fence << "\n";
}

void finding(std::ostringstream& o, const Submission& s, const FindingView& f, std::size_t n) {
  o << "\n" << n << ". **" << md(f.category) << "** " << md(f.id) << " (" << md(f.source) << ", " << md(f.confidence)
    << " confidence): " << md(f.message);
  if (const std::string where = location(f); !where.empty()) o << " — at " << md(where);
  switch (evidence_of(s, f)) {
    case EvidenceKind::correctness:
      o << " — evidence: [correctness per shape](#" << s.anchor << "-correctness)";
      break;
    case EvidenceKind::timing: o << " — evidence: [bench against fresh](#" << s.anchor << "-timing)"; break;
    case EvidenceKind::kernels: o << " — evidence: [kernels that ran](#" << s.anchor << "-kernels)"; break;
    default: break;
  }
  o << "\n";
  if (f.excerpt) excerpt(o, *f.excerpt);
}

// The anchor and heading of a section drawn from the run document; when it
// has no rows, says why (`absent`: "No timing") and returns false.
bool run_section(std::ostringstream& o, const Submission& s, const char* anchor, const char* title, bool has_rows,
                 const char* absent) {
  o << "\n<a id=\"" << s.anchor << "-" << anchor << "\"></a>\n\n### " << title << "\n\n";
  if (!has_rows) o << absent << ": " << (s.has_run ? "the run recorded none" : "no run document") << ".\n";
  return has_rows;
}

void submission(std::ostringstream& o, const Submission& s) {
  o << "\n<a id=\"" << s.anchor << "\"></a>\n\n## " << md(s.key.empty() ? "(no key)" : s.key) << "\n\n";
  o << "- integrity: " << integrity_cell(s.integrity) << "\n";
  o << "- result: " << s.result;
  if (!s.result_reason.empty()) o << " (" << md(s.result_reason) << ")";
  if (!s.unconfirmed.empty()) o << "\n- " << md(unconfirmed_sentence(s));
  o << "\n- problem: " << md(problem_title(s.problem)) << "\n";
  o << "- source: " << md(s.path.empty() ? "(unknown)" : s.path) << "\n";
  if (!s.status.empty()) o << "- status: " << md(s.status) << "\n";
  if (s.seconds) o << "- time: " << fmt_seconds(*s.seconds) << "\n";
  if (!s.hardware.empty() || !s.device.empty())
    o << "- ran on: " << md(s.device) << (s.hardware.empty() ? "" : " (" + md(s.hardware) + ")") << "\n";
  if (!s.shapes_run.empty()) o << "- shapes run: " << md(s.shapes_run) << "\n";
  if (!s.notes.empty()) {
    o << "\n**Not available:**\n\n";
    for (const auto& n : s.notes) o << "- " << md(n) << "\n";
  }

  o << "\n### Reasons\n";
  if (s.deciding.empty() && s.reasons.empty()) {
    if (s.integrity == "clean")
      o << "\nNo finding decided against it: its run completed and nothing was confirmed.\n";
    else if (s.integrity == "not-run" || s.integrity == "unverified")
      o << "\nNo verdict on integrity: no completed run, and no static finding decides alone. It is not clean.\n";
    else
      o << "\nNo deciding findings are recorded.\n";
  } else if (s.deciding.empty()) {
    for (const auto& r : s.reasons) o << "- " << md(r) << "\n";
  } else {
    std::size_t n = 0;
    for (const auto& f : s.deciding) finding(o, s, f, ++n);
  }

  if (run_section(o, s, "correctness", "Correctness", !s.correctness.empty(), "No correctness calls")) {
    o << "| shape | size | result | seed cases right | stress cases right | never written | inputs changed | "
         "output on return | first failure |\n|---|---|---|---|---|---|---|---|---|\n";
    for (const auto& r : s.correctness)
      o << "| " << r.index << " | " << md(r.shape) << " | " << (r.passed ? "passed" : "**failed**") << " | "
        << cases_text(r.seeds_passed, r.seeds) << " | " << cases_text(r.stress_passed, r.stress) << " | "
        << (r.unwritten > 0 ? std::to_string(r.unwritten) : "–") << " | " << md(mutated_text(r)) << " | "
        << md(stream_order_text(r)) << " | " << md(r.first_failure) << " |\n";
  }

  if (run_section(o, s, "timing", "Bench against fresh", !s.timing.empty(), "No timing")) {
    o << "| shape | size | bench | fresh | fresh/bench | bench % of peak | fresh % of peak |\n"
         "|---|---|---|---|---|---|---|\n";
    for (const auto& r : s.timing) {
      const bool flagged = r.ratio && *r.ratio > s.ratio_threshold;
      o << "| " << r.index << " | " << md(r.shape) << " | " << fmt_ms(r.bench_ms) << " | " << fmt_ms(r.fresh_ms) << " | "
        << (flagged ? "**" + fmt_ratio(r.ratio) + "**" : fmt_ratio(r.ratio)) << " | " << fmt_pct(r.bench_pct) << " | "
        << fmt_pct(r.fresh_pct) << " |\n";
    }
    o << "\nMedians of the timed calls; a fresh/bench ratio above " << fmt_num(s.ratio_threshold)
      << " (bold) means the speed depends on reusing the same inputs.\n";
  }

  o << "\n<a id=\"" << s.anchor << "-kernels\"></a>\n\n### GPU time by library\n\n";
  if (s.libraries.empty()) {
    o << "Not available: " << (s.has_trace || s.trace_status == "ok" ? "the trace holds no kernel time" : "no trace")
      << ".\n";
  } else {
    double total = 0;
    for (const auto& l : s.libraries) total += l.gpu_ms;
    o << "Over " << md(s.libraries_basis) << ".\n\n| library | role | GPU time | share |\n|---|---|---|---|\n";
    for (const auto& l : s.libraries)
      o << "| " << md(l.library) << " | " << md(l.role) << " | " << fmt_ms(l.gpu_ms) << " | "
        << fmt_pct(total > 0 ? 100.0 * l.gpu_ms / total : 0.0) << " |\n";
  }
  if (const std::string t = authored_share_text(s); !t.empty())
    o << "\nOwn kernels' share of the graded calls' GPU time (copies and casts left out): " << md(t) << ".\n";
  if (const std::string t = first_calls_text(s); !t.empty())
    o << "\nFirst call of each shape (builds and JIT compiles happen there; never timed): " << md(t) << ".\n";

  o << "\n### Kernels that ran\n\n";
  if (s.kernels.empty()) {
    o << "Not available: " << (s.has_trace ? "the trace holds no kernels" : "no trace.json") << ".\n";
  } else {
    o << "| kernel | library | launched by | launches | GPU time | calls |\n|---|---|---|---|---|---|\n";
    for (const auto& k : s.kernels)
      o << "| " << md(k.name) << " | " << md(k.library) << " | " << md(k.launcher.empty() ? "?" : k.launcher) << " | "
        << k.count << " | " << fmt_ms(k.gpu_ms) << " | " << md(k.phases) << " |\n";
    if (s.kernels_hidden) o << "\nAnd " << s.kernels_hidden << " more kernels (trace.json has them all).\n";
  }

  o << "\n### Trace\n\n";
  if (s.has_chrome_trace)
    o << "[" << md(s.key + "/trace.chrome.json") << "](" << url_segment(s.key) << "/trace.chrome.json): open "
      << "ui.perfetto.dev in a browser and drop this file on it (Open trace file); it is read locally.\n";
  else
    o << "No Chrome trace for this submission.\n";

  if (!s.beside.empty()) {
    o << "\n### Other findings (did not decide)\n";
    std::size_t n = 0;
    for (const auto& f : s.beside) finding(o, s, f, ++n);
  }
  o << "\n[Back to the board](#board)\n";
}

}  // namespace

std::string render_markdown(const Batch& batch) {
  std::ostringstream o;
  const Counts c = count_verdicts(batch);
  o << "# kaudit batch report\n\n";
  o << batch.submissions.size() << " submissions";
  o << " · GPU: " << (batch.gpu.empty() ? "none (static analysis and CPU runs only)" : md(batch.gpu));
  if (!batch.kaudit_version.empty()) o << " · kaudit " << md(batch.kaudit_version);
  o << "\n\n<a id=\"board\"></a>\n\n## Board\n\n";
  o << "| clean | benchmark-aware | cheat | not run or unverified |\n|---|---|---|---|\n";
  o << "| " << c.clean << " | " << c.benchmark_aware << " | " << c.cheat << " | " << c.not_run << " |\n\n";
  o << "Results: " << c.correct << " correct, " << c.incorrect << " incorrect, " << c.error << " error, "
    << c.result_not_run << " not run.\n";
  for (const auto& n : batch.notes) o << "\n- " << md(n);
  if (!batch.notes.empty()) o << "\n";
  for (const auto& [problem, list] : by_problem(batch)) {
    o << "\n### " << md(problem_title(problem)) << "\n\n";
    o << "| # | submission | result | integrity | bench % of peak | fresh % of peak | decided by | not confirmed at run time |\n"
         "|---|---|---|---|---|---|---|---|\n";
    int rank = 0;
    for (const Submission* s : list)
      o << "| " << ++rank << " | [" << md(s->key.empty() ? "(no key)" : s->key) << "](#" << s->anchor << ") | "
        << s->result << " | " << integrity_cell(s->integrity) << " | " << fmt_pct(s->bench_pct) << " | "
        << fmt_pct(s->fresh_pct) << " | " << deciding_ids(*s) << " | "
        << (s->unconfirmed.empty() ? "–" : md(unconfirmed_text(*s))) << " |\n";
  }
  o << "\n% of peak is the geometric mean over the problem's shapes of the median time's share of the GPU's peak "
       "(compute or memory, as the problem's regime says). Ranked by fresh % of peak.\n";
  for (const auto& s : batch.submissions) submission(o, s);
  return o.str();
}

}  // namespace kaudit::report
