// SPDX-License-Identifier: GPL-2.0
/*
 * config.c - read kcsmux.conf with libinih.
 *
 * inih does the INI syntax; this file adds what inih does not give a
 * library user: line numbers (the handler's lineno argument is a
 * compile-time option of the library), sections without keys, and every
 * error rather than the first. All three come from one small reader passed
 * to ini_parse_stream():
 *
 *  - it hands inih one line at a time and counts them, so the handler
 *    knows the current line;
 *  - after each section header it hands inih one extra "sentinel" key
 *    line, not counted, so the handler sees every section begin, with
 *    the name as inih parsed it;
 *  - it strips leading blanks, so inih never takes an indented key for
 *    the continuation of the previous value;
 *  - a key line for which the handler was not called is a syntax error,
 *    reported at its own line (inih itself only returns the first).
 *
 * Keys are collected per section and resolved at the end of the file, so a
 * node's "policy" preset never overrides its explicit keys, wherever they
 * are, and a "deny" always beats an "allow".
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/un.h>
#include <syslog.h>

#include <ini.h>

#include "admin/config.h"
#include "util/error.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_REPORTED  50 /* errors listed before "and N more" */
#define SENTINEL      "kcsmux-section-begins = 1"

/* Node keys given, and where, until the end of the file. */
struct nodestate {
	struct kcsmux_policy explicit; /* policy keys as given */
	uint32_t pset;		       /* policy_key_index() bits */
	int plines[32];
	uint32_t kset; /* node_keys[] bits */
	int klines[16];
	bool has_allow;
};

enum section { SEC_NONE, SEC_GLOBAL, SEC_NODE, SEC_SKIP };

struct parser {
	const char *name; /* the file, in messages */
	struct kcsmux_config *cfg;

	FILE *f; /* the source: f, or s */
	const char *s;
	char *buf;
	size_t cap;
	int line;	     /* of the last real line read */
	bool header_pending; /* next: the sentinel */
	size_t header_len;   /* of its name, between [ and ] */
	bool in_sentinel;    /* inih is processing the sentinel */
	bool expect_call;    /* a key line: the handler must run */
	bool called;

	enum section sec;
	struct nodestate *ns; /* parallel to cfg->nodes */
	int global_line;
	uint32_t gset; /* global_keys[] bits */
	int glines[16];

	struct error *errs; /* sorted by line at the end */
	size_t nerr;
	bool oom; /* an error could not be recorded */
};

struct error {
	int line; /* 0: about the whole file */
	size_t seq;
	char *text;
};

