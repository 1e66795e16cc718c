import Foundation
import NotifyTesting

/// A loopback XMPP server that logs the client in (plain text, SASL PLAIN)
/// and then misbehaves: pushes too large, not base64, empty, with a bad
/// application, of another namespace, an unrelated message, one good push
/// of 4096 bytes, one to be postponed, then 257 the client is not asked
/// to answer; it logs each answer ("ANSWER id type to condition"), then
/// sends half a stanza and closes the connection ("CLOSED").
final class HostileXMPPServer: Sendable {
    let port: UInt16
    let logPath: String
    private let process: SpawnedProcess
    private let scratch: URL

    static let script = #"""
import base64, re, socket, sys, time
NS = "http://gultsch.de/xmpp/drafts/unified-push"
APP = base64.b64encode(b"A" * 32).decode()
INST = base64.b64encode(bytes(range(32))).decode()
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(1)
print(listener.getsockname()[1], flush=True)
conn, _ = listener.accept()
conn.settimeout(20)
buffer = ""
def log(line):
    sys.stderr.write(line + "\n"); sys.stderr.flush()
def wait_for(pattern):
    global buffer
    while True:
        match = re.search(pattern, buffer, re.S)
        if match:
            buffer = buffer[match.end():]
            return match
        data = conn.recv(65536)
        if not data:
            raise SystemExit("client closed")
        buffer += data.decode("utf-8", "replace")
def send(text):
    conn.sendall(text.encode())
HEADER = ("<?xml version='1.0'?><stream:stream xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams' "
          "from='localhost' id='s1' version='1.0'>")
wait_for(r"<stream:stream[^>]*>")
send(HEADER + "<stream:features><mechanisms xmlns='urn:ietf:params:xml:ns:xmpp-sasl'><mechanism>PLAIN</mechanism></mechanisms></stream:features>")
wait_for(r"<auth[^>]*>[^<]*</auth>")
send("<success xmlns='urn:ietf:params:xml:ns:xmpp-sasl'/>")
wait_for(r"<stream:stream[^>]*>")
send(HEADER + "<stream:features><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'/></stream:features>")
bind = wait_for(r"<iq[^>]*id=[\"']([^\"']+)[\"'][^>]*>.*?</iq>")
send("<iq type='result' id='%s'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'><jid>alice@localhost/notifyd</jid></bind></iq>" % bind.group(1))
log("BOUND")
def push(id, body, app=APP, inst=INST):
    send("<iq type='set' from='localhost' to='alice@localhost/notifyd' id='%s'><push xmlns='%s' application='%s' instance='%s'>%s</push></iq>" % (id, NS, app, inst, body))
push("too-large", base64.b64encode(b"x" * 4097).decode())
push("not-base64", "%%%not base64%%%")
push("no-body", "")
push("bad-application", base64.b64encode(b"hi").decode(), app="!!!")
send("<iq type='set' from='localhost' id='no-push'><push xmlns='urn:example:other'>aGk=</push></iq>")
send("<message from='bob@localhost'><body>unrelated</body></message>")
push("largest", base64.b64encode(b"y" * 4096).decode())
push("postponed", base64.b64encode(b"later").decode())
for _ in range(7):
    answer = wait_for(r"<iq[^>]*?/>|<iq[^>]*>.*?</iq>")
    text = answer.group(0)
    id = re.search(r"id=[\"']([^\"']+)", text).group(1)
    kind = re.search(r"type=[\"']([^\"']+)", text).group(1)
    to = re.search(r"to=[\"']([^\"']+)", text)
    error = re.search(r"<error[^>]*type=[\"']([^\"']+)[^>]*>\s*<([a-z-]+)", text)
    log("ANSWER %s %s %s %s" % (id, kind, to.group(1) if to else "-",
                                "%s %s" % (error.group(1), error.group(2)) if error else ""))
    if id == "postponed":
        # More pushes than the client keeps open at once (256), none of them
        # answered by the test: the one over is answered at once, "later".
        for index in range(257):
            push("flood-%d" % index, base64.b64encode(b"f").decode())
# A stanza cut off in the middle, then the connection closed.
send("<iq type='set' from='localhost' id='cut'><push xmlns='%s' appl" % NS)
time.sleep(0.2)
conn.close()
log("CLOSED")
time.sleep(1)
"""#

    init() throws {
        scratch = try makeTemporaryDirectory(prefix: "notifyd-hostile-xmpp")
        let python = try requireTool("python3", package: "python3")
        let scriptPath = scratch.appendingPathComponent("server.py").path
        try Self.script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        let portPath = scratch.appendingPathComponent("port").path
        logPath = scratch.appendingPathComponent("log").path
        let process = try SpawnedProcess(
            python, [scriptPath], environment: childEnvironment(), standardOutput: .file(portPath),
            standardError: .file(logPath))
        self.process = process
        guard let port = try waitForPrintedPort("the hostile server", in: portPath, of: process) else { throw TestFailure("the hostile server did not start; its log is \(logPath)") }
        self.port = port
    }

    deinit {
        process.kill(SIGKILL)
        try? FileManager.default.removeItem(at: scratch)
    }

    /// What the server logged so far.
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
}
