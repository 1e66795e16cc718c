import CStrophe
import Glibc

/// What a `<push/>` iq from the server says, read without side effects:
/// the client answers it, and the fuzz target `fuzz-xmpp-stanza` reads
/// arbitrary stanzas with it.
enum PushStanza: Equatable {
    /// No `id`: nothing can be answered.
    case unanswerable
    /// Refused at once: no `<push/>` of the protocol's namespace, an
    /// application or instance that is not base64 of at most 64 bytes, a
    /// body that is not 1 to 4096 bytes of base64.
    case malformed(id: String, from: String?)
    /// A push to hand on.
    case push(id: String, from: String?, application: [UInt8], instance: [UInt8], body: [UInt8])

    /// Reads `stanza` (an iq); `defaultSender` answers one without `from`.
    static func read(_ stanza: OpaquePointer, context: OpaquePointer, defaultSender: String?) -> PushStanza {
        guard let id = string(xmpp_stanza_get_id(stanza)) else { return .unanswerable }
        let from = string(xmpp_stanza_get_from(stanza)) ?? defaultSender
        guard let push = xmpp_stanza_get_child_by_name_and_ns(stanza, "push", unifiedPushNamespace),
            let application = decodeBase64(xmpp_stanza_get_attribute(push, "application"), limit: 64, context: context),
            let instance = decodeBase64(xmpp_stanza_get_attribute(push, "instance"), limit: 64, context: context),
            let body = body(of: push, context: context)
        else { return .malformed(id: id, from: from) }
        return .push(id: id, from: from, application: application, instance: instance, body: body)
    }

    private static func string(_ pointer: UnsafePointer<CChar>?) -> String? { pointer.map { String(cString: $0) } }

    /// The push's body, decoded, when it is 1 to 4096 bytes of valid base64.
    static func body(of push: OpaquePointer, context: OpaquePointer) -> [UInt8]? {
        guard let encoded = xmpp_stanza_get_text(push) else { return nil }
        defer { xmpp_free(context, encoded) }
        guard strnlen(encoded, StropheSession.encodedBodyLimit + 1) <= StropheSession.encodedBodyLimit else { return nil }
        guard let body = decodeBase64(UnsafePointer(encoded), limit: StropheSession.bodyLimit, context: context), !body.isEmpty else { return nil }
        return body
    }

    /// `encoded` decoded, when it is valid base64 of at most `limit` bytes.
    static func decodeBase64(_ encoded: UnsafePointer<CChar>?, limit: Int, context: OpaquePointer) -> [UInt8]? {
        guard let encoded else { return nil }
        let length = strnlen(encoded, limit * 2 + 8)
        guard length <= limit * 4 / 3 + 4 else { return nil }
        var decoded: UnsafeMutablePointer<UInt8>?
        var count = 0
        xmpp_base64_decode_bin(context, encoded, length, &decoded, &count)
        guard let decoded else { return nil }
        defer { xmpp_free(context, decoded) }
        guard count <= limit else { return nil }
        return Array(UnsafeBufferPointer(start: decoded, count: count))
    }
}
