#include "tracer/inject/journal_writer.h"

#include "tracer/journal_format.h"

#include <cerrno>
#include <cstdlib>
#include <fcntl.h>
#include <unistd.h>

namespace kaudit::tracer::inject {

bool JournalWriter::open(const std::string& path) {
  close();
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  path_ = path;
  return fd_ >= 0;
}

void JournalWriter::append(std::string_view lines) {
  if (fd_ < 0) return;
  const char* p = lines.data();
  size_t left = lines.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;  // a full disk must not break the traced program
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
}

void JournalWriter::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::string journal_path_for(long pid) {
  const std::string id = std::to_string(pid);
  if (const char* file = std::getenv(kEnvTraceFile); file != nullptr && *file != '\0') {
    std::string path = file;
    for (size_t at = path.find("%p"); at != std::string::npos; at = path.find("%p", at + id.size()))
      path.replace(at, 2, id);
    return path;
  }
  std::string dir = ".";
  if (const char* d = std::getenv(kEnvTraceDir); d != nullptr && *d != '\0') dir = d;
  return dir + "/kaudit-trace." + id + ".jsonl";
}

}  // namespace kaudit::tracer::inject
