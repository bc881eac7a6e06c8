// The trace model without a GPU: journals (hand-made edge cases and real
// ones recorded on the H200 machine), classification, per-call summaries,
// the Chrome export, the tracer's C interface and `kaudit trace` where no
// process uses CUDA.
#include "tests/tracer/trace_expectations.h"
#include "tracer/flat_line.h"
#include "tracer/report.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>

namespace {

namespace fs = std::filesystem;
using namespace kaudit::tracer;
using namespace kaudit::tracer::testing;

const std::string kFixtures = KAUDIT_FIXTURES;

// A journal as libkaudit_tracer.so writes it, with the cases that matter:
// a runtime launch with a nested driver launch (the kernel carries the
// driver's id), a graph captured in one call and replayed (cloned nodes) in
// another, a launch whose kernel record never came, a memcpy joined through
// its runtime id, a GPU timer read inside a call, a line cut short, and no
// end line (os._exit).
const char* kJournal = R"J({"type":"process","schema":"kaudit-trace-journal/1","pid":42,"ppid":1,"exe":"/usr/bin/python3.12","argv":["python3","sub.py"]}
{"type":"cupti","api_version":130001,"compiled_api_version":130001,"driver_version":13000,"subscribed":true}
{"type":"launcher","id":1,"api":"cudaLaunchKernel","object":"/site-packages/torch/lib/libtorch_cuda.so","symbol":"","how":"stack","chain":["/site-packages/torch/lib/libtorch_cuda.so"]}
{"type":"launcher","id":2,"api":"cuLaunchKernel","object":"/site-packages/torch/lib/libtorch_cuda.so","symbol":"","how":"stack","chain":[]}
{"type":"launcher","id":3,"api":"cuLaunchKernelEx","object":"/root/.triton/cache/ab/__triton_launcher.cpython-312-x86_64-linux-gnu.so","symbol":"","how":"stack","chain":[]}
{"type":"launcher","id":4,"api":"cudaGraphLaunch","object":"/site-packages/torch/lib/libtorch_cuda.so","symbol":"","how":"stack","chain":[]}
{"type":"launcher","id":5,"api":"cuLaunchKernelEx","object":"/usr/lib/libcublasLt.so.13","symbol":"","how":"stack","chain":[]}
{"type":"call_begin","call":1,"phase":"timed","shape":"1024","mode":"bench","index":0,"ts":1000,"tid":7}
{"type":"launch","corr":10,"api":"cudaLaunchKernel","tid":7,"enter":1100,"exit":1110,"launcher":1,"call":1}
{"type":"launch","corr":11,"parent":10,"api":"cuLaunchKernel","tid":7,"enter":1102,"exit":1108,"launcher":2,"call":1}
{"type":"launch","corr":12,"api":"cuLaunchKernelEx","tid":7,"enter":1200,"exit":1210,"launcher":3,"call":1,"captured":true}
{"type":"graph_node","node":500,"graph":9,"node_type":"kernel","corr":12,"launcher":3,"call":1,"api":"cuLaunchKernelEx"}
{"type":"launch","corr":13,"api":"cuLaunchKernelEx","tid":7,"enter":1300,"exit":1310,"launcher":5,"call":1}
{"type":"launch","corr":14,"api":"cudaMemcpyAsync","tid":7,"enter":1400,"exit":1410,"call":1}
{"type":"call_end","call":1,"ts":2000}
{"type":"graph_node","node":900,"graph":10,"node_type":"kernel","object":"/site-packages/torch/lib/libtorch_cuda.so","call":1}
{"type":"graph_node_clone","node":900,"original":500}
{"type":"call_begin","call":2,"phase":"timed","shape":"1024","mode":"bench","index":1,"ts":3000,"tid":7}
{"type":"launch","corr":20,"api":"cudaGraphLaunch","tid":7,"enter":3100,"exit":3110,"launcher":4,"call":2}
{"type":"launch","corr":21,"api":"cudaEventElapsedTime","tid":7,"enter":3900,"exit":3905,"call":2}
{"type":"call_end","call":2,"ts":4000}
{"type":"launch","corr":30,"api":"cudaLaunchKernel","tid":7,"enter":5000,"exit":5010,"launcher":1}
{"type":"kernel","corr":11,"name":"_ZN2at6native18elementwise_kernelEv","demangled":"void at::native::elementwise_kernel<128, 4>(int)","grid":[8,1,1],"block":[128,1,1],"cluster":[0,0,0],"regs":32,"smem_static":0,"smem_dynamic":0,"device":0,"context":1,"stream":7,"graph":0,"graph_node":0,"start":1500,"end":1600}
{"type":"memcpy","corr":15,"runtime_corr":14,"copy_kind":"DtoD","bytes":4096,"device":0,"context":1,"stream":7,"graph":0,"graph_node":0,"start":1700,"end":1750}
{"type":"kernel","corr":20,"name":"triton_scale","grid":[1,1,1],"block":[128,1,1],"cluster":[0,0,0],"regs":16,"smem_static":0,"smem_dynamic":0,"device":0,"context":1,"stream":13,"graph":9,"graph_node":900,"start":3500,"end":4500}
{"type":"kernel","corr":30,"name":"_ZN2at6native18elementwise_kernelEv","demangled":"void at::native::elementwise_kernel<128, 4>(int)","grid":[8,1,1],"block":[128,1,1],"cluster":[0,0,0],"regs":32,"smem_static":0,"smem_dynamic":0,"device":0,"context":1,"stream":7,"graph":0,"graph_node":0,"start":3600,"end":3700}
{"type":"kernel","corr":31,"name":"cut short
)J";

Process synthetic() {
  std::istringstream in(kJournal);
  return load_journal(in, "synthetic");
}

const Kernel& kernel_with_corr(const Process& p, uint32_t corr) {
  for (const Kernel& k : p.kernels)
    if (k.corr == corr) return k;
  throw std::runtime_error("no kernel");
}

TEST(TraceModel, JoinsNestedLaunchesGraphClonesAndRuntimeCopies) {
  const Process p = synthetic();
  EXPECT_EQ(p.pid, 42);
  ASSERT_EQ(p.kernels.size(), 3u);
  const Kernel& nested = kernel_with_corr(p, 11);
  EXPECT_EQ(nested.call, 1u);
  EXPECT_EQ(nested.launcher, 2u);
  const Kernel& replayed = kernel_with_corr(p, 20);
  EXPECT_EQ(replayed.call, 2u) << "a replayed kernel belongs to the call that launched the graph";
  EXPECT_EQ(replayed.launcher, 3u) << "and keeps the launcher of the captured launch, not the instantiating object";
  ASSERT_EQ(p.transfers.size(), 1u);
  EXPECT_EQ(p.transfers[0].call, 1u);
  EXPECT_EQ(p.transfers[0].api, "cudaMemcpyAsync");
  EXPECT_EQ(kernel_with_corr(p, 30).call, 0u);
}

TEST(TraceModel, NotesWhatWasLost) {
  const Process p = synthetic();
  EXPECT_FALSE(p.complete());
  EXPECT_TRUE(has_note(p, "without the tracer's exit flush")) << notes(p);
  EXPECT_TRUE(has_note(p, "1 launches have no kernel record")) << notes(p);  // corr 13
  EXPECT_TRUE(has_note(p, "1 journal lines were unreadable")) << notes(p);
}

// The traced process can write into its own journal: a line with fields of
// the wrong type is skipped and counted, and the rest of the trace stands.
TEST(TraceModel, LineWithFieldsOfTheWrongTypeIsSkippedNotFatal) {
  std::istringstream in(std::string(kJournal) +
                        R"({"type":"kernel","corr":99,"name":"x","grid":["a","b","c"],"start":1,"end":2})" "\n");
  const Process p = load_journal(in, "hostile");
  EXPECT_TRUE(has_note(p, "2 journal lines were unreadable")) << notes(p);  // it, and the one cut short
  EXPECT_EQ(p.kernels.size(), synthetic().kernels.size());
  EXPECT_EQ(p.calls.size(), synthetic().calls.size());
}

// Kernel and launch lines are read without a JSON document (tracer/flat_line.h).
// Whatever a line holds, the result must be the one a document gives: the
// same fields, the same fallbacks for wrong types, the last of a repeated
// key, and the same lines refused. Each line is read once as a journal (the
// flat path) and once inside a trace document (the document path).
TEST(TraceModel, FlatLinesReadLikeDocuments) {
  using nlohmann::json;
  const std::vector<std::string> lines = {
      R"J({"type":"kernel","corr":7,"name":"k\u00e9\"q","demangled":"void k()","grid":[2,3.9,4],"block":[64,1,1],)J"
      R"J("cluster":[1,1,1],"regs":40,"smem_static":16,"smem_dynamic":1024,"local_per_thread":8,"device":1,)J"
      R"J("context":2,"stream":13,"graph":4,"graph_node":18446744073709551615,"start":100,"end":250,"launcher":3,)J"
      R"J("call":5,"api":"cuLaunchKernel","tid":9,"api_enter":90,"device_launched":true})J",
      R"J({"type":"kernel","corr":8,"name":5,"regs":"many","stream":-1,"start":1.5e3,"end":true,"grid":[1,2]})J",
      R"J({"corr":9,"type":"kernel","corr":10,"name":null,"start":7,"extra":{"nested":[1]},"end":8})J",
      R"J({"type":"kernel","corr":11,"name":"x","grid":["a",1,1],"start":1,"end":2})J",
      R"J({"type":"launch","corr":12,"parent":11,"launcher":2,"call":3,"api":"cudaLaunchKernel","tid":7,)J"
      R"J("enter":10,"exit":20,"captured":1,"status":"bad"})J",
      R"J({"type":"launch","corr":13,"api":["cudaLaunchKernel"],"captured":true,"status":-3})J",
  };
  // Through the journal reader (flat lines where they are flat)...
  std::string journal = R"({"type":"process","schema":"kaudit-trace-journal/1","pid":5})" "\n";
  for (const auto& l : lines) journal += l + "\n";
  std::istringstream in(journal);
  Trace flat;
  flat.processes.push_back(load_journal(in, "flat"));
  EXPECT_TRUE(has_note(flat.processes[0], "1 journal lines were unreadable")) << notes(flat.processes[0]);
  // ...and each line alone inside a trace document (documents only). The
  // document reader refuses the grid of strings as the journal reader does.
  std::map<uint32_t, json> doc_kernels;
  json doc_launches = json::array();
  for (const auto& l : lines) {
    const json j = json::parse(l);
    json one = {{"schema", "kaudit-trace/1"}, {"processes", json::array({{{"pid", 5}}})}};
    one["processes"][0][j["type"] == "kernel" ? "kernels" : "launches"] = json::array({j});
    try {
      const json back = to_json(trace_from_json(one));
      for (const auto& k : back["processes"][0]["kernels"]) doc_kernels[k["corr"].get<uint32_t>()] = k;
      for (const auto& x : back["processes"][0]["launches"]) doc_launches.push_back(x);
    } catch (const std::exception&) {
    }
  }
  const json got = to_json(flat)["processes"][0];
  ASSERT_EQ(got["kernels"].size(), 3u);
  ASSERT_EQ(doc_kernels.size(), 3u);
  for (const auto& k : got["kernels"]) EXPECT_EQ(k, doc_kernels[k["corr"].get<uint32_t>()]);
  EXPECT_EQ(got["launches"], doc_launches);
  const auto& ks = flat.processes[0].kernels;
  auto by_corr = [&](uint32_t corr) {
    return *std::find_if(ks.begin(), ks.end(), [&](const Kernel& k) { return k.corr == corr; });
  };
  EXPECT_EQ(by_corr(7).name, "k\u00e9\"q");
  EXPECT_EQ(by_corr(7).grid, (std::array<int, 3>{2, 3, 4}));
  EXPECT_EQ(by_corr(7).graph_node, 18446744073709551615ull);
  EXPECT_EQ(by_corr(8).regs, 0) << "a string where a number belongs falls back";
  EXPECT_EQ(by_corr(8).grid, (std::array<int, 3>{1, 1, 1}));
  EXPECT_EQ(by_corr(10).end, 8u) << "the last of a repeated key; a nested object leaves the line to the document reader";
}

