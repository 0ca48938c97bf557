/* SPDX-License-Identifier: GPL-2.0 */
/*
 * core.h - the daemon and its nodes as the core (core/) knows them, and the
 * calls the core makes upward (struct core_upcalls).
 *
 *   daemon   everything of one kcsmuxd, passed to every function that needs
 *            it (the context rule, docs/design.md): the configuration, the
 *            nodes, the backend, the scheduler, the transaction lists, the
 *            bridge and BMC-setup state, the front end's upcalls
 *   node     one virtual /dev/NAME: its policy, queue in the scheduler,
 *            accounting and IPMB addresses (the core's), and its CUSE
 *            session and open files (the front end's, cuse/: the core
 *            never touches those fields)
 *
 * The core never names a CUSE session's internals, an open file's state or
 * a receive-queue entry: what goes up (answers, events, incoming commands)
 * goes through d->up with an opaque owner (void *) the front end gave it.
 *
 * core/'s files, by what they are for:
 *   the request path   core.c (wiring: init, the backend's callbacks),
 *                      xact.c (transactions from a struct ipmi_request,
 *                      their queueing, dispatch, completion, accounting),
 *                      sched.c (which node runs next), nodestats.c
 *                      (per-node counters and estimates), cpumeter.c
 *                      (the daemon's CPU per node), adaptive.c
 *                      (backoff = adaptive's model of the BMC)
 *   bridging, SMS_ATN  bridge.c (IPMB/LAN requests, the flag machine's
 *                      results), seqtab.c (the 64 sequence slots), ipmb.c
 *                      (Send Message / Get Message framing), atn.c (the
 *                      SMS_ATN flag machine), bmcsetup.c (global enables,
 *                      channel media)
 *   features           coalesce.c (identical sensor reads share one
 *                      transaction), sdrcache.c (the SDR/FRU cache, no
 *                      I/O) and sdrglue.c (its only link to transactions)
 *   configuration      conf.h (the configuration's form), policy.c (node
 *                      policies, presets, keys, value parsers), access.c
 *                      (command sets, access presets, request checks)
 */
#ifndef KCSMUX_CORE_H
#define KCSMUX_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/types.h>

#include <kcsmux/kcsraw.h>

#include "core/conf.h"
#include "core/adaptive.h"
#include "core/atn.h"
#include "core/coalesce.h"
#include "core/cpumeter.h"
#include "core/lease.h"
#include "core/maint.h"
#include "core/nodestats.h"
#include "core/sched.h"
#include "core/seqtab.h"
#include "util/clock.h"
#include "util/ipmi_msg.h"
#include "util/log.h"

struct event_base;
struct event;
struct backend;
struct xact;
struct daemon;

TAILQ_HEAD(xact_list, xact);

/* What nodestats does not count. */
struct node_counters {
	uint64_t denied; /* refused by the access list (cc 0xd4) */
	uint64_t busy;	 /* EBUSY: outstanding or client limits */
	uint64_t opens;
	uint64_t sleeps;    /* poller sleeps of its transactions */
	uint64_t throttled; /* run cheaply: the node was over cpu_budget */
	uint64_t held;	    /* its queue held until back under budget */
	/* buffers guessed (cuse/ioctl.c), guessed rightly (a round trip
	 * saved) and wrongly (the call went on as without a guess);
	 * [0] SEND, [1] RECEIVE */
	uint64_t guesses[2];
	uint64_t guess_hits[2];
	uint64_t guess_misses[2];
	/* sdr_cache = yes: SDR/FRU reads answered from memory, and
	 * cacheable ones that went to the BMC (core/sdrglue.c) */
	uint64_t sdr_hits, sdr_misses;
	/* sel_mirror (on unless no): Get SEL Entry answered from the SEL
	 * mirror, and ones that went to the BMC (core/selmirror.c) */
	uint64_t sel_hits, sel_misses;
	/* coalesce = yes: sensor reads answered with another client's
	 * identical one (core/coalesce.c); coalesced_recent of them with
	 * one answered within coalesce_window_ms */
	uint64_t coalesced;
	uint64_t coalesced_recent;
	/* leases (core/leasegate.c): refused at once because another node
	 * holds the class (cc 0xd5) or the firmware lease (cc 0xc0), and
	 * answered from the SDR cache or SEL mirror during another's
	 * firmware lease (stale) */
	uint64_t lease_refused, lease_busy, lease_stale;
};

/* The front end's (cuse/cuse.h); the core only passes pointers along. */
struct client;
struct fuse_session;
LIST_HEAD(client_list, client);

struct node {
	LIST_ENTRY(node) link;
	struct daemon *d;
	struct kcsmux_node_conf conf;

