import CDBus

/// Appends one array argument to a message element by element, straight
/// through libdbus's iterators: a long array is written without building a
/// ``DBusValue`` tree for it, and may be written over several turns of the
/// event loop (the writer keeps the open array between calls).
///
/// Every element is checked against the element type as it is written
/// (libdbus aborts the process on a value of the wrong type in an array).
/// A body that throws leaves the writer failed: the array is abandoned and
/// the message must not be sent. Use on one thread at a time.
///
/// ```swift
/// let writer = try DBusArrayWriter(appendingTo: reply, element: .structure([.string, .uint32]))
/// try writer.append { try $0.structure { try $0.string("a"); try $0.uint32(1) } }
/// let message = try writer.finish()
/// ```
public final class DBusArrayWriter {
    /// The message the array is appended to.
    public let message: DBusMessage
    /// The type of every element.
    public let element: DBusType
    /// Elements appended so far.
    public private(set) var count = 0
    private var top = DBusMessageIter()
    private var array = DBusMessageIter()
    private var state = State.open

    private enum State { case open, finished, failed }

    /// Opens an array of `element` at the end of `message`'s arguments.
    ///
    /// - Throws: `InvalidSignature` when the array type is not allowed (too
    ///   deep, too long), `NoMemory` when libdbus cannot grow the message.
    public init(appendingTo message: DBusMessage, element: DBusType) throws(DBusError) {
        let signature = element.signature
        _ = try DBusType.parse("a" + signature)  // nesting and length limits
        self.message = message
        self.element = element
        dbus_message_iter_init_append(message.raw, &top)
        let opened = signature.withCString { dbus_message_iter_open_container(&top, CDBusConstant.typeArray, $0, &array) }
        guard opened != 0 else {
            state = .failed
            throw DBusError.noMemory
        }
    }

    deinit {
        if state == .open { dbus_message_iter_abandon_container(&top, &array) }
    }

    /// Appends one element: `body` must write exactly one value of the
    /// element type into the writer it is given.
    public func append(_ body: (inout DBusValueWriter) throws(DBusError) -> Void) throws(DBusError) {
        guard state == .open else { throw DBusError.failed("the array writer is \(state == .failed ? "failed" : "finished")") }
        var writer = DBusValueWriter(iter: array, slots: .one(element))
        do {
            try body(&writer)
            try writer.checkComplete()
        } catch {
            fail(writer.iter)
            throw error
        }
        array = writer.iter
        count += 1
    }

    /// Closes the array and returns the message, ready to send.
    public func finish() throws(DBusError) -> DBusMessage {
        guard state == .open else { throw DBusError.failed("the array writer is \(state == .failed ? "failed" : "finished")") }
        guard dbus_message_iter_close_container(&top, &array) != 0 else {
            state = .failed
            throw DBusError.noMemory
        }
        state = .finished
        return message
    }

    private func fail(_ current: DBusMessageIter) {
        array = current
        dbus_message_iter_abandon_container(&top, &array)
        state = .failed
    }
}
