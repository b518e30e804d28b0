/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * HTTP/2 connections: the nghttp2 session of each, fed with the bytes
 * TCP delivers and drained into mbufs as far as TCP's send space goes;
 * the idle and write timeouts on one timer per connection; the token
 * buckets of the flood defences.
 *
 * Output: nghttp2_session_send() calls send() for frame bytes it owns
 * (headers, control frames), copied into the tail of the chain being
 * built, and send_data() for a DATA frame we provide with
 * NGHTTP2_DATA_FLAG_NO_COPY: its 9-byte header and its payload go into
 * the same chain, the payload written by the stream's producer (or
 * copied from the stream's small body) straight into the mbufs, never
 * through nghttp2's buffer. What one flush round builds leaves in one
 * TCP send. Both stop
 * (NGHTTP2_ERR_WOULDBLOCK) once TCP could not take more, and writable()
 * resumes them, so a peer that does not read pins at most TCP's send
 * buffer.
 */

#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include <ewyk_http_server.h>
#include <ewyk_tcp.h>

#include "http2_config.h"
#include "http2_private.h"

RTE_LOG_REGISTER(ewyk_http2_logtype, ewyk.http2, INFO);

static void linger_cb(struct ewyk_twheel *w, struct ewyk_twheel_timer *t,
	void *arg);

bool
h2_bucket_take(struct h2_bucket *b, uint32_t burst, uint32_t rate, uint64_t now,
	uint64_t hz)
{
	uint64_t el, add;

	if (b->last == 0) {
		b->tokens = burst;
		b->last = now;
	}
	el = RTE_MIN(now - b->last, hz * 60);
	add = el * rate / hz;
	if (add > 0) {
		b->tokens = RTE_MIN((uint64_t)burst, b->tokens + add);
		b->last = now;
	}
	if (b->tokens == 0)
		return false;
	b->tokens--;
	return true;
}

/* ---- output ---- */

/* Append bytes to the chain being built. 0, or -ENOMEM. */
int
h2_out_put(struct h2_conn *c, const uint8_t *p, size_t len)
{
	struct rte_mbuf *m;
	size_t n;

	while (len > 0) {
		m = c->out_tail;
		if (m == NULL || rte_pktmbuf_tailroom(m) == 0) {
			m = rte_pktmbuf_alloc(c->srv->conf.pool);
			if (m == NULL)
				return -ENOMEM;
			if (c->out == NULL) {
				c->out = m;
			} else {
				c->out_tail->next = m;
				c->out->nb_segs++;
			}
			c->out_tail = m;
		}
		n = RTE_MIN(len, (size_t)rte_pktmbuf_tailroom(m));
		memcpy(rte_pktmbuf_mtod_offset(m, char *, m->data_len), p, n);
		m->data_len += (uint16_t)n;
		c->out->pkt_len += (uint32_t)n;
		p += n;
		len -= n;
	}
	return 0;
}

ssize_t
h2_cb_send(nghttp2_session *sess, const uint8_t *data, size_t len, int flags,
	void *user)
{
	struct h2_conn *c = user;
	size_t n = RTE_MIN(len, (size_t)c->budget);

	RTE_SET_USED(sess);
	RTE_SET_USED(flags);
	if (n == 0)
		return NGHTTP2_ERR_WOULDBLOCK;
	if (h2_out_put(c, data, n) != 0)
		return NGHTTP2_ERR_CALLBACK_FAILURE;
	c->budget -= (uint32_t)n;
	return (ssize_t)n;
}

/* Cut the chain being built back to @p tail holding @p tail_len bytes
 * (NULL: to nothing), @p pkt_len and @p segs in all. */
static void
out_cut(struct h2_conn *c, struct rte_mbuf *tail, uint16_t tail_len,
	uint32_t pkt_len, uint16_t segs)
{
	struct rte_mbuf *m, *nx;

	if (tail == NULL) {
		rte_pktmbuf_free(c->out);
		c->out = c->out_tail = NULL;
		return;
	}
	for (m = tail->next; m != NULL; m = nx) {
		nx = m->next;
		m->next = NULL;
		rte_pktmbuf_free_seg(m);
	}
	tail->next = NULL;
	tail->data_len = tail_len;
	c->out->pkt_len = pkt_len;
	c->out->nb_segs = segs;
	c->out_tail = tail;
}