	/* the front end's: CUSE session and open files (cuse/node.c) */
	struct fuse_session *se;
	struct event *ev;
	void *buf;		/* struct fuse_buf, reused */
	struct event *ready_ev; /* waiting for /dev/NAME to appear */
	void *ho; /* its hand-over at a restart (cuse/handover.c) */
	unsigned int ready_tries;
	bool ready; /* CUSE INIT done, device exists */
	bool dying;
	/* the last request read was answered with a retry: 0 no, 1 one
	 * that asks for input only, 2 one that also names output */
	uint8_t retried;
	/* per kind (retried - 1): does a read right after such a retry find
	 * the call sent again? +1 when it did, -1 when it found nothing
	 * (cuse/node.c, node_drain); retries waited for since the last probe */
	uint8_t retry_found[2];
	uint8_t retry_skips[2];
	unsigned int links; /* /dev/ipmiN, /dev/ipmi/N, /dev/ipmidev/N made */
	struct client_list clients;
	unsigned int nclients;

	/* the core's */
	struct sched_flow flow; /* its queue in the scheduler */
	struct nodestats st;
	struct adapt adapt; /* backoff = adaptive: the BMC's times */
	struct node_counters cnt;
	/* coalesce_window_ms: the last answer per sensor number */
	struct coalesce_recent recent[COALESCE_SENSORS];
	struct log_rl rl_denied;
	unsigned int lease_conf; /* its lease key, as last taken */
	/* The node's own IPMB source address and LUN per channel
	 * (IPMICTL_SET_MY_*: per node, so no node changes another's); [0] is
	 * MY_ADDRESS/MY_LUN. From the daemon's defaults at creation. */
	uint8_t chan_address[ABI_MAX_CHANNELS];
	uint8_t chan_lun[ABI_MAX_CHANNELS];
};
LIST_HEAD(node_list, node);

/*
 * What the core calls upward, set by main (the front end's, cuse/client.c).
 * owner: what the front end gave with a request (bridge_send, xact->owner).
 */
struct core_upcalls {
	/* A bridged request of owner is over: its answer, an error or
	 * timeout response, or a reply's send result (recv_type 4). */
	void (*bridged)(struct daemon *d, void *owner,
			const struct ipmb_user_msg *m);
	/* An incoming command from the BMC: true if a file registered for
	 * netfn/cmd on chan took it (else the core answers it itself). */
	bool (*command)(struct daemon *d, const struct ipmb_user_msg *m,
			uint8_t netfn, uint8_t cmd, unsigned int chan);
	/* An asynchronous event from the BMC, for every subscriber. */
	void (*event)(struct daemon *d, const struct ipmb_user_msg *m);
	/* Does anyone wait for events or incoming commands? */
	bool (*waiters)(struct daemon *d);
	/* An owned transaction is being freed: drop it from the owner's
	 * list (xact_free). */
	void (*xact_gone)(struct xact *x);
};

/* IPMB bridging and SMS_ATN state (bridge.c). */
struct bridge {
	struct seqtab tab;
	struct atn atn;
	struct xact_list pending; /* Send Messages not yet started */
	bool sending;		  /* a Send Message is out or its ATN run */
	bool send_out;		  /* ... the Send Message itself */
	struct xact *queued;	  /* pumped, in its node's queue still */
	struct event *seq_timer;
	struct event *pump_timer; /* pending ones' nodes get a token */
};

/* BMC global enables and the channel scan (bmcsetup.c). */
struct bmc_setup {
	bool on; /* started: a raw KCS we set up ourselves */
	struct event *tick;
	bool evbuf;    /* the BMC took the event buffer bit */
	bool checking; /* a Get/Set Global Enables is out */
	bool pending;  /* check at the next tick (hosed, reset) */
	uint8_t scan_media[ABI_MAX_CHANNELS];
	unsigned int scan_left;
	bool scan_nosys;
	bool scanned;		 /* a scan has ended: later ones are rescans */
	bool scan_again;	 /* a rescan asked for while one runs */
	uint16_t scan_busy;	 /* channels that answered "not now" */
	unsigned int scan_tries; /* rescans for them so far */
	unsigned int rescan_ms;	 /* wait before one (BMC_RESCAN_MS) */
	uint64_t rescans;	 /* for kcsmuxctl status */
	struct event *rescan;
	struct log_rl rl_get;
};

struct frontend; /* the front end's daemon-wide state (cuse/cuse.h) */
struct control;	 /* control/control_priv.h's */
struct metrics;	 /* metrics/metrics_priv.h's */

struct daemon {
	struct event_base *base;
	struct kcsmux_config cfg;
	const char *cfg_path;
	struct node_list nodes;
	struct backend *be;
	struct sched sched;
	struct event *retry_ev; /* a rate-limited node gets a token */
	uint64_t next_client_id;
	uint64_t next_xact_id;
	struct xact_list running;    /* submitted to the backend (xact.c) */
	struct xact_list internal;   /* the daemon's own, ahead of nodes */
	struct xact_list coal;	     /* coalescing leaders (coalesce.c) */
	struct sdrc *sdrc;	     /* SDR/FRU cache, NULL until used */
	struct selm *selm;	     /* SEL mirror, NULL until used */
	struct xact_list sdr_parked; /* waiting for the cache or mirror */
	struct bridge br;
	struct bmc_setup bs;
	const struct core_upcalls *up;
	struct frontend *fe;

