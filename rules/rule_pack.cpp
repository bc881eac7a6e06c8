#include "rules/rule_pack.h"

#include "rules/problem.h"

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <stdexcept>

namespace kaudit::rules {
namespace {

struct BuiltinPack {
  const char* name;
  const char* json;
};
// Generated from rules/packs/*.json at configure time.
#include "builtin_packs.inc"

std::vector<std::string> strings_at(const nlohmann::json& j, const char* key) {
  std::vector<std::string> out;
  if (!j.contains(key)) return out;
  for (const auto& v : j.at(key)) out.push_back(v.get<std::string>());
  return out;
}

void add_unique(std::vector<std::string>& v, const std::string& s) {
  if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

std::string regex_escape(const std::string& s) {
  static const std::string special = R"(\^$.|?*+()[]{})";
  std::string out;
  for (char c : s) {
    if (special.find(c) != std::string::npos) out += '\\';
    out += c;
  }
  return out;
}

// Methods of torch.Tensor that compute the same thing as the torch function
// of the same name; banning one bans the other.
const std::set<std::string>& tensor_method_twins() {
  static const std::set<std::string> names = {
      "matmul", "mm", "bmm", "addmm", "baddbmm", "addbmm", "einsum", "topk", "sort", "argsort",
      "kthvalue", "msort", "softmax", "log_softmax", "mv", "dot", "inner", "outer", "tensordot"};
  return names;
}

template <typename T>
T typed_at(const nlohmann::json& j, const char* key, T fallback, const char* where) {
  if (!j.contains(key)) return fallback;
  try {
    return j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw std::runtime_error(std::string("rule pack: ") + where + "." + key + " has the wrong type");
  }
}

Thresholds thresholds_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::runtime_error("rule pack: thresholds must be an object");
  static const std::set<std::string> known = {"fresh_over_bench", "fresh_over_bench_cpu", "fresh_gap_ms",
                                              "stress_mismatch_fraction", "near_miss_fraction", "near_miss_elements",
                                              "min_own_kernel_share",
                                              "own_share_lead_margin", "reference_glue_allowance",
                                              "fp8_dot_required"};
  for (const auto& [k, v] : j.items())
    if (!known.count(k)) throw std::runtime_error("rule pack: unknown threshold '" + k + "'");
  Thresholds t;
  t.fresh_over_bench = typed_at(j, "fresh_over_bench", t.fresh_over_bench, "thresholds");
  t.fresh_over_bench_cpu = typed_at(j, "fresh_over_bench_cpu", t.fresh_over_bench_cpu, "thresholds");
  t.fresh_gap_ms = typed_at(j, "fresh_gap_ms", t.fresh_gap_ms, "thresholds");
  t.stress_mismatch_fraction = typed_at(j, "stress_mismatch_fraction", t.stress_mismatch_fraction, "thresholds");
  t.near_miss_fraction = typed_at(j, "near_miss_fraction", t.near_miss_fraction, "thresholds");
  if (j.contains("near_miss_elements") && !j["near_miss_elements"].is_number_unsigned())
    throw std::runtime_error("rule pack: thresholds.near_miss_elements must be a whole number, 0 or more");
  t.near_miss_elements = typed_at(j, "near_miss_elements", t.near_miss_elements, "thresholds");
  t.min_own_kernel_share = typed_at(j, "min_own_kernel_share", t.min_own_kernel_share, "thresholds");
  t.own_share_lead_margin = typed_at(j, "own_share_lead_margin", t.own_share_lead_margin, "thresholds");
  t.reference_glue_allowance =
      typed_at(j, "reference_glue_allowance", t.reference_glue_allowance, "thresholds");
  t.fp8_dot_required = typed_at(j, "fp8_dot_required", false, "thresholds");
  return t;
}

Confidence confidence_at(const nlohmann::json& j, const char* key, Confidence fallback) {
  if (!j.contains(key)) return fallback;
  const auto c = confidence_from_string(typed_at(j, key, std::string(), "verdict"));
  if (!c) throw std::runtime_error(std::string("rule pack: verdict.") + key + " must be low, medium or high");
  return *c;
}

VerdictPolicy verdict_policy_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::runtime_error("rule pack: verdict must be an object");
  VerdictPolicy p;
  for (const auto& id : typed_at(j, "static_decides", std::vector<std::string>(), "verdict")) p.static_decides.insert(id);
  for (const auto& id : typed_at(j, "static_leads", std::vector<std::string>(), "verdict")) p.static_leads.insert(id);
  p.confirmed_by = typed_at(j, "confirmed_by", std::map<std::string, std::vector<std::string>>(), "verdict");
  p.static_min_confidence = confidence_at(j, "static_min_confidence", p.static_min_confidence);
  p.runtime_min_confidence = confidence_at(j, "runtime_min_confidence", p.runtime_min_confidence);
  return p;
}

}  // namespace

