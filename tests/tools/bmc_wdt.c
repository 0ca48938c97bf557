/* SPDX-License-Identifier: MIT */
/* The BMC's watchdog timer for kcsmux-bmc-proxy --watchdog (bmc_wdt.h). */
#include "bmc_wdt.h"

#include <string.h>

#define CC_OK	      0x00u
#define CC_UNINIT     0x80u /* Reset: attempt to start an unset timer */
#define CC_BAD_LENGTH 0xC7u
#define CC_BAD_FIELD  0xCCu
#define USE_DONT_STOP 0x40u /* byte 1 of Set; "running" in Get */
#define NS_PER_COUNT  100000000ull

void bmc_wdt_init(struct bmc_wdt *w)
{
	memset(w, 0, sizeof(*w));
}

static uint16_t counts_left(const struct bmc_wdt *w, uint64_t now_ns)
{
	if (!w->running)
		return w->stopped_left;
	if (now_ns >= w->deadline_ns)
		return 0;
	/* rounded up: "1" until the very end, as a countdown shows */
	return (uint16_t)((w->deadline_ns - now_ns + NS_PER_COUNT - 1) /
			  NS_PER_COUNT);
}

static void start(struct bmc_wdt *w, uint64_t now_ns)
{
	w->running = true;
	w->deadline_ns = now_ns + (uint64_t)w->initial * NS_PER_COUNT;
}

static size_t set(struct bmc_wdt *w, uint64_t now_ns, const uint8_t *d,
		  size_t len, uint8_t *rsp)
{
	uint16_t initial;

	if (len != 6) {
		rsp[0] = CC_BAD_LENGTH;
		return 1;
	}
	initial = (uint16_t)(d[4] | d[5] << 8);
	/* a pre-timeout interval longer than the countdown is refused */
	if ((d[1] & 0x70) && (uint32_t)d[2] * 10 > initial) {
		rsp[0] = CC_BAD_FIELD;
		return 1;
	}
	w->use = d[0] & (uint8_t)~USE_DONT_STOP;
	w->actions = d[1];
	w->pretimeout = d[2];
	w->expired &= (uint8_t)~d[3];
	w->initial = initial;
	w->set = true;
	w->sets++;
	if (w->running && (d[0] & USE_DONT_STOP))
		start(w, now_ns); /* the new countdown, still running */
	else
		w->running = false;
	w->stopped_left = initial;
	rsp[0] = CC_OK;
	return 1;
}

static size_t get(const struct bmc_wdt *w, uint64_t now_ns, uint8_t *rsp)
{
	uint16_t left = counts_left(w, now_ns);

	rsp[0] = CC_OK;
	rsp[1] = (uint8_t)(w->use | (w->running ? USE_DONT_STOP : 0));
	rsp[2] = w->actions;
	rsp[3] = w->pretimeout;
	rsp[4] = w->expired;
	rsp[5] = (uint8_t)(w->initial & 0xff);
	rsp[6] = (uint8_t)(w->initial >> 8);
	rsp[7] = (uint8_t)(left & 0xff);
	rsp[8] = (uint8_t)(left >> 8);
	return 9;
}

size_t bmc_wdt_request(struct bmc_wdt *w, uint64_t now_ns, uint8_t netfn,
		       uint8_t cmd, const uint8_t *data, size_t len,
		       uint8_t *rsp, size_t cap)
{
	if (netfn != WDT_NETFN_APP || cap < 9)
		return 0;
	switch (cmd) {
	case WDT_CMD_SET:
		return set(w, now_ns, data, len, rsp);
	case WDT_CMD_RESET:
		w->resets++;
		if (!w->set) {
			rsp[0] = CC_UNINIT;
			return 1;
		}
		start(w, now_ns);
		rsp[0] = CC_OK;
		return 1;
	case WDT_CMD_GET:
		w->gets++;
		return get(w, now_ns, rsp);
	default:
		return 0;
	}
}

int bmc_wdt_poll(struct bmc_wdt *w, uint64_t now_ns)
{
	uint8_t use = w->use & 0x07;

	if (!w->running || now_ns < w->deadline_ns)
		return -1;
	w->running = false;
	w->stopped_left = 0;
	if (use >= 1 && use <= 5)
		w->expired |= (uint8_t)(1u << use);
	w->timeouts++;
	return w->actions & 0x07;
}

uint64_t bmc_wdt_left_ns(const struct bmc_wdt *w, uint64_t now_ns)
{
	if (!w->running)
		return UINT64_MAX;
	return now_ns >= w->deadline_ns ? 0 : w->deadline_ns - now_ns;
}
