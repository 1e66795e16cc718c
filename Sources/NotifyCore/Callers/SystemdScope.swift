/// Tells a host app from the systemd unit a desktop launched it in, following
/// <https://systemd.io/DESKTOP_ENVIRONMENTS/>: desktops start each app in a
/// unit of the user's service manager named
///
/// - `app[-<launcher>]-<ApplicationID>-<RANDOM>.scope`, e.g.
///   `app-gnome-org.gnome.Nautilus-12345.scope`, or
/// - `app[-<launcher>]-<ApplicationID>[@<RANDOM>].service`, e.g.
///   `app-KDE-org.kde.okular@12345.service`,
///
/// with a `-` inside the application ID escaped as `\x2d`, so that every
/// plain `-` separates parts. The daemon reads `/proc/PID/cgroup`; this only
/// parses its text.
///
/// Conservative: whatever does not follow the convention exactly gives
/// `nil`, and so does an ID without a dot. The convention lets a launcher
/// without a desktop entry ID name the unit after `basename(argv[0])`
/// (`app-dolphin-1234.scope`), which is no reliable app ID; reverse-DNS IDs
/// are. (So `app-gnome-firefox-1234.scope` gives `nil` too.)
public enum SystemdScope {
    /// The app ID of the unit the process of this `/proc/PID/cgroup` text
    /// runs in, e.g. `org.gnome.Nautilus` for
    /// `0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.gnome.Nautilus-12345.scope`;
    /// `nil` when the process is in no app unit of a user's service manager.
    ///
    /// The unified hierarchy (`0::`) is read, or else the `name=systemd`
    /// one (legacy cgroup v1). The unit is the first one below `user@UID.service`
    /// that is not a slice, as `sd_pid_get_user_unit` finds it.
    public static func appID(fromCgroup text: String) -> String? {
        guard let path = systemdPath(in: text), let unit = userUnit(inPath: path) else { return nil }
        return appID(fromUnit: String(unit))
    }

    /// The app ID in a unit name such as `app-gnome-org.gnome.Nautilus-12345.scope`
    /// or `app-org.kde.dolphin@a1b2c3.service`, unescaped; `nil` for any
    /// other unit, for an ID that is no valid app ID, and for one without a dot.
    public static func appID(fromUnit unit: String) -> String? {
        guard unit.hasPrefix("app-") else { return nil }
        let body = unit.dropFirst(4)
        let escapedID: Substring
        if body.hasSuffix(".scope") {
            // [launcher-]ID-RANDOM
            let parts = body.dropLast(6).split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 2 || parts.count == 3, isAlphanumeric(parts[parts.count - 1]),
                parts.count == 2 || isAlphanumeric(parts[0])
            else { return nil }
            escapedID = parts[parts.count - 2]
        } else if body.hasSuffix(".service") {
            // [launcher-]ID[@RANDOM], or the [launcher-]ID-autostart of systemd before v248
            var name = body.dropLast(8)
            if let at = name.firstIndex(of: "@") {
                guard isAlphanumeric(name[name.index(after: at)...]) else { return nil }
                name = name[..<at]
            }
            var parts = name.split(separator: "-", omittingEmptySubsequences: false)
            if parts.count > 1 && parts.last == "autostart" { parts.removeLast() }
            guard parts.count == 1 || (parts.count == 2 && isAlphanumeric(parts[0])) else { return nil }
            escapedID = parts[parts.count - 1]
        } else {
            return nil
        }
        guard let id = unescaped(escapedID), id.contains("."), (try? AppID(id)) != nil else { return nil }
        return id
    }

    /// The cgroup path of the unified hierarchy, or else of `name=systemd`.
    private static func systemdPath(in text: String) -> Substring? {
        var legacy: Substring?
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            // hierarchy-ID:controllers:path (the path may hold ':' too)
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            if fields[0] == "0" && fields[1].isEmpty { return fields[2] }
            if fields[1].split(separator: ",").contains("name=systemd") { legacy = legacy ?? fields[2] }
        }
        return legacy
    }

    /// The first unit below the user's service manager that is not a slice.
    private static func userUnit(inPath path: Substring) -> Substring? {
        let components = path.split(separator: "/")
        guard
            let manager = components.firstIndex(where: { $0.hasPrefix("user@") && $0.hasSuffix(".service") })
        else { return nil }
        return components[(manager + 1)...].first { !$0.hasSuffix(".slice") }
    }

    private static func isAlphanumeric(_ text: Substring) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"):
                    true
                default:
                    false
                }
            }
    }

    /// Undoes systemd's unit name escaping (`\x2d` for `-`); `nil` for a
    /// backslash not followed by `x` and two hex digits.
    private static func unescaped(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var rest = text.utf8[...]
        while let byte = rest.popFirst() {
            guard byte == UInt8(ascii: "\\") else {
                bytes.append(byte)
                continue
            }
            guard rest.popFirst() == UInt8(ascii: "x"), let high = rest.popFirst().flatMap(hexValue),
                let low = rest.popFirst().flatMap(hexValue)
            else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
