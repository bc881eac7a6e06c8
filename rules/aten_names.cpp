#include "rules/aten_names.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace kaudit::rules {
namespace {

// What ATen runs a public name as, besides its own name (checked on torch
// 1.13 and 2.x: torch.argsort runs as aten.sort, F.linear as aten.t and
// aten.addmm or aten.mm, torch.einsum as aten.bmm, @ as aten.mm, bmm, mv or dot).
const std::map<std::string, std::vector<std::string>>& decompositions() {
  static const std::map<std::string, std::vector<std::string>> d = {
      {"matmul", {"mm", "bmm", "mv", "dot"}},
      {"linear", {"addmm", "mm", "bmm", "matmul"}},
      {"bilinear", {"_trilinear"}},
      {"einsum", {"bmm", "mm"}},
      {"tensordot", {"mm"}},
      {"chain_matmul", {"mm"}},
      {"multi_dot", {"mm", "linalg_multi_dot"}},
      {"argsort", {"sort"}},
      {"msort", {"sort"}},
      {"quantile", {"sort"}},
      {"nanquantile", {"sort"}},
      {"unique", {"_unique", "_unique2", "unique_dim"}},
      {"softmax", {"_softmax"}},
      {"log_softmax", {"_log_softmax"}},
      {"scaled_dot_product_attention",
       {"_scaled_dot_product_flash_attention", "_scaled_dot_product_efficient_attention",
        "_scaled_dot_product_cudnn_attention", "_scaled_dot_product_attention_math",
        "_scaled_dot_product_flash_attention_for_cpu", "_fused_sdp_choice"}},
  };
  return d;
}

// torch.nn module classes that compute a banned function.
const std::map<std::string, std::string>& module_classes() {
  static const std::map<std::string, std::string> m = {
      {"Linear", "linear"}, {"Bilinear", "bilinear"}, {"Softmax", "softmax"}, {"LogSoftmax", "log_softmax"}};
  return m;
}

// The function name a banned Python op stands for, or "" when it is not torch's.
std::string function_of(const std::string& op) {
  if (op.rfind("torch.", 0) != 0 && op.rfind("Tensor.", 0) != 0) return "";
  std::string last = op.substr(op.rfind('.') + 1);
  if (const auto it = module_classes().find(last); it != module_classes().end()) return it->second;
  if (!last.empty() && std::isupper(static_cast<unsigned char>(last[0]))) return "";  // another class
  return last;
}

void add(std::map<std::string, std::string>& out, const std::string& function, const std::string& as_written) {
  if (function.empty()) return;
  out.emplace(function, as_written);
  if (const auto it = decompositions().find(function); it != decompositions().end())
    for (const auto& op : it->second) out.emplace(op, as_written);
}

}  // namespace

std::string aten_base_name(std::string_view op) {
  std::string_view rest;
  if (op.rfind("aten.", 0) == 0) rest = op.substr(5);
  else if (op.rfind("aten::", 0) == 0) rest = op.substr(6);
  else return "";
  rest = rest.substr(0, rest.find('.'));
  if (rest.empty()) return "";
  return std::string(rest);
}

std::map<std::string, std::string> banned_aten_ops(const RulePack& pack) {
  std::map<std::string, std::string> out;
  for (const auto& op : pack.banned_python_ops) add(out, function_of(op), op);
  for (const auto& m : pack.banned_tensor_methods) add(out, m, "Tensor." + m);
  if (pack.matmul_operator_banned) add(out, "matmul", "the @ operator");
  return out;
}

}  // namespace kaudit::rules
