#ifndef NOTIFYD_CCANBERRA_SHIM_H
#define NOTIFYD_CCANBERRA_SHIM_H
// libcanberra, for playing event sounds when the notification server has
// no `sound` capability. ca_context_play is variadic and cannot be called
// from Swift; ca_context_play_full with a ca_proplist is used instead.
#include <canberra.h>
#endif
