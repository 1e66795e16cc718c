import Glibc

extension SpawnedProcess {
    /// Starts a program, waits for it, and returns how it ended with what
    /// it wrote (standard output and error together, in the order written).
    /// Reaped when it is waited for, right after its output ends.
    ///
    /// - Throws: ``TestFailure`` when the program cannot be started.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String],
        processGroup: ProcessGroup = .own
    ) throws(TestFailure) -> (termination: Termination, output: String) {
        let child = try SpawnedProcess(
            executable, arguments, environment: environment, pipedDescriptors: [1, 2], processGroup: processGroup,
            reaping: .whenAsked)
        let output = child.readPipe()
        return (child.wait(), output)
    }

    /// Reads the child's pipe until it is closed (or up to the first
    /// newline), then closes it. Empty when the child has no pipe, or when
    /// it was read to its end already.
    public func readPipe(stopAtNewline: Bool = false) -> String {
        guard let outputPipe = takePipe() else { return "" }
        defer { close(outputPipe) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !(stopAtNewline && bytes.contains(UInt8(ascii: "\n"))) {
            let count = buffer.withUnsafeMutableBytes { read(outputPipe, $0.baseAddress, $0.count) }
            if count > 0 {
                bytes += buffer[0..<count]
            } else if count == 0 || errno != EINTR {
                break
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Reads one line of the child's pipe (without its newline) and leaves
    /// the rest unread, for a child that says when it is ready; nil at the
    /// end of the pipe. Byte by byte, so nothing after the line is consumed.
    public func readLine() -> String? {
        guard let outputPipe = takePipe() else { return nil }
        defer { returnPipe(outputPipe) }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = read(outputPipe, &byte, 1)
            if count == 1 {
                if byte == UInt8(ascii: "\n") { break }
                bytes.append(byte)
            } else if count == 0 || errno != EINTR {
                guard !bytes.isEmpty else { return nil }
                break
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The CPU time the child (all its threads) has used so far, in
    /// nanoseconds (``ProcReader/cpuNanoseconds(ofProcess:)``); nil once it ended.
    public var cpuNanoseconds: UInt64? { ProcReader.cpuNanoseconds(ofProcess: pid) }

    /// The child's memory now (``ProcReader/memory(ofProcess:)``); nil once it ended.
    public var memory: ProcessMemory? { ProcReader.memory(ofProcess: pid) }
}

/// The environment for a child (a bus, notifyd, notifyctl, a hook): this
/// process's own with `extra` replacing or adding entries and the variables
/// named in `removing` left out. `NOTIFYD_CHILD_ASAN_OPTIONS` (set by CI's
/// sanitizer run) becomes the child's `ASAN_OPTIONS`, so the programs
/// under test are checked for leaks while the test runner is not.
public func childEnvironment(_ extra: [String: String] = [:], removing removed: Set<String> = []) -> [String: String] {
    var environment: [String: String] = [:]
    if let entries = inheritedEnvironment() {
        var index = 0
        while let entry = entries[index] {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                environment[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            index += 1
        }
    }
    if let options = environment["NOTIFYD_CHILD_ASAN_OPTIONS"] { environment["ASAN_OPTIONS"] = options }
    for name in removed { environment[name] = nil }
    return environment.merging(extra) { $1 }
}

/// This process's environment (`environ`), read through a function so the
/// global is touched in one place.
private func inheritedEnvironment() -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
    environ
}
