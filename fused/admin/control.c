// SPDX-License-Identifier: GPL-2.0
/*
 * control.c - kcsmuxd's control socket in the event loop.
 *
 * A UNIX stream socket (include/kcsmux/control.h has the protocol), each
 * connection a bufferevent: frames are taken from its input as they
 * complete and each is answered at once into its output, so nothing here
 * blocks. The peer's credentials (SO_PEERCRED, and SO_PEERGROUPS or
 * /proc/PID/status for its supplementary groups) are read at accept:
 * anyone who can reach the socket may LIST, SHOW and STATS; SET and
 * RELOAD need root or a member of admin_group. RELOAD is SIGHUP's
 * daemon_reload() (reload.c), with its error sent back.
 *
 * SET applies a node's new policy between two transactions: xact.c reads
 * n->conf.pol when it submits each one, and sched_flow_update() changes
 * the node's share with its queue kept, so no client notices but by the
 * new timing.
 */
#include <errno.h>
#include <malloc.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>

#include <kcsmux/control.h>

#include "admin/control.h"
#include "kcsmuxd.h"
#include "util/error.h"
#include "util/log.h"
#include "core/access.h"
#include "core/policy.h"
#include "core/sdrcache.h"
#include "backend/backend.h"

#define CTL_MAX_CONNS	64
#define CTL_MAX_PER_UID 8 /* but root: others cannot lock root out */
#define CTL_ADMIN_SLOTS \
	8		     /* of CTL_MAX_CONNS, kept for root and the
				   admin group: 8 users x 8 cannot lock
				   them out */
#define CTL_EMFILE_RETRY_S 1 /* accept paused that long after EMFILE */
#define CTL_MAX_REQUEST	   (64 * 1024) /* requests are small */
#define CTL_IDLE_SEC	   600 /* a connection silent that long is closed */
#define CTL_WRITE_SEC	   30  /* a reader that long stuck is closed */

struct ctl_conn {
	LIST_ENTRY(ctl_conn) link;
	struct control *ctl;
	struct bufferevent *bev;
	pid_t pid;
	uid_t uid;
	gid_t gid;
	bool closing; /* free once the output is flushed */
};

/* The control socket's state, d->ctl (control_init allocates it, control_fini
 * frees it); the listener's and the timer's callbacks get it as their arg. */
struct control {
	struct daemon *d;
	struct evconnlistener *lev;
	struct event *resume; /* accepting again after EMFILE */
	unsigned long accept_errors;
	char *path;
	dev_t dev;
	ino_t ino;
	LIST_HEAD(, ctl_conn) conns;
	unsigned int nconns;
	struct log_rl rl;
};

/* ---- credentials ---- */

static bool gid_in(gid_t g, const gid_t *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == g)
			return true;
	return false;
}

/* The peer's supplementary groups: SO_PEERGROUPS (Linux 4.13), else the
 * Groups: line of /proc/PID/status. */
static bool peer_in_group(int fd, pid_t pid, gid_t g)
{
	gid_t small[64], *v = small;
	socklen_t len = sizeof(small);
	char path[64], line[4096], *p, *end;
	unsigned long x;
	bool found = false;
	FILE *f;

#ifdef SO_PEERGROUPS
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, v, &len) == 0)
		return gid_in(g, v, len / sizeof(gid_t));
	if (errno == ERANGE && (v = malloc(len)) != NULL) {
		if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, v, &len) == 0)
			found = gid_in(g, v, len / sizeof(gid_t));
		free(v);
		return found;
	}
#else
	(void)fd;
	(void)v;
	(void)len;
#endif
	snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	if ((f = fopen(path, "re")) == NULL)
		return false;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, "Groups:", 7) != 0)
			continue;
		for (p = line + 7;; p = end) {
			errno = 0;
			x = strtoul(p, &end, 10);
			if (end == p || errno != 0)
				break;
			if ((gid_t)x == g)
				found = true;
		}
		break;
	}
	fclose(f);
	return found;
}

static bool conn_is_admin(const struct daemon *d, int fd,
			  const struct ucred *cr)
{
	const struct kcsmux_config *cfg = &d->cfg;

	if (cr->uid == 0)
		return true;
	if (cfg->admin_group == NULL || cfg->admin_group[0] == '\0' ||
	    cfg->admin_gid == (gid_t)-1)
		return false;
	return cr->gid == cfg->admin_gid ||
	       peer_in_group(fd, cr->pid, cfg->admin_gid);
}

