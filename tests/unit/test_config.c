// SPDX-License-Identifier: GPL-2.0
/*
 * Check suite for fused/config/config*.c and fused/core/policy.c: kcsmux.conf parsing,
 * policy presets and keys, access sets. Expected values are written out
 * literally (not taken from policy_preset()) so that a change to a default
 * or a preset fails here and gets docs/man/kcsmux.conf.5 updated too.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "config/config.h"
#include "core/policy.h"
#include "core/lease.h"
#include "util/array.h"

static struct kcsmux_config cfg;
static char *cause;

static void setup(void)
{
	memset(&cfg, 0, sizeof(cfg));
	cause = NULL;
}

static void teardown(void)
{
	config_free(&cfg);
	free(cause);
	cause = NULL;
}

static int load(const char *text)
{
	free(cause);
	cause = NULL;
	config_free(&cfg);
	return config_load_string(&cfg, text, "t.conf", &cause);
}

static void load_ok(const char *text)
{
	int ret = load(text);

	ck_assert_msg(ret == 0, "config failed:\n%s\n--- for:\n%s",
		      cause ? cause : "(null)", text);
	ck_assert_ptr_null(cause);
}

static size_t count_lines(const char *s)
{
	size_t n = 1;

	for (; *s != '\0'; s++)
		n += *s == '\n';
	return n;
}

/* TEXT fails with exactly NERR errors, one of them containing WANT. */
static void load_fails(const char *text, const char *want, size_t nerr)
{
	ck_assert_int_eq(load(text), -1);
	ck_assert_ptr_nonnull(cause);
	ck_assert_msg(strstr(cause, want) != NULL,
		      "want \"%s\" in:\n%s\n--- for:\n%s", want, cause, text);
	ck_assert_msg(count_lines(cause) == nerr,
		      "want %zu errors, got:\n%s\n--- for:\n%s", nerr, cause,
		      text);
	ck_assert_uint_eq(cfg.nnodes, 0); /* zeroed on failure */
	ck_assert_ptr_null(cfg.nodes);
	ck_assert_ptr_null(cfg.device);
}

#define POL(busy, pu, pm, bo, irq, ppm, lat, pr, w, rate, b, q)  \
	((struct kcsmux_policy){ .max_busy_us = (busy),          \
				 .poll_us = (pu),                \
				 .poll_max_us = (pm),            \
				 .backoff = KCSMUX_BACKOFF_##bo, \
				 .use_irq = (irq),               \
				 .cpu_budget_ppm = (ppm),        \
				 .latency_target_us = (lat),     \
				 .prio = KCSMUX_PRIO_##pr,       \
				 .weight = (w),                  \
				 .rate_milli = (rate),           \
				 .burst = (b),                   \
				 .queue = (q) })

/* The documented presets (kcsmux.conf(5), PRESETS). */
#define POL_NORMAL POL(0, 100, 100, FIXED, true, 0, 0, NORMAL, 100, 0, 10, 64)
#define POL_INTERACTIVE \
	POL(2000, 50, 100, EXP, true, 0, 0, INTERACTIVE, 100, 0, 10, 64)
#define POL_MONITOR \
	POL(0, 200, 1000, EXP, true, 10000, 0, NORMAL, 100, 150000, 50, 64)
#define POL_BULK POL(0, 500, 4000, EXP, true, 0, 0, BULK, 100, 0, 10, 64)

static void expect_policy(const struct kcsmux_policy *got,
			  struct kcsmux_policy want)
{
	ck_assert_uint_eq(got->max_busy_us, want.max_busy_us);
	ck_assert_uint_eq(got->poll_us, want.poll_us);
	ck_assert_uint_eq(got->poll_max_us, want.poll_max_us);
	ck_assert_int_eq(got->backoff, want.backoff);
	ck_assert_int_eq(got->use_irq, want.use_irq);
	ck_assert_uint_eq(got->cpu_budget_ppm, want.cpu_budget_ppm);
	ck_assert_uint_eq(got->latency_target_us, want.latency_target_us);
	ck_assert_int_eq(got->prio, want.prio);
	ck_assert_uint_eq(got->weight, want.weight);
	ck_assert_uint_eq(got->rate_milli, want.rate_milli);
	ck_assert_uint_eq(got->burst, want.burst);
	ck_assert_uint_eq(got->queue, want.queue);
}

static const struct kcsmux_node_conf *node(const char *name)
{
	const struct kcsmux_node_conf *n = config_find_node(&cfg, name);

	ck_assert_msg(n != NULL, "no node %s", name);
	return n;
}

START_TEST(test_full)
{
	const struct kcsmux_node_conf *n;

	load_ok("; kcsmux.conf\n"
		"[global]\n"
		"backend = ipmidev\n"
		"device = /dev/ipmi3\n"
		"backend_async_dev = /dev/ipmi1\n"
		"control_socket = /run/k/ctl.sock\n"
		"admin_group = 0\n"
		"max_outstanding = 50\n"
		"max_clients = 8\n"
		"event_backlog = 0\n"
		"log_level = debug\n"
		"user = root\n"
		"metrics_listen = 127.0.0.1:9623\n"
		"metrics_textfile = /var/lib/prometheus/node-exporter/kcsmux.prom\n"
		"\n"
		"[node ipmi1]\n" /* line 15 */
		"owner = root\n"
		"group = 4242\n"
		"mode = 0640\n"
		"policy = interactive\n"
		"max_busy_us = 3000\n"
		"poll_us = 100\n"
		"poll_max_us = 2000\n"
		"backoff = fixed\n"
		"use_irq = no\n"
		"cpu_budget = 2.5%\n"
		"latency_target_us = 5000\n"
		"priority = bulk\n"
		"weight = 200\n"
		"rate = 12.5\n"
		"burst = 5\n"
		"queue = 32\n"
		"access = readonly\n"
		"allow = 0x06:0x34, app:0x22\n"
		"deny = 0x0a:0x40-0x43\n"
		"events = no\n"
		"max_outstanding = 7\n"
		"max_clients = 3\n"
		"\n"
		"[node mon.1]\n" /* line 39 */
		"policy = monitor\n");

	ck_assert_int_eq(cfg.backend, KCSMUX_BACKEND_IPMIDEV);
	ck_assert_str_eq(cfg.device, "/dev/ipmi3");
	ck_assert_str_eq(cfg.backend_async_dev, "/dev/ipmi1");
	ck_assert_str_eq(cfg.control_socket, "/run/k/ctl.sock");
	ck_assert_str_eq(cfg.admin_group, "0");
	ck_assert_uint_eq(cfg.admin_gid, 0);
	ck_assert_uint_eq(cfg.max_outstanding, 50);
	ck_assert_uint_eq(cfg.max_clients, 8);
	ck_assert_uint_eq(cfg.event_backlog, 0);
	ck_assert_int_eq(cfg.log_level, LOG_DEBUG);
	ck_assert_str_eq(cfg.user, "root");
	ck_assert_uint_eq(cfg.user_uid, 0);
	ck_assert_uint_eq(cfg.user_gid, 0);
	ck_assert_str_eq(cfg.metrics_listen, "127.0.0.1:9623");
	ck_assert_str_eq(cfg.metrics_textfile,
			 "/var/lib/prometheus/node-exporter/kcsmux.prom");
	ck_assert_uint_eq(cfg.nnodes, 2);

	n = &cfg.nodes[0];
	ck_assert_str_eq(n->name, "ipmi1");
	ck_assert_int_eq(n->line, 16);
	ck_assert_uint_eq(n->uid, 0);
	ck_assert_uint_eq(n->gid, 4242);
	ck_assert_uint_eq(n->mode, 0640);
	ck_assert_int_eq(n->preset, KCSMUX_PRESET_INTERACTIVE);
	expect_policy(&n->pol, POL(3000, 100, 2000, FIXED, false, 25000, 5000,
				   BULK, 200, 12500, 5, 32));
	ck_assert_int_eq(n->acc.preset, KCSMUX_ACCESS_READONLY);
	ck_assert(access_allows(&n->acc, 0x06, 0x01)); /* readonly */
	ck_assert(access_allows(&n->acc, 0x06, 0x34)); /* allow */
	ck_assert(access_allows(&n->acc, 0x06, 0x22));
	ck_assert(!access_allows(&n->acc, 0x0a, 0x40)); /* deny */
	ck_assert(!access_allows(&n->acc, 0x0a, 0x43));
	ck_assert(access_allows(&n->acc, 0x0a, 0x48));
	ck_assert(!access_allows(&n->acc, 0x00, 0x02)); /* not readonly */
	ck_assert(!n->events);
	ck_assert_uint_eq(n->max_outstanding, 7);
	ck_assert_uint_eq(n->max_clients, 3);

	n = &cfg.nodes[1];
	ck_assert_str_eq(n->name, "mon.1");
	ck_assert_int_eq(n->line, 40);
	ck_assert_uint_eq(n->mode, 0600);
	ck_assert_int_eq(n->preset, KCSMUX_PRESET_MONITOR);
	expect_policy(&n->pol, POL_MONITOR);
	ck_assert_int_eq(n->acc.preset, KCSMUX_ACCESS_ALL);
	ck_assert(n->events);
	ck_assert_uint_eq(n->max_outstanding, 50); /* from [global] */
	ck_assert_uint_eq(n->max_clients, 8);
	ck_assert_ptr_eq(config_find_node(&cfg, "mon.1"), n);
	ck_assert_ptr_null(config_find_node(&cfg, "mon"));
}
END_TEST

