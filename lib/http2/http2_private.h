/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_HTTP2_PRIVATE_H
#define EWYK_HTTP2_PRIVATE_H

/* lib/http2 internals (not installed). */

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include <nghttp2/nghttp2.h>

#include <rte_common.h>
#include <rte_log.h>

#include <ewyk_ctr.h>
#include <ewyk_http_server.h>
#include <ewyk_twheel.h>

#include "ewyk_http2.h"
#include "ewyk_http2_mem.h"

extern int ewyk_http2_logtype;

#define H2_LOG(level, fmt, ...)                                          \
	rte_log(RTE_LOG_##level, ewyk_http2_logtype, "http2: " fmt "\n", \
		##__VA_ARGS__)

#define H2_CTR(s, sym, n) ewyk_ctr_add(&(s)->ctr[EWYK_HTTP2_C_##sym], (n))

#define H2_NONE UINT32_MAX

struct h2_conn;
struct ewyk_http_quota;
struct ewyk_tcp_conn_info;

/*
 * How a connection's bytes leave and its end is told: lib/tcp, or a
 * test's or fuzzer's capture (http2_test.c).
 */
struct h2_io {
	/* room for more bytes now */
	uint32_t (*space)(void *io_arg);
	/* hand a chain over (0), or -EAGAIN (kept by the caller) */
	int (*send)(void *io_arg, struct rte_mbuf *m);
	/* reset (0), close after what was sent (1), or send a FIN and
	 * keep receiving (2: only with linger) */
	void (*end)(void *io_arg, int how);
	/* the peer's address (per-source shares); NULL or < 0: none, the
	 * connection is held to no share */
	int (*peer)(void *io_arg, struct ewyk_tcp_conn_info *ti);
	/* 1: after a GOAWAY the connection lingers: a FIN, then what the
	 * peer still sends is read and dropped a while, so that our GOAWAY
	 * is not lost to a reset */
	int linger;
};

/* How long a connection lingers after its GOAWAY and FIN. */
#define H2_LINGER_MS 1000

/* A token bucket: @burst at once, then @rate a second. */
struct h2_bucket {
	uint64_t tokens;
	uint64_t last; /* TSC of the last refill; 0: full */
};

struct ewyk_http2_stream {
	struct h2_conn *c;
	int32_t id;
	uint8_t used;
	uint8_t responded;   /* a response was submitted */
	uint8_t resp_done;   /* ... and its last DATA (or HEADERS) sent */
	uint8_t req_done;    /* the peer's END_STREAM */
	uint8_t too_large;   /* header list over the limits: 431 */
	uint8_t too_many;    /* ... over the field count */
	uint8_t refused;     /* no object: REFUSED_STREAM */
	uint8_t deferred;    /* producer said -EAGAIN */
	uint8_t chunked;     /* body of unknown length */
	uint8_t head;        /* HEAD: no body */
	uint8_t in_request;  /* on_request running */
	uint8_t ngh_closing; /* nghttp2 closes it: its map entry goes */
	uint16_t status;
	ewyk_http2_body_fn body_cb;
	void *body_arg;
	ewyk_http2_producer_fn prod;
	void *prod_arg;
	uint64_t left; /* body bytes still owed (known length) */
	uint64_t off;  /* produced */
	ewyk_http2_done_fn done;
	void *done_arg;
	/* the request's pseudo-fields: offsets in the connection's header
	 * buffer (valid while the header block is read) */
	struct ewyk_http_view method, path, authority;
	int64_t content_length; /* -1: none */
	/* the stream list of its connection */
	struct ewyk_http2_stream *prev, *next;
	uint32_t next_free;
	int qtok; /* its unit of the source's stream share; -1: none */
	/* its body in the budget (http2_body.c): bytes granted (consumed,
	 * the window reopened: the connection's only when streamed) and
	 * held, bytes held but not granted yet; the server's list of
	 * streams waiting for the budget */
	uint64_t body_granted, body_owed;
	/* its consumer's buffer (ewyk_http2_body_buffer()), and what of it
	 * beyond the bytes held is charged to the budget (body_spare) */
	uint64_t body_buf, body_spare;
	uint64_t body_rx;    /* body bytes handed over in all */
	uint64_t wait_since; /* TSC */
	/* TSC of its body's first and latest DATA handed over; the time it
	 * waited for the budget (or, streamed, for its consumer), not held
	 * against its rate; since when a streamed body's consumer holds
	 * bytes */
	uint64_t body_first, body_last, body_waited, hold_since;
	uint8_t body_cut;    /* reset for its body's pace: not again */
	uint8_t body_stream; /* streamed: held until released */
	TAILQ_ENTRY(ewyk_http2_stream) wlink;
	uint8_t waiting;
	/* the response's :status and content-length values: nghttp2 packs
	 * them from here (NGHTTP2_NV_FLAG_NO_COPY_VALUE), once the stream
	 * is writable, and never after it closed */
	char hv_stat[4];
	char hv_clen[20];
	uint32_t small_len;
	char small[EWYK_HTTP2_RESPOND_MAX];
};

/* Closed streams a connection remembers (h2_conn.closed): nghttp2 kept
 * as many as the concurrent streams it allows (100) in its RFC 7540
 * priority tree. */
#define H2_CLOSED_WIN 256
#define H2_CLOSED_WORDS (H2_CLOSED_WIN / 64)

struct h2_conn {
	struct ewyk_http2_server *srv;
	const struct h2_io *io;
	void *io_arg; /* the ewyk_tcp_conn, or a test's */
	nghttp2_session *sess;
	struct rte_mbuf *out, *out_tail; /* frames being written */
	struct rte_mbuf *tx;             /* refused by TCP, retried */
	uint32_t budget;                 /* bytes out may still take */
	struct ewyk_twheel_timer tmr;
	uint64_t last_rx, last_tx; /* TSC */
	struct h2_bucket rst, ctrl;
	struct ewyk_http2_stream *streams; /* open ones */
	uint32_t nstreams;
	uint32_t nresp; /* responses started, body not all sent */
	/* the stream whose header block is being read (NULL: refused, or
	 * none): no lookup per field */
	struct ewyk_http2_stream *hst;
	/* the stream of the DATA frame send_data() wrote last, and the one
	 * whose response just ended (its close comes next): no lookup in
	 * nghttp2's map for either */
	struct ewyk_http2_stream *dst, *lst;
	/* the client's streams (by id >> 1) among the last H2_CLOSED_WIN
	 * that closed after the peer's END_STREAM, and the highest id >> 1
	 * seen: a DATA or HEADERS frame on one is a connection error
	 * STREAM_CLOSED (RFC 9113 5.1) that nghttp2 no longer finds (it
	 * frees a stream as it closes). The frame heads of the input are
	 * followed for it: bytes of the preface or frame still to skip, a
	 * head split between two segments */
	uint64_t closed[H2_CLOSED_WORDS];
	uint32_t closed_hi;
	uint32_t fskip;
	uint8_t fhd[9], fhn;
	uint32_t hbytes; /* header list bytes of the block being read */
	uint16_t nh;     /* its fields */
	uint8_t used, in_recv, in_send, eof, ending, gone, lingering;
	uint8_t granted;       /* on the server's list to flush */
	struct h2_conn *gnext; /* ... its next */
	/* input came while the server held its flushes (on its list of
	 * held connections; kept across the object's reuse, so that it is
	 * never on the list twice) */
	uint8_t held;
	struct h2_conn *hnext; /* ... its next */
	/* stream 1 of an upgrade, its request in hbuf: handed on when the
	 * client's preface comes (curl takes little data behind the 101) */
	struct ewyk_http2_stream *up_st;
	uint32_t next_free;
	/* the peer's source in the stream share (-1: none), and the
	 * connection's unit of the connection share */
	int st_src, qtok;
	/* the peer, taken once (has_peer: known), and its sources in the
	 * application's last two quotas (ewyk_http2_stream_source()) */
	uint8_t has_peer, src_next;
	struct ewyk_http_peer peer;
	const struct ewyk_http_quota *src_q[2];
	int src_v[2];
	struct ewyk_http_header *hdrs; /* max_header_fields + 1 */
	char *hbuf;                    /* max_header_list bytes */
};

void h2_closed_slide_far(struct h2_conn *c, uint32_t idx);

/* A new client stream @p id (odd, above those before): the window of
 * remembered closes (h2_conn.closed) moves up to it. */
static inline void
h2_closed_slide(struct h2_conn *c, int32_t id)
{
	uint32_t i = (uint32_t)id >> 1;

	if (i == c->closed_hi + 1) {
		c->closed[i / 64 % H2_CLOSED_WORDS] &= ~(1ull << (i % 64));
		c->closed_hi = i;
	} else if (i > c->closed_hi) {
		h2_closed_slide_far(c, i);
	}
}

/* Is the client stream @p id in the window of remembered closes? */
static inline bool
h2_closed_known(const struct h2_conn *c, uint32_t id)
{
	/* one compare: an id above the window wraps */
	return (id & 1) && c->closed_hi - (id >> 1) < H2_CLOSED_WIN;
}

/* @p id closed after the peer's END_STREAM. */
static inline void
h2_closed_mark(struct h2_conn *c, int32_t id)
{
	uint32_t i = (uint32_t)id >> 1;

	if (h2_closed_known(c, (uint32_t)id))
		c->closed[i / 64 % H2_CLOSED_WORDS] |= 1ull << (i % 64);
}

/* Did @p id close after the peer's END_STREAM (as far as remembered)? */
static inline bool
h2_closed_ended(const struct h2_conn *c, uint32_t id)
{
	uint32_t i = id >> 1;

	return h2_closed_known(c, id) &&
		(c->closed[i / 64 % H2_CLOSED_WORDS] >> (i % 64) & 1);
}

/* Under AddressSanitizer the sessions keep malloc(), so that a block
 * used after nghttp2 freed it is still caught. */
#if defined(__SANITIZE_ADDRESS__)
#define H2_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define H2_ASAN 1
#endif
#endif
#ifdef H2_ASAN
#define H2_SESSION_MEM(s) ((nghttp2_mem *)NULL)
#else
#define H2_SESSION_MEM(s) (&(s)->mem.mem)
#endif

struct ewyk_http2_server {
	struct ewyk_http2_conf conf;
	uint64_t hz;
	nghttp2_session_callbacks *cbs;
	nghttp2_option *opt;
	struct h2_conn *conns;
	struct ewyk_http2_stream *st;
	struct ewyk_http_header *hdrs;
	char *hbuf;
	struct ewyk_http_quota *q_conns, *q_streams; /* per-source shares */
	uint32_t conn_free, st_free;
	uint32_t nconns, nst;
	uint8_t registered;
	/* the body budget (http2_body.c): bytes granted, per source (the
	 * stream share's sources), streams waiting, connections to flush */
	uint64_t body_granted;
	uint64_t *body_src;
	TAILQ_HEAD(, ewyk_http2_stream) wait;
	struct h2_conn *gflush;
	uint8_t granting, regrant;
	/* ewyk_http2_server_hold(): input does not flush; the connections
	 * it came to, flushed by ewyk_http2_server_flush() */
	uint8_t holding;
	struct h2_conn *hflush;
	struct ewyk_http2_mem mem;
	uint64_t ctr[EWYK_HTTP2_C_MAX];
};

/* http2_conn.c */
struct h2_conn *h2_conn_open(struct ewyk_http2_server *s,
	const struct h2_io *io, void *io_arg);
int h2_conn_input(struct h2_conn *c, const uint8_t *p, size_t len);
void h2_conn_flush(struct h2_conn *c);
int h2_out_put(struct h2_conn *c, const uint8_t *p, size_t len);
ssize_t h2_cb_send(nghttp2_session *sess, const uint8_t *data, size_t len,
	int flags, void *user);
int h2_cb_send_data(nghttp2_session *sess, nghttp2_frame *frame,
	const uint8_t *framehd, size_t length, nghttp2_data_source *src,
	void *user);
void h2_conn_gone(struct h2_conn *c);
void h2_conn_unlinger(struct h2_conn *c, int how);
void h2_conn_kill(struct h2_conn *c, uint32_t code);
bool h2_bucket_take(struct h2_bucket *b, uint32_t burst, uint32_t rate,
	uint64_t now, uint64_t hz);

/* http2_stream.c */
int h2_callbacks_init(struct ewyk_http2_server *s);
struct ewyk_http2_stream *h2_stream_new(struct h2_conn *c, int32_t id);
void h2_stream_end(struct ewyk_http2_stream *st, int aborted);
int h2_stream_request(struct ewyk_http2_stream *st);
int h2_upgrade_request(struct h2_conn *c, const struct ewyk_http_request *q);

/* http2_body.c */
void h2_body_in(struct ewyk_http2_stream *st, uint32_t len);
void h2_body_end(struct ewyk_http2_stream *st);
void h2_body_release(struct ewyk_http2_stream *st, uint64_t n);
uint32_t h2_body_expire(struct h2_conn *c, uint64_t now);

/* http2_mem.c */

/* http2_stats.c */
void h2_stats_register(struct ewyk_http2_server *s);
void h2_stats_unregister(struct ewyk_http2_server *s);

#endif /* EWYK_HTTP2_PRIVATE_H */
