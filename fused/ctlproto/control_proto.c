// SPDX-License-Identifier: GPL-2.0
/*
 * control_proto.c - the kcsmuxd control protocol's framing and text
 * payloads (include/kcsmux/control.h), shared by kcsmuxd and kcsmuxctl.
 * Pure: no I/O. tests/unit/test_control_proto.c.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kcsmux/control.h>

#include "util/le.h"

void ctl_hdr_encode(uint8_t out[CTL_HDR_LEN], const struct ctl_hdr *h)
{
	st32(out, h->magic);
	st16(out + 4, h->version);
	st16(out + 6, h->type);
	st32(out + 8, h->len);
	st32(out + 12, h->status);
}

enum ctl_status ctl_hdr_decode(const uint8_t in[CTL_HDR_LEN], struct ctl_hdr *h)
{
	h->magic = ld32(in);
	h->version = ld16(in + 4);
	h->type = ld16(in + 6);
	h->len = ld32(in + 8);
	h->status = ld32(in + 12);
	if (h->magic != CTL_MAGIC || h->len > CTL_MAX_PAYLOAD)
		return CTL_E_PROTO;
	if (h->version != CTL_VERSION)
		return CTL_E_VERSION;
	return CTL_OK;
}

void ctl_hdr_init(struct ctl_hdr *h, uint16_t type, uint32_t len,
		  uint32_t status)
{
	h->magic = CTL_MAGIC;
	h->version = CTL_VERSION;
	h->type = type;
	h->len = len;
	h->status = status;
}

static const char *const type_names[] = {
	[CTL_LIST] = "list",   [CTL_SHOW] = "show",	[CTL_SET] = "set",
	[CTL_STATS] = "stats", [CTL_RELOAD] = "reload", [CTL_STATUS] = "status",
	[CTL_CHECK] = "check", [CTL_LEASE] = "lease",
};

const char *ctl_type_name(uint16_t type, char *buf, size_t len)
{
	uint16_t t = type & (uint16_t)~CTL_REPLY;

	if (t < sizeof(type_names) / sizeof(type_names[0]) &&
	    type_names[t] != NULL) {
		if (!(type & CTL_REPLY))
			return type_names[t];
		snprintf(buf, len, "reply to %s", type_names[t]);
	} else
		snprintf(buf, len, "type 0x%04x", type);
	return buf;
}

const char *ctl_status_name(uint32_t status)
{
	static const char *const names[] = {
		[CTL_OK] = "ok",
		[CTL_E_PROTO] = "protocol error",
		[CTL_E_VERSION] = "protocol version mismatch",
		[CTL_E_TYPE] = "unknown request",
		[CTL_E_NOENT] = "no such node",
		[CTL_E_INVAL] = "invalid argument",
		[CTL_E_PERM] = "permission denied",
		[CTL_E_UNSUPPORTED] = "not supported",
		[CTL_E_INTERNAL] = "internal error",
		[CTL_E_BUSY] = "held by another",
	};

	if (status < sizeof(names) / sizeof(names[0]))
		return names[status];
	return "unknown status";
}

/* ---- text buffer ---- */

void ctl_buf_init(struct ctl_buf *b)
{
	memset(b, 0, sizeof(*b));
}

void ctl_buf_free(struct ctl_buf *b)
{
	free(b->data);
	ctl_buf_init(b);
}

void ctl_buf_reset(struct ctl_buf *b)
{
	b->len = 0;
	b->oom = false;
	if (b->data != NULL)
		b->data[0] = '\0';
}

static bool buf_reserve(struct ctl_buf *b, size_t more)
{
	size_t cap;
	char *p;

	if (b->oom)
		return false;
	if (b->len + more + 1 <= b->cap)
		return true;
	cap = b->cap ? b->cap : 256;
	while (cap < b->len + more + 1) {
		if (cap > SIZE_MAX / 2) {
			b->oom = true;
			return false;
		}
		cap *= 2;
	}
	if ((p = realloc(b->data, cap)) == NULL) {
		b->oom = true;
		return false;
	}
	b->data = p;
	b->cap = cap;
	return true;
}

