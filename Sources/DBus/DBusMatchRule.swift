/// A match rule: which signals a connection wants from the bus.
///
/// The same rule is sent to the bus (``ruleString``) and checked locally
/// (``matches(_:)``), because the bus delivers one stream for all rules.
public struct DBusMatchRule: Hashable, Sendable {
    public var sender: String?
    public var interface: String?
    public var member: String?
    public var path: String?
    /// The first argument, when it is a string.
    public var arg0: String?

    /// A rule for signals; `nil` fields match anything.
    public init(
        sender: String? = nil, interface: String? = nil, member: String? = nil,
        path: String? = nil, arg0: String? = nil
    ) {
        self.sender = sender
        self.interface = interface
        self.member = member
        self.path = path
        self.arg0 = arg0
    }

    /// `NameOwnerChanged` of one name.
    public static func nameOwnerChanged(_ name: String) -> DBusMatchRule {
        DBusMatchRule(
            sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus",
            member: "NameOwnerChanged", path: "/org/freedesktop/DBus", arg0: name)
    }

    /// The rule in the bus's text form.
    public var ruleString: String {
        var parts = ["type='signal'"]
        func add(_ key: String, _ value: String?) {
            guard let value else { return }
            parts.append("\(key)='\(value.replacingOccurrences(of: "'", with: "'\\''"))'")
        }
        add("sender", sender)
        add("interface", interface)
        add("member", member)
        add("path", path)
        add("arg0", arg0)
        return parts.joined(separator: ",")
    }

    /// Whether a received signal matches. A well-known sender name is not
    /// checked locally (messages carry the sender's unique name), except
    /// for the bus itself.
    public func matches(_ message: DBusMessage) -> Bool {
        guard message.kind == .signal else { return false }
        if let interface, message.interface != interface { return false }
        if let member, message.member != member { return false }
        if let path, message.path != path { return false }
        if let sender, sender.hasPrefix(":") || sender == "org.freedesktop.DBus", message.sender != sender {
            return false
        }
        if let arg0 {
            guard case .string(let first)? = try? message.arguments().first, first == arg0 else { return false }
        }
        return true
    }
}

extension String {
    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: Character(target), omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
