// ATen's names for a rule pack's banned ops (issue 15, item 6). A run records
// which ATen ops the submission's calls ran ("aten.sort.stable", run.json's
// aten_ops); a pack bans the names a submission writes ("torch.argsort",
// "Tensor.topk", "F.linear", the `@` operator). Public names that ATen runs
// under other names (argsort as sort, linear as addmm or mm, softmax as
// _softmax) map onto those too; one banned GEMM does not ban the others.
#pragma once

#include "rules/rule_pack.h"

#include <map>
#include <string>
#include <string_view>

namespace kaudit::rules {

// "aten.topk.default", "aten.sort.values_stable", "aten::mm" -> "topk",
// "sort", "mm"; "" for anything outside the aten namespace (a custom op
// called topk is the submission's own, not ATen's).
std::string aten_base_name(std::string_view op);

// ATen base name -> the banned name it stands for, as the pack writes it
// (the first that maps onto it). Only torch names count: numpy.sort or
// cupy.matmul never run as ATen ops.
std::map<std::string, std::string> banned_aten_ops(const RulePack& pack);

}  // namespace kaudit::rules
