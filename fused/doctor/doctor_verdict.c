// SPDX-License-Identifier: GPL-2.0
/*
 * doctor_verdict.c - kcsmuxctl doctor's verdicts (one per topic, with the
 * evidence) and recommendations (one line each, with the reason), from a
 * run's answers alone: pure logic, tested with recorded answers.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "doctor/doctor.h"

static const char *const levels[] = { "ok", "note", "warn", "fail" };

const char *doc_level_name(enum doc_level l)
{
	return levels[l];
}

const char *doc_manufacturer(uint32_t iana)
{
	static const struct {
		uint32_t iana;
		const char *name;
	} t[] = {
		{ 2, "IBM" },	      { 11, "Hewlett-Packard" },
		{ 343, "Intel" },     { 674, "Dell" },
		{ 2011, "Huawei" },   { 5771, "Cisco" },
		{ 10368, "Fujitsu" }, { 10876, "Super Micro" },
		{ 19046, "Lenovo" },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].iana == iana)
			return t[i].name;
	return NULL;
}

static struct doc_verdict *verdict(struct doc_assessment *a, const char *topic,
				   enum doc_level l, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static struct doc_verdict *verdict(struct doc_assessment *a, const char *topic,
				   enum doc_level l, const char *fmt, ...)
{
	struct doc_verdict *v;
	va_list ap;

	if (a->nv == DOC_MAX_VERDICTS)
		return NULL;
	v = &a->v[a->nv++];
	v->topic = topic;
	v->level = l;
	va_start(ap, fmt);
	vsnprintf(v->evidence, sizeof(v->evidence), fmt, ap);
	va_end(ap);
	if (l > a->overall)
		a->overall = l;
	return v;
}

static void advise(struct doc_assessment *a, const char *use,
		   const char *setting, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void advise(struct doc_assessment *a, const char *use,
		   const char *setting, const char *fmt, ...)
{
	struct doc_advice *x;
	va_list ap;

	if (a->na == DOC_MAX_ADVICE)
		return;
	x = &a->a[a->na++];
	x->use = use;
	snprintf(x->setting, sizeof(x->setting), "%s", setting);
	va_start(ap, fmt);
	vsnprintf(x->reason, sizeof(x->reason), fmt, ap);
	va_end(ap);
}

static void identity(const struct doc_run *r, struct doc_assessment *a)
{
	const uint8_t *d = doc_ok(r, "devid", 12);
	const char *mname;
	uint32_t iana;
	char name[32];

	if (d == NULL) {
		verdict(a, "identity", DOC_FAIL,
			"no Get Device ID answer: the BMC does not answer "
			"through %s",
			r->device);
		return;
	}
	iana = d[7] | d[8] << 8 | (uint32_t)(d[9] & 0x0f) << 16;
	mname = doc_manufacturer(iana);
	snprintf(name, sizeof(name), "%s", mname != NULL ? mname : "unknown");
	verdict(a, "identity", DOC_OK,
		"device ID 0x%02x rev %u, firmware %u.%02x, IPMI %u.%u, "
		"manufacturer %u (%s), product 0x%04x",
		d[1], d[2] & 0x0f, d[3] & 0x7f, d[4], d[5] & 0x0f, d[5] >> 4,
		iana, name, d[10] | d[11] << 8);
}

static void timing(const struct doc_run *r, struct doc_assessment *a)
{
	const struct doc_timing *t = r->t;
	enum doc_level l = DOC_OK;

	if (t[T_DEVID].n == 0) {
		verdict(a, "response_time", DOC_FAIL, "no timed answer");
		return;
	}
	if (t[T_DEVID].p99 > 100000 || t[T_SDR].p99 > 100000 ||
	    t[T_SENSOR].p99 > 100000)
		l = DOC_WARN;
	verdict(a, "response_time", l,
		"p50/p99 us: get_device_id %u/%u, get_sensor_reading %u/%u, "
		"get_sdr %u/%u (%d samples each)%s",
		t[T_DEVID].p50, t[T_DEVID].p99, t[T_SENSOR].p50,
		t[T_SENSOR].p99, t[T_SDR].p50, t[T_SDR].p99, DOC_SAMPLES,
		l == DOC_WARN ? "; a p99 over 100 ms" : "");
}

static void errors(const struct doc_run *r, struct doc_assessment *a)
{
	enum doc_level l = DOC_OK;

	/* gone silent, or not one answer: nothing reaches the BMC */
	if (r->gone || (r->requests > 0 && r->errors >= r->requests))
		l = DOC_FAIL;
	else if (r->errors > 0 || r->over_bound)
		l = DOC_WARN;
	else if (r->retries > 0)
		l = DOC_NOTE;
	verdict(a, "errors", l,
		"%u requests: %u without an answer, %u busy answers sent "
		"again, %u non-zero completion codes%s%s",
		r->requests, r->errors, r->retries, r->ccs,
		r->gone ? "; the BMC went silent" :
		r->errors >= r->requests && r->requests > 0 ?
			  "; not one answer" :
			  "",
		r->over_bound ? "; the request bound was reached" : "");
}

