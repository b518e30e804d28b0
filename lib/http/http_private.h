/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef HTTP_PRIVATE_H
#define HTTP_PRIVATE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif
#ifdef __SSSE3__
#include <tmmintrin.h>
#endif

#include <rte_byteorder.h>
#include <rte_common.h>
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

/*
 * Word-at-a-time tests (SWAR): "any byte < n" is
 * (x - n * ONES) & ~x & HIGHS. On a little-endian load the lowest flagged
 * byte is exactly the first byte that matches (a borrow only propagates
 * upwards, from a byte that matched); bytes above it may be false hits.
 */
#define HTTP_ONES UINT64_C(0x0101010101010101)
#define HTTP_HIGHS UINT64_C(0x8080808080808080)
#define HTTP_ANY_LESS(x, n) (((x) - (n)*HTTP_ONES) & ~(x)&HTTP_HIGHS)
#define HTTP_ANY_ZERO(x) HTTP_ANY_LESS(x, 1)
/* SP, CTL, DEL or obs-text: ends a request-target */
#define HTTP_TARGET_WORD_STOP(x)                     \
	(HTTP_ANY_LESS(x, 0x21) | ((x)&HTTP_HIGHS) | \
		HTTP_ANY_ZERO((x) ^ (0x7f * HTTP_ONES)))
/* CTL (HT included: callers pass it) or DEL */
#define HTTP_VALUE_WORD_STOP(x) \
	(HTTP_ANY_LESS(x, 0x20) | HTTP_ANY_ZERO((x) ^ (0x7f * HTTP_ONES)))

static inline uint64_t
http_load64(const char *s)
{
	uint64_t x;

	memcpy(&x, s, sizeof(x));
	return x;
}

/*
 * The scanners' first two words inline, for the parser's fast path: the
 * tokens of a small request end there, without a call or vector set-up;
 * longer runs continue in http_scan_*(isa). Same result as http_scan_*().
 */
static inline size_t
http_scan_target_inl(unsigned int isa, const char *s, size_t n)
{
	size_t i = 0;

#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	for (; i < 16 && i + 8 <= n; i += 8) {
		uint64_t m = HTTP_TARGET_WORD_STOP(http_load64(s + i));

		if (m != 0)
			return i + (size_t)__builtin_ctzll(m) / 8;
	}
#endif
	return i + http_scan_target(isa, s + i, n - i);
}

static inline size_t
http_scan_value_inl(unsigned int isa, const char *s, size_t n)
{
	size_t i = 0;

#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	for (; i < 16 && i + 8 <= n; i += 8) {
		uint64_t m = HTTP_VALUE_WORD_STOP(http_load64(s + i));

		if (m != 0) {
			i += (size_t)__builtin_ctzll(m) / 8;
			if (s[i] != '\t')
				return i;
			i++;
			break;
		}
	}
#endif
	return i + http_scan_value(isa, s + i, n - i);
}

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

#ifdef __SSE2__
/* 16 bytes at s (readable: the caller checked). */
static inline __m128i
http_load16(const char *s)
{
	return _mm_loadu_si128((const __m128i *)(const void *)s);
}

/* Bit i set when x[i] is c. */
static inline uint32_t
http_eq16(__m128i x, char c)
{
	return (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8(c)));
}

/*
 * The IPv6 literal of http_authority_quick16(): "[" hex digits, ':' and
 * '.' "]", then optionally ':' and digits, in x[0, n) (x[0] is '[').
 * 1: valid; 0: http_authority_valid() decides.
 */
