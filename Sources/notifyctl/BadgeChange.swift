import ArgumentParser
import DBus

extension Badge {
    /// `badge set APP N`.
    struct SetCount: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Set an app's badge count.",
            usage: "notifyctl badge set <app> <n>",
            discussion: """
                N is 0 to 2147483647 (notifyd refuses more, exit 1); 0 removes the badge. Prints \
                nothing.

                Examples:
                  notifyctl badge set org.gnome.Nautilus 3
                  notifyctl badge set firefox 0
                """)

        @Argument(help: ArgumentHelp("The app's desktop entry ID.", valueName: "app"))
        var app: String

        /// N as typed; see ``NumberArgument``.
        @Argument(parsing: .allUnrecognized, help: ArgumentHelp("The new count.", valueName: "n"))
        var countInput: [String] = []

        /// N, once `validate()` has accepted it.
        var count: UInt32 { (try? NumberArgument.parse(countInput, as: UInt32.self)) ?? 0 }

        func validate() throws {
            guard try NumberArgument.parse(countInput, as: UInt32.self) != nil else {
                throw ValidationError("Missing expected argument '<n>'")
            }
        }

        func run() throws {
            _ = try DaemonClient.connect().call(Badge.interface, "SetBadge", [.string(app), .uint32(count)])
        }
    }

    /// `badge increment APP [N]`, N negative too, with or without `--`.
    struct Increment: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add to an app's badge count and print the new count.",
            usage: "notifyctl badge increment <app> [<n>] [--json]",
            discussion: """
                N defaults to 1 and may be negative; the count stops at 0 going down. Above \
                2147483647 notifyd refuses and nothing changes (exit 1).

                Examples:
                  notifyctl badge increment firefox
                  notifyctl badge increment firefox 5
                  notifyctl badge increment firefox -2
                  notifyctl badge increment firefox -- -2
                """)

        @Argument(help: ArgumentHelp("The app's desktop entry ID.", valueName: "app"))
        var app: String

        /// N as typed; see ``NumberArgument``.
        @Argument(
            parsing: .allUnrecognized,
            help: ArgumentHelp("How much to add; negative subtracts. (default: 1)", valueName: "n"))
        var deltaInput: [String] = []

        @OptionGroup var output: OutputOptions

        /// N, once `validate()` has accepted it.
        var delta: Int32 { (try? NumberArgument.parse(deltaInput, as: Int32.self)) ?? 1 }

        func validate() throws {
            _ = try NumberArgument.parse(deltaInput, as: Int32.self)
        }

        func run() throws {
            let count = try DaemonClient.connect().call(
                Badge.interface, "IncrementBadge", [.string(app), .int32(delta)], returning: UInt32.self)
            output.emit(text: ["\(count)"], json: .badge(app: app, count: count))
        }
    }

    /// `badge clear APP` or `badge clear --all`.
    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove an app's badge, or every badge with --all.",
            discussion: """
                clear APP prints nothing; clear --all prints how many apps had a badge.

                Examples:
                  notifyctl badge clear firefox
                  notifyctl badge clear --all
                """)

        @Argument(help: ArgumentHelp("The app's desktop entry ID.", valueName: "app"))
        var app: String?

        @Flag(name: .long, help: "Clear the badge of every app.")
        var all = false

        @OptionGroup var output: OutputOptions

        func validate() throws {
            if all && app != nil { throw ValidationError("Give an app or --all, not both.") }
            if !all && app == nil { throw ValidationError("Name the app to clear, or use --all for every app.") }
            if output.json && !all { throw ValidationError("--json goes with --all; clear APP prints nothing.") }
        }

        func run() throws {
            let client = try DaemonClient.connect()
            if let app {
                _ = try client.call(Badge.interface, "ClearBadge", [.string(app)])
            } else {
                let cleared = try client.call(Badge.interface, "ClearAllBadges", returning: UInt32.self)
                output.emit(text: ["\(cleared)"], json: .object([("cleared", .uint(UInt64(cleared)))]))
            }
        }
    }
}
