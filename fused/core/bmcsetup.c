// SPDX-License-Identifier: GPL-2.0
/*
 * bmcsetup.c - what the stock drivers do to an interface they take over,
 * for a raw KCS (on a backend that bridges, the kernel's ipmidev or kcsraw
 * in SMI mode, the kernel keeps the enables; the media are scanned there
 * too, so that a SEND fails at once as on stock):
 *
 *  - BMC global enables (ipmi_si_intf.c): at start, read-modify-write so
 *    that the event message buffer is on, and with an IRQ also the receive
 *    message and event buffer full interrupts (atn_global_enables); then
 *    checked again every second while anyone waits for events or incoming
 *    commands (the stock driver checks on each of its once-a-second event
 *    fetches, so a BMC that reset itself gets them back), and within a
 *    second after the interface was hosed or a client's Cold/Warm Reset
 *    was answered; never while the BMC is in maintenance mode (core/maint.h:
 *    the check waits for its end, as stock polls no events meanwhile).
 *    A BMC that refuses the event buffer is not asked for it again.
 *  - Channel media (ipmi_msghandler.c's channel scan): Get Channel Info for
 *    channels 0-15 at start (unless a graceful restart handed over a
 *    complete scan's media: cuse/handover.c); IPMB requests go out only on IPMB channels
 *    (ipmi_check_request: -EINVAL otherwise) and incoming messages are
 *    classified by their channel's medium. Until the scan is over, IPMB
 *    and LAN requests get -EAGAIN (the stock device does not exist yet
 *    at that point). Scanned again, as stock, when the BMC's identity
 *    changes (a firmware update: bmc_setup_identity); and, unlike stock,
 *    which leaves such a channel unknown until then, BMC_RESCAN_MS after
 *    a scan in which a channel answered "not now" (busy, initializing, a
 *    timeout), up to BMC_RESCAN_TRIES times. A rescan keeps the media it
 *    does not learn anew, so requests are never refused meanwhile.
 *
 * The state is the daemon's (struct bmc_setup, d->bs); whether anyone waits
 * for events or commands the front end answers (d->up->waiters).
 */
#include <errno.h>
#include <string.h>

#include <event2/event.h>

#include "backend/backend.h"
#include "core/atn.h"
#include "core/core.h"
#include "core/xact.h"
#include "util/log.h"

static bool queue(struct daemon *d, const uint8_t *req, size_t len,
		  void (*done)(struct xact *, int, const uint8_t *,
			       unsigned int),
		  void *priv)
{
	struct xact *x = xact_new(d, NULL);

	if (!x)
		return false;
	memcpy(x->req, req, len);
	x->req_len = (uint16_t)len;
	x->done = done;
	x->priv = priv;
	if (xact_enqueue(x) < 0) {
		xact_free(x);
		return false;
	}
	return true;
}

static uint8_t want(struct daemon *d)
{
	return atn_global_enables(d->bs.evbuf, d->be->irq != 0);
}

static void enables_next(struct daemon *d)
{
	d->bs.checking = false;
}

static void set_done(struct xact *x, int status, const uint8_t *resp,
		     unsigned int len)
{
	struct daemon *d = x->d;
	uint8_t asked = (uint8_t)(uintptr_t)x->priv;

	xact_free(x);
	if (status || len < 3 || resp[2] != 0) {
		log_warn("BMC refused Set BMC Global Enables 0x%02x (cc 0x%02x)",
			 asked, status || len < 3 ? 0xff : resp[2]);
		if (d->bs.evbuf && (asked & ATN_GE_EVT_MSG_BUFF)) {
			d->bs.evbuf = false; /* as stock: no event buffer */
			log_warn("no event message buffer: the BMC's events "
				 "reach clients only if it raises SMS_ATN");
		}
	} else {
		log_info("BMC global enables set to 0x%02x", asked);
	}
	enables_next(d);
}

static void get_done(struct xact *x, int status, const uint8_t *resp,
		     unsigned int len)
{
	struct daemon *d = x->d;
	uint8_t req[3] = { IPMI_NETFN_APP_REQUEST << 2,
			   IPMI_SET_BMC_GLOBAL_ENABLES_CMD, 0 };
	int v = status ? -EIO : atn_enables_fix(resp, len, want(d));

	xact_free(x);
	if (v == -EIO)
		log_ratelimited(&d->bs.rl_get, LOG_WARNING,
				"Get BMC Global Enables failed");
	if (v >= 0) {
		req[2] = (uint8_t)v;
		if (queue(d, req, sizeof(req), set_done,
			  (void *)(uintptr_t)req[2]))
			return;
	}
	enables_next(d);
}