static void errorf(struct parser *p, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void errorf(struct parser *p, int line, const char *fmt, ...)
{
	struct error *tmp;
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	tmp = reallocarray(p->errs, p->nerr + 1, sizeof(*p->errs));
	if (tmp != NULL)
		p->errs = tmp; /* the old one is freed */
	if (msg == NULL || tmp == NULL) {
		p->oom = true;
		free(msg);
		return;
	}
	tmp[p->nerr] = (struct error){ line, p->nerr, msg };
	p->nerr++;
}

/* Report a cause from policy.c or a setter at LINE, and free it. */
static void error_cause(struct parser *p, int line, char *cause)
{
	errorf(p, line, "%s", error_str(cause));
	free(cause);
}

static int set_string(char **dst, const char *v, char **cause)
{
	char *s = NULL;

	if (*v != '\0' && (s = strdup(v)) == NULL)
		return error_set(cause, "out of memory");
	free(*dst);
	*dst = s;
	return 0;
}

static int is_numeric(const char *v)
{
	return *v != '\0' && v[strspn(v, "0123456789")] == '\0';
}

static int parse_uid(const char *key, const char *v, uid_t *uid, char **cause)
{
	struct passwd *pw;
	uint32_t n;

	if (is_numeric(v)) {
		if (value_u32(key, v, 0, UINT32_MAX - 1, &n, cause) == -1)
			return -1;
		*uid = (uid_t)n;
		return 0;
	}
	if ((pw = getpwnam(v)) == NULL)
		return error_set(cause, "%s: unknown user '%s'", key, v);
	*uid = pw->pw_uid;
	return 0;
}

static int parse_gid(const char *key, const char *v, gid_t *gid, char **cause)
{
	struct group *gr;
	uint32_t n;

	if (is_numeric(v)) {
		if (value_u32(key, v, 0, UINT32_MAX - 1, &n, cause) == -1)
			return -1;
		*gid = (gid_t)n;
		return 0;
	}
	if ((gr = getgrnam(v)) == NULL)
		return error_set(cause, "%s: unknown group '%s'", key, v);
	*gid = gr->gr_gid;
	return 0;
}

static int parse_path(const char *key, const char *v, char **dst, char **cause)
{
	if (v[0] != '/')
		return error_set(cause, "%s: '%s' is not an absolute path", key,
				 v);
	return set_string(dst, v, cause);
}

/* ---- [global] ---- */

static int g_backend(struct kcsmux_config *cfg, const char *v, char **cause)
{
	static const char *const names[] = { "kcsraw", "ipmidev", NULL };
	int i = value_enum("backend", v, names, cause);

	if (i == -1)
		return -1;
	cfg->backend = (enum kcsmux_backend)i;
	return 0;
}

static int g_device(struct kcsmux_config *cfg, const char *v, char **cause)
{
	return parse_path("device", v, &cfg->device, cause);
}

static int g_backend_async_dev(struct kcsmux_config *cfg, const char *v,
			       char **cause)
{
	return parse_path("backend_async_dev", v, &cfg->backend_async_dev,
			  cause);
}

static int g_control_socket(struct kcsmux_config *cfg, const char *v,
			    char **cause)
{
	struct sockaddr_un sun;

	if (strlen(v) >= sizeof(sun.sun_path))
		return error_set(cause,
				 "control_socket: path longer than "
				 "%zu characters",
				 sizeof(sun.sun_path) - 1);
	return parse_path("control_socket", v, &cfg->control_socket, cause);
}

static int g_admin_group(struct kcsmux_config *cfg, const char *v, char **cause)
{
	gid_t gid = (gid_t)-1;

	if (*v != '\0' && parse_gid("admin_group", v, &gid, cause) == -1)
		return -1;
	cfg->admin_gid = gid;
	return set_string(&cfg->admin_group, v, cause);
}

static int g_max_outstanding(struct kcsmux_config *cfg, const char *v,
			     char **cause)
{
	return value_u32("max_outstanding", v, 1, 10000, &cfg->max_outstanding,
			 cause);
}

static int g_max_clients(struct kcsmux_config *cfg, const char *v, char **cause)
{
	return value_u32("max_clients", v, 1, 10000, &cfg->max_clients, cause);
}

static int g_event_backlog(struct kcsmux_config *cfg, const char *v,
			   char **cause)
{
	return value_u32("event_backlog", v, 0, 10000, &cfg->event_backlog,
			 cause);
}

static const char *const log_levels[] = { "err",  "warning", "notice",
					  "info", "debug",   NULL };

static int g_log_level(struct kcsmux_config *cfg, const char *v, char **cause)
{
	int i = value_enum("log_level", v, log_levels, cause);

	if (i == -1)
		return -1;
	cfg->log_level = LOG_ERR + i;
	return 0;
}

static int g_user(struct kcsmux_config *cfg, const char *v, char **cause)
{
	struct passwd *pw = NULL;
	uid_t uid = 0;

	if (*v != '\0' && parse_uid("user", v, &uid, cause) == -1)
		return -1;
	if (*v != '\0' && (pw = getpwuid(uid)) == NULL)
		return error_set(cause, "user: no user with uid %s", v);
	cfg->user_uid = pw != NULL ? pw->pw_uid : 0;
	cfg->user_gid = pw != NULL ? pw->pw_gid : 0;
	return set_string(&cfg->user, v, cause);
}

/* HOST:PORT, [V6ADDR]:PORT. */
static int g_metrics_listen(struct kcsmux_config *cfg, const char *v,
			    char **cause)
{
	const char *colon = strrchr(v, ':'), *host_end = colon;
	uint32_t port;

	if (*v == '\0')
		return set_string(&cfg->metrics_listen, v, cause);
	if (colon == NULL || colon == v || strpbrk(v, " \t") != NULL)
		return error_set(cause,
				 "metrics_listen: expected HOST:PORT "
				 "or [ADDRESS]:PORT, not '%s'",
				 v);
	if (v[0] == '[' && colon[-1] != ']')
		return error_set(cause,
				 "metrics_listen: missing ']' in "
				 "'%s'",
				 v);
	if (v[0] != '[' && memchr(v, ':', (size_t)(host_end - v)) != NULL)
		return error_set(
			cause,
			"metrics_listen: put an IPv6 "
			"address in brackets, like [::1]:9623, not '%s'",
			v);
	if (value_u32("metrics_listen port", colon + 1, 1, 65535, &port,
		      cause) == -1)
		return -1;
	return set_string(&cfg->metrics_listen, v, cause);
}

static int g_metrics_textfile(struct kcsmux_config *cfg, const char *v,
			      char **cause)
{
	size_t n = strlen(v);

	if (*v == '\0')
		return set_string(&cfg->metrics_textfile, v, cause);
	if (n < 6 || strcmp(v + n - 5, ".prom") != 0)
		return error_set(cause,
				 "metrics_textfile: '%s' must end in "
				 "'.prom' (node_exporter reads only *.prom)",
				 v);
	return parse_path("metrics_textfile", v, &cfg->metrics_textfile, cause);
}

static int g_seccomp(struct kcsmux_config *cfg, const char *v, char **cause)
{
	return config_seccomp_parse("seccomp", v, &cfg->seccomp, cause);
}

static int g_sdr_cache_revalidate_ms(struct kcsmux_config *cfg, const char *v,
				     char **cause)
{
	return value_u32("sdr_cache_revalidate_ms", v, 0, 3600000,
			 &cfg->sdr_cache_revalidate_ms, cause);
}

static const struct {
	const char *name;
	int (*set)(struct kcsmux_config *, const char *, char **);
} global_keys[] = {
	{ "backend", g_backend },
	{ "device", g_device },
	{ "backend_async_dev", g_backend_async_dev },
	{ "control_socket", g_control_socket },
	{ "admin_group", g_admin_group },
	{ "max_outstanding", g_max_outstanding },
	{ "max_clients", g_max_clients },
	{ "event_backlog", g_event_backlog },
	{ "log_level", g_log_level },
	{ "user", g_user },
	{ "metrics_listen", g_metrics_listen },
	{ "metrics_textfile", g_metrics_textfile },
	{ "seccomp", g_seccomp },
	{ "sdr_cache_revalidate_ms", g_sdr_cache_revalidate_ms },
};

_Static_assert(ARRAY_SIZE(global_keys) <=
		       ARRAY_SIZE(((struct parser *)0)->glines),
	       "glines too small");

/* ---- [node NAME] ---- */

static int n_owner(struct kcsmux_node_conf *n, struct nodestate *ns,
		   const char *v, char **cause)
{
	(void)ns;
	return parse_uid("owner", v, &n->uid, cause);
}

static int n_group(struct kcsmux_node_conf *n, struct nodestate *ns,
		   const char *v, char **cause)
{
	(void)ns;
	return parse_gid("group", v, &n->gid, cause);
}

static int n_mode(struct kcsmux_node_conf *n, struct nodestate *ns,
		  const char *v, char **cause)
{
	char *end;
	unsigned long m;

	(void)ns;
	errno = 0;
	m = strtoul(v, &end, 8);
	if (*v < '0' || *v > '7' || *end != '\0' || errno != 0 || m > 0777)
		return error_set(cause,
				 "mode: expected octal permission bits "
				 "from 0000 to 0777, not '%s'",
				 v);
	n->mode = (mode_t)m;
	return 0;
}

static int n_policy(struct kcsmux_node_conf *n, struct nodestate *ns,
		    const char *v, char **cause)
{
	(void)ns;
	return policy_preset_lookup(v, &n->preset, cause);
}

static int n_access(struct kcsmux_node_conf *n, struct nodestate *ns,
		    const char *v, char **cause)
{
	(void)ns;
	return access_preset_lookup(v, &n->acc.preset, cause);
}

static int n_allow(struct kcsmux_node_conf *n, struct nodestate *ns,
		   const char *v, char **cause)
{
	char *c = NULL;

	if (access_parse_allow(&n->acc, v, &c) == -1) {
		error_set(cause, "allow: %s", c != NULL ? c : "out of memory");
		free(c);
		return -1;
	}
	ns->has_allow = true;
	return 0;
}

static int n_deny(struct kcsmux_node_conf *n, struct nodestate *ns,
		  const char *v, char **cause)
{
	char *c = NULL;

	(void)ns;
	if (cmdset_parse(&n->acc.deny, v, &c) == -1) {
		error_set(cause, "deny: %s", c != NULL ? c : "out of memory");
		free(c);
		return -1;
	}
	return 0;
}

static int n_events(struct kcsmux_node_conf *n, struct nodestate *ns,
		    const char *v, char **cause)
{
	(void)ns;
	return value_bool("events", v, &n->events, cause);
}

static int n_max_outstanding(struct kcsmux_node_conf *n, struct nodestate *ns,
			     const char *v, char **cause)
{
	(void)ns;
	return value_u32("max_outstanding", v, 1, 10000, &n->max_outstanding,
			 cause);
}

static int n_max_clients(struct kcsmux_node_conf *n, struct nodestate *ns,
			 const char *v, char **cause)
{
	(void)ns;
	return value_u32("max_clients", v, 1, 10000, &n->max_clients, cause);
}

static int n_commands(struct kcsmux_node_conf *n, struct nodestate *ns,
		      const char *v, char **cause)
{
	(void)ns;
	return value_bool("commands", v, &n->commands, cause);
}

/* interface = N | none: the node's /dev/ipmi/N and /dev/ipmidev/N. */
static int n_interface(struct kcsmux_node_conf *n, struct nodestate *ns,
		       const char *v, char **cause)
{
	uint32_t num;

	(void)ns;
	if (strcasecmp(v, "none") == 0) {
		n->interface = -1;
		return 0;
	}
	if (value_u32("interface", v, 0, 255, &num, NULL) == -1)
		return error_set(cause,
				 "interface: expected an integer "
				 "from 0 to 255 or 'none', not '%s'",
				 v);
	n->interface = (int)num;
	return 0;
}

/* N of a node name "ipmiN" (decimal, no leading zero, N <= 255): its
 * default interface; -1 for other names. */
static int name_interface(const char *name)
{
	const char *d = name + 4;
	int num = 0;

	if (strncmp(name, "ipmi", 4) != 0 || *d == '\0' ||
	    (d[0] == '0' && d[1] != '\0') || strlen(d) > 3)
		return -1;
	for (; *d != '\0'; d++) {
		if (*d < '0' || *d > '9')
			return -1;
		num = num * 10 + (*d - '0');
	}
	return num <= 255 ? num : -1;
}

static int n_sdr_cache(struct kcsmux_node_conf *n, struct nodestate *ns,
		       const char *v, char **cause)
{
	(void)ns;
	return value_bool("sdr_cache", v, &n->sdr_cache, cause);
}

static int n_coalesce(struct kcsmux_node_conf *n, struct nodestate *ns,
		      const char *v, char **cause)
{
	(void)ns;
	return value_bool("coalesce", v, &n->coalesce, cause);
}

/* coalesce_window_ms = N: a sensor read may also take another client's
 * answer completed at most N ms ago (0, the default: in flight only). */
static int n_coalesce_window_ms(struct kcsmux_node_conf *n,
				struct nodestate *ns, const char *v,
				char **cause)
{
	(void)ns;
	return value_u32("coalesce_window_ms", v, 0, 60000,
			 &n->coalesce_window_ms, cause);
}

/* luns = LIST: the LUNs (0-3) the node's requests may address, the
 * system interface's and an IPMB target's: "0" (the default), "0,2",
 * "0-3", "*". LUN 0 must be in it. */
static int n_luns(struct kcsmux_node_conf *n, struct nodestate *ns,
		  const char *v, char **cause)
{
	unsigned int mask = 0, lo, hi;
	const char *p = v;

	(void)ns;
	while (*p) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '*') {
			lo = 0;
			hi = 3;
			p++;
		} else if (*p >= '0' && *p <= '3') {
			lo = hi = (unsigned int)(*p++ - '0');
			if (*p == '-' && p[1] >= '0' && p[1] <= '3') {
				hi = (unsigned int)(p[1] - '0');
				p += 2;
			}
		} else {
			break;
		}
		if (hi < lo)
			break;
		while (lo <= hi)
			mask |= 1u << lo++;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == ',' && p[1] != '\0')
			p++;
		else if (*p != '\0')
			break;
	}
	if (*p != '\0' || !(mask & 1))
		return error_set(cause,
				 "luns: expected a list of LUNs 0-3 "
				 "containing 0 (\"0\", \"0,2\", \"0-3\", "
				 "\"*\"), not '%s'",
				 v);
	n->luns = (uint8_t)(mask & ~1u);
	return 0;
}

