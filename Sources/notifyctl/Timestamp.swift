import Glibc

/// ISO-8601 times as notifyctl prints them, written without Foundation
/// (notifyctl must start in milliseconds).
///
/// The formatting is a pure function of a Unix time and a UTC offset, so it
/// is tested without touching the process's time zone.
enum Timestamp {
    /// `2026-11-21T10:00:00.123Z`: UTC with milliseconds, as `monitor`
    /// stamps each line.
    static func utc(unixMicroseconds: Int64) -> String {
        let (seconds, micros) = split(unixMicroseconds)
        let millis = micros / 1000
        return civil(seconds) + "." + padded(millis, 3) + "Z"
    }

    /// `2026-11-21T11:00:00+01:00`: local time to the second with its
    /// offset from UTC, as `sessions` shows the last event.
    static func local(unixMicroseconds: Int64, utcOffsetSeconds: Int) -> String {
        let (seconds, _) = split(unixMicroseconds)
        let minutes = utcOffsetSeconds / 60
        let sign = minutes < 0 ? "-" : "+"
        let zone = "\(sign)\(padded(Int64(abs(minutes) / 60), 2)):\(padded(Int64(abs(minutes) % 60), 2))"
        return civil(seconds + Int64(minutes) * 60) + zone
    }

    /// Local time in the process's time zone (`TZ`, `/etc/localtime`).
    static func local(unixMicroseconds: Int64) -> String {
        local(unixMicroseconds: unixMicroseconds, utcOffsetSeconds: utcOffset(at: unixMicroseconds))
    }

    /// The offset of local time from UTC at a moment (daylight saving time included).
    static func utcOffset(at unixMicroseconds: Int64) -> Int {
        var time = time_t(split(unixMicroseconds).seconds)
        var parts = tm()
        guard localtime_r(&time, &parts) != nil else { return 0 }
        return Int(parts.tm_gmtoff)
    }

    /// Now, in Unix microseconds.
    static func now() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1_000_000 + Int64(spec.tv_nsec) / 1000
    }

    /// Whole seconds (rounded down) and the microseconds past them.
    private static func split(_ unixMicroseconds: Int64) -> (seconds: Int64, micros: Int64) {
        let seconds = unixMicroseconds >= 0 ? unixMicroseconds / 1_000_000 : (unixMicroseconds + 1) / 1_000_000 - 1
        return (seconds, unixMicroseconds - seconds * 1_000_000)
    }

    /// `YYYY-MM-DDTHH:MM:SS` of a count of seconds since 1970-01-01T00:00:00
    /// (Howard Hinnant's `civil_from_days`, proleptic Gregorian calendar).
    private static func civil(_ seconds: Int64) -> String {
        var days = seconds / 86_400
        var rest = seconds % 86_400
        if rest < 0 {
            rest += 86_400
            days -= 1
        }
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))T"
            + "\(padded(rest / 3600, 2)):\(padded(rest / 60 % 60, 2)):\(padded(rest % 60, 2))"
    }

    private static func padded(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
