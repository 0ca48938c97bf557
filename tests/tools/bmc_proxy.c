/* SPDX-License-Identifier: MIT */
/*
 * kcsmux-bmc-proxy: a BMC "slowness" proxy for the VM rig.
 *
 *   QEMU ipmi-bmc-extern (TCP client) --> [listen port] proxy --> ipmi_sim
 *
 * Host->BMC frames are forwarded as soon as their terminator arrives.
 * BMC->host IPMI messages (frames ended by 0xA0) are held for a delay drawn
 * from a model and released in arrival order; BMC->host control commands
 * (ended by 0xA1) take no delay of their own but queue behind earlier
 * messages, so the host sees the BMC's byte stream in its original order.
 * A control port and signals can hold ("hang") the BMC, drop held
 * responses, or change the model live; --on rules run a control command
 * when the host sends a given request. The proxy can also play the BMC's
 * part of SMS_ATN for injected events and messages (sms_inject.h): it
 * raises attention and answers the host's Get Message Flags, Get Message and
 * Read Event Message Buffer itself while injected items are pending.
 * It can make the BMC misbehave at the message level: fall silent (no
 * answers at all, as while it boots or resets), answer every request
 * "busy", or answer with the wrong netfn or cmd.
 * See docs/bmc-proxy.md.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "bmc_wdt.h"
#include "delay_model.h"
#include "sms_inject.h"
#include "vm_codec.h"

#define PROG		"kcsmux-bmc-proxy"
#define CTL_LINE_MAX	4096
#define CTL_ARGS_MAX	64
#define ON_RULES_MAX	32
#define ANSWERS_MAX	16
#define ANSWER_DATA_MAX 64
#define ON_LINE_MAX	512
#define WRONG_MAX	8
#define NSEC_PER_SEC	1000000000ull

/* ------------------------------------------------------------------ */
/* logging and time */

static bool verbose;

static void logmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void logmsg(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, PROG ": %s\n", buf);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

static struct timeval ns_to_tv(uint64_t ns)
{
	uint64_t us = (ns + 999) / 1000; /* round up: never wake early */
	struct timeval tv = { .tv_sec = (time_t)(us / 1000000),
			      .tv_usec = (suseconds_t)(us % 1000000) };
	return tv;
}

/* ------------------------------------------------------------------ */
/* data structures */

struct conn {
	const char *name;
	int fd;	   /* -1 when not connected */
	bool dead; /* a write failed; waiting for the read side to see it */
	struct event *rd, *wr;
	struct evbuffer *out;
	struct vm_parser parser;
};

struct item {
	TAILQ_ENTRY(item) link;
	enum vm_frame_kind kind;
	uint8_t *raw;
	size_t len;
	uint64_t arrive_ns;
	uint64_t due_ns;
	double delay_us; /* requested (model) delay */
	bool held;	 /* spent time in the queue while the hold was on */
};

TAILQ_HEAD(item_queue, item);

struct proxy;

struct ctl_client {
	TAILQ_ENTRY(ctl_client) link;
	struct bufferevent *bev;
	struct proxy *p;
};

TAILQ_HEAD(ctl_list, ctl_client);

struct counters {
	/* BMC -> host */
	uint64_t b2h_msgs, b2h_cmds, b2h_delayed, b2h_bad, b2h_truncated;
	uint64_t b2h_dropped_no_host, b2h_dropped_ctl, b2h_dropped_disconnect;
	uint64_t b2h_held_released, b2h_order_waits, b2h_replayed;
	/* host -> BMC */
	uint64_t h2b_msgs, h2b_cmds, h2b_dropped_no_bmc, h2b_truncated;
	uint64_t h2b_replayed;
	/* connections, holds */
	uint64_t qemu_connects, bmc_connects, holds, triggers;
	/* --on rules */
	uint64_t on_fired;
	/* SMS_ATN injection */
	uint64_t inj_events, inj_msgs, inj_cleared;
	uint64_t ans_flags, ans_events, ans_msgs;
	uint64_t attn_sent, noattn_sent, noattn_suppressed;
	/* misbehaviour: silence, busy, wrong answers */
	uint64_t silences, swallowed, silent_dropped;
	uint64_t busies, busy_answers, wrong_answers;
	/* QEMU's lost timeouts answered here (escaped seq) */
	uint64_t qemu_timeouts_played;
};

/* wrong: the answers to the next N requests NETFN:CMD get a wrong netfn
 * or cmd (WRONG_CMD, WRONG_NETFN or both) */
enum { WRONG_CMD = 1, WRONG_NETFN = 2 };

struct wrong_rule {
	uint8_t netfn, cmd, what;
	uint64_t left, used;
};

/* a request forwarded whose answer is to be made wrong */
struct wrong_pending {
	bool on;
	uint8_t seq, netfn, cmd, what;
};

/* --on NETFN:CMD=COMMAND */
/* --answer: a request the proxy answers itself, never forwarded */
struct answer_rule {
	uint8_t netfn, cmd;
	int body;		       /* first data byte to match; -1 any */
	uint8_t data[ANSWER_DATA_MAX]; /* completion code, data */
	size_t len;
	uint64_t used;
};

struct on_rule {
	uint8_t netfn, cmd;
	char line[ON_LINE_MAX]; /* control command, commas made spaces */
	uint64_t fired;
};

struct proxy {
	struct event_base *base;

	/* configuration */
	uint16_t listen_port, bmc_port, ctl_port;
	bool want_ctl;
	unsigned retry_ms;
	uint64_t spin_ns;
	long timer_slack_req;
	const char *report_path;
	FILE *reqlog; /* --log-requests: every request the BMC gets */
	uint64_t seed;

	/* sockets */
	int listen_fd, ctl_fd;
	struct event *listen_ev, *ctl_ev;
	struct conn qemu, bmc;
	bool bmc_connecting;
	bool bmc_down_logged;
	struct event *bmc_retry_ev;
	struct ctl_list ctl_clients;

	/* signals */
	struct event *sig_ev[4];

	/* delivery queue (BMC -> host) */
	struct item_queue queue;
	size_t queued;
	uint64_t last_due_ns;
	struct event *deliver_ev;

	/* hold state */
	bool hold;
	struct event *release_ev;
	bool hold_on_armed;
	uint8_t hold_on_netfn, hold_on_cmd;
	uint64_t hold_on_ms;
	long hold_after; /* -1: off; else messages to pass before holding */
	uint64_t hold_after_ms;
	uint64_t hold_for_ms; /* default auto-release for triggers */
	struct on_rule rules[ON_RULES_MAX];
	struct answer_rule answers[ANSWERS_MAX];
	size_t n_answers;
	size_t n_rules;

	/*
	 * Misbehaviour. Silence: requests swallowed, the BMC's answers
	 * dropped; busy: every request answered busy_cc here. Both end by
	 * their timer (or on the control port); a state an --on rule starts
	 * spares the request that fired it (spare_seq: its answer passes).
	 */
	bool silent, busy, from_connect;
	uint64_t silent_since_ns, silent_ms, busy_since_ns, busy_ms;
	uint64_t silent_for_ms, busy_for_ms; /* --silent-for, --busy-for */
	uint64_t sil_swallowed0, sil_dropped0, busy_answers0;
	uint8_t busy_cc, busy_cc_opt;
	int spare_seq;	      /* -1: none; else the trigger's seq */
	int cur_seq;	      /* seq of the request whose rules run, or -1 */
	bool started_by_rule; /* a rule of the current request started one */
	struct event *silence_ev, *busy_ev;
	struct wrong_rule wrongs[WRONG_MAX];
	size_t n_wrongs;

	/*
	 * QEMU's ipmi-bmc-extern answers a request its BMC leaves unanswered
	 * with 0xC3 after 4 s, but takes the sequence number for that answer
	 * from its escaped output buffer: for seq 0xA0, 0xA1 or 0xAA the
	 * answer goes out as seq 0xAA with a garbled netfn, and for 0xA0 and
	 * 0xA1 its KCS drops it and keeps IBF set for good (nothing the host
	 * writes is taken again). The proxy answers those three itself,
	 * before QEMU's timer, when nothing else has: pend_* is the request
	 * QEMU waits on, cleared when an answer with its seq goes out.
	 */
	int pend_seq; /* -1: none */
	uint8_t pend_netfn, pend_lun, pend_cmd;
	uint64_t qemu_timeout_ms;
	struct event *pend_ev;
	struct wrong_pending wpend[WRONG_MAX];

	/* SMS_ATN injection; bmc_attn_up: ipmi_sim's own attention state */
	struct sms_inject inj;
	bool bmc_attn_up;

	/* --watchdog: the BMC's watchdog timer, played here */
	bool wdt_on;
	struct bmc_wdt wdt;
	struct event *wdt_ev;

	/* replay caches (see docs) */
	uint8_t host_version[8], host_caps[8];
	size_t host_version_len, host_caps_len;
	uint8_t bmc_version[8], bmc_attn[8];
	size_t bmc_version_len, bmc_attn_len;

	/* model and statistics */
	struct delay_model model;
	struct dm_rng rng;
	struct dm_samples delays, lateness;
	struct counters c;
	uint64_t start_ns;
	int exit_code;
};

static void dispatch(struct proxy *p);
static bool answer_request(struct proxy *p, const struct vm_frame *f,
			   const struct vm_msg_info *mi);
static bool wdt_answer(struct proxy *p, const struct vm_frame *f,
		       const struct vm_msg_info *mi);
static void bmc_schedule_retry(struct proxy *p);
static void conn_close(struct proxy *p, struct conn *c);
static void ctl_event_cb(struct bufferevent *bev, short what, void *arg);
static bool ctl_handle(struct proxy *p, char *line, struct evbuffer *out);

/* ------------------------------------------------------------------ */
/* report */

static void report_build(struct proxy *p, struct evbuffer *b)
{
	char desc[160];
	long slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);

	delay_model_describe(&p->model, desc, sizeof(desc));
	evbuffer_add_printf(b,
			    "model spec=%s mean_us=%.1f seed=%" PRIu64
			    " desc=\"%s\"\n",
			    p->model.spec, delay_model_mean(&p->model), p->seed,
			    desc);
	evbuffer_add_printf(b,
			    "uptime_s=%.3f timer_slack_ns=%ld spin_us=%" PRIu64
			    " backend=%s\n",
			    (double)(mono_ns() - p->start_ns) / 1e9, slack,
			    p->spin_ns / 1000, event_base_get_method(p->base));
	evbuffer_add_printf(b,
			    "bmc_to_host msgs=%" PRIu64 " cmds=%" PRIu64
			    " delayed=%" PRIu64 " bad=%" PRIu64
			    " truncated=%" PRIu64 " dropped_no_host=%" PRIu64
			    " dropped_ctl=%" PRIu64
			    " dropped_disconnect=%" PRIu64
			    " held_released=%" PRIu64 " order_waits=%" PRIu64
			    " replayed=%" PRIu64 "\n",
			    p->c.b2h_msgs, p->c.b2h_cmds, p->c.b2h_delayed,
			    p->c.b2h_bad, p->c.b2h_truncated,
			    p->c.b2h_dropped_no_host, p->c.b2h_dropped_ctl,
			    p->c.b2h_dropped_disconnect, p->c.b2h_held_released,
			    p->c.b2h_order_waits, p->c.b2h_replayed);
	evbuffer_add_printf(b,
			    "host_to_bmc msgs=%" PRIu64 " cmds=%" PRIu64
			    " dropped_no_bmc=%" PRIu64 " truncated=%" PRIu64
			    " replayed=%" PRIu64 "\n",
			    p->c.h2b_msgs, p->c.h2b_cmds,
			    p->c.h2b_dropped_no_bmc, p->c.h2b_truncated,
			    p->c.h2b_replayed);
	evbuffer_add_printf(b,
			    "connections qemu=%s bmc=%s qemu_connects=%" PRIu64
			    " bmc_connects=%" PRIu64 "\n",
			    p->qemu.fd >= 0 ? "up" : "down",
			    p->bmc.fd >= 0 && !p->bmc_connecting ? "up" :
								   "down",
			    p->c.qemu_connects, p->c.bmc_connects);
	evbuffer_add_printf(b,
			    "hold state=%s queued=%zu holds=%" PRIu64
			    " triggers=%" PRIu64 "\n",
			    p->hold ? "on" : "off", p->queued, p->c.holds,
			    p->c.triggers);
	evbuffer_add_printf(b, "on rules=%zu fired=%" PRIu64 "\n", p->n_rules,
			    p->c.on_fired);
	evbuffer_add_printf(
		b,
		"inject events=%" PRIu64 " msgs=%" PRIu64 " cleared=%" PRIu64
		" pending_events=%u pending_msgs=%u answered_flags=%" PRIu64
		" answered_events=%" PRIu64 " answered_msgs=%" PRIu64
		" attn=%" PRIu64 " noattn=%" PRIu64
		" noattn_suppressed=%" PRIu64 "\n",
		p->c.inj_events, p->c.inj_msgs, p->c.inj_cleared,
		p->inj.ev_count, p->inj.msg_count, p->c.ans_flags,
		p->c.ans_events, p->c.ans_msgs, p->c.attn_sent,
		p->c.noattn_sent, p->c.noattn_suppressed);
	evbuffer_add_printf(b,
			    "faults silent=%s silences=%" PRIu64
			    " swallowed=%" PRIu64 " dropped=%" PRIu64
			    " busy=%s busies=%" PRIu64 " busy_answers=%" PRIu64
			    " wrong_rules=%zu wrong_answers=%" PRIu64 "\n",
			    p->silent ? "on" : "off", p->c.silences,
			    p->c.swallowed, p->c.silent_dropped,
			    p->busy ? "on" : "off", p->c.busies,
			    p->c.busy_answers, p->n_wrongs, p->c.wrong_answers);
	evbuffer_add_printf(b, "qemu_timeouts played=%" PRIu64 "\n",
			    p->c.qemu_timeouts_played);
	if (p->wdt_on)
		evbuffer_add_printf(b,
				    "watchdog running=%s sets=%u resets=%u"
				    " gets=%u timeouts=%u\n",
				    p->wdt.running ? "yes" : "no", p->wdt.sets,
				    p->wdt.resets, p->wdt.gets,
				    p->wdt.timeouts);
	evbuffer_add_printf(
		b, "delay_us n=%zu mean=%.1f p50=%.1f p99=%.1f max=%.1f\n",
		p->delays.n, dm_samples_mean(&p->delays),
		dm_samples_quantile(&p->delays, 0.50),
		dm_samples_quantile(&p->delays, 0.99), p->delays.max);
	evbuffer_add_printf(
		b, "lateness_us n=%zu mean=%.1f p50=%.1f p99=%.1f max=%.1f\n",
		p->lateness.n, dm_samples_mean(&p->lateness),
		dm_samples_quantile(&p->lateness, 0.50),
		dm_samples_quantile(&p->lateness, 0.99), p->lateness.max);
}

