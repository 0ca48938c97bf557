/* SPDX-License-Identifier: GPL-2.0 */
/*
 * backend.h - the one interface every node shares. A backend runs raw KCS
 * requests (netfn << 2 | lun, cmd, data) one after another, each with its
 * node's polling policy, and reports each completion, every SMS_ATN and
 * the events its own driver fetched through the callbacks it was opened
 * with (struct backend_cbs). It knows nothing above it: main opens it with
 * the core's callbacks (core/core.c, core_backend_cbs).
 */
#ifndef KCSMUX_BACKEND_H
#define KCSMUX_BACKEND_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "util/ipmi_msg.h"
#include "util/log.h"

#include <kcsmux/kcsraw.h>

struct event;
struct event_base;

struct backend;

/* Replies to incoming commands a stock driver holds at once. */
#define BACKEND_MAX_REPLIES 16

/*
 * What a backend reports, each with the arg given to open(); called from
 * the event loop, never from inside ops->submit or ops->cancel.
 */
struct backend_cbs {
	/* A submitted request is over: status 0 with the raw response
	 * (netfn << 2 | lun, cmd, cc, data), or a negative errno (cancelled,
	 * failed); cost: the module's report, NULL if the backend has none. */
	void (*completion)(void *arg, uint64_t cookie, int status,
			   const uint8_t *resp, unsigned int len,
			   const struct kcsraw_cost *cost);
	/* The interface gave up on a request (reported before its
	 * completion): the stock driver then checks the BMC's setup. */
	void (*hosed)(void *arg);
	/* The BMC raised SMS_ATN (a backend that does not bridge). */
	void (*attention)(void *arg);
	/* An asynchronous event the backend's own driver fetched (a backend
	 * that bridges: it did SMS_ATN itself). */
	void (*event)(void *arg, const struct ipmb_user_msg *m);
	/* A wake-up's reports are over: there may be room to submit. */
	void (*room)(void *arg);
	/* An incoming command for a registration the backend holds
	 * (ops->cmd_register); false: nobody took it, the backend answers
	 * it cc 0xC1 itself. */
	bool (*command)(void *arg, const struct ipmb_user_msg *m);
};

/* One request handed to a backend (backend_ops.submit). */
struct backend_req {
	uint64_t cookie; /* its completion names it */
	const struct kcsraw_policy *pol;
	const uint8_t *req; /* netfn << 2 | lun, cmd, data */
	unsigned int len;
	/* NULL: the system interface. Otherwise an IPMB address, only for
	 * a backend that bridges itself (be->bridges), with the request's
	 * retries and retry time. */
	const struct ipmi_address *addr;
	int32_t retries;
	uint32_t retry_ms;
	/* With addr and an odd netfn: a reply to an incoming command, msgid
	 * the one the command came with. It completes with the outcome of
	 * its Send Message (netfn << 2 | lun, cmd, cc). */
	int64_t msgid;
};

struct backend_ops {
	const char *name;
	/* Queue one request; -EAGAIN when the backend's queue is full. */
	int (*submit)(struct backend *be, const struct backend_req *r);
	/* Abandon a submitted request: it completes with -ECANCELED. */
	int (*cancel)(struct backend *be, uint64_t cookie);
	void (*destroy)(struct backend *be);
	/* Forward a command registration (on) or its end for these channels
	 * to the driver underneath; NULL: the backend has none. */
	int (*cmd_register)(struct backend *be, uint8_t netfn, uint8_t cmd,
			    uint32_t chans, bool on);
};

/* The interface's health as its completions tell it (kcsraw backend; the
 * stock driver keeps its own to itself): for the metrics. */
struct backend_health {
	uint64_t completions; /* any outcome */
	uint64_t hosed;	      /* the KCS state machine gave up (cc 0xFF) */
	uint64_t kcs_errors;  /* KCS timeouts and protocol errors seen */
	uint64_t retries;     /* KCS error recoveries started */
};

struct backend {
	const struct backend_ops *ops;
	const struct backend_cbs *cbs; /* where it reports, with cb_arg */
	void *cb_arg;
	int fd;
	struct event *ev;
	unsigned int inflight;	  /* submitted, not completed */
	unsigned int depth;	  /* how many we keep submitted */
	unsigned int bridged;	  /* of inflight: IPMB requests a bridging
				  backend holds (the core counts them; they
				  take none of the depth slots) */
	uint32_t irq;		  /* the interface's IRQ, 0: none */
	bool bridges;		  /* IPMB requests go to the backend as such
				   (a stock driver does Send Message and
				   SMS_ATN itself) */
	bool no_bridge;		  /* IPMB/LAN requests have no path (kcsraw
				  in SMI mode without ipmi_devintf): refused
				  with EINVAL before they are queued */
	int async_fd;		  /* kcsraw in SMI mode: the relay (a second
				  file of /dev/kcsrawN, relay set) or the
				  stock /dev/ipmiN of the same interface,
				  for bridged requests and events; -1: none */
	bool relay;		  /* async_fd is kcsraw's relay */
	struct log_rl rl_dropped; /* the relay's queue overflowed */
	struct event *async_ev;
	/* replies to incoming commands at the stock driver, which reports
	 * their outcome by the command's msgid, not by our cookie */
	struct backend_reply {
		uint64_t cookie;
		int64_t msgid;
		bool used;
	} replies[BACKEND_MAX_REPLIES];
	struct backend_health health;
};

