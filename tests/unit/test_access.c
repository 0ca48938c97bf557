// SPDX-License-Identifier: GPL-2.0
/*
 * Check suite for access_check() (fused/core/policy.c): a node's rules against
 * the whole request a client sends, Send Message nesting at every level,
 * broadcast and non-IPMB layouts, opaque tunnels, truncated frames. Rules
 * come from kcsmux.conf text through config/, as in the daemon.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "core/access.h"
#include "core/opener.h"
#include "core/policy.h"

static struct kcsmux_config cfg;

static const struct kcsmux_access *rules(const char *node_text)
{
	char text[512];
	char *cause = NULL;

	config_free(&cfg);
	memset(&cfg, 0, sizeof(cfg));
	snprintf(text, sizeof(text), "[node n]\n%s", node_text);
	ck_assert_msg(config_load_string(&cfg, text, "t.conf", &cause) == 0,
		      "%s", cause != NULL ? cause : "?");
	ck_assert_uint_eq(cfg.nnodes, 1);
	return &cfg.nodes[0].acc;
}

static void teardown(void)
{
	config_free(&cfg);
	memset(&cfg, 0, sizeof(cfg));
}

/*
 * A Send Message body (channel byte + IPMB frame) carrying NETFN:CMD with
 * DATA, appended at OUT; returns its length. BCAST: the 00 prefix.
 */
static size_t frame(uint8_t *out, uint8_t chan, bool bcast, uint8_t netfn,
		    uint8_t cmd, const uint8_t *data, size_t len)
{
	size_t n = 0, i, start;
	uint8_t sum = 0;

	out[n++] = chan;
	if (bcast)
		out[n++] = 0x00;
	out[n++] = 0x82; /* rsSA */
	out[n++] = (uint8_t)(netfn << 2);
	out[n] = (uint8_t)(-(out[n - 2] + out[n - 1]));
	n++;
	start = n;
	out[n++] = 0x20;	  /* rqSA */
	out[n++] = 0x04 << 2 | 2; /* seq, LUN */
	out[n++] = cmd;
	if (len > 0)
		memcpy(out + n, data, len);
	n += len;
	for (i = start; i < n; i++)
		sum = (uint8_t)(sum + out[i]);
	out[n++] = (uint8_t)-sum;
	return n;
}

/* access_check_ipmb() of a request to (CHAN, SA, LUN), broadcast or not. */
static enum access_verdict ipmb_check(const struct kcsmux_access *acc,
				      uint8_t chan, bool bcast, uint8_t sa,
				      uint8_t lun, uint8_t my_sa, uint8_t netfn,
				      uint8_t cmd, const uint8_t *data,
				      size_t len, struct access_why *why)
{
	struct ipmi_request rq = {
		.addr = { .addr_type = bcast ? IPMI_IPMB_BROADCAST_ADDR_TYPE :
					       IPMI_IPMB_ADDR_TYPE,
			  .channel = chan,
			  .slave_addr = sa,
			  .lun = lun },
		.netfn = netfn,
		.cmd = cmd,
		.data = data,
		.len = (uint16_t)len,
	};

	return access_check_ipmb(acc, &rq, my_sa, why);
}

static const uint8_t chassis_off[] = { 0x00 }; /* Chassis Control: off */

/* Chassis Control in Send Message in Send Message: a nested bypass. */
/* admin_users/admin_groups matching: by uid, by the file system gid of
 * /proc/PID/status's Gid: line, by a supplementary group; the real,
 * effective and saved gids do not count. */
START_TEST(test_openers)
{
	static const char status[] = "Name:\tipmitool\nUmask:\t0022\n"
				     "Uid:\t1000\t1000\t1000\t1000\n"
				     "Gid:\t11\t12\t13\t14\nFDSize:\t64\n"
				     "Groups:\t24 27 5000 \nNStgid:\t42\n";
	struct kcsmux_openers o = { 0 };
	struct kcsmux_opener who = { .uid = 1000 };
	char *cause = NULL;
	int i;

	opener_parse_status(&who, status);
	ck_assert_uint_eq(who.ngids, 4);
	ck_assert_uint_eq(who.gids[0], 14);
	ck_assert_uint_eq(who.gids[1], 24);
	ck_assert_uint_eq(who.gids[3], 5000);
	ck_assert(!opener_matches(&o, &who)); /* no admins */
	ck_assert(opener_add_uid(&o, 0, &cause));
	ck_assert(opener_add_gid(&o, 11, &cause));
	ck_assert(opener_add_gid(&o, 13, &cause));
	ck_assert(!opener_matches(&o, &who));
	ck_assert(opener_add_gid(&o, 27, &cause));
	ck_assert(opener_matches(&o, &who));
	o.ngids = 0;
	ck_assert(opener_add_gid(&o, 14, &cause));
	ck_assert(opener_matches(&o, &who));
	o.ngids = 0;
	who.uid = 0;
	ck_assert(opener_matches(&o, &who));
	/* no Groups: line, an empty one, a full table */
	who = (struct kcsmux_opener){ .uid = 1 };
	opener_parse_status(&who, "Name:\tx\nGroups:\t\nNStgid:\t1\n");
	ck_assert_uint_eq(who.ngids, 0);
	o.nuids = 0;
	for (i = 0; i < KCSMUX_OPENER_IDS; i++)
		ck_assert(opener_add_uid(&o, (uid_t)i + 100, &cause));
	ck_assert_ptr_null(cause);
	ck_assert(!opener_add_uid(&o, 1, &cause));
	ck_assert_str_eq(cause, "more than 16 users");
	free(cause);
}
END_TEST

