/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What every service of a shard shares to dispatch work: the purgatory of
 * delayed operations (deadlines on the shard's wheel) and the message
 * inbox through which tasks running on any lcore hand their results to
 * the token holder. Every result posted starts with a struct httpd_msg,
 * whose apply function the holder calls: one inbox for the slow echo,
 * HTTP dispatch and hashing tasks.
 *
 * The inbox has one slot per operation the purgatory can hold plus one
 * per hashing task: every task reserves its slot when dispatched, so a
 * completion that won its claim always fits.
 */

#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include "httpd.h"

/* Delayed operations per shard (slow echo and HTTP tasks together). */
#define HTTPD_MAX_OPS 8192
/* Inbox slots: every op, and as many hashing tasks again. */
#define HTTPD_INBOX_SLOTS (2 * HTTPD_MAX_OPS)

static void
tasks_apply(void *arg, struct ewyk_net_shard *s, uint64_t ticket, void *result)
{
	struct httpd_shard *sh = arg;
	struct httpd_msg *m = result;

	RTE_SET_USED(s);
	RTE_SET_USED(ticket);
	m->apply(sh, m);
}

uint64_t
httpd_task_deadline(const struct httpd_shard *sh)
{
	return sh->now +
		rte_get_tsc_hz() / 1000 * sh->app->conf.task_timeout_ms;
}

int
httpd_tasks_shard_init(struct httpd_shard *sh)
{
	struct ewyk_purgatory_params pp;
	char name[32];
	int rc;

	if (sh->purg != NULL)
		return 0;
	snprintf(name, sizeof(name), "httpd_purg_%u", sh->id);
	memset(&pp, 0, sizeof(pp));
	pp.name = name;
	pp.socket_id = (int)rte_lcore_to_socket_id(sh->home);
	pp.wheel = sh->wheel;
	pp.capacity = HTTPD_MAX_OPS;
	sh->purg = ewyk_purgatory_create(&pp);
	if (sh->purg == NULL) {
		fprintf(stderr, "error: purgatory of shard %u: %s\n", sh->id,
			rte_strerror(rte_errno));
		return -1;
	}
	rc = ewyk_net_inbox_create(sh->shard, HTTPD_INBOX_SLOTS, tasks_apply,
		sh);
	if (rc != 0) {
		fprintf(stderr, "error: inbox of shard %u: %s\n", sh->id,
			rte_strerror(-rc));
		return -1;
	}
	return 0;
}

void
httpd_tasks_shard_free(struct httpd_shard *sh)
{
	/* Completions still queued hand their results back first. */
	if (sh->purg != NULL)
		ewyk_net_msg_inbox_drain(sh->shard, UINT32_MAX);
	ewyk_purgatory_free(sh->purg);
	sh->purg = NULL;
}
