// SPDX-License-Identifier: GPL-2.0
/*
 * daemon_reload() (fused/control/reload.c) when a new node cannot be made:
 * a name whose /dev entry exists ([node null]) refuses the reload before
 * anything changes; a node_create() that fails anyway (a CUSE error) is
 * reported, and the running configuration lists only the nodes that run.
 * The nodes, devices and clients are stubs; reload.c, config/ and
 * policy.c are the real ones.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <kcsmux/control.h>

#include "kcsmuxd.h"
#include "core/leasegate.h"
#include "cuse/handover.h"
#include "util/error.h"
#include "util/log.h"

static int created, destroyed;

int node_name_check(const char *name, char **cause)
{
	if (strcmp(name, "null") != 0)
		return 0;
	return error_set(cause, "node null: /dev/null already exists");
}

int node_create(struct daemon *d, const struct kcsmux_node_conf *conf,
		char **cause)
{
	struct node *n;

	if (strcmp(conf->name, "cusefail") == 0) {
		return error_set(cause, "node cusefail: CUSE said no");
	}
	n = calloc(1, sizeof(*n));
	ck_assert_ptr_nonnull(n);
	n->d = d;
	n->conf = *conf;
	LIST_INIT(&n->clients);
	LIST_INSERT_HEAD(&d->nodes, n, link);
	created++;
	return 0;
}

void node_destroy(struct node *n)
{
	LIST_REMOVE(n, link);
	free(n);
	destroyed++;
}

int node_set_owner_mode(const struct node *n, uid_t uid, gid_t gid, mode_t mode,
			mode_t narrow)
{
	(void)n;
	(void)uid;
	(void)gid;
	(void)mode;
	(void)narrow;
	return 0;
}

void client_revoke(struct client *c)
{
	(void)c;
}

void cmdreg_client_gone(struct client *c)
{
	(void)c;
}

void handover_pend_forget(const struct client *c)
{
	(void)c;
}

void sched_flow_update(struct sched *s, struct sched_flow *f,
		       const struct kcsmux_policy *pol, uint64_t now)
{
	(void)s;
	(void)f;
	(void)pol;
	(void)now;
}

void leasegate_conf(struct daemon *d, uint64_t now)
{
	(void)d;
	(void)now;
}

uint64_t now_ns(void)
{
	return 0;
}

static char path[64];

static void write_conf(const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

static struct daemon d;

static void start(void)
{
	char *cause = NULL;

	snprintf(path, sizeof(path), "/tmp/kcsmux-reload-%d.conf",
		 (int)getpid());
	write_conf("[node a]\naccess = all\n[node b]\naccess = all\n");
	memset(&d, 0, sizeof(d));
	d.cfg_path = path;
	LIST_INIT(&d.nodes);
	created = destroyed = 0;
	ck_assert_int_eq(config_load(&d.cfg, path, &cause), 0);
	ck_assert_int_eq(node_create(&d, &d.cfg.nodes[0], &cause), 0);
	ck_assert_int_eq(node_create(&d, &d.cfg.nodes[1], &cause), 0);
}

static void stop(void)
{
	struct node *n;

	unlink(path);
	while ((n = LIST_FIRST(&d.nodes)))
		node_destroy(n);
	config_free(&d.cfg);
}

/* the names of the running nodes, in list order, "a b" */
static void running(char *buf, size_t len)
{
	struct node *n;

	buf[0] = '\0';
	LIST_FOREACH (n, &d.nodes, link)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
			 buf[0] ? " " : "", n->conf.name);
}

/* b goes, null comes: null's /dev name is taken, so nothing changes */
START_TEST(test_reload_taken_name)
{
	char *cause = NULL, names[64];
	int rv;

	start();
	write_conf("[node a]\naccess = all\n[node null]\naccess = all\n");
	rv = daemon_reload(&d, &cause);
	running(names, sizeof(names));
	ck_assert_int_lt(rv, 0);
	ck_assert_ptr_nonnull(cause);
	ck_assert_msg(strstr(cause, "/dev/null already exists") &&
			      strstr(cause, "nothing was changed"),
		      "cause: %s", cause);
	ck_assert_int_eq(destroyed, 0);
	ck_assert_str_eq(names, "b a");
	ck_assert_uint_eq(d.cfg.nnodes, 2);
	free(cause);
	stop();
}
END_TEST

