/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ewyk-loadgen's HTTP/2 connections (app/loadgen/h2.c) against a real
 * peer: an nghttp2 server session in the same process, bytes pumped
 * between the two in memory. Checked: no stream before the server's
 * SETTINGS and never more than min(--streams, the server's limit) open;
 * every stream comes to exactly one outcome with its start time (2xx,
 * status, framing for a body shorter than its content-length, rst_stream,
 * goaway for the streams above a GOAWAY's last id); bodies larger than
 * the stream window arrive whole (the client's WINDOW_UPDATEs); output
 * refused by the transport is offered again, nothing lost; garbage from
 * the server ends the session without a crash, and random frames after
 * a handshake never give a stream two outcomes.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../app/loadgen/h2.h"
#include "../../app/loadgen/loadgen.h"

#define WIRE_MAX (64u << 20)
#define MAX_OUT 64

/* How the server answers a request (by its order on the connection). */
enum answer {
	ANS_OK = 0, /* 200, content-length and that many bytes */
	ANS_404,    /* 404, same */
	ANS_SHORT,  /* 200, content-length: body_len + 5, body_len bytes */
	ANS_RST,    /* RST_STREAM INTERNAL_ERROR */
	ANS_HOLD,   /* nothing (yet) */
	ANS_GOAWAY, /* GOAWAY, last stream id = the last answered */
};

struct world {
	struct lg_h2_conf conf;
	struct lg_h2 *c;
	nghttp2_session *srv;
	/* client -> server, server -> client */
	uint8_t *up, *down;
	size_t up_len, down_len;
	size_t out_budget; /* bytes out() takes per call; 0: all */
	unsigned int out_refused;
	/* The server's view. */
	enum answer plan[64];
	unsigned int nreq;
	unsigned int open_now, open_max; /* streams open at the server */
	int32_t last_answered;
	size_t body_len;
	size_t left[1024]; /* BODIES */
	/* Outcomes. */
	unsigned int outcomes[LG_ERR_MAX + 1]; /* [LG_ERR_MAX]: LG_H2_OK */
	uint64_t t0_sum;
	unsigned int nout;
};

static struct world W;

static size_t
w_out(void *owner, const uint8_t *p, size_t n)
{
	struct world *w = owner;

	if (w->out_budget != 0 && n > w->out_budget) {
		if (w->out_refused++ % 2 == 0)
			return 0; /* would block, then a part */
		n = w->out_budget;
	}
	assert_true(w->up_len + n <= WIRE_MAX);
	memcpy(w->up + w->up_len, p, n);
	w->up_len += n;
	return n;
}

static void
w_done(void *owner, uint64_t t0, int outcome)
{
	struct world *w = owner;

	w->outcomes[outcome == LG_H2_OK ? LG_ERR_MAX : (unsigned int)outcome]++;
	w->t0_sum += t0;
	w->nout++;
}

/* The server's bodies: bytes of 'x' left per stream (fewer than
 * BODIES streams are open at once, their ids consecutive). */
#define BODIES 1024

static size_t *
body_left(struct world *w, int32_t id)
{
	return &w->left[((uint32_t)id >> 1) % BODIES];
}

static ssize_t
srv_read(nghttp2_session *s, int32_t id, uint8_t *buf, size_t len,
	uint32_t *flags, nghttp2_data_source *src, void *arg)
{
	size_t *left = body_left(arg, id);
	size_t n = len < *left ? len : *left;

	(void)s;
	(void)src;
	memset(buf, 'x', n);
	*left -= n;
	if (*left == 0)
		*flags |= NGHTTP2_DATA_FLAG_EOF;
	return (ssize_t)n;
}

static void
srv_answer(struct world *w, int32_t id, int status, size_t clen, size_t len)
{
	char st[8], cl[24];
	nghttp2_nv nv[2] = {
		{ (uint8_t *)":status", (uint8_t *)st, 7, 0, 0 },
		{ (uint8_t *)"content-length", (uint8_t *)cl, 14, 0, 0 },
	};
	nghttp2_data_provider dp = { .read_callback = srv_read };

	*body_left(w, id) = len;
	nv[0].valuelen = (size_t)snprintf(st, sizeof(st), "%d", status);
	nv[1].valuelen = (size_t)snprintf(cl, sizeof(cl), "%zu", clen);
	if (len == 0) {
		assert_int_equal(nghttp2_submit_response(w->srv, id, nv, 2,
					 NULL),
			0);
	} else {
		assert_int_equal(nghttp2_submit_response(w->srv, id, nv, 2,
					 &dp),
			0);
	}
	w->last_answered = id;
}

static int
srv_frame(nghttp2_session *s, const nghttp2_frame *f, void *arg)
{
	struct world *w = arg;
	enum answer a;

	(void)s;
	if (f->hd.type != NGHTTP2_HEADERS ||
		f->headers.cat != NGHTTP2_HCAT_REQUEST)
		return 0;
	w->open_now++;
	if (w->open_now > w->open_max)
		w->open_max = w->open_now;
	a = w->plan[w->nreq < 64 ? w->nreq : 63];
	w->nreq++;
	switch (a) {
	case ANS_OK:
		srv_answer(w, f->hd.stream_id, 200, w->body_len, w->body_len);
		break;
	case ANS_404:
		srv_answer(w, f->hd.stream_id, 404, w->body_len, w->body_len);
		break;
	case ANS_SHORT:
		srv_answer(w, f->hd.stream_id, 200, w->body_len + 5,
			w->body_len);
		break;
	case ANS_RST:
		nghttp2_submit_rst_stream(w->srv, NGHTTP2_FLAG_NONE,
			f->hd.stream_id, NGHTTP2_INTERNAL_ERROR);
		break;
	case ANS_GOAWAY:
		nghttp2_submit_goaway(w->srv, NGHTTP2_FLAG_NONE,
			w->last_answered, NGHTTP2_NO_ERROR, NULL, 0);
		break;
	case ANS_HOLD:
		break;
	}
	return 0;
}

static int
srv_close(nghttp2_session *s, int32_t id, uint32_t code, void *arg)
{
	struct world *w = arg;

	(void)s;
	(void)id;
	(void)code;
	w->open_now--;
	return 0;
}

static void
srv_new(struct world *w, uint32_t max_streams)
{
	nghttp2_session_callbacks *cb;
	nghttp2_settings_entry iv = { NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS,
		max_streams };

	assert_int_equal(nghttp2_session_callbacks_new(&cb), 0);
	nghttp2_session_callbacks_set_on_frame_recv_callback(cb, srv_frame);
	nghttp2_session_callbacks_set_on_stream_close_callback(cb, srv_close);
	assert_int_equal(nghttp2_session_server_new(&w->srv, cb, w), 0);
	nghttp2_session_callbacks_del(cb);
	assert_int_equal(nghttp2_submit_settings(w->srv, NGHTTP2_FLAG_NONE, &iv,
				 1),
		0);
}

/* Move bytes both ways until neither side has anything to say. */
static void
pump(struct world *w)
{
	unsigned int rounds;

	for (rounds = 0; rounds < 100000; rounds++) {
		const uint8_t *p;
		ssize_t n;
		bool moved = false;

		w->up_len = 0;
		/* Twice: a first out() refused leaves the rest for the next. */
		assert_int_equal(lg_h2_flush(w->c), 0);
		assert_int_equal(lg_h2_flush(w->c), 0);
		if (w->up_len > 0) {
			assert_int_equal(nghttp2_session_mem_recv(w->srv, w->up,
						 w->up_len),
				(ssize_t)w->up_len);
			moved = true;
		}
		w->down_len = 0;
		while ((n = nghttp2_session_mem_send(w->srv, &p)) > 0) {
			assert_true(w->down_len + (size_t)n <= WIRE_MAX);
			memcpy(w->down + w->down_len, p, (size_t)n);
			w->down_len += (size_t)n;
		}
		assert_true(n == 0);
		if (w->down_len > 0) {
			assert_int_equal(lg_h2_recv(w->c, w->down, w->down_len),
				0);
			moved = true;
		}
		if (!moved)
			return;
	}
	fail_msg("pump does not settle");
}

static void
world_up(struct world *w, unsigned int streams, uint32_t srv_max)
{
	assert_int_equal(lg_h2_conf_init(&w->conf, streams, "10.0.0.1:80", "/",
				 "/other", w_done, w_out),
		0);
	w->c = lg_h2_create(&w->conf, w);
	assert_non_null(w->c);
	assert_int_equal(lg_h2_start(w->c), 0);
	srv_new(w, srv_max);
}

static int
setup(void **state)
{
	(void)state;
	memset(&W, 0, sizeof(W));
	W.up = malloc(WIRE_MAX);
	W.down = malloc(WIRE_MAX);
	W.body_len = 12;
	return W.up == NULL || W.down == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	(void)state;
	lg_h2_destroy(W.c);
	if (W.srv != NULL)
		nghttp2_session_del(W.srv);
	lg_h2_conf_fini(&W.conf);
	free(W.up);
	free(W.down);
	return 0;
}

/* Open as many streams as the connection allows; returns how many. */
static unsigned int
fill(struct world *w, uint64_t t0)
{
	unsigned int n = 0;

	while (lg_h2_request(w->c, n & 1, t0, t0 + n) == 0)
		n++;
	return n;
}

static void
test_waits_for_settings(void **state)
{
	(void)state;
	world_up(&W, 10, 100);
	assert_true(lg_h2_waiting(W.c));
	assert_int_equal(lg_h2_room(W.c), 0);
	assert_int_equal(lg_h2_request(W.c, 0, 1, 1), -ENOSPC);
	pump(&W);
	assert_false(lg_h2_waiting(W.c));
	assert_int_equal(lg_h2_room(W.c), 10);
	assert_int_equal(W.nreq, 0);
}

static void
test_server_limit_caps_streams(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < 64; i++)
		W.plan[i] = i < 3 ? ANS_HOLD : ANS_OK;
	world_up(&W, 10, 3);
	pump(&W);
	assert_int_equal(lg_h2_room(W.c), 3);
	assert_int_equal(fill(&W, 7), 3);
	assert_int_equal(lg_h2_request(W.c, 0, 7, 7), -ENOSPC);
	pump(&W);
	assert_int_equal(W.open_max, 3);
	assert_int_equal(W.c->open, 3);
	/* Sent at 7, 8, 9: the oldest is the first. */
	assert_int_equal(lg_h2_oldest(W.c), 7);
	assert_int_equal(W.nout, 0);
	assert_int_equal(lg_h2_room(W.c), 0);
}

static void
test_responses_counted(void **state)
{
	unsigned int round;

	(void)state;
	world_up(&W, 10, 100);
	pump(&W);
	for (round = 0; round < 5; round++) {
		assert_int_equal(fill(&W, 1000 + round), 10);
		pump(&W);
	}
	assert_int_equal(W.outcomes[LG_ERR_MAX], 50);
	assert_int_equal(W.nout, 50);
	assert_int_equal(W.c->answered, 50);
	assert_int_equal(W.c->open, 0);
	assert_true(lg_h2_oldest(W.c) == UINT64_MAX);
	assert_int_equal(W.open_max, 10);
	assert_int_equal(W.t0_sum, 10 * (1000 + 1001 + 1002 + 1003 + 1004));
	assert_false(lg_h2_over(W.c));
}

static void
test_outcomes_by_kind(void **state)
{
	static const enum answer plan[] = { ANS_OK, ANS_404, ANS_SHORT, ANS_RST,
		ANS_OK, ANS_RST };

	(void)state;
	memcpy(W.plan, plan, sizeof(plan));
	world_up(&W, 6, 100);
	pump(&W);
	assert_int_equal(fill(&W, 5), 6);
	pump(&W);
	assert_int_equal(W.nout, 6);
	assert_int_equal(W.outcomes[LG_ERR_MAX], 2);
	assert_int_equal(W.outcomes[LG_ERR_STATUS], 1);
	assert_int_equal(W.outcomes[LG_ERR_FRAMING], 1);
	assert_int_equal(W.outcomes[LG_ERR_RST_STREAM], 2);
	/* A 404 is an answer; a short body and a reset are not. */
	assert_int_equal(W.c->answered, 3);
	assert_int_equal(W.c->open, 0);
	assert_false(lg_h2_over(W.c));
	/* The connection goes on. */
	assert_int_equal(lg_h2_room(W.c), 6);
}

static void
test_goaway(void **state)
{
	static const enum answer plan[] = { ANS_OK, ANS_OK, ANS_GOAWAY };

	(void)state;
	memcpy(W.plan, plan, sizeof(plan));
	world_up(&W, 6, 100);
	pump(&W);
	assert_int_equal(fill(&W, 9), 6);
	pump(&W);
	/* Two answered, four above the GOAWAY's last stream id. */
	assert_int_equal(W.outcomes[LG_ERR_MAX], 2);
	assert_int_equal(W.outcomes[LG_ERR_GOAWAY], 4);
	assert_int_equal(W.nout, 6);
	assert_int_equal(W.c->open, 0);
	assert_true(W.c->goaway);
	assert_int_equal(lg_h2_room(W.c), 0);
	assert_int_equal(lg_h2_request(W.c, 0, 9, 9), -ENOSPC);
	assert_true(lg_h2_over(W.c));
}

static void
test_big_bodies(void **state)
{
	(void)state;
	/* Past the stream window: only WINDOW_UPDATEs let them finish. */
	W.body_len = LG_H2_STREAM_WINDOW + (3u << 20);
	world_up(&W, 2, 100);
	pump(&W);
	assert_int_equal(fill(&W, 1), 2);
	pump(&W);
	assert_int_equal(W.outcomes[LG_ERR_MAX], 2);
	assert_int_equal(W.nout, 2);
}

static void
test_output_refused(void **state)
{
	unsigned int i;

	(void)state;
	W.out_budget = 5;
	world_up(&W, 8, 100);
	pump(&W);
	for (i = 0; i < 3; i++) {
		assert_int_equal(fill(&W, 2), 8);
		pump(&W);
	}
	assert_true(W.out_refused > 0);
	assert_int_equal(W.outcomes[LG_ERR_MAX], 24);
	assert_int_equal(W.nreq, 24);
}

static void
test_garbage_from_server(void **state)
{
	static const char junk[] = "HTTP/1.1 400 Bad Request\r\n"
				   "Content-Length: 0\r\n\r\n";

	(void)state;
	world_up(&W, 4, 100);
	W.up_len = 0;
	assert_int_equal(lg_h2_flush(W.c), 0);
	assert_int_equal(lg_h2_recv(W.c, (const uint8_t *)junk,
				 sizeof(junk) - 1),
		0);
	W.up_len = 0;
	assert_int_equal(lg_h2_flush(W.c), 0);
	/* nghttp2 answered with GOAWAY and the session is over. */
	assert_true(W.up_len > 0);
	assert_true(lg_h2_over(W.c));
	assert_false(W.c->goaway);
	assert_int_equal(lg_h2_room(W.c), 0);
	/* A new connection starts clean. */
	assert_int_equal(lg_h2_start(W.c), 0);
	assert_true(lg_h2_waiting(W.c));
	assert_int_equal(W.c->open, 0);
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint32_t
next_rand(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (uint32_t)((rng * 0x2545f4914f6cdd1dULL) >> 32);
}

/*
 * Frames with random types, flags, stream ids and payloads (short ones,
 * so that most are parsed as frames) after a real handshake with four
 * streams open: every stream still comes to at most one outcome, the
 * rest stay open for the owner to count, and nothing crashes.
 */
static void
test_random_frames(void **state)
{
	unsigned int iter;

	(void)state;
	world_up(&W, 4, 100);
	for (iter = 0; iter < 2000; iter++) {
		uint8_t buf[512];
		size_t n = 0;
		unsigned int f, nf = 1 + next_rand() % 6, before;

		assert_int_equal(lg_h2_start(W.c), 0);
		nghttp2_session_del(W.srv);
		W.plan[0] = W.plan[1] = W.plan[2] = W.plan[3] = ANS_HOLD;
		W.nreq = 0;
		srv_new(&W, 100);
		pump(&W);
		assert_int_equal(fill(&W, 1), 4);
		pump(&W);
		before = W.nout;
		for (f = 0; f < nf && n + 9 + 40 <= sizeof(buf); f++) {
			size_t len = next_rand() % 40, i;
			uint32_t sid = next_rand() % 4 == 0 ?
				next_rand() :
				1 + 2 * (next_rand() % 5);

			buf[n++] = 0;
			buf[n++] = 0;
			buf[n++] = (uint8_t)len;
			buf[n++] = (uint8_t)(next_rand() % 11);
			buf[n++] = (uint8_t)next_rand();
			buf[n++] = (uint8_t)(sid >> 24);
			buf[n++] = (uint8_t)(sid >> 16);
			buf[n++] = (uint8_t)(sid >> 8);
			buf[n++] = (uint8_t)sid;
			for (i = 0; i < len; i++)
				buf[n++] = (uint8_t)next_rand();
		}
		(void)lg_h2_recv(W.c, buf, n);
		W.up_len = 0;
		(void)lg_h2_flush(W.c);
		assert_true(W.nout - before + W.c->open == 4);
		assert_true(lg_h2_room(W.c) <= 4 - W.c->open);
	}
}

static void
test_conf_limits(void **state)
{
	struct lg_h2_conf c;
	char longpath[300];

	(void)state;
	assert_int_equal(lg_h2_conf_init(&c, 0, "a", "/", NULL, w_done, w_out),
		-EINVAL);
	assert_int_equal(lg_h2_conf_init(&c, LG_MAX_STREAMS + 1, "a", "/", NULL,
				 w_done, w_out),
		-EINVAL);
	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[0] = '/';
	longpath[sizeof(longpath) - 1] = '\0';
	assert_int_equal(lg_h2_conf_init(&c, 1, "a", longpath, NULL, w_done,
				 w_out),
		-EINVAL);
	lg_h2_conf_fini(&c);
	assert_int_equal(lg_h2_conf_init(&c, 4, "a:1", "/x", "", w_done, w_out),
		0);
	/* No --mix-path: both request sets ask for --path. */
	assert_string_equal(c.path[1], "/x");
	lg_h2_conf_fini(&c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_waits_for_settings, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_server_limit_caps_streams,
			setup, teardown),
		cmocka_unit_test_setup_teardown(test_responses_counted, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_outcomes_by_kind, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_goaway, setup, teardown),
		cmocka_unit_test_setup_teardown(test_big_bodies, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_output_refused, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_garbage_from_server, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_random_frames, setup,
			teardown),
		cmocka_unit_test(test_conf_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
