/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * kcsraw.h - userspace ABI of kcsraw.ko (/dev/kcsrawN).
 *
 * One character device per IPMI KCS system interface. A client submits raw
 * KCS requests, each with its own polling policy and a cookie of its
 * choosing, and collects completions with read() or KCSRAW_IOC_RECEIVE;
 * poll() reports POLLIN when a completion is ready and POLLPRI when the BMC
 * raised SMS_ATN while the interface was idle (then also POLLIN, for event
 * loops that cannot wait for POLLPRI: read() may then answer -EAGAIN;
 * KCSRAW_IOC_ATTN reads and clears the attention). See docs/kcsraw.md.
 *
 * Every structure has the same layout on 32- and 64-bit ABIs: fixed-width
 * fields, explicit padding, no pointers. Structures that may grow start
 * with a size field that the caller sets to sizeof() of its own copy.
 */
#ifndef KCSMUX_KCSRAW_H
#define KCSMUX_KCSRAW_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define KCSRAW_UAPI_VERSION	1

/* Request: netfn << 2 | lun, cmd, data. Response: + completion code. */
#define KCSRAW_MAX_MSG		272

/* max_busy_us value meaning "spin until the transaction is done". */
#define KCSRAW_UNLIMITED	0xffffffffU

/* kcsraw_policy.backoff */
#define KCSRAW_BACKOFF_FIXED	0	/* every sleep lasts poll_us */
#define KCSRAW_BACKOFF_EXP	1	/* poll_us, doubling up to poll_max_us */

/* kcsraw_policy.flags */
#define KCSRAW_POL_IRQ		0x0001	/* sleep until the IRQ if there is one */
#define KCSRAW_POL_DEFAULT	0x8000	/* ignore the rest: interface default */
#define KCSRAW_POL_FLAGS	(KCSRAW_POL_IRQ | KCSRAW_POL_DEFAULT)

/*
 * How the poller waits for the BMC during one transaction.
 *
 * Each time the state machine waits for the BMC, the poller busy-polls the
 * status register for up to max_busy_us (0: never, KCSRAW_UNLIMITED: until
 * the wait ends), then sleeps on a high-resolution timer: poll_us per sleep,
 * or with KCSRAW_BACKOFF_EXP poll_us doubling up to poll_max_us. With
 * KCSRAW_POL_IRQ and an interface IRQ, the sleep ends at the interrupt and
 * poll_max_us is only the fallback. first_us (when not 0) replaces the
 * first sleep of the wait that follows the request's last byte, so that
 * the poller can sleep through most of the BMC's known response time and
 * then poll finely. 24 bytes.
 */
struct kcsraw_policy {
	__u32 max_busy_us;
	__u32 poll_us;		/* >= 1 */
	__u32 poll_max_us;	/* < poll_us is taken as poll_us */
	__u16 backoff;		/* KCSRAW_BACKOFF_* */
	__u16 flags;		/* KCSRAW_POL_* */
	__u32 first_us;		/* 0, or the first sleep of the wait after
				   the request's last byte (the BMC at work);
				   the sleeps after it follow backoff from
				   poll_us. Set by adaptive schedulers. */
	__u32 reserved;		/* must be 0 */
};

/* KCSRAW_IOC_SUBMIT. 320 bytes. */
struct kcsraw_submit {
	__u32 size;		/* sizeof(struct kcsraw_submit) */
	__u32 flags;		/* must be 0 */
	__u64 cookie;		/* echoed in the completion */
	struct kcsraw_policy policy;
	__u16 req_len;		/* 2..KCSRAW_MAX_MSG */
	__u16 pad[3];		/* must be 0 */
	__u8 req[KCSRAW_MAX_MSG];	/* netfn << 2 | lun, cmd, data */
};

/*
 * What one transaction cost. All times come from ktime_get() (monotonic
 * ns). 64 bytes.
 */
struct kcsraw_cost {
	__u64 latency_ns;	/* submit to completion */
	__u64 queue_ns;		/* submit to the first register access */
	__u64 spin_ns;		/* busy-polling inside busy windows */
	__u64 cpu_ns;		/* poller awake for this transaction (incl. spin) */
	__u32 sleeps;		/* timer/IRQ sleeps taken */
	__u32 timer_wakeups;	/* sleeps ended by the timer */
	__u32 irq_wakeups;	/* sleeps ended by the interface IRQ */
	__u32 other_wakeups;	/* sleeps ended otherwise (cancel, stop) */
	__u32 polls;		/* state machine steps (status reads, roughly) */
	__u32 retries;		/* KCS error recoveries started */
	__u32 errors;		/* KCS timeouts and protocol errors seen */
	__u32 bmc_us;		/* request's last byte to the wake that saw the
				   BMC's answer: its processing time, measured
				   to within one poll (0: not measured) */
};

