#include "loom_fuzz_driver.h"

// libFuzzer exports this entry point so that programs with their own `main` can use it. It is
// declared weak so that the same sources link without libFuzzer (the deterministic harness).
extern int LLVMFuzzerRunDriver(int *argc, char ***argv,
                               int (*callback)(const uint8_t *data, size_t size)) __attribute__((weak));

int loom_fuzz_has_libfuzzer(void) { return LLVMFuzzerRunDriver != NULL; }

int loom_fuzz_run_libfuzzer(int argc, char **argv, loom_fuzz_callback callback) {
    return LLVMFuzzerRunDriver(&argc, &argv, callback);
}
