#!/usr/bin/python3
"""A notification server for scripts/package-checks.sh: owns
org.freedesktop.Notifications on the session bus, with the capabilities
"actions" and "body", and appends each Notify call to FILE as a line of
JSON: {"id", "app_name", "summary", "body", "actions", "desktop_entry"}
(actions as [[key, label], ...]). FILE is created, empty, once the name is
owned: its existence says the server is ready.

    notifications.py FILE
"""
import json
import os
import sys

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

INTERFACE = "org.freedesktop.Notifications"


class Server(dbus.service.Object):
    def __init__(self, bus, log):
        super().__init__(bus, "/org/freedesktop/Notifications")
        self.log = log
        self.last_id = 0

    @dbus.service.method(INTERFACE, in_signature="susssasa{sv}i", out_signature="u")
    def Notify(self, app_name, replaces_id, app_icon, summary, body, actions, hints, expire_timeout):
        if replaces_id:
            notification_id = int(replaces_id)
        else:
            self.last_id += 1
            notification_id = self.last_id
        pairs = [str(a) for a in actions]
        record = {
            "id": notification_id,
            "app_name": str(app_name),
            "summary": str(summary),
            "body": str(body),
            "actions": [pairs[i:i + 2] for i in range(0, len(pairs) - 1, 2)],
            "desktop_entry": str(hints.get("desktop-entry", "")),
        }
        with open(self.log, "a", encoding="utf-8") as out:
            out.write(json.dumps(record) + "\n")
        return dbus.UInt32(notification_id)

    @dbus.service.method(INTERFACE, in_signature="u", out_signature="")
    def CloseNotification(self, notification_id):
        self.NotificationClosed(notification_id, dbus.UInt32(3))

    @dbus.service.method(INTERFACE, in_signature="", out_signature="as")
    def GetCapabilities(self):
        return ["actions", "body"]

    @dbus.service.method(INTERFACE, in_signature="", out_signature="ssss")
    def GetServerInformation(self):
        return ("package-checks", "notifyd", "1.0", "1.2")

    @dbus.service.signal(INTERFACE, signature="uu")
    def NotificationClosed(self, notification_id, reason):
        pass

    @dbus.service.signal(INTERFACE, signature="us")
    def ActionInvoked(self, notification_id, action_key):
        pass


def main():
    log = sys.argv[1]
    DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    loop = GLib.MainLoop()
    server = Server(bus, log)
    name = dbus.service.BusName(INTERFACE, bus, do_not_queue=True)
    bus.call_on_disconnection(lambda _connection: loop.quit())
    tmp = log + ".tmp"
    open(tmp, "w", encoding="utf-8").close()
    os.rename(tmp, log)
    loop.run()
    del server, name


if __name__ == "__main__":
    main()
