// SPDX-License-Identifier: GPL-2.0
/*
 * ipmi_abi - ioctl table, struct codecs and argument checks of the Linux
 * /dev/ipmiN ABI (addresses and request checks: ipmi_addr.c). See
 * ipmi_abi.h. Pure logic: no I/O, no allocation.
 */
#include "cuse/ipmi_abi.h"
#include "util/array.h"
#include "util/le.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <string.h>

#include <linux/ioctl.h>
#include <linux/ipmi_msgdefs.h>

/* Native struct sizes must be one of the two layouts this file knows. */
#if ULONG_MAX > 0xffffffffUL
#define NATIVE_LAYOUT32 false
_Static_assert(sizeof(struct ipmi_req) == ABI_REQ64_SIZE, "ipmi_req LP64");
_Static_assert(sizeof(struct ipmi_req_settime) == ABI_REQ_SETTIME64_SIZE,
	       "ipmi_req_settime LP64");
_Static_assert(sizeof(struct ipmi_recv) == ABI_RECV64_SIZE, "ipmi_recv LP64");
#else
#define NATIVE_LAYOUT32 true
_Static_assert(sizeof(struct ipmi_req) == ABI_REQ32_SIZE, "ipmi_req ILP32");
_Static_assert(sizeof(struct ipmi_req_settime) == ABI_REQ_SETTIME32_SIZE,
	       "ipmi_req_settime ILP32");
_Static_assert(sizeof(struct ipmi_recv) == ABI_RECV32_SIZE, "ipmi_recv ILP32");
#endif
_Static_assert(sizeof(struct ipmi_addr) == ABI_MAX_ADDR_LEN, "ipmi_addr");
_Static_assert(sizeof(struct ipmi_system_interface_addr) == ABI_MIN_ADDR_LEN,
	       "si addr");
_Static_assert(sizeof(struct ipmi_ipmb_addr) == 8, "ipmb addr");
_Static_assert(sizeof(struct ipmi_lan_addr) == 12, "lan addr");
_Static_assert(sizeof(struct ipmi_ipmb_direct_addr) == 12, "direct addr");
_Static_assert(sizeof(struct ipmi_cmdspec) == ABI_CMDSPEC_SIZE, "cmdspec");
_Static_assert(sizeof(struct ipmi_cmdspec_chans) == ABI_CMDSPEC_CHANS_SIZE,
	       "cmdspec_chans");
_Static_assert(sizeof(struct ipmi_timing_parms) == ABI_TIMING_SIZE, "timing");
_Static_assert(sizeof(struct ipmi_channel_lun_address_set) == ABI_CHAN_VAL_SIZE,
	       "chan val");
_Static_assert(sizeof(int) == ABI_INT_SIZE, "int");

/* ------------------------------------------------------------------ */
/* layouts: byte offsets of struct ipmi_req(_settime) and ipmi_recv */

struct req_layout {
	uint8_t addr, addr_len, msgid, netfn, cmd, data_len, data;
	uint8_t retries, retry_ms, size, size_settime;
};
static const struct req_layout req64 = {
	0, 8, 16, 24, 25, 26, 32, 40, 44, ABI_REQ64_SIZE, ABI_REQ_SETTIME64_SIZE
};
static const struct req_layout req32 = {
	0, 4, 8, 12, 13, 14, 16, 20, 24, ABI_REQ32_SIZE, ABI_REQ_SETTIME32_SIZE
};

struct recv_layout {
	uint8_t recv_type, addr, addr_len, msgid, netfn, cmd, data_len, data;
	uint8_t size;
};
static const struct recv_layout recv64 = { 0,  8,  16,
					   24, 32, 33,
					   34, 40, ABI_RECV64_SIZE };
static const struct recv_layout recv32 = { 0,  4,  8,
					   12, 16, 17,
					   18, 20, ABI_RECV32_SIZE };

size_t abi_req_size(bool layout32, bool settime)
{
	const struct req_layout *l = layout32 ? &req32 : &req64;

	return settime ? l->size_settime : l->size;
}

