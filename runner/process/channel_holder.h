// What /proc says a process's channel descriptor is. Used by the runner to
// see whether the harness still writes to the runner's own pipe (a relay
// put at that descriptor can rewrite every line; docs/threat-model.md,
// class 2). Only a readable link naming another file is evidence of that:
// a process that is ending has already released its descriptors, and a
// descriptor that cannot be read says nothing either way.
#pragma once

namespace kaudit::run {

enum class ChannelHolder {
  yes,         // the descriptor is the runner's pipe
  other_file,  // /proc names another file there (the only proof of a swap)
  closed,      // nothing there while the process still holds descriptors
  hidden,      // /proc refuses to show the descriptor (an undumpable process)
  gone,        // the process has ended or is ending (a zombie, or its descriptors already released)
};

// Descriptor `fd` of process `pid` (by its id outside any namespace), against
// the pipe whose inode /proc names as pipe:[INODE].
ChannelHolder read_channel_holder(int pid, int fd, unsigned long long pipe_inode);

// Whether process `pid` has ended or is ending: absent from /proc, a zombie
// or dead, or holding no descriptors at all (exit releases them first).
bool process_ending(int pid);

const char* to_string(ChannelHolder h);

}  // namespace kaudit::run