static inline int
http_authority_quick16_ip6(__m128i x, __m128i dig, uint32_t n)
{
	const __m128i l = _mm_or_si128(x, _mm_set1_epi8(0x20));
	const __m128i af = _mm_and_si128(_mm_cmpgt_epi8(l,
						 _mm_set1_epi8('a' - 1)),
		_mm_cmplt_epi8(l, _mm_set1_epi8('f' + 1)));
	const uint32_t full = (UINT32_C(1) << n) - 1;
	const uint32_t d = (uint32_t)_mm_movemask_epi8(dig) & full;
	uint32_t m, r;

	m = (d | (uint32_t)_mm_movemask_epi8(af) | http_eq16(x, ':') |
		    http_eq16(x, '.')) &
		full;
	m |= 1; /* the '[' */
	if (m == full)
		return 0; /* no ']' */
	r = (uint32_t)__builtin_ctz(~m & full);
	if (r < 2 || !((http_eq16(x, ']') >> r) & 1))
		return 0;
	if (r + 1 == n)
		return 1;
	if (!((http_eq16(x, ':') >> (r + 1)) & 1))
		return 0;
	return (d | ((UINT32_C(2) << (r + 1)) - 1)) == full;
}

/*
 * Quick acceptance of the common uri-host [":" port] in x[0, n), n <= 16:
 * letters, digits, '-' and '.', or an IPv6 literal in brackets, then
 * optionally ':' and digits. 1: valid; 0: this cannot tell, and
 * http_authority_valid() decides (it accepts everything this accepts, and
 * this is tested against it).
 */
static inline int
http_authority_quick16(__m128i x, uint32_t n)
{
	const __m128i l = _mm_or_si128(x, _mm_set1_epi8(0x20));
	/* signed compares: bytes >= 0x80 are negative and never pass */
	const __m128i dig = _mm_and_si128(_mm_cmpgt_epi8(x,
						  _mm_set1_epi8('0' - 1)),
		_mm_cmplt_epi8(x, _mm_set1_epi8('9' + 1)));
	__m128i ok = _mm_and_si128(_mm_cmpgt_epi8(l, _mm_set1_epi8('a' - 1)),
		_mm_cmplt_epi8(l, _mm_set1_epi8('z' + 1)));
	const uint32_t full = (UINT32_C(1) << n) - 1;
	uint32_t m, k;

	ok = _mm_or_si128(ok, dig);
	m = ((uint32_t)_mm_movemask_epi8(ok) | http_eq16(x, '-') |
		    http_eq16(x, '.')) &
		full;
	if (m == full)
		return n > 0;
	if (http_eq16(x, '[') & full & 1)
		return http_authority_quick16_ip6(x, dig, n);
	/* "host:port": the first other byte is a colon after a non-empty
	 * host, and every byte after it is a digit */
	k = (uint32_t)__builtin_ctz(~m & full);
	if (k == 0 || !((http_eq16(x, ':') >> k) & 1))
		return 0;
	return (((uint32_t)_mm_movemask_epi8(dig) & full) |
		       ((UINT32_C(2) << k) - 1)) == full;
}
#endif

/*
 * http_authority_quick16() of s[0, n) where the 16 bytes at s are readable
 * (avail >= 16); 0 (cannot tell) otherwise.
 */
static inline int
http_authority_quick(const char *s, uint32_t n, size_t avail)
{
#ifdef __SSE2__
	if (n == 0 || n > 16 || avail < 16)
		return 0;
	return http_authority_quick16(http_load16(s), n);
#else
	RTE_SET_USED(s);
	RTE_SET_USED(n);
	RTE_SET_USED(avail);
	return 0;
#endif
}

#ifdef __SSSE3__
/*
 * 16 bytes at once for the parser's fast path (compiled in where the
 * build's baseline has SSSE3, used when the parser's isa is not scalar).
 *
 * http_tchar16: bit i set when x[i] is a tchar. A byte's class is looked
 * up by nibbles: lo[low nibble] has bit h set when (h << 4 | low) is a
 * tchar, hi[h] = 1 << h for h < 8 and 0 above (no tchar >= 0x80), so
 * lo & hi is non-zero exactly for the tchars. Tested against http_tchar
 * for all 256 bytes.
 */