void ctl_buf_add(struct ctl_buf *b, const void *data, size_t len)
{
	if (!buf_reserve(b, len))
		return;
	if (len > 0)
		memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
}

static void buf_vprintf(struct ctl_buf *b, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0) {
		b->oom = true;
		return;
	}
	if (!buf_reserve(b, (size_t)n))
		return;
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void ctl_buf_printf(struct ctl_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(b, fmt, ap);
	va_end(ap);
}

/* ---- key=value text ---- */

static bool key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

bool ctl_key_valid(const char *key, size_t len)
{
	size_t i;

	if (len == 0 || len > CTL_KEY_MAX)
		return false;
	for (i = 0; i < len; i++)
		if (!key_char(key[i]))
			return false;
	return true;
}

bool ctl_value_valid(const char *value, size_t len)
{
	return memchr(value, '\0', len) == NULL &&
	       memchr(value, '\n', len) == NULL;
}

int ctl_kv_add(struct ctl_buf *b, const char *key, const char *value)
{
	size_t kl = strlen(key), vl = strlen(value);

	if (!ctl_key_valid(key, kl) || !ctl_value_valid(value, vl))
		return -1;
	if (!buf_reserve(b, kl + vl + 2))
		return 0;
	ctl_buf_add(b, key, kl);
	ctl_buf_add(b, "=", 1);
	ctl_buf_add(b, value, vl);
	ctl_buf_add(b, "\n", 1);
	return 0;
}

int ctl_kv_addf(struct ctl_buf *b, const char *key, const char *fmt, ...)
{
	struct ctl_buf v;
	va_list ap;
	int rv;

	ctl_buf_init(&v);
	va_start(ap, fmt);
	buf_vprintf(&v, fmt, ap);
	va_end(ap);
	if (v.oom) {
		b->oom = true;
		rv = 0;
	} else
		rv = ctl_kv_add(b, key, v.data != NULL ? v.data : "");
	ctl_buf_free(&v);
	return rv;
}

