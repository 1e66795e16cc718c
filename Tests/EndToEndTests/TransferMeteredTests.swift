import DBus
import Foundation
import Glibc
import NotifyTesting
import Testing

/// `allow-metered` (iOS's `allowsCellularAccess`): a transfer waits for a
/// network that is not metered, told by GIO's NetworkManager monitor
/// (`GIO_USE_NETWORK_MONITOR=networkmanager`). The system bus is a private
/// one, with a stand-in NetworkManager (python3-dbus) that says the network
/// is metered until the test says it is not.
@Suite struct TransferMeteredTests {
    /// A stand-in for NetworkManager: what GLib's monitor reads through
    /// `org.freedesktop.DBus.Properties` (`State` 70, connected globally, and
    /// `Connectivity` 4, full: without them GLib ignores `Metered`), `Metered`
    /// changed (with `PropertiesChanged`) by its own `SetMetered(u)`.
    static let fakeNetworkManager = #"""
        import dbus, dbus.service, dbus.mainloop.glib, sys
        from gi.repository import GLib
        dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
        IFACE = "org.freedesktop.NetworkManager"
        class NetworkManager(dbus.service.Object):
            metered = 1
            @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="ss", out_signature="v")
            def Get(self, interface, name):
                return self.GetAll(interface)[name]
            @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="s", out_signature="a{sv}")
            def GetAll(self, interface):
                if interface != IFACE:
                    return dbus.Dictionary({}, signature="sv")
                return {"State": dbus.UInt32(70), "Connectivity": dbus.UInt32(4),
                        "Metered": dbus.UInt32(self.metered), "Version": "fake"}
            @dbus.service.signal(dbus.PROPERTIES_IFACE, signature="sa{sv}as")
            def PropertiesChanged(self, interface, changed, invalidated):
                pass
            @dbus.service.method("org.example.FakeNetworkManager", in_signature="u")
            def SetMetered(self, value):
                self.metered = int(value)
                self.PropertiesChanged(IFACE, {"Metered": dbus.UInt32(self.metered)}, [])
        bus = dbus.SystemBus()
        name = dbus.service.BusName(IFACE, bus)
        NetworkManager(bus, "/org/freedesktop/NetworkManager")
        print("ready", flush=True)
        GLib.MainLoop().run()
        """#

    @Test func aDownloadWaitsForANetworkThatIsNotMeteredUnlessItAllowsOne() throws {
        let system = try TestBus()
        let networkManager = try Self.startNetworkManager(on: system)
        defer { _ = networkManager.kill(SIGKILL) }
        let server = try NginxServer()
        let original = TransferEndToEndTests.randomBytes(100_000)
        let url = try server.serve(original, at: "video.bin")
        let fixture = try Fixture(extraEnvironment: [
            "DBUS_SYSTEM_BUS_ADDRESS": system.address, "GIO_USE_NETWORK_MONITOR": "networkmanager",
        ])
        let test = TransferEndToEndTests()
        let directory = fixture.bus.directory
        let held = directory.appendingPathComponent("held.bin")
        let allowed = directory.appendingPathComponent("allowed.bin")
        let patient = try test.download(fixture, url, to: held.path, session: "held")
        let metered = try test.download(
            fixture, url, to: allowed.path, session: "allowed", ["allow-metered": .boolean(true)])
        #expect(try test.ended(fixture, metered)["state"] == .string("completed"), "allow-metered goes on a metered network")
        #expect(try [UInt8](Data(contentsOf: allowed)) == original)
        try waitUntil("the other one waits for a network that is not metered") {
            try test.details(fixture, patient)["reason"] == .string("waiting for a network that is not metered")
        }
        #expect(try test.details(fixture, patient)["attempts"] == .uint32(0))
        #expect(!FileManager.default.fileExists(atPath: held.path))
        try Self.setMetered(2, on: system)
        #expect(try test.ended(fixture, patient)["state"] == .string("completed"), "on a network that is not metered it starts")
        #expect(try [UInt8](Data(contentsOf: held)) == original)
    }

    /// GIO's network monitor is one per process, delivering its signals on
    /// the thread that first asked for it. The push connection asks first
    /// here (an ntfy server set), then stops following the network (the
    /// server removed): transfers must still hear that the network is no
    /// longer metered. (Each watch once had a thread of its own, and this
    /// download waited for ever.)
    @Test func transfersStillHearTheNetworkAfterThePushConnectionStopsFollowingIt() throws {
        let system = try TestBus()
        let networkManager = try Self.startNetworkManager(on: system)
        defer { _ = networkManager.kill(SIGKILL) }
        let ntfy = try NtfyDoubleServer()
        let server = try NginxServer()
        let original = TransferEndToEndTests.randomBytes(50_000)
        let url = try server.serve(original, at: "later.bin")
        let fixture = try Fixture(extraEnvironment: [
            "DBUS_SYSTEM_BUS_ADDRESS": system.address, "GIO_USE_NETWORK_MONITOR": "networkmanager",
        ])
        let push = "org.notifyd.Notifyd1.Push"
        try fixture.call(push, "SetServer", [.string("ntfy"), .string(ntfy.baseURL), .vardict([:])])
        // Set up, and following the network first (with no app registered
        // it has no topic to follow: "disconnected", in words).
        try waitUntil("the push connection is set up") {
            let state = try fixture.call(push, "GetStatus").first?.vardictEntries?["state"]
            return state != nil && state != .string("not-configured") && state != .string("connecting")
        }
        let test = TransferEndToEndTests()
        let target = fixture.bus.directory.appendingPathComponent("later.bin")
        let patient = try test.download(fixture, url, to: target.path, session: "later")
        try waitUntil("the download waits for a network that is not metered") {
            try test.details(fixture, patient)["reason"] == .string("waiting for a network that is not metered")
        }
        try fixture.call(push, "SetServer", [.string("none"), .string(""), .vardict([:])])
        try Self.setMetered(2, on: system)
        #expect(try test.ended(fixture, patient)["state"] == .string("completed"), "the change reached the transfers")
        #expect(try [UInt8](Data(contentsOf: target)) == original)
    }

    /// Starts the stand-in NetworkManager on `system` (metered), once it owns its name.
    static func startNetworkManager(on system: TestBus) throws -> SpawnedProcess {
        let script = system.directory.appendingPathComponent("networkmanager.py")
        try fakeNetworkManager.write(to: script, atomically: true, encoding: .utf8)
        let output = system.directory.appendingPathComponent("networkmanager.out").path
        let process = try SpawnedProcess(
            "/usr/bin/python3", [script.path], environment: ["DBUS_SYSTEM_BUS_ADDRESS": system.address],
            standardOutput: .file(output), standardError: .standardOutput)
        try waitUntil("the stand-in NetworkManager is on the bus") {
            ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").contains("ready")
        }
        return process
    }

    /// Has the stand-in say `Metered` is `value` (1 yes, 2 no), as a user's switch would.
    static func setMetered(_ value: UInt32, on system: TestBus) throws {
        let result = try runProcess(
            "/usr/bin/gdbus",
            ["call", "--system", "--dest", "org.freedesktop.NetworkManager",
             "--object-path", "/org/freedesktop/NetworkManager",
             "--method", "org.example.FakeNetworkManager.SetMetered", "uint32 \(value)"],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": system.address])
        guard result.status == 0 else { throw TestFailure("SetMetered(\(value)) failed: \(result.stderr)") }
    }
}
