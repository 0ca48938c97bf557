/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcs_sm.h - IPMI v2.0 KCS host-side state machine, without I/O of its own.
 *
 * Register access goes through a small ops table and the machine is driven
 * by kcs_sm_event(), which is told how much real time passed since the last
 * call and answers what the caller should do next. The same source builds
 * in the kernel (kcsraw.ko) and in userspace (host Check tests drive it
 * against a simulated register model).
 */
#ifndef KCSMUX_KCS_SM_H
#define KCSMUX_KCS_SM_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/errno.h>
#else
#include <stdbool.h>
#include <errno.h>
#include <linux/types.h>
typedef __u8 u8;
typedef __u32 u32;
typedef __u64 u64;
#endif

/* Register offsets, in units of the interface's register spacing. */
#define KCS_REG_DATA	0
#define KCS_REG_STATUS	1	/* read: status; write: command */

/* Status register bits. */
#define KCS_ST_OBF	0x01
#define KCS_ST_IBF	0x02
#define KCS_ST_SMS_ATN	0x04
#define KCS_ST_STATE(s)	(((s) >> 6) & 3)
#define KCS_STATE_IDLE	0
#define KCS_STATE_READ	1
#define KCS_STATE_WRITE	2
#define KCS_STATE_ERROR	3

/* Control codes. */
#define KCS_CC_GET_STATUS_ABORT	0x60
#define KCS_CC_WRITE_START	0x61
#define KCS_CC_WRITE_END	0x62
#define KCS_CC_READ		0x68

#define KCS_MAX_REQUEST		272	/* netfn/lun + cmd + data */
#define KCS_MAX_RESPONSE	272

/* Completion codes the machine synthesises when it answers for the BMC. */
#define KCS_CC_REQ_TOO_SHORT	0xc7
#define KCS_CC_REQ_TOO_LONG	0xc8
#define KCS_CC_TRUNCATED	0xc6
#define KCS_CC_NODE_BUSY	0xc0
#define KCS_CC_NOT_IN_STATE	0xd5	/* kcs_sm_start() while busy */
#define KCS_CC_TIMEOUT		0xc3
#define KCS_CC_UNSPECIFIED	0xff

struct kcs_io_ops {
	u8 (*inb)(void *ctx, unsigned int reg);
	void (*outb)(void *ctx, unsigned int reg, u8 val);
};

/*
 * What kcs_sm_event() asks the caller to do next. Idle, a status with IBF
 * set (0xff: no BMC decodes the port, or it is rebooting) is KCS_IDLE,
 * never KCS_ATTN: the host wrote nothing, so a BMC cannot be owed a byte,
 * and a flag fetch into a dead interface would only hang.
 */
enum kcs_result {
	KCS_CALL_AGAIN,	/* made progress: call again without delay */
	KCS_WAIT,	/* waiting for the BMC: call again after a poll/IRQ */
	KCS_DONE,	/* transaction complete: kcs_sm_get_result() */
	KCS_IDLE,	/* no transaction and nothing pending */
	KCS_ATTN,	/* no transaction, and the BMC raised SMS_ATN */
	KCS_HOSED,	/* recovery failed: result holds an error cc */
};

/*
 * Sequencing rules:
 * - After KCS_DONE or KCS_HOSED the machine is idle and keeps the result
 *   until the next kcs_sm_start() or kcs_sm_abort(). Further calls answer
 *   KCS_IDLE or KCS_ATTN.
 * - KCS_HOSED carries cc KCS_CC_TIMEOUT (0xc3) when the last failure was
 *   an IBF/OBF wait running out (hung BMC), KCS_CC_UNSPECIFIED (0xff)
 *   when it was a protocol error (unexpected state, endless response).
 * - A wait's timeout counts the @elapsed_us of the calls made while it
 *   lasts, including the call right after the register access that began
 *   it. The @elapsed_us of the first call after kcs_sm_start() or
 *   kcs_sm_abort() is never charged, as it may cover idle time.
 */

/* What a KCS_WAIT is waiting for; the poller may treat them differently. */
enum kcs_wait {
	KCS_WAIT_NONE,
	KCS_WAIT_IBF,		/* BMC taking a request byte (short) */
	KCS_WAIT_RESPONSE,	/* BMC processing the request (long) */
	KCS_WAIT_OBF,		/* next response byte */
	KCS_WAIT_RECOVERY,	/* error recovery in progress */
};

