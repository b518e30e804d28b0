/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for lib/http's connection state machine: an
 * ewyk_http_server on one lib/tcp endpoint, raw clients on another, joined
 * by an in-memory wire on a virtual clock (as tests/unit/test_http_conn.c).
 * Every input is a script; byte 0 picks the limits and timeouts, then each
 * op byte's low three bits say what happens (bits 3-4: which client):
 *
 *   0  the client sends a segment: 1 length byte (1..256), then that many
 *      payload bytes (arbitrary segmentation of arbitrary requests);
 *   1  the clock moves by the next byte x 4 ms (wire, TCP and HTTP timers);
 *   2  the client stops / starts reading (the server's window closes);
 *   3  a pending request is completed: whole body, streamed (Content-Length
 *      or chunked) or a trickle stream that waits (-EAGAIN) for op 5;
 *   4  a paused request body is resumed (next byte bit 0: pause again);
 *   5  a trickle stream gets the next byte x 8 bytes and is resumed;
 *   6  the client half-closes (FIN) or aborts (next byte bit 0);
 *   7  a new client connects.
 *
 * Routes cover every kind of handler: answered in place (/, /n/<x>, 404,
 * 405), streamed in place (/bytes/<n>, /chunked), pending (/defer/<x>),
 * body read and answered at its end (POST /up), body read with pauses by
 * a pending handler (POST /pup). Invariants (abort() on violation):
 *   - every byte a client receives parses as HTTP/1.1 responses (status
 *     line, field lines, CRLF, a Content-Length or chunked body, or one
 *     delimited by the close it announces), and
 *     nothing follows a "Connection: close" response; with a HEAD request
 *     anywhere in the input only the first head is checked (a HEAD
 *     response's body length cannot be told from its bytes);
 *   - at the end (pending requests answered, clients reading and then
 *     half-closing), every server connection ends within the longest
 *     timeout with its object back on the free list, and once both TCP
 *     contexts are freed every mbuf is back in the pool.
 *
 *   CC=clang CXX=clang++ meson setup build-fuzz -Dfuzz=true
 *   build-fuzz/tests/fuzz/fuzz_http_conn tests/fuzz/corpus/http_conn
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include <ewyk_http.h>
#include <ewyk_tcp.h>
#include <ewyk_twheel.h>

#include "fuzz_common.h"
#include "http_resp_check.h"
#include "tcp_wire.h"

#define SIP RTE_BE32(RTE_IPV4(10, 0, 0, 1))
#define CIP RTE_BE32(RTE_IPV4(10, 0, 0, 2))
#define MAXQ 4096
#define MAXCLI 4
#define MAXHELD 8
#define RXCAP (1u << 20)

struct fcli {
	struct ewyk_tcp_conn *c;
	char *rx;
	size_t nrx;
	uint32_t unacked; /* received while not reading */
	int hold, gone;
};

struct held {
	struct ewyk_http_conn *c;
	int paused;     /* its body consumer paused */
	int pause_more; /* the consumer pauses after each piece */
	int trickle;    /* a trickle stream is under way */
	int done;       /* the trickle producer gave its last byte */
	int waiting;    /* ... returned -EAGAIN, not called since */
	uint32_t budget;
};

static struct rte_mempool *mp;
static char *rxbuf[MAXCLI];

static struct {
	struct tcp_wire wire; /* t[0]: server, t[1]: client */
	struct ewyk_http_router *rt;
	struct ewyk_http_server *srv;
	struct fcli cli[MAXCLI];
	struct held held[MAXHELD];
} W;

/* ---- wire ---- */

static void
step(uint64_t us)
{
	tcp_wire_step(&W.wire, us);
}

/* Move the clock by ms in steps that let the wire run. */
static void
run_ms(uint32_t ms)
{
	uint64_t end = W.wire.now_us + (uint64_t)ms * 1000;

	do
		step(100);
	while (W.wire.now_us < end);
}

/* ---- clients ---- */

static void
cli_connected(void *ctx, struct ewyk_tcp_conn *c, int err)
{
	struct fcli *cl = ctx;

	RTE_SET_USED(c);
	if (err != 0) {
		cl->c = NULL;
		cl->gone = 1;
	}
}

static void
cli_recv(void *ctx, struct ewyk_tcp_conn *c, struct rte_mbuf *m)
{
	struct fcli *cl = ctx;
	struct rte_mbuf *s;

	for (s = m; s != NULL; s = s->next) {
		size_t n = RTE_MIN((size_t)s->data_len, RXCAP - cl->nrx);

		memcpy(cl->rx + cl->nrx, rte_pktmbuf_mtod(s, char *), n);
		cl->nrx += n;
	}
	if (!cl->hold)
		ewyk_tcp_recvd(c, m->pkt_len);
	else
		cl->unacked += m->pkt_len;
	rte_pktmbuf_free(m);
}

static void
cli_closed(void *ctx, struct ewyk_tcp_conn *c, int err)
{
	struct fcli *cl = ctx;

	RTE_SET_USED(c);
	RTE_SET_USED(err);
	cl->c = NULL;
	cl->gone = 1;
}

static const struct ewyk_tcp_ops cli_ops = {
	.recv = cli_recv,
	.connected = cli_connected,
	.closed = cli_closed,
};

static void
cli_read(struct fcli *cl)
{
	cl->hold = 0;
	if (cl->c != NULL && cl->unacked > 0)
		ewyk_tcp_recvd(cl->c, cl->unacked);
	cl->unacked = 0;
}

static void
cli_open(unsigned int i)
{
	struct fcli *cl = &W.cli[i];
	struct ewyk_tcp_connect_args a = {
		.dst_ip = SIP,
		.dst_port = 80,
		.src_ip = CIP,
		.ops = &cli_ops,
		.ctx = cl,
	};

	if (cl->c != NULL || cl->gone)
		return;
	cl->c = ewyk_tcp_connect(W.wire.t[1], &a);
	if (cl->c != NULL)
		run_ms(1);
}

/* ---- handlers ---- */

static struct held *
hold(struct ewyk_http_conn *c)
{
	unsigned int i;

	for (i = 0; i < MAXHELD; i++) {
		if (W.held[i].c == NULL) {
			memset(&W.held[i], 0, sizeof(W.held[i]));
			W.held[i].c = c;
			return &W.held[i];
		}
	}
	return NULL;
}

static int
h_hello(struct ewyk_http_conn *c, const struct ewyk_http_request *req,
	void *arg)
{
	RTE_SET_USED(req);
	RTE_SET_USED(arg);
	return ewyk_http_respond(c, 200, "text/plain", NULL, "hello world\n",
		12);
}

static int
h_name(struct ewyk_http_conn *c, const struct ewyk_http_request *req, void *arg)
{
	RTE_SET_USED(arg);
	return ewyk_http_respond(c, 200, NULL, NULL, req->path.p,
		req->path.len);
}

static int
prod_bytes(struct ewyk_http_conn *c, char *buf, uint32_t cap, uint64_t off,
	void *arg)
{
	uint32_t i;

	RTE_SET_USED(c);
	RTE_SET_USED(arg);
	for (i = 0; i < cap; i++)
		buf[i] = (char)((off + i) % 256);
	return (int)cap;
}

static int
prod_chunks(struct ewyk_http_conn *c, char *buf, uint32_t cap, uint64_t off,
	void *arg)
{
	uint32_t n = RTE_MIN(cap, 700u);

	RTE_SET_USED(c);
	RTE_SET_USED(arg);
	if (off >= 3000)
		return 0;
	memset(buf, 'c', n);
	return (int)n;
}

static int
h_bytes(struct ewyk_http_conn *c, const struct ewyk_http_request *req,
	void *arg)
{
	uint64_t n = 0;
	uint32_t i;

	RTE_SET_USED(arg);
	for (i = 7; i < req->path.len && i < 13; i++)
		n = n * 10 +
			(uint64_t)((unsigned char)(req->path.p[i] - '0') % 10);
	return ewyk_http_respond_stream(c, 200, NULL, NULL, n, prod_bytes,
		NULL);
}

static int
h_chunked(struct ewyk_http_conn *c, const struct ewyk_http_request *req,
	void *arg)
{
	RTE_SET_USED(req);
	RTE_SET_USED(arg);
	return ewyk_http_respond_stream(c, 200, NULL, NULL,
		EWYK_HTTP_LEN_CHUNKED, prod_chunks, NULL);
}

static int
h_defer(struct ewyk_http_conn *c, const struct ewyk_http_request *req,
	void *arg)
{
	RTE_SET_USED(req);
	RTE_SET_USED(arg);
	if (hold(c) == NULL)
		return ewyk_http_respond(c, 503, NULL, NULL, NULL, 0);
	return EWYK_HTTP_PENDING;
}

static int
up_cb(struct ewyk_http_conn *c, const char *p, uint32_t len, int last,
	void *arg)
{
	char msg[32];
	uint64_t *sum = arg;
	int n;

	RTE_SET_USED(p);
	*sum += len;
	if (!last)
		return 0;
	n = snprintf(msg, sizeof(msg), "%u\n", (unsigned int)(*sum & 0xffff));
	ewyk_http_respond(c, 200, NULL, NULL, msg, (uint32_t)n);
	return 0;
}

static int
h_up(struct ewyk_http_conn *c, const struct ewyk_http_request *req, void *arg)
{
	static uint64_t sum;

	RTE_SET_USED(req);
	RTE_SET_USED(arg);
	sum = 0;
	if (ewyk_http_read_body(c, up_cb, &sum) != 0)
		return ewyk_http_respond(c, 200, NULL, NULL, "none\n", 5);
	return EWYK_HTTP_HANDLED;
}

static int
pup_cb(struct ewyk_http_conn *c, const char *p, uint32_t len, int last,
	void *arg)
{
	struct held *h = arg;

	RTE_SET_USED(p);
	RTE_SET_USED(len);
	/* answered already (the slot let go, maybe reused): consume on */
	if (h->c != c)
		return 0;
	if (!last && h->pause_more) {
		h->paused = 1;
		return EWYK_HTTP_PENDING;
	}
	return 0;
}

static int
h_pup(struct ewyk_http_conn *c, const struct ewyk_http_request *req, void *arg)
{
	struct held *h;

	RTE_SET_USED(req);
	RTE_SET_USED(arg);
	h = hold(c);
	if (h == NULL)
		return ewyk_http_respond(c, 503, NULL, NULL, NULL, 0);
	h->pause_more = 1;
	if (ewyk_http_read_body(c, pup_cb, h) != 0)
		h->pause_more = 0; /* no body: answered later all the same */
	return EWYK_HTTP_PENDING;
}

static int
prod_trickle(struct ewyk_http_conn *c, char *buf, uint32_t cap, uint64_t off,
	void *arg)
{
	struct held *h = arg;
	uint32_t n;

	if (h->c != c)
		abort();
	if (off >= 2000) {
		h->done = 1;
		return 0;
	}
	h->waiting = h->budget == 0;
	if (h->budget == 0)
		return -EAGAIN;
	n = RTE_MIN(cap, h->budget);
	memset(buf, 't', n);
	h->budget -= n;
	return (int)n;
}

/* ---- held requests ---- */

static void
held_drop(struct held *h)
{
	memset(h, 0, sizeof(*h));
}

/* Complete a held request in one of four ways. */
static void
held_complete(struct held *h, uint8_t how)
{
	struct ewyk_http_conn *c = h->c;

	/* a paused body is let go first: a response does not end a body */
	if (h->paused) {
		h->pause_more = 0;
		h->paused = 0;
		ewyk_http_body_resume(c);
	}
	h->pause_more = 0;
	switch (how % 4) {
	case 0:
		ewyk_http_respond(c, (uint16_t)(200 + how), NULL, NULL,
			"done\n", 5);
		held_drop(h);
		break;
	case 1:
		ewyk_http_respond_stream(c, 200, NULL, NULL, how * 50u,
			prod_bytes, NULL);
		held_drop(h);
		break;
	case 2:
		ewyk_http_respond_stream(c, 200, NULL, NULL,
			EWYK_HTTP_LEN_CHUNKED, prod_chunks, NULL);
		held_drop(h);
		break;
	default:
		h->trickle = 1;
		if (ewyk_http_respond_stream(c, 200, NULL, NULL,
			    EWYK_HTTP_LEN_CHUNKED, prod_trickle, h) != 0 ||
			h->done)
			held_drop(h);
		break;
	}
}

static struct held *
held_pick(uint8_t k, int trickle)
{
	unsigned int i;

	for (i = 0; i < MAXHELD; i++) {
		struct held *h = &W.held[(k + i) % MAXHELD];

		if (h->c != NULL && h->trickle == trickle)
			return h;
	}
	return NULL;
}

/*
 * Give a trickle stream bytes. The handle is used only while its producer
 * waits (-EAGAIN): one being pumped is driven by TCP's events, and if its
 * connection goes away meanwhile the server ends the response and the
 * producer is not called again (the slot is then stale: never resumed).
 */
static void
trickle_resume(struct held *h, uint32_t bytes)
{
	h->budget += bytes;
	if (h->done) {
		held_drop(h);
		return;
	}
	if (!h->waiting)
		return;
	if (ewyk_http_stream_resume(h->c) != 0 || h->done)
		held_drop(h);
}

/* ---- setup ---- */

static int
init(void)
{
	unsigned int i;

	mp = fuzz_init("fuzz_http_conn", "256", 8191);
	if (mp == NULL)
		return -1;
	for (i = 0; i < MAXCLI; i++) {
		rxbuf[i] = malloc(RXCAP);
		if (rxbuf[i] == NULL)
			return -1;
	}
	return 0;
}

static void
route(const char *path, int prefix, unsigned int method, void *h)
{
	if (ewyk_http_route_add(W.rt, path, prefix, EWYK_HTTP_M(method),
		    EWYK_STRATEGY_INVOKE_NON_BLOCKING, h, NULL) != 0)
		abort();
}

static void
world_create(uint8_t conf)
{
	struct ewyk_http_server_conf hc;
	unsigned int i;

	memset(&W, 0, sizeof(W));
	for (i = 0; i < MAXCLI; i++)
		W.cli[i].rx = rxbuf[i];
	if (tcp_wire_init(&W.wire, "fuzz_http_conn", mp, MAXQ, 8, SIP, CIP) !=
		0)
		abort();
	W.rt = ewyk_http_router_create(16, SOCKET_ID_ANY);
	if (W.rt == NULL)
		abort();
	route("/", 0, EWYK_HTTP_GET, (void *)h_hello);
	route("/n/", 1, EWYK_HTTP_GET, (void *)h_name);
	route("/bytes/", 1, EWYK_HTTP_GET, (void *)h_bytes);
	route("/chunked", 0, EWYK_HTTP_GET, (void *)h_chunked);
	route("/defer/", 1, EWYK_HTTP_GET, (void *)h_defer);
	route("/up", 0, EWYK_HTTP_POST, (void *)h_up);
	route("/pup", 0, EWYK_HTTP_POST, (void *)h_pup);
	memset(&hc, 0, sizeof(hc));
	hc.wheel = W.wire.w;
	hc.pool = mp;
	hc.router = W.rt;
	hc.socket_id = SOCKET_ID_ANY;
	hc.max_conns = 1 + (conf & 3);
	/* every client has one address: no share in the way; head leases
	 * one fewer than objects when max_conns > 1 (503 when none is free) */
	hc.max_conns_per_src = hc.max_conns;
	hc.max_heads = hc.max_conns > 1 ? hc.max_conns - 1 : 1;
	hc.max_heads_per_src = hc.max_heads;
	hc.lim.max_line = (conf & 4) ? 64 : 0;
	hc.lim.max_header_bytes = (conf & 8) ? 256 : 0;
	hc.lim.max_body = (conf & 16) ? 100 : 0;
	hc.header_timeout_ms = (conf & 32) ? 20 : 1000;
	hc.body_timeout_ms = (conf & 64) ? 20 : 1000;
	hc.idle_timeout_ms = 200;
	hc.write_timeout_ms = (conf & 128) ? 30 : 1000;
	W.srv = ewyk_http_server_create(&hc);
	if (W.srv == NULL)
		abort();
	ewyk_http_server_set_time(W.srv, 784111777);
	if (ewyk_tcp_listen(W.wire.t[0], SIP, 80, ewyk_http_server_tcp_ops(),
		    W.srv, 0) != 0)
		abort();
}

static void
world_free(void)
{
	unsigned int i, t;

	/* answer what is owed (and what pipelined requests add), let the
	 * wire settle */
	for (i = 0; i < MAXCLI; i++)
		cli_read(&W.cli[i]);
	for (t = 0; t < 600; t++) {
		unsigned int nheld = 0;

		for (i = 0; i < MAXHELD; i++) {
			if (W.held[i].c == NULL)
				continue;
			nheld++;
			if (W.held[i].trickle)
				trickle_resume(&W.held[i], 1u << 20);
			else
				held_complete(&W.held[i], 0);
		}
		if (nheld == 0)
			break;
		step(2000);
	}
	/* what is left was being pumped when its connection went away */
	for (i = 0; i < MAXHELD; i++)
		held_drop(&W.held[i]);
	/* the clients finish: every server connection must end within the
	 * longest timeout, its object back on the free list */
	for (i = 0; i < MAXCLI; i++)
		if (W.cli[i].c != NULL)
			ewyk_tcp_shutdown(W.cli[i].c);
	for (i = 0; i < 1100 && ewyk_http_server_conns(W.srv) != 0; i++)
		step(2000);
	if (ewyk_http_server_conns(W.srv) != 0)
		abort(); /* a connection object outlived its TCP connection */
	ewyk_http_server_free(W.srv);
	tcp_wire_free(&W.wire);
	ewyk_http_router_free(W.rt);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	unsigned int avail, i;
	int heads_only;
	size_t k = 1;

	if (!ready) {
		if (init() != 0)
			abort();
		ready = 1;
	}
	if (size < 1)
		return 0;
	avail = rte_mempool_avail_count(mp);
	world_create(data[0]);
	heads_only = memmem(data, size, "HEAD", 4) != NULL;
	cli_open(0);
	while (k < size) {
		uint8_t op = data[k++];
		uint8_t arg = k < size ? data[k] : 0;
		struct fcli *cl = &W.cli[(op >> 3) % MAXCLI];
		struct held *h;

		switch (op & 7) {
		case 0: {
			size_t len = (size_t)arg + 1;
			struct rte_mbuf *m;

			if (k >= size)
				break;
			k++;
			if (len > size - k)
				len = size - k;
			if (cl->c == NULL || len == 0) {
				k += len;
				break;
			}
			m = rte_pktmbuf_alloc(mp);
			if (m == NULL)
				abort();
			memcpy(rte_pktmbuf_append(m, (uint16_t)len), data + k,
				len);
			k += len;
			if (ewyk_tcp_send(cl->c, m) != 0)
				rte_pktmbuf_free(m);
			step(10);
			break;
		}
		case 1:
			k++;
			run_ms(1 + arg * 4u);
			break;
		case 2:
			if (cl->hold)
				cli_read(cl);
			else
				cl->hold = 1;
			step(100);
			break;
		case 3:
			k++;
			h = held_pick(arg, 0);
			if (h != NULL)
				held_complete(h, arg >> 3);
			step(100);
			break;
		case 4:
			k++;
			h = held_pick(arg, 0);
			if (h != NULL && h->paused) {
				h->paused = 0;
				h->pause_more = arg & 1;
				ewyk_http_body_resume(h->c);
			}
			step(100);
			break;
		case 5:
			k++;
			h = held_pick(arg, 1);
			if (h != NULL)
				trickle_resume(h, arg * 8u);
			step(100);
			break;
		case 6:
			k++;
			if (cl->c == NULL)
				break;
			if (arg & 1) {
				ewyk_tcp_abort(cl->c);
				cl->c = NULL;
				cl->gone = 1;
			} else {
				ewyk_tcp_shutdown(cl->c);
			}
			step(100);
			break;
		default:
			cli_open((op >> 3) % MAXCLI);
			break;
		}
	}
	run_ms(5);
	for (i = 0; i < MAXCLI; i++)
		check_responses(W.cli[i].rx, W.cli[i].nrx, heads_only);
	world_free();
	for (i = 0; i < MAXCLI; i++) {
		check_responses(W.cli[i].rx, W.cli[i].nrx, heads_only);
		/* FUZZ_HTTP_CONN_DEBUG=1: what each client got (seed review) */
		if (getenv("FUZZ_HTTP_CONN_DEBUG") != NULL && W.cli[i].nrx > 0)
			fprintf(stderr, "client %u: %zu bytes:\n%.*s\n", i,
				W.cli[i].nrx, (int)RTE_MIN(W.cli[i].nrx, 400u),
				W.cli[i].rx);
	}
	if (rte_mempool_avail_count(mp) != avail)
		abort();
	return 0;
}
