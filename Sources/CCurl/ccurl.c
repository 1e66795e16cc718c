// libcurl, loaded the first time notifyd needs it (see include/ccurl.h).
#include "ccurl.h"

#include "lazylibrary.h"
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

// libcurl's functions as found in libcurl.so.4, all or none.
static struct {
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *handle);
    const char *(*easy_strerror)(CURLcode code);
    CURLcode (*easy_setopt)(CURL *handle, CURLoption option, ...);
    CURLcode (*easy_getinfo)(CURL *handle, CURLINFO info, ...);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_cleanup)(CURLM *multi);
    CURLMcode (*multi_add_handle)(CURLM *multi, CURL *handle);
    CURLMcode (*multi_remove_handle)(CURLM *multi, CURL *handle);
    CURLMcode (*multi_perform)(CURLM *multi, int *running);
    CURLMcode (*multi_poll)(CURLM *multi, struct curl_waitfd *extra, unsigned int count, int timeout_ms, int *ready);
    CURLMsg *(*multi_info_read)(CURLM *multi, int *queued);
    const char *(*multi_strerror)(CURLMcode code);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *text);
    void (*slist_free_all)(struct curl_slist *list);
    CURLMcode (*multi_socket_action)(CURLM *multi, curl_socket_t socket, int events, int *running);
    CURLMcode (*multi_setopt)(CURLM *multi, CURLMoption option, ...);
} notifyd_curl;

static pthread_once_t notifyd_curl_once = PTHREAD_ONCE_INIT;
static int notifyd_curl_loaded;
static CURLcode notifyd_curl_init_result = CURLE_FAILED_INIT;
static char notifyd_curl_error[512];

// Runs once: maps libcurl and finds every function or none, then
// curl_global_init, which 7.88 does not make thread-safe (pthread_once does).
static void notifyd_curl_load(void) {
    void **slots[] = {
        (void **)&notifyd_curl.global_init, (void **)&notifyd_curl.easy_init, (void **)&notifyd_curl.easy_cleanup,
        (void **)&notifyd_curl.easy_strerror, (void **)&notifyd_curl.easy_setopt, (void **)&notifyd_curl.easy_getinfo,
        (void **)&notifyd_curl.multi_init, (void **)&notifyd_curl.multi_cleanup,
        (void **)&notifyd_curl.multi_add_handle, (void **)&notifyd_curl.multi_remove_handle,
        (void **)&notifyd_curl.multi_perform, (void **)&notifyd_curl.multi_poll, (void **)&notifyd_curl.multi_info_read,
        (void **)&notifyd_curl.multi_strerror, (void **)&notifyd_curl.slist_append,
        (void **)&notifyd_curl.slist_free_all, (void **)&notifyd_curl.multi_socket_action,
        (void **)&notifyd_curl.multi_setopt,
    };
    const char *names[] = {
        "curl_global_init", "curl_easy_init", "curl_easy_cleanup", "curl_easy_strerror", "curl_easy_setopt",
        "curl_easy_getinfo", "curl_multi_init", "curl_multi_cleanup", "curl_multi_add_handle",
        "curl_multi_remove_handle", "curl_multi_perform", "curl_multi_poll", "curl_multi_info_read",
        "curl_multi_strerror", "curl_slist_append", "curl_slist_free_all", "curl_multi_socket_action", "curl_multi_setopt",
    };
    _Static_assert(sizeof names / sizeof names[0] == sizeof slots / sizeof slots[0], "one name per slot");
    if (!notifyd_lazy_library_open("libcurl.so.4", "libcurl4", names, slots, sizeof names / sizeof names[0],
                                   notifyd_curl_error, sizeof notifyd_curl_error)) {
        return;
    }
    notifyd_curl_loaded = 1;
    notifyd_curl_init_result = notifyd_curl.global_init(CURL_GLOBAL_DEFAULT);
}

CURLcode notifyd_curl_global_init(void) {
    pthread_once(&notifyd_curl_once, notifyd_curl_load);
    return notifyd_curl_init_result;
}

const char *notifyd_curl_load_error(void) { return notifyd_curl_error[0] ? notifyd_curl_error : NULL; }

// Before a successful load (which callers do first) only the functions
// that return a handle or words are reachable; they answer as libcurl
// would when out of resources.
#define NOTIFYD_CURL_READY (notifyd_curl_loaded && notifyd_curl_init_result == CURLE_OK)

CURL *notifyd_curl_easy_init(void) { return NOTIFYD_CURL_READY ? notifyd_curl.easy_init() : NULL; }
void notifyd_curl_easy_cleanup(CURL *handle) { notifyd_curl.easy_cleanup(handle); }

const char *notifyd_curl_easy_strerror(CURLcode code) {
    if (!notifyd_curl_loaded) return notifyd_curl_error[0] ? notifyd_curl_error : "libcurl is not loaded";
    return notifyd_curl.easy_strerror(code);
}

CURLM *notifyd_curl_multi_init(void) { return NOTIFYD_CURL_READY ? notifyd_curl.multi_init() : NULL; }
CURLMcode notifyd_curl_multi_cleanup(CURLM *multi) { return notifyd_curl.multi_cleanup(multi); }
CURLMcode notifyd_curl_multi_add_handle(CURLM *multi, CURL *handle) { return notifyd_curl.multi_add_handle(multi, handle); }

CURLMcode notifyd_curl_multi_remove_handle(CURLM *multi, CURL *handle) {
    return notifyd_curl.multi_remove_handle(multi, handle);
}