// Numbers the field's type cannot hold (1e300 where a 32-bit count belongs, a
// negative where it is unsigned) fall back as a wrong type does, in both
// readers: converting them was undefined behaviour (found by fuzzing).
TEST(TraceModel, NumbersOutOfRangeFallBack) {
  const std::string line =
      R"({"type":"kernel","corr":40,"name":"k","regs":-1e20,"stream":-1.5,"device":4294967296.5,)"
      R"("start":1e300,"end":2.5,"grid":[1e300,1,1],"block":[2,3.9,1]})";
  std::istringstream in(R"({"type":"process","schema":"kaudit-trace-journal/1","pid":5})" "\n" + line + "\n");
  Trace flat;
  flat.processes.push_back(load_journal(in, "flat"));
  ASSERT_EQ(flat.processes[0].kernels.size(), 1u);
  const Kernel& k = flat.processes[0].kernels[0];
  EXPECT_EQ(k.regs, 0);
  EXPECT_EQ(k.stream, 0u);
  EXPECT_EQ(k.device, 0u);
  EXPECT_EQ(k.start, 0u);
  EXPECT_EQ(k.end, 2u) << "a fraction in range is truncated, as before";
  EXPECT_EQ(k.grid, (std::array<int, 3>{1, 1, 1}));
  EXPECT_EQ(k.block, (std::array<int, 3>{2, 3, 1}));
  nlohmann::json doc = {{"schema", "kaudit-trace/1"}, {"processes", nlohmann::json::array({{{"pid", 5}}})}};
  doc["processes"][0]["kernels"] = nlohmann::json::array({nlohmann::json::parse(line)});
  EXPECT_EQ(to_json(flat)["processes"][0]["kernels"], to_json(trace_from_json(doc))["processes"][0]["kernels"]);
}

