/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipmi_abi - the pure-logic half of the /dev/ipmiN ioctl ABI for kcsmuxd
 * (fused/cuse/ipmi_abi.c + fused/util/ipmi_addr.c, whose half is declared
 * in util/ipmi_msg.h; link both).
 *
 * No I/O, no libfuse, no allocation: the CUSE ioctl handler uses this to
 *  - map an ioctl number (+ the FUSE_IOCTL_COMPAT flag) to an operation and
 *    the number of user bytes to fetch / write back,
 *  - decode and encode the user's structs in the caller's layout (LP64 for
 *    amd64 callers, ILP32 for i386 callers on an amd64 kernel), always
 *    little-endian (x86), byte by byte: any buffer alignment is fine,
 *  - apply the stock driver's argument checks, in the stock order, with the
 *    stock errno (drivers/char/ipmi/ipmi_devintf.c + ipmi_msghandler.c as of
 *    Linux 6.1).
 *
 * Every function returns 0 or a negative errno unless documented otherwise.
 *
 * SEND_COMMAND / SEND_COMMAND_SETTIME, in the stock order:
 *   ent = abi_ioctl_lookup(cmd, compat)        NULL -> -ENOTTY
 *   fetch ent->in_size bytes at arg; abi_decode_req(.., ent->layout32,
 *       ent->op == ABI_SEND_COMMAND_SETTIME, &req)
 *   rv = abi_check_req_sizes(&req)             -EINVAL -> fail, fetch nothing
 *   fetch req.addr_len bytes at req.addr_ptr   (bad pointer: kernel EFAULT)
 *   ipmi_addr_parse(bytes, req.addr_len, &a)    -EINVAL -> fail
 *   rv == -EMSGSIZE -> fail (data is not fetched)
 *   fetch abi_req_data_len(&req) bytes at req.data_ptr (0 bytes if data_ptr
 *       is 0: the stock driver then sends the request with no data)
 *   ipmi_check_request(&a, netfn, cmd, abi_req_data_len(&req), media, &fl)
 *   act on fl (maintenance mode) even if that returned -EMSGSIZE.
 * Fetching the address and the data in one CUSE retry is equivalent except
 * that a bad data pointer then wins (EFAULT) over an invalid address (EINVAL).
 *
 * RECEIVE_MSG / RECEIVE_MSG_TRUNC:
 *   fetch the struct, abi_decode_recv(); empty queue -> -EAGAIN;
 *   abi_recv_fit(recv.addr_len, ipmi_addr_len(msg type), recv.data_len,
 *       msg data_len, op == ABI_RECEIVE_MSG_TRUNC, &fit) tells what to write,
 *   whether to dequeue, and the result; abi_encode_recv() writes the struct
 *   back in the caller's layout.
 */
#ifndef KCSMUX_IPMI_ABI_H
#define KCSMUX_IPMI_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/ioctl.h> /* <linux/ipmi.h> needs _IOR & co. */
#include <linux/ipmi.h>

#include "util/ipmi_msg.h" /* limits, addresses, request checks */

/* Struct sizes per layout. */
#define ABI_REQ64_SIZE	       40
#define ABI_REQ_SETTIME64_SIZE 48
#define ABI_RECV64_SIZE	       48
#define ABI_REQ32_SIZE	       20
#define ABI_REQ_SETTIME32_SIZE 28
#define ABI_RECV32_SIZE	       24
/* Pointer-free structs: identical for 32- and 64-bit callers. */
#define ABI_INT_SIZE	       4  /* int / unsigned int */
#define ABI_CMDSPEC_SIZE       2  /* struct ipmi_cmdspec */
#define ABI_CMDSPEC_CHANS_SIZE 12 /* struct ipmi_cmdspec_chans */
#define ABI_TIMING_SIZE	       8  /* struct ipmi_timing_parms */
#define ABI_CHAN_VAL_SIZE      4  /* struct ipmi_channel_lun_address_set */

/* ------------------------------------------------------------------ */
/* ioctl table */

enum abi_op {
	ABI_RECEIVE_MSG_TRUNC,
	ABI_RECEIVE_MSG,
	ABI_SEND_COMMAND,
	ABI_REGISTER_FOR_CMD,
	ABI_UNREGISTER_FOR_CMD,
	ABI_SET_GETS_EVENTS,
	ABI_SET_MY_ADDRESS,
	ABI_GET_MY_ADDRESS,
	ABI_SET_MY_LUN,
	ABI_GET_MY_LUN,
	ABI_SEND_COMMAND_SETTIME,
	ABI_SET_TIMING_PARMS,
	ABI_GET_TIMING_PARMS,
	ABI_SET_MY_CHANNEL_ADDRESS,
	ABI_GET_MY_CHANNEL_ADDRESS,
	ABI_SET_MY_CHANNEL_LUN,
	ABI_GET_MY_CHANNEL_LUN,
	ABI_REGISTER_FOR_CMD_CHANS,
	ABI_UNREGISTER_FOR_CMD_CHANS,
	ABI_GET_MAINTENANCE_MODE,
	ABI_SET_MAINTENANCE_MODE,
	ABI_OP_COUNT
};

