import ArgumentParser

/// A number given as a positional argument that may be negative.
///
/// ArgumentParser reads `-2` as an unknown option, and a plain positional
/// `@Argument` skips dash-prefixed inputs, so `badge increment APP -2` would
/// fail. Commands collect the number with the unrecognized inputs instead
/// (`@Argument(parsing: .allUnrecognized)`) and parse it here in
/// `validate()`; errors read like ArgumentParser's own and exit 2.
enum NumberArgument {
    /// The number in `inputs` (what followed the other arguments), or nil
    /// when there is none.
    ///
    /// After `--` everything is a value, so `-- --json` is a bad number,
    /// not an unknown option.
    static func parse<Value: FixedWidthInteger>(
        _ inputs: [String], as type: Value.Type, name: String = "<n>"
    ) throws -> Value? {
        var values: [(text: String, isOption: Bool)] = []
        var afterTerminator = false
        for input in inputs {
            if input == "--" && !afterTerminator {
                afterTerminator = true
            } else {
                values.append((input, !afterTerminator && input.hasPrefix("-")))
            }
        }
        guard let (text, isOption) = values.first else { return nil }
        if values.count > 1 { throw ValidationError("Unexpected argument '\(values[1].text)'") }
        let digits = text.hasPrefix("-") || text.hasPrefix("+") ? text.dropFirst() : text[...]
        guard !digits.isEmpty, digits.allSatisfy({ ("0"..."9").contains($0) }) else {
            throw ValidationError(isOption ? "Unknown option '\(text)'" : "The value '\(text)' is invalid for '\(name)'")
        }
        guard let value = Value(text) else {
            throw ValidationError("The value '\(text)' is out of range for '\(name)': \(Value.min) to \(Value.max).")
        }
        return value
    }
}
