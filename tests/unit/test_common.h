/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_TEST_COMMON_H
#define EWYK_TEST_COMMON_H

/**
 * @file
 * Shared set-up for the cmocka unit tests.
 *
 * Every unit test runs without hugepages, without PCI and without shared
 * config files, so that several can run at once on a small machine.
 * Extra EAL arguments (e.g. a --vdev) can be passed on the test's command
 * line and are appended.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>

/**
 * Initialise the EAL for a unit test: --no-huge, 256 MB, lcores 0-1 (or the
 * ones given in EWYK_TEST_LCORES), a per-process file prefix.
 *
 * @return 0 on success, -1 (after printing why) on failure.
 */
static inline int
ewyk_test_eal_init(int argc, char **argv)
{
	char prefix[64];
	const char *lcores = getenv("EWYK_TEST_LCORES");
	char lopt[64];
	char *args[32];
	int n = 0;
	int i;

	snprintf(prefix, sizeof(prefix), "--file-prefix=ewyk-test-%d",
		(int)getpid());
	snprintf(lopt, sizeof(lopt), "%s", lcores != NULL ? lcores : "0-1");
	args[n++] = argv[0];
	args[n++] = (char *)"-l";
	args[n++] = lopt;
	args[n++] = (char *)"--no-huge";
	args[n++] = (char *)"-m";
	args[n++] = (char *)"256";
	args[n++] = (char *)"--no-pci";
	args[n++] = (char *)"--no-shconf";
	args[n++] = (char *)"--no-telemetry";
	args[n++] = (char *)"--log-level=lib.eal:error";
	args[n++] = prefix;
	for (i = 1; i < argc && n < 31; i++)
		args[n++] = argv[i];
	args[n] = NULL;
	if (rte_eal_init(n, args) < 0) {
		fprintf(stderr, "rte_eal_init failed: %s\n",
			rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

#ifdef EWYK_PROMTOOL
/*
 * promtool check metrics on a Prometheus text (EWYK_PROMTOOL is its path,
 * set by tests/unit/meson.build). Returns 0 when it passes, lint included.
 */
static inline int
ewyk_test_promtool_check(const char *text)
{
	char path[] = "/tmp/ewyk-prom-XXXXXX";
	char cmd[512];
	int fd = mkstemp(path), rc;
	FILE *f;

	if (fd < 0)
		return -1;
	f = fdopen(fd, "w");
	if (f == NULL) {
		close(fd);
		unlink(path);
		return -1;
	}
	fputs(text, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s check metrics < %s", EWYK_PROMTOOL,
		path);
	rc = system(cmd);
	unlink(path);
	return rc;
}
#endif

#endif /* EWYK_TEST_COMMON_H */
