/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Streams: nghttp2's callbacks that turn frames into requests (the
 * header block gathered in the connection's header buffer, under the
 * header list and field limits), bodies into the reader's calls, and
 * closes into the owner's end-of-stream call (the responses the
 * application submits: http2_resp.c).
 *
 * One header block is read at a time per connection (RFC 9113 4.3: a
 * HEADERS frame and its CONTINUATIONs are contiguous), so one buffer per
 * connection holds it, and the request is handed on, its views into that
 * buffer, as soon as the block is complete.
 */

#include <errno.h>
#include <string.h>

#include <rte_cycles.h>

#include <ewyk_http_server.h>

#include "http2_private.h"

/* ---- stream objects ---- */

struct ewyk_http2_stream *
h2_stream_new(struct h2_conn *c, int32_t id)
{
	struct ewyk_http2_server *s = c->srv;
	struct ewyk_http2_stream *st;

	int tok = -1;

	if (s->st_free == H2_NONE)
		return NULL;
	if (c->st_src >= 0) {
		tok = ewyk_http_quota_take_source(s->q_streams, c->st_src);
		if (tok < 0) {
			H2_CTR(s, STREAM_SRC_REFUSED, 1);
			return NULL;
		}
	}
	st = &s->st[s->st_free];
	s->st_free = st->next_free;
	s->nst++;
	memset(st, 0, offsetof(struct ewyk_http2_stream, small));
	st->c = c;
	st->id = id;
	st->used = 1;
	st->content_length = -1;
	st->qtok = tok;
	st->next = c->streams;
	if (c->streams != NULL)
		c->streams->prev = st;
	c->streams = st;
	c->nstreams++;
	return st;
}

void
h2_stream_end(struct ewyk_http2_stream *st, int aborted)
{
	struct h2_conn *c = st->c;
	struct ewyk_http2_server *s = c->srv;
	ewyk_http2_done_fn fn = st->done;

	if (!st->used)
		return;
	/* nghttp2's stream keeps no pointer to ours (unless it closes it
	 * itself now: it forgets it then) */
	if (c->sess != NULL && !c->gone && !st->ngh_closing)
		nghttp2_session_set_stream_user_data(c->sess, st->id, NULL);
	if (c->lst == st)
		c->lst = NULL;
	if (c->dst == st)
		c->dst = NULL;
	if (st->responded && !st->resp_done)
		c->nresp--;
	if (aborted)
		H2_CTR(s, STREAM_ABORTED, 1);
	st->done = NULL;
	st->used = 0;
	if (fn != NULL)
		fn(st, aborted, st->done_arg);
	h2_body_end(st); /* its owner freed the body: the budget back */
	if (c->hst == st)
		c->hst = NULL;
	if (st->prev != NULL)
		st->prev->next = st->next;
	else
		c->streams = st->next;
	if (st->next != NULL)
		st->next->prev = st->prev;
	c->nstreams--;
	ewyk_http_quota_give_here(s->q_streams, st->qtok);
	st->qtok = -1;
	st->next_free = s->st_free;
	s->st_free = (uint32_t)(st - s->st);
	s->nst--;
}

/* The stream @p id of @p c: the one the connection last wrote the end
 * of a response for (its close follows), or nghttp2's map. A closed
 * stream's map entry is not cleared (nghttp2 frees closed streams when
 * it keeps no priority tree), so what the map gives is checked the same
 * way: a recycled stream object is not this one. */
static struct ewyk_http2_stream *
stream_of(struct h2_conn *c, int32_t id)
{
	struct ewyk_http2_stream *st = c->lst;

	if (st != NULL && st->id == id && st->used && st->c == c)
		return st;
	st = nghttp2_session_get_stream_user_data(c->sess, id);
	if (st != NULL && st->id == id && st->used && st->c == c)
		return st;
	return NULL;
}

/* ---- request bodies ---- */

int
ewyk_http2_read_body(struct ewyk_http2_stream *st, ewyk_http2_body_fn cb,
	void *arg)
{
	if (st == NULL || !st->used || cb == NULL)
		return -EINVAL;
	if (st->req_done)
		return -ENOENT;
	st->body_cb = cb;
	st->body_arg = arg;
	/* the body's clock starts here: a body that never sends its first
	 * DATA is as slow as one that stops (body_slow()) */
	st->body_last = rte_get_tsc_cycles();
	return 0;
}

