// C++/CUDA sources embedded in the Python file: the strings given to
// torch.utils.cpp_extension.load_inline (cpp_sources=, cuda_sources=),
// cupy.RawKernel/RawModule, NVRTC (nvrtcCreateProgram, cuda.core Program)
// and the jiterator, folded through names, concatenation and lists, each
// line mapped back to the .py line it came from.
#include "analyzer/python/module_impl.h"

#include <algorithm>

namespace kaudit::analyzer::python {
namespace {

std::string_view last_component(std::string_view q) {
  size_t dot = q.rfind('.');
  return dot == std::string_view::npos ? q : q.substr(dot + 1);
}

struct Target {
  std::string kind;
  Language language;
  const char* keyword;
  int position;  // positional index, -1 when keyword only
};

// Which sources a call receives, by its callee's qualified name (or, when
// the receiver is unknown, the method's name).
std::vector<Target> targets_of(const Call& c) {
  std::string_view q = c.qualified;
  std::string_view last = q.empty() ? std::string_view(c.method) : last_component(q);
  if (last == "load_inline")
    return {{"load_inline.cpp_sources", Language::cpp, "cpp_sources", 1},
            {"load_inline.cuda_sources", Language::cuda, "cuda_sources", 2}};
  if (last == "RawKernel" || last == "RawModule") {
    bool cupy = q.empty() || q.starts_with("cupy") || q == last;
    if (cupy) return {{std::string("cupy.") + std::string(last), Language::cuda, "code", 0}};
  }
  if (last == "nvrtcCreateProgram") return {{"nvrtc", Language::cuda, "src", 0}};
  if ((q.starts_with("cuda.core") || q.starts_with("cuda.bindings")) && last == "Program")
    return {{"cuda.core.Program", Language::cuda, "code", 0}};
  if (last == "_create_jit_fn" || last == "_create_multi_output_jit_fn")
    return {{"jiterator", Language::cuda, "code_string", 0}};
  return {};
}

}  // namespace

void Module::Impl::build_embedded() {
  for (const Call& c : calls) {
    std::vector<Target> targets = targets_of(c);
    if (targets.empty()) continue;
    std::vector<TSNode> positional;
    std::vector<TSNode> keywords;
    for (TSNode a : named_children_of(field_of(raw_of(c.node), "arguments"))) {
      if (is_type(a, "comment")) continue;
      (is_type(a, "keyword_argument") ? keywords : positional).push_back(a);
    }
    for (const Target& t : targets) {
      TSNode arg{};
      for (TSNode k : keywords)
        if (text(field_of(k, "name")) == t.keyword) arg = field_of(k, "value");
      if (ts_node_is_null(arg) && t.position >= 0 && static_cast<size_t>(t.position) < positional.size() &&
          !is_type(positional[t.position], "list_splat") && !is_type(positional[t.position], "dictionary_splat"))
        arg = positional[t.position];
      if (ts_node_is_null(arg) || is_type(unparen(arg), "none")) continue;

      FoldContext ctx(true);
      Folded all;
      // load_inline takes a string or a list of strings, which it joins
      // with newlines; the other APIs take one string.
      std::vector<TSNode> items = t.kind.starts_with("load_inline") ? sequence_items(arg, ctx) : std::vector<TSNode>{arg};
      bool first = true;
      for (TSNode item : items) {
        Folded piece;
        if (!first) {
          Folded nl;
          nl.put('\n', line_of(item), line_of(item));
          all.append(nl);
        }
        first = false;
        if (!fold_string(item, ctx, piece)) {
          piece = Folded{};
          piece.complete = false;
        }
        all.append(piece);
        if (all.text.size() > kMaxFoldBytes) break;
      }
      EmbeddedSource e;
      e.kind = t.kind;
      e.origin = c.node;
      e.complete = all.complete && !ctx.exhausted() && !ctx.sh->mutated_list;
      e.file.language = t.language;
      e.file.origin_path = self->file().path;
      e.file.path = self->file().path + ":" + t.kind + "@" + std::to_string(c.node.line()) +
                    (t.language == Language::cuda ? ".cu" : ".cpp");
      e.file.text = std::move(all.text);
      e.file.origin_lines = std::move(all.lines);
      // Bytes literals may hold anything: SourceFile text is valid UTF-8.
      make_valid_utf8(e.file.text);
      size_t want = static_cast<size_t>(std::count(e.file.text.begin(), e.file.text.end(), '\n')) + 1;
      if (e.file.origin_lines.empty()) e.file.origin_lines.push_back(c.node.line());
      e.file.origin_lines.resize(want, e.file.origin_lines.back());
      embedded.push_back(std::move(e));
    }
  }
}

}  // namespace kaudit::analyzer::python
