import Foundation
import Glibc
import NotifyTestingCore
import Synchronization

/// A real `gnome-keyring-daemon` (secrets component only) on a private bus,
/// with its own HOME, XDG_DATA_HOME and XDG_RUNTIME_DIR in a scratch
/// directory, its login keyring created and unlocked with a password read
/// from standard input, as at a desktop login:
///
///     sh -c 'exec gnome-keyring-daemon --foreground --unlock --components=secrets < password'
///
/// with DBUS_SESSION_BUS_ADDRESS set to the private bus. It is ready once
/// it owns `org.freedesktop.secrets` there.
public final class KeyringSession {
    public let bus: TestBus
    public let home: ScratchDirectory
    public let daemon: SpawnedProcess
    /// Whether the bus is the session's own (stopped with it).
    private let ownsBus: Bool

    /// - Parameters:
    ///   - unlocked: give the daemon the login password (it then creates the
    ///     login keyring unlocked); without, nothing is unlocked.
    ///   - bus: the bus to serve on (a bus of its own when nil).
    public init(unlocked: Bool = true, on bus: TestBus? = nil) throws {
        let program = try requireTool("gnome-keyring-daemon", package: "gnome-keyring")
        ownsBus = bus == nil
        self.bus = try bus ?? TestBus()
        home = try ScratchDirectory(prefix: "notifyd-keyring")
        let runtime = try home.makeSubdirectory("run")
        chmod(runtime, 0o700)
        try home.write(unlocked ? "keyring login password" : "", to: "password")
        let input = unlocked ? "--unlock " : ""
        daemon = try SpawnedProcess(
            "/bin/sh",
            ["-c", "exec \(program) --foreground \(input)--components=secrets < \(home.appending("password"))"],
            environment: [
                "PATH": "/usr/bin:/bin", "HOME": home.path, "XDG_DATA_HOME": home.appending("data"),
                "XDG_RUNTIME_DIR": runtime, "DBUS_SESSION_BUS_ADDRESS": self.bus.address,
            ],
            standardOutput: .file(home.appending("keyring.log")), standardError: .standardOutput)
        try waitUntil("gnome-keyring-daemon owns org.freedesktop.secrets") {
            guard daemon.isRunning else {
                throw TestFailure("gnome-keyring-daemon ended: \(home.tail(of: "keyring.log", empty: "no output"))")
            }
            return try Self.nameHasOwner("org.freedesktop.secrets", on: self.bus.address)
        }
    }

    deinit {
        _ = daemon.terminate(graceSeconds: 5)
        if ownsBus { bus.stop() }
        home.remove()
    }

    /// Locks the login keyring (the default collection), as a screen lock
    /// would: the next store needs an unlock prompt, which nobody answers
    /// (there is no prompter on the private bus).
    public func lockLoginKeyring() throws {
        let answer = try runProcess(
            "/usr/bin/dbus-send",
            [
                "--bus=\(bus.address)", "--print-reply", "--dest=org.freedesktop.secrets", "/org/freedesktop/secrets",
                "org.freedesktop.Secret.Service.Lock", "array:objpath:/org/freedesktop/secrets/collection/login",
            ])
        guard answer.status == 0, answer.stdout.contains("/org/freedesktop/secrets/collection/login") else {
            throw TestFailure("cannot lock the login keyring: \(answer.stdout)\(answer.stderr)")
        }
    }

    /// What the keyring holds of `attribute` = `value`, as `secret-tool`
    /// would find it: the secrets' labels, through the Secret Service's
    /// own `SearchItems` (dbus-send), so a test sees where a password went.
    public func itemCount(attribute: String, value: String) throws -> Int {
        let answer = try runProcess(
            "/usr/bin/dbus-send",
            [
                "--bus=\(bus.address)", "--print-reply", "--dest=org.freedesktop.secrets", "/org/freedesktop/secrets",
                "org.freedesktop.Secret.Service.SearchItems", "dict:string:string:\(attribute),\(value)",
            ])
        guard answer.status == 0 else { throw TestFailure("SearchItems failed: \(answer.stderr)") }
        return answer.stdout.components(separatedBy: "/org/freedesktop/secrets/collection/").count - 1
    }

    /// Whether `name` has an owner on the bus at `address` (asked with dbus-send).
    public static func nameHasOwner(_ name: String, on address: String) throws -> Bool {
        let answer = try runProcess(
            "/usr/bin/dbus-send",
            [
                "--bus=\(address)", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                "org.freedesktop.DBus.NameHasOwner", "string:\(name)",
            ])
        return answer.stdout.contains("boolean true")
    }
}