int
ewyk_http2_read_body_stream(struct ewyk_http2_stream *st, ewyk_http2_body_fn cb,
	void *arg)
{
	int rc = ewyk_http2_read_body(st, cb, arg);

	if (rc == 0)
		st->body_stream = 1;
	return rc;
}

/* Send what a call from outside a receive pass left (WINDOW_UPDATE,
 * RST_STREAM); a pass flushes at its end. */
static void
stream_flush(struct ewyk_http2_stream *st)
{
	if (!st->c->in_recv)
		h2_conn_flush(st->c);
}

int
ewyk_http2_body_release(struct ewyk_http2_stream *st, uint64_t n)
{
	if (st == NULL || !st->used || !st->body_stream)
		return -EINVAL;
	h2_body_release(st, n);
	stream_flush(st);
	return 0;
}

int
ewyk_http2_body_stop(struct ewyk_http2_stream *st)
{
	struct h2_conn *c;

	if (st == NULL || !st->used)
		return -EINVAL;
	c = st->c;
	st->body_cb = NULL;
	if (st->body_stream)
		h2_body_release(st, st->body_granted + st->body_owed);
	if (st->resp_done && !st->req_done && c->sess != NULL && !c->gone)
		nghttp2_submit_rst_stream(c->sess, NGHTTP2_FLAG_NONE, st->id,
			NGHTTP2_NO_ERROR);
	stream_flush(st);
	return 0;
}

uint32_t
ewyk_http2_stream_window(const struct ewyk_http2_stream *st)
{
	return st != NULL ? st->c->srv->conf.initial_window : 0;
}

int
ewyk_http2_on_done(struct ewyk_http2_stream *st, ewyk_http2_done_fn fn,
	void *arg)
{
	if (st == NULL || !st->used)
		return -EINVAL;
	st->done = fn;
	st->done_arg = arg;
	return 0;
}

int32_t
ewyk_http2_stream_id(const struct ewyk_http2_stream *st)
{
	return st != NULL ? st->id : -1;
}

/* ---- requests ---- */

static int
method_id(struct ewyk_http_view m)
{
	unsigned int i;
	const char *n;

	for (i = 0; i < EWYK_HTTP_METHOD_MAX; i++) {
		n = ewyk_http_method_name(i);
		if (n != NULL && strlen(n) == m.len &&
			memcmp(n, m.p, m.len) == 0)
			return (int)i;
	}
	return -1;
}

/* The header block of @p st is complete: hand the request on. */
int
h2_stream_request(struct ewyk_http2_stream *st)
{
	struct h2_conn *c = st->c;
	struct ewyk_http2_server *s = c->srv;
	struct ewyk_http_request q;
	const char *qm;
	int m, rc;

	memset(&q, 0, sizeof(q));
	H2_CTR(s, REQUESTS, 1);
	if (st->too_large || st->too_many) {
		if (st->too_large)
			H2_CTR(s, HEADER_LIST_LARGE, 1);
		else
			H2_CTR(s, HEADER_FIELDS_MANY, 1);
		return ewyk_http2_respond(st, 431, "text/plain", NULL,
			"Request Header Fields Too Large\n", 32);
	}
	m = method_id(st->method);
	if (m < 0 || st->path.len == 0)
		return ewyk_http2_respond(st, 501, "text/plain", NULL,
			"Not Implemented\n", 16);
	q.method = st->method;
	q.method_id = (uint8_t)m;
	q.head = m == EWYK_HTTP_HEAD;
	q.target = st->path;
	q.path = st->path;
	qm = memchr(st->path.p, '?', st->path.len);
	if (qm != NULL)
		q.path.len = (uint32_t)(qm - st->path.p);
	q.host = st->authority;
	q.headers = c->hdrs;
	q.nheaders = c->nh;
	q.max_headers = s->conf.max_header_fields;
	q.version_minor = 1;
	q.keep_alive = 1;
	if (st->req_done) {
		q.framing = EWYK_HTTP_BODY_NONE;
	} else if (st->content_length >= 0) {
		q.framing = EWYK_HTTP_BODY_LENGTH;
		q.content_length = (uint64_t)st->content_length;
	} else {
		q.framing = EWYK_HTTP_BODY_CHUNKED;
	}
	st->head = q.head;
	st->in_request = 1;
	rc = s->conf.on_request(s->conf.on_request_arg, st, &q);
	st->in_request = 0;
	if (!st->used)
		return 0;
	if (rc < 0 && !st->responded)
		return ewyk_http2_respond(st, 503, "text/plain", NULL,
			"Service Unavailable\n", 20);
	return 0;
}

