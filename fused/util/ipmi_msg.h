/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipmi_msg.h - IPMI messages as the stock message handler sees them, for
 * every layer of kcsmuxd: the limits, the address forms (struct ipmi_addr
 * and its overlays, parsed into struct ipmi_address), the message handler's
 * per-address-type request checks (util/ipmi_addr.c), and a message as a
 * /dev/ipmi client receives it. Pure logic: no I/O, no libfuse, no
 * allocation. The CUSE front end's ioctl structs are in cuse/ipmi_abi.h.
 */
#ifndef KCSMUX_IPMI_MSG_H
#define KCSMUX_IPMI_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/ioctl.h> /* <linux/ipmi.h> needs _IOR & co. */
#include <linux/ipmi.h>

#define ABI_MAX_ADDR_LEN   40 /* sizeof(struct ipmi_addr) */
#define ABI_MIN_ADDR_LEN   8  /* sizeof(struct ipmi_system_interface_addr) */
#define ABI_MAX_CHANNELS   16 /* the msghandler's IPMI_MAX_CHANNELS */
#define ABI_MAX_MSG_LENGTH IPMI_MAX_MSG_LENGTH /* 272 */
#define ABI_CHAN_ALL	   0xffffffffu	       /* IPMI_CHAN_ALL */

/* Stock message-handler defaults (module parameters in the kernel). */
#define ABI_DEFAULT_RETRIES	4
#define ABI_DEFAULT_RETRY_MS	2000
#define ABI_MAINT_RETRY_MS	3000  /* IPMB in maintenance mode */
#define ABI_MAINT_TIMEOUT_MS	30000 /* auto maintenance mode */
#define ABI_MAX_EVENTS_IN_QUEUE 25

/* ------------------------------------------------------------------ */
/* Addresses (struct ipmi_addr and its overlays) */

struct ipmi_address {
	int32_t addr_type; /* IPMI_*_ADDR_TYPE */
	int16_t channel;
	uint8_t slave_addr; /* IPMB, IPMB broadcast, IPMB direct */
	uint8_t lun;	    /* SI, IPMB, LAN (not range-checked here) */
	/* LAN only */
	uint8_t privilege, session_handle, remote_swid, local_swid;
	/* IPMB direct only */
	uint8_t rs_lun, rq_lun;
};

/*
 * Parse and validate the first addr_len bytes of a user address as
 * ipmi_validate_addr does: -EINVAL if addr_len < 8 or > 40, a system
 * interface address whose channel is not IPMI_BMC_CHANNEL, any other type
 * on channel 15, < 0 or >= 16, too short for its type (IPMB and broadcast 8,
 * LAN 12, IPMB direct 12 and also channel != 0, odd slave address or a LUN
 * > 3), or an unknown type. The SI/IPMB/LAN lun is checked later, by
 * ipmi_check_request. Bytes beyond the type's size are ignored.
 */
int ipmi_addr_parse(const void *bytes, uint32_t addr_len,
		    struct ipmi_address *out);
/* Length of an address of this type on RECEIVE (ipmi_addr_length): SI and
 * IPMB (also broadcast) 8, LAN and IPMB direct 12, unknown 0. */
uint32_t ipmi_addr_len(int32_t addr_type);
/* Write addr as the user sees it; padding is zeroed. Returns the length
 * (ipmi_addr_len), -EINVAL for an unknown type, -ENOSPC if bufsize is too
 * small. */
int ipmi_addr_encode(const struct ipmi_address *addr, void *buf,
		     size_t bufsize);
/* The address the stock driver keeps for a request, i.e. the address of
 * its error/timeout response: a broadcast becomes a plain IPMB address. */
void ipmi_addr_reply_form(const struct ipmi_address *req,
			  struct ipmi_address *out);

/* ------------------------------------------------------------------ */
/* Request checks (i_ipmi_request and its per-type helpers) */

#define ABI_REQF_MAINT_SI \
	0x1 /* (re)arm automatic maintenance mode
					   (30 s) on the interface */
#define ABI_REQF_MAINT_IPMB \
	0x2		       /* (re)arm IPMB maintenance for 30 s:
					   meanwhile (this request included)
					   retry time 0 = ABI_MAINT_RETRY_MS */
#define ABI_REQF_BROADCAST 0x4 /* IPMB broadcast: no retries */
#define ABI_REQF_RESPONSE \
	0x8 /* IPMB/LAN response (odd netfn): the
					   caller's msgid is the sequence */
