// SPDX-License-Identifier: GPL-2.0
/*
 * control_cmds.c - the control protocol's requests (LIST, STATS, SHOW,
 * STATUS, CHECK, SET, RELOAD), each answered from the daemon's state
 * into its connection's output (control_conn.c frames the reply).
 *
 * SET applies a node's new policy between two transactions: xact.c reads
 * n->conf.pol when it submits each one, and sched_flow_update() changes
 * the node's share with its queue kept, so no client notices but by the
 * new timing.
 */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <unistd.h>

#include <kcsmux/control.h>
#include <kcsmux/version.h>

#include "control/control_priv.h"
#include "config/config.h"
#include "control/control.h"
#include "core/core.h"
#include "core/xact.h"
#include "util/error.h"
#include "util/log.h"
#include "core/access.h"
#include "core/health.h"
#include "core/leasegate.h"
#include "core/policy.h"
#include "backend/backend.h"

/* ---- nodes ---- */

static struct node *node_find(struct daemon *d, const char *name)
{
	struct node *n;

	LIST_FOREACH (n, &d->nodes, link)
		if (!n->dying && strcmp(n->conf.name, name) == 0)
			return n;
	return NULL;
}

static void reply_no_node(struct ctl_conn *c, uint16_t type, const char *name)
{
	struct ctl_buf names, b;
	struct node **v;
	size_t i, count;

	ctl_buf_init(&names);
	ctl_buf_init(&b);
	v = core_nodes(c->ctl->d, &count);
	for (i = 0; i < count; i++)
		ctl_buf_printf(&names, "%s%s", i ? " " : "", v[i]->conf.name);
	ctl_kv_addf(&b, "error", "no node \"%s\" (nodes: %s)", name,
		    names.data != NULL ? names.data : "none");
	for (i = 0; i < count; i++)
		ctl_kv_add(&b, "node", v[i]->conf.name);
	free(v);
	control_reply(c, type, CTL_E_NOENT, &b);
	ctl_buf_free(&b);
	ctl_buf_free(&names);
}

/* The request's "node=" (its first line), or an error reply and NULL. */
static struct node *req_node(struct ctl_conn *c, uint16_t type,
			     const struct ctl_kvlist *l)
{
	struct node *n;
	char tb[32];

	if (l->n == 0 || strcmp(l->kv[0].key, "node") != 0) {
		control_reply_err(c, type, CTL_E_PROTO, "%s: no node given",
				  ctl_type_name(type, tb, sizeof(tb)));
		return NULL;
	}
	if ((n = node_find(c->ctl->d, l->kv[0].value)) == NULL)
		reply_no_node(c, type, l->kv[0].value);
	return n;
}

/* ---- requests ---- */

static void global_kv(struct daemon *d, struct ctl_buf *b)
{
	ctl_kv_addf(b, "protocol", "%d", CTL_VERSION);
	ctl_kv_add(b, "version", KCSMUX_VERSION);
	ctl_kv_add(b, "backend", config_backend_name(d->cfg.backend));
	ctl_kv_add(b, "device", d->cfg.device != NULL ? d->cfg.device : "");
}

static void do_list(struct ctl_conn *c)
{
	struct daemon *d = c->ctl->d;
	struct node_snap s;
	struct node **v;
	struct ctl_buf b;
	uint64_t now = now_ns();
	size_t i, count;

	ctl_buf_init(&b);
	global_kv(d, &b);
	v = core_nodes(d, &count);
	for (i = 0; i < count; i++) {
		node_snap(v[i], now, NULL, &s);
		ctl_node_kv(&b, &s.ni);
		node_snap_free(&s);
	}
	free(v);
	control_reply(c, CTL_LIST, CTL_OK, &b);
	ctl_buf_free(&b);
}