START_TEST(test_defaults)
{
	const struct kcsmux_node_conf *n;
	char *s;

	load_ok("[node a]\n");
	ck_assert_int_eq(cfg.backend, KCSMUX_BACKEND_KCSRAW);
	ck_assert_str_eq(cfg.device, "/dev/kcsraw0");
	ck_assert_ptr_null(cfg.backend_async_dev); /* found in sysfs */
	ck_assert_str_eq(cfg.control_socket, "/run/kcsmux/control.sock");
	ck_assert_str_eq(cfg.admin_group, "root");
	ck_assert_uint_eq(cfg.admin_gid, 0);
	ck_assert_uint_eq(cfg.max_outstanding, 100);
	ck_assert_uint_eq(cfg.max_clients, 30);
	ck_assert_uint_eq(cfg.event_backlog, 25);
	ck_assert_int_eq(cfg.log_level, LOG_INFO);
	ck_assert_ptr_null(cfg.user);
	ck_assert_ptr_null(cfg.metrics_listen);
	ck_assert_ptr_null(cfg.metrics_textfile);
	ck_assert_uint_eq(cfg.nnodes, 1);

	n = node("a");
	ck_assert_int_eq(n->line, 1);
	ck_assert_uint_eq(n->uid, 0);
	ck_assert_uint_eq(n->gid, 0);
	ck_assert_uint_eq(n->mode, 0600);
	ck_assert_int_eq(n->preset, KCSMUX_PRESET_NORMAL);
	expect_policy(&n->pol, POL_NORMAL);
	ck_assert_int_eq(n->acc.preset, KCSMUX_ACCESS_ALL);
	ck_assert(access_allows(&n->acc, 0x00, 0x00));
	ck_assert(access_allows(&n->acc, 0x3e, 0xff));
	s = cmdset_format(&n->acc.eff);
	ck_assert_str_eq(s, "*");
	free(s);
	ck_assert(n->events);
	ck_assert_uint_eq(n->max_outstanding, 100);
	ck_assert_uint_eq(n->max_clients, 30);

	load_ok("[global]\nbackend = ipmidev\n[node a]\n");
	ck_assert_str_eq(cfg.device, "/dev/ipmi0");

	/* Events by default only where the rules may read the SEL (Get
	 * SEL Entry 0a:43): not on none or sensors, nor where a deny
	 * takes it away (a client may subscribe there, and gets none); an
	 * events line decides either way. */
	load_ok("[node n]\naccess = none\n[node s]\naccess = sensors\n"
		"[node r]\naccess = readonly\n[node m]\naccess = monitoring\n"
		"[node d]\ndeny = storage:43\n[node e]\naccess = none\n"
		"events = yes\n[node f]\nevents = no\n");
	ck_assert_msg(node("n")->events_quiet, "access = none gets events");
	ck_assert(node("n")->events);
	ck_assert(node("s")->events_quiet);
	ck_assert(!node("r")->events_quiet && node("r")->events);
	ck_assert(!node("m")->events_quiet && node("m")->events);
	ck_assert(node("d")->events_quiet);
	ck_assert(!node("e")->events_quiet && node("e")->events);
	ck_assert(!node("f")->events);

	/* Empty values that mean "off"/"none". */
	load_ok("[global]\nuser =\nadmin_group =\nmetrics_listen =\n"
		"metrics_textfile =\n[node a]\ncpu_budget =\n"
		"latency_target_us =\n");
	ck_assert_ptr_null(cfg.user);
	ck_assert_ptr_null(cfg.admin_group);
	ck_assert_uint_eq(cfg.admin_gid, (gid_t)-1);
	ck_assert_ptr_null(cfg.metrics_listen);
	ck_assert_ptr_null(cfg.metrics_textfile);
	ck_assert_uint_eq(node("a")->pol.cpu_budget_ppm, 0);
	ck_assert_uint_eq(node("a")->pol.latency_target_us, 0);
}
END_TEST

START_TEST(test_global_after_nodes)
{
	load_ok("[node a]\n[node b]\nmax_outstanding = 3\n"
		"[global]\nmax_outstanding = 5\nmax_clients = 2\n");
	ck_assert_uint_eq(node("a")->max_outstanding, 5);
	ck_assert_uint_eq(node("a")->max_clients, 2);
	ck_assert_uint_eq(node("b")->max_outstanding, 3);
	ck_assert_uint_eq(node("b")->max_clients, 2);
	ck_assert_str_eq(cfg.nodes[0].name, "a"); /* file order */
	ck_assert_str_eq(cfg.nodes[1].name, "b");
}
END_TEST

START_TEST(test_presets)
{
	load_ok("[node n]\n"
		"[node i]\npolicy = interactive\n"
		"[node m]\npolicy = monitor\n"
		"[node b]\npolicy = BULK\n"
		"[node x]\npolicy = normal\n");
	expect_policy(&node("n")->pol, POL_NORMAL);
	expect_policy(&node("i")->pol, POL_INTERACTIVE);
	expect_policy(&node("m")->pol, POL_MONITOR);
	expect_policy(&node("b")->pol, POL_BULK);
	expect_policy(&node("x")->pol, POL_NORMAL);
	ck_assert_int_eq(node("b")->preset, KCSMUX_PRESET_BULK);

	/* The table behind policy_preset() says the same. */
	expect_policy(policy_preset(KCSMUX_PRESET_NORMAL), POL_NORMAL);
	expect_policy(policy_preset(KCSMUX_PRESET_INTERACTIVE),
		      POL_INTERACTIVE);
	expect_policy(policy_preset(KCSMUX_PRESET_MONITOR), POL_MONITOR);
	expect_policy(policy_preset(KCSMUX_PRESET_BULK), POL_BULK);
	ck_assert_ptr_null(policy_preset((enum kcsmux_preset)4));
	ck_assert_str_eq(policy_preset_name(KCSMUX_PRESET_MONITOR), "monitor");
	ck_assert_ptr_null(policy_preset_name((enum kcsmux_preset)9));
}
END_TEST

/* Explicit keys win over the preset whether they come before or after. */
START_TEST(test_override_order)
{
	struct kcsmux_policy want = POL_BULK;

	want.poll_us = 300;
	want.max_busy_us = 10;
	load_ok("[node before]\npoll_us = 300\nmax_busy_us = 10\n"
		"policy = bulk\n"
		"[node after]\npolicy = bulk\npoll_us = 300\nmax_busy_us = 10\n"
		"[node around]\npoll_us = 300\npolicy = bulk\nmax_busy_us = 10\n");
	expect_policy(&node("before")->pol, want);
	expect_policy(&node("after")->pol, want);
	expect_policy(&node("around")->pol, want);

	/* Explicit keys on the default preset. */
	want = POL_NORMAL;
	want.backoff = KCSMUX_BACKOFF_ADAPTIVE;
	want.latency_target_us = 800;
	load_ok("[node a]\nbackoff = adaptive\nlatency_target_us = 800\n");
	expect_policy(&node("a")->pol, want);
}
END_TEST

START_TEST(test_poll_max)
{
	/* A preset's poll_max_us rises to an explicit, larger poll_us. */
	load_ok("[node a]\npolicy = interactive\npoll_us = 500\n");
	ck_assert_uint_eq(node("a")->pol.poll_us, 500);
	ck_assert_uint_eq(node("a")->pol.poll_max_us, 500);
	/* An explicit one does not. */
	load_fails("[node a]\npoll_us = 500\npoll_max_us = 200\n",
		   "t.conf:3: poll_max_us (200) is less than poll_us (500)", 1);
	load_fails("[node a]\npoll_max_us = 20\n",
		   "t.conf:2: poll_max_us (20) is less than poll_us (100)", 1);
	load_ok("[node a]\npoll_us = 70\npoll_max_us = 70\nbackoff=fixed\n");
	ck_assert_uint_eq(node("a")->pol.poll_max_us, 70);
}
END_TEST