static void check_now(struct daemon *d)
{
	static const uint8_t req[2] = { IPMI_NETFN_APP_REQUEST << 2,
					IPMI_GET_BMC_GLOBAL_ENABLES_CMD };

	if (!d->bs.checking)
		d->bs.checking = queue(d, req, sizeof(req), get_done, NULL);
}

/* At the next tick (at most one check a second, so a BMC that stays
 * hosed is not hammered). */
void bmc_setup_recheck(struct daemon *d)
{
	if (d->bs.on)
		d->bs.pending = true;
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
	struct daemon *d = arg;

	(void)fd;
	(void)what;
	/* In maintenance mode the BMC may be resetting: no polling (a
	 * pending check waits for the end). */
	if (maint_quiet(&d->maint, now_ns())) {
		d->maint.quiet_ticks++;
		return;
	}
	/* Does anyone wait for what the BMC raises by itself? */
	if (d->bs.pending || d->up->waiters(d)) {
		d->bs.pending = false;
		check_now(d);
	}
}

#define BMC_RESCAN_MS	 5000
#define BMC_RESCAN_TRIES 6

static void scan_start(struct daemon *d);

/* A Get Channel Info answer that means "not now", not "no such channel". */
static bool chan_not_now(int status, const uint8_t *resp, unsigned int len)
{
	if (status || !resp || len < 3)
		return true;
	switch (resp[2]) {
	case 0xc0: /* node busy */
	case 0xc3: /* timeout */
	case 0xce: /* cannot provide a response */
	case 0xd2: /* initializing */
	case 0xff: /* the driver's made-up answer: the BMC was away */
		return true;
	}
	return false;
}

static void scan_end(struct daemon *d)
{
	struct bmc_setup *bs = &d->bs;
	struct timeval tv;

	if (bs->scan_nosys) { /* no Get Channel Info: one IPMB, channel 0 */
		memset(bs->scan_media, 0, sizeof(bs->scan_media));
		bs->scan_media[0] = IPMI_CHANNEL_MEDIUM_IPMB;
	}
	memcpy(d->media, bs->scan_media, sizeof(d->media));
	d->media_ready = true;
	bs->scanned = true;
	log_info("channel media 0-15: %02x %02x %02x %02x %02x %02x %02x %02x "
		 "%02x %02x %02x %02x %02x %02x %02x %02x",
		 d->media[0], d->media[1], d->media[2], d->media[3],
		 d->media[4], d->media[5], d->media[6], d->media[7],
		 d->media[8], d->media[9], d->media[10], d->media[11],
		 d->media[12], d->media[13], d->media[14], d->media[15]);
	if (bs->scan_again) {
		bs->scan_again = false;
		scan_start(d);
		return;
	}
	if (!bs->scan_busy) {
		bs->scan_tries = 0;
		return;
	}
	if (bs->scan_tries >= BMC_RESCAN_TRIES || !bs->rescan) {
		log_warn("channels 0x%04x never answered Get Channel Info: "
			 "IPMB and LAN requests to them fail (EINVAL) until "
			 "the BMC's identity changes or kcsmuxd restarts",
			 bs->scan_busy);
		return;
	}
	bs->scan_tries++;
	log_info("channels 0x%04x answered Get Channel Info \"not now\": "
		 "asked again in %u ms (%u of %u)",
		 bs->scan_busy, bs->rescan_ms, bs->scan_tries,
		 BMC_RESCAN_TRIES);
	tv.tv_sec = bs->rescan_ms / 1000;
	tv.tv_usec = (bs->rescan_ms % 1000) * 1000;
	evtimer_add(bs->rescan, &tv);
}

