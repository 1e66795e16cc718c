import Glibc

/// Where notifyctl writes: results to standard output, one line at a time;
/// problems to standard error, prefixed `notifyctl: `.
enum Output {
    /// Writes one line of a result.
    static func line(_ text: String) {
        print(text)
    }

    /// Sends what was written to standard output on its way now (a line a
    /// script reads while notifyctl goes on waiting); false when it cannot
    /// be written.
    @discardableResult
    static func flush() -> Bool {
        fflush(nil) == 0  // stdout is the only buffered stream
    }

    /// Writes a JSON value as one line.
    static func json(_ value: JSON) {
        print(value.text)
    }

    /// Writes `notifyctl: MESSAGE` to standard error.
    static func error(_ message: String) {
        standardError("notifyctl: \(message)")
    }

    /// Writes text and (unless `newline` is false) a line feed to standard
    /// error, unbuffered.
    static func standardError(_ text: String, newline: Bool = true) {
        let bytes = Array((text.hasSuffix("\n") || !newline ? text : text + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                Glibc.write(STDERR_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }

    /// `text` made safe for a terminal: control characters (a peer's
    /// notification server name could carry escape sequences) are shown as
    /// `\u{…}` escapes instead of being sent to the terminal.
    static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                result += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