static inline uint32_t
http_tchar16(__m128i x)
{
	const __m128i lo = _mm_setr_epi8((char)0xe8, (char)0xfc, (char)0xf8,
		(char)0xfc, (char)0xfc, (char)0xfc, (char)0xfc, (char)0xfc,
		(char)0xf8, (char)0xf8, (char)0xf4, 0x54, (char)0xd0, 0x54,
		(char)0xf4, 0x70);
	const __m128i hi = _mm_setr_epi8(1, 2, 4, 8, 16, 32, 64, (char)128, 0,
		0, 0, 0, 0, 0, 0, 0);
	const __m128i nib = _mm_set1_epi8(0x0f);
	__m128i c = _mm_and_si128(_mm_shuffle_epi8(lo, _mm_and_si128(x, nib)),
		_mm_shuffle_epi8(hi, _mm_and_si128(_mm_srli_epi16(x, 4), nib)));

	return ~(uint32_t)_mm_movemask_epi8(
		       _mm_cmpeq_epi8(c, _mm_setzero_si128())) &
		0xffff;
}

/* Bit i set when x[i] stops a field value (a CTL, HT included, or DEL). */
static inline uint32_t
http_value_stop16(__m128i x)
{
	const __m128i sp = _mm_set1_epi8(0x20);
	/* x >= 0x20, unsigned: obs-text (0x80-0xff) passes */
	uint32_t ok = (uint32_t)_mm_movemask_epi8(
		_mm_cmpeq_epi8(_mm_max_epu8(x, sp), x));

	return (~ok |
		       (uint32_t)_mm_movemask_epi8(
			       _mm_cmpeq_epi8(x, _mm_set1_epi8(0x7f)))) &
		0xffff;
}
#endif

/*
 * Field-name comparison with a lower-case literal of len >= 4 bytes, a
 * word at a time with overlapping loads: for a token character x,
 * (x | 0x20) equals a lower-case letter or '-' only when x is that letter
 * in either case or '-' itself.
 */
static inline int
http_name_is(const char *n, const char *lit, uint32_t len)
{
	uint64_t a, b;
	uint32_t x, y, i;

	if (len < 8) {
		memcpy(&x, n, 4);
		memcpy(&y, lit, 4);
		if ((x | UINT32_C(0x20202020)) != y)
			return 0;
		memcpy(&x, n + len - 4, 4);
		memcpy(&y, lit + len - 4, 4);
		return (x | UINT32_C(0x20202020)) == y;
	}
	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&a, n + i, 8);
		memcpy(&b, lit + i, 8);
		if ((a | UINT64_C(0x2020202020202020)) != b)
			return 0;
	}
	if (i == len)
		return 1;
	memcpy(&a, n + len - 8, 8);
	memcpy(&b, lit + len - 8, 8);
	return (a | UINT64_C(0x2020202020202020)) == b;
}

#define HTTP_NAME_IS(n, lit) http_name_is(n, lit, sizeof(lit) - 1)

/* Request-head parser states (ewyk_http_parser.state). */
enum http_parse_state {
	PS_START = 0, /* before the request line: method or empty line */
	PS_START_LF,  /* CR of an empty line seen */
	PS_METHOD,
	PS_TARGET,
	PS_VERSION, /* vpos bytes of "HTTP/D.D" seen */
	PS_RL_CR,   /* version complete, CR expected */
	PS_RL_LF,
	PS_LINE, /* start of a field line (or of the final CRLF) */
	PS_NAME,
	PS_OWS, /* after the colon */
	PS_VALUE,
	PS_VALUE_LF,
	PS_END_LF, /* CR of the final CRLF seen */
	PS_DONE,
	PS_ERROR,
};

/*
 * http_parse.c / http_parse_machine.c: the state machine (any piece, any
 * request, every error) and what it shares with the fast path.
 */
int http_parse_machine(struct ewyk_http_parser *p,
	struct ewyk_http_request *req, const char *buf, uint32_t len,
	uint32_t *consumed);
/* enum ewyk_http_method of a method token, or -1 (case-sensitive). */
int http_method_lookup(const char *p, uint32_t len);
/* Origin-, absolute- or asterisk-form checks of req->target; sets path
 * (and host for absolute-form). 0 or the status to answer. */