struct abi_ioctl {
	unsigned int cmd; /* the ioctl number as the caller issued it */
	enum abi_op op;
	uint16_t in_size;  /* bytes to fetch from the user at arg */
	uint16_t out_size; /* bytes written back at arg on success */
	bool layout32;	   /* pass to the decoders: ILP32 struct layout */
	const char *name;  /* e.g. "IPMICTL_SEND_COMMAND", "COMPAT_..." */
};

/*
 * Look an ioctl number up. compat = the FUSE_IOCTL_COMPAT flag. Like the
 * stock compat handler, a compat caller may use the four 32-bit numbers
 * (SEND, SEND_SETTIME, RECEIVE, RECEIVE_TRUNC: layout32 set) *and* every
 * native number (native layout). A native caller only gets native numbers.
 * The pointer-free ioctls have the same number and layout for both.
 * Returns NULL for anything else: the daemon answers -ENOTTY (what the
 * Debian 6.1 kernel was seen to return).
 *
 * RECEIVE writes back out_size bytes only when abi_recv_fit says so;
 * GET_MY_CHANNEL_* fetch the struct (for the channel) and write it back.
 */
const struct abi_ioctl *abi_ioctl_lookup(unsigned int cmd, bool compat);
const char *abi_op_name(enum abi_op op);

/* ------------------------------------------------------------------ */
/* SEND / RECEIVE structs, layout independent */

struct abi_req {
	uint64_t addr_ptr;
	uint32_t addr_len;
	int64_t msgid; /* a 32-bit caller's long is sign-extended */
	uint8_t netfn, cmd;
	uint16_t data_len;
	uint64_t data_ptr;
	int32_t retries;	/* SETTIME only; else -1 (use the file's) */
	uint32_t retry_time_ms; /* SETTIME only; else 0 */
	bool settime;
};

struct abi_recv {
	int32_t recv_type;
	uint64_t addr_ptr;
	uint32_t addr_len;
	int64_t msgid;
	uint8_t netfn, cmd;
	uint16_t data_len;
	uint64_t data_ptr;
};

size_t abi_req_size(bool layout32, bool settime);
size_t abi_recv_size(bool layout32);

/* -EINVAL when len is shorter than the struct. */
int abi_decode_req(const void *buf, size_t len, bool layout32, bool settime,
		   struct abi_req *out);
int abi_decode_recv(const void *buf, size_t len, bool layout32,
		    struct abi_recv *out);
/*
 * Write the struct in the caller's layout; return the size written or
 * -EINVAL if len is too short. Only the fields are written: padding bytes
 * keep what buf held (the stock driver echoes the caller's padding, so pass
 * the caller's original struct bytes to be byte-exact). A 32-bit layout
 * gets the low 32 bits of msgid and of the pointers.
 * abi_encode_req writes the SETTIME form when in->settime.
 */
int abi_encode_recv(void *buf, size_t len, bool layout32,
		    const struct abi_recv *in);
int abi_encode_req(void *buf, size_t len, bool layout32,
		   const struct abi_req *in);

/*
 * First checks of a SEND, before anything but the struct is fetched:
 * addr_len > 40 -> -EINVAL (fail now); data_ptr != 0 and data_len > 272 ->
 * -EMSGSIZE, which the stock driver reports only after the address was
 * fetched and validated (an invalid address wins with -EINVAL); else 0.
 */
int abi_check_req_sizes(const struct abi_req *req);
/* Data length that is actually sent: 0 when data_ptr is 0. */
uint16_t abi_req_data_len(const struct abi_req *req);

/* ------------------------------------------------------------------ */
/* Small structs (same layout for 32- and 64-bit callers) */

struct abi_cmdspec {
	uint8_t netfn, cmd; /* CHANS form: the low byte, as the driver */
	uint32_t chans;	    /* channel bit mask; ABI_CHAN_ALL for the
				   plain form */
};
int abi_decode_cmdspec(const void *buf, size_t len, struct abi_cmdspec *out);
int abi_decode_cmdspec_chans(const void *buf, size_t len,
			     struct abi_cmdspec *out);

struct abi_timing {
	int32_t retries;
	uint32_t retry_time_ms;
};
int abi_decode_timing(const void *buf, size_t len, struct abi_timing *out);
int abi_encode_timing(void *buf, size_t len, const struct abi_timing *in);

/* struct ipmi_channel_lun_address_set; encode leaves the padding byte. */
struct abi_chan_val {
	uint16_t channel;
	uint8_t value;
};
int abi_decode_chan_val(const void *buf, size_t len, struct abi_chan_val *out);
int abi_encode_chan_val(void *buf, size_t len, const struct abi_chan_val *in);

/* int / unsigned int arguments (GETS_EVENTS, MY_ADDRESS/LUN, maintenance) */
int abi_decode_int(const void *buf, size_t len, int32_t *out);
int abi_encode_int(void *buf, size_t len, int32_t v);

