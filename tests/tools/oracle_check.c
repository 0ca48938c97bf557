// SPDX-License-Identifier: GPL-2.0
/*
 * kcsmux-oracle-check: the BMC side as the oracle of the access rules
 * (vm.daemon-oracle, docs/security.md "Hostile clients").
 *
 *   kcsmux-oracle-check CONF LOG NODE...
 *
 * LOG is what the delay proxy passed to the BMC (--log-requests: one
 * "NETFN CMD DATA..." hex line per request). The guest sends a marker
 * before each node's phase and after it (OEM 3e:7e "KMX" + the node's name,
 * "KMX-" for the end) through a node that allows everything; NODE... is the
 * order of the phases, and the markers must come exactly in that order (so
 * a marker forged by a fuzzed node shows up). Every request inside a phase
 * must be one the node's rules in CONF allow, read independently of the
 * daemon's code (only the rule sets come from config/):
 *  - a request to the system interface: its (netfn, cmd) in the node's
 *    set, and an opaque tunnel (06:33, 06:52, netfns 02, 2c, 2e, 30-3f)
 *    only if the set is everything or an allow line names it; a group
 *    extension request (netfn 2c) whose defining body (its first data
 *    byte) and cmd the preset or an allow line names passes, one a deny
 *    line names is refused (kcsmux.conf(5), "group extensions");
 *  - Send Message (06:34), the daemon's wrap of a client's IPMB request:
 *    the frame is read as the receivers may read it (after a leading 00,
 *    the broadcast address or a LAN session handle; otherwise on a channel
 *    other than 0 both as IPMB and one byte on, as LAN) and
 *    every reading's command must be allowed, recursively for a Send
 *    Message inside, which may not hold yet another one.
 *  - LUNs: a request to the system interface's LUN 1-3, and the target
 *    LUN of the daemon's wrap of an IPMB request (a Send Message on a node
 *    whose rules do not allow 06:34 itself), only where the node's luns
 *    key opens it (LUN 0 only by default, whatever the access preset);
 *    the LOG line of a request to LUN N != 0 starts "lun=N ".
 * The daemon's own requests (Get Message Flags 06:31, Get Message 06:33,
 * Clear Message Flags 06:30, Read Event Message Buffer 06:35, which no
 * client may send to the system interface) are not attributed.
 * Prints the counts and each violation; exit 0 when there is none, 1 if
 * there is, 2 on a usage or input error.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "core/access.h"
#include "core/policy.h"

static const struct kcsmux_access *acc;
static const struct kcsmux_node_conf *node;

/* LUN allowed by the node's luns key? (LUN 0 always) */
static bool lun_ok(unsigned lun)
{
	return lun == 0 || (node->luns & (1u << (lun & 3)));
}

static bool is_tunnel(unsigned nf, unsigned cmd)
{
	return nf == 0x02 || nf == 0x2c || nf == 0x2e ||
	       (nf >= 0x30 && nf <= 0x3f) ||
	       (nf == 0x06 && (cmd == 0x33 || cmd == 0x52));
}

/* (NF, CMD) with its data D (N bytes) allowed by the node's rules? */
static bool allowed(unsigned nf, unsigned cmd, const unsigned char *d, size_t n)
{
	if (acc->eff_full)
		return true;
	if (nf == 0x2c && n >= 1) {
		if (cmdset_has_gx(&acc->deny, d[0], (uint8_t)cmd) ||
		    cmdset_has(&acc->deny, 0x2c, (uint8_t)cmd))
			return false;
		if (cmdset_has_gx(&acc->eff, d[0], (uint8_t)cmd))
			return true;
	}
	if (!cmdset_has(&acc->eff, (uint8_t)nf, (uint8_t)cmd))
		return false;
	return !is_tunnel(nf, cmd) ||
	       cmdset_has(&acc->tunnels, (uint8_t)nf, (uint8_t)cmd);
}

static bool frame_ok(const unsigned char *f, size_t n, unsigned depth,
		     bool required, char *why, size_t wlen);

/* A Send Message body B (channel byte first) at DEPTH (0: the daemon's
 * wrap of a client's request). */
static bool body_ok(const unsigned char *b, size_t n, unsigned depth, char *why,
		    size_t wlen)
{
	unsigned chan;

	if (n < 1) {
		snprintf(why, wlen, "Send Message without a channel (depth %u)",
			 depth);
		return false;
	}
	chan = b[0] & 0x0f;
	/* A leading 00 is the IPMB broadcast address, or on LAN a session
	 * handle: the frame follows it, whatever the channel. */
	if (n > 1 && b[1] == 0x00)
		return frame_ok(b + 2, n - 2, depth, true, why, wlen);
	if (chan == 0)
		return frame_ok(b + 1, n - 1, depth, true, why, wlen);
	/* another channel may be IPMB (the frame) or LAN (a session handle,
	 * then the frame): both */
	return frame_ok(b + 1, n - 1, depth, true, why, wlen) &&
	       frame_ok(b + 2, n > 2 ? n - 2 : 0, depth, false, why, wlen);
}

/* An IPMB-style frame: rsSA, netfn/LUN, chk, rqSA, seq/LUN, cmd, data. */
static bool frame_ok(const unsigned char *f, size_t n, unsigned depth,
		     bool required, char *why, size_t wlen)
{
	unsigned nf, cmd;

	if (n < 6) {
		if (required && !acc->eff_full)
			snprintf(why, wlen,
				 "unreadable frame (%zu bytes) at "
				 "depth %u",
				 n, depth);
		return !required || acc->eff_full;
	}
	nf = f[1] >> 2;
	cmd = f[5];
	/* the frame's data, without the checksum that ends it */
	if (!allowed(nf, cmd, f + 6, n > 6 ? n - 7 : 0)) {
		snprintf(why, wlen, "%02x:%02x at depth %u not allowed", nf,
			 cmd, depth);
		return false;
	}
	if (nf == 0x06 && cmd == 0x34) {
		if (depth >= 1) {
			snprintf(why, wlen, "Send Message nested at depth %u",
				 depth + 1);
			return false;
		}
		return body_ok(f + 6, n - 6, depth + 1, why, wlen);
	}
	return true;
}