size_t abi_recv_size(bool layout32)
{
	return layout32 ? recv32.size : recv64.size;
}

/* ------------------------------------------------------------------ */
/* ioctl table */

/* 32-bit struct numbers, built like the kernel's COMPAT_IPMICTL_* */
#define C_IOR(nr, size)		    _IOC(_IOC_READ, IPMI_IOC_MAGIC, nr, size)
#define C_IOWR(nr, size)	    _IOC(_IOC_READ | _IOC_WRITE, IPMI_IOC_MAGIC, nr, size)
#define COMPAT_RECEIVE_MSG_TRUNC    C_IOWR(11, ABI_RECV32_SIZE)
#define COMPAT_RECEIVE_MSG	    C_IOWR(12, ABI_RECV32_SIZE)
#define COMPAT_SEND_COMMAND	    C_IOR(13, ABI_REQ32_SIZE)
#define COMPAT_SEND_COMMAND_SETTIME C_IOR(21, ABI_REQ_SETTIME32_SIZE)
_Static_assert(COMPAT_SEND_COMMAND == 0x8014690du, "compat send");
_Static_assert(COMPAT_RECEIVE_MSG == 0xC018690Cu, "compat receive");

#define E(c, o, in, out, l32)          \
	{                              \
		c, o, in, out, l32, #c \
	}
#define N(c, o, in, out) E(c, o, in, out, NATIVE_LAYOUT32)

static const struct abi_ioctl compat_tab[] = {
	E(COMPAT_RECEIVE_MSG_TRUNC, ABI_RECEIVE_MSG_TRUNC, ABI_RECV32_SIZE,
	  ABI_RECV32_SIZE, true),
	E(COMPAT_RECEIVE_MSG, ABI_RECEIVE_MSG, ABI_RECV32_SIZE, ABI_RECV32_SIZE,
	  true),
	E(COMPAT_SEND_COMMAND, ABI_SEND_COMMAND, ABI_REQ32_SIZE, 0, true),
	E(COMPAT_SEND_COMMAND_SETTIME, ABI_SEND_COMMAND_SETTIME,
	  ABI_REQ_SETTIME32_SIZE, 0, true),
};