START_TEST(test_nested_chassis_control)
{
	const struct kcsmux_access *acc;
	uint8_t in[64], out[64];
	size_t nin, nout;
	struct access_why why;

	nin = frame(in, 0, false, 0x00, 0x02, chassis_off, 1);
	nout = frame(out, 0, false, 0x06, 0x34, in, nin);

	acc = rules("access = all\ndeny = chassis:02\n");
	/* plain, bridged once: the inner request is checked */
	ck_assert_int_eq(access_check(acc, 0x00, 0x02, chassis_off, 1, NULL),
			 ACCESS_DENIED);
	ck_assert_int_eq(access_check(acc, 0x06, 0x34, in, nin, &why),
			 ACCESS_DENIED);
	ck_assert_uint_eq(why.depth, 1);
	ck_assert_uint_eq(why.netfn, 0x00);
	ck_assert_uint_eq(why.cmd, 0x02);
	/* twice: too deep whatever it carries */
	ck_assert_int_eq(access_check(acc, 0x06, 0x34, out, nout, &why),
			 ACCESS_TOO_DEEP);
	ck_assert_uint_eq(why.depth, 1);

	acc = rules("access = sensors\nallow = app\n");
	ck_assert_int_eq(access_check(acc, 0x06, 0x34, in, nin, NULL),
			 ACCESS_DENIED);
	ck_assert_int_eq(access_check(acc, 0x06, 0x34, out, nout, NULL),
			 ACCESS_TOO_DEEP);
	/* what the node does allow goes through one level of bridging */
	nin = frame(in, 0, false, 0x04, 0x2d, (const uint8_t *)"\x01", 1);
	ck_assert_int_eq(access_check(acc, 0x06, 0x34, in, nin, NULL),
			 ACCESS_OK);
	/* and a node that allows everything, up to the depth limit */
	acc = rules("access = all\n");
	nin = frame(in, 0, false, 0x00, 0x02, chassis_off, 1);
	ck_assert_int_eq(access_check(acc, 0x06, 0x34, in, nin, NULL),
			 ACCESS_OK);
	nout = frame(out, 0, false, 0x06, 0x34, in, nin);
	ck_assert_int_eq(access_check(acc, 0x06, 0x34, out, nout, NULL),
			 ACCESS_TOO_DEEP);
}
END_TEST

/* Broadcast (00 prefix) and channels other than the primary IPMB. */
START_TEST(test_layouts)
{
	const struct kcsmux_access *acc = rules("access = all\n"
						"deny = chassis:02\n");
	uint8_t in[64];
	size_t n;
	unsigned chan;

	n = frame(in, 0, true, 0x00, 0x02, chassis_off, 1);
	ck_assert_int_eq(access_check(acc, 0x06, 0x34, in, n, NULL),
			 ACCESS_DENIED);
	n = frame(in, 0, true, 0x06, 0x01, NULL, 0);
	ck_assert_int_eq(access_check(acc, 0x06, 0x34, in, n, NULL), ACCESS_OK);
	for (chan = 1; chan < 16; chan++) {
		/* LAN layout: a session handle before the frame */
		n = frame(in, (uint8_t)chan, true, 0x00, 0x02, chassis_off, 1);
		in[1] = 0x05;
		ck_assert_int_eq(access_check(acc, 0x06, 0x34, in, n, NULL),
				 ACCESS_DENIED);
		n = frame(in, (uint8_t)chan, false, 0x00, 0x02, chassis_off, 1);
		ck_assert_int_eq(access_check(acc, 0x06, 0x34, in, n, NULL),
				 ACCESS_DENIED);
		/* tracking and privilege bits do not change the channel */
		in[0] = (uint8_t)(chan | 0xc0 | 0x30);
		ck_assert_int_eq(access_check(acc, 0x06, 0x34, in, n, NULL),
				 ACCESS_DENIED);
	}
	/* the LUN bits of the netfn byte do not hide the netfn */
	n = frame(in, 0, false, 0x00, 0x02, chassis_off, 1);
	in[2] |= 3;
	ck_assert_int_eq(access_check(acc, 0x06, 0x34, in, n, NULL),
			 ACCESS_DENIED);
}
END_TEST