START_TEST(test_unlimited)
{
	struct kcsmux_policy pol = POL_MONITOR;
	char buf[32];

	load_ok("[node a]\nmax_busy_us = unlimited\nrate = unlimited\n"
		"[node b]\nmax_busy_us = UNLIMITED\n[node c]\nmax_busy_us = 0\n"
		"[node d]\nmax_busy_us = 1000000\n");
	ck_assert_uint_eq(node("a")->pol.max_busy_us, KCSMUX_UNLIMITED);
	ck_assert_uint_eq(node("a")->pol.max_busy_us, 0xffffffffU);
	ck_assert_uint_eq(node("a")->pol.rate_milli, 0);
	ck_assert_uint_eq(node("b")->pol.max_busy_us, KCSMUX_UNLIMITED);
	ck_assert_uint_eq(node("c")->pol.max_busy_us, 0);
	ck_assert_uint_eq(node("d")->pol.max_busy_us, 1000000);
	load_fails("[node a]\nmax_busy_us = 1000001\n",
		   "t.conf:2: "
		   "max_busy_us: expected an integer from 0 to 1000000 or "
		   "'unlimited', not '1000001'",
		   1);
	load_fails("[node a]\nmax_busy_us = -1\n", "t.conf:2: max_busy_us:", 1);

	ck_assert_int_eq(policy_set_key(&pol, "max_busy_us", "unlimited", NULL),
			 0);
	ck_assert_int_eq(policy_get_key(&pol, "max_busy_us", buf, sizeof(buf)),
			 0);
	ck_assert_str_eq(buf, "unlimited");
	ck_assert_int_eq(policy_set_key(&pol, "rate", "0", NULL), 0);
	policy_get_key(&pol, "rate", buf, sizeof(buf));
	ck_assert_str_eq(buf, "unlimited");
}
END_TEST

static uint32_t set_num(const char *key, const char *v)
{
	struct kcsmux_policy pol = POL_NORMAL;
	char *c = NULL;
	int idx = policy_key_index(key);

	ck_assert_msg(policy_set_key(&pol, key, v, &c) == 0, "%s = %s: %s", key,
		      v, c);
	ck_assert_int_ge(idx, 0);
	return strcmp(key, "cpu_budget") == 0 ? pol.cpu_budget_ppm :
						pol.rate_milli;
}

static void set_fails(const char *key, const char *v, const char *want)
{
	struct kcsmux_policy pol = POL_MONITOR;
	char *c = NULL;

	ck_assert_msg(policy_set_key(&pol, key, v, &c) == -1,
		      "%s = '%s' accepted", key, v);
	ck_assert_ptr_nonnull(c);
	ck_assert_msg(strstr(c, want) != NULL, "want \"%s\" in \"%s\"", want,
		      c);
	free(c);
	expect_policy(&pol, POL_MONITOR); /* unchanged */
}

START_TEST(test_percentages)
{
	ck_assert_uint_eq(set_num("cpu_budget", "1%"), 10000);
	ck_assert_uint_eq(set_num("cpu_budget", "0.5%"), 5000);
	ck_assert_uint_eq(set_num("cpu_budget", ".25%"), 2500);
	ck_assert_uint_eq(set_num("cpu_budget", "100%"), 1000000);
	ck_assert_uint_eq(set_num("cpu_budget", "100.0000%"), 1000000);
	ck_assert_uint_eq(set_num("cpu_budget", "0.0001%"), 1);
	ck_assert_uint_eq(set_num("cpu_budget", "0%"), 0);
	ck_assert_uint_eq(set_num("cpu_budget", "007%"), 70000);
	ck_assert_uint_eq(set_num("cpu_budget", ""), 0);
	ck_assert_uint_eq(set_num("cpu_budget", "none"), 0);
	set_fails("cpu_budget", "0.5",
		  "cpu_budget: expected a number from "
		  "0% to 100% with up to 4 decimals or 'none', not '0.5'");
	set_fails("cpu_budget", "100.0001%", "not '100.0001%'");
	set_fails("cpu_budget", "101%", "not '101%'");
	set_fails("cpu_budget", "0.00001%", "up to 4 decimals");
	set_fails("cpu_budget", "-1%", "not '-1%'");
	set_fails("cpu_budget", "1.%", "not '1.%'");
	set_fails("cpu_budget", "%", "not '%'");
	set_fails("cpu_budget", "1%%", "not '1%%'");
	set_fails("cpu_budget", "1 %", "not '1 %'");
	set_fails("cpu_budget", "1.2.3%", "not '1.2.3%'");
	set_fails("cpu_budget", "99999999999999999999%", "cpu_budget:");

	ck_assert_uint_eq(set_num("rate", "12.5"), 12500);
	ck_assert_uint_eq(set_num("rate", "0.001"), 1);
	ck_assert_uint_eq(set_num("rate", "50"), 50000);
	ck_assert_uint_eq(set_num("rate", "100000"), 100000000);
	set_fails("rate", "100000.001",
		  "rate: expected a number from 0 to "
		  "100000 with up to 3 decimals or 'unlimited'");
	set_fails("rate", "1e3", "not '1e3'");
	set_fails("rate", "0.0005", "not '0.0005'");
	set_fails("rate", "", "not ''");
	set_fails("rate", "5%", "not '5%'");
}
END_TEST

START_TEST(test_policy_set_key)
{
	struct kcsmux_policy pol = POL_NORMAL;
	char *c = NULL;

	ck_assert_int_eq(policy_set_key(&pol, "poll_us", "1", &c), 0);
	ck_assert_int_eq(policy_set_key(&pol, "weight", "10000", &c), 0);
	ck_assert_int_eq(policy_set_key(&pol, "backoff", "Exp", &c), 0);
	ck_assert_int_eq(policy_set_key(&pol, "use_irq", "off", &c), 0);
	ck_assert_int_eq(policy_set_key(&pol, "priority", "interactive", &c),
			 0);
	ck_assert_int_eq(policy_set_key(&pol, "queue", "1", &c), 0);
	ck_assert_int_eq(policy_set_key(&pol, "burst", "10000", &c), 0);
	ck_assert_int_eq(policy_set_key(&pol, "latency_target_us", "60000000",
					&c),
			 0);
	expect_policy(&pol, POL(0, 1, 100, EXP, false, 0, 60000000, INTERACTIVE,
				10000, 0, 10000, 1));
	ck_assert_ptr_null(c);

	/* "policy" replaces everything with the preset. */
	ck_assert_int_eq(policy_set_key(&pol, "policy", "monitor", &c), 0);
	expect_policy(&pol, POL_MONITOR);

	set_fails("poll_us", "0",
		  "poll_us: expected an integer from 1 to "
		  "1000000, not '0'");
	set_fails("poll_max_us", "1000001", "from 1 to 1000000");
	set_fails("weight", "0", "weight: expected an integer from 1 to 10000");
	set_fails("weight", "10001", "not '10001'");
	set_fails("weight", " 5", "not ' 5'");
	set_fails("weight", "5x", "not '5x'");
	set_fails("weight", "+5", "not '+5'");
	set_fails("burst", "0", "burst: expected an integer from 1 to 10000");
	set_fails("queue", "99999999999999999999999", "queue:");
	set_fails("latency_target_us", "60000001",
		  "from 0 to 60000000 or "
		  "'none'");
	set_fails("backoff", "expo",
		  "backoff: 'expo' is not fixed, exp or "
		  "adaptive (did you mean 'exp'?)");
	set_fails("backoff", "linear",
		  "backoff: 'linear' is not fixed, exp "
		  "or adaptive");
	set_fails("priority", "high",
		  "priority: 'high' is not interactive, "
		  "normal or bulk");
	set_fails("use_irq", "maybe",
		  "use_irq: expected yes/no, true/false, "
		  "on/off or 1/0, not 'maybe'");
	set_fails("policy", "monitr",
		  "policy: 'monitr' is not normal, "
		  "interactive, monitor or bulk (did you mean 'monitor'?)");
	set_fails("pol_us", "1",
		  "unknown policy key 'pol_us' (did you mean "
		  "'poll_us'?)");
	set_fails("colour", "1", "unknown policy key 'colour'");

	/* Booleans. */
	pol = POL_NORMAL;
	ck_assert_int_eq(policy_set_key(&pol, "use_irq", "FALSE", NULL), 0);
	ck_assert(!pol.use_irq);
	ck_assert_int_eq(policy_set_key(&pol, "use_irq", "1", NULL), 0);
	ck_assert(pol.use_irq);
	ck_assert_int_eq(policy_set_key(&pol, "use_irq", "no", NULL), 0);
	ck_assert(!pol.use_irq);
	ck_assert_int_eq(policy_set_key(&pol, "use_irq", "On", NULL), 0);
	ck_assert(pol.use_irq);
	ck_assert_int_eq(policy_set_key(&pol, "use_irq", "", NULL), -1);
}
END_TEST

START_TEST(test_policy_update)
{
	struct kcsmux_policy pol = POL_INTERACTIVE;
	char *c = NULL;

	ck_assert_int_eq(policy_check(&pol, NULL), 0);
	/* poll_us above poll_max_us: refused, nothing changed. */
	ck_assert_int_eq(policy_update(&pol, "poll_us", "5000", &c), -1);
	ck_assert_str_eq(c, "poll_max_us (100) is less than poll_us (5000)");
	free(c);
	c = NULL;
	expect_policy(&pol, POL_INTERACTIVE);
	ck_assert_int_eq(policy_update(&pol, "poll_us", "x", &c), -1);
	free(c);
	c = NULL;
	ck_assert_int_eq(policy_update(&pol, "poll_max_us", "6000", &c), 0);
	ck_assert_int_eq(policy_update(&pol, "poll_us", "5000", &c), 0);
	ck_assert_uint_eq(pol.poll_us, 5000);
	ck_assert_uint_eq(pol.poll_max_us, 6000);
	ck_assert_ptr_null(c);
}
END_TEST

