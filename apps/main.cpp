// hopsim command line: run, validate, bench, info.
#include <cstdio>

int main() {
  std::puts("hopsim: skeleton");
  return 0;
}