static void do_stats(struct ctl_conn *c)
{
	struct mallinfo2 mi;
	struct daemon *d = c->ctl->d;
	struct node_snap s;
	struct node **v;
	struct ctl_buf b;
	uint64_t now = now_ns();
	size_t i, count;

	ctl_buf_init(&b);
	ctl_buf_printf(&b, "{\"protocol\": %d, \"version\": ", CTL_VERSION);
	ctl_json_str(&b, KCSMUX_VERSION);
	ctl_buf_printf(&b, ", \"backend\": ");
	ctl_json_str(&b, config_backend_name(d->cfg.backend));
	ctl_buf_printf(&b, ", \"device\": ");
	ctl_json_str(&b, d->cfg.device != NULL ? d->cfg.device : "");
	mi = mallinfo2();
	/* The daemon's heap in use (allocated chunks, mmapped ones included)
	 * and held free: a leak grows the first, the allocator settling only
	 * the second or RSS (vm.soak). 0 under ASan, which replaces malloc. */
	ctl_buf_printf(&b,
		       ", \"time_ns\": %llu, \"heap_in_use\": %zu, "
		       "\"heap_free\": %zu,\n\"nodes\": [",
		       (unsigned long long)now, mi.uordblks + mi.hblkhd,
		       mi.fordblks);
	v = core_nodes(d, &count);
	for (i = 0; i < count; i++) {
		node_snap(v[i], now, c, &s);
		ctl_buf_printf(&b, "%s\n ", i ? "," : "");
		ctl_node_json(&b, &s.ni);
		node_snap_free(&s);
	}
	free(v);
	ctl_buf_printf(&b, "\n]}\n");
	control_reply(c, CTL_STATS, CTL_OK, &b);
	ctl_buf_free(&b);
}

/* A byte value of a CHECK request: 0..255, decimal or 0x hex; -1 if not. */
static int byte_value(const char *s)
{
	unsigned long v;
	char *end;

	if (s == NULL || *s == '\0')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end != '\0' || v > 255)
		return -1;
	return (int)v;
}

/* CHECK: the node's access rules against a request, nothing sent. */
static void do_check(struct ctl_conn *c, const struct ctl_kvlist *l)
{
	const char *d = ctl_kv_find(l, 1, l->n, "data");
	int netfn = byte_value(ctl_kv_find(l, 1, l->n, "netfn"));
	int cmd = byte_value(ctl_kv_find(l, 1, l->n, "cmd"));
	uint8_t data[256];
	size_t len = 0;
	struct access_why why = { 0 };
	enum access_verdict v;
	char rule[128], *tok, *save = NULL, *copy;
	struct ctl_buf b;
	struct node *n;
	int x;

	if ((n = req_node(c, CTL_CHECK, l)) == NULL)
		return;
	if (netfn < 0 || cmd < 0) {
		control_reply_err(
			c, CTL_CHECK, CTL_E_INVAL,
			"check: netfn and cmd are bytes (0-255, 0x hex)");
		return;
	}
	if (d != NULL) {
		if ((copy = strdup(d)) == NULL) {
			control_reply_err(c, CTL_CHECK, CTL_E_INTERNAL,
					  "kcsmuxd: out of memory");
			return;
		}
		for (tok = strtok_r(copy, " ", &save); tok != NULL;
		     tok = strtok_r(NULL, " ", &save)) {
			if ((x = byte_value(tok)) < 0 || len >= sizeof(data)) {
				free(copy);
				control_reply_err(
					c, CTL_CHECK, CTL_E_INVAL,
					"check: data: bytes 0-255, at most "
					"%zu",
					sizeof(data));
				return;
			}
			data[len++] = (uint8_t)x;
		}
		free(copy);
	}
	v = access_check(&n->conf.acc, (uint8_t)netfn, (uint8_t)cmd, data, len,
			 &why);
	if (v == ACCESS_OK) {
		why.netfn = (uint8_t)netfn;
		why.cmd = (uint8_t)cmd;
	}
	access_rule_desc(&n->conf.acc, v, &why, rule, sizeof(rule));
	ctl_buf_init(&b);
	ctl_kv_add(&b, "verdict", v == ACCESS_OK ? "allowed" : "denied");
	ctl_kv_add(&b, "rule", rule);
	ctl_kv_addf(&b, "command", "netfn 0x%02x cmd 0x%02x", why.netfn,
		    why.cmd);
	control_reply(c, CTL_CHECK, CTL_OK, &b);
	ctl_buf_free(&b);
}

/* STATUS's fields, as key=value lines or one JSON object. */
struct emit {
	struct ctl_buf *b;
	bool json, first;
};

static void emit_str(struct emit *e, const char *key, const char *v)
{
	if (!e->json) {
		ctl_kv_add(e->b, key, v);
		return;
	}
	ctl_buf_printf(e->b, "%s\n \"%s\": ", e->first ? "{" : ",", key);
	ctl_json_str(e->b, v);
	e->first = false;
}