/* Every key of every preset formats to text that parses back the same. */
START_TEST(test_roundtrip)
{
	struct kcsmux_policy odd = POL(KCSMUX_UNLIMITED, 7, 9, ADAPTIVE, false,
				       12345, 1, BULK, 9999, 1, 3, 2);
	struct kcsmux_policy src, dst = POL_BULK;
	const char *key;
	char buf[64];
	size_t i, k;

	for (k = 0; k <= 4; k++) {
		src = k < 4 ? *policy_preset((enum kcsmux_preset)k) : odd;
		dst = k < 4 ? odd : POL_BULK;
		for (i = 0; (key = policy_key_name(i)) != NULL; i++) {
			ck_assert_int_eq(policy_key_index(key), (int)i);
			ck_assert_int_eq(policy_get_key(&src, key, buf,
							sizeof(buf)),
					 0);
			ck_assert_msg(policy_set_key(&dst, key, buf, NULL) == 0,
				      "%s = %s", key, buf);
		}
		ck_assert_uint_eq(i, 12);
		expect_policy(&dst, src);
	}
	policy_get_key(&odd, "cpu_budget", buf, sizeof(buf));
	ck_assert_str_eq(buf, "1.2345%");
	policy_get_key(&odd, "rate", buf, sizeof(buf));
	ck_assert_str_eq(buf, "0.001");
	policy_get_key(&odd, "backoff", buf, sizeof(buf));
	ck_assert_str_eq(buf, "adaptive");
	policy_get_key(&odd, "use_irq", buf, sizeof(buf));
	ck_assert_str_eq(buf, "no");
	src = POL_MONITOR;
	policy_get_key(&src, "cpu_budget", buf, sizeof(buf));
	ck_assert_str_eq(buf, "1%");
	policy_get_key(&src, "rate", buf, sizeof(buf));
	ck_assert_str_eq(buf, "150");
	policy_get_key(&src, "latency_target_us", buf, sizeof(buf));
	ck_assert_str_eq(buf, "none");
	ck_assert_int_eq(policy_get_key(&src, "nope", buf, sizeof(buf)), -1);
	ck_assert_int_eq(policy_key_index("policy"), -1);
	ck_assert_ptr_null(policy_key_name(12));
}
END_TEST

START_TEST(test_policy_merge)
{
	struct kcsmux_policy dst = POL_BULK, src = POL_MONITOR;
	uint32_t mask = (1U << policy_key_index("cpu_budget")) |
			(1U << policy_key_index("use_irq")) |
			(1U << policy_key_index("priority"));
	struct kcsmux_policy want = POL_BULK;

	src.use_irq = false;
	want.cpu_budget_ppm = 10000;
	want.use_irq = false;
	want.prio = KCSMUX_PRIO_NORMAL;
	policy_merge(&dst, &src, mask);
	expect_policy(&dst, want);
	policy_merge(&dst, &src, 0);
	expect_policy(&dst, want);
}
END_TEST

struct bad {
	const char *text;
	const char *want;
	size_t nerr;
};

/* One of each error kind, each with its line. */
static const struct bad bad_configs[] = {
	/* sections */
	{ "[nodes a]\nx = 1\n[node b]\n",
	  "t.conf:1: unknown section "
	  "'[nodes a]' (did you mean [node NAME]?)",
	  1 },
	{ "[node b]\n[globl]\n",
	  "t.conf:2: unknown section '[globl]' (did "
	  "you mean [global]?)",
	  1 },
	{ "[node b]\n[server]\n",
	  "t.conf:2: unknown section '[server]' "
	  "(expected [global] or [node NAME])",
	  1 },
	{ "[global]\n[node b]\n[global]\n",
	  "t.conf:3: [global] given twice "
	  "(first at line 1)",
	  1 },
	{ "[global x]\n[node b]\n", "t.conf:1: [global] takes no name", 1 },
	{ "[global]\n", "t.conf: no [node NAME] section", 1 },
	{ "", "t.conf: no [node NAME] section", 1 },
	{ "[node a]\nweight = 5\n[node a]\n",
	  "t.conf:3: duplicate node 'a' "
	  "(first at line 1)",
	  1 },
	/* node names */
	{ "[node bad/name]\n",
	  "t.conf:1: node name 'bad/name': '/' is not "
	  "allowed (use A-Z a-z 0-9 _ . -)",
	  1 },
	{ "[node a b]\n", "t.conf:1: node name 'a b': ' ' is not allowed", 1 },
	{ "[node]\n", "t.conf:1: node without a name: write [node NAME]", 1 },
	{ "[node 0123456789012345678901234567890x]\n",
	  "t.conf:1: node name "
	  "'0123456789012345678901234567890x' is longer than 31 characters",
	  1 },
	{ "[node ..]\n", "t.conf:1: node name '..' must not start with '.'",
	  1 },
	{ "[node -x]\n", "t.conf:1: node name '-x' must not start with '-'",
	  1 },
	{ "[global]\nbackend = ipmidev\n[node ipmi0]\n",
	  "t.conf:3: node "
	  "'ipmi0' would be /dev/ipmi0, the backend device itself",
	  1 },
	/* keys */
	{ "[node a]\npol_us = 1\n",
	  "t.conf:2: unknown key 'pol_us' (did you "
	  "mean 'poll_us'?)",
	  1 },
	{ "[node a]\nfrobnicate = 1\n", "t.conf:2: unknown key 'frobnicate'",
	  1 },
	{ "[global]\nbackned = kcsraw\n[node a]\n",
	  "t.conf:2: unknown key "
	  "'backned' (did you mean 'backend'?)",
	  1 },
	{ "[node a]\nuser = root\n",
	  "t.conf:2: 'user' belongs in the [global] "
	  "section",
	  1 },
	{ "[global]\npoll_us = 5\n[node a]\n",
	  "t.conf:2: 'poll_us' belongs in "
	  "a [node NAME] section",
	  1 },
	{ "[global]\nallow = app\n[node a]\n",
	  "t.conf:2: 'allow' belongs in "
	  "a [node NAME] section",
	  1 },
	{ "weight = 5\n[node a]\n",
	  "t.conf:1: 'weight' before any section: "
	  "put it in [global] or [node NAME]",
	  1 },
	{ "[node a]\npoll_us = 1\npoll_us = 2\n",
	  "t.conf:3: 'poll_us' given "
	  "twice in this section (first at line 2)",
	  1 },
	{ "[node a]\nmode = 0600\n\nmode = 0600\n",
	  "t.conf:4: 'mode' given "
	  "twice in this section (first at line 2)",
	  1 },
	{ "[global]\nuser =\nuser =\n[node a]\n",
	  "t.conf:3: 'user' given "
	  "twice",
	  1 },
	{ "[node a]\n= 5\n", "t.conf:2: missing key name before '='", 1 },
	/* syntax */
	{ "[node a]\nthis is not a key\n",
	  "t.conf:2: syntax error: expected "
	  "KEY = VALUE, [SECTION] or a comment",
	  1 },
	{ "[node a\n", "t.conf:1: missing ']' in section header", 2 },
	{ "[node a] x\n", "t.conf:1: unexpected text after ']'", 2 },
	{ "[node a ;x]\n", "t.conf:1: ';' in section header", 2 },
	/* values */
	{ "[node a]\nbackoff = linear\n",
	  "t.conf:2: backoff: 'linear' is not "
	  "fixed, exp or adaptive",
	  1 },
	{ "[node a]\nweight = 0\n",
	  "t.conf:2: weight: expected an integer "
	  "from 1 to 10000, not '0'",
	  1 },
	{ "[node a]\nuse_irq = maybe\n", "t.conf:2: use_irq: expected yes/no",
	  1 },
	{ "[node a]\nevents = sometimes\n",
	  "t.conf:2: events: expected "
	  "yes/no",
	  1 },
	{ "[node a]\npolicy = fast\n",
	  "t.conf:2: policy: 'fast' is not "
	  "normal, interactive, monitor or bulk",
	  1 },
	{ "[node a]\naccess = ro\n",
	  "t.conf:2: access: 'ro' is not none, "
	  "readonly, sensors, monitoring or all",
	  1 },
	{ "[node a]\nmax_outstanding = 0\n",
	  "t.conf:2: max_outstanding: "
	  "expected an integer from 1 to 10000, not '0'",
	  1 },
	{ "[node a]\nmax_clients = 10001\n",
	  "t.conf:2: max_clients: expected "
	  "an integer from 1 to 10000",
	  1 },
	{ "[node a]\nmode = 01777\n",
	  "t.conf:2: mode: expected octal "
	  "permission bits from 0000 to 0777, not '01777'",
	  1 },
	{ "[node a]\nmode = 0800\n", "t.conf:2: mode: expected octal", 1 },
	{ "[node a]\nmode = rw\n", "t.conf:2: mode: expected octal", 1 },
	{ "[node a]\nmode = -600\n", "t.conf:2: mode: expected octal", 1 },
	{ "[node a]\nmode =\n", "t.conf:2: mode: expected octal", 1 },
	{ "[node a]\nowner = nosuchuser-kcsmux\n",
	  "t.conf:2: owner: unknown "
	  "user 'nosuchuser-kcsmux'",
	  1 },
	{ "[node a]\ngroup = nosuchgroup-kcsmux\n",
	  "t.conf:2: group: unknown "
	  "group 'nosuchgroup-kcsmux'",
	  1 },
	{ "[node a]\nowner = 4294967295\n",
	  "t.conf:2: owner: expected an "
	  "integer from 0 to 4294967294",
	  1 },
	{ "[global]\nuser = nosuchuser-kcsmux\n[node a]\n",
	  "t.conf:2: user: "
	  "unknown user 'nosuchuser-kcsmux'",
	  1 },
	{ "[global]\nuser = 4000000\n[node a]\n",
	  "t.conf:2: user: no user "
	  "with uid 4000000",
	  1 },
	{ "[global]\nadmin_group = nosuchgroup-kcsmux\n[node a]\n",
	  "t.conf:2: "
	  "admin_group: unknown group 'nosuchgroup-kcsmux'",
	  1 },
	{ "[global]\nbackend = smbus\n[node a]\n",
	  "t.conf:2: backend: 'smbus' "
	  "is not kcsraw or ipmidev",
	  1 },
	{ "[global]\nlog_level = verbose\n[node a]\n",
	  "t.conf:2: log_level: "
	  "'verbose' is not err, warning, notice, info or debug",
	  1 },
	{ "[global]\ndevice = dev/ipmi0\n[node a]\n",
	  "t.conf:2: device: "
	  "'dev/ipmi0' is not an absolute path",
	  1 },
	{ "[global]\nbackend_async_dev = ipmi0\n[node a]\n",
	  "t.conf:2: backend_async_dev: "
	  "'ipmi0' is not an absolute path",
	  1 },
	{ "[global]\ncontrol_socket =\n[node a]\n",
	  "t.conf:2: control_socket: "
	  "'' is not an absolute path",
	  1 },
	{ "[global]\ncontrol_socket = /run/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	  "aaaaaaaa.sock\n[node a]\n",
	  "t.conf:2: control_socket: path longer "
	  "than 107 characters",
	  1 },
	{ "[global]\nevent_backlog = 10001\n[node a]\n",
	  "t.conf:2: "
	  "event_backlog: expected an integer from 0 to 10000",
	  1 },
	{ "[global]\nmetrics_listen = localhost\n[node a]\n",
	  "t.conf:2: "
	  "metrics_listen: expected HOST:PORT or [ADDRESS]:PORT, not "
	  "'localhost'",
	  1 },
	{ "[global]\nmetrics_listen = :9623\n[node a]\n",
	  "t.conf:2: "
	  "metrics_listen: expected HOST:PORT",
	  1 },
	{ "[global]\nmetrics_listen = ::1:9623\n[node a]\n",
	  "t.conf:2: "
	  "metrics_listen: put an IPv6 address in brackets, like [::1]:9623",
	  1 },
	{ "[global]\nmetrics_listen = [::1:9623\n[node a]\n",
	  "t.conf:2: "
	  "metrics_listen: missing ']'",
	  1 },
	{ "[global]\nmetrics_listen = host:0\n[node a]\n",
	  "t.conf:2: "
	  "metrics_listen port: expected an integer from 1 to 65535, not '0'",
	  1 },
	{ "[global]\nmetrics_listen = host:70000\n[node a]\n",
	  "t.conf:2: "
	  "metrics_listen port:",
	  1 },
	{ "[global]\nmetrics_textfile = /tmp/kcsmux.txt\n[node a]\n",
	  "t.conf:2: metrics_textfile: '/tmp/kcsmux.txt' must end in '.prom' "
	  "(node_exporter reads only *.prom)",
	  1 },
	{ "[global]\nmetrics_textfile = kcsmux.prom\n[node a]\n",
	  "t.conf:2: metrics_textfile: 'kcsmux.prom' is not an absolute path",
	  1 },
	/* access lists */
	{ "[node a]\nallow = 0x06:0x40-0x30\n",
	  "t.conf:2: allow: "
	  "'0x06:0x40-0x30': bad cmd '0x40-0x30' (expected hex 00-ff, a LO-HI "
	  "range with LO <= HI, or '*')",
	  1 },
	{ "[node a]\nallow = 0x07:0x01\n",
	  "t.conf:2: allow: '0x07:0x01': "
	  "netfn 0x07 is a response netfn; requests use the even one, 0x06",
	  1 },
	{ "[node a]\ndeny = 0x40:0x01\n",
	  "t.conf:2: deny: '0x40:0x01': bad "
	  "netfn '0x40'",
	  1 },
	{ "[node a]\nallow = app:0x100\n",
	  "t.conf:2: allow: 'app:0x100': bad "
	  "cmd '0x100'",
	  1 },
	{ "[node a]\nallow = app:\n", "t.conf:2: allow: 'app:': bad cmd ''",
	  1 },
	{ "[node a]\nallow = foo:01\n",
	  "t.conf:2: allow: 'foo:01': bad netfn "
	  "'foo'",
	  1 },
	{ "[node a]\nallow = app:0x01-\n",
	  "t.conf:2: allow: 'app:0x01-': bad "
	  "cmd",
	  1 },
	{ "[node a]\nallow = app:0x01,,0x06:0x0g\n",
	  "t.conf:2: allow: "
	  "'0x06:0x0g': bad cmd '0x0g'",
	  1 },
	{ "[node a]\ndeny =\n",
	  "t.conf:2: deny: empty list (expected "
	  "NETFN[:CMD], ...)",
	  1 },
};

