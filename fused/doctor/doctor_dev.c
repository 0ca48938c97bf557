// SPDX-License-Identifier: GPL-2.0
/*
 * doctor_dev.c - kcsmuxctl doctor's requests: one at a time on a
 * /dev/ipmiN through IPMICTL_SEND_COMMAND and IPMICTL_RECEIVE_MSG_TRUNC,
 * the standard Linux IPMI ABI, so the stock driver's device and a kcsmuxd
 * node answer alike. Each is timed and counted against the run's bound.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/ioctl.h>
#include <linux/ipmi.h>

#include "doctor/doctor.h"

int doc_dev_open(struct doc_dev *d, const char *path, unsigned bound)
{
	memset(d, 0, sizeof(*d));
	d->path = path;
	d->bound = bound;
	d->fd = open(path, O_RDWR | O_CLOEXEC);
	if (d->fd < 0) {
		int e = errno;

		fprintf(stderr, "kcsmuxctl: doctor: %s: %s\n", path,
			strerror(e));
		return -e;
	}
	return 0;
}

void doc_dev_close(struct doc_dev *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}

static uint64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* Wait for the answer to MSGID; its length, or -errno. */
static int receive(struct doc_dev *d, long msgid, uint8_t *rsp)
{
	struct ipmi_system_interface_addr addr;
	uint8_t buf[DOC_ANSWER_MAX];
	struct ipmi_recv rv;
	struct pollfd p = { .fd = d->fd, .events = POLLIN };
	uint64_t end = mono_us() + (uint64_t)DOC_TIMEOUT_MS * 1000u;

	for (;;) {
		uint64_t now = mono_us();
		int n;

		if (now >= end)
			return -ETIMEDOUT;
		n = poll(&p, 1, (int)((end - now) / 1000u) + 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			continue;
		memset(&rv, 0, sizeof(rv));
		rv.addr = (unsigned char *)&addr;
		rv.addr_len = sizeof(addr);
		rv.msg.data = buf;
		rv.msg.data_len = sizeof(buf);
		if (ioctl(d->fd, IPMICTL_RECEIVE_MSG_TRUNC, &rv) < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return -errno;
		}
		/* events and commands are not ours */
		if (rv.recv_type != IPMI_RESPONSE_RECV_TYPE ||
		    rv.msgid != msgid)
			continue;
		if (rv.msg.data_len == 0)
			return -EPROTO;
		n = rv.msg.data_len > DOC_ANSWER_MAX ? DOC_ANSWER_MAX :
						       rv.msg.data_len;
		memcpy(rsp, buf, (size_t)n);
		return n;
	}
}

static int once(struct doc_dev *d, uint8_t netfn, uint8_t cmd,
		const uint8_t *data, size_t len, uint8_t *rsp)
{
	struct ipmi_system_interface_addr si = {
		.addr_type = IPMI_SYSTEM_INTERFACE_ADDR_TYPE,
		.channel = IPMI_BMC_CHANNEL,
		.lun = 0,
	};
	uint8_t copy[DOC_ANSWER_MAX];
	struct ipmi_req req;
	uint64_t t0;
	int n;

	if (d->requests >= d->bound) {
		d->over_bound = true;
		return -E2BIG;
	}
	if (len > 0)
		memcpy(copy, data, len);
	memset(&req, 0, sizeof(req));
	req.addr = (unsigned char *)&si;
	req.addr_len = sizeof(si);
	req.msgid = ++d->msgid;
	req.msg.netfn = netfn;
	req.msg.cmd = cmd;
	req.msg.data = copy;
	req.msg.data_len = (unsigned short)len;
	d->requests++;
	t0 = mono_us();
	if (ioctl(d->fd, IPMICTL_SEND_COMMAND, &req) < 0) {
		d->errors++;
		return -errno;
	}
	n = receive(d, req.msgid, rsp);
	d->last_us = (uint32_t)(mono_us() - t0);
	if (n == -ETIMEDOUT) {
		d->errors++;
		if (++d->silent >= DOC_MAX_SILENT)
			d->gone = true;
		return n;
	}
	if (n < 0) {
		d->errors++;
		return n;
	}
	/* a driver's own timeout (0xC3) or unspecified error (0xFF, what a
	 * node answers for a BMC that answers wrongly) counts as silence */
	if (rsp[0] == 0xc3 || rsp[0] == 0xff) {
		if (++d->silent >= DOC_MAX_SILENT)
			d->gone = true;
		return n;
	}
	d->silent = 0;
	return n;
}

int doc_xact(struct doc_dev *d, uint8_t netfn, uint8_t cmd, const uint8_t *data,
	     size_t len, uint8_t *rsp)
{
	int n, tries;

	if (d->gone)
		return -ETIMEDOUT;
	if (len > DOC_ANSWER_MAX)
		return -EINVAL;
	for (tries = 0;; tries++) {
		n = once(d, netfn, cmd, data, len, rsp);
		if (n > 0 && rsp[0] == 0xc0 && tries < 3) {
			d->retries++;
			usleep(10000);
			continue;
		}
		break;
	}
	if (n > 0 && rsp[0] != 0)
		d->ccs++;
	return n;
}

int doc_pet(struct doc_dev *d)
{
	uint8_t rsp[DOC_ANSWER_MAX];
	int n = doc_xact(d, 0x06, 0x25, NULL, 0, rsp);

	if (n < 0)
		return n;
	if (n < 2 || rsp[0] != 0)
		return -EPROTO;
	/* Reset Watchdog Timer starts a stopped timer: only a running one */
	if (!(rsp[1] & 0x40))
		return 0;
	n = doc_xact(d, 0x06, 0x22, NULL, 0, rsp);
	if (n < 0)
		return n;
	return n >= 1 && rsp[0] == 0 ? 1 : -EPROTO;
}
