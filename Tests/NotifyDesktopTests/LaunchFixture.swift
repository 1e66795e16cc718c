import Foundation
import NotifyDesktop
import NotifyTesting

/// The apps and files the launching tests use, written into
/// ``DesktopFixture/dataDirectory`` before GIO first reads it, with a
/// `mimeapps.list` in an `XDG_CONFIG_HOME` of their own (GLib reads both
/// once per process).
///
/// - `org.example.Fake`: `DBusActivatable`, the default for `text/plain`;
///   a test puts a ``FakeDBusActivatableApp`` on its bus to answer.
/// - `org.example.Absent`: `DBusActivatable`, but nobody ever owns its name.
/// - `org.notifyd.test.Probe`: a script recording its argv and activation
///   environment, the default for `text/x-csrc`.
/// - `org.notifyd.test.Status`: `cp /proc/self/status`, so the copy shows the
///   signal mask a launched app starts with (a shell would reset it first).
enum LaunchFixture {
    static let fakeApp = "org.example.Fake"
    static let absentApp = "org.example.Absent"
    static let probeApp = "org.notifyd.test.Probe"
    static let statusApp = "org.notifyd.test.Status"
    /// The literal argument before `%f` in the probe's `Exec`.
    static let probeArgument = "two words"

    static var outputDirectory: URL { DesktopFixture.dataDirectory.appendingPathComponent("out") }
    static var probeOutput: URL { outputDirectory.appendingPathComponent("probe") }
    static var statusOutput: URL { outputDirectory.appendingPathComponent("status") }
    /// A `text/plain` file (opened by the fake app).
    static var textFile: URL { DesktopFixture.dataDirectory.appendingPathComponent("files/report.txt") }
    /// A `text/x-csrc` file whose name a shell would split (opened by the probe).
    static var sourceFile: URL { DesktopFixture.dataDirectory.appendingPathComponent("files/my notes; echo x.c") }

    /// Writes everything into `directory` (the data directory being made)
    /// and sets `XDG_CONFIG_HOME`.
    static func install(in directory: URL) throws {
        let manager = FileManager.default
        let applications = directory.appendingPathComponent("applications")
        for sub in ["out", "files", "config"] {
            try manager.createDirectory(at: directory.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        try FakeDBusActivatableApp.desktopEntry(name: "Fake App", mimeTypes: ["text/plain"])
            .write(to: applications.appendingPathComponent("\(fakeApp).desktop"), atomically: true, encoding: .utf8)
        try FakeDBusActivatableApp.desktopEntry(name: "Absent App")
            .write(to: applications.appendingPathComponent("\(absentApp).desktop"), atomically: true, encoding: .utf8)

        let out = directory.appendingPathComponent("out").path
        let script = directory.appendingPathComponent("probe.sh")
        try """
            #!/bin/sh
            out='\(out)/probe'
            { for argument in "$@"; do printf 'arg=%s\\n' "$argument"; done
              printf 'XDG_ACTIVATION_TOKEN=%s\\n' "${XDG_ACTIVATION_TOKEN-}"
              printf 'DESKTOP_STARTUP_ID=%s\\n' "${DESKTOP_STARTUP_ID-}"
            } > "$out.tmp" && mv "$out.tmp" "$out"

            """.write(to: script, atomically: true, encoding: .utf8)
        try manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        let entries = [
            probeApp: "Name=Probe\nExec=\(script.path) \"\(probeArgument)\" %f\nMimeType=text/x-csrc;\n",
            statusApp: "Name=Status\nExec=cp /proc/self/status \(out)/status\n",
        ]
        for (app, keys) in entries {
            try ("[Desktop Entry]\nType=Application\n" + keys)
                .write(to: applications.appendingPathComponent("\(app).desktop"), atomically: true, encoding: .utf8)
        }

        // Not empty: GIO takes any empty file for text/plain.
        try "report\n".write(to: directory.appendingPathComponent("files/report.txt"), atomically: true, encoding: .utf8)
        try "int x;\n".write(
            to: directory.appendingPathComponent("files/my notes; echo x.c"), atomically: true, encoding: .utf8)

        let config = directory.appendingPathComponent("config")
        try "[Default Applications]\ntext/plain=\(fakeApp).desktop\ntext/x-csrc=\(probeApp).desktop\n"
            .write(to: config.appendingPathComponent("mimeapps.list"), atomically: true, encoding: .utf8)
        setenv("XDG_CONFIG_HOME", config.path, 1)
    }

    /// Waits (bounded) for `file` to hold text in which `complete` is true,
    /// and returns that text.
    static func waitForOutput(_ file: URL, seconds: Double = 20, complete: (String) -> Bool = { _ in true }) throws -> String {
        var text: String?
        try? waitUntil("\(file.path) is written", seconds: seconds) {
            text = try? String(contentsOf: file, encoding: .utf8)
            return text.map(complete) ?? false
        }
        if let text, complete(text) { return text }
        throw TestFailure("nothing launched wrote \(file.path) within \(seconds) s")
    }
}

extension GLibDesktop {
    /// Runs a launch and waits (bounded) for its outcome.
    func waitForLaunch(
        seconds: Double = 10, _ start: (GLibDesktop, @escaping @Sendable (LaunchOutcome) -> Void) -> Void
    ) throws -> LaunchOutcome {
        let outcome = OutcomeBox()
        start(self) { outcome.set($0) }
        return try outcome.wait(seconds: seconds)
    }
}

/// One launch outcome, handed over from the GLib thread.
final class OutcomeBox: @unchecked Sendable {
    private let condition = NSCondition()
    private var value: LaunchOutcome?

    func set(_ outcome: LaunchOutcome) {
        condition.lock()
        value = outcome
        condition.broadcast()
        condition.unlock()
    }

    func wait(seconds: Double) throws -> LaunchOutcome {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while value == nil {
            guard condition.wait(until: deadline) else { throw TestFailure("no launch outcome within \(seconds) s") }
        }
        return value!
    }
}
