// SPDX-License-Identifier: GPL-2.0
/*
 * access.c - what a node's clients may send (access.h): command sets and
 * their text form, the access presets, and access_check() /
 * access_check_ipmb(), which read a whole request (Send Message nesting,
 * IPMB frames) against the node's rules.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/access.h"
#include "core/policy.h"
#include "util/array.h"
#include "util/error.h"

static const char *const access_names[] = { "none",	  "readonly", "sensors",
					    "monitoring", "all",      NULL };

/* ---- access sets ---- */

void cmdset_clear(struct kcsmux_cmdset *s)
{
	memset(s, 0, sizeof(*s));
}

void cmdset_add(struct kcsmux_cmdset *s, uint8_t netfn, uint8_t cmd)
{
	if (netfn < KCSMUX_NETFNS)
		s->bits[netfn][cmd / 8] |= (uint8_t)(1U << (cmd % 8));
}

bool cmdset_has(const struct kcsmux_cmdset *s, uint8_t netfn, uint8_t cmd)
{
	if (netfn >= KCSMUX_NETFNS)
		return false;
	return (s->bits[netfn][cmd / 8] >> (cmd % 8)) & 1;
}

void cmdset_add_gx(struct kcsmux_cmdset *s, uint8_t body, uint8_t cmd)
{
	s->gx[body][cmd / 8] |= (uint8_t)(1U << (cmd % 8));
}

bool cmdset_has_gx(const struct kcsmux_cmdset *s, uint8_t body, uint8_t cmd)
{
	return (s->gx[body][cmd / 8] >> (cmd % 8)) & 1;
}

static bool all_zero(const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != 0)
			return false;
	return true;
}

bool cmdset_empty(const struct kcsmux_cmdset *s)
{
	return all_zero(&s->bits[0][0], sizeof(s->bits)) &&
	       all_zero(&s->gx[0][0], sizeof(s->gx));
}

static void cmdset_range(struct kcsmux_cmdset *s, unsigned nlo, unsigned nhi,
			 unsigned clo, unsigned chi)
{
	unsigned n, c;

	for (n = nlo; n <= nhi; n++)
		for (c = clo; c <= chi; c++)
			cmdset_add(s, (uint8_t)n, (uint8_t)c);
}

/*
 * Named request netfns (IPMI v2.0 table 5-1) and the group extension's
 * defining bodies (table 5-1's note: 00 PICMG, 01 DMTF pre-OS (ASF), 02 SSI
 * Forum, 03 VITA, dc DCMI), which name netfn 2c with that body.
 */
#define NO_BODY (-1)
static const struct {
	const char *name;
	uint8_t lo, hi;
	int body;
} netfn_names[] = {
	{ "chassis", 0x00, 0x00, NO_BODY },
	{ "bridge", 0x02, 0x02, NO_BODY },
	{ "sensor", 0x04, 0x04, NO_BODY },
	{ "event", 0x04, 0x04, NO_BODY },
	{ "app", 0x06, 0x06, NO_BODY },
	{ "firmware", 0x08, 0x08, NO_BODY },
	{ "storage", 0x0a, 0x0a, NO_BODY },
	{ "transport", 0x0c, 0x0c, NO_BODY },
	{ "group", 0x2c, 0x2c, NO_BODY },
	{ "oem_group", 0x2e, 0x2e, NO_BODY },
	{ "oem", 0x30, 0x3f, NO_BODY },
	{ "picmg", 0x2c, 0x2c, 0x00 },
	{ "asf", 0x2c, 0x2c, 0x01 },
	{ "ssi", 0x2c, 0x2c, 0x02 },
	{ "vita", 0x2c, 0x2c, 0x03 },
	{ "dcmi", 0x2c, 0x2c, KCSMUX_BODY_DCMI },
};