START_TEST(test_errors)
{
	const struct bad *b = &bad_configs[_i];

	load_fails(b->text, b->want, b->nerr);
}
END_TEST

START_TEST(test_multiple_errors)
{
	static const char *const want[] = {
		"t.conf:2: unknown key 'pol_us' (did you mean 'poll_us'?)",
		"t.conf:3: weight: expected an integer from 1 to 10000, not '0'",
		"t.conf:4: poll_max_us (10) is less than poll_us (100)",
		"t.conf:5: duplicate node 'a' (first at line 1)",
		"t.conf:6: mode: expected octal permission bits from 0000 to "
		"0777, not '999'",
		"t.conf:8: unknown section '[nodes c]' (did you mean "
		"[node NAME]?)",
		"t.conf:11: syntax error: expected KEY = VALUE, [SECTION] or a "
		"comment",
		"t.conf:12: allow: 'app:zz': bad cmd 'zz' (expected hex 00-ff, a "
		"LO-HI range with LO <= HI, or '*')",
		"t.conf:13: poll_max_us (10) is less than poll_us (100)",
	};
	char *line, *save = NULL;
	size_t i = 0;

	ck_assert_int_eq(load("[node a]\n"
			      "pol_us = 100\n"
			      "weight = 0\n"
			      "poll_max_us = 10\n" /* found at the end, sorted */
			      "[node a]\n"
			      "mode = 999\n"
			      "; comment\n"
			      "[nodes c]\n"
			      "ignored = keys of an unknown section\n"
			      "[node d]\n"
			      "no equals sign here\n"
			      "allow = app:zz\n"
			      "poll_max_us = 10\n"),
			 -1);
	for (line = strtok_r(cause, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save), i++) {
		ck_assert_msg(i < ARRAY_SIZE(want), "extra error: %s", line);
		ck_assert_str_eq(line, want[i]);
	}
	ck_assert_uint_eq(i, ARRAY_SIZE(want));
}
END_TEST

START_TEST(test_too_many_errors)
{
	char text[4096] = "[node a]\n";
	size_t i;

	for (i = 0; i < 60; i++)
		strcat(text, "bogus\n");
	ck_assert_int_eq(load(text), -1);
	ck_assert_uint_eq(count_lines(cause), 51);
	ck_assert_ptr_nonnull(strstr(cause, "t.conf:51: syntax error"));
	ck_assert_ptr_null(strstr(cause, "t.conf:52:"));
	ck_assert_ptr_nonnull(strstr(cause, "\nt.conf: and 10 more errors"));
}
END_TEST

