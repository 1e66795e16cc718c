import DBus
import Foundation
import Testing
import NotifyTesting

/// The Daemon properties follow the notification server on the bus, and
/// announce changes with PropertiesChanged.
@Suite struct NotificationServerTests {
    let fixture: Fixture
    init() throws { fixture = try Fixture() }

    /// A minimal `org.freedesktop.Notifications` server on its own thread.
    final class FakeServer: @unchecked Sendable {
        let thread: LoopThread
        var connection: DBusConnection?

        init(address: String, capabilities: [String]) throws {
            thread = try LoopThread()
            try thread.sync {
                let connection = try DBusConnection.connect(to: .address(address))
                try connection.attach(to: self.thread.loop)
                let interface = DBusInterface(
                    "org.freedesktop.Notifications",
                    methods: [
                        DBusMethod("GetServerInformation", outputs: [.init("name", .string), .init("vendor", .string), .init("version", .string), .init("spec_version", .string)]) { _ in
                            .reply([.string("fake"), .string("tests"), .string("9.9"), .string("1.2")])
                        },
                        DBusMethod("GetCapabilities", outputs: [.init("capabilities", .array(.string))]) { _ in
                            .reply([.strings(capabilities)])
                        },
                    ])
                try connection.export(DBusObject(path: "/org/freedesktop/Notifications", interfaces: [interface]))
                _ = try connection.requestName("org.freedesktop.Notifications")
                self.connection = connection
            }
        }

        func stop() throws {
            try thread.sync { self.connection = nil }
            thread.stop()
        }
    }

    @Test func propertiesFollowTheServer() throws {
        let recorder = try SignalRecorder(
            address: fixture.bus.address,
            rules: [DBusMatchRule(interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged", path: Fixture.path)])
        let server = try FakeServer(address: fixture.bus.address, capabilities: ["actions", "body", "sound"])
        let appeared = try #require(recorder.wait { signal in
            guard case .dictionary(_, _, let entries)? = signal.arguments.dropFirst().first else { return false }
            return entries.contains { $0.value == .variant(.string("fake 9.9")) }
        })
        #expect(appeared.last?.arguments.first == .string(Fixture.daemonInterface))
        #expect(try fixture.property("NotificationServer") == .string("fake 9.9"))
        #expect(try fixture.property("ServerCapabilities") == .strings(["actions", "body", "sound"]))

        recorder.reset()
        try server.stop()
        #expect(recorder.wait { signal in
            guard case .dictionary(_, _, let entries)? = signal.arguments.dropFirst().first else { return false }
            return entries.contains { $0.value == .variant(.string("")) }
        } != nil)
        #expect(try fixture.property("NotificationServer") == .string(""))
        #expect(try fixture.property("ServerCapabilities") == .strings([]))
    }
}
