#ifndef NOTIFYD_CCURL_H
#define NOTIFYD_CCURL_H
// libcurl (7.88 on Debian 12), as Swift sees it: the ntfy push client's
// HTTP (Sources/NotifyPush) and the background transfers
// (Sources/NotifyTransfer).
//
// Loaded lazily. notifyd does not link libcurl: its types and constants
// come from <curl/curl.h>, its functions from `dlopen("libcurl.so.4")` the
// first time one of the notifyd_curl_ functions below is called (from
// notifyd_curl_global_init, which every user calls first). A notifyd that
// never runs a transfer nor an ntfy subscription never maps libcurl nor the
// libraries it brings (gnutls through librtmp, krb5, ldap, ssh2, p11-kit,
// nghttp2: 3.6 MB resident at start-up when linked).
//
// Swift code calls only these functions, never curl_* (there is no -lcurl:
// such a call would not link). curl_easy_setopt, curl_easy_getinfo are
// variadic, which Swift cannot call: one wrapper per type of argument.
#include <curl/curl.h>

/// Loads libcurl (once, thread-safe): 1 when every function was found;
/// notifyd_curl_global_init calls it.
int notifyd_curl_load(void);

/// Loads libcurl (once, thread-safe) and runs curl_global_init(CURL_GLOBAL_DEFAULT)
/// (once). CURLE_FAILED_INIT when libcurl cannot be loaded
/// (notifyd_curl_load_error says why).
CURLcode notifyd_curl_global_init(void);

/// Why libcurl could not be loaded (dlerror's words), or NULL when it was
/// or was not yet tried.
const char *_Nullable notifyd_curl_load_error(void);

// The functions notifyd uses, as libcurl documents them. Each must follow a
// successful notifyd_curl_global_init; the ones returning a handle return
// NULL, and the strerror ones the loading error, when it failed.
CURL *_Nullable notifyd_curl_easy_init(void);
void notifyd_curl_easy_cleanup(CURL *_Nonnull handle);
const char *_Nonnull notifyd_curl_easy_strerror(CURLcode code);
CURLM *_Nullable notifyd_curl_multi_init(void);
CURLMcode notifyd_curl_multi_cleanup(CURLM *_Nonnull multi);
CURLMcode notifyd_curl_multi_add_handle(CURLM *_Nonnull multi, CURL *_Nonnull handle);
CURLMcode notifyd_curl_multi_remove_handle(CURLM *_Nonnull multi, CURL *_Nonnull handle);
CURLMcode notifyd_curl_multi_perform(CURLM *_Nonnull multi, int *_Nonnull running);
CURLMcode notifyd_curl_multi_poll(
    CURLM *_Nonnull multi, struct curl_waitfd *_Nullable extra, unsigned int count, int timeout_ms, int *_Nullable ready);
CURLMsg *_Nullable notifyd_curl_multi_info_read(CURLM *_Nonnull multi, int *_Nonnull queued);
const char *_Nonnull notifyd_curl_multi_strerror(CURLMcode code);
// The socket interface (notifyd-bench's transfer-drive section: libcurl
// driven from an EventLoop's epoll and timers, the alternative to the
// engine's thread).
CURLMcode notifyd_curl_multi_socket_action(CURLM *_Nonnull multi, curl_socket_t socket, int events, int *_Nonnull running);
CURLMcode notifyd_curl_multi_setopt_socket_function(CURLM *_Nonnull multi, curl_socket_callback _Nullable function);
CURLMcode notifyd_curl_multi_setopt_timer_function(CURLM *_Nonnull multi, curl_multi_timer_callback _Nullable function);
CURLMcode notifyd_curl_multi_setopt_pointer(CURLM *_Nonnull multi, CURLMoption option, void *_Nullable value);
struct curl_slist *_Nullable notifyd_curl_slist_append(struct curl_slist *_Nullable list, const char *_Nonnull text);
void notifyd_curl_slist_free_all(struct curl_slist *_Nullable list);
CURLcode notifyd_curl_easy_setopt_long(CURL *_Nonnull handle, CURLoption option, long value);

CURLcode notifyd_curl_easy_setopt_string(
    CURL *_Nonnull handle, CURLoption option, const char *_Nullable value);

CURLcode notifyd_curl_easy_setopt_pointer(
    CURL *_Nonnull handle, CURLoption option, void *_Nullable value);

// For CURLOPT_WRITEFUNCTION (and CURLOPT_HEADERFUNCTION, same type).
CURLcode notifyd_curl_easy_setopt_write_function(
    CURL *_Nonnull handle, CURLoption option, curl_write_callback _Nullable function);

// For CURLOPT_*_BLOB: libcurl copies the bytes (CURL_BLOB_COPY), so they
// need not outlive the call.
CURLcode notifyd_curl_easy_setopt_blob(
    CURL *_Nonnull handle, CURLoption option, const void *_Nullable data, size_t length);

// For CURLOPT_READFUNCTION: an upload's bytes, asked for by libcurl.
CURLcode notifyd_curl_easy_setopt_read_function(
    CURL *_Nonnull handle, CURLoption option, curl_read_callback _Nullable function);

// For CURLOPT_SEEKFUNCTION: an upload sent again from its start (after a
// redirect, or a refusal of Expect: 100-continue).
CURLcode notifyd_curl_easy_setopt_seek_function(
    CURL *_Nonnull handle, CURLoption option, curl_seek_callback _Nullable function);

// For the curl_off_t options (CURLOPT_INFILESIZE_LARGE,
// CURLOPT_POSTFIELDSIZE_LARGE): a long would be read as the wrong type.
CURLcode notifyd_curl_easy_setopt_offset(CURL *_Nonnull handle, CURLoption option, curl_off_t value);

// For CURLOPT_HTTPHEADER: the list must outlive the transfer.
CURLcode notifyd_curl_easy_setopt_slist(
    CURL *_Nonnull handle, CURLoption option, struct curl_slist *_Nullable list);

CURLcode notifyd_curl_easy_getinfo_offset(
    CURL *_Nonnull handle, CURLINFO info, curl_off_t *_Nonnull value);

CURLcode notifyd_curl_easy_getinfo_long(CURL *_Nonnull handle, CURLINFO info, long *_Nonnull value);

CURLcode notifyd_curl_easy_getinfo_string(
    CURL *_Nonnull handle, CURLINFO info, const char *_Nullable *_Nonnull value);
#endif
