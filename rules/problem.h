// A problem folder in KernelBench-Hard's layout (problem.yaml, shapes.py,
// reference.py) or KernelBench's (one .py with Model, get_inputs and
// get_init_inputs). Only what can be read without running Python lives here.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace kaudit::rules {

enum class ProblemFormat { kernelbench_hard, kernelbench };

struct Problem {
  std::filesystem::path dir;
  std::string name;
  ProblemFormat format = ProblemFormat::kernelbench_hard;
  std::filesystem::path reference;  // reference.py (or the KernelBench file)
  std::filesystem::path shapes;     // shapes.py; empty for KernelBench
  std::vector<std::string> forbidden;
  nlohmann::json yaml;  // problem.yaml as JSON (empty object for KernelBench)
};

// Throws std::runtime_error naming the file and the reason when the folder
// is not a problem or its problem.yaml is malformed.
Problem load_problem(const std::filesystem::path& dir);

}  // namespace kaudit::rules
