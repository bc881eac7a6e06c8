#include "evidence/run_settings.h"

#include "evidence/json_fields.h"

namespace kaudit::evidence {
using json = nlohmann::json;

namespace {

ShapeSelection shapes_from_json(const json& doc) {
  ShapeSelection s;
  if (!doc.is_object()) return s;
  s.selection = text_field(doc, "selection", s.selection);
  s.graded = index_field(doc, "graded");
  if (doc.contains("run") && doc["run"].is_array()) s.run = list_field<int>(doc, "run", &json::is_number_integer);
  return s;
}

}  // namespace

json to_json(const ShapeSelection& s) {
  json doc = {{"selection", s.selection}};
  if (s.graded) doc["graded"] = *s.graded;
  if (s.run) doc["run"] = *s.run;
  return doc;
}

json to_json(const RunSettings& s) {
  return {{"seeds", s.seeds},
          {"stress_scales", s.stress_scales},
          {"warmup", s.warmup},
          {"trials", s.trials},
          {"samples", s.samples},
          {"tolerance", s.tolerance},
          {"setup_timeout_s", s.setup_timeout_s},
          {"phase_timeout_s", s.phase_timeout_s},
          {"call_timeout_s", s.call_timeout_s},
          {"fresh_over_bench_threshold", s.fresh_over_bench_threshold},
          {"stress_mismatch_fraction", s.stress_mismatch_fraction},
          {"near_miss_fraction", s.near_miss_fraction},
          {"near_miss_elements", s.near_miss_elements},
          {"off_grid_shapes", s.off_grid_shapes},
          {"shapes", to_json(s.shapes)},
          {"distributions", s.distributions},
          {"trace", s.trace},
          {"trace_reference", s.trace_reference}};
}

RunSettings run_settings_from_json(const json& doc) {
  RunSettings s;
  if (!doc.is_object()) return s;
  s.seeds = index_field(doc, "seeds").value_or(0);
  s.stress_scales = list_field<double>(doc, "stress_scales", &json::is_number);
  s.warmup = index_field(doc, "warmup").value_or(0);
  s.trials = index_field(doc, "trials").value_or(0);
  s.samples = index_field(doc, "samples").value_or(0);
  if (doc.contains("tolerance")) s.tolerance = doc["tolerance"];
  s.setup_timeout_s = finite_number(doc, "setup_timeout_s").value_or(0);
  s.phase_timeout_s = finite_number(doc, "phase_timeout_s").value_or(0);
  s.call_timeout_s = finite_number(doc, "call_timeout_s").value_or(0);
  s.fresh_over_bench_threshold = finite_number(doc, "fresh_over_bench_threshold").value_or(0);
  s.stress_mismatch_fraction = finite_number(doc, "stress_mismatch_fraction").value_or(0);
  s.near_miss_fraction = finite_number(doc, "near_miss_fraction").value_or(0);
  s.near_miss_elements = static_cast<std::uint64_t>(whole_number(doc, "near_miss_elements").value_or(0));
  s.off_grid_shapes = index_field(doc, "off_grid_shapes").value_or(0);
  s.shapes = shapes_from_json(doc.value("shapes", json()));
  s.distributions = list_field<std::string>(doc, "distributions", &json::is_string);
  s.trace = bool_field(doc, "trace").value_or(false);
  s.trace_reference = bool_field(doc, "trace_reference").value_or(false);
  return s;
}

}  // namespace kaudit::evidence
