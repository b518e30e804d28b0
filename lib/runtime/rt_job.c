/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Jobs: work a holder hands to the strategy, whose result comes back to
 * the holder. One protocol for every kind of dispatched work (a BLOCKING
 * HTTP route, a hashing task, a slow echo's chunk):
 *
 *  1. start (holder, in the loop): a delayed operation is added to the
 *     shard's purgatory with the deadline, a slot of the shard's inbox is
 *     reserved, and a task holding the op's *ticket* (never the caller's
 *     context) is yielded to the strategy.
 *  2. run (any lcore, in the mode the strategy chose): the job's run(),
 *     then one CAS claims the op. Won: the job goes back on the reserved
 *     inbox slot (never refused). Lost (deadline or cancel came first, or
 *     the result is late even where the holder could not see the
 *     deadline pass: a job run in place under PC): the slot is given
 *     back and drop() frees the job, counted "late".
 *  3. apply (holder, draining the inbox): finish the op, done().
 *  Deadline first (holder, on the wheel): done() with TIMED_OUT. Cancel
 *  first (holder): done() is never called.
 *
 * The inbox has one slot per operation the purgatory can hold, so a
 * completion that won its claim always fits.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include "rt_private.h"

static const char *const task_ctr_names[EWYK_RT_TASK_CTR_MAX] = {
	[EWYK_RT_TASK_DISPATCHED] = "dispatched",
	[EWYK_RT_TASK_DONE] = "done",
	[EWYK_RT_TASK_TIMED_OUT] = "timed_out",
	[EWYK_RT_TASK_REJECTED] = "rejected",
	[EWYK_RT_TASK_DROPPED] = "dropped",
	[EWYK_RT_TASK_LATE] = "late",
	[EWYK_RT_TASK_ORPHANED] = "orphaned",
	[EWYK_RT_TASK_HEAD_BUSY] = "head_busy",
	[EWYK_RT_TASK_FAILED] = "failed",
	[EWYK_RT_TASK_BODY_PIECES] = "body_pieces",
};

const char *
ewyk_rt_task_ctr_name(unsigned int c)
{
	return c < EWYK_RT_TASK_CTR_MAX ? task_ctr_names[c] : NULL;
}

uint64_t
ewyk_rt_task_count(const struct ewyk_rt_shard *sh, enum ewyk_rt_task_ctr c)
{
	if (sh == NULL || (unsigned int)c >= EWYK_RT_TASK_CTR_MAX)
		return 0;
	return __atomic_load_n(&sh->task[c], __ATOMIC_RELAXED);
}

uint64_t
ewyk_rt_task_deadline(const struct ewyk_rt_shard *sh)
{
	uint64_t now = sh->now != 0 ? sh->now : rt_now();

	return now + rte_get_tsc_hz() / 1000 * sh->rt->conf.task_timeout_ms;
}

/* Step 2, on whatever lcore the strategy picked. */
static void
job_task(void *arg, enum ewyk_strategy_mode mode)
{
	struct ewyk_rt_job *j = arg;
	struct ewyk_rt_shard *sh = j->sh;

	if (!j->ops->body_piece)
		rt_count_mode(sh->rt, mode);
	if (mode == EWYK_STRATEGY_MODE_REJECTED) {
		j->outcome = EWYK_RT_REFUSED;
	} else if (mode == EWYK_STRATEGY_MODE_DROPPED) {
		j->outcome = EWYK_RT_DROPPED;
	} else {
		j->ret = j->ops->run(j, mode);
		j->outcome = EWYK_RT_DONE;
	}
	if ((j->outcome == EWYK_RT_REFUSED || rt_now() < j->deadline) &&
		ewyk_purgatory_claim(j->ticket) == 0) {
		/* Won: the reserved slot makes this never fail. */
		ewyk_net_inbox_complete(sh->net, 0, j, 1);
		return;
	}
	/* Late, or lost to the deadline or to a cancel. */
	ewyk_net_inbox_unreserve(sh->net);
	__atomic_fetch_add(&sh->task[EWYK_RT_TASK_LATE], 1, __ATOMIC_RELAXED);
	j->ops->drop(j);
}

/* Count @p c, an outcome that ends @p j's work. A body piece that ends
 * its request that way also counts the request's dispatched, here and
 * only here: its fn never runs, and every request that counts an
 * outcome counts dispatched once (docs/guides/runtime.md). */
static void
job_end_count(struct ewyk_rt_shard *sh, const struct ewyk_rt_job *j,
	enum ewyk_rt_task_ctr c)
{
	if (j->ops->body_piece)
		rt_task_count(sh, EWYK_RT_TASK_DISPATCHED);
	rt_task_count(sh, c);
}

