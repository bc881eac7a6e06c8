// Which ATen ops stand for a pack's banned names (issue 15, item 6): the op
// record of a run holds ATen's names ("aten.sort.stable"), the pack the names
// a submission writes ("torch.argsort", "Tensor.topk", "F.linear").
#include "rules/aten_names.h"
#include "rules/rule_pack.h"

#include <gtest/gtest.h>

using namespace kaudit::rules;

TEST(AtenNames, BaseNameOfARecordedOp) {
  EXPECT_EQ(aten_base_name("aten.topk.default"), "topk");
  EXPECT_EQ(aten_base_name("aten.sort.values_stable"), "sort");
  EXPECT_EQ(aten_base_name("aten._softmax.default"), "_softmax");
  EXPECT_EQ(aten_base_name("aten::mm"), "mm");
  EXPECT_EQ(aten_base_name("aten.mm"), "mm");
  // Custom ops are not ATen's, whatever they are called.
  EXPECT_EQ(aten_base_name("mylib.topk.default"), "");
  EXPECT_EQ(aten_base_name("topk"), "");
  EXPECT_EQ(aten_base_name(""), "");
}

TEST(AtenNames, BannedNamesAndWhatTheyDecomposeInto) {
  RulePack pack;
  merge_problem_forbidden(pack, {"torch.topk", "torch.argsort", "F.linear", "Tensor.kthvalue"});
  const auto banned = banned_aten_ops(pack);
  auto as = [&](const std::string& op) {
    const auto it = banned.find(op);
    return it == banned.end() ? std::string() : it->second;
  };
  EXPECT_EQ(as("topk"), "torch.topk");
  EXPECT_EQ(as("sort"), "torch.argsort") << "argsort runs as ATen's sort";
  EXPECT_EQ(as("addmm"), "torch.nn.functional.linear") << "linear with a bias runs as addmm";
  EXPECT_EQ(as("mm"), "torch.nn.functional.linear") << "and without one as mm";
  EXPECT_EQ(as("kthvalue"), "Tensor.kthvalue");
  EXPECT_EQ(as("max"), "") << "what is not banned stays allowed";
}

TEST(AtenNames, BanningOneGemmDoesNotBanTheOthers) {
  // tests/runner/problems/linear_relu bans torch.addmm only: a plain matmul (mm) is allowed.
  RulePack pack;
  merge_problem_forbidden(pack, {"torch.addmm"});
  const auto banned = banned_aten_ops(pack);
  EXPECT_TRUE(banned.count("addmm"));
  EXPECT_FALSE(banned.count("mm"));
  EXPECT_FALSE(banned.count("bmm"));
}

TEST(AtenNames, TheDefaultPackBansTheLibraryMath) {
  const auto banned = banned_aten_ops(default_rule_pack());
  for (const char* op : {"mm", "bmm", "addmm", "topk", "sort", "_softmax", "_log_softmax", "kthvalue",
                         "_scaled_dot_product_flash_attention"})
    EXPECT_TRUE(banned.count(op)) << op;
  for (const char* op : {"add", "mul", "max", "clone", "empty", "relu"}) EXPECT_FALSE(banned.count(op)) << op;
  // The @ operator is a matmul.
  RulePack at;
  at.matmul_operator_banned = true;
  EXPECT_TRUE(banned_aten_ops(at).count("mm"));
  // Non-torch names (numpy.sort, cupy.matmul) are not ATen's.
  RulePack np;
  np.banned_python_ops = {"numpy.sort", "cupy.matmul"};
  EXPECT_TRUE(banned_aten_ops(np).empty());
}