int ctl_kv_parse(const char *text, size_t len, struct ctl_kvlist *l, char *err,
		 size_t errlen)
{
	size_t i, n = 0, line = 0, k;
	const char *p, *nl, *eq, *end = text + len;
	char *m;

	memset(l, 0, sizeof(*l));
	if (len == 0)
		return 0;
	if (memchr(text, '\0', len) != NULL) {
		snprintf(err, errlen, "NUL byte in text payload");
		return -1;
	}
	if (text[len - 1] != '\n') {
		snprintf(err, errlen, "last line has no newline");
		return -1;
	}
	for (p = text; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		line++;
		eq = memchr(p, '=', (size_t)(nl - p));
		if (eq == NULL) {
			snprintf(err, errlen, "line %zu: no '=' in '%.*s'",
				 line, (int)(nl - p > 40 ? 40 : nl - p), p);
			return -1;
		}
		if (!ctl_key_valid(p, (size_t)(eq - p))) {
			snprintf(err, errlen, "line %zu: bad key '%.*s'", line,
				 (int)(eq - p > 40 ? 40 : eq - p), p);
			return -1;
		}
		n++;
	}
	l->kv = calloc(n, sizeof(*l->kv));
	l->mem = malloc(len);
	if (l->kv == NULL || l->mem == NULL) {
		ctl_kvlist_free(l);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memcpy(l->mem, text, len);
	m = l->mem;
	for (i = 0, k = 0; i < n; i++) {
		l->kv[i].key = m + k;
		while (m[k] != '=')
			k++;
		m[k++] = '\0';
		l->kv[i].value = m + k;
		while (m[k] != '\n')
			k++;
		m[k++] = '\0';
	}
	l->n = n;
	return 0;
}

void ctl_kvlist_free(struct ctl_kvlist *l)
{
	free(l->kv);
	free(l->mem);
	memset(l, 0, sizeof(*l));
}

const char *ctl_kv_find(const struct ctl_kvlist *l, size_t from, size_t to,
			const char *key)
{
	size_t i;

	if (to > l->n)
		to = l->n;
	for (i = from; i < to; i++)
		if (strcmp(l->kv[i].key, key) == 0)
			return l->kv[i].value;
	return NULL;
}

bool ctl_kv_record(const struct ctl_kvlist *l, const char *rec_key, size_t from,
		   size_t *start, size_t *end)
{
	size_t i;

	for (i = from; i < l->n; i++)
		if (strcmp(l->kv[i].key, rec_key) == 0)
			break;
	if (i >= l->n)
		return false;
	*start = i;
	for (i++; i < l->n; i++)
		if (strcmp(l->kv[i].key, rec_key) == 0)
			break;
	*end = i;
	return true;
}

/* ---- requests ---- */

bool ctl_node_name_valid(const char *name)
{
	size_t len = strlen(name);

	return len >= 1 && len <= 31 && ctl_key_valid(name, len) &&
	       name[0] != '.' && name[0] != '-';
}

int ctl_req_show(struct ctl_buf *b, const char *node)
{
	if (!ctl_node_name_valid(node))
		return -1;
	return ctl_kv_add(b, "node", node);
}

int ctl_req_set(struct ctl_buf *b, const char *node, char *const *settings,
		size_t n, char *err, size_t errlen)
{
	size_t i, start = b->len;
	const char *eq;

	if (!ctl_node_name_valid(node)) {
		snprintf(err, errlen, "bad node name '%s'", node);
		return -1;
	}
	if (n == 0) {
		snprintf(err, errlen, "nothing to set");
		return -1;
	}
	ctl_kv_add(b, "node", node);
	for (i = 0; i < n; i++) {
		eq = strchr(settings[i], '=');
		if (eq == NULL || eq == settings[i] ||
		    !ctl_key_valid(settings[i], (size_t)(eq - settings[i])) ||
		    (eq - settings[i] == 4 &&
		     strncmp(settings[i], "node", 4) == 0) ||
		    !ctl_value_valid(eq + 1, strlen(eq + 1))) {
			snprintf(err, errlen, "'%s' is not KEY=VALUE",
				 settings[i]);
			b->len = start;
			if (b->data != NULL)
				b->data[start] = '\0';
			return -1;
		}
		ctl_buf_add(b, settings[i], strlen(settings[i]));
		ctl_buf_add(b, "\n", 1);
	}
	return 0;
}

/* ---- node records ---- */

void ctl_json_str(struct ctl_buf *b, const char *s)
{
	const unsigned char *p;

	ctl_buf_add(b, "\"", 1);
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		switch (*p) {
		case '"':
			ctl_buf_add(b, "\\\"", 2);
			break;
		case '\\':
			ctl_buf_add(b, "\\\\", 2);
			break;
		case '\n':
			ctl_buf_add(b, "\\n", 2);
			break;
		case '\t':
			ctl_buf_add(b, "\\t", 2);
			break;
		case '\r':
			ctl_buf_add(b, "\\r", 2);
			break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				ctl_buf_printf(b, "\\u%04x", *p);
			else
				ctl_buf_add(b, p, 1);
		}
	}
	ctl_buf_add(b, "\"", 1);
}

static uint64_t per_req(uint64_t total, uint64_t n)
{
	return n ? (total + n / 2) / n : 0;
}

static unsigned long long us(uint64_t ns)
{
	return (unsigned long long)((ns + 500) / 1000);
}

/* Never NaN or infinite: JSON has no spelling for them. */
static double ppm(double v)
{
	return isfinite(v) && v >= 0 ? v : 0;
}

static const char *yesno(bool b)
{
	return b ? "yes" : "no";
}

