#!/usr/bin/env python3
"""An ntfy double: the part of ntfy's HTTP API that notifyd's ntfy client
uses, for tests (NotifyTesting's NtfyDoubleServer) and by hand.

No real ntfy server can be installed here (it is not packaged for Debian 12
and the machine has no internet but Debian's mirror and PyPI), so this
follows ntfy's published API and its server code (binwiederhier/ntfy at
81a486ad: server/server.go, server/types.go, server/message_cache.go,
server/errors.go), as docs/notes/unifiedpush/ntfy-double.md tells:

- publish: POST or PUT /<topic> (https://docs.ntfy.sh/publish/). With
  UnifiedPush on (X-UnifiedPush, UnifiedPush or up = 1/yes/true, as a header
  or in the query; or Content-Encoding: aes128gcm) the body (its first 4096
  bytes, ntfy's message-size-limit) is kept as it is when it is UTF-8, else
  as base64 with "encoding":"base64"; without it, a UTF-8 body under 4096
  bytes is the message (trimmed), anything else would be an attachment,
  which this double refuses as ntfy does without an attachment cache (400,
  40014). An empty body is "triggered". The answer is the message's JSON.
- subscribe: GET /<topic>[,<topic>...]/json (https://docs.ntfy.sh/subscribe/api/):
  a chunked stream of JSON lines, an "open" event first, then the cached
  messages that since= selects (a message id: those after it, in any of the
  topics, all when the id is unknown; a Unix time: those at or after it; a
  duration such as 10m; all; latest; none, the default), then live messages,
  and a "keepalive" event after each --keepalive seconds of silence. poll=1
  sends the cached ones (since= defaults to all) and ends.
- GET /<topic>?up=1 answers {"unifiedpush":{"version":1}} (discovery).
- Events are written as Go's encoding/json writes ntfy's message struct:
  its field order, empty fields left out, <, >, & and U+2028/9 escaped.
- Errors are ntfy's JSON, {"code":40401,"http":404,"error":"page not found"}.
- The cache (12 hours, as ntfy's default) is kept in --cache, so that a
  restart on the same --port keeps it, as ntfy's cache-file does.

Not ntfy's, and only for tests: /_double/cut ends every stream at once (a
network that goes away); /_double/down refuses subscriptions by closing them
unanswered until /_double/up; /_double/refuse?status=N answers subscriptions
with ntfy's error for N (401, 403, 404, 429, 500, 507) until status=0;
POST /_double/raw writes its body as it is into every stream. Left out:
authentication, attachments, priorities and the other publish options,
SSE, raw and WebSocket streams, rate limits (ntfy.sh's 507 for a UnifiedPush
topic without a subscriber), Firebase, e-mail.
"""
import argparse
import base64
import http.server
import json
import os
import queue
import re
import secrets
import select
import socket
import ssl
import string
import sys
import threading
import time
import urllib.parse

TOPIC_PATH = re.compile(r"^/([-_A-Za-z0-9]{1,64})$")
JSON_PATH = re.compile(r"^/([-_A-Za-z0-9]{1,64}(?:,[-_A-Za-z0-9]{1,64})*)/json$")
ID_CHARACTERS = string.ascii_letters + string.digits
MESSAGE_SIZE_LIMIT = 4096
CACHE_SECONDS = 12 * 3600
DURATION = re.compile(r"^(?:(\d+(?:\.\d+)?)(h|m|s|ms))+$")
ERRORS = {
    400: (40008, "invalid since parameter", "https://ntfy.sh/docs/subscribe/api/#fetch-cached-messages"),
    401: (40101, "unauthorized", "https://ntfy.sh/docs/publish/#authentication"),
    403: (40301, "forbidden", "https://ntfy.sh/docs/publish/#authentication"),
    404: (40401, "page not found", ""),
    429: (42903, "limit reached: too many active subscriptions", "https://ntfy.sh/docs/publish/#limitations"),
    500: (50001, "internal server error", ""),
    507: (50701, "cannot publish to UnifiedPush topic without previously active subscriber", ""),
}
ATTACHMENTS_DISALLOWED = (40014, "invalid request: attachments not allowed", "https://ntfy.sh/docs/config/#attachments")


def go_json(value):
    """JSON as Go's encoding/json writes it (HTML-safe escaping)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    for plain, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                           ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(plain, escaped)
    return text + "\n"


def new_event(event, topic, message=None, encoding=None, expires=None):
    """ntfy's message struct, its fields in its order, empty ones left out."""
    fields = {"id": "".join(secrets.choice(ID_CHARACTERS) for _ in range(12)), "time": int(time.time())}
    if expires:
        fields["expires"] = expires
    fields["event"] = event
    fields["topic"] = topic
    if message:
        fields["message"] = message
    if encoding:
        fields["encoding"] = encoding
    return fields


