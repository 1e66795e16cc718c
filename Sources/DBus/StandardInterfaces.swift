/// Declarations of the standard interfaces every exported object has, for
/// introspection. They are answered by ``DBusObject`` and ``PeerInterface``.
public enum StandardInterfaces {
    public static let peerName = "org.freedesktop.DBus.Peer"
    public static let introspectableName = "org.freedesktop.DBus.Introspectable"
    public static let propertiesName = "org.freedesktop.DBus.Properties"

    private static func answeredElsewhere(_ call: DBusMethodCall) throws -> DBusMethodResult {
        throw DBusError.unknownMethod("\(call.member) is answered by the object itself")
    }

    /// `org.freedesktop.DBus.Peer`
    public static var peer: DBusInterface { DBusInterface(
        peerName,
        methods: [
            DBusMethod("Ping", handler: answeredElsewhere),
            DBusMethod("GetMachineId", outputs: [DBusArgument("machine_uuid", .string)], handler: answeredElsewhere),
        ])
    }

    /// `org.freedesktop.DBus.Introspectable`
    public static var introspectable: DBusInterface { DBusInterface(
        introspectableName,
        methods: [DBusMethod("Introspect", outputs: [DBusArgument("xml_data", .string)], handler: answeredElsewhere)])
    }

    /// `org.freedesktop.DBus.Properties`
    public static var properties: DBusInterface { DBusInterface(
        propertiesName,
        methods: [
            DBusMethod(
                "Get",
                inputs: [DBusArgument("interface_name", .string), DBusArgument("property_name", .string)],
                outputs: [DBusArgument("value", .variant)], handler: answeredElsewhere),
            DBusMethod(
                "GetAll", inputs: [DBusArgument("interface_name", .string)],
                outputs: [DBusArgument("props", .dictionary(key: .string, value: .variant))],
                handler: answeredElsewhere),
            DBusMethod(
                "Set",
                inputs: [
                    DBusArgument("interface_name", .string), DBusArgument("property_name", .string),
                    DBusArgument("value", .variant),
                ], handler: answeredElsewhere),
        ],
        signals: [
            DBusSignal(
                "PropertiesChanged",
                arguments: [
                    DBusArgument("interface_name", .string),
                    DBusArgument("changed_properties", .dictionary(key: .string, value: .variant)),
                    DBusArgument("invalidated_properties", .array(.string)),
                ])
        ])
    }

    /// The three, in the order introspection lists them.
    public static var all: [DBusInterface] { [introspectable, peer, properties] }
}
