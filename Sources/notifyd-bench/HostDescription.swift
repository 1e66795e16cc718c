import Glibc
import NotifyTestingCore

/// What the report says about the machine it ran on.
enum HostDescription {
    /// `date`, `os`, `kernel`, `cores`, in that order.
    static func current() -> [(key: String, value: String)] {
        var name = utsname()
        uname(&name)
        let kernel = field(of: name.release)
        let machine = field(of: name.machine)
        return [
            ("date", utcDate()),
            ("os", operatingSystem()),
            ("kernel", "\(kernel) \(machine)"),
            ("cores", String(sysconf(Int32(_SC_NPROCESSORS_ONLN)))),
        ]
    }

    /// `PRETTY_NAME` of `/etc/os-release`, e.g. `Debian GNU/Linux 12 (bookworm)`.
    static func operatingSystem() -> String {
        let text = ProcReader.readFile("/etc/os-release") ?? ""
        for line in text.split(separator: "\n") where line.hasPrefix("PRETTY_NAME=") {
            return String(line.dropFirst("PRETTY_NAME=".count).filter { $0 != "\"" })
        }
        return "Linux"
    }

    /// Now, in UTC, e.g. `2026-11-21T09:30:00Z`.
    static func utcDate() -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    /// A fixed-size C string field of `utsname` as a Swift string.
    private static func field<T>(of tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
