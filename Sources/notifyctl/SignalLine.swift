import DBus
import NotifyCore

/// One signal of notifyd as `notifyctl monitor` prints it: a pure value,
/// so the output format is tested without a bus.
///
/// Text: the UTC time, the member, then each argument as `name=value`
/// (names from notifyd's introspection, values in ``DBusValueText``'s
/// compact form):
///
///     2026-11-21T10:00:00.123Z BadgeChanged app=firefox count=3
///
/// JSON: `{"time":"…","interface":"…","member":"…","args":[…]}`, values
/// mapped by ``JSON/dbus(_:)``.
struct SignalLine {
    /// When notifyctl received the signal, in Unix microseconds.
    var time: Int64
    var interface: String
    var member: String
    var arguments: [DBusValue]

    init(time: Int64, interface: String, member: String, arguments: [DBusValue]) {
        self.time = time
        self.interface = interface
        self.member = member
        self.arguments = arguments
    }

    /// A received signal, stamped now.
    init(_ message: DBusMessage, time: Int64 = Timestamp.now()) {
        self.init(
            time: time, interface: message.interface ?? "", member: message.member ?? "",
            arguments: (try? message.arguments()) ?? [])
    }

    var text: String {
        var words = [Timestamp.utc(unixMicroseconds: time), name]
        let names = Self.argumentNames[interface + "." + member] ?? []
        for (index, argument) in arguments.enumerated() {
            let value = DBusValueText.text(argument)
            words.append(index < names.count ? "\(names[index])=\(value)" : value)
        }
        return words.joined(separator: " ")
    }

    var json: JSON {
        .object([
            ("time", .string(Timestamp.utc(unixMicroseconds: time))),
            ("interface", .string(interface)),
            ("member", .string(member)),
            ("args", .array(arguments.map(JSON.dbus))),
        ])
    }

    /// The member alone for notifyd's own interfaces and the standard
    /// `Properties`; `interface.member` for anything else.
    var name: String {
        let short = interface.hasPrefix(NotifydNames.busName + ".") || interface == Self.propertiesInterface
        return DBusValueText.word(short ? member : interface + "." + member)
    }

    static let propertiesInterface = "org.freedesktop.DBus.Properties"

    /// The argument names of the signals notifyd emits (SPEC, and
    /// dbus/org.notifyd.Notifyd1.xml), shortened: `app` for `app_id`.
    /// Arguments beyond these (a later notifyd) are printed without a name.
    static let argumentNames: [String: [String]] = [
        NotifydNames.badgesInterface + ".BadgeChanged": ["app", "count"],
        NotifydNames.appsInterface + ".StateChanged": ["app", "state"],
        NotifydNames.sessionsInterface + ".HandleEventsForBackgroundSession": ["session", "app", "handler", "event"],
        NotifydNames.sessionsInterface + ".SessionCompleted": ["session", "app", "handler", "result"],
        NotifydNames.sessionsInterface + ".NotificationPosted": ["app", "session", "notification", "details"],
        propertiesInterface + ".PropertiesChanged": ["interface", "changed", "invalidated"],
    ]
}