static void emit_num(struct emit *e, const char *key, unsigned long long v)
{
	if (!e->json)
		ctl_kv_addf(e->b, key, "%llu", v);
	else
		ctl_buf_printf(e->b, "%s\n \"%s\": %llu", e->first ? "{" : ",",
			       key, v);
	e->first = false;
}

/*
 * The BMC's identity, from the last Get Device ID answer the daemon saw
 * (IPMI v2.0 20.1): "unknown" until a client or the daemon sent one.
 */
static void bmc_identity(struct emit *e, const struct daemon *d)
{
	const uint8_t *id = d->bmc_id;
	char buf[32];

	if (d->bmc_id_len < 11) {
		emit_str(e, "bmc_identity",
			 "unknown (no Get Device ID answered yet)");
		return;
	}
	emit_str(e, "bmc_identity", "from its last Get Device ID");
	emit_num(e, "bmc_device_id", id[0]);
	emit_num(e, "bmc_device_revision", id[1] & 0x0f);
	/* major 7 bits binary, minor BCD */
	snprintf(buf, sizeof(buf), "%u.%02x", id[2] & 0x7f, id[3]);
	emit_str(e, "bmc_firmware", buf);
	snprintf(buf, sizeof(buf), "%u.%u", id[4] & 0x0f, id[4] >> 4);
	emit_str(e, "bmc_ipmi_version", buf);
	emit_num(e, "bmc_manufacturer_id",
		 (unsigned long long)(id[6] | id[7] << 8 |
				      (id[8] & 0x0f) << 16));
	emit_num(e, "bmc_product_id",
		 (unsigned long long)(id[9] | id[10] << 8));
}

static void do_status(struct ctl_conn *c, const struct ctl_kvlist *l)
{
	struct daemon *d = c->ctl->d;
	const struct backend *be = d->be;
	const char *j = ctl_kv_find(l, 0, l->n, "json");
	uint64_t now = now_ns();
	struct ctl_buf b;
	struct emit e = { &b, j != NULL && strcmp(j, "yes") == 0, true };
	unsigned long long clients = 0;
	struct health h;
	struct node **v;
	size_t i, count;

	ctl_buf_init(&b);
	v = core_nodes(d, &count);
	for (i = 0; i < count; i++)
		clients += v[i]->nclients;
	free(v);
	emit_str(&e, "version", KCSMUX_VERSION);
	emit_num(&e, "pid", (unsigned long long)getpid());
	emit_num(&e, "started_unix", d->started_unix);
	emit_num(&e, "uptime_s",
		 d->started_ns && now > d->started_ns ?
			 (now - d->started_ns) / 1000000000ULL :
			 0);
	emit_str(&e, "config", d->cfg_path != NULL ? d->cfg_path : "");
	emit_str(&e, "user", d->dropped ? d->cfg.user : "root");
	emit_str(&e, "sandbox",
		 d->sandboxed ? config_seccomp_name(d->cfg.seccomp) : "no");
	emit_num(&e, "reloads", d->reloads);
	emit_num(&e, "reload_failures", d->reload_failures);
	emit_str(&e, "last_reload",
		 d->reloads == 0   ? "none" :
		 d->last_reload_ok ? "ok" :
				     "failed");
	emit_num(&e, "last_reload_unix", d->last_reload_unix);
	emit_str(&e, "last_reload_error", d->last_reload_error);
	emit_str(&e, "backend", config_backend_name(d->cfg.backend));
	emit_str(&e, "device", d->cfg.device != NULL ? d->cfg.device : "");
	health_read(d, &h);
	emit_str(&e, "bmc", h.bmc_up ? "answering" : "silent");
	emit_num(&e, "bmc_since_unix", h.bmc_since_unix);
	emit_str(&e, "kcsraw_bmc", h.kcsraw_bmc);
	emit_num(&e, "bmc_silent_s",
		 d->bmc_silent && now > d->bmc_silent_since_ns ?
			 (now - d->bmc_silent_since_ns) / 1000000000ULL :
			 0);
	emit_num(&e, "bmc_silences", d->bmc_silences);
	emit_str(&e, "kcsraw_version", h.kcsraw_version);
	emit_str(&e, "stock_device", h.stock_device);
	emit_str(&e, "bridging", h.no_bridge ? "off" : "yes");
	bmc_identity(&e, d);
	emit_num(&e, "hosed", be != NULL ? be->health.hosed : 0);
	emit_num(&e, "kcs_errors", be != NULL ? be->health.kcs_errors : 0);
	emit_num(&e, "retries", be != NULL ? be->health.retries : 0);
	emit_num(&e, "completions", be != NULL ? be->health.completions : 0);
	emit_num(&e, "inflight", be != NULL ? be->inflight : 0);
	emit_num(&e, "nodes", count);
	emit_num(&e, "clients", clients);
	if (e.json)
		ctl_buf_printf(&b, "\n}\n");
	control_reply(c, CTL_STATUS, CTL_OK, &b);
	ctl_buf_free(&b);
}

