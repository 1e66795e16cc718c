/* upclient.c - minimal UnifiedPush-over-XMPP distributor client (libstrophe 0.12)
 *
 * usage: upclient JID PASSWORD CAFILE HOST PORT [MAXPUSHES] [mode]
 *   JID should carry a fixed resource (user@localhost/notifyd): pushes are
 *   addressed to the FULL jid that registered.
 *   mode: "ack" (default) | "reject" (answer pushes with item-not-found)
 *         | "resume" (drop TCP after 1st push, reconnect+resume after 2 s)
 *         | "ignore" (never answer) | "quit" (disconnect right after register)
 * env UPCLIENT_DEBUG=1 enables libstrophe debug log on stderr.
 * exit: 0 ok, 2 network, 3 register error, 4 auth failure, 5 TLS failure
 *
 * build: gcc -Wall -o upclient upclient.c $(pkg-config --cflags --libs libstrophe)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strophe.h>
#include <sys/socket.h>
#include <unistd.h>
#include <signal.h>

#define NS_UP "http://gultsch.de/xmpp/drafts/unified-push"

static int max_pushes = 1, pushes = 0, sock_fd = -1, got_connect = 0;
static const char *mode = "ack";
static int exit_code = 0;
static int verbose = 0;
static int want_reconnect = 0, dropped = 0, resumed = 0;

/* 0.12 reports every failure as XMPP_CONN_DISCONNECT with error=0 and no
 * stream error (conn->error is not even set for ECONNREFUSED), so classify
 * failures from libstrophe's log messages. A custom handler gets ALL levels. */
static enum { F_NONE, F_NET, F_TLS, F_AUTH } failure = F_NONE;
static void classify_log(void *ud, xmpp_log_level_t level, const char *area, const char *msg)
{
    (void)ud;
    if (strncmp(msg, "connection failed", 17) == 0 ||            /* xmpp DEBUG connection failed, error 111 */
        strncmp(msg, "Connection attempt timed out", 28) == 0)
        failure = F_NET;
    else if (strcmp(area, "tls") == 0 && level == XMPP_LEVEL_ERROR) /* e.g. cafile unreadable */
        failure = F_TLS;
    else if (strncmp(msg, "TLS is not supported", 20) == 0 && failure == F_NONE)
        failure = F_TLS;
    else if (strncmp(msg, "Session resumed successfully", 28) == 0)
        resumed = 1;
    else if (strstr(msg, " auth failed") || strncmp(msg, "Cannot authenticate", 19) == 0)
        failure = F_AUTH;                                         /* xmpp DEBUG SASL SCRAM-SHA-1 auth failed */
    if (verbose)
        fprintf(stderr, "[%s %d] %s\n", area, level, msg);
}
static xmpp_log_t logger = { classify_log, NULL };

/* certfail handler: only called when OpenSSL verification failed.
 * return 0 = abort connection, 1 = accept anyway */
static int certfail(const xmpp_tlscert_t *cert, const char *const errormsg)
{
    failure = F_TLS;
    fprintf(stderr, "TLS verify failed: %s (subject %s)\n", errormsg,
            xmpp_tlscert_get_string(cert, XMPP_CERT_SUBJECT));
    return 0;
}

/* called for every socket libstrophe creates -> the only way to get the fd */
static int sockopt_cb(xmpp_conn_t *conn, void *sock)
{
    sock_fd = *(int *)sock;
    fprintf(stderr, "socket fd=%d\n", sock_fd);
    return xmpp_sockopt_cb_keepalive(conn, sock);
}

static int on_register_result(xmpp_conn_t *conn, xmpp_stanza_t *st, void *ud)
{
    (void)ud;
    const char *type = xmpp_stanza_get_type(st);
    if (type && strcmp(type, "result") == 0) {
        xmpp_stanza_t *r = xmpp_stanza_get_child_by_name_and_ns(st, "registered", NS_UP);
        printf("ENDPOINT %s\nEXPIRATION %s\n",
               r ? xmpp_stanza_get_attribute(r, "endpoint") : "?",
               r ? xmpp_stanza_get_attribute(r, "expiration") : "?");
        fflush(stdout);
        if (strcmp(mode, "quit") == 0)
            xmpp_disconnect(conn);
    } else {
        char *buf; size_t len;
        xmpp_stanza_to_text(st, &buf, &len);
        printf("REGISTER-ERROR %s\n", buf);
        fflush(stdout);
        xmpp_free(xmpp_conn_get_context(conn), buf);
        exit_code = 3;
        xmpp_disconnect(conn);
    }
    return 0; /* one-shot */
}

