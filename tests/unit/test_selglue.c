// SPDX-License-Identifier: GPL-2.0
/*
 * The SEL mirror and the SDR cache together in the request path
 * (fused/core/sdrglue.c) over the core and a fake backend answering as
 * ipmi_sim does: three readers walk the SEL while the mirror is filled
 * cold, each reading the SDR repository after its first entries as
 * `ipmitool sel elist` does (Reserve SDR Repository, then Get SDR). Every
 * answer is the model's, the fill reads each entry once, and no request
 * waits for more than a few BMC transactions: a Get SDR parked for the
 * cache's revalidation once waited for the whole fill (asked again on
 * each of the mirror's answers while the revalidation was out, it asked
 * for another), and a forwarded request (Reserve SDR Repository, Get
 * Device ID) waited behind all of the fill (the daemon's own requests
 * went ahead of every node's): past ipmitool's 15 s timeout.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/core.h"
#include "core/sdrglue.h"
#include "core/xact.h"
#include "core_fixture.h"
#include "fake_backend.h"
#include "node_conf.h"
#include "util/le.h"

#define NSEL	 120 /* SEL entries */
#define NSDR	 4   /* SDR records */
#define NWALKERS 3
/* walker i reads the SDRs after SDR_AT(i) entries: the first fills the
 * SDR cache, the others find it filled (their Reserve has it revalidated) */
#define SDR_AT(i) (3 + 20 * (i))

static struct core_fixture fx;

/* ---- the model BMC (ipmi_sim's answers, cc first) ---- */

static struct {
	unsigned int nget, nsdr_info, nsel_info, n;
	uint16_t sdr_res;
} bmc;

static uint16_t sel_id(unsigned int i)
{
	return (uint16_t)(0x10 + 3 * i);
}

static unsigned int sel_answer(const uint8_t *d, unsigned int len, uint8_t *r)
{
	unsigned int i, off, cnt;
	uint16_t id;

	if (len < 6) {
		r[0] = 0xc7;
		return 1;
	}
	id = ld16(d + 2);
	for (i = 0; i < NSEL; i++)
		if (sel_id(i) == id || (id == 0 && i == 0) ||
		    (id == 0xffff && i == NSEL - 1))
			break;
	if (i == NSEL) {
		r[0] = 0xcb;
		return 1;
	}
	off = d[4];
	cnt = d[5];
	if (off + cnt > 16)
		cnt = 16 - off;
	r[0] = 0;
	st16(r + 1, i + 1 < NSEL ? sel_id(i + 1) : 0xffff);
	for (unsigned int b = 0; b < cnt; b++) {
		unsigned int at = off + b;

		r[3 + b] = at < 2 ? (uint8_t)(sel_id(i) >> (8 * at)) :
				    (uint8_t)(i * 11 + at);
	}
	return 3 + cnt;
}

static unsigned int sdr_get(const uint8_t *d, unsigned int len, uint8_t *r)
{
	unsigned int i, off, cnt, id;

	if (len < 6) {
		r[0] = 0xc7;
		return 1;
	}
	if (ld16(d) != 0 && ld16(d) != bmc.sdr_res) {
		r[0] = 0xc5;
		return 1;
	}
	id = ld16(d + 2);
	i = id == 0 ? 0 : id == 0xffff ? NSDR - 1 : id - 1;
	if (i >= NSDR) {
		r[0] = 0xcb;
		return 1;
	}
	off = d[4];
	cnt = d[5];
	if (off >= 20) {
		r[0] = 0xc9;
		return 1;
	}
	if (off + cnt > 20)
		cnt = 20 - off;
	r[0] = 0;
	st16(r + 1, i + 1 < NSDR ? i + 2 : 0xffff);
	for (unsigned int b = 0; b < cnt; b++) {
		unsigned int at = off + b;
		uint8_t hdr[5] = { (uint8_t)(i + 1), 0, 0x51, 0x01, 15 };

		r[3 + b] = at < 5 ? hdr[at] : (uint8_t)(i * 7 + at);
	}
	return 3 + cnt;
}

