import Glibc

/// Where `--wait` shows a transfer's progress on standard output.
///
/// On a terminal, one line redrawn in place (`\r`, then erase to the end
/// of the line); otherwise plain lines, one on every change of state or
/// reason and at most one a second in between; with `--json`, nothing
/// until the end.
final class TransferDisplay {
    enum Mode: Equatable {
        case terminal
        case plain
        case silent
    }

    /// Plain lines come at most this often while the state stays the same.
    static let plainInterval: UInt64 = 1_000_000_000

    let mode: Mode
    private let write: (String) -> Void
    private let columns: () -> Int
    private var latest: TransferInfo?
    private var drawn = false
    private var printedKey: String?
    private var printedAt: UInt64 = 0
    private var printedBytes: UInt64?
    private var printedLine: String?

    /// A display writing with `write` (standard output by default) for a
    /// terminal of `columns()` columns.
    init(mode: Mode, write: @escaping (String) -> Void = TransferDisplay.standardOutput,
         columns: @escaping () -> Int = TransferDisplay.terminalColumns) {
        self.mode = mode
        self.write = write
        self.columns = columns
    }

    /// The mode for this process: silent with `--json`, else terminal
    /// when standard output is one.
    static func mode(json: Bool) -> Mode {
        json ? .silent : isatty(STDOUT_FILENO) == 1 ? .terminal : .plain
    }

    var isTerminal: Bool { mode == .terminal }

    /// Shows a new state of the transfer, `now` in monotonic nanoseconds.
    func show(_ info: TransferInfo, rate: Double?, at now: UInt64) {
        latest = info
        switch mode {
        case .terminal:
            draw(info, rate: rate)
        case .plain:
            let key = info.state + "\u{0}" + info.reason
            let due = now >= printedAt + Self.plainInterval && printedBytes != info.bytesDone
            guard key != printedKey || (info.state == "running" && due) else { return }
            let line = ProgressLine.plainLine(info, rate: rate)
            printedKey = key
            printedAt = now
            printedBytes = info.bytesDone
            // A change of reason alone that reads the same is not news.
            guard line != printedLine else { return }
            printedLine = line
            write(line + "\n")
        case .silent:
            break
        }
    }

    /// Draws the terminal line again (the rate changes with time).
    func redraw(rate: Double?, at now: UInt64) {
        guard mode == .terminal, let latest else { return }
        draw(latest, rate: rate)
    }

    /// A remark between the lines (to standard error, after the line).
    func note(_ message: String) {
        end()
        Output.error(message)
    }

    /// Ends the terminal line, if one is drawn.
    func end() {
        guard drawn else { return }
        drawn = false
        write("\n")
    }

    private func draw(_ info: TransferInfo, rate: Double?) {
        // One column short of the width: a full line would wrap the cursor.
        let line = ProgressLine.terminalLine(info, rate: rate, width: max(columns() - 1, 20))
        write("\r" + line + "\u{1B}[K")
        drawn = true
    }

    /// Writes to standard output at once.
    static func standardOutput(_ text: String) {
        print(text, terminator: "")
        Output.flush()
    }

    /// The terminal's width (`TIOCGWINSZ`), else `$COLUMNS`, else 80.
    static func terminalColumns() -> Int {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let text = getenv("COLUMNS").map({ String(cString: $0) }), let columns = Int(text), columns > 0 {
            return columns
        }
        return 80
    }
}