RulePack rule_pack_from_json(const nlohmann::json& doc) {
  if (!doc.is_object()) throw std::runtime_error("rule pack: top level must be an object");
  const std::string schema = doc.value("schema", "");
  if (schema != "kaudit-rules/1")
    throw std::runtime_error("rule pack: unsupported schema '" + schema + "' (want kaudit-rules/1)");
  RulePack p;
  p.name = doc.value("name", "unnamed");
  const auto banned = doc.value("banned", nlohmann::json::object());
  p.banned_python_ops = strings_at(banned, "python_ops");
  p.banned_tensor_methods = strings_at(banned, "tensor_methods");
  p.matmul_operator_banned = banned.value("matmul_operator", false);
  p.banned_cxx_symbols = strings_at(banned, "cxx_symbols");
  p.banned_kernel_patterns = strings_at(banned, "kernel_name_patterns");
  p.banned_libraries = strings_at(banned, "libraries");
  p.allowed_glue_kernels = strings_at(doc, "allowed_glue_kernels");
  if (doc.contains("thresholds")) p.thresholds = thresholds_from_json(doc.at("thresholds"));
  // A pack without a verdict section follows the default pack's policy.
  p.verdict = doc.contains("verdict") ? verdict_policy_from_json(doc.at("verdict")) : default_rule_pack().verdict;
  for (const auto& re : p.banned_cxx_symbols) {
    try {
      std::regex check(re);
    } catch (const std::regex_error&) {
      throw std::runtime_error("rule pack: bad regular expression in cxx_symbols: " + re);
    }
  }
  return p;
}

std::optional<RulePack> builtin_rule_pack(std::string_view name) {
  for (const auto& b : kBuiltinPacks)
    if (name == b.name) return rule_pack_from_json(nlohmann::json::parse(b.json));
  return std::nullopt;
}

RulePack default_rule_pack() {
  static const RulePack pack = *builtin_rule_pack("default");
  return pack;
}

RulePack rule_pack_for_problem(const Problem& problem) {
  std::optional<RulePack> pack = builtin_rule_pack(problem.name);
  if (!pack || problem.name == "default") {
    // The problem's forbidden list only, with the default pack's thresholds,
    // verdict policy and glue kernels.
    const RulePack base = default_rule_pack();
    pack = RulePack{};
    pack->name = problem.name;
    pack->allowed_glue_kernels = base.allowed_glue_kernels;
    pack->thresholds = base.thresholds;
    pack->verdict = base.verdict;
  }
  merge_problem_forbidden(*pack, problem.forbidden);
  return *pack;
}

RulePack load_rule_pack(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read rule pack " + path.string());
  nlohmann::json doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) throw std::runtime_error("rule pack " + path.string() + " is not valid JSON");
  try {
    return rule_pack_from_json(doc);
  } catch (const std::exception& e) {
    throw std::runtime_error(path.string() + ": " + e.what());
  }
}

void merge_problem_forbidden(RulePack& pack, const std::vector<std::string>& forbidden) {
  for (std::string entry : forbidden) {
    add_unique(pack.problem_forbidden, entry);
    if (entry.find("::") != std::string::npos) {
      add_unique(pack.banned_cxx_symbols, "^" + regex_escape(entry) + "$");
      continue;
    }
    if (entry.rfind("F.", 0) == 0) entry = "torch.nn.functional." + entry.substr(2);
    if (entry.rfind("torch.Tensor.", 0) == 0) {
      add_unique(pack.banned_tensor_methods, entry.substr(13));
      continue;
    }
    add_unique(pack.banned_python_ops, entry);
    const std::string last = entry.substr(entry.rfind('.') + 1);
    if (tensor_method_twins().count(last)) add_unique(pack.banned_tensor_methods, last);
    if (last == "matmul" || last == "mm" || last == "bmm") pack.matmul_operator_banned = true;
  }
}

}  // namespace kaudit::rules
