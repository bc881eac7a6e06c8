#include "evidence/run_phases.h"

#include "evidence/json_fields.h"

namespace kaudit::evidence {
using json = nlohmann::json;

RunPhase run_phase(const std::string& process, const json& step, double seconds) {
  RunPhase p;
  p.process = process;
  p.seconds = seconds;
  p.phase = text_field(step, "phase");
  p.shape = index_field(step, "shape", -1);
  if (const std::string mode = text_field(step, "mode"); !mode.empty()) p.mode = mode;
  if (step.is_object())
    for (const auto& [key, value] : step.items())
      if (key != "phase" && key != "shape" && key != "mode" && key != "process" && key != "seconds" &&
          key != "began_s")
        p.counts[key] = value;
  return p;
}

json to_json(const RunPhase& p) {
  json doc = {{"process", p.process}, {"phase", p.phase}, {"seconds", p.seconds}};
  if (p.began_s) doc["began_s"] = *p.began_s;
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

json to_json(const std::vector<RunPhase>& phases) { return record_rows(phases); }

json to_json(const std::vector<FirstCall>& calls) { return record_rows(calls); }

std::vector<RunPhase> phases_from_json(const json& rows) {
  return read_rows<RunPhase>(rows, [](const json& row, int) {
    RunPhase p = run_phase(text_field(row, "process"), row, finite_number(row, "seconds").value_or(0));
    p.began_s = finite_number(row, "began_s");
    return p;
  });
}

std::vector<FirstCall> first_calls_from_json(const json& rows) {
  return read_rows<FirstCall>(rows, [](const json& row, int) {
    FirstCall c;
    c.phase = text_field(row, "phase");
    c.shape = index_field(row, "shape", -1).value_or(-1);
    c.seconds = finite_number(row, "seconds").value_or(0);
    if (row.contains("build_processes") && row["build_processes"].is_array())
      for (const auto& b : row["build_processes"])
        if (b.is_string()) c.build_processes.push_back(b.get<std::string>());
    c.lent_while_building_s = finite_number(row, "lent_while_building_s");
    return c;
  });
}

}  // namespace kaudit::evidence
