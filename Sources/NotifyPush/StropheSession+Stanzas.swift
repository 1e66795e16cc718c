import CStrophe
import Glibc

/// The protocol's stanzas: `<register/>` and its answer, `<push/>` and ours.
extension StropheSession {
    /// The longest push body, decoded (the server's own limit).
    static let bodyLimit = 4096
    /// The longest base64 text read for a body: 4096 bytes encode to 5,464
    /// characters; anything much longer is refused before it is decoded.
    static let encodedBodyLimit = 5600

    /// Sends `<register application instance/>` to the server's host.
    func register(application: [UInt8], instance: [UInt8]) {
        guard phase == .connected, let context, let connection, let settings else {
            emit(.registrationFailed(
                application: application, instance: instance, reason: "notifyd is not connected to the push server"))
            return
        }
        guard application.count == 32, instance.count == 32 else {
            emit(.registrationFailed(
                application: application, instance: instance,
                reason: "the application and the instance must be 32 bytes each"))
            return
        }
        guard pendingRegistrations.count < Self.pendingRegistrationLimit else {
            emit(.registrationFailed(
                application: application, instance: instance, reason: "too many registrations wait for the server"))
            return
        }
        stanzaCount += 1
        let id = "notifyd-register-\(stanzaCount)"
        do {
            let iq = try StropheResult.made(xmpp_iq_new(context, "set", id), "an iq")
            defer { xmpp_stanza_release(iq) }
            try StropheResult.check(xmpp_stanza_set_to(iq, settings.domain), "addressing the registration")
            let child = try StropheResult.made(xmpp_stanza_new(context), "a stanza")
            defer { xmpp_stanza_release(child) }
            try StropheResult.check(xmpp_stanza_set_name(child, "register"), "naming the registration")
            try StropheResult.check(xmpp_stanza_set_ns(child, unifiedPushNamespace), "the registration's namespace")
            try StropheResult.check(
                xmpp_stanza_set_attribute(child, "application", try base64(application)), "the application")
            try StropheResult.check(xmpp_stanza_set_attribute(child, "instance", try base64(instance)), "the instance")
            try StropheResult.check(xmpp_stanza_add_child(iq, child), "building the registration")
            xmpp_id_handler_add(connection, stropheHandlerForRegistration, id, userdata)
            pendingRegistrations[id] = (application, instance)
            xmpp_send(connection, iq)
        } catch {
            emit(.registrationFailed(application: application, instance: instance, reason: error.description))
        }
    }

    /// The server's answer to a `<register/>`.
    func receivedRegistrationAnswer(_ stanza: OpaquePointer) {
        guard let id = text(xmpp_stanza_get_id(stanza)),
            let registration = pendingRegistrations.removeValue(forKey: id)
        else { return }
        let registered = xmpp_stanza_get_child_by_name_and_ns(stanza, "registered", unifiedPushNamespace)
        if text(xmpp_stanza_get_type(stanza)) == "result", let registered,
            let endpoint = text(xmpp_stanza_get_attribute(registered, "endpoint")), !endpoint.isEmpty
        {
            emit(.registered(
                application: registration.application, instance: registration.instance, endpoint: endpoint,
                expiration: text(xmpp_stanza_get_attribute(registered, "expiration")) ?? ""))
        } else {
            emit(.registrationFailed(
                application: registration.application, instance: registration.instance,
                reason: "the push server did not register: \(errorDescription(stanza))"))
        }
    }

    /// A `<push/>`: handed on when it is well formed and within bounds,
    /// else refused at once.
    func receivedPush(_ stanza: OpaquePointer) {
        guard let context else { return }
        switch PushStanza.read(stanza, context: context, defaultSender: settings?.domain) {
        case .unanswerable:
            return
        case .malformed(let id, let from):
            send(answerTo: id, to: from, .gone)
        case .push(let id, let from, let application, let instance, let body):
            guard openPushes.count < Self.openPushLimit else {
                // Too many on their way at once: a moment's refusal (503),
                // not "gone" (404), which would cost the app its endpoint.
                send(answerTo: id, to: from, .later)
                return
            }
            openPushes[PushID(id)] = from ?? ""
            emit(.push(PushMessage(id: PushID(id), application: application, instance: instance, body: body)))
        }
    }

