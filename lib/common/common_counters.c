/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counter tables: as a telemetry dictionary, and as Prometheus text
 * exposition (https://prometheus.io/docs/instrumenting/exposition_formats/).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ewyk_common.h"

int
ewyk_ctr_tel_dict(struct rte_tel_data *d, const struct ewyk_ctr_desc *desc,
	const uint64_t *vals, unsigned int nb)
{
	unsigned int i;

	for (i = 0; i < nb; i++)
		if (rte_tel_data_add_dict_u64(d, desc[i].name, vals[i]) != 0)
			return -ENOSPC;
	return 0;
}

/* [a-zA-Z_:][a-zA-Z0-9_:]* */
static int
prom_name_ok(const char *s)
{
	const char *c;

	if (s == NULL || s[0] == '\0' || (s[0] >= '0' && s[0] <= '9'))
		return 0;
	for (c = s; *c != '\0'; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			    (*c >= '0' && *c <= '9') || *c == '_' || *c == ':'))
			return 0;
	return 1;
}

/* Append to buf like snprintf; *len counts the whole text, fitting or not. */
static void __rte_format_printf(4, 5)
	prom_put(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	if (*len < size)
		n = vsnprintf(buf + *len, size - *len, fmt, ap);
	else
		n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len += (size_t)n;
}

int
ewyk_ctr_prometheus(char *buf, size_t size, const char *prefix,
	const struct ewyk_ctr_desc *desc, unsigned int nb,
	const struct ewyk_prom_series *series, unsigned int nb_series)
{
	size_t len = 0;
	unsigned int i, j;

	if ((buf == NULL && size != 0) || !prom_name_ok(prefix) ||
		desc == NULL || (series == NULL && nb_series != 0))
		return -EINVAL;
	for (i = 0; i < nb; i++)
		if (!prom_name_ok(desc[i].name) || desc[i].help == NULL ||
			strpbrk(desc[i].help, "\\\n") != NULL)
			return -EINVAL;
	if (size > 0)
		buf[0] = '\0';
	for (i = 0; i < nb; i++) {
		const char *sfx = desc[i].type == EWYK_CTR_COUNTER ? "_total" :
								     "";

		prom_put(buf, size, &len, "# HELP %s_%s%s %s\n", prefix,
			desc[i].name, sfx, desc[i].help);
		prom_put(buf, size, &len, "# TYPE %s_%s%s %s\n", prefix,
			desc[i].name, sfx,
			desc[i].type == EWYK_CTR_COUNTER ? "counter" : "gauge");
		for (j = 0; j < nb_series; j++) {
			const char *l = series[j].labels;
			int has = l != NULL && l[0] != '\0';

			prom_put(buf, size, &len, "%s_%s%s%s%s%s %" PRIu64 "\n",
				prefix, desc[i].name, sfx, has ? "{" : "",
				has ? l : "", has ? "}" : "",
				series[j].vals[i]);
		}
	}
	if (len > INT32_MAX)
		return -EINVAL;
	return (int)len;
}