/* Write the report to --report FILE, or to stderr with the program prefix. */
static void report_emit(struct proxy *p, bool to_stderr)
{
	struct evbuffer *b = evbuffer_new();
	char *line;
	size_t n;
	FILE *f = NULL;

	if (!b)
		return;
	report_build(p, b);
	if (!to_stderr && p->report_path) {
		f = fopen(p->report_path, "w");
		if (!f)
			logmsg("cannot write report to %s: %s", p->report_path,
			       strerror(errno));
	}
	while ((line = evbuffer_readln(b, &n, EVBUFFER_EOL_LF))) {
		if (f)
			fprintf(f, "%s\n", line);
		else
			fprintf(stderr, PROG ": report %s\n", line);
		free(line);
	}
	if (f) {
		fclose(f);
		logmsg("report written to %s", p->report_path);
	}
	evbuffer_free(b);
}

static void stats_reset(struct proxy *p)
{
	memset(&p->c, 0, sizeof(p->c));
	p->sil_swallowed0 = p->sil_dropped0 = p->busy_answers0 = 0;
	dm_samples_clear(&p->delays);
	dm_samples_clear(&p->lateness);
	p->start_ns = mono_ns();
}

/* ------------------------------------------------------------------ */
/* connections */

static void set_nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* Send now if nothing is buffered, buffer the rest. */
static void conn_send(struct conn *c, const uint8_t *data, size_t len)
{
	if (c->fd < 0 || c->dead)
		return;
	if (evbuffer_get_length(c->out) == 0) {
		ssize_t n = send(c->fd, data, len, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK &&
			    errno != EINTR) {
				logmsg("%s: send: %s", c->name,
				       strerror(errno));
				c->dead = true;
				/* let the read callback see the failure */
				shutdown(c->fd, SHUT_RDWR);
				return;
			}
			n = 0;
		}
		data += n;
		len -= (size_t)n;
	}
	if (len) {
		evbuffer_add(c->out, data, len);
		event_add(c->wr, NULL);
	}
}

static void conn_write_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;

	(void)what;
	if (evbuffer_write(c->out, fd) < 0 && errno != EAGAIN &&
	    errno != EINTR) {
		logmsg("%s: write: %s", c->name, strerror(errno));
		c->dead = true;
		shutdown(fd, SHUT_RDWR);
		evbuffer_drain(c->out, evbuffer_get_length(c->out));
	}
	if (evbuffer_get_length(c->out) == 0)
		event_del(c->wr);
}

static int conn_attach(struct proxy *p, struct conn *c, int fd,
		       event_callback_fn read_cb)
{
	c->fd = fd;
	c->dead = false;
	vm_parser_reset(&c->parser);
	evbuffer_drain(c->out, evbuffer_get_length(c->out));
	c->rd = event_new(p->base, fd, EV_READ | EV_PERSIST, read_cb, p);
	c->wr = event_new(p->base, fd, EV_WRITE | EV_PERSIST, conn_write_cb, c);
	if (!c->rd || !c->wr || event_add(c->rd, NULL)) {
		logmsg("%s: cannot set up events", c->name);
		return -1;
	}
	set_nodelay(fd);
	return 0;
}

static void conn_close(struct proxy *p, struct conn *c)
{
	(void)p;
	if (c->rd) {
		event_free(c->rd);
		c->rd = NULL;
	}
	if (c->wr) {
		event_free(c->wr);
		c->wr = NULL;
	}
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->dead = false;
	evbuffer_drain(c->out, evbuffer_get_length(c->out));
	vm_parser_reset(&c->parser);
}

/* ------------------------------------------------------------------ */
/* delivery queue */

static void item_free(struct item *it)
{
	free(it->raw);
	free(it);
}

static size_t queue_drop_all(struct proxy *p)
{
	struct item *it;
	size_t n = 0;

	while ((it = TAILQ_FIRST(&p->queue))) {
		TAILQ_REMOVE(&p->queue, it, link);
		item_free(it);
		n++;
	}
	p->queued = 0;
	evtimer_del(p->deliver_ev);
	return n;
}

static void hold_begin(struct proxy *p, uint64_t for_ms, const char *why)
{
	struct item *it;

	if (!p->hold)
		p->c.holds++;
	p->hold = true;
	TAILQ_FOREACH (it, &p->queue, link)
		it->held = true;
	evtimer_del(p->deliver_ev);
	evtimer_del(p->release_ev);
	if (for_ms) {
		struct timeval tv = ns_to_tv(for_ms * 1000000ull);

		evtimer_add(p->release_ev, &tv);
	}
	if (for_ms)
		logmsg("hold on (%s), auto-release in %" PRIu64 " ms", why,
		       for_ms);
	else
		logmsg("hold on (%s), until released", why);
}

static void hold_end(struct proxy *p, const char *why)
{
	evtimer_del(p->release_ev);
	if (!p->hold)
		return;
	p->hold = false;
	logmsg("hold off (%s), %zu frame(s) queued", why, p->queued);
	dispatch(p);
}

static void release_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	hold_end(arg, "timer");
}

/* The seq of an encoded message frame (its first byte, maybe escaped). */
static int frame_seq(const uint8_t *raw, size_t len)
{
	if (len >= 2 && raw[0] == VM_ESCAPE)
		return raw[1] & ~VM_ESCAPE_BIT;
	return len ? raw[0] : -1;
}

static void send_item(struct proxy *p, struct item *it, uint64_t now)
{
	conn_send(&p->qemu, it->raw, it->len);
	if (it->kind != VM_FRAME_MSG)
		return;
	if (p->pend_seq >= 0 && frame_seq(it->raw, it->len) == p->pend_seq) {
		p->pend_seq = -1;
		evtimer_del(p->pend_ev);
	}
	if (it->held) {
		p->c.b2h_held_released++;
	} else {
		dm_samples_add(&p->lateness,
			       (double)(int64_t)(now - it->due_ns) / 1000.0);
	}
	if (verbose)
		logmsg("bmc->host msg sent, delay %.1f us, total %.1f us",
		       it->delay_us, (double)(now - it->arrive_ns) / 1000.0);
}

/*
 * Send everything that is due, in order, then arm the timer for the head.
 * Called from read callbacks (so that undelayed frames leave at once), from
 * the timer, and on release.
 */
static void dispatch(struct proxy *p)
{
	struct item *it;
	uint64_t now = mono_ns();

	while (!p->hold && (it = TAILQ_FIRST(&p->queue))) {
		if (it->due_ns > now) {
			if (!p->spin_ns || it->due_ns - now > p->spin_ns)
				break;
			while ((now = mono_ns()) < it->due_ns)
				;
		}
		TAILQ_REMOVE(&p->queue, it, link);
		p->queued--;
		send_item(p, it, now);
		item_free(it);
		now = mono_ns();
	}
	if (!p->hold && (it = TAILQ_FIRST(&p->queue))) {
		uint64_t wake =
			it->due_ns > p->spin_ns ? it->due_ns - p->spin_ns : 0;
		struct timeval tv = ns_to_tv(wake > now ? wake - now : 0);

		evtimer_add(p->deliver_ev, &tv);
	} else {
		evtimer_del(p->deliver_ev);
	}
}

static void deliver_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	dispatch(arg);
}

static void enqueue(struct proxy *p, enum vm_frame_kind kind,
		    const uint8_t *raw, size_t len, double delay_us)
{
	struct item *it = calloc(1, sizeof(*it));
	uint64_t now = mono_ns();
	uint64_t due;

	if (!it || !(it->raw = malloc(len))) {
		free(it);
		logmsg("out of memory, frame dropped");
		return;
	}
	memcpy(it->raw, raw, len);
	it->len = len;
	it->kind = kind;
	it->arrive_ns = now;
	it->delay_us = delay_us;
	due = now + (uint64_t)(delay_us * 1000.0 + 0.5);
	if (!TAILQ_EMPTY(&p->queue) && p->last_due_ns > due) {
		/* never overtake an earlier frame */
		if (kind == VM_FRAME_MSG && delay_us > 0)
			p->c.b2h_order_waits++;
		due = p->last_due_ns;
	}
	it->due_ns = due;
	it->held = p->hold;
	p->last_due_ns = due;
	TAILQ_INSERT_TAIL(&p->queue, it, link);
	p->queued++;
}

/* ------------------------------------------------------------------ */
/* BMC -> host */

static void cache_frame(uint8_t *buf, size_t *len, size_t cap,
			const struct vm_frame *f)
{
	if (f->raw_len <= cap) {
		memcpy(buf, f->raw, f->raw_len);
		*len = f->raw_len;
	}
}

/*
 * A message for the host, the BMC's or one made up here: count it for
 * --hold-after, draw its delay and queue it. Returns the delay.
 */
static double msg_to_host(struct proxy *p, const uint8_t *raw, size_t len)
{
	double delay;

	if (p->hold_after == 0) {
		p->hold_after = -1;
		p->c.triggers++;
		hold_begin(p, p->hold_after_ms, "hold-after count");
	} else if (p->hold_after > 0) {
		p->hold_after--;
	}
	delay = delay_model_sample(&p->model, &p->rng);
	dm_samples_add(&p->delays, delay);
	enqueue(p, VM_FRAME_MSG, raw, len, delay);
	return delay;
}

/* Queue a one-byte control command of our own (attention) for the host. */
static void ctl_to_host(struct proxy *p, uint8_t cmd)
{
	uint8_t raw[4];
	size_t n = vm_encode(VM_FRAME_CMD, &cmd, 1, raw, sizeof(raw));

	if (p->qemu.fd < 0 || !n)
		return;
	if (cmd == VM_CMD_NOATTN)
		p->c.noattn_sent++;
	else
		p->c.attn_sent++;
	if (verbose)
		logmsg("inject: %s to the host",
		       cmd == VM_CMD_NOATTN ? "NOATTN" :
		       cmd == VM_CMD_ATTN   ? "ATTN" :
					      "ATTN_IRQ");
	enqueue(p, VM_FRAME_CMD, raw, n, 0);
}

/* ------------------------------------------------------------------ */
/* misbehaviour: silence, busy, wrong answers */

