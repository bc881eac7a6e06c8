#include "evidence/run_trace.h"

#include "evidence/json_fields.h"

namespace kaudit::evidence {
using json = nlohmann::json;

json to_json(const TraceGroup& g) {
  json doc = {{"phase", g.phase},
              {"shape", g.shape},
              {"mode", g.mode},
              {"calls", g.calls},
              {"median_kernels", g.median_kernels},
              {"median_gpu_ms", g.median_gpu_ms},
              {"median_own_share", g.median_own_share},
              {"calls_without_gpu_work", g.calls_without_gpu_work},
              {"late_kernels", g.late_kernels},
              {"graph_launches", g.graph_launches},
              {"timer_reads", g.timer_reads},
              {"library_gpu_ms", g.library_gpu_ms}};
  if (g.median_busy_ms) doc["median_busy_ms"] = *g.median_busy_ms;
  if (g.median_measured_ms) doc["median_measured_ms"] = *g.median_measured_ms;
  if (g.calls_outlasting_timing) doc["calls_outlasting_timing"] = *g.calls_outlasting_timing;
  return doc;
}

json to_json(const AuthoredShare& s) {
  return {{"shape", s.shape},
          {"mode", s.mode},
          {"own_ms", s.own_ms},
          {"library_ms", s.library_ms},
          {"glue_ms", s.glue_ms},
          {"reference_glue_ms_per_call", s.reference_glue_ms_per_call ? json(*s.reference_glue_ms_per_call) : json()},
          {"library_counted_ms", s.library_counted_ms},
          {"share", s.share}};
}

json to_json(const ReferenceGlueShape& s) {
  return {{"shape", s.shape},
          {"calls", s.calls},
          {"glue_ms_per_call", s.glue_ms_per_call},
          {"glue_kernels", s.glue_kernels},
          {"banned_ms_per_call", s.banned_ms_per_call},
          {"counted", s.counted}};
}

json to_json(const ReferenceGlue& g) {
  json doc = {{"status", g.status}};
  if (!g.reason.empty()) doc["reason"] = g.reason;
  if (g.status == "ok") doc["shapes"] = record_rows(g.shapes);
  return doc;
}

json to_json(const std::vector<TraceGroup>& groups) { return record_rows(groups); }

json to_json(const std::vector<AuthoredShare>& shares) { return record_rows(shares); }

std::vector<TraceGroup> trace_groups_from_json(const json& rows) {
  return read_rows<TraceGroup>(rows, [](const json& row, int) {
    TraceGroup g;
    g.phase = text_field(row, "phase");
    g.shape = text_field(row, "shape");
    g.mode = text_field(row, "mode");
    g.calls = index_field(row, "calls").value_or(0);
    g.median_kernels = finite_number(row, "median_kernels").value_or(0);
    g.median_gpu_ms = finite_number(row, "median_gpu_ms").value_or(0);
    g.median_own_share = finite_number(row, "median_own_share").value_or(0);
    g.calls_without_gpu_work = index_field(row, "calls_without_gpu_work").value_or(0);
    g.late_kernels = index_field(row, "late_kernels").value_or(0);
    g.graph_launches = index_field(row, "graph_launches").value_or(0);
    g.timer_reads = index_field(row, "timer_reads").value_or(0);
    if (row.contains("library_gpu_ms") && row["library_gpu_ms"].is_object())
      for (const auto& [library, ms] : row["library_gpu_ms"].items())
        if (const auto v = finite_number(row["library_gpu_ms"], library.c_str())) g.library_gpu_ms[library] = *v;
    g.median_busy_ms = finite_number(row, "median_busy_ms");
    g.median_measured_ms = finite_number(row, "median_measured_ms");
    g.calls_outlasting_timing = index_field(row, "calls_outlasting_timing");
    return g;
  });
}

std::vector<AuthoredShare> authored_shares_from_json(const json& rows) {
  json with_share = json::array();  // a row without its share says nothing
  if (rows.is_array())
    for (const auto& row : rows)
      if (finite_number(row, "share")) with_share.push_back(row);
  return read_rows<AuthoredShare>(with_share, [](const json& row, int) {
    AuthoredShare s;
    s.shape = text_field(row, "shape");
    s.mode = text_field(row, "mode", "bench");
    s.own_ms = finite_number(row, "own_ms").value_or(0);
    s.library_ms = finite_number(row, "library_ms").value_or(0);
    s.glue_ms = finite_number(row, "glue_ms").value_or(0);
    s.reference_glue_ms_per_call = finite_number(row, "reference_glue_ms_per_call");
    // Written before the reference's glue was counted: all of the library time counts.
    s.library_counted_ms = finite_number(row, "library_counted_ms").value_or(s.library_ms);
    s.share = finite_number(row, "share").value_or(1);
    return s;
  });
}

ReferenceGlue reference_glue_from_json(const json& doc) {
  ReferenceGlue g;
  g.status = text_field(doc, "status", "unavailable");
  g.reason = text_field(doc, "reason");
  if (doc.is_object() && doc.contains("shapes"))
    g.shapes = read_rows<ReferenceGlueShape>(doc["shapes"], [](const json& row, int) {
      ReferenceGlueShape s;
      s.shape = text_field(row, "shape");
      s.calls = index_field(row, "calls").value_or(0);
      s.glue_ms_per_call = finite_number(row, "glue_ms_per_call").value_or(0);
      s.banned_ms_per_call = finite_number(row, "banned_ms_per_call").value_or(0);
      s.glue_kernels = index_field(row, "glue_kernels").value_or(0);
      s.counted = bool_field(row, "counted").value_or(false);
      return s;
    });
  return g;
}

int TraceRecord::calls() const {
  int n = 0;
  if (groups)
    for (const auto& g : *groups) n += g.calls;
  return n;
}

json to_json(const TraceRecord& t) {
  json doc = {{"status", t.status}};
  if (!t.reason.empty()) doc["reason"] = t.reason;
  if (t.subscribed) doc["subscribed"] = *t.subscribed;
  if (t.complete) doc["complete"] = *t.complete;
  if (t.subscribed) doc["notes"] = t.notes;
  if (!t.files.empty()) doc["files"] = t.files;
  if (!t.export_error.empty()) doc["export_error"] = t.export_error;
  if (t.reference_glue) doc["reference_glue"] = to_json(*t.reference_glue);
  if (t.authored_share) doc["authored_share"] = to_json(*t.authored_share);
  if (t.groups) {
    doc["groups"] = to_json(*t.groups);
    doc["outside_calls"] =
        t.outside_calls ? json{{"kernels", t.outside_calls->kernels}, {"gpu_ms", t.outside_calls->gpu_ms}} : json();
  }
  return doc;
}

TraceRecord trace_record_from_json(const json& doc) {
  TraceRecord t;
  if (!doc.is_object()) return t;
  t.status = text_field(doc, "status", "unavailable");
  t.reason = text_field(doc, "reason");
  t.subscribed = bool_field(doc, "subscribed");
  t.complete = bool_field(doc, "complete");
  t.notes = list_field<std::string>(doc, "notes", &json::is_string);
  t.files = list_field<std::string>(doc, "files", &json::is_string);
  t.export_error = text_field(doc, "export_error");
  if (doc.contains("reference_glue")) t.reference_glue = reference_glue_from_json(doc["reference_glue"]);
  if (doc.contains("authored_share")) t.authored_share = authored_shares_from_json(doc["authored_share"]);
  if (doc.contains("groups")) {
    t.groups = trace_groups_from_json(doc["groups"]);
    const json& outside = doc.contains("outside_calls") ? doc["outside_calls"] : json();
    if (outside.is_object())
      t.outside_calls = OutsideCalls{whole_number(outside, "kernels").value_or(0),
                                     finite_number(outside, "gpu_ms").value_or(0)};
  }
  return t;
}

}  // namespace kaudit::evidence
