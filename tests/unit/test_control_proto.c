// SPDX-License-Identifier: GPL-2.0
/*
 * Check suite for fused/ctlproto/control_proto.c: the kcsmuxd control protocol's
 * frame header, key=value payloads, requests, and the node records that
 * LIST/SHOW (kv) and STATS (JSON) send. The JSON is checked with a strict
 * little validator below, so that a missing comma or a bad escape fails.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kcsmux/control.h>

#include "json_valid.h"

#define JV(s) json_valid(s, strlen(s))

START_TEST(test_json_validator)
{
	/* The validator itself must be able to say no. */
	ck_assert(JV("{\"a\": [1, -2.5e3, true, null, \"x\\u0001\"]}"));
	ck_assert(!JV("{\"a\": 1,}"));
	ck_assert(!JV("{\"a\" 1}"));
	ck_assert(!JV("[1 2]"));
	ck_assert(!JV("\"a\nb\""));
	ck_assert(!JV("\"\\x\""));
	ck_assert(!JV("{\"a\": 01}"));
	ck_assert(!JV("{\"a\": nan}"));
	ck_assert(!JV("{} {}"));
	ck_assert(!JV("{\"a\": [}"));
}
END_TEST

/* ---- header ---- */

START_TEST(test_hdr_roundtrip)
{
	static const uint8_t want[CTL_HDR_LEN] = {
		'K',  'C',  'S',  'M',	0x01, 0x00, 0x03, 0x80,
		0x34, 0x12, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00,
	};
	uint8_t raw[CTL_HDR_LEN];
	struct ctl_hdr h, g;

	ctl_hdr_init(&h, CTL_REPLY | CTL_SET, 0x1234, CTL_E_PERM);
	ck_assert_uint_eq(h.magic, CTL_MAGIC);
	ck_assert_uint_eq(h.version, CTL_VERSION);
	ctl_hdr_encode(raw, &h);
	ck_assert_mem_eq(raw, want, sizeof(want));
	ck_assert_int_eq(ctl_hdr_decode(raw, &g), CTL_OK);
	ck_assert_uint_eq(g.magic, CTL_MAGIC);
	ck_assert_uint_eq(g.version, 1);
	ck_assert_uint_eq(g.type, CTL_REPLY | CTL_SET);
	ck_assert_uint_eq(g.len, 0x1234);
	ck_assert_uint_eq(g.status, CTL_E_PERM);
}
END_TEST

START_TEST(test_hdr_errors)
{
	uint8_t raw[CTL_HDR_LEN];
	struct ctl_hdr h, g;

	/* Another version: reported, every field still decoded. */
	ctl_hdr_init(&h, CTL_LIST, 7, 0);
	h.version = 2;
	ctl_hdr_encode(raw, &h);
	ck_assert_int_eq(ctl_hdr_decode(raw, &g), CTL_E_VERSION);
	ck_assert_uint_eq(g.version, 2);
	ck_assert_uint_eq(g.type, CTL_LIST);
	ck_assert_uint_eq(g.len, 7);

	/* Bad magic. */
	ctl_hdr_init(&h, CTL_LIST, 0, 0);
	ctl_hdr_encode(raw, &h);
	raw[0] = 'k';
	ck_assert_int_eq(ctl_hdr_decode(raw, &g), CTL_E_PROTO);
	/* Too long, even in another version: the frame cannot be skipped. */
	ctl_hdr_init(&h, CTL_LIST, CTL_MAX_PAYLOAD, 0);
	ctl_hdr_encode(raw, &h);
	ck_assert_int_eq(ctl_hdr_decode(raw, &g), CTL_OK);
	h.len = CTL_MAX_PAYLOAD + 1;
	ctl_hdr_encode(raw, &h);
	ck_assert_int_eq(ctl_hdr_decode(raw, &g), CTL_E_PROTO);
	h.version = 9;
	ctl_hdr_encode(raw, &h);
	ck_assert_int_eq(ctl_hdr_decode(raw, &g), CTL_E_PROTO);
}
END_TEST