static void do_show(struct ctl_conn *c, const struct ctl_kvlist *l)
{
	struct node_snap s;
	struct ctl_buf b;
	struct node *n;

	if ((n = req_node(c, CTL_SHOW, l)) == NULL)
		return;
	ctl_buf_init(&b);
	node_snap(n, now_ns(), c, &s);
	/* "json=yes": the node's object as in STATS, numbers as numbers */
	if (ctl_kv_find(l, 1, l->n, "json") != NULL &&
	    strcmp(ctl_kv_find(l, 1, l->n, "json"), "yes") == 0) {
		ctl_node_json(&b, &s.ni);
		ctl_buf_printf(&b, "\n");
		node_snap_free(&s);
		control_reply(c, CTL_SHOW, CTL_OK, &b);
		ctl_buf_free(&b);
		return;
	}
	ctl_node_kv(&b, &s.ni);
	node_snap_free(&s);
	node_show_kv(n, &b);
	control_reply(c, CTL_SHOW, CTL_OK, &b);
	ctl_buf_free(&b);
}

/* Root or the admin group (control_conn_admin), else a refusal sent. */
static bool need_admin(struct ctl_conn *c, uint16_t type)
{
	const struct kcsmux_config *cfg = &c->ctl->d->cfg;
	char tb[32];

	if (control_conn_admin(c))
		return true;
	if (cfg->admin_group != NULL && cfg->admin_group[0] != '\0' &&
	    cfg->admin_gid != (gid_t)-1)
		control_reply_err(c, type, CTL_E_PERM,
				  "permission denied: %s needs "
				  "root or group %s",
				  ctl_type_name(type, tb, sizeof(tb)),
				  cfg->admin_group);
	else
		control_reply_err(c, type, CTL_E_PERM,
				  "permission denied: %s needs "
				  "root",
				  ctl_type_name(type, tb, sizeof(tb)));
	log_ratelimited(&c->ctl->rl, LOG_NOTICE,
			"control: %s refused to uid %u "
			"(pid %ld)",
			ctl_type_name(type, tb, sizeof(tb)), (unsigned)c->uid,
			(long)c->pid);
	return false;
}

static bool is_poll_key(const char *k)
{
	static const char *const keys[] = { "max_busy_us", "poll_us",
					    "poll_max_us", "backoff",
					    "use_irq",	   "cpu_budget",
					    NULL };
	size_t i;

	for (i = 0; keys[i] != NULL; i++)
		if (strcmp(k, keys[i]) == 0)
			return true;
	return false;
}

/* A SET request read: the node's new policy and what it came from. */
struct set_req {
	struct kcsmux_policy pol;  /* the result */
	struct kcsmux_policy keys; /* the policy keys as given */
	enum kcsmux_preset preset;
	uint32_t mask; /* policy_key_index() bits */
	bool has_preset, poll_keys, raised;
};

/*
 * L's keys (after the node's name) into R, as kcsmux.conf reads a node: a
 * preset first, wherever it is, then the explicit keys over it. Repeated
 * keys are an error. 0, or -1 with *cause malloc'd.
 */
static int set_read(const struct node *n, const struct ctl_kvlist *l,
		    struct set_req *r, char **cause)
{
	const char *k, *v;
	int idx;
	size_t i;