/* "2026-12-05T08:50:01.123Z, t+73.456 s": wall clock (UTC) and the time
 * since start (or reset-stats), for the log lines a test lines up with */
static const char *stamp(struct proxy *p, char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ, t+%.3f s",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000,
		 (double)(mono_ns() - p->start_ns) / 1e9);
	return buf;
}

static void arm_ms(struct event *ev, uint64_t ms)
{
	struct timeval tv = ns_to_tv(ms * 1000000ull);

	evtimer_del(ev);
	if (ms)
		evtimer_add(ev, &tv);
}

/* Silence for ms (0: until ended). Started by an --on rule, it spares the
 * request that fired the rule: that one is forwarded and answered. */
static void silence_begin(struct proxy *p, uint64_t ms, const char *why)
{
	char t[64];

	if (!p->silent) {
		p->silent = true;
		p->silent_since_ns = mono_ns();
		p->sil_swallowed0 = p->c.swallowed;
		p->sil_dropped0 = p->c.silent_dropped;
		p->c.silences++;
		if (p->cur_seq >= 0) {
			p->started_by_rule = true;
			p->spare_seq = p->cur_seq;
		}
	}
	p->silent_ms = ms;
	arm_ms(p->silence_ev, ms);
	if (ms)
		logmsg("BMC silent (%s) at %s, for %" PRIu64 " ms", why,
		       stamp(p, t, sizeof(t)), ms);
	else
		logmsg("BMC silent (%s) at %s, until 'silence off'", why,
		       stamp(p, t, sizeof(t)));
}

static void silence_end(struct proxy *p, const char *why)
{
	char t[64];

	evtimer_del(p->silence_ev);
	if (!p->silent)
		return;
	p->silent = false;
	p->spare_seq = -1;
	logmsg("BMC back (%s) at %s after %.3f s silent: %" PRIu64
	       " request(s) swallowed, %" PRIu64 " answer(s) dropped",
	       why, stamp(p, t, sizeof(t)),
	       (double)(mono_ns() - p->silent_since_ns) / 1e9,
	       p->c.swallowed - p->sil_swallowed0,
	       p->c.silent_dropped - p->sil_dropped0);
}

static void silence_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	silence_end(arg, "timer");
}

/* Busy for ms (0: until ended): every request answered cc here. */
static void busy_begin(struct proxy *p, uint64_t ms, uint8_t cc,
		       const char *why)
{
	char t[64];

	if (!p->busy) {
		p->busy = true;
		p->busy_since_ns = mono_ns();
		p->busy_answers0 = p->c.busy_answers;
		p->c.busies++;
		if (p->cur_seq >= 0)
			p->started_by_rule = true;
	}
	p->busy_cc = cc;
	p->busy_ms = ms;
	arm_ms(p->busy_ev, ms);
	logmsg("BMC busy (%s) at %s: every request answered 0x%02x, %s%" PRIu64
	       " ms",
	       why, stamp(p, t, sizeof(t)), cc,
	       ms ? "for " : "until 'busy off', ", ms);
}

static void busy_end(struct proxy *p, const char *why)
{
	char t[64];

	evtimer_del(p->busy_ev);
	if (!p->busy)
		return;
	p->busy = false;
	logmsg("BMC no longer busy (%s) at %s after %.3f s: %" PRIu64
	       " request(s) answered 0x%02x",
	       why, stamp(p, t, sizeof(t)),
	       (double)(mono_ns() - p->busy_since_ns) / 1e9,
	       p->c.busy_answers - p->busy_answers0, p->busy_cc);
}

static void busy_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	busy_end(arg, "timer");
}

/* While busy: answer the request here with the busy completion code. */
static bool busy_answer(struct proxy *p, const struct vm_msg_info *mi)
{
	uint8_t wire[32];
	size_t n = vm_encode_msg(mi->seq, mi->netfn | 1, mi->lun, mi->cmd,
				 &p->busy_cc, 1, wire, sizeof(wire));

	if (!n)
		return false;
	p->c.busy_answers++;
	if (verbose)
		logmsg("busy: 0x%02x:0x%02x answered 0x%02x", mi->netfn,
		       mi->cmd, p->busy_cc);
	msg_to_host(p, wire, n);
	dispatch(p);
	return true;
}

/* A request going to the BMC: does a wrong rule claim its answer? */
static void wrong_arm(struct proxy *p, const struct vm_msg_info *mi)
{
	for (size_t i = 0; i < p->n_wrongs; i++) {
		struct wrong_rule *w = &p->wrongs[i];
		struct wrong_pending *wp = &p->wpend[mi->seq % WRONG_MAX];

		if (!w->left || w->netfn != mi->netfn || w->cmd != mi->cmd)
			continue;
		w->left--;
		w->used++;
		*wp = (struct wrong_pending){ .on = true,
					      .seq = mi->seq,
					      .netfn = mi->netfn,
					      .cmd = mi->cmd,
					      .what = w->what };
		logmsg("wrong: the answer to 0x%02x:0x%02x (seq 0x%02x) gets "
		       "a wrong %s, %" PRIu64 " more to come",
		       mi->netfn, mi->cmd, mi->seq,
		       w->what == WRONG_CMD   ? "cmd" :
		       w->what == WRONG_NETFN ? "netfn" :
						"netfn and cmd",
		       w->left);
		return;
	}
}

/*
 * The BMC's answer f (header mi): if its request was claimed by wrong_arm,
 * re-encode it into out with netfn + 2 and/or cmd + 1 and a checksum that
 * fits, and return its length; else 0.
 */
static size_t wrong_rewrite(struct proxy *p, const struct vm_frame *f,
			    const struct vm_msg_info *mi, uint8_t *out,
			    size_t cap)
{
	struct wrong_pending *wp = &p->wpend[mi->seq % WRONG_MAX];
	uint8_t d[VM_DATA_MAX];
	size_t n = f->data_len;

	if (!wp->on || wp->seq != mi->seq || mi->netfn != (wp->netfn | 1) ||
	    mi->cmd != wp->cmd || n < 4 || n > sizeof(d))
		return 0;
	wp->on = false;
	memcpy(d, f->data, n);
	if (wp->what & WRONG_NETFN)
		d[1] = (uint8_t)((((mi->netfn + 2) & 0x3f) << 2) | mi->lun);
	if (wp->what & WRONG_CMD)
		d[2] = (uint8_t)(mi->cmd + 1);
	d[n - 1] = vm_checksum(d, n - 1);
	n = vm_encode(VM_FRAME_MSG, d, n, out, cap);
	if (n) {
		p->c.wrong_answers++;
		logmsg("wrong: answer to 0x%02x:0x%02x (seq 0x%02x) sent as "
		       "netfn 0x%02x cmd 0x%02x",
		       wp->netfn, wp->cmd, mi->seq, d[1] >> 2, d[2]);
	}
	return n;
}

static void bmc_frame(struct proxy *p, const struct vm_frame *f)
{
	uint8_t wrong[VM_RAW_MAX];
	size_t wrong_len = 0;

	if (f->truncated) {
		p->c.b2h_truncated++;
		logmsg("bmc: frame longer than %u bytes dropped", VM_RAW_MAX);
		return;
	}
	if (f->kind == VM_FRAME_CMD) {
		p->c.b2h_cmds++;
		if (f->data_len >= 1 && f->data[0] == VM_CMD_VERSION)
			cache_frame(p->bmc_version, &p->bmc_version_len,
				    sizeof(p->bmc_version), f);
		if (verbose)
			logmsg("bmc->host cmd 0x%02x (%zu bytes)",
			       f->data_len ? f->data[0] : 0, f->data_len);
		if (f->data_len >= 1 && f->data[0] <= VM_CMD_ATTN_IRQ) {
			cache_frame(p->bmc_attn, &p->bmc_attn_len,
				    sizeof(p->bmc_attn), f);
			p->bmc_attn_up = f->data[0] != VM_CMD_NOATTN;
			/* injected items keep the host's attention up */
			if (!p->bmc_attn_up && sms_inject_pending(&p->inj)) {
				p->c.noattn_suppressed++;
				if (verbose)
					logmsg("inject: BMC's NOATTN held "
					       "back, injected items pending");
				return;
			}
		}
	} else {
		struct vm_msg_info mi;
		/* a response needs seq, netfn, cmd, completion code, csum */
		bool ok = vm_msg_parse(f->data, f->data_len, &mi) &&
			  f->data_len >= 5 && mi.checksum_ok && !f->bad_escape;

		p->c.b2h_msgs++;
		/* silent: nothing reaches the host but the trigger's answer */
		if (p->silent && !(ok && mi.seq == p->spare_seq)) {
			p->c.silent_dropped++;
			if (verbose)
				logmsg("silent: BMC answer dropped");
			return;
		}
		if (p->silent)
			p->spare_seq = -1;
		if (!ok)
			p->c.b2h_bad++;
		else if (verbose)
			logmsg("bmc->host msg seq=0x%02x netfn=0x%02x "
			       "cmd=0x%02x cc=0x%02x",
			       mi.seq, mi.netfn, mi.cmd, f->data[3]);
		if (!f->bad_escape)
			sms_inject_bmc_response(&p->inj, f->data, f->data_len);
		if (ok)
			wrong_len =
				wrong_rewrite(p, f, &mi, wrong, sizeof(wrong));
	}
	if (p->qemu.fd < 0) {
		p->c.b2h_dropped_no_host++;
		return;
	}
	if (f->kind == VM_FRAME_MSG) {
		if (msg_to_host(p, wrong_len ? wrong : f->raw,
				wrong_len ? wrong_len : f->raw_len) > 0)
			p->c.b2h_delayed++;
	} else {
		enqueue(p, VM_FRAME_CMD, f->raw, f->raw_len, 0);
	}
}

static void bmc_lost(struct proxy *p, const char *why)
{
	logmsg("BMC connection lost (%s), reconnecting", why);
	conn_close(p, &p->bmc);
	p->bmc_down_logged = true;
	bmc_schedule_retry(p);
}

static void bmc_read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct proxy *p = arg;
	uint8_t buf[4096];
	ssize_t n;
	size_t off = 0;

	(void)what;
	n = recv(fd, buf, sizeof(buf), 0);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		bmc_lost(p, n == 0 ? "EOF" : strerror(errno));
		return;
	}
	if (n < 0)
		return;
	while (off < (size_t)n) {
		struct vm_frame f;
		size_t used;

		if (vm_parser_next(&p->bmc.parser, buf + off, (size_t)n - off,
				   &used, &f))
			bmc_frame(p, &f);
		off += used;
	}
	dispatch(p);
}

/* ------------------------------------------------------------------ */
/* SMS_ATN injection (sms_inject.h) */

static const char *const app_cmd_names[] = {
	[SMS_CMD_CLEAR_MSG_FLAGS] = "Clear Message Flags",
	[SMS_CMD_GET_MSG_FLAGS] = "Get Message Flags",
	[SMS_CMD_GET_MSG] = "Get Message",
	[SMS_CMD_READ_EVENT_BUF] = "Read Event Message Buffer",
};

/* Something was queued: (re)raise the host's attention. */
static void inject_raise(struct proxy *p, const char *what)
{
	if (verbose)
		logmsg("inject: %s queued, pending events=%u msgs=%u%s", what,
		       p->inj.ev_count, p->inj.msg_count,
		       p->qemu.fd < 0 ? " (no QEMU: attention when it "
					"connects)" :
					"");
	ctl_to_host(p, sms_inject_attn_cmd(&p->inj));
	dispatch(p);
}

/* Drop what is pending; lower the attention if it was only ours. */
static unsigned int inject_clear(struct proxy *p)
{
	unsigned int n =
		sms_inject_clear(&p->inj,
				 SMS_FLAG_RECV_MSG | SMS_FLAG_EVT_BUF_FULL);

	p->c.inj_cleared += n;
	if (n && !p->bmc_attn_up) {
		ctl_to_host(p, VM_CMD_NOATTN);
		dispatch(p);
	}
	return n;
}

/*
 * A host request: answer it here if it fetches injected items (true), or
 * leave it for the BMC (false). The last item's answer is preceded by
 * NOATTN, unless the BMC's own attention is up, so that SMS_ATN is down
 * by the time the host has read the answer and looks at the status again.
 */
