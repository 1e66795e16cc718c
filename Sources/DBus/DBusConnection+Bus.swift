import CDBus

/// A signal subscription of a connection.
struct Subscription {
    let rule: DBusMatchRule
    let handler: (DBusMessage) -> Void
}

/// Identifies a subscription, to cancel it.
public struct DBusSubscriptionID: Hashable, Sendable {
    let value: UInt64
}

/// What `RequestName` answered.
public enum DBusNameReply: Sendable, Equatable {
    case primaryOwner, inQueue, exists, alreadyOwner
}

extension DBusConnection {
    static let busName = "org.freedesktop.DBus"
    static let busPath = "/org/freedesktop/DBus"

    /// Asks the bus for a well-known name, without queueing.
    public func requestName(_ name: String, replaceExisting: Bool = false) throws(DBusError) -> DBusNameReply {
        var flags = CDBusConstant.nameFlagDoNotQueue
        if replaceExisting { flags |= CDBusConstant.nameFlagReplaceExisting }
        let code = try withCDBusError("cannot request the name \(name)") { dbus_bus_request_name(raw, name, flags, $0) }
        switch code {
        case CDBusConstant.requestNameReplyPrimaryOwner: return .primaryOwner
        case CDBusConstant.requestNameReplyInQueue: return .inQueue
        case CDBusConstant.requestNameReplyAlreadyOwner: return .alreadyOwner
        default: return .exists
        }
    }

    /// Calls a method of the bus itself, blocking.
    public func callBus(_ member: String, _ arguments: [DBusValue] = []) throws(DBusError) -> [DBusValue] {
        try call(
            destination: Self.busName, path: Self.busPath, interface: Self.busName, member: member, arguments)
    }

    /// The unique name owning `name`, or nil when it has no owner.
    public func nameOwner(of name: String) throws(DBusError) -> String? {
        do {
            return try callBus("GetNameOwner", [.string(name)]).decode(0, as: String.self)
        } catch let error where error.name == DBusError.Name.nameHasNoOwner {
            return nil
        }
    }

    /// The process ID of the connection owning `name`.
    public func unixProcessID(of name: String) throws(DBusError) -> UInt32 {
        try callBus("GetConnectionUnixProcessID", [.string(name)]).decode(0)
    }

    /// Subscribes to signals: the rule is added on the bus and `handler`
    /// runs on the loop thread for each matching signal.
    @discardableResult
    public func subscribe(
        _ rule: DBusMatchRule, _ handler: @escaping (DBusMessage) -> Void
    ) throws(DBusError) -> DBusSubscriptionID {
        installFilter()
        try withCDBusError("cannot add the match rule \(rule.ruleString)") { dbus_bus_add_match(raw, rule.ruleString, $0) }
        let id = DBusSubscriptionID(value: nextSubscriptionID)
        nextSubscriptionID += 1
        subscriptions[id.value] = Subscription(rule: rule, handler: handler)
        return id
    }

    /// Ends a subscription (the match rule is removed without waiting).
    public func unsubscribe(_ id: DBusSubscriptionID) {
        guard let subscription = subscriptions.removeValue(forKey: id.value) else { return }
        dbus_bus_remove_match(raw, subscription.rule.ruleString, nil)
    }

    /// Follows the owner of a bus name: `handler` gets the current owner
    /// at once and every change after (nil when the name has no owner).
    @discardableResult
    public func watchNameOwner(
        _ name: String, _ handler: @escaping (String?) -> Void
    ) throws(DBusError) -> DBusSubscriptionID {
        let id = try subscribe(.nameOwnerChanged(name)) { message in
            guard let arguments = try? message.arguments(), arguments.count == 3,
                case .string(let newOwner) = arguments[2]
            else { return }
            handler(newOwner.isEmpty ? nil : newOwner)
        }
        handler(try nameOwner(of: name))
        return id
    }

    /// Routes one incoming message (called by the connection filter).
    func filter(_ message: DBusMessage) {
        guard message.kind == .signal else { return }
        if message.isSignal("org.freedesktop.DBus.Local", "Disconnected") {
            failPendingCalls()
            let handlers = disconnectHandlers
            disconnectHandlers.removeAll()
            for handler in handlers { handler() }
            return
        }
        for key in subscriptions.keys.sorted() {
            guard let subscription = subscriptions[key], subscription.rule.matches(message) else { continue }
            subscription.handler(message)
        }
    }
}