	memset(r, 0, sizeof(*r));
	r->preset = n->conf.preset;
	r->keys = n->conf.pol;
	for (i = 1; i < l->n; i++) {
		k = l->kv[i].key;
		v = l->kv[i].value;
		if (strcmp(k, "policy") == 0) {
			if (r->has_preset)
				return error_set(cause, "policy given twice");
			r->has_preset = true;
			if (policy_preset_lookup(v, &r->preset, cause) < 0)
				return -1;
			continue;
		}
		if ((idx = policy_key_index(k)) >= 0) {
			if (r->mask & (1U << idx))
				return error_set(cause, "%s given twice", k);
			r->mask |= 1U << idx;
			r->poll_keys |= is_poll_key(k);
		}
	}
	for (i = 1; i < l->n; i++) {
		k = l->kv[i].key;
		if (strcmp(k, "policy") == 0)
			continue;
		if (policy_set_key(&r->keys, k, l->kv[i].value, cause) < 0)
			return -1;
	}
	r->raised = policy_resolve(&r->pol,
				   r->has_preset ? policy_preset(r->preset) :
						   &n->conf.pol,
				   &r->keys, r->mask);
	return policy_check(&r->pol, cause);
}

/* The reply's "changed" and "note" lines into B, the log's " k=v" into
 * WHAT. */
static void set_report(const struct daemon *d, const struct node *n,
		       const struct set_req *r, struct ctl_buf *b,
		       struct ctl_buf *what)
{
	char oldv[48], newv[48];
	const char *k;
	size_t i;

	for (i = 0; (k = policy_key_name(i)) != NULL; i++) {
		if (policy_get_key(&n->conf.pol, k, oldv, sizeof(oldv)) < 0 ||
		    policy_get_key(&r->pol, k, newv, sizeof(newv)) < 0 ||
		    strcmp(oldv, newv) == 0)
			continue;
		ctl_kv_addf(b, "changed", "%s %s -> %s", k, oldv, newv);
		ctl_buf_printf(what, " %s=%s", k, newv);
	}
	if (r->has_preset && r->preset != n->conf.preset)
		ctl_kv_addf(b, "changed", "preset %s -> %s",
			    policy_preset_name(n->conf.preset),
			    policy_preset_name(r->preset));
	if (r->raised)
		ctl_kv_addf(b, "note", "poll_max_us raised to %u (poll_us)",
			    r->pol.poll_us);
	if (r->poll_keys && d->cfg.backend == KCSMUX_BACKEND_IPMIDEV)
		ctl_kv_add(b, "note",
			   "backend ipmidev: the kernel polls, "
			   "polling keys have no effect");
}

static void do_set(struct ctl_conn *c, const struct ctl_kvlist *l)
{
	struct daemon *d = c->ctl->d;
	struct set_req r;
	struct ctl_buf b, what;
	struct node *n;
	char *cause = NULL;

	if (!need_admin(c, CTL_SET) || (n = req_node(c, CTL_SET, l)) == NULL)
		return;
	if (l->n < 2) {
		control_reply_err(c, CTL_SET, CTL_E_INVAL,
				  "set %s: nothing to set", n->conf.name);
		return;
	}
	if (set_read(n, l, &r, &cause) < 0) {
		control_reply_err(c, CTL_SET, CTL_E_INVAL,
				  "set %s: %s; nothing "
				  "changed",
				  n->conf.name,
				  cause != NULL ? cause : "invalid setting");
		free(cause);
		return;
	}
	ctl_buf_init(&b);
	ctl_buf_init(&what);
	set_report(d, n, &r, &b, &what);
	n->conf.pol = r.pol;
	n->conf.preset = r.preset;
	sched_flow_update(&d->sched, &n->flow, &n->conf.pol, now_ns());
	log_info("control: uid %u (pid %ld) set %s:%s%s", (unsigned)c->uid,
		 (long)c->pid, n->conf.name, r.has_preset ? " policy=" : "",
		 what.data != NULL ?
			 what.data :
			 (r.has_preset ? policy_preset_name(r.preset) :
					 " (no change)"));
	ctl_buf_free(&what);
	control_reply(c, CTL_SET, CTL_OK, &b);
	ctl_buf_free(&b);
	/* A higher rate or burst may make its queue eligible now. */
	xact_kick(d);
}

/* ---- leases (docs/leases.md) ---- */

/* Every unexpired lease: "lease=NODE CLASS LEFT_S configured|kcsmuxctl". */
static void lease_list(struct daemon *d, struct ctl_buf *b)
{
	uint64_t now = now_ns();
	const struct lease *l;
	const struct node *h;

	for (unsigned int i = 0; i < LEASE_NCLASSES; i++) {
		l = &d->leases.l[i];
		if (!l->holder || now >= l->until_ns)
			continue;
		h = l->holder;
		ctl_kv_addf(b, "lease", "%s %s %llu %s", h->conf.name,
			    lease_class_name(1u << i),
			    (unsigned long long)((l->until_ns - now) /
						 1000000000u),
			    (h->conf.leases & 1u << i) ? "configured" :
							 "kcsmuxctl");
	}
}

