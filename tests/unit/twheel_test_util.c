/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The lib/twheel unit tests' shared helpers (twheel_test_util.h).
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_memory.h>

#include <ewyk_twheel.h>

#include "test_common.h"
#include "twheel_test_util.h"

struct ewyk_twheel *
mk_wheel_slack(const char *name, unsigned int slack)
{
	struct ewyk_twheel_params p = {
		.name = name,
		.socket_id = SOCKET_ID_ANY,
		.tick_shift = SHIFT,
		.start_tsc = START,
		.slack_shift = slack,
	};
	struct ewyk_twheel *w = ewyk_twheel_create(&p);

	assert_non_null(w);
	return w;
}

/* An exact wheel (fires within one tick). */
struct ewyk_twheel *
mk_wheel(const char *name)
{
	return mk_wheel_slack(name, EWYK_TWHEEL_SLACK_EXACT);
}

void
rec_cb(struct ewyk_twheel *w, struct ewyk_twheel_timer *t, void *arg)
{
	struct rec *r = arg;

	assert_ptr_equal(&r->tm, t);
	assert_false(ewyk_twheel_pending(t));
	r->fired++;
	r->fired_at = ewyk_twheel_now(w);
}
