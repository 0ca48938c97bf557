// SPDX-License-Identifier: GPL-2.0
/* bridge.c - IPMB bridging through Send Message (being written). */
#include <errno.h>

#include "xact.h"

int bridge_send(struct client *c, const struct abi_addr *addr, int64_t msgid,
		uint8_t netfn, uint8_t cmd, const uint8_t *data, uint16_t len,
		int32_t retries, uint32_t retry_ms, unsigned int flags)
{
	(void)c; (void)addr; (void)msgid; (void)netfn; (void)cmd; (void)data;
	(void)len; (void)retries; (void)retry_ms; (void)flags;
	return -EAFNOSUPPORT;
}

void bridge_client_gone(struct client *c)
{
	(void)c;
}

void xact_attention(struct daemon *d)
{
	(void)d;
}