CURLMcode notifyd_curl_multi_perform(CURLM *multi, int *running) { return notifyd_curl.multi_perform(multi, running); }

CURLMcode notifyd_curl_multi_poll(
    CURLM *multi, struct curl_waitfd *extra, unsigned int count, int timeout_ms, int *ready) {
    return notifyd_curl.multi_poll(multi, extra, count, timeout_ms, ready);
}

CURLMsg *notifyd_curl_multi_info_read(CURLM *multi, int *queued) { return notifyd_curl.multi_info_read(multi, queued); }

const char *notifyd_curl_multi_strerror(CURLMcode code) {
    if (!notifyd_curl_loaded) return notifyd_curl_error[0] ? notifyd_curl_error : "libcurl is not loaded";
    return notifyd_curl.multi_strerror(code);
}

struct curl_slist *notifyd_curl_slist_append(struct curl_slist *list, const char *text) {
    return NOTIFYD_CURL_READY ? notifyd_curl.slist_append(list, text) : NULL;
}

void notifyd_curl_slist_free_all(struct curl_slist *list) {
    if (list) notifyd_curl.slist_free_all(list);
}

CURLMcode notifyd_curl_multi_socket_action(CURLM *multi, curl_socket_t socket, int events, int *running) {
    return notifyd_curl.multi_socket_action(multi, socket, events, running);
}

CURLMcode notifyd_curl_multi_setopt_socket_function(CURLM *multi, curl_socket_callback function) {
    return notifyd_curl.multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, function);
}

CURLMcode notifyd_curl_multi_setopt_timer_function(CURLM *multi, curl_multi_timer_callback function) {
    return notifyd_curl.multi_setopt(multi, CURLMOPT_TIMERFUNCTION, function);
}

CURLMcode notifyd_curl_multi_setopt_pointer(CURLM *multi, CURLMoption option, void *value) {
    return notifyd_curl.multi_setopt(multi, option, value);
}

// The variadic setopt and getinfo, one function per type of argument.
CURLcode notifyd_curl_easy_setopt_long(CURL *_Nonnull handle, CURLoption option, long value) {
    return notifyd_curl.easy_setopt(handle, option, value);
}

CURLcode notifyd_curl_easy_setopt_string(
    CURL *_Nonnull handle, CURLoption option, const char *_Nullable value) {
    return notifyd_curl.easy_setopt(handle, option, value);
}

CURLcode notifyd_curl_easy_setopt_pointer(
    CURL *_Nonnull handle, CURLoption option, void *_Nullable value) {
    return notifyd_curl.easy_setopt(handle, option, value);
}

// For CURLOPT_WRITEFUNCTION (and CURLOPT_HEADERFUNCTION, same type).
CURLcode notifyd_curl_easy_setopt_write_function(
    CURL *_Nonnull handle, CURLoption option, curl_write_callback _Nullable function) {
    return notifyd_curl.easy_setopt(handle, option, function);
}

// For CURLOPT_*_BLOB: libcurl copies the bytes (CURL_BLOB_COPY), so they
// need not outlive the call.
CURLcode notifyd_curl_easy_setopt_blob(
    CURL *_Nonnull handle, CURLoption option, const void *_Nullable data, size_t length) {
    struct curl_blob blob = { (void *)data, length, CURL_BLOB_COPY };
    return notifyd_curl.easy_setopt(handle, option, &blob);
}

// For CURLOPT_READFUNCTION: an upload's bytes, asked for by libcurl.
CURLcode notifyd_curl_easy_setopt_read_function(
    CURL *_Nonnull handle, CURLoption option, curl_read_callback _Nullable function) {
    return notifyd_curl.easy_setopt(handle, option, function);
}

// For CURLOPT_SEEKFUNCTION: an upload sent again from its start (after a
// redirect, or a refusal of Expect: 100-continue).
CURLcode notifyd_curl_easy_setopt_seek_function(
    CURL *_Nonnull handle, CURLoption option, curl_seek_callback _Nullable function) {
    return notifyd_curl.easy_setopt(handle, option, function);
}

// For the curl_off_t options (CURLOPT_INFILESIZE_LARGE,
// CURLOPT_POSTFIELDSIZE_LARGE): a long would be read as the wrong type.
CURLcode notifyd_curl_easy_setopt_offset(CURL *_Nonnull handle, CURLoption option, curl_off_t value) {
    return notifyd_curl.easy_setopt(handle, option, value);
}

// For CURLOPT_HTTPHEADER: the list must outlive the transfer.
CURLcode notifyd_curl_easy_setopt_slist(
    CURL *_Nonnull handle, CURLoption option, struct curl_slist *_Nullable list) {
    return notifyd_curl.easy_setopt(handle, option, list);
}

CURLcode notifyd_curl_easy_getinfo_offset(
    CURL *_Nonnull handle, CURLINFO info, curl_off_t *_Nonnull value) {
    return notifyd_curl.easy_getinfo(handle, info, value);
}

CURLcode notifyd_curl_easy_getinfo_long(CURL *_Nonnull handle, CURLINFO info, long *_Nonnull value) {
    return notifyd_curl.easy_getinfo(handle, info, value);
}

CURLcode notifyd_curl_easy_getinfo_string(
    CURL *_Nonnull handle, CURLINFO info, const char *_Nullable *_Nonnull value) {
    return notifyd_curl.easy_getinfo(handle, info, value);
}
