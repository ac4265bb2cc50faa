// A stand-in for a chapter executable that accepts any command line: it answers --help like a
// chapter offering every optional flag, and otherwise claims success. The bad-input harness must
// report every row of its table against it; that test shows the harness can fail. With
// LENIENT_CLI_COMPILED_TAPS set, its --help shows compiled tap counts instead of a tap limit.
#include <cstdio>
#include <cstdlib>
#include <cstring>

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--help") == 0) {
    const bool compiled_taps = std::getenv("LENIENT_CLI_COMPILED_TAPS") != nullptr;
    std::printf(
        "usage: lenient_cli [flags]\n\n"
        "  --mask K[xL]      conv2d mask, odd sides, square: 13, 3, 5 (default 13x13)\n"
        "  --taps M          conv1d mask length%s\n"
        "  --tile T          product tile width: 32, 16, 8\n"
        "  --block B         convolution block width: 32, 16, 8\n"
        "  --mapping M       coalesced or transposed\n"
        "  --variant V       kernel variant: plain, dispatch (the first is the default)\n"
        "  --signal-csv FILE conv1d demo\n",
        compiled_taps ? ", compiled in: 7, 1, 3 (default 7)" : " (default 127, at most 1024)");
    return 0;
  }
  std::puts("matmul kernel ... PASS");
  return 0;
}