#define RECV_SZ sizeof(struct ipmi_recv)
#define CV_SZ	ABI_CHAN_VAL_SIZE
static const struct abi_ioctl native_tab[] = {
	N(IPMICTL_RECEIVE_MSG_TRUNC, ABI_RECEIVE_MSG_TRUNC, RECV_SZ, RECV_SZ),
	N(IPMICTL_RECEIVE_MSG, ABI_RECEIVE_MSG, RECV_SZ, RECV_SZ),
	N(IPMICTL_SEND_COMMAND, ABI_SEND_COMMAND, sizeof(struct ipmi_req), 0),
	N(IPMICTL_REGISTER_FOR_CMD, ABI_REGISTER_FOR_CMD, ABI_CMDSPEC_SIZE, 0),
	N(IPMICTL_UNREGISTER_FOR_CMD, ABI_UNREGISTER_FOR_CMD, ABI_CMDSPEC_SIZE,
	  0),
	N(IPMICTL_SET_GETS_EVENTS_CMD, ABI_SET_GETS_EVENTS, ABI_INT_SIZE, 0),
	N(IPMICTL_SET_MY_ADDRESS_CMD, ABI_SET_MY_ADDRESS, ABI_INT_SIZE, 0),
	N(IPMICTL_GET_MY_ADDRESS_CMD, ABI_GET_MY_ADDRESS, 0, ABI_INT_SIZE),
	N(IPMICTL_SET_MY_LUN_CMD, ABI_SET_MY_LUN, ABI_INT_SIZE, 0),
	N(IPMICTL_GET_MY_LUN_CMD, ABI_GET_MY_LUN, 0, ABI_INT_SIZE),
	N(IPMICTL_SEND_COMMAND_SETTIME, ABI_SEND_COMMAND_SETTIME,
	  sizeof(struct ipmi_req_settime), 0),
	N(IPMICTL_SET_TIMING_PARMS_CMD, ABI_SET_TIMING_PARMS, ABI_TIMING_SIZE,
	  0),
	N(IPMICTL_GET_TIMING_PARMS_CMD, ABI_GET_TIMING_PARMS, 0,
	  ABI_TIMING_SIZE),
	N(IPMICTL_SET_MY_CHANNEL_ADDRESS_CMD, ABI_SET_MY_CHANNEL_ADDRESS, CV_SZ,
	  0),
	N(IPMICTL_GET_MY_CHANNEL_ADDRESS_CMD, ABI_GET_MY_CHANNEL_ADDRESS, CV_SZ,
	  CV_SZ),
	N(IPMICTL_SET_MY_CHANNEL_LUN_CMD, ABI_SET_MY_CHANNEL_LUN, CV_SZ, 0),
	N(IPMICTL_GET_MY_CHANNEL_LUN_CMD, ABI_GET_MY_CHANNEL_LUN, CV_SZ, CV_SZ),
	N(IPMICTL_REGISTER_FOR_CMD_CHANS, ABI_REGISTER_FOR_CMD_CHANS,
	  ABI_CMDSPEC_CHANS_SIZE, 0),
	N(IPMICTL_UNREGISTER_FOR_CMD_CHANS, ABI_UNREGISTER_FOR_CMD_CHANS,
	  ABI_CMDSPEC_CHANS_SIZE, 0),
	N(IPMICTL_GET_MAINTENANCE_MODE_CMD, ABI_GET_MAINTENANCE_MODE, 0,
	  ABI_INT_SIZE),
	N(IPMICTL_SET_MAINTENANCE_MODE_CMD, ABI_SET_MAINTENANCE_MODE,
	  ABI_INT_SIZE, 0),
};
_Static_assert(ARRAY_SIZE(native_tab) == ABI_OP_COUNT, "one entry per op");

static const struct abi_ioctl *find(const struct abi_ioctl *t, size_t n,
				    unsigned int cmd)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].cmd == cmd)
			return &t[i];
	return NULL;
}

const struct abi_ioctl *abi_ioctl_lookup(unsigned int cmd, bool compat)
{
	const struct abi_ioctl *e = NULL;

	if (compat)
		e = find(compat_tab, ARRAY_SIZE(compat_tab), cmd);
	if (!e)
		e = find(native_tab, ARRAY_SIZE(native_tab), cmd);
	return e;
}

const char *abi_op_name(enum abi_op op)
{
	static const char *const names[] = {
		"RECEIVE_MSG_TRUNC",
		"RECEIVE_MSG",
		"SEND_COMMAND",
		"REGISTER_FOR_CMD",
		"UNREGISTER_FOR_CMD",
		"SET_GETS_EVENTS",
		"SET_MY_ADDRESS",
		"GET_MY_ADDRESS",
		"SET_MY_LUN",
		"GET_MY_LUN",
		"SEND_COMMAND_SETTIME",
		"SET_TIMING_PARMS",
		"GET_TIMING_PARMS",
		"SET_MY_CHANNEL_ADDRESS",
		"GET_MY_CHANNEL_ADDRESS",
		"SET_MY_CHANNEL_LUN",
		"GET_MY_CHANNEL_LUN",
		"REGISTER_FOR_CMD_CHANS",
		"UNREGISTER_FOR_CMD_CHANS",
		"GET_MAINTENANCE_MODE",
		"SET_MAINTENANCE_MODE",
	};
	_Static_assert(ARRAY_SIZE(names) == ABI_OP_COUNT, "op names");

	if ((unsigned int)op >= ABI_OP_COUNT)
		return "?";
	return names[op];
}

/* ------------------------------------------------------------------ */
/* SEND / RECEIVE structs */