enum {
	NK_ACCESS = 4,
	NK_MAX_OUTSTANDING = 8,
	NK_MAX_CLIENTS = 9,
	NK_COMMANDS = 10,
	NK_INTERFACE = 11,
	NK_COALESCE = 13,
	NK_COALESCE_WINDOW = 14
};

static const struct {
	const char *name;
	int (*set)(struct kcsmux_node_conf *, struct nodestate *, const char *,
		   char **);
	bool repeat; /* may appear more than once */
} node_keys[] = {
	{ "owner", n_owner, false },
	{ "group", n_group, false },
	{ "mode", n_mode, false },
	{ "policy", n_policy, false },
	[NK_ACCESS] = { "access", n_access, false },
	{ "allow", n_allow, true },
	{ "deny", n_deny, true },
	{ "events", n_events, false },
	[NK_MAX_OUTSTANDING] = { "max_outstanding", n_max_outstanding, false },
	[NK_MAX_CLIENTS] = { "max_clients", n_max_clients, false },
	[NK_COMMANDS] = { "commands", n_commands, false },
	[NK_INTERFACE] = { "interface", n_interface, false },
	{ "sdr_cache", n_sdr_cache, false },
	[NK_COALESCE] = { "coalesce", n_coalesce, false },
	[NK_COALESCE_WINDOW] = { "coalesce_window_ms", n_coalesce_window_ms,
				 false },
	{ "luns", n_luns, false },
};

