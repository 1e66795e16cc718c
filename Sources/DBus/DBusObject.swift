import CDBus
import Logging

/// An exported object: a path and the interfaces it implements.
///
/// Dispatch follows one shape for every call: find the member (else
/// `UnknownMethod`), check the signature against the declaration (else
/// `InvalidArgs`), decode, run the handler, and send what it returns or
/// throws. `Introspectable` and `Properties` are answered from the
/// declarations; `Peer` by this module (``PeerInterface``), with its
/// signatures checked.
public final class DBusObject {
    /// The object path.
    public let path: String
    /// The object's own interfaces, in declaration order.
    public private(set) var interfaces: [DBusInterface]
    /// How `Properties.Get` and `GetAll` are answered: given the call and
    /// the read of its values, the owner decides when to read and answer
    /// (at once by default). One that queues a sender's calls, or commits
    /// state in groups, treats reads like its own methods, so a read sees
    /// what the sender's earlier calls did.
    public let answerPropertyRead: ((DBusMethodCall, _ read: @escaping () throws -> [DBusValue]) throws -> DBusMethodResult)?

    /// Creates an object; interface names must be unique. Property reads
    /// are answered through `answerPropertyRead` when given (else at once).
    public init(
        path: String, interfaces: [DBusInterface],
        answerPropertyRead: ((DBusMethodCall, _ read: @escaping () throws -> [DBusValue]) throws -> DBusMethodResult)? = nil
    ) {
        self.path = path
        self.interfaces = interfaces
        self.answerPropertyRead = answerPropertyRead
    }

    /// The interface with this name.
    public func interface(named name: String) -> DBusInterface? {
        interfaces.first { $0.name == name }
    }

    /// All interfaces introspection shows, standard ones first.
    public var allInterfaces: [DBusInterface] { StandardInterfaces.all + interfaces }

    // MARK: Dispatch

    /// Handles a method call; returns false if it was not for this object.
    func handle(_ message: DBusMessage, on connection: DBusConnection) -> Bool {
        guard message.kind == .methodCall, let member = message.member else { return false }
        if PeerInterface.answer(message, on: connection) { return true }
        let interfaceName = message.interface
        switch (interfaceName, member) {
        case (StandardInterfaces.introspectableName, "Introspect"), (nil, "Introspect"):
            answer(message, on: connection, signature: "") { _ in
                .reply([.string(self.introspectionXML(children: connection.children(of: self.path)))])
            }
        case (StandardInterfaces.propertiesName, _):
            handleProperties(message, member: member, on: connection)
        default:
            let candidates = interfaceName.map { name in interfaces.filter { $0.name == name } } ?? interfaces
            guard let method = candidates.lazy.compactMap({ $0.method(named: member) }).first else {
                let where_ = interfaceName.map { " or interface \($0)" } ?? ""
                reject(message, on: connection, .unknownMethod("Unknown method \(member)\(where_) on object \(path)."))
                return true
            }
            answer(message, on: connection, signature: method.inputSignature, method.handler)
        }
        return true
    }

    private func answer(
        _ message: DBusMessage, on connection: DBusConnection, signature: String,
        _ handler: (DBusMethodCall) throws -> DBusMethodResult
    ) {
        let member = message.member ?? ""
        guard message.signature == signature else {
            let expected = signature.isEmpty ? "no arguments" : "signature '\(signature)'"
            reject(
                message, on: connection,
                .invalidArgs("\(member) takes \(expected), but was called with '\(message.signature)'."))
            return
        }
        let arguments: [DBusValue]
        do {
            arguments = try message.arguments()
        } catch {
            reject(message, on: connection, error)
            return
        }
        let call = DBusMethodCall(message: message, arguments: arguments, connection: connection)
        do {
            switch try handler(call) {
            case .reply(let values): call.reply(values)
            case .deferred: break
            }
        } catch {
            call.fail(error)
        }
    }

