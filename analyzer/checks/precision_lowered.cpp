// precision-lowered: the math is done at a precision other than the one the
// problem intends: fp8 operands converted to bf16/fp16/fp32 before the dot,
// and TF32 or reduced-precision-reduction switches for fp32 math.
#include "analyzer/checks/pattern_helpers.h"
#include "analyzer/checks/factories.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace kaudit::analyzer {
namespace {

using python::Node;
using rules::Category;
using rules::Confidence;

const CheckInfo kInfo{
    "precision-lowered",
    Category::benchmark_aware,
    Confidence::medium,
    kPython | kCxx,
    "the math runs at a precision other than the one the problem intends",
    "Either the operands of an fp8 problem are converted to a wider type before the dot product "
    "(x.to(torch.bfloat16), .half(), .float() on the inputs in the forward path; .to(tl.bfloat16) or tl.cast "
    "on what a Triton kernel passes to tl.dot; __nv_fp8_e4m3 to __nv_bfloat16 or half conversions in CUDA "
    "device code), or TF32 and reduced-precision switches are turned on for fp32 math "
    "(torch.backends.cuda.matmul.allow_tf32 = True, torch.backends.cudnn.allow_tf32 = True, "
    "torch.set_float32_matmul_precision(\"high\" or \"medium\"), allow_bf16/fp16_reduced_precision_reduction, "
    "fp32_precision = \"tf32\", tl.dot(..., input_precision=\"tf32\")). The kernel still does real work on "
    "every call, but it is graded against a problem whose intended arithmetic it does not perform: an fp8 "
    "problem computed on bf16 tensor cores measures a different kernel, and TF32 makes an fp32 problem "
    "several times faster at lower accuracy. The problem's precision comes from problem.yaml; without a "
    "problem, fp8 is assumed when the file names float8 dtypes."
    "\n\n**Confidence.** High: a Triton kernel converts an fp8 operand to a wider type before "
    "tl.dot, or device code converts fp8 before an MMA, on an fp8 problem. Medium: other fp8 "
    "conversions in device code, TF32 switched on for a problem with a stated fp32 precision. "
    "Low: TF32 switches without a stated precision. Benchmark-aware at most. Clean "
    "counter-example: an fp8 GEMM whose tl.dot takes the e4m3 operands as they are and scales the "
    "fp32 accumulator in the epilogue: not reported.",
    "Read the problem's `precision:` and check the dtype that reaches the tensor-core instruction: print "
    "the dtypes passed to tl.dot (or look at the PTX/SASS for e4m3 versus bf16 MMA instructions), and for "
    "TF32 switches, run once with the switch off and compare speed and error."};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

bool is_fp8_name(std::string_view s) {
  const std::string l = lower(std::string(s));
  return l.find("float8") != std::string::npos || l.find("fp8") != std::string::npos ||
         l.find("e4m3") != std::string::npos || l.find("e5m2") != std::string::npos;
}

// The problem's intended precision, lower-cased, or empty.
std::string problem_precision(const Context& ctx) {
  if (!ctx.problem || !ctx.problem->problem) return {};
  const auto& y = ctx.problem->problem->yaml;
  if (!y.is_object()) return {};
  for (const char* key : {"precision", "dtype"})
    if (y.contains(key) && y.at(key).is_string()) return lower(y.at(key).get<std::string>());
  return {};
}

// Wider float types a value can be converted to, as Python spells them.
bool is_wider_dtype(std::string_view q) {
  static const std::set<std::string, std::less<>> names = {
      "torch.bfloat16", "torch.float16", "torch.half", "torch.float32", "torch.float", "torch.float64",
      "torch.double",   "triton.language.bfloat16", "triton.language.float16", "triton.language.float32",
      "triton.language.float64"};
  return names.count(q) > 0;
}

// Whether the file refers to float8 dtypes anywhere (torch.float8_e4m3fn, tl.float8e4nv).
bool mentions_float8(const python::Module& m) {
  bool hit = false;
  m.walk([&](Node n) {
    if (hit) return false;
    if (n.type() == "attribute") {
      Node a = n.field("attribute");
      if (a.valid() && lower(std::string(a.text())).find("float8") != std::string::npos) hit = true;
    }
    return true;
  });
  return hit;
}

std::vector<std::string> parameter_names(Node def) {
  std::vector<std::string> out;
  Node params = def.field("parameters");
  if (!params.valid()) return out;
  for (const auto& p : params.named_children()) {
    if (p.type() == "identifier") {
      out.emplace_back(p.text());
    } else if (p.type() == "default_parameter" || p.type() == "typed_default_parameter") {
      Node n = p.field("name");
      if (n.valid()) out.emplace_back(n.text());
    } else if (p.type() == "typed_parameter") {
      for (const auto& k : p.named_children())
        if (k.type() == "identifier") {
          out.emplace_back(k.text());
          break;
        }
    }
  }
  return out;
}

class PrecisionLoweredCheck : public Check {
 public:
  const CheckInfo& info() const override { return kInfo; }

