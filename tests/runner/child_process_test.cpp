#include "runner/process/child_process.h"

#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <fstream>
#include <thread>

using namespace kaudit::run;
using namespace std::chrono_literals;

namespace {

ChildSpec sh(const std::string& script) {
  ChildSpec s;
  s.argv = {"/bin/sh", "-c", script};
  s.env = {"PATH=/usr/bin:/bin"};
  s.cwd = "/";
  s.output_cap = 1000;
  return s;
}

auto in(std::chrono::milliseconds d) { return std::chrono::steady_clock::now() + d; }

}  // namespace

TEST(ChildProcess, MessagesComeOnlyThroughTheChannel) {
  Child c(sh("echo '{\"event\":\"fake\"}'; echo '{\"event\":\"hello\",\"n\":1}' >&3; echo oops >&3"));
  auto ev = c.next(in(5s));
  ASSERT_EQ(ev.kind, ChannelEvent::message);
  EXPECT_EQ(ev.body["event"], "hello");
  ev = c.next(in(5s));
  EXPECT_EQ(ev.kind, ChannelEvent::bad_message);
  EXPECT_EQ(c.next(in(5s)).kind, ChannelEvent::closed);
  const auto st = c.finish(1s);
  EXPECT_TRUE(st.exited);
  EXPECT_EQ(st.code, 0);
  EXPECT_NE(c.stdout_text().find("fake"), std::string::npos);  // stdout is only captured
}

TEST(ChildProcess, EnvironmentIsWhatTheRunnerGives) {
  setenv("KAUDIT_SECRET_TEST", "x", 1);
  Child c(sh("echo \"{\\\"event\\\":\\\"env\\\",\\\"secret\\\":\\\"${KAUDIT_SECRET_TEST:-none}\\\"}\" >&3"));
  auto ev = c.next(in(5s));
  ASSERT_EQ(ev.kind, ChannelEvent::message);
  EXPECT_EQ(ev.body["secret"], "none");
  unsetenv("KAUDIT_SECRET_TEST");
}

// When the machine runs out of memory (runs side by side, or a submission
// that allocates without end), the kernel's OOM killer ends a child, never
// kaudit: the run is an error that can be retried, the audit goes on.
TEST(ChildProcess, ChildIsTheOutOfMemoryKillersFirstChoice) {
  std::ifstream own("/proc/self/oom_score_adj");
  int own_adj = 0;
  if (!(own >> own_adj)) GTEST_SKIP() << "no /proc/self/oom_score_adj here";
  Child c(sh("echo \"{\\\"event\\\":\\\"adj\\\",\\\"adj\\\":$(cat /proc/self/oom_score_adj)}\" >&3"));
  auto ev = c.next(in(5s));
  ASSERT_EQ(ev.kind, ChannelEvent::message);
  EXPECT_GE(ev.body["adj"].get<int>(), std::max(own_adj, kChildOomScoreAdj));
}

TEST(ChildProcess, TimeoutKillsTheWholeGroup) {
  Child c(sh("sleep 100 & echo \"{\\\"event\\\":\\\"pid\\\",\\\"pid\\\":$!}\" >&3; sleep 100"));
  auto ev = c.next(in(5s));
  ASSERT_EQ(ev.kind, ChannelEvent::message);
  const int grandchild = ev.body["pid"];
  EXPECT_EQ(c.next(in(200ms)).kind, ChannelEvent::timeout);
  c.kill_group();
  const auto st = c.finish(0ms);
  EXPECT_FALSE(st.exited);
  EXPECT_EQ(st.signal, 9);
  EXPECT_NE(st.describe().find("SIGKILL"), std::string::npos);
  // The grandchild got SIGKILL too (it may linger as a zombie of init).
  std::this_thread::sleep_for(100ms);
  std::ifstream stat("/proc/" + std::to_string(grandchild) + "/stat");
  std::string line;
  if (std::getline(stat, line)) {
    EXPECT_NE(line.find(") Z"), std::string::npos) << line;
  }
}

TEST(ChildProcess, MegabytesOfOutputAreCapped) {
  Child c(sh("head -c 5000000 /dev/zero | tr '\\0' x; echo '{\"event\":\"done\"}' >&3"));
  auto ev = c.next(in(20s));
  ASSERT_EQ(ev.kind, ChannelEvent::message);
  c.finish(5s);
  EXPECT_LT(c.stdout_text().size(), 3000u);
  EXPECT_NE(c.stdout_text().find("bytes left out"), std::string::npos);
}

TEST(ChildProcess, OversizedChannelLineIsRejected) {
  Child c(sh("head -c 3000000 /dev/zero | tr '\\0' a >&3; echo >&3; echo '{\"event\":\"ok\"}' >&3"));
  auto ev = c.next(in(20s));
  EXPECT_EQ(ev.kind, ChannelEvent::bad_message);
  ev = c.next(in(20s));
  ASSERT_EQ(ev.kind, ChannelEvent::message);
  EXPECT_EQ(ev.body["event"], "ok");
}

TEST(ChildProcess, StdinLinesReachTheChild) {
  Child c(sh("read line; echo \"{\\\"event\\\":\\\"$line\\\"}\" >&3"));
  ASSERT_TRUE(c.send_line("pong"));
  auto ev = c.next(in(5s));
  ASSERT_EQ(ev.kind, ChannelEvent::message);
  EXPECT_EQ(ev.body["event"], "pong");
}