/* Hex number up to MAX, "0x" optional. */
static int parse_hex(const char *s, size_t len, unsigned max, unsigned *out)
{
	unsigned v = 0;
	size_t i;

	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		len -= 2;
	}
	if (len == 0 || len > 8)
		return -1;
	for (i = 0; i < len; i++) {
		if (!isxdigit((unsigned char)s[i]))
			return -1;
		v = v * 16 +
		    (unsigned)(isdigit((unsigned char)s[i]) ?
				       s[i] - '0' :
				       tolower((unsigned char)s[i]) - 'a' + 10);
	}
	if (v > max)
		return -1;
	*out = v;
	return 0;
}

/* "*", "HEX" or "HEX-HEX" of LEN chars at S into lo..hi. */
static int parse_span(const char *s, size_t len, unsigned max, unsigned *lo,
		      unsigned *hi)
{
	const char *dash = memchr(s, '-', len);

	if (len == 1 && *s == '*') {
		*lo = 0;
		*hi = max;
		return 0;
	}
	if (dash == NULL) {
		if (parse_hex(s, len, max, lo) == -1)
			return -1;
		*hi = *lo;
		return 0;
	}
	if (parse_hex(s, (size_t)(dash - s), max, lo) == -1 ||
	    parse_hex(dash + 1, len - (size_t)(dash - s) - 1, max, hi) == -1)
		return -1;
	return *lo <= *hi ? 0 : -1;
}

/* *BODY: the name's defining body, or NO_BODY. */
static int parse_netfn(const char *s, size_t len, unsigned *lo, unsigned *hi,
		       int *body)
{
	size_t i;

	*body = NO_BODY;
	for (i = 0; i < ARRAY_SIZE(netfn_names); i++) {
		if (strlen(netfn_names[i].name) == len &&
		    strncasecmp(s, netfn_names[i].name, len) == 0) {
			*lo = netfn_names[i].lo;
			*hi = netfn_names[i].hi;
			*body = netfn_names[i].body;
			return 0;
		}
	}
	return parse_span(s, len, KCSMUX_NETFNS - 1, lo, hi);
}

bool access_is_admin(const struct kcsmux_access *acc)
{
	return acc->eff_full || access_allows(acc, 0x06, 0x02) ||
	       access_allows(acc, 0x06, 0x03);
}

bool access_is_tunnel(uint8_t netfn, uint8_t cmd)
{
	if (netfn == 0x02 || netfn == 0x2c || netfn == 0x2e ||
	    (netfn >= 0x30 && netfn <= 0x3f))
		return true;
	return netfn == 0x06 && (cmd == 0x33 || cmd == 0x52);
}

/* The tunnel pairs of an allow item; app's only when CMD was written. */
static void tunnel_range(struct kcsmux_cmdset *t, unsigned nlo, unsigned nhi,
			 unsigned clo, unsigned chi, bool cmd_named)
{
	unsigned n, c;

	for (n = nlo; n <= nhi; n++) {
		if (n == 0x06 && !cmd_named)
			continue;
		for (c = clo; c <= chi; c++)
			if (access_is_tunnel((uint8_t)n, (uint8_t)c))
				cmdset_add(t, (uint8_t)n, (uint8_t)c);
	}
}

/* One NETFN[:CMD][/BODY] item of LEN chars; TUN (if not NULL) gets the
 * tunnel commands the item names explicitly (a BODY item names none: it is
 * checked on its body byte, not as a tunnel). */
