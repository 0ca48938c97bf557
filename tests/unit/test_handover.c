// SPDX-License-Identifier: GPL-2.0
/*
 * Check suite for the hand-over's state (fused/cuse/handover_pend.c,
 * handover_state.c): the journal of requests whose answer is not read yet
 * (kept as SEND accepts them, cleared as RECEIVE takes their answers or the
 * file closes), the error answers the next process makes from it after a
 * crash (cc 0xFF on the system interface, 0xC3 bridged, as stock answers a
 * lost request) and after a graceful restart (only for a request without an
 * answer in its restored queue), and the command registrations a graceful
 * restart carries over.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/ipmi_msgdefs.h>

#include "kcsmuxd.h"
#include "core/leasegate.h"
#include "util/clock.h"
#include "cuse/handover.h"
#include "cuse/handover_priv.h"

static const uint8_t si_raw[8] = { 0x0c, 0, 0, 0, 0x0f, 0, 0, 0 };

static struct ipmi_request si_req(int64_t msgid)
{
	struct ipmi_request rq = {
		.addr = { .addr_type = IPMI_SYSTEM_INTERFACE_ADDR_TYPE,
			  .channel = IPMI_BMC_CHANNEL },
		.addr_raw = si_raw,
		.addr_len = sizeof(si_raw),
		.msgid = msgid,
		.netfn = 0x06,
		.cmd = 0x01,
	};

	return rq;
}

/* A daemon with one node and its hand-over runtime on slot S. */
struct rig {
	struct daemon d;
	struct node n;
	struct ho_rt rt;
	struct ho_node *slot;
};

static void rig_init(struct rig *r, struct ho_pends *s)
{
	memset(r, 0, sizeof(*r));
	ck_assert_int_eq(frontend_init(&r->d, NULL), 0);
	LIST_INIT(&r->d.nodes);
	r->n.d = &r->d;
	snprintf(r->n.conf.name, sizeof(r->n.conf.name), "ipmi7");
	r->n.conf.commands = true;
	r->n.conf.events = true;
	LIST_INIT(&r->n.clients);
	LIST_INSERT_HEAD(&r->d.nodes, &r->n, link);
	r->slot = calloc(1, sizeof(*r->slot));
	ck_assert_ptr_nonnull(r->slot);
	r->rt.sh = r->slot;
	r->rt.pend = s;
	r->rt.adopted = true;
	r->n.ho = &r->rt;
}

static void rig_fini(struct rig *r)
{
	struct client *c;
	struct kmsg *m;

	while ((c = LIST_FIRST(&r->n.clients))) {
		LIST_REMOVE(c, link);
		cmdreg_client_gone(c);
		while ((m = TAILQ_FIRST(&c->rq))) {
			TAILQ_REMOVE(&c->rq, m, link);
			free(m);
		}
		free(c);
	}
	r->d.fe->ho = NULL;
	frontend_fini(&r->d);
	free(r->slot);
}

static struct client *rig_client(struct rig *r, uint64_t id)
{
	struct client *c;

	LIST_FOREACH (c, &r->n.clients, link)
		if (c->id == id)
			return c;
	return NULL;
}

static unsigned int used(const struct ho_pends *s)
{
	unsigned int k = 0;

	for (uint32_t i = 0; i < s->npend; i++)
		k += s->pend[i].fh != 0;
	return k;
}

START_TEST(journal_kept_and_cleared)
{
	struct ho_pends *s = calloc(1, sizeof(*s));
	struct ipmi_request a = si_req(1), b = si_req(2);

	ck_assert(ho_pend_add(s, 5, 11, &a));
	ck_assert(ho_pend_add(s, 5, 13, &b));
	ck_assert(ho_pend_add(s, 6, 15, &a));
	ck_assert_uint_eq(used(s), 3);
	/* 5 read its answer to msgid 1: 6's msgid 1 stays */
	ho_pend_done(s, 5, 1);
	ck_assert_uint_eq(used(s), 2);
	ho_pend_done(s, 5, 1); /* nothing left of it: no-op */
	ck_assert_uint_eq(used(s), 2);
	/* a free slot is used again */
	ck_assert(ho_pend_add(s, 7, 17, &a));
	ck_assert_uint_eq(s->npend, 3);
	/* the SEND whose reply never went out */
	ho_pend_drop(s, 0, 17);
	ck_assert_uint_eq(used(s), 2);
	/* 5 closes */
	ho_pend_drop(s, 5, 0);
	ck_assert_uint_eq(used(s), 1);
	ho_pend_done(s, 6, 1);
	ck_assert_uint_eq(used(s), 0);
	ck_assert_uint_eq(s->npend, 0);
	free(s);
}
END_TEST

