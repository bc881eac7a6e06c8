// The per-process journal file of libkaudit_tracer.so: complete lines are
// appended with one write(2) each batch, so that what reached the file is
// readable whatever happens to the process afterwards.
#pragma once

#include <string>
#include <string_view>

namespace kaudit::tracer::inject {

class JournalWriter {
 public:
  // Creates (truncates) the file. Returns false when it cannot be opened;
  // the tracer then traces nothing rather than failing the program.
  bool open(const std::string& path);
  bool is_open() const { return fd_ >= 0; }
  const std::string& path() const { return path_; }
  // Appends text made of whole lines. Not thread-safe: the caller holds the
  // tracer's journal lock.
  void append(std::string_view lines);
  void close();
  // For the crash handler, which may only use async-signal-safe calls.
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
  std::string path_;
};

// The journal's path for process `pid`: $KAUDIT_TRACE_FILE with %p replaced,
// else $KAUDIT_TRACE_DIR/kaudit-trace.<pid>.jsonl, else ./kaudit-trace.<pid>.jsonl.
std::string journal_path_for(long pid);

}  // namespace kaudit::tracer::inject