_Static_assert(ARRAY_SIZE(node_keys) <=
		       ARRAY_SIZE(((struct nodestate *)0)->klines),
	       "klines too small");

static int global_key_index(const char *key)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(global_keys); i++)
		if (strcmp(key, global_keys[i].name) == 0)
			return (int)i;
	return -1;
}

static int node_key_index(const char *key)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(node_keys); i++)
		if (strcmp(key, node_keys[i].name) == 0)
			return (int)i;
	return -1;
}

/* A closely spelled key of the section, or NULL. */
static const char *suggest_key(const char *key, bool node)
{
	const char *
		names[ARRAY_SIZE(global_keys) + ARRAY_SIZE(node_keys) + 32 + 1];
	size_t i, n = 0;

	if (!node) {
		for (i = 0; i < ARRAY_SIZE(global_keys); i++)
			names[n++] = global_keys[i].name;
	} else {
		for (i = 0; i < ARRAY_SIZE(node_keys); i++)
			names[n++] = node_keys[i].name;
		for (i = 0; policy_key_name(i) != NULL && i < 32; i++)
			names[n++] = policy_key_name(i);
	}
	names[n] = NULL;
	return value_suggest(key, (const char *const *)names);
}

static void unknown_key(struct parser *p, const char *key, bool node)
{
	const char *near = suggest_key(key, node);

	if (*key == '\0')
		errorf(p, p->line, "missing key name before '='");
	else if (node && global_key_index(key) != -1)
		errorf(p, p->line, "'%s' belongs in the [global] section", key);
	else if (!node &&
		 (node_key_index(key) != -1 || policy_key_index(key) != -1))
		errorf(p, p->line, "'%s' belongs in a [node NAME] section",
		       key);
	else if (near != NULL)
		errorf(p, p->line, "unknown key '%s' (did you mean '%s'?)", key,
		       near);
	else
		errorf(p, p->line, "unknown key '%s'", key);
}