START_TEST(journal_full)
{
	struct ho_pends *s = calloc(1, sizeof(*s));
	struct ipmi_request a = si_req(1);

	for (unsigned int i = 0; i < HO_PEND; i++)
		ck_assert(ho_pend_add(s, 1 + i % 3, 2 * i + 1, &a));
	ck_assert(!ho_pend_add(s, 9, 99999, &a));
	ho_pend_drop(s, 2, 0);
	ck_assert(ho_pend_add(s, 9, 99999, &a));
	free(s);
}
END_TEST

START_TEST(error_si_and_bridged)
{
	struct ho_pends *s = calloc(1, sizeof(*s));
	struct ipmi_request a = si_req(42);
	struct ipmi_request b = {
		.addr = { .addr_type = IPMI_IPMB_BROADCAST_ADDR_TYPE,
			  .channel = 0,
			  .slave_addr = 0x72,
			  .lun = 0 },
		.msgid = 43,
		.netfn = 0x0a,
		.cmd = 0x10,
	};
	struct kmsg *m;

	ck_assert(ho_pend_add(s, 1, 3, &a));
	ck_assert(ho_pend_add(s, 1, 5, &b));
	m = ho_pend_error(&s->pend[0]);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(m->recv_type, IPMI_RESPONSE_RECV_TYPE);
	ck_assert_int_eq(m->msgid, 42);
	ck_assert_uint_eq(m->netfn, 0x07);
	ck_assert_uint_eq(m->cmd, 0x01);
	ck_assert_uint_eq(m->data_len, 1);
	ck_assert_uint_eq(m->data[0], IPMI_ERR_UNSPECIFIED);
	ck_assert_int_eq(m->addr.addr_type, IPMI_SYSTEM_INTERFACE_ADDR_TYPE);
	ck_assert_uint_eq(m->addr_raw_len, sizeof(si_raw));
	ck_assert_mem_eq(m->addr_raw, si_raw, sizeof(si_raw));
	free(m);
	m = ho_pend_error(&s->pend[1]);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(m->msgid, 43);
	ck_assert_uint_eq(m->netfn, 0x0b);
	ck_assert_uint_eq(m->data[0], IPMI_TIMEOUT_ERR);
	/* stock's timeout answer: the address in reply form */
	ck_assert_int_eq(m->addr.addr_type, IPMI_IPMB_ADDR_TYPE);
	ck_assert_uint_eq(m->addr.slave_addr, 0x72);
	free(m);
	free(s);
}
END_TEST

/* After a crash: every journaled request of a file opened before it gets
 * its error answer; a file that read its answers gets none. */
START_TEST(crash_answers)
{
	struct ho_pends *s = calloc(1, sizeof(*s));
	struct ipmi_request a = si_req(10), b = si_req(11), c8 = si_req(10);
	struct client *c;
	struct kmsg *m;
	struct rig r;

	rig_init(&r, s);
	ck_assert(ho_pend_add(s, 7, 3, &a));
	ck_assert(ho_pend_add(s, 7, 5, &b));
	ck_assert(ho_pend_add(s, 8, 7, &c8));
	ck_assert(ho_pend_add(s, 9, 9, &a));
	ho_pend_done(s, 9, 10);
	ck_assert_uint_eq(ho_pend_answer(&r.n, s), 3);
	c = rig_client(&r, 7);
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(c->rq_len, 2);
	m = TAILQ_FIRST(&c->rq);
	ck_assert_int_eq(m->msgid, 10);
	ck_assert_uint_eq(m->data[0], 0xff);
	ck_assert_int_eq(TAILQ_NEXT(m, link)->msgid, 11);
	c = rig_client(&r, 8);
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(c->rq_len, 1);
	ck_assert_ptr_null(rig_client(&r, 9));
	/* the entries stay until read: a second crash answers again */
	ck_assert_uint_eq(used(s), 3);
	rig_fini(&r);
	free(s);
}
END_TEST