static bool inject_answer(struct proxy *p, const struct vm_frame *f)
{
	unsigned int ev = p->inj.ev_count, msgs = p->inj.msg_count;
	struct sms_reply r;

	if (!sms_inject_request(&p->inj, f->data, f->data_len, &r)) {
		if (p->inj.ev_count != ev || p->inj.msg_count != msgs) {
			/* Clear Message Flags: the BMC answers it and sets
			 * its own attention state, no longer overruled */
			p->c.inj_cleared +=
				ev - p->inj.ev_count + msgs - p->inj.msg_count;
			logmsg("inject: host's Clear Message Flags dropped "
			       "%u event(s), %u message(s)",
			       ev - p->inj.ev_count, msgs - p->inj.msg_count);
		}
		return false;
	}
	if (!r.len) {
		logmsg("inject: cannot encode the answer, request forwarded");
		return false;
	}
	switch (r.cmd) {
	case SMS_CMD_GET_MSG_FLAGS:
		p->c.ans_flags++;
		break;
	case SMS_CMD_READ_EVENT_BUF:
		p->c.ans_events++;
		break;
	default:
		p->c.ans_msgs++;
		break;
	}
	/* in wire order: the NOATTN, then the answer */
	if (!sms_inject_pending(&p->inj) && !p->bmc_attn_up)
		ctl_to_host(p, VM_CMD_NOATTN);
	if (verbose) {
		if (r.cmd == SMS_CMD_GET_MSG_FLAGS)
			logmsg("inject: answered Get Message Flags: 0x%02x",
			       r.flags);
		else
			logmsg("inject: answered %s, %u event(s) and %u "
			       "message(s) left",
			       app_cmd_names[r.cmd], p->inj.ev_count,
			       p->inj.msg_count);
	}
	msg_to_host(p, r.wire, r.len);
	dispatch(p);
	return true;
}

/* ------------------------------------------------------------------ */
/* --on rules */

/* Run each rule for netfn/cmd, as if its line came in on the control port. */
static void rules_fire(struct proxy *p, uint8_t netfn, uint8_t cmd)
{
	for (size_t i = 0; i < p->n_rules; i++) {
		struct on_rule *r = &p->rules[i];
		char line[ON_LINE_MAX], *reply, *s;
		struct evbuffer *out;
		size_t n;
		bool quit;

		if (r->netfn != netfn || r->cmd != cmd)
			continue;
		out = evbuffer_new();
		if (!out)
			return;
		snprintf(line, sizeof(line), "%s", r->line);
		quit = ctl_handle(p, line, out);
		r->fired++;
		p->c.on_fired++;
		/* log the status line (the last one) of the reply */
		n = evbuffer_get_length(out);
		reply = (char *)evbuffer_pullup(out, -1);
		if (reply && n) {
			reply[n - 1] = '\0';
			s = strrchr(reply, '\n');
			logmsg("on 0x%02x:0x%02x: %s -> %s", netfn, cmd,
			       r->line, s ? s + 1 : reply);
		}
		evbuffer_free(out);
		if (quit) {
			logmsg("quit requested by an --on rule");
			p->exit_code = 0;
			event_base_loopexit(p->base, NULL);
		}
	}
}

/* ------------------------------------------------------------------ */
/* host -> BMC */

/* One line per request passed to the BMC: "NETFN CMD DATA..." in hex
 * (the netfn without its LUN; DATA between cmd and checksum). */
static void log_request(FILE *f, const struct vm_frame *fr,
			const struct vm_msg_info *mi)
{
	size_t i;

	if (mi->lun) /* LUN 0 lines as before; the oracle judges LUNs */
		fprintf(f, "lun=%u ", mi->lun);
	fprintf(f, "%02x %02x", mi->netfn, mi->cmd);
	for (i = 0; i < mi->payload_len && 3 + i < fr->data_len; i++)
		fprintf(f, " %02x", fr->data[3 + i]);
	fputc('\n', f);
	fflush(f);
}

/* A request QEMU now waits on: one whose seq QEMU's timer would lose
 * gets the proxy's 0xC3 if nothing has answered it by then. */
static void qemu_waits(struct proxy *p, const struct vm_msg_info *mi)
{
	p->pend_seq = -1;
	evtimer_del(p->pend_ev);
	if (!p->qemu_timeout_ms ||
	    (mi->seq != 0xa0 && mi->seq != 0xa1 && mi->seq != VM_ESCAPE))
		return;
	p->pend_seq = mi->seq;
	p->pend_netfn = mi->netfn;
	p->pend_lun = mi->lun;
	p->pend_cmd = mi->cmd;
	arm_ms(p->pend_ev, p->qemu_timeout_ms);
}

static void pend_cb(evutil_socket_t fd, short what, void *arg)
{
	struct proxy *p = arg;
	static const uint8_t cc = 0xc3;
	uint8_t wire[32];
	size_t n;

	(void)fd;
	(void)what;
	if (p->pend_seq < 0 || p->qemu.fd < 0)
		return;
	n = vm_encode_msg((uint8_t)p->pend_seq, p->pend_netfn | 1, p->pend_lun,
			  p->pend_cmd, &cc, 1, wire, sizeof(wire));
	/* QEMU's own timer ignores holds and the delay model: so does this */
	if (n)
		conn_send(&p->qemu, wire, n);
	p->c.qemu_timeouts_played++;
	logmsg("no answer to seq 0x%02x (0x%02x:0x%02x) in %" PRIu64
	       " ms: 0xc3 sent for QEMU, whose timer loses this seq",
	       p->pend_seq, p->pend_netfn, p->pend_cmd, p->qemu_timeout_ms);
	p->pend_seq = -1;
}

static void host_frame(struct proxy *p, const struct vm_frame *f)
{
	if (f->truncated) {
		p->c.h2b_truncated++;
		logmsg("qemu: frame longer than %u bytes dropped", VM_RAW_MAX);
		return;
	}
	if (f->kind == VM_FRAME_CMD) {
		p->c.h2b_cmds++;
		if (f->data_len >= 1 && f->data[0] == VM_CMD_VERSION)
			cache_frame(p->host_version, &p->host_version_len,
				    sizeof(p->host_version), f);
		if (f->data_len >= 1 && f->data[0] == VM_CMD_CAPABILITIES)
			cache_frame(p->host_caps, &p->host_caps_len,
				    sizeof(p->host_caps), f);
		if (verbose)
			logmsg("host->bmc cmd 0x%02x",
			       f->data_len ? f->data[0] : 0);
	} else {
		struct vm_msg_info mi;

		p->c.h2b_msgs++;
		if (vm_msg_parse(f->data, f->data_len, &mi)) {
			qemu_waits(p, &mi);
			if (verbose)
				logmsg("host->bmc msg seq=0x%02x netfn=0x%02x "
				       "cmd=0x%02x",
				       mi.seq, mi.netfn, mi.cmd);
			if (p->hold_on_armed && mi.netfn == p->hold_on_netfn &&
			    mi.cmd == p->hold_on_cmd) {
				p->c.triggers++;
				hold_begin(p, p->hold_on_ms, "hold-on request");
			}
			p->cur_seq = mi.seq;
			p->started_by_rule = false;
			rules_fire(p, mi.netfn, mi.cmd);
			p->cur_seq = -1;
			/* a silent BMC takes nothing in, not even a rule's
			 * trigger, unless that rule made it silent */
			if (p->silent && !p->started_by_rule) {
				p->c.swallowed++;
				if (verbose)
					logmsg("silent: request swallowed");
				return;
			}
			if (p->reqlog)
				log_request(p->reqlog, f, &mi);
			if (mi.checksum_ok && !f->bad_escape &&
			    ((p->busy && !p->started_by_rule &&
			      busy_answer(p, &mi)) ||
			     wdt_answer(p, f, &mi) ||
			     answer_request(p, f, &mi) || inject_answer(p, f)))
				return;
			if (mi.checksum_ok && !f->bad_escape)
				wrong_arm(p, &mi);
		}
	}
	if (p->bmc.fd < 0 || p->bmc_connecting) {
		p->c.h2b_dropped_no_bmc++;
		return;
	}
	conn_send(&p->bmc, f->raw, f->raw_len);
}

static void qemu_lost(struct proxy *p, const char *why)
{
	size_t n = queue_drop_all(p);

	p->pend_seq = -1;
	evtimer_del(p->pend_ev);
	p->c.b2h_dropped_disconnect += n;
	logmsg("QEMU connection closed (%s)%s", why,
	       n ? ", queued BMC frames dropped" : "");
	conn_close(p, &p->qemu);
}

static void qemu_read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct proxy *p = arg;
	uint8_t buf[4096];
	ssize_t n;
	size_t off = 0;

	(void)what;
	n = recv(fd, buf, sizeof(buf), 0);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		qemu_lost(p, n == 0 ? "EOF" : strerror(errno));
		return;
	}
	if (n < 0)
		return;
	while (off < (size_t)n) {
		struct vm_frame f;
		size_t used;

		if (vm_parser_next(&p->qemu.parser, buf + off, (size_t)n - off,
				   &used, &f))
			host_frame(p, &f);
		off += used;
	}
}

/* --silent-for, --busy-for: from the start or QEMU's first connection */
static void faults_at_start(struct proxy *p, const char *when)
{
	char why[80];

	if (p->silent_for_ms) {
		snprintf(why, sizeof(why), "--silent-for, %s", when);
		silence_begin(p, p->silent_for_ms, why);
	}
	if (p->busy_for_ms) {
		snprintf(why, sizeof(why), "--busy-for, %s", when);
		busy_begin(p, p->busy_for_ms, p->busy_cc_opt, why);
	}
}

static void accept_cb(evutil_socket_t lfd, short what, void *arg)
{
	struct proxy *p = arg;
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	int fd;

	(void)what;
	fd = accept4(lfd, (struct sockaddr *)&sa, &sl,
		     SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0) {
		if (errno != EAGAIN && errno != EINTR)
			logmsg("accept: %s", strerror(errno));
		return;
	}
	if (p->qemu.fd >= 0)
		qemu_lost(p, "replaced by a new connection");
	if (conn_attach(p, &p->qemu, fd, qemu_read_cb)) {
		conn_close(p, &p->qemu);
		return;
	}
	p->c.qemu_connects++;
	logmsg("QEMU connected from port %u", ntohs(sa.sin_port));
	if (p->from_connect && p->c.qemu_connects == 1)
		faults_at_start(p, "from QEMU's first connection");
	/*
	 * Make the new connection look like a fresh one to ipmi_sim: it
	 * starts with the BMC's version and, if raised, its attention state.
	 */
	if (p->bmc_version_len) {
		enqueue(p, VM_FRAME_CMD, p->bmc_version, p->bmc_version_len, 0);
		p->c.b2h_replayed++;
	}
	if (p->bmc_attn_len && p->bmc_attn[0] != VM_CMD_NOATTN) {
		enqueue(p, VM_FRAME_CMD, p->bmc_attn, p->bmc_attn_len, 0);
		p->c.b2h_replayed++;
	}
	/* and injected items still wait */
	if (sms_inject_pending(&p->inj))
		ctl_to_host(p, sms_inject_attn_cmd(&p->inj));
	dispatch(p);
}

/* ------------------------------------------------------------------ */
/* BMC connection management */

static void bmc_connected(struct proxy *p)
{
	p->bmc_connecting = false;
	p->bmc_down_logged = false;
	event_free(p->bmc.rd);
	p->bmc.rd = event_new(p->base, p->bmc.fd, EV_READ | EV_PERSIST,
			      bmc_read_cb, p);
	if (!p->bmc.rd || event_add(p->bmc.rd, NULL)) {
		bmc_lost(p, "event setup");
		return;
	}
	p->c.bmc_connects++;
	logmsg("BMC connected on port %u", p->bmc_port);
	/* QEMU announces itself once per connection: repeat it to a BMC
	 * that (re)started after QEMU connected. */
	if (p->host_version_len) {
		conn_send(&p->bmc, p->host_version, p->host_version_len);
		p->c.h2b_replayed++;
	}
	if (p->host_caps_len) {
		conn_send(&p->bmc, p->host_caps, p->host_caps_len);
		p->c.h2b_replayed++;
	}
}

static void bmc_connect_done_cb(evutil_socket_t fd, short what, void *arg)
{
	struct proxy *p = arg;
	int err = 0;
	socklen_t len = sizeof(err);

	(void)what;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
		err = errno;
	if (err) {
		if (!p->bmc_down_logged)
			logmsg("BMC on port %u not reachable (%s), retrying "
			       "every %u ms",
			       p->bmc_port, strerror(err), p->retry_ms);
		p->bmc_down_logged = true;
		conn_close(p, &p->bmc);
		p->bmc_connecting = false;
		bmc_schedule_retry(p);
		return;
	}
	bmc_connected(p);
}