static bool request_ok(unsigned lun, unsigned nf, unsigned cmd,
		       const unsigned char *d, size_t n, char *why, size_t wlen)
{
	if (!lun_ok(lun)) {
		snprintf(why, wlen, "%02x:%02x to LUN %u not allowed", nf, cmd,
			 lun);
		return false;
	}
	if (nf == 0x06 && cmd == 0x34) {
		/* the daemon's wrap (the node cannot send 06:34 itself): its
		 * frame's rsLUN is the client's target LUN */
		size_t at = n > 1 && d[1] == 0x00 ? 2 : 1;

		if (!allowed(nf, cmd, d, n) && n >= at + 2 &&
		    !lun_ok(d[at + 1] & 3)) {
			snprintf(why, wlen,
				 "IPMB request to target LUN %u not allowed",
				 d[at + 1] & 3);
			return false;
		}
		return body_ok(d, n, 0, why, wlen);
	}
	if (!allowed(nf, cmd, d, n)) {
		snprintf(why, wlen, "%02x:%02x not allowed", nf, cmd);
		return false;
	}
	return true;
}

int main(int argc, char **argv)
{
	struct kcsmux_config cfg;
	const struct kcsmux_node_conf *cur = NULL;
	char line[4096], why[160], *cause = NULL, *p, *end;
	unsigned char d[1024];
	unsigned long lines = 0, checked = 0, internal = 0, outside = 0;
	unsigned long bad = 0, per[64] = { 0 }, bad_per[64] = { 0 };
	int phase = 0, nphases = argc - 3, i;
	bool in_phase = false, markers_ok = true;
	FILE *f;

	if (argc < 4 || nphases > 64) {
		fprintf(stderr,
			"usage: kcsmux-oracle-check CONF LOG NODE...\n");
		return 2;
	}
	memset(&cfg, 0, sizeof(cfg));
	if (config_load(&cfg, argv[1], &cause) < 0) {
		fprintf(stderr, "%s\n", cause);
		return 2;
	}
	for (i = 0; i < nphases; i++)
		if (config_find_node(&cfg, argv[3 + i]) == NULL) {
			fprintf(stderr, "no node %s in %s\n", argv[3 + i],
				argv[1]);
			return 2;
		}
	if ((f = fopen(argv[2], "r")) == NULL) {
		perror(argv[2]);
		return 2;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		unsigned nf, cmd, lun = 0;
		size_t n = 0;

		lines++;
		p = line;
		if (strncmp(p, "lun=", 4) == 0) {
			lun = (unsigned)strtoul(p + 4, &end, 10);
			p = end;
		}
		nf = (unsigned)strtoul(p, &p, 16);
		cmd = (unsigned)strtoul(p, &end, 16);
		if (end == p)
			continue;
		for (p = end; n < sizeof(d); p = end) {
			unsigned long v = strtoul(p, &end, 16);

			if (end == p)
				break;
			d[n++] = (unsigned char)v;
		}
		if (nf == 0x3e && cmd == 0x7e && n >= 3 &&
		    memcmp(d, "KMX", 3) == 0) {
			char name[64];
			size_t k = n - 3 < sizeof(name) - 1 ? n - 3 :
							      sizeof(name) - 1;

			memcpy(name, d + 3, k);
			name[k] = '\0';
			if (!in_phase && phase < nphases &&
			    strcmp(name, argv[3 + phase]) == 0) {
				cur = config_find_node(&cfg, name);
				acc = &cur->acc;
				node = cur;
				in_phase = true;
			} else if (in_phase && strcmp(name, "-") == 0) {
				in_phase = false;
				phase++;
			} else {
				printf("marker out of order: '%s' (phase %d)\n",
				       name, phase);
				markers_ok = false;
			}
			continue;
		}
		if (!in_phase) {
			outside++;
			continue;
		}
		if (nf == 0x06 && (cmd == 0x30 || cmd == 0x31 || cmd == 0x33 ||
				   cmd == 0x35)) {
			internal++;
			continue;
		}
		checked++;
		per[phase]++;
		if (!request_ok(lun, nf, cmd, d, n, why, sizeof(why))) {
			bad++;
			bad_per[phase]++;
			if (bad <= 50) {
				printf("VIOLATION node %s: %s:", cur->name,
				       why);
				for (i = 0; i < (int)n && i < 40; i++)
					printf(" %02x", d[i]);
				printf(" (request %02x:%02x)\n", nf, cmd);
			}
		}
	}
	fclose(f);
	if (phase != nphases || in_phase) {
		printf("markers: %d of %d phases seen complete\n", phase,
		       nphases);
		markers_ok = false;
	}
	for (i = 0; i < nphases; i++)
		printf("oracle: node=%s requests_at_bmc=%lu violations=%lu\n",
		       argv[3 + i], per[i], bad_per[i]);
	printf("oracle: lines=%lu checked=%lu daemon_own=%lu outside=%lu "
	       "violations=%lu markers=%s\n",
	       lines, checked, internal, outside, bad,
	       markers_ok ? "ok" : "BAD");
	config_free(&cfg);
	return bad == 0 && markers_ok && checked > 0 ? 0 : 1;
}
