import DBus
import Foundation
import Glibc
import NotifyTesting
import NotifyTestingCore
import Testing

/// The push server's settings: bad ones refused, a wrong password said in
/// words, the password asked by notifyctl and kept in the Secret Service
/// or the state database; and a connected notifyd that sleeps.
extension PushServerEndToEndTests {
    @Test func theStatusSaysAWrongPasswordInWordsAndBadSettingsAreRefused() throws {
        let prosody = try ProsodyServer()
        let fixture = try Fixture()
        try fixture.call(
            Self.push, "SetServer",
            [
                .string("xmpp"), .string(prosody.jid),
                .vardict([
                    "password": .string("wrong"), "host": .string("127.0.0.1"), "port": .uint16(prosody.clientPort),
                    "ca-file": .string(prosody.caFile),
                ]),
            ])
        var status: [String: DBusValue] = [:]
        try waitUntil("authentication-failed", seconds: 20) {
            status = try fixture.call(Self.push, "GetStatus").first?.vardictEntries ?? [:]
            return status["state"] == .string("authentication-failed")
        }
        #expect("\(status["reason"] ?? .string(""))".contains("password"))
        #expect(!"\(status)".contains("wrong"), "never the password")
        let listing = try runProcess(
            Executables.notifyctl, ["push", "status"], environment: ["DBUS_SESSION_BUS_ADDRESS": fixture.bus.address])
        #expect(listing.stdout.contains("authentication-failed"), "\(listing.stdout)")
        // Bad settings are refused in words, and nothing changes.
        for (kind, address, options) in [
            ("xmpp", "not a jid", ["password": DBusValue.string("x")]), ("xmpp", "a@b", [:]), ("gopher", "a@b", [:]),
            ("xmpp", "a@b", ["password": .string("x"), "port": .string("5222")]), ("none", "a@b", [:]),
            ("xmpp", "a@b", ["password": .string("x"), "colour": .string("red")]),
        ] {
            let error = #expect(throws: DBusError.self) {
                try fixture.call(Self.push, "SetServer", [.string(kind), .string(address), .vardict(options)])
            }
            #expect(error?.name == "org.freedesktop.DBus.Error.InvalidArgs", "\(kind) \(address) \(options)")
        }
        #expect(try fixture.call(Self.push, "GetStatus").first?.vardictEntries?["address"] == .string(prosody.jid))
    }

    /// The password is typed at a terminal (a pty here) with echo off, or
    /// read from a file; never on the command line.
    @Test func notifyctlSetsTheServerWithThePasswordAskedOnTheTerminalOrFromAFile() throws {
        let prosody = try ProsodyServer()
        let fixture = try Fixture()
        let environment = ["DBUS_SESSION_BUS_ADDRESS": fixture.bus.address]
        let arguments = [
            "push", "server", "xmpp", prosody.jid, "--host", "127.0.0.1", "--port", String(prosody.clientPort),
            "--ca-file", prosody.caFile,
        ]
        let terminal = """
            import os, pty, signal, subprocess, sys
            signal.alarm(30)  # a bound: never a hang
            primary, secondary = pty.openpty()
            child = subprocess.Popen(sys.argv[2:], stdin=secondary, stdout=secondary, stderr=secondary, close_fds=True)
            os.close(secondary)
            seen = b''
            while b'Password for' not in seen:
                seen += os.read(primary, 1024)
            os.write(primary, sys.argv[1].encode() + b'\\n')
            try:
                while True:
                    chunk = os.read(primary, 1024)
                    if not chunk:
                        break
                    seen += chunk
            except OSError:
                pass
            sys.stdout.write(seen.decode())
            sys.exit(child.wait())
            """
        let typed = try runProcess(
            "/usr/bin/python3", ["-c", terminal, ProsodyServer.password, Executables.notifyctl] + arguments,
            environment: environment)
        #expect(typed.status == 0, "stdout: \(typed.stdout) stderr: \(typed.stderr)")
        #expect(typed.stdout.contains("Password for \(prosody.jid): "))
        #expect(typed.stdout.contains("Push server set: xmpp \(prosody.jid)."), "\(typed.stdout)")
        #expect(!typed.stdout.contains(ProsodyServer.password), "the password is not echoed")
        func state() throws -> DBusValue? { try fixture.call(Self.push, "GetStatus").first?.vardictEntries?["state"] }
        try waitUntil("connected with the typed password", seconds: 20) { try state() == .string("connected") }

        // From a file, and without a terminal and without a file: refused in words.
        let none = try runProcess(Executables.notifyctl, ["push", "server", "none"], environment: environment)
        #expect(none.stdout == "No push server is set.\n")
        #expect(try state() == .string("not-configured"))
        let file = fixture.bus.directory.appendingPathComponent("password").path
        try (ProsodyServer.password + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let fromFile = try runProcess(Executables.notifyctl, arguments + ["--password-file", file], environment: environment)
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        try waitUntil("connected with the password from the file", seconds: 20) { try state() == .string("connected") }
        let noTerminal = try runProcess(Executables.notifyctl, arguments, environment: environment)
        #expect(noTerminal.status == 2 && noTerminal.stderr.contains("--password-file"), "\(noTerminal.stderr)")
        let ntfy = try runProcess(Executables.notifyctl, ["push", "server", "ntfy"], environment: environment)
        #expect(ntfy.status == 2 && ntfy.stderr.contains("URL"), "\(ntfy.stderr)")
        let status = try runProcess(Executables.notifyctl, ["status"], environment: environment)
        #expect(status.stdout.contains("Push server:          connected to \(prosody.jid)"), "\(status.stdout)")
    }

    /// Idle means idle with a push server connected: no thread of notifyd
    /// (the XMPP client's included) wakes while nothing arrives.
    @Test func connectedAndIdleNotifydDoesNotWake() throws {
        let setup = try Setup()
        let connector = try ActivatableConnector(bus: setup.fixture.bus, app: "org.example.Quiet")
        #expect(try connector.register(token: "quiet-1").success == "REGISTRATION_SUCCEEDED")
        let endpoint = try connector.waitFor("NewEndpoint") { $0.member == "NewEndpoint" }.endpoint
        #expect(try setup.prosody.startPost([1], to: endpoint).status() == 201)
        try connector.waitFor("the message") { $0.member == "Message" }
        try waitUntil("the delivery committed") { try setup.details(of: "org.example.Quiet")["messages"] == .uint32(1) }
        let pid = setup.fixture.daemon.pid
        func switches() -> Int {
            ProcReader.directoryEntries("/proc/\(pid)/task").reduce(0) { total, task in
                let fields = ProcReader.statusFields("/proc/\(pid)/task/\(task)/status") ?? [:]
                return total + (fields["voluntary_ctxt_switches"].flatMap { Int($0) } ?? 0)
                    + (fields["nonvoluntary_ctxt_switches"].flatMap { Int($0) } ?? 0)
            }
        }
        // Anything the last call left (its reply, the commit) settles first.
        usleep(500_000)
        let before = switches()
        // A window of measurement, not a wait for a condition.
        usleep(5_000_000)
        #expect(switches() - before <= 2, "notifyd woke \(switches() - before) times in 5 s while idle")
        #expect(ProcReader.directoryEntries("/proc/\(pid)/task").contains { task in
            ProcReader.readFile("/proc/\(pid)/task/\(task)/comm")?.hasPrefix("notifyd-xmpp") == true
        }, "the XMPP client's thread is among those measured")
    }

    /// The password goes to the Secret Service when one answers (a real
    /// gnome-keyring-daemon on the test's bus), not to the state database;
    /// after a `kill -9`, notifyd finds it there and connects; setting no
    /// server removes it. libstrophe and libsecret are mapped only from the
    /// moment they are needed.
    @Test func thePasswordIsKeptInTheSecretServiceAndFoundThereAfterARestart() throws {
        let prosody = try ProsodyServer()
        let fixture = try Fixture()
        let keyring = try KeyringSession(on: fixture.bus)
        #expect(try LazyLibraryTests.mapped(by: fixture.daemon.pid).isDisjoint(with: ["libstrophe.so", "libsecret-1.so"]))
        try fixture.call(
            Self.push, "SetServer",
            [
                .string("xmpp"), .string(prosody.jid),
                .vardict([
                    "password": .string(ProsodyServer.password), "host": .string("127.0.0.1"),
                    "port": .uint16(prosody.clientPort), "ca-file": .string(prosody.caFile),
                ]),
            ])
        func state() throws -> DBusValue? { try fixture.call(Self.push, "GetStatus").first?.vardictEntries?["state"] }
        try waitUntil("connected", seconds: 20) { try state() == .string("connected") }
        #expect(try keyring.itemCount(attribute: "account", value: prosody.jid) == 1)
        #expect(try storedPassword(fixture) == "|1", "no password in the state database, only where it is")
        let loaded = try LazyLibraryTests.mapped(by: fixture.daemon.pid)
        #expect(loaded.isSuperset(of: ["libstrophe.so", "libsecret-1.so"]), "loaded once needed: \(loaded)")
        try fixture.daemon.crashAndRestart()
        try waitUntil("connected again with the password from the Secret Service", seconds: 20) {
            try state() == .string("connected")
        }
        try fixture.call(Self.push, "SetServer", [.string("none"), .string(""), .vardict([:])])
        try waitUntil("the password removed from the Secret Service") {
            try keyring.itemCount(attribute: "account", value: prosody.jid) == 0
        }
    }

    /// Without a Secret Service, the password is in a file of notifyd's
    /// configuration directory (mode 0600, in a 0700 directory), never in
    /// the state database (SPEC); a restarted notifyd connects with it, and
    /// setting no server removes it.
    @Test func withoutASecretServiceThePasswordIsInAFileOfTheUsersAloneNeverInTheStateDatabase() throws {
        let prosody = try ProsodyServer()
        let fixture = try Fixture()
        try fixture.call(
            Self.push, "SetServer",
            [.string("xmpp"), .string(prosody.jid), .vardict(["password": .string(ProsodyServer.password), "host": .string("127.0.0.1"),
              "port": .uint16(prosody.clientPort), "ca-file": .string(prosody.caFile)])])
        #expect(try storedPassword(fixture) == "|0", "no password in the state database")
        let file = fixture.daemon.configDirectoryPath + "/push-password"
        #expect(try String(contentsOfFile: file, encoding: .utf8) == ProsodyServer.password)
        var status = stat()
        #expect(lstat(file, &status) == 0 && status.st_mode & 0o777 == 0o600 && (status.st_mode & S_IFMT) == S_IFREG)
        #expect(stat(fixture.daemon.configDirectoryPath, &status) == 0 && status.st_mode & 0o777 == 0o700)
        func state() throws -> DBusValue? { try fixture.call(Self.push, "GetStatus").first?.vardictEntries?["state"] }
        try waitUntil("connected", seconds: 20) { try state() == .string("connected") }
        try fixture.daemon.crashAndRestart()
        try waitUntil("connected again with the password from the file", seconds: 20) { try state() == .string("connected") }
        try fixture.call(Self.push, "SetServer", [.string("none"), .string(""), .vardict([:])])
        try waitUntil("the password file removed") { access(file, F_OK) != 0 }
    }

    /// The push server's row as `password|password_in_secret_service`.
    func storedPassword(_ fixture: Fixture) throws -> String {
        let database = fixture.daemon.stateDirectory.appendingPathComponent("state.sqlite3").path
        let result = try runProcess(
            "/usr/bin/sqlite3", ["file:\(database)?mode=ro", "SELECT password, password_in_secret_service FROM push_server"])
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
