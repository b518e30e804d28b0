/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef HTTP_PRIVATE_H
#define HTTP_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include <rte_log.h>

#include "ewyk_http.h"

extern int ewyk_http_logtype;

#define HTTP_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, ewyk_http_logtype, "http: " fmt "\n", \
		##__VA_ARGS__)

/*
 * Scanners (http_scan.c). Each returns the index of the first byte of
 * s[0, n) that stops the scan, or n. All instruction sets return the same.
 *
 * http_scan_target: stops at a byte outside 0x21-0x7e (SP, CTL, DEL,
 *   obs-text): what ends or invalidates a request-target.
 * http_scan_value: stops at a CTL other than HT (0x00-0x08, 0x0a-0x1f) or
 *   DEL: what ends (CR) or invalidates a field value. SP, HT, VCHAR and
 *   obs-text (0x80-0xff) pass.
 */
size_t http_scan_target(unsigned int isa, const char *s, size_t n);
size_t http_scan_value(unsigned int isa, const char *s, size_t n);

/* tchar (RFC 9110 section 5.6.2) lookup: non-zero for token characters. */
extern const uint8_t http_tchar[256];

/* ASCII case-insensitive comparison of a view with a lower-case literal. */
static inline int
http_view_ieq(const char *p, uint32_t len, const char *lit, uint32_t litlen)
{
	uint32_t i;

	if (len != litlen)
		return 0;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c >= 'A' && c <= 'Z')
			c |= 0x20;
		if (c != (unsigned char)lit[i])
			return 0;
	}
	return 1;
}

#define HTTP_IEQ(p, len, lit) http_view_ieq(p, len, lit, sizeof(lit) - 1)

/* Empty lines ignored before a request line (RFC 9112 2.2); one more: 400. */
#define HTTP_MAX_EMPTY_LINES 4

/*
 * uri-host [":" port] (RFC 3986 3.2.2, 3.2.3): a reg-name or IPv4 address
 * (unreserved / pct-encoded / sub-delims) or an IP-literal in brackets,
 * then an optional port of digits. No userinfo ('@' is not allowed). An
 * empty string is valid only when allow_empty (a Host field may be empty,
 * RFC 9110 7.2); otherwise the host part must not be empty (4.2.1).
 */
int http_authority_valid(const char *s, uint32_t n, int allow_empty);

/* Parser flags (ewyk_http_parser.flags). */
#define HF_CL         0x01 /* Content-Length seen */
#define HF_TE         0x02 /* Transfer-Encoding seen */
#define HF_CLOSE      0x04 /* Connection: close */
#define HF_KEEP_ALIVE 0x08 /* Connection: keep-alive */
#define HF_EXPECT     0x10 /* Expect: 100-continue */

/*
 * Field semantics (http_fields.c): called for each complete field line and
 * once at the end of the header section. Return 0 or an HTTP status.
 */
/* Lengths of the names http_field_apply() acts on (4 host, 6 expect,
 * 10 connection, 14 content-length, 17 transfer-encoding). */
#define HTTP_FIELD_MAYBE(len) ((len) < 32 && ((UINT32_C(1) << (len)) & \
	((1u << 4) | (1u << 6) | (1u << 10) | (1u << 14) | (1u << 17))))
uint16_t http_field_apply(struct ewyk_http_parser *p,
		struct ewyk_http_request *req, const struct ewyk_http_header *h);
uint16_t http_fields_finish(struct ewyk_http_parser *p,
		struct ewyk_http_request *req);

#endif /* HTTP_PRIVATE_H */
