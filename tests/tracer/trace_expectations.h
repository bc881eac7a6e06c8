// What the traces of tests/gpu/tracer_cuda_app.cu and tracer_torch_app.py
// must show. Shared by the GPU test (on traces it has just recorded) and the
// model test (on the recorded fixtures), so that CI checks the same facts.
#pragma once

#include "tracer/call_summary.h"
#include "tracer/chrome_trace.h"
#include "tracer/families.h"
#include "tracer/trace.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace kaudit::tracer::testing {

inline const Process& cuda_process(const Trace& t) {
  for (const Process& p : t.processes)
    if (p.cupti_seen) return p;
  throw std::runtime_error("no process used CUDA");
}

inline uint32_t call_id(const Process& p, const std::string& phase) {
  for (const Call& c : p.calls)
    if (c.phase == phase) return c.id;
  ADD_FAILURE() << "no call " << phase;
  return 0xffffffff;
}

inline std::vector<const Kernel*> kernels_in(const Process& p, uint32_t call) {
  std::vector<const Kernel*> out;
  for (const Kernel& k : p.kernels)
    if (k.call == call) out.push_back(&k);
  return out;
}

inline std::vector<const Kernel*> kernels_named(const Process& p, const std::string& part) {
  std::vector<const Kernel*> out;
  for (const Kernel& k : p.kernels)
    if (k.display_name().find(part) != std::string::npos) out.push_back(&k);
  return out;
}

inline LibraryMatch library(const Process& p, const Kernel& k) {
  const Launcher* l = p.launcher(k.launcher);
  return Families::builtin().library_of(l != nullptr ? l->object : "", k.display_name());
}

inline std::string family(const Kernel& k) { return Families::builtin().family_of(k.display_name()); }

inline std::string describe(const Process& p, const std::vector<const Kernel*>& ks) {
  std::string s;
  for (const Kernel* k : ks)
    s += "\n  " + short_kernel_name(*k) + " [" + library(p, *k).name + ", call " + std::to_string(k->call) +
         ", graph " + std::to_string(k->graph) + "]";
  return s;
}

inline bool has_note(const Process& p, const std::string& part) {
  for (const Note& n : p.notes)
    if (n.text.find(part) != std::string::npos) return true;
  return false;
}

inline std::string notes(const Process& p) {
  std::string s;
  for (const Note& n : p.notes) s += "\n  (" + n.level + ") " + n.text;
  return s;
}

// The CUDA C++ program: every kernel once, in its call, launched by the
// program (its own) or by cuBLAS; copies and fills in their calls.
inline void expect_cuda_app_trace(const Trace& t) {
  const Process& p = cuda_process(t);
  EXPECT_TRUE(p.complete()) << notes(p);
  for (const Note& n : p.notes) EXPECT_NE(n.level, "loss") << n.text;

  auto once_in = [&](const std::string& name, const std::string& phase) -> const Kernel* {
    const auto ks = kernels_named(p, name);
    EXPECT_EQ(ks.size(), 1u) << name << describe(p, ks);
    if (ks.size() != 1) return nullptr;
    EXPECT_EQ(ks[0]->call, phase.empty() ? 0u : call_id(p, phase)) << name;
    const LibraryMatch lib = library(p, *ks[0]);
    EXPECT_EQ(lib.role, Role::own) << name << " launched by " << lib.name;
    EXPECT_EQ(lib.name, "tracer_cuda_app") << name;
    return ks[0];
  };
  const Kernel* a = once_in("kaudit_test_stream_a", "two_streams");
  const Kernel* b = once_in("kaudit_test_stream_b", "two_streams");
  if (a != nullptr && b != nullptr) { EXPECT_NE(a->stream, b->stream); }
  for (const char* name : {"kaudit_test_graph_first", "kaudit_test_graph_second"}) {
    const Kernel* k = once_in(name, "replay");
    if (k != nullptr) { EXPECT_NE(k->graph, 0u) << name; }
  }
  once_in("kaudit_test_outside", "");
  EXPECT_TRUE(kernels_in(p, call_id(p, "capture")).empty()) << describe(p, kernels_in(p, call_id(p, "capture")));

  const auto gemm = kernels_in(p, call_id(p, "gemm"));
  ASSERT_FALSE(gemm.empty());
  for (const Kernel* k : gemm) {
    const std::string lib = library(p, *k).name;
    EXPECT_TRUE(lib == "cuBLAS" || lib == "cuBLASLt") << short_kernel_name(*k) << " from " << lib;
  }
  bool any_gemm = false;
  for (const Kernel* k : gemm) any_gemm = any_gemm || family(*k) == "gemm";
  EXPECT_TRUE(any_gemm) << describe(p, gemm);

  std::multiset<std::string> in, out;
  for (const Transfer& tr : p.transfers) {
    if (tr.call == call_id(p, "copies_in")) in.insert(tr.kind + ":" + tr.copy_kind);
    if (tr.call == call_id(p, "copies_out")) out.insert(tr.kind + ":" + tr.copy_kind);
  }
  EXPECT_EQ(in, (std::multiset<std::string>{"memcpy:HtoD", "memset:"}));
  EXPECT_EQ(out, (std::multiset<std::string>{"memcpy:DtoH", "memcpy:DtoD"}));

  for (const CallSummary& s : summarize_calls(p, Families::builtin())) {
    if (s.phase == "two_streams") { EXPECT_EQ(s.streams.size(), 2u); }
    if (s.phase == "replay") {
      EXPECT_EQ(s.graph_launches, 1u);
      EXPECT_EQ(s.graph_kernels, 2u);
    }
    if (s.phase == "gemm") { EXPECT_EQ(s.own_share(), 0.0); }
    if (s.phase == "two_streams") { EXPECT_EQ(s.own_share(), 1.0); }
    EXPECT_EQ(s.unrecorded_launches, 0u) << s.phase;
  }
}

