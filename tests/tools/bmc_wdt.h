/* SPDX-License-Identifier: MIT */
/*
 * The BMC's watchdog timer (IPMI v2.0 section 27), played by
 * kcsmux-bmc-proxy --watchdog because ipmi_sim's does not keep a timer
 * that Reset Watchdog Timer restarts: with it, a host that pets its
 * watchdog is reset anyway. Set (06 24), Reset (06 22) and Get (06 25)
 * Watchdog Timer are answered here; at the timeout the proxy carries out
 * the action (hard reset, power down, power cycle) through QEMU's
 * ipmi-bmc-extern protocol. No pre-timeout interrupt. See docs/bmc-proxy.md.
 *
 * Pure logic, no I/O: times in ns from any monotonic clock.
 */
#ifndef KCSMUX_BMC_WDT_H
#define KCSMUX_BMC_WDT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WDT_NETFN_APP 0x06u
#define WDT_CMD_RESET 0x22u
#define WDT_CMD_SET   0x24u
#define WDT_CMD_GET   0x25u

/* timeout actions (Set Watchdog Timer byte 2, bits 2:0) */
#define WDT_ACTION_NONE	       0u
#define WDT_ACTION_HARD_RESET  1u
#define WDT_ACTION_POWER_DOWN  2u
#define WDT_ACTION_POWER_CYCLE 3u

struct bmc_wdt {
	uint8_t use;	 /* byte 1 as set, without bit 6 */
	uint8_t actions; /* byte 2 */
	uint8_t pretimeout;
	uint8_t expired;  /* timer use expiration flags */
	uint16_t initial; /* 100 ms counts */
	bool set;	  /* a Set Watchdog Timer was seen */
	bool running;
	uint64_t deadline_ns;  /* while running */
	uint16_t stopped_left; /* present countdown while stopped */
	unsigned int sets, resets, gets, timeouts;
};

void bmc_wdt_init(struct bmc_wdt *w);

/*
 * A request (netfn without LUN, cmd, data after cmd) at now_ns: when it
 * is a watchdog command, write the answer (completion code, data) to rsp
 * and return its length; else return 0 and leave it to the BMC.
 */
size_t bmc_wdt_request(struct bmc_wdt *w, uint64_t now_ns, uint8_t netfn,
		       uint8_t cmd, const uint8_t *data, size_t len,
		       uint8_t *rsp, size_t cap);

/*
 * At now_ns: if the timer ran out, stop it, set its use's expiration flag
 * and return its action (WDT_ACTION_*); else return -1.
 */
int bmc_wdt_poll(struct bmc_wdt *w, uint64_t now_ns);

/* ns until the timeout while running, else UINT64_MAX */
uint64_t bmc_wdt_left_ns(const struct bmc_wdt *w, uint64_t now_ns);

#endif
