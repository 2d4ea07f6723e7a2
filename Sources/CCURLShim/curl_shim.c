// libcurl's easy interface, as libcurl-tutorial and the curl_easy_setopt man page
// describe it; see include/ccurl_shim.h.
#include "ccurl_shim.h"
#include "cshim_support.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

// The variadic curl_easy_setopt is called through the typed helpers below, which check
// the types; libcurl's type-checking macros would not see through the table.
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

// libcurl is loaded when `load` first fetches a cat (CShimSupport's cs_library), not at
// start: with its TLS and protocol libraries it costs about 5 ms of every start. Every
// function called here is in the list and goes through CC(name). On Apple's systems it
// is linked as usual.
#define CC_LIBCURL_FUNCTIONS(X) \
    X(curl_easy_cleanup) X(curl_easy_getinfo) X(curl_easy_init) X(curl_easy_perform) X(curl_easy_setopt) X(curl_easy_strerror) X(curl_global_init) X(curl_slist_append) X(curl_slist_free_all)
#if defined(__linux__)
static struct cc_libcurl { CC_LIBCURL_FUNCTIONS(CS_LIBRARY_SLOT) } cc_libcurl;
static const char *const cc_symbols[] = {CC_LIBCURL_FUNCTIONS(CS_LIBRARY_NAME) NULL};
static const char *const cc_names[] = {"libcurl.so.4", "libcurl.so", NULL};
static cs_library cc_library = {cc_names, cc_symbols, (void **)&cc_libcurl, 0, ""};
#define CC(name) (*cc_libcurl.name)
static int cc_load(char *why, size_t size) {
    if (cs_library_load(&cc_library)) return 1;
    cs_format(why, size, "libcurl could not be loaded (%s)", cc_library.error);
    return 0;
}
#else
#define CC(name) name
static int cc_load(char *why, size_t size) {
    (void)why;
    (void)size;
    return 1;
}
#endif

static CURLcode set_long(CURL *h, CURLoption o, long v) { return CC(curl_easy_setopt)(h, o, v); }
static CURLcode set_string(CURL *h, CURLoption o, const char *v) { return CC(curl_easy_setopt)(h, o, v); }
static CURLcode set_pointer(CURL *h, CURLoption o, void *v) { return CC(curl_easy_setopt)(h, o, v); }
static CURLcode set_off_t(CURL *h, CURLoption o, curl_off_t v) { return CC(curl_easy_setopt)(h, o, v); }
static CURLcode set_write_fn(CURL *h, curl_write_callback f) { return CC(curl_easy_setopt)(h, CURLOPT_WRITEFUNCTION, f); }
static CURLcode set_xferinfo_fn(CURL *h, curl_xferinfo_callback f) {
    return CC(curl_easy_setopt)(h, CURLOPT_XFERINFOFUNCTION, f);
}
static CURLcode set_headers(CURL *h, struct curl_slist *l) { return CC(curl_easy_setopt)(h, CURLOPT_HTTPHEADER, l); }
static CURLcode set_header_fn(CURL *h, curl_write_callback f) {
    return CC(curl_easy_setopt)(h, CURLOPT_HEADERFUNCTION, f);
}
static CURLcode set_read_fn(CURL *h, curl_read_callback f) { return CC(curl_easy_setopt)(h, CURLOPT_READFUNCTION, f); }

typedef struct cc_transfer {
    CURL *handle;
    const cc_request *request;
    int too_large;
    int error_cut;      // an error reply's body was cut at CC_ERROR_BODY_KEPT
    size_t received;
    size_t sent;        // of request->body
    char etag[256];
    int64_t content_length;  // the last Content-Length header, or -1
} cc_transfer;

// The request body, from memory.
static size_t cc_read(char *buffer, size_t size, size_t count, void *userdata) {
    cc_transfer *t = userdata;
    size_t left = t->request->body_length - t->sent, n = size * count < left ? size * count : left;
    if (n) memcpy(buffer, t->request->body + t->sent, n);
    t->sent += n;
    return n;
}

