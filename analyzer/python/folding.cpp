// Constant folding of strings and integers: literals with their escapes,
// + and implicit concatenation, f-strings with constant parts, % and
// .format, "".join of constants, str/chr/len/slicing, textwrap.dedent and
// names bound once (then extended with +=). Every folded string keeps the
// .py line of each of its lines, so that embedded C++/CUDA maps back.
// Step, size and depth budgets keep hostile definitions (a = a + a, ...)
// bounded.
#include "analyzer/python/module_impl.h"

#include <algorithm>
#include <charconv>
#include <climits>

namespace kaudit::analyzer::python {

// ---- Folded -----------------------------------------------------------------

void Folded::put(char c, int line_here, int line_next) {
  if (lines.empty()) lines.push_back(line_here);
  text += c;
  if (c == '\n') lines.push_back(line_next);
}

void Folded::append(const Folded& b) {
  complete = complete && b.complete;
  if (b.text.empty()) return;
  if (lines.empty()) {
    text = b.text;
    lines = b.lines;
    return;
  }
  // An empty last line takes the origin of what fills it.
  if (!text.empty() && text.back() == '\n' && !b.lines.empty()) lines.back() = b.lines.front();
  text += b.text;
  if (b.lines.size() > 1) lines.insert(lines.end(), b.lines.begin() + 1, b.lines.end());
}

void Folded::append_text(std::string_view s, int line) {
  for (char c : s) put(c, line, line);
}

void Folded::fix_lines() {
  if (text.empty()) {
    lines.clear();
    return;
  }
  size_t want = static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  int fill = lines.empty() ? 0 : lines.back();
  lines.resize(want, fill);
}

namespace {

void put_utf8(Folded& out, uint32_t cp, int line) {
  if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xFFFD;
  if (cp > 0x10FFFF) cp = 0xFFFD;
  char buf[4];
  int n = 0;
  if (cp < 0x80) {
    buf[n++] = static_cast<char>(cp);
  } else if (cp < 0x800) {
    buf[n++] = static_cast<char>(0xC0 | (cp >> 6));
    buf[n++] = static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    buf[n++] = static_cast<char>(0xE0 | (cp >> 12));
    buf[n++] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    buf[n++] = static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    buf[n++] = static_cast<char>(0xF0 | (cp >> 18));
    buf[n++] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    buf[n++] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    buf[n++] = static_cast<char>(0x80 | (cp & 0x3F));
  }
  for (int i = 0; i < n; ++i) out.put(buf[i], line, line);
}

int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Decodes the bytes of a string_content node (escapes, `{{`, line
// continuations), tracking the .py line of every character.
void decode_content(std::string_view s, int line, bool raw, bool fstring, bool bytes, Folded& out) {
  const size_t n = s.size();
  for (size_t i = 0; i < n; ++i) {
    char c = s[i];
    if (c == '\r' && i + 1 < n && s[i + 1] == '\n') continue;
    if (c == '\n') {
      out.put('\n', line, line + 1);
      ++line;
      continue;
    }
    if (fstring && (c == '{' || c == '}') && i + 1 < n && s[i + 1] == c) {
      out.put(c, line, line);
      ++i;
      continue;
    }
    if (c != '\\' || raw || i + 1 >= n) {
      out.put(c, line, line);
      continue;
    }
    char e = s[++i];
    switch (e) {
      case '\n': ++line; break;  // line continuation
      case '\r':
        if (i + 1 < n && s[i + 1] == '\n') ++i;
        ++line;
        break;
      case '\\': out.put('\\', line, line); break;
      case '\'': out.put('\'', line, line); break;
      case '"': out.put('"', line, line); break;
      case 'a': out.put('\a', line, line); break;
      case 'b': out.put('\b', line, line); break;
      case 'f': out.put('\f', line, line); break;
      case 'n': out.put('\n', line, line); break;
      case 'r': out.put('\r', line, line); break;
      case 't': out.put('\t', line, line); break;
      case 'v': out.put('\v', line, line); break;
      case 'x': {
        int h1 = i + 1 < n ? hexval(s[i + 1]) : -1, h2 = i + 2 < n ? hexval(s[i + 2]) : -1;
        if (h1 < 0 || h2 < 0) {
          out.append_text("\\x", line);
          break;
        }
        uint32_t v = static_cast<uint32_t>(h1 * 16 + h2);
        i += 2;
        if (bytes) out.put(static_cast<char>(v), line, line);
        else put_utf8(out, v, line);
        break;
      }
      case 'u':
      case 'U': {
        size_t len = e == 'u' ? 4 : 8;
        uint32_t v = 0;
        bool ok = !bytes && i + len < n + 0 && i + len <= n - 1 + 1;
        for (size_t k = 1; ok && k <= len; ++k) {
          int h = i + k < n ? hexval(s[i + k]) : -1;
          if (h < 0) ok = false;
          else v = v * 16 + static_cast<uint32_t>(h);
        }
        if (!ok) {
          out.put('\\', line, line);
          out.put(e, line, line);
          break;
        }
        i += len;
        put_utf8(out, v, line);
        break;
      }
      case 'N': {  // \N{NAME}: no name table here; keep it as written
        out.put('\\', line, line);
        out.put('N', line, line);
        break;
      }
      default:
        if (e >= '0' && e <= '7') {
          uint32_t v = static_cast<uint32_t>(e - '0');
          for (int k = 0; k < 2 && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '7'; ++k)
            v = v * 8 + static_cast<uint32_t>(s[++i] - '0');
          if (bytes) out.put(static_cast<char>(v & 0xFF), line, line);
          else put_utf8(out, v, line);
        } else {
          out.put('\\', line, line);
          if (e == '\n') ++line;
          out.put(e, line, line);
        }
    }
  }
}

struct Depth {
  int& d;
  explicit Depth(int& x) : d(++x) {}
  ~Depth() { --d; }
};

bool ascii_only(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

std::string dedent(const std::string& s) {
  // textwrap.dedent: remove the longest common leading whitespace of the
  // non-blank lines; blank lines become empty.
  std::vector<std::string_view> lines;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == '\n') {
      lines.emplace_back(s.data() + start, i - start);
      start = i + 1;
    }
  std::optional<std::string_view> margin;
  for (auto l : lines) {
    size_t k = l.find_first_not_of(" \t");
    if (k == std::string_view::npos) continue;
    std::string_view ws = l.substr(0, k);
    if (!margin) {
      margin = ws;
    } else {
      size_t j = 0;
      while (j < margin->size() && j < ws.size() && (*margin)[j] == ws[j]) ++j;
      margin = margin->substr(0, j);
    }
  }
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    auto l = lines[i];
    if (l.find_first_not_of(" \t") == std::string_view::npos) l = {};
    else if (margin) l.remove_prefix(margin->size());
    out += l;
    if (i + 1 < lines.size()) out += '\n';
  }
  return out;
}

std::optional<long long> parse_int_literal(std::string_view t) {
  std::string digits;
  for (char c : t)
    if (c != '_') digits += c;
  int base = 10;
  size_t skip = 0;
  if (digits.size() > 2 && digits[0] == '0') {
    char p = static_cast<char>(std::tolower(static_cast<unsigned char>(digits[1])));
    if (p == 'x') base = 16, skip = 2;
    else if (p == 'o') base = 8, skip = 2;
    else if (p == 'b') base = 2, skip = 2;
  }
  long long v = 0;
  auto [ptr, ec] = std::from_chars(digits.data() + skip, digits.data() + digits.size(), v, base);
  if (ec != std::errc() || ptr != digits.data() + digits.size()) return std::nullopt;
  return v;
}

}  // namespace

// ---- names ------------------------------------------------------------------

bool Module::Impl::value_chain(TSNode expr, std::vector<int>& chain) const {
  chain.clear();
  expr = unparen(expr);
  uint32_t pos = ts_node_start_byte(expr);
  const std::vector<int>* v = nullptr;
  bool same_scope = false;
  if (is_type(expr, "identifier")) {
    int scope = scope_at(pos), found = -1;
    std::string name = nfkc(text(expr));
    if (!lookup(name, scope, pos, &found)) return false;
    v = &scopes[found].names.at(name);
    same_scope = found == scope;
  } else if (is_type(expr, "attribute")) {
    // self.X or Class.X: its single definition in the class.
    Sym obj = resolve(field_of(expr, "object"));
    int cls = obj.kind == Sym::Kind::instance || (obj.kind == Sym::Kind::name && obj.fn < 0) ? obj.cls : -1;
    if (cls < 0) return false;
    std::string attr = nfkc(text(field_of(expr, "attribute")));
    auto it = cinfo[cls].self_attrs.find(attr);
    if (it != cinfo[cls].self_attrs.end()) {
      v = &it->second;
    } else {
      const Scope& sc = scopes[cinfo[cls].scope];
      auto jt = sc.names.find(attr);
      if (jt == sc.names.end()) return false;
      v = &jt->second;
    }
  } else {
    return false;
  }
  for (int b : *v)
    if (!same_scope || bindings[b].pos <= pos) chain.push_back(b);
  if (chain.empty()) chain = *v;
  if (chain.empty() || bindings[chain[0]].kind != Binding::Kind::value) return false;
  for (size_t i = 1; i < chain.size(); ++i)
    if (bindings[chain[i]].kind != Binding::Kind::augmented) return false;
  return true;
}

// ---- strings ----------------------------------------------------------------

namespace {

// Too large or too long: the whole fold stops, lenient or not (a partial
// retry of each piece would make a = b + b; b = c + c; ... exponential).
bool give_up(FoldContext& ctx) {
  ctx.sh->steps = kMaxFoldSteps + 1;
  return false;
}

// A non-constant part: fails when strict, else leaves `placeholder` and
// marks the result incomplete.
bool unknown_part(const FoldContext& ctx, Folded& out, std::string_view placeholder, int line) {
  if (!ctx.lenient) return false;
  std::string one_line(placeholder);
  std::replace(one_line.begin(), one_line.end(), '\n', ' ');
  std::replace(one_line.begin(), one_line.end(), '\r', ' ');
  out.append_text(one_line, line);
  out.complete = false;
  return true;
}

}  // namespace

// Folds `n` to a constant string into `out`: the entry of every string
// fold. Guards depth and size, then hands the node to the step for its type.
bool Module::Impl::fold_string(TSNode n, FoldContext& ctx, Folded& out) const {
  NestGuard guard;
  Depth depth(ctx.depth);
  ++ctx.sh->steps;
  n = unparen(n);
  if (ts_node_is_null(n)) return false;
  const int line = line_of(n);
  if (!guard.ok || ctx.depth > kMaxFoldDepth || ctx.exhausted() || out.text.size() > kMaxFoldBytes) {
    ctx.sh->steps = kMaxFoldSteps + 1;  // give up on the whole expression
    return false;
  }
  std::string_view t = ts_node_type(n);
  if (t == "string") return fold_string_literal(n, ctx, out);
  if (t == "concatenated_string") return fold_concatenated(n, ctx, out);
  if (t == "binary_operator") {
    std::string_view op = text(field_of(n, "operator"));
    if (op == "+") return fold_sum(n, ctx, out);
    if (op == "%") return fold_percent_format(n, line, ctx, out);
    return unknown_part(ctx, out, "", line);
  }
  if (t == "identifier" || t == "attribute") return fold_bound_name(n, line, ctx, out);
  if (t == "call") return fold_call(n, line, ctx, out);
  if (t == "subscript") return fold_subscript(n, line, ctx, out);
  return unknown_part(ctx, out, "", line);
}

// A string literal: its content decoded, f-string interpolations folded.
bool Module::Impl::fold_string_literal(TSNode n, FoldContext& ctx, Folded& out) const {
  std::vector<TSNode> parts = named_children_of(n);
  std::string prefix;
  if (!parts.empty() && is_type(parts.front(), "string_start"))
    for (char c : text(parts.front())) {
      if (c == '"' || c == '\'') break;
      prefix += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  bool raw = prefix.find('r') != std::string::npos, fstr = prefix.find('f') != std::string::npos,
       bytes = prefix.find('b') != std::string::npos;
  Folded s;
  for (TSNode p : parts) {
    std::string_view pt = ts_node_type(p);
    if (pt == "string_content" || pt == "escape_sequence") {
      decode_content(text(p), line_of(p), raw, fstr, bytes, s);
    } else if (pt == "interpolation") {
      TSNode e = field_of(p, "expression");
      TSNode conv = field_of(p, "type_conversion");
      bool simple = ts_node_is_null(field_of(p, "format_specifier")) &&
                    (ts_node_is_null(conv) || text(conv) == "!s") && !text(p).ends_with("=}");
      Folded piece;
      FoldContext strict = ctx.strict();
      std::optional<long long> iv = simple ? fold_int(e, strict) : std::nullopt;
      if (iv) {
        piece.append_text(std::to_string(*iv), line_of(e));
      } else if (!simple || !fold_string(e, strict, piece)) {
        // In an embedded source the expression's text reads better than
        // nothing: `int n = {N};` stays `int n = N;`.
        if (ctx.exhausted()) return false;
        piece = Folded{};
        if (!unknown_part(ctx, piece, text(e), line_of(e))) return false;
      }
      s.append(piece);
    }
    if (s.text.size() > kMaxFoldBytes) return give_up(ctx);
  }
  if (s.lines.empty() && s.text.empty()) {
    // An empty literal still has a place.
  }
  out.append(s);
  return true;
}

// Implicit juxtaposition: "a" "b".
bool Module::Impl::fold_concatenated(TSNode n, FoldContext& ctx, Folded& out) const {
  for (TSNode p : named_children_of(n)) {
    Folded piece;
    if (!fold_string(p, ctx, piece)) return false;
    out.append(piece);
    if (out.text.size() > kMaxFoldBytes) return give_up(ctx);
  }
  return true;
}

// a + b + c: each operand folded, an unknown one left as a gap when lenient.
bool Module::Impl::fold_sum(TSNode n, FoldContext& ctx, Folded& out) const {
// Flatten the left spine iteratively: a + b + c + ... nests leftwards.
std::vector<TSNode> rights;
TSNode cur = n;
while (is_type(cur, "binary_operator") && text(field_of(cur, "operator")) == "+") {
  rights.push_back(field_of(cur, "right"));
  cur = unparen(field_of(cur, "left"));
  if (++ctx.sh->steps > kMaxFoldSteps) return false;
}
rights.push_back(cur);
for (auto it = rights.rbegin(); it != rights.rend(); ++it) {
  Folded piece;
  if (!fold_string(*it, ctx, piece)) {
    if (ctx.exhausted()) return false;
    piece = Folded{};
    if (!unknown_part(ctx, piece, "", line_of(*it))) return false;
  }
  out.append(piece);
  if (out.text.size() > kMaxFoldBytes) return give_up(ctx);
}
return true;
}

// "template %s" % args.
bool Module::Impl::fold_percent_format(TSNode n, int line, FoldContext& ctx, Folded& out) const {
Folded tmpl;
FoldContext strict = ctx.strict();
if (!fold_string(field_of(n, "left"), strict, tmpl)) return unknown_part(ctx, out, "", line);
TSNode right = unparen(field_of(n, "right"));
std::vector<TSNode> args = is_type(right, "tuple") ? named_children_of(right) : std::vector<TSNode>{right};
Folded res;
size_t ai = 0, li = 0;
for (size_t i = 0; i < tmpl.text.size(); ++i) {
  char c = tmpl.text[i];
  int here = tmpl.lines[std::min(li, tmpl.lines.size() - 1)];
  if (c != '%') {
    int next = tmpl.lines[std::min(li + 1, tmpl.lines.size() - 1)];
    res.put(c, here, next);
    if (c == '\n') ++li;
    continue;
  }
  if (i + 1 >= tmpl.text.size()) return unknown_part(ctx, out, "", line);
  char spec = tmpl.text[++i];
  if (spec == '%') {
    res.put('%', here, here);
    continue;
  }
  if (ai >= args.size()) return unknown_part(ctx, out, "", line);
  TSNode a = args[ai++];
  FoldContext sub = ctx.strict();
  if (spec == 'd' || spec == 'i' || spec == 'x' || spec == 'X') {
    auto v = fold_int(a, sub);
    if (!v) return unknown_part(ctx, out, "", line);
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, *v, spec == 'd' || spec == 'i' ? 10 : 16);
    std::string digits(buf, r.ptr);
    if (spec == 'X') std::transform(digits.begin(), digits.end(), digits.begin(), ::toupper);
    res.append_text(digits, here);
  } else if (spec == 's') {
    if (auto v = fold_int(a, sub)) {
      res.append_text(std::to_string(*v), here);
    } else {
      Folded piece;
      if (!fold_string(a, sub, piece)) return unknown_part(ctx, out, "", line);
      res.append(piece);
    }
  } else {
    return unknown_part(ctx, out, "", line);
  }
}
if (ai != args.size()) return unknown_part(ctx, out, "", line);
out.append(res);
return true;
}

// A name or attribute bound to constants (possibly grown with +=).
bool Module::Impl::fold_bound_name(TSNode n, int line, FoldContext& ctx, Folded& out) const {
  std::vector<int> chain;
  if (!value_chain(n, chain)) {
    // Class.X and self.X are tried above; anything else is unknown.
    return unknown_part(ctx, out, "", line);
  }
  for (int b : chain)
    if (std::find(ctx.active.begin(), ctx.active.end(), b) != ctx.active.end()) return false;  // a cycle
  Folded res;
  for (size_t i = 0; i < chain.size(); ++i) {
    const Binding& b = bindings[chain[i]];
    if (i > 0 && b.op != '+') return unknown_part(ctx, out, "", line);
    const long long key = static_cast<long long>(chain[i]) * 2 + (ctx.lenient ? 1 : 0);
    Folded piece;
    bool ok = true;
    if (auto hit = ctx.sh->memo.find(key); hit != ctx.sh->memo.end()) {
      piece = hit->second;
    } else {
      ctx.active.push_back(chain[i]);
      ok = fold_string(b.value, ctx, piece);
      ctx.active.pop_back();
      // Small values only: large ones reach the size limit before they can multiply.
      if (ok && piece.text.size() <= kMaxMemoBytes) ctx.sh->memo.emplace(key, piece);
    }
    if (!ok) return ctx.exhausted() ? false : unknown_part(ctx, out, "", line);
    res.append(piece);
    if (res.text.size() > kMaxFoldBytes) return give_up(ctx);
  }
  out.append(res);
  return true;
}

// A call: string methods on a constant receiver, then str/bytes/chr/dedent.
bool Module::Impl::fold_call(TSNode n, int line, FoldContext& ctx, Folded& out) const {
  TSNode fn = unparen(field_of(n, "function"));
  std::vector<TSNode> args, kwargs;
  for (TSNode a : named_children_of(field_of(n, "arguments"))) {
    if (is_type(a, "comment")) continue;
    (is_type(a, "keyword_argument") ? kwargs : args).push_back(a);
  }
  if (is_type(fn, "attribute"))
    if (std::optional<bool> done = fold_string_method(fn, args, kwargs, line, ctx, out)) return *done;
  return fold_builtin_call(fn, args, line, ctx, out);
}

// obj.join/format/encode/decode/strip/upper/lower/replace(...); nullopt when
// the method is none of these (the call is then tried as a builtin).
std::optional<bool> Module::Impl::fold_string_method(TSNode fn, const std::vector<TSNode>& args,
                                                     const std::vector<TSNode>& kwargs, int line, FoldContext& ctx,
                                                     Folded& out) const {
  std::string_view method = text(field_of(fn, "attribute"));
  TSNode obj = field_of(fn, "object");
  if (method == "join" && args.size() == 1 && kwargs.empty()) return fold_join(obj, args[0], line, ctx, out);
  if (method == "format") return fold_format(obj, args, kwargs, line, ctx, out);
  if (method == "encode" || method == "decode") return fold_string(obj, ctx, out);
  if (args.empty() && kwargs.empty() &&
      (method == "strip" || method == "lstrip" || method == "rstrip" || method == "upper" || method == "lower"))
    return fold_strip_or_case(obj, method, line, ctx, out);
  if (method == "replace" && args.size() >= 2 && args.size() <= 3 && kwargs.empty())
    return fold_replace(obj, args, line, ctx, out);
  return std::nullopt;
}

// sep.join([...]): the separator and every item constant.
bool Module::Impl::fold_join(TSNode obj, TSNode seq_expr, int line, FoldContext& ctx, Folded& out) const {
Folded sep;
FoldContext strict = ctx.strict();
if (!fold_string(obj, strict, sep)) return unknown_part(ctx, out, "", line);
TSNode seq = unparen(seq_expr);
std::string_view st = ts_node_type(seq);
if (st != "list" && st != "tuple" && st != "identifier" && st != "binary_operator")
  return unknown_part(ctx, out, "", line);
Folded res;
bool first = true;
std::vector<TSNode> items = sequence_items(seq, ctx);
if (ctx.sh->mutated_list) {
  if (!ctx.lenient) return false;
  res.complete = false;
}
for (TSNode item : items) {
  if (is_type(item, "list_splat") || (ts_node_eq(item, seq) && st != "list" && st != "tuple"))
    return unknown_part(ctx, out, "", line);
  if (!first) res.append(sep);
  first = false;
  Folded piece;
  if (!fold_string(item, ctx, piece)) {
    if (ctx.exhausted()) return false;
    piece = Folded{};
    if (!unknown_part(ctx, piece, "", line_of(item))) return false;
  }
  res.append(piece);
  if (res.text.size() > kMaxFoldBytes) return give_up(ctx);
}
out.append(res);
return true;
}

// "{} {name}".format(...): positional, numbered and keyword fields, no format specs.
bool Module::Impl::fold_format(TSNode obj, const std::vector<TSNode>& args, const std::vector<TSNode>& kwargs, int line,
                               FoldContext& ctx, Folded& out) const {
Folded tmpl;
FoldContext strict = ctx.strict();
if (!fold_string(obj, strict, tmpl)) return unknown_part(ctx, out, "", line);
auto arg_value = [&](TSNode a, Folded& piece, int at) -> bool {
  FoldContext sub = ctx.strict();
  if (auto v = fold_int(a, sub)) {
    piece.append_text(std::to_string(*v), at);
    return true;
  }
  return fold_string(a, sub, piece);
};
Folded res;
size_t auto_index = 0, li = 0;
const std::string& s = tmpl.text;
for (size_t i = 0; i < s.size(); ++i) {
  char c = s[i];
  int here = tmpl.lines[std::min(li, tmpl.lines.size() - 1)];
  if ((c == '{' || c == '}') && i + 1 < s.size() && s[i + 1] == c) {
    res.put(c, here, here);
    ++i;
    continue;
  }
  if (c == '}') return unknown_part(ctx, out, "", line);
  if (c != '{') {
    res.put(c, here, tmpl.lines[std::min(li + 1, tmpl.lines.size() - 1)]);
    if (c == '\n') ++li;
    continue;
  }
  size_t close = s.find('}', i);
  if (close == std::string::npos) return unknown_part(ctx, out, "", line);
  std::string field = s.substr(i + 1, close - i - 1);
  i = close;
  if (field.ends_with("!s")) field.resize(field.size() - 2);
  if (field.find_first_of("!:[.{") != std::string::npos) return unknown_part(ctx, out, "", line);
  TSNode a{};
  if (field.empty()) {
    if (auto_index >= args.size()) return unknown_part(ctx, out, "", line);
    a = args[auto_index++];
  } else if (std::isdigit(static_cast<unsigned char>(field[0]))) {
    size_t k = 0;
    auto r = std::from_chars(field.data(), field.data() + field.size(), k);
    if (r.ec != std::errc() || k >= args.size()) return unknown_part(ctx, out, "", line);
    a = args[k];
  } else {
    for (TSNode kw : kwargs)
      if (text(field_of(kw, "name")) == field) a = field_of(kw, "value");
    if (ts_node_is_null(a)) return unknown_part(ctx, out, "", line);
  }
  if (is_type(a, "list_splat") || is_type(a, "dictionary_splat")) return unknown_part(ctx, out, "", line);
  Folded piece;
  if (!arg_value(a, piece, here)) return unknown_part(ctx, out, "", line);
  res.append(piece);
}
out.append(res);
return true;
}

// s.strip()/lstrip()/rstrip()/upper()/lower() without arguments.
bool Module::Impl::fold_strip_or_case(TSNode obj, std::string_view method, int line, FoldContext& ctx,
                                      Folded& out) const {
  Folded s;
  FoldContext strict = ctx.strict();
  if (!fold_string(obj, strict, s)) return unknown_part(ctx, out, "", line);
  if (method == "upper" || method == "lower") {
    if (!ascii_only(s.text)) return unknown_part(ctx, out, "", line);
    for (char& c : s.text) c = static_cast<char>(method == "upper" ? std::toupper(c) : std::tolower(c));
  } else {
    auto ws = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
    if (method != "lstrip")
      while (!s.text.empty() && ws(s.text.back())) {
        if (s.text.back() == '\n') s.lines.pop_back();
        s.text.pop_back();
      }
    if (method != "rstrip") {
      size_t k = 0, nl = 0;
      while (k < s.text.size() && ws(s.text[k])) nl += s.text[k++] == '\n';
      s.text.erase(0, k);
      s.lines.erase(s.lines.begin(), s.lines.begin() + static_cast<long>(std::min(nl, s.lines.size())));
    }
    s.fix_lines();
  }
  out.append(s);
  return true;
}

// s.replace(a, b[, count]).
bool Module::Impl::fold_replace(TSNode obj, const std::vector<TSNode>& args, int line, FoldContext& ctx,
                                Folded& out) const {
Folded s, a, b;
FoldContext strict = ctx.strict();
if (!fold_string(obj, strict, s) || !fold_string(args[0], strict, a) || !fold_string(args[1], strict, b))
  return unknown_part(ctx, out, "", line);
long long count = -1;
if (args.size() == 3) {
  auto c = fold_int(args[2], strict);
  if (!c) return unknown_part(ctx, out, "", line);
  count = *c;
}
if (a.text.empty()) return unknown_part(ctx, out, "", line);
std::string r;
size_t from = 0;
for (long long done = 0; count < 0 || done < count; ++done) {
  size_t at = s.text.find(a.text, from);
  if (at == std::string::npos) break;
  r.append(s.text, from, at - from);
  r += b.text;
  from = at + a.text.size();
  if (r.size() > kMaxFoldBytes) return give_up(ctx);
}
r.append(s.text, from);
bool same_lines = a.text.find('\n') == std::string::npos && b.text.find('\n') == std::string::npos;
s.text = std::move(r);
if (!same_lines) s.fix_lines();
out.append(s);
return true;
}

// str(x), bytes(x), chr(i), textwrap.dedent(s), inspect.cleandoc(s).
bool Module::Impl::fold_builtin_call(TSNode fn, const std::vector<TSNode>& args, int line, FoldContext& ctx,
                                     Folded& out) const {
  Sym f = resolve(fn);
  if (f.kind != Sym::Kind::name) return unknown_part(ctx, out, "", line);
  if ((f.q == "str" || f.q == "bytes") && args.size() == 1) {
    FoldContext sub = ctx.strict();
    if (auto v = fold_int(args[0], sub)) {
      out.append_text(std::to_string(*v), line);
      return true;
    }
    return fold_string(args[0], ctx, out);
  }
  if (f.q == "chr" && args.size() == 1) {
    FoldContext sub = ctx.strict();
    auto v = fold_int(args[0], sub);
    if (!v || *v < 0 || *v > 0x10FFFF) return unknown_part(ctx, out, "", line);
    Folded s;
    put_utf8(s, static_cast<uint32_t>(*v), line);
    out.append(s);
    return true;
  }
  if ((f.q == "textwrap.dedent" || f.q == "inspect.cleandoc") && args.size() == 1) {
    Folded s;
    if (!fold_string(args[0], ctx, s)) return false;
    if (f.q == "textwrap.dedent") {
      s.text = dedent(s.text);
    } else {
      s.text = dedent(s.text);
    }
    s.fix_lines();
    out.append(s);
    return true;
  }
  return unknown_part(ctx, out, "", line);
}

// "abc"[i] and "abc"[a:b:c] on ASCII strings.
bool Module::Impl::fold_subscript(TSNode n, int line, FoldContext& ctx, Folded& out) const {
  // "lumtam"[::-1] and friends, on ASCII strings.
  Folded s;
  FoldContext strict = ctx.strict();
  if (!fold_string(field_of(n, "value"), strict, s) || !ascii_only(s.text)) return unknown_part(ctx, out, "", line);
  TSNode idx = field_of(n, "subscript");
  const long long len = static_cast<long long>(s.text.size());
  std::string r;
  if (is_type(idx, "slice")) {
    std::optional<long long> part[3];
    bool present[3] = {false, false, false};
    int k = 0;
    TSTreeCursor c = ts_tree_cursor_new(idx);
    bool ok = true;
    if (ts_tree_cursor_goto_first_child(&c)) {
      do {
        TSNode x = ts_tree_cursor_current_node(&c);
        if (!ts_node_is_named(x)) {
          if (text(x) == ":") ++k;
          continue;
        }
        if (k > 2) ok = false;
        else {
          present[k] = true;
          part[k] = fold_int(x, strict);
          if (!part[k]) ok = false;
        }
      } while (ts_tree_cursor_goto_next_sibling(&c));
    }
    ts_tree_cursor_delete(&c);
    if (!ok) return unknown_part(ctx, out, "", line);
    long long step = present[2] ? *part[2] : 1;
    if (step == 0) return unknown_part(ctx, out, "", line);
    auto clamp = [&](long long v, long long lo, long long hi) { return std::min(std::max(v, lo), hi); };
    long long start, stop;
    if (step > 0) {
      start = present[0] ? (*part[0] < 0 ? clamp(*part[0] + len, 0, len) : clamp(*part[0], 0, len)) : 0;
      stop = present[1] ? (*part[1] < 0 ? clamp(*part[1] + len, 0, len) : clamp(*part[1], 0, len)) : len;
      for (long long i = start; i < stop; i += step) r += s.text[static_cast<size_t>(i)];
    } else {
      start = present[0] ? (*part[0] < 0 ? clamp(*part[0] + len, -1, len - 1) : clamp(*part[0], -1, len - 1)) : len - 1;
      stop = present[1] ? (*part[1] < 0 ? clamp(*part[1] + len, -1, len - 1) : clamp(*part[1], -1, len - 1)) : -1;
      for (long long i = start; i > stop; i += step) r += s.text[static_cast<size_t>(i)];
    }
  } else {
    auto i = fold_int(idx, strict);
    if (!i) return unknown_part(ctx, out, "", line);
    long long k = *i < 0 ? *i + len : *i;
    if (k < 0 || k >= len) return unknown_part(ctx, out, "", line);
    r = s.text.substr(static_cast<size_t>(k), 1);
  }
  Folded res;
  int at = s.lines.empty() ? line : s.lines.front();
  for (char c : r) res.put(c, at, at);
  out.append(res);
  return true;
}

// ---- integers ---------------------------------------------------------------

namespace {

// Python's integer operator `op` on a and b, or none where it overflows a
// long long or is undefined (division by zero, a negative shift).
std::optional<long long> int_binary(std::string_view op, long long a, long long b) {
  long long r = 0;
  if (op == "+") return __builtin_add_overflow(a, b, &r) ? std::nullopt : std::optional<long long>(r);
  if (op == "-") return __builtin_sub_overflow(a, b, &r) ? std::nullopt : std::optional<long long>(r);
  if (op == "*") return __builtin_mul_overflow(a, b, &r) ? std::nullopt : std::optional<long long>(r);
  if (op == "//" || op == "%") {
    if (b == 0 || (a == LLONG_MIN && b == -1)) return std::nullopt;
    long long q = a / b, m = a % b;
    if (m != 0 && ((m < 0) != (b < 0))) {  // Python floors
      --q;
      m += b;
    }
    return op == "//" ? q : m;
  }
  if (op == "**") {
    if (b < 0 || b > 64) return std::nullopt;
    r = 1;
    for (long long i = 0; i < b; ++i)
      if (__builtin_mul_overflow(r, a, &r)) return std::nullopt;
    return r;
  }
  if (op == "<<") {
    if (b < 0 || b > 62 || a < 0 || (a >> (62 - b)) != 0) return std::nullopt;
    return a << b;
  }
  if (op == ">>") return b < 0 ? std::nullopt : std::optional<long long>(b > 63 ? (a < 0 ? -1 : 0) : a >> b);
  if (op == "&") return a & b;
  if (op == "|") return a | b;
  if (op == "^") return a ^ b;
  return std::nullopt;
}

}  // namespace

std::optional<long long> Module::Impl::fold_int(TSNode n, FoldContext& ctx) const {
  NestGuard guard;
  Depth depth(ctx.depth);
  ++ctx.sh->steps;
  n = unparen(n);
  if (!guard.ok || ts_node_is_null(n) || ctx.depth > kMaxFoldDepth || ctx.exhausted()) return std::nullopt;
  std::string_view t = ts_node_type(n);
  if (t == "integer") return parse_int_literal(text(n));
  if (t == "unary_operator") {
    auto v = fold_int(field_of(n, "argument"), ctx);
    if (!v) return std::nullopt;
    std::string_view op = text(field_of(n, "operator"));
    if (op == "-") return *v == LLONG_MIN ? std::nullopt : std::optional<long long>(-*v);
    if (op == "+") return v;
    if (op == "~") return ~*v;
    return std::nullopt;
  }
  if (t == "binary_operator") {
    std::string_view op = text(field_of(n, "operator"));
    auto a = fold_int(field_of(n, "left"), ctx);
    if (!a) return std::nullopt;
    auto b = fold_int(field_of(n, "right"), ctx);
    if (!b) return std::nullopt;
    return int_binary(op, *a, *b);
  }
  if (t == "identifier" || t == "attribute") {
    std::vector<int> chain;
    if (!value_chain(n, chain) || chain.size() != 1) return std::nullopt;
    if (std::find(ctx.active.begin(), ctx.active.end(), chain[0]) != ctx.active.end()) return std::nullopt;
    ctx.active.push_back(chain[0]);
    auto v = fold_int(bindings[chain[0]].value, ctx);
    ctx.active.pop_back();
    return v;
  }
  if (t == "call") {
    Sym f = resolve(field_of(n, "function"));
    std::vector<TSNode> args = named_children_of(field_of(n, "arguments"));
    if (f.kind != Sym::Kind::name || args.size() != 1 || is_type(args[0], "keyword_argument")) return std::nullopt;
    if (f.q == "len") {
      Folded s;
      FoldContext sub = ctx.strict();
      if (!fold_string(args[0], sub, s)) return std::nullopt;
      long long cps = 0;
      for (char c : s.text) cps += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
      return cps;
    }
    if (f.q == "int") {
      if (auto v = fold_int(args[0], ctx)) return v;
      Folded s;
      FoldContext sub = ctx.strict();
      if (!fold_string(args[0], sub, s)) return std::nullopt;
      std::string_view sv = s.text;
      while (!sv.empty() && sv.front() == ' ') sv.remove_prefix(1);
      while (!sv.empty() && sv.back() == ' ') sv.remove_suffix(1);
      long long v = 0;
      auto r = std::from_chars(sv.data(), sv.data() + sv.size(), v);
      if (r.ec != std::errc() || r.ptr != sv.data() + sv.size()) return std::nullopt;
      return v;
    }
    if (f.q == "ord") {
      Folded s;
      FoldContext sub = ctx.strict();
      if (!fold_string(args[0], sub, s) || s.text.empty()) return std::nullopt;
      const auto* u = reinterpret_cast<const unsigned char*>(s.text.data());
      size_t len = s.text.size();
      uint32_t cp = u[0];
      size_t need = cp < 0x80 ? 1 : (cp >> 5) == 6 ? 2 : (cp >> 4) == 14 ? 3 : 4;
      if (need != len) return std::nullopt;
      if (need == 2) cp = ((u[0] & 0x1F) << 6) | (u[1] & 0x3F);
      if (need == 3) cp = ((u[0] & 0x0F) << 12) | ((u[1] & 0x3F) << 6) | (u[2] & 0x3F);
      if (need == 4) cp = ((u[0] & 0x07) << 18) | ((u[1] & 0x3F) << 12) | ((u[2] & 0x3F) << 6) | (u[3] & 0x3F);
      return cp;
    }
  }
  return std::nullopt;
}

// ---- sequences --------------------------------------------------------------

namespace {
// [a] + [b], names + [c]: a + between lists, not between strings.
bool is_list_concat(TSNode x) {
  if (!is_type(x, "binary_operator")) return false;
  for (TSNode side : {unparen(ts_node_child_by_field_name(x, "left", 4)), unparen(ts_node_child_by_field_name(x, "right", 5))})
    if (is_type(side, "list") || is_type(side, "tuple") || is_type(side, "list_comprehension")) return true;
  return false;
}
}  // namespace

std::vector<TSNode> Module::Impl::sequence_items(TSNode n, FoldContext& ctx) const {
  std::vector<TSNode> out;
  // An explicit worklist: lists concatenated with + or named, in order.
  std::vector<TSNode> work{unparen(n)};
  while (!work.empty()) {
    if (++ctx.sh->steps > kMaxFoldSteps || out.size() > 100000) break;
    TSNode x = work.back();
    work.pop_back();
    std::string_view t = ts_node_is_null(x) ? "" : ts_node_type(x);
    if (t == "list" || t == "tuple" || t == "expression_list") {
      for (TSNode c : named_children_of(x))
        if (!is_type(c, "comment")) out.push_back(c);
      continue;
    }
    if (is_list_concat(x)) {
      work.push_back(unparen(field_of(x, "right")));
      work.push_back(unparen(field_of(x, "left")));
      continue;
    }
    if (t == "identifier" && ctx.active.size() < 64) {
      if (mutated_names.count(std::string(text(x)))) ctx.sh->mutated_list = true;
      std::vector<int> chain;
      if (value_chain(x, chain) && std::find(ctx.active.begin(), ctx.active.end(), chain[0]) == ctx.active.end()) {
        TSNode v = unparen(bindings[chain[0]].value);
        std::string_view vt = ts_node_type(v);
        if (vt == "list" || vt == "tuple" || is_list_concat(v)) {
          ctx.active.push_back(chain[0]);
          std::vector<TSNode> inner = sequence_items(v, ctx);
          ctx.active.pop_back();
          out.insert(out.end(), inner.begin(), inner.end());
          // x += [more]
          for (size_t i = 1; i < chain.size(); ++i) {
            if (bindings[chain[i]].op != '+') break;
            std::vector<TSNode> more = sequence_items(bindings[chain[i]].value, ctx);
            out.insert(out.end(), more.begin(), more.end());
          }
          continue;
        }
      }
    }
    out.push_back(x);
  }
  return out;
}

}  // namespace kaudit::analyzer::python