/*
 * A DATA frame (NGHTTP2_DATA_FLAG_NO_COPY): its 9-byte header and its
 * payload go straight into the chain being built, behind the frames
 * before it in the same mbuf while it has room: a small body (the
 * stream's copy) is copied once, from the stream into the mbuf; a
 * producer writes its bytes in place. One chain, one TCP send, for
 * every frame of a flush.
 */
int
h2_cb_send_data(nghttp2_session *sess, nghttp2_frame *frame,
	const uint8_t *framehd, size_t length, nghttp2_data_source *src,
	void *user)
{
	struct h2_conn *c = user;
	struct ewyk_http2_stream *st = src->ptr;
	struct rte_mbuf *tail = c->out_tail, *m;
	uint16_t tail_len = tail != NULL ? tail->data_len : 0;
	uint32_t pkt_len = c->out != NULL ? c->out->pkt_len : 0;
	uint16_t segs = c->out != NULL ? c->out->nb_segs : 0;
	uint64_t off0 = st->off;
	size_t left = length;
	uint32_t cap;
	int n;

	RTE_SET_USED(sess);
	if (frame->data.padlen != 0 || 9 + length > c->budget)
		return NGHTTP2_ERR_WOULDBLOCK;
	if (h2_out_put(c, framehd, 9) != 0)
		goto fail;
	while (left > 0) {
		m = c->out_tail;
		if (rte_pktmbuf_tailroom(m) == 0) {
			m = rte_pktmbuf_alloc(c->srv->conf.pool);
			if (m == NULL)
				goto fail;
			c->out_tail->next = m;
			c->out->nb_segs++;
			c->out_tail = m;
		}
		cap = (uint32_t)RTE_MIN(left, (size_t)rte_pktmbuf_tailroom(m));
		if (st->prod == NULL) {
			/* the small body: off + cap <= small_len (read_known
			 * gave no more than it holds) */
			memcpy(rte_pktmbuf_mtod_offset(m, char *, m->data_len),
				st->small + st->off, cap);
			n = (int)cap;
		} else {
			n = st->prod(st,
				rte_pktmbuf_mtod_offset(m, char *, m->data_len),
				cap, st->off, st->prod_arg);
			if (n <= 0 || (uint32_t)n > cap)
				goto fail;
		}
		m->data_len += (uint16_t)n;
		c->out->pkt_len += (uint32_t)n;
		st->off += (uint32_t)n;
		left -= (size_t)n;
	}
	c->budget -= (uint32_t)(9 + length);
	c->dst = st;
	return 0;
fail:
	/* nothing of this frame stays in the chain */
	out_cut(c, tail, tail_len, pkt_len, segs);
	st->off = off0;
	return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
}

/* End the connection: gracefully once nghttp2 is done with it. */
static void
conn_end(struct h2_conn *c, int graceful)
{
	if (c->gone)
		return;
	c->gone = 1;
	if (graceful && c->io->linger && !c->eof) {
		c->lingering = 1;
		c->io->end(c->io_arg, 2);
	} else {
		c->io->end(c->io_arg, graceful);
	}
	h2_conn_gone(c);
}

/*
 * A DATA frame and its header: the least we let nghttp2 write. With less
 * room in TCP than that, the chain made goes over TCP's room: TCP
 * refuses it, keeps nothing, and that refusal is what brings the
 * writable event (it takes any chain into an empty send queue).
 */
#define H2_MIN_SEND (16384 + 9)

