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

}  // namespace

RulePack rule_pack_from_json(const nlohmann::json& doc) {
  if (!doc.is_object()) throw std::runtime_error("rule pack: top level must be an object");
  const std::string schema = doc.value("schema", "");
  if (schema != "kaudit-rules/1")
    throw std::runtime_error("rule pack: unsupported schema '" + schema + "' (want kaudit-rules/1)");
  RulePack p;
  p.raw = doc;
  p.name = doc.value("name", "unnamed");
  const auto banned = doc.value("banned", nlohmann::json::object());
  p.banned_python_ops = strings_at(banned, "python_ops");
  p.banned_tensor_methods = strings_at(banned, "tensor_methods");
  p.matmul_operator_banned = banned.value("matmul_operator", false);
  p.banned_cxx_symbols = strings_at(banned, "cxx_symbols");
  p.banned_kernel_patterns = strings_at(banned, "kernel_name_patterns");
  p.banned_libraries = strings_at(banned, "libraries");
  p.allowed_glue_kernels = strings_at(doc, "allowed_glue_kernels");
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
    const RulePack base = default_rule_pack();
    nlohmann::json doc = {{"schema", "kaudit-rules/1"},
                          {"name", problem.name},
                          {"description", "the problem's forbidden list only"}};
    for (const char* keep : {"thresholds", "verdict", "allowed_glue_kernels"})
      if (base.raw.contains(keep)) doc[keep] = base.raw[keep];
    pack = rule_pack_from_json(doc);
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