static int parse_item(struct kcsmux_cmdset *s, struct kcsmux_cmdset *tun,
		      const char *item, size_t len, char **cause)
{
	const char *slash = memchr(item, '/', len);
	size_t ilen = slash != NULL ? (size_t)(slash - item) : len;
	const char *colon = memchr(item, ':', ilen);
	size_t nlen = colon != NULL ? (size_t)(colon - item) : ilen;
	unsigned nlo, nhi, clo = 0, chi = 0xff, blo, bhi, b, c;
	int body;

	if (parse_netfn(item, nlen, &nlo, &nhi, &body) == -1)
		return error_set(
			cause,
			"'%.*s': bad netfn '%.*s' (expected "
			"hex 00-3f, a LO-HI range, '*' or a name such as app, "
			"chassis, sensor, storage, transport, oem)",
			(int)len, item, (int)nlen, item);
	if (nlo == nhi && (nlo & 1))
		return error_set(cause,
				 "'%.*s': netfn 0x%02x is a response "
				 "netfn; requests use the even one, 0x%02x",
				 (int)len, item, nlo, nlo & ~1U);
	if (colon != NULL &&
	    parse_span(colon + 1, ilen - nlen - 1, 0xff, &clo, &chi) == -1)
		return error_set(
			cause,
			"'%.*s': bad cmd '%.*s' (expected "
			"hex 00-ff, a LO-HI range with LO <= HI, or '*')",
			(int)len, item, (int)(ilen - nlen - 1), colon + 1);
	if (slash != NULL || body != NO_BODY) {
		if (slash != NULL && body != NO_BODY)
			return error_set(cause,
					 "'%.*s': '%.*s' already names "
					 "its defining body",
					 (int)len, item, (int)nlen, item);
		if (nlo != KCSMUX_GX_NETFN || nhi != KCSMUX_GX_NETFN)
			return error_set(
				cause,
				"'%.*s': a defining body "
				"(/BODY) goes only with the group extension netfn "
				"2c",
				(int)len, item);
		blo = bhi = (unsigned)body;
		if (slash != NULL && parse_span(slash + 1, len - ilen - 1, 0xff,
						&blo, &bhi) == -1)
			return error_set(
				cause,
				"'%.*s': bad body '%.*s' "
				"(expected hex 00-ff, a LO-HI range with LO <= HI, "
				"or '*')",
				(int)len, item, (int)(len - ilen - 1),
				slash + 1);
		for (b = blo; b <= bhi; b++)
			for (c = clo; c <= chi; c++)
				cmdset_add_gx(s, (uint8_t)b, (uint8_t)c);
		return 0;
	}
	cmdset_range(s, nlo, nhi, clo, chi);
	if (tun != NULL && !(nlen == 1 && *item == '*'))
		tunnel_range(tun, nlo, nhi, clo, chi,
			     colon != NULL && !(ilen - nlen - 1 == 1 &&
						colon[1] == '*'));
	return 0;
}

static int parse_list(struct kcsmux_cmdset *set, struct kcsmux_cmdset *tun,
		      const char *list, char **cause)
{
	static const char sep[] = ", \t";
	struct kcsmux_cmdset tmp = *set, ttmp = tun != NULL ? *tun : *set;
	const char *p = list + strspn(list, sep);
	size_t len;

	if (*p == '\0')
		return error_set(cause, "empty list (expected NETFN[:CMD], "
					"...)");
	for (; *p != '\0'; p += len, p += strspn(p, sep)) {
		len = strcspn(p, sep);
		if (parse_item(&tmp, tun != NULL ? &ttmp : NULL, p, len,
			       cause) == -1)
			return -1;
	}
	*set = tmp;
	if (tun != NULL)
		*tun = ttmp;
	return 0;
}

int cmdset_parse(struct kcsmux_cmdset *set, const char *list, char **cause)
{
	return parse_list(set, NULL, list, cause);
}

int access_parse_allow(struct kcsmux_access *acc, const char *list,
		       char **cause)
{
	return parse_list(&acc->allow, &acc->tunnels, list, cause);
}

/* Is cmd C in row N: a netfn (BODY < 0) or, of netfn 2c, a body. */
static bool row_has(const struct kcsmux_cmdset *s, unsigned n, int body,
		    unsigned c)
{
	if (body >= 0)
		return cmdset_has_gx(s, (uint8_t)body, (uint8_t)c);
	return cmdset_has(s, (uint8_t)n, (uint8_t)c);
}

