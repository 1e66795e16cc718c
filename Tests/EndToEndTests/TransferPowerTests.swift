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
    @Test func aDiscretionaryTransferWaitsForACPowerAndOthersDoNot() throws {
        let system = try TestBus()
        // A stand-in UPower, on battery until the test plugs the machine in.
        let upower = try StandInSystemService(
            on: system, busName: "org.freedesktop.UPower", path: "/org/freedesktop/UPower",
            interface: "org.freedesktop.UPower",
            properties: ["OnBattery": "dbus.Boolean(True)", "DaemonVersion": "'fake'"])
        defer { upower.stop() }
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
        try upower.set("OnBattery", to: "<false>")
        #expect(try test.ended(fixture, patient)["state"] == .string("completed"), "on AC power it starts")
    }
}