static void bmc_try_connect(struct proxy *p)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(p->bmc_port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0) {
		logmsg("socket: %s", strerror(errno));
		bmc_schedule_retry(p);
		return;
	}
	if (conn_attach(p, &p->bmc, fd, bmc_read_cb)) {
		conn_close(p, &p->bmc);
		bmc_schedule_retry(p);
		return;
	}
	/* until connected, the read event waits for writability instead */
	event_free(p->bmc.rd);
	p->bmc.rd = event_new(p->base, fd, EV_WRITE, bmc_connect_done_cb, p);
	p->bmc_connecting = true;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		bmc_connected(p);
		return;
	}
	if (errno != EINPROGRESS) {
		if (!p->bmc_down_logged)
			logmsg("BMC on port %u not reachable (%s), retrying "
			       "every %u ms",
			       p->bmc_port, strerror(errno), p->retry_ms);
		p->bmc_down_logged = true;
		conn_close(p, &p->bmc);
		p->bmc_connecting = false;
		bmc_schedule_retry(p);
		return;
	}
	event_add(p->bmc.rd, NULL);
}

static void bmc_retry_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	bmc_try_connect(arg);
}

static void bmc_schedule_retry(struct proxy *p)
{
	struct timeval tv = ns_to_tv((uint64_t)p->retry_ms * 1000000ull);

	evtimer_add(p->bmc_retry_ev, &tv);
}

/* ------------------------------------------------------------------ */
/* control port */

static bool parse_u64(const char *s, uint64_t *out)
{
	char *ep;
	unsigned long long v;

	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	v = strtoull(s, &ep, 0);
	if (errno || *ep)
		return false;
	*out = v;
	return true;
}

static bool parse_netfn_cmd(const char *a, const char *b, uint8_t *netfn,
			    uint8_t *cmd)
{
	uint64_t n, c;

	if (!parse_u64(a, &n) || !parse_u64(b, &c) || n > 0x3f || c > 0xff)
		return false;
	*netfn = (uint8_t)n;
	*cmd = (uint8_t)c;
	return true;
}

/* control commands an --on rule may run (all but "on" itself) */
static const char *const rule_cmds[] = {
	"hold",	      "release",     "drop",	     "delay",
	"model",      "hold-on",     "hold-after",   "inject-event",
	"inject-msg", "inject-cmd",  "inject-clear", "stats",
	"report",     "reset-stats", "ping",	     "help",
	"quit",	      "silence",     "busy",	     "wrong",
	"answer",
};

/*
 * Parse "NETFN:CMD=COMMAND" into r. Commas in COMMAND separate words like
 * spaces do, so that a rule survives word splitting (run.sh --proxy-args).
 */
static bool rule_parse(const char *spec, struct on_rule *r, char *err,
		       size_t errlen)
{
	const char *eq = strchr(spec, '=');
	char key[32], *colon, *c, *w;
	size_t klen, wlen;
	bool known = false;

	if (!eq || (klen = (size_t)(eq - spec)) >= sizeof(key)) {
		snprintf(err, errlen, "expected NETFN:CMD=COMMAND");
		return false;
	}
	memcpy(key, spec, klen);
	key[klen] = '\0';
	colon = strchr(key, ':');
	if (!colon) {
		snprintf(err, errlen, "expected NETFN:CMD=COMMAND");
		return false;
	}
	*colon = '\0';
	if (!parse_netfn_cmd(key, colon + 1, &r->netfn, &r->cmd)) {
		snprintf(err, errlen,
			 "bad NETFN:CMD '%.*s' (netfn 0-0x3f, "
			 "cmd 0-0xff)",
			 (int)klen, spec);
		return false;
	}
	if (strlen(eq + 1) >= sizeof(r->line)) {
		snprintf(err, errlen, "command too long");
		return false;
	}
	snprintf(r->line, sizeof(r->line), "%s", eq + 1);
	for (c = r->line; *c; c++)
		if (*c == ',' || *c == '\t')
			*c = ' ';
	w = r->line + strspn(r->line, " ");
	wlen = strcspn(w, " ");
	for (size_t i = 0; i < sizeof(rule_cmds) / sizeof(rule_cmds[0]); i++)
		if (strlen(rule_cmds[i]) == wlen &&
		    strncmp(w, rule_cmds[i], wlen) == 0)
			known = true;
	if (!known) {
		snprintf(err, errlen,
			 "'%.*s' is not a control command an "
			 "--on rule can run",
			 (int)wlen, w);
		return false;
	}
	r->fired = 0;
	return true;
}

static bool rule_add(struct proxy *p, const char *spec, char *err,
		     size_t errlen)
{
	if (p->n_rules >= ON_RULES_MAX) {
		snprintf(err, errlen, "too many --on rules (max %d)",
			 ON_RULES_MAX);
		return false;
	}
	if (!rule_parse(spec, &p->rules[p->n_rules], err, errlen))
		return false;
	p->n_rules++;
	return true;
}

/* "on", "on off", "on NETFN:CMD=COMMAND"; args is the rest of the line */
static void ctl_on(struct proxy *p, const char *args, struct evbuffer *out)
{
	char err[160];

	args += strspn(args, " \t");
	if (!*args) {
		for (size_t i = 0; i < p->n_rules; i++)
			evbuffer_add_printf(out,
					    "on 0x%02x:0x%02x=%s fired=%" PRIu64
					    "\n",
					    p->rules[i].netfn, p->rules[i].cmd,
					    p->rules[i].line,
					    p->rules[i].fired);
		evbuffer_add_printf(out, "ok rules=%zu\n", p->n_rules);
	} else if (strncmp(args, "off", 3) == 0 &&
		   args[3 + strspn(args + 3, " \t")] == '\0') {
		evbuffer_add_printf(out, "ok on off (%zu removed)\n",
				    p->n_rules);
		p->n_rules = 0;
	} else if (rule_add(p, args, err, sizeof(err))) {
		struct on_rule *r = &p->rules[p->n_rules - 1];

		evbuffer_add_printf(out, "ok on 0x%02x:0x%02x=%s\n", r->netfn,
				    r->cmd, r->line);
	} else {
		evbuffer_add_printf(out,
				    "err %s; usage: on NETFN:CMD=COMMAND "
				    "| on off | on\n",
				    err);
	}
}

/* Number 0..max in C syntax. */
static bool parse_byte(const char *s, uint64_t max, uint8_t *out)
{
	uint64_t v;

	if (!parse_u64(s, &v) || v > max)
		return false;
	*out = (uint8_t)v;
	return true;
}

/* "NETFN:CMD[/BODY]=HEX..." (bytes: completion code, then data) */
static bool answer_parse(const char *spec, struct answer_rule *a)
{
	char buf[256], *eq, *slash, *colon, *h;
	uint8_t b;

	if (snprintf(buf, sizeof(buf), "%s", spec) >= (int)sizeof(buf))
		return false;
	memset(a, 0, sizeof(*a));
	a->body = -1;
	eq = strchr(buf, '=');
	if (!eq)
		return false;
	*eq = '\0';
	slash = strchr(buf, '/');
	if (slash) {
		*slash = '\0';
		if (!parse_byte(slash + 1, 0xff, &b))
			return false;
		a->body = b;
	}
	colon = strchr(buf, ':');
	if (!colon)
		return false;
	*colon = '\0';
	if (!parse_netfn_cmd(buf, colon + 1, &a->netfn, &a->cmd) ||
	    (a->netfn & 1))
		return false;
	for (h = eq + 1; *h;) {
		unsigned int v;

		if (*h == ' ' || *h == ',' || *h == ':') {
			h++;
			continue;
		}
		if (!isxdigit((unsigned char)h[0]) ||
		    !isxdigit((unsigned char)h[1]) ||
		    a->len >= sizeof(a->data) || sscanf(h, "%2x", &v) != 1)
			return false;
		a->data[a->len++] = (uint8_t)v;
		h += 2;
	}
	return a->len > 0;
}

/* --watchdog: arm the timeout event for the running timer, or none. */
static void wdt_arm(struct proxy *p)
{
	uint64_t left = bmc_wdt_left_ns(&p->wdt, mono_ns());
	struct timeval tv;

	evtimer_del(p->wdt_ev);
	if (left == UINT64_MAX)
		return;
	tv = ns_to_tv(left);
	evtimer_add(p->wdt_ev, &tv);
}

/* The timer ran out: its action, through QEMU's ipmi-bmc-extern. */
static void wdt_cb(evutil_socket_t fd, short what, void *arg)
{
	struct proxy *p = arg;
	int action = bmc_wdt_poll(&p->wdt, mono_ns());
	uint8_t cmd, raw[4];
	char ts[64];
	size_t n;

	(void)fd;
	(void)what;
	if (action < 0) {
		wdt_arm(p);
		return;
	}
	logmsg("watchdog: timeout at %s, action %d (%s)",
	       stamp(p, ts, sizeof(ts)), action,
	       action == WDT_ACTION_HARD_RESET	? "hard reset" :
	       action == WDT_ACTION_POWER_DOWN	? "power down" :
	       action == WDT_ACTION_POWER_CYCLE ? "power cycle" :
						  "none");
	if (action == WDT_ACTION_NONE)
		return;
	/* a power cycle is a reset to the guest */
	cmd = action == WDT_ACTION_POWER_DOWN ? VM_CMD_POWEROFF : VM_CMD_RESET;
	n = vm_encode(VM_FRAME_CMD, &cmd, 1, raw, sizeof(raw));
	if (p->qemu.fd < 0 || !n)
		return;
	enqueue(p, VM_FRAME_CMD, raw, n, 0);
	dispatch(p);
}

/* A watchdog request under --watchdog: answer it here (true). */
static bool wdt_answer(struct proxy *p, const struct vm_frame *f,
		       const struct vm_msg_info *mi)
{
	uint8_t rsp[16], wire[VM_RAW_MAX];
	size_t n, len;

	if (!p->wdt_on)
		return false;
	len = bmc_wdt_request(&p->wdt, mono_ns(), mi->netfn, mi->cmd,
			      f->data + 3, mi->payload_len, rsp, sizeof(rsp));
	if (!len)
		return false;
	n = vm_encode_msg(mi->seq, mi->netfn | 1, mi->lun, mi->cmd, rsp, len,
			  wire, sizeof(wire));
	if (!n)
		return false;
	if (verbose)
		logmsg("watchdog: 0x%02x answered here (cc 0x%02x)", mi->cmd,
		       rsp[0]);
	wdt_arm(p);
	msg_to_host(p, wire, n);
	dispatch(p);
	return true;
}

/* A host request an --answer rule matches: answer it here (true). */
static bool answer_request(struct proxy *p, const struct vm_frame *f,
			   const struct vm_msg_info *mi)
{
	uint8_t wire[VM_RAW_MAX];
	size_t i, n;

	for (i = 0; i < p->n_answers; i++) {
		struct answer_rule *a = &p->answers[i];

		if (a->netfn != mi->netfn || a->cmd != mi->cmd ||
		    (a->body >= 0 &&
		     (mi->payload_len < 1 || f->data[3] != a->body)))
			continue;
		n = vm_encode_msg(mi->seq, mi->netfn | 1, mi->lun, mi->cmd,
				  a->data, a->len, wire, sizeof(wire));
		if (!n)
			return false;
		a->used++;
		if (verbose)
			logmsg("answer: 0x%02x:0x%02x answered here (cc 0x%02x)",
			       mi->netfn, mi->cmd, a->data[0]);
		msg_to_host(p, wire, n);
		dispatch(p);
		return true;
	}
	return false;
}

/* "NETFN:CMD" */
static bool parse_key(const char *spec, uint8_t *netfn, uint8_t *cmd)
{
	char a[32], *colon;

	if (snprintf(a, sizeof(a), "%s", spec) >= (int)sizeof(a))
		return false;
	colon = strchr(a, ':');
	if (!colon)
		return false;
	*colon = '\0';
	return parse_netfn_cmd(a, colon + 1, netfn, cmd);
}

/* Add a wrong rule: key "NETFN:CMD", count N, what "cmd" (default),
 * "netfn" or "both"; an existing rule for the key is replaced. */