/* Append the "0xNN:..." items for netfn N, or "0x2c:.../0xBB" for BODY. */
static void format_netfn(FILE *f, const struct kcsmux_cmdset *s, unsigned n,
			 int body, bool *first)
{
	unsigned c = 0, lo;

	while (c < 256) {
		if (!row_has(s, n, body, c)) {
			c++;
			continue;
		}
		for (lo = c; c < 256 && row_has(s, n, body, c);)
			c++;
		fprintf(f, "%s0x%02x:", *first ? "" : ", ", n);
		*first = false;
		if (lo == 0 && c == 256)
			fputs("*", f);
		else if (lo == c - 1)
			fprintf(f, "0x%02x", lo);
		else
			fprintf(f, "0x%02x-0x%02x", lo, c - 1);
		if (body >= 0)
			fprintf(f, "/0x%02x", (unsigned)body);
	}
}

char *cmdset_format(const struct kcsmux_cmdset *s)
{
	struct kcsmux_cmdset all;
	char *buf = NULL;
	size_t size = 0;
	bool first = true;
	unsigned n;
	FILE *f;

	access_preset_set(KCSMUX_ACCESS_ALL, &all);
	if (memcmp(&all, s, sizeof(all)) == 0)
		return strdup("*");
	if ((f = open_memstream(&buf, &size)) == NULL)
		return NULL;
	for (n = 0; n < KCSMUX_NETFNS; n++)
		format_netfn(f, s, n, -1, &first);
	for (n = 0; n < 256; n++)
		format_netfn(f, s, KCSMUX_GX_NETFN, (int)n, &first);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/*
 * readonly: identification, health, sensors, SDR, FRU, SEL and
 * configuration reads; nothing that changes the BMC's state other than the
 * SDR/SEL reservations a reader needs. sensors: what ipmi-sensors,
 * "ipmitool sdr/sensor" and FRU reads use. Send Message (06:34) is in
 * neither: the daemon checks the inner request of a bridged message.
 */
static const uint8_t readonly_pairs[][2] = {
	{ 0x00, 0x00 }, { 0x00, 0x01 }, { 0x00, 0x07 }, { 0x00, 0x09 },
	{ 0x00, 0x0f }, { 0x04, 0x01 }, { 0x04, 0x20 }, { 0x04, 0x21 },
	{ 0x04, 0x22 }, { 0x04, 0x23 }, { 0x04, 0x25 }, { 0x04, 0x27 },
	{ 0x04, 0x29 }, { 0x04, 0x2b }, { 0x04, 0x2d }, { 0x04, 0x2f },
	{ 0x06, 0x01 }, { 0x06, 0x04 }, { 0x06, 0x07 }, { 0x06, 0x08 },
	{ 0x06, 0x25 }, { 0x06, 0x2f }, { 0x06, 0x37 }, { 0x06, 0x41 },
	{ 0x06, 0x42 }, { 0x0a, 0x10 }, { 0x0a, 0x11 }, { 0x0a, 0x20 },
	{ 0x0a, 0x21 }, { 0x0a, 0x22 }, { 0x0a, 0x23 }, { 0x0a, 0x28 },
	{ 0x0a, 0x40 }, { 0x0a, 0x41 }, { 0x0a, 0x42 }, { 0x0a, 0x43 },
	{ 0x0a, 0x48 }, { 0x0a, 0x5c }, { 0x0c, 0x02 },
};

static const uint8_t sensors_pairs[][2] = {
	{ 0x06, 0x01 }, { 0x04, 0x20 }, { 0x04, 0x21 }, { 0x04, 0x22 },
	{ 0x04, 0x23 }, { 0x04, 0x25 }, { 0x04, 0x27 }, { 0x04, 0x29 },
	{ 0x04, 0x2b }, { 0x04, 0x2d }, { 0x04, 0x2f }, { 0x0a, 0x10 },
	{ 0x0a, 0x11 }, { 0x0a, 0x20 }, { 0x0a, 0x21 }, { 0x0a, 0x22 },
	{ 0x0a, 0x23 },
};

/*
 * monitoring: what the monitoring agents of vm.agents send (traced there,
 * listed in kcsmux.conf(5)), all reads: prometheus-ipmi-exporter
 * (FreeIPMI ipmimonitoring, ipmi-dcmi, bmc-info, ipmi-chassis, ipmi-sel),
 * collectd's ipmi plugin (OpenIPMI), telegraf's ipmitool commands, ipmiutil
 * sensor and health, plus everything in sensors. Group extension commands
 * are matched on their defining body (monitoring_gx: body, cmd).
 */
static const uint8_t monitoring_pairs[][2] = {
	{ 0x00, 0x01 }, { 0x00, 0x0f }, { 0x04, 0x20 }, { 0x04, 0x21 },
	{ 0x04, 0x22 }, { 0x04, 0x23 }, { 0x04, 0x25 }, { 0x04, 0x27 },
	{ 0x04, 0x29 }, { 0x04, 0x2b }, { 0x04, 0x2d }, { 0x04, 0x2f },
	{ 0x06, 0x01 }, { 0x06, 0x04 }, { 0x06, 0x07 }, { 0x06, 0x08 },
	{ 0x06, 0x2f }, { 0x06, 0x37 }, { 0x06, 0x38 }, { 0x06, 0x42 },
	{ 0x06, 0x59 }, { 0x0a, 0x10 }, { 0x0a, 0x11 }, { 0x0a, 0x20 },
	{ 0x0a, 0x21 }, { 0x0a, 0x22 }, { 0x0a, 0x23 }, { 0x0a, 0x40 },
	{ 0x0a, 0x41 }, { 0x0a, 0x42 }, { 0x0a, 0x43 }, { 0x0a, 0x48 },
};

static const uint8_t monitoring_gx[][2] = {
	{ 0x00, 0x00 },		    /* PICMG Get PICMG Properties */
	{ 0x00, 0x01 },		    /* PICMG Get Address Info */
	{ 0x03, 0x00 },		    /* VITA Get VSO Capabilities */
	{ KCSMUX_BODY_DCMI, 0x01 }, /* DCMI Get DCMI Capabilities Info */
	{ KCSMUX_BODY_DCMI, 0x02 }, /* DCMI Get Power Reading */
};

static void add_monitoring(struct kcsmux_cmdset *s)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(monitoring_pairs); i++)
		cmdset_add(s, monitoring_pairs[i][0], monitoring_pairs[i][1]);
	for (i = 0; i < ARRAY_SIZE(monitoring_gx); i++)
		cmdset_add_gx(s, monitoring_gx[i][0], monitoring_gx[i][1]);
}