  void run(const Submission& s, const Context& ctx, FindingSink& sink) const override {
    const std::string precision = problem_precision(ctx);
    bool fp8 = is_fp8_name(precision);
    if (precision.empty() && s.python) fp8 = mentions_float8(*s.python);
    const bool fp32 = precision.empty() || precision.find("32") != std::string::npos || precision == "float";
    if (s.python) {
      const python::Module& m = *s.python;
      tf32_switches(m, precision, sink);
      if (fp8) {
        upcasts_on_forward_path(m, sink);
        upcasts_before_triton_dot(m, sink);
      }
      triton_dot_precision(m, precision, fp32, sink);
    }
    for (const auto& unit : s.cxx)
      if (unit.file && unit.facts) device_conversions(*unit.file, *unit.facts, sink);
  }

 private:
  static std::optional<Confidence> tf32_confidence(const std::string& precision) {
    // TF32 only changes fp32 math; for a bf16/fp8 problem it is mostly harmless.
    if (precision.empty() || precision.find("32") != std::string::npos || precision == "float") return std::nullopt;
    return Confidence::low;
  }

  static void tf32_switches(const python::Module& m, const std::string& precision, FindingSink& sink) {
    static const std::set<std::string, std::less<>> bool_switches = {
        "torch.backends.cuda.matmul.allow_tf32",
        "torch.backends.cudnn.allow_tf32",
        "torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction",
        "torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction",
        "torch.backends.cuda.matmul.allow_fp16_accumulation"};
    static const std::set<std::string, std::less<>> string_switches = {
        "torch.backends.cuda.matmul.fp32_precision", "torch.backends.cudnn.fp32_precision",
        "torch.backends.cudnn.conv.fp32_precision", "torch.backends.cudnn.rnn.fp32_precision",
        "torch.backends.fp32_precision", "torch.backends.mkldnn.fp32_precision"};
    const auto conf = tf32_confidence(precision);
    auto judge = [&](const std::string& q, Node value, int line, int col) {
      if (bool_switches.count(q) && patterns::is_true_literal(value)) {
        sink.report(kInfo, m.file(), line, col,
                   q + " is turned on, so fp32 matrix products run in a reduced precision the problem does not "
                       "intend.",
                   q, conf);
      } else if (string_switches.count(q)) {
        auto v = value.valid() ? m.constant_string(value) : std::nullopt;
        if (v && (*v == "tf32" || *v == "bf16" || *v == "bf16x3"))
          sink.report(kInfo, m.file(), line, col,
                     q + " is set to \"" + *v + "\", so fp32 math runs in a reduced precision the problem does not intend.",
                     q, conf);
      }
    };
    m.walk([&](Node n) {
      if (n.type() == "assignment") {
        Node left = n.field("left");
        if (left.valid() && left.type() == "attribute")
          if (auto q = m.qualified_name(left)) judge(*q, n.field("right"), n.line(), n.column());
      }
      return true;
    });
    for (const auto& c : m.calls()) {
      if (c.qualified == "torch.set_float32_matmul_precision") {
        auto args = c.node.positional_args();
        Node v = args.empty() ? c.node.keyword_arg("precision") : args[0];
        auto s = v.valid() ? m.constant_string(v) : std::nullopt;
        if (s && (*s == "high" || *s == "medium"))
          sink.report(kInfo, m.file(), c.node.line(), c.node.column(),
                     "torch.set_float32_matmul_precision(\"" + *s +
                         "\") lets fp32 matrix products run in TF32 or bf16, a lower precision than the problem intends.",
                     c.qualified, conf);
      } else if (c.callee.valid() && (c.callee.text() == "setattr" || c.qualified == "builtins.setattr")) {
        auto args = c.node.positional_args();
        if (args.size() < 3) continue;
        auto obj = m.qualified_name(args[0]);
        auto attr = m.constant_string(args[1]);
        if (obj && attr) judge(*obj + "." + *attr, args[2], c.node.line(), c.node.column());
      }
    }
  }

