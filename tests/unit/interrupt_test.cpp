// SIGINT/SIGTERM during an audit (audit/interrupt.h): the watch takes the
// signal and kills every child the runs started; no new one starts. Its own
// executable: an interruption lasts for the rest of the process.
#include "audit/interrupt.h"
#include "runner/process/child_process.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>

namespace {

TEST(Interrupt, ASignalKillsEveryChildAndNoNewOneStarts) {
  const kaudit::audit::SignalWatch watch;
  const kaudit::run::ChildSpec spec{{"/bin/sleep", "1000"}, {}, "/", 1024, {}};
  kaudit::run::Child first(spec), second(spec);
  ASSERT_EQ(kill(getpid(), SIGTERM), 0);
  // Waiting for a message that never comes ends when the children are killed,
  // not at the deadline.
  const auto far = std::chrono::steady_clock::now() + std::chrono::hours(24);
  EXPECT_EQ(first.next(far).kind, kaudit::run::ChannelEvent::closed);
  EXPECT_EQ(watch.signal(), SIGTERM);
  for (kaudit::run::Child* c : {&first, &second}) {
    const kaudit::run::ExitStatus st = c->finish(std::chrono::hours(24));
    EXPECT_FALSE(st.exited) << st.describe();
    EXPECT_EQ(st.signal, SIGKILL) << st.describe();
  }
  EXPECT_TRUE(kaudit::run::children_interrupted());
  EXPECT_THROW(kaudit::run::Child again(spec), kaudit::run::ChildrenInterrupted);
}

}  // namespace