/* What the BMC answers NETFN:CMD with DATA: cc, data... */
static unsigned int model(uint8_t netfn, uint8_t cmd, const uint8_t *d,
			  unsigned int len, uint8_t *r)
{
	r[0] = 0;
	if (netfn != 0x0a) {
		r[0] = 0xc1;
		return 1;
	}
	switch (cmd) {
	case 0x20: /* SDR Repository Info */
		bmc.nsdr_info++;
		memset(r + 1, 0, 14);
		r[1] = 0x51;
		st16(r + 2, NSDR);
		st16(r + 4, 0x1000);
		r[6] = 0x11;
		r[14] = 0x02;
		return 15;
	case 0x22: /* Reserve SDR Repository */
		if (++bmc.sdr_res == 0)
			bmc.sdr_res++;
		st16(r + 1, bmc.sdr_res);
		return 3;
	case 0x23:
		return sdr_get(d, len, r);
	case 0x40: /* SEL Info */
		bmc.nsel_info++;
		memset(r + 1, 0, 14);
		r[1] = 0x51;
		st16(r + 2, NSEL);
		st16(r + 4, 0x1000);
		r[6] = 0x22;
		r[10] = 0x33;
		r[14] = 0x02;
		return 15;
	case 0x43:
		bmc.nget++;
		return sel_answer(d, len, r);
	default:
		r[0] = 0xc1;
		return 1;
	}
}

/* Answer the oldest submission at the fake backend as the model. */
static void bmc_step(void)
{
	struct fake_sub *s = fake_pending(fx.fb);
	uint8_t r[300];
	unsigned int len;

	ck_assert_ptr_nonnull(s);
	len = model(s->req[0] >> 2, s->req[1], s->req + 2, s->len - 2, r + 2);
	r[0] = (uint8_t)(((s->req[0] >> 2) | 1) << 2 | (s->req[0] & 3));
	r[1] = s->req[1];
	bmc.n++;
	fake_complete(fx.fb, s, 0, r, len + 2);
}

/* ---- the readers ---- */

struct walker {
	uint8_t req[8]; /* netfn, cmd, data */
	unsigned int req_len;
	bool out, ready, done;
	unsigned int sent_at, longest; /* bmc.n when sent; the most waited */
	unsigned int entries, phase;   /* phase: 0 SEL, 1 Reserve, 2 Get SDR */
	uint16_t next, sdr_res;
};

static struct walker w[NWALKERS];

static void nop_dispatched(struct xact *x)
{
	(void)x;
}

/* The walker's answer (as the front end's si_done: shown to the glue). */
static void walker_done(struct xact *x, int status, const uint8_t *resp,
			unsigned int len)
{
	struct walker *k = x->owner;
	uint8_t want[300];
	unsigned int wl;

	sdrglue_observe(x, status, resp, len);
	ck_assert_int_eq(status, 0);
	ck_assert_uint_ge(len, 3);
	if (k->req[1] == 0x43) {
		wl = model(k->req[0], k->req[1], k->req + 2, k->req_len - 2,
			   want);
		bmc.nget--; /* the model asked, not the BMC */
		ck_assert_uint_eq(len - 2, wl);
		ck_assert_mem_eq(resp + 2, want, wl);
	}
	ck_assert_uint_eq(resp[2], 0);
	if (bmc.n - k->sent_at > k->longest)
		k->longest = bmc.n - k->sent_at;
	k->out = false;
	k->ready = true;
	if (k->req[1] == 0x43) {
		k->entries++;
		k->next = ld16(resp + 3);
		if (k->next == 0xffff)
			k->done = true;
		else if (k->entries == SDR_AT(k - w))
			k->phase = 1;
	} else if (k->req[1] == 0x22) {
		k->sdr_res = ld16(resp + 3);
		k->phase = 2;
	} else {
		k->phase = 0;
	}
	xact_free(x);
}

