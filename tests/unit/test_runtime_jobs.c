/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/runtime: modules' hooks and their order, and jobs started and
 * cancelled directly (ewyk_rt_job_start(), ewyk_rt_job_cancel()) from a
 * module's poll hook, on a virtual clock.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "runtime_test_util.h"

/* ---- modules ---- */

static char hook_log[512];

static void
log_add(char what, const char *name)
{
	size_t n = strlen(hook_log);

	snprintf(hook_log + n, sizeof(hook_log) - n, "%c%s,", what, name);
}

static int
mod_init(struct ewyk_rt_shard *sh, void *arg)
{
	const char *name = arg;

	assert_int_equal(ewyk_rt_shard_id(sh), 0);
	log_add('i', name);
	return name[0] == 'X' ? -EIO : 0;
}

static void
mod_poll(struct ewyk_rt_shard *sh, uint64_t now, void *arg)
{
	/* the loop's time, and the handler finds its shard */
	assert_int_equal(now, RTW.vnow);
	assert_ptr_equal(ewyk_rt_shard_current(), sh);
	log_add('p', arg);
}

static void
mod_depart(struct ewyk_rt_shard *sh, void *arg)
{
	RTE_SET_USED(sh);
	log_add('d', arg);
}

static void
mod_fini(struct ewyk_rt_shard *sh, void *arg)
{
	RTE_SET_USED(sh);
	log_add('f', arg);
}

static void
add_module(const char *name)
{
	struct ewyk_rt_module m = {
		.name = name,
		.init = mod_init,
		.poll = mod_poll,
		.depart = mod_depart,
		.fini = mod_fini,
		.arg = (void *)(uintptr_t)name,
	};

	assert_int_equal(ewyk_rt_module_add(RTW.rt, &m), 0);
}

/* init per shard in the order added, poll every iteration in that order,
 * depart when production leaves the lcore, fini in reverse order. */
void
test_modules_order(void **state)
{
	(void)state;
	rtw_create(EWYK_STRATEGY_PC, 0);
	hook_log[0] = '\0';
	add_module("A");
	add_module("B");
	assert_string_equal(hook_log, "");
	assert_int_equal(rt_test_start(RTW.rt), 0);
	assert_string_equal(hook_log, "iA,iB,");
	hook_log[0] = '\0';
	assert_null(ewyk_rt_shard_current());
	/* one iteration with nothing to do, then production leaves */
	assert_int_equal(rt_test_step(RTW.rt, 0),
		EWYK_STRATEGY_PRODUCE_STOPPED);
	assert_string_equal(hook_log, "pA,pB,dA,dB,");
	assert_null(ewyk_rt_shard_current());
	hook_log[0] = '\0';
	rtw_advance_ms(5);
	assert_int_equal(rt_test_step(RTW.rt, 0),
		EWYK_STRATEGY_PRODUCE_STOPPED);
	assert_string_equal(hook_log, "pA,pB,dA,dB,");
	assert_int_equal(ewyk_rt_shard_now(RTW.sh), RTW.vnow);
	hook_log[0] = '\0';
	rtw_free();
	assert_string_equal(hook_log, "fB,fA,");
}

/* A module's init fails: the start fails, no later module is
 * initialised, and fini runs only where init succeeded. */
void
test_modules_init_fails(void **state)
{
	(void)state;
	rtw_create(EWYK_STRATEGY_PC, 0);
	hook_log[0] = '\0';
	add_module("A");
	add_module("X");
	add_module("B");
	assert_int_equal(rt_test_start(RTW.rt), -1);
	assert_string_equal(hook_log, "iA,iX,");
	hook_log[0] = '\0';
	rtw_free();
	assert_string_equal(hook_log, "fA,");
}

/* ---- jobs ---- */

enum { J_NONE, J_START, J_START_CANCEL };

static struct {
	struct ewyk_rt_job job;
	int cmd;
	int rc; /* of ewyk_rt_job_start() */
	uint64_t deadline;
	unsigned int runs, dones, drops;
	enum ewyk_strategy_mode run_mode;
	enum ewyk_rt_outcome outcome;
	int ret;
	struct ewyk_rt_job *done_job;
	void *done_ctx;
} J;

static int
job_run(struct ewyk_rt_job *j, enum ewyk_strategy_mode mode)
{
	assert_ptr_equal(j, &J.job);
	J.runs++;
	J.run_mode = mode;
	return 42;
}

static void
job_done(void *ctx, struct ewyk_rt_job *j, enum ewyk_rt_outcome o, int ret)
{
	J.dones++;
	J.done_ctx = ctx;
	J.done_job = j;
	J.outcome = o;
	J.ret = ret;
}

static void
job_drop(struct ewyk_rt_job *j)
{
	assert_ptr_equal(j, &J.job);
	J.drops++;
}

static const struct ewyk_rt_job_ops job_ops = {
	.invocation = EWYK_STRATEGY_INVOKE_BLOCKING,
	.run = job_run,
	.done = job_done,
	.drop = job_drop,
};

static void
job_poll(struct ewyk_rt_shard *sh, uint64_t now, void *arg)
{
	RTE_SET_USED(now);
	RTE_SET_USED(arg);
	if (J.cmd == J_NONE)
		return;
	J.rc = ewyk_rt_job_start(sh, &J.job, &job_ops, &J, J.deadline);
	if (J.rc == 0 && J.cmd == J_START_CANCEL)
		ewyk_rt_job_cancel(&J.job);
	J.cmd = J_NONE;
}