/* Step 3: the holder applies a result from the inbox. */
static void
job_apply(void *arg, struct ewyk_net_shard *s, uint64_t ticket, void *result)
{
	struct ewyk_rt_shard *sh = arg;
	struct ewyk_rt_job *j = result;

	RTE_SET_USED(s);
	RTE_SET_USED(ticket);
	ewyk_purgatory_finish(sh->purg, j->ticket);
	if (j->orphaned) {
		/* Cancelled while its result was on its way. */
		job_end_count(sh, j, EWYK_RT_TASK_ORPHANED);
		j->ops->drop(j);
		return;
	}
	switch (j->outcome) {
	case EWYK_RT_REFUSED:
		job_end_count(sh, j, EWYK_RT_TASK_REJECTED);
		break;
	case EWYK_RT_DROPPED:
		job_end_count(sh, j, EWYK_RT_TASK_DROPPED);
		break;
	default:
		if (j->ret < 0)
			job_end_count(sh, j, EWYK_RT_TASK_FAILED);
		else if (!j->ops->body_piece)
			rt_task_count(sh, EWYK_RT_TASK_DONE);
		break;
	}
	j->ops->done(j->ctx, j, (enum ewyk_rt_outcome)j->outcome, j->ret);
}

static void
op_complete(struct ewyk_purgatory_op *op, void *ctx)
{
	RTE_SET_USED(op);
	RTE_SET_USED(ctx);
}

/* The deadline came first (holder, from the wheel). */
static void
op_expire(struct ewyk_purgatory_op *op, void *ctx)
{
	struct ewyk_rt_job *j = ctx;

	RTE_SET_USED(op);
	job_end_count(j->sh, j, EWYK_RT_TASK_TIMED_OUT);
	/* ops and ctx were written before the job was yielded and are never
	 * written again: reading them beside the running job is safe. */
	j->ops->done(j->ctx, NULL, EWYK_RT_TIMED_OUT, 0);
}

static const struct ewyk_purgatory_op_ops job_op_ops = {
	.on_complete = op_complete,
	.on_expire = op_expire,
};

int
ewyk_rt_job_start(struct ewyk_rt_shard *sh, struct ewyk_rt_job *j,
	const struct ewyk_rt_job_ops *ops, void *ctx, uint64_t deadline)
{
	struct ewyk_strategy_task t;
	struct ewyk_purgatory_op *op;

	if (sh == NULL || j == NULL || ops == NULL || ops->run == NULL ||
		ops->done == NULL || ops->drop == NULL)
		return -EINVAL;
	if (sh->out == NULL)
		return -EAGAIN;
	if (sh->out_n == sh->out_max) {
		rt_task_count(sh, EWYK_RT_TASK_REJECTED);
		return -ENOBUFS;
	}
	if (deadline == 0)
		deadline = ewyk_rt_task_deadline(sh);
	if (ewyk_net_inbox_reserve(sh->net) != 0) {
		rt_task_count(sh, EWYK_RT_TASK_REJECTED);
		return -ENOSPC;
	}
	op = ewyk_purgatory_add(sh->purg, &job_op_ops, j, deadline, NULL, 0);
	if (op == NULL) {
		ewyk_net_inbox_unreserve(sh->net);
		rt_task_count(sh, EWYK_RT_TASK_REJECTED);
		return -ENOSPC;
	}
	j->ops = ops;
	j->sh = sh;
	j->ctx = ctx;
	j->ticket = ewyk_purgatory_ticket(op);
	j->deadline = deadline;
	j->ret = 0;
	j->outcome = EWYK_RT_DONE;
	j->orphaned = 0;
	t = (struct ewyk_strategy_task){ .fn = job_task,
		.arg = j,
		.invocation = ops->invocation,
		.deadline = deadline };
	sh->out[sh->out_n++] = t;
	rt_task_count(sh,
		ops->body_piece ? EWYK_RT_TASK_BODY_PIECES :
				  EWYK_RT_TASK_DISPATCHED);
	return 0;
}

void
ewyk_rt_job_cancel(struct ewyk_rt_job *j)
{
	struct ewyk_rt_shard *sh = j->sh;

	if (ewyk_purgatory_cancel(sh->purg, j->ticket.op) == 0)
		job_end_count(sh, j,
			EWYK_RT_TASK_ORPHANED); /* drop() at its end */
	else
		j->orphaned = 1; /* claimed: job_apply() drops it */
}

int
rt_jobs_shard_init(struct ewyk_rt_shard *sh)
{
	struct ewyk_purgatory_params pp;
	char name[32];
	int rc;

	snprintf(name, sizeof(name), "rt_purg_%u", sh->id);
	memset(&pp, 0, sizeof(pp));
	pp.name = name;
	pp.socket_id = sh->socket;
	pp.wheel = sh->wheel;
	pp.capacity = RT_MAX_OPS;
	sh->purg = ewyk_purgatory_create(&pp);
	if (sh->purg == NULL) {
		RT_LOG(ERR, "error: purgatory of shard %u: %s", sh->id,
			rte_strerror(rte_errno));
		return -1;
	}
	rc = ewyk_net_inbox_create(sh->net, RT_INBOX_SLOTS, job_apply, sh);
	if (rc != 0) {
		RT_LOG(ERR, "error: inbox of shard %u: %s", sh->id,
			rte_strerror(-rc));
		return -1;
	}
	return 0;
}

void
rt_jobs_drain(struct ewyk_rt_shard *sh)
{
	if (sh->purg != NULL && sh->net != NULL)
		ewyk_net_msg_inbox_drain(sh->net, UINT32_MAX);
}

void
rt_jobs_shard_free(struct ewyk_rt_shard *sh)
{
	/* Completions still queued hand their results back first. */
	rt_jobs_drain(sh);
	ewyk_purgatory_free(sh->purg);
	sh->purg = NULL;
}
