// A stand-in for a chapter executable that accepts any command line: it describes itself
// (--describe) like a chapter offering every kind of option (made-up ones: no chapter has these),
// and otherwise claims success. The bad-input harness must report every row of its table against
// it; that test shows the harness can fail. With LENIENT_CLI_COMPILED_TAPS set, it describes
// compiled tap counts instead of a tap limit.
#include <cstdio>
#include <cstdlib>
#include <cstring>

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--describe") == 0) {
    const bool compiled_taps = std::getenv("LENIENT_CLI_COMPILED_TAPS") != nullptr;
    std::printf(
        "{\"schema\": 1, \"options\": ["
        "{\"flag\": \"--lanes\", \"values\": [\"32\", \"16\", \"8\"], "
        "\"problems\": [\"matmul\"]}, "
        "{\"flag\": \"--order\", \"values\": [\"rows\", \"columns\"], "
        "\"problems\": [\"matmul\"]}, "
        "{\"flag\": \"--signal-csv\", \"values\": [], \"problems\": [\"conv1d\"]}], "
        "\"sizes\": {\"mask_sides\": [13, 3, 5], \"max_mask_side\": 63, %s}}\n",
        compiled_taps ? "\"taps\": [7, 1, 3], \"max_taps\": null"
                      : "\"taps\": null, \"max_taps\": 1024");
    return 0;
  }
  std::puts("matmul kernel ... PASS");
  return 0;
}
