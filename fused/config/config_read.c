// SPDX-License-Identifier: GPL-2.0
/*
 * config_read.c - read kcsmux.conf with libinih: the lines and the
 * sections. Each key's meaning is config_keys.c's, what the keys resolve
 * to at the end of the file config_resolve.c's, the error list
 * config_errors.c's.
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
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "config/config.h"
#include "config/config_priv.h"
#include "util/error.h"

#define SENTINEL "kcsmux-section-begins = 1"

/* ---- sections ---- */

/* 1-31 of [A-Za-z0-9_.-], not starting with '.' or '-'. */
static int check_node_name(struct parser *p, const char *name)
{
	size_t len = strlen(name), ok;

	ok = strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			  "0123456789_.-");
	if (len == 0)
		config_error(p, p->line,
			     "node without a name: write [node NAME]");
	else if (len > KCSMUX_NAME_MAX)
		config_error(p, p->line,
			     "node name '%s' is longer than %d "
			     "characters",
			     name, KCSMUX_NAME_MAX);
	else if (ok != len)
		config_error(p, p->line,
			     "node name '%s': '%c' is not allowed (use "
			     "A-Z a-z 0-9 _ . -)",
			     name, name[ok]);
	else if (name[0] == '.' || name[0] == '-')
		config_error(p, p->line,
			     "node name '%s' must not start with '%c'", name,
			     name[0]);
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
		config_error(p, p->line,
			     "duplicate node '%s' (first at line %d)", name,
			     dup->line);
	if ((tmp = reallocarray(cfg->nodes, cfg->nnodes + 1,
				sizeof(*cfg->nodes))) != NULL)
		cfg->nodes = tmp;
	if (tmp == NULL || (tmp = reallocarray(p->ns, cfg->nnodes + 1,
					       sizeof(*p->ns))) == NULL) {
		config_error(p, p->line, "out of memory");
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
		config_error(p, p->line,
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
			config_error(p, p->line,
				     "[global] given twice (first at "
				     "line %d)",
				     p->global_line);
		else {
			p->global_line = p->line;
			p->sec = SEC_GLOBAL;
		}
	} else if (strcmp(word, "global") == 0)
		config_error(p, p->line, "[global] takes no name");
	else if ((near = value_suggest(word, kinds)) != NULL)
		config_error(p, p->line,
			     "unknown section '[%s]' (did you mean "
			     "[%s%s]?)",
			     section, near,
			     strcmp(near, "node") == 0 ? " NAME" : "");
	else
		config_error(p, p->line,
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
		config_error(p, p->line,
			     "'%s' before any section: put it in "
			     "[global] or [node NAME]",
			     key);
		break;
	case SEC_GLOBAL:
		config_global_key(p, key, value);
		break;
	case SEC_NODE:
		config_node_key(p, key, value);
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
		config_error(p, p->line, "missing ']' in section header");
		return -1;
	}
	if (memchr(l, ';', (size_t)(close - l)) != NULL) {
		config_error(p, p->line, "';' in section header");
		return -1;
	}
	rest = close + 1 + strspn(close + 1, " \t");
	if (*rest != '\0' && *rest != ';' && *rest != '#') {
		config_error(p, p->line, "unexpected text after ']'");
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
		config_error(p, p->line, "NUL byte in line");
		return;
	}
	if (p->line == 1 && strncmp(l, "\xef\xbb\xbf", 3) == 0)
		l += 3;
	l += strspn(l, " \t");
	len = strlen(l);
	while (len > 0 && (l[len - 1] == '\n' || l[len - 1] == '\r'))
		l[--len] = '\0';
	if (len >= (size_t)num) {
		config_error(p, p->line,
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
		config_error(p, p->line,
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

/* Parse what p->f or p->s holds into p->cfg; 0 or -1 with *cause. */
static int parse(struct parser *p, char **cause)
{
	char *text;
	int ret;

	config_defaults(p->cfg);
	if (p->cfg->control_socket == NULL || p->cfg->admin_group == NULL)
		p->oom = true;
	ret = ini_parse_stream(reader, p, handler, p);
	if (p->f != NULL && ferror(p->f))
		config_error(p, 0, "read error: %s", strerror(errno));
	else if (ret < 0)
		p->oom = true;
	else if (ret > 0 && p->nerr == 0)
		config_error(p, 0, "syntax error");
	else
		config_finish(p);
	free(p->buf);
	free(p->ns);
	if (p->nerr == 0 && !p->oom)
		return 0;
	text = config_error_text(p);
	if (cause != NULL)
		*cause = text;
	else
		free(text);
	config_free(p->cfg);
	return -1;
}

static int load_file(struct kcsmux_config *cfg, const char *path, bool offline,
		     char **cause)
{
	struct parser p = { .name = path,
			    .cfg = cfg,
			    .names_offline = offline };
	int ret;

	memset(cfg, 0, sizeof(*cfg));
	if ((p.f = fopen(path, "re")) == NULL)
		return error_set(cause, "%s: %s", path, strerror(errno));
	ret = parse(&p, cause);
	fclose(p.f);
	return ret;
}

int config_load(struct kcsmux_config *cfg, const char *path, char **cause)
{
	return load_file(cfg, path, false, cause);
}

int config_load_offline(struct kcsmux_config *cfg, const char *path,
			char **cause)
{
	return load_file(cfg, path, true, cause);
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
	free(cfg->warnings);
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
