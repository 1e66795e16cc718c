// libcurl, loaded the first time notifyd needs it (see include/ccurl.h).
#include "ccurl.h"

#include "lazylibrary.h"
#include <stddef.h>

// libcurl's functions as found in libcurl.so.4, all or none.
#define NOTIFYD_CURL_FUNCTIONS(X) \
    X(curl_global_init) \
    X(curl_easy_init) \
    X(curl_easy_cleanup) \
    X(curl_easy_strerror) \
    X(curl_easy_setopt) \
    X(curl_easy_getinfo) \
    X(curl_multi_init) \
    X(curl_multi_cleanup) \
    X(curl_multi_add_handle) \
    X(curl_multi_remove_handle) \
    X(curl_multi_perform) \
    X(curl_multi_poll) \
    X(curl_multi_info_read) \
    X(curl_multi_strerror) \
    X(curl_slist_append) \
    X(curl_slist_free_all) \
    X(curl_multi_socket_action) \
    X(curl_multi_setopt)

static CURLcode notifyd_curl_init_result = CURLE_FAILED_INIT;

// Once loaded, curl_global_init, which 7.88 does not make thread-safe
// (the loader's pthread_once does).
NOTIFYD_LAZY_LIBRARY(
    notifyd_curl, "libcurl.so.4", "libcurl4", NOTIFYD_CURL_FUNCTIONS,
    notifyd_curl_init_result = api.curl_global_init(CURL_GLOBAL_DEFAULT))

CURLcode notifyd_curl_global_init(void) {
    notifyd_curl_load();
    return notifyd_curl_init_result;
}

// Before a successful load (which callers do first) only the functions
// that return a handle or words are reachable; they answer as libcurl
// would when out of resources.
#define NOTIFYD_CURL_READY (notifyd_curl_loaded && notifyd_curl_init_result == CURLE_OK)

CURL *notifyd_curl_easy_init(void) { return NOTIFYD_CURL_READY ? api.curl_easy_init() : NULL; }
void notifyd_curl_easy_cleanup(CURL *handle) { api.curl_easy_cleanup(handle); }

const char *notifyd_curl_easy_strerror(CURLcode code) {
    if (!notifyd_curl_loaded) return notifyd_curl_error[0] ? notifyd_curl_error : "libcurl is not loaded";
    return api.curl_easy_strerror(code);
}

CURLM *notifyd_curl_multi_init(void) { return NOTIFYD_CURL_READY ? api.curl_multi_init() : NULL; }
CURLMcode notifyd_curl_multi_cleanup(CURLM *multi) { return api.curl_multi_cleanup(multi); }
CURLMcode notifyd_curl_multi_add_handle(CURLM *multi, CURL *handle) { return api.curl_multi_add_handle(multi, handle); }

CURLMcode notifyd_curl_multi_remove_handle(CURLM *multi, CURL *handle) {
    return api.curl_multi_remove_handle(multi, handle);
}

CURLMcode notifyd_curl_multi_perform(CURLM *multi, int *running) { return api.curl_multi_perform(multi, running); }

CURLMcode notifyd_curl_multi_poll(
    CURLM *multi, struct curl_waitfd *extra, unsigned int count, int timeout_ms, int *ready) {
    return api.curl_multi_poll(multi, extra, count, timeout_ms, ready);
}

CURLMsg *notifyd_curl_multi_info_read(CURLM *multi, int *queued) { return api.curl_multi_info_read(multi, queued); }

const char *notifyd_curl_multi_strerror(CURLMcode code) {
    if (!notifyd_curl_loaded) return notifyd_curl_error[0] ? notifyd_curl_error : "libcurl is not loaded";
    return api.curl_multi_strerror(code);
}

struct curl_slist *notifyd_curl_slist_append(struct curl_slist *list, const char *text) {
    return NOTIFYD_CURL_READY ? api.curl_slist_append(list, text) : NULL;
}

void notifyd_curl_slist_free_all(struct curl_slist *list) {
    if (list) api.curl_slist_free_all(list);
}

