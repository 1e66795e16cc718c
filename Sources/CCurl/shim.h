#ifndef NOTIFYD_CCURL_SHIM_H
#define NOTIFYD_CCURL_SHIM_H
// libcurl (7.88 on Debian 12), as Swift sees it: the ntfy push client's
// HTTP (Sources/NotifyPush) and the background transfers
// (Sources/NotifyTransfer).
//
// curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic,
// which Swift cannot call, and CURL_GLOBAL_DEFAULT is a macro of macros
// that Swift does not import: each is wrapped here, one function per type
// of argument, with the notifyd_curl_ prefix.
#include <curl/curl.h>

static inline long notifyd_curl_global_default(void) { return CURL_GLOBAL_DEFAULT; }

static inline CURLcode notifyd_curl_easy_setopt_long(CURL *_Nonnull handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode notifyd_curl_easy_setopt_string(
    CURL *_Nonnull handle, CURLoption option, const char *_Nullable value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode notifyd_curl_easy_setopt_pointer(
    CURL *_Nonnull handle, CURLoption option, void *_Nullable value) {
    return curl_easy_setopt(handle, option, value);
}

// For CURLOPT_WRITEFUNCTION (and CURLOPT_HEADERFUNCTION, same type).
static inline CURLcode notifyd_curl_easy_setopt_write_function(
    CURL *_Nonnull handle, CURLoption option, curl_write_callback _Nullable function) {
    return curl_easy_setopt(handle, option, function);
}

// For CURLOPT_*_BLOB: libcurl copies the bytes (CURL_BLOB_COPY), so they
// need not outlive the call.
static inline CURLcode notifyd_curl_easy_setopt_blob(
    CURL *_Nonnull handle, CURLoption option, const void *_Nullable data, size_t length) {
    struct curl_blob blob = { (void *)data, length, CURL_BLOB_COPY };
    return curl_easy_setopt(handle, option, &blob);
}

// For CURLOPT_READFUNCTION: an upload's bytes, asked for by libcurl.
static inline CURLcode notifyd_curl_easy_setopt_read_function(
    CURL *_Nonnull handle, CURLoption option, curl_read_callback _Nullable function) {
    return curl_easy_setopt(handle, option, function);
}

// For CURLOPT_SEEKFUNCTION: an upload sent again from its start (after a
// redirect, or a refusal of Expect: 100-continue).
static inline CURLcode notifyd_curl_easy_setopt_seek_function(
    CURL *_Nonnull handle, CURLoption option, curl_seek_callback _Nullable function) {
    return curl_easy_setopt(handle, option, function);
}

// For the curl_off_t options (CURLOPT_INFILESIZE_LARGE,
// CURLOPT_POSTFIELDSIZE_LARGE): a long would be read as the wrong type.
static inline CURLcode notifyd_curl_easy_setopt_offset(CURL *_Nonnull handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

// For CURLOPT_HTTPHEADER: the list must outlive the transfer.
static inline CURLcode notifyd_curl_easy_setopt_slist(
    CURL *_Nonnull handle, CURLoption option, struct curl_slist *_Nullable list) {
    return curl_easy_setopt(handle, option, list);
}

static inline CURLcode notifyd_curl_easy_getinfo_offset(
    CURL *_Nonnull handle, CURLINFO info, curl_off_t *_Nonnull value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode notifyd_curl_easy_getinfo_long(CURL *_Nonnull handle, CURLINFO info, long *_Nonnull value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode notifyd_curl_easy_getinfo_string(
    CURL *_Nonnull handle, CURLINFO info, const char *_Nullable *_Nonnull value) {
    return curl_easy_getinfo(handle, info, value);
}
#endif