void
h2_conn_flush(struct h2_conn *c)
{
	unsigned int round;
	uint32_t space;
	int rc = 0;

	if (c->gone || c->in_send || c->in_recv)
		return;
	for (round = 0; round < 16; round++) {
		if (c->tx != NULL) {
			if (c->io->send(c->io_arg, c->tx) != 0)
				return; /* writable() comes back */
			c->tx = NULL;
		}
		space = c->io->space(c->io_arg);
		c->budget = RTE_MAX(space, (uint32_t)H2_MIN_SEND);
		c->in_send = 1;
		rc = nghttp2_session_send(c->sess);
		c->in_send = 0;
		if (c->gone) {
			h2_conn_gone(c);
			return;
		}
		if (c->out != NULL) {
			H2_CTR(c->srv, BYTES_OUT, c->out->pkt_len);
			c->last_tx = rte_get_tsc_cycles();
			if (c->io->send(c->io_arg, c->out) != 0)
				c->tx = c->out; /* over TCP's room: retried */
			c->out = c->out_tail = NULL;
		} else {
			break; /* nothing to write, or flow control holds it */
		}
		if (rc != 0 || c->tx != NULL ||
			!nghttp2_session_want_write(c->sess))
			break;
	}
	if (rc != 0) {
		H2_LOG(DEBUG, "send: %s", nghttp2_strerror(rc));
		conn_end(c, 0);
		return;
	}
	if (c->tx == NULL &&
		((!nghttp2_session_want_read(c->sess) &&
			 !nghttp2_session_want_write(c->sess)) ||
			(c->eof && c->nstreams == 0)))
		conn_end(c, 1); /* GOAWAY exchanged, the peer gone, or done */
}

/* GOAWAY with @p code, then the end. */
void
h2_conn_kill(struct h2_conn *c, uint32_t code)
{
	if (c->ending)
		return;
	c->ending = 1;
	nghttp2_session_terminate_session(c->sess, code);
}

/*
 * After an error nghttp2 calls fatal (its session is unusable) the
 * GOAWAY is ours to write: a fixed 17-byte frame, last stream id and
 * code.
 */
static void
goaway_raw(struct h2_conn *c, uint32_t code)
{
	uint32_t last = (uint32_t)nghttp2_session_get_last_proc_stream_id(
		c->sess);
	uint8_t f[17] = { 0, 0, 8, NGHTTP2_GOAWAY, 0, 0, 0, 0, 0 };

	f[9] = (uint8_t)(last >> 24) & 0x7f;
	f[10] = (uint8_t)(last >> 16);
	f[11] = (uint8_t)(last >> 8);
	f[12] = (uint8_t)last;
	f[13] = (uint8_t)(code >> 24);
	f[14] = (uint8_t)(code >> 16);
	f[15] = (uint8_t)(code >> 8);
	f[16] = (uint8_t)code;
	if (c->tx == NULL && c->io->space(c->io_arg) >= sizeof(f) &&
		h2_out_put(c, f, sizeof(f)) == 0) {
		H2_CTR(c->srv, BYTES_OUT, sizeof(f));
		if (c->io->send(c->io_arg, c->out) != 0)
			rte_pktmbuf_free(c->out);
		c->out = c->out_tail = NULL;
	}
}

/* The session's verdict on bytes it could not take. */
static void
input_error(struct h2_conn *c, ssize_t rc)
{
	struct ewyk_http2_server *s = c->srv;
	uint32_t code = NGHTTP2_INTERNAL_ERROR;

	switch (rc) {
	case NGHTTP2_ERR_FLOODED:
		H2_CTR(s, NGH_FLOOD, 1);
		code = NGHTTP2_ENHANCE_YOUR_CALM;
		break;
#ifdef EWYK_HAVE_NGHTTP2_MAX_CONTINUATIONS /* the same backport */
	case NGHTTP2_ERR_TOO_MANY_CONTINUATIONS:
		H2_CTR(s, CONT_FLOOD, 1);
		code = NGHTTP2_ENHANCE_YOUR_CALM;
		break;
#endif
	case NGHTTP2_ERR_BAD_CLIENT_MAGIC:
		H2_CTR(s, BAD_PREFACE, 1);
		H2_CTR(s, PROTO_ERROR, 1);
		code = NGHTTP2_PROTOCOL_ERROR;
		break;
	default:
		H2_CTR(s, PROTO_ERROR, 1);
		break;
	}
	H2_LOG(DEBUG, "recv: %s", nghttp2_strerror((int)rc));
	c->in_recv = 0;
	if (nghttp2_is_fatal((int)rc)) {
		goaway_raw(c, code);
		conn_end(c, 1);
		return;
	}
	/* what the session queued (its GOAWAY) still goes */
	h2_conn_flush(c);
	conn_end(c, 0);
}

/* ---- closed streams ---- */

/* A new client stream, @p idx its index (id >> 1): the window of
 * remembered closes moves up to it, what falls out is forgotten (frames
 * on those are ignored, as nghttp2 ignores them on the closed streams
 * it no longer keeps). */