/* After a graceful restart the queue came over: a request answered in it
 * gets nothing more, one without its answer there gets the error. */
START_TEST(graceful_answers_only_missing)
{
	struct ho_pends *s = calloc(1, sizeof(*s));
	struct ipmi_request a = si_req(20);
	struct ipmb_user_msg u = { .recv_type = IPMI_RESPONSE_RECV_TYPE,
				   .msgid = 20,
				   .netfn = 0x07,
				   .cmd = 1,
				   .data_len = 1 };
	struct client *c;
	struct rig r;

	rig_init(&r, s);
	c = handover_client(&r.n, 4, getpid(), getuid());
	ck_assert_ptr_nonnull(c);
	client_deliver(c, kmsg_new(&u)); /* its restored answer */
	ck_assert(ho_pend_add(s, 4, 3, &a));
	ck_assert(ho_pend_add(s, 4, 5, &a)); /* the same msgid, twice */
	ck_assert_uint_eq(ho_pend_answer(&r.n, s), 1);
	ck_assert_uint_eq(c->rq_len, 2);
	ck_assert_uint_eq(TAILQ_LAST(&c->rq, kmsg_list)->data[0], 0xff);
	ck_assert_uint_eq(ho_pend_answer(&r.n, s), 0);
	rig_fini(&r);
	free(s);
}
END_TEST

/* A graceful restart carries each file's receive queue and command
 * registrations to the next process. */
START_TEST(graceful_carries_cmdregs)
{
	struct rig r1, r2;
	struct handover h2;
	struct handover *h1;
	struct client *c, *c2;
	struct cmdreg_ent e = { 0x32, 0x42, 0x3 }, e2 = { 0x2c, 0x01, 0x1 };
	struct ipmb_user_msg u = { .recv_type = IPMI_ASYNC_EVENT_RECV_TYPE,
				   .msgid = 0,
				   .data_len = 2,
				   .data = { 1, 2 } };
	char *cause = NULL;

	rig_init(&r1, NULL);
	ck_assert_int_eq(handover_init(&r1.d, &cause), 0);
	h1 = r1.d.fe->ho;
	r1.rt.sh = &h1->sh->nodes[0];
	r1.rt.pend = &ho_pendtab_of(h1->sh)->nodes[0];
	c = handover_client(&r1.n, 12, getpid(), getuid());
	ck_assert_ptr_nonnull(c);
	c->gets_events = true;
	ck_assert_int_eq(cmdreg_restore(c, &e), 0);
	ck_assert_int_eq(cmdreg_restore(c, &e2), 0);
	ck_assert_int_eq(cmdreg_restore(c, &e), -EBUSY);
	client_deliver(c, kmsg_new(&u));
	h1->graceful = true;
	handover_save(&r1.d);
	ck_assert_uint_gt(h1->sh->blob_len, 0);

	/* the next process: the same memfd, no clients yet */
	rig_init(&r2, NULL);
	memset(&h2, 0, sizeof(h2));
	h2.sh = h1->sh;
	h2.memfd = -1;
	r2.d.fe->ho = &h2;
	r2.rt.sh = &h2.sh->nodes[0];
	r2.rt.pend = &ho_pendtab_of(h2.sh)->nodes[0];
	ho_restore(&r2.d, &h2);
	ck_assert_uint_eq(h2.sh->blob_len, 0); /* used once */
	c2 = rig_client(&r2, 12);
	ck_assert_ptr_nonnull(c2);
	ck_assert(c2->gets_events);
	ck_assert_uint_eq(c2->rq_len, 1);
	ck_assert_uint_eq(c2->nregs, 2);
	ck_assert_ptr_eq(cmdreg_lookup(&r2.d, 0x32, 0x42, 1), c2);
	ck_assert_ptr_eq(cmdreg_lookup(&r2.d, 0x2c, 0x01, 0), c2);
	ck_assert_ptr_null(cmdreg_lookup(&r2.d, 0x32, 0x42, 2));
	rig_fini(&r2);

	/* a node without "commands" now: the registrations stay behind */
	h1->graceful = true;
	handover_save(&r1.d);
	rig_init(&r2, NULL);
	r2.n.conf.commands = false;
	h2.sh = h1->sh;
	r2.d.fe->ho = &h2;
	r2.rt.sh = &h2.sh->nodes[0];
	r2.rt.pend = &ho_pendtab_of(h2.sh)->nodes[0];
	ho_restore(&r2.d, &h2);
	c2 = rig_client(&r2, 12);
	ck_assert_ptr_nonnull(c2);
	ck_assert_uint_eq(c2->nregs, 0);
	rig_fini(&r2);

	handover_fini(&r1.d);
	rig_fini(&r1);
}
END_TEST

