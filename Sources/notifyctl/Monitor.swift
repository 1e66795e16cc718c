import ArgumentParser

/// `notifyctl monitor`: every signal of notifyd, one line each, until
/// interrupted.
struct Monitor: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print every signal notifyd emits, one line each, as it comes.",
        discussion: """
            Follows what notifyd emits (badges, app states, events for background sessions, \
            invoked handlers, posted notifications, property changes). One line per signal: the \
            time (UTC), the signal, then its arguments as name=value:
              2026-11-21T10:00:00.123Z BadgeChanged app=firefox count=3
              2026-11-21T10:00:09.870Z StateChanged app=firefox state=active

            With --json, one JSON object per line, dictionaries (a{sv}) as objects:
              {"time":"…","interface":"…","member":"BadgeChanged","args":["firefox",3]}

            Every line is flushed at once, so a pipe gets it without delay. monitor starts notifyd \
            by D-Bus activation if needed, then runs until interrupted (Ctrl-C or SIGTERM: exit \
            0). When notifyd leaves the bus (it stopped) or the bus goes away, it says so and \
            exits 3.

            Examples:
              notifyctl monitor
              notifyctl monitor --json | jq -c 'select(.member == "SessionCompleted")'
              notifyctl monitor | grep --line-buffered BadgeChanged
            """)

    @OptionGroup var output: OutputOptions

    func run() throws {
        try SignalMonitor(json: output.json).run()
    }
}
