/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef HTTP_PRIVATE_H
#define HTTP_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include <rte_log.h>

#include "ewyk_http.h"

extern int ewyk_http_logtype;

#define HTTP_LOG(level, fmt, ...)                                      \
	rte_log(RTE_LOG_##level, ewyk_http_logtype, "http: " fmt "\n", \
		##__VA_ARGS__)

/*
 * Scanners (http_scan.c). Each returns the index of the first byte of
 * s[0, n) that stops the scan, or n. All instruction sets return the same.
 *
 * http_scan_target: stops at a byte outside 0x21-0x7e (SP, CTL, DEL,
 *   obs-text): what ends or invalidates a request-target.
 * http_scan_value: stops at a CTL other than HT (0x00-0x08, 0x0a-0x1f) or
 *   DEL: what ends (CR) or invalidates a field value. SP, HT, VCHAR and
 *   obs-text (0x80-0xff) pass.
 */
size_t http_scan_target(unsigned int isa, const char *s, size_t n);
size_t http_scan_value(unsigned int isa, const char *s, size_t n);

/* tchar (RFC 9110 section 5.6.2) lookup: non-zero for token characters. */
extern const uint8_t http_tchar[256];

/* ASCII case-insensitive comparison of a view with a lower-case literal. */
static inline int
http_view_ieq(const char *p, uint32_t len, const char *lit, uint32_t litlen)
{
	uint32_t i;

	if (len != litlen)
		return 0;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c >= 'A' && c <= 'Z')
			c |= 0x20;
		if (c != (unsigned char)lit[i])
			return 0;
	}
	return 1;
}

#define HTTP_IEQ(p, len, lit) http_view_ieq(p, len, lit, sizeof(lit) - 1)

/* Empty lines ignored before a request line (RFC 9112 2.2); one more: 400. */
#define HTTP_MAX_EMPTY_LINES 4

/*
 * uri-host [":" port] (RFC 3986 3.2.2, 3.2.3): a reg-name or IPv4 address
 * (unreserved / pct-encoded / sub-delims) or an IP-literal in brackets,
 * then an optional port of digits. No userinfo ('@' is not allowed). An
 * empty string is valid only when allow_empty (a Host field may be empty,
 * RFC 9110 7.2); otherwise the host part must not be empty (4.2.1).
 */
int http_authority_valid(const char *s, uint32_t n, int allow_empty);

/* Parser flags (ewyk_http_parser.flags). */
#define HF_CL 0x01         /* Content-Length seen */
#define HF_TE 0x02         /* Transfer-Encoding seen */
#define HF_CLOSE 0x04      /* Connection: close */
#define HF_KEEP_ALIVE 0x08 /* Connection: keep-alive */
#define HF_EXPECT 0x10     /* Expect: 100-continue */

/*
 * Field semantics (http_fields.c): called for each complete field line and
 * once at the end of the header section. Return 0 or an HTTP status.
 */
/* Lengths of the names http_field_apply() acts on (4 host, 6 expect,
 * 10 connection, 14 content-length, 17 transfer-encoding). */
#define HTTP_FIELD_MAYBE(len)                                              \
	((len) < 32 &&                                                     \
		((UINT32_C(1) << (len)) &                                  \
			((1u << 4) | (1u << 6) | (1u << 10) | (1u << 14) | \
				(1u << 17))))
uint16_t http_field_apply(struct ewyk_http_parser *p,
	struct ewyk_http_request *req, const struct ewyk_http_header *h);
uint16_t http_fields_finish(struct ewyk_http_parser *p,
	struct ewyk_http_request *req);

/* ---- Connection layer (http_conn.c, http_conn_resp.c) ---- */

#include <ewyk_twheel.h>

enum http_conn_state {
	HC_HEAD = 0, /* reading a request head */
	HC_BODY,     /* reading (delivering or dropping) a request body */
	HC_WAIT,     /* body done, response not complete */
};

enum http_tmo {
	HT_NONE = 0,
	HT_HEADER,
	HT_BODY,
	HT_IDLE,
	HT_WRITE,
};

struct ewyk_http_conn {
	struct ewyk_http_server *srv;
	struct ewyk_tcp_conn *tcp; /* NULL once the TCP connection is gone */
	struct rte_mbuf *rx;       /* received, not yet released */
	uint32_t rx_off;           /* bytes of rx consumed */
	struct rte_mbuf *tx;       /* refused by ewyk_tcp_send, retried */
	struct ewyk_twheel_timer tmr;
	uint8_t tmo;          /* enum http_tmo armed */
	uint8_t st;           /* enum http_conn_state */
	uint8_t in_handler;   /* handler call under way */
	uint8_t in_run;       /* http_conn_run() under way */
	uint8_t responded;    /* a final response was started */
	uint8_t resp_done;    /* ... and handed whole to TCP */
	uint8_t pending;      /* handler returned EWYK_HTTP_PENDING */
	uint8_t close_after;  /* close once this response is out */
	uint8_t eof;          /* peer's FIN arrived */
	uint8_t body_started; /* body bytes were read */
	uint8_t chunked;      /* streamed response is chunked */
	uint8_t used;         /* taken from the free list */
	uint8_t body_paused;  /* consumer asked for a pause */
	uint8_t closing;      /* closing once c->tx is sent */
	uint16_t status;      /* status of the response */
	ewyk_http_body_cb_t body_cb;
	void *body_arg;
	ewyk_http_producer_t prod;
	void *prod_arg;
	ewyk_http_done_t done; /* end-of-request notification */
	void *done_arg;
	uint64_t prod_left; /* Content-Length bytes still owed */
	uint64_t prod_off;  /* bytes produced */
	uint32_t next_free;
	struct ewyk_http_parser p;
	struct ewyk_http_request req;
	struct ewyk_http_body b;
};

struct ewyk_http_server {
	struct ewyk_http_server_conf conf;
	uint64_t hz_ms; /* TSC cycles per ms */
	struct ewyk_http_conn *conns;
	struct ewyk_http_header *hdrs; /* max_headers per connection */
	char *scratch;                 /* scratch_size per connection */
	uint32_t scratch_size;
	uint32_t free_head; /* UINT32_MAX: none */
	uint32_t in_use;
	struct ewyk_http_date date;
	uint64_t ctr[EWYK_HTTP_C_MAX];
};

#define HTTP_CTR(s, sym, n) ((s)->ctr[EWYK_HTTP_C_##sym] += (n))

/* http_conn.c */
void http_conn_run(struct ewyk_http_conn *c);
void http_conn_timer(struct ewyk_http_conn *c, enum http_tmo kind, uint32_t ms);
void http_conn_abort(struct ewyk_http_conn *c);
void http_conn_done(struct ewyk_http_conn *c, int aborted);
/* http_conn_resp.c */
int http_conn_pump(struct ewyk_http_conn *c);
int http_conn_send(struct ewyk_http_conn *c, struct rte_mbuf *m);
void http_conn_count_status(struct ewyk_http_server *s, uint16_t status);
int http_conn_error(struct ewyk_http_conn *c, uint16_t status);

#endif /* HTTP_PRIVATE_H */