    private func reject(_ message: DBusMessage, on connection: DBusConnection, _ error: DBusError) {
        guard !message.noReplyExpected else { return }
        do {
            try connection.send(message.errorReply(error))
        } catch {
            connection.logger.error("cannot send an error reply: \(error)")
        }
    }

    // MARK: Properties

    private func handleProperties(_ message: DBusMessage, member: String, on connection: DBusConnection) {
        switch member {
        case "Get":
            answer(message, on: connection, signature: "ss") { call in
                let property = try self.property(call.argument(0), call.argument(1))
                return try self.answerRead(call) { [.variant(try property.get())] }
            }
        case "GetAll":
            answer(message, on: connection, signature: "s") { call in
                let name: String = try call.argument(0)
                guard let interface = self.interface(named: name) else {
                    // The standard interfaces have no properties.
                    guard StandardInterfaces.all.contains(where: { $0.name == name }) else {
                        throw DBusError(DBusError.Name.unknownInterface, "Object \(self.path) has no interface \(name).")
                    }
                    return .reply([.vardict([:])])
                }
                return try self.answerRead(call) {
                    var values: [String: DBusValue] = [:]
                    for property in interface.properties { values[property.name] = try property.get() }
                    return [.vardict(values)]
                }
            }
        case "Set":
            answer(message, on: connection, signature: "ssv") { call in
                let property = try self.property(call.argument(0), call.argument(1))
                throw DBusError(DBusError.Name.propertyReadOnly, "Property \(property.name) is read-only.")
            }
        default:
            reject(message, on: connection, .unknownMethod("Unknown method \(member) of \(StandardInterfaces.propertiesName)."))
        }
    }

    private func answerRead(
        _ call: DBusMethodCall, _ read: @escaping () throws -> [DBusValue]
    ) throws -> DBusMethodResult {
        guard let answerPropertyRead else { return .reply(try read()) }
        return try answerPropertyRead(call, read)
    }

    private func property(_ interfaceName: String, _ name: String) throws(DBusError) -> DBusProperty {
        guard let interface = interface(named: interfaceName) else {
            throw DBusError(DBusError.Name.unknownInterface, "Object \(path) has no interface \(interfaceName).")
        }
        guard let property = interface.property(named: name) else {
            throw DBusError(DBusError.Name.unknownProperty, "Interface \(interfaceName) has no property \(name).")
        }
        return property
    }

    // MARK: Introspection

    /// The object's introspection XML.
    public func introspectionXML(children: [String] = [], includeDocumentation: Bool = false) -> String {
        Introspection.xml(interfaces: allInterfaces, children: children, includeDocumentation: includeDocumentation)
    }
}

extension DBusConnection {
    /// Exports an object at its path. Peer messages are then answered by
    /// this module, with their signatures checked (see ``PeerInterface``).
    public func export(_ object: DBusObject) throws(DBusError) {
        dbus_connection_set_route_peer_messages(raw, 1)
        var vtable = DBusObjectPathVTable()
        vtable.message_function = objectMessageFunction
        vtable.unregister_function = objectUnregisterFunction
        let box = Unmanaged.passRetained(ExportedObject(object: object, connection: self))
        let registered = try withCDBusError("cannot export \(object.path)") { error in
            dbus_connection_try_register_object_path(raw, object.path, &vtable, box.toOpaque(), error)
        }
        guard registered != 0 else {
            box.release()
            throw DBusError.noMemory
        }
        exportedPaths.append(object.path)
        try exportParentIntrospection()
    }

    /// Emits `PropertiesChanged` with the current values of `names`.
    public func emitPropertiesChanged(of object: DBusObject, interface: String, names: [String]) throws {
        guard let declaration = object.interface(named: interface) else { return }
        var changed: [String: DBusValue] = [:]
        for name in names {
            if let property = declaration.property(named: name) { changed[name] = try property.get() }
        }
        try emitSignal(
            path: object.path, interface: StandardInterfaces.propertiesName, member: "PropertiesChanged",
            [.string(interface), .vardict(changed), .strings([])])
    }