#define ABI_REQF_SEQ \
	0x10 /* IPMB/LAN command: needs one of the 64
					   sequence slots (none free: -EAGAIN) */

/* True for cold/warm reset (App 0x02/0x03) and any firmware netfn 0x08
 * request: is_maintenance_mode_cmd. */
bool ipmi_is_maint_trigger(uint8_t netfn, uint8_t cmd);

/*
 * System interface: odd netfn -> -EINVAL; lun > 3 -> -EINVAL; App Send
 * Message 0x34 / Get Message 0x33 / Read Event Message Buffer 0x35 ->
 * -EINVAL (the driver owns them); data_len + 2 > 272 -> -EMSGSIZE.
 * A maintenance trigger that passed the -EINVAL checks arms maintenance
 * mode even when -EMSGSIZE follows (ipmi_check_request reports it).
 */
int ipmi_check_si_request(uint8_t netfn, uint8_t cmd, uint8_t lun,
			  uint32_t data_len);

/*
 * Dispatch on the parsed address and return the stock result; *flags gets
 * ABI_REQF_* (valid even on error: act on ABI_REQF_MAINT_SI also after
 * -EMSGSIZE). media: the 16 channel medium types (IPMI_CHANNEL_MEDIUM_*)
 * from the interface's channel scan, or NULL to skip that check.
 * IPMB and broadcast: channel medium must be IPMB (-EINVAL); data_len + 10
 * (+1 for broadcast) > 272 -> -EMSGSIZE; lun > 3 -> -EINVAL.
 * LAN: medium must be 802.3 LAN or async (-EINVAL); data_len + 12 > 272 ->
 * -EMSGSIZE; lun > 3 -> -EINVAL.
 * IPMB direct: -EAFNOSUPPORT (a KCS interface cannot do it).
 */
int ipmi_check_request(const struct ipmi_address *addr, uint8_t netfn,
		       uint8_t cmd, uint32_t data_len, const uint8_t *media,
		       unsigned int *flags);

/*
 * The retries / retry time an IPMB or LAN command really uses: broadcast ->
 * 0 retries; retry_time_ms 0 -> 3000 ms in IPMB maintenance mode, else
 * 2000 ms; retries < 0 -> 4. (The per-file default from TIMING_PARMS is
 * -1 / 0, i.e. these defaults.) System-interface messages ignore them.
 */
void ipmi_effective_timing(int32_t retries, uint32_t retry_time_ms,
			   bool broadcast, bool ipmb_maint,
			   int32_t *out_retries, uint32_t *out_ms);

/* ------------------------------------------------------------------ */
/* Messages */

/*
 * One request as it travels the daemon, like the kernel's struct
 * kernel_ipmi_msg with its address, msgid and timing: the front end
 * decodes a SEND_COMMAND(_SETTIME) into it, and the access rules, the
 * bridge, the SDR cache and the core's transactions all take it. Borrowed:
 * data and addr_raw point into the caller's buffers; whoever keeps the
 * request copies them (xact_from_request, seqtab_alloc).
 */
struct ipmi_request {
	struct ipmi_address addr; /* parsed (ipmi_addr_parse) */
	const uint8_t *addr_raw;  /* the caller's bytes, echoed in the answer */
	uint32_t addr_len;
	int64_t msgid;
	uint8_t netfn, cmd; /* netfn: the 6 bits the wire carries */
	const uint8_t *data;
	uint16_t len;
	int32_t retries;    /* IPMB/LAN timing: < 0 the default */
	uint32_t retry_ms;  /* 0: the default */
	unsigned int flags; /* ABI_REQF_* (ipmi_check_request) */
};

/*
 * A message as a /dev/ipmi client receives it (struct ipmi_recv + its
 * address and data), in the stock driver's form: what the core hands up
 * (responses, events, incoming commands) and a backend reports as an event.
 */
struct ipmb_user_msg {
	int32_t recv_type; /* IPMI_*_RECV_TYPE / IPMI_RESPONSE_RESPONSE_TYPE */
	struct ipmi_address addr;
	int64_t msgid;
	uint8_t netfn, cmd;
	uint16_t data_len;
	uint8_t data[ABI_MAX_MSG_LENGTH];
};

#endif /* KCSMUX_IPMI_MSG_H */