/* The counters in the order both formats print them. */
#define DAEMON_CPU_PER_REQ per_req(ni->daemon_cpu_ns, ni->completed)
#define NODE_COUNTERS(X)                                          \
	X("queue", ni->queue)                                     \
	X("queue_max", ni->queue_max)                             \
	X("requests", ni->requests)                               \
	X("rejected", ni->rejected)                               \
	X("cancelled", ni->cancelled)                             \
	X("dispatched", ni->dispatched)                           \
	X("completed", ni->completed)                             \
	X("errors", ni->errors)                                   \
	X("denied", ni->denied)                                   \
	X("busy", ni->busy)                                       \
	X("opens", ni->opens)                                     \
	X("service_ns", ni->service_ns)                           \
	X("cpu_ns", ni->cpu_ns)                                   \
	X("spin_ns", ni->spin_ns)                                 \
	X("cpu_ns_per_req", per_req(ni->cpu_ns, ni->completed))   \
	X("spin_ns_per_req", per_req(ni->spin_ns, ni->completed)) \
	X("daemon_cpu_ns", ni->daemon_cpu_ns)                     \
	X("daemon_cpu_ns_per_req", DAEMON_CPU_PER_REQ)            \
	X("latency_p50_us", us(ni->lat_p50_ns))                   \
	X("latency_p90_us", us(ni->lat_p90_ns))                   \
	X("latency_p99_us", us(ni->lat_p99_ns))                   \
	X("latency_max_us", us(ni->lat_max_ns))                   \
	X("queue_wait_p99_us", us(ni->wait_p99_ns))               \
	X("queue_wait_max_us", us(ni->wait_max_ns))

/*
 * A process name as one word of a client= line (the last one): bytes
 * other than printable ASCII, blanks and '=' become '?', so the line
 * still splits on blanks; NULL or empty: "?".
 */
static const char *comm_word(const char *comm, char *buf, size_t len)
{
	size_t i;

	if (comm == NULL || *comm == '\0' || len < 2)
		return "?";
	for (i = 0; comm[i] != '\0' && i + 1 < len; i++) {
		unsigned char ch = (unsigned char)comm[i];

		buf[i] = ch > ' ' && ch < 0x7f && ch != '=' ? (char)ch : '?';
	}
	buf[i] = '\0';
	return buf;
}

/*
 * The latency histogram's numbers as one list, SEP between them (" " in
 * kv, ", " in JSON): its bounds in ns (BOUNDS) or its bucket counts.
 */
static void hist_list(struct ctl_buf *v, const struct ctl_node_info *ni,
		      bool bounds, const char *sep)
{
	size_t i, n = bounds ? CTL_NBUCKETS - 1 : CTL_NBUCKETS;

	for (i = 0; i < n; i++)
		ctl_buf_printf(
			v, "%s%llu", i ? sep : "",
			(unsigned long long)(bounds ? ni->lat_bound_ns[i] :
						      ni->lat_bucket[i]));
}

/* KEY = the histogram's bounds (BOUNDS) or counts, space-separated; V is
 * scratch. */
static void hist_list_kv(struct ctl_buf *b, struct ctl_buf *v,
			 const struct ctl_node_info *ni, bool bounds,
			 const char *key)
{
	ctl_buf_reset(v);
	hist_list(v, ni, bounds, " ");
	if (v->oom)
		b->oom = true;
	else
		ctl_kv_add(b, key, v->data);
}

static void hist_kv(struct ctl_buf *b, const struct ctl_node_info *ni)
{
	struct ctl_buf v;

	if (ni->lat_bound_ns == NULL)
		return;
	ctl_kv_addf(b, "latency_count", "%llu",
		    (unsigned long long)ni->lat_count);
	ctl_kv_addf(b, "latency_sum_ns", "%llu",
		    (unsigned long long)ni->lat_sum_ns);
	ctl_buf_init(&v);
	hist_list_kv(b, &v, ni, true, "latency_bounds_ns");
	hist_list_kv(b, &v, ni, false, "latency_buckets");
	ctl_buf_free(&v);
}

static void hist_json(struct ctl_buf *b, const struct ctl_node_info *ni)
{
	if (ni->lat_bound_ns == NULL)
		return;
	ctl_buf_printf(b,
		       ",\n  \"latency_count\": %llu, \"latency_sum_ns\": %llu"
		       ",\n  \"latency_bounds_ns\": [",
		       (unsigned long long)ni->lat_count,
		       (unsigned long long)ni->lat_sum_ns);
	hist_list(b, ni, true, ", ");
	ctl_buf_printf(b, "],\n  \"latency_buckets\": [");
	hist_list(b, ni, false, ", ");
	ctl_buf_printf(b, "]");
}