/* ------------------------------------------------------------------ */
/* Receive */

struct abi_recv_fit {
	int err;	   /* the ioctl result: 0, -EINVAL or -EMSGSIZE */
	bool consume;	   /* dequeue the message (else it stays first) */
	bool write_addr;   /* copy the message address to recv.addr_ptr */
	bool write_data;   /* copy data_len bytes to recv.data_ptr */
	bool write_struct; /* write the struct back: addr_len = the
				   message's, data_len = data_len below */
	uint16_t data_len;
};

/*
 * What a RECEIVE does with the first queued message (handle_recv):
 *  want_addr_len < msg_addr_len: -EINVAL, nothing written, message stays.
 *  msg data does not fit want_data_len:
 *    RECEIVE_MSG: -EMSGSIZE, message stays; the address was already copied
 *      out (write_addr), the data and the struct are not.
 *    RECEIVE_MSG_TRUNC: address, want_data_len bytes of data and the struct
 *      are written, the message is consumed, and the result is -EMSGSIZE
 *      (current kernels; some 4.x returned 0).
 *  else 0: everything written, message consumed.
 * Returns fit->err.
 */
int abi_recv_fit(uint32_t want_addr_len, uint32_t msg_addr_len,
		 uint16_t want_data_len, uint16_t msg_data_len, bool trunc,
		 struct abi_recv_fit *fit);

/*
 * The user memory a RECEIVE writes, in the order the reply fills it (the
 * stock driver's copy order, so that a buffer that faults part way leaves
 * the same bytes written): the message address at r->addr_ptr
 * (msg_addr_len bytes), the data at r->data_ptr (fit->data_len bytes),
 * the struct at arg (struct_size bytes); each only when fit says so (no
 * empty span). Returns the span count.
 * Two plans are the same write when abi_spans_equal() says so: kcsmuxd
 * answers a RECEIVE whose output buffers it guessed only then.
 */
#define ABI_RECV_SPANS 3
struct abi_span {
	uint64_t ptr;
	uint32_t len;
};
int abi_recv_spans(uint64_t arg, size_t struct_size, const struct abi_recv *r,
		   uint32_t msg_addr_len, const struct abi_recv_fit *fit,
		   struct abi_span out[ABI_RECV_SPANS]);
bool abi_spans_equal(const struct abi_span *a, int na, const struct abi_span *b,
		     int nb);
size_t abi_spans_len(const struct abi_span *s, int n);
/*
 * The user memory a SEND reads, in order: the struct at arg, the address
 * (r->addr_len bytes), the data (data_len: abi_req_data_len(), or 0 when
 * it is not to be fetched); no empty span. Returns the span count.
 */
int abi_send_spans(uint64_t arg, size_t struct_size, const struct abi_req *r,
		   uint16_t data_len, struct abi_span out[ABI_RECV_SPANS]);
/* Every span lies inside the pages that hold [lo, hi) (page: a power of
 * two): memory a caller just handed over, so readable if that was. */
bool abi_spans_in_pages(const struct abi_span *s, int n, uint64_t lo,
			uint64_t hi, uint64_t page);
/* Where a struct of SIZE bytes at new_arg points, going by the same
 * call's struct at old_arg pointing at ptr: a pointer into the old
 * struct's pages moved with the struct (a stack frame), any other stayed
 * (a static or heap buffer). */
uint64_t abi_guess_ptr(uint64_t ptr, uint64_t old_arg, uint64_t new_arg,
		       size_t size, uint64_t page);
/* The whole pages holding [lo, hi) as one span (page: a power of two);
 * false if there are none or they end past the address space. */
bool abi_page_window(uint64_t lo, uint64_t hi, uint64_t page,
		     struct abi_span *win);
/* The bytes of spans s[0..n) laid end to end into out, read from wbuf,
 * the contents of the window win: their total, or -1 if a span is not
 * all inside win or out has no room. */
long abi_window_gather(const uint8_t *wbuf, const struct abi_span *win,
		       const struct abi_span *s, int n, uint8_t *out,
		       size_t out_size);

/* ------------------------------------------------------------------ */
/* Value helpers (MY_ADDRESS / MY_LUN / channel variants / maintenance) */

/* SET_MY_ADDRESS keeps the low byte; SET_MY_LUN keeps value & 3. */
uint8_t abi_my_address_value(uint32_t v);
uint8_t abi_my_lun_value(uint32_t v);
/* Channel argument of the channel variants: >= 16 -> -EINVAL. */
int abi_check_channel(uint32_t channel);
/* SET_MAINTENANCE_MODE: 0 auto, 1 off, 2 on, else -EINVAL. */
int abi_check_maintenance_mode(int32_t mode);
/* SET_GETS_EVENTS: any non-zero int enables. */
bool abi_gets_events_value(int32_t v);

#endif /* KCSMUX_IPMI_ABI_H */