def log(line):
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


class Stream:
    """One subscriber's stream: its topics, the lines waiting for it, and a
    pipe that wakes its writer when a line comes."""

    def __init__(self, topics, connection):
        self.topics = topics
        self.connection = connection
        self.lines = queue.Queue()
        self.wake_read, self.wake_write = os.pipe()

    def put(self, line):
        self.lines.put(line)
        os.write(self.wake_write, b"x")

    def cut(self):
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.put(None)

    def next_line(self, keepalive):
        """The next line to send: a waiting one, else a keepalive after
        `keepalive` seconds of silence; None once the stream is cut or the
        subscriber has gone (its socket readable: closed, as Go's server
        learns from the request's context)."""
        deadline = time.monotonic() + keepalive
        while True:
            try:
                return self.lines.get_nowait()
            except queue.Empty:
                pass
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return ""
            readable, _, _ = select.select([self.connection, self.wake_read], [], [], remaining)
            if self.connection in readable:
                return None
            if self.wake_read in readable:
                os.read(self.wake_read, 4096)

    def close(self):
        os.close(self.wake_read)
        os.close(self.wake_write)


class Cache:
    """The messages, by row as ntfy's SQLite cache numbers them, kept in a file."""

    def __init__(self, path):
        self.path = path
        self.lock = threading.Lock()
        self.rows = []  # (row, message)
        self.streams = set()
        self.down = False
        self.refuse = 0
        if path and os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                self.rows = [tuple(json.loads(line)) for line in f if line.strip()]

    def publish(self, message):
        with self.lock:
            row = (self.rows[-1][0] + 1) if self.rows else 1
            self.rows.append((row, message))
            if self.path:
                with open(self.path, "a", encoding="utf-8") as f:
                    f.write(json.dumps([row, message]) + "\n")
            for stream in self.streams:
                if message["topic"] in stream.topics:
                    stream.put(go_json(message).encode())

    def since(self, topics, marker):
        """The cached messages of `topics` that `marker` selects, oldest first (the caller holds the lock)."""
        now = int(time.time())
        rows = [(row, m) for row, m in self.rows if m["topic"] in topics and m.get("expires", now + 1) > now]
        kind, value = marker
        if kind == "none":
            return []
        if kind == "latest":
            latest = {}
            for row, m in rows:
                latest[m["topic"]] = (row, m)
            rows = list(latest.values())
        elif kind == "id":
            found = [row for row, m in self.rows if m["id"] == value]
            if found:  # ntfy looks the id up in every topic; an unknown one means all
                rows = [(row, m) for row, m in rows if row > found[0]]
        elif kind == "time":
            rows = [(row, m) for row, m in rows if m["time"] >= value]
        return [m for _, m in sorted(rows, key=lambda r: (r[1]["time"], r[0]))]


