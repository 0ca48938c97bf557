// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for kcsmux.conf: fused/config/ (libinih) and the value
 * parsers of fused/core/policy.c.
 *
 * The input is a configuration file. It is read twice: by config_load(),
 * from a memfd through its /proc/self/fd path (the daemon's own path, which
 * sees every byte, NULs included), and by config_load_string() up to the
 * first NUL. Without NULs both readers must give the same answer, down to
 * the error text.
 *
 * After a successful read: every node name valid, unique and the whole
 * name its [node NAME] line gives (every other header line exactly
 * [global]), every value in its documented range (kcsmux.conf(5)), the
 * access set the documented (preset + allow) - deny, each policy key
 * printed by policy_get_key() parsed back to the same value, and the whole
 * configuration written back as a file (policy keys explicit) read again
 * to the same values. After a failure: *cfg zeroed, one "NAME:..." line
 * per error (at most 50 and a summary). Leaks on either path are reported
 * by LeakSanitizer.
 * Seeds: tests/fuzz/corpus/config/, dictionary: tests/fuzz/config.dict.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <syslog.h>
#include <unistd.h>

#include "config/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

#define NAME_CHARS	"ABCDEFGHIJKLMNOPQRSTUVWXYZ" \
			"abcdefghijklmnopqrstuvwxyz0123456789_.-"

static int memfd = -1;
static char path[64];

static bool str_eq(const char *a, const char *b)
{
	return (a == NULL && b == NULL) ||
	       (a != NULL && b != NULL && strcmp(a, b) == 0);
}

static bool all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

/* Lines "NAME:LINE: text" or "NAME: text", at most 50 and a summary. */
static void check_cause(const char *cause, const char *name)
{
	size_t nl = strlen(name), lines = 0;
	const char *l = cause;

	CHECK(cause != NULL && *cause != '\0');
	while (l != NULL) {
		CHECK(strncmp(l, name, nl) == 0 && l[nl] == ':');
		lines++;
		l = strchr(l, '\n');
		if (l != NULL)
			l++;
	}
	CHECK(lines <= 51);
}

static void check_node_name(const struct kcsmux_config *cfg, size_t i)
{
	const struct kcsmux_node_conf *n = &cfg->nodes[i];
	size_t len = strnlen(n->name, sizeof(n->name));

	CHECK(len >= 1 && len <= KCSMUX_NAME_MAX);
	CHECK(strspn(n->name, NAME_CHARS) == len);
	CHECK(n->name[0] != '.' && n->name[0] != '-');
	CHECK(config_find_node(cfg, n->name) == n);	/* unique */
	if (strncmp(cfg->device, "/dev/", 5) == 0)
		CHECK(strcmp(cfg->device + 5, n->name) != 0);
}

static void check_policy(const struct kcsmux_policy *p)
{
	struct kcsmux_policy q, junk;
	char buf[64];
	const char *k;

	CHECK(p->max_busy_us <= 1000000 || p->max_busy_us == KCSMUX_UNLIMITED);
	CHECK(p->poll_us >= 1 && p->poll_us <= 1000000);
	CHECK(p->poll_max_us >= p->poll_us && p->poll_max_us <= 1000000);
	CHECK((unsigned int)p->backoff <= KCSMUX_BACKOFF_ADAPTIVE);
	CHECK(p->cpu_budget_ppm <= 1000000);
	CHECK(p->latency_target_us <= 60000000);
	CHECK((unsigned int)p->prio <= KCSMUX_PRIO_BULK);
	CHECK(p->weight >= 1 && p->weight <= 10000);
	CHECK(p->rate_milli <= 100000000);
	CHECK(p->burst >= 1 && p->burst <= 10000);
	CHECK(p->queue >= 1 && p->queue <= 10000);
	CHECK(policy_check(p, NULL) == 0);

	/* What kcsmuxctl shows is what kcsmuxctl set takes. */
	for (size_t i = 0; (k = policy_key_name(i)) != NULL; i++) {
		CHECK(policy_key_index(k) == (int)i);
		CHECK(policy_get_key(p, k, buf, sizeof(buf)) == 0);
		memset(&junk, 0x5a, sizeof(junk));
		q = *p;
		policy_merge(&q, &junk, 1U << i);
		CHECK(policy_set_key(&q, k, buf, NULL) == 0);
		CHECK(memcmp(&q, p, sizeof(q)) == 0);
	}
}

