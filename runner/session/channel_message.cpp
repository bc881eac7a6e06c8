#include "runner/session/channel_message.h"

#include "common/utf8.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <vector>

namespace kaudit::run {
using json = nlohmann::json;

namespace {

enum class Type { integer, number, string, boolean, array, object, entries };

struct Field {
  const char* name;
  Type type;
  bool required = true;
};

using Schema = std::map<std::string, std::vector<Field>>;

// A list of tensor entries: {"file": NAME} or {"value": scalar}, each an object.
bool entries_ok(const json& v) {
  if (!v.is_array()) return false;
  for (const auto& e : v) {
    if (!e.is_object()) return false;
    if (e.contains("file") ? !e["file"].is_string() : !e.contains("value")) return false;
    if (e.contains("scale") && !e["scale"].is_number()) return false;
  }
  return true;
}

bool has_type(const json& v, Type t) {
  switch (t) {
    case Type::integer: return v.is_number_integer();
    case Type::number: return v.is_number();
    case Type::string: return v.is_string();
    case Type::boolean: return v.is_boolean();
    case Type::array: return v.is_array();
    case Type::object: return v.is_object();
    case Type::entries: return entries_ok(v);
  }
  return false;
}

const char* type_name(Type t) {
  switch (t) {
    case Type::integer: return "an integer";
    case Type::number: return "a number";
    case Type::string: return "a string";
    case Type::boolean: return "true or false";
    case Type::array: return "a list";
    case Type::object: return "an object";
    case Type::entries: return "a list of tensor entries";
  }
  return "?";
}

const Schema& common_events() {
  static const Schema s = {
      // `parts`: seconds by part of the process's start (read through measures_of()).
      {"hello", {{"role", Type::string}, {"pid", Type::integer}, {"environment", Type::object},
                 {"parts", Type::object, false}}},
      {"error", {{"phase", Type::string}, {"type", Type::string}, {"message", Type::string},
                 {"traceback", Type::string, false}}},
      // The last message: what the process says of itself besides (the
      // device memory's peaks), read through measures_of().
      {"done", {{"device_memory", Type::object, false}, {"parts", Type::object, false}}},
      // A point where untimed GPU work may pause for a run waiting to time
      // (DeviceTurns::yield_to_timing); the runner answers "go".
      {"turn", {}},
      // The device is not needed until the next "turn" (file work follows):
      // the turn is given back (DeviceAccess::set_aside); no answer.
      {"device_idle", {}},
  };
  return s;
}

const Schema& reference_events() {
  static const Schema s = {
      {"shapes", {{"shapes", Type::array}, {"graded", Type::integer, false}, {"indices", Type::array, false}}},
      {"reference_habits", {{"shape", Type::integer}, {"changes_inputs", Type::array}, {"aliases_input", Type::boolean}}},
      // Whether a shape's inputs, drawn twice from one seed, are the same bits (timed samples by seed).
      {"reproducible", {{"shape", Type::integer}, {"reproducible", Type::boolean}}},
      // A case drawn from its seed in each process (no files: `inputs` empty) carries the seed.
      {"case", {{"shape", Type::integer}, {"case", Type::integer}, {"inputs", Type::entries},
                {"probe", Type::object, false}, {"seed", Type::integer, false}}},
      // The input probes (runner/judge/input_probes.h): an off-grid shape the reference accepted, a size or a
      // distribution it could not probe.
      {"probe_shape", {{"shape", Type::integer}, {"values", Type::object}, {"base", Type::integer},
                       {"dim", Type::string}, {"from", Type::integer}, {"to", Type::integer}, {"step", Type::string}}},
      {"probe_skipped", {{"probe", Type::string}, {"shape", Type::integer}, {"name", Type::string},
                         {"tried", Type::array}, {"skip", Type::string}, {"reason", Type::string}}},
      {"generated", {{"parts", Type::object, false}}},
      // The reference's helper (a second process) has imported the problem: it takes jobs from now.
      {"ready", {}},
      {"expected", {{"id", Type::string}, {"outputs", Type::entries}, {"inputs_digest", Type::string, false}}},
      // A job the reference raised on (its type and message); the batch goes on.
      {"expected_failed", {{"id", Type::string}, {"type", Type::string}, {"message", Type::string}}},
      // A batch of check jobs is over: how many, its seconds by part (read through measures_of()),
      // and how many were answered from outputs the reference computed while making the inputs.
      {"expected_batch", {{"jobs", Type::integer}, {"parts", Type::object, false}, {"known", Type::integer, false}}},
  };
  return s;
}

const Schema& submission_events() {
  static const Schema s = {
      {"phase", {{"phase", Type::string}, {"shape", Type::integer, false}, {"mode", Type::string, false}}},
      {"ready", {}},
      {"call", {{"kind", Type::string}, {"shape", Type::integer}, {"case", Type::integer}, {"outputs", Type::entries},
                {"inputs_after", Type::entries}, {"inputs_before", Type::entries, false}, {"inputs_digest", Type::string, false},
                {"raised", Type::object, false}}},
      {"returned", {{"shape", Type::integer}}},
      {"checks", {{"shape", Type::integer}, {"mode", Type::string}, {"counts", Type::object}, {"types", Type::array}}},
      {"probe", {{"shape", Type::integer}, {"probe", Type::string}, {"outputs", Type::integer},
                 {"differing", Type::integer}}},
      {"mode_start", {{"shape", Type::integer}, {"mode", Type::string}}},
      {"warm_done", {{"shape", Type::integer}, {"mode", Type::string}}},
      {"null_timed", {{"shape", Type::integer}, {"mode", Type::string}, {"ms", Type::number}}},
      {"call_ready", {{"shape", Type::integer}, {"mode", Type::string}, {"call", Type::integer}}},
      {"timed", {{"shape", Type::integer}, {"mode", Type::string}, {"call", Type::integer}, {"ms", Type::number}}},
      {"mode_end", {{"shape", Type::integer}, {"mode", Type::string}}},
      {"timing", {{"shape", Type::integer}, {"mode", Type::string}, {"samples", Type::array}, {"counts", Type::object},
                  {"types", Type::array}, {"versions_moved", Type::integer}}},
      {"tampered", {{"where", Type::string}, {"names", Type::array}}},
      // What ATen ran in a shape's correctness calls or a mode's untimed call (runner/judge/aten_ops.h).
      {"ops", {{"shape", Type::integer}, {"phase", Type::string}, {"calls", Type::integer}, {"ops", Type::object},
               {"work", Type::object, false}, {"input_elements", Type::integer, false}, {"gaps", Type::array}}},
      // The reference's state_dict loaded into the solution's model, per shape (runner/judge/aten_ops.h).
      {"state_dict", {{"shape", Type::integer}, {"status", Type::string}, {"keys", Type::integer, false},
                      {"reason", Type::string, false}}},
  };
  return s;
}

// A timing message's samples: [{call, outputs, inputs | seed}].
std::string malformed_samples(const json& samples) {
  for (const auto& s : samples) {
    if (!s.is_object() || !s.contains("call") || !s["call"].is_number_integer())
      return "a timing sample without an integer call";
    if (!s.contains("outputs") || !entries_ok(s["outputs"])) return "a timing sample without output entries";
    if (s.contains("inputs") && !entries_ok(s["inputs"])) return "a timing sample whose inputs are not entries";
    if (s.contains("seed") && !s["seed"].is_number_integer()) return "a timing sample whose seed is not an integer";
    if (s.contains("inputs_digest") && !s["inputs_digest"].is_string())
      return "a timing sample whose inputs_digest is not a string";
  }
  return "";
}

}  // namespace

std::string malformed_message(const json& m, Speaker speaker) {
  if (!m.is_object()) return "not a JSON object";
  if (!m.contains("event") || !m["event"].is_string()) return "no event name";
  const std::string ev = m["event"];
  const Schema& own = speaker == Speaker::reference ? reference_events() : submission_events();
  auto it = own.find(ev);
  if (it == own.end()) it = common_events().find(ev);
  if (it == common_events().end()) return "unknown event '" + common::cut_utf8(ev, 40) + "'";
  for (const auto& f : it->second) {
    if (!m.contains(f.name)) {
      if (f.required) return ev + ": no field '" + f.name + "'";
      continue;
    }
    if (!has_type(m[f.name], f.type)) return ev + ": '" + f.name + "' is not " + type_name(f.type);
  }
  if (ev == "timing") return malformed_samples(m["samples"]);
  if (ev == "timed" && m["ms"].get<double>() < 0) return "timed: a negative time";
  return "";
}

std::map<std::string, double> measures_of(const json& m, const char* key) {
  std::map<std::string, double> out;
  const auto it = m.find(key);
  if (it == m.end() || !it->is_object()) return out;
  for (const auto& [name, value] : it->items()) {
    if (out.size() >= kMaxMeasures) break;
    const bool word = !name.empty() && name.size() <= 40 &&
                      std::all_of(name.begin(), name.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; });
    if (!word || !value.is_number()) continue;
    const double v = value.get<double>();
    if (v >= 0 && v <= 1e12) out[name] = v;  // NaN fails both
  }
  return out;
}

}  // namespace kaudit::run