// The plain scan (lines as the tracer writes them) reads every line as the
// SAX parser does, and hands it every line it is not sure of: the same
// answer, the same fields and values, for plain lines and for edge cases of
// numbers, strings and structure, valid JSON or not.
TEST(TraceModel, PlainScanReadsLinesAsTheSaxParserDoes) {
  const std::vector<std::string> lines = {
      R"({"type":"kernel","corr":7,"name":"_Z3fooPf","grid":[8,1,1],"start":1796256373221050363,"ok":true})",
      R"({"a":18446744073709551615,"b":-9223372036854775808,"c":0,"d":-0,"e":[],"f":null,"g":false})",
      R"({"a":18446744073709551616,"b":-9223372036854775809})",  // past 64 bits: floats
      R"({"a":1.5,"b":1e3,"c":-2E-1,"d":[1,2.5,3]})",
      R"({"a":01})", R"({"a":-})", R"({"a":--1})", R"({"a":1,})", R"({"a":1}x)", R"({"a":1} )", R"( {"a":1})",
      R"({"a" :1})", R"({"a":tru})", R"({"a":truex})", R"({"a":[1,2,]})", R"({"a":[1 ,2]})", R"({"a":[,]})",
      R"({"a":[1,"x"]})", R"({"a":{"b":1}})", R"({"a":[[1]]})", R"({})", R"({"a":1,"a":"two"})", R"([1,2])",
      "{\"a\":\"x\ty\"}", "{\"a\":\"x\x7fy\"}", "{\"a\":\"caf\xc3\xa9\"}", "{\"a\":\"bad\xff\"}",
      R"({"a":"q\"uote","b":"\u0041"})", R"({"a":"unterminated)", R"({"a":1)", R"({"a")", R"({)", "",
  };
  const std::vector<std::string> keys = {"a", "b", "c", "d", "e", "f", "g", "type", "corr", "name", "grid", "start", "ok"};
  for (const auto& line : lines) {
    FlatLine plain, sax;
    const bool plain_ok = plain.parse(line), sax_ok = sax.parse_with_sax(line);
    ASSERT_EQ(plain_ok, sax_ok) << line;
    if (!plain_ok) continue;
    for (const auto& k : keys) {
      EXPECT_EQ(plain.get<std::string>(k, "-"), sax.get<std::string>(k, "-")) << line << " " << k;
      EXPECT_EQ(plain.get<uint64_t>(k, 7), sax.get<uint64_t>(k, 7)) << line << " " << k;
      EXPECT_EQ(plain.get<int64_t>(k, 7), sax.get<int64_t>(k, 7)) << line << " " << k;
      EXPECT_EQ(plain.get<uint32_t>(k, 7), sax.get<uint32_t>(k, 7)) << line << " " << k;
      EXPECT_EQ(plain.get<double>(k, 7), sax.get<double>(k, 7)) << line << " " << k;
      EXPECT_EQ(plain.get<bool>(k, true), sax.get<bool>(k, true)) << line << " " << k;
      EXPECT_EQ(plain.dim3(k), sax.dim3(k)) << line << " " << k;
    }
  }
  FlatLine first;
  ASSERT_TRUE(first.parse(lines[0]));
  EXPECT_EQ(first.get<uint64_t>("start"), 1796256373221050363ull);
  EXPECT_EQ(first.get<std::string>("name"), "_Z3fooPf");
  EXPECT_EQ(first.dim3("grid"), (std::array<int, 3>{8, 1, 1}));
  FlatLine extremes;
  ASSERT_TRUE(extremes.parse(lines[1]));
  EXPECT_EQ(extremes.get<uint64_t>("a"), 18446744073709551615ull);
  EXPECT_EQ(extremes.get<int64_t>("b"), std::numeric_limits<int64_t>::min());
}