/* LEASE take: "node=", "classes=", "seconds=". */
static void lease_take_req(struct ctl_conn *c, const struct ctl_kvlist *l,
			   struct node *n, unsigned int mask)
{
	struct daemon *d = c->ctl->d;
	const struct node *h = NULL;
	const char *v = ctl_kv_find(l, 0, l->n, "seconds");
	unsigned long long secs;
	char *end = NULL;
	struct ctl_buf b;
	int rv;

	secs = v ? strtoull(v, &end, 10) : 0;
	if (!v || end == v || *end || secs == 0 ||
	    secs > LEASE_MAX_NS / 1000000000u) {
		control_reply_err(c, CTL_LEASE, CTL_E_INVAL,
				  "lease take: seconds must be 1 to %llu",
				  LEASE_MAX_NS / 1000000000u);
		return;
	}
	rv = leasegate_take(d, n, mask, secs * 1000000000u, &h);
	if (rv == -EBUSY) {
		control_reply_err(c, CTL_LEASE, CTL_E_BUSY,
				  "lease take %s: node %s holds one of "
				  "those classes",
				  n->conf.name, h ? h->conf.name : "?");
		return;
	}
	if (rv < 0) {
		control_reply_err(c, CTL_LEASE, CTL_E_INVAL,
				  "lease take %s: %s", n->conf.name,
				  strerror(-rv));
		return;
	}
	log_info("control: uid %u (pid %ld) lease take %s classes 0x%x for "
		 "%llu s",
		 (unsigned)c->uid, (long)c->pid, n->conf.name, mask, secs);
	ctl_buf_init(&b);
	lease_list(d, &b);
	control_reply(c, CTL_LEASE, CTL_OK, &b);
	ctl_buf_free(&b);
}

static void do_lease(struct ctl_conn *c, const struct ctl_kvlist *l)
{
	struct daemon *d = c->ctl->d;
	const char *op = ctl_kv_find(l, 0, l->n, "op");
	const char *cls = ctl_kv_find(l, 0, l->n, "classes");
	const char *name = ctl_kv_find(l, 0, l->n, "node");
	unsigned int mask = LEASE_ALL;
	struct ctl_buf b;
	struct node *n;

	if (op && !strcmp(op, "list")) {
		leasegate_conf(d, now_ns());
		ctl_buf_init(&b);
		lease_list(d, &b);
		control_reply(c, CTL_LEASE, CTL_OK, &b);
		ctl_buf_free(&b);
		return;
	}
	if (!op || (strcmp(op, "take") && strcmp(op, "release"))) {
		control_reply_err(c, CTL_LEASE, CTL_E_PROTO,
				  "lease: op must be list, take or release");
		return;
	}
	if (!need_admin(c, CTL_LEASE))
		return;
	if (!name || !(n = node_find(d, name))) {
		reply_no_node(c, CTL_LEASE, name ? name : "");
		return;
	}
	if ((cls || !strcmp(op, "take")) &&
	    lease_classes_parse(cls ? cls : "", &mask, NULL) < 0) {
		control_reply_err(c, CTL_LEASE, CTL_E_INVAL,
				  "lease %s: classes are chassis, fan-oem, "
				  "users, lan, firmware (not '%s')",
				  op, cls ? cls : "");
		return;
	}
	if (!strcmp(op, "take")) {
		lease_take_req(c, l, n, mask);
		return;
	}
	ctl_buf_init(&b);
	ctl_kv_addf(&b, "released", "%u", leasegate_release(d, n, mask));
	log_info("control: uid %u (pid %ld) lease release %s classes 0x%x",
		 (unsigned)c->uid, (long)c->pid, n->conf.name, mask);
	lease_list(d, &b);
	control_reply(c, CTL_LEASE, CTL_OK, &b);
	ctl_buf_free(&b);
	xact_kick(d);
}