int abi_decode_req(const void *buf, size_t len, bool layout32, bool settime,
		   struct abi_req *out)
{
	const struct req_layout *l = layout32 ? &req32 : &req64;
	const uint8_t *p = buf;

	if (!buf || len < (settime ? l->size_settime : l->size))
		return -EINVAL;
	out->addr_ptr = ld_ptr(p + l->addr, layout32);
	out->addr_len = ld32(p + l->addr_len);
	out->msgid = ld_long(p + l->msgid, layout32);
	out->netfn = p[l->netfn];
	out->cmd = p[l->cmd];
	out->data_len = ld16(p + l->data_len);
	out->data_ptr = ld_ptr(p + l->data, layout32);
	out->settime = settime;
	if (settime) {
		out->retries = s32(ld32(p + l->retries));
		out->retry_time_ms = ld32(p + l->retry_ms);
	} else {
		out->retries = -1;
		out->retry_time_ms = 0;
	}
	return 0;
}

int abi_encode_req(void *buf, size_t len, bool layout32,
		   const struct abi_req *in)
{
	const struct req_layout *l = layout32 ? &req32 : &req64;
	size_t size = in->settime ? l->size_settime : l->size;
	uint8_t *p = buf;

	if (!buf || len < size)
		return -EINVAL;
	st_word(p + l->addr, layout32, in->addr_ptr);
	st32(p + l->addr_len, in->addr_len);
	st_word(p + l->msgid, layout32, (uint64_t)in->msgid);
	p[l->netfn] = in->netfn;
	p[l->cmd] = in->cmd;
	st16(p + l->data_len, in->data_len);
	st_word(p + l->data, layout32, in->data_ptr);
	if (in->settime) {
		st32(p + l->retries, (uint32_t)in->retries);
		st32(p + l->retry_ms, in->retry_time_ms);
	}
	return (int)size;
}

int abi_decode_recv(const void *buf, size_t len, bool layout32,
		    struct abi_recv *out)
{
	const struct recv_layout *l = layout32 ? &recv32 : &recv64;
	const uint8_t *p = buf;

	if (!buf || len < l->size)
		return -EINVAL;
	out->recv_type = s32(ld32(p + l->recv_type));
	out->addr_ptr = ld_ptr(p + l->addr, layout32);
	out->addr_len = ld32(p + l->addr_len);
	out->msgid = ld_long(p + l->msgid, layout32);
	out->netfn = p[l->netfn];
	out->cmd = p[l->cmd];
	out->data_len = ld16(p + l->data_len);
	out->data_ptr = ld_ptr(p + l->data, layout32);
	return 0;
}

int abi_encode_recv(void *buf, size_t len, bool layout32,
		    const struct abi_recv *in)
{
	const struct recv_layout *l = layout32 ? &recv32 : &recv64;
	uint8_t *p = buf;

	if (!buf || len < l->size)
		return -EINVAL;
	st32(p + l->recv_type, (uint32_t)in->recv_type);
	st_word(p + l->addr, layout32, in->addr_ptr);
	st32(p + l->addr_len, in->addr_len);
	st_word(p + l->msgid, layout32, (uint64_t)in->msgid);
	p[l->netfn] = in->netfn;
	p[l->cmd] = in->cmd;
	st16(p + l->data_len, in->data_len);
	st_word(p + l->data, layout32, in->data_ptr);
	return l->size;
}

int abi_check_req_sizes(const struct abi_req *req)
{
	if (req->addr_len > ABI_MAX_ADDR_LEN)
		return -EINVAL;
	if (req->data_ptr && req->data_len > ABI_MAX_MSG_LENGTH)
		return -EMSGSIZE;
	return 0;
}

uint16_t abi_req_data_len(const struct abi_req *req)
{
	return req->data_ptr ? req->data_len : 0;
}

/* ------------------------------------------------------------------ */
/* small structs */