	/* The defaults of each node's IPMB address and LUN (struct node's
	 * chan_address/chan_lun, which IPMICTL_SET_MY_* change), and what
	 * the daemon itself answers unregistered incoming commands from. */
	uint8_t my_address;
	uint8_t my_lun;
	uint8_t chan_address[ABI_MAX_CHANNELS];
	uint8_t chan_lun[ABI_MAX_CHANNELS];
	struct maint maint; /* maintenance mode (core/maint.h); zero: auto */
	/* leases (core/leasegate.c): the table; the firmware lease's holder
	 * (NULL: none; the daemon's own requests wait while there is one),
	 * its deadline's timer; when the configured leases were renewed */
	struct lease_table leases;
	const struct node *lease_fw;
	struct event *lease_ev;
	uint64_t lease_fw_starts, lease_fw_ends;
	uint64_t lease_conf_ns;
	/* channel media from the scan at start (bmcsetup.c) */
	uint8_t media[ABI_MAX_CHANNELS];
	bool media_ready;
	bool dropped;	/* running as cfg.user */
	bool sandboxed; /* the seccomp filter is in */
	int notify_fd;	/* $NOTIFY_SOCKET, connected (notify.c) */

	/* the last reload (SIGHUP or kcsmuxctl reload), for the metrics */
	uint64_t reloads, reload_failures;
	bool last_reload_ok;	     /* true before any reload */
	uint64_t last_reload_unix;   /* seconds since the epoch, 0: none */
	char last_reload_error[256]; /* why the last one failed */

	/* for kcsmuxctl status: when the daemon started (CLOCK_MONOTONIC
	 * ns, and the epoch's seconds) and whether the BMC answers: silent
	 * from a hosed interface (the KCS state machine gave up) to the
	 * next answer (core.c logs both) */
	uint64_t started_ns, started_unix;
	bool bmc_silent;
	uint64_t bmc_silent_since_ns, bmc_silences;
	uint64_t bmc_changed_unix; /* its last change, 0: none (health.c) */
	const char *sysfs_root;	   /* NULL: /sys (the tests' own) */
	/* the BMC's identity for kcsmuxctl status: the data of the last
	 * successful Get Device ID that crossed the interface to the BMC
	 * itself (any client's or the daemon's own; xact.c), not sent for
	 * it; bmc_id_len 0: none seen yet */
	uint8_t bmc_id[15];
	uint8_t bmc_id_len;
	/* events beyond a subscriber's or the backlog's event_backlog
	 * (cuse/client.c), for the metrics */
	uint64_t events_dropped;
	/* the daemon's CPU per node (cpumeter.c) */
	struct cpu_meter cpu;

	/* control/'s and metrics/': the control socket (control_init
	 * allocates it, control_fini frees it) and the metrics server
	 * (metrics_init, metrics_fini); and what main does after a reload
	 * that kcsmuxctl asked for (daemon_reload_done first), as after
	 * SIGHUP: READY=1 to systemd. NULL: nothing. */
	struct control *ctl;
	struct metrics *mx;
	void (*reloaded)(struct daemon *d);
};

/* core.c: what the backend reports to (the daemon as its arg):
 * completions, a hosed interface, SMS_ATN, events, room to submit. */
struct backend_cbs;
extern const struct backend_cbs core_backend_cbs;

/* Set up the core's part of d (lists, scheduler, bridge): before the
 * backend is opened and nodes are made; core_fini after they are gone. */
void core_init(struct daemon *d, struct event_base *base);
void core_fini(struct daemon *d);

/*
 * The live nodes (not dying) in the one order every listing uses: the
 * configuration's (the line of their section, then the name). malloc'd;
 * NULL with *count 0 when there are none or memory is short.
 */
struct node **core_nodes(struct daemon *d, size_t *count);

/*
 * A node's core half: core_node_init fills n (zeroed by the caller) from
 * conf and the daemon's defaults (IPMB address and LUN per channel,
 * statistics, adaptive model); core_node_attach gives it its queue in the
 * scheduler and puts it on d->nodes, once the front end's half is made.
 */
void core_node_init(struct daemon *d, struct node *n,
		    const struct kcsmux_node_conf *conf);
void core_node_attach(struct node *n);

/* bmcsetup.c: global enables and channel media, as the stock drivers */
void bmc_setup_start(struct daemon *d);
void bmc_setup_recheck(struct daemon *d);
void bmc_setup_fini(struct daemon *d);
void bmc_setup_identity(struct daemon *d, const uint8_t *was,
			const uint8_t *now);

#endif /* KCSMUX_CORE_H */
