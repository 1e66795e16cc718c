import DBus
import Foundation
import NotifyTesting
import Testing

/// Bad input to the Transfers interface, on a real notifyd: each gets the
/// D-Bus error SPEC gives, with a message that never repeats a password or
/// a header's value, and nothing is stored.
@Suite struct TransferInputTests {
    static let transfers = "org.notifyd.Notifyd1.Transfers"
    static let app = DBusValue.string("org.example.Fetcher")

    static func download(_ url: String, _ path: String, _ options: [String: DBusValue] = [:], session: String = "s") -> [DBusValue] {
        [app, .string(session), .string(url), .string(path), .vardict(options)]
    }

    func listed(_ fixture: Fixture) throws -> Int {
        guard case .array(_, let rows)? = try fixture.call(Self.transfers, "ListTransfers").first else { return -1 }
        return rows.count
    }

    @Test func badURLsPathsAndOptionsAreRefusedAndNothingIsStored() throws {
        let fixture = try Fixture()
        let refused: [([DBusValue], String, String)] = [
            (Self.download("file:///etc/passwd", "/tmp/x"), "InvalidArgs", "only http and https"),
            (Self.download("ftp://example.org/f", "/tmp/x"), "InvalidArgs", "'ftp' is not one"),
            (Self.download("gopher://example.org/f", "/tmp/x"), "InvalidArgs", "only http and https"),
            (Self.download("https://user:hunter2@example.org/f", "relative/x"), "InvalidArgs", "must be absolute"),
            (Self.download("https://example.org/f", "/tmp/../etc/x"), "InvalidArgs", "'..'"),
            (Self.download("https://exa mple.org/f", "/tmp/x"), "InvalidArgs", "not a URL"),
            (Self.download("https://example.org/f", "/tmp/x", ["overwrite": .string("yes")]), "InvalidArgs", "'overwrite' must be b"),
            (Self.download("https://example.org/f", "/tmp/x", ["sha256": .string("abc")]), "InvalidArgs", "64 hexadecimal"),
            (Self.download("https://example.org/f", "/tmp/x", ["timeout": .uint32(0)]), "InvalidArgs", "1 to 86400"),
            (Self.download("https://example.org/f", "/tmp/x", ["headers": .dictionary(key: .string, value: .string, [
                DBusDictionaryEntry(key: .string("Authorization"), value: .string("Bearer s3cret\r\nX-Evil: 1"))])]),
             "InvalidArgs", "line break"),
            (Self.download("https://example.org/f", "/tmp/x", ["headers": .dictionary(key: .string, value: .string, [
                DBusDictionaryEntry(key: .string("Bad Name:"), value: .string("v"))])]), "InvalidArgs", "not a header name"),
            (Self.download("https://example.org/f", "/tmp/x", ["headers": .vardict(["a": .string("b")])]), "InvalidArgs", "a{ss}"),
            ([Self.app, .string("s"), .string("/tmp/upload-file"), .string("https://example.org/up"), .vardict(["method": .string("PATCH")])],
             "InvalidArgs", "PUT or POST"),
            ([.string("not an app"), .string("s"), .string("https://example.org/f"), .string("/tmp/x"), .vardict([:])],
             "InvalidAppId", "invalid app ID"),
            ([Self.app, .string(""), .string("https://example.org/f"), .string("/tmp/x"), .vardict([:])], "InvalidSessionId", "session ID"),
        ]
        for (arguments, name, words) in refused {
            let member = arguments[2] == .string("/tmp/upload-file") ? "Upload" : "Download"
            let error = fixture.error(Self.transfers, member, arguments)
            #expect(error?.name == Fixture.errorPrefix + name || (name == "InvalidArgs" && error?.name == "org.freedesktop.DBus.Error.InvalidArgs"),
                    "\(arguments): \(String(describing: error))")
            #expect(error?.message.contains(words) == true, "\(error?.message ?? "no error") should say \(words)")
            #expect(error?.message.contains("hunter2") != true && error?.message.contains("s3cret") != true, "no secret repeated")
        }
        #expect(try listed(fixture) == 0, "nothing stored")
        for member in ["CancelTransfer", "SuspendTransfer", "ResumeTransfer", "GetTransfer"] {
            let error = fixture.error(Self.transfers, member, [.uint64(42)])
            #expect(error?.name == Fixture.errorPrefix + "UnknownTransfer", "\(member): \(String(describing: error))")
        }
    }

    /// A session belongs to the app that first used it.
    @Test func aSessionOfAnotherAppIsRefused() throws {
        let fixture = try Fixture()
        _ = try fixture.event("shared", app: "org.example.Other", ["kind": .string("progress"), "bytes-written": .uint64(1)])
        let error = fixture.error(Self.transfers, "Download", Self.download("http://127.0.0.1:9/f", "/tmp/x", session: "shared"))
        #expect(error?.name == "org.freedesktop.DBus.Error.InvalidArgs")
        #expect(error?.message.contains("belongs to org.example.Other") == true)
    }

    /// A Flatpak app downloads into, and uploads from, its own
    /// `~/.var/app/APP_ID/` only: not `~/.bashrc`, not `~/.ssh/id_rsa`.
    @Test func aSandboxedAppTransfersFilesOfItsOwnDirectoryOnly() throws {
        if let reason = SandboxedClient.unavailableReason {
            Issue.record("cannot test the Flatpak rule here: \(reason)")
            return
        }
        let fixture = try Fixture()
        let home = fixture.daemon.environment["HOME"] ?? NSHomeDirectory()
        func gdbus(_ member: String, _ arguments: String...) throws -> ProcessResult {
            try SandboxedClient.run(
                appID: "org.example.Sandboxed", "/usr/bin/gdbus",
                ["call", "--session", "--dest", Fixture.busName, "--object-path", Fixture.path, "--method", "\(Self.transfers).\(member)"]
                    + arguments,
                environment: fixture.daemon.environment, scratch: fixture.bus.directory)
        }
        let outside = try gdbus("Download", "org.example.Sandboxed", "s", "http://127.0.0.1:9/f", "\(home)/.bashrc", "{}")
        #expect(outside.status != 0 && outside.stderr.contains("NotPermitted"), "\(outside.stderr)")
        let secret = try gdbus("Upload", "org.example.Sandboxed", "s", "\(home)/.ssh/id_rsa", "http://127.0.0.1:9/up", "{}")
        #expect(secret.status != 0 && secret.stderr.contains("NotPermitted"), "\(secret.stderr)")
        let own = try gdbus(
            "Download", "org.example.Sandboxed", "s", "http://127.0.0.1:9/f", "\(home)/.var/app/org.example.Sandboxed/f",
            "{'not-before': <int64 9000000000000000>}")
        #expect(own.status == 0, "\(own.stderr)")
        #expect(try listed(fixture) == 1)
    }
}