// A journal big enough to be parsed in chunks on several threads reads as it
// would line by line: every kernel joined to its launch's call across chunk
// ends, calls begun in one chunk and ended in another, bad lines counted.
TEST(TraceModel, BigJournalsParsedInChunksKeepTheirOrder) {
  constexpr int kCalls = 60, kPerCall = 1000;  // about 18 MB of lines
  std::string j = R"({"type":"process","schema":"kaudit-trace-journal/1","pid":8})" "\n";
  std::string kernels;
  uint64_t ts = 1000;
  uint32_t corr = 1;
  for (int c = 1; c <= kCalls; ++c) {
    j += R"({"type":"call_begin","call":)" + std::to_string(c) + R"(,"phase":"timed","shape":"0","mode":"bench","index":)" +
         std::to_string(c) + R"(,"ts":)" + std::to_string(ts) + "}\n";
    for (int k = 0; k < kPerCall; ++k, ++corr, ts += 10) {
      j += R"({"type":"launch","corr":)" + std::to_string(corr) + R"(,"api":"cuLaunchKernel","tid":7,"enter":)" +
           std::to_string(ts) + R"(,"exit":)" + std::to_string(ts + 2) + R"(,"call":)" + std::to_string(c) + "}\n";
      if (k % 250 == 0) j += R"({"type":"kernel","corr":)" "\n";  // cut short
      kernels += R"({"type":"kernel","corr":)" + std::to_string(corr) +
                 R"J(,"name":"void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>(int)",)J"
                 R"("grid":[8,1,1],"block":[128,1,1],"stream":7,"start":)" +
                 std::to_string(ts + 5) + R"(,"end":)" + std::to_string(ts + 8) + "}\n";
    }
    j += R"({"type":"call_end","call":)" + std::to_string(c) + R"(,"ts":)" + std::to_string(ts) + "}\n";
    // The GPU records of a call come after it, as delivered buffers do.
    j += kernels;
    kernels.clear();
  }
  ASSERT_GT(j.size(), 16u << 20) << "two chunks of 8 MB at least (tracer/trace.cpp)";
  std::istringstream in(j);
  const Process p = load_journal(in, "big");
  ASSERT_EQ(p.kernels.size(), static_cast<size_t>(kCalls * kPerCall));
  ASSERT_EQ(p.calls.size(), static_cast<size_t>(kCalls));
  for (const Call& c : p.calls) EXPECT_NE(c.end, 0u) << "call " << c.id << " has its end";
  for (size_t i = 0; i < p.kernels.size(); ++i) {
    ASSERT_EQ(p.kernels[i].corr, i + 1) << "kernels in time order";
    ASSERT_EQ(p.kernels[i].call, i / kPerCall + 1) << "joined to the launch's call";
  }
  EXPECT_TRUE(has_note(p, std::to_string(kCalls * kPerCall / 250) + " journal lines were unreadable")) << notes(p);
}