void
h2_closed_slide_far(struct h2_conn *c, uint32_t idx)
{
	uint32_t k;

	if (idx - c->closed_hi >= H2_CLOSED_WIN) {
		memset(c->closed, 0, sizeof(c->closed));
	} else {
		for (k = c->closed_hi + 1; k <= idx; k++)
			c->closed[k / 64 % H2_CLOSED_WORDS] &= ~(
				1ull << (k % 64));
	}
	c->closed_hi = idx;
}

/*
 * Follow the frame heads of @p len input bytes (nghttp2 parses the
 * frames; this only reads their 9-byte heads): the bytes up to the end
 * of the head of a DATA or HEADERS frame on a stream that closed after
 * the peer's END_STREAM (@p hit set), or all of them.
 */
static size_t
frames_scan(struct h2_conn *c, const uint8_t *p, size_t len, bool *hit)
{
	const uint8_t *h;
	size_t off = 0, n;
	uint32_t id;

	if (c->fhn > 0) {
		/* a head split between two segments */
		n = RTE_MIN((size_t)(9 - c->fhn), len);
		memcpy(c->fhd + c->fhn, p, n);
		c->fhn += (uint8_t)n;
		if (c->fhn < 9)
			return len;
		c->fhn = 0;
		off = n;
		h = c->fhd;
		goto head;
	}
	for (;;) {
		if (c->fskip >= len - off) {
			c->fskip -= (uint32_t)(len - off);
			return len;
		}
		off += c->fskip;
		if (len - off < 9) {
			c->fskip = 0;
			c->fhn = (uint8_t)(len - off);
			memcpy(c->fhd, p + off, c->fhn);
			return len;
		}
		h = p + off;
		off += 9;
	head:
		c->fskip = (uint32_t)h[0] << 16 | (uint32_t)h[1] << 8 | h[2];
		if (h[3] > NGHTTP2_HEADERS)
			continue;
		memcpy(&id, h + 5, 4);
		if (h2_closed_ended(c, rte_be_to_cpu_32(id) & 0x7fffffff)) {
			*hit = true;
			return off;
		}
	}
}

/* Bytes in. 0, or -ECONNRESET: the connection ended. */
int
h2_conn_input(struct h2_conn *c, const uint8_t *p, size_t len)
{
	ssize_t rc = 0;
	size_t n;
	bool hit = false;

	if (c->gone)
		return -ECONNRESET;
	H2_CTR(c->srv, BYTES_IN, len);
	c->last_rx = rte_get_tsc_cycles();
	c->in_recv = 1;
	if (c->up_st != NULL) {
		/* the upgraded request, before any other header block */
		struct ewyk_http2_stream *st = c->up_st;

		c->up_st = NULL;
		h2_stream_request(st);
		c->hbytes = 0;
		c->nh = 0;
	}
	while (len > 0 && rc >= 0 && !c->gone) {
		n = c->ending ? len : frames_scan(c, p, len, &hit);
		rc = nghttp2_session_mem_recv(c->sess, p, n);
		p += n;
		len -= n;
		if (!c->ending && hit && rc >= 0 && !c->gone) {
			/* frames after the peer's END_STREAM (RFC 9113 5.1) */
			h2_conn_kill(c, NGHTTP2_STREAM_CLOSED);
		}
	}
	c->in_recv = 0;
	if (c->gone) {
		h2_conn_gone(c);
		return -ECONNRESET;
	}
	if (rc < 0) {
		input_error(c, rc);
		return -ECONNRESET;
	}
	return 0;
}

/* ---- timeouts ---- */

static void
tmo_arm(struct h2_conn *c, uint64_t now)
{
	const struct ewyk_http2_conf *cf = &c->srv->conf;
	uint32_t ms = RTE_MIN(RTE_MIN(cf->idle_timeout_ms,
				      cf->write_timeout_ms),
		cf->body_timeout_ms);

	ewyk_twheel_rearm(cf->wheel, &c->tmr, now + c->srv->hz / 1000 * ms);
}

