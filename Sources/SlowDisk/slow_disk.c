/*
 * A disk as slow as an ordinary one, and one that can be held still, for
 * notifyd's tests and notifyd-bench: loaded with LD_PRELOAD into notifyd
 * (libSlowDisk.so), it wraps the calls SQLite makes to put a commit on
 * disk. Nothing else in the process is touched.
 *
 * NOTIFYD_SLOW_DISK_MS=N        fsync and fdatasync take N ms more (a
 *                               laptop's spinning disk, an eMMC or SD card,
 *                               a disk under load: 20).
 * NOTIFYD_SLOW_DISK_SYNC_GATE=F  while file F exists, fsync and fdatasync
 *                               wait (a batch held "syncing").
 * NOTIFYD_SLOW_DISK_WRITE_GATE=F while file F exists, pwrite and pwrite64
 *                               wait before writing (a batch held before
 *                               its first byte reaches the disk).
 *
 * A thread waiting at a gate F creates F.waiting and removes it when it
 * passes, so a test knows the moment a batch is held. The gates are polled
 * every millisecond: the waits are for tests, not for speed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

static void pause_nanoseconds(long long nanoseconds) {
    struct timespec left = {nanoseconds / 1000000000LL, nanoseconds % 1000000000LL};
    while (nanosleep(&left, &left) != 0 && errno == EINTR) {
    }
}

static void wait_at_gate(const char *variable) {
    const char *gate = getenv(variable);
    if (gate == NULL || *gate == '\0' || access(gate, F_OK) != 0) return;
    char waiting[PATH_MAX];
    int marked = snprintf(waiting, sizeof waiting, "%s.waiting", gate) < (int)sizeof waiting;
    if (marked) {
        int fd = open(waiting, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        if (fd >= 0) close(fd);
    }
    while (access(gate, F_OK) == 0) pause_nanoseconds(1000000LL);
    if (marked) unlink(waiting);
}

static void before_sync(void) {
    int saved = errno;
    wait_at_gate("NOTIFYD_SLOW_DISK_SYNC_GATE");
    const char *delay = getenv("NOTIFYD_SLOW_DISK_MS");
    if (delay != NULL) {
        long milliseconds = strtol(delay, NULL, 10);
        if (milliseconds > 0) pause_nanoseconds(milliseconds * 1000000LL);
    }
    errno = saved;
}

static void before_write(void) {
    int saved = errno;
    wait_at_gate("NOTIFYD_SLOW_DISK_WRITE_GATE");
    errno = saved;
}

typedef int (*sync_call)(int);
typedef ssize_t (*pwrite_call)(int, const void *, size_t, off_t);
typedef ssize_t (*pwrite64_call)(int, const void *, size_t, off64_t);

/* The C library's function of that name (looked up once; a race between
 * two threads stores the same pointer). */
#define NEXT(name, type) \
    static type next_##name; \
    if (next_##name == NULL) next_##name = (type)dlsym(RTLD_NEXT, #name); \
    if (next_##name == NULL) { errno = ENOSYS; return -1; }

int fsync(int fd) {
    NEXT(fsync, sync_call)
    before_sync();
    return next_fsync(fd);
}

int fdatasync(int fd) {
    NEXT(fdatasync, sync_call)
    before_sync();
    return next_fdatasync(fd);
}

ssize_t pwrite(int fd, const void *buffer, size_t count, off_t offset) {
    NEXT(pwrite, pwrite_call)
    before_write();
    return next_pwrite(fd, buffer, count, offset);
}

ssize_t pwrite64(int fd, const void *buffer, size_t count, off64_t offset) {
    NEXT(pwrite64, pwrite64_call)
    before_write();
    return next_pwrite64(fd, buffer, count, offset);
}
