// Small helpers shared by the Python checks: describing where a name came
// from and how far code is from forward (the rule itself is
// python::Module::reach_of), builtins, identity reads and file operations.
// Node queries live on python::Node; the one-finding-per-line rule lives in
// FindingSink.
#pragma once

#include "analyzer/check.h"
#include "analyzer/python/module.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kaudit::analyzer::patterns {

using python::Module;
using python::Node;

// The first line of `text`, trimmed and cut to `max` characters.
std::string one_line(std::string_view text, size_t max = 80);

// The leading identifier of an expression as written: "F" for "F.linear".
std::string root_identifier(std::string_view text);

// `q` names `prefix` or something inside it: "torch.ops.aten.mm.default"
// is under "torch.ops.aten.mm"; "torch.mmx" is not under "torch.mm".
bool is_under(std::string_view q, std::string_view prefix);

// The last dotted component: "matmul" for "torch.matmul" (a view into `q`).
std::string_view last_component(std::string_view q);

// A `True` (or non-zero integer) literal.
bool is_true_literal(const Node& n);

// The statement that binds `name` (an import, `from … import … as name`, or
// `name = …`), one line, or empty when there is none or it is a plain
// `import name`.
std::string binding_of(const Module& m, std::string_view name);

// "reached through `mm` (from torch import matmul as mm)" when `callee` is
// spelled differently from `qualified`; empty when it is spelled as is.
std::string alias_path(const Module& m, Node callee, std::string_view qualified);

using python::Reach;
// " (not reachable from forward)" and the like; empty for forward.
std::string reach_note(Reach r);

// The nearest ancestor of `n` (not `n` itself) of type `type`, or invalid.
Node ancestor(const Node& n, std::string_view type);

// Whether the builtin `name` is really the builtin here: the call resolves
// to it (or to builtins.name), or resolves to nothing and the module never
// binds the name itself.
bool is_builtin_call(const Module& m, const python::Call& c, std::string_view name);

// True when the module binds `name` by def, class, import or assignment.
bool module_binds(const Module& m, std::string_view name);

// An expression that reads the identity of an object rather than its value:
// x.data_ptr(), id(x), x._version, hash(x), `x is self.last`.
struct IdentityUse {
  Node node;
  std::string what;  // "data_ptr()", "id()", "_version", "hash()", "`is` comparison"
};
std::vector<IdentityUse> identity_uses(const Module& m, Node scope);

// What a call to the qualified name `q` does to the file system, or empty:
// "opens", "reads", "writes", "deletes", "lists", "copies", "loads".
// `method` is the method name for calls on unknown receivers (Path objects).
std::string file_operation(std::string_view q, std::string_view method);

// What `make(m)` computes about the whole module, computed once per module
// and thread: checks ask about many nodes of the file they read, and a walk
// of the file per node is quadratic on big files. One slot per type T; keyed
// by the module's address and its text, so a module freed and another made
// at the same address is not mistaken for it.
template <class T, class Make>
const T& per_module(const Module& m, Make make) {
  struct Cached {
    const Module* module = nullptr;
    const char* text = nullptr;
    size_t size = 0;
    std::unique_ptr<T> value;
  };
  static thread_local Cached cache;
  const std::string& text = m.file().text;
  if (cache.module != &m || cache.text != text.data() || cache.size != text.size() || !cache.value) {
    cache.value = std::make_unique<T>(make(m));
    cache.module = &m;
    cache.text = text.data();
    cache.size = text.size();
  }
  return *cache.value;
}

}  // namespace kaudit::analyzer::patterns
