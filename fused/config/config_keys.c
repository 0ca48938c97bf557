// SPDX-License-Identifier: GPL-2.0
/*
 * config_keys.c - kcsmux.conf's keys: each key's parser into struct
 * kcsmux_config or the node's struct kcsmux_node_conf, the [global] and
 * [node NAME] tables, and what a key line of a section does (an unknown
 * key, with a suggestion; a repeated one). docs/man/kcsmux.conf.5 is the
 * reference for every key.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/un.h>
#include <syslog.h>

#include "config/config.h"
#include "config/config_priv.h"
#include "util/error.h"
#include "core/lease.h"

/* ---- values ---- */

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
	if ((pw = getpwnam(v)) == NULL) {
		*uid = (uid_t)-1;
		error_set(cause, "%s: unknown user '%s'", key, v);
		return 1;
	}
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
	if ((gr = getgrnam(v)) == NULL) {
		*gid = (gid_t)-1;
		error_set(cause, "%s: unknown group '%s'", key, v);
		return 1;
	}
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
	int rv;

	if (set_string(&cfg->admin_group, v, cause) == -1)
		return -1;
	rv = *v != '\0' ? parse_gid("admin_group", v, &gid, cause) : 0;
	cfg->admin_gid = gid;
	return rv;
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
	int rv;

	if (set_string(&cfg->user, v, cause) == -1)
		return -1;
	rv = *v != '\0' ? parse_uid("user", v, &uid, cause) : 0;
	if (rv == 1) { /* not on this host: only config_load_offline's */
		cfg->user_uid = (uid_t)-1;
		cfg->user_gid = (gid_t)-1;
		return 1;
	}
	if (rv == -1)
		return -1;
	if (*v != '\0' && (pw = getpwuid(uid)) == NULL)
		return error_set(cause, "user: no user with uid %s", v);
	cfg->user_uid = pw != NULL ? pw->pw_uid : 0;
	cfg->user_gid = pw != NULL ? pw->pw_gid : 0;
	return 0;
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

static int n_sdr_cache(struct kcsmux_node_conf *n, struct nodestate *ns,
		       const char *v, char **cause)
{
	(void)ns;
	return value_bool("sdr_cache", v, &n->sdr_cache, cause);
}