static bool wrong_add(struct proxy *p, const char *key, const char *count,
		      const char *what)
{
	struct wrong_rule w = { 0 };
	size_t i;

	if (!parse_key(key, &w.netfn, &w.cmd) || !parse_u64(count, &w.left) ||
	    !w.left)
		return false;
	if (!what || strcmp(what, "cmd") == 0)
		w.what = WRONG_CMD;
	else if (strcmp(what, "netfn") == 0)
		w.what = WRONG_NETFN;
	else if (strcmp(what, "both") == 0)
		w.what = WRONG_CMD | WRONG_NETFN;
	else
		return false;
	for (i = 0; i < p->n_wrongs; i++)
		if (p->wrongs[i].netfn == w.netfn && p->wrongs[i].cmd == w.cmd)
			break;
	if (i == WRONG_MAX)
		return false;
	if (i == p->n_wrongs)
		p->n_wrongs++;
	p->wrongs[i] = w;
	return true;
}

static const char *wrong_what(uint8_t what)
{
	return what == WRONG_CMD   ? "cmd" :
	       what == WRONG_NETFN ? "netfn" :
				     "both";
}

/* silence [MS] | silence off; busy [MS [CC]] | busy off;
 * wrong NETFN:CMD N [cmd|netfn|both] | wrong off | wrong */
/*
 * answer NETFN:CMD[/BODY]=HEX: answer this request here from now on (a
 * rule with the same key is replaced; a new one goes first, so it wins
 * over a broader one); answer off NETFN:CMD[/BODY]: forward it again.
 * E.g. a firmware update: --on 0x30:0x27=answer,0x06:0x01=00200103...
 */
static void ctl_answer(struct proxy *p, int argc, char **argv,
		       struct evbuffer *out)
{
	struct answer_rule a;
	char spec[300];
	size_t i;
	bool off = argc == 3 && strcmp(argv[1], "off") == 0;

	if (argc != 2 && !off) {
		evbuffer_add_printf(out, "err usage: answer NETFN:CMD[/BODY]="
					 "HEX | answer off NETFN:CMD[/BODY]\n");
		return;
	}
	snprintf(spec, sizeof(spec), "%s%s", argv[off ? 2 : 1],
		 off ? "=00" : "");
	if (!answer_parse(spec, &a)) {
		evbuffer_add_printf(out, "err bad answer '%s'\n",
				    argv[off ? 2 : 1]);
		return;
	}
	for (i = 0; i < p->n_answers; i++) {
		struct answer_rule *r = &p->answers[i];

		if (r->netfn == a.netfn && r->cmd == a.cmd && r->body == a.body)
			break;
	}
	if (i < p->n_answers) { /* the old one goes */
		memmove(&p->answers[i], &p->answers[i + 1],
			(p->n_answers - i - 1) * sizeof(a));
		p->n_answers--;
	}
	if (off) {
		logmsg("answer 0x%02x:0x%02x: forwarded again", a.netfn, a.cmd);
		evbuffer_add_printf(out, "ok answer off answers=%zu\n",
				    p->n_answers);
		return;
	}
	if (p->n_answers >= ANSWERS_MAX) {
		evbuffer_add_printf(out, "err at most %d answers\n",
				    ANSWERS_MAX);
		return;
	}
	memmove(&p->answers[1], &p->answers[0], p->n_answers * sizeof(a));
	p->answers[0] = a;
	p->n_answers++;
	logmsg("answer 0x%02x:0x%02x: answered here (%zu bytes)", a.netfn,
	       a.cmd, a.len);
	evbuffer_add_printf(out, "ok answer answers=%zu\n", p->n_answers);
}

static void ctl_fault(struct proxy *p, int argc, char **argv,
		      struct evbuffer *out)
{
	/* an --on rule runs this with its request's seq in cur_seq */
	const char *why = p->cur_seq >= 0 ? "--on rule" : "control";
	uint64_t ms = 0;
	uint8_t cc;

	if (strcmp(argv[0], "silence") == 0) {
		if (argc == 2 && strcmp(argv[1], "off") == 0) {
			uint64_t n = p->c.swallowed - p->sil_swallowed0;
			uint64_t d = p->c.silent_dropped - p->sil_dropped0;
			bool was = p->silent;

			silence_end(p, why);
			evbuffer_add_printf(out,
					    "ok silence off%s swallowed=%" PRIu64
					    " dropped=%" PRIu64 "\n",
					    was ? "" : " (was not silent)",
					    was ? n : 0, was ? d : 0);
		} else if (argc <= 2 &&
			   (argc == 1 || parse_u64(argv[1], &ms))) {
			silence_begin(p, ms, why);
			evbuffer_add_printf(out, "ok silent %" PRIu64 "\n", ms);
		} else {
			evbuffer_add_printf(out, "err usage: silence [MS] | "
						 "silence off\n");
		}
	} else if (strcmp(argv[0], "busy") == 0) {
		cc = p->busy_cc_opt;
		if (argc == 2 && strcmp(argv[1], "off") == 0) {
			uint64_t n = p->c.busy_answers - p->busy_answers0;
			bool was = p->busy;

			busy_end(p, why);
			evbuffer_add_printf(out,
					    "ok busy off%s answered=%" PRIu64
					    "\n",
					    was ? "" : " (was not busy)",
					    was ? n : 0);
		} else if (argc <= 3 &&
			   (argc == 1 || parse_u64(argv[1], &ms)) &&
			   (argc < 3 || parse_byte(argv[2], 0xff, &cc))) {
			busy_begin(p, ms, cc, why);
			evbuffer_add_printf(out, "ok busy %" PRIu64 " 0x%02x\n",
					    ms, cc);
		} else {
			evbuffer_add_printf(out, "err usage: busy [MS [CC]] | "
						 "busy off\n");
		}
	} else if (argc == 1) { /* wrong: list */
		for (size_t i = 0; i < p->n_wrongs; i++)
			evbuffer_add_printf(
				out,
				"wrong 0x%02x:0x%02x %s left=%" PRIu64
				" used=%" PRIu64 "\n",
				p->wrongs[i].netfn, p->wrongs[i].cmd,
				wrong_what(p->wrongs[i].what),
				p->wrongs[i].left, p->wrongs[i].used);
		evbuffer_add_printf(out,
				    "ok wrong rules=%zu answers=%" PRIu64 "\n",
				    p->n_wrongs, p->c.wrong_answers);
	} else if (argc == 2 && strcmp(argv[1], "off") == 0) {
		evbuffer_add_printf(out, "ok wrong off (%zu removed)\n",
				    p->n_wrongs);
		p->n_wrongs = 0;
		memset(p->wpend, 0, sizeof(p->wpend));
	} else if ((argc == 3 || argc == 4) &&
		   wrong_add(p, argv[1], argv[2], argc == 4 ? argv[3] : NULL)) {
		evbuffer_add_printf(out, "ok wrong %s %s %s\n", argv[1],
				    argv[2], argc == 4 ? argv[3] : "cmd");
	} else {
		evbuffer_add_printf(out,
				    "err usage: wrong NETFN:CMD N "
				    "[cmd|netfn|both] | wrong off | wrong "
				    "(at most %d rules)\n",
				    WRONG_MAX);
	}
}

/* inject-event HEX..., inject-msg HEX..., inject-cmd ..., inject-clear */
static void ctl_inject(struct proxy *p, int argc, char **argv,
		       struct evbuffer *out)
{
	uint8_t buf[SMS_MSG_MAX];
	size_t len = 0;
	int rc = 0;

	if (strcmp(argv[0], "inject-clear") == 0) {
		if (argc != 1) {
			evbuffer_add_printf(out, "err usage: inject-clear\n");
			return;
		}
		evbuffer_add_printf(out, "ok inject-clear dropped=%u\n",
				    inject_clear(p));
		return;
	}
	if (strcmp(argv[0], "inject-cmd") == 0) {
		struct sms_ipmb_req rq = { .rs_sa = 0x20 };
		uint8_t data[SMS_MSG_MAX];
		bool ok = argc >= 5 && parse_byte(argv[1], 0xff, &rq.channel) &&
			  parse_byte(argv[2], 0xff, &rq.rq_sa) &&
			  parse_byte(argv[3], 0x3f, &rq.netfn) &&
			  parse_byte(argv[4], 0xff, &rq.cmd);

		for (int i = 5; ok && i < argc; i++)
			ok = parse_byte(argv[i], 0xff, &data[rq.data_len++]);
		if (!ok) {
			evbuffer_add_printf(out,
					    "err usage: inject-cmd CHAN "
					    "RQSA NETFN CMD [DATA...] (numbers "
					    "in C syntax)\n");
			return;
		}
		rq.data = data;
		rq.rq_seq = p->inj.next_seq;
		p->inj.next_seq = (uint8_t)((p->inj.next_seq + 1) & 0x3F);
		len = sms_ipmb_request(&rq, buf, sizeof(buf));
		rc = len ? sms_inject_msg(&p->inj, buf, len) : -EINVAL;
	} else {
		bool event = strcmp(argv[0], "inject-event") == 0;

		for (int i = 1; !rc && i < argc; i++)
			rc = sms_hex_append(argv[i], buf, sizeof(buf), &len);
		if (argc < 2 || rc || (event && len != SMS_EVENT_LEN)) {
			evbuffer_add_printf(
				out,
				event ? "err usage: inject-event HEX (16 bytes)\n" :
					"err usage: inject-msg HEX (channel byte and "
					"IPMB message, 1-256 bytes)\n");
			return;
		}
		rc = event ? sms_inject_event(&p->inj, buf) :
			     sms_inject_msg(&p->inj, buf, len);
	}
	if (rc) {
		evbuffer_add_printf(out, "err %s\n",
				    rc == -ENOSPC ? "injection queue full" :
						    "bad message");
		return;
	}
	if (strcmp(argv[0], "inject-event") == 0)
		p->c.inj_events++;
	else
		p->c.inj_msgs++;
	if (verbose) {
		char hex[2 * SMS_MSG_MAX + 1];

		for (size_t i = 0; i < len; i++)
			snprintf(hex + 2 * i, 3, "%02x", buf[i]);
		hex[2 * len] = '\0';
		logmsg("inject: %s %s", argv[0], hex);
	}
	inject_raise(p, argv[0] + 7);
	evbuffer_add_printf(out, "ok %s pending_events=%u pending_msgs=%u\n",
			    argv[0], p->inj.ev_count, p->inj.msg_count);
}

static void ctl_client_free(struct proxy *p, struct ctl_client *cl)
{
	TAILQ_REMOVE(&p->ctl_clients, cl, link);
	bufferevent_free(cl->bev);
	free(cl);
}

static const char ctl_help[] =
	"commands:\n"
	"  hold [MS]               hold BMC->host frames (auto-release after MS)\n"
	"  release                 release held frames\n"
	"  drop                    discard queued BMC->host frames\n"
	"  delay SPEC | model SPEC change the delay model\n"
	"  hold-on NETFN CMD [MS]  hold when the host sends this request\n"
	"  hold-on off\n"
	"  hold-after N [MS]       hold before the (N+1)th BMC message\n"
	"  hold-after off\n"
	"  on NETFN:CMD=COMMAND    run COMMAND when the host sends that request\n"
	"  on off | on             remove all / list the on rules\n"
	"  inject-event HEX        queue a 16-byte event, raise SMS_ATN\n"
	"  inject-msg HEX          queue Get Message data (channel, IPMB msg)\n"
	"  inject-cmd CHAN RQSA NETFN CMD [DATA...]\n"
	"                          queue an IPMB request from RQSA\n"
	"  inject-clear            drop the injected items still pending\n"
	"  silence [MS]            no answers (requests swallowed) for MS\n"
	"  silence off             the BMC is back\n"
	"  busy [MS [CC]]          answer every request CC (default 0xc0)\n"
	"  busy off\n"
	"  wrong NETFN:CMD N [cmd|netfn|both]\n"
	"                          the next N answers to it: a wrong cmd/netfn\n"
	"  wrong off | wrong       remove / list the wrong rules\n"
	"  answer NETFN:CMD[/BODY]=HEX  answer it here from now on\n"
	"  answer off NETFN:CMD[/BODY]  forward it again\n"
	"  stats                   print the report\n"
	"  report                  write the report (stderr or --report)\n"
	"  reset-stats             clear counters and samples\n"
	"  ping | help | quit\n";

