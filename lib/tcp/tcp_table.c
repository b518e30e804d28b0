/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connection table: open hashing with intrusive chains, keyed by the
 * 4-tuple. The bucket array is sized at creation; nothing is allocated
 * afterwards. Listeners live in a small array (a shard has few).
 */

#include <string.h>

#include "ewyk_siphash.h"
#include "tcp_private.h"

/*
 * SipHash-1-3 of the 4-tuple with the context's own per-boot key: spoofed
 * SYNs cannot be chosen to fall into one bucket (a CRC with a constant
 * seed let them).
 */
uint32_t
tcp_hash(const struct ewyk_tcp *t, rte_be32_t lip, uint16_t lport,
	rte_be32_t rip, uint16_t rport)
{
	uint32_t w[3] = { lip, rip, ((uint32_t)lport << 16) | rport };

	return (uint32_t)ewyk_siphash13(t->hk0, t->hk1, w, RTE_DIM(w));
}

/*
 * The IPv6 tuple: the two addresses XORed, then the ports; five words
 * (SipHash's length byte keeps them apart from the three of IPv4). The
 * peer chooses its address, not ours: two tuples it can make collide
 * through the XOR need different local addresses, so such a class holds
 * at most one connection per local address and port pair, a bound no
 * chain attack can grow (the keyed hash does the rest). Hashing 20 bytes
 * instead of 36 saves two SipHash rounds on every segment.
 */
uint32_t
tcp_hash6(const struct ewyk_tcp *t, const union tcp_addr *lip, uint16_t lport,
	const union tcp_addr *rip, uint16_t rport)
{
	uint64_t q[2];
	uint32_t w[5];

	q[0] = lip->q[0] ^ rip->q[0];
	q[1] = lip->q[1] ^ rip->q[1];
	memcpy(&w[0], q, 16);
	w[4] = ((uint32_t)lport << 16) | rport;
	return (uint32_t)ewyk_siphash13(t->hk0, t->hk1, w, RTE_DIM(w));
}

struct ewyk_tcp_conn *
tcp_table_lookup_h(struct ewyk_tcp *t, uint32_t h, rte_be32_t lip,
	uint16_t lport, rte_be32_t rip, uint16_t rport)
{
	struct ewyk_tcp_conn *c;

	c = t->buckets[h & t->hmask];
	for (; c != NULL; c = c->hnext) {
		if (c->rport == rport && c->lport == lport &&
			c->rip.v4 == rip && c->lip.v4 == lip && !c->v6)
			return c;
	}
	return NULL;
}

struct ewyk_tcp_conn *
tcp_table_lookup(struct ewyk_tcp *t, rte_be32_t lip, uint16_t lport,
	rte_be32_t rip, uint16_t rport)
{
	return tcp_table_lookup_h(t, tcp_hash(t, lip, lport, rip, rport), lip,
		lport, rip, rport);
}

struct ewyk_tcp_conn *
tcp_table_lookup6_h(struct ewyk_tcp *t, uint32_t h, const union tcp_addr *lip,
	uint16_t lport, const union tcp_addr *rip, uint16_t rport)
{
	struct ewyk_tcp_conn *c;

	c = t->buckets[h & t->hmask];
	for (; c != NULL; c = c->hnext) {
		if (c->rport == rport && c->lport == lport && c->v6 &&
			tcp_addr_eq6(&c->rip, rip) &&
			tcp_addr_eq6(&c->lip, lip))
			return c;
	}
	return NULL;
}

struct ewyk_tcp_conn *
tcp_table_lookup6(struct ewyk_tcp *t, const union tcp_addr *lip, uint16_t lport,
	const union tcp_addr *rip, uint16_t rport)
{
	return tcp_table_lookup6_h(t, tcp_hash6(t, lip, lport, rip, rport), lip,
		lport, rip, rport);
}

/* The connection's bucket hash, as the input path computes it. */
uint32_t
tcp_conn_hash(const struct ewyk_tcp_conn *c)
{
	return c->v6 ?
		tcp_hash6(c->tcp, &c->lip, c->lport, &c->rip, c->rport) :
		tcp_hash(c->tcp, c->lip.v4, c->lport, c->rip.v4, c->rport);
}

/* @p h is tcp_conn_hash(c): a passive open has it from the lookup that
 * found no connection, and does not hash the tuple a second time. */
void
tcp_table_insert_h(struct ewyk_tcp *t, struct ewyk_tcp_conn *c, uint32_t h)
{
	struct ewyk_tcp_conn **b = &t->buckets[h & t->hmask];

	/* The caller's hash is the one lookups compute (debug builds). */
	RTE_ASSERT(h == tcp_conn_hash(c));
	c->hnext = *b;
	if (*b != NULL)
		(*b)->hpprev = &c->hnext;
	c->hpprev = b;
	*b = c;
	c->in_table = 1;
}

void
tcp_table_insert(struct ewyk_tcp *t, struct ewyk_tcp_conn *c)
{
	tcp_table_insert_h(t, c, tcp_conn_hash(c));
}

void
tcp_table_remove(struct ewyk_tcp *t __rte_unused, struct ewyk_tcp_conn *c)
{
	if (!c->in_table)
		return;
	*c->hpprev = c->hnext;
	if (c->hnext != NULL)
		c->hnext->hpprev = c->hpprev;
	c->hnext = NULL;
	c->hpprev = NULL;
	c->in_table = 0;
}

/* A listener on the segment's destination address goes before a
 * wildcard one, which takes both families. */