// Reply headers: only ETag (a part's name in a multipart upload) and Content-Length (to
// say what a reply refused on its announced size announced) are kept.
static size_t cc_header(char *data, size_t size, size_t count, void *userdata) {
    cc_transfer *t = userdata;
    size_t length = size * count;
    if (length > 15 && (data[0] == 'C' || data[0] == 'c') && strncasecmp(data, "content-length:", 15) == 0) {
        int64_t value = 0;
        size_t at = 15, digits = 0;
        while (at < length && (data[at] == ' ' || data[at] == '\t')) at++;
        for (; at < length && data[at] >= '0' && data[at] <= '9' && digits < 18; at++, digits++)
            value = value * 10 + (data[at] - '0');
        t->content_length = digits > 0 ? value : -1;
    }
    if (length > 5 && (data[0] == 'E' || data[0] == 'e') && strncasecmp(data, "etag:", 5) == 0) {
        size_t start = 5, end = length;
        while (start < end && (data[start] == ' ' || data[start] == '\t')) start++;
        while (end > start && (data[end - 1] == '\r' || data[end - 1] == '\n' || data[end - 1] == ' ')) end--;
        size_t n = end - start < sizeof t->etag - 1 ? end - start : sizeof t->etag - 1;
        memcpy(t->etag, data + start, n);
        t->etag[n] = 0;
    }
    return length;
}

// Of a reply that is not 2xx, only this much of the body is read (an error's XML or text).
enum { CC_ERROR_BODY_KEPT = 65536 };

static size_t cc_write(char *data, size_t size, size_t count, void *userdata) {
    cc_transfer *t = userdata;
    size_t length = size * count;
    long status = 0;
    CC(curl_easy_getinfo)(t->handle, CURLINFO_RESPONSE_CODE, &status);
    if ((status < 200 || status > 299) && t->received + length > CC_ERROR_BODY_KEPT) {
        t->error_cut = 1;
        return 0;  // stop here: the status is the answer
    }
    t->received += length;
    if (!t->request->on_data(t->request->context, (const uint8_t *)data, length)) {
        t->too_large = 1;
        return 0;  // CURLE_WRITE_ERROR
    }
    return length;
}

static int cc_xferinfo(void *userdata, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow) {
    (void)ultotal;
    (void)ulnow;
    cc_transfer *t = userdata;
    if (!t->request->on_progress) return 0;
    return t->request->on_progress(t->request->context, (int64_t)dlnow, (int64_t)dltotal);
}

int cc_global_init(void) {
    if (!cc_load(NULL, 0)) return CC_ERR_OTHER;
    return CC(curl_global_init)(CURL_GLOBAL_DEFAULT) == CURLE_OK ? CC_OK : CC_ERR_OTHER;
}


static int cc_classify(CURLcode code, const cc_transfer *t) {
    switch (code) {
    case CURLE_OK: return CC_OK;
    case CURLE_OPERATION_TIMEDOUT: return CC_ERR_TIMEOUT;  // also a stall (the low-speed limit)
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
        return CC_ERR_CONNECT;
    case CURLE_ABORTED_BY_CALLBACK: return CC_ERR_ABORTED;
    case CURLE_FILESIZE_EXCEEDED: return CC_ERR_TOO_LARGE;
    case CURLE_WRITE_ERROR: return t->too_large ? CC_ERR_TOO_LARGE : CC_ERR_OTHER;
    case CURLE_UNSUPPORTED_PROTOCOL: return CC_ERR_PROTOCOL;
    case CURLE_TOO_MANY_REDIRECTS: return CC_ERR_REDIRECTS;
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CACERT_BADFILE:
        return CC_ERR_TLS;
    default: return CC_ERR_OTHER;
    }
}

