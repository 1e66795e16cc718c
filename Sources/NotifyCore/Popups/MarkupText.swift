/// Text from callers made safe for a notification server that reads body
/// markup (`body-markup`): a file name like `<b>x</b>` or
/// `<a href="…">invoice.pdf</a>` must show as written, never as bold text
/// or a link.
public enum MarkupText {
    /// `text` with `&`, `<` and `>` as entities; every server with
    /// `body-markup` (a GMarkup or Qt rich-text subset) reads them back.
    public static func escaped(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") })
        else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        for character in text.unicodeScalars {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }
}
