#include "rules/problem.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <stdexcept>

namespace kaudit::rules {
namespace fs = std::filesystem;
namespace {

nlohmann::json yaml_to_json(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Sequence: {
      auto arr = nlohmann::json::array();
      for (const auto& e : n) arr.push_back(yaml_to_json(e));
      return arr;
    }
    case YAML::NodeType::Map: {
      auto obj = nlohmann::json::object();
      for (const auto& kv : n) obj[kv.first.as<std::string>()] = yaml_to_json(kv.second);
      return obj;
    }
    case YAML::NodeType::Scalar: {
      const std::string& s = n.Scalar();
      if (n.Tag() == "!") return s;  // quoted in the YAML: keep it a string
      try {
        size_t used = 0;
        long long i = std::stoll(s, &used);
        if (used == s.size()) return i;
      } catch (...) {
      }
      try {
        size_t used = 0;
        double d = std::stod(s, &used);
        if (used == s.size()) return d;
      } catch (...) {
      }
      if (s == "true" || s == "True") return true;
      if (s == "false" || s == "False") return false;
      return s;
    }
    default:
      return nullptr;
  }
}

}  // namespace

Problem load_problem(const fs::path& dir) {
  if (fs::is_regular_file(dir) && dir.extension() == ".py") {
    Problem p;
    p.format = ProblemFormat::kernelbench;
    p.yaml = nlohmann::json::object();
    p.single_file = true;
    p.reference = dir;
    p.dir = dir.has_parent_path() ? dir.parent_path() : fs::path(".");
    p.name = dir.stem().string();
    return p;
  }
  if (!fs::is_directory(dir))
    throw std::runtime_error("problem: " + dir.string() + " is neither a folder nor a KernelBench .py file");
  Problem p;
  p.dir = dir;
  p.name = fs::weakly_canonical(dir).filename().string();
  const fs::path yaml_path = dir / "problem.yaml";
  if (fs::exists(yaml_path)) {
    p.format = ProblemFormat::kernelbench_hard;
    YAML::Node root;
    try {
      root = YAML::LoadFile(yaml_path.string());
    } catch (const YAML::Exception& e) {
      throw std::runtime_error(yaml_path.string() + ": " + e.what());
    }
    p.yaml = root.IsMap() ? yaml_to_json(root) : nlohmann::json::object();
    if (p.yaml.contains("name") && p.yaml["name"].is_string()) p.name = p.yaml["name"];
    if (p.yaml.contains("forbidden")) {
      if (!p.yaml["forbidden"].is_array())
        throw std::runtime_error(yaml_path.string() + ": forbidden must be a list");
      for (const auto& f : p.yaml["forbidden"])
        if (f.is_string()) p.forbidden.push_back(f.get<std::string>());
    }
    p.reference = dir / "reference.py";
    if (fs::exists(dir / "shapes.py")) p.shapes = dir / "shapes.py";
    if (!fs::exists(p.reference)) throw std::runtime_error("problem: " + p.reference.string() + " is missing");
    return p;
  }
  // GPU MODE's reference-kernels layout: refused by name (docs/rules.md).
  if (fs::exists(dir / "task.yml") || fs::exists(dir / "task.yaml"))
    throw std::runtime_error(
        "problem: " + dir.string() +
        " is a GPU MODE reference-kernels task (task.yml; reference.py with ref_kernel and generate_input; "
        "submission.py with custom_kernel), which kaudit does not run yet: its harness makes a model object "
        "from get_init_inputs and calls it on get_inputs, where GPU MODE calls custom_kernel on data from "
        "generate_input and checks with check_implementation (docs/rules.md, \"Problem formats\")");
  // KernelBench: a folder holding the problem's single .py file.
  p.format = ProblemFormat::kernelbench;
  p.yaml = nlohmann::json::object();
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".py" && e.path().filename() != "solution.py") {
      if (!p.reference.empty())
        throw std::runtime_error("problem: " + dir.string() + " has no problem.yaml and more than one .py");
      p.reference = e.path();
    }
  }
  if (p.reference.empty())
    throw std::runtime_error("problem: " + dir.string() + " has neither problem.yaml nor a reference .py");
  return p;
}

std::vector<std::string> problem_files(const Problem& p) {
  if (p.single_file) return {p.reference.filename().string()};
  std::vector<std::string> files;
  for (auto it = fs::recursive_directory_iterator(p.dir); it != fs::recursive_directory_iterator(); ++it) {
    if (it->path().filename() == "__pycache__") {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file()) files.push_back(fs::relative(it->path(), p.dir).string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace kaudit::rules
