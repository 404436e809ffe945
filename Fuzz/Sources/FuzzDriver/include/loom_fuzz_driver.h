#ifndef LOOM_FUZZ_DRIVER_H
#define LOOM_FUZZ_DRIVER_H

#include <stddef.h>
#include <stdint.h>

/// One fuzz iteration: returns 0 (libFuzzer's convention; -1 would mean "do not add to corpus").
typedef int (*loom_fuzz_callback)(const uint8_t *data, size_t size);

/// Whether libFuzzer is linked in (the binary was built with `-sanitize=fuzzer`).
int loom_fuzz_has_libfuzzer(void);

/// Hands control to libFuzzer's driver (argument parsing, corpus, mutation, crash reports).
/// Only call when `loom_fuzz_has_libfuzzer()` is true.
int loom_fuzz_run_libfuzzer(int argc, char **argv, loom_fuzz_callback callback);

#endif