/* kcsraw_completion.flags */
#define KCSRAW_DONE_HOSED	0x0001	/* KCS gave up: resp holds an error cc */
#define KCSRAW_DONE_SYNTH	0x0002	/* resp made up by the driver, not the BMC */
#define KCSRAW_DONE_NOBMC	0x0004	/* never reached the KCS: no BMC answers
					   (KCSRAW_INFO_NOBMC); with HOSED|SYNTH */

/*
 * One completion, from read() or KCSRAW_IOC_RECEIVE. status is 0 when resp
 * holds a response (possibly an error cc made up by the driver, see flags)
 * or a negative errno: -ECANCELED. 368 bytes.
 */
struct kcsraw_completion {
	__u32 size;		/* sizeof(struct kcsraw_completion) */
	__s32 status;
	__u64 cookie;
	__u16 resp_len;		/* netfn << 2 | lun, cmd, cc, data */
	__u16 flags;		/* KCSRAW_DONE_* */
	__u32 pad;
	struct kcsraw_cost cost;
	__u8 resp[KCSRAW_MAX_MSG];
	__u8 pad2[8];
};

/* Per-interface totals since load (also in sysfs). 136 bytes. */
struct kcsraw_stats {
	__u64 transactions;	/* completed, any outcome */
	__u64 errors;		/* completions with status != 0 or a made-up cc */
	__u64 hosed;
	__u64 cancelled;
	__u64 retries;
	__u64 timeouts;
	__u64 spin_ns;
	__u64 cpu_ns;
	__u64 sleeps;
	__u64 timer_wakeups;
	__u64 irq_wakeups;
	__u64 irqs;		/* interrupts taken */
	__u64 latency_sum_ns;
	__u64 latency_max_ns;
	__u64 queue_sum_ns;
	__u64 attn;		/* idle SMS_ATN observations */
	__u64 poller_runtime_ns;	/* scheduler runtime of the poller thread */
};

/* kcsraw_info.flags */
#define KCSRAW_INFO_IRQ		0x0001	/* the IRQ is requested and enabled */
#define KCSRAW_INFO_DMI		0x0002	/* found through SMBIOS type 38 */
#define KCSRAW_INFO_SMI		0x0004	/* also an interface of ipmi_msghandler
					   (smi=1): the kernel's IPMI users
					   have a lane ahead of this queue */
#define KCSRAW_INFO_ASYNC	0x0008	/* the kernel owns message flags,
					   receive queue and event buffer
					   (smi_async=1): SUBMIT refuses App
					   Send Message, Get Message, Read
					   Event Message Buffer and Clear
					   Message Flags with -EINVAL, and
					   SMS_ATN is not reported (ATTN) */
#define KCSRAW_INFO_NOBMC	0x0010	/* no BMC answers (yet, or any more,
					   or its set-up is not done):
					   SUBMIT completes at once with cc
					   0xff, flagged HOSED|SYNTH, until
					   Get Device ID answers again */
#define KCSRAW_INFO_RELAY	0x0020	/* the KCSRAW_IOC_RELAY_* calls exist
					   (the interface is registered with
					   ipmi_msghandler) */

/* KCSRAW_IOC_INFO. 200 bytes. */
struct kcsraw_info {
	__u32 size;		/* in: sizeof(struct kcsraw_info) */
	__u32 version;		/* KCSRAW_UAPI_VERSION */
	__u32 index;		/* N of /dev/kcsrawN */
	__u32 flags;		/* KCSRAW_INFO_* */
	__u32 data_port;
	__u32 status_port;
	__u32 regspacing;
	__u32 irq;		/* 0: none */
	__u32 queue_depth;	/* per open file */
	__u32 poller_pid;
	struct kcsraw_policy policy;	/* the interface default */
	struct kcsraw_stats stats;
};

/* KCSRAW_IOC_ATTN: read and clear this file's SMS_ATN notification. */
struct kcsraw_attn {
	__u32 pending;		/* 1: SMS_ATN seen since the last call */
	__u32 pad;
	__u64 count;		/* interface total of SMS_ATN observations */
};

/*
 * The relay (KCSRAW_IOC_RELAY_*): with smi=1 the interface's asynchronous
 * traffic is ipmi_msghandler's. One open file at a time may bind itself
 * (KCSRAW_IOC_RELAY_BIND): kcsraw then holds a kernel user of its own
 * interface for that file, with events on, and the file sends through it
 * (bridged requests, replies to incoming commands, any request the
 * message handler lets its users send), registers for incoming commands
 * and takes what the handler delivers to that user: the answers, events
 * and commands a stock /dev/ipmiN would queue, without that device. The
 * address bytes are the stock struct ipmi_addr's (40 at most). The user
 * ends when the file is closed.
 */