/* Frames cut anywhere are refused, never passed unread. */
START_TEST(test_truncated)
{
	const struct kcsmux_access *acc = rules("access = sensors\n"
						"allow = app\n");
	uint8_t in[64];
	size_t n, cut;
	enum access_verdict v;

	n = frame(in, 0, false, 0x04, 0x2d, (const uint8_t *)"\x01", 1);
	for (cut = 0; cut < 7; cut++) {
		v = access_check(acc, 0x06, 0x34, in, cut, NULL);
		ck_assert_msg(v == ACCESS_MALFORMED, "cut %zu: %d", cut, v);
	}
	for (cut = 7; cut <= n; cut++)
		ck_assert_int_eq(access_check(acc, 0x06, 0x34, in, cut, NULL),
				 ACCESS_OK);
	/* padded: the extra bytes are data, the command is unchanged */
	memset(in + n, 0xaa, 8);
	ck_assert_int_eq(access_check(acc, 0x06, 0x34, in, n + 8, NULL),
			 ACCESS_OK);
}
END_TEST

/* Opaque tunnels: refused unless the effective set is everything or an
 * allow line names them. */
START_TEST(test_tunnels)
{
	static const uint8_t tun[][2] = {
		{ 0x06, 0x33 }, { 0x06, 0x52 }, { 0x02, 0x00 },
		{ 0x02, 0x7f }, { 0x2c, 0x00 }, { 0x2c, 0x01 },
		{ 0x2e, 0x10 }, { 0x30, 0x01 }, { 0x3e, 0xff },
	};
	const struct kcsmux_access *acc;
	uint8_t in[64];
	size_t i, n;

	acc = rules("access = all\ndeny = chassis:02\n");
	for (i = 0; i < sizeof(tun) / sizeof(tun[0]); i++) {
		ck_assert(access_is_tunnel(tun[i][0], tun[i][1]));
		ck_assert_int_eq(access_check(acc, tun[i][0], tun[i][1], NULL,
					      0, NULL),
				 ACCESS_TUNNEL);
		/* and bridged */
		n = frame(in, 0, false, tun[i][0], tun[i][1], NULL, 0);
		ck_assert_int_eq(access_check(acc, 0x06, 0x34, in, n, NULL),
				 ACCESS_TUNNEL);
	}
	ck_assert(!access_is_tunnel(0x06, 0x34)); /* read, not opaque */
	ck_assert(!access_is_tunnel(0x06, 0x01));
	ck_assert(!access_is_tunnel(0x0a, 0x40));

	acc = rules("access = all\n");
	for (i = 0; i < sizeof(tun) / sizeof(tun[0]); i++)
		ck_assert_int_eq(access_check(acc, tun[i][0], tun[i][1], NULL,
					      0, NULL),
				 ACCESS_OK);

	/* app by netfn alone does not name Master Write-Read */
	acc = rules("access = sensors\nallow = app\n");
	ck_assert_int_eq(access_check(acc, 0x06, 0x52, NULL, 0, NULL),
			 ACCESS_TUNNEL);
	ck_assert_int_eq(access_check(acc, 0x06, 0x33, NULL, 0, NULL),
			 ACCESS_TUNNEL);
	acc = rules("access = sensors\nallow = app:*\n");
	ck_assert_int_eq(access_check(acc, 0x06, 0x52, NULL, 0, NULL),
			 ACCESS_TUNNEL);
	acc = rules("access = sensors\nallow = app:52\n");
	ck_assert_int_eq(access_check(acc, 0x06, 0x52, NULL, 0, NULL),
			 ACCESS_OK);
	ck_assert_int_eq(access_check(acc, 0x06, 0x33, NULL, 0, NULL),
			 ACCESS_DENIED);
	/* '*' names nothing; an OEM netfn or name does */
	acc = rules("access = none\nallow = *\ndeny = chassis:02\n");
	ck_assert_int_eq(access_check(acc, 0x30, 0x01, NULL, 0, NULL),
			 ACCESS_TUNNEL);
	ck_assert_int_eq(access_check(acc, 0x06, 0x01, NULL, 0, NULL),
			 ACCESS_OK);
	acc = rules("allow = app:01, 0x30:0x10-0x1f\ndeny = 0x30:0x12\n");
	ck_assert_int_eq(access_check(acc, 0x30, 0x10, NULL, 0, NULL),
			 ACCESS_OK);
	ck_assert_int_eq(access_check(acc, 0x30, 0x12, NULL, 0, NULL),
			 ACCESS_DENIED);
	ck_assert_int_eq(access_check(acc, 0x30, 0x20, NULL, 0, NULL),
			 ACCESS_DENIED);
	acc = rules("access = readonly\nallow = oem, group\n");
	ck_assert_int_eq(access_check(acc, 0x3f, 0x00, NULL, 0, NULL),
			 ACCESS_OK);
	ck_assert_int_eq(access_check(acc, 0x2c, 0x05, NULL, 0, NULL),
			 ACCESS_OK);
	ck_assert_int_eq(access_check(acc, 0x2e, 0x05, NULL, 0, NULL),
			 ACCESS_DENIED);
}
END_TEST

/* A response of a denied command is denied too, plain and bridged: a
 * hostile client's 01:02 to the BMC's own address powered the rig's
 * host off (ipmi_sim took it for Chassis Control). */