/* ---- replies ---- */

static void conn_free(struct ctl_conn *c)
{
	LIST_REMOVE(c, link);
	c->ctl->nconns--;
	bufferevent_free(c->bev);
	free(c);
}

static void reply(struct ctl_conn *c, uint16_t type, enum ctl_status st,
		  struct ctl_buf *b)
{
	struct evbuffer *out = bufferevent_get_output(c->bev);
	uint8_t raw[CTL_HDR_LEN];
	struct ctl_hdr h;

	if (b->oom) {
		ctl_buf_reset(b);
		ctl_kv_add(b, "error", "kcsmuxd: out of memory");
		st = CTL_E_INTERNAL;
	}
	if (b->len > CTL_MAX_PAYLOAD) {
		ctl_buf_reset(b);
		ctl_kv_add(b, "error", "kcsmuxd: reply too large");
		st = CTL_E_INTERNAL;
	}
	ctl_hdr_init(&h, (uint16_t)(type | CTL_REPLY), (uint32_t)b->len, st);
	ctl_hdr_encode(raw, &h);
	if (evbuffer_add(out, raw, sizeof(raw)) < 0 ||
	    (b->len > 0 && evbuffer_add(out, b->data, b->len) < 0))
		c->closing = true; /* out of memory: hang up */
}

static void reply_err(struct ctl_conn *c, uint16_t type, enum ctl_status st,
		      const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void reply_err(struct ctl_conn *c, uint16_t type, enum ctl_status st,
		      const char *fmt, ...)
{
	struct ctl_buf b;
	va_list ap;
	char *s = NULL, *line, *nl;

	ctl_buf_init(&b);
	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	if (s == NULL)
		ctl_kv_add(&b, "error", "kcsmuxd: out of memory");
	/* One error= line per line of the message. */
	for (line = s; line != NULL; line = nl) {
		if ((nl = strchr(line, '\n')) != NULL)
			*nl++ = '\0';
		if (*line != '\0' || line == s)
			ctl_kv_add(&b, "error", line);
	}
	free(s);
	reply(c, type, st, &b);
	ctl_buf_free(&b);
}

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
	reply(c, type, CTL_E_NOENT, &b);
	ctl_buf_free(&b);
	ctl_buf_free(&names);
}

/* Does the node's policy differ from its preset's? */
static bool policy_custom(const struct node *n)
{
	const struct kcsmux_policy *p = policy_preset(n->conf.preset);
	char a[48], b[48];
	const char *k;
	size_t i;

	if (p == NULL)
		return true;
	for (i = 0; (k = policy_key_name(i)) != NULL; i++) {
		if (policy_get_key(&n->conf.pol, k, a, sizeof(a)) < 0 ||
		    policy_get_key(p, k, b, sizeof(b)) < 0)
			return true;
		if (strcmp(a, b) != 0)
			return true;
	}
	return false;
}

/* Policy values for ni->policy[]: NPOL strings of 48 bytes. */
#define POLVAL_LEN 48

struct node_snap {
	struct ctl_node_info ni;
	char access[48];
	char polval[CTL_POLICY_MAX][POLVAL_LEN];
	struct ctl_client_info *clients;
};

/* Who may see which client: an admin every one, another user only the
 * clients of its own uid (pids and uids of others' are private). */
static bool sees_client(const struct ctl_conn *who, const struct client *c)
{
	struct ucred cr;

	if (who->uid == c->uid)
		return true;
	cr.pid = who->pid;
	cr.uid = who->uid;
	cr.gid = who->gid;
	return conn_is_admin(who->ctl->d, bufferevent_getfd(who->bev), &cr);
}

