import Foundation

extension Executables {
    /// Where `notifyd`, `notifyctl` and the test bundle were built
    /// (`$NOTIFYD_BIN_DIR` overrides): ``Executables/directoryPath``.
    public static var directory: URL { URL(fileURLWithPath: directoryPath) }

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