static bool ts_plausible(uint32_t ts, long long now)
{
	if (ts == 0 || ts == 0xffffffffu)
		return false;
	/* 0x20000000 and below: seconds since the BMC's initialization */
	return ts <= 0x20000000u || (long long)ts <= now + 86400;
}

/* Returns whether the SDR cache may be trusted. */
static bool sdr(const struct doc_run *r, struct doc_assessment *a)
{
	const uint8_t *s = doc_ok(r, "sdrinfo", 15);
	uint32_t add, era;
	bool ts_ok, resv;

	if (s == NULL) {
		verdict(a, "sdr", DOC_WARN,
			"no Get SDR Repository Info answer; %u records walked",
			r->sdr_records);
		return false;
	}
	add = s[6] | s[7] << 8 | (uint32_t)s[8] << 16 | (uint32_t)s[9] << 24;
	era = s[10] | s[11] << 8 | (uint32_t)s[12] << 16 |
	      (uint32_t)s[13] << 24;
	ts_ok = ts_plausible(add, r->now);
	resv = (s[14] & 0x02) && r->sdr_reserve == 1;
	verdict(a, "sdr", ts_ok && resv ? DOC_OK : DOC_NOTE,
		"version 0x%02x, %u records (%u walked, longest %u bytes), "
		"reservations %s, partial reads %s, addition timestamp 0x%08x "
		"(%s), erase timestamp 0x%08x (%s)",
		s[1], s[2] | s[3] << 8, r->sdr_records, r->sdr_longest,
		resv ? "yes" : "no",
		r->sdr_partial == 1 ? "yes" :
		r->sdr_partial == 0 ? "no" :
				      "untried",
		add, ts_ok ? "plausible" : "absent or implausible", era,
		era == 0xffffffffu	  ? "never erased" :
		ts_plausible(era, r->now) ? "plausible" :
					    "absent or implausible");
	return ts_ok && resv;
}

static void events(const struct doc_run *r, struct doc_assessment *a)
{
	const uint8_t *e = doc_ok(r, "enables", 2);
	const uint8_t *f = doc_ok(r, "msgflags", 2);
	char fl[64] = "not allowed here";

	if (f != NULL)
		snprintf(fl, sizeof(fl), "0x%02x", f[1]);
	if (e == NULL) {
		verdict(a, "events", DOC_NOTE,
			"Get BMC Global Enables not answered; message flags "
			"%s",
			fl);
		return;
	}
	verdict(a, "events", DOC_OK,
		"global enables 0x%02x: event message buffer %s, its "
		"interrupt %s, receive queue interrupt %s, SEL logging %s; "
		"message flags %s",
		e[1], e[1] & 0x04 ? "on" : "off", e[1] & 0x02 ? "on" : "off",
		e[1] & 0x01 ? "on" : "off", e[1] & 0x08 ? "on" : "off", fl);
}

static const char *medium(uint8_t m)
{
	static const char *const t[] = {
		"reserved",	    "IPMB",	 "ICMB 1.0",
		"ICMB 0.9",	    "LAN",	 "serial",
		"other LAN",	    "PCI SMBus", "SMBus 1",
		"SMBus 2",	    "USB 1",	 "USB 2",
		"system interface",
	};

	return m < sizeof(t) / sizeof(t[0]) ? t[m] : "OEM";
}

static void channels(const struct doc_run *r, struct doc_assessment *a)
{
	char ev[320] = "";
	size_t i, len = 0, n = 0;
	bool ipmb = false;

	for (i = 0; i < r->nitems; i++) {
		const struct doc_item *it = &r->items[i];

		if (strncmp(it->key, "chan.", 5) != 0 || it->err != 0 ||
		    it->len < 4 || it->data[0] != 0)
			continue;
		ipmb |= (it->data[2] & 0x7f) == 1;
		len += (size_t)snprintf(ev + len, sizeof(ev) - len, "%s%u %s",
					n++ ? ", " : "", it->data[1] & 0x0f,
					medium(it->data[2] & 0x7f));
		if (len >= sizeof(ev))
			break;
	}
	if (n == 0) {
		verdict(a, "channels", DOC_NOTE,
			"Get Channel Info not answered for channels 0-7, 15");
		return;
	}
	verdict(a, "channels", DOC_OK, "%s%s", ev,
		ipmb ? "; IPMB present: bridging applies" : "");
}