START_TEST(test_response_of_denied)
{
	const struct kcsmux_access *acc =
		rules("access = all\ndeny = chassis:02\n");
	struct ipmi_request rq;
	const uint8_t down[] = { 0x00 };

	ck_assert_int_eq(access_check(acc, 0x01, 0x02, down, 1, NULL),
			 ACCESS_DENIED);
	ck_assert_int_eq(access_check(acc, 0x01, 0x01, NULL, 0, NULL),
			 ACCESS_OK);
	ck_assert_int_eq(access_check(acc, 0x07, 0x01, NULL, 0, NULL),
			 ACCESS_OK);
	memset(&rq, 0, sizeof(rq));
	rq.addr.addr_type = IPMI_IPMB_BROADCAST_ADDR_TYPE;
	rq.addr.slave_addr = 0x20;
	rq.netfn = 0x01;
	rq.cmd = 0x02;
	rq.len = 1;
	rq.data = down;
	ck_assert_int_eq(access_check_ipmb(acc, &rq, 0x20, NULL),
			 ACCESS_DENIED);
	rq.addr.addr_type = IPMI_IPMB_ADDR_TYPE;
	ck_assert_int_eq(access_check_ipmb(acc, &rq, 0x20, NULL),
			 ACCESS_DENIED);
}
END_TEST

/* Every single-level request: access_check() agrees with the set for
 * non-tunnels, on every node preset with a deny line. */
START_TEST(test_plain_agrees)
{
	static const char *const texts[] = {
		"access = all\ndeny = chassis:02\n",
		"access = readonly\n",
		"access = sensors\nallow = app\n",
		"access = none\n",
	};
	const struct kcsmux_access *acc;
	unsigned t, nf, c;
	enum access_verdict v;

	for (t = 0; t < 4; t++) {
		acc = rules(texts[t]);
		for (nf = 0; nf < 64; nf++) {
			for (c = 0; c < 256; c++) {
				if (nf == 6 && c == 0x34)
					continue;
				v = access_check(acc, (uint8_t)nf, (uint8_t)c,
						 NULL, 0, NULL);
				if (!access_allows(acc, (uint8_t)nf,
						   (uint8_t)c))
					ck_assert_int_eq(v, ACCESS_DENIED);
				else if (access_is_tunnel((uint8_t)nf,
							  (uint8_t)c))
					ck_assert_int_eq(v, ACCESS_TUNNEL);
				else
					ck_assert_int_eq(v, ACCESS_OK);
			}
		}
	}
}
END_TEST

/* A group extension request: (netfn 2c, cmd) with its body byte B. */
static enum access_verdict gx(const struct kcsmux_access *acc, uint8_t cmd,
			      int body)
{
	uint8_t d[2] = { (uint8_t)body, 0x01 };

	return access_check(acc, 0x2c, cmd, d, body < 0 ? 0 : sizeof(d), NULL);
}

