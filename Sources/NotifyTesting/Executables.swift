import Foundation

/// The project's executables, built next to the test bundle.
public enum Executables {
    /// Where `notifyd`, `notifyctl` and the test bundle were built
    /// (`$NOTIFYD_BIN_DIR` overrides).
    public static var directory: URL {
        if let override = ProcessInfo.processInfo.environment["NOTIFYD_BIN_DIR"], !override.isEmpty {
            return URL(fileURLWithPath: override)
        }
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = bundle.deletingLastPathComponent()
        // On Linux the test runner is `<build>/notifydPackageTests.xctest`.
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("notifyd").path),
            directory.path != "/"
        {
            directory = directory.deletingLastPathComponent()
        }
        return directory
    }

    public static var notifyd: String { directory.appendingPathComponent("notifyd").path }
    public static var notifyctl: String { directory.appendingPathComponent("notifyctl").path }

    /// The repository's top directory.
    public static func repositoryRoot(file: String = #filePath) -> URL {
        var url = URL(fileURLWithPath: file)
        while url.path != "/" {
            url = url.deletingLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        return url
    }

    /// The release's version, from the top entry of `debian/changelog`
    /// (`notifyd (0.2.0) unstable; ...`): what the executables must report.
    public static func releaseVersion() throws -> String {
        let changelog = try String(
            contentsOf: repositoryRoot().appendingPathComponent("debian/changelog"), encoding: .utf8)
        guard let open = changelog.firstIndex(of: "("), let close = changelog.firstIndex(of: ")"), open < close else {
            throw TestFailure("debian/changelog has no version on its first line")
        }
        return String(changelog[changelog.index(after: open)..<close])
    }
}

/// The environment for a child the tests start (notifyd, notifyctl,
/// hooks): the test process's own, where `NOTIFYD_CHILD_ASAN_OPTIONS`
/// (set by CI's sanitizer run) becomes the child's `ASAN_OPTIONS`, so the
/// programs under test are checked for leaks while the test runner is not.
public func childEnvironment(_ extra: [String: String] = [:]) -> [String: String] {
    var environment = ProcessInfo.processInfo.environment
    if let options = environment["NOTIFYD_CHILD_ASAN_OPTIONS"] { environment["ASAN_OPTIONS"] = options }
    return environment.merging(extra) { $1 }
}

/// What a finished process left.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

/// Runs a program to its end with extra environment, capturing its output.
@discardableResult
public func runProcess(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:], input: String? = nil
) throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = childEnvironment(environment)
    let stdout = Pipe()
    let stderr = Pipe()
    process.standardOutput = stdout
    process.standardError = stderr
    if let input {
        let pipe = Pipe()
        process.standardInput = pipe
        try process.run()
        pipe.fileHandleForWriting.write(Data(input.utf8))
        try pipe.fileHandleForWriting.close()
    } else {
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }
    let out = stdout.fileHandleForReading.readDataToEndOfFile()
    let err = stderr.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessResult(
        status: process.terminationStatus,
        stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
}