/* b goes, c and cusefail come, cusefail fails: reported, not listed */
START_TEST(test_reload_create_fails)
{
	char *cause = NULL, names[64];
	int rv;
	size_t i;

	start();
	write_conf("[node a]\naccess = all\n[node cusefail]\n"
		   "access = all\n[node c]\naccess = all\n");
	rv = daemon_reload(&d, &cause);
	running(names, sizeof(names));
	ck_assert_int_lt(rv, 0);
	ck_assert_ptr_nonnull(cause);
	ck_assert_msg(strstr(cause, "1 new node(s) could not be created") &&
			      strstr(cause, "CUSE said no") &&
			      strstr(cause, "the rest was applied"),
		      "cause: %s", cause);
	ck_assert_str_eq(names, "c a");
	ck_assert_uint_eq(d.cfg.nnodes, 2);
	for (i = 0; i < d.cfg.nnodes; i++)
		ck_assert_str_ne(d.cfg.nodes[i].name, "cusefail");
	free(cause);
	stop();
}
END_TEST

/* backend_async_dev is opened once, as root, at start: a change (here,
 * naming it where sysfs found it before) is refused whole. */
START_TEST(test_reload_async_dev_changed)
{
	char *cause = NULL, names[64];
	int rv;

	start();
	write_conf("[global]\nbackend_async_dev = /dev/ipmi0\n"
		   "[node a]\naccess = all\n[node c]\naccess = all\n");
	rv = daemon_reload(&d, &cause);
	running(names, sizeof(names));
	ck_assert_int_lt(rv, 0);
	ck_assert_msg(cause && strstr(cause, "needs a restart"), "cause: %s",
		      cause ? cause : "(none)");
	ck_assert_str_eq(names, "b a");
	ck_assert_ptr_null(d.cfg.backend_async_dev);
	free(cause);
	stop();
}
END_TEST

/* The plan (kcsmuxctl reload --dry-run): what would go, come and change,
 * and nothing of it done; a file the reload would refuse is refused. */
START_TEST(test_reload_plan)
{
	struct ctl_buf b;
	struct client cl;
	struct node *nb = NULL, *n;
	char *cause = NULL, names[64];
	const char *want;

	start();
	LIST_FOREACH (n, &d.nodes, link)
		if (strcmp(n->conf.name, "b") == 0)
			nb = n;
	ck_assert_ptr_nonnull(nb);
	memset(&cl, 0, sizeof(cl));
	cl.pid = 812;
	cl.uid = 0;
	LIST_INSERT_HEAD(&nb->clients, &cl, link);
	nb->nclients = 1;
	write_conf("[global]\nuser = nobody\nevent_backlog = 7\n"
		   "[node a]\naccess = monitoring\npoll_us = 300\n"
		   "mode = 0660\n[node c]\naccess = all\n");
	ctl_buf_init(&b);
	ck_assert_int_eq(daemon_reload_plan(&d, &b, &cause), 0);
	ck_assert(!b.oom);
	want = "remove=b (1 client: pid 812 uid 0)\n"
	       "change=a: poll_us 100 -> 300\n"
	       "change=a: poll_max_us 100 -> 300\n"
	       "change=a: access all -> monitoring\n"
	       "change=a: owner 0:0 mode 0600 -> 0:0 mode 0660\n"
	       "change=a: commands yes -> no\n"
	       "add=c (policy normal, access all)\n"
	       "change=[global] event_backlog\n"
	       "note=[global] user changed: it needs a restart, the reload "
	       "keeps the running value\n";
	ck_assert_msg(b.data != NULL && strcmp(b.data, want) == 0, "plan:\n%s",
		      b.data ? b.data : "(none)");
	ctl_buf_free(&b);
	/* nothing applied */
	running(names, sizeof(names));
	ck_assert_str_eq(names, "b a");
	ck_assert_int_eq(destroyed, 0);
	ck_assert_int_eq(created, 2);
	/* the same file as running: an empty plan */
	write_conf("[node a]\naccess = all\n[node b]\naccess = all\n");
	ctl_buf_init(&b);
	ck_assert_int_eq(daemon_reload_plan(&d, &b, &cause), 0);
	ck_assert_uint_eq(b.len, 0);
	ctl_buf_free(&b);
	/* refused as the reload would be */
	write_conf("[node a]\naccess = all\n[node null]\naccess = all\n");
	ctl_buf_init(&b);
	ck_assert_int_lt(daemon_reload_plan(&d, &b, &cause), 0);
	ck_assert_msg(strstr(cause, "/dev/null already exists") != NULL,
		      "cause: %s", cause);
	free(cause);
	ctl_buf_free(&b);
	LIST_REMOVE(&cl, link);
	stop();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("reload");
	TCase *tc = tcase_create("reload");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_reload_taken_name);
	tcase_add_test(tc, test_reload_create_fails);
	tcase_add_test(tc, test_reload_plan);
	tcase_add_test(tc, test_reload_async_dev_changed);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
