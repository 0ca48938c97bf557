// SPDX-License-Identifier: GPL-2.0
/*
 * config_errors.c - kcsmux.conf's error list: every error the reader, the
 * keys and the resolution find, recorded with its line and given back at
 * the end as one message in line order (so kcsmuxd -n reports them all at
 * once).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_priv.h"
#include "util/error.h"

#define MAX_REPORTED 50 /* errors listed before "and N more" */

struct error {
	int line; /* 0: about the whole file */
	size_t seq;
	char *text;
};

void config_error(struct parser *p, int line, const char *fmt, ...)
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

void config_name_unknown(struct parser *p, char *cause)
{
	struct kcsmux_config *cfg = p->cfg;
	size_t len = cfg->warnings ? strlen(cfg->warnings) : 0;
	char line[320], *w;

	if (!p->names_offline) {
		config_error_cause(p, p->line, cause);
		return;
	}
	snprintf(line, sizeof(line),
		 "%s:%d: warning: %s: not on this host (the start needs it)\n",
		 p->name, p->line, error_str(cause));
	free(cause);
	w = realloc(cfg->warnings, len + strlen(line) + 1);
	if (w == NULL) {
		p->oom = true;
		return;
	}
	strcpy(w + len, line);
	cfg->warnings = w;
}

void config_error_cause(struct parser *p, int line, char *cause)
{
	config_error(p, line, "%s", error_str(cause));
	free(cause);
}

static int error_cmp(const void *a, const void *b)
{
	const struct error *x = a, *y = b;
	unsigned lx = (unsigned)x->line - 1, ly = (unsigned)y->line - 1;

	if (lx != ly) /* line 0 last */
		return lx < ly ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

char *config_error_text(struct parser *p)
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