uint16_t http_target_finish(struct ewyk_http_request *req);

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

/*
 * A Host field (RFC 9112 3.2): one only, a valid uri-host [":" port] or
 * empty. avail: bytes readable from its value (0: unknown; SIZE_MAX: the
 * caller has found the value valid already). Inline: every HTTP/1.1
 * request has one, and the fast path applies it itself.
 */
static __rte_always_inline uint16_t
http_field_host(struct ewyk_http_parser *p, struct ewyk_http_request *req,
	const struct ewyk_http_header *h, size_t avail)
{
	if (p->nhost++ != 0)
		return 400; /* more than one Host */
	if (avail != SIZE_MAX &&
		!http_authority_quick(h->value.p, h->value.len, avail) &&
		!http_authority_valid(h->value.p, h->value.len, 1))
		return 400;
	/*
	 * absolute-form: the target's authority is the host (3.2.2). Field
	 * by field: the caller has just stored the value's pointer and
	 * length, and one 16-byte load of them would wait for both stores
	 * (no store forwarding from two stores to one load).
	 */
	if (req->target.p[0] == '/' || req->target.len == 1) {
		req->host.p = h->value.p;
		req->host.len = h->value.len;
	}
	return 0;
}
/*
 * End of the header section (RFC 9112 6.1, 6.3; 9.3 persistence): the
 * framing and keep-alive decided from the fields seen; inline, as it runs
 * once per request on the parser's fast path.
 */
static __rte_always_inline uint16_t
http_fields_finish(struct ewyk_http_parser *p, struct ewyk_http_request *req)
{
	req->content_length = 0;
	if (p->flags == 0 && p->nhost == 1) {
		/* the common head: one Host, no framing or connection field */
		req->framing = EWYK_HTTP_BODY_NONE;
		req->keep_alive = req->version_minor; /* 1.1 yes, 1.0 no */
		req->expect_continue = 0;
		req->head = req->method_id == EWYK_HTTP_HEAD;
		return 0;
	}
	if (req->version_minor == 1 && p->nhost == 0)
		return 400;
	if (p->flags & HF_TE) {
		/* RFC 9112 6.1: TE in 1.0 is faulty framing; 6.3: CL + TE */
		if (req->version_minor == 0 || (p->flags & HF_CL))
			return 400;
		/* chunked must be final, and applied once */
		if (p->te_count == 0 || !p->te_last_chunked ||
			p->te_chunked != 1)
			return 400;
		if (p->te_other)
			return 501;
		req->framing = EWYK_HTTP_BODY_CHUNKED;
	} else if ((p->flags & HF_CL) && p->cl > 0) {
		if (p->cl > p->lim.max_body)
			return 413;
		req->framing = EWYK_HTTP_BODY_LENGTH;
		req->content_length = p->cl;
	} else {
		req->framing = EWYK_HTTP_BODY_NONE;
	}
	if (req->version_minor == 1)
		req->keep_alive = !(p->flags & HF_CLOSE);
	else
		req->keep_alive = (p->flags & HF_KEEP_ALIVE) &&
			!(p->flags & HF_CLOSE);
	req->expect_continue = (p->flags & HF_EXPECT) != 0;
	req->head = req->method_id == EWYK_HTTP_HEAD;
	return 0;
}

/* ---- Connection layer (http_conn.c, http_conn_resp.c) ---- */

#include <ewyk_ctr.h>
#include <ewyk_twheel.h>

enum http_conn_state {
	HC_HEAD = 0, /* reading a request head */
	HC_BODY,     /* reading (delivering or dropping) a request body */
	HC_WAIT,     /* body done, response not complete */
};

/*
 * What a head lease lends besides the scratch and the header array: the
 * head parser (its scratch pointer fixed at creation) and the body
 * decoder. Both only live while a request is read, so an idle connection
 * does without them.
 */
struct http_lease {
	struct ewyk_http_parser p;
	struct ewyk_http_body b;
};

