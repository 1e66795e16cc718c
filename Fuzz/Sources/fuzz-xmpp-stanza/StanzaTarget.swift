import CStrophe
import Glibc

@testable import NotifyPush

/// What an XMPP push server sends: arbitrary text parsed by libstrophe as
/// a stanza (`xmpp_stanza_new_from_string`, its own parser), then read as
/// the push client reads a `<push/>` iq (``PushStanza/read(_:context:defaultSender:)``):
/// ids, senders, base64 attributes and bodies of any size and shape. A
/// push handed on must be within the protocol's bounds.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStanza(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size <= 16_384, let context = StanzaContext.shared else { return 0 }
    var text = Array(UnsafeBufferPointer(start: data, count: size))
    text.append(0)
    let stanza = text.withUnsafeBufferPointer { buffer in
        buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
            xmpp_stanza_new_from_string(context, $0)
        }
    }
    guard let stanza else { return 0 }
    defer { xmpp_stanza_release(stanza) }
    if case .push(_, _, let application, let instance, let body) = PushStanza.read(
        stanza, context: context, defaultSender: "example.org")
    {
        precondition((1...4096).contains(body.count), "a push body out of bounds was handed on")
        precondition(application.count <= 64 && instance.count <= 64, "an oversized application or instance")
    }
    return 0
}

/// One libstrophe context for every input (made once, as the client makes one).
enum StanzaContext {
    nonisolated(unsafe) static let shared: OpaquePointer? = {
        guard notifyd_strophe_load() == 1 else {
            fatalError(notifyd_strophe_load_error().map { String(cString: $0) } ?? "libstrophe could not be loaded")
        }
        return xmpp_ctx_new(nil, nil)
    }()
}