TEST(TraceModel, JournalPastItsSizeLimitIsCutAtALineAndNoted) {
  const std::string whole(kJournal);
  std::istringstream all(whole), cut(whole);
  const Process full = load_journal(all, "whole");
  const std::size_t limit = whole.find("\"type\":\"call_end\",\"call\":1") + 10;  // inside that line
  const Process part = load_journal(cut, "cut", limit);
  EXPECT_TRUE(has_note(part, "the journal is larger than " + std::to_string(limit) + " bytes")) << notes(part);
  EXPECT_FALSE(has_note(full, "the journal is larger than")) << notes(full);
  EXPECT_FALSE(has_note(part, "journal lines were unreadable")) << "cut at a line's end, not inside one";
  ASSERT_EQ(part.calls.size(), 1u);
  EXPECT_EQ(part.calls[0].end, 0u) << "its end was past the limit";
  EXPECT_LT(part.launches.size(), full.launches.size());
}

TEST(TraceModel, SummarizesEachCall) {
  const Process p = synthetic();
  const auto calls = summarize_calls(p, Families::builtin());
  ASSERT_EQ(calls.size(), 3u);  // two calls, then outside any call
  const CallSummary& first = calls[0];
  EXPECT_EQ(first.kernels, 1u);
  EXPECT_EQ(first.library_ns, 100u);
  EXPECT_EQ(first.own_share(), 0.0);
  EXPECT_EQ(first.libraries.at("libtorch_cuda").count, 1u);
  EXPECT_EQ(first.families.at("elementwise").count, 1u);
  EXPECT_EQ(first.families.at("copy").count, 1u);
  EXPECT_EQ(first.transfer_bytes, 4096u);
  EXPECT_EQ(first.unrecorded_launches, 1u);
  EXPECT_EQ(first.timer_reads, 0u);
  EXPECT_EQ(first.busy_ns, 150u);  // kernel 1500-1600 and copy 1700-1750
  EXPECT_EQ(first.first_start, 1500u);
  EXPECT_EQ(first.last_end, 1750u);
  const CallSummary& second = calls[1];
  EXPECT_EQ(second.graph_launches, 1u);
  EXPECT_EQ(second.timer_reads, 1u);  // corr 21: the submission read a GPU timer inside the call
  EXPECT_EQ(second.busy_ns, 1000u);  // the replayed kernel only: corr 30 belongs to no call
  EXPECT_EQ(second.graph_kernels, 1u);
  EXPECT_EQ(second.own_share(), 1.0);
  EXPECT_EQ(second.libraries.count("Triton"), 1u);
  EXPECT_EQ(second.late_kernels, 1u);     // ran until 4500, the call ended at 4000
  EXPECT_EQ(second.late_ns, 500u);
  EXPECT_EQ(second.foreign_kernels, 1u);  // corr 30 ran inside call 2 but belongs to no call
  EXPECT_EQ(calls[2].call, 0u);
  EXPECT_EQ(calls[2].kernels, 1u);
}

TEST(TraceModel, DocumentRoundTrips) {
  Trace t;
  t.command = {"python3", "sub.py"};
  t.exit_status = 0;
  t.processes.push_back(synthetic());
  const nlohmann::json doc = to_json(t, &Families::builtin());
  EXPECT_EQ(doc["schema"], "kaudit-trace/1");
  EXPECT_EQ(doc["processes"][0]["kernels"][0]["library"], "libtorch_cuda");
  const Trace back = trace_from_json(doc);
  ASSERT_EQ(back.processes.size(), 1u);
  EXPECT_EQ(to_json(back, &Families::builtin()), doc);
  EXPECT_THROW(trace_from_json(nlohmann::json{{"schema", "kaudit-trace/999"}}), std::runtime_error);
}

TEST(Families, LibrariesFromLaunchersAndKernelNames) {
  const Families& f = Families::builtin();
  EXPECT_EQ(f.library_of("/x/nvidia/cublas/lib/libcublasLt.so.13", "nvjet_sm90_tst_128x256").name, "cuBLASLt");
  EXPECT_EQ(f.library_of("/x/nvidia/cublas/lib/libcublas.so.13", "gemv2T_kernel").name, "cuBLAS");
  EXPECT_EQ(f.library_of("/x/torch/lib/libtorch_cuda.so", "void at::native::x()").role, Role::library);
  const LibraryMatch triton = f.library_of("/root/.triton/cache/x/__triton_launcher.so", "add_kernel");
  EXPECT_EQ(triton.name, "Triton");
  EXPECT_EQ(triton.role, Role::own);
  const LibraryMatch ext = f.library_of("/root/.cache/torch_extensions/my_ext/my_ext.so", "my_kernel");
  EXPECT_EQ(ext.name, "my_ext.so");
  EXPECT_EQ(ext.role, Role::own);
  EXPECT_EQ(f.library_of("", "nvjet_sm90_tst").name, "cuBLASLt");
  EXPECT_EQ(f.library_of("", "nvjet_sm90_tst").source, "kernel name");
  EXPECT_EQ(f.library_of("", "mystery").role, Role::unknown);
}

