import DBus
import Foundation
import Glibc
import NotifyTesting
import Testing

/// notifyd as the UnifiedPush distributor, driven as apps drive it: no
/// notifyd running, the activation file notifyd ships
/// (`dbus/org.unifiedpush.Distributor.notifyd.service`, its `Exec=` set to
/// the notifyd under test as `scripts/install` sets it), and a short-lived
/// python3-dbus connector that registers and exits.
@Suite struct PushEndToEndTests {
    static let distributor = "org.unifiedpush.Distributor.notifyd"

    @Test func aConnectorsRegisterStartsNotifydThroughTheDistributorsName() throws {
        let bus = try TestBus()
        let state = bus.directory.appendingPathComponent("state").path
        let shipped = Executables.repositoryRoot().appendingPathComponent("dbus/\(Self.distributor).service")
        let file = try String(contentsOf: shipped, encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("Exec=") ? "Exec=\(Executables.notifyd) --state-dir \(state)" : String($0) }
            .joined(separator: "\n")
        let copy = bus.directory.appendingPathComponent("\(Self.distributor).service")
        try file.write(to: copy, atomically: true, encoding: .utf8)
        try bus.installActivationFile(from: copy.path)

        let register = """
            import dbus
            bus = dbus.SessionBus()
            distributor = bus.get_object('\(Self.distributor)', '/org/unifiedpush/Distributor')
            answer = distributor.Register(
                {'service': 'org.example.Chat', 'token': '6e1f0c2a-9b7d-4f1e-8a3c-2d5b7e9f1a0c', 'description': 'Chat'},
                dbus_interface='org.unifiedpush.Distributor2')
            print(answer['success'], answer['reason'])
            """
        let result = try runProcess("/usr/bin/python3", ["-c", register], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "REGISTRATION_FAILED ACTION_REQUIRED\n")

        let client = try DBusConnection.connect(to: .address(bus.address))
        let owner = try #require(try client.nameOwner(of: Self.distributor))
        #expect(try client.nameOwner(of: "org.notifyd.Notifyd1") == owner, "one process owns both names")
        defer { if let pid = try? client.unixProcessID(of: owner) { kill(pid_t(pid), SIGTERM) } }
        let listed = try client.call(
            destination: "org.notifyd.Notifyd1", path: "/org/notifyd/Notifyd1", interface: "org.notifyd.Notifyd1.Push",
            member: "ListRegistrations")
        #expect("\(listed)".contains("org.example.Chat"))
        #expect(!"\(listed)".contains("6e1f0c2a"), "never the token")

        // What the user sees, through notifyctl.
        let environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address]
        let list = try runProcess(Executables.notifyctl, ["push", "list"], environment: environment)
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
            == [["APP", "DESCRIPTION", "MESSAGES", "PENDING", "ENDPOINT"], ["org.example.Chat", "Chat", "0", "0", "-"]])
        let status = try runProcess(Executables.notifyctl, ["push", "status", "--json"], environment: environment)
        #expect(status.stdout.contains("\"state\":\"not-configured\""), "\(status.stdout)")
        #expect(status.stdout.contains("\"registrations\":1"), "\(status.stdout)")
        let overall = try runProcess(Executables.notifyctl, ["status"], environment: environment)
        #expect(overall.stdout.contains("Push server:          not-configured ("), "\(overall.stdout)")
        let removed = try runProcess(Executables.notifyctl, ["push", "remove", "org.example.Chat"], environment: environment)
        #expect(removed.stdout == "Removed 1 registration of org.example.Chat.\n", "\(removed.stderr)")
        let empty = try runProcess(Executables.notifyctl, ["push", "list"], environment: environment)
        #expect(empty.status == 0 && empty.stdout.isEmpty)
        let bad = try runProcess(Executables.notifyctl, ["push", "remove", "not an app"], environment: environment)
        #expect(bad.status != 0 && bad.stderr.contains("invalid app ID"), "\(bad.stderr)")
    }

    /// SPEC: "a sandboxed caller registers only its own" app. A Flatpak
    /// app behind xdg-dbus-proxy, allowed to talk to the distributor,
    /// registers itself; naming another app gets UNAUTHORIZED (the
    /// specification's reason), nothing stored; and it lists only its own.
    @Test func aSandboxedAppRegistersOnlyItself() throws {
        if let reason = SandboxedBusProxy.unavailableReason {
            Issue.record("cannot test the Flatpak rule for registrations here: \(reason)")
            return
        }
        let fixture = try Fixture()
        let proxy = try SandboxedBusProxy(
            appID: "org.example.Sandboxed", bus: fixture.bus, talk: ["org.notifyd.Notifyd1", Self.distributor])
        let app = try DBusConnection.connect(to: .address(proxy.address))
        func register(_ service: String, token: String) throws -> [DBusValue] {
            try app.call(
                destination: Self.distributor, path: "/org/unifiedpush/Distributor", interface: "org.unifiedpush.Distributor2",
                member: "Register", [.vardict(["service": .string(service), "token": .string(token)])])
        }
        #expect(try register("org.example.Sandboxed", token: "own") == [
            .vardict(["success": .string("REGISTRATION_FAILED"), "reason": .string("ACTION_REQUIRED")])
        ])
        #expect(try register("org.example.Victim", token: "forged") == [
            .vardict(["success": .string("REGISTRATION_FAILED"), "reason": .string("UNAUTHORIZED")])
        ])
        let everything = try fixture.client.call(
            destination: Fixture.busName, path: Fixture.path, interface: "org.notifyd.Notifyd1.Push", member: "ListRegistrations")
        #expect("\(everything)".contains("org.example.Sandboxed"))
        #expect(!"\(everything)".contains("org.example.Victim"), "nothing stored for the forged registration")
        _ = try fixture.client.call(
            destination: Self.distributor, path: "/org/unifiedpush/Distributor", interface: "org.unifiedpush.Distributor2",
            member: "Register", [.vardict(["service": .string("org.example.Other"), "token": .string("other")])])
        let seen = try app.call(
            destination: Fixture.busName, path: Fixture.path, interface: "org.notifyd.Notifyd1.Push", member: "ListRegistrations")
        #expect("\(seen)".contains("org.example.Sandboxed"))
        #expect(!"\(seen)".contains("org.example.Other"), "a sandboxed app lists only its own registrations")
        let removal = #expect(throws: DBusError.self) {
            try app.call(
                destination: Fixture.busName, path: Fixture.path, interface: "org.notifyd.Notifyd1.Push",
                member: "RemoveRegistrations", [.string("org.example.Other")])
        }
        #expect(removal?.name.hasSuffix("NotPermitted") == true, "\(String(describing: removal))")
        // The push server is the user's choice, for every app: not a sandboxed app's.
        let setting = #expect(throws: DBusError.self) {
            try app.call(
                destination: Fixture.busName, path: Fixture.path, interface: "org.notifyd.Notifyd1.Push",
                member: "SetServer", [.string("ntfy"), .string("https://ntfy.example.org"), .vardict([:])])
        }
        #expect(setting?.name.hasSuffix("NotPermitted") == true, "\(String(describing: setting))")
    }
}
