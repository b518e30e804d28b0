/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counters: names (from the one list, EWYK_TCP_COUNTERS), per-context
 * reads, sums over the contexts of every shard. The context of a shard is
 * in the registry of lib/common (memzone "ewyk_tcp") under the shard id,
 * so the telemetry follows the scheme of docs/guides/telemetry.md:
 *   /ewyk/tcp/list        shard ids
 *   /ewyk/tcp/stats       counters and connection states over all shards
 *   /ewyk/tcp/stats,<id>  those of one shard
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <ewyk_common.h>

#include "tcp_private.h"

/*
 * Shard id -> context, for ewyk_tcp_get() (written at create/free only):
 * an array read without a lock, where the registry takes one.
 */
static struct ewyk_tcp *tcp_registry[EWYK_NET_MAX_SHARDS];

/* Counters (the one list), then the connection states as gauges. */
#define TCP_STATES(X)                                                          \
	X(SYN_SENT, state_syn_sent, GAUGE, "Connections in SYN-SENT")          \
	X(SYN_RECEIVED, state_syn_received, GAUGE,                             \
		"Connections in SYN-RECEIVED")                                 \
	X(ESTABLISHED, state_established, GAUGE, "Connections in ESTABLISHED") \
	X(FIN_WAIT_1, state_fin_wait_1, GAUGE, "Connections in FIN-WAIT-1")    \
	X(FIN_WAIT_2, state_fin_wait_2, GAUGE, "Connections in FIN-WAIT-2")    \
	X(CLOSE_WAIT, state_close_wait, GAUGE, "Connections in CLOSE-WAIT")    \
	X(CLOSING, state_closing, GAUGE, "Connections in CLOSING")             \
	X(LAST_ACK, state_last_ack, GAUGE, "Connections in LAST-ACK")          \
	X(TIME_WAIT, state_time_wait, GAUGE, "Connections in TIME-WAIT")

static const struct ewyk_ctr_desc tcp_ctr[] = { EWYK_TCP_COUNTERS(EWYK_CTR_DESC)
		TCP_STATES(EWYK_CTR_DESC) };
static_assert(RTE_DIM(tcp_ctr) ==
		EWYK_TCP_COUNTER_MAX + EWYK_TCP_STATE_MAX - EWYK_TCP_SYN_SENT,
	"every counter, every state from SYN-SENT on");

const char *
ewyk_tcp_counter_name(enum ewyk_tcp_counter c)
{
	if ((unsigned int)c >= EWYK_TCP_COUNTER_MAX)
		return NULL;
	return tcp_ctr[c].name;
}

uint64_t
ewyk_tcp_counter_get(const struct ewyk_tcp *t, enum ewyk_tcp_counter c)
{
	if (t == NULL || (unsigned int)c >= EWYK_TCP_COUNTER_MAX)
		return 0;
	return __atomic_load_n(&t->ctr[c], __ATOMIC_RELAXED);
}

uint64_t
ewyk_tcp_state_count(const struct ewyk_tcp *t, enum ewyk_tcp_state s)
{
	if (t == NULL || (unsigned int)s >= EWYK_TCP_STATE_MAX)
		return 0;
	return __atomic_load_n(&t->states[s], __ATOMIC_RELAXED);
}

int
ewyk_tcp_mem(const struct ewyk_tcp *t, struct ewyk_tcp_mem_info *m)
{
	uint64_t all;

	if (t == NULL || m == NULL)
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	m->max_conns = t->conf.max_conns;
	m->pool_bytes = ewyk_pool_mem_bytes(t->conn_pool);
	m->table_bytes = (uint64_t)t->conf.hash_buckets * sizeof(t->buckets[0]);
	if (t->src_cnt != NULL)
		m->table_bytes += ((uint64_t)t->src_mask + 1) *
				sizeof(*t->src_cnt) +
			(uint64_t)t->conf.max_conns * sizeof(*t->src_of);
	all = m->pool_bytes + m->table_bytes;
	m->conn_bytes = (uint32_t)((all + m->max_conns - 1) / m->max_conns);
	return 0;
}

struct ewyk_tcp *
ewyk_tcp_get(uint16_t shard_id)
{
	if (shard_id >= EWYK_NET_MAX_SHARDS)
		return NULL;
	return __atomic_load_n(&tcp_registry[shard_id], __ATOMIC_ACQUIRE);
}

uint64_t
ewyk_tcp_counter_sum(enum ewyk_tcp_counter c)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < EWYK_NET_MAX_SHARDS; i++)
		sum += ewyk_tcp_counter_get(ewyk_tcp_get((uint16_t)i), c);
	return sum;
}

static void
tcp_read(const void *obj, uint64_t *v)
{
	unsigned int c, i = 0;

	for (c = 0; c < EWYK_TCP_COUNTER_MAX; c++)
		v[i++] = ewyk_tcp_counter_get(obj, c);
#define TCP_READ_STATE(sym, name, type, help) \
	v[i++] = ewyk_tcp_state_count(obj, EWYK_TCP_##sym);
	TCP_STATES(TCP_READ_STATE)
#undef TCP_READ_STATE
}

static const struct ewyk_registry tcp_reg = {
	.lib = "tcp",
	.what = "TCP shards",
	.ctr = tcp_ctr,
	.nb_ctr = RTE_DIM(tcp_ctr),
	.read = tcp_read,
	.prom_label = "shard",
};

EWYK_REGISTRY_TELEMETRY(tcp_reg)

int
ewyk_tcp_prometheus(char *buf, size_t size)
{
	return ewyk_registry_prometheus(&tcp_reg, tcp_reg.prom_label, buf,
		size);
}

int
tcp_registry_check(uint16_t shard_id)
{
	if (shard_id >= EWYK_NET_MAX_SHARDS)
		return -EINVAL;
	return ewyk_tcp_get(shard_id) != NULL ? -EEXIST : 0;
}

int
tcp_registry_add(struct ewyk_tcp *t)
{
	char name[8];
	int ret;

	snprintf(name, sizeof(name), "%u", t->shard_id);
	ret = ewyk_registry_add(&tcp_reg, name, t);
	if (ret < 0)
		return ret;
	__atomic_store_n(&tcp_registry[t->shard_id], t, __ATOMIC_RELEASE);
	t->registered = true;
	return 0;
}

void
tcp_registry_del(struct ewyk_tcp *t)
{
	ewyk_registry_del(&tcp_reg, t);
	__atomic_store_n(&tcp_registry[t->shard_id], NULL, __ATOMIC_RELEASE);
	t->registered = false;
}