/* Group extension commands matched on their defining body byte. */
START_TEST(test_group_extension)
{
	const struct kcsmux_access *acc;
	uint8_t in[8] = { KCSMUX_BODY_DCMI }, out[64];
	size_t nout;

	acc = rules("access = monitoring\n");
	ck_assert_int_eq(gx(acc, 0x02, 0xdc), ACCESS_OK);     /* power */
	ck_assert_int_eq(gx(acc, 0x01, 0xdc), ACCESS_OK);     /* caps */
	ck_assert_int_eq(gx(acc, 0x00, 0x00), ACCESS_OK);     /* PICMG props */
	ck_assert_int_eq(gx(acc, 0x01, 0x00), ACCESS_OK);     /* PICMG addr */
	ck_assert_int_eq(gx(acc, 0x00, 0x03), ACCESS_OK);     /* VITA caps */
	ck_assert_int_eq(gx(acc, 0x02, 0x00), ACCESS_DENIED); /* PICMG 02 */
	ck_assert_int_eq(gx(acc, 0x02, 0x03), ACCESS_DENIED); /* VITA 02 */
	ck_assert_int_eq(gx(acc, 0x00, 0xdc), ACCESS_DENIED); /* DCMI 00 */
	ck_assert_int_eq(gx(acc, 0x02, -1), ACCESS_DENIED);   /* no body */
	ck_assert_int_eq(gx(acc, 0x04, 0xdc), ACCESS_DENIED); /* set limit */
	ck_assert_int_eq(gx(acc, 0x05, 0xdc), ACCESS_DENIED); /* activate */

	/* bridged: the carried request's body byte decides */
	acc = rules("access = monitoring\nallow = app:34\n");
	nout = frame(out, 0, false, 0x2c, 0x02, in, 4);
	ck_assert_int_eq(access_check(acc, 0x06, 0x34, out, nout, NULL),
			 ACCESS_OK);
	in[0] = 0x00;
	nout = frame(out, 0, false, 0x2c, 0x02, in, 4);
	ck_assert_int_eq(access_check(acc, 0x06, 0x34, out, nout, NULL),
			 ACCESS_DENIED);

	/* an allow line with a body names that body's commands only, and
	 * is no tunnel grant for the others */
	acc = rules("access = sensors\nallow = dcmi:01\n");
	ck_assert_int_eq(gx(acc, 0x01, 0xdc), ACCESS_OK);
	ck_assert_int_eq(gx(acc, 0x02, 0xdc), ACCESS_DENIED);
	ck_assert_int_eq(gx(acc, 0x01, 0x00), ACCESS_DENIED);
	acc = rules("access = none\nallow = 0x2c:0x01-0x02/0xdc-0xdd\n");
	ck_assert_int_eq(gx(acc, 0x02, 0xdd), ACCESS_OK);
	ck_assert_int_eq(gx(acc, 0x02, 0xde), ACCESS_DENIED);
	acc = rules("access = none\nallow = picmg\n");
	ck_assert_int_eq(gx(acc, 0x17, 0x00), ACCESS_OK);
	ck_assert_int_eq(gx(acc, 0x17, 0xdc), ACCESS_DENIED);

	/* deny with a body takes that body's command; a plain deny takes
	 * the command of every body; both win over a plain allow */
	acc = rules("access = monitoring\ndeny = 0x2c:0x02/0xdc\n");
	ck_assert_int_eq(gx(acc, 0x02, 0xdc), ACCESS_DENIED);
	ck_assert_int_eq(gx(acc, 0x01, 0xdc), ACCESS_OK);
	acc = rules("access = monitoring\ndeny = 0x2c:0x01\n");
	ck_assert_int_eq(gx(acc, 0x01, 0xdc), ACCESS_DENIED);
	ck_assert_int_eq(gx(acc, 0x02, 0xdc), ACCESS_OK);
	acc = rules("access = none\nallow = 0x2c:0x02\ndeny = dcmi:02\n");
	ck_assert_int_eq(gx(acc, 0x02, 0x00), ACCESS_OK); /* named tunnel */
	ck_assert_int_eq(gx(acc, 0x02, 0xdc), ACCESS_DENIED);
	/* all minus one body's command: no longer "every command", so the
	 * other opaque tunnels need naming, as with any deny */
	acc = rules("access = all\ndeny = dcmi:05\n");
	ck_assert(!acc->eff_full);
	ck_assert_int_eq(gx(acc, 0x05, 0xdc), ACCESS_DENIED);
	ck_assert_int_eq(gx(acc, 0x05, 0x00), ACCESS_TUNNEL);
	acc = rules("access = all\nallow = group\ndeny = dcmi:05\n");
	ck_assert_int_eq(gx(acc, 0x05, 0xdc), ACCESS_DENIED);
	ck_assert_int_eq(gx(acc, 0x05, 0x00), ACCESS_OK);
	ck_assert_int_eq(access_check(acc, 0x00, 0x02, NULL, 0, NULL),
			 ACCESS_OK);
}
END_TEST

/* The item syntax: errors, and format -> parse gives the set back. */
START_TEST(test_group_extension_syntax)
{
	static const char *const bad[] = {
		"0x06:01/0xdc",	 "dcmi/0xdc",	  "dcmi:01/0xdc",
		"0x2c:01/0x100", "0x2c:01/",	  "0x2c-0x2e:01/dc",
		"*:01/dc",	 "0x2c:01/dc-db", "0x2c:01/x",
	};
	struct kcsmux_cmdset s, t;
	char *text, *cause = NULL;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cmdset_clear(&s);
		ck_assert_msg(cmdset_parse(&s, bad[i], &cause) == -1, "%s",
			      bad[i]);
		ck_assert_ptr_nonnull(cause);
		free(cause);
		cause = NULL;
		ck_assert(cmdset_empty(&s));
	}
	cmdset_clear(&s);
	ck_assert_int_eq(cmdset_parse(&s,
				      "dcmi:01-02, picmg:00, "
				      "0x2c:*/0x03, group:0x10, asf:7",
				      NULL),
			 0);
	ck_assert(cmdset_has_gx(&s, 0xdc, 0x02));
	ck_assert(!cmdset_has_gx(&s, 0xdc, 0x03));
	ck_assert(!cmdset_has(&s, 0x2c, 0x01));
	ck_assert(cmdset_has(&s, 0x2c, 0x10));
	text = cmdset_format(&s);
	ck_assert_str_eq(text, "0x2c:0x10, 0x2c:0x00/0x00, 0x2c:0x07/0x01, "
			       "0x2c:*/0x03, 0x2c:0x01-0x02/0xdc");
	cmdset_clear(&t);
	ck_assert_int_eq(cmdset_parse(&t, text, NULL), 0);
	ck_assert(memcmp(&s, &t, sizeof(s)) == 0);
	free(text);
}
END_TEST

/* monitoring: sensors' superset, readonly's subset, and no command that
 * changes the BMC, clears a log or controls the chassis. */