/*
 * ports.c: the first /proc/ioports-format line of F whose owner is an IPMI
 * driver (ipmi_si), as "ipmi_si holds the I/O ports 0ca2-0ca2" in BUF;
 * 1 if found, else 0. backend_kcsraw_missing: *cause for a kcsraw device
 * that cannot be opened (ERR), with the holder and what to run.
 */
int backend_ports_holder(FILE *f, char *buf, size_t len);
void backend_kcsraw_missing(const char *path, int err, char **cause);

/*
 * kcsraw in SMI mode (KCSRAW_INFO_ASYNC: kcsraw.ko runs the message flags
 * and hands what it fetches to ipmi_msghandler): the daemon's SMS_ATN
 * machine is off and bridged requests and events go through the stock
 * node ipmi_devintf makes on the same interface.
 */
struct backend_kcsraw_opts {
	const char *async_dev;	/* that node; NULL: found in sysfs_ipmi */
	const char *sysfs_ipmi; /* NULL: /sys/class/ipmi */
	bool force_async;	/* tests: as if the module said ASYNC */
};

/*
 * smidev.c, the relay (KCSRAW_IOC_RELAY_*): open PATH (/dev/kcsrawN) a
 * second time and bind it (a negative errno: an older module, another
 * file bound, no ipmi_msghandler interface); send one request (the stock
 * ipmi_addr bytes ABUF, and the rest), take one delivered message
 * (-EAGAIN: none), register for a command.
 */
struct smidev_body {
	int64_t msgid;
	int32_t retries;
	uint32_t retry_ms;
	uint8_t netfn, cmd;
	const uint8_t *data;
	unsigned int len;
};
int smidev_relay_open(const char *path, char **cause);
int smidev_relay_send(int fd, const uint8_t *abuf, unsigned int alen,
		      const struct smidev_body *b);
int smidev_relay_recv(int fd, struct kcsraw_relay_msg *m);
int smidev_relay_cmd(int fd, uint8_t netfn, uint8_t cmd, uint32_t chans,
		     bool on);

/* ipmidev.c, shared with kcsraw.c in SMI mode: open a stock node (with
 * events on), send one request (the cookie as msgid), and read what the
 * kernel queued: responses as completions, events as cbs->event. */
int ipmidev_open_fd(const char *path, char **cause);
int ipmidev_send(struct backend *be, int fd, const struct backend_req *br);
void ipmidev_drain(struct backend *be, int fd);
int ipmidev_cmd_register(int fd, uint8_t netfn, uint8_t cmd, uint32_t chans,
			 bool on);
/* The same on be->async_fd, the relay's or the stock node's. */
int ipmidev_async_cmd_register(struct backend *be, uint8_t netfn, uint8_t cmd,
			       uint32_t chans, bool on);

/*
 * Whether kcsraw's interface PATH has a BMC that answers: 1 while it says
 * none does (KCSRAW_INFO_NOBMC: not yet since the load, or not since a
 * transaction gave up), 0 when one does, -1 when PATH cannot be opened or
 * asked (backend_kcsraw_open then says why).
 */
int backend_kcsraw_nobmc(const char *path);
/* Open the interface at path, watched by base; NULL with *cause. */
struct backend *backend_kcsraw_open(struct event_base *base, const char *path,
				    const struct backend_kcsraw_opts *o,
				    const struct backend_cbs *cbs, void *arg,
				    char **cause);
/* The same in two steps: a backend that holds every request (submits
 * none: depth 0), then the interface opened (-1 with *cause: still held;
 * cbs->room is not called). */
struct backend *backend_kcsraw_held(const struct backend_cbs *cbs, void *arg);
int backend_kcsraw_attach(struct backend *be, struct event_base *base,
			  const char *path, const struct backend_kcsraw_opts *o,
			  char **cause);
struct backend *backend_ipmidev_open(struct event_base *base, const char *path,
				     const struct backend_cbs *cbs, void *arg,
				     char **cause);

#endif