/* ---- nghttp2's callbacks ---- */

static int
cb_begin_headers(nghttp2_session *sess, const nghttp2_frame *f, void *user)
{
	struct h2_conn *c = user;
	struct ewyk_http2_stream *st;

	if (f->hd.type != NGHTTP2_HEADERS ||
		f->headers.cat != NGHTTP2_HCAT_REQUEST)
		return 0;
	c->hbytes = 0;
	c->nh = 0;
	H2_CTR(c->srv, STREAMS, 1);
	h2_closed_slide(c, f->hd.stream_id);
	st = h2_stream_new(c, f->hd.stream_id);
	c->hst = st;
	if (st == NULL) {
		H2_CTR(c->srv, STREAM_REFUSED, 1);
		nghttp2_submit_rst_stream(sess, NGHTTP2_FLAG_NONE,
			f->hd.stream_id, NGHTTP2_REFUSED_STREAM);
		return 0;
	}
	nghttp2_session_set_stream_user_data(sess, f->hd.stream_id, st);
	return 0;
}

/* Copy a string into the header buffer (the list limit bounds it). */
static struct ewyk_http_view
hput(struct h2_conn *c, const uint8_t *p, size_t len)
{
	struct ewyk_http_view v = { c->hbuf + c->hbytes, (uint32_t)len };

	memcpy(c->hbuf + c->hbytes, p, len);
	c->hbytes += (uint32_t)len;
	return v;
}

static int64_t
parse_len(const uint8_t *p, size_t n)
{
	int64_t v = 0;
	size_t i;

	if (n == 0 || n > 18)
		return -1;
	for (i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return -1;
		v = v * 10 + (p[i] - '0');
	}
	return v;
}

static int
cb_header(nghttp2_session *sess, const nghttp2_frame *f, const uint8_t *name,
	size_t nl, const uint8_t *value, size_t vl, uint8_t flags, void *user)
{
	struct h2_conn *c = user;
	const struct ewyk_http2_conf *cf = &c->srv->conf;
	struct ewyk_http2_stream *st;
	struct ewyk_http_header *h;

	RTE_SET_USED(flags);
	if (f->hd.type != NGHTTP2_HEADERS ||
		f->headers.cat != NGHTTP2_HCAT_REQUEST)
		return 0; /* trailers: not kept */
	st = c->hst;
	if (st == NULL || st->id != f->hd.stream_id)
		st = nghttp2_session_get_stream_user_data(sess,
			f->hd.stream_id);
	if (st == NULL || st->too_large || st->too_many)
		return 0; /* counted once, at the block's end */
	/* RFC 9113 6.5.2: each field counts its name, value and 32. The
	 * buffer takes only the strings; the list size bounds both. */
	if ((uint64_t)c->hbytes + nl + vl + 32 > cf->max_header_list) {
		st->too_large = 1;
		return 0;
	}
	if (nl > 0 && name[0] == ':') {
		if (nl == 7 && memcmp(name, ":method", 7) == 0)
			st->method = hput(c, value, vl);
		else if (nl == 5 && memcmp(name, ":path", 5) == 0)
			st->path = hput(c, value, vl);
		else if (nl == 10 && memcmp(name, ":authority", 10) == 0)
			st->authority = hput(c, value, vl);
		c->hbytes += (uint32_t)nl + 32; /* counted, not stored */
		return 0;
	}
	if (c->nh >= cf->max_header_fields) {
		st->too_many = 1;
		return 0;
	}
	if (nl == 14 && memcmp(name, "content-length", 14) == 0)
		st->content_length = parse_len(value, vl);
	h = &c->hdrs[c->nh++];
	h->name = hput(c, name, nl);
	h->value = hput(c, value, vl);
	c->hbytes += 32;
	if (nl == 4 && memcmp(name, "host", 4) == 0 && st->authority.len == 0)
		st->authority = h->value;
	return 0;
}

