// SPDX-License-Identifier: GPL-2.0
/*
 * kcsmux-ipmi-listen: the receiving side of an IPMI device, for the VM tests
 * of events and incoming commands (docs/guest-tools.md).
 *
 *   kcsmux-ipmi-listen -d DEV [-e] [-r NETFN:CMD[:CHANS]]... [-a HEXDATA]
 *                      [-n COUNT] [-t MS] [-R READY_FILE]
 *
 * Opens DEV, subscribes to events (-e, IPMICTL_SET_GETS_EVENTS_CMD) and
 * registers commands (-r, IPMICTL_REGISTER_FOR_CMD, or the _CHANS form when
 * a channel mask is given), creates READY_FILE once set up, then waits with
 * poll() for COUNT messages (default 1) or MS milliseconds (default 10000).
 * Prints one line per message received:
 *
 *   recv type=event|cmd|response|oem addr=TYPE/CHANNEL/SA/LUN
 *        netfn=0xNN cmd=0xNN msgid=N len=N data=HEX...
 *
 * and answers each incoming command with -a HEXDATA (completion code first,
 * default "00") through IPMICTL_SEND_COMMAND to the command's own address
 * and msgid, printing "reply rc=0" or "reply rc=-1 errno=NAME". Exit: 0
 * when COUNT messages came, 1 on timeout, 2 on a setup error.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/ipmi.h>

#include "probe_util.h"

#define MAX_REGS 8

static const char *type_name(int t)
{
	switch (t) {
	case IPMI_RESPONSE_RECV_TYPE:
		return "response";
	case IPMI_ASYNC_EVENT_RECV_TYPE:
		return "event";
	case IPMI_CMD_RECV_TYPE:
		return "cmd";
	case IPMI_RESPONSE_RESPONSE_TYPE:
		return "response-response";
	case IPMI_OEM_RECV_TYPE:
		return "oem";
	default:
		return "unknown";
	}
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int parse_reg(const char *s, struct ipmi_cmdspec_chans *r, bool *chans)
{
	char buf[64], *p, *q;
	unsigned long long v;
	uint8_t b;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	p = strchr(buf, ':');
	if (!p)
		return -1;
	*p++ = 0;
	q = strchr(p, ':');
	if (q)
		*q++ = 0;
	if (probe_parse_hex_byte(buf, &b))
		return -1;
	r->netfn = b;
	if (probe_parse_hex_byte(p, &b))
		return -1;
	r->cmd = b;
	*chans = q != NULL;
	r->chans = IPMI_CHAN_ALL;
	if (q) {
		if (probe_parse_uint(q, 0xffffffffull, &v))
			return -1;
		r->chans = (unsigned int)v;
	}
	return 0;
}

static void print_msg(const struct ipmi_recv *rv, const union probe_addr *a)
{
	const struct ipmi_ipmb_addr *ib = &a->ipmb;

	printf("recv type=%s addr=%d/%d", type_name(rv->recv_type),
	       a->any.addr_type, a->any.channel);
	if (a->any.addr_type == IPMI_IPMB_ADDR_TYPE ||
	    a->any.addr_type == IPMI_IPMB_BROADCAST_ADDR_TYPE)
		printf("/0x%02x/%u", ib->slave_addr, ib->lun);
	else
		printf("/-/%u", a->si.lun);
	printf(" netfn=0x%02x cmd=0x%02x msgid=%ld len=%u data=", rv->msg.netfn,
	       rv->msg.cmd, rv->msgid, rv->msg.data_len);
	for (unsigned int i = 0; i < rv->msg.data_len; i++)
		printf("%02x", rv->msg.data[i]);
	printf("\n");
	fflush(stdout);
}

static void reply_cmd(int fd, const struct ipmi_recv *rv, union probe_addr *a,
		      const struct probe_request *ans)
{
	struct ipmi_req req = {
		.addr = (unsigned char *)a,
		.addr_len = sizeof(*a),
		.msgid = rv->msgid,
		.msg = { .netfn = rv->msg.netfn | 1,
			 .cmd = rv->msg.cmd,
			 .data = (unsigned char *)ans->data,
			 .data_len = ans->data_len },
	};

	if (ioctl(fd, IPMICTL_SEND_COMMAND, &req) < 0)
		printf("reply rc=-1 errno=%s\n", strerror(errno));
	else
		printf("reply rc=0\n");
	fflush(stdout);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: kcsmux-ipmi-listen -d DEV [-e] "
		"[-r NETFN:CMD[:CHANS]]... [-a HEXDATA] [-n COUNT] [-t MS] "
		"[-R READY_FILE]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct ipmi_cmdspec_chans regs[MAX_REGS];
	bool chans[MAX_REGS];
	struct probe_request ans = { .data_len = 1 };
	char path[256], spec[300];
	const char *dev = NULL, *ready = NULL;
	unsigned long long count = 1, tmo = 10000;
	unsigned int nregs = 0, got = 0;
	bool events = false;
	long long end;
	int fd, c;

	while ((c = getopt(argc, argv, "d:er:a:n:t:R:")) != -1) {
		switch (c) {
		case 'd':
			dev = optarg;
			break;
		case 'e':
			events = true;
			break;
		case 'r':
			if (nregs == MAX_REGS ||
			    parse_reg(optarg, &regs[nregs], &chans[nregs]))
				usage();
			nregs++;
			break;
		case 'a':
			/* probe_parse_request wants NETFN CMD first */
			snprintf(spec, sizeof(spec), "0 0 %s", optarg);
			if (probe_parse_request(spec, &ans) || !ans.data_len)
				usage();
			break;
		case 'n':
			if (probe_parse_uint(optarg, 1000000, &count))
				usage();
			break;
		case 't':
			if (probe_parse_uint(optarg, 3600000, &tmo))
				usage();
			break;
		case 'R':
			ready = optarg;
			break;
		default:
			usage();
		}
	}
	if (!dev || optind != argc ||
	    probe_device_path(dev, path, sizeof(path)))
		usage();
	fd = open(path, O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "kcsmux-ipmi-listen: %s: %s\n", path,
			strerror(errno));
		return 2;
	}
	if (events) {
		int on = 1;

		if (ioctl(fd, IPMICTL_SET_GETS_EVENTS_CMD, &on) < 0) {
			fprintf(stderr,
				"kcsmux-ipmi-listen: SET_GETS_EVENTS: "
				"%s\n",
				strerror(errno));
			return 2;
		}
	}
	for (unsigned int i = 0; i < nregs; i++) {
		struct ipmi_cmdspec cs = { regs[i].netfn, regs[i].cmd };
		int rc = chans[i] ? ioctl(fd, IPMICTL_REGISTER_FOR_CMD_CHANS,
					  &regs[i]) :
				    ioctl(fd, IPMICTL_REGISTER_FOR_CMD, &cs);

		if (rc < 0) {
			fprintf(stderr,
				"kcsmux-ipmi-listen: REGISTER 0x%02x "
				"0x%02x: %s\n",
				regs[i].netfn, regs[i].cmd, strerror(errno));
			return 2;
		}
	}
	if (ready) {
		int rfd = open(ready, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (rfd >= 0)
			close(rfd);
	}
	end = now_ms() + (long long)tmo;
	while (got < count) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		unsigned char data[IPMI_MAX_MSG_LENGTH];
		union probe_addr a;
		struct ipmi_recv rv = {
			.addr = (unsigned char *)&a,
			.addr_len = sizeof(a),
			.msg = { .data = data, .data_len = sizeof(data) },
		};
		long long left = end - now_ms();
		int rc;

		if (left <= 0)
			break;
		rc = poll(&pfd, 1, (int)left);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc <= 0)
			break;
		if (ioctl(fd, IPMICTL_RECEIVE_MSG_TRUNC, &rv) < 0) {
			if (errno == EAGAIN)
				continue;
			printf("recv rc=-1 errno=%s\n", strerror(errno));
			fflush(stdout);
			return 1;
		}
		print_msg(&rv, &a);
		if (rv.recv_type == IPMI_CMD_RECV_TYPE)
			reply_cmd(fd, &rv, &a, &ans);
		got++;
	}
	close(fd);
	printf("listen got=%u want=%llu\n", got, count);
	return got == count ? 0 : 1;
}