def parse_since(text, poll):
    """ntfy's parseSince: ("none"|"all"|"latest", None), ("id", id), ("time", unix) or None when invalid."""
    if not text:
        return ("all", None) if poll else ("none", None)
    if text in ("all", "latest", "none"):
        return (text, None)
    if len(text) == 12 and all(c in ID_CHARACTERS for c in text):
        return ("id", text)
    if re.fullmatch(r"-?\d+", text):
        return ("time", int(text))
    if DURATION.match(text):
        seconds = sum(float(n) * {"h": 3600, "m": 60, "s": 1, "ms": 0.001}[u] for n, u in re.findall(r"(\d+(?:\.\d+)?)(h|ms|m|s)", text))
        return ("time", int(time.time() - seconds))
    return None


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "ntfy-double"

    def setup(self):
        super().setup()
        if isinstance(self.request, ssl.SSLSocket):
            self.request.settimeout(10)
            self.request.do_handshake()  # here, not in the accepting thread
            self.request.settimeout(None)

    def log_message(self, format, *args):
        pass

    def param(self, *names):
        """ntfy's readParam: a header first, then the query (names lowercased)."""
        for name in names:
            value = self.headers.get(name, "").strip()
            if value:
                return value
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
        for name in names:
            if query.get(name.lower(), [""])[0].strip():
                return query[name.lower()][0].strip()
        return ""

    def flag(self, *names):
        return self.param(*names).lower() in ("1", "yes", "true")

    def answer(self, status, body, content_type="application/json"):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def error(self, status, known=None):
        code, text, link = known or ERRORS.get(status, (status * 100 + 1, http.HTTPStatus(status).phrase.lower(), ""))
        body = {"code": code, "http": status, "error": text}
        if link:
            body["link"] = link
        self.answer(status, go_json(body))

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def do_GET(self):
        path = urllib.parse.urlsplit(self.path).path
        if path.startswith("/_double/"):
            return self.control(path)
        match = JSON_PATH.match(path)
        if match:
            return self.subscribe(match.group(1).split(","))
        if TOPIC_PATH.match(path) and self.flag("x-unifiedpush", "unifiedpush", "up"):
            return self.answer(200, '{"unifiedpush":{"version":1}}\n')
        self.error(404)

    def do_POST(self):
        path = urllib.parse.urlsplit(self.path).path
        if path.startswith("/_double/"):
            return self.control(path)
        match = TOPIC_PATH.match(path)
        if not match:
            return self.error(404)
        self.publish(match.group(1), self.body())

    do_PUT = do_POST

    def publish(self, topic, body):
        unifiedpush = self.flag("x-unifiedpush", "unifiedpush", "up") or self.headers.get("Content-Encoding", "") == "aes128gcm"
        peeked = body[:MESSAGE_SIZE_LIMIT]
        encoding = None
        if unifiedpush:
            try:
                text = peeked.decode("utf-8")
            except UnicodeDecodeError:
                text, encoding = base64.b64encode(peeked).decode(), "base64"
        else:
            try:
                if len(body) >= MESSAGE_SIZE_LIMIT:
                    raise UnicodeDecodeError("utf-8", b"", 0, 1, "over the limit")
                text = peeked.decode("utf-8").strip()
            except UnicodeDecodeError:
                return self.error(400, ATTACHMENTS_DISALLOWED)
        message = new_event("message", topic, text or "triggered", encoding, int(time.time()) + CACHE_SECONDS)
        self.server.cache.publish(message)
        log("PUBLISH %s %s %d" % (topic, message["id"], len(body)))
        self.answer(200, go_json(message))

    def subscribe(self, topics):
        cache = self.server.cache
        log("SUBSCRIBE %s" % self.path)
        if cache.down:
            self.close_connection = True
            self.request.shutdown(socket.SHUT_RDWR)
            return
        if cache.refuse:
            return self.error(cache.refuse)
        poll = self.flag("x-poll", "poll", "po")
        marker = parse_since(self.param("x-since", "since", "si"), poll)
        if marker is None:
            return self.error(400)
        stream = Stream(set(topics), self.request)
        with cache.lock:
            old = cache.since(set(topics), marker)
            if not poll:
                cache.streams.add(stream)
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/x-ndjson; charset=utf-8")
            self.send_header("Access-Control-Allow-Origin", "*")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            if not poll:
                self.chunk(go_json(new_event("open", ",".join(topics))).encode())
            for message in old:
                self.chunk(go_json(message).encode())
            while not poll:
                line = stream.next_line(self.server.keepalive)
                if line is None:
                    break
                self.chunk(line or go_json(new_event("keepalive", ",".join(topics))).encode())
            if poll:
                self.wfile.write(b"0\r\n\r\n")
        except OSError:
            pass
        finally:
            with cache.lock:
                cache.streams.discard(stream)
            stream.close()
            self.close_connection = True

    def chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def control(self, path):
        cache = self.server.cache
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
        if path in ("/_double/cut", "/_double/down"):
            with cache.lock:  # a stream leaves the set under the lock before its pipe closes
                cache.down = cache.down or path == "/_double/down"
                streams = list(cache.streams)
                for stream in streams:
                    stream.cut()
            log("CUT %d" % len(streams))
            return self.answer(200, "%d\n" % len(streams), "text/plain")
        if path == "/_double/up":
            cache.down = False
            return self.answer(200, "0\n", "text/plain")
        if path == "/_double/refuse":
            cache.refuse = int(query.get("status", ["0"])[0])
            return self.answer(200, "%d\n" % cache.refuse, "text/plain")
        if path == "/_double/raw":
            data = self.body()
            with cache.lock:
                for stream in cache.streams:
                    stream.put(data)
                count = len(cache.streams)
            return self.answer(200, "%d\n" % count, "text/plain")
        if path == "/_double/streams":
            with cache.lock:
                return self.answer(200, "%d\n" % len(cache.streams), "text/plain")
        self.error(404)


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        log("CONNECTION ERROR %s" % (sys.exc_info()[1],))


def main():
    parser = argparse.ArgumentParser(description="an ntfy double for tests")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--keepalive", type=float, default=45.0, help="seconds between keepalive events")
    parser.add_argument("--cache", help="file that keeps the cache across restarts")
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--down", action="store_true", help="start with subscriptions refused (see /_double/down)")
    args = parser.parse_args()
    server = Server(("127.0.0.1", args.port), Handler)
    server.cache = Cache(args.cache)
    server.cache.down = args.down
    server.keepalive = args.keepalive
    if args.cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.cert, args.key)
        server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