START_TEST(test_monitoring_preset)
{
	struct kcsmux_cmdset se, mo, ro;
	static const uint8_t never[][2] = {
		{ 0x00, 0x02 }, { 0x00, 0x04 }, { 0x00, 0x08 }, { 0x04, 0x00 },
		{ 0x04, 0x28 }, { 0x04, 0x2a }, { 0x06, 0x22 }, { 0x06, 0x24 },
		{ 0x06, 0x2e }, { 0x06, 0x30 }, { 0x06, 0x33 }, { 0x06, 0x34 },
		{ 0x06, 0x52 }, { 0x06, 0x58 }, { 0x0a, 0x12 }, { 0x0a, 0x44 },
		{ 0x0a, 0x47 }, { 0x0a, 0x49 }, { 0x0a, 0x24 }, { 0x0a, 0x27 },
		{ 0x0c, 0x01 }, { 0x02, 0x00 },
	};
	unsigned n, c, b;
	size_t i;

	access_preset_set(KCSMUX_ACCESS_SENSORS, &se);
	access_preset_set(KCSMUX_ACCESS_MONITORING, &mo);
	access_preset_set(KCSMUX_ACCESS_READONLY, &ro);
	for (n = 0; n < KCSMUX_NETFNS; n++) {
		for (c = 0; c < 256; c++) {
			if (cmdset_has(&se, (uint8_t)n, (uint8_t)c))
				ck_assert(cmdset_has(&mo, (uint8_t)n,
						     (uint8_t)c));
			if (cmdset_has(&mo, (uint8_t)n, (uint8_t)c))
				ck_assert(cmdset_has(&ro, (uint8_t)n,
						     (uint8_t)c));
			/* no opaque tunnel in either */
			if (access_is_tunnel((uint8_t)n, (uint8_t)c))
				ck_assert(!cmdset_has(&ro, (uint8_t)n,
						      (uint8_t)c));
		}
	}
	for (b = 0; b < 256; b++)
		for (c = 0; c < 256; c++)
			if (cmdset_has_gx(&mo, (uint8_t)b, (uint8_t)c))
				ck_assert(cmdset_has_gx(&ro, (uint8_t)b,
							(uint8_t)c));
	for (i = 0; i < sizeof(never) / sizeof(never[0]); i++) {
		ck_assert_msg(!cmdset_has(&mo, never[i][0], never[i][1]),
			      "%02x:%02x", never[i][0], never[i][1]);
		ck_assert_msg(!cmdset_has(&ro, never[i][0], never[i][1]),
			      "%02x:%02x", never[i][0], never[i][1]);
	}
	/* DCMI: reads only (01 capabilities, 02 power reading) */
	for (c = 0; c < 256; c++)
		ck_assert(cmdset_has_gx(&mo, KCSMUX_BODY_DCMI, (uint8_t)c) ==
			  (c == 0x01 || c == 0x02));
}
END_TEST

/* The reference for one frame F (from its netfn/LUN byte, LEN bytes on):
 * the plain pair, or for netfn 2c the (body, cmd) after the cmd byte. */
static bool ref_allows(const struct kcsmux_access *acc, const uint8_t *f,
		       size_t len)
{
	uint8_t netfn = f[0] >> 2, cmd = f[4];

	if (netfn == 0x2c && len > 5 && cmdset_has_gx(&acc->eff, f[5], cmd))
		return true;
	return access_allows(acc, netfn, cmd);
}

/* Random bodies at random depth never get a refused command through:
 * a reference walker re-derives each level's command independently. */
START_TEST(test_random_bodies)
{
	const struct kcsmux_access *acc = rules("access = readonly\n"
						"allow = app:34\n");
	uint8_t buf[96];
	unsigned i, seed = 12345;
	size_t len, k;
	enum access_verdict v;

	for (i = 0; i < 200000; i++) {
		len = (size_t)(rand_r(&seed) % sizeof(buf));
		for (k = 0; k < len; k++)
			buf[k] = (uint8_t)rand_r(&seed);
		if (len > 0 && rand_r(&seed) % 2)
			buf[0] &= 0xf0; /* channel 0 */
		v = access_check(acc, 0x06, 0x34, buf, len, NULL);
		if (v != ACCESS_OK)
			continue;
		/* allowed: the IPMB reading must be allowed and no Send
		 * Message inside it (depth 1 is the limit) */
		ck_assert_uint_ge(len, 7);
		if (buf[1] == 0 && (buf[0] & 0x0f) == 0) {
			ck_assert_uint_ge(len, 8);
			ck_assert(ref_allows(acc, buf + 3, len - 3));
		} else {
			ck_assert(ref_allows(acc, buf + 2, len - 2));
			ck_assert(!(buf[2] >> 2 == 6 && buf[6] == 0x34));
		}
		if ((buf[0] & 0x0f) != 0 && len >= 8)
			ck_assert(ref_allows(acc, buf + 3, len - 3));
	}
}
END_TEST