int cc_perform(const cc_request *r, cc_result *out) {
    memset(out, 0, sizeof *out);
    out->retry_after_seconds = -1;
    if (!cc_load(out->error, sizeof out->error)) return CC_ERR_OTHER;
    CURL *h = CC(curl_easy_init)();
    if (!h) {
        snprintf(out->error, sizeof out->error, "cannot start libcurl");
        return CC_ERR_OTHER;
    }
    char errbuf[CURL_ERROR_SIZE] = {0};
    cc_transfer t = {h, r, 0, 0, 0, 0, {0}, -1};
    struct curl_slist *headers = NULL;
    for (size_t i = 0; i < r->header_count; i++) headers = CC(curl_slist_append)(headers, r->headers[i]);

    set_string(h, CURLOPT_URL, r->url);
    set_pointer(h, CURLOPT_ERRORBUFFER, errbuf);
    set_long(h, CURLOPT_NOSIGNAL, 1L);
    set_long(h, CURLOPT_FOLLOWLOCATION, r->max_redirects > 0 ? 1L : 0L);
    set_long(h, CURLOPT_MAXREDIRS, r->max_redirects);
#if LIBCURL_VERSION_NUM >= 0x075500  // 7.85.0
    set_string(h, CURLOPT_PROTOCOLS_STR, "http,https");
    set_string(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
    set_long(h, CURLOPT_PROTOCOLS, CURLPROTO_HTTP | CURLPROTO_HTTPS);
    set_long(h, CURLOPT_REDIR_PROTOCOLS, CURLPROTO_HTTP | CURLPROTO_HTTPS);
#endif
    set_long(h, CURLOPT_SSL_VERIFYPEER, 1L);
    set_long(h, CURLOPT_SSL_VERIFYHOST, 2L);
    // Compressed replies only when asked (the cat APIs' JSON): the size limit counts the
    // decoded bytes, so 0.5 MB of gzip would be read up to the whole limit. S3 asks for none.
    if (r->accept_encoding) set_string(h, CURLOPT_ACCEPT_ENCODING, "");  // gzip, deflate, ...
    set_string(h, CURLOPT_USERAGENT, r->user_agent);
    set_long(h, CURLOPT_CONNECTTIMEOUT_MS, r->connect_timeout_ms);
    set_long(h, CURLOPT_TIMEOUT_MS, r->timeout_ms);
    // Not for HEAD: its Content-Length is the object's size, not a body that comes.
    int head = r->method && strcmp(r->method, "HEAD") == 0;
    if (r->max_bytes > 0 && !head) set_off_t(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)r->max_bytes);
    if (r->stall_seconds > 0) {
        set_long(h, CURLOPT_LOW_SPEED_LIMIT, 1024L);  // a trickle counts as a stall
        set_long(h, CURLOPT_LOW_SPEED_TIME, r->stall_seconds);
    }
    const char *method = r->method ? r->method : "GET";
    if (strcmp(method, "HEAD") == 0) {
        set_long(h, CURLOPT_NOBODY, 1L);
    } else if (strcmp(method, "PUT") == 0 || strcmp(method, "POST") == 0) {
        if (strcmp(method, "PUT") == 0) {
            set_long(h, CURLOPT_UPLOAD, 1L);
            set_off_t(h, CURLOPT_INFILESIZE_LARGE, (curl_off_t)r->body_length);
        } else {
            set_long(h, CURLOPT_POST, 1L);
            set_off_t(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->body_length);
        }
        set_read_fn(h, cc_read);
        set_pointer(h, CURLOPT_READDATA, &t);
        // No wait for a 100-continue. (An empty "Expect:" would drop the header, but
        // libcurl 7.88 signs that empty header all the same, and S3 then finds no match.)
        set_long(h, CURLOPT_EXPECT_100_TIMEOUT_MS, 0L);
    } else if (strcmp(method, "GET") != 0) {
        set_string(h, CURLOPT_CUSTOMREQUEST, method);
    }
#if LIBCURL_VERSION_NUM >= 0x074B00  // 7.75.0
    if (r->aws_sigv4 && r->credentials) {
        set_long(h, CURLOPT_PATH_AS_IS, 1L);  // a key is signed and sent as written, never resolved
        set_string(h, CURLOPT_AWS_SIGV4, r->aws_sigv4);
        set_string(h, CURLOPT_USERPWD, r->credentials);
    }
#else
    if (r->aws_sigv4) {
        snprintf(errbuf, sizeof errbuf, "this libcurl is older than 7.75 and cannot sign S3 requests");
        CC(curl_slist_free_all)(headers);
        CC(curl_easy_cleanup)(h);
        snprintf(out->error, sizeof out->error, "%s", errbuf);
        return CC_ERR_OTHER;
    }
#endif
    set_header_fn(h, cc_header);
    set_pointer(h, CURLOPT_HEADERDATA, &t);
    if (headers) set_headers(h, headers);
    set_write_fn(h, cc_write);
    set_pointer(h, CURLOPT_WRITEDATA, &t);
    set_long(h, CURLOPT_NOPROGRESS, 0L);
    set_xferinfo_fn(h, cc_xferinfo);
    set_pointer(h, CURLOPT_XFERINFODATA, &t);

    CURLcode code = CC(curl_easy_perform)(h);
    if (code == CURLE_WRITE_ERROR && t.error_cut) code = CURLE_OK;  // the reply's status stands
    out->curl_code = (int)code;
    out->announced_length = code == CURLE_FILESIZE_EXCEEDED ? t.content_length : -1;
    CC(curl_easy_getinfo)(h, CURLINFO_RESPONSE_CODE, &out->http_status);
    curl_off_t announced = -1;
    out->content_length = CC(curl_easy_getinfo)(h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &announced) == CURLE_OK
        ? (int64_t)announced : -1;
    memcpy(out->etag, t.etag, sizeof out->etag);
    char *content_type = NULL;
    if (CC(curl_easy_getinfo)(h, CURLINFO_CONTENT_TYPE, &content_type) == CURLE_OK && content_type)
        snprintf(out->content_type, sizeof out->content_type, "%s", content_type);
    char *effective = NULL;
    if (CC(curl_easy_getinfo)(h, CURLINFO_EFFECTIVE_URL, &effective) == CURLE_OK && effective)
        snprintf(out->effective_url, sizeof out->effective_url, "%s", effective);
#if LIBCURL_VERSION_NUM >= 0x074200  // 7.66.0
    curl_off_t retry_after = 0;
    if (CC(curl_easy_getinfo)(h, CURLINFO_RETRY_AFTER, &retry_after) == CURLE_OK && retry_after > 0)
        out->retry_after_seconds = (int64_t)retry_after;
#endif
    snprintf(out->error, sizeof out->error, "%s", errbuf[0] ? errbuf : CC(curl_easy_strerror)(code));
    CC(curl_slist_free_all)(headers);
    CC(curl_easy_cleanup)(h);
    return cc_classify(code, &t);
}

