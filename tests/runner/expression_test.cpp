#include "runner/plan/expression.h"

#include <gtest/gtest.h>

#include <stdexcept>

using kaudit::run::evaluate_expression;

TEST(Expression, ProblemFormulas) {
  const std::map<std::string, double> v = {{"M", 4096}, {"N", 4096}, {"K", 4127}, {"batch", 64}, {"n", 8192}, {"k", 8}};
  EXPECT_DOUBLE_EQ(evaluate_expression("2 * M * N * K", v), 2.0 * 4096 * 4096 * 4127);
  EXPECT_DOUBLE_EQ(evaluate_expression("4 * batch * n + 12 * batch * k", v), 4.0 * 64 * 8192 + 12.0 * 64 * 8);
  EXPECT_DOUBLE_EQ(evaluate_expression("M * K + N * K / 2 + 2 * 2 * N * K / 128", v),
                   4096.0 * 4127 + 4096.0 * 4127 / 2 + 4.0 * 4096 * 4127 / 128);
}

TEST(Expression, PythonOperatorsAndPrecedence) {
  const std::map<std::string, double> none;
  EXPECT_DOUBLE_EQ(evaluate_expression("2 ** 3 ** 2", none), 512);  // right-associative
  EXPECT_DOUBLE_EQ(evaluate_expression("-2 ** 2", none), -4);      // ** binds tighter than unary minus
  EXPECT_DOUBLE_EQ(evaluate_expression("7 // 2", none), 3);
  EXPECT_DOUBLE_EQ(evaluate_expression("-7 // 2", none), -4);
  EXPECT_DOUBLE_EQ(evaluate_expression("-7 % 3", none), 2);
  EXPECT_DOUBLE_EQ(evaluate_expression("(1 + 2) * 3", none), 9);
  EXPECT_DOUBLE_EQ(evaluate_expression("1e3 + 1_000", none), 2000);
  EXPECT_DOUBLE_EQ(evaluate_expression("max(1, 5, 3) + min(2, 4) + cdiv(10, 4)", none), 10);
}

TEST(Expression, RejectsWhatIsNotArithmetic) {
  const std::map<std::string, double> v = {{"M", 2}};
  for (const char* bad : {"__import__('os')", "M +", "M * X", "open(1)", "M; 1", "1 / 0", "M.real", "'a'", "(1",
                          "7 // 0", "M % 0", ""}) {
    EXPECT_THROW(evaluate_expression(bad, v), std::invalid_argument) << bad;
  }
  EXPECT_THROW(evaluate_expression(std::string(1001, '1'), v), std::invalid_argument);
  EXPECT_THROW(evaluate_expression(std::string(500, '(') + "1" + std::string(500, ')'), v), std::invalid_argument);
}
