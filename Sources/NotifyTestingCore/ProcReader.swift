import Glibc

/// Reads figures of a running process from `/proc` (Linux): the CPU time
/// and memory of a child (``SpawnedProcess/cpuNanoseconds``,
/// ``SpawnedProcess/memory``), and whole files of `/proc` and elsewhere.
public enum ProcReader {
    /// The `Name: value` fields of `/proc/PID/status` (or of one thread's
    /// `/proc/PID/task/TID/status`), or nil if the file cannot be read.
    public static func statusFields(_ path: String) -> [String: String]? {
        guard let text = readFile(path) else { return nil }
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            fields[String(line[..<colon])] = String(value)
        }
        return fields
    }

    /// A size such as `9876 kB` (the value of `VmRSS:`), in kilobytes.
    public static func kilobytes(_ value: String?) -> Int? {
        guard let value else { return nil }
        return Int(value.split(separator: " ").first ?? "")
    }

    /// The CPU time all threads of a process have used so far, in
    /// nanoseconds: the sum of `se.sum_exec_runtime` (milliseconds with six
    /// decimals) over `/proc/PID/task/*/sched` where the kernel has it, else
    /// `utime + stime` of `/proc/PID/stat` (whole clock ticks). Threads that
    /// already ended are not counted in the first form.
    public static func cpuNanoseconds(ofProcess pid: Int32) -> UInt64? {
        var total = 0.0
        var found = false
        for name in directoryEntries("/proc/\(pid)/task") {
            guard let text = readFile("/proc/\(pid)/task/\(name)/sched"),
                let line = text.split(separator: "\n").first(where: { $0.hasPrefix("se.sum_exec_runtime") }),
                let milliseconds = line.split(separator: ":").last.flatMap({ Double($0.filter { $0 != " " }) })
            else { continue }
            total += milliseconds
            found = true
        }
        if found { return UInt64(total * 1e6) }
        // After the parenthesised command name: state is field 3, utime 14, stime 15.
        guard let text = readFile("/proc/\(pid)/stat"), let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = UInt64(fields[11]), let system = UInt64(fields[12]) else { return nil }
        return (user + system) * 1_000_000_000 / UInt64(max(1, sysconf(Int32(_SC_CLK_TCK))))
    }

    /// The whole file; `/proc` files report no size, so read to the end.
    public static func readFile(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                bytes += buffer[0..<count]
            } else if count == 0 {
                return String(decoding: bytes, as: UTF8.self)
            } else if errno != EINTR {
                return nil
            }
        }
    }

    /// The names in a directory, without `.` and `..`.
    public static func directoryEntries(_ path: String) -> [String] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}

extension ProcReader {
    /// The memory figures of `/proc/PID/status` now; nil when the process
    /// is gone (or its `VmRSS` cannot be read).
    public static func memory(ofProcess pid: Int32) -> ProcessMemory? {
        guard let fields = statusFields("/proc/\(pid)/status"), let resident = kilobytes(fields["VmRSS"]) else {
            return nil
        }
        return ProcessMemory(
            residentKilobytes: resident, peakResidentKilobytes: kilobytes(fields["VmHWM"]),
            anonymousKilobytes: kilobytes(fields["RssAnon"]), threads: fields["Threads"].flatMap { Int($0) })
    }
}

/// A process's memory at one moment (MB here is 1024 kB).
public struct ProcessMemory: Sendable {
    /// `VmRSS`: resident now.
    public let residentKilobytes: Int
    /// `VmHWM`: the most that was ever resident.
    public let peakResidentKilobytes: Int?
    /// `RssAnon`: resident memory not backed by a file (heap, stacks).
    public let anonymousKilobytes: Int?
    /// `Threads`.
    public let threads: Int?
}