const char *access_preset_name(enum kcsmux_access_preset p)
{
	if ((size_t)p >= ARRAY_SIZE(access_names) - 1)
		return NULL;
	return access_names[p];
}

int access_preset_lookup(const char *name, enum kcsmux_access_preset *out,
			 char **cause)
{
	int i = value_enum("access", name, access_names, cause);

	if (i == -1)
		return -1;
	*out = (enum kcsmux_access_preset)i;
	return 0;
}

void access_preset_set(enum kcsmux_access_preset p, struct kcsmux_cmdset *s)
{
	size_t i;

	cmdset_clear(s);
	switch (p) {
	case KCSMUX_ACCESS_READONLY:
		for (i = 0; i < ARRAY_SIZE(readonly_pairs); i++)
			cmdset_add(s, readonly_pairs[i][0],
				   readonly_pairs[i][1]);
		add_monitoring(s); /* readonly is a superset of it */
		break;
	case KCSMUX_ACCESS_MONITORING:
		add_monitoring(s);
		break;
	case KCSMUX_ACCESS_SENSORS:
		for (i = 0; i < ARRAY_SIZE(sensors_pairs); i++)
			cmdset_add(s, sensors_pairs[i][0], sensors_pairs[i][1]);
		break;
	case KCSMUX_ACCESS_ALL:
		memset(s->bits, 0xff, sizeof(s->bits));
		break;
	default:
		break;
	}
}

