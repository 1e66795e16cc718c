import DBus
import Foundation
import Testing
import NotifyTesting

/// SPEC "Security" on the bus: a Flatpak app may act only for itself, and
/// another Unix user not at all.
@Suite struct CallerIdentityTests {
    @Test func aSandboxedAppMayOnlyNameItsOwnAppID() throws {
        if let reason = SandboxedClient.unavailableReason {
            Issue.record("cannot test the Flatpak rule here: \(reason)")
            return
        }
        let fixture = try Fixture()
        try fixture.badges("SetBadge", [.string("org.example.Other"), .uint32(4)])
        func sandboxed(_ arguments: String...) throws -> ProcessResult {
            try SandboxedClient.run(
                appID: "org.example.Sandboxed", Executables.notifyctl, arguments, environment: fixture.daemon.environment,
                scratch: fixture.bus.directory)
        }
        let own = try sandboxed("badge", "set", "org.example.Sandboxed", "2")
        #expect(own.status == 0, "\(own.stderr)")
        #expect(try fixture.badge("org.example.Sandboxed") == 2)

        let other = try sandboxed("badge", "set", "org.example.Other", "9")
        #expect(other.status == 1)
        #expect(other.stderr.contains("org.example.Sandboxed"), "the message names the caller's app: \(other.stderr)")
        #expect(try fixture.badge("org.example.Other") == 4, "nothing changed")

        #expect(try sandboxed("event", "s", "--app", "org.example.Other").status == 1)
        #expect(try sandboxed("event", "s", "--app", "org.example.Sandboxed").status == 0)
        #expect(try sandboxed("badge", "clear", "--all").status == 1)
        #expect(try sandboxed("badge", "list").stdout == "org.example.Sandboxed 3\n", "it sees only its own badge")
        #expect(try sandboxed("state", "org.example.Other").status == 1)
    }

    @Test func anotherUnixUserIsNotPermitted() throws {
        guard getuid() == 0 else {
            Issue.record("cannot run a client as another user without root; run scripts/test as root (CI does)")
            return
        }
        let fixture = try Fixture(allowOtherUsers: true)
        let result = try runProcess(
            "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", Executables.notifyctl, "badge", "set", "app", "1"],
            environment: fixture.daemon.environment)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("Unix user 65534"))
        #expect(try fixture.badge("app") == 0)
    }
}