static int
cb_frame_recv(nghttp2_session *sess, const nghttp2_frame *f, void *user)
{
	struct h2_conn *c = user;
	struct ewyk_http2_stream *st;

	switch (f->hd.type) {
	case NGHTTP2_HEADERS:
		/* the block just read: its stream is at hand */
		st = c->hst;
		if (st == NULL || st->id != f->hd.stream_id)
			st = stream_of(c, f->hd.stream_id);
		if (st == NULL)
			return 0;
		if (f->hd.flags & NGHTTP2_FLAG_END_STREAM)
			st->req_done = 1;
		if (f->headers.cat == NGHTTP2_HCAT_REQUEST) {
			c->hst = NULL;
			h2_stream_request(st);
			c->hbytes = 0;
			c->nh = 0;
		} else if (st->req_done && st->body_cb != NULL) {
			st->body_cb(st, NULL, 0, 1, st->body_arg);
		}
		break;
	case NGHTTP2_DATA:
		st = stream_of(c, f->hd.stream_id);
		if (st != NULL && (f->hd.flags & NGHTTP2_FLAG_END_STREAM)) {
			st->req_done = 1;
			if (st->body_cb != NULL)
				st->body_cb(st, NULL, 0, 1, st->body_arg);
		}
		break;
	case NGHTTP2_RST_STREAM:
		H2_CTR(c->srv, RST_IN, 1);
		if (!h2_bucket_take(&c->rst, c->srv->conf.rst_burst,
			    c->srv->conf.rst_rate, rte_get_tsc_cycles(),
			    c->srv->hz)) {
			H2_CTR(c->srv, RAPID_RESET, 1);
			h2_conn_kill(c, NGHTTP2_ENHANCE_YOUR_CALM);
		}
		break;
	case NGHTTP2_GOAWAY:
		H2_CTR(c->srv, GOAWAY_IN, 1);
		break;
	default:
		break;
	}
	RTE_SET_USED(sess);
	return 0;
}

/* Frames that cost us work and carry nothing a request needs. */
static int
cb_begin_frame(nghttp2_session *sess, const nghttp2_frame_hd *hd, void *user)
{
	struct h2_conn *c = user;
	int cheap;

	RTE_SET_USED(sess);
	switch (hd->type) {
	case NGHTTP2_SETTINGS:
	case NGHTTP2_PING:
		cheap = !(hd->flags & NGHTTP2_FLAG_ACK);
		break;
	case NGHTTP2_PRIORITY:
		/* nghttp2 ignores PRIORITY (no RFC 7540 priorities) and
		 * with it this check of RFC 9113 6.3 */
		if (hd->stream_id == 0) {
			h2_conn_kill(c, NGHTTP2_PROTOCOL_ERROR);
			return 0;
		}
		cheap = 1;
		break;
	case NGHTTP2_DATA:
		cheap = hd->length == 0 &&
			!(hd->flags & NGHTTP2_FLAG_END_STREAM);
		break;
	case NGHTTP2_HEADERS:
	case NGHTTP2_CONTINUATION:
		cheap = hd->length == 0 &&
			!(hd->flags & NGHTTP2_FLAG_END_HEADERS);
		break;
	default:
		cheap = 0;
		break;
	}
	if (cheap &&
		!h2_bucket_take(&c->ctrl, c->srv->conf.ctrl_burst,
			c->srv->conf.ctrl_rate, rte_get_tsc_cycles(),
			c->srv->hz)) {
		if (!c->ending)
			H2_CTR(c->srv, CTRL_FLOOD, 1);
		h2_conn_kill(c, NGHTTP2_ENHANCE_YOUR_CALM);
	}
	return 0;
}

