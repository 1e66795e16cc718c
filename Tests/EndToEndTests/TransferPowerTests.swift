import DBus
import Foundation
import Glibc
import NotifyTesting
import Testing

/// `discretionary` (iOS's `isDiscretionary`): a transfer that waits for AC
/// power, told by UPower's `OnBattery` on the system bus. The system bus is
/// a private one, with a stand-in UPower (python3-dbus) that says the
/// machine is on battery until the test plugs it in.
@Suite struct TransferPowerTests {
    /// A stand-in for UPower: `OnBattery` through `org.freedesktop.DBus.Properties`,
    /// changed (with `PropertiesChanged`) by its own `SetOnBattery(b)`.
    static let fakeUPower = #"""
        import dbus, dbus.service, dbus.mainloop.glib, sys
        from gi.repository import GLib
        dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
        IFACE = "org.freedesktop.UPower"
        class UPower(dbus.service.Object):
            on_battery = True
            @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="ss", out_signature="v")
            def Get(self, interface, name):
                return self.GetAll(interface)[name]
            @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="s", out_signature="a{sv}")
            def GetAll(self, interface):
                return {"OnBattery": dbus.Boolean(self.on_battery), "DaemonVersion": "fake"}
            @dbus.service.signal(dbus.PROPERTIES_IFACE, signature="sa{sv}as")
            def PropertiesChanged(self, interface, changed, invalidated):
                pass
            @dbus.service.method("org.example.FakeUPower", in_signature="b")
            def SetOnBattery(self, value):
                self.on_battery = bool(value)
                self.PropertiesChanged(IFACE, {"OnBattery": dbus.Boolean(self.on_battery)}, [])
        bus = dbus.SystemBus()
        name = dbus.service.BusName(IFACE, bus)
        UPower(bus, "/org/freedesktop/UPower")
        print("ready", flush=True)
        GLib.MainLoop().run()
        """#

    @Test func aDiscretionaryTransferWaitsForACPowerAndOthersDoNot() throws {
        let system = try TestBus()
        let script = system.directory.appendingPathComponent("upower.py")
        try Self.fakeUPower.write(to: script, atomically: true, encoding: .utf8)
        let output = system.directory.appendingPathComponent("upower.out").path
        let upower = try SpawnedProcess(
            "/usr/bin/python3", [script.path], environment: ["DBUS_SYSTEM_BUS_ADDRESS": system.address],
            standardOutput: .file(output), standardError: .standardOutput)
        defer { _ = upower.kill(SIGKILL) }
        try waitUntil("the stand-in UPower is on the bus") {
            ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").contains("ready")
        }
        let server = try NginxServer()
        let url = try server.serve(TransferEndToEndTests.randomBytes(100_000), at: "update.bin")
        let fixture = try Fixture(extraEnvironment: ["DBUS_SYSTEM_BUS_ADDRESS": system.address])
        let test = TransferEndToEndTests()
        let directory = fixture.bus.directory
        let patient = try test.download(
            fixture, url, to: directory.appendingPathComponent("later.bin").path, session: "later",
            ["discretionary": .boolean(true)])
        let urgent = try test.download(fixture, url, to: directory.appendingPathComponent("now.bin").path, session: "now")
        #expect(try test.ended(fixture, urgent)["state"] == .string("completed"), "a transfer that is not discretionary goes on battery")
        try waitUntil("the discretionary one waits for AC power") {
            try test.details(fixture, patient)["reason"] == .string("waiting for AC power")
        }
        #expect(try test.details(fixture, patient)["attempts"] == .uint32(0))
        let plugged = try runProcess(
            "/usr/bin/gdbus",
            ["call", "--system", "--dest", "org.freedesktop.UPower", "--object-path", "/org/freedesktop/UPower",
             "--method", "org.example.FakeUPower.SetOnBattery", "false"],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": system.address])
        #expect(plugged.status == 0, "\(plugged.stderr)")
        #expect(try test.ended(fixture, patient)["state"] == .string("completed"), "on AC power it starts")
    }
}