    /// Answers a push handed on before; nothing when it is unknown or its
    /// connection has ended since.
    func answer(_ push: PushID, _ answer: PushAnswer) {
        guard let to = openPushes.removeValue(forKey: push) else { return }
        send(answerTo: push.rawValue, to: to.isEmpty ? nil : to, answer)
    }

    /// How a push is answered, and what its sender then hears from
    /// `mod_unified_push`.
    enum PushAnswer {
        /// `<iq type="result"/>`: 201.
        case taken
        /// `item-not-found`, of type `cancel`: 404, the endpoint is gone.
        case gone
        /// `recipient-unavailable`, of type `wait`: 503, try again later.
        case later

        /// The error's type and condition; nil for a result.
        var error: (type: String, condition: String)? {
            switch self {
            case .taken: nil
            case .gone: ("cancel", "item-not-found")
            case .later: ("wait", "recipient-unavailable")
            }
        }
    }

    /// `<iq type="result"/>` or `<iq type="error"/>` as `answer` says; `to`
    /// must be the push's `from`, or the server never matches it.
    private func send(answerTo id: String, to: String?, _ answer: PushAnswer) {
        guard let context, let connection else { return }
        do {
            let iq = try StropheResult.made(xmpp_iq_new(context, answer.error == nil ? "result" : "error", id), "an iq")
            defer { xmpp_stanza_release(iq) }
            if let to { try StropheResult.check(xmpp_stanza_set_to(iq, to), "addressing the answer") }
            if let (type, name) = answer.error {
                let error = try StropheResult.made(xmpp_stanza_new(context), "a stanza")
                defer { xmpp_stanza_release(error) }
                try StropheResult.check(xmpp_stanza_set_name(error, "error"), "naming the error")
                try StropheResult.check(xmpp_stanza_set_type(error, type), "the error's type")
                let condition = try StropheResult.made(xmpp_stanza_new(context), "a stanza")
                defer { xmpp_stanza_release(condition) }
                try StropheResult.check(xmpp_stanza_set_name(condition, name), "naming the condition")
                try StropheResult.check(
                    xmpp_stanza_set_ns(condition, "urn:ietf:params:xml:ns:xmpp-stanzas"), "the condition's namespace")
                try StropheResult.check(xmpp_stanza_add_child(error, condition), "building the error")
                try StropheResult.check(xmpp_stanza_add_child(iq, error), "building the answer")
            }
            xmpp_send(connection, iq)
        } catch {
            // Out of memory: the server's own timeout answers the sender.
        }
    }

    /// `bytes` in base64, as libstrophe writes it.
    private func base64(_ bytes: [UInt8]) throws(XMPPPushError) -> String {
        guard let context else { throw XMPPPushError("libstrophe has no context") }
        let encoded = try StropheResult.made(
            bytes.withUnsafeBufferPointer { xmpp_base64_encode(context, $0.baseAddress, $0.count) }, "base64 text")
        defer { xmpp_free(context, encoded) }
        return String(cString: encoded)
    }

    /// An `<error/>`'s condition and text, in a few words.
    private func errorDescription(_ stanza: OpaquePointer) -> String {
        guard let error = xmpp_stanza_get_child_by_name(stanza, "error") else { return "no endpoint in its answer" }
        var condition = "an error"
        var said: String?
        var child = xmpp_stanza_get_children(error)
        while let current = child {
            if let name = text(xmpp_stanza_get_name(current)) {
                if name == "text", let content = xmpp_stanza_get_text(current) {
                    said = String(cString: content)
                    if let context { xmpp_free(context, content) }
                } else if name != "text" {
                    condition = name
                }
            }
            child = xmpp_stanza_get_next(current)
        }
        return said.map { "\(condition) (\($0.prefix(200)))" } ?? condition
    }

    /// A C string of libstrophe's (owned by the stanza) as a String.
    private func text(_ pointer: UnsafePointer<CChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }
}
