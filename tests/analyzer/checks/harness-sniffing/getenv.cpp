// Environment reads from C++.
#include <cstdlib>

int block_size() {
  const char* v = std::getenv("BLOCK");  // expect: harness-sniffing
  return v ? std::atoi(v) : 128;
}

// The harness's own variable: as strong a tell as its Python read.
bool timed_phase() {
  return std::getenv("KERNELBENCH_PHASE") != nullptr;  // expect: harness-sniffing
}