  // x.to(torch.bfloat16), x.half(), x.float() on an input of a function on the forward path.
  static void upcasts_on_forward_path(const python::Module& m, FindingSink& sink) {
    const auto& fns = m.functions();
    for (const auto& c : m.calls()) {
      if (!m.on_forward_path(c.function_index)) continue;
      const auto& fn = fns[c.function_index];
      if (fn.is_triton_kernel) continue;  // handled with the dot below
      std::string target = conversion_target(m, c);
      if (target.empty()) continue;
      // An upcast inside an except handler belongs to a library fallback, which
      // fallback-to-banned reports; the authored path is what this check judges.
      bool in_handler = false;
      for (Node p = c.node.parent(); p.valid() && !in_handler; p = p.parent()) {
        if (p.type() == "except_clause" || p.type() == "except_group_clause") in_handler = true;
        if (p.type() == "function_definition") break;
      }
      if (in_handler) continue;
      Node recv = c.callee.field("object");
      if (!recv.valid()) continue;
      std::string name(recv.text());
      bool input = false;
      if (recv.type() == "identifier") {
        for (const auto& p : parameter_names(fn.node))
          if (p == name && p != "self") input = true;
      } else if (recv.type() == "attribute" && name.starts_with("self.") && name.find('.', 5) == std::string::npos) {
        input = true;  // a stored weight
      }
      // Scales and biases of an fp8 problem are fp32 by design.
      const std::string l = lower(name);
      if (!input || l.find("scale") != std::string::npos || l.find("bias") != std::string::npos) continue;
      sink.report(kInfo, m.file(), c.node.line(), c.node.column(),
                 "The fp8 input `" + name + "` is converted to " + target +
                     " before the product, so the fp8 problem is computed at a different precision than intended.",
                 name);
    }
  }

  // The dtype a call converts its receiver to, when it is a wider float; empty otherwise.
  static std::string conversion_target(const python::Module& m, const python::Call& c) {
    if (c.method == "half") return "float16";
    if (c.method == "bfloat16") return "bfloat16";
    if (c.method == "float") return "float32";
    if (c.method == "double") return "float64";
    if (c.method != "to" && c.method != "type") return {};
    std::vector<Node> cands = c.node.positional_args();
    if (Node d = c.node.keyword_arg("dtype"); d.valid()) cands.push_back(d);
    for (const auto& a : cands) {
      auto q = m.qualified_name(a);
      if (q && is_wider_dtype(*q)) return std::string(patterns::last_component(*q));
    }
    return {};
  }