TEST(Families, OpFamiliesByKernelName) {
  const Families& f = Families::builtin();
  EXPECT_EQ(f.family_of("nvjet_sm90_tst_128x256_64x4_2x1_v_bz_coopA_NNT"), "gemm");
  EXPECT_EQ(f.family_of("void at::native::sbtopk::gatherTopK<float, unsigned int, 2, false>(...)"), "topk/sort");
  EXPECT_EQ(f.family_of("void at::native::radixSortKVInPlace<-2, -1, 32, 4, float, long, unsigned int>(...)"),
            "topk/sort");
  EXPECT_EQ(f.family_of("void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float>(...)"), "softmax");
  EXPECT_EQ(f.family_of("flash_fwd_kernel<Flash_fwd_kernel_traits<128>>"), "attention");
  EXPECT_EQ(f.family_of("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>()"), "fill");
  EXPECT_EQ(f.family_of("void at::native::elementwise_kernel<128, 4, direct_copy_kernel_cuda>()"), "copy");
  EXPECT_EQ(f.family_of("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>()"),
            "elementwise");
  EXPECT_EQ(f.family_of("kaudit_test_stream_a"), "other");
}

TEST(Families, RulesFileIsTheBuiltinOne) {
  const Families file = Families::load(KAUDIT_FAMILIES_JSON);
  EXPECT_EQ(file.family_names(), Families::builtin().family_names());
  EXPECT_THROW(Families::from_json(nlohmann::json{{"schema", "other"}}), std::runtime_error);
  EXPECT_THROW(Families::from_json({{"schema", "kaudit-kernel-families/1"},
                                    {"families", {{{"name", "x"}, {"patterns", {"("}}}}}}),
               std::runtime_error);
}

TEST(ChromeTrace, TracksFlowsAndShortNames) {
  Trace t;
  t.processes.push_back(synthetic());
  const nlohmann::json chrome = chrome_trace(t, Families::builtin());
  size_t kernels = 0, starts = 0, finishes = 0, calls = 0;
  for (const auto& e : chrome["traceEvents"]) {
    ASSERT_TRUE(e.contains("pid"));
    if (e["ph"] == "X" && e["cat"] == "kernel") {
      ++kernels;
      EXPECT_GE(e["dur"].get<double>(), 0.0);
    }
    starts += e["ph"] == "s" ? 1 : 0;
    finishes += e["ph"] == "f" ? 1 : 0;
    calls += e.value("cat", "") == "call" ? 1 : 0;
  }
  EXPECT_EQ(kernels, 3u);
  EXPECT_EQ(calls, 2u);
  EXPECT_EQ(starts, finishes);
  EXPECT_EQ(starts, 4u);  // three kernels and the copy
  Kernel k;
  k.name = "_Zx";
  k.demangled = "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float>(float*, float const*, int)";
  EXPECT_EQ(short_kernel_name(k), "at::native::(anonymous namespace)::cunn_SoftMaxForward");
}

TEST(TextSummary, NamesLibrariesCallsAndLosses) {
  Trace t;
  t.processes.push_back(synthetic());
  const std::string text = text_summary(t, Families::builtin());
  EXPECT_NE(text.find("INCOMPLETE"), std::string::npos) << text;
  EXPECT_NE(text.find("libtorch_cuda"), std::string::npos) << text;
  EXPECT_NE(text.find("timed #1"), std::string::npos) << text;
  EXPECT_NE(text.find("outside any call"), std::string::npos) << text;
}

// ---- real traces recorded on the H200 machine (tests/gpu/run_tracer_gpu.sh)
TEST(Fixtures, CudaProgramTrace) { expect_cuda_app_trace(load_trace_file(kFixtures + "/trace_cuda_app.json")); }

// Recorded on the H200 by tests/gpu/run_tracer_gpu.sh: the same checks as
// on the GPU, then the capture-time tags of the graph nodes.
TEST(Fixtures, TorchAndTritonTrace) {
  const Trace t = load_trace_file(kFixtures + "/trace_torch_app.json");
  expect_torch_app_trace(t);
  const Process& p = cuda_process(t);
  std::set<std::string> captured;
  for (const GraphNode& g : p.graph_nodes)
    if (g.corr != 0) {
      EXPECT_EQ(g.call, call_id(p, "graph_capture"));
      const Launcher* l = p.launcher(g.launcher);
      ASSERT_NE(l, nullptr);
      captured.insert(Families::builtin().library_of(l->object, "").name);
    }
  EXPECT_EQ(captured, (std::set<std::string>{"libtorch_cuda", "Triton"}));
}

