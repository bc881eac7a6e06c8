// Channel messages a child may send (runner/session/channel_message.h).
#include "runner/session/channel_message.h"

#include <gtest/gtest.h>

using kaudit::run::kMaxMeasures;
using kaudit::run::malformed_message;
using kaudit::run::measures_of;
using kaudit::run::Speaker;
using json = nlohmann::json;

TEST(ChannelMessage, WellFormedMessagesPass) {
  EXPECT_EQ(malformed_message({{"event", "timed"}, {"shape", 0}, {"mode", "bench"}, {"call", 2}, {"ms", 0.5}},
                              Speaker::submission),
            "");
  EXPECT_EQ(malformed_message({{"event", "case"}, {"shape", 0}, {"case", 1},
                               {"inputs", json::array({{{"file", "in/a.bin"}}, {{"value", 3}}})}},
                              Speaker::reference),
            "");
  EXPECT_EQ(malformed_message({{"event", "done"}}, Speaker::submission), "");
}

TEST(ChannelMessage, TypeConfusionIsRefused) {
  EXPECT_NE(malformed_message({{"event", "call"}, {"kind", "correctness"}, {"shape", "x"}, {"case", 0},
                               {"outputs", json::array()}, {"inputs_after", json::array()}},
                              Speaker::submission),
            "");
  EXPECT_NE(malformed_message({{"event", "timing"}, {"shape", 0}, {"mode", "bench"}, {"samples", "fast"},
                               {"counts", json::object()}, {"types", json::array()}, {"versions_moved", 0}},
                              Speaker::submission),
            "");
  // A sample whose call is not a number.
  EXPECT_NE(malformed_message({{"event", "timing"}, {"shape", 0}, {"mode", "bench"},
                               {"samples", json::array({{{"call", "1"}, {"outputs", json::array()}}})},
                               {"counts", json::object()}, {"types", json::array()}, {"versions_moved", 0}},
                              Speaker::submission),
            "");
  // A seeded sample whose seed is not a whole number; one that is passes.
  const auto seeded = [](const json& seed) {
    return json{{"event", "timing"}, {"shape", 0}, {"mode", "fresh"},
                {"samples", json::array({{{"call", 1}, {"outputs", json::array()}, {"seed", seed}}})},
                {"counts", json::object()}, {"types", json::array()}, {"versions_moved", 0}};
  };
  EXPECT_NE(malformed_message(seeded("7"), Speaker::submission), "");
  EXPECT_NE(malformed_message(seeded(7.5), Speaker::submission), "");
  EXPECT_EQ(malformed_message(seeded(7), Speaker::submission), "");
  EXPECT_NE(malformed_message({{"event", "reproducible"}, {"shape", 0}, {"reproducible", 1}}, Speaker::reference), "");
  EXPECT_EQ(malformed_message({{"event", "reproducible"}, {"shape", 0}, {"reproducible", true}}, Speaker::reference), "");
  EXPECT_NE(malformed_message({{"event", "timed"}, {"shape", 0}, {"mode", "bench"}, {"call", 0}, {"ms", -1}},
                              Speaker::submission),
            "");
  EXPECT_NE(malformed_message(json::array({1, 2}), Speaker::submission), "");
  EXPECT_NE(malformed_message({{"event", 7}}, Speaker::submission), "");
}

TEST(ChannelMessage, EventsOfTheOtherSideAreRefused) {
  // The submission cannot speak for the reference, nor name unknown events.
  EXPECT_NE(malformed_message({{"event", "expected"}, {"id", "c_s0_c0"}, {"outputs", json::array()}},
                              Speaker::submission),
            "");
  EXPECT_NE(malformed_message({{"event", "tune"}, {"shape", 0}, {"mode", "bench"}}, Speaker::submission), "");
  // A yield point between pieces of untimed GPU work is either side's to send.
  EXPECT_EQ(malformed_message({{"event", "turn"}}, Speaker::submission), "");
  EXPECT_EQ(malformed_message({{"event", "turn"}}, Speaker::reference), "");
}

// Issue 15, items 5b and 6: the op record and the state_dict outcome are the
// submission's to send, typed like every other message; the reference never sends them.
TEST(ChannelMessage, OpsAndStateDictMessages) {
  const json ops = {{"event", "ops"}, {"shape", 0}, {"phase", "bench"}, {"calls", 1},
                    {"ops", {{"aten.topk.default", 1}}}, {"gaps", json::array()}};
  EXPECT_EQ(malformed_message(ops, Speaker::submission), "");
  EXPECT_NE(malformed_message(ops, Speaker::reference), "");
  json bad = ops;
  bad["ops"] = json::array({"aten.topk.default"});
  EXPECT_NE(malformed_message(bad, Speaker::submission), "");
  bad = ops;
  bad.erase("gaps");
  EXPECT_NE(malformed_message(bad, Speaker::submission), "");
  EXPECT_EQ(malformed_message({{"event", "state_dict"}, {"shape", 0}, {"status", "loaded"}, {"keys", 2}},
                              Speaker::submission),
            "");
  EXPECT_NE(malformed_message({{"event", "state_dict"}, {"shape", 0}, {"status", "failed"}, {"reason", 7}},
                              Speaker::submission),
            "");
}

// What a process says of itself with "hello", "generated" and "done" (seconds by
// part, device memory's peaks) is diagnostics from a process the submission
// may reach: only named numbers in range are kept, a handful at most.
TEST(ChannelMessage, MeasuresKeepOnlyNamedNumbersInRange) {
  EXPECT_EQ(malformed_message({{"event", "done"}, {"device_memory", {{"peak_reserved_mib", 512.0}}}},
                              Speaker::submission),
            "");
  EXPECT_NE(malformed_message({{"event", "done"}, {"device_memory", 512}}, Speaker::submission), "");
  EXPECT_EQ(malformed_message({{"event", "generated"}, {"parts", {{"draw", 1.5}}}}, Speaker::reference), "");
  const json hello = {{"event", "hello"}, {"role", "submission"}, {"pid", 7}, {"environment", json::object()}};
  EXPECT_EQ(malformed_message(hello, Speaker::submission), "");
  json with_parts = hello;
  with_parts["parts"] = {{"torch", 2.5}};
  EXPECT_EQ(malformed_message(with_parts, Speaker::submission), "");
  with_parts["parts"] = "2.5";
  EXPECT_NE(malformed_message(with_parts, Speaker::submission), "");
  const json m = {{"event", "done"},
                  {"parts",
                   {{"read", 0.5},
                    {"compute", 2},
                    {"negative", -1},
                    {"huge", 1e300},
                    {"text", "3"},
                    {"odd name!", 1},
                    {std::string(41, 'a'), 1}}}};
  const auto kept = measures_of(m, "parts");
  EXPECT_EQ(kept, (std::map<std::string, double>{{"compute", 2.0}, {"read", 0.5}}));
  EXPECT_TRUE(measures_of(m, "device_memory").empty());
  json many = {{"event", "done"}, {"parts", json::object()}};
  for (int k = 0; k < 100; ++k) many["parts"]["p" + std::to_string(k)] = k;
  EXPECT_EQ(measures_of(many, "parts").size(), kMaxMeasures);
}
