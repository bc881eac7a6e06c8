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
  // KernelBench's own layout, a level folder of one .py per problem, given as
  // the file: `dir` is its folder and only `reference` is the problem's.
  bool single_file = false;
};

// `path` is a problem folder (KernelBench-Hard's problem.yaml, shapes.py,
// reference.py; or a folder holding one KernelBench .py) or a KernelBench
// problem file itself (level1/19_ReLU.py). Throws std::runtime_error naming
// the file and the reason when it is not a problem or problem.yaml is malformed.
Problem load_problem(const std::filesystem::path& path);

// The problem's files, relative to its folder (what a run copies and
// watches): the one file of a single-file problem, else every regular file
// under the folder but __pycache__.
std::vector<std::string> problem_files(const Problem& problem);

}  // namespace kaudit::rules
