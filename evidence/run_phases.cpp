#include "evidence/run_phases.h"

#include "evidence/json_fields.h"

namespace kaudit::evidence {
using json = nlohmann::json;

namespace {

std::string text(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

std::optional<int> index(const json& j, const char* key) {
  const auto v = finite_number(j, key);
  if (!v || *v < -1 || *v > 1e9) return std::nullopt;
  return static_cast<int>(*v);
}

}  // namespace

RunPhase run_phase(const std::string& process, const json& step, double seconds) {
  RunPhase p;
  p.process = process;
  p.seconds = seconds;
  p.phase = text(step, "phase");
  p.shape = index(step, "shape");
  if (step.is_object() && step.contains("mode") && step["mode"].is_string()) p.mode = step["mode"].get<std::string>();
  if (step.is_object())
    for (const auto& [key, value] : step.items())
      if (key != "phase" && key != "shape" && key != "mode" && key != "process" && key != "seconds")
        p.counts[key] = value;
  return p;
}

json to_json(const RunPhase& p) {
  json doc = {{"process", p.process}, {"phase", p.phase}, {"seconds", p.seconds}};
  if (p.shape) doc["shape"] = *p.shape;
  if (p.mode) doc["mode"] = *p.mode;
  if (p.counts.is_object()) doc.update(p.counts);
  return doc;
}

json to_json(const FirstCall& c) {
  json doc = {{"phase", c.phase}, {"shape", c.shape}, {"seconds", c.seconds}};
  if (!c.build_processes.empty()) doc["build_processes"] = c.build_processes;
  if (c.lent_while_building_s) doc["lent_while_building_s"] = *c.lent_while_building_s;
  return doc;
}

json to_json(const std::vector<RunPhase>& phases) {
  json rows = json::array();
  for (const auto& p : phases) rows.push_back(to_json(p));
  return rows;
}

json to_json(const std::vector<FirstCall>& calls) {
  json rows = json::array();
  for (const auto& c : calls) rows.push_back(to_json(c));
  return rows;
}

std::vector<RunPhase> phases_from_json(const json& rows) {
  std::vector<RunPhase> out;
  if (!rows.is_array()) return out;
  for (const auto& row : rows)
    if (row.is_object()) out.push_back(run_phase(text(row, "process"), row, finite_number(row, "seconds").value_or(0)));
  return out;
}

std::vector<FirstCall> first_calls_from_json(const json& rows) {
  std::vector<FirstCall> out;
  if (!rows.is_array()) return out;
  for (const auto& row : rows) {
    if (!row.is_object()) continue;
    FirstCall c;
    c.phase = text(row, "phase");
    c.shape = index(row, "shape").value_or(-1);
    c.seconds = finite_number(row, "seconds").value_or(0);
    if (row.contains("build_processes") && row["build_processes"].is_array())
      for (const auto& b : row["build_processes"])
        if (b.is_string()) c.build_processes.push_back(b.get<std::string>());
    c.lent_while_building_s = finite_number(row, "lent_while_building_s");
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace kaudit::evidence