/* format -> parse gives the set back, where the syntax can say it. */
static void check_cmdset_text(const struct kcsmux_cmdset *s)
{
	struct kcsmux_cmdset all, t;
	char *text = cmdset_format(s);
	bool odd = false;

	CHECK(text != NULL);
	access_preset_set(KCSMUX_ACCESS_ALL, &all);
	for (unsigned int n = 1; n < KCSMUX_NETFNS; n += 2)
		odd |= !all_zero(s->bits[n], sizeof(s->bits[n]));
	CHECK(cmdset_empty(s) == (*text == '\0'));
	if (!cmdset_empty(s) &&
	    (!odd || memcmp(s, &all, sizeof(all)) == 0)) {
		cmdset_clear(&t);
		CHECK(cmdset_parse(&t, text, NULL) == 0);
		CHECK(memcmp(&t, s, sizeof(t)) == 0);
	}
	free(text);
}

static void check_access(const struct kcsmux_access *a)
{
	static const uint8_t cmds[] = { 0x00, 0x01, 0x07, 0x08, 0x34, 0x47,
					0x80, 0xfe, 0xff };
	struct kcsmux_cmdset base;
	const uint8_t *e = &a->eff.bits[0][0], *b = &base.bits[0][0];
	const uint8_t *al = &a->allow.bits[0][0], *de = &a->deny.bits[0][0];

	CHECK((unsigned int)a->preset <= KCSMUX_ACCESS_ALL);
	CHECK(access_preset_name(a->preset) != NULL);
	/* (preset + allow) - deny, whatever the order of the lines */
	access_preset_set(a->preset, &base);
	for (size_t i = 0; i < sizeof(base.bits); i++)
		CHECK(e[i] == ((b[i] | al[i]) & (uint8_t)~de[i]));
	for (unsigned int n = 0; n < 256; n += n < KCSMUX_NETFNS ? 1 : 37) {
		for (size_t i = 0; i < sizeof(cmds); i++) {
			uint8_t c = cmds[i];

			CHECK(access_allows(a, (uint8_t)n, c) ==
			      (n < KCSMUX_NETFNS &&
			       (cmdset_has(&base, (uint8_t)n, c) ||
				cmdset_has(&a->allow, (uint8_t)n, c)) &&
			       !cmdset_has(&a->deny, (uint8_t)n, c)));
		}
	}
	check_cmdset_text(&a->allow);
	check_cmdset_text(&a->deny);
}

/*
 * Every header line of TEXT is [global] or the [node NAME] of the node
 * that has that line, with all of NAME: none was cut short or misread.
 */
static void check_headers(const struct kcsmux_config *c, const char *text)
{
	const char *l, *nl, *p;
	size_t nodes = 0, len, a, w, r, b, i;
	int line = 1;

	for (l = text; l != NULL; l = nl != NULL ? nl + 1 : NULL, line++) {
		nl = strchr(l, '\n');
		p = l;
		len = nl != NULL ? (size_t)(nl - l) : strlen(l);
		if (line == 1 && len >= 3 && !memcmp(p, "\xef\xbb\xbf", 3)) {
			p += 3;
			len -= 3;
		}
		a = strspn(p, " \t");
		if (a >= len || p[a] != '[')
			continue;
		p += a + 1;
		len = strcspn(p, "]\n");
		CHECK(p[len] == ']');
		a = strspn(p, " \t");
		w = a + strcspn(p + a, " \t]");	/* the word */
		r = w + strspn(p + w, " \t");		/* the rest */
		for (b = len; b > r && strchr(" \t", p[b - 1]) != NULL; b--)
			;
		if (w - a == 6 && !memcmp(p + a, "global", 6)) {
			CHECK(r >= b);
			continue;
		}
		CHECK(w - a == 4 && !memcmp(p + a, "node", 4));
		for (i = 0; i < c->nnodes && c->nodes[i].line != line; i++)
			;
		CHECK(i < c->nnodes);
		CHECK(b - r == strlen(c->nodes[i].name) &&
		      !memcmp(p + r, c->nodes[i].name, b - r));
		nodes++;
	}
	CHECK(nodes == c->nnodes);
}