/* <iq type='set' from='localhost' id='..'><push xmlns=NS_UP application=.. instance=..>BASE64</push></iq> */
static int on_push(xmpp_conn_t *conn, xmpp_stanza_t *st, void *ud)
{
    xmpp_ctx_t *ctx = (xmpp_ctx_t *)ud;
    xmpp_stanza_t *push = xmpp_stanza_get_child_by_name_and_ns(st, "push", NS_UP);
    if (!push)
        return 1;
    char *b64 = xmpp_stanza_get_text(push);
    unsigned char *payload = NULL; size_t plen = 0;
    if (b64)
        xmpp_base64_decode_bin(ctx, b64, strlen(b64), &payload, &plen);
    printf("PUSH from=%s id=%s application=%s instance=%s len=%zu payload=%.*s\n",
           xmpp_stanza_get_from(st), xmpp_stanza_get_id(st),
           xmpp_stanza_get_attribute(push, "application"),
           xmpp_stanza_get_attribute(push, "instance"), plen, (int)plen,
           payload ? (char *)payload : "");
    fflush(stdout);
    if (b64) xmpp_free(ctx, b64);
    if (payload) xmpp_free(ctx, payload);

    if (strcmp(mode, "ignore") != 0) {
        xmpp_stanza_t *reply;
        if (strcmp(mode, "reject") == 0) {
            /* item-not-found / feature-not-implemented -> HTTP 404 to the app server */
            reply = xmpp_iq_new(ctx, "error", xmpp_stanza_get_id(st));
            xmpp_stanza_t *e = xmpp_stanza_new(ctx);
            xmpp_stanza_set_name(e, "error");
            xmpp_stanza_set_type(e, "cancel");
            xmpp_stanza_t *c = xmpp_stanza_new(ctx);
            xmpp_stanza_set_name(c, "item-not-found");
            xmpp_stanza_set_ns(c, "urn:ietf:params:xml:ns:xmpp-stanzas");
            xmpp_stanza_add_child(e, c); xmpp_stanza_release(c);
            xmpp_stanza_add_child(reply, e); xmpp_stanza_release(e);
        } else {
            reply = xmpp_iq_new(ctx, "result", xmpp_stanza_get_id(st));
        }
        /* 'to' MUST equal the push's 'from' (the host): mod_unified_push matches
         * response.attr.from == request.attr.to and the id */
        if (!getenv("UPCLIENT_NO_TO")) /* experiment: omitting 'to' => server times out (120 s) */
            xmpp_stanza_set_to(reply, xmpp_stanza_get_from(st));
        xmpp_send(conn, reply);
        xmpp_stanza_release(reply);
    }
    if (strcmp(mode, "resume") == 0 && !dropped) {
        /* simulate a network drop: kill the TCP connection under libstrophe */
        dropped = 1; /* main loop drops the socket once the result is written */
        return 1;
    }
    if (++pushes >= max_pushes)
        xmpp_disconnect(conn);
    return 1; /* keep handler */
}

