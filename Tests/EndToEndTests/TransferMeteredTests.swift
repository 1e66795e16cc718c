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
    @Test func aDownloadWaitsForANetworkThatIsNotMeteredUnlessItAllowsOne() throws {
        let system = try TestBus()
        let networkManager = try Self.startNetworkManager(on: system)
        defer { networkManager.stop() }
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
        try networkManager.set("Metered", to: "<uint32 2>")
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
        defer { networkManager.stop() }
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
        try networkManager.set("Metered", to: "<uint32 2>")
        #expect(try test.ended(fixture, patient)["state"] == .string("completed"), "the change reached the transfers")
        #expect(try [UInt8](Data(contentsOf: target)) == original)
    }

    /// A stand-in NetworkManager on `system`, metered: what GLib's monitor
    /// reads (`State` 70, connected globally, and `Connectivity` 4, full:
    /// without them GLib ignores `Metered`, 1 yes, 2 no).
    static func startNetworkManager(on system: TestBus) throws -> StandInSystemService {
        try StandInSystemService(
            on: system, busName: "org.freedesktop.NetworkManager", path: "/org/freedesktop/NetworkManager",
            interface: "org.freedesktop.NetworkManager",
            properties: [
                "State": "dbus.UInt32(70)", "Connectivity": "dbus.UInt32(4)", "Metered": "dbus.UInt32(1)",
                "Version": "'fake'",
            ])
    }
}
