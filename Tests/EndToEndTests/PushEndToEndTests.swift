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
}