/* A graceful restart carries the leases in force, each to its deadline:
 * a firmware update or a fan controller's lease goes on. A
 * lease past its deadline stays behind, and so does one whose node is
 * gone from the configuration. */
START_TEST(graceful_carries_leases)
{
	struct rig r1, r2;
	struct handover h2;
	struct handover *h1;
	uint64_t until;
	char *cause = NULL;

	rig_init(&r1, NULL);
	ck_assert_int_eq(handover_init(&r1.d, &cause), 0);
	h1 = r1.d.fe->ho;
	ck_assert_int_eq(leasegate_take(&r1.d, &r1.n, LEASE_FAN_OEM,
					60000000000ull, NULL),
			 0);
	ck_assert_int_eq(leasegate_take(&r1.d, &r1.n, LEASE_USERS, 1, NULL), 0);
	until = r1.d.leases.l[1].until_ns;
	ck_assert_uint_gt(until, now_ns() + 59000000000ull);
	h1->graceful = true;
	handover_save(&r1.d);

	rig_init(&r2, NULL);
	memset(&h2, 0, sizeof(h2));
	h2.sh = h1->sh;
	h2.memfd = -1;
	r2.d.fe->ho = &h2;
	ho_restore(&r2.d, &h2);
	ck_assert_ptr_eq(r2.d.leases.l[1].holder, &r2.n); /* fan-oem */
	/* the same deadline, but for the restore's two reads of the clock */
	ck_assert_uint_ge(r2.d.leases.l[1].until_ns, until);
	ck_assert_uint_lt(r2.d.leases.l[1].until_ns, until + 1000000);
	ck_assert_ptr_null(r2.d.leases.l[2].holder); /* users: past */
	ck_assert_ptr_null(r2.d.leases.l[0].holder);
	rig_fini(&r2);

	/* the node is gone from the configuration: no holder */
	h1->graceful = true;
	handover_save(&r1.d);
	rig_init(&r2, NULL);
	snprintf(r2.n.conf.name, sizeof(r2.n.conf.name), "ipmi8");
	h2.sh = h1->sh;
	r2.d.fe->ho = &h2;
	ho_restore(&r2.d, &h2);
	for (unsigned int i = 0; i < LEASE_NCLASSES; i++)
		ck_assert_ptr_null(r2.d.leases.l[i].holder);
	rig_fini(&r2);

	handover_fini(&r1.d);
	rig_fini(&r1);
}
END_TEST

/* fd 3 as the store's kcsmux-state for handover_init(); the old fd 3
 * in *saved. */
static void listen_state(int fd, int *saved)
{
	char pid[16];

	*saved = dup(3);
	ck_assert_int_eq(dup2(fd, 3), 3);
	close(fd);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	setenv("LISTEN_PID", pid, 1);
	setenv("LISTEN_FDS", "1", 1);
	setenv("LISTEN_FDNAMES", "kcsmux-state", 1);
}