void access_build(struct kcsmux_access *acc)
{
	uint8_t *e = &acc->eff.bits[0][0];
	const uint8_t *a = &acc->allow.bits[0][0];
	const uint8_t *d = &acc->deny.bits[0][0];
	const uint8_t *dgx = acc->deny.bits[KCSMUX_GX_NETFN];
	size_t i, b;

	access_preset_set(acc->preset, &acc->eff);
	acc->eff_full = true;
	for (i = 0; i < sizeof(acc->eff.bits); i++) {
		e[i] = (uint8_t)((e[i] | a[i]) & ~d[i]);
		if (e[i] != 0xff)
			acc->eff_full = false;
	}
	/* A plain deny of 2c:CMD takes CMD from every body too. */
	for (b = 0; b < 256; b++) {
		for (i = 0; i < sizeof(acc->eff.gx[b]); i++)
			acc->eff.gx[b][i] =
				(uint8_t)((acc->eff.gx[b][i] |
					   acc->allow.gx[b][i]) &
					  ~acc->deny.gx[b][i] & ~dgx[i]);
	}
	if (!all_zero(&acc->deny.gx[0][0], sizeof(acc->deny.gx)))
		acc->eff_full = false;
}

/*
 * A response (odd netfn) is judged as its request too: a BMC may take one
 * sent to its own address for the request (ipmi_sim took 01:02 for
 * Chassis Control and powered the host off).
 */
bool access_allows(const struct kcsmux_access *acc, uint8_t netfn, uint8_t cmd)
{
	return cmdset_has(&acc->eff, netfn, cmd) &&
	       (!(netfn & 1) ||
		cmdset_has(&acc->eff, (uint8_t)(netfn & ~1u), cmd));
}

static const char *const verdict_names[] = {
	[ACCESS_OK] = "allowed",
	[ACCESS_DENIED] = "denied",
	[ACCESS_TUNNEL] = "tunnel not explicitly allowed",
	[ACCESS_TOO_DEEP] = "Send Message nested too deep",
	[ACCESS_MALFORMED] = "Send Message request unreadable",
};

const char *access_verdict_name(enum access_verdict v)
{
	if ((size_t)v >= ARRAY_SIZE(verdict_names))
		return "?";
	return verdict_names[v];
}

void access_rule_desc(const struct kcsmux_access *acc, enum access_verdict v,
		      const struct access_why *why, char *buf, size_t len)
{
	const char *preset = access_preset_name(acc->preset);
	const char *nested = why->depth ? ", inside Send Message" : "";

	if (preset == NULL)
		preset = "?";
	if (v == ACCESS_DENIED && cmdset_has(&acc->deny, why->netfn, why->cmd))
		snprintf(buf, len, "a deny line%s", nested);
	else if (v == ACCESS_DENIED)
		snprintf(buf, len, "access = %s (no allow line)%s", preset,
			 nested);
	else if (v != ACCESS_OK)
		snprintf(buf, len, "%s (access = %s)%s", access_verdict_name(v),
			 preset, nested);
	else if (cmdset_has(&acc->allow, why->netfn, why->cmd))
		snprintf(buf, len, "an allow line");
	else
		snprintf(buf, len, "access = %s", preset);
}

#define SEND_MSG_NETFN 0x06
#define SEND_MSG_CMD   0x34
/* An IPMB frame up to its cmd: rsSA, netfn/LUN, chk1, rqSA, seq/LUN, cmd */
#define FRAME_CMD 5

static enum access_verdict check_level(const struct kcsmux_access *acc,
				       uint8_t netfn, uint8_t cmd,
				       const uint8_t *data, size_t len,
				       unsigned depth, struct access_why *why);

/* The BMC's own IPMB address (IPMI 2.0 table 5-2), on the primary IPMB. */
#define BMC_SA 0x20

/*
 * The BMC's message buffers, which the daemon drains for every node:
 * Clear Message Flags 06:30, Get Message Flags 06:31, Get Message 06:33,
 * Read Event Message Buffer 06:35. In a request addressed to the BMC
 * itself (the system interface, or IPMB 0x20 on channel 0, at any level
 * of Send Message: the BMC runs it as its own, ipmi_sim among them) they
 * are one right: a deny of one (or a set without it) refuses all four
 * there; Get Message is still a tunnel besides.
 */
