#include "runner/process/channel_holder.h"

#include <dirent.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <string>
#include <string_view>

namespace kaudit::run {

bool process_ending(int pid) {
  const std::string proc = "/proc/" + std::to_string(pid);
  std::ifstream stat(proc + "/stat");
  std::string line;
  if (!stat || !std::getline(stat, line)) return true;
  // The state follows the command name's closing parenthesis (which the name
  // itself may contain: read from the last one).
  const auto close = line.rfind(')');
  if (close == std::string::npos || close + 2 >= line.size()) return true;
  const char state = line[close + 2];
  if (state == 'Z' || state == 'X' || state == 'x') return true;
  DIR* dir = opendir((proc + "/fd").c_str());
  if (!dir) return errno == ENOENT;  // refused (EACCES) is not ending
  bool any = false;
  while (const dirent* e = readdir(dir))
    if (e->d_name[0] != '.') {
      any = true;
      break;
    }
  closedir(dir);
  return !any;
}

ChannelHolder read_channel_holder(int pid, int fd, unsigned long long pipe_inode) {
  const std::string path = "/proc/" + std::to_string(pid) + "/fd/" + std::to_string(fd);
  char target[256];
  const ssize_t n = readlink(path.c_str(), target, sizeof target - 1);
  if (n < 0) {
    const int why = errno;
    if (process_ending(pid)) return ChannelHolder::gone;
    return why == ENOENT ? ChannelHolder::closed : ChannelHolder::hidden;
  }
  const std::string_view link(target, static_cast<size_t>(n));
  if (link == "pipe:[" + std::to_string(pipe_inode) + "]") return ChannelHolder::yes;
  return ChannelHolder::other_file;
}

const char* to_string(ChannelHolder h) {
  switch (h) {
    case ChannelHolder::yes: return "the runner's pipe";
    case ChannelHolder::other_file: return "another file";
    case ChannelHolder::closed: return "closed";
    case ChannelHolder::hidden: return "unreadable";
    case ChannelHolder::gone: return "the process ended";
  }
  return "?";
}

}  // namespace kaudit::run
