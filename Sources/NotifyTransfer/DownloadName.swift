/// The name of a file downloaded into a directory, chosen as a browser
/// does: from `Content-Disposition` (`filename*=` in UTF-8, else
/// `filename=`), else the last segment of the URL's path (percent-decoded),
/// else "download"; always a plain basename. When the name is taken,
/// "name (1).ext", "name (2).ext", ...
enum DownloadName {
    /// The most bytes of a name on Linux's file systems.
    static let byteLimit = 255

    /// The name suggested by the response, made safe.
    static func suggested(contentDisposition: [UInt8]?, url: String?) -> String {
        if let contentDisposition, let name = fromContentDisposition(contentDisposition).flatMap(sanitized) {
            return name
        }
        if let url, let name = fromURL(url).flatMap(sanitized) { return name }
        return "download"
    }

    /// The file name a `Content-Disposition` value gives: `filename*`
    /// (RFC 8187: UTF-8 or ISO-8859-1, percent-encoded) before `filename`.
    static func fromContentDisposition(_ value: [UInt8]) -> String? {
        var plain: String?
        for parameter in parameters(value) {
            switch parameter.name {
            case "filename*":
                if let name = extendedValue(parameter.value) { return name }
            case "filename":
                plain = decodeText(parameter.value)
            default: break
            }
        }
        return plain
    }

    /// The `name=value` pairs after the disposition type: names lowercased,
    /// quoted values unquoted.
    private static func parameters(_ value: [UInt8]) -> [(name: String, value: [UInt8])] {
        var result: [(String, [UInt8])] = []
        var index = value.startIndex
        func skipSpaces() { while index < value.endIndex, value[index] == 0x20 || value[index] == 0x09 { index += 1 } }
        // The disposition type.
        while index < value.endIndex, value[index] != UInt8(ascii: ";") { index += 1 }
        while index < value.endIndex {
            index += 1  // the ";"
            skipSpaces()
            let nameStart = index
            while index < value.endIndex, value[index] != UInt8(ascii: "="), value[index] != UInt8(ascii: ";") { index += 1 }
            let name = String(decoding: value[nameStart..<index], as: UTF8.self)
                .lowercased().filter { $0 != " " && $0 != "\t" }
            guard index < value.endIndex, value[index] == UInt8(ascii: "=") else { continue }
            index += 1
            skipSpaces()
            var parameterValue: [UInt8] = []
            if index < value.endIndex, value[index] == UInt8(ascii: "\"") {
                index += 1
                while index < value.endIndex, value[index] != UInt8(ascii: "\"") {
                    if value[index] == UInt8(ascii: "\\"), index + 1 < value.endIndex { index += 1 }
                    parameterValue.append(value[index])
                    index += 1
                }
                while index < value.endIndex, value[index] != UInt8(ascii: ";") { index += 1 }
            } else {
                while index < value.endIndex, value[index] != UInt8(ascii: ";") {
                    parameterValue.append(value[index])
                    index += 1
                }
                while let last = parameterValue.last, last == 0x20 || last == 0x09 { parameterValue.removeLast() }
            }
            result.append((name, parameterValue))
        }
        return result
    }

    /// `charset'language'percent-encoded` (RFC 8187), for UTF-8 and ISO-8859-1.
    private static func extendedValue(_ value: [UInt8]) -> String? {
        let parts = value.split(separator: UInt8(ascii: "'"), maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        let charset = String(decoding: parts[0], as: UTF8.self).lowercased()
        let bytes = percentDecoded(parts[2])
        switch charset {
        case "utf-8": return String(validating: bytes, as: UTF8.self)
        case "iso-8859-1": return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        default: return nil
        }
    }

    /// Bytes as UTF-8 when they are, else as ISO-8859-1 (what old servers send).
    private static func decodeText(_ bytes: [UInt8]) -> String {
        String(validating: bytes, as: UTF8.self) ?? String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }

    /// The last segment of the path of `url`, percent-decoded; nil when empty.
    static func fromURL(_ url: String) -> String? {
        var rest = Substring(url)
        if let colon = rest.firstIndex(of: ":"), rest[colon...].hasPrefix("://") {
            rest = rest[rest.index(colon, offsetBy: 3)...]
        }
        guard let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }), rest[slash] == "/" else {
            return nil
        }
        let path = rest[slash...].prefix { $0 != "?" && $0 != "#" }
        guard let segment = path.split(separator: "/").last else { return nil }
        return decodeText(percentDecoded(Array(segment.utf8)))
    }

    private static func percentDecoded<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> [UInt8] {
        let source = Array(bytes)
        var result: [UInt8] = []
        var index = 0
        while index < source.count {
            if source[index] == UInt8(ascii: "%"), index + 2 < source.count,
                let high = hexValue(source[index + 1]), let low = hexValue(source[index + 2])
            {
                result.append(high << 4 | low)
                index += 3
            } else {
                result.append(source[index])
                index += 1
            }
        }
        return result
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// `raw` as a safe basename: its last component (after "/" or "\"),
    /// without control or bidirectional-override characters, spaces at
    /// either end or leading dots, at most 255 bytes (the extension kept);
    /// nil when nothing is left.
    static func sanitized(_ raw: String) -> String? {
        let component = raw.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        var scalars = String.UnicodeScalarView(component.unicodeScalars.filter { !isUnsafe($0) })
        while let first = scalars.first, first == "." || first.properties.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.properties.isWhitespace { scalars.removeLast() }
        let name = String(scalars)
        guard !name.isEmpty else { return nil }
        return candidate(name, number: 0)
    }

    private static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0xFEFF: return true
        default: return false
        }
    }

    /// `name` with ` (number)` before its extension (none for 0), within
    /// 255 bytes: "report (2).pdf", "backup (1).tar.gz".
    static func candidate(_ name: String, number: Int) -> String {
        let (stem, fileExtension) = split(name)
        let suffix = (number == 0 ? "" : " (\(number))") + fileExtension
        var kept = Substring(stem)
        while kept.utf8.count + suffix.utf8.count > byteLimit, !kept.isEmpty { kept = kept.dropLast() }
        return String(kept) + suffix
    }

    /// The name and its extension (from the last dot not at the start,
    /// with a ".tar" before it; none when longer than 20 bytes).
    private static func split(_ name: String) -> (stem: String, fileExtension: String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
        var start = dot
        let before = name[..<dot]
        if before.lowercased().hasSuffix(".tar"), before.count > 4 { start = name.index(dot, offsetBy: -4) }
        let fileExtension = String(name[start...])
        guard fileExtension.utf8.count <= 20 else { return (name, "") }
        return (String(name[..<start]), fileExtension)
    }
}
