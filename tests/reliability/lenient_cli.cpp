// A stand-in for a chapter executable that accepts any command line: it answers --help like a
// chapter offering every optional flag, and otherwise claims success. The bad-input harness must
// report every row of its table against it; that test shows the harness can fail.
#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--help") == 0) {
    std::puts(
        "usage: lenient_cli [flags]\n\n"
        "  --mask K[xL]      conv2d mask, odd sides, square: 13, 3, 5 (default 13x13)\n"
        "  --taps M          conv1d mask length (default 127, at most 1024)\n"
        "  --tile T          product tile width: 32, 16, 8\n"
        "  --block B         convolution block width: 32, 16, 8\n"
        "  --mapping M       coalesced or transposed\n"
        "  --variant V       kernel variant: plain, dispatch (the first is the default)\n"
        "  --signal-csv FILE conv1d demo\n");
    return 0;
  }
  std::puts("matmul kernel ... PASS");
  return 0;
}
