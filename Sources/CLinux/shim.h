#ifndef NOTIFYD_CLINUX_SHIM_H
#define NOTIFYD_CLINUX_SHIM_H
// Linux system calls the Glibc module does not export to Swift (as in
// SwiftNIO's CNIOLinux): epoll, eventfd, signalfd and timerfd drive the
// event loop.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <signal.h>
#include <sys/prctl.h>

// prctl is variadic, which Swift cannot call: names the calling thread
// (15 bytes are kept), as `ps -L` and /proc/PID/task/TID/comm show it.
static inline int clinux_set_thread_name(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0UL, 0UL, 0UL);
}

// The calling thread's kernel id (its /proc/self/task/TID).
#include <sys/syscall.h>
#include <unistd.h>
static inline int clinux_thread_id(void) { return (int)syscall(SYS_gettid); }
#endif