static void chan_done(struct xact *x, int status, const uint8_t *resp,
		      unsigned int len)
{
	struct daemon *d = x->d;
	struct bmc_setup *bs = &d->bs;
	unsigned int ch = (unsigned int)(uintptr_t)x->priv;
	uint8_t m = 0;
	int rv = status ? -EIO : atn_channel_medium(resp, len, &m);

	xact_free(x);
	if (ch < ABI_MAX_CHANNELS) {
		/* "not now" keeps what an earlier scan learnt */
		if (rv == 0)
			bs->scan_media[ch] = m;
		else if (rv != -ENOSYS && chan_not_now(status, resp, len))
			bs->scan_busy |= (uint16_t)(1u << ch);
		else
			bs->scan_media[ch] = 0;
	}
	if (ch == 0 && rv == -ENOSYS)
		bs->scan_nosys = true;
	if (bs->scan_left && --bs->scan_left)
		return;
	scan_end(d);
}

/* Get Channel Info for channels 0-15; the media in use stay until the
 * answers are in. */
static void scan_start(struct daemon *d)
{
	struct bmc_setup *bs = &d->bs;

	if (d->media_ready)
		memcpy(bs->scan_media, d->media, sizeof(bs->scan_media));
	else
		memset(bs->scan_media, 0, sizeof(bs->scan_media));
	bs->scan_nosys = false;
	bs->scan_busy = 0;
	bs->scan_left = ABI_MAX_CHANNELS;
	for (unsigned int ch = 0; ch < ABI_MAX_CHANNELS; ch++) {
		uint8_t req[3] = { IPMI_NETFN_APP_REQUEST << 2,
				   IPMI_GET_CHANNEL_INFO_CMD, (uint8_t)ch };

		if (!queue(d, req, sizeof(req), chan_done,
			   (void *)(uintptr_t)ch))
			bs->scan_left--;
	}
	if (!bs->scan_left) {
		d->media_ready = true; /* no memory: checks skipped */
		bs->scanned = true;
	}
}

static void rescan_cb(evutil_socket_t fd, short what, void *arg)
{
	struct daemon *d = arg;

	(void)fd;
	(void)what;
	if (d->bs.scan_left) {
		d->bs.scan_again = true;
		return;
	}
	d->bs.rescans++;
	scan_start(d);
}

/*
 * A Get Device ID answer (anyone's) that says the BMC is not the one it
 * was (firmware, device or IPMI version, maker, product; not the "update
 * in progress" bit): scan the channels again, as stock does.
 */
void bmc_setup_identity(struct daemon *d, const uint8_t *was,
			const uint8_t *now)
{
	struct bmc_setup *bs = &d->bs;

	if ((was[2] & 0x7f) == (now[2] & 0x7f) && memcmp(was, now, 2) == 0 &&
	    memcmp(was + 3, now + 3, 8) == 0)
		return;
	log_msg(LOG_NOTICE,
		"BMC identity changed: device 0x%02x rev %u firmware "
		"%u.%02x -> device 0x%02x rev %u firmware %u.%02x; "
		"channels scanned again",
		was[0], was[1] & 0x0f, was[2] & 0x7f, was[3], now[0],
		now[1] & 0x0f, now[2] & 0x7f, now[3]);
	if (!bs->scanned || !bs->rescan)
		return;
	bs->scan_tries = 0;
	evtimer_del(bs->rescan);
	rescan_cb(-1, 0, d);
}

void bmc_setup_start(struct daemon *d)
{
	struct bmc_setup *bs = &d->bs;
	struct timeval one = { 1, 0 };

	/* The stock driver underneath keeps the enables; the media are
	 * scanned on every backend, for the SEND checks (client_send). */
	if (!d->be->bridges) {
		bs->on = true;
		bs->evbuf = true;
		check_now(d);
	}
	if (!bs->rescan_ms)
		bs->rescan_ms = BMC_RESCAN_MS;
	bs->rescan = evtimer_new(d->base, rescan_cb, d);
	/* a graceful restart may hand over the media scanned before */
	if (!bs->scanned)
		scan_start(d);
	if (d->be->bridges)
		return;
	bs->tick = event_new(d->base, -1, EV_PERSIST, on_tick, d);
	if (bs->tick)
		event_add(bs->tick, &one);
}

void bmc_setup_fini(struct daemon *d)
{
	if (d->bs.tick)
		event_free(d->bs.tick);
	d->bs.tick = NULL;
	if (d->bs.rescan)
		event_free(d->bs.rescan);
	d->bs.rescan = NULL;
	d->bs.on = false;
}
