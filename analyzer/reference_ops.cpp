#include "analyzer/reference_ops.h"

#include <algorithm>
#include <set>

namespace kaudit::analyzer {
namespace {

// Names whose last component moves, shapes, allocates or converts data
// rather than computing the problem's answer.
bool plumbing(const std::string& last) {
  static const std::set<std::string> kNames = {
      "view",      "view_as",    "reshape",   "reshape_as", "permute",   "transpose",  "t",          "contiguous",
      "size",      "dim",        "numel",     "to",         "float",     "half",       "bfloat16",   "double",
      "int",       "long",       "bool",      "type",       "type_as",   "cuda",       "cpu",        "clone",
      "detach",    "unsqueeze",  "squeeze",   "expand",     "expand_as", "flatten",    "unflatten",  "narrow",
      "select",    "split",      "chunk",     "cat",        "concat",    "stack",      "empty",      "empty_like",
      "zeros",     "zeros_like", "ones",      "ones_like",  "full",      "full_like",  "arange",     "tensor",
      "as_tensor", "as_strided", "item",      "repeat",     "new_empty", "new_zeros",  "new_ones",   "new_full",
      "new_tensor", "pad",       "movedim",   "unbind",     "is_contiguous", "stride", "data_ptr",   "requires_grad_",
      "no_grad",   "manual_seed", "device",   "dtype",      "element_size", "copy_", "fill_",      "zero_",
      "Module",    "Parameter",  "ModuleList", "Sequential", "Identity",  "Dropout",  "contiguous_format"};
  return kNames.count(last) > 0;
}

std::string last_of(const std::string& q) { return q.substr(q.rfind('.') + 1); }

void add(std::vector<std::string>& v, const std::string& s) {
  if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

}  // namespace

ReferenceOps reference_ops(const python::Module& reference) {
  ReferenceOps ops;
  const python::ClassDef* model = reference.model_class();
  if (!model) return ops;
  for (const auto& c : reference.calls()) {
    if (c.function_index < 0) continue;
    const auto& f = reference.functions()[static_cast<size_t>(c.function_index)];
    const bool in_init = f.class_name == model->name && f.name == "__init__";
    if (!reference.on_forward_path(c.function_index) && !in_init) continue;
    const std::string& q = c.qualified;
    if (!q.empty() && q.rfind("torch.", 0) == 0) {
      const std::string last = last_of(q);
      const bool module_class = !last.empty() && last[0] >= 'A' && last[0] <= 'Z';
      // __init__ only builds modules; their call in forward is the math.
      if (plumbing(last) || (in_init && !module_class) || q.rfind("torch.cuda.", 0) == 0) continue;
      add(ops.python_ops, q);
    } else if (q.empty() && !c.method.empty() && !in_init && !plumbing(c.method) &&
               !std::string_view(c.callee.text()).starts_with("self.")) {
      // x.sum(dim), A.matmul(B); self.conv(x) is a module of __init__'s, above.
      add(ops.tensor_methods, c.method);
    }
  }
  for (const auto& f : reference.functions()) {
    const int index = static_cast<int>(&f - reference.functions().data());
    if (!reference.on_forward_path(index)) continue;
    reference.walk(f.node, [&](python::Node n) {
      if (n.type() == "binary_operator" || n.type() == "augmented_assignment") {
        const python::Node op = n.field("operator");
        if (op.valid() && (op.text() == "@" || op.text() == "@=")) ops.matmul_operator = true;
      }
      return true;
    });
  }
  return ops;
}

namespace {

// One matrix product under its spellings: `x @ w` is torch.matmul, and a
// 2-D or batched matmul is the GEMM torch.mm or torch.bmm launches. A
// reference that uses one spelling bans the others too, else a fig-leaf
// around torch.matmul passes a reference written with `@`.
const std::set<std::string> kMatmulOps = {"torch.matmul", "torch.linalg.matmul", "torch.mm", "torch.bmm"};
const std::set<std::string> kMatmulMethods = {"matmul", "mm", "bmm", "__matmul__", "__rmatmul__", "__imatmul__"};

bool computes_matmul(const ReferenceOps& ops) {
  if (ops.matmul_operator) return true;
  for (const auto& q : ops.python_ops)
    if (kMatmulOps.count(q)) return true;
  for (const auto& m : ops.tensor_methods)
    if (kMatmulMethods.count(m)) return true;
  return false;
}

}  // namespace

void add_reference_ops(rules::RulePack& pack, const ReferenceOps& ops) {
  ReferenceOps all = ops;
  const bool matmul = computes_matmul(ops);
  if (matmul) {
    for (const auto& q : kMatmulOps) add(all.python_ops, q);
    for (const char* m : {"matmul", "mm", "bmm"}) add(all.tensor_methods, m);
  }
  for (const auto& q : all.python_ops) {
    add(pack.banned_python_ops, q);
    add(pack.reference_ops, q);
  }
  for (const auto& m : all.tensor_methods) {
    add(pack.banned_tensor_methods, m);
    add(pack.reference_ops, "torch.Tensor." + m);
  }
  if (matmul && !pack.matmul_operator_banned) {
    pack.matmul_operator_banned = true;
    // The symbols banned-call reports the operator and its dunders under.
    for (const char* s : {"operator.matmul", "@", "@=", "torch.Tensor.__matmul__", "torch.Tensor.__rmatmul__",
                          "torch.Tensor.__imatmul__"})
      add(pack.reference_ops, s);
  }
}

}  // namespace kaudit::analyzer
