/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pure helpers of kcsmux-ipmi-probe: argument parsing, request and address
 * building, response classification. No I/O, so the host unit tests
 * (tests/unit/test_probe_util.c) exercise them without an IPMI device.
 */
#ifndef KCSMUX_TESTS_PROBE_UTIL_H
#define KCSMUX_TESTS_PROBE_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <linux/ipmi.h>

struct probe_request {
	uint8_t netfn;
	uint8_t cmd;
	uint16_t data_len;
	uint8_t data[IPMI_MAX_MSG_LENGTH];
};

/* Storage for any address the probe sends to or receives from. */
union probe_addr {
	struct ipmi_addr any;
	struct ipmi_system_interface_addr si;
	struct ipmi_ipmb_addr ipmb;
};

enum probe_verdict {
	PROBE_OK = 0,	      /* our response, completion code 0 */
	PROBE_NOT_RESPONSE,   /* an event/command/...: not ours, skip it */
	PROBE_MSGID_MISMATCH, /* a response, but to some other msgid */
	PROBE_CC,	      /* our response, completion code != 0 */
	PROBE_BAD, /* our msgid, but malformed: netfn/cmd/addr/empty */
};

/*
 * One hex byte: "6", "06", "0x06", "0X6". Always hexadecimal, one or two
 * digits after the optional prefix. Returns 0 or -1.
 */
int probe_parse_hex_byte(const char *tok, uint8_t *out);

/*
 * "NETFN CMD [DATA...]": hex bytes separated by blanks or commas.
 * Returns 0, or -1 (fewer than two bytes, a bad token, or more than
 * IPMI_MAX_MSG_LENGTH data bytes).
 */
int probe_parse_request(const char *spec, struct probe_request *req);

/*
 * Unsigned integer in C syntax (decimal, 0x hex, 0 octal), whole string,
 * value <= max. Returns 0 or -1.
 */
int probe_parse_uint(const char *s, unsigned long long max,
		     unsigned long long *out);

/*
 * -d argument: all digits N -> "/dev/ipmiN", anything else is a path used
 * as is. Returns 0, or -1 if empty or it does not fit in sz bytes.
 */
int probe_device_path(const char *arg, char *buf, size_t sz);

/*
 * Fill *a with the system interface address (ipmb == 0; channel
 * IPMI_BMC_CHANNEL) or an IPMB address (ipmb != 0; channel, slave).
 * Returns the addr_len to pass in struct ipmi_req.
 */
unsigned int probe_build_addr(union probe_addr *a, int ipmb, uint8_t channel,
			      uint8_t slave, uint8_t lun);

/*
 * Classify a received message against what we sent (req, msgid, address
 * type and channel from the address we sent). data/data_len are the
 * received msg.data and msg.data_len.
 */
enum probe_verdict
probe_classify(int recv_type, long msgid, const struct ipmi_addr *from,
	       uint8_t netfn, uint8_t cmd, const uint8_t *data,
	       unsigned int data_len, const struct probe_request *req,
	       long want_msgid, const struct ipmi_addr *sent_to);

const char *probe_verdict_name(enum probe_verdict v);

#endif
