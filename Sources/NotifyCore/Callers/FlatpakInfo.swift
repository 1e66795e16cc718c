/// Reads the `.flatpak-info` file Flatpak puts at the root of every sandbox
/// (`/proc/PID/root/.flatpak-info` seen from outside). The daemon reads the
/// file; this only parses its text.
public enum FlatpakInfo {
    /// The `name` key of the `[Application]` group, e.g. `org.gnome.Maps`;
    /// `nil` when there is no such group or key, or the value is empty.
    ///
    /// The format is a GKeyFile (a desktop-entry-like INI): lines starting
    /// with `#` (after spaces) are comments, `[Group]` lines open a group,
    /// and `key = value` lines have spaces around `=` ignored. Keys of other
    /// groups and localised keys (`name[de]`) are ignored; the first
    /// `name` of an `[Application]` group wins. Flatpak writes one such group,
    /// so the rule only matters for a file it did not write. GKeyFile escapes
    /// (`\s`, `\n`, ...) are not undone: a name with a backslash is returned
    /// as it is, and is no valid app ID.
    public static func applicationName(fromKeyFile text: String) -> String? {
        var inApplication = false
        for rawLine in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            let line = trimmed(rawLine)
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                inApplication = line == "[Application]"
                continue
            }
            guard inApplication, let equals = line.firstIndex(of: "=") else { continue }
            guard trimmed(line[..<equals]) == "name" else { continue }
            let value = trimmed(line[line.index(after: equals)...])
            return value.isEmpty ? nil : String(value)
        }
        return nil
    }

    /// `text` without spaces, tabs and carriage returns at either end.
    private static func trimmed(_ text: Substring) -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let first = text.firstIndex(where: { !isSpace($0) }),
            let last = text.lastIndex(where: { !isSpace($0) })
        else { return text[text.endIndex...] }
        return text[first...last]
    }
}
