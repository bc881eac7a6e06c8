// report.html: one self-contained page. Inline CSS and SVG only; no script,
// and a Content-Security-Policy that forbids every fetch, so that a string
// that slipped past escaping still could not load or run anything.
#include "report/charts.h"
#include "report/html_style.h"
#include "report/report.h"
#include "report/text.h"
#include "common/utf8.h"

#include <sstream>

namespace kaudit::report {
namespace {

std::string problem_title(const std::string& p) { return p.empty() ? "(no problem)" : p; }

// Classes come from fixed sets (batch.cpp normalises result and integrity),
// never from a submission.
std::string badge(const std::string& value) {
  return "<span class=\"badge " + html(value) + "\">" + html(value) + "</span>";
}

std::string category_class(const std::string& c) {
  for (const char* k : {"cheat", "benchmark-aware", "suspicious", "info"})
    if (c == k) return c;
  return "unknown";
}

std::string location(const FindingView& f) {
  std::string where = f.file;
  if (f.line > 0) where += ":" + std::to_string(f.line);
  if (f.column > 0) where += ":" + std::to_string(f.column);
  if (!f.symbol.empty()) where += where.empty() ? f.symbol : "  ·  " + f.symbol;
  return where;
}

std::string evidence_link(const Submission& s, const FindingView& f, const std::string& card) {
  switch (evidence_of(s, f)) {
    case EvidenceKind::source:
      return "<a href=\"#" + card + "\">source line " + std::to_string(f.line) + "</a>";
    case EvidenceKind::correctness: return "<a href=\"#" + s.anchor + "-correctness\">correctness per shape</a>";
    case EvidenceKind::timing: return "<a href=\"#" + s.anchor + "-timing\">bench against fresh</a>";
    case EvidenceKind::kernels: return "<a href=\"#" + s.anchor + "-kernels\">kernels that ran</a>";
    case EvidenceKind::none: break;
  }
  return "<a href=\"#" + card + "\">details</a>";
}

void excerpt(std::ostringstream& o, const Excerpt& e) {
  o << "<table class=\"code\">";
  for (std::size_t i = 0; i < e.lines.size(); ++i) {
    const int n = e.first_line + static_cast<int>(i);
    o << "<tr" << (n == e.marked ? " class=\"hit\"" : "") << "><td class=\"ln\">" << n << "</td><td>"
      << html(e.lines[i]) << "</td></tr>";
  }
  o << "</table>";
}

void finding_card(std::ostringstream& o, const Submission& s, const FindingView& f, const std::string& id) {
  o << "<div class=\"finding " << category_class(f.category) << "\" id=\"" << id << "\"><div class=\"head\">"
    << badge(category_class(f.category)) << "<span class=\"id\">" << html(f.id) << "</span><span class=\"sub\">"
    << html(f.source) << " · " << html(f.confidence) << " confidence</span></div>";
  o << "<div class=\"msg\">" << html(f.message) << "</div>";
  if (const std::string where = location(f); !where.empty()) o << "<div class=\"where\">" << html(where) << "</div>";
  if (f.excerpt) {
    excerpt(o, *f.excerpt);
  } else {
    const EvidenceKind k = evidence_of(s, f);
    if (k == EvidenceKind::correctness || k == EvidenceKind::timing || k == EvidenceKind::kernels)
      o << "<div class=\"note\">Evidence: " << evidence_link(s, f, id) << ".</div>";
    else if (f.line > 0)
      o << "<div class=\"note\">The source line is not available in this batch.</div>";
  }
  o << "</div>";
}

void correctness(std::ostringstream& o, const Submission& s) {
  o << "<h3 id=\"" << s.anchor << "-correctness\">Correctness, per shape</h3>";
  if (s.correctness.empty()) {
    o << "<p class=\"note\">No correctness calls: " << (s.has_run ? "the run recorded none" : "no run document")
      << ".</p>";
    return;
  }
  o << "<table><tr><th>#</th><th>shape</th><th>result</th><th class=\"num\">seed cases right</th>"
       "<th class=\"num\">stress cases right</th><th class=\"num\">never written</th><th>inputs changed</th>"
       "<th>output on return</th><th>first failure</th></tr>";
  for (const auto& r : s.correctness) {
    const bool flagged = !r.passed || r.unwritten > 0 || !r.mutated_cases.empty() || r.stream_differing.value_or(0) > 0;
    o << "<tr" << (flagged ? " class=\"bad\"" : "") << "><td>" << r.index << "</td><td class=\"ids\">"
      << html(r.shape) << "</td><td>" << (r.passed ? "passed" : "failed") << "</td><td class=\"num\">"
      << html(cases_text(r.seeds_passed, r.seeds)) << "</td><td class=\"num\">"
      << html(cases_text(r.stress_passed, r.stress)) << "</td><td class=\"num\">"
      << (r.unwritten > 0 ? std::to_string(r.unwritten) : "–") << "</td><td>" << html(mutated_text(r)) << "</td><td>"
      << html(stream_order_text(r)) << "</td><td class=\"ids\">" << html(r.first_failure) << "</td></tr>";
  }
  o << "</table><p class=\"note\">Never written: wrong elements still holding the bytes the harness fills freed "
       "memory with. Output on return: each returned tensor copied on the caller's stream right after the call, "
       "against the same tensor after a synchronize.</p>";
}

void timing(std::ostringstream& o, const Submission& s) {
  o << "<h3 id=\"" << s.anchor << "-timing\">Bench against fresh, per shape</h3>";
  if (s.timing.empty()) {
    o << "<p class=\"note\">No timing: " << (s.has_run ? "the run recorded none" : "no run document") << ".</p>";
    return;
  }
  o << "<div class=\"timing\"><div>" << timing_plot_svg(s.timing, s.ratio_threshold)
    << "<div class=\"legend\"><span><span class=\"sw dot\" style=\"background:#0969da\"></span>bench</span><span>"
       "<span class=\"sw\" style=\"background:#e8710a\"></span>fresh</span><span>median per shape, log scale; "
       "the figure above each pair is fresh/bench</span></div></div><div class=\"key\"><p><b>bench</b>: the same input "
       "tensors every call, as the benchmark does. <b>fresh</b>: new allocations with new values every call.</p><p>A "
       "fresh/bench ratio above "
    << html(fmt_num(s.ratio_threshold))
    << " (red) means the speed depends on seeing the same inputs again: a cache, a graph keyed on addresses, or "
       "skipped work.</p></div></div>";
  o << "<table><tr><th>#</th><th>shape</th><th class=\"num\">bench</th><th class=\"num\">fresh</th>"
       "<th class=\"num\">fresh/bench</th><th class=\"num\">bench % of peak</th><th class=\"num\">fresh % of peak</th>"
       "<th class=\"num\">rewrite</th></tr>";
  for (const auto& r : s.timing) {
    const bool flagged = r.ratio && *r.ratio > s.ratio_threshold;
    o << "<tr" << (flagged ? " class=\"bad\"" : "") << "><td>" << r.index << "</td><td class=\"ids\">" << html(r.shape)
      << "</td><td class=\"num\">" << html(fmt_ms(r.bench_ms)) << "</td><td class=\"num\">" << html(fmt_ms(r.fresh_ms))
      << "</td><td class=\"num\">" << html(fmt_ratio(r.ratio)) << "</td><td class=\"num\">" << html(fmt_pct(r.bench_pct))
      << "</td><td class=\"num\">" << html(fmt_pct(r.fresh_pct)) << "</td><td class=\"num\">"
      << html(fmt_ms(r.rewrite_ms)) << "</td></tr>";
  }
  o << "</table>";
}

void libraries(std::ostringstream& o, const Submission& s) {
  o << "<h3 id=\"" << s.anchor << "-kernels\">GPU time by library</h3>";
  if (s.libraries.empty()) {
    o << "<p class=\"note\">Not available: "
      << (s.has_trace || s.trace_status == "ok" ? "the trace holds no kernel time" : "no trace of this submission")
      << ".</p>";
  } else {
    double total = 0;
    for (const auto& l : s.libraries) total += l.gpu_ms;
    o << library_bar_svg(s.libraries) << "<div class=\"legend\">";
    for (std::size_t i = 0; i < s.libraries.size(); ++i) {
      const auto& l = s.libraries[i];
      o << "<span><span class=\"sw\" style=\"background:" << library_colour(s.libraries, i) << "\"></span><b>"
        << html(l.library) << "</b> (" << html(l.role) << ") " << html(fmt_ms(l.gpu_ms)) << " · "
        << html(fmt_pct(total > 0 ? 100.0 * l.gpu_ms / total : 0.0)) << "</span>";
    }
    o << "</div><p class=\"note\">Over " << html(s.libraries_basis)
      << ". Green: the submission's own kernels; warm colours: libraries.</p>";
  }
  if (const std::string t = authored_share_text(s); !t.empty())
    o << "<p>Own kernels' share of the graded calls' GPU time (copies and casts left out): " << html(t) << ".</p>";
  if (const std::string t = first_calls_text(s); !t.empty())
    o << "<p class=\"note\">First call of each shape (builds and JIT compiles happen there; never timed): "
      << html(t) << ".</p>";
  o << "<h3>Kernels that ran</h3>";
  if (s.kernels.empty()) {
    o << "<p class=\"note\">Not available: " << (s.has_trace ? "the trace holds no kernels" : "no trace.json")
      << ".</p>";
    return;
  }
  o << "<table><tr><th>kernel</th><th>library</th><th>launched by</th><th class=\"num\">launches</th>"
       "<th class=\"num\">GPU time</th><th>calls</th></tr>";
  for (const auto& k : s.kernels) {
    const std::string role_class = k.role == "own" ? "own" : k.role == "library" ? "library" : "unknown";
    o << "<tr><td class=\"ids\" title=\"" << html(k.name) << "\">"
      << html(common::shorten_utf8(k.name, 110, "…")) << "</td><td><span class=\"lib " << role_class
      << "\">" << html(k.library) << "</span></td><td class=\"ids\">" << html(k.launcher.empty() ? "?" : k.launcher)
      << "</td><td class=\"num\">" << k.count << "</td><td class=\"num\">" << html(fmt_ms(k.gpu_ms)) << "</td><td>"
      << html(k.phases) << "</td></tr>";
  }
  o << "</table>";
  if (s.kernels_hidden)
    o << "<p class=\"note\">And " << s.kernels_hidden << " more kernels; trace.json has them all.</p>";
}

void trace_link(std::ostringstream& o, const Submission& s) {
  o << "<h3>Trace</h3>";
  if (!s.has_chrome_trace) {
    o << "<p class=\"note\">No Chrome trace for this submission.</p>";
    return;
  }
  const std::string href = url_segment(s.key) + "/trace.chrome.json";
  o << "<div class=\"perfetto\"><a href=\"" << html(href) << "\" download>" << html(s.key)
    << "/trace.chrome.json</a> — to see every kernel on its stream and call, open ui.perfetto.dev in a browser, "
       "choose <i>Open trace file</i> and pick this file (it lies next to this report). Perfetto reads it locally; "
       "this page fetches nothing.</div>";
}

void page(std::ostringstream& o, const Submission& s) {
  o << "<section class=\"page\" id=\"" << s.anchor << "\">";
  o << "<h2>" << html(s.key.empty() ? "(no key)" : s.key) << "</h2>";
  o << "<div class=\"verdict " << s.integrity << "\"><div class=\"big\">" << html(s.integrity) << "</div><div>";
  if (s.integrity == "cheat" || s.integrity == "benchmark-aware")
    o << s.deciding.size() << (s.deciding.size() == 1 ? " finding decides" : " findings decide") << " it (below).";
  else if (s.integrity == "clean")
    o << "Its run completed and no finding was confirmed against it.";
  else
    o << "No verdict on integrity: no completed run, and no static finding decides alone. Not clean.";
  o << "<br>Result: <span class=\"res " << s.result << "\">" << html(s.result) << "</span>";
  if (!s.result_reason.empty()) o << " — " << html(s.result_reason);
  if (!s.unconfirmed.empty()) o << "<br>" << html(unconfirmed_sentence(s));
  o << "</div></div>";
  o << "<dl class=\"facts\"><dt>problem</dt><dd>" << html(problem_title(s.problem)) << "</dd><dt>source</dt><dd>"
    << html(s.path.empty() ? "(unknown)" : s.path) << "</dd>";
  if (!s.status.empty()) o << "<dt>audit status</dt><dd>" << html(s.status) << "</dd>";
  if (s.seconds) o << "<dt>time</dt><dd>" << html(fmt_seconds(*s.seconds)) << "</dd>";
  if (!s.device.empty() || !s.hardware.empty())
    o << "<dt>ran on</dt><dd>" << html(s.device) << (s.hardware.empty() ? "" : " (" + html(s.hardware) + ")") << "</dd>";
  if (!s.shapes_run.empty()) o << "<dt>shapes run</dt><dd>" << html(s.shapes_run) << "</dd>";
  o << "<dt>evidence</dt><dd>" << (s.has_verdict ? "verdict " : "") << (s.has_analysis ? "analysis " : "")
    << (s.has_run ? "run " : "") << (s.has_trace ? "trace" : "") << "</dd></dl>";
  if (!s.notes.empty()) {
    o << "<div class=\"missing\"><b>Not available in this batch</b><ul>";
    for (const auto& n : s.notes) o << "<li>" << html(n) << "</li>";
    o << "</ul></div>";
  }

  o << "<h3>Reasons</h3>";
  if (!s.deciding.empty()) {
    o << "<ol class=\"reasons\">";
    for (std::size_t i = 0; i < s.deciding.size(); ++i) {
      const auto& f = s.deciding[i];
      const std::string card = s.anchor + "-d" + std::to_string(i + 1);
      o << "<li>" << badge(category_class(f.category)) << " <a class=\"id\" href=\"#" << card << "\">" << html(f.id)
        << "</a> " << html(f.message) << " <span class=\"go\">→ " << evidence_link(s, f, card) << "</span></li>";
    }
    o << "</ol>";
    for (std::size_t i = 0; i < s.deciding.size(); ++i)
      finding_card(o, s, s.deciding[i], s.anchor + "-d" + std::to_string(i + 1));
  } else if (!s.reasons.empty()) {
    o << "<ol class=\"reasons\">";
    for (const auto& r : s.reasons) o << "<li>" << html(r) << "</li>";
    o << "</ol>";
  } else {
    o << "<p class=\"note\">No finding decided the verdict.</p>";
  }

  correctness(o, s);
  timing(o, s);
  libraries(o, s);
  trace_link(o, s);

  if (!s.beside.empty()) {
    o << "<details" << (s.beside.size() <= 4 ? " open" : "") << "><summary>Other findings, which did not decide ("
      << s.beside.size() << ")</summary>";
    for (std::size_t i = 0; i < s.beside.size(); ++i)
      finding_card(o, s, s.beside[i], s.anchor + "-b" + std::to_string(i + 1));
    o << "</details>";
  }
  o << "<div class=\"back\"><a href=\"#board\">↑ back to the board</a></div></section>";
}

void board(std::ostringstream& o, const Batch& batch) {
  const Counts c = count_verdicts(batch);
  o << "<section class=\"page\" id=\"board\"><h2>Board</h2><div class=\"tiles\">";
  auto tile = [&](const char* cls, int n, const char* label) {
    o << "<div class=\"tile " << cls << "\"><div class=\"n\">" << n << "</div><div class=\"l\">" << label
      << "</div></div>";
  };
  tile("clean", c.clean, "clean");
  tile("benchmark-aware", c.benchmark_aware, "benchmark-aware");
  tile("cheat", c.cheat, "cheat");
  tile("not-run", c.not_run, "not run / unverified");
  o << "</div><div class=\"sub\">Results: " << c.correct << " correct · " << c.incorrect << " incorrect · " << c.error
    << " error · " << c.result_not_run << " not run</div>";
  if (!batch.notes.empty()) {
    o << "<div class=\"missing\"><ul>";
    for (const auto& n : batch.notes) o << "<li>" << html(n) << "</li>";
    o << "</ul></div>";
  }
  for (const auto& [problem, list] : by_problem(batch)) {
    o << "<h3 class=\"problem\">" << html(problem_title(problem)) << " <span class=\"sub\">" << list.size()
      << (list.size() == 1 ? " submission" : " submissions") << "</span></h3>";
    o << "<table class=\"board\"><tr><th>#</th><th>submission</th><th>result</th><th>integrity</th><th class=\"num\">bench % peak</th>"
         "<th class=\"num\">fresh % peak</th><th>decided by</th><th>not confirmed at run time</th>"
         "<th class=\"num\">time</th></tr>";
    int rank = 0;
    for (const Submission* s : list) {
      std::string ids;
      for (const auto& f : s->deciding)
        if ((", " + ids + ",").find(", " + f.id + ",") == std::string::npos) ids += (ids.empty() ? "" : ", ") + f.id;
      o << "<tr class=\"row-" << s->integrity << "\"><td class=\"rank\">" << ++rank << "</td><td class=\"key\"><a href=\"#"
        << s->anchor << "\">" << html(s->key.empty() ? "(no key)" : s->key) << "</a></td><td><span class=\"res "
        << s->result << "\">" << html(s->result) << "</span></td><td>" << badge(s->integrity)
        << "</td><td class=\"num\">" << html(fmt_pct(s->bench_pct)) << "</td><td class=\"num\">"
        << html(fmt_pct(s->fresh_pct)) << "</td><td class=\"ids\">" << html(ids.empty() ? "–" : ids)
        << "</td><td class=\"ids lead\">" << html(s->unconfirmed.empty() ? "–" : unconfirmed_text(*s))
        << "</td><td class=\"num\">" << html(s->seconds ? fmt_seconds(*s->seconds) : "–") << "</td></tr>";
    }
    o << "</table>";
  }
  o << "<p class=\"note\">% of peak: the geometric mean over the problem's shapes of the median time's share of the "
       "GPU's peak (compute or memory, as the problem's regime says). Bench reuses the same inputs every call, as the "
       "benchmark does; fresh gives new inputs every call. Ranked by fresh % of peak.</p></section>";
}

}  // namespace

std::string render_html(const Batch& batch) {
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
       "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
       "img-src data:; form-action 'none'; base-uri 'none'\">"
       "<meta name=\"referrer\" content=\"no-referrer\">"
       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
       "<title>kaudit batch report</title><style>"
    << kReportCss << "</style></head><body>";
  o << "<header class=\"top\"><h1>kaudit · batch report</h1><div class=\"meta\">" << batch.submissions.size()
    << " submissions · GPU: " << html(batch.gpu.empty() ? "none (static analysis and CPU runs only)" : batch.gpu);
  if (!batch.kaudit_version.empty()) o << " · kaudit " << html(batch.kaudit_version);
  o << "</div></header><main>";
  board(o, batch);
  for (const auto& s : batch.submissions) page(o, s);
  o << "</main></body></html>\n";
  return o.str();
}

}  // namespace kaudit::report
