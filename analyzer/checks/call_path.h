// Small helpers shared by the checks that ask "is this on the path the
// benchmark times?" and that read call arguments off the Python tree.
// Header-only so that each check stays one file with one purpose.
#pragma once

#include "analyzer/check.h"
#include "analyzer/python/module.h"

#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kaudit::analyzer::call_path {

// The model class's forward, or null.
inline const python::FunctionDef* model_forward(const python::Module& m) {
  const python::ClassDef* model = m.model_class();
  if (!model) return nullptr;
  for (const auto& f : m.functions())
    if (f.class_name == model->name && f.name == "forward") return &f;
  return nullptr;
}

// Per index into functions(): whether the function runs when the model's
// forward is called (forward itself and everything it reaches). Without a
// model class every function counts, since any of them may be the entry.
inline std::vector<bool> forward_path(const python::Module& m) {
  const auto& fns = m.functions();
  std::vector<bool> on(fns.size(), false);
  const python::FunctionDef* fwd = model_forward(m);
  for (size_t i = 0; i < fns.size(); ++i) {
    if (!fwd) {
      on[i] = true;
      continue;
    }
    on[i] = fns[i].reachable_from_forward || &fns[i] == fwd;
    // A def nested inside a function on the path (a closure, a local
    // helper) runs on the path too when it is called there; the front marks
    // that as reachable, but a nested def inside forward itself is
    // conservative to include.
    if (!on[i] && fns[i].node.valid()) {
      python::Node p = fns[i].node.parent();
      while (p.valid()) {
        if (p.type() == "function_definition" && fwd->node.valid() && p == fwd->node) {
          on[i] = true;
          break;
        }
        p = p.parent();
      }
    }
  }
  return on;
}

inline bool on_path(const std::vector<bool>& path, int function_index) {
  return function_index >= 0 && static_cast<size_t>(function_index) < path.size() && path[function_index];
}

// Whether byte range of `inner` lies inside `outer`.
inline bool contains(python::Node outer, python::Node inner) {
  if (!outer.valid() || !inner.valid()) return false;
  TSNode o = outer.raw(), i = inner.raw();
  return ts_node_start_byte(i) >= ts_node_start_byte(o) && ts_node_end_byte(i) <= ts_node_end_byte(o);
}

// Positional arguments of a call node (keyword arguments and splats left out).
inline std::vector<python::Node> positional_args(python::Node call) {
  std::vector<python::Node> out;
  python::Node args = call.field("arguments");
  if (!args.valid() || args.type() != "argument_list") return out;
  for (const auto& a : args.named_children()) {
    auto t = a.type();
    if (t == "keyword_argument" || t == "list_splat" || t == "dictionary_splat" || t == "comment") continue;
    out.push_back(a);
  }
  return out;
}

// The value of keyword argument `name`, or an invalid node.
inline python::Node keyword_arg(python::Node call, std::string_view name) {
  python::Node args = call.field("arguments");
  if (!args.valid() || args.type() != "argument_list") return {};
  for (const auto& a : args.named_children()) {
    if (a.type() != "keyword_argument") continue;
    python::Node k = a.field("name");
    if (k.valid() && k.text() == name) return a.field("value");
  }
  return {};
}

inline bool is_true_literal(python::Node n) {
  if (!n.valid()) return false;
  if (n.type() == "true") return true;
  if (n.type() == "integer") return n.text() != "0";
  return false;
}

inline std::string_view last_component(std::string_view q) {
  auto dot = q.rfind('.');
  return dot == std::string_view::npos ? q : q.substr(dot + 1);
}

inline bool starts_with_any(std::string_view s, std::initializer_list<std::string_view> prefixes) {
  for (auto p : prefixes)
    if (s.starts_with(p)) return true;
  return false;
}

// Reports at most one finding of a check per place a person sees (embedded
// lines that map to the same .py line count once), since a finding is about
// a line, not about how many spellings the line has.
class OncePerLine {
 public:
  OncePerLine(const CheckInfo& info, FindingSink& sink) : info_(info), sink_(sink) {}
  bool report(const SourceFile& file, int line, int column, std::string message, std::string symbol = {},
              std::optional<rules::Confidence> confidence = std::nullopt,
              std::optional<rules::Category> category = std::nullopt) {
    rules::Location loc = file.location(line, column);
    if (!seen_.insert({loc.file, loc.line}).second) return false;
    sink_.report(info_, file, line, column, std::move(message), std::move(symbol), confidence, category);
    return true;
  }

 private:
  const CheckInfo& info_;
  FindingSink& sink_;
  std::set<std::pair<std::string, int>> seen_;
};

}  // namespace kaudit::analyzer::call_path
