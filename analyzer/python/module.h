// The Python front: a tree-sitter parse of one .py file plus a small symbol
// model (imports and aliases per scope, assignment propagation, constant
// folding of strings) that the checks query. Never throws on bad input: a
// file with syntax errors still parses, with error nodes, and is analysed.
#pragma once

#include "analyzer/source_file.h"

#include <tree_sitter/api.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kaudit::analyzer::python {

class Module;

// A view of a tree-sitter node; valid while its Module lives.
// Checks read the tree through Node and Module only; tree-sitter's own
// handle stays inside the front.
class Node {
 public:
  Node() = default;

  bool valid() const { return module_ != nullptr && !ts_node_is_null(node_); }
  std::string_view type() const;  // tree-sitter-python node type: "call", "attribute", ...
  std::string_view text() const;  // the source bytes it spans
  int line() const;               // 1-based
  int column() const;             // 1-based, in bytes
  int end_line() const;
  uint32_t start_byte() const;  // byte offsets into the file, [start, end)
  uint32_t end_byte() const;
  // A key that identifies a node within one tree: its byte span.
  std::pair<uint32_t, uint32_t> span() const { return {start_byte(), end_byte()}; }
  bool is_named() const;  // false for anonymous tokens ("(", "==", "not")
  Node parent() const;
  Node field(const char* name) const;  // child_by_field_name
  std::vector<Node> named_children() const;
  std::vector<Node> children() const;  // every child, anonymous tokens included, in order
  bool is_error() const;  // ERROR or MISSING node
  // True when `inner` lies within this node's bytes (or is it).
  bool contains(const Node& inner) const;
  // The anonymous children between named ones, as text, brackets and commas
  // left out: {"==", "is not"} for `a == b is not c`.
  std::vector<std::string> operator_tokens() const;
  // For a call node: its positional arguments (keyword arguments, splats and
  // comments left out), and the value of keyword argument `name` (invalid
  // when absent).
  std::vector<Node> positional_args() const;
  Node keyword_arg(std::string_view name) const;
  bool operator==(const Node& o) const { return ts_node_eq(node_, o.node_); }

 private:
  Node(TSNode n, const Module* m) : node_(n), module_(m) {}
  TSNode raw() const { return node_; }
  friend class Module;
  friend struct NodeAccess;

  TSNode node_{};
  const Module* module_ = nullptr;
};

struct FunctionDef {
  std::string name;            // "forward"
  std::string qualified_name;  // "ModelNew.forward", "helper", "outer.inner"
  std::string class_name;      // enclosing class, empty for free functions
  Node node;                   // function_definition
  std::vector<std::string> decorators;  // resolved: "triton.jit", "triton.autotune", "torch.compile"
  bool is_triton_kernel = false;        // decorated with triton.jit (possibly under autotune/heuristics)
  bool reachable_from_forward = false;  // called, directly or not, from the model's forward (see Module::reach_of)
};

struct ClassDef {
  std::string name;
  std::vector<std::string> bases;  // resolved: "torch.nn.Module", "torch.Tensor"
  Node node;                       // class_definition
};

struct Call {
  Node node;         // the call node
  Node callee;       // its `function` field
  // The callee's fully qualified name after alias resolution, when known:
  // "torch.matmul" for mm(...) after `from torch import matmul as mm`.
  std::string qualified;
  // For `x.name(...)`: "name", whatever x is; empty otherwise.
  std::string method;
  int function_index = -1;  // index into functions() of the enclosing def, -1 at module level
};

// A C++/CUDA source string found in the Python file, with its lines mapped back.
struct EmbeddedSource {
  SourceFile file;   // language cuda or cpp, origin_path/origin_lines set
  std::string kind;  // "load_inline.cuda_sources", "load_inline.cpp_sources", "cupy.RawKernel", "nvrtc", ...
  Node origin;       // the call that received it
  bool complete = true;  // false when part of the string could not be folded to a constant
};