/* Line numbers survive headers, comments, blanks, CRLF and indentation. */
START_TEST(test_lines_and_syntax)
{
	char longline[300];

	load_ok("\xef\xbb\xbf; with a UTF-8 BOM\r\n"
		"# hash comment\r\n"
		"[global]   ; inline comment\r\n"
		"\r\n"
		"   log_level = notice ; trailing comment\r\n"
		"[ node  spaced ]\n"
		"    poll_us = 300\n" /* indented: not a continuation */
		"\tweight = 7\n"
		"    allow = app:01\n"
		"    allow = storage:0x40-0x43\n" /* repeated, added up */
		"    deny = app:01 ; but not that\n"
		"[node e]\n"
		"mode: 0644\n"); /* ':' like configparser */
	ck_assert_int_eq(cfg.log_level, LOG_NOTICE);
	ck_assert_uint_eq(node("spaced")->line, 6);
	ck_assert_uint_eq(node("spaced")->pol.poll_us, 300);
	ck_assert_uint_eq(node("spaced")->pol.weight, 7);
	ck_assert(!access_allows(&node("spaced")->acc, 0x06, 0x01));
	ck_assert(access_allows(&node("spaced")->acc, 0x0a, 0x42));
	ck_assert(!access_allows(&node("spaced")->acc, 0x0a, 0x44));
	ck_assert_uint_eq(node("e")->line, 12);
	ck_assert_uint_eq(node("e")->mode, 0644);

	memset(longline, 'a', sizeof(longline));
	memcpy(longline, "[node a]\nallow = ", 17);
	strcpy(longline + 280, "\nweight = 0\n");
	load_fails(longline,
		   "t.conf:2: line too long (271 characters, at "
		   "most 199 after leading blanks)",
		   2);
	ck_assert_ptr_nonnull(strstr(cause, "t.conf:3: weight:"));

	/* An unterminated header does not let its keys into the node above. */
	load_fails("[node a]\n[node b\nweight = 0\n", "t.conf:2: missing ']'",
		   1);
}
END_TEST

START_TEST(test_node_names)
{
	load_ok("[node 0123456789012345678901234567890]\n"
		"[node A.b-c_9]\n[node ipmi0]\n");
	ck_assert_uint_eq(cfg.nnodes, 3);
	ck_assert_str_eq(cfg.nodes[0].name, "0123456789012345678901234567890");
	node("A.b-c_9");
	node("ipmi0"); /* fine with the kcsraw backend */
}
END_TEST

START_TEST(test_ids)
{
	load_ok("[global]\nuser = 0\nadmin_group = root\n"
		"[node a]\nowner = 1234\ngroup = 5678\n"
		"[node b]\nowner = root\ngroup = root\nmode = 0\n"
		"[node c]\nmode = 777\n");
	ck_assert_str_eq(cfg.user, "0");
	ck_assert_uint_eq(cfg.user_uid, 0);
	ck_assert_uint_eq(cfg.admin_gid, 0);
	ck_assert_uint_eq(node("a")->uid, 1234);
	ck_assert_uint_eq(node("a")->gid, 5678);
	ck_assert_uint_eq(node("b")->uid, 0);
	ck_assert_uint_eq(node("b")->gid, 0);
	ck_assert_uint_eq(node("b")->mode, 0);
	ck_assert_uint_eq(node("c")->mode, 0777);
}
END_TEST

/* interface: the node's /dev/ipmi/N and /dev/ipmidev/N number. */
START_TEST(test_interface)
{
	load_ok("[node ipmi0]\n[node ipmi12]\n[node ipmi-mon]\n"
		"[node ipmi00]\n[node ipmi256]\n[node mon]\ninterface = 7\n"
		"[node ipmi3]\ninterface = none\n[node ipmi4]\ninterface = 5\n");
	ck_assert_int_eq(node("ipmi0")->interface, 0);
	ck_assert_int_eq(node("ipmi12")->interface, 12);
	ck_assert_int_eq(node("ipmi-mon")->interface, -1);
	ck_assert_int_eq(node("ipmi00")->interface, -1);
	ck_assert_int_eq(node("ipmi256")->interface, -1);
	ck_assert_int_eq(node("mon")->interface, 7);
	ck_assert_int_eq(node("ipmi3")->interface, -1);
	ck_assert_int_eq(node("ipmi4")->interface, 5);
	load_fails("[node a]\ninterface = 256\n",
		   "t.conf:2: interface: "
		   "expected an integer from 0 to 255 or 'none', not '256'",
		   1);
	load_fails("[node a]\ninterface = -1\n", "interface:", 1);
	load_fails("[node ipmi2]\n[node mon]\ninterface = 2\n",
		   "t.conf:2: node 'mon': interface 2 is node 'ipmi2''s already",
		   1);
}
END_TEST

/* lease: the classes a node holds from start (docs/leases.md); one
 * holder per class; firmware only with kcsmuxctl lease. */
START_TEST(test_lease_key)
{
	load_ok("[node fans]\nlease = fan-oem, chassis\n[node mon]\n"
		"[node lan]\nlease = lan,users\n");
	ck_assert_uint_eq(node("fans")->leases, LEASE_FAN_OEM | LEASE_CHASSIS);
	ck_assert_uint_eq(node("mon")->leases, 0);
	ck_assert_uint_eq(node("lan")->leases, LEASE_LAN | LEASE_USERS);
	load_fails("[node a]\n\nlease = fans\n",
		   "t.conf:3: lease: expected classes chassis, fan-oem, users, "
		   "lan (comma-separated; firmware only with kcsmuxctl lease), "
		   "not 'fans'",
		   1);
	load_fails("[node a]\nlease = firmware\n", "t.conf:2: lease:", 1);
	load_fails("[node a]\nlease =\n", "lease", 1);
	load_fails("[node a]\nlease = chassis\n[node b]\nlease = lan,chassis\n",
		   "t.conf:3: node 'b': lease: a class is node 'a''s already",
		   1);
}
END_TEST

START_TEST(test_access_presets)
{
	struct kcsmux_access acc;
	char *s;

	load_ok("[node ro]\naccess = readonly\n"
		"[node se]\naccess = sensors\n"
		"[node no]\naccess = none\n"
		"[node al]\naccess = all\n");

	acc = node("ro")->acc;
	ck_assert(access_allows(&acc, 0x06, 0x01));  /* Get Device ID */
	ck_assert(access_allows(&acc, 0x04, 0x2d));  /* Get Sensor Reading */
	ck_assert(access_allows(&acc, 0x0a, 0x43));  /* Get SEL Entry */
	ck_assert(access_allows(&acc, 0x0a, 0x11));  /* Read FRU Data */
	ck_assert(access_allows(&acc, 0x0c, 0x02));  /* Get LAN Config */
	ck_assert(!access_allows(&acc, 0x06, 0x34)); /* Send Message */
	ck_assert(!access_allows(&acc, 0x00, 0x02)); /* Chassis Control */
	ck_assert(!access_allows(&acc, 0x0a, 0x44)); /* Add SEL Entry */
	ck_assert(!access_allows(&acc, 0x0a, 0x47)); /* Clear SEL */
	ck_assert(!access_allows(&acc, 0x0a, 0x12)); /* Write FRU Data */
	ck_assert(!access_allows(&acc, 0x06, 0x24)); /* Set Watchdog */
	ck_assert(!access_allows(&acc, 0x0c, 0x01)); /* Set LAN Config */
	s = cmdset_format(&acc.eff);
	ck_assert_str_eq(
		s,
		"0x00:0x00-0x01, 0x00:0x07, 0x00:0x09, "
		"0x00:0x0f, 0x04:0x01, 0x04:0x20-0x23, 0x04:0x25, 0x04:0x27, "
		"0x04:0x29, 0x04:0x2b, 0x04:0x2d, 0x04:0x2f, 0x06:0x01, "
		"0x06:0x04, 0x06:0x07-0x08, 0x06:0x25, 0x06:0x2f, "
		"0x06:0x37-0x38, 0x06:0x41-0x42, 0x06:0x59, 0x0a:0x10-0x11, "
		"0x0a:0x20-0x23, "
		"0x0a:0x28, 0x0a:0x40-0x43, 0x0a:0x48, 0x0a:0x5c, 0x0c:0x02, "
		"0x2c:0x00-0x01/0x00, 0x2c:0x00/0x03, 0x2c:0x01-0x02/0xdc");
	free(s);

	acc = node("se")->acc;
	s = cmdset_format(&acc.eff);
	ck_assert_str_eq(
		s, "0x04:0x20-0x23, 0x04:0x25, 0x04:0x27, "
		   "0x04:0x29, 0x04:0x2b, 0x04:0x2d, 0x04:0x2f, 0x06:0x01, "
		   "0x0a:0x10-0x11, 0x0a:0x20-0x23");
	free(s);
	ck_assert(!access_allows(&acc, 0x0a, 0x40)); /* no SEL */

	acc = node("no")->acc;
	ck_assert(cmdset_empty(&acc.eff));
	s = cmdset_format(&acc.eff);
	ck_assert_str_eq(s, "");
	free(s);

	acc = node("al")->acc;
	ck_assert(access_allows(&acc, 0x06, 0x34));
	ck_assert(access_allows(&acc, 0x3f, 0xff));
	ck_assert(access_allows(&acc, 0x07, 0x00));  /* odd: still a bit */
	ck_assert(!access_allows(&acc, 0x40, 0x00)); /* beyond 6 bits */
	ck_assert(!access_allows(&acc, 0xff, 0xff));

	ck_assert_str_eq(access_preset_name(KCSMUX_ACCESS_SENSORS), "sensors");
	ck_assert_str_eq(access_preset_name(KCSMUX_ACCESS_MONITORING),
			 "monitoring");
	ck_assert_ptr_null(access_preset_name((enum kcsmux_access_preset)5));
}
END_TEST

