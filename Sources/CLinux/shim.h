#ifndef NOTIFYD_CLINUX_SHIM_H
#define NOTIFYD_CLINUX_SHIM_H
// Linux system calls the Glibc module does not export to Swift (as in
// SwiftNIO's CNIOLinux): epoll, eventfd and signalfd drive the event loop.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <signal.h>
#endif
