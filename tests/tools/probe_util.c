// SPDX-License-Identifier: GPL-2.0
/* Pure helpers of kcsmux-ipmi-probe; see probe_util.h. */
#include "probe_util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int probe_parse_hex_byte(const char *tok, uint8_t *out)
{
	size_t len;
	int hi, lo;

	if (!tok)
		return -1;
	if (tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X'))
		tok += 2;
	len = strlen(tok);
	if (len == 1) {
		lo = hexval(tok[0]);
		if (lo < 0)
			return -1;
		*out = (uint8_t)lo;
		return 0;
	}
	if (len == 2) {
		hi = hexval(tok[0]);
		lo = hexval(tok[1]);
		if (hi < 0 || lo < 0)
			return -1;
		*out = (uint8_t)(hi << 4 | lo);
		return 0;
	}
	return -1;
}

int probe_parse_request(const char *spec, struct probe_request *req)
{
	char tok[8];
	size_t count = 0;
	const char *p = spec;

	if (!spec)
		return -1;
	memset(req, 0, sizeof(*req));
	for (;;) {
		size_t len = 0;
		uint8_t b;

		while (*p == ' ' || *p == '\t' || *p == ',' || *p == '\n')
			p++;
		if (!*p)
			break;
		while (p[len] && p[len] != ' ' && p[len] != '\t' &&
		       p[len] != ',' && p[len] != '\n')
			len++;
		if (len >= sizeof(tok))
			return -1;
		memcpy(tok, p, len);
		tok[len] = '\0';
		p += len;
		if (probe_parse_hex_byte(tok, &b))
			return -1;
		if (count == 0) {
			req->netfn = b;
		} else if (count == 1) {
			req->cmd = b;
		} else {
			if (count - 2 >= IPMI_MAX_MSG_LENGTH)
				return -1;
			req->data[count - 2] = b;
		}
		count++;
	}
	if (count < 2)
		return -1;
	req->data_len = (uint16_t)(count - 2);
	return 0;
}

int probe_parse_uint(const char *s, unsigned long long max,
		     unsigned long long *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || isspace((unsigned char)*s) || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

int probe_device_path(const char *arg, char *buf, size_t sz)
{
	size_t i;
	int n;

	if (!arg || !*arg)
		return -1;
	for (i = 0; arg[i]; i++)
		if (!isdigit((unsigned char)arg[i]))
			break;
	if (!arg[i] && i <= 9)
		n = snprintf(buf, sz, "/dev/ipmi%s", arg);
	else
		n = snprintf(buf, sz, "%s", arg);
	if (n < 0 || (size_t)n >= sz)
		return -1;
	return 0;
}

unsigned int probe_build_addr(union probe_addr *a, int ipmb, uint8_t channel,
			      uint8_t slave, uint8_t lun)
{
	memset(a, 0, sizeof(*a));
	if (ipmb) {
		a->ipmb.addr_type = IPMI_IPMB_ADDR_TYPE;
		a->ipmb.channel = channel;
		a->ipmb.slave_addr = slave;
		a->ipmb.lun = lun;
		return sizeof(a->ipmb);
	}
	a->si.addr_type = IPMI_SYSTEM_INTERFACE_ADDR_TYPE;
	a->si.channel = IPMI_BMC_CHANNEL;
	a->si.lun = lun;
	return sizeof(a->si);
}

enum probe_verdict
probe_classify(int recv_type, long msgid, const struct ipmi_addr *from,
	       uint8_t netfn, uint8_t cmd, const uint8_t *data,
	       unsigned int data_len, const struct probe_request *req,
	       long want_msgid, const struct ipmi_addr *sent_to)
{
	if (recv_type != IPMI_RESPONSE_RECV_TYPE)
		return PROBE_NOT_RESPONSE;
	if (msgid != want_msgid)
		return PROBE_MSGID_MISMATCH;
	if (netfn != (req->netfn | 1) || cmd != req->cmd)
		return PROBE_BAD;
	if (from->addr_type != sent_to->addr_type ||
	    from->channel != sent_to->channel)
		return PROBE_BAD;
	if (data_len < 1 || !data)
		return PROBE_BAD;
	if (data[0] != 0)
		return PROBE_CC;
	return PROBE_OK;
}

const char *probe_verdict_name(enum probe_verdict v)
{
	switch (v) {
	case PROBE_OK:
		return "ok";
	case PROBE_NOT_RESPONSE:
		return "not-a-response";
	case PROBE_MSGID_MISMATCH:
		return "msgid-mismatch";
	case PROBE_CC:
		return "completion-code";
	case PROBE_BAD:
		return "bad-response";
	}
	return "?";
}