void ctl_node_kv(struct ctl_buf *b, const struct ctl_node_info *ni)
{
	char key[CTL_KEY_MAX + 1], name[32];
	const struct ctl_client_info *c;
	size_t i;

	ctl_kv_add(b, "node", ni->name);
	ctl_kv_add(b, "preset", ni->preset);
	ctl_kv_add(b, "custom", yesno(ni->custom));
	ctl_kv_add(b, "ready", yesno(ni->ready));
	ctl_kv_add(b, "access", ni->access);
	for (i = 0; i < ni->npolicy && i < CTL_POLICY_MAX; i++) {
		snprintf(key, sizeof(key), "policy.%s", ni->policy[i].key);
		ctl_kv_add(b, key, ni->policy[i].value);
	}
	ctl_kv_addf(b, "clients", "%u", ni->nclients);
	for (i = 0; ni->clients != NULL && i < ni->nclients; i++) {
		c = &ni->clients[i];
		ctl_kv_addf(b, "client",
			    "id=%llu pid=%lld uid=%u "
			    "outstanding=%u queued=%u events=%s "
			    "requests=%llu errors=%llu denied=%llu "
			    "guess_send=%llu/%llu/%llu "
			    "guess_recv=%llu/%llu/%llu comm=%s",
			    (unsigned long long)c->id, (long long)c->pid,
			    c->uid, c->outstanding, c->queued, yesno(c->events),
			    (unsigned long long)c->requests,
			    (unsigned long long)c->errors,
			    (unsigned long long)c->denied,
			    (unsigned long long)c->guess_made[0],
			    (unsigned long long)c->guess_held[0],
			    (unsigned long long)c->guess_missed[0],
			    (unsigned long long)c->guess_made[1],
			    (unsigned long long)c->guess_held[1],
			    (unsigned long long)c->guess_missed[1],
			    comm_word(c->comm, name, sizeof(name)));
	}
#define KV(k, v) ctl_kv_addf(b, k, "%llu", (unsigned long long)(v));
	NODE_COUNTERS(KV)
#undef KV
	hist_kv(b, ni);
	ctl_kv_addf(b, "cpu_ppm", "%.0f", ppm(ni->cpu_ppm));
	ctl_kv_addf(b, "poller_cpu_ppm", "%.0f", ppm(ni->poller_cpu_ppm));
	/* the budget in the config's units: % of one CPU */
	ctl_kv_addf(b, "cpu_used_pct", "%.4f", ppm(ni->cpu_ppm) / 1e4);
	if (ni->cpu_budget_ppm) {
		ctl_kv_addf(b, "cpu_budget_pct", "%.4f",
			    ni->cpu_budget_ppm / 1e4);
		ctl_kv_addf(b, "budget_used_pct", "%.1f",
			    ppm(ni->cpu_ppm) * 100.0 / ni->cpu_budget_ppm);
	} else {
		ctl_kv_add(b, "cpu_budget_pct", "none");
		ctl_kv_add(b, "budget_used_pct", "-");
	}
	ctl_kv_addf(b, "cheapened", "%llu", (unsigned long long)ni->cheapened);
	ctl_kv_addf(b, "held", "%llu", (unsigned long long)ni->held);
	for (i = 0; i < CTL_NCC; i++) {
		if (ni->cc[i] == 0 || ni->cc_label[i] == NULL)
			continue;
		snprintf(key, sizeof(key), "cc.%s", ni->cc_label[i]);
		ctl_kv_addf(b, key, "%llu", (unsigned long long)ni->cc[i]);
	}
}