struct tcp_listener *
tcp_listener_find(struct ewyk_tcp *t, const struct tcp_ip *ip, uint16_t port)
{
	struct tcp_listener *any = NULL;
	unsigned int i;

	for (i = 0; i < t->listen_end; i++) {
		struct tcp_listener *l = &t->listeners[i];

		if (l->port != port)
			continue;
		if (l->v6) {
			if (ip->v6 && tcp_addr_eq6(&l->ip6, &ip->dst))
				return l;
		} else if (l->ip == 0) {
			any = l;
		} else if (!ip->v6 && l->ip == ip->dst.v4) {
			return l;
		}
	}
	return any;
}

struct ewyk_tcp_conn *
ewyk_tcp_lookup(struct ewyk_tcp *t, rte_be32_t local_ip, uint16_t local_port,
	rte_be32_t remote_ip, uint16_t remote_port)
{
	if (t == NULL)
		return NULL;
	return tcp_table_lookup(t, local_ip, local_port, remote_ip,
		remote_port);
}

struct ewyk_tcp_conn *
ewyk_tcp_lookup6(struct ewyk_tcp *t, const uint8_t local_ip[16],
	uint16_t local_port, const uint8_t remote_ip[16], uint16_t remote_port)
{
	union tcp_addr l, r;

	if (t == NULL || local_ip == NULL || remote_ip == NULL)
		return NULL;
	memcpy(l.b, local_ip, 16);
	memcpy(r.b, remote_ip, 16);
	return tcp_table_lookup6(t, &l, local_port, &r, remote_port);
}

/* The listener's local address is (v6, ip, ip6)? */
static bool
tcp_listener_is(const struct tcp_listener *l, bool v6, rte_be32_t ip,
	const union tcp_addr *ip6)
{
	if (l->v6 != v6)
		return false;
	return v6 ? tcp_addr_eq6(&l->ip6, ip6) : l->ip == ip;
}

/* An IPv6 address a listener may be bound to: :: is the wildcard. */
static bool
tcp_ip6_any(const uint8_t ip[16])
{
	static const uint8_t zero[16];

	return memcmp(ip, zero, 16) == 0;
}

static int
tcp_listen_add(struct ewyk_tcp *t, bool v6, rte_be32_t ip,
	const union tcp_addr *ip6, uint16_t port,
	const struct ewyk_tcp_ops *ops, void *arg, uint32_t backlog)
{
	struct tcp_listener *free_slot = NULL;
	unsigned int i;

	if (t == NULL || port == 0 || ops == NULL)
		return -EINVAL;
	for (i = 0; i < TCP_MAX_LISTENERS; i++) {
		struct tcp_listener *l = &t->listeners[i];

		if (l->port == 0) {
			if (free_slot == NULL)
				free_slot = l;
			continue;
		}
		if (l->port == port && tcp_listener_is(l, v6, ip, ip6))
			return -EADDRINUSE;
	}
	if (free_slot == NULL)
		return -ENOSPC;
	memset(free_slot, 0, sizeof(*free_slot));
	free_slot->ip = ip;
	free_slot->v6 = v6;
	if (v6)
		free_slot->ip6 = *ip6;
	free_slot->port = port;
	free_slot->ops = ops;
	free_slot->arg = arg;
	free_slot->backlog = backlog != 0 ? backlog : 1024;
	i = (unsigned int)(free_slot - t->listeners) + 1;
	if (i > t->listen_end)
		t->listen_end = (uint8_t)i;
	return 0;
}

int
ewyk_tcp_listen(struct ewyk_tcp *t, rte_be32_t ip, uint16_t port,
	const struct ewyk_tcp_ops *ops, void *arg, uint32_t backlog)
{
	return tcp_listen_add(t, false, ip, NULL, port, ops, arg, backlog);
}

int
ewyk_tcp_listen6(struct ewyk_tcp *t, const uint8_t ip[16], uint16_t port,
	const struct ewyk_tcp_ops *ops, void *arg, uint32_t backlog)
{
	union tcp_addr a;

	if (ip == NULL || tcp_ip6_any(ip))
		return tcp_listen_add(t, false, 0, NULL, port, ops, arg,
			backlog);
	if (ip[0] == 0xff) /* a group is no local address */
		return -EINVAL;
	memcpy(a.b, ip, 16);
	return tcp_listen_add(t, true, 0, &a, port, ops, arg, backlog);
}

static int
tcp_unlisten_del(struct ewyk_tcp *t, bool v6, rte_be32_t ip,
	const union tcp_addr *ip6, uint16_t port)
{
	unsigned int i, j;

	if (t == NULL)
		return -ENOENT;
	for (i = 0; i < TCP_MAX_LISTENERS; i++) {
		struct tcp_listener *l = &t->listeners[i];

		if (l->port != port || port == 0 ||
			!tcp_listener_is(l, v6, ip, ip6))
			continue;
		/* Drop the half-open connections that point at it. */
		for (j = 0; j <= t->hmask && l->syn_count > 0; j++) {
			struct ewyk_tcp_conn *c = t->buckets[j], *n;

			for (; c != NULL; c = n) {
				n = c->hnext;
				if (c->listener == l)
					tcp_conn_drop(c, 0);
			}
		}
		memset(l, 0, sizeof(*l));
		return 0;
	}
	return -ENOENT;
}

int
ewyk_tcp_unlisten(struct ewyk_tcp *t, rte_be32_t ip, uint16_t port)
{
	return tcp_unlisten_del(t, false, ip, NULL, port);
}

int
ewyk_tcp_unlisten6(struct ewyk_tcp *t, const uint8_t ip[16], uint16_t port)
{
	union tcp_addr a;

	if (ip == NULL || tcp_ip6_any(ip))
		return tcp_unlisten_del(t, false, 0, NULL, port);
	memcpy(a.b, ip, 16);
	return tcp_unlisten_del(t, true, 0, &a, port);
}