/* The walker's next request, as a client sends it. */
static void walker_send(struct walker *k)
{
	struct xact *x;
	uint8_t *q = k->req;

	memset(q, 0, sizeof(k->req));
	q[0] = 0x0a;
	if (k->phase == 2)
		usleep(3000);
	if (k->phase == 1) {
		q[1] = 0x22;
		k->req_len = 2;
	} else {
		q[1] = k->phase == 2 ? 0x23 : 0x43;
		st16(q + 2, k->phase == 2 ? k->sdr_res : 0);
		st16(q + 4, k->phase == 2 ? 0 : k->next);
		q[7] = k->phase == 2 ? 5 : 0xff;
		k->req_len = 8;
	}
	x = core_fixture_xact(&fx, &fx.na, k, q[0], q[1], walker_done);
	memcpy(x->req + 2, q + 2, k->req_len - 2);
	x->req_len = (uint16_t)k->req_len;
	x->dispatched = nop_dispatched;
	k->out = true;
	k->ready = false;
	k->sent_at = bmc.n;
	if (!sdrglue_send(x))
		ck_assert_int_eq(xact_enqueue(x), 0);
}

static void setup(void)
{
	memset(&bmc, 0, sizeof(bmc));
	memset(w, 0, sizeof(w));
	core_fixture_open(&fx, &core_fixture_quiet);
	test_node_conf(&fx.conf_a, "a", KCSMUX_PRESET_MONITOR,
		       KCSMUX_ACCESS_ALL);
	test_node_conf(&fx.conf_b, "b", KCSMUX_PRESET_MONITOR,
		       KCSMUX_ACCESS_ALL);
	fx.conf_a.sdr_cache = true;
	fx.conf_a.pol.rate_milli = 0;
	fx.conf_a.pol.cpu_budget_ppm = 0;
	/* every Get SDR (sent 3 ms after the Reserve) finds the copy older
	 * than this: it waits for a revalidation, as ipmitool's reads in a
	 * long cold list find the 2 s default passed */
	fx.d.cfg.sdr_cache_revalidate_ms = 1;
	core_fixture_attach(&fx);
}

static void teardown(void)
{
	core_fixture_drain(&fx);
	core_fixture_close(&fx);
}

/* Three readers start together on a cold mirror and a cold SDR cache. */
START_TEST(test_three_cold_elists)
{
	unsigned int done = 0;

	for (int i = 0; i < NWALKERS; i++)
		w[i].ready = true;
	for (unsigned int steps = 0; done < NWALKERS; steps++) {
		/* each sends its next once answered (from memory: at once) */
		for (bool sent = true; sent;) {
			sent = false;
			for (int i = 0; i < NWALKERS; i++) {
				if (w[i].ready && !w[i].done) {
					walker_send(&w[i]);
					sent = true;
				}
			}
		}
		done = 0;
		for (int i = 0; i < NWALKERS; i++)
			done += w[i].done;
		if (done == NWALKERS)
			break;
		ck_assert_uint_lt(steps, FAKE_MAX_SUBS - 1);
		bmc_step();
	}
	for (int i = 0; i < NWALKERS; i++) {
		ck_assert_uint_eq(w[i].entries, NSEL);
		/* a request waits for the fill's next entry, the SDR
		 * cache's own fill (a dozen or two transactions, alternating
		 * with the mirror's) or a revalidation: never for all of
		 * the mirror's fill (NSEL) */
		ck_assert_uint_le(w[i].longest, 32);
	}
	ck_assert_uint_eq(bmc.nget, NSEL); /* the fill's, once each */
	/* the SDR fill's two and one revalidation per Get SDR at most */
	ck_assert_uint_le(bmc.nsdr_info, 2 + NWALKERS * 2);
}
END_TEST

static Suite *selglue_suite(void)
{
	Suite *s = suite_create("selglue");
	TCase *tc = tcase_create("glue");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_three_cold_elists);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(selglue_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