/*
 * A client's own IPMB request, as the frame the daemon wraps is read on
 * the bus: slave address 0 without the broadcast type makes receivers
 * read a broadcast one byte on (cmd = the first data byte, netfn = the
 * first checksum / 4); a channel other than 0 may be LAN, read likewise.
 */
START_TEST(test_ipmb_readings)
{
	const struct kcsmux_access *acc = rules("access = readonly\n");
	/* netfn 00 LUN 0 to SA 0: checksum 1 is 00, so the shifted netfn
	 * is 00 (chassis) and its cmd the first data byte, 02 */
	static const uint8_t ctl[] = { 0x02, 0x00 };
	struct access_why why;
	unsigned int chan;

	/* Get Chassis Status (readonly) is allowed as such ... */
	ck_assert_int_eq(ipmb_check(acc, 0, false, 0x82, 0, 0x20, 0x00, 0x01,
				    ctl, 2, NULL),
			 ACCESS_OK);
	ck_assert_int_eq(ipmb_check(acc, 0, true, 0x00, 0, 0x20, 0x00, 0x01,
				    ctl, 2, NULL),
			 ACCESS_OK);
	/* ... but to SA 0 it is Chassis Control for the receivers */
	ck_assert_int_eq(ipmb_check(acc, 0, false, 0x00, 0, 0x20, 0x00, 0x01,
				    ctl, 2, &why),
			 ACCESS_DENIED);
	ck_assert_uint_eq(why.netfn, 0x00);
	ck_assert_uint_eq(why.cmd, 0x02);
	/* and on another channel whatever the address */
	for (chan = 1; chan < 16; chan++) {
		uint8_t sa = (uint8_t)(0x100 - 0x00); /* chk1 = -(sa) = 0 */

		ck_assert_int_eq(ipmb_check(acc, (uint8_t)chan, false,
					    (uint8_t)sa, 0, 0x20, 0x00, 0x01,
					    ctl, 2, NULL),
				 ACCESS_DENIED);
	}
	/* a node that allows everything: nothing to bypass */
	acc = rules("access = all\n");
	ck_assert_int_eq(ipmb_check(acc, 0, false, 0x00, 0, 0x20, 0x00, 0x01,
				    ctl, 2, NULL),
			 ACCESS_OK);
}
END_TEST

/*
 * Found by vm.daemon-oracle: a nested Send Message to channel 12 whose
 * LAN reading is one byte short of a command; the daemon's own checksum,
 * appended after the client's data, became that command (02:44, a tunnel)
 * at the BMC. A reading one byte short is refused now.
 */
START_TEST(test_appended_checksum)
{
	const struct kcsmux_access *acc = rules("access = all\n"
						"deny = chassis:02\n");
	static const uint8_t in[] = { 0x1c, 0xfc, 0x75, 0x08, 0x23, 0xf0, 0x9e };
	uint8_t pad[8];

	ck_assert_int_eq(ipmb_check(acc, 0, false, 0x13, 0, 0x20, 0x06, 0x34,
				    in, sizeof(in), NULL),
			 ACCESS_MALFORMED);
	/* one byte more: the command is the client's own, checked */
	memcpy(pad, in, sizeof(in));
	pad[7] = 0x01; /* 02:01: a tunnel, refused */
	ck_assert_int_eq(ipmb_check(acc, 0, false, 0x13, 0, 0x20, 0x06, 0x34,
				    pad, 8, NULL),
			 ACCESS_TUNNEL);
	pad[3] = 0x18; /* 06:01: allowed */
	ck_assert_int_eq(ipmb_check(acc, 0, false, 0x13, 0, 0x20, 0x06, 0x34,
				    pad, 8, NULL),
			 ACCESS_OK);
	/* the daemon's own frame, shifted, to slave 0 without data: its
	 * command would be the checksum */
	acc = rules("access = readonly\n");
	ck_assert_int_eq(ipmb_check(acc, 0, false, 0x00, 0, 0x20, 0x06, 0x01,
				    NULL, 0, NULL),
			 ACCESS_MALFORMED);
	ck_assert_int_eq(ipmb_check(acc, 0, false, 0x82, 0, 0x20, 0x06, 0x01,
				    NULL, 0, NULL),
			 ACCESS_OK);
}
END_TEST

/* commands: by default only where nothing is restricted; explicit wins. */
START_TEST(test_commands_default)
{
	rules("");
	ck_assert(cfg.nodes[0].commands);
	rules("access = all\ndeny = chassis:02\n");
	ck_assert(!cfg.nodes[0].commands);
	rules("access = readonly\n");
	ck_assert(!cfg.nodes[0].commands);
	rules("access = readonly\ncommands = yes\n");
	ck_assert(cfg.nodes[0].commands);
	rules("commands = no\n");
	ck_assert(!cfg.nodes[0].commands);
}
END_TEST

/* netfn is a byte in struct ipmi_msg; the wire keeps its low 6
 * bits (netfn << 2 in a uint8_t), so 0x46 is app (06) at the BMC. */