/* Returns true if the proxy should exit. */
static bool ctl_handle(struct proxy *p, char *line, struct evbuffer *out)
{
	char *argv[CTL_ARGS_MAX] = { 0 };
	int argc = 0;
	char *save = NULL, *tok;
	uint64_t ms = 0;
	const char *w = line + strspn(line, " \t");

	if (verbose)
		logmsg("control: %s", line);
	/* "on" takes the rest of the line as it is */
	if (strncmp(w, "on", 2) == 0 &&
	    (w[2] == '\0' || w[2] == ' ' || w[2] == '\t')) {
		ctl_on(p, w + 2, out);
		return false;
	}
	for (tok = strtok_r(line, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save)) {
		if (argc == CTL_ARGS_MAX) {
			evbuffer_add_printf(out, "err too many arguments\n");
			return false;
		}
		argv[argc++] = tok;
	}
	if (argc == 0)
		return false;

	if (strcmp(argv[0], "hold") == 0) {
		if (argc > 2 || (argc == 2 && !parse_u64(argv[1], &ms))) {
			evbuffer_add_printf(out, "err usage: hold [MS]\n");
			return false;
		}
		hold_begin(p, ms, "control");
		evbuffer_add_printf(out, "ok held queued=%zu\n", p->queued);
	} else if (strcmp(argv[0], "release") == 0) {
		size_t q = p->queued;

		hold_end(p, "control");
		evbuffer_add_printf(out, "ok released %zu\n", q);
	} else if (strcmp(argv[0], "drop") == 0) {
		size_t n = queue_drop_all(p);

		p->c.b2h_dropped_ctl += n;
		logmsg("dropped %zu queued frame(s) (control)", n);
		evbuffer_add_printf(out, "ok dropped %zu\n", n);
	} else if (strcmp(argv[0], "delay") == 0 ||
		   strcmp(argv[0], "model") == 0) {
		struct delay_model m;
		char err[256];

		if (argc != 2) {
			evbuffer_add_printf(out, "err usage: %s SPEC\n",
					    argv[0]);
		} else if (delay_model_parse(argv[1], &m, err, sizeof(err))) {
			evbuffer_add_printf(out, "err %s\n", err);
		} else {
			p->model = m;
			logmsg("delay model now %s", m.spec);
			evbuffer_add_printf(out, "ok delay %s\n", m.spec);
		}
	} else if (strcmp(argv[0], "hold-on") == 0) {
		if (argc == 2 && strcmp(argv[1], "off") == 0) {
			p->hold_on_armed = false;
			evbuffer_add_printf(out, "ok hold-on off\n");
		} else if ((argc == 3 || argc == 4) &&
			   parse_netfn_cmd(argv[1], argv[2], &p->hold_on_netfn,
					   &p->hold_on_cmd) &&
			   (argc == 3 || parse_u64(argv[3], &ms))) {
			p->hold_on_armed = true;
			p->hold_on_ms = argc == 4 ? ms : p->hold_for_ms;
			evbuffer_add_printf(out,
					    "ok hold-on 0x%02x 0x%02x %" PRIu64
					    "\n",
					    p->hold_on_netfn, p->hold_on_cmd,
					    p->hold_on_ms);
		} else {
			evbuffer_add_printf(out, "err usage: hold-on NETFN CMD "
						 "[MS] | hold-on off\n");
		}
	} else if (strcmp(argv[0], "hold-after") == 0) {
		uint64_t n;

		if (argc == 2 && strcmp(argv[1], "off") == 0) {
			p->hold_after = -1;
			evbuffer_add_printf(out, "ok hold-after off\n");
		} else if ((argc == 2 || argc == 3) && parse_u64(argv[1], &n) &&
			   n < LONG_MAX &&
			   (argc == 2 || parse_u64(argv[2], &ms))) {
			p->hold_after = (long)n;
			p->hold_after_ms = argc == 3 ? ms : p->hold_for_ms;
			evbuffer_add_printf(out,
					    "ok hold-after %ld %" PRIu64 "\n",
					    p->hold_after, p->hold_after_ms);
		} else {
			evbuffer_add_printf(out, "err usage: hold-after N [MS] "
						 "| hold-after off\n");
		}
	} else if (strncmp(argv[0], "inject-", 7) == 0 &&
		   (strcmp(argv[0] + 7, "event") == 0 ||
		    strcmp(argv[0] + 7, "msg") == 0 ||
		    strcmp(argv[0] + 7, "cmd") == 0 ||
		    strcmp(argv[0] + 7, "clear") == 0)) {
		ctl_inject(p, argc, argv, out);
	} else if (strcmp(argv[0], "silence") == 0 ||
		   strcmp(argv[0], "busy") == 0 ||
		   strcmp(argv[0], "wrong") == 0) {
		ctl_fault(p, argc, argv, out);
	} else if (strcmp(argv[0], "answer") == 0) {
		ctl_answer(p, argc, argv, out);
	} else if (strcmp(argv[0], "stats") == 0) {
		report_build(p, out);
		evbuffer_add_printf(out, "ok\n");
	} else if (strcmp(argv[0], "report") == 0) {
		report_emit(p, false);
		evbuffer_add_printf(out, "ok\n");
	} else if (strcmp(argv[0], "reset-stats") == 0) {
		stats_reset(p);
		evbuffer_add_printf(out, "ok\n");
	} else if (strcmp(argv[0], "ping") == 0) {
		evbuffer_add_printf(out, "ok pong\n");
	} else if (strcmp(argv[0], "help") == 0) {
		evbuffer_add(out, ctl_help, sizeof(ctl_help) - 1);
		evbuffer_add_printf(out, "ok\n");
	} else if (strcmp(argv[0], "quit") == 0) {
		evbuffer_add_printf(out, "ok bye\n");
		return true;
	} else {
		evbuffer_add_printf(out,
				    "err unknown command '%s' (try help)\n",
				    argv[0]);
	}
	return false;
}

/* Once the "ok bye" reply has left, stop the loop. */
static void ctl_quit_write_cb(struct bufferevent *bev, void *arg)
{
	struct ctl_client *cl = arg;

	(void)bev;
	event_base_loopbreak(cl->p->base);
}

static void ctl_read_cb(struct bufferevent *bev, void *arg)
{
	struct ctl_client *cl = arg;
	struct proxy *px = cl->p;
	struct evbuffer *in = bufferevent_get_input(bev);
	struct evbuffer *out = bufferevent_get_output(bev);
	char *line;
	size_t n;

	while ((line = evbuffer_readln(in, &n, EVBUFFER_EOL_CRLF))) {
		bool quit = ctl_handle(px, line, out);

		free(line);
		if (quit) {
			struct timeval tv = { 1, 0 };

			logmsg("quit requested on the control port");
			px->exit_code = 0;
			bufferevent_disable(bev, EV_READ);
			/* leave once the reply is flushed (at most 1 s) */
			bufferevent_setcb(bev, NULL, ctl_quit_write_cb,
					  ctl_event_cb, cl);
			event_base_loopexit(px->base, &tv);
			return;
		}
	}
	if (evbuffer_get_length(in) > CTL_LINE_MAX) {
		logmsg("control: line too long, closing client");
		ctl_client_free(px, cl);
	}
}

static void ctl_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct ctl_client *cl = arg;

	(void)bev;
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
		ctl_client_free(cl->p, cl);
}

static void ctl_accept_cb(evutil_socket_t lfd, short what, void *arg)
{
	struct proxy *p = arg;
	struct ctl_client *cl;
	int fd;

	(void)what;
	fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
	cl = calloc(1, sizeof(*cl));
	if (!cl) {
		close(fd);
		return;
	}
	cl->p = p;
	cl->bev = bufferevent_socket_new(p->base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (!cl->bev) {
		close(fd);
		free(cl);
		return;
	}
	TAILQ_INSERT_TAIL(&p->ctl_clients, cl, link);
	bufferevent_setcb(cl->bev, ctl_read_cb, NULL, ctl_event_cb, cl);
	bufferevent_enable(cl->bev, EV_READ | EV_WRITE);
}

/* ------------------------------------------------------------------ */
/* signals */

static void signal_cb(evutil_socket_t sig, short what, void *arg)
{
	struct proxy *p = arg;

	(void)what;
	switch (sig) {
	case SIGTERM:
	case SIGINT:
		logmsg("%s received, exiting",
		       sig == SIGTERM ? "SIGTERM" : "SIGINT");
		p->exit_code = 0;
		event_base_loopbreak(p->base);
		break;
	case SIGUSR1:
		if (p->hold)
			hold_end(p, "SIGUSR1");
		else
			hold_begin(p, 0, "SIGUSR1");
		break;
	case SIGUSR2:
		report_emit(p, true);
		break;
	}
}

/* ------------------------------------------------------------------ */
/* setup */

static int listen_on(uint16_t port, uint16_t *bound)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	int one = 1;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 8) ||
	    getsockname(fd, (struct sockaddr *)&sa, &sl)) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	*bound = ntohs(sa.sin_port);
	return fd;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " --bmc PORT [options]\n"
		"  --listen PORT      port QEMU's chardev connects to on 127.0.0.1\n"
		"                     (default 0: pick a free one); prints\n"
		"                     \"listening on PORT\" on stdout when ready\n"
		"  --bmc PORT         ipmi_sim's VM-codec port on 127.0.0.1\n"
		"  --delay SPEC       fixed:US | uniform:MIN-MAX | table:FILE |\n"
		"                     seed | none   (default seed)\n"
		"  --seed N           RNG seed (default 1)\n"
		"  --control PORT     text control port on 127.0.0.1 (0: free\n"
		"                     port, printed as \"control on PORT\")\n"
		"  --hold             start with the BMC held\n"
		"  --hold-on NETFN:CMD  hold when the host sends this request\n"
		"  --hold-after N     hold before the (N+1)th BMC message\n"
		"  --hold-for MS      auto-release triggered holds after MS\n"
		"  --on NETFN:CMD=COMMAND  run a control command (e.g. model\n"
		"                     fixed:3000, inject-event HEX, hold 1500) when\n"
		"                     the host sends this request; repeatable;\n"
		"                     commas in COMMAND act as spaces\n"
		"  --answer NETFN:CMD[/BODY]=HEX  answer this request here\n"
		"                     (BODY: its first data byte) with these\n"
		"                     bytes, completion code first; repeatable\n"
		"  --silent-for MS    no answers for the first MS ms: requests\n"
		"                     swallowed (QEMU answers 0xc3 after 4 s)\n"
		"  --busy-for MS      answer every request --busy-cc for MS ms\n"
		"  --busy-cc CC       completion code when busy (default 0xc0)\n"
		"  --from-connect     --silent-for/--busy-for count from QEMU's\n"
		"                     first connection (power-on), not the start\n"
		"  --wrong NETFN:CMD=N[,cmd|netfn|both]  the next N answers to\n"
		"                     this request carry a wrong cmd (or netfn)\n"
		"  --watchdog         play the BMC's watchdog timer here (Set,\n"
		"                     Reset, Get Watchdog Timer; the timeout's\n"
		"                     reset or power-off through QEMU)\n"
		"  --qemu-timeout MS  answer 0xc3 here after MS (default 3900;\n"
		"                     0: off) to a request with seq 0xa0, 0xa1\n"
		"                     or 0xaa nothing answered: QEMU's own 4 s\n"
		"                     timeout loses those (docs/bmc-proxy.md)\n"
		"  --report FILE      write the exit report to FILE\n"
		"  --log-requests FILE one line per request passed to the BMC:\n"
		"                     NETFN CMD DATA... in hex (vm.daemon-oracle)\n"
		"  --retry-ms MS      BMC reconnect interval (default 100)\n"
		"  --spin US          busy-wait the last US of each delay\n"
		"  --timer-slack NS   process timer slack (default 1; 0 = keep)\n"
		"  -v, --verbose      log every frame\n"
		"signals: SIGUSR1 toggles hold, SIGUSR2 prints the report,\n"
		"SIGTERM/SIGINT print the report and exit 0.\n");
}

static bool opt_port(const char *s, uint16_t *port)
{
	uint64_t v;

	if (!parse_u64(s, &v) || v > 65535)
		return false;
	*port = (uint16_t)v;
	return true;
}

enum {
	OPT_LISTEN = 256,
	OPT_BMC,
	OPT_DELAY,
	OPT_SEED,
	OPT_CONTROL,
	OPT_HOLD,
	OPT_HOLD_ON,
	OPT_HOLD_AFTER,
	OPT_HOLD_FOR,
	OPT_ON,
	OPT_ANSWER,
	OPT_REPORT,
	OPT_RETRY,
	OPT_SPIN,
	OPT_SLACK,
	OPT_LOG_REQUESTS,
	OPT_SILENT_FOR,
	OPT_BUSY_FOR,
	OPT_BUSY_CC,
	OPT_FROM_CONNECT,
	OPT_WRONG,
	OPT_WATCHDOG,
	OPT_QEMU_TIMEOUT,
};