int abi_decode_cmdspec(const void *buf, size_t len, struct abi_cmdspec *out)
{
	const uint8_t *p = buf;

	if (!buf || len < ABI_CMDSPEC_SIZE)
		return -EINVAL;
	out->netfn = p[0] & 0x3f; /* 6 bits, as every message's */
	out->cmd = p[1];
	out->chans = ABI_CHAN_ALL;
	return 0;
}

int abi_decode_cmdspec_chans(const void *buf, size_t len,
			     struct abi_cmdspec *out)
{
	const uint8_t *p = buf;

	if (!buf || len < ABI_CMDSPEC_CHANS_SIZE)
		return -EINVAL;
	out->netfn = (uint8_t)(ld32(p) & 0x3f);
	out->cmd = (uint8_t)ld32(p + 4);
	out->chans = ld32(p + 8);
	return 0;
}

int abi_decode_timing(const void *buf, size_t len, struct abi_timing *out)
{
	const uint8_t *p = buf;

	if (!buf || len < ABI_TIMING_SIZE)
		return -EINVAL;
	out->retries = s32(ld32(p));
	out->retry_time_ms = ld32(p + 4);
	return 0;
}

int abi_encode_timing(void *buf, size_t len, const struct abi_timing *in)
{
	uint8_t *p = buf;

	if (!buf || len < ABI_TIMING_SIZE)
		return -EINVAL;
	st32(p, (uint32_t)in->retries);
	st32(p + 4, in->retry_time_ms);
	return ABI_TIMING_SIZE;
}

int abi_decode_chan_val(const void *buf, size_t len, struct abi_chan_val *out)
{
	const uint8_t *p = buf;

	if (!buf || len < ABI_CHAN_VAL_SIZE)
		return -EINVAL;
	out->channel = ld16(p);
	out->value = p[2];
	return 0;
}

int abi_encode_chan_val(void *buf, size_t len, const struct abi_chan_val *in)
{
	uint8_t *p = buf;

	if (!buf || len < ABI_CHAN_VAL_SIZE)
		return -EINVAL;
	st16(p, in->channel);
	p[2] = in->value;
	return ABI_CHAN_VAL_SIZE;
}

int abi_decode_int(const void *buf, size_t len, int32_t *out)
{
	if (!buf || len < ABI_INT_SIZE)
		return -EINVAL;
	*out = s32(ld32(buf));
	return 0;
}

int abi_encode_int(void *buf, size_t len, int32_t v)
{
	if (!buf || len < ABI_INT_SIZE)
		return -EINVAL;
	st32(buf, (uint32_t)v);
	return ABI_INT_SIZE;
}

/* ------------------------------------------------------------------ */
/* receive */

int abi_recv_fit(uint32_t want_addr_len, uint32_t msg_addr_len,
		 uint16_t want_data_len, uint16_t msg_data_len, bool trunc,
		 struct abi_recv_fit *fit)
{
	memset(fit, 0, sizeof(*fit));
	if (want_addr_len < msg_addr_len) {
		fit->err = -EINVAL;
		return fit->err;
	}
	fit->write_addr = true;
	if (msg_data_len > want_data_len) {
		fit->err = -EMSGSIZE;
		if (!trunc)
			return fit->err;
		fit->data_len = want_data_len;
	} else {
		fit->data_len = msg_data_len;
	}
	fit->write_data = fit->data_len > 0;
	fit->write_struct = true;
	fit->consume = true;
	return fit->err;
}

int abi_recv_spans(uint64_t arg, size_t struct_size, const struct abi_recv *r,
		   uint32_t msg_addr_len, const struct abi_recv_fit *fit,
		   struct abi_span out[ABI_RECV_SPANS])
{
	int n = 0;

	/* the stock driver's copy order: a fault part way leaves what it
	 * leaves there */
	if (fit->write_addr && msg_addr_len)
		out[n++] = (struct abi_span){ r->addr_ptr, msg_addr_len };
	if (fit->write_data && fit->data_len)
		out[n++] = (struct abi_span){ r->data_ptr, fit->data_len };
	if (fit->write_struct)
		out[n++] = (struct abi_span){ arg, (uint32_t)struct_size };
	return n;
}

