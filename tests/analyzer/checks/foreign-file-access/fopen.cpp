// File I/O from C++ cannot be judged by its path, so it is reported as medium.
#include <cstdio>

float first_value() {
  FILE* f = fopen("answers.bin", "rb");  // expect: foreign-file-access
  float v = 0.0f;
  if (f) {
    fread(&v, sizeof v, 1, f);
    fclose(f);
  }
  return v;
}
