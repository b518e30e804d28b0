/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IPv6 path MTU table (RFC 8201): per shard, NET_PMTU_ENTRIES
 * (port, destination) pairs whose MTU a packet-too-big lowered (net_ipv6.c
 * takes the message), open-addressed under the per-boot key over
 * NET_PMTU_PROBE slots, each forgotten NET_PMTU_EXPIRE_S after its last
 * lowering. Keyed by port like the neighbour cache: a destination reached
 * through two ports has two paths, and a packet-too-big received on one
 * port says nothing about the other. A generation moves with every change
 * so that TCP looks again only then.
 */

#include <string.h>

#include <rte_cycles.h>

#include "ewyk_siphash.h"
#include "net_private.h"

static inline uint32_t
pmtu_hash(const struct ewyk_net_shard *s, uint16_t port, const uint8_t a[16])
{
	uint32_t w[5];

	memcpy(w, a, 16);
	w[4] = port;
	return (uint32_t)ewyk_siphash13(s->net->arp_k0, s->net->arp_k1, w, 5);
}

static struct net_pmtu_entry *
pmtu_find(struct ewyk_net_shard *s, uint16_t port, const uint8_t a[16],
	uint64_t now)
{
	uint32_t h = pmtu_hash(s, port, a);
	unsigned int i;

	for (i = 0; i < NET_PMTU_PROBE; i++) {
		struct net_pmtu_entry *e = &s->pmtu[(h + i) % NET_PMTU_ENTRIES];

		if (e->mtu != 0 && now < e->expire && e->port == port &&
			memcmp(e->ip, a, 16) == 0)
			return e;
	}
	return NULL;
}

/* Lower the path MTU towards dst through port (the caller floors mtu at
 * 1280). When the probe window is full, the entry that expires first
 * makes room. */
void
net_pmtu_update(struct ewyk_net_shard *s, uint16_t port, const uint8_t dst[16],
	uint32_t mtu, uint64_t now)
{
	struct net_pmtu_entry *e = pmtu_find(s, port, dst, now);
	uint32_t h;
	unsigned int i;

	if (e == NULL) {
		h = pmtu_hash(s, port, dst);
		for (i = 0; i < NET_PMTU_PROBE; i++) {
			struct net_pmtu_entry *c =
				&s->pmtu[(h + i) % NET_PMTU_ENTRIES];

			if (c->mtu == 0 || now >= c->expire) {
				e = c;
				break;
			}
			if (e == NULL || c->expire < e->expire)
				e = c;
		}
		memcpy(e->ip, dst, 16);
		e->port = port;
	}
	if (e->mtu == 0)
		s->pmtu_live++;
	e->mtu = (uint16_t)mtu;
	e->expire = now + rte_get_tsc_hz() * NET_PMTU_EXPIRE_S;
	if (e->expire < s->pmtu_next)
		s->pmtu_next = e->expire;
	/* 0 means "never lowered" (ewyk_net_pmtu6() skips its lookup) */
	if (++s->pmtu_gen == 0)
		s->pmtu_gen = 1;
}

/* Forget the path MTUs whose time is up (RFC 8201 4: the PMTU is raised
 * again after a while) and move the generation, so that connections
 * towards them recompute their MSS (ewyk_net_pmtu6_gen()) and the TX
 * templates built with them miss. Run by the housekeeping and, the moment
 * the first one is due, by net_pmtu_expire_due(). */
void
net_pmtu_housekeep(struct ewyk_net_shard *s, uint64_t now)
{
	uint64_t next = UINT64_MAX;
	uint32_t live = 0;
	bool expired = false;
	unsigned int i;

	if (s->pmtu_live == 0) {
		s->pmtu_next = UINT64_MAX;
		return;
	}
	for (i = 0; i < NET_PMTU_ENTRIES; i++) {
		struct net_pmtu_entry *e = &s->pmtu[i];

		if (e->mtu == 0)
			continue;
		if (now >= e->expire) {
			e->mtu = 0;
			expired = true;
		} else {
			live++;
			if (e->expire < next)
				next = e->expire;
		}
	}
	s->pmtu_live = live;
	s->pmtu_next = next;
	if (expired && ++s->pmtu_gen == 0)
		s->pmtu_gen = 1;
}

uint32_t
ewyk_net_pmtu6_gen(struct ewyk_net_shard *s)
{
	net_pmtu_expire_due(s);
	return s->pmtu_gen;
}

uint16_t
ewyk_net_pmtu6(struct ewyk_net_shard *s, uint16_t port, const uint8_t dst[16])
{
	const struct net_pmtu_entry *e;
	uint16_t mtu;

	if (port >= s->net->nb_ports)
		return 0;
	mtu = s->net->ports[port].mtu;
	net_pmtu_expire_due(s);
	/* No path MTU is lowered here: no lookup (every segment of TCP
	 * over IPv6 comes this way). */
	if (likely(s->pmtu_live == 0))
		return mtu;
	e = pmtu_find(s, port, dst, s->now);
	if (e != NULL && e->mtu < mtu)
		mtu = e->mtu;
	return mtu;
}
