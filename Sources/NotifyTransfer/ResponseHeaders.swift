import Glibc

/// The headers the engine reads, of the response being received: each
/// status line starts a new block, so those of redirects, of `100
/// Continue` and of a proxy's `CONNECT` are forgotten.
struct ResponseHeaders {
    /// The status of the last status line; 0 before one came.
    private(set) var status = 0
    private(set) var etag: String?
    private(set) var lastModified: String?
    private(set) var contentRange: String?
    private(set) var retryAfter: String?
    /// As the server sent it (a file name may be in any encoding).
    private(set) var contentDisposition: [UInt8]?

    /// Takes one header line as libcurl hands it over (with its CR LF).
    mutating func take(line bytes: UnsafeRawBufferPointer) {
        var line = Array(bytes)
        while let last = line.last, last == 0x0D || last == 0x0A { line.removeLast() }
        if line.starts(with: Array("HTTP/".utf8)) {
            self = ResponseHeaders()
            let fields = line.split(separator: 0x20, maxSplits: 2)
            if fields.count >= 2, let code = Int(String(decoding: fields[1], as: UTF8.self)) { status = code }
            return
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return }
        let name = String(decoding: line[..<colon], as: UTF8.self).lowercased()
        let value = Array(line[(colon + 1)...].drop { $0 == 0x20 || $0 == 0x09 })
        let text = String(decoding: value, as: UTF8.self).trimmingTrailingSpaces()
        switch name {
        case "etag": etag = text
        case "last-modified": lastModified = text
        case "content-range": contentRange = text
        case "retry-after": retryAfter = text
        case "content-disposition": contentDisposition = value
        default: break
        }
    }

    /// What to send as `If-Range` later: the ETag unless it is weak (`W/`,
    /// which If-Range does not take), else Last-Modified, else nil.
    var validator: String? {
        if let etag, !etag.hasPrefix("W/"), Self.isUsable(etag) { return etag }
        if let lastModified, Self.isUsable(lastModified) { return lastModified }
        return nil
    }

    /// Whether `value` may go back into a header line (no control characters).
    static func isUsable(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.allSatisfy { $0 >= 0x20 && $0 != 0x7F }
    }

    /// `Content-Range: bytes FIRST-LAST/TOTAL` (TOTAL may be `*`).
    var range: (first: UInt64, last: UInt64, total: UInt64?)? {
        guard let contentRange, contentRange.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = contentRange.dropFirst("bytes ".count)
        let parts = spec.split(separator: "/", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        let ends = parts[0].split(separator: "-", maxSplits: 1)
        guard ends.count == 2, let first = UInt64(ends[0]), let last = UInt64(ends[1]), first <= last else { return nil }
        if parts[1] == "*" { return (first, last, nil) }
        guard let total = UInt64(parts[1]), last < total else { return nil }
        return (first, last, total)
    }

    /// The server's Retry-After as a wait from `now` (Unix seconds): a
    /// number of seconds, or an HTTP date; nil when absent or unreadable.
    func retryDelay(now: Int64 = Int64(time(nil))) -> Duration? {
        guard let retryAfter else { return nil }
        if let seconds = Int64(retryAfter) { return seconds >= 0 ? .seconds(seconds) : nil }
        guard let date = HTTPDate.unixSeconds(retryAfter) else { return nil }
        return .seconds(max(0, date - now))
    }
}

/// The HTTP date formats (RFC 9110 5.6.7): IMF-fixdate `Sun, 06 Nov 1994
/// 08:49:37 GMT`, and the obsolete `Sunday, 06-Nov-94 08:49:37 GMT` and
/// `Sun Nov  6 08:49:37 1994`, read by their parts whatever their order.
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// Seconds since 1970 (UTC) of `text`, or nil.
    static func unixSeconds(_ text: String) -> Int64? {
        var day: Int64?, month: Int64?, year: Int64?, clock: [Int64]?
        for token in text.split(whereSeparator: { " ,-".contains($0) }) {
            if token.contains(":") {
                let parts = token.split(separator: ":").compactMap { Int64($0) }
                guard parts.count == 3 else { return nil }
                clock = parts
            } else if let index = months.firstIndex(of: token.prefix(3).lowercased()), token.count >= 3 {
                month = Int64(index) + 1
            } else if let number = Int64(token) {
                if token.count <= 2, day == nil { day = number } else { year = number < 100 ? number + (number < 70 ? 2000 : 1900) : number }
            }
        }
        guard let day, let month, let year, let clock, (1...31).contains(day), clock[0] < 24, clock[1] < 60, clock[2] < 61
        else { return nil }
        return daysSinceEpoch(year: year, month: month, day: day) * 86_400 + clock[0] * 3_600 + clock[1] * 60 + clock[2]
    }

    /// Days from 1970-01-01 to the date (proleptic Gregorian; Howard Hinnant's `days_from_civil`).
    static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

extension String {
    /// The string without the spaces and tabs at its end.
    fileprivate func trimmingTrailingSpaces() -> String {
        var text = Substring(self)
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return String(text)
    }
}