  // In a Triton kernel: a = tl.load(...).to(tl.bfloat16); acc += tl.dot(a, b).
  static void upcasts_before_triton_dot(const python::Module& m, FindingSink& sink) {
    const auto& fns = m.functions();
    for (size_t i = 0; i < fns.size(); ++i) {
      if (!fns[i].is_triton_kernel) continue;
      std::vector<const python::Call*> dots, convs;
      for (const auto& c : m.calls()) {
        if (c.function_index != static_cast<int>(i)) continue;
        if (c.qualified == "triton.language.dot" || c.qualified == "triton.language.dot_scaled") dots.push_back(&c);
        else if (!conversion_target(m, c).empty() || triton_cast_target(m, c)) convs.push_back(&c);
      }
      if (dots.empty()) continue;
      std::set<std::string> operand_names;
      std::vector<Node> operands;
      for (const auto* d : dots) {
        auto args = d->node.positional_args();
        for (size_t k = 0; k < args.size() && k < 2; ++k) operands.push_back(args[k]);
        for (const char* kw : {"a", "b", "input", "other"})
          if (Node v = d->node.keyword_arg(kw); v.valid()) operands.push_back(v);
      }
      for (const auto& o : operands)
        m.walk(o, [&](Node n) {
          if (n.type() == "identifier") operand_names.emplace(n.text());
          return true;
        });
      for (const auto* c : convs) {
        bool feeds_dot = false;
        for (const auto& o : operands)
          if (o.contains(c->node)) feeds_dot = true;
        if (!feeds_dot) {
          // Assigned to a name that the dot reads.
          Node p = c->node.parent();
          while (p.valid() && (p.type() == "parenthesized_expression" || p.type() == "call" || p.type() == "attribute" ||
                               p.type() == "argument_list"))
            p = p.parent();
          if (p.valid() && p.type() == "assignment") {
            Node left = p.field("left");
            if (left.valid() && left.type() == "identifier" && operand_names.count(std::string(left.text())))
              feeds_dot = true;
          }
        }
        if (!feeds_dot) continue;
        // The widened operand is seen flowing into tl.dot: as certain as an
        // fp8 conversion before an MMA in device code.
        sink.report(kInfo, m.file(), c->node.line(), c->node.column(),
                   "The Triton kernel " + fns[i].name +
                       " converts an fp8 operand to a wider type before tl.dot, so the fp8 problem is computed on "
                       "bf16/fp16/fp32 tensor cores instead.",
                   fns[i].name, Confidence::high);
      }
    }
  }

  static bool triton_cast_target(const python::Module& m, const python::Call& c) {
    if (c.qualified != "triton.language.cast") return false;
    auto args = c.node.positional_args();
    Node d = args.size() >= 2 ? args[1] : c.node.keyword_arg("dtype");
    auto q = d.valid() ? m.qualified_name(d) : std::nullopt;
    return q && is_wider_dtype(*q);
  }

  // tl.dot(a, b, allow_tf32=True) / input_precision="tf32" on an fp32 problem.
  static void triton_dot_precision(const python::Module& m, const std::string& precision, bool fp32,
                                   FindingSink& sink) {
    if (!fp32) return;
    const auto conf = precision.empty() ? Confidence::low : Confidence::medium;
    for (const auto& c : m.calls()) {
      if (c.qualified != "triton.language.dot") continue;
      bool tf32 = patterns::is_true_literal(c.node.keyword_arg("allow_tf32"));
      if (Node p = c.node.keyword_arg("input_precision"); p.valid()) {
        auto v = m.constant_string(p);
        if (v && (*v == "tf32" || *v == "tf32x3")) tf32 = true;
      }
      if (tf32)
        sink.report(kInfo, m.file(), c.node.line(), c.node.column(),
                   "tl.dot is asked for TF32 inputs, so fp32 operands are rounded to TF32 before the product, a "
                   "lower precision than the problem intends.",
                   "triton.language.dot", conf);
    }
  }

  // __nv_fp8_e4m3 -> __nv_bfloat16 / half / float in device code.
  static void device_conversions(const SourceFile& file, const cxx::Facts& facts, FindingSink& sink) {
    bool has_mma = false;
    for (const auto& c : facts.calls) {
      const std::string l = lower(c.callee.empty() ? c.spelled : c.callee);
      if (l.find("mma") != std::string::npos) has_mma = true;
    }
    for (const auto& cv : facts.conversions) {
      if (!is_fp8_name(cv.from_type) || is_fp8_name(cv.to_type)) continue;
      const std::string to = lower(cv.to_type);
      if (to.find("bfloat16") == std::string::npos && to.find("half") == std::string::npos &&
          to.find("float") == std::string::npos && to.find("double") == std::string::npos)
        continue;
      sink.report(kInfo, file, cv.line, 0,
                 "Device code converts fp8 (" + cv.from_type + ") to " + cv.to_type +
                     (has_mma ? " before the MMA" : "") +
                     ", so the fp8 problem is computed at a different precision than intended.",
                 cv.from_type, has_mma ? Confidence::high : Confidence::medium);
    }
  }
};

}  // namespace

std::unique_ptr<Check> make_precision_lowered_check() { return std::make_unique<PrecisionLoweredCheck>(); }

}  // namespace kaudit::analyzer