static void
tmo_cb(struct ewyk_twheel *w, struct ewyk_twheel_timer *t, void *arg)
{
	struct h2_conn *c = arg;
	const struct ewyk_http2_conf *cf = &c->srv->conf;
	uint64_t now = rte_get_tsc_cycles(), ms = c->srv->hz / 1000;

	RTE_SET_USED(w);
	RTE_SET_USED(t);
	if (!c->used || c->gone)
		return;
	if ((c->nresp > 0 || c->tx != NULL) &&
		now - c->last_tx >= ms * cf->write_timeout_ms) {
		H2_CTR(c->srv, TIMEOUT_WRITE, 1);
		conn_end(c, 0);
		return;
	}
	if (c->nstreams > 0 && h2_body_expire(c, now) > 0)
		h2_conn_flush(c); /* their RST_STREAMs */
	if (c->gone)
		return;
	if (c->nstreams == 0 &&
		now - RTE_MAX(c->last_tx, c->last_rx) >=
			ms * cf->idle_timeout_ms) {
		H2_CTR(c->srv, TIMEOUT_IDLE, 1);
		h2_conn_kill(c, NGHTTP2_NO_ERROR);
		h2_conn_flush(c);
		if (c->gone)
			return;
	}
	tmo_arm(c, now);
}

/* ---- objects ---- */

struct h2_conn *
h2_conn_open(struct ewyk_http2_server *s, const struct h2_io *io, void *io_arg)
{
	const struct ewyk_http2_conf *cf = &s->conf;
	nghttp2_settings_entry iv[5];
	struct ewyk_tcp_conn_info ti;
	int tok = -1, st_src = -1;
	struct h2_conn *c;
	uint64_t now;
	uint32_t i;

	if (s->conn_free == H2_NONE) {
		H2_CTR(s, CONN_REFUSED, 1);
		return NULL;
	}
	/* the peer's shares: its connections here, its streams later */
	if (io->peer != NULL && io->peer(io_arg, &ti) == 0) {
		tok = ewyk_http_quota_take_source(s->q_conns,
			ewyk_http_quota_source(s->q_conns, &ti));
		if (tok < 0) {
			H2_CTR(s, CONN_SRC_REFUSED, 1);
			return NULL;
		}
		st_src = ewyk_http_quota_source(s->q_streams, &ti);
	}
	i = s->conn_free;
	c = &s->conns[i];
	c->has_peer = tok >= 0 && ewyk_http_peer_from_info(&ti, &c->peer) == 0;
	c->src_q[0] = c->src_q[1] = NULL;
	c->src_next = 0;
	if (nghttp2_session_server_new3(&c->sess, s->cbs, c, s->opt,
		    H2_SESSION_MEM(s)) != 0) {
		ewyk_http_quota_give_here(s->q_conns, tok);
		return NULL;
	}
	iv[0] = (nghttp2_settings_entry){
		NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS,
		cf->max_concurrent_streams
	};
	iv[1] = (nghttp2_settings_entry){ NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE,
		cf->initial_window };
	iv[2] = (nghttp2_settings_entry){ NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE,
		cf->max_header_list };
	iv[3] = (nghttp2_settings_entry){ NGHTTP2_SETTINGS_ENABLE_PUSH, 0 };
	/* RFC 9218: no RFC 7540 priority tree. nghttp2 then schedules by
	 * urgency (all the same: round robin), frees a stream as it closes
	 * instead of keeping it in the tree, and ignores PRIORITY frames
	 * (still counted as control frames: cb_begin_frame()) */
	iv[4] = (nghttp2_settings_entry){
		NGHTTP2_SETTINGS_NO_RFC7540_PRIORITIES, 1
	};
	if (nghttp2_submit_settings(c->sess, NGHTTP2_FLAG_NONE, iv, 5) != 0) {
		nghttp2_session_del(c->sess);
		c->sess = NULL;
		ewyk_http_quota_give_here(s->q_conns, tok);
		return NULL;
	}
	/* the connection's window too, beyond the 65,535 of the RFC */
	nghttp2_session_set_local_window_size(c->sess, NGHTTP2_FLAG_NONE, 0,
		(int32_t)cf->initial_window);
	s->conn_free = c->next_free;
	s->nconns++;
	c->io = io;
	c->io_arg = io_arg;
	c->out = c->out_tail = c->tx = NULL;
	c->streams = NULL;
	c->nstreams = c->nresp = 0;
	c->hbytes = 0;
	c->hst = c->dst = c->lst = NULL;
	memset(c->closed, 0, sizeof(c->closed));
	c->closed_hi = 0;
	c->fskip = EWYK_HTTP2_PREFACE_LEN; /* the client's magic first */
	c->fhn = 0;
	c->nh = 0;
	c->used = 1;
	c->in_recv = c->in_send = c->eof = c->ending = c->gone = 0;
	c->lingering = 0;
	c->up_st = NULL;
	c->qtok = tok;
	c->st_src = st_src;
	memset(&c->rst, 0, sizeof(c->rst));
	memset(&c->ctrl, 0, sizeof(c->ctrl));
	now = rte_get_tsc_cycles();
	c->last_rx = c->last_tx = now;
	ewyk_twheel_timer_init(&c->tmr);
	ewyk_twheel_arm(cf->wheel, &c->tmr,
		now +
			s->hz / 1000 *
				RTE_MIN(RTE_MIN(cf->idle_timeout_ms,
						cf->write_timeout_ms),
					cf->body_timeout_ms),
		tmo_cb, c);
	return c;
}