// PyTorch and Triton: cuBLASLt for matmul, libtorch_cuda for topk and
// softmax, the Triton launcher for the Triton kernel, a graph replay that
// keeps the launchers of the captured kernels, a side stream.
// `replay_launchers`: check that replayed graph kernels keep the launchers of
// their capture (false only for a document written before the model followed
// node clones; documents store the joined launcher).
inline void expect_torch_app_trace(const Trace& t) {
  const Process& p = cuda_process(t);
  EXPECT_TRUE(p.complete()) << notes(p);
  for (const Note& n : p.notes) EXPECT_NE(n.level, "loss") << n.text;

  const auto matmul = kernels_in(p, call_id(p, "matmul"));
  ASSERT_FALSE(matmul.empty());
  size_t gemms = 0;
  for (const Kernel* k : matmul) {
    EXPECT_EQ(library(p, *k).name, "cuBLASLt") << describe(p, matmul);
    gemms += family(*k) == "gemm" ? 1 : 0;
  }
  EXPECT_EQ(gemms, 1u) << describe(p, matmul);

  const auto topk = kernels_in(p, call_id(p, "topk"));
  ASSERT_FALSE(topk.empty());
  bool topk_family = false;
  for (const Kernel* k : topk) {
    EXPECT_EQ(library(p, *k).name, "libtorch_cuda") << describe(p, topk);
    topk_family = topk_family || family(*k) == "topk/sort";
  }
  EXPECT_TRUE(topk_family) << describe(p, topk);

  const auto softmax = kernels_in(p, call_id(p, "softmax"));
  ASSERT_EQ(softmax.size(), 1u) << describe(p, softmax);
  EXPECT_EQ(library(p, *softmax[0]).name, "libtorch_cuda");
  EXPECT_EQ(family(*softmax[0]), "softmax") << describe(p, softmax);

  const auto triton = kernels_in(p, call_id(p, "triton"));
  ASSERT_EQ(triton.size(), 1u) << describe(p, triton);
  EXPECT_EQ(triton[0]->name, "kaudit_triton_scale");
  EXPECT_EQ(library(p, *triton[0]).name, "Triton");
  EXPECT_EQ(library(p, *triton[0]).role, Role::own);

  // Capturing runs nothing but torch's fills of its RNG state for graphs.
  for (const Kernel* k : kernels_in(p, call_id(p, "graph_capture"))) {
    EXPECT_EQ(family(*k), "fill") << describe(p, kernels_in(p, call_id(p, "graph_capture")));
    EXPECT_EQ(k->graph, 0u);
  }
  const auto replay = kernels_in(p, call_id(p, "graph_replay"));
  ASSERT_EQ(replay.size(), 2u) << describe(p, replay);
  std::set<std::string> replay_libs;
  for (const Kernel* k : replay) {
    EXPECT_NE(k->graph, 0u);
    replay_libs.insert(library(p, *k).name);
  }
  EXPECT_EQ(replay_libs, (std::set<std::string>{"libtorch_cuda", "Triton"})) << describe(p, replay);

  const auto side = kernels_in(p, call_id(p, "side_stream"));
  ASSERT_EQ(side.size(), 1u) << describe(p, side);
  EXPECT_NE(side[0]->stream, matmul[0]->stream);
  EXPECT_EQ(family(*side[0]), "elementwise");

  EXPECT_TRUE(std::any_of(p.calls.begin(), p.calls.end(), [](const Call& c) { return c.phase == "self_timing"; }));
  for (const CallSummary& s : summarize_calls(p, Families::builtin())) {
    EXPECT_EQ(s.unrecorded_launches, 0u) << s.phase;
    EXPECT_EQ(s.timer_reads, s.phase == "self_timing" ? 1u : 0u) << s.phase;
    if (s.phase == "graph_replay") { EXPECT_EQ(s.graph_launches, 1u); }
    if (s.phase == "triton") { EXPECT_EQ(s.own_share(), 1.0); }
    if (s.phase == "matmul") { EXPECT_EQ(s.own_share(), 0.0); }
  }
  // The Chrome export of a real trace has kernels, calls and flows.
  const auto chrome = chrome_trace(t, Families::builtin());
  size_t kernels = 0, calls = 0, flows = 0;
  for (const auto& e : chrome["traceEvents"]) {
    kernels += e.value("cat", "") == "kernel" ? 1 : 0;
    calls += e.value("cat", "") == "call" ? 1 : 0;
    flows += e.value("ph", "") == "f" ? 1 : 0;
  }
  EXPECT_EQ(kernels, p.kernels.size());
  EXPECT_EQ(calls, p.calls.size());
  EXPECT_GE(flows, kernels);
}

}  // namespace kaudit::tracer::testing