static int n_sel_mirror(struct kcsmux_node_conf *n, struct nodestate *ns,
			const char *v, char **cause)
{
	bool on;

	(void)ns;
	if (value_bool("sel_mirror", v, &on, cause) < 0)
		return -1;
	n->no_sel_mirror = !on;
	return 0;
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

/* lease = CLASS[,CLASS...]: the node holds those leases (lease.h) from
 * start, renewed while it is configured (docs/leases.md); not firmware,
 * which is for an update's length only. */
static int n_lease(struct kcsmux_node_conf *n, struct nodestate *ns,
		   const char *v, char **cause)
{
	const char *bad = v;
	unsigned int mask = 0;

	(void)ns;
	if (lease_classes_parse(v, &mask, &bad) < 0 || (mask & LEASE_FIRMWARE))
		return error_set(cause,
				 "lease: expected classes chassis, fan-oem, "
				 "users, lan (comma-separated; firmware only "
				 "with kcsmuxctl lease), not '%s'",
				 v);
	n->leases = mask;
	return 0;
}

/*
 * admin_users = NAME|UID[, ...], admin_groups = NAME|GID[, ...]: each
 * name resolved now (1 with the cause of the first one this host does
 * not know, the others kept: config_load_offline's warning).
 */
static int id_list(struct kcsmux_node_conf *n, const char *key, const char *v,
		   bool groups, char **cause)
{
	char item[64], *c = NULL;
	size_t len;
	int rv = 0, r;
	uid_t id;

	if (*v == '\0')
		return error_set(cause, "%s: expected a list of %s", key,
				 groups ? "groups" : "users");
	while (*v != '\0') {
		len = strcspn(v, ", \t");
		if (len == 0 || len >= sizeof(item)) {
			v += len + (len == 0);
			if (len == 0)
				continue;
			return error_set(cause, "%s: name too long", key);
		}
		memcpy(item, v, len);
		item[len] = '\0';
		v += len;
		r = groups ? parse_gid(key, item, &id, &c) :
			     parse_uid(key, item, &id, &c);
		if (r == -1) {
			*cause = c;
			return -1;
		}
		if (r == 1) { /* not on this host */
			if (rv == 0)
				*cause = c;
			else
				free(c);
			c = NULL;
			rv = 1;
			continue;
		}
		if (!(groups ? opener_add_gid(&n->admins, id, &c) :
			       opener_add_uid(&n->admins, id, &c))) {
			error_set(cause, "%s: %s", key, error_str(c));
			free(c);
			return -1;
		}
	}
	return rv;
}

static int n_admin_users(struct kcsmux_node_conf *n, struct nodestate *ns,
			 const char *v, char **cause)
{
	(void)ns;
	return id_list(n, "admin_users", v, false, cause);
}

static int n_admin_groups(struct kcsmux_node_conf *n, struct nodestate *ns,
			  const char *v, char **cause)
{
	(void)ns;
	return id_list(n, "admin_groups", v, true, cause);
}

static int n_admin_access(struct kcsmux_node_conf *n, struct nodestate *ns,
			  const char *v, char **cause)
{
	char *c = NULL;

	(void)n;
	if (access_preset_lookup(v, &ns->admin_preset, &c) == -1) {
		error_set(cause, "admin_access: %s",
			  c != NULL && strncmp(c, "access: ", 8) == 0 ?
				  c + 8 :
				  error_str(c));
		free(c);
		return -1;
	}
	ns->has_admin_access = true;
	return 0;
}

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
	[NK_EVENTS] = { "events", n_events, false },
	[NK_MAX_OUTSTANDING] = { "max_outstanding", n_max_outstanding, false },
	[NK_MAX_CLIENTS] = { "max_clients", n_max_clients, false },
	[NK_COMMANDS] = { "commands", n_commands, false },
	[NK_INTERFACE] = { "interface", n_interface, false },
	{ "sdr_cache", n_sdr_cache, false },
	[NK_COALESCE] = { "coalesce", n_coalesce, false },
	[NK_COALESCE_WINDOW] = { "coalesce_window_ms", n_coalesce_window_ms,
				 false },
	{ "luns", n_luns, false },
	{ "sel_mirror", n_sel_mirror, false },
	[NK_ADMIN_USERS] = { "admin_users", n_admin_users, false },
	[NK_ADMIN_GROUPS] = { "admin_groups", n_admin_groups, false },
	[NK_ADMIN_ACCESS] = { "admin_access", n_admin_access, false },
	{ "lease", n_lease, false },
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
		config_error(p, p->line, "missing key name before '='");
	else if (node && global_key_index(key) != -1)
		config_error(p, p->line, "'%s' belongs in the [global] section",
			     key);
	else if (!node &&
		 (node_key_index(key) != -1 || policy_key_index(key) != -1))
		config_error(p, p->line,
			     "'%s' belongs in a [node NAME] section", key);
	else if (near != NULL)
		config_error(p, p->line,
			     "unknown key '%s' (did you mean '%s'?)", key,
			     near);
	else
		config_error(p, p->line, "unknown key '%s'", key);
}

/* Has the key with bit I of SET been seen? Record it if not. */
static bool first_time(struct parser *p, const char *key, uint32_t *set,
		       int *lines, int i)
{
	if (*set & (1U << i)) {
		config_error(p, p->line,
			     "'%s' given twice in this section (first at "
			     "line %d)",
			     key, lines[i]);
		return false;
	}
	*set |= 1U << i;
	lines[i] = p->line;
	return true;
}

void config_global_key(struct parser *p, const char *key, const char *v)
{
	int i = global_key_index(key), rv;
	char *cause = NULL;

	if (i == -1) {
		unknown_key(p, key, false);
		return;
	}
	if (!first_time(p, key, &p->gset, p->glines, i))
		return;
	rv = global_keys[i].set(p->cfg, v, &cause);
	if (rv == -1)
		config_error_cause(p, p->line, cause);
	else if (rv == 1)
		config_name_unknown(p, cause);
}

void config_node_key(struct parser *p, const char *key, const char *v)
{
	struct kcsmux_node_conf *n = &p->cfg->nodes[p->cfg->nnodes - 1];
	struct nodestate *ns = &p->ns[p->cfg->nnodes - 1];
	int i = node_key_index(key), pi = policy_key_index(key), rv;
	char *cause = NULL;

	if (i != -1) {
		if (!node_keys[i].repeat &&
		    !first_time(p, key, &ns->kset, ns->klines, i))
			return;
		rv = node_keys[i].set(n, ns, v, &cause);
		if (rv == -1)
			config_error_cause(p, p->line, cause);
		else if (rv == 1)
			config_name_unknown(p, cause);
	} else if (pi != -1) {
		if (first_time(p, key, &ns->pset, ns->plines, pi) &&
		    policy_set_key(&ns->explicit, key, v, &cause) == -1)
			config_error_cause(p, p->line, cause);
	} else
		unknown_key(p, key, true);
}

/* ---- names ---- */

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