static bool msgbuf_cmd(uint8_t netfn, uint8_t cmd)
{
	return netfn == 0x06 &&
	       (cmd == 0x30 || cmd == 0x31 || cmd == 0x33 || cmd == 0x35);
}

static bool msgbuf_allowed(const struct kcsmux_access *acc)
{
	static const uint8_t cmds[] = { 0x30, 0x31, 0x33, 0x35 };
	size_t i;

	if (acc->eff_full)
		return true;
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!access_allows(acc, 0x06, cmds[i]))
			return false;
	return true;
}

/* A request TO_BMC (addressed to the BMC itself) of a message-buffer
 * command the node may not send there: true, with WHY filled. */
static bool msgbuf_denied(const struct kcsmux_access *acc, bool to_bmc,
			  uint8_t netfn, uint8_t cmd, unsigned depth,
			  struct access_why *why)
{
	if (!to_bmc || !msgbuf_cmd(netfn, cmd) || msgbuf_allowed(acc))
		return false;
	why->depth = depth;
	why->netfn = netfn;
	why->cmd = cmd;
	return true;
}

/*
 * The request in a Send Message body (DATA: channel byte, then the frame)
 * read at offset OFF after the channel byte. A frame too short to hold a
 * command: REQUIRED says whether that is an error (the reading the BMC
 * uses) or means this reading carries nothing (a second guess).
 */
static enum access_verdict check_frame(const struct kcsmux_access *acc,
				       const uint8_t *data, size_t len,
				       size_t off, bool required,
				       unsigned depth, struct access_why *why)
{
	const uint8_t *f = data + 1 + off;
	size_t flen = len >= 1 + off ? len - 1 - off : 0;

	/*
	 * Every nested frame ends where the client's data ends, and the
	 * daemon appends its checksum there: a reading one byte short of a
	 * command gets that byte, which the daemon cannot know when it checks
	 * (it covers the sequence number), as its command. Refused; a reading
	 * shorter than that carries nothing.
	 */
	if (len < 1 + off || flen < FRAME_CMD + 1) {
		if (!required &&
		    (len < 1 + off || flen != FRAME_CMD || acc->eff_full))
			return ACCESS_OK;
		why->depth = depth;
		why->netfn = SEND_MSG_NETFN;
		why->cmd = SEND_MSG_CMD;
		return ACCESS_MALFORMED;
	}
	/* The data runs to the trailing checksum, which a frame cut short
	 * may lack: everything after the cmd is checked as data. A frame
	 * on the primary IPMB to BMC_SA is the BMC's own request. */
	if (msgbuf_denied(acc, (data[0] & 0x0f) == 0 && f[0] == BMC_SA,
			  f[1] >> 2, f[FRAME_CMD], depth, why))
		return ACCESS_DENIED;
	return check_level(acc, f[1] >> 2, f[FRAME_CMD], f + FRAME_CMD + 1,
			   flen - FRAME_CMD - 1, depth, why);
}

static enum access_verdict check_level(const struct kcsmux_access *acc,
				       uint8_t netfn, uint8_t cmd,
				       const uint8_t *data, size_t len,
				       unsigned depth, struct access_why *why)
{
	enum access_verdict v;
	uint8_t chan;

	why->depth = depth;
	why->netfn = netfn;
	why->cmd = cmd;
	/* Group extension: a (body, cmd) named by the preset or an allow
	 * line passes, one a deny line names is refused, whatever the
	 * plain pair says; anything else is the plain pair's, a tunnel. */
	if (!acc->eff_full && netfn == KCSMUX_GX_NETFN && len >= 1) {
		if (cmdset_has_gx(&acc->deny, data[0], cmd))
			return ACCESS_DENIED;
		if (cmdset_has_gx(&acc->eff, data[0], cmd))
			return ACCESS_OK;
	}
	if (!acc->eff_full && !access_allows(acc, netfn, cmd))
		return ACCESS_DENIED;
	if (!acc->eff_full && access_is_tunnel(netfn, cmd) &&
	    !cmdset_has(&acc->tunnels, netfn, cmd))
		return ACCESS_TUNNEL;
	if (netfn != SEND_MSG_NETFN || cmd != SEND_MSG_CMD)
		return ACCESS_OK;
	if (depth >= KCSMUX_MAX_NESTING)
		return ACCESS_TOO_DEEP;
	if (len < 1)
		return ACCESS_MALFORMED;
	chan = data[0] & 0x0f;
	/* Primary IPMB: the frame; with a leading 00 it is a broadcast and
	 * the frame starts one byte later. Any other channel may be LAN (a
	 * session handle first) or anything: both readings must pass. */
	if (chan != 0 || (len > 1 && data[1] == 0x00)) {
		v = check_frame(acc, data, len, 1, chan == 0, depth + 1, why);
		if (v != ACCESS_OK)
			return v;
		if (chan == 0)
			return ACCESS_OK;
	}
	return check_frame(acc, data, len, 0, true, depth + 1, why);
}

