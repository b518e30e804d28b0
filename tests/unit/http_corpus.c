/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Loader of the HTTP corpus (tests/http_corpus/requests.txt). The same
 * file is decoded by dts/tests/http_corpus.py; keep the two decoders in
 * step with the format described at the file's head.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ewyk_http.h>

#include "http_corpus.h"

/* Output buffer that grows. */
struct obuf {
	char *p;
	size_t len, cap;
};

static int
ob_put(struct obuf *o, char c)
{
	if (o->len == o->cap) {
		size_t cap = o->cap != 0 ? o->cap * 2 : 256;
		char *p = realloc(o->p, cap);

		if (p == NULL)
			return -ENOMEM;
		o->p = p;
		o->cap = cap;
	}
	o->p[o->len++] = c;
	return 0;
}

/* Decode the escapes of s[0..n) into o. */
static int
unescape(const char *s, size_t n, struct obuf *o)
{
	size_t i = 0;
	int ret = 0;

	while (i < n && ret == 0) {
		char c = s[i++];

		if (c != '\\') {
			ret = ob_put(o, c);
			continue;
		}
		if (i == n)
			return -EINVAL;
		c = s[i++];
		switch (c) {
		case 'r':
			ret = ob_put(o, '\r');
			break;
		case 'n':
			ret = ob_put(o, '\n');
			break;
		case 't':
			ret = ob_put(o, '\t');
			break;
		case '\\':
			ret = ob_put(o, '\\');
			break;
		case 'x':
			if (i + 2 > n || ewyk_http_hex_digit(s[i]) < 0 ||
				ewyk_http_hex_digit(s[i + 1]) < 0)
				return -EINVAL;
			ret = ob_put(o,
				(char)(ewyk_http_hex_digit(s[i]) * 16 +
					ewyk_http_hex_digit(s[i + 1])));
			i += 2;
			break;
		default:
			return -EINVAL;
		}
	}
	return ret;
}

/* Decode a request: escapes and {{N*text}} repeats. */
static int
decode(const char *s, struct obuf *o)
{
	const char *open;
	int ret;

	while ((open = strstr(s, "{{")) != NULL) {
		const char *star, *close;
		char *end;
		unsigned long nrep, k;

		ret = unescape(s, (size_t)(open - s), o);
		if (ret != 0)
			return ret;
		nrep = strtoul(open + 2, &end, 10);
		star = end;
		close = strstr(open, "}}");
		if (*star != '*' || close == NULL || close < star || nrep == 0)
			return -EINVAL;
		for (k = 0; k < nrep; k++) {
			ret = unescape(star + 1, (size_t)(close - star - 1), o);
			if (ret != 0)
				return ret;
		}
		s = close + 2;
	}
	return unescape(s, strlen(s), o);
}

/* Parse one non-comment line into c. */
static int
parse_line(char *line, struct http_corpus_case *c)
{
	char *name = line, *expect, *req;
	struct obuf o = { NULL, 0, 0 };
	int ret;

	expect = strchr(name, ' ');
	if (expect == NULL)
		return -EINVAL;
	*expect++ = '\0';
	req = strchr(expect, ' ');
	if (req == NULL || strlen(name) >= sizeof(c->name))
		return -EINVAL;
	*req++ = '\0';
	snprintf(c->name, sizeof(c->name), "%s", name);
	if (strcmp(expect, "closed") == 0)
		c->status = 0;
	else if ((c->status = atoi(expect)) < 100 || c->status > 599)
		return -EINVAL;
	ret = decode(req, &o);
	if (ret != 0 || o.len == 0) {
		free(o.p);
		return ret != 0 ? ret : -EINVAL;
	}
	c->req = o.p;
	c->len = o.len;
	return 0;
}

int
http_corpus_load(const char *path, struct http_corpus_case **cases)
{
	struct http_corpus_case *v = NULL, *nv;
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t lcap = 0;
	ssize_t l;
	int n = 0, ret = 0;

	if (f == NULL)
		return -errno;
	while ((l = getline(&line, &lcap, f)) >= 0) {
		while (l > 0 && (line[l - 1] == '\n' || line[l - 1] == '\r'))
			line[--l] = '\0';
		if (l == 0 || line[0] == '#')
			continue;
		nv = realloc(v, sizeof(*v) * (size_t)(n + 1));
		if (nv == NULL) {
			ret = -ENOMEM;
			break;
		}
		v = nv;
		memset(&v[n], 0, sizeof(v[n]));
		ret = parse_line(line, &v[n]);
		if (ret != 0)
			break;
		n++;
	}
	free(line);
	fclose(f);
	if (ret != 0) {
		http_corpus_free(v, n);
		return ret;
	}
	*cases = v;
	return n;
}

void
http_corpus_free(struct http_corpus_case *cases, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(cases[i].req);
	free(cases);
}