/* CLIENTS: NULL, or the connection asking (which clients it sees). */
static void node_snap(const struct node *n, uint64_t now,
		      const struct ctl_conn *clients, struct node_snap *s)
{
	struct ctl_node_info *ni = &s->ni;
	const struct nodestats *st = &n->st;
	const struct kcsmux_access *acc = &n->conf.acc;
	const struct client *c;
	const char *k;
	size_t i;

	memset(s, 0, sizeof(*s));
	ni->name = n->conf.name;
	ni->preset = policy_preset_name(n->conf.preset);
	if (ni->preset == NULL)
		ni->preset = "?";
	ni->custom = policy_custom(n);
	ni->ready = n->ready && !n->dying;
	snprintf(s->access, sizeof(s->access), "%s%s",
		 access_preset_name(acc->preset) ?
			 access_preset_name(acc->preset) :
			 "?",
		 cmdset_empty(&acc->allow) && cmdset_empty(&acc->deny) ?
			 "" :
			 "+lists");
	ni->access = s->access;
	for (i = 0; i < CTL_POLICY_MAX && (k = policy_key_name(i)) != NULL;
	     i++) {
		if (policy_get_key(&n->conf.pol, k, s->polval[i], POLVAL_LEN) <
		    0)
			snprintf(s->polval[i], POLVAL_LEN, "?");
		ni->policy[i].key = k;
		ni->policy[i].value = s->polval[i];
	}
	ni->npolicy = i;
	ni->nclients = n->nclients;
	if (clients) {
		s->clients = calloc(n->nclients ? n->nclients : 1,
				    sizeof(*s->clients));
		i = 0;
		if (s->clients != NULL)
			LIST_FOREACH (c, &n->clients, link) {
				if (i >= n->nclients)
					break;
				if (!sees_client(clients, c))
					continue;
				s->clients[i].id = c->id;
				s->clients[i].pid = c->pid;
				s->clients[i].uid = c->uid;
				s->clients[i].outstanding = c->outstanding;
				s->clients[i].queued = c->rq_len;
				s->clients[i].events = c->gets_events;
				s->clients[i].comm = c->comm;
				s->clients[i].requests = c->nreq;
				s->clients[i].errors = c->nerr;
				s->clients[i].denied = c->ndenied;
				for (int g = 0; g < 2; g++) {
					s->clients[i].guess_made[g] =
						c->guess_made[g];
					s->clients[i].guess_held[g] =
						c->guess_held[g];
					s->clients[i].guess_missed[g] =
						c->guess_missed[g];
				}
				i++;
			}
		ni->nclients = (uint32_t)i;
		ni->clients = s->clients;
	}
	ni->queue = n->flow.qlen;
	ni->queue_max = n->flow.queue_max;
	ni->requests = st->requests;
	ni->rejected = st->rejected;
	ni->cancelled = st->cancelled;
	ni->dispatched = st->dispatched;
	ni->completed = st->completed;
	ni->errors = st->errors;
	_Static_assert(CTL_NCC == NODESTATS_NCC, "completion code slots");
	for (i = 0; i < NODESTATS_NCC; i++) {
		ni->cc_label[i] = nodestats_cc_label(i);
		ni->cc[i] = st->cc[i];
	}
	ni->denied = n->cnt.denied;
	ni->busy = n->cnt.busy + st->rejected;
	ni->opens = n->cnt.opens;
	ni->service_ns = st->service_ns;
	ni->cpu_ns = st->cpu_ns;
	ni->spin_ns = st->spin_ns;
	ni->lat_p50_ns = nodestats_hist_quantile(&st->latency, 0.5);
	ni->lat_p90_ns = nodestats_hist_quantile(&st->latency, 0.9);
	ni->lat_p99_ns = nodestats_hist_quantile(&st->latency, 0.99);
	ni->lat_max_ns = st->latency.max_ns;
	ni->wait_p99_ns = nodestats_hist_quantile(&st->queue_wait, 0.99);
	ni->wait_max_ns = st->queue_wait.max_ns;
	_Static_assert(CTL_NBUCKETS == NODESTATS_NBUCKETS, "latency buckets");
	ni->lat_count = st->latency.count;
	ni->lat_sum_ns = st->latency.sum_ns;
	ni->lat_bound_ns = nodestats_bounds_ns;
	memcpy(ni->lat_bucket, st->latency.bucket, sizeof(ni->lat_bucket));
	ni->cpu_ppm = nodestats_cpu_ppm(&st->cpu, now);
	ni->cpu_budget_ppm = n->conf.pol.cpu_budget_ppm;
	ni->cheapened = n->cnt.throttled;
	ni->held = n->cnt.held;
	ni->daemon_cpu_ns = st->daemon_cpu_ns;
	ni->poller_cpu_ppm = nodestats_cpu_ppm(&st->poller_cpu, now);
}

static void node_snap_free(struct node_snap *s)
{
	free(s->clients);
	s->clients = NULL;
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
	reply(c, CTL_LIST, CTL_OK, &b);
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
	reply(c, CTL_STATS, CTL_OK, &b);
	ctl_buf_free(&b);
}