TEST(Fixtures, RecordedJournalResolvesReplayedNodesThroughClones) {
  const Trace t = load_trace_file(kFixtures + "/journal_cuda_app.jsonl");
  const Process& p = t.processes.at(0);
  std::map<uint32_t, uint32_t> captured_launcher;  // captured node's launcher by launch corr
  for (const GraphNode& g : p.graph_nodes)
    if (g.corr != 0) captured_launcher[g.corr] = g.launcher;
  ASSERT_EQ(captured_launcher.size(), 2u);
  std::set<uint32_t> replayed;
  for (const Kernel& k : p.kernels)
    if (k.graph != 0) replayed.insert(k.launcher);
  std::set<uint32_t> expected;
  for (const auto& [corr, launcher] : captured_launcher) expected.insert(launcher);
  EXPECT_EQ(replayed, expected);
}

TEST(Fixtures, RecordedJournalLoadsLikeItsDocument) {
  const Trace from_journal = load_trace_file(kFixtures + "/journal_cuda_app.jsonl");
  const Trace from_doc = load_trace_file(kFixtures + "/trace_cuda_app.json");
  ASSERT_EQ(from_journal.processes.size(), 1u);
  const Process& a = from_journal.processes[0];
  const Process& b = cuda_process(from_doc);
  EXPECT_EQ(a.kernels.size(), b.kernels.size());
  EXPECT_EQ(a.transfers.size(), b.transfers.size());
  EXPECT_EQ(a.calls.size(), b.calls.size());
  for (size_t i = 0; i < a.kernels.size() && i < b.kernels.size(); ++i) {
    EXPECT_EQ(a.kernels[i].call, b.kernels[i].call);
    // Same launching object (ids may differ: the document was joined by the
    // model before it followed graph-node clones).
    const Launcher* la = a.launcher(a.kernels[i].launcher);
    const Launcher* lb = b.launcher(b.kernels[i].launcher);
    ASSERT_TRUE(la != nullptr && lb != nullptr);
    EXPECT_EQ(la->object, lb->object);
  }
}

TEST(Fixtures, FaultTracesSayWhatWasLost) {
  const Trace crashed_trace = load_trace_file(kFixtures + "/fault_segfault.json");
  const Process& crashed = cuda_process(crashed_trace);
  EXPECT_EQ(crashed.end_signal, 11);
  EXPECT_TRUE(has_note(crashed, "signal 11"));
  EXPECT_FALSE(crashed.kernels.empty()) << "records flushed before the crash are kept";
  const Trace exited_trace = load_trace_file(kFixtures + "/fault_os_exit.json");
  EXPECT_TRUE(has_note(cuda_process(exited_trace), "without the tracer's exit flush"));
  const Trace forked = load_trace_file(kFixtures + "/fault_fork.json");
  ASSERT_EQ(forked.processes.size(), 2u);
  size_t children = 0;
  for (const Process& p : forked.processes) {
    EXPECT_TRUE(p.complete()) << p.pid;
    if (p.forked_from != 0) {
      ++children;
      EXPECT_TRUE(has_note(p, "forked from a process that used CUDA"));
    }
  }
  EXPECT_EQ(children, 1u);
  // torch.profiler could not subscribe (CUPTI allows one subscriber): the
  // tracer kept every record.
  const Trace profiled = load_trace_file(kFixtures + "/fault_profiler.json");
  const Process& pp = cuda_process(profiled);
  EXPECT_TRUE(pp.complete());
  for (const CallSummary& s : summarize_calls(pp, Families::builtin())) EXPECT_EQ(s.unrecorded_launches, 0u);
  const Trace spawned = load_trace_file(kFixtures + "/fault_spawn.json");
  ASSERT_EQ(spawned.processes.size(), 2u);
  for (const Process& p : spawned.processes) {
    EXPECT_TRUE(p.complete());
    EXPECT_FALSE(p.kernels.empty());
  }
}

// docs/tracer.md's example is what the model prints for the committed journal.
TEST(Docs, TracerExampleIsTheSummaryOfTheFixture) {
  std::ifstream in(KAUDIT_TRACER_DOC);
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const std::string marker = "prints the same summary from it:\n\n```\n";
  const size_t from = doc.find(marker);
  ASSERT_NE(from, std::string::npos);
  const size_t begin = from + marker.size();
  const std::string example = doc.substr(begin, doc.find("```", begin) - begin);
  EXPECT_EQ(example, text_summary(load_trace_file(kFixtures + "/journal_cuda_app.jsonl"), Families::builtin()));
}

// ---- the C interface and `kaudit trace`, which work without a GPU

// The tracer library's C interface, loaded with dlopen.
struct TracerApi {
  int (*begin)(const char*, const char*, const char*, long long) = nullptr;
  int (*end)() = nullptr;
  int (*status)() = nullptr;
  void (*finish)() = nullptr;
};

