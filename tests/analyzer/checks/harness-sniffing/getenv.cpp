// Environment reads from C++.
#include <cstdlib>

int block_size() {
  const char* v = std::getenv("BLOCK");  // expect: harness-sniffing
  return v ? std::atoi(v) : 128;
}