enum http_tmo {
	HT_NONE = 0,
	HT_HEADER,
	HT_BODY,
	HT_IDLE,
	HT_WRITE,
};

/* What a connection's rip is: an IPv4 address, an IPv6 /64, or the
 * interface identifier of a link-local IPv6 address. */
enum { HTTP_SRC_V4, HTTP_SRC_NET6, HTTP_SRC_LL6 };

struct ewyk_http_conn {
	struct ewyk_http_server *srv;
	struct ewyk_tcp_conn *tcp; /* NULL once the TCP connection is gone */
	struct rte_mbuf
		*rx;     /* received, not yet released (ewyk_tcp_recv_append) */
	uint32_t rx_off; /* bytes of rx consumed */
	/* where parsing resumes: the buffer of rx holding byte rx_off, and
	 * the offset in rx at which that buffer starts (so that no step
	 * walks the chain from its start) */
	uint32_t rx_pos_off;
	struct rte_mbuf *rx_pos;
	struct rte_mbuf *tx; /* refused by ewyk_tcp_send, retried */
	/* responses made in this run, one after another, not yet handed
	 * to TCP (http_conn_resp.c); NULL outside a run */
	struct rte_mbuf *stage;
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
	uint8_t prod_wait;    /* producer said -EAGAIN: stream_resume next */
	uint8_t idle;         /* on the idle list: keep-alive timer armed */
	uint8_t h2_maybe; /* first bytes not checked for the HTTP/2 preface */
	uint8_t rip_kind; /* HTTP_SRC_V4, _NET6 or _LL6 */
	uint16_t status;  /* status of the response */
	/* bytes of rx, from its start, of requests done with (their views
	 * dead): given back to TCP when the run ends */
	uint32_t rx_done;
	ewyk_http_body_cb_t body_cb;
	void *body_arg;
	ewyk_http_producer_t prod;
	void *prod_arg;
	ewyk_http_done_t done; /* end-of-request notification */
	void *done_arg;
	uint64_t body_deadline; /* TSC: the body's minimum rate runs out */
	uint64_t tmo_due;       /* TSC: when the timeout of kind tmo is due */
	uint64_t tmr_by;        /* TSC: tmr comes up by then (see timer_at()) */
	uint64_t prod_left;     /* Content-Length bytes still owed */
	uint64_t prod_off;      /* bytes produced */
	uint32_t next_free;
	/* http_slots.c: the head lease, the source's share, the idle list */
	uint32_t lease;    /* HTTP_NO_LEASE: none */
	uint32_t src;      /* bucket of the peer address (per-source counts) */
	uint64_t rip;      /* peer's source key (http_src_key), of rip_kind */
	uint32_t lru_prev; /* idle list (UINT32_MAX: end), while idle */
	uint32_t lru_next;
	struct http_lease *ls; /* the lease's parser and decoder; NULL: none */
	struct ewyk_http_request req;
};

/*
 * The last response head built without extra fields, with what it says:
 * the next one that says the same (the same status, framing, length,
 * Connection and Content-Type within the same Date second) is copied
 * instead of formatted and validated again.
 */
struct http_head_cache {
	uint64_t sec;  /* Date second of head[] */
	uint64_t clen; /* content_length */
	uint16_t status;
	uint8_t framing, connection;
	uint8_t has_ctype; /* ctype[] holds the Content-Type */
	uint16_t len;      /* of head[]; 0: empty */
	char ctype[64];
	char head[192];
};