// Runs `use` in a child (so that this process's exit handlers stay its own)
// with the tracer loaded and writing to a fresh journal, and returns that
// journal as read by the model. `use` ends the child, as the test needs.
Process journal_of_child(const std::string& name, const std::function<void(const TracerApi&)>& use) {
  const fs::path journal = fs::temp_directory_path() / (name + "-" + std::to_string(getpid()) + ".jsonl");
  const pid_t child = fork();
  if (child == 0) {
    setenv("KAUDIT_TRACE_FILE", journal.c_str(), 1);
    void* lib = dlopen(KAUDIT_TRACER_LIB, RTLD_NOW);
    if (lib == nullptr) _exit(10);
    TracerApi api;
    api.begin = reinterpret_cast<decltype(api.begin)>(dlsym(lib, "kaudit_call_begin"));
    api.end = reinterpret_cast<decltype(api.end)>(dlsym(lib, "kaudit_call_end"));
    api.status = reinterpret_cast<decltype(api.status)>(dlsym(lib, "kaudit_tracer_status"));
    api.finish = reinterpret_cast<decltype(api.finish)>(dlsym(lib, "kaudit_tracer_finish"));
    if (!api.begin || !api.end || !api.status || !api.finish) _exit(11);
    use(api);
    _exit(12);  // `use` should have ended the child
  }
  int st = 0;
  waitpid(child, &st, 0);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "child status " << st;
  Process p = load_journal_file(journal.string());
  fs::remove(journal);
  return p;
}

TEST(TracerLibrary, CallsWithoutCudaMakeAJournalThatSaysSo) {
  const Process p = journal_of_child("kaudit-model-test", [](const TracerApi& api) {
    if (api.status() != 0) _exit(13);
    if (api.begin("warmup", "8", "bench", 0) != 1 || api.begin("timed", nullptr, nullptr, 1) != 2 ||
        api.end() != 2 || api.end() != 0)
      _exit(14);
    std::exit(0);  // through the exit handler
  });
  ASSERT_EQ(p.calls.size(), 2u);
  EXPECT_EQ(p.calls[0].phase, "warmup");
  EXPECT_TRUE(p.calls[0].implicit_end);
  EXPECT_EQ(p.calls[1].phase, "timed");
  EXPECT_TRUE(p.complete());
  EXPECT_FALSE(p.cupti_seen);
  EXPECT_TRUE(has_note(p, "CUDA was never initialised")) << notes(p);
  EXPECT_TRUE(has_note(p, "was not ended before call 2")) << notes(p);
}

// The harness ends its processes with os._exit, which skips the exit handler:
// kaudit_tracer_finish writes the end line instead, and whatever comes after
// it neither reaches the journal nor truncates it by reopening it.
TEST(TracerLibrary, FinishEndsTheJournalBeforeUnderscoreExit) {
  const Process p = journal_of_child("kaudit-finish-test", [](const TracerApi& api) {
    api.begin("timed", "8", "bench", 0);
    api.end();
    api.finish();
    api.begin("after", "8", "bench", 1);  // too late: not traced
    api.end();
    _exit(0);  // skips the exit handler, as os._exit does
  });
  EXPECT_EQ(p.end_reason, "finish");
  EXPECT_TRUE(p.complete());
  ASSERT_EQ(p.calls.size(), 1u);
  EXPECT_EQ(p.calls[0].phase, "timed");
  EXPECT_FALSE(has_note(p, "without the tracer's exit flush")) << notes(p);
}

int run(const std::string& cmd) {
  const int st = std::system(cmd.c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

TEST(KauditTrace, CommandWithoutCudaGivesAnEmptyTraceThatSaysWhy) {
  const fs::path out = fs::temp_directory_path() / ("kaudit-trace-true-" + std::to_string(getpid()) + ".json");
  ASSERT_EQ(run(std::string(KAUDIT_BIN) + " trace -q -o " + out.string() + " -- /bin/true"), 0);
  const Trace t = load_trace_file(out.string());
  fs::remove(out);
  EXPECT_EQ(t.command, (std::vector<std::string>{"/bin/true"}));
  ASSERT_TRUE(t.exit_status.has_value());
  EXPECT_EQ(*t.exit_status, 0);
  bool said = false;
  for (const Note& n : t.notes) said = said || n.text.find("initialised CUDA") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(KauditTrace, ReadsASavedTraceAndExportsIt) {
  const fs::path chrome = fs::temp_directory_path() / ("kaudit-trace-chrome-" + std::to_string(getpid()) + ".json");
  ASSERT_EQ(run(std::string(KAUDIT_BIN) + " trace -q --input " + kFixtures + "/journal_cuda_app.jsonl --chrome " +
                chrome.string()),
            0);
  std::ifstream in(chrome);
  const nlohmann::json doc = nlohmann::json::parse(in);
  fs::remove(chrome);
  EXPECT_FALSE(doc["traceEvents"].empty());
  EXPECT_EQ(run(std::string(KAUDIT_BIN) + " trace -q --input " + kFixtures + "/trace_cuda_app.json -- /bin/true 2>/dev/null"), 2);
}

TEST(KauditTrace, ExitStatus) {
  EXPECT_EQ(run(std::string(KAUDIT_BIN) + " trace -q -- /bin/false"), 1);
  EXPECT_EQ(run(std::string(KAUDIT_BIN) + " trace -q -- /nonexistent/program 2>/dev/null"), 1);
  EXPECT_EQ(run(std::string(KAUDIT_BIN) + " trace -q 2>/dev/null"), 2);
  EXPECT_EQ(run(std::string(KAUDIT_BIN) + " trace -q --tracer-lib /nonexistent.so -- /bin/true 2>/dev/null"), 2);
}

}  // namespace