static void conn_handler(xmpp_conn_t *conn, xmpp_conn_event_t status, int error,
                         xmpp_stream_error_t *se, void *ud)
{
    xmpp_ctx_t *ctx = (xmpp_ctx_t *)ud;
    if (status == XMPP_CONN_CONNECT) {
        if (got_connect) { /* reconnect: SM resumption keeps the bound full JID */
            fprintf(stderr, "reconnected as %s resumed=%d\n", xmpp_conn_get_bound_jid(conn), resumed);
            return;
        }
        got_connect = 1;
        fprintf(stderr, "connected as %s secured=%d\n", xmpp_conn_get_bound_jid(conn),
                xmpp_conn_is_secured(conn));
        /* push iqs from the server */
        xmpp_handler_add(conn, on_push, NS_UP, "iq", "set", ctx);

        /* application / instance: base64 of 32 bytes (checked by check_sha256) */
        unsigned char app[32], inst[32];
        for (int i = 0; i < 32; i++) { app[i] = (unsigned char)('A' + i); inst[i] = (unsigned char)i; }
        char *app64 = xmpp_base64_encode(ctx, app, sizeof app);
        char *inst64 = xmpp_base64_encode(ctx, inst, sizeof inst);

        xmpp_stanza_t *iq = xmpp_iq_new(ctx, "set", "up-reg-1");
        xmpp_stanza_set_to(iq, "localhost"); /* the host (or the UP component jid) */
        xmpp_stanza_t *reg = xmpp_stanza_new(ctx);
        xmpp_stanza_set_name(reg, "register");
        xmpp_stanza_set_ns(reg, NS_UP);
        xmpp_stanza_set_attribute(reg, "application", app64);
        xmpp_stanza_set_attribute(reg, "instance", inst64);
        xmpp_stanza_add_child(iq, reg);
        xmpp_stanza_release(reg);
        xmpp_id_handler_add(conn, on_register_result, "up-reg-1", ctx);
        xmpp_send(conn, iq);
        xmpp_stanza_release(iq);
        xmpp_free(ctx, app64);
        xmpp_free(ctx, inst64);
    } else {
        /* 0.12.x never emits XMPP_CONN_FAIL; everything ends as DISCONNECT */
        fprintf(stderr, "disconnected: event=%d error=%d (%s) stream_error=%s got_connect=%d\n",
                status, error, error ? strerror(error) : "-",
                se ? (se->text ? se->text : "(type only)") : "none", got_connect);
        if (se)
            fprintf(stderr, "  stream error type=%d\n", se->type);
        static const char *fn[] = { "none", "network", "tls", "auth" };
        fprintf(stderr, "  classified failure: %s\n", fn[failure]);
        if (strcmp(mode, "resume") == 0 && dropped && !resumed) {
            want_reconnect = 1;
            return;
        }
        if (!got_connect && exit_code == 0)
            exit_code = failure == F_AUTH ? 4 : failure == F_TLS ? 5 : 2;
    }
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: %s JID PASS CAFILE HOST PORT [MAXPUSHES] [ack|reject|ignore|quit]\n", argv[0]);
        return 1;
    }
    if (argc > 6) max_pushes = atoi(argv[6]);
    if (argc > 7) mode = argv[7];

    signal(SIGPIPE, SIG_IGN); /* libstrophe 0.12 write()s without MSG_NOSIGNAL */
    xmpp_initialize();
    verbose = getenv("UPCLIENT_DEBUG") != NULL;
    xmpp_ctx_t *ctx = xmpp_ctx_new(NULL, &logger);
    xmpp_conn_t *conn = xmpp_conn_new(ctx);

    xmpp_conn_set_flags(conn, XMPP_CONN_FLAG_MANDATORY_TLS); /* STARTTLS required, verify on */
    xmpp_conn_set_cafile(conn, argv[3]);                     /* added to system store */
    xmpp_conn_set_certfail_handler(conn, certfail);
    xmpp_conn_set_sockopt_callback(conn, sockopt_cb);
    xmpp_conn_set_jid(conn, argv[1]);
    xmpp_conn_set_pass(conn, argv[2]);

    /* altdomain/altport: skip SRV lookup, connect straight to HOST:PORT.
     * The certificate is still checked against the JID domain. */
    if (xmpp_connect_client(conn, argv[4], (unsigned short)atoi(argv[5]), conn_handler, ctx) != XMPP_EOK) {
        fprintf(stderr, "xmpp_connect_client failed\n");
        return 2;
    }
    /* instead of xmpp_run(ctx): drive the loop ourselves (what an external loop would do) */
    for (;;) {
        xmpp_run_once(ctx, 200 /* ms */);
        if (dropped == 1 && xmpp_conn_send_queue_len(conn) == 0) {
            dropped = 2;
            shutdown(sock_fd, SHUT_RDWR); /* simulated network drop (after our ack went out) */
        }
        if (xmpp_conn_is_disconnected(conn)) {
            if (!want_reconnect)
                break;
            want_reconnect = 0;
            sleep(2); /* window in which the server hibernates the session */
            /* same conn object => libstrophe sends <resume previd=.. h=..> */
            xmpp_connect_client(conn, argv[4], (unsigned short)atoi(argv[5]), conn_handler, ctx);
        }
    }
    xmpp_conn_release(conn);
    xmpp_ctx_free(ctx);
    xmpp_shutdown();
    return exit_code;
}
