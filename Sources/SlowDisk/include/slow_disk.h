/* slow_disk: an LD_PRELOAD library for tests and the bench, with no API of
 * its own (see slow_disk.c). */
#ifndef NOTIFYD_SLOW_DISK_H
#define NOTIFYD_SLOW_DISK_H
#endif