    /// The names of the children registered below `path`.
    func children(of path: String) -> [String] {
        var list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        guard dbus_connection_list_registered(raw, path, &list) != 0, let list else { return [] }
        defer { dbus_free_string_array(list) }
        var names: [String] = []
        var index = 0
        while let entry = list[index] {
            names.append(String(cString: entry))
            index += 1
        }
        return names.sorted()
    }

    /// Answers `Introspect` on the parents of exported objects (so tools
    /// like `busctl tree` find them), once per connection.
    private func exportParentIntrospection() throws(DBusError) {
        guard !exportedPaths.contains("/") else { return }
        let root = ParentNodes(connection: self)
        var vtable = DBusObjectPathVTable()
        vtable.message_function = parentMessageFunction
        vtable.unregister_function = parentUnregisterFunction
        let box = Unmanaged.passRetained(root)
        let registered = try withCDBusError("cannot export /") { error in
            dbus_connection_try_register_fallback(raw, "/", &vtable, box.toOpaque(), error)
        }
        guard registered != 0 else {
            box.release()
            throw DBusError.noMemory
        }
        exportedPaths.append("/")
    }
}

/// What libdbus holds for an exported object; released on unregistration.
///
/// The connection is weak: it owns the registration (its `deinit`
/// unregisters the path), and a call that arrives while it ends is left
/// unhandled rather than answered through a freed connection.
final class ExportedObject {
    let object: DBusObject
    weak var connection: DBusConnection?
    init(object: DBusObject, connection: DBusConnection) {
        self.object = object
        self.connection = connection
    }
}

/// Answers `Introspect` on paths that are only parents of objects, and
/// Peer calls on every path that has no object. Refers to its connection
/// weakly, as ``ExportedObject`` does.
final class ParentNodes {
    weak var connection: DBusConnection?
    init(connection: DBusConnection) { self.connection = connection }

    func handle(_ message: DBusMessage) -> Bool {
        // Strong for the whole call: a handler may drop the last other reference.
        guard let connection else { return false }
        if PeerInterface.answer(message, on: connection) { return true }
        guard message.kind == .methodCall, message.member == "Introspect",
            message.interface == nil || message.interface == StandardInterfaces.introspectableName,
            let path = message.path
        else { return false }
        let children = connection.children(of: path)
        guard !children.isEmpty else { return false }
        let xml = Introspection.xml(interfaces: [StandardInterfaces.introspectable], children: children)
        if let reply = try? message.methodReturn([.string(xml)]) { _ = try? connection.send(reply) }
        return true
    }
}

private let objectMessageFunction: DBusObjectPathMessageFunction = { _, rawMessage, data in
    guard let rawMessage, let data else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
    let exported = Unmanaged<ExportedObject>.fromOpaque(data).takeUnretainedValue()
    // Strong for the whole call: a handler may drop the last other reference.
    guard let connection = exported.connection else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
    let handled = exported.object.handle(DBusMessage(retaining: rawMessage), on: connection)
    return handled ? DBUS_HANDLER_RESULT_HANDLED : DBUS_HANDLER_RESULT_NOT_YET_HANDLED
}

private let objectUnregisterFunction: DBusObjectPathUnregisterFunction = { _, data in
    guard let data else { return }
    Unmanaged<ExportedObject>.fromOpaque(data).release()
}

private let parentMessageFunction: DBusObjectPathMessageFunction = { _, rawMessage, data in
    guard let rawMessage, let data else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
    let parents = Unmanaged<ParentNodes>.fromOpaque(data).takeUnretainedValue()
    return parents.handle(DBusMessage(retaining: rawMessage)) ? DBUS_HANDLER_RESULT_HANDLED : DBUS_HANDLER_RESULT_NOT_YET_HANDLED
}

private let parentUnregisterFunction: DBusObjectPathUnregisterFunction = { _, data in
    guard let data else { return }
    Unmanaged<ParentNodes>.fromOpaque(data).release()
}
