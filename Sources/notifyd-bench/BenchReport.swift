/// Everything one run measured, rendered as a table for people or as one
/// JSON object for machines.
struct BenchReport {
    /// Where and when it ran, e.g. `cores: 2`, in order.
    var host: [(key: String, value: String)] = []
    /// The sections measured, e.g. `calls`, `idle`.
    var sections: [String] = []
    /// How it ran, e.g. `calls: 10000`, in order.
    var settings: [(key: String, value: Double)] = []
    /// The programs measured, by short name.
    var programs: [(name: String, path: String?)] = []
    var rows: [ReportRow] = []
    /// Lines to read with the table: unavailable clients, threads that woke, ...
    var notes: [String] = []

    /// Whether every row with a target met it (rows that could not be
    /// measured do not count as met).
    var allTargetsMet: Bool {
        rows.allSatisfy { $0.verdict == .pass || $0.verdict == .information }
    }

    // MARK: Table

    /// The report for a terminal.
    func table() -> String {
        let hostText = host.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        let settingsText = settings.map { "\($0.key) \(NumberText.compact($0.value))" }
        var lines = [
            "notifyd-bench: " + hostText,
            "sections: " + sections.joined(separator: ", ") + (settingsText.isEmpty ? "" : "; ")
                + settingsText.joined(separator: ", "),
            "",
        ]
        let header = ["figure", "value", "baseline", "baseline value", "ratio", "target", "result"]
        let cells = rows.map {
            [$0.figure, $0.valueText, $0.baseline ?? "", $0.baselineValueText, $0.ratioText, $0.targetText, $0.verdict.rawValue]
        }
        let rightAligned: Set<Int> = [1, 3, 4]
        let widths = header.indices.map { column in
            ([header] + cells).map { $0[column].count }.max() ?? 0
        }
        func line(_ row: [String]) -> String {
            row.indices.map { NumberText.padded(row[$0], widths[$0], alignRight: rightAligned.contains($0)) }
                .joined(separator: "  ")
                .trimmingTrailingSpaces()
        }
        lines.append(line(header))
        lines.append(line(widths.map { String(repeating: "-", count: $0) }))
        lines += cells.map(line)
        lines.append("")
        lines.append(allTargetsMet ? "All targets met." : "Some targets were missed or could not be measured (see MISS and N/A).")
        if !notes.isEmpty {
            lines.append("")
            lines += notes.map { "- " + $0 }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: JSON

    /// The report as one JSON object.
    func json() -> String {
        let hostFields = host.map { entry in
            let value = Int(entry.value).map { String($0) } ?? NumberText.json(entry.value)
            return "    \(NumberText.json(Self.jsonKey(entry.key))): \(value)"
        }
        let settingFields = settings.map { "    \(NumberText.json(Self.jsonKey($0.key))): \(NumberText.compact($0.value))" }
        let programFields = programs.map { "    \(NumberText.json($0.name)): \(NumberText.json($0.path))" }
        let figures = rows.map { row in
            let fields = [
                "\"id\": \(NumberText.json(row.id))",
                "\"figure\": \(NumberText.json(row.figure))",
                "\"value\": \(NumberText.json(row.value, decimals: row.unit.jsonDecimals))",
                "\"unit\": \(NumberText.json(row.unit.rawValue))",
                "\"baseline\": \(NumberText.json(row.baseline))",
                "\"baseline_value\": \(NumberText.json(row.baselineValue, decimals: row.unit.jsonDecimals))",
                "\"ratio\": \(NumberText.json(row.ratio, decimals: 4))",
                "\"target\": \(NumberText.json(row.targetText.isEmpty ? nil : row.targetText))",
                "\"result\": \(NumberText.json(row.verdict.rawValue))",
                "\"note\": \(NumberText.json(row.note))",
            ]
            return "    {" + fields.joined(separator: ", ") + "}"
        }
        return """
            {
              "host": {
            \(hostFields.joined(separator: ",\n"))
              },
              "sections": [\(sections.map { NumberText.json($0) }.joined(separator: ", "))],
              "settings": {
            \(settingFields.joined(separator: ",\n"))
              },
              "programs": {
            \(programFields.joined(separator: ",\n"))
              },
              "figures": [
            \(figures.joined(separator: ",\n"))
              ],
              "all_targets_met": \(allTargetsMet),
              "notes": [\(notes.map { NumberText.json($0) }.joined(separator: ", "))]
            }

            """
    }

    /// `idle seconds` becomes `idle_seconds`.
    private static func jsonKey(_ key: String) -> String {
        String(key.map { $0 == " " || $0 == "-" ? "_" : $0 })
    }
}

extension String {
    /// The string without spaces at its end.
    func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