/* Has the key with bit I of SET been seen? Record it if not. */
static bool first_time(struct parser *p, const char *key, uint32_t *set,
		       int *lines, int i)
{
	if (*set & (1U << i)) {
		errorf(p, p->line,
		       "'%s' given twice in this section (first at "
		       "line %d)",
		       key, lines[i]);
		return false;
	}
	*set |= 1U << i;
	lines[i] = p->line;
	return true;
}

static void global_key(struct parser *p, const char *key, const char *v)
{
	int i = global_key_index(key);
	char *cause = NULL;

	if (i == -1) {
		unknown_key(p, key, false);
		return;
	}
	if (first_time(p, key, &p->gset, p->glines, i) &&
	    global_keys[i].set(p->cfg, v, &cause) == -1)
		error_cause(p, p->line, cause);
}

static void node_key(struct parser *p, const char *key, const char *v)
{
	struct kcsmux_node_conf *n = &p->cfg->nodes[p->cfg->nnodes - 1];
	struct nodestate *ns = &p->ns[p->cfg->nnodes - 1];
	int i = node_key_index(key), pi = policy_key_index(key);
	char *cause = NULL;

	if (i != -1) {
		if ((node_keys[i].repeat ||
		     first_time(p, key, &ns->kset, ns->klines, i)) &&
		    node_keys[i].set(n, ns, v, &cause) == -1)
			error_cause(p, p->line, cause);
	} else if (pi != -1) {
		if (first_time(p, key, &ns->pset, ns->plines, pi) &&
		    policy_set_key(&ns->explicit, key, v, &cause) == -1)
			error_cause(p, p->line, cause);
	} else
		unknown_key(p, key, true);
}

/* 1-31 of [A-Za-z0-9_.-], not starting with '.' or '-'. */
static int check_node_name(struct parser *p, const char *name)
{
	size_t len = strlen(name), ok;

	ok = strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			  "0123456789_.-");
	if (len == 0)
		errorf(p, p->line, "node without a name: write [node NAME]");
	else if (len > KCSMUX_NAME_MAX)
		errorf(p, p->line,
		       "node name '%s' is longer than %d "
		       "characters",
		       name, KCSMUX_NAME_MAX);
	else if (ok != len)
		errorf(p, p->line,
		       "node name '%s': '%c' is not allowed (use "
		       "A-Z a-z 0-9 _ . -)",
		       name, name[ok]);
	else if (name[0] == '.' || name[0] == '-')
		errorf(p, p->line, "node name '%s' must not start with '%c'",
		       name, name[0]);
	else
		return 0;
	return -1;
}

static void begin_node(struct parser *p, const char *name)
{
	struct kcsmux_config *cfg = p->cfg;
	struct kcsmux_node_conf *n;
	const struct kcsmux_node_conf *dup;
	void *tmp;

	if (check_node_name(p, name) == 0 &&
	    (dup = config_find_node(cfg, name)) != NULL)
		errorf(p, p->line, "duplicate node '%s' (first at line %d)",
		       name, dup->line);
	if ((tmp = reallocarray(cfg->nodes, cfg->nnodes + 1,
				sizeof(*cfg->nodes))) != NULL)
		cfg->nodes = tmp;
	if (tmp == NULL || (tmp = reallocarray(p->ns, cfg->nnodes + 1,
					       sizeof(*p->ns))) == NULL) {
		errorf(p, p->line, "out of memory");
		p->sec = SEC_SKIP;
		return;
	}
	p->ns = tmp;
	memset(&p->ns[cfg->nnodes], 0, sizeof(*p->ns));
	n = memset(&cfg->nodes[cfg->nnodes++], 0, sizeof(*n));
	snprintf(n->name, sizeof(n->name), "%s", name);
	n->mode = 0600;
	n->preset = KCSMUX_PRESET_NORMAL;
	n->events = true;
	n->line = p->line;
	p->sec = SEC_NODE;
}