/* A graceful exit after a complete channel scan leaves the media: the
 * next process takes them once, and skips its scan (bmcsetup.c). */
START_TEST(graceful_media_taken)
{
	struct rig r1, r2;
	struct handover *h1;
	char *cause = NULL;
	int saved;

	rig_init(&r1, NULL);
	ck_assert_int_eq(handover_init(&r1.d, &cause), 0);
	h1 = r1.d.fe->ho;
	r1.rt.sh = &h1->sh->nodes[0];
	r1.rt.pend = &ho_pendtab_of(h1->sh)->nodes[0];
	r1.d.media_ready = true;
	r1.d.bs.scanned = true;
	r1.d.bs.scan_busy = 1; /* a channel said "not now": scan again */
	r1.d.media[1] = 4;
	h1->graceful = true;
	handover_save(&r1.d);
	ck_assert_uint_eq(ho_pendtab_of(h1->sh)->media_ok, 0);
	r1.d.bs.scan_busy = 0;
	handover_save(&r1.d);
	ck_assert_uint_eq(ho_pendtab_of(h1->sh)->media_ok, 1);

	listen_state(dup(h1->memfd), &saved);
	rig_init(&r2, NULL);
	ck_assert_int_eq(handover_init(&r2.d, &cause), 0);
	ck_assert(r2.d.media_ready);
	ck_assert(r2.d.bs.scanned);
	ck_assert_uint_eq(r2.d.media[1], 4);
	ck_assert_uint_eq(ho_pendtab_of(h1->sh)->media_ok, 0); /* once */
	handover_fini(&r2.d);
	rig_fini(&r2);
	handover_fini(&r1.d);
	rig_fini(&r1);
	if (saved >= 0) {
		dup2(saved, 3);
		close(saved);
	}
}
END_TEST

/* An upgrade from a version 1 process: its memfd (without the journal)
 * is taken, grown to hold the journal, and read as it was. */
START_TEST(v1_memfd_grown)
{
	int fd = memfd_create("kcsmux-state", 0), saved;
	struct ho_shared *sh;
	struct handover *h;
	struct stat st;
	char *cause = NULL;
	struct rig r;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, (off_t)HO_SIZE_V1), 0);
	sh = mmap(NULL, HO_SIZE_V1, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ck_assert_ptr_ne(sh, MAP_FAILED);
	sh->magic = HO_MAGIC;
	sh->version = 1;
	sh->next_client_id = 77;
	snprintf(sh->nodes[0].name, sizeof(sh->nodes[0].name), "ipmi7");
	munmap(sh, HO_SIZE_V1);
	listen_state(fd, &saved);
	rig_init(&r, NULL);
	ck_assert_int_eq(handover_init(&r.d, &cause), 0);
	h = r.d.fe->ho;
	ck_assert(h->used);
	ck_assert_uint_eq(h->sh->version, HO_VERSION);
	ck_assert_uint_eq(r.d.next_client_id, 77);
	ck_assert_str_eq(h->sh->nodes[0].name, "ipmi7");
	ck_assert_int_eq(fstat(h->memfd, &st), 0);
	ck_assert_uint_eq((size_t)st.st_size, HO_SIZE);
	ck_assert_uint_eq(ho_pendtab_of(h->sh)->nodes[0].npend, 0);
	handover_fini(&r.d);
	rig_fini(&r);
	if (saved >= 0) {
		dup2(saved, 3);
		close(saved);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("handover");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, journal_kept_and_cleared);
	tcase_add_test(tc, journal_full);
	tcase_add_test(tc, error_si_and_bridged);
	tcase_add_test(tc, crash_answers);
	tcase_add_test(tc, graceful_answers_only_missing);
	tcase_add_test(tc, graceful_carries_cmdregs);
	tcase_add_test(tc, graceful_carries_leases);
	tcase_add_test(tc, v1_memfd_grown);
	tcase_add_test(tc, graceful_media_taken);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