/* Lingered long enough: close (what comes next is reset). */
static void
linger_cb(struct ewyk_twheel *w, struct ewyk_twheel_timer *t, void *arg)
{
	struct h2_conn *c = arg;

	RTE_SET_USED(w);
	RTE_SET_USED(t);
	h2_conn_unlinger(c, 1);
}

/* End a lingering connection: close (1) or reset (0) it, or nothing
 * (-1: the transport is gone), and free the object. */
void
h2_conn_unlinger(struct h2_conn *c, int how)
{
	if (!c->lingering)
		return;
	c->lingering = 0;
	if (how >= 0)
		c->io->end(c->io_arg, how);
	h2_conn_gone(c);
}

/* The transport is gone (or let go of): every stream ends, aborted. */
void
h2_conn_gone(struct h2_conn *c)
{
	struct ewyk_http2_server *s = c->srv;

	if (!c->used)
		return;
	c->gone = 1;
	c->up_st = NULL;
	while (c->streams != NULL)
		h2_stream_end(c->streams, 1);
	ewyk_twheel_cancel(s->conf.wheel, &c->tmr);
	rte_pktmbuf_free(c->tx);
	c->tx = NULL;
	if (c->in_recv || c->in_send)
		return; /* the session is freed when its call returns */
	rte_pktmbuf_free(c->out);
	c->out = c->out_tail = NULL;
	if (c->sess != NULL)
		nghttp2_session_del(c->sess);
	c->sess = NULL;
	if (c->lingering) {
		/* the object waits for the peer's FIN, or the timer */
		ewyk_twheel_arm(s->conf.wheel, &c->tmr,
			rte_get_tsc_cycles() + s->hz / 1000 * H2_LINGER_MS,
			linger_cb, c);
		return;
	}
	c->used = 0;
	ewyk_http_quota_give_here(s->q_conns, c->qtok);
	c->qtok = -1;
	H2_CTR(s, CONN_CLOSED, 1);
	c->next_free = s->conn_free;
	s->conn_free = (uint32_t)(c - s->conns);
	s->nconns--;
}

int
ewyk_http2_stream_peer(const struct ewyk_http2_stream *st,
	struct ewyk_http_peer *p)
{
	if (st == NULL || p == NULL || !st->used)
		return -EINVAL;
	if (!st->c->has_peer) {
		memset(p, 0, sizeof(*p));
		return -ENOTCONN;
	}
	*p = st->c->peer;
	return 0;
}

int
ewyk_http2_stream_source(struct ewyk_http2_stream *st,
	const struct ewyk_http_quota *q)
{
	struct h2_conn *c;
	struct ewyk_tcp_conn_info ti;
	unsigned int i;
	int src;

	if (st == NULL || q == NULL || !st->used)
		return -EINVAL;
	c = st->c;
	if (!c->has_peer)
		return -ENOTCONN;
	for (i = 0; i < RTE_DIM(c->src_q); i++)
		if (c->src_q[i] == q)
			return c->src_v[i];
	if (c->io->peer == NULL || c->io->peer(c->io_arg, &ti) != 0)
		return -ENOTCONN;
	src = ewyk_http_quota_source(q, &ti);
	if (src < 0)
		return src;
	i = c->src_next;
	c->src_next = (uint8_t)((i + 1) % RTE_DIM(c->src_q));
	c->src_q[i] = q;
	c->src_v[i] = src;
	return src;
}
