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

// sync_file_range(2), which glibc declares only under _GNU_SOURCE (the
// Glibc module is built without it): `wait_before` waits for writeback
// already under way in the range, then writeback of its dirty pages starts,
// and `wait_after` waits for that to end. No metadata and no disk cache
// flush: an fsync is still what makes a file durable, but it finds little
// left to write. Flags as <linux/fs.h> numbers them.
static inline int clinux_sync_file_range(int fd, long long offset, long long length, int wait_before, int wait_after) {
    unsigned int flags = 2u; // SYNC_FILE_RANGE_WRITE
    if (wait_before) flags |= 1u; // SYNC_FILE_RANGE_WAIT_BEFORE
    if (wait_after) flags |= 4u; // SYNC_FILE_RANGE_WAIT_AFTER
    return (int)syscall(SYS_sync_file_range, fd, offset, length, flags);
}

// renameat2(2) with RENAME_NOREPLACE (1), which glibc declares only under
// _GNU_SOURCE: -1 with EEXIST when `to` exists; EINVAL or ENOSYS where the
// file system or the kernel cannot.
static inline int clinux_rename_noreplace(int from_directory, const char *from, int to_directory, const char *to) {
    return (int)syscall(SYS_renameat2, from_directory, from, to_directory, to, 1u);
}
#endif