/* The sentinel: SECTION is what inih made of the header line. */
static void begin_section(struct parser *p, const char *section)
{
	static const char *const kinds[] = { "global", "node", NULL };
	char buf[64], *word, *rest, *end;
	const char *near;

	/* inih keeps only the start of a long name: take none of it. */
	if (strlen(section) != p->header_len) {
		errorf(p, p->line,
		       "section header too long (at most %zu "
		       "characters between [ and ])",
		       strlen(section));
		p->sec = SEC_SKIP;
		return;
	}
	snprintf(buf, sizeof(buf), "%s", section);
	word = buf + strspn(buf, " \t");
	rest = word + strcspn(word, " \t");
	if (*rest != '\0')
		*rest++ = '\0';
	rest += strspn(rest, " \t");
	for (end = rest + strlen(rest); end > rest && strchr(" \t", end[-1]);)
		*--end = '\0';
	if (strcmp(word, "node") == 0) {
		begin_node(p, rest);
		return;
	}
	p->sec = SEC_SKIP;
	if (strcmp(word, "global") == 0 && *rest == '\0') {
		if (p->global_line != 0)
			errorf(p, p->line,
			       "[global] given twice (first at "
			       "line %d)",
			       p->global_line);
		else {
			p->global_line = p->line;
			p->sec = SEC_GLOBAL;
		}
	} else if (strcmp(word, "global") == 0)
		errorf(p, p->line, "[global] takes no name");
	else if ((near = value_suggest(word, kinds)) != NULL)
		errorf(p, p->line,
		       "unknown section '[%s]' (did you mean "
		       "[%s%s]?)",
		       section, near, strcmp(near, "node") == 0 ? " NAME" : "");
	else
		errorf(p, p->line,
		       "unknown section '[%s]' (expected [global] "
		       "or [node NAME])",
		       section);
}

static int handler(void *user, const char *section, const char *key,
		   const char *value)
{
	struct parser *p = user;

	if (p->in_sentinel) {
		begin_section(p, section);
		return 1;
	}
	p->called = true;
	switch (p->sec) {
	case SEC_NONE:
		errorf(p, p->line,
		       "'%s' before any section: put it in "
		       "[global] or [node NAME]",
		       key);
		break;
	case SEC_GLOBAL:
		global_key(p, key, value);
		break;
	case SEC_NODE:
		node_key(p, key, value);
		break;
	case SEC_SKIP:
		break;
	}
	return 1;
}

/* ---- the reader ---- */

/* The next raw line into p->buf, newline included; -1 at the end. */
static ssize_t next_line(struct parser *p)
{
	size_t len;

	if (p->f != NULL)
		return getline(&p->buf, &p->cap, p->f);
	if (*p->s == '\0')
		return -1;
	len = strcspn(p->s, "\n");
	len += p->s[len] == '\n';
	if (len + 1 > p->cap) {
		free(p->buf);
		p->cap = len + 1;
		if ((p->buf = malloc(p->cap)) == NULL) {
			p->cap = 0;
			return -1;
		}
	}
	memcpy(p->buf, p->s, len);
	p->buf[len] = '\0';
	p->s += len;
	return (ssize_t)len;
}

/* inih handles "[name]" itself; refuse what it would take differently. */
static int check_header(struct parser *p, const char *l)
{
	const char *close = strchr(l, ']'), *rest;

	if (close == NULL) {
		errorf(p, p->line, "missing ']' in section header");
		return -1;
	}
	if (memchr(l, ';', (size_t)(close - l)) != NULL) {
		errorf(p, p->line, "';' in section header");
		return -1;
	}
	rest = close + 1 + strspn(close + 1, " \t");
	if (*rest != '\0' && *rest != ';' && *rest != '#') {
		errorf(p, p->line, "unexpected text after ']'");
		return -1;
	}
	return 0;
}

/* Check, note and trim one raw line of N bytes into STR for inih. */
static void take_line(struct parser *p, ssize_t n, char *str, int num)
{
	char *l = p->buf;
	size_t len;

	str[0] = '\0';
	if (strlen(l) != (size_t)n) {
		errorf(p, p->line, "NUL byte in line");
		return;
	}
	if (p->line == 1 && strncmp(l, "\xef\xbb\xbf", 3) == 0)
		l += 3;
	l += strspn(l, " \t");
	len = strlen(l);
	while (len > 0 && (l[len - 1] == '\n' || l[len - 1] == '\r'))
		l[--len] = '\0';
	if (len >= (size_t)num) {
		errorf(p, p->line,
		       "line too long (%zu characters, at most %d "
		       "after leading blanks)",
		       len, num - 1);
		if (*l == '[')
			p->sec = SEC_SKIP;
		return;
	}
	if (*l == '[' && check_header(p, l) == -1) {
		p->sec = SEC_SKIP;
		return;
	}
	p->header_pending = *l == '[';
	if (p->header_pending)
		p->header_len = strcspn(l + 1, "]");
	p->expect_call = *l != '\0' && strchr("[;#", *l) == NULL;
	p->called = false;
	memcpy(str, l, len + 1);
}

