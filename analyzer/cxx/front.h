// The C++/CUDA front: parses one in-memory source with Clang 19 LibTooling
// (host pass with --cuda-host-only and, for CUDA, a device pass with
// --cuda-device-only) against stub torch headers and the CUDA 13 toolkit,
// and returns the facts the checks need. Never throws; a source that does
// not compile still yields the facts of what Clang could read.
#pragma once

#include "analyzer/cxx/facts.h"

#include <string>
#include <vector>

namespace kaudit::analyzer::cxx {

struct FrontOptions {
  std::string cuda_path = "/usr/local/cuda";
  std::vector<std::string> extra_args;  // e.g. -I folders given on the command line
  int time_limit_ms = 20000;            // both passes together; past it, parsing stops and what was read is kept
  // Where the precompiled prelude is kept between processes. Empty: $KAUDIT_CACHE_DIR,
  // else $XDG_CACHE_HOME/kaudit, else ~/.cache/kaudit. "none": in memory only.
  std::string pch_cache_dir;
};

Facts read_facts(const SourceFile& file, const FrontOptions& options = {});

}  // namespace kaudit::analyzer::cxx