static void check_config(const struct kcsmux_config *c, const char *text)
{
	CHECK(config_backend_name(c->backend) != NULL);
	CHECK(c->device != NULL && c->device[0] == '/');
	CHECK(c->control_socket != NULL && c->control_socket[0] == '/' &&
	      strlen(c->control_socket) <= 107);
	CHECK(c->admin_group == NULL || c->admin_group[0] != '\0');
	if (c->admin_group == NULL)
		CHECK(c->admin_gid == (gid_t)-1);
	CHECK(c->max_outstanding >= 1 && c->max_outstanding <= 10000);
	CHECK(c->max_clients >= 1 && c->max_clients <= 10000);
	CHECK(c->event_backlog <= 10000);
	CHECK(c->log_level >= LOG_ERR && c->log_level <= LOG_DEBUG);
	CHECK(config_log_level_name(c->log_level) != NULL);
	CHECK(c->user == NULL || c->user[0] != '\0');
	CHECK(c->metrics_listen == NULL || strchr(c->metrics_listen, ':'));
	if (c->metrics_textfile != NULL) {
		size_t n = strlen(c->metrics_textfile);

		CHECK(c->metrics_textfile[0] == '/' && n >= 6 &&
		      strcmp(c->metrics_textfile + n - 5, ".prom") == 0);
	}
	CHECK(c->nnodes >= 1 && c->nodes != NULL);
	if (text != NULL)
		check_headers(c, text);
	for (size_t i = 0; i < c->nnodes; i++) {
		const struct kcsmux_node_conf *n = &c->nodes[i];

		check_node_name(c, i);
		CHECK((n->mode & ~(mode_t)0777) == 0);
		CHECK(policy_preset(n->preset) != NULL &&
		      policy_preset_name(n->preset) != NULL);
		CHECK(n->max_outstanding >= 1 && n->max_outstanding <= 10000);
		CHECK(n->max_clients >= 1 && n->max_clients <= 10000);
		CHECK(n->line >= 1);
		check_policy(&n->pol);
		check_access(&n->acc);
	}
}

/* The configuration as a file again: every value explicit but access. */
static char *write_back(const struct kcsmux_config *c)
{
	char *buf = NULL, val[64];
	size_t size = 0;
	const char *k;
	FILE *f = open_memstream(&buf, &size);

	CHECK(f != NULL);
	fprintf(f, "[global]\nbackend=%s\ndevice=%s\ncontrol_socket=%s\n"
		"admin_group=%s\nmax_outstanding=%u\nmax_clients=%u\n"
		"event_backlog=%u\nlog_level=%s\n",
		config_backend_name(c->backend), c->device, c->control_socket,
		c->admin_group ? c->admin_group : "", c->max_outstanding,
		c->max_clients, c->event_backlog,
		config_log_level_name(c->log_level));
	if (c->user != NULL)
		fprintf(f, "user=%s\n", c->user);
	if (c->metrics_listen != NULL)
		fprintf(f, "metrics_listen=%s\n", c->metrics_listen);
	if (c->metrics_textfile != NULL)
		fprintf(f, "metrics_textfile=%s\n", c->metrics_textfile);
	for (size_t i = 0; i < c->nnodes; i++) {
		const struct kcsmux_node_conf *n = &c->nodes[i];

		fprintf(f, "[node %s]\nowner=%u\ngroup=%u\nmode=%04o\n"
			"policy=%s\naccess=%s\nevents=%s\n"
			"max_outstanding=%u\nmax_clients=%u\n", n->name,
			(unsigned int)n->uid, (unsigned int)n->gid,
			(unsigned int)n->mode, policy_preset_name(n->preset),
			access_preset_name(n->acc.preset),
			n->events ? "yes" : "no", n->max_outstanding,
			n->max_clients);
		for (size_t j = 0; (k = policy_key_name(j)) != NULL; j++) {
			CHECK(policy_get_key(&n->pol, k, val,
					     sizeof(val)) == 0);
			fprintf(f, "%s=%s\n", k, val);
		}
	}
	CHECK(fclose(f) == 0);
	return buf;
}