// ---------------------------------------------------------------- SHA-256

// What S3 wants in x-amz-content-sha256 for a body libcurl does not hash itself (an upload
// read from a callback). OpenSSL's libcrypto is there wherever libcurl is built with it
// (Debian's libcurl4-openssl-dev); it is loaded by name, like libcurl, and only these two
// functions are looked up (their OpenSSL 1.1 and 3 prototypes are the same).
#if defined(__APPLE__)
#include <CommonCrypto/CommonDigest.h>
int cc_sha256(const uint8_t *data, size_t length, uint8_t out[32]) {
    CC_SHA256(data, (CC_LONG)length, out);
    return 1;
}
#else
typedef struct evp_md_st EVP_MD;
const EVP_MD *EVP_sha256(void);
int EVP_Digest(const void *data, size_t count, unsigned char *md, unsigned int *size, const EVP_MD *type, void *impl);
#define CC_LIBCRYPTO_FUNCTIONS(X) X(EVP_Digest) X(EVP_sha256)
static struct cc_libcrypto { CC_LIBCRYPTO_FUNCTIONS(CS_LIBRARY_SLOT) } cc_libcrypto;
static const char *const cc_crypto_symbols[] = {CC_LIBCRYPTO_FUNCTIONS(CS_LIBRARY_NAME) NULL};
static const char *const cc_crypto_names[] = {"libcrypto.so.3", "libcrypto.so.1.1", "libcrypto.so", NULL};
static cs_library cc_crypto = {cc_crypto_names, cc_crypto_symbols, (void **)&cc_libcrypto, 0, ""};

int cc_sha256(const uint8_t *data, size_t length, uint8_t out[32]) {
    if (!cs_library_load(&cc_crypto)) return 0;
    unsigned int size = 0;
    static const uint8_t empty[1] = {0};
    return cc_libcrypto.EVP_Digest(data ? (const void *)data : (const void *)empty, length, out, &size,
                                   cc_libcrypto.EVP_sha256(), NULL) == 1 && size == 32;
}
#endif
