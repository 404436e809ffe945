// A SIGUSR1 handler that announces itself and then blocks on a semaphore: the thread it runs on
// stays out of the way, mid-instruction-stream, until thaw posts the semaphore. sem_post and
// sem_wait are async-signal-safe.
#define _GNU_SOURCE
#include "thread_freezer.h"

#include <errno.h>
#include <semaphore.h>
#include <signal.h>
#include <string.h>

static sem_t frozen, thaw;
static sigset_t saved_mask;

static void on_freeze(int sig) {
    (void)sig;
    int saved = errno;
    sem_post(&frozen);
    while (sem_wait(&thaw) != 0 && errno == EINTR) {}
    errno = saved;
}

int loom_test_freeze_thread(pthread_t thread) {
    static int installed;
    if (!installed) {
        if (sem_init(&frozen, 0, 0) != 0 || sem_init(&thaw, 0, 0) != 0) return -1;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_freeze;
        sigemptyset(&sa.sa_mask);
        if (sigaction(SIGUSR1, &sa, NULL) != 0) return -1;
        installed = 1;
    }
    if (pthread_kill(thread, SIGUSR1) != 0) return -1;
    while (sem_wait(&frozen) != 0) {
        if (errno != EINTR) return -1;
    }
    return 0;
}

void loom_test_thaw_thread(void) { sem_post(&thaw); }

int loom_test_allow_freezing_children(void) {
    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    return pthread_sigmask(SIG_UNBLOCK, &usr1, &saved_mask);
}

void loom_test_restore_signal_mask(void) { pthread_sigmask(SIG_SETMASK, &saved_mask, NULL); }

pthread_t loom_test_current_thread(void) { return pthread_self(); }