START_TEST(test_netfn_high_bits)
{
	const struct kcsmux_access *acc = rules("access = all\n");
	uint8_t in[64], mid[96];
	size_t nin, nmid;

	nin = frame(in, 0, false, 0x00, 0x02, chassis_off, 1);
	nmid = frame(mid, 0, false, 0x06, 0x34, in, nin);
	/* the daemon wraps an IPMB request in one Send Message; a client
	 * Send Message carrying another is refused on every node ... */
	ck_assert_int_eq(ipmb_check(acc, 0, false, 0x20, 0, 0x20, 0x06, 0x34,
				    mid, nmid, NULL),
			 ACCESS_TOO_DEEP);
	/* ... and must be when the netfn byte is 0x46 (06 on the wire) */
	ck_assert_int_eq(ipmb_check(acc, 0, false, 0x20, 0, 0x20, 0x46, 0x34,
				    mid, nmid, NULL),
			 ACCESS_TOO_DEEP);
}
END_TEST

/*
 * The BMC's message buffers (06:30 Clear Message Flags, 31 Get Message
 * Flags, 33 Get Message, 35 Read Event Message Buffer) are one right in a
 * request to the BMC itself: with access = all + deny = app:30 (security.md's
 * advice) a Read Event Message Buffer to IPMB 0x20 on channel 0, or in a
 * Send Message frame to 0x20 there, drained the event buffer the daemon
 * fans out (ipmi_sim runs it as its own). To another controller, or where
 * all four are allowed, it goes.
 */
START_TEST(test_message_buffers_alike)
{
	const struct kcsmux_access *acc;
	uint8_t in[64];
	size_t nin;

	acc = rules("access = all\ndeny = app:30\n");
	for (unsigned int c = 0x30; c <= 0x35; c++) {
		if (c == 0x32 || c == 0x34)
			continue;
		ck_assert_msg(access_check(acc, 0x06, (uint8_t)c, NULL, 0,
					   NULL) != ACCESS_OK,
			      "06:%02x to the BMC allowed", c);
		ck_assert_msg(ipmb_check(acc, 0, false, 0x20, 0, 0x20, 0x06,
					 (uint8_t)c, NULL, 0,
					 NULL) != ACCESS_OK,
			      "06:%02x to IPMB 0x20 allowed", c);
		ck_assert_msg(ipmb_check(acc, 0, true, 0x20, 0, 0x20, 0x06,
					 (uint8_t)c, NULL, 0,
					 NULL) != ACCESS_OK,
			      "06:%02x broadcast to 0x20 allowed", c);
		nin = frame(in, 0, false, 0x06, (uint8_t)c, NULL, 0);
		in[1] = 0x20; /* rsSA: the BMC */
		in[3] = (uint8_t) - (uint8_t)(in[1] + in[2]);
		ck_assert_msg(access_check(acc, 0x06, 0x34, in, nin, NULL) !=
				      ACCESS_OK,
			      "06:%02x in Send Message to 0x20 allowed", c);
		/* another controller's own buffers: its business */
		in[1] = 0x82;
		in[3] = (uint8_t) - (uint8_t)(in[1] + in[2]);
		if (c != 0x30 && c != 0x33) /* denied, a tunnel */
			ck_assert_int_eq(access_check(acc, 0x06, 0x34, in, nin,
						      NULL),
					 ACCESS_OK);
	}
	ck_assert_int_eq(ipmb_check(acc, 0, false, 0x82, 0, 0x20, 0x06, 0x35,
				    NULL, 0, NULL),
			 ACCESS_OK);
	/* where all four are allowed, each is */
	acc = rules("access = all\n");
	ck_assert_int_eq(ipmb_check(acc, 0, false, 0x20, 0, 0x20, 0x06, 0x35,
				    NULL, 0, NULL),
			 ACCESS_OK);
	acc = rules("access = readonly\nallow = app:30, app:31, app:33, "
		    "app:35\n");
	ck_assert_int_eq(access_check(acc, 0x06, 0x35, NULL, 0, NULL),
			 ACCESS_OK);
	ck_assert_int_eq(ipmb_check(acc, 0, false, 0x20, 0, 0x20, 0x06, 0x35,
				    NULL, 0, NULL),
			 ACCESS_OK);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("access");
	TCase *tc = tcase_create("check");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, test_nested_chassis_control);
	tcase_add_test(tc, test_openers);
	tcase_add_test(tc, test_layouts);
	tcase_add_test(tc, test_truncated);
	tcase_add_test(tc, test_tunnels);
	tcase_add_test(tc, test_plain_agrees);
	tcase_add_test(tc, test_response_of_denied);
	tcase_add_test(tc, test_random_bodies);
	tcase_add_test(tc, test_ipmb_readings);
	tcase_add_test(tc, test_appended_checksum);
	tcase_add_test(tc, test_commands_default);
	tcase_add_test(tc, test_group_extension);
	tcase_add_test(tc, test_netfn_high_bits);
	tcase_add_test(tc, test_group_extension_syntax);
	tcase_add_test(tc, test_monitoring_preset);
	tcase_add_test(tc, test_message_buffers_alike);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
