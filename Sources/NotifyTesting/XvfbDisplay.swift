import Foundation

/// An X display of its own for tests of desktop programs: Xvfb on the
/// first free display number (`-displayfd`), never the user's screen.
///
/// Desktop programs started on it get ``environment(busAddress:)``; a
/// screenshot of the whole screen is what a person would see.
public final class XvfbDisplay: @unchecked Sendable {
    private let xvfb: SpawnedProcess
    /// E.g. `:3`.
    public let display: String
    public let width: Int
    public let height: Int

    /// Starts Xvfb with a screen of `width`×`height` (24-bit); its log goes
    /// to `directory/xvfb.log`.
    public init(directory: URL, width: Int = 1024, height: Int = 768) throws {
        guard FileManager.default.fileExists(atPath: "/usr/bin/Xvfb") else {
            throw TestFailure("/usr/bin/Xvfb is missing: install xvfb (scripts/test does)")
        }
        self.width = width
        self.height = height
        var pipeFDs: [Int32] = [0, 0]
        guard pipe(&pipeFDs) == 0 else { throw TestFailure("pipe failed") }
        let log = open(directory.appendingPathComponent("xvfb.log").path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer { close(log) }
        do {
            xvfb = try SpawnedProcess(
                "/usr/bin/Xvfb", ["-displayfd", "1", "-nolisten", "tcp", "-screen", "0", "\(width)x\(height)x24"],
                environment: ProcessInfo.processInfo.environment, stdoutFD: pipeFDs[1], stderrFD: log)
        } catch {
            close(pipeFDs[0])
            close(pipeFDs[1])
            throw error
        }
        close(pipeFDs[1])
        let output = FileHandle(fileDescriptor: pipeFDs[0], closeOnDealloc: true)
        var text = ""
        while !text.contains("\n") {
            let chunk = output.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let number = text.split(separator: "\n").first, Int(number) != nil else {
            throw TestFailure("Xvfb did not report a display")
        }
        display = ":\(number)"
    }

    deinit {
        xvfb.kill(SIGTERM)
    }

    /// This process's environment with `DISPLAY` set to this display and
    /// `DBUS_SESSION_BUS_ADDRESS` to `busAddress`.
    public func environment(busAddress: String) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = display
        environment["DBUS_SESSION_BUS_ADDRESS"] = busAddress
        return environment
    }

    /// Saves the whole screen as a PNG (`import -window root`, imagemagick),
    /// within 20 s.
    public func screenshot(to file: URL) throws {
        let result = try runProcess(
            "/usr/bin/timeout", ["20", "/usr/bin/import", "-display", display, "-window", "root", file.path],
            environment: ["DISPLAY": display, "PATH": "/usr/bin:/bin"])
        guard result.status == 0 else { throw TestFailure("import failed: \(result.stderr)") }
    }
}