START_TEST(test_names)
{
	char b[32];

	ck_assert_str_eq(ctl_type_name(CTL_SHOW, b, sizeof(b)), "show");
	ck_assert_str_eq(ctl_type_name(CTL_REPLY | CTL_STATS, b, sizeof(b)),
			 "reply to stats");
	ck_assert_str_eq(ctl_type_name(0x77, b, sizeof(b)), "type 0x0077");
	ck_assert_str_eq(ctl_type_name(0, b, sizeof(b)), "type 0x0000");
	ck_assert_str_eq(ctl_status_name(CTL_OK), "ok");
	ck_assert_str_eq(ctl_status_name(CTL_E_PERM), "permission denied");
	ck_assert_str_eq(ctl_status_name(1000), "unknown status");
}
END_TEST

/* ---- key=value ---- */

START_TEST(test_kv_roundtrip)
{
	struct ctl_buf b;
	struct ctl_kvlist l;
	char err[128];

	ctl_buf_init(&b);
	ck_assert_int_eq(ctl_kv_add(&b, "node", "ipmi1"), 0);
	ck_assert_int_eq(ctl_kv_add(&b, "client", "id=1 pid=2 uid=0"), 0);
	ck_assert_int_eq(ctl_kv_add(&b, "empty", ""), 0);
	ck_assert_int_eq(ctl_kv_addf(&b, "policy.poll_us", "%u", 50u), 0);
	ck_assert_int_eq(ctl_kv_add(&b, "node", "ipmi2"), 0);
	/* Refused, nothing added. */
	ck_assert_int_eq(ctl_kv_add(&b, "", "x"), -1);
	ck_assert_int_eq(ctl_kv_add(&b, "a b", "x"), -1);
	ck_assert_int_eq(ctl_kv_add(&b, "a=b", "x"), -1);
	ck_assert_int_eq(ctl_kv_add(&b, "k", "two\nlines"), -1);
	ck_assert_int_eq(ctl_kv_addf(&b, "k", "%s", "a\nb"), -1);
	ck_assert(!b.oom);
	ck_assert_str_eq(b.data, "node=ipmi1\nclient=id=1 pid=2 uid=0\n"
				 "empty=\npolicy.poll_us=50\nnode=ipmi2\n");

	ck_assert_int_eq(ctl_kv_parse(b.data, b.len, &l, err, sizeof(err)), 0);
	ck_assert_uint_eq(l.n, 5);
	ck_assert_str_eq(l.kv[1].key, "client");
	ck_assert_str_eq(l.kv[1].value, "id=1 pid=2 uid=0");
	ck_assert_str_eq(l.kv[2].value, "");
	ck_assert_str_eq(ctl_kv_find(&l, 0, 99, "node"), "ipmi1");
	ck_assert_str_eq(ctl_kv_find(&l, 1, 99, "node"), "ipmi2");
	ck_assert_ptr_null(ctl_kv_find(&l, 0, 4, "nope"));
	ck_assert_ptr_null(ctl_kv_find(&l, 0, 3, "policy.poll_us"));
	ctl_kvlist_free(&l);
	ck_assert_uint_eq(l.n, 0);

	/* Empty payload: no pairs. */
	ck_assert_int_eq(ctl_kv_parse("", 0, &l, err, sizeof(err)), 0);
	ck_assert_uint_eq(l.n, 0);
	ctl_kvlist_free(&l);
	ctl_buf_free(&b);
}
END_TEST

