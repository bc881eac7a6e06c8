#include "evidence/run_timing.h"

#include "evidence/json_fields.h"

#include <algorithm>
#include <cmath>

namespace kaudit::evidence {
using json = nlohmann::json;

namespace {

constexpr const char* kThroughputKeys[] = {"tflops", "gb_per_s", "percent_of_compute_peak", "percent_of_memory_peak",
                                           "percent_of_peak"};

json stats_json(const TimingStats& s) {
  return {{"n", s.n},           {"median_ms", s.median_ms}, {"mean_ms", s.mean_ms}, {"min_ms", s.min_ms},
          {"max_ms", s.max_ms}, {"p10_ms", s.p10_ms},       {"p90_ms", s.p90_ms},   {"stdev_ms", s.stdev_ms}};
}

json mode_json(const ModeTiming& m, const std::string& mode) {
  json doc = m.stats ? stats_json(*m.stats) : json::object();
  doc["samples"] = m.samples;
  doc["samples_passed"] = m.samples_passed;
  doc["output_checks"] = m.output_checks;
  if (m.output_types.is_array() && !m.output_types.empty()) doc["output_types"] = m.output_types;
  if (mode == "rewrite" || m.version_counters_moved) doc["version_counters_moved"] = m.version_counters_moved.value_or(0);
  if (m.stats && m.throughput.is_object()) doc.update(m.throughput);
  if (!m.runner_clock.is_null()) doc["runner_clock"] = m.runner_clock;
  return doc;
}

ModeTiming mode_from_json(const json& doc) {
  ModeTiming m;
  if (!doc.is_object()) return m;
  if (const auto median = finite_number(doc, "median_ms")) {
    TimingStats s;
    s.median_ms = *median;
    const auto n = finite_number(doc, "n");
    s.n = n && *n >= 0 ? static_cast<std::size_t>(*n) : 0;
    for (auto [key, field] : {std::pair{"mean_ms", &TimingStats::mean_ms}, std::pair{"min_ms", &TimingStats::min_ms},
                              std::pair{"max_ms", &TimingStats::max_ms}, std::pair{"p10_ms", &TimingStats::p10_ms},
                              std::pair{"p90_ms", &TimingStats::p90_ms}, std::pair{"stdev_ms", &TimingStats::stdev_ms}})
      s.*field = finite_number(doc, key).value_or(0);
    m.stats = s;
  }
  if (doc.contains("samples") && doc["samples"].is_array()) m.samples = doc["samples"];
  m.samples_passed = bool_field(doc, "samples_passed").value_or(m.samples_passed);
  if (doc.contains("output_checks") && doc["output_checks"].is_object()) m.output_checks = doc["output_checks"];
  if (doc.contains("output_types") && doc["output_types"].is_array()) m.output_types = doc["output_types"];
  m.version_counters_moved = index_field(doc, "version_counters_moved");
  for (const char* key : kThroughputKeys)
    if (doc.contains(key) && (doc[key].is_number() || doc[key].is_null())) m.throughput[key] = doc[key];
  if (doc.contains("runner_clock") && doc["runner_clock"].is_object()) m.runner_clock = doc["runner_clock"];
  return m;
}

}  // namespace

std::optional<TimingStats> timing_stats(std::vector<double> v) {
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  auto q = [&](double f) {
    const double pos = f * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const auto hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
  };
  double sum = 0;
  for (double x : v) sum += x;
  const double mean = sum / static_cast<double>(v.size());
  double var = 0;
  for (double x : v) var += (x - mean) * (x - mean);
  TimingStats s;
  s.n = v.size();
  s.median_ms = q(0.5), s.mean_ms = mean, s.min_ms = v.front(), s.max_ms = v.back();
  s.p10_ms = q(0.1), s.p90_ms = q(0.9);
  s.stdev_ms = v.size() > 1 ? std::sqrt(var / static_cast<double>(v.size() - 1)) : 0.0;
  return s;
}

std::optional<double> ModeTiming::percent_of_peak() const { return finite_number(throughput, "percent_of_peak"); }

void ShapeTiming::set_fresh_over_bench() {
  const auto bench = modes.find("bench"), fresh = modes.find("fresh");
  if (bench == modes.end() || fresh == modes.end()) return;
  const auto b = bench->second.median_ms(), f = fresh->second.median_ms();
  if (b && f && *b > 0) fresh_over_bench = *f / *b;
}

json to_json(const ShapeTiming& t) {
  json modes = json::object();
  for (const auto& [name, m] : t.modes) modes[name] = mode_json(m, name);
  json doc = {{"shape_index", t.shape_index}, {"shape", t.shape}, {"modes", modes}, {"work", t.work}};
  if (t.fresh_over_bench) doc["fresh_over_bench"] = *t.fresh_over_bench;
  return doc;
}

json to_json(const std::vector<ShapeTiming>& timing) { return record_rows(timing); }

ShapeTiming shape_timing_from_json(const json& doc, int position) {
  ShapeTiming t;
  t.shape_index = position;
  if (!doc.is_object()) return t;
  t.shape_index = index_field(doc, "shape_index").value_or(position);
  if (doc.contains("shape")) t.shape = doc["shape"];
  if (doc.contains("modes") && doc["modes"].is_object())
    for (const auto& [name, m] : doc["modes"].items()) t.modes[name] = mode_from_json(m);
  if (doc.contains("work") && doc["work"].is_object()) t.work = doc["work"];
  t.fresh_over_bench = finite_number(doc, "fresh_over_bench");
  if (!t.fresh_over_bench) t.set_fresh_over_bench();
  return t;
}

std::vector<ShapeTiming> timing_from_json(const json& rows) {
  return read_rows<ShapeTiming>(rows, shape_timing_from_json);
}

}  // namespace kaudit::evidence
