// SPDX-License-Identifier: GPL-2.0
/*
 * metrics_serve.c - starting and stopping what the configuration asks for
 * (see metrics.h): the HTTP server (metrics_http.c) and the textfile
 * (metrics_textfile.c), on the server's state d->mx.
 */
#include <stdlib.h>

#include "util/error.h"
#include "metrics/metrics.h"
#include "metrics/metrics_priv.h"

int metrics_init(struct daemon *d, char **cause)
{
	const char *listen = d->cfg.metrics_listen;
	const char *textfile = d->cfg.metrics_textfile;

	struct metrics *mx = d->mx;

	*cause = NULL;
	if (mx != NULL && (mx->http || mx->timer || mx->textfile)) {
		*cause = xasprintf("metrics: already started");
		return -1;
	}
	if (mx == NULL) {
		if ((mx = calloc(1, sizeof(*mx))) == NULL)
			goto fail;
		mx->d = d;
		d->mx = mx;
	}
	if (listen && *listen && metrics_http_start(mx, listen, cause) < 0)
		goto fail;
	if (textfile && *textfile &&
	    metrics_textfile_start(mx, textfile, cause) < 0)
		goto fail;
	return 0;
fail:
	metrics_fini(d);
	if (!*cause)
		*cause = xasprintf("metrics: out of memory");
	return -1;
}

void metrics_fini(struct daemon *d)
{
	struct metrics *mx = d->mx;

	if (mx == NULL)
		return;
	metrics_http_stop(mx);
	metrics_textfile_stop(mx);
	free(mx);
	d->mx = NULL;
}