CURLMcode notifyd_curl_multi_socket_action(CURLM *multi, curl_socket_t socket, int events, int *running) {
    return api.curl_multi_socket_action(multi, socket, events, running);
}

CURLMcode notifyd_curl_multi_setopt_socket_function(CURLM *multi, curl_socket_callback function) {
    return api.curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, function);
}

CURLMcode notifyd_curl_multi_setopt_timer_function(CURLM *multi, curl_multi_timer_callback function) {
    return api.curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, function);
}

CURLMcode notifyd_curl_multi_setopt_pointer(CURLM *multi, CURLMoption option, void *value) {
    return api.curl_multi_setopt(multi, option, value);
}

// The variadic setopt and getinfo, one function per type of argument.
CURLcode notifyd_curl_easy_setopt_long(CURL *_Nonnull handle, CURLoption option, long value) {
    return api.curl_easy_setopt(handle, option, value);
}

CURLcode notifyd_curl_easy_setopt_string(
    CURL *_Nonnull handle, CURLoption option, const char *_Nullable value) {
    return api.curl_easy_setopt(handle, option, value);
}

CURLcode notifyd_curl_easy_setopt_pointer(
    CURL *_Nonnull handle, CURLoption option, void *_Nullable value) {
    return api.curl_easy_setopt(handle, option, value);
}

// For CURLOPT_WRITEFUNCTION (and CURLOPT_HEADERFUNCTION, same type).
CURLcode notifyd_curl_easy_setopt_write_function(
    CURL *_Nonnull handle, CURLoption option, curl_write_callback _Nullable function) {
    return api.curl_easy_setopt(handle, option, function);
}

// For CURLOPT_*_BLOB: libcurl copies the bytes (CURL_BLOB_COPY), so they
// need not outlive the call.
CURLcode notifyd_curl_easy_setopt_blob(
    CURL *_Nonnull handle, CURLoption option, const void *_Nullable data, size_t length) {
    struct curl_blob blob = { (void *)data, length, CURL_BLOB_COPY };
    return api.curl_easy_setopt(handle, option, &blob);
}

// For CURLOPT_READFUNCTION: an upload's bytes, asked for by libcurl.
CURLcode notifyd_curl_easy_setopt_read_function(
    CURL *_Nonnull handle, CURLoption option, curl_read_callback _Nullable function) {
    return api.curl_easy_setopt(handle, option, function);
}

// For CURLOPT_SEEKFUNCTION: an upload sent again from its start (after a
// redirect, or a refusal of Expect: 100-continue).
CURLcode notifyd_curl_easy_setopt_seek_function(
    CURL *_Nonnull handle, CURLoption option, curl_seek_callback _Nullable function) {
    return api.curl_easy_setopt(handle, option, function);
}

// For the curl_off_t options (CURLOPT_INFILESIZE_LARGE,
// CURLOPT_POSTFIELDSIZE_LARGE): a long would be read as the wrong type.
CURLcode notifyd_curl_easy_setopt_offset(CURL *_Nonnull handle, CURLoption option, curl_off_t value) {
    return api.curl_easy_setopt(handle, option, value);
}

// For CURLOPT_HTTPHEADER: the list must outlive the transfer.
CURLcode notifyd_curl_easy_setopt_slist(
    CURL *_Nonnull handle, CURLoption option, struct curl_slist *_Nullable list) {
    return api.curl_easy_setopt(handle, option, list);
}

CURLcode notifyd_curl_easy_getinfo_offset(
    CURL *_Nonnull handle, CURLINFO info, curl_off_t *_Nonnull value) {
    return api.curl_easy_getinfo(handle, info, value);
}

CURLcode notifyd_curl_easy_getinfo_long(CURL *_Nonnull handle, CURLINFO info, long *_Nonnull value) {
    return api.curl_easy_getinfo(handle, info, value);
}

CURLcode notifyd_curl_easy_getinfo_string(
    CURL *_Nonnull handle, CURLINFO info, const char *_Nullable *_Nonnull value) {
    return api.curl_easy_getinfo(handle, info, value);
}