static int
cb_data(nghttp2_session *sess, uint8_t flags, int32_t id, const uint8_t *d,
	size_t len, void *user)
{
	struct h2_conn *c = user;
	struct ewyk_http2_stream *st = stream_of(c, id);
	int rc;

	RTE_SET_USED(flags);
	if (st == NULL || st->body_cb == NULL) {
		/* dropped, not held: the window is granted at once */
		(void)nghttp2_session_consume(sess, id, len);
		return 0;
	}
	/* a streamed body's bytes are held before its consumer sees them:
	 * it may release them at once */
	if (st->body_stream)
		h2_body_in(st, (uint32_t)len);
	rc = st->body_cb(st, (const char *)d, (uint32_t)len, 0, st->body_arg);
	if (rc != 0) {
		/* < 0: reset; 1: the rest is not kept (nor held) either. A
		 * streamed body gives back what it held, the windows reopen. */
		st->body_cb = NULL;
		if (st->body_stream)
			h2_body_release(st, st->body_granted + st->body_owed);
		else
			(void)nghttp2_session_consume(sess, id, len);
		if (rc < 0)
			nghttp2_submit_rst_stream(sess, NGHTTP2_FLAG_NONE, id,
				NGHTTP2_CANCEL);
		else if (st->resp_done && !st->req_done)
			nghttp2_submit_rst_stream(sess, NGHTTP2_FLAG_NONE, id,
				NGHTTP2_NO_ERROR);
		return 0;
	}
	if (st->body_stream)
		return 0;
	/* held by the consumer: granted within the body budget */
	h2_body_in(st, (uint32_t)len);
	return 0;
}

static int
cb_frame_send(nghttp2_session *sess, const nghttp2_frame *f, void *user)
{
	struct h2_conn *c = user;
	struct ewyk_http2_stream *st;

	if (f->hd.type == NGHTTP2_RST_STREAM)
		H2_CTR(c->srv, RST_OUT, 1);
	/* nghttp2's own connection errors (frames on idle or closed
	 * streams, window overflow, no SETTINGS first, ...) */
	if (f->hd.type == NGHTTP2_GOAWAY &&
		f->goaway.error_code != NGHTTP2_NO_ERROR &&
		f->goaway.error_code != NGHTTP2_ENHANCE_YOUR_CALM)
		H2_CTR(c->srv, PROTO_ERROR, 1);
	if ((f->hd.type != NGHTTP2_DATA && f->hd.type != NGHTTP2_HEADERS) ||
		!(f->hd.flags & NGHTTP2_FLAG_END_STREAM))
		return 0;
	/* send_data() just wrote this DATA frame: its stream is at hand */
	st = f->hd.type == NGHTTP2_DATA ? c->dst : NULL;
	if (st == NULL || st->id != f->hd.stream_id || !st->used || st->c != c)
		st = nghttp2_session_get_stream_user_data(sess,
			f->hd.stream_id);
	if (st != NULL && st->responded && !st->resp_done) {
		c->lst = st; /* its close is next */
		st->resp_done = 1;
		c->nresp--;
		/* the peer may still be sending a body nobody waits for */
		if (!st->req_done && st->body_cb == NULL)
			nghttp2_submit_rst_stream(sess, NGHTTP2_FLAG_NONE,
				st->id, NGHTTP2_NO_ERROR);
	}
	return 0;
}

static int
cb_stream_close(nghttp2_session *sess, int32_t id, uint32_t code, void *user)
{
	struct h2_conn *c = user;
	struct ewyk_http2_stream *st = stream_of(c, id);

	RTE_SET_USED(sess);
	if (st != NULL) {
		if (st->req_done)
			h2_closed_mark(c, id);
		st->ngh_closing = 1;
		h2_stream_end(st, !(st->resp_done && code == NGHTTP2_NO_ERROR));
	}
	return 0;
}

int
h2_callbacks_init(struct ewyk_http2_server *s)
{
	nghttp2_session_callbacks *cb;

	if (nghttp2_session_callbacks_new(&cb) != 0)
		return -ENOMEM;
	nghttp2_session_callbacks_set_send_callback(cb, h2_cb_send);
	nghttp2_session_callbacks_set_send_data_callback(cb, h2_cb_send_data);
	nghttp2_session_callbacks_set_on_begin_headers_callback(cb,
		cb_begin_headers);
	nghttp2_session_callbacks_set_on_header_callback(cb, cb_header);
	nghttp2_session_callbacks_set_on_frame_recv_callback(cb, cb_frame_recv);
	nghttp2_session_callbacks_set_on_begin_frame_callback(cb,
		cb_begin_frame);
	nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, cb_data);
	nghttp2_session_callbacks_set_on_frame_send_callback(cb, cb_frame_send);
	nghttp2_session_callbacks_set_on_stream_close_callback(cb,
		cb_stream_close);
	s->cbs = cb;
	return 0;
}
