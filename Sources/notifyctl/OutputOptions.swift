import ArgumentParser

/// `--json`, shared by every command that prints a result.
///
/// Without it, output is for people (and simple `while read` loops); with
/// it, JSON for `jq` and scripts: one value on one line (`monitor`: one
/// object per line, as signals come).
struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print JSON instead of text.")
    var json = false

    /// Prints the text, or the JSON value when `--json` was given.
    func emit(text: @autoclosure () -> [String], json value: @autoclosure () -> JSON) {
        if json {
            Output.json(value())
        } else {
            for line in text() { Output.line(line) }
        }
    }
}
