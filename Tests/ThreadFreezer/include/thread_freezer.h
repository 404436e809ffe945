// thread_freezer.h — test support: stops one thread of this process in place (inside a signal
// handler) until released, to show that work does not wait for a thread the OS is not running.
#ifndef LOOM_THREAD_FREEZER_H
#define LOOM_THREAD_FREEZER_H

#include <pthread.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Lets threads created by the calling thread from now on be frozen (their signal mask is
/// inherited, and threads of Swift's cooperative pool block the freezing signal); 0 on success.
int loom_test_allow_freezing_children(void);
/// Puts back the calling thread's signal mask from before `loom_test_allow_freezing_children`.
void loom_test_restore_signal_mask(void);
/// Freezes `thread` (created while freezing was allowed) and returns once it is frozen; 0 on
/// success. One thread at a time.
int loom_test_freeze_thread(pthread_t thread);
/// Lets the frozen thread go on.
void loom_test_thaw_thread(void);
/// The calling thread (pthread_self, callable from Swift on every platform).
pthread_t loom_test_current_thread(void);

#ifdef __cplusplus
}
#endif
#endif