struct kcs_sm_stats {
	u64 transactions;
	u64 retries;		/* error-exit/abort recoveries started */
	u64 timeouts;		/* IBF/OBF waits that ran out */
	u64 hosed;		/* transactions given up */
	u64 protocol_errors;	/* unexpected state seen */
	u64 aborts;		/* kcs_sm_abort() calls */
	u64 mismatches;		/* answers to another netfn/cmd: cc 0xff */
};

struct kcs_sm {
	const struct kcs_io_ops *ops;
	void *ctx;

	/* Tunables, set after kcs_sm_init(); defaults as the Linux driver. */
	u64 ibf_timeout_us;	/* default 5 s */
	u64 obf_timeout_us;	/* default 5 s */
	unsigned int max_retries;	/* default 10 */

	/* Private state below: only kcs_sm.c touches it. */
	int state;
	enum kcs_wait wait;
	int wait_cond;		/* what the running timeout is timing */
	u64 timeout_left_us;
	unsigned int retries_left;
	bool aborting;		/* recovery started by kcs_sm_abort() */
	bool have_result;
	bool last_fail_timeout;
	u8 bmc_error;		/* status code read during the last recovery */
	u8 bad_netfn;		/* the last mismatched answer's netfn/lun */
	u8 bad_cmd;		/* ... and cmd */
	u8 req[KCS_MAX_REQUEST];
	unsigned int req_len;
	unsigned int req_pos;
	u8 resp[KCS_MAX_RESPONSE];
	unsigned int resp_len;	/* bytes read, may exceed KCS_MAX_RESPONSE */
	struct kcs_sm_stats stats;	/* public: read-only for callers */
};

void kcs_sm_init(struct kcs_sm *sm, const struct kcs_io_ops *ops, void *ctx);

/*
 * Start a transaction. @req is netfn<<2|lun, cmd, data... Returns 0 when
 * accepted, or an IPMI completion code (KCS_CC_REQ_TOO_SHORT,
 * KCS_CC_REQ_TOO_LONG, or KCS_CC_NOT_IN_STATE 0xd5 when a transaction or
 * an abort is still running) that the caller answers with itself. The
 * request is copied.
 */
int kcs_sm_start(struct kcs_sm *sm, const u8 *req, unsigned int len);

/* Step the machine; @elapsed_us is real time since the previous call. */
enum kcs_result kcs_sm_event(struct kcs_sm *sm, u64 elapsed_us);

/* What the current KCS_WAIT waits for. */
enum kcs_wait kcs_sm_wait_kind(const struct kcs_sm *sm);

/*
 * Copy the response of a finished (KCS_DONE or KCS_HOSED) transaction:
 * netfn<<2|lun, cmd, cc, data. Returns its length, or 0 when there is no
 * result (nothing finished, or it was aborted). A BMC answer shorter than
 * 3 bytes becomes the 3 bytes (request netfn + 1)<<2|lun, cmd, 0xff; one
 * longer than KCS_MAX_RESPONSE keeps its first KCS_MAX_RESPONSE bytes with
 * the cc overwritten by 0xc6, as does a copy cut short by a small @len
 * (when @len >= 3). An answer whose netfn is not the request's + 1 or whose
 * cmd is not the request's (a late answer to an aborted request, firmware
 * answering another command) becomes request netfn + 1, cmd, 0xff, as the
 * stock message handler makes it ("BMC returned incorrect response"),
 * counted in stats.mismatches. A hosed transaction is answered the same 3-byte way
 * with cc 0xc3 or 0xff (see above).
 */
unsigned int kcs_sm_get_result(struct kcs_sm *sm, u8 *buf, unsigned int len);

/*
 * Abandon the transaction in flight (its result is dropped) and run the
 * abort sequence: keep calling kcs_sm_event() until it answers KCS_IDLE or
 * KCS_ATTN (interface idle again) or KCS_HOSED (the BMC did not answer the
 * abort within max_retries further attempts). Also valid when idle, to
 * reset an interface left in an unknown state. Does no I/O itself.
 */
void kcs_sm_abort(struct kcs_sm *sm);

/* True when no transaction is in flight (recovery included). */
bool kcs_sm_idle(const struct kcs_sm *sm);

/*
 * True once every byte of the request has been written (the BMC is then
 * processing it, or answering): the wait that follows is the long one.
 */
bool kcs_sm_request_written(const struct kcs_sm *sm);

#endif /* KCSMUX_KCS_SM_H */