struct ewyk_http_server {
	struct ewyk_http_server_conf conf;
	uint64_t hz_ms; /* TSC cycles per ms */
	struct ewyk_http_conn *conns;
	struct ewyk_http_header *hdrs; /* max_headers per lease */
	char *scratch;                 /* scratch_size per lease */
	struct http_lease *ls;         /* parser and decoder per lease */
	struct ewyk_http_limits lim; /* the parsers' limits, defaults filled */
	uint32_t scratch_size;
	uint32_t free_head; /* UINT32_MAX: none */
	uint32_t in_use;
	/* http_slots.c */
	uint32_t *lease_next; /* free list of leases */
	uint32_t lease_free;  /* HTTP_NO_LEASE: none */
	uint32_t leases;      /* leases taken */
	uint16_t max_headers;
	uint32_t *src_conns; /* per bucket of the peer address */
	uint32_t *src_heads;
	uint32_t src_mask;
	uint64_t hk0, hk1; /* key of the per-source hash */
	uint32_t lru_head; /* oldest idle connection (UINT32_MAX: none) */
	uint32_t lru_tail; /* newest */
	uint32_t nidle;
	struct ewyk_http_date date;
	struct http_head_cache head_cache; /* http_conn_resp.c */
	uint8_t registered; /* listed in /ewyk/http (http_stats.c) */
	uint64_t ctr[EWYK_HTTP_C_MAX];
};

#define HTTP_CTR(s, sym, n) ewyk_ctr_add(&(s)->ctr[EWYK_HTTP_C_##sym], (n))

/* http_conn.c */
void http_conn_run(struct ewyk_http_conn *c);
/* http_switch.c */
int http_switch_preface(struct ewyk_http_conn *c);
int http_switch_upgrade(struct ewyk_http_conn *c);
void http_conn_timer(struct ewyk_http_conn *c, enum http_tmo kind, uint32_t ms);
void http_conn_abort(struct ewyk_http_conn *c);
void http_conn_done(struct ewyk_http_conn *c, int aborted);
/* Back to the server's free list (the TCP side already let go of). */
void http_conn_release(struct ewyk_http_conn *c);
/*
 * http_slots.c: what a connection holds of its shard. Its object (from
 * the free list, within its source's share, else the oldest idle
 * keep-alive connection's); a lease of parser scratch and header array
 * from a head's first byte until it is idle again; its place on the idle
 * list while its keep-alive timer runs.
 */
#define HTTP_NO_LEASE UINT32_MAX
/* A peer's source key and its kind (HTTP_SRC_*): its IPv4 address, its
 * IPv6 /64, or a link-local peer's interface identifier. */
uint64_t http_src_key(const struct ewyk_tcp_conn_info *ti, uint8_t *kind);
int http_slots_init(struct ewyk_http_server *s);
void http_slots_free(struct ewyk_http_server *s);
/* An object for a new TCP connection, or NULL (refused, counted). */
struct ewyk_http_conn *http_slots_accept(struct ewyk_http_server *s,
	struct ewyk_tcp_conn *tc);
/* Take a lease: 0, or -1 (none: answered 503 and closing, counted). */
int http_slots_lease(struct ewyk_http_conn *c);
/* The connection's timer is armed for @p kind: idle or not. */
void http_slots_timer(struct ewyk_http_conn *c, enum http_tmo kind);
void http_slots_unidle(struct ewyk_http_conn *c);
/* Back to the shard: the lease, the idle list, the source's count. */
void http_slots_release(struct ewyk_http_conn *c);

/* The head may be parsed: a lease is held or taken (else: answered). */
static inline int
http_slots_head(struct ewyk_http_conn *c)
{
	return c->lease != HTTP_NO_LEASE || http_slots_lease(c) == 0;
}

/* Its keep-alive timer stops: off the idle list. */
static inline void
http_slots_busy(struct ewyk_http_conn *c)
{
	if (c->idle)
		http_slots_unidle(c);
}

/* http_stats.c */
void http_stats_register(struct ewyk_http_server *s);
void http_stats_unregister(struct ewyk_http_server *s);
/* http_conn_resp.c */
int http_conn_pump(struct ewyk_http_conn *c);
int http_conn_send(struct ewyk_http_conn *c, struct rte_mbuf *m);
void http_conn_count_status(struct ewyk_http_server *s, uint16_t status);
int http_conn_error(struct ewyk_http_conn *c, uint16_t status);

#endif /* HTTP_PRIVATE_H */