static void
jobs_world(enum ewyk_strategy_kind kind)
{
	struct ewyk_rt_module m = { .name = "jobs", .poll = job_poll };

	memset(&J, 0, sizeof(J));
	rtw_create(kind, 0);
	assert_int_equal(ewyk_rt_module_add(RTW.rt, &m), 0);
	assert_int_equal(rt_test_start(RTW.rt), 0);
}

static uint64_t
count(enum ewyk_rt_task_ctr c)
{
	return ewyk_rt_task_count(RTW.sh, c);
}

/* A job runs and its holder gets done() with run()'s value; outside the
 * loop nothing can be started. */
void
test_job_done(void **state)
{
	(void)state;
	jobs_world(EWYK_STRATEGY_PC);
	assert_int_equal(ewyk_rt_job_start(RTW.sh, &J.job, &job_ops, &J, 0),
		-EAGAIN);
	assert_int_equal(count(EWYK_RT_TASK_DISPATCHED), 0);
	J.cmd = J_START;
	assert_int_equal(rt_test_step(RTW.rt, 0),
		EWYK_STRATEGY_PRODUCE_STOPPED);
	assert_int_equal(J.rc, 0);
	assert_int_equal(J.runs, 1);
	assert_int_equal(J.run_mode, EWYK_STRATEGY_MODE_PC);
	assert_int_equal(J.dones, 1);
	assert_int_equal(J.outcome, EWYK_RT_DONE);
	assert_int_equal(J.ret, 42);
	assert_ptr_equal(J.done_job, &J.job);
	assert_ptr_equal(J.done_ctx, &J);
	assert_int_equal(J.drops, 0);
	assert_int_equal(count(EWYK_RT_TASK_DISPATCHED), 1);
	assert_int_equal(count(EWYK_RT_TASK_DONE), 1);
	/* the default deadline: now + the task timeout */
	assert_int_equal(J.job.deadline,
		RTW.vnow + RTW.hz / 1000 * RTW_TIMEOUT_MS);
	rtw_free();
}

/* Cancelled before it ran: it still runs, drop() frees it, done() is
 * never called. */
void
test_job_cancel(void **state)
{
	(void)state;
	jobs_world(EWYK_STRATEGY_PC);
	J.cmd = J_START_CANCEL;
	assert_int_equal(rt_test_step(RTW.rt, 0),
		EWYK_STRATEGY_PRODUCE_STOPPED);
	assert_int_equal(J.rc, 0);
	assert_int_equal(J.runs, 1);
	assert_int_equal(J.drops, 1);
	assert_int_equal(J.dones, 0);
	assert_int_equal(count(EWYK_RT_TASK_ORPHANED), 1);
	assert_int_equal(count(EWYK_RT_TASK_LATE), 1);
	assert_int_equal(count(EWYK_RT_TASK_DONE), 0);
	/* time passes: the cancelled deadline never fires */
	rtw_advance_ms(RTW_TIMEOUT_MS + RTW_SLACK_MS(RTW_TIMEOUT_MS));
	assert_int_equal(rt_test_step(RTW.rt, 0),
		EWYK_STRATEGY_PRODUCE_STOPPED);
	assert_int_equal(J.dones, 0);
	assert_int_equal(count(EWYK_RT_TASK_TIMED_OUT), 0);
	rtw_free();
}

/* A queued job's deadline comes first: done(TIMED_OUT) with no job; when
 * it ends at last, drop() frees it. */
void
test_job_deadline(void **state)
{
	(void)state;
	jobs_world(EWYK_STRATEGY_PEC);
	J.deadline = RTW.vnow + 10 * (RTW.hz / 1000);
	J.cmd = J_START;
	assert_int_equal(rt_test_step(RTW.rt, 0),
		EWYK_STRATEGY_PRODUCE_STOPPED);
	assert_int_equal(J.rc, 0);
	assert_int_equal(J.runs, 0);
	assert_int_equal(J.dones, 0);
	rtw_advance_ms(9);
	assert_int_equal(rt_test_step(RTW.rt, 0),
		EWYK_STRATEGY_PRODUCE_STOPPED);
	assert_int_equal(J.dones, 0);
	rtw_advance_ms(1 + RTW_SLACK_MS(10));
	assert_int_equal(rt_test_step(RTW.rt, 0),
		EWYK_STRATEGY_PRODUCE_STOPPED);
	assert_int_equal(J.dones, 1);
	assert_int_equal(J.outcome, EWYK_RT_TIMED_OUT);
	assert_null(J.done_job);
	assert_int_equal(J.drops, 0);
	assert_int_equal(count(EWYK_RT_TASK_TIMED_OUT), 1);
	assert_int_equal(rt_test_run_queued(RTW.rt, UINT32_MAX), 1);
	assert_int_equal(J.drops, 1);
	assert_int_equal(J.dones, 1);
	assert_int_equal(count(EWYK_RT_TASK_LATE), 1);
	assert_int_equal(rt_test_step(RTW.rt, 0),
		EWYK_STRATEGY_PRODUCE_STOPPED);
	assert_int_equal(J.dones, 1);
	rtw_free();
}