void ctl_node_json(struct ctl_buf *b, const struct ctl_node_info *ni)
{
	const struct ctl_client_info *c;
	size_t i, n;

	ctl_buf_add(b, "{\"name\": ", 9);
	ctl_json_str(b, ni->name);
	ctl_buf_add(b, ", \"preset\": ", 12);
	ctl_json_str(b, ni->preset);
	ctl_buf_printf(b, ", \"custom\": %s, \"ready\": %s, \"access\": ",
		       ni->custom ? "true" : "false",
		       ni->ready ? "true" : "false");
	ctl_json_str(b, ni->access);
	ctl_buf_printf(b, ",\n  \"policy\": {");
	for (i = 0; i < ni->npolicy && i < CTL_POLICY_MAX; i++) {
		ctl_buf_printf(b, "%s", i ? ", " : "");
		ctl_json_str(b, ni->policy[i].key);
		ctl_buf_add(b, ": ", 2);
		ctl_json_str(b, ni->policy[i].value);
	}
	ctl_buf_printf(b, "},\n  \"clients\": [");
	for (i = 0; ni->clients != NULL && i < ni->nclients; i++) {
		c = &ni->clients[i];
		ctl_buf_printf(
			b,
			"%s{\"id\": %llu, \"pid\": %lld, \"uid\": %u, "
			"\"outstanding\": %u, \"queued\": %u, \"events\": %s, "
			"\"requests\": %llu, \"errors\": %llu, \"denied\": %llu, "
			"\"guess_send\": [%llu, %llu, %llu], "
			"\"guess_recv\": [%llu, %llu, %llu], \"comm\": ",
			i ? ", " : "", (unsigned long long)c->id,
			(long long)c->pid, c->uid, c->outstanding, c->queued,
			c->events ? "true" : "false",
			(unsigned long long)c->requests,
			(unsigned long long)c->errors,
			(unsigned long long)c->denied,
			(unsigned long long)c->guess_made[0],
			(unsigned long long)c->guess_held[0],
			(unsigned long long)c->guess_missed[0],
			(unsigned long long)c->guess_made[1],
			(unsigned long long)c->guess_held[1],
			(unsigned long long)c->guess_missed[1]);
		ctl_json_str(b, c->comm != NULL ? c->comm : "?");
		ctl_buf_add(b, "}", 1);
	}
	ctl_buf_printf(b, "],\n  \"nclients\": %u", ni->nclients);
#define JS(k, v) \
	ctl_buf_printf(b, ", \"%s\": %llu", k, (unsigned long long)(v));
	NODE_COUNTERS(JS)
#undef JS
	hist_json(b, ni);
	ctl_buf_printf(b, ", \"cpu_ppm\": %.0f", ppm(ni->cpu_ppm));
	ctl_buf_printf(b, ", \"poller_cpu_ppm\": %.0f",
		       ppm(ni->poller_cpu_ppm));
	ctl_buf_printf(b, ", \"cpu_used_pct\": %.4f", ppm(ni->cpu_ppm) / 1e4);
	if (ni->cpu_budget_ppm)
		ctl_buf_printf(b,
			       ", \"cpu_budget_pct\": %.4f, "
			       "\"budget_used_pct\": %.1f",
			       ni->cpu_budget_ppm / 1e4,
			       ppm(ni->cpu_ppm) * 100.0 / ni->cpu_budget_ppm);
	else
		ctl_buf_printf(b, ", \"cpu_budget_pct\": null, "
				  "\"budget_used_pct\": null");
	ctl_buf_printf(b, ", \"cheapened\": %llu, \"held\": %llu",
		       (unsigned long long)ni->cheapened,
		       (unsigned long long)ni->held);
	ctl_buf_printf(b, ",\n  \"completion_codes\": {");
	for (i = 0, n = 0; i < CTL_NCC; i++) {
		if (ni->cc[i] == 0 || ni->cc_label[i] == NULL)
			continue;
		ctl_buf_printf(b, "%s", n++ ? ", " : "");
		ctl_json_str(b, ni->cc_label[i]);
		ctl_buf_printf(b, ": %llu", (unsigned long long)ni->cc[i]);
	}
	ctl_buf_printf(b, "}}");
}
