// cpu_relax.h — the pause a spin-wait issues between checks of what it waits for.
#ifndef LOOM_CPU_RELAX_H
#define LOOM_CPU_RELAX_H

/// Tells the core this thread is spinning: on x86 `pause` yields the pipeline to the sibling
/// hyperthread and keeps the loop from flooding the memory order machinery when the value
/// changes; on aarch64 `yield` does the same job.
static inline void loom_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

#endif