static char *reader(char *str, int num, void *stream)
{
	struct parser *p = stream;
	ssize_t n;

	if (p->expect_call && !p->called)
		errorf(p, p->line,
		       "syntax error: expected KEY = VALUE, "
		       "[SECTION] or a comment");
	p->expect_call = false;
	p->in_sentinel = p->header_pending;
	if (p->header_pending) {
		p->header_pending = false;
		snprintf(str, (size_t)num, "%s", SENTINEL);
		return str;
	}
	if ((n = next_line(p)) == -1)
		return NULL;
	p->line++;
	take_line(p, n, str, num);
	return str;
}

/* ---- resolving ---- */

static void defaults(struct kcsmux_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->backend = KCSMUX_BACKEND_KCSRAW;
	cfg->control_socket = strdup("/run/kcsmux/control.sock");
	cfg->admin_group = strdup("root");
	cfg->admin_gid = 0;
	cfg->max_outstanding = 100;
	cfg->max_clients = 30;
	cfg->event_backlog = 25;
	cfg->log_level = LOG_INFO;
	cfg->sdr_cache_revalidate_ms = 2000;
}

static void finish_policy(struct parser *p, size_t i)
{
	struct kcsmux_node_conf *n = &p->cfg->nodes[i];
	struct nodestate *ns = &p->ns[i];
	int pu = policy_key_index("poll_us");
	int pm = policy_key_index("poll_max_us");
	char *cause = NULL;

	policy_resolve(&n->pol, policy_preset(n->preset), &ns->explicit,
		       ns->pset);
	if (policy_check(&n->pol, &cause) == -1)
		error_cause(p,
			    ns->pset & (1U << pm) ? ns->plines[pm] :
						    ns->plines[pu],
			    cause);
}

static void finish_node(struct parser *p, size_t i)
{
	struct kcsmux_config *cfg = p->cfg;
	struct kcsmux_node_conf *n = &cfg->nodes[i];
	struct nodestate *ns = &p->ns[i];

	finish_policy(p, i);
	if (!(ns->kset & (1U << NK_ACCESS)))
		n->acc.preset =
			ns->has_allow ? KCSMUX_ACCESS_NONE : KCSMUX_ACCESS_ALL;
	access_build(&n->acc);
	/* Incoming commands: by default only where nothing is restricted. */
	if (!(ns->kset & (1U << NK_COMMANDS)))
		n->commands = n->acc.eff_full;
	if (!(ns->kset & (1U << NK_MAX_OUTSTANDING)))
		n->max_outstanding = cfg->max_outstanding;
	if (!(ns->kset & (1U << NK_MAX_CLIENTS)))
		n->max_clients = cfg->max_clients;
	if (!(ns->kset & (1U << NK_INTERFACE)))
		n->interface = name_interface(n->name);
	if (n->coalesce_window_ms && !n->coalesce)
		errorf(p, ns->klines[NK_COALESCE_WINDOW],
		       "node '%s': coalesce_window_ms needs coalesce = yes",
		       n->name);
	if (cfg->device != NULL && strncmp(cfg->device, "/dev/", 5) == 0 &&
	    strcmp(cfg->device + 5, n->name) == 0)
		errorf(p, n->line,
		       "node '%s' would be /dev/%s, the backend "
		       "device itself",
		       n->name, n->name);
}

static void finish(struct parser *p)
{
	struct kcsmux_config *cfg = p->cfg;
	size_t i;

	if (cfg->device == NULL)
		cfg->device = strdup(cfg->backend == KCSMUX_BACKEND_KCSRAW ?
					     "/dev/kcsraw0" :
					     "/dev/ipmi0");
	if (cfg->device == NULL)
		p->oom = true;
	if (cfg->nnodes == 0)
		errorf(p, 0,
		       "no [node NAME] section: kcsmuxd needs at least "
		       "one node");
	for (i = 0; i < cfg->nnodes; i++)
		finish_node(p, i);
	for (i = 0; i < cfg->nnodes; i++) {
		size_t j;

		for (j = 0; j < i; j++)
			if (cfg->nodes[i].interface >= 0 &&
			    cfg->nodes[i].interface == cfg->nodes[j].interface)
				errorf(p, cfg->nodes[i].line,
				       "node '%s': "
				       "interface %d is node '%s''s already",
				       cfg->nodes[i].name,
				       cfg->nodes[i].interface,
				       cfg->nodes[j].name);
	}
}