static void watchdog(const struct doc_run *r, struct doc_assessment *a)
{
	static const char *const uses[] = { "reserved",	 "BIOS FRB2",
					    "BIOS/POST", "OS load",
					    "SMS/OS",	 "OEM",
					    "reserved",	 "reserved" };
	static const char *const acts[] = { "none", "hard reset", "power down",
					    "power cycle" };
	const struct doc_item *it = doc_item_find(r, "wdt");
	const uint8_t *w = doc_ok(r, "wdt", 3);
	unsigned init = 0, left = 0;
	bool running;

	if (w == NULL) {
		if (it != NULL && it->err == 0 && it->len > 0)
			verdict(a, "watchdog", DOC_NOTE,
				"Get Watchdog Timer: completion code 0x%02x, "
				"%u bytes",
				it->data[0], it->len);
		else
			verdict(a, "watchdog", DOC_NOTE,
				"Get Watchdog Timer not answered");
		return;
	}
	/* ipmi_sim answers without the present countdown (7 bytes) */
	if (it->len >= 7)
		init = w[5] | w[6] << 8;
	if (it->len >= 9)
		left = w[7] | w[8] << 8;
	running = w[1] & 0x40;
	verdict(a, "watchdog", running && (w[2] & 7) ? DOC_WARN : DOC_OK,
		"%s, timer use %s, action %s, initial %u.%u s, present %u.%u "
		"s%s",
		running ? "running" : "stopped", uses[w[1] & 7],
		(w[2] & 7) < 4 ? acts[w[2] & 7] : "reserved", init / 10,
		init % 10, left / 10, left % 10,
		running ? ": a cutover must keep it petted (kcsmux-cutover "
			  "apply resets it right before and after the swap)" :
			  "");
}

/* Whether the interrupt fired; *seen: a line was found. */
static bool irq(const struct doc_run *r, struct doc_assessment *a)
{
	long long d = r->irq_after - r->irq_before;

	if (r->irq_before < 0 || r->irq_after < 0) {
		verdict(a, "interrupt", DOC_NOTE,
			"no ipmi or kcsraw line in /proc/interrupts: polled "
			"(or the interface is not this host's)");
		return false;
	}
	verdict(a, "interrupt", d > 0 ? DOC_OK : DOC_NOTE,
		"%lld interrupts during %u requests (%s)", d, r->requests,
		r->irq_line);
	return d > 0;
}

void doc_assess(const struct doc_run *r, struct doc_assessment *a)
{
	const struct doc_timing *t = r->t;
	bool cache, fires;

	memset(a, 0, sizeof(*a));
	identity(r, a);
	timing(r, a);
	errors(r, a);
	fires = irq(r, a);
	cache = sdr(r, a);
	events(r, a);
	channels(r, a);
	watchdog(r, a);

	/* Nothing to recommend for a BMC that did not answer. */
	if (doc_ok(r, "devid", 12) == NULL)
		return;
	if (fires)
		advise(a, "irq", "useirq = 1 (kcsraw's default)",
		       "the interrupt fired during the check: waiters sleep "
		       "until the BMC is ready");
	else
		advise(a, "irq", "poll (useirq = 0 or no IRQ)",
		       "no interrupt was seen during the check: kcsraw polls "
		       "per transaction instead");
	if (t[T_DEVID].n > 0) {
		advise(a, "interactive", "policy = interactive",
		       "Get Device ID p50 %u us, p99 %u us: a short poll "
		       "keeps an admin's ipmitool at the BMC's own pace",
		       t[T_DEVID].p50, t[T_DEVID].p99);
		advise(a, "monitoring", "policy = monitor",
		       "%u BMC sensors at p50 %u us each: a sweep takes "
		       "%u ms, a coarse poll costs little more and saves CPU",
		       r->sensors, t[T_SENSOR].p50,
		       (unsigned)((uint64_t)r->sensors * t[T_SENSOR].p50 /
				  1000));
	}
	if (cache)
		advise(a, "sdr_cache", "sdr_cache = yes",
		       "reservations work and the SDR repository's addition "
		       "timestamp is present and plausible");
	else
		advise(a, "sdr_cache", "sdr_cache = no",
		       "the SDR cache's invalidation needs reservations and a "
		       "plausible addition timestamp, which this BMC lacks");
}