bool abi_spans_equal(const struct abi_span *a, int na, const struct abi_span *b,
		     int nb)
{
	if (na != nb)
		return false;
	for (int i = 0; i < na; i++)
		if (a[i].ptr != b[i].ptr || a[i].len != b[i].len)
			return false;
	return true;
}

int abi_send_spans(uint64_t arg, size_t struct_size, const struct abi_req *r,
		   uint16_t data_len, struct abi_span out[ABI_RECV_SPANS])
{
	int n = 0;

	out[n++] = (struct abi_span){ arg, (uint32_t)struct_size };
	if (r->addr_len)
		out[n++] = (struct abi_span){ r->addr_ptr, r->addr_len };
	if (data_len)
		out[n++] = (struct abi_span){ r->data_ptr, data_len };
	return n;
}

bool abi_spans_in_pages(const struct abi_span *s, int n, uint64_t lo,
			uint64_t hi, uint64_t page)
{
	uint64_t first = lo & ~(page - 1), last;

	if (hi <= lo || hi - 1 > UINT64_MAX - page)
		return false;
	last = ((hi - 1) | (page - 1)) + 1; /* end of hi-1's page */
	for (int i = 0; i < n; i++) {
		if (s[i].ptr < first || s[i].ptr > last ||
		    s[i].len > last - s[i].ptr)
			return false;
	}
	return true;
}

uint64_t abi_guess_ptr(uint64_t ptr, uint64_t old_arg, uint64_t new_arg,
		       size_t size, uint64_t page)
{
	struct abi_span w;

	if (!ptr || !abi_page_window(old_arg, old_arg + size, page, &w) ||
	    ptr < w.ptr || ptr - w.ptr >= w.len)
		return ptr;
	return ptr - old_arg + new_arg; /* wraps like the frame would */
}

bool abi_page_window(uint64_t lo, uint64_t hi, uint64_t page,
		     struct abi_span *win)
{
	uint64_t first = lo & ~(page - 1), last;

	if (hi <= lo || hi - 1 > UINT64_MAX - page)
		return false;
	last = ((hi - 1) | (page - 1)) + 1;
	if (last - first > UINT32_MAX)
		return false;
	*win = (struct abi_span){ first, (uint32_t)(last - first) };
	return true;
}

long abi_window_gather(const uint8_t *wbuf, const struct abi_span *win,
		       const struct abi_span *s, int n, uint8_t *out,
		       size_t out_size)
{
	size_t len = 0;

	for (int i = 0; i < n; i++) {
		uint64_t off = s[i].ptr - win->ptr;

		if (s[i].ptr < win->ptr || off > win->len ||
		    s[i].len > win->len - off || s[i].len > out_size - len)
			return -1;
		memcpy(out + len, wbuf + off, s[i].len);
		len += s[i].len;
	}
	return (long)len;
}

size_t abi_spans_len(const struct abi_span *s, int n)
{
	size_t len = 0;

	for (int i = 0; i < n; i++)
		len += s[i].len;
	return len;
}

/* ------------------------------------------------------------------ */
/* value helpers */

uint8_t abi_my_address_value(uint32_t v)
{
	return (uint8_t)v;
}

uint8_t abi_my_lun_value(uint32_t v)
{
	return (uint8_t)(v & 3);
}

int abi_check_channel(uint32_t channel)
{
	return channel >= ABI_MAX_CHANNELS ? -EINVAL : 0;
}

int abi_check_maintenance_mode(int32_t mode)
{
	switch (mode) {
	case IPMI_MAINTENANCE_MODE_AUTO:
	case IPMI_MAINTENANCE_MODE_OFF:
	case IPMI_MAINTENANCE_MODE_ON:
		return 0;
	default:
		return -EINVAL;
	}
}

bool abi_gets_events_value(int32_t v)
{
	return v != 0;
}