static int error_cmp(const void *a, const void *b)
{
	const struct error *x = a, *y = b;
	unsigned lx = (unsigned)x->line - 1, ly = (unsigned)y->line - 1;

	if (lx != ly) /* line 0 last */
		return lx < ly ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* "FILE:LINE: text" lines in line order, and free the errors. */
static char *error_text(struct parser *p)
{
	char *buf = NULL;
	size_t size = 0, i;
	FILE *f = open_memstream(&buf, &size);

	qsort(p->errs, p->nerr, sizeof(*p->errs), error_cmp);
	for (i = 0; i < p->nerr; i++) {
		if (f != NULL && i < MAX_REPORTED && p->errs[i].line > 0)
			fprintf(f, "%s:%d: ", p->name, p->errs[i].line);
		else if (f != NULL && i < MAX_REPORTED)
			fprintf(f, "%s: ", p->name);
		if (f != NULL && i < MAX_REPORTED)
			fprintf(f, "%s%s", p->errs[i].text,
				i + 1 < p->nerr || p->oom ? "\n" : "");
		free(p->errs[i].text);
	}
	if (f != NULL && p->nerr > MAX_REPORTED)
		fprintf(f, "%s: and %zu more errors", p->name,
			p->nerr - MAX_REPORTED);
	else if (f != NULL && p->oom)
		fprintf(f, "%s: out of memory", p->name);
	free(p->errs);
	if (f == NULL || fclose(f) != 0) {
		free(buf);
		return strdup("out of memory");
	}
	return buf;
}

/* Parse what p->f or p->s holds into p->cfg; 0 or -1 with *cause. */
static int parse(struct parser *p, char **cause)
{
	char *text;
	int ret;

	defaults(p->cfg);
	if (p->cfg->control_socket == NULL || p->cfg->admin_group == NULL)
		p->oom = true;
	ret = ini_parse_stream(reader, p, handler, p);
	if (p->f != NULL && ferror(p->f))
		errorf(p, 0, "read error: %s", strerror(errno));
	else if (ret < 0)
		p->oom = true;
	else if (ret > 0 && p->nerr == 0)
		errorf(p, 0, "syntax error");
	else
		finish(p);
	free(p->buf);
	free(p->ns);
	if (p->nerr == 0 && !p->oom)
		return 0;
	text = error_text(p);
	if (cause != NULL)
		*cause = text;
	else
		free(text);
	config_free(p->cfg);
	return -1;
}

int config_load(struct kcsmux_config *cfg, const char *path, char **cause)
{
	struct parser p = { .name = path, .cfg = cfg };
	int ret;

	memset(cfg, 0, sizeof(*cfg));
	if ((p.f = fopen(path, "re")) == NULL)
		return error_set(cause, "%s: %s", path, strerror(errno));
	ret = parse(&p, cause);
	fclose(p.f);
	return ret;
}

int config_load_string(struct kcsmux_config *cfg, const char *text,
		       const char *name, char **cause)
{
	struct parser p = { .name = name, .cfg = cfg, .s = text };

	return parse(&p, cause);
}

void config_free(struct kcsmux_config *cfg)
{
	free(cfg->device);
	free(cfg->backend_async_dev);
	free(cfg->control_socket);
	free(cfg->admin_group);
	free(cfg->user);
	free(cfg->metrics_listen);
	free(cfg->metrics_textfile);
	free(cfg->nodes);
	memset(cfg, 0, sizeof(*cfg));
}

const struct kcsmux_node_conf *config_find_node(const struct kcsmux_config *cfg,
						const char *name)
{
	size_t i;

	for (i = 0; i < cfg->nnodes; i++)
		if (strcmp(cfg->nodes[i].name, name) == 0)
			return &cfg->nodes[i];
	return NULL;
}

const char *config_backend_name(enum kcsmux_backend b)
{
	return b == KCSMUX_BACKEND_KCSRAW  ? "kcsraw" :
	       b == KCSMUX_BACKEND_IPMIDEV ? "ipmidev" :
					     NULL;
}

const char *config_log_level_name(int level)
{
	if (level < LOG_ERR || level > LOG_DEBUG)
		return NULL;
	return log_levels[level - LOG_ERR];
}

int config_seccomp_parse(const char *key, const char *v,
			 enum kcsmux_seccomp *out, char **cause)
{
	bool on;

	if (strcasecmp(v, "log") == 0) {
		*out = KCSMUX_SECCOMP_LOG;
		return 0;
	}
	if (value_bool(key, v, &on, NULL) == -1)
		return error_set(cause,
				 "%s: expected yes, no or log, not "
				 "'%s'",
				 key, v);
	*out = on ? KCSMUX_SECCOMP_YES : KCSMUX_SECCOMP_NO;
	return 0;
}

const char *config_seccomp_name(enum kcsmux_seccomp m)
{
	switch (m) {
	case KCSMUX_SECCOMP_NO:
		return "no";
	case KCSMUX_SECCOMP_YES:
		return "yes";
	case KCSMUX_SECCOMP_LOG:
		return "log";
	}
	return NULL;
}