static void check_same(const struct kcsmux_config *a,
		       const struct kcsmux_config *b, bool access)
{
	CHECK(a->backend == b->backend && str_eq(a->device, b->device) &&
	      str_eq(a->control_socket, b->control_socket) &&
	      str_eq(a->admin_group, b->admin_group) &&
	      a->admin_gid == b->admin_gid &&
	      a->max_outstanding == b->max_outstanding &&
	      a->max_clients == b->max_clients &&
	      a->event_backlog == b->event_backlog &&
	      a->log_level == b->log_level && str_eq(a->user, b->user) &&
	      a->user_uid == b->user_uid && a->user_gid == b->user_gid &&
	      str_eq(a->metrics_listen, b->metrics_listen) &&
	      str_eq(a->metrics_textfile, b->metrics_textfile) &&
	      a->nnodes == b->nnodes);
	for (size_t i = 0; i < a->nnodes; i++) {
		const struct kcsmux_node_conf *x = &a->nodes[i];
		const struct kcsmux_node_conf *y = &b->nodes[i];

		CHECK(strcmp(x->name, y->name) == 0 && x->uid == y->uid &&
		      x->gid == y->gid && x->mode == y->mode &&
		      x->preset == y->preset &&
		      memcmp(&x->pol, &y->pol, sizeof(x->pol)) == 0 &&
		      x->acc.preset == y->acc.preset &&
		      x->events == y->events &&
		      x->max_outstanding == y->max_outstanding &&
		      x->max_clients == y->max_clients);
		if (access)
			CHECK(memcmp(&x->acc, &y->acc, sizeof(x->acc)) == 0 &&
			      x->line == y->line);
	}
}

static void check_write_back(const struct kcsmux_config *c)
{
	struct kcsmux_config again;
	char *cause = NULL, *text = write_back(c);

	if (config_load_string(&again, text, "again", &cause) != 0)
		CHECK(0);	/* what was read must be writable */
	check_config(&again, text);
	check_same(c, &again, false);
	config_free(&again);
	free(text);
}

static int load_memfd(struct kcsmux_config *cfg, const uint8_t *data,
		      size_t size, char **cause)
{
	if (ftruncate(memfd, 0) != 0 ||
	    pwrite(memfd, data, size, 0) != (ssize_t)size)
		abort();
	return config_load(cfg, path, cause);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kcsmux_config a, b;
	char *ca = NULL, *cb = NULL, *text;
	int ra, rb;

	if (memfd < 0) {
		memfd = memfd_create("kcsmux.conf", MFD_CLOEXEC);
		if (memfd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	}
	text = malloc(size + 1);
	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';

	memset(&a, 0xa5, sizeof(a));	/* both must fill in everything */
	memset(&b, 0xa5, sizeof(b));
	ra = load_memfd(&a, data, size, &ca);
	rb = config_load_string(&b, text, path, &cb);
	CHECK(ra == 0 || ra == -1);
	CHECK(rb == 0 || rb == -1);

	if (ra == 0) {
		CHECK(ca == NULL);
		check_config(&a, memchr(data, '\0', size) ? NULL : text);
		check_write_back(&a);
	} else {
		check_cause(ca, path);
		CHECK(all_zero(&a, sizeof(a)));
	}
	if (rb == 0) {
		CHECK(cb == NULL);
		check_config(&b, text);
	} else {
		check_cause(cb, path);
		CHECK(all_zero(&b, sizeof(b)));
	}
	if (memchr(data, '\0', size) == NULL) {
		/* The same text: the same verdict, configuration and errors. */
		CHECK(ra == rb);
		if (ra == 0)
			check_same(&a, &b, true);
		else
			CHECK(strcmp(ca, cb) == 0);
	}
	config_free(&a);
	config_free(&b);
	free(ca);
	free(cb);
	free(text);
	return 0;
}
