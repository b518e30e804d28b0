/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The TX wait set (back-pressure): the connections that have something to
 * send (data, a FIN, a timer's probe or retransmission) while their port's
 * TX buffer has no room beyond the reserve. Each is in it at most once
 * (tx_wait), in the order it came: a doubly linked FIFO through txw[],
 * indexed by the connection's pool index, so that adding and removing are
 * O(1) and the set needs no more slots than there are connection objects.
 *
 * Once per loop (ewyk_tcp_advance) a pass walks the set from its head:
 * a connection whose port has room again leaves the set and sends; one
 * whose port is still full keeps its place. A connection that runs out of
 * room again while it sends goes to the tail, behind those that did not
 * get their turn: under sustained saturation every waiting connection
 * goes in turn (round robin), not the same ones first every loop.
 */

#include <rte_malloc.h>

#include "tcp_private.h"

int
tcp_txw_init(struct ewyk_tcp *t)
{
	t->txw = rte_malloc_socket("ewyk_tcp_txw",
		sizeof(t->txw[0]) * t->conf.max_conns, RTE_CACHE_LINE_SIZE,
		t->conf.socket_id);
	if (t->txw == NULL)
		return -ENOMEM;
	t->txw_n = 0;
	t->txw_head = t->txw_tail = TCP_TXW_NONE;
	t->txw_cur = t->txw_fresh = TCP_TXW_NONE;
	return 0;
}

static inline uint32_t
txw_idx(const struct ewyk_tcp *t, const struct ewyk_tcp_conn *c)
{
	return (uint32_t)ewyk_pool_obj_index(t->conn_pool, c);
}

/* Put the connection at the tail of the set (once). */
void
tcp_txw_add(struct ewyk_tcp *t, struct ewyk_tcp_conn *c)
{
	uint32_t i;

	if (c->tx_wait)
		return;
	i = txw_idx(t, c);
	c->tx_wait = 1;
	t->txw[i].next = TCP_TXW_NONE;
	t->txw[i].prev = t->txw_tail;
	if (t->txw_tail == TCP_TXW_NONE)
		t->txw_head = i;
	else
		t->txw[t->txw_tail].next = i;
	t->txw_tail = i;
	t->txw_n++;
	/* Added during a pass: the pass ends before it. */
	if (t->txw_fresh == TCP_TXW_NONE && t->txw_cur != TCP_TXW_NONE)
		t->txw_fresh = i;
}

static void
txw_unlink(struct ewyk_tcp *t, uint32_t i)
{
	uint32_t next = t->txw[i].next, prev = t->txw[i].prev;

	/* A pass in progress steps over the entry that leaves. */
	if (t->txw_cur == i)
		t->txw_cur = next;
	if (t->txw_fresh == i)
		t->txw_fresh = next;
	if (prev == TCP_TXW_NONE)
		t->txw_head = next;
	else
		t->txw[prev].next = next;
	if (next == TCP_TXW_NONE)
		t->txw_tail = prev;
	else
		t->txw[next].prev = prev;
	t->txw_n--;
}

/* A connection destroyed while it waits leaves the set (O(1)); what its
 * timers owed goes with it. */
void
tcp_txw_del(struct ewyk_tcp_conn *c)
{
	if (!c->tx_wait)
		return;
	c->tx_wait = 0;
	c->tlp_owed = 0;
	c->persist_owed = 0;
	c->ka_owed = 0;
	txw_unlink(c->tcp, txw_idx(c->tcp, c));
}

/*
 * Is the port still without room? Ports below 64 found full once in a
 * pass are remembered in @p full: nothing drains a port's buffer during
 * the pass, so the answer cannot change, and a saturated port costs one
 * tx_room call per pass rather than one per waiting connection.
 */
static bool
port_full(const struct ewyk_tcp_conn *c, uint64_t *full)
{
	uint64_t bit = c->port < 64 ? UINT64_C(1) << c->port : 0;

	if (*full & bit)
		return true;
	if (tcp_tx_room_ok(c))
		return false;
	*full |= bit;
	return true;
}

/*
 * Once per loop: each connection present when the pass starts, from the
 * head, sends if its port has room (what its timers owed first, then
 * tcp_output()). The pass never visits what was added during it
 * (txw_fresh), and steps over what leaves during it (txw_unlink), so an
 * application that aborts other connections from a callback is safe.
 */
void
tcp_txw_resume(struct ewyk_tcp *t)
{
	uint64_t full = 0;
	uint32_t i;

	t->txw_cur = t->txw_head;
	t->txw_fresh = TCP_TXW_NONE;
	while ((i = t->txw_cur) != TCP_TXW_NONE && i != t->txw_fresh) {
		struct ewyk_tcp_conn *c = ewyk_pool_obj_at(t->conn_pool, i);

		t->txw_cur = t->txw[i].next;
		if (port_full(c, &full))
			continue; /* still full: keeps its place, not counted */
		txw_unlink(t, i);
		c->tx_wait = 0;
		tcp_ctr_inc(t, EWYK_TCP_TX_RESUMED);
		tcp_conn_hold(c);
		tcp_timer_owed(c);
		tcp_output(c);
		tcp_conn_unhold(c);
	}
	t->txw_cur = t->txw_fresh = TCP_TXW_NONE;
}