START_TEST(test_access_lists)
{
	const struct kcsmux_access *a;
	char *s;

	load_ok("[node only]\nallow = app:0x01\n" /* allow: base none */
		"[node dw]\ndeny = 0x06:*\nallow = app:0x01\n"
		"[node dw2]\naccess = all\ndeny = 0x00:0x02\n"
		"[node rng]\nallow = 0x0a:0x20-0x2f\n"
		"[node nf]\nallow = 0x30-0x3f:*, 0x2c\n"
		"[node wild]\nallow = *:0x01\n"
		"[node names]\nallow = storage chassis:2 OEM, APP:0X3A\n"
		"[node extra]\naccess = sensors\nallow = 0x06:0x04\n"
		"deny = sensor:0x2d\n");

	a = &node("only")->acc;
	ck_assert_int_eq(a->preset, KCSMUX_ACCESS_NONE);
	ck_assert(access_allows(a, 0x06, 0x01));
	ck_assert(!access_allows(a, 0x06, 0x02));
	ck_assert(!access_allows(a, 0x00, 0x01));

	a = &node("dw")->acc; /* deny wins, before or after */
	ck_assert(!access_allows(a, 0x06, 0x01));
	ck_assert(cmdset_empty(&a->eff));

	a = &node("dw2")->acc;
	ck_assert(!access_allows(a, 0x00, 0x02));
	ck_assert(access_allows(a, 0x00, 0x01));
	ck_assert(access_allows(a, 0x00, 0x03));

	a = &node("rng")->acc;
	ck_assert(!access_allows(a, 0x0a, 0x1f));
	ck_assert(access_allows(a, 0x0a, 0x20));
	ck_assert(access_allows(a, 0x0a, 0x2f));
	ck_assert(!access_allows(a, 0x0a, 0x30));
	s = cmdset_format(&a->eff);
	ck_assert_str_eq(s, "0x0a:0x20-0x2f");
	free(s);

	a = &node("nf")->acc;
	ck_assert(access_allows(a, 0x30, 0x00));
	ck_assert(access_allows(a, 0x3e, 0xff));
	ck_assert(access_allows(a, 0x2c, 0x80));
	ck_assert(!access_allows(a, 0x2e, 0x00));
	ck_assert(!access_allows(a, 0x06, 0x01));

	a = &node("wild")->acc;
	ck_assert(access_allows(a, 0x00, 0x01));
	ck_assert(access_allows(a, 0x3e, 0x01));
	ck_assert(!access_allows(a, 0x3e, 0x02));

	a = &node("names")->acc;
	s = cmdset_format(&a->eff);
	ck_assert_str_eq(
		s,
		"0x00:0x02, 0x06:0x3a, 0x0a:*, 0x30:*, 0x31:*, "
		"0x32:*, 0x33:*, 0x34:*, 0x35:*, 0x36:*, 0x37:*, 0x38:*, 0x39:*, "
		"0x3a:*, 0x3b:*, 0x3c:*, 0x3d:*, 0x3e:*, 0x3f:*");
	free(s);

	a = &node("extra")->acc;
	ck_assert_int_eq(a->preset, KCSMUX_ACCESS_SENSORS);
	ck_assert(access_allows(a, 0x06, 0x04));
	ck_assert(access_allows(a, 0x04, 0x27));
	ck_assert(!access_allows(a, 0x04, 0x2d));
}
END_TEST

START_TEST(test_cmdset)
{
	struct kcsmux_cmdset s;
	char *c = NULL, *t;

	cmdset_clear(&s);
	ck_assert(cmdset_empty(&s));
	/* A bad item leaves the set as it was. */
	ck_assert_int_eq(cmdset_parse(&s, "0x06:01, bogus", &c), -1);
	ck_assert_str_eq(
		c, "'bogus': bad netfn 'bogus' (expected hex 00-3f, "
		   "a LO-HI range, '*' or a name such as app, chassis, sensor, "
		   "storage, transport, oem)");
	free(c);
	ck_assert(cmdset_empty(&s));
	ck_assert_int_eq(cmdset_parse(&s, " 06:1\t0x0a:0x0000ff,", NULL), 0);
	ck_assert(cmdset_has(&s, 0x06, 0x01));
	ck_assert(cmdset_has(&s, 0x0a, 0xff));
	ck_assert(!cmdset_has(&s, 0x0a, 0xfe));
	ck_assert_int_eq(cmdset_parse(&s, "*", NULL), 0);
	t = cmdset_format(&s);
	ck_assert_str_eq(t, "*");
	free(t);
	cmdset_clear(&s);
	cmdset_add(&s, 0x40, 0x01); /* ignored */
	ck_assert(cmdset_empty(&s));
	cmdset_add(&s, 0x06, 0xff);
	cmdset_add(&s, 0x06, 0x00);
	t = cmdset_format(&s);
	ck_assert_str_eq(t, "0x06:0x00, 0x06:0xff");
	free(t);
	ck_assert_int_eq(cmdset_parse(&s, "0x05-0x04", NULL), -1);
	ck_assert_int_eq(cmdset_parse(&s, "0x06:1:2", NULL), -1);
	ck_assert_int_eq(cmdset_parse(&s, "", NULL), -1);
}
END_TEST

START_TEST(test_suggest)
{
	static const char *const cands[] = { "poll_us", "poll_max_us", "weight",
					     NULL };

	ck_assert_str_eq(value_suggest("pol_us", cands), "poll_us");
	ck_assert_str_eq(value_suggest("POLL_US", cands), "poll_us");
	ck_assert_str_eq(value_suggest("poll_mx_us", cands), "poll_max_us");
	ck_assert_str_eq(value_suggest("wieght", cands), "weight");
	ck_assert_ptr_null(value_suggest("x", cands));
	ck_assert_ptr_null(value_suggest("completely_different", cands));
	ck_assert_str_eq(config_backend_name(KCSMUX_BACKEND_IPMIDEV),
			 "ipmidev");
	ck_assert_str_eq(config_log_level_name(LOG_WARNING), "warning");
	ck_assert_ptr_null(config_log_level_name(LOG_CRIT));
}
END_TEST

/* admin_users, admin_groups, admin_access: the openers matched get the
 * admin preset plus the node's allow lines minus its deny lines; errors
 * with their lines. */
START_TEST(test_admin_openers)
{
	const struct kcsmux_node_conf *n;

	load_ok("[node ipmi0]\naccess = monitoring\n"
		"admin_users = root, 4242\nadmin_groups = 0 5000\n"
		"deny = 0x06:0x02\n[node b]\naccess = readonly\n"
		"admin_groups = 7\nadmin_access = sensors\n");
	n = node("ipmi0");
	ck_assert_uint_eq(n->admins.nuids, 2);
	ck_assert_uint_eq(n->admins.uids[0], 0);
	ck_assert_uint_eq(n->admins.uids[1], 4242);
	ck_assert_uint_eq(n->admins.ngids, 2);
	ck_assert_uint_eq(n->admins.gids[1], 5000);
	ck_assert_int_eq(n->admin_acc.preset, KCSMUX_ACCESS_ALL);
	/* Set LAN Configuration Parameters, Chassis Control, Clear SEL */
	ck_assert(access_allows(&n->admin_acc, 0x0c, 0x01));
	ck_assert(access_allows(&n->admin_acc, 0x00, 0x02));
	ck_assert(access_allows(&n->admin_acc, 0x0a, 0x47));
	ck_assert(!access_allows(&n->acc, 0x0c, 0x01));
	ck_assert(!access_allows(&n->acc, 0x00, 0x02));
	/* the deny line holds for the admins too */
	ck_assert(!access_allows(&n->admin_acc, 0x06, 0x02));
	ck_assert(!n->admin_acc.eff_full);
	n = node("b");
	ck_assert_uint_eq(n->admins.nuids, 0);
	ck_assert_int_eq(n->admin_acc.preset, KCSMUX_ACCESS_SENSORS);
	load_ok("[node a]\n");
	ck_assert_uint_eq(node("a")->admins.nuids + node("a")->admins.ngids, 0);
	load_fails("[node a]\nadmin_access = bogus\n",
		   "t.conf:2: admin_access: 'bogus' is not none, readonly", 1);
	load_fails("[node a]\n\nadmin_access = all\n",
		   "t.conf:3: node 'a': admin_access needs admin_users or "
		   "admin_groups",
		   1);
	load_fails("[node a]\nadmin_users = root, nosuchuser-kcsmux\n",
		   "t.conf:2: admin_users: unknown user 'nosuchuser-kcsmux'",
		   1);
	load_fails("[node a]\nadmin_groups = nosuchgroup-kcsmux\n",
		   "t.conf:2: admin_groups: unknown group", 1);
	load_fails("[node a]\nadmin_users =\n",
		   "t.conf:2: admin_users: expected a list of users", 1);
	load_fails("[node a]\nadmin_users = 1\nadmin_users = 2\n",
		   "t.conf:3: 'admin_users' given twice", 1);
	load_fails("[node a]\nadmin_users = 1 2 3 4 5 6 7 8 9 10 11 12 13 "
		   "14 15 16 17\n",
		   "t.conf:2: admin_users: more than 16 users", 1);
	load_fails("[global]\nadmin_users = root\n[node a]\n",
		   "t.conf:2: 'admin_users' belongs in a [node NAME] section",
		   1);
}
END_TEST