#define KCSRAW_RELAY_ADDR_MAX	40

/* KCSRAW_IOC_RELAY_SEND. 344 bytes. */
struct kcsraw_relay_req {
	__u32 size;		/* sizeof(struct kcsraw_relay_req) */
	__u32 addr_len;		/* 1..KCSRAW_RELAY_ADDR_MAX */
	__u8 addr[KCSRAW_RELAY_ADDR_MAX];
	__s64 msgid;		/* echoed in the answer */
	__s32 retries;		/* -1: the handler's default */
	__u32 retry_ms;		/* 0: the handler's default */
	__u8 netfn;
	__u8 cmd;
	__u16 data_len;		/* 0..KCSRAW_MAX_MSG */
	__u32 pad;		/* must be 0 */
	__u8 data[KCSRAW_MAX_MSG];
};

/* KCSRAW_IOC_RELAY_RECV: one message the handler delivered. 352 bytes. */
struct kcsraw_relay_msg {
	__u32 size;		/* sizeof(struct kcsraw_relay_msg) */
	__s32 recv_type;	/* as the stock RECEIVE_MSG's */
	__u32 addr_len;
	__u8 addr[KCSRAW_RELAY_ADDR_MAX];
	__u32 dropped;		/* messages dropped since the last one
				   taken (the queue was full) */
	__s64 msgid;
	__u8 netfn;
	__u8 cmd;
	__u16 data_len;
	__u32 pad;
	__u8 data[KCSRAW_MAX_MSG];
	__u8 pad2[8];
};

/* KCSRAW_IOC_RELAY_CMD: (un)register for incoming commands. 16 bytes. */
struct kcsraw_relay_cmd {
	__u8 netfn;
	__u8 cmd;
	__u16 on;		/* 1: register, 0: unregister */
	__u32 chans;		/* channel bits 0-15 */
	__u64 reserved;		/* must be 0 */
};

#define KCSRAW_IOC_MAGIC	0xcb

/* Queue a request; -EAGAIN when this file has queue_depth outstanding. */
#define KCSRAW_IOC_SUBMIT	_IOW(KCSRAW_IOC_MAGIC, 0x01, struct kcsraw_submit)
/* Take one completion; -EAGAIN when none is ready (never blocks). */
#define KCSRAW_IOC_RECEIVE	_IOR(KCSRAW_IOC_MAGIC, 0x02, struct kcsraw_completion)
/* Cancel this file's request with that cookie; -ENOENT when none. */
#define KCSRAW_IOC_CANCEL	_IOW(KCSRAW_IOC_MAGIC, 0x03, __u64)
/* The interface's default policy (KCSRAW_POL_DEFAULT in SET: back to the
 * module parameters). */
#define KCSRAW_IOC_GET_POLICY	_IOR(KCSRAW_IOC_MAGIC, 0x04, struct kcsraw_policy)
#define KCSRAW_IOC_SET_POLICY	_IOW(KCSRAW_IOC_MAGIC, 0x05, struct kcsraw_policy)
#define KCSRAW_IOC_INFO		_IOR(KCSRAW_IOC_MAGIC, 0x06, struct kcsraw_info)
#define KCSRAW_IOC_ATTN		_IOR(KCSRAW_IOC_MAGIC, 0x07, struct kcsraw_attn)
/* Bind this file as the relay; -EBUSY when another file is, -ENXIO when
 * the interface is not registered with ipmi_msghandler. */
#define KCSRAW_IOC_RELAY_BIND	_IO(KCSRAW_IOC_MAGIC, 0x08)
/* The relay calls below: -EINVAL on a file that is not bound. Errors of
 * SEND and CMD are the message handler's, as a stock node's. */
#define KCSRAW_IOC_RELAY_SEND	_IOW(KCSRAW_IOC_MAGIC, 0x09, struct kcsraw_relay_req)
/* Take one message; -EAGAIN when none (never blocks; POLLIN when one is
 * queued on the bound file). */
#define KCSRAW_IOC_RELAY_RECV	_IOR(KCSRAW_IOC_MAGIC, 0x0a, struct kcsraw_relay_msg)
#define KCSRAW_IOC_RELAY_CMD	_IOW(KCSRAW_IOC_MAGIC, 0x0b, struct kcsraw_relay_cmd)

#endif /* KCSMUX_KCSRAW_H */
