/// A table as notifyctl's listings print it: a header row and data rows,
/// columns left-aligned and two spaces apart, the last one not padded.
/// Cells are expected to be single tokens (``DBusValueText/word(_:)``).
enum TextTable {
    /// The aligned lines of `rows` (header first); nothing for no rows.
    static func lines(_ rows: [[String]]) -> [String] {
        guard let columns = rows.map(\.count).max() else { return [] }
        var widths = [Int](repeating: 0, count: columns)
        for row in rows {
            for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        return rows.map { row in
            var line = ""
            for (column, cell) in row.enumerated() {
                if column == row.count - 1 {
                    line += cell
                } else {
                    line += cell + String(repeating: " ", count: widths[column] - cell.count + 2)
                }
            }
            return line
        }
    }
}
