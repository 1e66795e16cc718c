import Glibc
import NotifyTesting
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
final class KeyringSession {
    let bus: TestBus
    let home: ScratchDirectory
    let daemon: SpawnedProcess

    /// - Parameter unlocked: give the daemon the login password (it then
    ///   creates the login keyring unlocked); without, nothing is unlocked.
    init(unlocked: Bool = true) throws {
        let program = try requireTool("gnome-keyring-daemon", package: "gnome-keyring")
        bus = try TestBus()
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
                "XDG_RUNTIME_DIR": runtime, "DBUS_SESSION_BUS_ADDRESS": bus.address,
            ],
            standardOutput: .file(home.appending("keyring.log")), standardError: .standardOutput)
        try waitUntil("gnome-keyring-daemon owns org.freedesktop.secrets") {
            guard daemon.isRunning else {
                throw TestFailure("gnome-keyring-daemon ended: \(home.tail(of: "keyring.log", empty: "no output"))")
            }
            return try Self.nameHasOwner("org.freedesktop.secrets", on: bus.address)
        }
    }

    deinit {
        _ = daemon.terminate(graceSeconds: 5)
        bus.stop()
        home.remove()
    }

    /// Locks the login keyring (the default collection), as a screen lock
    /// would: the next store needs an unlock prompt, which nobody answers
    /// (there is no prompter on the private bus).
    func lockLoginKeyring() throws {
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

    /// Whether `name` has an owner on the bus at `address` (asked with dbus-send).
    static func nameHasOwner(_ name: String, on address: String) throws -> Bool {
        let answer = try runProcess(
            "/usr/bin/dbus-send",
            [
                "--bus=\(address)", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                "org.freedesktop.DBus.NameHasOwner", "string:\(name)",
            ])
        return answer.stdout.contains("boolean true")
    }
}

/// The answers a keeper gave, kept for the test thread to wait on (the
/// keeper answers on its own thread).
final class Answers<Answer: Sendable>: Sendable {
    private let answers = Mutex<[Answer]>([])

    func record(_ answer: Answer) { answers.withLock { $0.append(answer) } }

    /// Waits (bounded) for the next answer after the `count` already taken.
    func wait(_ what: String, count: Int, seconds: Double = 30) throws -> Answer {
        var answer: Answer?
        try waitUntil(what, seconds: seconds) {
            answer = answers.withLock { $0.count > count ? $0[count] : nil }
            return answer != nil
        }
        return answer!
    }
}

/// Runs `start` with a closure that records its answer, and waits for it.
func answer<Answer: Sendable>(
    _ what: String, seconds: Double = 30, _ start: (@escaping @Sendable (Answer) -> Void) -> Void
) throws -> Answer {
    let answers = Answers<Answer>()
    start { answers.record($0) }
    return try answers.wait(what, count: 0, seconds: seconds)
}