// Time limits of the parse. tree-sitter's error recovery is superlinear on
// garbage (1 MB of random punctuation took about a minute), so the parse is
// bounded: a whole-file attempt, then, if that runs out of time, the file is
// cut at top-level statements and the pieces that parse in time are kept.
struct ParseLimits {
  double whole_file_seconds = 10.0;     // the first attempt: this much,
  double whole_file_seconds_per_mb = 2.0;  // plus this per MB of source
  double piece_seconds = 1.0;           // each top-level piece of the fallback
  double pieces_seconds = 10.0;         // all pieces together: this much,
  double pieces_seconds_per_mb = 1.0;   // plus this per MB
  int give_up_after_failed_pieces = 8;  // consecutive pieces out of time: the rest is left out
};

// Where a piece of code runs, relative to the model's forward (Module::reach_of).
enum class Reach {
  forward,       // on forward's path
  construction,  // in the model's __init__, off the path: once when the model is built
  module_level,  // outside any def: once at import
  unreachable,   // in a def that forward does not reach
  unknown,       // no model class to judge by
};

class Module {
 public:
  // Parses `file` (language python). Never returns null.
  static std::unique_ptr<Module> parse(SourceFile file);
  static std::unique_ptr<Module> parse(SourceFile file, const ParseLimits& limits);
  ~Module();
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  const SourceFile& file() const { return file_; }
  Node root() const;
  // Lines of ERROR/MISSING nodes (syntax errors), in order; empty when clean.
  // The first line of each unparsed range is among them.
  const std::vector<int>& syntax_error_lines() const;
  // Line ranges [first, last] left out of the tree because the parser ran
  // out of time on them (see ParseLimits); empty for any ordinary file.
  const std::vector<std::pair<int, int>>& unparsed_line_ranges() const;

  // Alias resolution: "torch.nn.functional.softmax" for F.softmax,
  // "torch.matmul" for getattr(torch, "mat" + "mul") or `mm` after
  // `mm = torch.matmul`; "torch.ops.aten.mm.default" stays as spelled.
  // Names bound to something unknown (a parameter, a call result) resolve
  // to nothing. Identifiers are NFKC-normalised first, as Python does.
  std::optional<std::string> qualified_name(Node expr) const;
  // Constant folding: string literals, concatenation with + and implicit
  // juxtaposition, f-strings whose parts are constant, "".join([...]) of
  // constants, % and .format with constants, names bound once to constants.
  std::optional<std::string> constant_string(Node expr) const;
  std::optional<long long> constant_int(Node expr) const;

  const std::vector<FunctionDef>& functions() const;
  const std::vector<ClassDef>& classes() const;
  const std::vector<Call>& calls() const;
  const std::vector<EmbeddedSource>& embedded_sources() const;

  // ModelNew if defined, else Model, else the one torch.nn.Module subclass
  // that defines forward (the last such class when there are several); null
  // when there is none.
  const ClassDef* model_class() const;
  // The model class's own forward (its first definition in the file), or null.
  const FunctionDef* model_forward() const;
  // Whether functions()[index] runs when the model's forward is called: the
  // forward itself, what it reaches (FunctionDef::reachable_from_forward),
  // and defs nested inside forward. Without a model class, or when forward
  // is inherited from outside the file, every function counts, since any of
  // them may be the entry. False for -1 (module level) and out of range.
  bool on_forward_path(int function_index) const;
  // Where code at `n` runs, relative to the model's forward, by the same rule.
  Reach reach_of(Node n) const;
  // The function definition containing `n`, or null at module level.
  const FunctionDef* enclosing_function(Node n) const;
  // Preorder walk over every node, iterative (deep nesting is fine).
  // Return false from the visitor to skip a node's children.
  void walk(const std::function<bool(Node)>& visit) const;
  void walk(Node from, const std::function<bool(Node)>& visit) const;

  struct Impl;

 private:
  explicit Module(SourceFile file);
  SourceFile file_;
  std::unique_ptr<Impl> impl_;
  friend class Node;
};

// NFKC normalisation of an identifier (Python normalises identifiers so,
// which makes fullwidth `ｔｏｒｃｈ` the same name as `torch`).
std::string nfkc(std::string_view s);

}  // namespace kaudit::analyzer::python