START_TEST(test_kv_parse_errors)
{
	struct ctl_kvlist l;
	char err[128];

	ck_assert_int_eq(ctl_kv_parse("a=1", 3, &l, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "last line has no newline");
	ck_assert_int_eq(ctl_kv_parse("a=1\nb\n", 6, &l, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "line 2: no '=' in 'b'");
	ck_assert_int_eq(ctl_kv_parse("=1\n", 3, &l, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "line 1: bad key ''");
	ck_assert_int_eq(ctl_kv_parse("a b=1\n", 6, &l, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "line 1: bad key 'a b'");
	ck_assert_int_eq(ctl_kv_parse("a=\0\n", 4, &l, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "NUL byte in text payload");
	ck_assert_int_eq(ctl_kv_parse("\n", 1, &l, err, sizeof(err)), -1);
	ck_assert_uint_eq(l.n, 0);
	ck_assert_ptr_null(l.kv);
}
END_TEST

START_TEST(test_kv_records)
{
	static const char text[] = "protocol=1\nbackend=kcsraw\n"
				   "node=a\nx=1\nnode=b\nx=2\ny=3\nnode=c\n";
	struct ctl_kvlist l;
	char err[128];
	size_t s, e = 0, n = 0;
	const char *want[] = { "a", "b", "c" };

	ck_assert_int_eq(ctl_kv_parse(text, strlen(text), &l, err, sizeof(err)),
			 0);
	while (ctl_kv_record(&l, "node", e, &s, &e)) {
		ck_assert_uint_lt(n, 3);
		ck_assert_str_eq(l.kv[s].value, want[n]);
		if (n == 0)
			ck_assert_str_eq(ctl_kv_find(&l, s, e, "x"), "1");
		if (n == 1) {
			ck_assert_uint_eq(e - s, 3);
			ck_assert_str_eq(ctl_kv_find(&l, s, e, "y"), "3");
		}
		if (n == 2)
			ck_assert_ptr_null(ctl_kv_find(&l, s, e, "x"));
		n++;
	}
	ck_assert_uint_eq(n, 3);
	/* Globals before the first record. */
	ck_assert_str_eq(ctl_kv_find(&l, 0, 2, "backend"), "kcsraw");
	ctl_kvlist_free(&l);
}
END_TEST

/* ---- requests ---- */

START_TEST(test_req_show)
{
	struct ctl_buf b;

	ctl_buf_init(&b);
	ck_assert_int_eq(ctl_req_show(&b, "ipmi1"), 0);
	ck_assert_str_eq(b.data, "node=ipmi1\n");
	ck_assert_int_eq(ctl_req_show(&b, ""), -1);
	ck_assert_int_eq(ctl_req_show(&b, "-x"), -1);
	ck_assert_int_eq(ctl_req_show(&b, ".x"), -1);
	ck_assert_int_eq(ctl_req_show(&b, "a/b"), -1);
	ck_assert_int_eq(ctl_req_show(&b, "0123456789012345678901234567890x"),
			 -1);
	ck_assert(ctl_node_name_valid("0123456789012345678901234567890"));
	ck_assert(ctl_node_name_valid("a.b-c_d"));
	ck_assert_str_eq(b.data, "node=ipmi1\n");
	ctl_buf_free(&b);
}
END_TEST

START_TEST(test_req_set)
{
	char *good[] = { "max_busy_us=0", "poll_us=200", "cpu_budget=0.5%",
			 "latency_target_us=" };
	char *bad1[] = { "max_busy_us=0", "poll_us" };
	char *bad2[] = { "=5" };
	char *bad3[] = { "node=ipmi2" };
	char *bad4[] = { "a b=1" };
	char nl[] = "poll_us=1\n2";
	char *bad5[] = { nl };
	struct ctl_buf b;
	struct ctl_kvlist l;
	char err[128];

	ctl_buf_init(&b);
	ck_assert_int_eq(ctl_req_set(&b, "ipmi1", good, 4, err, sizeof(err)),
			 0);
	ck_assert_str_eq(b.data, "node=ipmi1\nmax_busy_us=0\npoll_us=200\n"
				 "cpu_budget=0.5%\nlatency_target_us=\n");
	ck_assert_int_eq(ctl_kv_parse(b.data, b.len, &l, err, sizeof(err)), 0);
	ck_assert_uint_eq(l.n, 5);
	ck_assert_str_eq(l.kv[3].value, "0.5%");
	ctl_kvlist_free(&l);

	/* Errors leave the buffer as it was. */
	ck_assert_int_eq(ctl_req_set(&b, "ipmi1", bad1, 2, err, sizeof(err)),
			 -1);
	ck_assert_str_eq(err, "'poll_us' is not KEY=VALUE");
	ck_assert_int_eq(ctl_req_set(&b, "ipmi1", bad2, 1, err, sizeof(err)),
			 -1);
	ck_assert_int_eq(ctl_req_set(&b, "ipmi1", bad3, 1, err, sizeof(err)),
			 -1);
	ck_assert_int_eq(ctl_req_set(&b, "ipmi1", bad4, 1, err, sizeof(err)),
			 -1);
	ck_assert_int_eq(ctl_req_set(&b, "ipmi1", bad5, 1, err, sizeof(err)),
			 -1);
	ck_assert_int_eq(ctl_req_set(&b, "ipmi1", good, 0, err, sizeof(err)),
			 -1);
	ck_assert_str_eq(err, "nothing to set");
	ck_assert_int_eq(ctl_req_set(&b, "ip mi", good, 1, err, sizeof(err)),
			 -1);
	ck_assert_str_eq(err, "bad node name 'ip mi'");
	ck_assert_str_eq(b.data, "node=ipmi1\nmax_busy_us=0\npoll_us=200\n"
				 "cpu_budget=0.5%\nlatency_target_us=\n");
	ctl_buf_free(&b);
}
END_TEST

/* ---- buffers and JSON strings ---- */

START_TEST(test_buf_growth)
{
	struct ctl_buf b;
	size_t i;

	ctl_buf_init(&b);
	for (i = 0; i < 20000; i++)
		ctl_buf_printf(&b, "%05zu\n", i);
	ck_assert(!b.oom);
	ck_assert_uint_eq(b.len, 20000 * 6);
	ck_assert_uint_eq(strlen(b.data), b.len);
	ck_assert(memcmp(b.data + 19999 * 6, "19999\n", 6) == 0);
	ctl_buf_reset(&b);
	ck_assert_uint_eq(b.len, 0);
	ck_assert_str_eq(b.data, "");
	ctl_buf_add(&b, "ab", 2);
	ck_assert_str_eq(b.data, "ab");
	ctl_buf_free(&b);
	ck_assert_ptr_null(b.data);
}
END_TEST

START_TEST(test_json_str)
{
	struct ctl_buf b;

	ctl_buf_init(&b);
	ctl_json_str(&b, "a\"b\\c\nd\te\x01\x1f\x7f/é");
	ck_assert_str_eq(b.data,
			 "\"a\\\"b\\\\c\\nd\\te\\u0001\\u001f\\u007f/é\"");
	ck_assert(json_valid(b.data, b.len));
	ctl_buf_reset(&b);
	ctl_json_str(&b, "");
	ck_assert_str_eq(b.data, "\"\"");
	ctl_buf_free(&b);
}
END_TEST

/* ---- node records ---- */

static void sample(struct ctl_node_info *ni, struct ctl_client_info *cl)
{
	memset(ni, 0, sizeof(*ni));
	ni->name = "ipmi1";
	ni->preset = "interactive";
	ni->custom = true;
	ni->ready = true;
	ni->access = "all";
	ni->npolicy = 2;
	ni->policy[0].key = "max_busy_us";
	ni->policy[0].value = "unlimited";
	ni->policy[1].key = "cpu_budget";
	ni->policy[1].value = "0.5%";
	cl[0] = (struct ctl_client_info){ .id = 7,
					  .pid = 1234,
					  .uid = 0,
					  .outstanding = 1,
					  .queued = 2,
					  .events = true,
					  .comm = "my tool=x",
					  .requests = 40,
					  .errors = 3,
					  .denied = 2,
					  .guess_made = { 0, 9 },
					  .guess_held = { 0, 8 },
					  .guess_missed = { 0, 1 } };
	cl[1] = (struct ctl_client_info){ .id = 9, .pid = 99, .uid = 65534 };
	ni->nclients = 2;
	ni->clients = cl;
	ni->queue = 3;
	ni->queue_max = 64;
	ni->requests = 1000;
	ni->completed = 998;
	ni->errors = 1;
	ni->cpu_ns = 998ULL * 1500; /* 1.5 us per request */
	ni->spin_ns = 0;
	ni->lat_p50_ns = 312400;
	ni->lat_p90_ns = 500000;
	ni->lat_p99_ns = 1999500;
	ni->lat_max_ns = 2500001;
	ni->wait_p99_ns = 0;
	ni->cpu_ppm = 1234.4;
	ni->poller_cpu_ppm = 1000.2;
	ni->daemon_cpu_ns = 998ULL * 700; /* 0.7 us per request */
}

START_TEST(test_node_kv)
{
	struct ctl_client_info cl[2];
	struct ctl_node_info ni;
	struct ctl_kvlist l;
	struct ctl_buf b;
	char err[128];

	sample(&ni, cl);
	ctl_buf_init(&b);
	ctl_node_kv(&b, &ni);
	ck_assert(!b.oom);
	ck_assert_int_eq(ctl_kv_parse(b.data, b.len, &l, err, sizeof(err)), 0);
	ck_assert_str_eq(l.kv[0].key, "node");
	ck_assert_str_eq(l.kv[0].value, "ipmi1");
	ck_assert_str_eq(ctl_kv_find(&l, 0, 99, "preset"), "interactive");
	ck_assert_str_eq(ctl_kv_find(&l, 0, 99, "custom"), "yes");
	ck_assert_str_eq(ctl_kv_find(&l, 0, 99, "policy.max_busy_us"),
			 "unlimited");
	ck_assert_str_eq(ctl_kv_find(&l, 0, 99, "policy.cpu_budget"), "0.5%");
	ck_assert_str_eq(ctl_kv_find(&l, 0, 99, "clients"), "2");
	ck_assert_str_eq(ctl_kv_find(&l, 0, 99, "client"),
			 "id=7 pid=1234 "
			 "uid=0 outstanding=1 queued=2 events=yes requests=40 "
			 "errors=3 denied=2 guess_send=0/0/0 "
			 "guess_recv=9/8/1 comm=my?tool?x");
	/* no name known: "?" */
	ck_assert_ptr_nonnull(strstr(b.data, "client=id=9 pid=99 uid=65534 "
					     "outstanding=0 queued=0 "
					     "events=no requests=0 errors=0 "
					     "denied=0 guess_send=0/0/0 "
					     "guess_recv=0/0/0 comm=?\n"));
	ck_assert_str_eq(ctl_kv_find(&l, 0, 99, "queue"), "3");
	ck_assert_str_eq(ctl_kv_find(&l, 0, 99, "queue_max"), "64");
	ck_assert_str_eq(ctl_kv_find(&l, 0, 99, "requests"), "1000");
	ck_assert_str_eq(ctl_kv_find(&l, 0, 99, "completed"), "998");
	ck_assert_str_eq(ctl_kv_find(&l, 0, 99, "cpu_ns_per_req"), "1500");
	ck_assert_str_eq(ctl_kv_find(&l, 0, 99, "spin_ns"), "0");
	ck_assert_str_eq(ctl_kv_find(&l, 0, 99, "spin_ns_per_req"), "0");
	/* ns rounded to us */
	ck_assert_str_eq(ctl_kv_find(&l, 0, 99, "latency_p50_us"), "312");
	ck_assert_str_eq(ctl_kv_find(&l, 0, 99, "latency_p90_us"), "500");
	ck_assert_str_eq(ctl_kv_find(&l, 0, 99, "latency_p99_us"), "2000");
	ck_assert_str_eq(ctl_kv_find(&l, 0, 99, "latency_max_us"), "2500");
	ck_assert_str_eq(ctl_kv_find(&l, 0, 99, "queue_wait_p99_us"), "0");
	ck_assert_str_eq(ctl_kv_find(&l, 0, 99, "cpu_ppm"), "1234");
	ck_assert_str_eq(ctl_kv_find(&l, 0, 99, "poller_cpu_ppm"), "1000");
	ck_assert_str_eq(ctl_kv_find(&l, 0, 99, "daemon_cpu_ns"), "698600");
	ck_assert_str_eq(ctl_kv_find(&l, 0, 99, "daemon_cpu_ns_per_req"),
			 "700");
	ctl_kvlist_free(&l);

	/* LIST leaves the clients out, but not their number. */
	ni.clients = NULL;
	ctl_buf_reset(&b);
	ctl_node_kv(&b, &ni);
	ck_assert_int_eq(ctl_kv_parse(b.data, b.len, &l, err, sizeof(err)), 0);
	ck_assert_ptr_null(ctl_kv_find(&l, 0, 99, "client"));
	ck_assert_str_eq(ctl_kv_find(&l, 0, 99, "clients"), "2");
	ctl_kvlist_free(&l);

	/* Nothing completed: no division by zero. */
	ni.completed = 0;
	ctl_buf_reset(&b);
	ctl_node_kv(&b, &ni);
	ck_assert_ptr_nonnull(strstr(b.data, "\ncpu_ns_per_req=0\n"));
	ctl_buf_free(&b);
}
END_TEST

START_TEST(test_node_json)
{
	struct ctl_client_info cl[2];
	struct ctl_node_info ni;
	struct ctl_buf b;

	sample(&ni, cl);
	ctl_buf_init(&b);
	ctl_node_json(&b, &ni);
	ck_assert(!b.oom);
	ck_assert_msg(json_valid(b.data, b.len), "invalid JSON: %s", b.data);
	ck_assert_ptr_nonnull(strstr(b.data, "\"name\": \"ipmi1\""));
	ck_assert_ptr_nonnull(
		strstr(b.data, "\"policy\": {\"max_busy_us\": \"unlimited\", "
			       "\"cpu_budget\": \"0.5%\"}"));
	ck_assert_ptr_nonnull(strstr(
		b.data,
		"{\"id\": 7, \"pid\": 1234, "
		"\"uid\": 0, \"outstanding\": 1, \"queued\": 2, \"events\": "
		"true, \"requests\": 40, \"errors\": 3, \"denied\": 2, "
		"\"guess_send\": [0, 0, 0], \"guess_recv\": [9, 8, 1], "
		"\"comm\": \"my tool=x\"}"));
	ck_assert_ptr_nonnull(
		strstr(b.data, "\"guess_recv\": [0, 0, 0], \"comm\": \"?\"}"));
	ck_assert_ptr_nonnull(strstr(b.data, "\"spin_ns\": 0,"));
	ck_assert_ptr_nonnull(strstr(b.data, "\"cpu_ns_per_req\": 1500,"));
	ck_assert_ptr_nonnull(strstr(b.data, "\"latency_p99_us\": 2000,"));
	ck_assert_ptr_nonnull(strstr(b.data,
				     "\"daemon_cpu_ns\": 698600, "
				     "\"daemon_cpu_ns_per_req\": 700,"));
	ck_assert_ptr_nonnull(strstr(
		b.data,
		"\"cpu_ppm\": 1234, \"poller_cpu_ppm\": 1000, "
		"\"cpu_used_pct\": 0.1234, \"cpu_budget_pct\": null, "
		"\"budget_used_pct\": null, \"cheapened\": 0, \"held\": 0,\n"
		"  \"completion_codes\": {}}"));
	/* a budget: in % of one CPU as the config writes it */
	ni.cpu_budget_ppm = 5000;
	ni.cheapened = 3;
	ni.held = 2;
	/* completion codes: the ones seen, by label */
	ni.cc_label[0] = "0x00";
	ni.cc[0] = 9;
	ni.cc_label[1] = "0xc0";
	ni.cc_label[25] = "other";
	ni.cc[25] = 4;
	ctl_buf_reset(&b);
	ctl_node_json(&b, &ni);
	ck_assert_msg(json_valid(b.data, b.len), "invalid JSON: %s", b.data);
	ck_assert_ptr_nonnull(strstr(
		b.data,
		"\"cpu_budget_pct\": 0.5000, "
		"\"budget_used_pct\": 24.7, \"cheapened\": 3, \"held\": 2,\n"
		"  \"completion_codes\": {\"0x00\": 9, \"other\": 4}}"));
	ctl_buf_reset(&b);
	ctl_node_kv(&b, &ni);
	ck_assert_ptr_nonnull(strstr(
		b.data,
		"\ncpu_used_pct=0.1234\n"
		"cpu_budget_pct=0.5000\nbudget_used_pct=24.7\ncheapened=3\n"
		"held=2\ncc.0x00=9\ncc.other=4\n"));

	/* Strings are escaped; no clients; NaN is not JSON. */
	ni.name = "a\"b";
	ni.access = "x\\y";
	ni.nclients = 0;
	ni.cpu_ppm = NAN;
	ni.poller_cpu_ppm = NAN;
	ctl_buf_reset(&b);
	ctl_node_json(&b, &ni);
	ck_assert_msg(json_valid(b.data, b.len), "invalid JSON: %s", b.data);
	ck_assert_ptr_nonnull(strstr(b.data, "\"name\": \"a\\\"b\""));
	ck_assert_ptr_nonnull(strstr(b.data, "\"clients\": []"));
	ck_assert_ptr_nonnull(strstr(b.data,
				     "\"cpu_ppm\": 0, \"poller_cpu_ppm\": 0, "
				     "\"cpu_used_pct\": 0.0000,"));

	/* Clients not collected: an empty array, still valid. */
	ni.clients = NULL;
	ni.nclients = 3;
	ni.npolicy = 0;
	ctl_buf_reset(&b);
	ctl_node_json(&b, &ni);
	ck_assert_msg(json_valid(b.data, b.len), "invalid JSON: %s", b.data);
	ck_assert_ptr_nonnull(strstr(b.data, "\"policy\": {}"));
	ck_assert_ptr_nonnull(strstr(b.data, "\"nclients\": 3"));

	/* Several nodes in an array, as STATS sends them. */
	ctl_buf_reset(&b);
	ctl_buf_printf(&b, "{\"nodes\": [");
	ctl_node_json(&b, &ni);
	ctl_buf_printf(&b, ",\n ");
	ctl_node_json(&b, &ni);
	ctl_buf_printf(&b, "]}\n");
	ck_assert_msg(json_valid(b.data, b.len), "invalid JSON: %s", b.data);
	ctl_buf_free(&b);
}
END_TEST

static Suite *control_proto_suite(void)
{
	Suite *s = suite_create("control_proto");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_json_validator);
	tcase_add_test(tc, test_hdr_roundtrip);
	tcase_add_test(tc, test_hdr_errors);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_kv_roundtrip);
	tcase_add_test(tc, test_kv_parse_errors);
	tcase_add_test(tc, test_kv_records);
	tcase_add_test(tc, test_req_show);
	tcase_add_test(tc, test_req_set);
	tcase_add_test(tc, test_buf_growth);
	tcase_add_test(tc, test_json_str);
	tcase_add_test(tc, test_node_kv);
	tcase_add_test(tc, test_node_json);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(control_proto_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