/* RELOAD with "dry_run=yes": what the reload would do, nothing applied. */
static void do_reload_plan(struct ctl_conn *c)
{
	struct daemon *d = c->ctl->d;
	struct ctl_buf b;
	char *cause = NULL;

	ctl_buf_init(&b);
	if (daemon_reload_plan(d, &b, &cause) < 0) {
		control_reply_err(c, CTL_RELOAD, CTL_E_INVAL,
				  "reload would be rejected, the running "
				  "configuration would stay: %s",
				  cause != NULL ? cause : "unknown error");
		free(cause);
	} else {
		ctl_kv_addf(&b, "note", "dry run: nothing applied (%s)",
			    d->cfg_path != NULL ? d->cfg_path :
						  "the configuration");
		control_reply(c, CTL_RELOAD, CTL_OK, &b);
	}
	ctl_buf_free(&b);
}

static void do_reload(struct ctl_conn *c, const struct ctl_kvlist *l)
{
	struct daemon *d = c->ctl->d;
	struct ctl_buf b;
	char *cause = NULL;
	bool dry = false;

	if (!need_admin(c, CTL_RELOAD))
		return;
	for (size_t i = 0; i < l->n; i++) {
		if (strcmp(l->kv[i].key, "dry_run") == 0 &&
		    strcmp(l->kv[i].value, "yes") == 0) {
			dry = true;
			continue;
		}
		control_reply_err(c, CTL_RELOAD, CTL_E_PROTO,
				  "reload: unknown argument %s", l->kv[i].key);
		return;
	}
	if (dry) {
		do_reload_plan(c);
		return;
	}
	log_info("control: uid %u (pid %ld) reload", (unsigned)c->uid,
		 (long)c->pid);
	if (daemon_reload(d, &cause) < 0) {
		daemon_reload_done(d, false, cause);
		control_reply_err(c, CTL_RELOAD, CTL_E_INVAL,
				  "reload rejected, the "
				  "running configuration stays: %s",
				  cause != NULL ? cause : "unknown error");
		free(cause);
		return;
	}
	daemon_reload_done(d, true, NULL);
	if (d->reloaded != NULL)
		d->reloaded(d); /* main: READY=1, as after SIGHUP */
	ctl_buf_init(&b);
	ctl_kv_addf(&b, "note", "reloaded %s",
		    d->cfg_path != NULL ? d->cfg_path : "the configuration");
	control_reply(c, CTL_RELOAD, CTL_OK, &b);
	ctl_buf_free(&b);
	xact_kick(d);
}

void control_handle(struct ctl_conn *c, const struct ctl_hdr *h,
		    const char *payload)
{
	struct ctl_kvlist l;
	char err[128], tb[32];

	if (h->type & CTL_REPLY) {
		control_reply_err(
			c, h->type & (uint16_t)~CTL_REPLY, CTL_E_TYPE,
			"kcsmuxd: got a reply (%s), expected a request",
			ctl_type_name(h->type, tb, sizeof(tb)));
		return;
	}
	if (h->type == CTL_STATS || h->type == CTL_LIST) {
		if (h->len != 0) {
			control_reply_err(c, h->type, CTL_E_PROTO,
					  "%s takes no "
					  "arguments",
					  ctl_type_name(h->type, tb,
							sizeof(tb)));
			return;
		}
	}
	switch (h->type) {
	case CTL_LIST:
		do_list(c);
		return;
	case CTL_STATS:
		do_stats(c);
		return;
	case CTL_SHOW:
	case CTL_SET:
	case CTL_RELOAD:
	case CTL_STATUS:
	case CTL_CHECK:
	case CTL_LEASE:
		if (ctl_kv_parse(payload, h->len, &l, err, sizeof(err)) < 0) {
			control_reply_err(c, h->type, CTL_E_PROTO, "%s: %s",
					  ctl_type_name(h->type, tb,
							sizeof(tb)),
					  err);
			return;
		}
		if (h->type == CTL_SHOW)
			do_show(c, &l);
		else if (h->type == CTL_SET)
			do_set(c, &l);
		else if (h->type == CTL_STATUS)
			do_status(c, &l);
		else if (h->type == CTL_CHECK)
			do_check(c, &l);
		else if (h->type == CTL_LEASE)
			do_lease(c, &l);
		else
			do_reload(c, &l);
		ctl_kvlist_free(&l);
		return;
	default:
		control_reply_err(
			c, h->type, CTL_E_TYPE,
			"kcsmuxd does not know "
			"request %s (kcsmuxctl newer than the daemon?)",
			ctl_type_name(h->type, tb, sizeof(tb)));
	}
}
