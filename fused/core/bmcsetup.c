// SPDX-License-Identifier: GPL-2.0
/*
 * bmcsetup.c - what the stock drivers do to an interface they take over,
 * for a raw KCS (on backend = ipmidev the kernel does all of it):
 *
 *  - BMC global enables (ipmi_si_intf.c): at start, read-modify-write so
 *    that the event message buffer is on, and with an IRQ also the receive
 *    message and event buffer full interrupts (atn_global_enables); then
 *    checked again every second while anyone waits for events or incoming
 *    commands (the stock driver checks on each of its once-a-second event
 *    fetches, so a BMC that reset itself gets them back), and within a
 *    second after the interface was hosed or a client's Cold/Warm Reset
 *    was answered.
 *    A BMC that refuses the event buffer is not asked for it again.
 *  - Channel media (ipmi_msghandler.c's channel scan): Get Channel Info for
 *    channels 0-15 at start; IPMB requests go out only on IPMB channels
 *    (abi_check_request: -EINVAL otherwise) and incoming messages are
 *    classified by their channel's medium. Until the scan is over, IPMB
 *    and LAN requests get -EAGAIN (the stock device does not exist yet
 *    at that point).
 */
#include <errno.h>
#include <string.h>

#include <event2/event.h>

#include "core/atn.h"
#include "backend/backend.h"
#include "kcsmuxd.h"
#include "util/log.h"
#include "core/xact.h"

static struct daemon *dmn;
static struct event *tick;
static bool evbuf = true;	/* the BMC took the event buffer bit */
static bool checking;		/* a Get/Set Global Enables is out */
static bool pending;		/* check at the next tick (hosed, reset) */
static uint8_t scan_media[ABI_MAX_CHANNELS];
static unsigned int scan_left;
static bool scan_nosys;
static struct log_rl rl_get;

static bool queue(const uint8_t *req, size_t len,
		  void (*done)(struct xact *, int, const uint8_t *,
			       unsigned int), void *priv)
{
	struct xact *x = xact_new(dmn, NULL, NULL);

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

static uint8_t want(void)
{
	return atn_global_enables(evbuf, dmn->be->irq != 0);
}

static void enables_next(void)
{
	checking = false;
}

static void set_done(struct xact *x, int status, const uint8_t *resp,
		     unsigned int len)
{
	uint8_t asked = (uint8_t)(uintptr_t)x->priv;

	xact_free(x);
	if (status || len < 3 || resp[2] != 0) {
		log_warn("BMC refused Set BMC Global Enables 0x%02x (cc 0x%02x)",
			 asked, status || len < 3 ? 0xff : resp[2]);
		if (evbuf && (asked & ATN_GE_EVT_MSG_BUFF)) {
			evbuf = false;	/* as stock: no event buffer then */
			log_warn("no event message buffer: the BMC's events "
				 "reach clients only if it raises SMS_ATN");
		}
	} else {
		log_info("BMC global enables set to 0x%02x", asked);
	}
	enables_next();
}

static void get_done(struct xact *x, int status, const uint8_t *resp,
		     unsigned int len)
{
	uint8_t req[3] = { IPMI_NETFN_APP_REQUEST << 2,
			   IPMI_SET_BMC_GLOBAL_ENABLES_CMD, 0 };
	int v = status ? -EIO : atn_enables_fix(resp, len, want());

	xact_free(x);
	if (v == -EIO)
		log_ratelimited(&rl_get, LOG_WARNING,
				"Get BMC Global Enables failed");
	if (v >= 0) {
		req[2] = (uint8_t)v;
		if (queue(req, sizeof(req), set_done,
			  (void *)(uintptr_t)req[2]))
			return;
	}
	enables_next();
}

static void check_now(void)
{
	static const uint8_t req[2] = { IPMI_NETFN_APP_REQUEST << 2,
					IPMI_GET_BMC_GLOBAL_ENABLES_CMD };

	if (!checking)
		checking = queue(req, sizeof(req), get_done, NULL);
}

/* At the next tick (at most one check a second, so a BMC that stays
 * hosed is not hammered). */
void bmc_setup_recheck(struct daemon *d)
{
	if (dmn && d == dmn)
		pending = true;
}

/* Does anyone wait for what the BMC raises by itself? */
static bool waiters(void)
{
	struct node *n;
	struct client *c;

	if (cmdreg_any())
		return true;
	LIST_FOREACH(n, &dmn->nodes, link)
		LIST_FOREACH(c, &n->clients, link)
			if (c->gets_events)
				return true;
	return false;
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	if (pending || waiters()) {
		pending = false;
		check_now();
	}
}

static void chan_done(struct xact *x, int status, const uint8_t *resp,
		      unsigned int len)
{
	unsigned int ch = (unsigned int)(uintptr_t)x->priv;
	uint8_t m = 0;
	int rv = status ? -EIO : atn_channel_medium(resp, len, &m);

	xact_free(x);
	if (ch < ABI_MAX_CHANNELS && rv == 0)
		scan_media[ch] = m;
	if (ch == 0 && rv == -ENOSYS)
		scan_nosys = true;
	if (scan_left && --scan_left)
		return;
	if (scan_nosys) {	/* no Get Channel Info: one IPMB, channel 0 */
		memset(scan_media, 0, sizeof(scan_media));
		scan_media[0] = IPMI_CHANNEL_MEDIUM_IPMB;
	}
	memcpy(dmn->media, scan_media, sizeof(dmn->media));
	dmn->media_ready = true;
	bridge_set_media(dmn->media);
	log_info("channel media 0-15: %02x %02x %02x %02x %02x %02x %02x %02x "
		 "%02x %02x %02x %02x %02x %02x %02x %02x",
		 scan_media[0], scan_media[1], scan_media[2], scan_media[3],
		 scan_media[4], scan_media[5], scan_media[6], scan_media[7],
		 scan_media[8], scan_media[9], scan_media[10], scan_media[11],
		 scan_media[12], scan_media[13], scan_media[14],
		 scan_media[15]);
}

void bmc_setup_start(struct daemon *d)
{
	struct timeval one = { 1, 0 };

	if (d->be->bridges) {	/* the stock driver underneath does it */
		d->media_ready = true;
		return;
	}
	dmn = d;
	check_now();
	memset(scan_media, 0, sizeof(scan_media));
	scan_left = ABI_MAX_CHANNELS;
	for (unsigned int ch = 0; ch < ABI_MAX_CHANNELS; ch++) {
		uint8_t req[3] = { IPMI_NETFN_APP_REQUEST << 2,
				   IPMI_GET_CHANNEL_INFO_CMD, (uint8_t)ch };

		if (!queue(req, sizeof(req), chan_done,
			   (void *)(uintptr_t)ch))
			scan_left--;
	}
	if (!scan_left)
		d->media_ready = true;	/* no memory: checks skipped */
	tick = event_new(d->base, -1, EV_PERSIST, on_tick, NULL);
	if (tick)
		event_add(tick, &one);
}

void bmc_setup_fini(struct daemon *d)
{
	(void)d;
	if (tick)
		event_free(tick);
	tick = NULL;
	dmn = NULL;
}