enum access_verdict access_check(const struct kcsmux_access *acc, uint8_t netfn,
				 uint8_t cmd, const uint8_t *data, size_t len,
				 struct access_why *why)
{
	struct access_why dummy;

	if (why == NULL)
		why = &dummy;
	if (msgbuf_denied(acc, true, netfn & 0x3f, cmd, 0, why))
		return ACCESS_DENIED;
	return check_level(acc, netfn & 0x3f, cmd, data, len, 0, why);
}

/*
 * A client's request to an IPMB address, as the frame the daemon wraps in
 * Send Message will be read on the bus: besides the command itself, a
 * frame starting with 00 (slave address 0 without the broadcast type) is
 * read by the receivers as a broadcast one byte further on, and on a
 * channel other than 0 (perhaps LAN) the BMC may read it one byte further
 * on too; those readings must pass as well. MY_SA: the requester address
 * the daemon writes; the sequence number is taken as 0.
 */
enum access_verdict access_check_ipmb(const struct kcsmux_access *acc,
				      const struct ipmi_request *rq,
				      uint8_t my_sa, struct access_why *why)
{
	uint8_t chan = (uint8_t)rq->addr.channel, sa = rq->addr.slave_addr;
	uint8_t lun = rq->addr.lun, netfn = rq->netfn, cmd = rq->cmd;
	bool bcast = rq->addr.addr_type == IPMI_IPMB_BROADCAST_ADDR_TYPE;
	const uint8_t *data = rq->data;
	size_t len = rq->len;
	struct access_why dummy;
	uint8_t body[300];
	enum access_verdict v;
	size_t n = 0;

	if (why == NULL)
		why = &dummy;
	netfn &= 0x3f;
	/* the BMC itself: 0x20 on the primary IPMB, or a broadcast there */
	if (msgbuf_denied(acc, (chan & 0x0f) == 0 && (sa == BMC_SA || bcast),
			  netfn, cmd, 0, why))
		return ACCESS_DENIED;
	v = check_level(acc, netfn, cmd, data, len, 0, why);
	if (v != ACCESS_OK || acc->eff_full)
		return v;
	/* A broadcast is read after its 00 (on LAN: 00 as the session
	 * handle) as sent; so is a frame to a real address on channel 0. */
	if (bcast || ((chan & 0x0f) == 0 && sa != 0))
		return ACCESS_OK;
	if (len > sizeof(body) - 12)
		return ACCESS_MALFORMED;
	body[n++] = chan;
	body[n++] = sa;
	body[n++] = (uint8_t)(netfn << 2 | (lun & 3));
	body[n] = (uint8_t) - (uint8_t)(body[n - 2] + body[n - 1]);
	n++;
	body[n++] = my_sa;
	body[n++] = 0;
	body[n++] = cmd;
	if (len)
		memcpy(body + n, data, len);
	n += len;
	/* without the trailing checksum (it covers the sequence number, not
	 * known yet): check_frame() refuses a reading that would need it as
	 * its command. The frame one byte further on (after the 00, or a
	 * session handle), at the level of the request itself. */
	return check_frame(acc, body, n, 1, false, 0, why);
}
