import Glibc
import NotifyTestingCore

/// An application server's POSTs to push endpoints, in the benchmark's
/// process: HTTP/1.1 over one kept-alive loopback connection, blocking,
/// so that the moment a POST is written is known to the nanosecond on the
/// clock its delivery is timed with. Prosody answers a push's POST only
/// once the receiving client answered the push.
final class PushPoster {
    private let port: UInt16
    private var socket: Int32 = -1

    /// Posts to the push endpoints of the Prosody on `127.0.0.1:port`.
    init(port: UInt16) {
        self.port = port
    }

    deinit { close() }

    /// POSTs `body` to `endpoint` (an `http://host:port/path` URL); the
    /// moment the request was written (`CLOCK_MONOTONIC`), and the status.
    func post(_ body: [UInt8], to endpoint: String) throws(BenchFailure) -> (sent: UInt64, status: Int) {
        let (host, path) = Self.split(endpoint)
        if socket < 0 { try connect() }
        let head = "POST \(path) HTTP/1.1\r\nHost: \(host)\r\nContent-Type: application/octet-stream\r\n"
            + "Content-Length: \(body.count)\r\n\r\n"
        let request = Array(head.utf8) + body
        let sent = MonotonicClock.nanoseconds()
        var written = 0
        while written < request.count {
            let count = request[written...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else {
                close()
                throw BenchFailure("the POST to \(endpoint) could not be written: \(String(cString: strerror(errno)))")
            }
            written += count
        }
        let status = try readResponse(endpoint)
        return (sent, status)
    }

    /// Ends the connection.
    func close() {
        if socket >= 0 { Glibc.close(socket) }
        socket = -1
    }

    private func connect() throws(BenchFailure) {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { throw BenchFailure("cannot make a socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            close()
            throw BenchFailure("cannot connect to Prosody's HTTP port \(port): \(reason)")
        }
    }

    /// Reads one response (head and `Content-Length` body); its status.
    private func readResponse(_ endpoint: String) throws(BenchFailure) -> Int {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4_096)
        var headEnd: Int?
        var bodyLength = 0
        while true {
            if let end = headEnd, received.count >= end + bodyLength { break }
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else {
                close()
                throw BenchFailure("Prosody closed the connection before answering the POST to \(endpoint)")
            }
            received += buffer[0..<count]
            if headEnd == nil, let end = Self.headEnd(received) {
                headEnd = end
                let head = String(decoding: received[0..<end], as: UTF8.self).lowercased()
                for line in head.split(separator: "\r\n") where line.hasPrefix("content-length:") {
                    bodyLength = Int(line.dropFirst("content-length:".count).filter { $0 != " " && $0 != "\t" }) ?? 0
                }
            }
        }
        let statusLine = String(decoding: received.prefix { $0 != 13 }, as: UTF8.self)
        let fields = statusLine.split(separator: " ")
        guard fields.count >= 2, let status = Int(fields[1]) else {
            close()
            throw BenchFailure("Prosody answered the POST to \(endpoint) with '\(statusLine)'")
        }
        if String(decoding: received, as: UTF8.self).lowercased().contains("connection: close") { close() }
        return status
    }

    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index + 4
        }
        return nil
    }

    /// `host:port` and the path of an `http://` URL.
    static func split(_ url: String) -> (host: String, path: String) {
        let rest = url.hasPrefix("http://") ? url.dropFirst("http://".count) : Substring(url)
        guard let slash = rest.firstIndex(of: "/") else { return (String(rest), "/") }
        return (String(rest[..<slash]), String(rest[slash...]))
    }
}
