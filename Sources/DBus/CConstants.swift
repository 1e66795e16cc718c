import CDBus

/// Mirrors of libdbus macros that Swift cannot import.
///
/// `DBUS_TYPE_*` are defined as `((int) 'y')` and similar casts, and
/// `DBUS_TIMEOUT_*`, `DBUS_NAME_FLAG_*` and the request-name replies are
/// plain `#define`s of expressions; the values are fixed by the D-Bus
/// specification, so they are spelled out here once.
enum CDBusConstant {
    static let typeInvalid: Int32 = 0
    static let typeByte = Int32(UInt8(ascii: "y"))
    static let typeBoolean = Int32(UInt8(ascii: "b"))
    static let typeInt16 = Int32(UInt8(ascii: "n"))
    static let typeUInt16 = Int32(UInt8(ascii: "q"))
    static let typeInt32 = Int32(UInt8(ascii: "i"))
    static let typeUInt32 = Int32(UInt8(ascii: "u"))
    static let typeInt64 = Int32(UInt8(ascii: "x"))
    static let typeUInt64 = Int32(UInt8(ascii: "t"))
    static let typeDouble = Int32(UInt8(ascii: "d"))
    static let typeString = Int32(UInt8(ascii: "s"))
    static let typeObjectPath = Int32(UInt8(ascii: "o"))
    static let typeSignature = Int32(UInt8(ascii: "g"))
    static let typeUnixFD = Int32(UInt8(ascii: "h"))
    static let typeArray = Int32(UInt8(ascii: "a"))
    static let typeVariant = Int32(UInt8(ascii: "v"))
    static let typeStruct = Int32(UInt8(ascii: "r"))
    static let typeDictEntry = Int32(UInt8(ascii: "e"))

    static let messageTypeMethodCall: Int32 = 1
    static let messageTypeMethodReturn: Int32 = 2
    static let messageTypeError: Int32 = 3
    static let messageTypeSignal: Int32 = 4

    static let watchReadable: UInt32 = 1
    static let watchWritable: UInt32 = 2
    static let watchError: UInt32 = 4
    static let watchHangup: UInt32 = 8

    /// `DBUS_TIMEOUT_INFINITE`
    static let timeoutInfinite: Int32 = 0x7fff_ffff

    static let nameFlagAllowReplacement: UInt32 = 0x1
    static let nameFlagReplaceExisting: UInt32 = 0x2
    static let nameFlagDoNotQueue: UInt32 = 0x4

    static let requestNameReplyPrimaryOwner: Int32 = 1
    static let requestNameReplyInQueue: Int32 = 2
    static let requestNameReplyExists: Int32 = 3
    static let requestNameReplyAlreadyOwner: Int32 = 4
}
