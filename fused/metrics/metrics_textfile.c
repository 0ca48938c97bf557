// SPDX-License-Identifier: GPL-2.0
/*
 * metrics_textfile.c - the metrics as node_exporter's textfile collector
 * reads them: metrics_textfile rewritten every
 * METRICS_TEXTFILE_INTERVAL_S (a new PATH.tmp, fsync, rename), relative
 * to its directory opened once (the seccomp filter's one writable place).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "util/error.h"
#include "util/io.h"
#include "util/log.h"
#include "metrics/metrics.h"
#include "metrics/metrics_priv.h"

/* PATH's directory (O_PATH) into *dirfd and its last component. */
static const char *open_dir_of(const char *path, int *dirfd)
{
	const char *slash = strrchr(path, '/');
	char *dir;

	if (slash == NULL) {
		*dirfd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
		return path;
	}
	dir = slash == path ? strdup("/") :
			      strndup(path, (size_t)(slash - path));
	*dirfd = dir ? open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
	free(dir);
	return slash + 1;
}

int metrics_write_textfile(struct daemon *d, const char *path, char **cause)
{
	struct evbuffer *b = evbuffer_new();
	char *tmp = NULL;
	const char *what, *base;
	struct stat st;
	const struct metrics *mx = d->mx;
	int fd = -1, dfd, err;
	bool own = mx != NULL && mx->dirfd > 0 && mx->textfile != NULL &&
		   strcmp(path, mx->textfile) == 0;

	/*
	 * Everything happens relative to the file's directory: the daemon's
	 * own textfile's, opened once at start (the seccomp filter lets it
	 * write there and nowhere else), or for another PATH its own.
	 */
	what = "open";
	if (own) {
		dfd = mx->dirfd;
		base = mx->base;
	} else {
		base = open_dir_of(path, &dfd);
		if (dfd < 0) {
			*cause = xasprintf("metrics_textfile: open %s.tmp: %s",
					   path, strerror(errno));
			if (b)
				evbuffer_free(b);
			return -1;
		}
	}
	tmp = xasprintf("%s.tmp", base);
	if (!tmp || !b || metrics_render_daemon_ev(d, b) < 0) {
		free(tmp);
		if (b)
			evbuffer_free(b);
		if (!own)
			close(dfd);
		*cause = xasprintf("metrics_textfile %s: out of memory", path);
		return -1;
	}
	/*
	 * A new file, never one that is there: whatever sits at the .tmp
	 * name (a FIFO that would block the daemon's only thread, a link to
	 * another file, a leftover) is removed first (unlink follows
	 * nothing), then created with O_EXCL; O_NONBLOCK and the fstat
	 * check are a second guard.
	 */
	what = "open";
	fd = openat(dfd, tmp,
		    O_WRONLY | O_CREAT | O_EXCL | O_NONBLOCK | O_CLOEXEC |
			    O_NOFOLLOW,
		    0644);
	if (fd < 0 && errno == EEXIST && unlinkat(dfd, tmp, 0) == 0)
		fd = openat(dfd, tmp,
			    O_WRONLY | O_CREAT | O_EXCL | O_NONBLOCK |
				    O_CLOEXEC | O_NOFOLLOW,
			    0644);
	if (fd < 0)
		goto fail;
	what = "fstat";
	if (fstat(fd, &st) < 0)
		goto fail;
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		goto fail;
	}
	/* node_exporter reads it as another user; the umask may differ. */
	what = "chmod";
	if (fchmod(fd, 0644) < 0)
		goto fail;
	what = "write";
	if (write_all(fd, evbuffer_pullup(b, -1), evbuffer_get_length(b)) < 0)
		goto fail;
	what = "fsync";
	if (fsync(fd) < 0)
		goto fail;
	what = "close";
	err = close(fd);
	fd = -1;
	if (err < 0)
		goto fail;
	what = "rename";
	if (renameat(dfd, tmp, dfd, base) < 0)
		goto fail;
	free(tmp);
	evbuffer_free(b);
	if (!own)
		close(dfd);
	return 0;
fail:
	err = errno;
	*cause = xasprintf("metrics_textfile: %s %s%s: %s", what, path,
			   strcmp(what, "rename") ? ".tmp" : "", strerror(err));
	if (fd >= 0)
		close(fd);
	if (strcmp(what, "open") != 0)
		unlinkat(dfd, tmp, 0);
	free(tmp);
	evbuffer_free(b);
	if (!own)
		close(dfd);
	return -1;
}

int metrics_textfile_dirfd(const struct daemon *d)
{
	return d->mx != NULL && d->mx->dirfd > 0 ? d->mx->dirfd : -1;
}

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
	struct metrics *mx = arg;
	char *cause = NULL;

	(void)fd;
	(void)what;
	if (metrics_write_textfile(mx->d, mx->textfile, &cause) < 0) {
		log_ratelimited(&mx->rl, LOG_WARNING, "%s",
				cause ? cause :
					"metrics_textfile: out of memory");
		free(cause);
	}
}

int metrics_textfile_start(struct metrics *mx, const char *path, char **cause)
{
	struct daemon *d = mx->d;
	struct timeval tv = { METRICS_TEXTFILE_INTERVAL_S, 0 };

	const char *base = open_dir_of(path, &mx->dirfd);

	if (mx->dirfd < 0) {
		*cause = xasprintf("metrics_textfile: open %s.tmp: %s", path,
				   strerror(errno));
		return -1;
	}
	mx->textfile = strdup(path);
	mx->base = strdup(base);
	if (!mx->textfile || !mx->base) {
		*cause = xasprintf("metrics_textfile: out of memory");
		return -1;
	}
	if (metrics_write_textfile(d, path, cause) < 0)
		return -1;
	mx->timer = event_new(d->base, -1, EV_PERSIST, on_timer, mx);
	if (!mx->timer || event_add(mx->timer, &tv) < 0) {
		*cause = xasprintf("metrics_textfile: cannot start its timer");
		unlinkat(mx->dirfd, mx->base, 0);
		return -1;
	}
	log_info("metrics to %s every %d s", path, METRICS_TEXTFILE_INTERVAL_S);
	return 0;
}

void metrics_textfile_stop(struct metrics *mx)
{
	if (mx->timer)
		event_free(mx->timer);
	if (mx->textfile && mx->dirfd > 0 && mx->base) {
		/* stale counters would look like a live daemon's */
		unlinkat(mx->dirfd, mx->base, 0);
	}
	free(mx->textfile);
	free(mx->base);
	if (mx->dirfd > 0)
		close(mx->dirfd);
}