static struct node *req_node(struct ctl_conn *c, uint16_t type,
			     const struct ctl_kvlist *l);

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
		reply_err(c, CTL_CHECK, CTL_E_INVAL,
			  "check: netfn and cmd are bytes (0-255, 0x hex)");
		return;
	}
	if (d != NULL) {
		if ((copy = strdup(d)) == NULL) {
			reply_err(c, CTL_CHECK, CTL_E_INTERNAL,
				  "kcsmuxd: out of memory");
			return;
		}
		for (tok = strtok_r(copy, " ", &save); tok != NULL;
		     tok = strtok_r(NULL, " ", &save)) {
			if ((x = byte_value(tok)) < 0 || len >= sizeof(data)) {
				free(copy);
				reply_err(c, CTL_CHECK, CTL_E_INVAL,
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
	reply(c, CTL_CHECK, CTL_OK, &b);
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
	emit_str(&e, "bmc", d->bmc_silent ? "silent" : "answering");
	emit_num(&e, "bmc_silent_s",
		 d->bmc_silent && now > d->bmc_silent_since_ns ?
			 (now - d->bmc_silent_since_ns) / 1000000000ULL :
			 0);
	emit_num(&e, "bmc_silences", d->bmc_silences);
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
	reply(c, CTL_STATUS, CTL_OK, &b);
	ctl_buf_free(&b);
}

/* The request's "node=" (its first line), or an error reply and NULL. */
static struct node *req_node(struct ctl_conn *c, uint16_t type,
			     const struct ctl_kvlist *l)
{
	struct node *n;
	char tb[32];

	if (l->n == 0 || strcmp(l->kv[0].key, "node") != 0) {
		reply_err(c, type, CTL_E_PROTO, "%s: no node given",
			  ctl_type_name(type, tb, sizeof(tb)));
		return NULL;
	}
	if ((n = node_find(c->ctl->d, l->kv[0].value)) == NULL)
		reply_no_node(c, type, l->kv[0].value);
	return n;
}

/* One "adaptive=" line per window the node's adaptive backoff keeps. */
static void adaptive_line(void *arg, const struct adapt_class *cls,
			  const struct adapt_info *in)
{
	struct ctl_buf *b = arg;
	char what[16];

	if (cls != NULL)
		snprintf(what, sizeof(what), "%02x/%02x", cls->netfn, cls->cmd);
	else
		snprintf(what, sizeof(what), "all");
	ctl_kv_addf(b, "adaptive",
		    "class=%s n=%u lo_us=%u mid_us=%u "
		    "hi_us=%u handshakes_us=%u samples=%llu censored=%llu "
		    "restarts=%llu",
		    what, in->n, in->lo_us, in->mid_us, in->hi_us, in->hs_us,
		    (unsigned long long)in->samples,
		    (unsigned long long)in->censored,
		    (unsigned long long)in->flushes);
}

/* The node's SDR/FRU cache counters, and the interface's cache. */
static void sdr_cache_kv(const struct node *n, struct ctl_buf *b)
{
	const struct sdrc *sc = n->d->sdrc;
	const struct sdrc_stats *st;

	ctl_kv_add(b, "sdr_cache", n->conf.sdr_cache ? "yes" : "no");
	ctl_kv_addf(b, "sdr_cache_hits", "%llu",
		    (unsigned long long)n->cnt.sdr_hits);
	ctl_kv_addf(b, "sdr_cache_misses", "%llu",
		    (unsigned long long)n->cnt.sdr_misses);
	if (sc == NULL)
		return;
	st = sdrc_stats(sc);
	ctl_kv_add(b, "sdr_cache_state", sdrc_state_name(sc));
	ctl_kv_addf(b, "sdr_cache_records", "%u", sdrc_records(sc));
	ctl_kv_add(b, "sdr_cache_device_state", sdrc_device_state_name(sc));
	ctl_kv_addf(b, "sdr_cache_device_records", "%u",
		    sdrc_device_records(sc));
	ctl_kv_addf(b, "sdr_cache_fills", "%llu",
		    (unsigned long long)st->fills);
	ctl_kv_addf(b, "sdr_cache_revalidations", "%llu",
		    (unsigned long long)st->revalidations);
	ctl_kv_addf(b, "sdr_cache_invalidations", "%llu",
		    (unsigned long long)st->invalidations);
	ctl_kv_addf(b, "sdr_cache_bmc_requests", "%llu",
		    (unsigned long long)st->internal);
}

/* Sensor reads answered with another client's (coalesce = yes). */
static void coalesce_kv(const struct node *n, struct ctl_buf *b)
{
	ctl_kv_add(b, "coalesce", n->conf.coalesce ? "yes" : "no");
	ctl_kv_addf(b, "coalesced", "%llu",
		    (unsigned long long)n->cnt.coalesced);
	ctl_kv_addf(b, "coalesce_window_ms", "%u", n->conf.coalesce_window_ms);
	ctl_kv_addf(b, "coalesced_recent", "%llu",
		    (unsigned long long)n->cnt.coalesced_recent);
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
		reply(c, CTL_SHOW, CTL_OK, &b);
		ctl_buf_free(&b);
		return;
	}
	ctl_node_kv(&b, &s.ni);
	node_snap_free(&s);
	sdr_cache_kv(n, &b);
	coalesce_kv(n, &b);
	if (n->conf.pol.backoff == KCSMUX_BACKOFF_ADAPTIVE)
		adapt_each(&n->adapt, adaptive_line, &b);
	reply(c, CTL_SHOW, CTL_OK, &b);
	ctl_buf_free(&b);
}

/* Root or the admin group, decided per request from the credentials the
 * socket recorded at connect. */
static bool need_admin(struct ctl_conn *c, uint16_t type)
{
	const struct kcsmux_config *cfg = &c->ctl->d->cfg;
	struct ucred cr = { .pid = c->pid, .uid = c->uid, .gid = c->gid };
	char tb[32];

	if (conn_is_admin(c->ctl->d, bufferevent_getfd(c->bev), &cr))
		return true;
	if (cfg->admin_group != NULL && cfg->admin_group[0] != '\0' &&
	    cfg->admin_gid != (gid_t)-1)
		reply_err(c, type, CTL_E_PERM,
			  "permission denied: %s needs "
			  "root or group %s",
			  ctl_type_name(type, tb, sizeof(tb)),
			  cfg->admin_group);
	else
		reply_err(c, type, CTL_E_PERM,
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
		reply_err(c, CTL_SET, CTL_E_INVAL, "set %s: nothing to set",
			  n->conf.name);
		return;
	}
	if (set_read(n, l, &r, &cause) < 0) {
		reply_err(c, CTL_SET, CTL_E_INVAL,
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
	reply(c, CTL_SET, CTL_OK, &b);
	ctl_buf_free(&b);
	/* A higher rate or burst may make its queue eligible now. */
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
		reply_err(c, CTL_RELOAD, CTL_E_INVAL,
			  "reload would be rejected, the running "
			  "configuration would stay: %s",
			  cause != NULL ? cause : "unknown error");
		free(cause);
	} else {
		ctl_kv_addf(&b, "note", "dry run: nothing applied (%s)",
			    d->cfg_path != NULL ? d->cfg_path :
						  "the configuration");
		reply(c, CTL_RELOAD, CTL_OK, &b);
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
		reply_err(c, CTL_RELOAD, CTL_E_PROTO,
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
		reply_err(c, CTL_RELOAD, CTL_E_INVAL,
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
	reply(c, CTL_RELOAD, CTL_OK, &b);
	ctl_buf_free(&b);
	xact_kick(d);
}

static void handle(struct ctl_conn *c, const struct ctl_hdr *h,
		   const char *payload)
{
	struct ctl_kvlist l;
	char err[128], tb[32];

	if (h->type & CTL_REPLY) {
		reply_err(c, h->type & (uint16_t)~CTL_REPLY, CTL_E_TYPE,
			  "kcsmuxd: got a reply (%s), expected a request",
			  ctl_type_name(h->type, tb, sizeof(tb)));
		return;
	}
	if (h->type == CTL_STATS || h->type == CTL_LIST) {
		if (h->len != 0) {
			reply_err(c, h->type, CTL_E_PROTO,
				  "%s takes no "
				  "arguments",
				  ctl_type_name(h->type, tb, sizeof(tb)));
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
		if (ctl_kv_parse(payload, h->len, &l, err, sizeof(err)) < 0) {
			reply_err(c, h->type, CTL_E_PROTO, "%s: %s",
				  ctl_type_name(h->type, tb, sizeof(tb)), err);
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
		else
			do_reload(c, &l);
		ctl_kvlist_free(&l);
		return;
	default:
		reply_err(c, h->type, CTL_E_TYPE,
			  "kcsmuxd does not know "
			  "request %s (kcsmuxctl newer than the daemon?)",
			  ctl_type_name(h->type, tb, sizeof(tb)));
	}
}

/* Answer every complete frame in the input, unless the output is already
 * backed up (then the write callback comes back here once it drains). */
static void conn_process(struct ctl_conn *c)
{
	struct evbuffer *in = bufferevent_get_input(c->bev);
	struct evbuffer *out = bufferevent_get_output(c->bev);
	uint8_t raw[CTL_HDR_LEN];
	struct ctl_hdr h;
	enum ctl_status st;
	const char *payload;

	while (!c->closing && evbuffer_get_length(out) < CTL_MAX_PAYLOAD &&
	       evbuffer_get_length(in) >= CTL_HDR_LEN) {
		evbuffer_copyout(in, raw, sizeof(raw));
		st = ctl_hdr_decode(raw, &h);
		if (st == CTL_E_PROTO || h.len > CTL_MAX_REQUEST) {
			log_debug("control: pid %ld: bad frame (magic %08x, "
				  "%u bytes): closing",
				  (long)c->pid, h.magic, h.len);
			/* The answers to the requests before it still go. */
			c->closing = true;
			bufferevent_disable(c->bev, EV_READ);
			break;
		}
		if (evbuffer_get_length(in) < CTL_HDR_LEN + (size_t)h.len)
			return; /* the rest is on its way */
		if (st == CTL_E_VERSION) {
			reply_err(c, h.type & (uint16_t)~CTL_REPLY,
				  CTL_E_VERSION,
				  "kcsmuxctl protocol %u, daemon "
				  "speaks %u",
				  h.version, CTL_VERSION);
			c->closing = true;
			break;
		}
		payload = (const char *)
			evbuffer_pullup(in, (ev_ssize_t)(CTL_HDR_LEN + h.len));
		if (payload == NULL) {
			conn_free(c);
			return;
		}
		handle(c, &h, payload + CTL_HDR_LEN);
		evbuffer_drain(in, CTL_HDR_LEN + (size_t)h.len);
	}
	if (c->closing && evbuffer_get_length(out) == 0)
		conn_free(c);
}

static void conn_read(struct bufferevent *bev, void *arg)
{
	(void)bev;
	conn_process(arg);
}

static void conn_write(struct bufferevent *bev, void *arg)
{
	(void)bev;
	conn_process(arg); /* output drained: pending requests, close */
}

static void conn_event(struct bufferevent *bev, short what, void *arg)
{
	(void)bev;
	(void)what;
	conn_free(arg); /* EOF, error or timeout */
}

static unsigned int conns_of(const struct control *ctl, uid_t uid)
{
	const struct ctl_conn *c;
	unsigned int n = 0;

	LIST_FOREACH (c, &ctl->conns, link)
		n += c->uid == uid;
	return n;
}

static void on_accept(struct evconnlistener *lev, evutil_socket_t fd,
		      struct sockaddr *sa, int salen, void *arg)
{
	struct control *ctl = arg;
	struct daemon *d = ctl->d;
	struct timeval rt = { CTL_IDLE_SEC, 0 }, wt = { CTL_WRITE_SEC, 0 };
	struct ucred cr;
	socklen_t len = sizeof(cr);
	struct ctl_conn *c;
	bool admin;

	(void)lev;
	(void)sa;
	(void)salen;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0) {
		log_ratelimited(&ctl->rl, LOG_WARNING,
				"control: "
				"SO_PEERCRED: %s",
				strerror(errno));
		close(fd);
		return;
	}
	admin = ctl->nconns >= CTL_MAX_CONNS - CTL_ADMIN_SLOTS &&
		conn_is_admin(d, fd, &cr);
	if (ctl->nconns >= CTL_MAX_CONNS ||
	    (ctl->nconns >= CTL_MAX_CONNS - CTL_ADMIN_SLOTS && !admin) ||
	    (cr.uid != 0 && conns_of(ctl, cr.uid) >= CTL_MAX_PER_UID)) {
		log_ratelimited(&ctl->rl, LOG_WARNING,
				"control: too many "
				"connections, refusing uid %u (pid %ld)",
				(unsigned)cr.uid, (long)cr.pid);
		close(fd);
		return;
	}
	if ((c = calloc(1, sizeof(*c))) == NULL) {
		close(fd);
		return;
	}
	c->ctl = ctl;
	c->pid = cr.pid;
	c->uid = cr.uid;
	c->gid = cr.gid;
	c->bev = bufferevent_socket_new(d->base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (c->bev == NULL) {
		close(fd);
		free(c);
		return;
	}
	bufferevent_setcb(c->bev, conn_read, conn_write, conn_event, c);
	bufferevent_setwatermark(c->bev, EV_READ, 0,
				 CTL_HDR_LEN + CTL_MAX_REQUEST);
	bufferevent_set_timeouts(c->bev, &rt, &wt);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
	LIST_INSERT_HEAD(&ctl->conns, c, link);
	ctl->nconns++;
	log_debug("control: connection from pid %ld uid %u gid %u",
		  (long)cr.pid, (unsigned)cr.uid, (unsigned)cr.gid);
}

static void resume_accepting(evutil_socket_t fd, short what, void *arg)
{
	struct control *ctl = arg;

	(void)fd;
	(void)what;
	if (ctl->lev)
		evconnlistener_enable(ctl->lev);
}

/* EMFILE/ENFILE: libevent would retry at once, forever (100% CPU and a
 * log line each time); pause accepting and try again in a second. */
static void on_accept_error(struct evconnlistener *lev, void *arg)
{
	struct control *ctl = arg;
	struct timeval tv = { CTL_EMFILE_RETRY_S, 0 };
	int err = errno;

	ctl->accept_errors++;
	if ((err == EMFILE || err == ENFILE || err == ENOBUFS ||
	     err == ENOMEM) &&
	    ctl->resume) {
		evconnlistener_disable(lev);
		evtimer_add(ctl->resume, &tv);
		log_ratelimited(&ctl->rl, LOG_WARNING,
				"control: accept: %s: "
				"not accepting for %d s",
				strerror(err), CTL_EMFILE_RETRY_S);
		return;
	}
	log_ratelimited(&ctl->rl, LOG_WARNING, "control: accept: %s",
			strerror(err));
}

/* ---- the socket ---- */

/* mkdir -p DIR's components with mode 0755 (those it creates). */
static int mkdir_parents(const char *path, char **cause)
{
	char *dir = strdup(path), *p;
	struct stat sb;
	int rv = -1;

	if (dir == NULL)
		return error_set(cause, "out of memory");
	if ((p = strrchr(dir, '/')) == NULL || p == dir) {
		free(dir);
		return 0;
	}
	*p = '\0';
	for (p = dir + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;

		*p = '\0';
		if (mkdir(dir, 0755) == 0) {
			if (chmod(dir, 0755) < 0) {
				error_set(cause,
					  "control socket: chmod %s: "
					  "%s",
					  dir, strerror(errno));
				goto out;
			}
		} else if (errno != EEXIST) {
			error_set(cause, "control socket: mkdir %s: %s", dir,
				  strerror(errno));
			goto out;
		} else if (stat(dir, &sb) < 0 || !S_ISDIR(sb.st_mode)) {
			error_set(cause,
				  "control socket: %s is not a "
				  "directory",
				  dir);
			goto out;
		}
		if ((*p = c) == '\0')
			break;
	}
	rv = 0;
out:
	free(dir);
	return rv;
}

/* A socket file at SUN's path: leave it if a daemon answers, else it is
 * stale and goes. Anything else there is an error. */
static int clear_stale(const struct sockaddr_un *sun, char **cause)
{
	struct stat sb;
	int fd, rv;

	if (lstat(sun->sun_path, &sb) < 0)
		return errno == ENOENT ?
			       0 :
			       error_set(cause,
					 "control "
					 "socket %s: %s",
					 sun->sun_path, strerror(errno));
	if (!S_ISSOCK(sb.st_mode))
		return error_set(cause,
				 "control socket %s: exists and is "
				 "not a socket",
				 sun->sun_path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return error_set(cause, "socket: %s", strerror(errno));
	rv = connect(fd, (const struct sockaddr *)sun, sizeof(*sun));
	close(fd);
	if (rv == 0)
		return error_set(cause,
				 "control socket %s: another kcsmuxd "
				 "is listening on it",
				 sun->sun_path);
	if (unlink(sun->sun_path) < 0 && errno != ENOENT)
		return error_set(cause,
				 "control socket %s: removing the "
				 "stale socket: %s",
				 sun->sun_path, strerror(errno));
	return 0;
}

/* control_init's work, on ctl (d->ctl): the socket, if there is to be one. */
static int control_listen(struct daemon *d, struct control *ctl, char **cause)
{
	const char *path = d->cfg.control_socket;
	struct sockaddr_un sun;
	struct stat sb;
	int fd = -1;

	if (path == NULL || *path == '\0') {
		log_info("control socket disabled");
		return 0;
	}
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun.sun_path))
		return error_set(cause, "control socket %s: path too long",
				 path);
	strcpy(sun.sun_path, path);
	if (mkdir_parents(path, cause) < 0 || clear_stale(&sun, cause) < 0)
		return -1;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return error_set(cause, "socket: %s", strerror(errno));
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		error_set(cause, "control socket %s: bind: %s", path,
			  strerror(errno));
		goto fail;
	}
	/* Everyone may connect; each request is decided by credentials. */
	if (chmod(path, 0666) < 0 || stat(path, &sb) < 0) {
		error_set(cause, "control socket %s: %s", path,
			  strerror(errno));
		unlink(path);
		goto fail;
	}
	if (listen(fd, 16) < 0) {
		error_set(cause, "control socket %s: listen: %s", path,
			  strerror(errno));
		unlink(path);
		goto fail;
	}
	ctl->lev = evconnlistener_new(d->base, on_accept, ctl,
				      LEV_OPT_CLOSE_ON_FREE |
					      LEV_OPT_CLOSE_ON_EXEC,
				      0, fd);
	if (ctl->lev == NULL) {
		error_set(cause,
			  "control socket %s: evconnlistener_new "
			  "failed",
			  path);
		unlink(path);
		goto fail;
	}
	evconnlistener_set_error_cb(ctl->lev, on_accept_error);
	ctl->resume = evtimer_new(d->base, resume_accepting, ctl);
	if ((ctl->path = strdup(path)) == NULL) {
		evconnlistener_free(ctl->lev);
		ctl->lev = NULL;
		unlink(path);
		return error_set(cause, "out of memory");
	}
	ctl->dev = sb.st_dev;
	ctl->ino = sb.st_ino;
	log_info("control socket %s", path);
	return 0;
fail:
	close(fd);
	return -1;
}

int control_init(struct daemon *d, char **cause)
{
	/* stats -j reports mallinfo2(); the first call initialises glibc's
	 * malloc if nothing has yet (a sanitized build, whose allocator is
	 * ASan's), which calls getrandom: do it now, before the seccomp
	 * filter, not from the first stats request under it. */
	struct control *ctl;

	(void)mallinfo2();
	if ((ctl = calloc(1, sizeof(*ctl))) == NULL)
		return error_set(cause, "out of memory");
	LIST_INIT(&ctl->conns);
	ctl->d = d;
	d->ctl = ctl;
	if (control_listen(d, ctl, cause) == 0)
		return 0;
	if (ctl->resume != NULL)
		event_free(ctl->resume);
	free(ctl);
	d->ctl = NULL;
	return -1;
}

unsigned long control_accept_errors(const struct daemon *d)
{
	return d->ctl != NULL ? d->ctl->accept_errors : 0;
}

void control_fini(struct daemon *d)
{
	struct control *ctl = d->ctl;
	struct stat sb;

	if (ctl == NULL)
		return;
	while (!LIST_EMPTY(&ctl->conns))
		conn_free(LIST_FIRST(&ctl->conns));
	if (ctl->lev != NULL)
		evconnlistener_free(ctl->lev);
	ctl->lev = NULL;
	if (ctl->resume != NULL)
		event_free(ctl->resume);
	ctl->resume = NULL;
	/*
	 * Remove the socket only if it is still ours (not a successor's).
	 * After dropping root (user = ...) the directory may not let us:
	 * the next start replaces the stale socket anyway.
	 */
	if (ctl->path != NULL && lstat(ctl->path, &sb) == 0 &&
	    sb.st_dev == ctl->dev && sb.st_ino == ctl->ino &&
	    unlink(ctl->path) < 0)
		log_msg(errno == EACCES || errno == EPERM ? LOG_DEBUG :
							    LOG_WARNING,
			"control socket %s: %s", ctl->path, strerror(errno));
	free(ctl->path);
	free(ctl);
	d->ctl = NULL;
}