static int parse_args(struct proxy *p, int argc, char **argv, bool *start_held)
{
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, OPT_LISTEN },
		{ "bmc", required_argument, NULL, OPT_BMC },
		{ "delay", required_argument, NULL, OPT_DELAY },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "control", required_argument, NULL, OPT_CONTROL },
		{ "hold", no_argument, NULL, OPT_HOLD },
		{ "hold-on", required_argument, NULL, OPT_HOLD_ON },
		{ "hold-after", required_argument, NULL, OPT_HOLD_AFTER },
		{ "hold-for", required_argument, NULL, OPT_HOLD_FOR },
		{ "on", required_argument, NULL, OPT_ON },
		{ "answer", required_argument, NULL, OPT_ANSWER },
		{ "report", required_argument, NULL, OPT_REPORT },
		{ "retry-ms", required_argument, NULL, OPT_RETRY },
		{ "spin", required_argument, NULL, OPT_SPIN },
		{ "timer-slack", required_argument, NULL, OPT_SLACK },
		{ "log-requests", required_argument, NULL, OPT_LOG_REQUESTS },
		{ "silent-for", required_argument, NULL, OPT_SILENT_FOR },
		{ "busy-for", required_argument, NULL, OPT_BUSY_FOR },
		{ "busy-cc", required_argument, NULL, OPT_BUSY_CC },
		{ "from-connect", no_argument, NULL, OPT_FROM_CONNECT },
		{ "wrong", required_argument, NULL, OPT_WRONG },
		{ "watchdog", no_argument, NULL, OPT_WATCHDOG },
		{ "qemu-timeout", required_argument, NULL, OPT_QEMU_TIMEOUT },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	bool have_bmc = false;
	char err[256];
	uint64_t v;
	int o;

	while ((o = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
		switch (o) {
		case OPT_LISTEN:
			if (!opt_port(optarg, &p->listen_port))
				goto bad;
			break;
		case OPT_BMC:
			if (!opt_port(optarg, &p->bmc_port) || !p->bmc_port)
				goto bad;
			have_bmc = true;
			break;
		case OPT_DELAY:
			if (delay_model_parse(optarg, &p->model, err,
					      sizeof(err))) {
				logmsg("--delay: %s", err);
				return -1;
			}
			break;
		case OPT_SEED:
			if (!parse_u64(optarg, &p->seed))
				goto bad;
			break;
		case OPT_CONTROL:
			if (!opt_port(optarg, &p->ctl_port))
				goto bad;
			p->want_ctl = true;
			break;
		case OPT_HOLD:
			*start_held = true;
			break;
		case OPT_HOLD_ON: {
			char a[32], *colon;

			snprintf(a, sizeof(a), "%s", optarg);
			colon = strchr(a, ':');
			if (!colon)
				goto bad;
			*colon = '\0';
			if (!parse_netfn_cmd(a, colon + 1, &p->hold_on_netfn,
					     &p->hold_on_cmd))
				goto bad;
			p->hold_on_armed = true;
			break;
		}
		case OPT_HOLD_AFTER:
			if (!parse_u64(optarg, &v) || v >= LONG_MAX)
				goto bad;
			p->hold_after = (long)v;
			break;
		case OPT_HOLD_FOR:
			if (!parse_u64(optarg, &p->hold_for_ms))
				goto bad;
			break;
		case OPT_ON:
			if (!rule_add(p, optarg, err, sizeof(err))) {
				logmsg("--on '%s': %s", optarg, err);
				return -1;
			}
			break;
		case OPT_ANSWER:
			if (p->n_answers >= ANSWERS_MAX ||
			    !answer_parse(optarg, &p->answers[p->n_answers])) {
				logmsg("--answer '%s': expected NETFN:CMD[/BODY]"
				       "=HEX... (cc first), at most %d",
				       optarg, ANSWERS_MAX);
				return -1;
			}
			p->n_answers++;
			break;
		case OPT_REPORT:
			p->report_path = optarg;
			break;
		case OPT_SILENT_FOR:
			if (!parse_u64(optarg, &p->silent_for_ms) ||
			    !p->silent_for_ms)
				goto bad;
			break;
		case OPT_BUSY_FOR:
			if (!parse_u64(optarg, &p->busy_for_ms) ||
			    !p->busy_for_ms)
				goto bad;
			break;
		case OPT_BUSY_CC:
			if (!parse_byte(optarg, 0xff, &p->busy_cc_opt))
				goto bad;
			break;
		case OPT_FROM_CONNECT:
			p->from_connect = true;
			break;
		case OPT_WATCHDOG:
			p->wdt_on = true;
			break;
		case OPT_QEMU_TIMEOUT:
			if (!parse_u64(optarg, &p->qemu_timeout_ms))
				goto bad;
			break;
		case OPT_WRONG: {
			char key[64], *eq, *what;

			snprintf(key, sizeof(key), "%s", optarg);
			eq = strchr(key, '=');
			if (!eq)
				goto bad;
			*eq++ = '\0';
			what = strchr(eq, ',');
			if (what)
				*what++ = '\0';
			if (!wrong_add(p, key, eq, what))
				goto bad;
			break;
		}
		case OPT_LOG_REQUESTS:
			p->reqlog = fopen(optarg, "w");
			if (!p->reqlog) {
				logmsg("--log-requests %s: %s", optarg,
				       strerror(errno));
				return -1;
			}
			break;
		case OPT_RETRY:
			if (!parse_u64(optarg, &v) || v == 0 || v > 60000)
				goto bad;
			p->retry_ms = (unsigned)v;
			break;
		case OPT_SPIN:
			if (!parse_u64(optarg, &v) || v > 100000)
				goto bad;
			p->spin_ns = v * 1000;
			break;
		case OPT_SLACK:
			if (!parse_u64(optarg, &v) || v > 1000000000)
				goto bad;
			p->timer_slack_req = (long)v;
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
		continue;
bad:
		logmsg("invalid value '%s' for an option", optarg);
		return -1;
	}
	if (optind < argc) {
		logmsg("unexpected argument '%s'", argv[optind]);
		return -1;
	}
	if (!have_bmc) {
		logmsg("--bmc PORT is required");
		usage(stderr);
		return -1;
	}
	p->hold_on_ms = p->hold_for_ms;
	p->hold_after_ms = p->hold_for_ms;
	return 0;
}

static void proxy_free(struct proxy *p)
{
	struct ctl_client *cl;

	queue_drop_all(p);
	conn_close(p, &p->qemu);
	conn_close(p, &p->bmc);
	if (p->qemu.out)
		evbuffer_free(p->qemu.out);
	if (p->bmc.out)
		evbuffer_free(p->bmc.out);
	while ((cl = TAILQ_FIRST(&p->ctl_clients)))
		ctl_client_free(p, cl);
	for (size_t i = 0; i < sizeof(p->sig_ev) / sizeof(p->sig_ev[0]); i++)
		if (p->sig_ev[i])
			event_free(p->sig_ev[i]);
	if (p->listen_ev)
		event_free(p->listen_ev);
	if (p->ctl_ev)
		event_free(p->ctl_ev);
	if (p->listen_fd >= 0)
		close(p->listen_fd);
	if (p->ctl_fd >= 0)
		close(p->ctl_fd);
	if (p->deliver_ev)
		event_free(p->deliver_ev);
	if (p->release_ev)
		event_free(p->release_ev);
	if (p->bmc_retry_ev)
		event_free(p->bmc_retry_ev);
	if (p->silence_ev)
		event_free(p->silence_ev);
	if (p->wdt_ev)
		event_free(p->wdt_ev);
	if (p->pend_ev)
		event_free(p->pend_ev);
	if (p->busy_ev)
		event_free(p->busy_ev);
	dm_samples_free(&p->delays);
	dm_samples_free(&p->lateness);
	if (p->base)
		event_base_free(p->base);
}

int main(int argc, char **argv)
{
	static struct proxy px;
	struct proxy *p = &px;
	struct event_config *cfg;
	static const int sigs[4] = { SIGTERM, SIGINT, SIGUSR1, SIGUSR2 };
	bool start_held = false;
	uint16_t port;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);

	p->listen_fd = p->ctl_fd = -1;
	p->qemu.fd = p->bmc.fd = -1;
	p->qemu.name = "qemu";
	p->bmc.name = "bmc";
	p->retry_ms = 100;
	p->seed = 1;
	p->timer_slack_req = 1;
	p->hold_after = -1;
	p->exit_code = 1;
	p->spare_seq = p->cur_seq = p->pend_seq = -1;
	p->qemu_timeout_ms = 3900;
	p->busy_cc_opt = 0xc0;
	TAILQ_INIT(&p->queue);
	TAILQ_INIT(&p->ctl_clients);
	vm_parser_init(&p->qemu.parser);
	vm_parser_init(&p->bmc.parser);
	dm_samples_init(&p->delays);
	dm_samples_init(&p->lateness);
	delay_model_seed(&p->model);
	sms_inject_init(&p->inj);

	if (parse_args(p, argc, argv, &start_held))
		return 2;
	dm_rng_seed(&p->rng, p->seed);
	if (p->timer_slack_req > 0 &&
	    prctl(PR_SET_TIMERSLACK, (unsigned long)p->timer_slack_req, 0, 0,
		  0))
		logmsg("PR_SET_TIMERSLACK: %s", strerror(errno));

	/* precise timers: libevent then uses CLOCK_MONOTONIC and a timerfd
	 * (epoll alone only has millisecond timeouts) */
	cfg = event_config_new();
	if (!cfg)
		return 1;
	event_config_set_flag(cfg, EVENT_BASE_FLAG_PRECISE_TIMER);
	p->base = event_base_new_with_config(cfg);
	event_config_free(cfg);
	if (!p->base) {
		logmsg("cannot create event base");
		return 1;
	}
	p->qemu.out = evbuffer_new();
	p->bmc.out = evbuffer_new();
	p->deliver_ev = evtimer_new(p->base, deliver_cb, p);
	p->release_ev = evtimer_new(p->base, release_cb, p);
	p->bmc_retry_ev = evtimer_new(p->base, bmc_retry_cb, p);
	p->silence_ev = evtimer_new(p->base, silence_cb, p);
	p->busy_ev = evtimer_new(p->base, busy_cb, p);
	p->wdt_ev = evtimer_new(p->base, wdt_cb, p);
	p->pend_ev = evtimer_new(p->base, pend_cb, p);
	if (!p->qemu.out || !p->bmc.out || !p->deliver_ev || !p->release_ev ||
	    !p->bmc_retry_ev || !p->silence_ev || !p->busy_ev || !p->wdt_ev ||
	    !p->pend_ev)
		goto fail;
	for (size_t i = 0; i < 4; i++) {
		p->sig_ev[i] = evsignal_new(p->base, sigs[i], signal_cb, p);
		if (!p->sig_ev[i] || event_add(p->sig_ev[i], NULL))
			goto fail;
	}

	if (p->want_ctl) {
		p->ctl_fd = listen_on(p->ctl_port, &port);
		if (p->ctl_fd < 0) {
			logmsg("control port %u: %s", p->ctl_port,
			       strerror(errno));
			goto fail;
		}
		p->ctl_port = port;
		p->ctl_ev = event_new(p->base, p->ctl_fd, EV_READ | EV_PERSIST,
				      ctl_accept_cb, p);
		if (!p->ctl_ev || event_add(p->ctl_ev, NULL))
			goto fail;
	}
	p->listen_fd = listen_on(p->listen_port, &port);
	if (p->listen_fd < 0) {
		logmsg("listen port %u: %s", p->listen_port, strerror(errno));
		goto fail;
	}
	p->listen_port = port;
	p->listen_ev = event_new(p->base, p->listen_fd, EV_READ | EV_PERSIST,
				 accept_cb, p);
	if (!p->listen_ev || event_add(p->listen_ev, NULL))
		goto fail;

	p->start_ns = mono_ns();
	if (start_held)
		hold_begin(p, 0, "--hold");
	if (!p->from_connect)
		faults_at_start(p, "from start");
	{
		char desc[160];

		delay_model_describe(&p->model, desc, sizeof(desc));
		logmsg("delay model %s (%s), seed %" PRIu64, p->model.spec,
		       desc, p->seed);
	}
	bmc_try_connect(p);
	if (p->want_ctl)
		printf("control on %u\n", p->ctl_port);
	printf("listening on %u\n", p->listen_port);

	event_base_dispatch(p->base);

	report_emit(p, p->report_path == NULL);
	proxy_free(p);
	return p->exit_code;

fail:
	logmsg("setup failed");
	proxy_free(p);
	return 1;
}
