import ArgumentParser
import DBus
import NotifyCore

/// `notifyctl badge ...`: the badge counts docks show on app icons.
///
/// Each subcommand is one method of `org.notifyd.Notifyd1.Badges`. App IDs
/// and counts are passed to notifyd as given: notifyd is the authority on
/// what is valid, and its error is printed (exit 1).
struct Badge: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show and change the badge counts of apps.",
        discussion: """
            An app is named by its desktop entry ID without .desktop (firefox, org.gnome.Nautilus). \
            Counts are 0 to 2147483647; docks that follow Unity LauncherEntry (KDE Plasma, Dash to \
            Dock, Plank) show them on the app's icon. Without a subcommand, badge lists the badges.

            Examples:
              notifyctl badge list
              notifyctl badge set org.gnome.Nautilus 3
              notifyctl badge increment firefox
              notifyctl badge increment firefox -2
              notifyctl badge clear --all
            """,
        subcommands: [List.self, Get.self, SetCount.self, Increment.self, Clear.self],
        defaultSubcommand: List.self)

    /// The Badges interface name, for the subcommands.
    static let interface = NotifydNames.badgesInterface
}

extension Badge {
    /// `badge list`: every app whose badge is not 0.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the apps with a badge and their counts.",
            discussion: """
                Prints one "APP COUNT" line per app whose badge is not 0, sorted by app; nothing \
                when no app has a badge. With --json, one object mapping each app to its count.

                Examples:
                  notifyctl badge list
                  notifyctl badge list --json
                  notifyctl badge list | sort -k2 -n -r | head -3
                """)

        @OptionGroup var output: OutputOptions

        func run() throws {
            let counts = try DaemonClient.connect().call(
                Badge.interface, "ListBadges", returning: [String: UInt32].self)
            let sorted = counts.sorted { $0.key < $1.key }
            output.emit(text: sorted.map { "\($0.key) \($0.value)" }, json: .counts(counts))
        }
    }

    /// `badge get APP`: one app's count.
    struct Get: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print an app's badge count (0 when it has none).",
            discussion: """
                Examples:
                  notifyctl badge get firefox
                  notifyctl badge get firefox --json
                  [ "$(notifyctl badge get firefox)" -gt 0 ] && echo news
                """)

        @Argument(help: ArgumentHelp("The app's desktop entry ID.", valueName: "app"))
        var app: String

        @OptionGroup var output: OutputOptions

        func run() throws {
            let count = try DaemonClient.connect().call(
                Badge.interface, "GetBadge", [.string(app)], returning: UInt32.self)
            output.emit(text: ["\(count)"], json: .badge(app: app, count: count))
        }
    }
}

extension JSON {
    /// One app's badge: `{"app":"firefox","count":3}`.
    static func badge(app: String, count: UInt32) -> JSON {
        .object([("app", .string(app)), ("count", .uint(UInt64(count)))])
    }
}
