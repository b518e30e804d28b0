/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Keyed hashing for ISNs (RFC 6528), timestamp offsets (RFC 7323 section
 * 7.1) and SYN cookies (RFC 4987): SipHash-2-4 (ewyk_siphash.h) keyed
 * by per-context secrets from getentropy().
 *
 * SYN cookie (our ISS when a listener's backlog is full):
 *   bits 31..27  time slot (64 s) modulo 32
 *   bits 26..24  index into the MSS table
 *   bits 23..0   SipHash(4-tuple, peer ISN, whole slot) & 0xffffff
 * With timestamps, the low 6 bits of our TSval carry what else the SYN
 * asked for: bit 0 SACK permitted, bits 1..4 window scale (15: none).
 */

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <rte_errno.h>

#include "ewyk_siphash.h"
#include "tcp_private.h"

/*
 * Three keys, each its own 128 bits from getentropy() (or, with
 * conf.secret, derived from it, for reproducible tests): k for ISNs,
 * timestamp offsets and the challenge-ACK budget; ck for SYN cookies, so
 * that learning one (say from ISNs) tells nothing of the other; hk for
 * the connection table. Returns 0, or -1 with rte_errno set.
 */
int
tcp_crypto_init(struct ewyk_tcp *t)
{
	uint64_t k[6];
	unsigned int i;

	if (t->conf.secret != 0) {
		for (i = 0; i < RTE_DIM(k); i++) {
			uint32_t w[3] = {
				0x6b657930 + i,
				(uint32_t)t->conf.secret,
				(uint32_t)(t->conf.secret >> 32),
			};

			k[i] = ewyk_siphash24(UINT64_C(0x65777966), 0, w, 3);
		}
	} else if (getentropy(k, sizeof(k)) != 0) {
		rte_errno = errno;
		return -1;
	}
	t->k0 = k[0];
	t->k1 = k[1];
	t->ck0 = k[2];
	t->ck1 = k[3];
	t->hk0 = k[4];
	t->hk1 = k[5];
	return 0;
}

/*
 * The tuple as a segment that arrived has it: ip->dst and lport ours.
 * IPv4 hashes the tag, the addresses and the ports (16 bytes), IPv6 the
 * ports and the addresses (36 bytes); a SYN cookie adds @p x and @p y
 * (the peer's ISN, the time slot) after them. Under one key the lengths
 * keep the families apart (and apart from tcp_keyed_rand()'s 12 bytes),
 * so no IPv6 tuple collides with an IPv4 one by construction. What
 * must go in, for the ISN (RFC 6528) and the cookie to stay unguessable
 * off-path: both addresses, both ports, and the secret key; an ISN
 * hashes no x and y.
 */
static uint64_t
tuple_hash(struct ewyk_tcp *t, uint32_t tag, const struct tcp_ip *ip,
	uint16_t lport, uint16_t rport, bool xy, uint32_t x, uint32_t y)
{
	uint32_t w[12];
	size_t n;

	if (ip->v6) {
		w[0] = ((uint32_t)lport << 16) | rport;
		memcpy(&w[1], ip->dst.b, 16);
		memcpy(&w[5], ip->src.b, 16);
		n = 9;
	} else {
		w[0] = tag;
		w[1] = ip->dst.v4;
		w[2] = ip->src.v4;
		w[3] = ((uint32_t)lport << 16) | rport;
		n = 4;
	}
	if (xy) {
		w[n] = x;
		w[n + 1] = y;
		n += 2;
	}
	/* SYN cookies (tag 3) have their own key. */
	if (tag == 3)
		return ewyk_siphash24(t->ck0, t->ck1, w, n);
	return ewyk_siphash24(t->k0, t->k1, w, n);
}

/*
 * One SipHash-2-4 of the 4-tuple gives a connection both of its secrets:
 * the low half is F of the ISN (RFC 6528), the high half the timestamp
 * offset (RFC 7323 5.4). The halves of a keyed hash's output tell nothing
 * of each other, and a new connection hashes once instead of twice.
 */
uint32_t
tcp_isn_ts(struct ewyk_tcp *t, const struct tcp_ip *ip, uint16_t lport,
	uint16_t rport, uint32_t *ts_off)
{
	/* M: a 4 us clock; F: keyed hash of the 4-tuple. */
	uint32_t m = (uint32_t)(t->now / (4 * t->cyc_us));
	uint64_t h = tuple_hash(t, 1, ip, lport, rport, false, 0, 0);

	*ts_off = (uint32_t)(h >> 32);
	return m + (uint32_t)h;
}

uint32_t
tcp_ts_offset(struct ewyk_tcp *t, const struct tcp_ip *ip, uint16_t lport,
	uint16_t rport)
{
	return (uint32_t)(tuple_hash(t, 1, ip, lport, rport, false, 0, 0) >>
		32);
}

static const uint16_t cookie_mss[8] = { 536, 1024, 1220, 1360, 1400, 1440, 1460,
	8960 };

static uint32_t
cookie_slot(struct ewyk_tcp *t)
{
	return (uint32_t)(t->now / (t->hz * TCP_COOKIE_PERIOD_S));
}

uint32_t
tcp_cookie_make(struct ewyk_tcp *t, const struct tcp_ip *ip, uint16_t lport,
	uint16_t rport, uint32_t peer_isn, uint16_t *mss)
{
	uint32_t slot = cookie_slot(t);
	uint32_t idx = 0;
	uint32_t h;
	unsigned int i;

	for (i = 0; i < RTE_DIM(cookie_mss); i++)
		if (cookie_mss[i] <= *mss)
			idx = i;
	*mss = cookie_mss[idx];
	h = (uint32_t)tuple_hash(t, 3, ip, lport, rport, true, peer_isn, slot);
	return ((slot & 0x1f) << 27) | (idx << 24) | (h & 0xffffff);
}

int
tcp_cookie_check(struct ewyk_tcp *t, const struct tcp_ip *ip, uint16_t lport,
	uint16_t rport, uint32_t peer_isn, uint32_t cookie)
{
	uint32_t now = cookie_slot(t);
	uint32_t slot = cookie >> 27;
	uint32_t idx = (cookie >> 24) & 7;
	uint32_t h;

	/*
	 * Valid for the current slot and the one before (64 to 128 s). The
	 * cookie carries 5 bits of the slot; the hash covers all of it, so
	 * a cookie does not come back to life 32 slots (34 min) later.
	 */
	if (slot == (now & 0x1f))
		slot = now;
	else if (slot == ((now - 1) & 0x1f))
		slot = now - 1;
	else
		return -1;
	h = (uint32_t)tuple_hash(t, 3, ip, lport, rport, true, peer_isn, slot);
	if ((h & 0xffffff) != (cookie & 0xffffff))
		return -1;
	return cookie_mss[idx];
}

uint32_t
tcp_cookie_tsval(uint32_t ts_now, int wscale, bool sack)
{
	uint32_t bits = (sack ? 1u : 0u) |
		((uint32_t)(wscale < 0 ? 15 : wscale) << 1);
	uint32_t ts = (ts_now & ~0x3fu) | bits;

	/* Never ahead of the clock: later TSvals must not look older. */
	if (SEQ_GT(ts, ts_now))
		ts -= 0x40;
	return ts;
}

void
tcp_cookie_ts_decode(uint32_t tsecr, int *wscale, bool *sack)
{
	uint32_t ws = (tsecr >> 1) & 0xf;

	*sack = (tsecr & 1) != 0;
	*wscale = ws == 15 ? -1 : (int)RTE_MIN(ws, (uint32_t)TCP_MAX_WSCALE);
}

uint32_t
tcp_keyed_rand(struct ewyk_tcp *t, uint32_t tag, uint64_t x)
{
	uint32_t w[3] = { tag, (uint32_t)x, (uint32_t)(x >> 32) };

	return (uint32_t)ewyk_siphash24(t->k0, t->k1, w, RTE_DIM(w));
}
