import DBus
import Testing

@testable import notifyctl

/// Which bus errors mean "notifyd is not running" (exit 3) and which are
/// notifyd's answer (exit 1).
@Suite struct DaemonClientErrorTests {
    @Test(arguments: [
        DBusError.Name.serviceUnknown,
        DBusError.Name.nameHasNoOwner,
        "org.freedesktop.DBus.Error.Spawn.ServiceNotFound",
        "org.freedesktop.DBus.Error.Spawn.ChildExited",
        "org.freedesktop.DBus.Error.Spawn.ExecFailed",
        DBusError.Name.disconnected,
        DBusError.Name.noServer,
    ])
    func notRunningExits3(_ name: String) {
        let failure = DaemonClient.failure(for: DBusError(name, "the bus says why"))
        #expect(failure.exitStatus == ExitStatus.notRunning)
        #expect(failure.message.contains("notifyd"))
    }

    @Test func notRunningSaysHowToStart() {
        let failure = DaemonClient.failure(for: DBusError(DBusError.Name.serviceUnknown, "no"))
        #expect(failure.message.contains("`notifyd &`"))
        #expect(failure.message.contains("dbus/org.notifyd.Notifyd1.service"))
        let spawn = DaemonClient.failure(
            for: DBusError("org.freedesktop.DBus.Error.Spawn.ChildExited", "Process exited with status 1"))
        #expect(spawn.message.contains("Process exited with status 1"))
    }

    @Test(arguments: [
        ("org.notifyd.Notifyd1.Error.InvalidAppId", "invalid app ID 'a..b': it may not contain '..'"),
        ("org.notifyd.Notifyd1.Error.OutOfRange", "badge count 4294967295 is above the maximum 2147483647"),
        (DBusError.Name.invalidArgs, "expected a value of type 'u'"),
        (DBusError.Name.unknownMethod, "no such method"),
        (DBusError.Name.noReply, "Message recipient disconnected from message bus without replying"),
        (DBusError.Name.accessDenied, "not allowed"),
    ])
    func daemonErrorsExit1WithTheirMessage(_ name: String, _ message: String) {
        let failure = DaemonClient.failure(for: DBusError(name, message))
        #expect(failure.exitStatus == ExitStatus.daemonError)
        #expect(failure.message == message)
    }

    @Test func noSessionBusExplains() {
        let failure = DaemonClient.noSessionBus(
            DBusError(
                "org.freedesktop.DBus.Error.NotSupported",
                "cannot connect to the session bus: Unable to autolaunch a dbus-daemon without a $DISPLAY for X11"))
        #expect(failure.exitStatus == ExitStatus.notRunning)
        #expect(failure.message.contains("no D-Bus session bus (Unable to autolaunch"))
        #expect(failure.message.contains("DBUS_SESSION_BUS_ADDRESS"))
    }
}