/* config_load_offline (kcsmuxd -n, kcsmuxctl check -c): names this host
 * does not know are warnings with their lines, the rest still errors;
 * config_load refuses the same file. */
START_TEST(test_load_offline)
{
	char path[] = "/tmp/kcsmux-test-config-XXXXXX", want[512];
	static const char text[] = "[global]\nuser = nosuchuser-kcsmux\n"
				   "admin_group = nosuchgroup-kcsmux\n"
				   "[node a]\nowner = nosuchuser-kcsmux\n"
				   "group = nosuchgroup-kcsmux\nweight = 3\n";
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, sizeof(text) - 1),
			 (ssize_t)sizeof(text) - 1);
	ck_assert_int_eq(config_load_offline(&cfg, path, &cause), 0);
	ck_assert_ptr_null(cause);
	snprintf(want, sizeof(want),
		 "%s:2: warning: user: unknown user 'nosuchuser-kcsmux': not "
		 "on this host (the start needs it)\n"
		 "%s:3: warning: admin_group: unknown group "
		 "'nosuchgroup-kcsmux': not on this host (the start needs "
		 "it)\n",
		 path, path);
	ck_assert_ptr_nonnull(cfg.warnings);
	ck_assert_msg(strncmp(cfg.warnings, want, strlen(want)) == 0, "%s",
		      cfg.warnings);
	ck_assert_ptr_nonnull(strstr(cfg.warnings, ":5: warning: owner: "));
	ck_assert_ptr_nonnull(strstr(cfg.warnings, ":6: warning: group: "));
	ck_assert_str_eq(cfg.user, "nosuchuser-kcsmux");
	ck_assert_uint_eq(node("a")->pol.weight, 3);
	config_free(&cfg);
	/* the start's load: four errors */
	ck_assert_int_eq(config_load(&cfg, path, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, ":2: user: unknown user"));
	ck_assert_ptr_nonnull(strstr(cause, ":6: group: unknown group"));
	free(cause);
	cause = NULL;
	/* other errors stay errors offline */
	ck_assert_int_eq(ftruncate(fd, 0), 0);
	ck_assert_int_eq(pwrite(fd,
				"[global]\nuser = nosuchuser-kcsmux\n"
				"bogus = 1\n[node a]\n",
				34 + 19, 0),
			 34 + 19);
	ck_assert_int_eq(config_load_offline(&cfg, path, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, ":3: unknown key 'bogus'"));
	ck_assert_ptr_null(strstr(cause, "user"));
	ck_assert_ptr_null(cfg.warnings);
	free(cause);
	cause = NULL;
	close(fd);
	unlink(path);
}
END_TEST

START_TEST(test_load_file)
{
	char path[] = "/tmp/kcsmux-test-config-XXXXXX";
	static const char text[] = "[node a]\nweight = 3\nweight\0 = 4\n";
	char want[128];
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "[node a]\nweight = 3\n", 20), 20);
	ck_assert_int_eq(config_load(&cfg, path, &cause), 0);
	ck_assert_uint_eq(node("a")->pol.weight, 3);
	config_free(&cfg);

	ck_assert_int_eq(ftruncate(fd, 0), 0);
	ck_assert_int_eq(pwrite(fd, text, sizeof(text) - 1, 0),
			 (ssize_t)sizeof(text) - 1);
	ck_assert_int_eq(config_load(&cfg, path, &cause), -1);
	snprintf(want, sizeof(want), "%s:3: NUL byte in line", path);
	ck_assert_str_eq(cause, want);
	free(cause);
	cause = NULL;
	close(fd);
	unlink(path);

	ck_assert_int_eq(config_load(&cfg, path, &cause), -1);
	snprintf(want, sizeof(want), "%s: No such file or directory", path);
	ck_assert_str_eq(cause, want);
	ck_assert_uint_eq(cfg.nnodes, 0);
	free(cause);
	cause = NULL;

	ck_assert_int_eq(config_load(&cfg, "/", &cause), -1);
	ck_assert_str_eq(cause, "/: read error: Is a directory");
}
END_TEST

/* luns: LUN 0 only by default, whatever the access preset; a list opens
 * others and must contain 0. */
START_TEST(test_luns)
{
	static const struct {
		const char *v;
		int luns; /* -1: refused */
	} cases[] = {
		{ "0", 0x0 },	{ "0,2", 0x4 },	    { "0-3", 0xe },
		{ "*", 0xe },	{ " 0 , 1 ", 0x2 }, { "0,1-2", 0x6 },
		{ "1", -1 },	{ "0,4", -1 },	    { "0-", -1 },
		{ "3-1", -1 },	{ "", -1 },	    { "0,", -1 },
		{ "lun0", -1 },
	};
	char text[128];

	load_ok("[node a]\naccess = all\n[node b]\naccess = readonly\n");
	ck_assert_uint_eq(cfg.nodes[0].luns, 0);
	ck_assert_uint_eq(cfg.nodes[1].luns, 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), "[node a]\nluns = %s\n",
			 cases[i].v);
		if (cases[i].luns < 0) {
			ck_assert_msg(load(text) != 0, "luns = '%s' accepted",
				      cases[i].v);
			ck_assert_ptr_nonnull(strstr(cause, "luns"));
			continue;
		}
		load_ok(text);
		ck_assert_msg(cfg.nodes[0].luns == cases[i].luns,
			      "luns = '%s': %#x", cases[i].v,
			      cfg.nodes[0].luns);
	}
}
END_TEST

/* coalesce: a node's boolean, off by default. */
START_TEST(test_coalesce)
{
	load_ok("[node a]\ncoalesce = yes\n[node b]\n");
	ck_assert(cfg.nodes[0].coalesce);
	ck_assert(!cfg.nodes[1].coalesce);
	load_ok("[node a]\ncoalesce = no\n");
	ck_assert(!cfg.nodes[0].coalesce);
	ck_assert_int_ne(load("[node a]\ncoalesce = maybe\n"), 0);
	ck_assert_ptr_nonnull(strstr(cause, "coalesce"));
}
END_TEST

/* coalesce_window_ms: 0 by default, at most a minute, only with
 * coalesce = yes (the error names the key's line). */
START_TEST(test_coalesce_window)
{
	load_ok("[node a]\ncoalesce = yes\ncoalesce_window_ms = 2000\n"
		"[node b]\ncoalesce = yes\n");
	ck_assert_uint_eq(cfg.nodes[0].coalesce_window_ms, 2000);
	ck_assert_uint_eq(cfg.nodes[1].coalesce_window_ms, 0);
	ck_assert_int_ne(load("[node a]\ncoalesce = yes\n"
			      "coalesce_window_ms = 60001\n"),
			 0);
	ck_assert_ptr_nonnull(strstr(cause, "coalesce_window_ms"));
	ck_assert_int_ne(load("[node a]\n\ncoalesce_window_ms = 500\n"), 0);
	ck_assert_ptr_nonnull(strstr(cause, "needs coalesce = yes"));
	ck_assert_ptr_nonnull(strstr(cause, ":3:"));
}
END_TEST

static Suite *config_suite(void)
{
	Suite *s = suite_create("config");
	TCase *tc = tcase_create("config");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_full);
	tcase_add_test(tc, test_coalesce);
	tcase_add_test(tc, test_coalesce_window);
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_global_after_nodes);
	tcase_add_test(tc, test_presets);
	tcase_add_test(tc, test_override_order);
	tcase_add_test(tc, test_poll_max);
	tcase_add_test(tc, test_unlimited);
	tcase_add_test(tc, test_percentages);
	tcase_add_test(tc, test_policy_set_key);
	tcase_add_test(tc, test_policy_update);
	tcase_add_test(tc, test_roundtrip);
	tcase_add_test(tc, test_policy_merge);
	tcase_add_loop_test(tc, test_errors, 0, (int)ARRAY_SIZE(bad_configs));
	tcase_add_test(tc, test_multiple_errors);
	tcase_add_test(tc, test_too_many_errors);
	tcase_add_test(tc, test_lines_and_syntax);
	tcase_add_test(tc, test_node_names);
	tcase_add_test(tc, test_ids);
	tcase_add_test(tc, test_access_presets);
	tcase_add_test(tc, test_access_lists);
	tcase_add_test(tc, test_cmdset);
	tcase_add_test(tc, test_interface);
	tcase_add_test(tc, test_lease_key);
	tcase_add_test(tc, test_suggest);
	tcase_add_test(tc, test_load_file);
	tcase_add_test(tc, test_load_offline);
	tcase_add_test(tc, test_admin_openers);
	tcase_add_test(tc, test_luns);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(config_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
