// SPDX-License-Identifier: GPL-2.0
/*
 * node.c - one virtual /dev/NAME: a CUSE session whose fd sits in the
 * daemon's single libevent loop (no libfuse loop, signal handlers or
 * threads). Requests are read and dispatched one at a time; anything that
 * cannot be answered yet stays queued in the client and poll() is answered
 * from the queue state, with a notification when a message arrives.
 */
#define FUSE_USE_VERSION 35

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cuse_lowlevel.h>
#include <fuse_lowlevel.h>
#include <event2/event.h>

#include "core/leasegate.h"
#include "core/xact.h"
#include "cuse/cuse.h"
#include "cuse/handover.h"
#include "util/error.h"
#include "util/log.h"

/* fi->fh is the client's id, never a pointer: after a restart the new
 * process gets fhs it never issued (handover.c). */
static struct client *req_client(fuse_req_t req, struct fuse_file_info *fi)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);

	return handover_client(fuse_req_userdata(req), fi->fh, ctx->pid,
			       ctx->uid);
}

int node_name_check(const char *name, char **cause)
{
	char path[16 + KCSMUX_NAME_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "/dev/%s", name);
	if (lstat(path, &st) < 0)
		return 0;
	error_set(cause,
		  "node %s: %s already exists (%s): a node must not "
		  "take the name of another device; choose another name",
		  name, path,
		  S_ISLNK(st.st_mode) ? "a symbolic link" :
		  S_ISCHR(st.st_mode) ? "a character device" :
		  S_ISBLK(st.st_mode) ? "a block device" :
					"a file");
	return -1;
}

/* The device number the kernel gave the node's CUSE device, from
 * /sys/class/cuse/NAME/dev ("MAJOR:MINOR"); 0 if unknown. */
static dev_t cuse_rdev(const char *name)
{
	char path[32 + KCSMUX_NAME_MAX], buf[32];
	unsigned int maj, min;
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "/sys/class/cuse/%s/dev", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return 0;
	buf[len] = '\0';
	if (sscanf(buf, "%u:%u", &maj, &min) != 2)
		return 0;
	return makedev(maj, min);
}

int node_set_owner_mode(const struct node *n, uid_t uid, gid_t gid, mode_t mode,
			mode_t narrow)
{
	char path[16 + KCSMUX_NAME_MAX], fdpath[32];
	dev_t want = cuse_rdev(n->conf.name);
	struct stat st;
	int fd, rv = -1;

	/* O_PATH: opening the device itself would call our own open. Never
	 * follow a link; change only the CUSE device the kernel made. */
	snprintf(path, sizeof(path), "/dev/%s", n->conf.name);
	fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		log_warn("%s: %s; owner and mode not set", path,
			 strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISCHR(st.st_mode) || want == 0 ||
	    st.st_rdev != want) {
		log_err("%s is not node %s's device (%s, %u:%u; the node's is "
			"%u:%u): owner and mode left alone",
			path, n->conf.name,
			S_ISCHR(st.st_mode) ? "character device" :
					      "not a "
					      "character device",
			major(st.st_rdev), minor(st.st_rdev), major(want),
			minor(want));
		goto out;
	}
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	if ((narrow != (mode_t)-1 && chmod(fdpath, narrow) < 0) ||
	    fchownat(fd, "", uid, gid, AT_EMPTY_PATH) < 0 ||
	    chmod(fdpath, mode) < 0) {
		log_warn("%s: setting owner/mode: %s", path, strerror(errno));
		goto out;
	}
	rv = 0;
out:
	close(fd);
	return rv;
}

/*
 * /dev/ipmiN, /dev/ipmi/N and /dev/ipmidev/N: where ipmitool, FreeIPMI
 * (only /dev/ipmi0), OpenIPMI and ipmiutil look for interface N. A node
 * with an interface number (the interface key; by default N of a name
 * ipmiN) gets each as a link to NAME, made only where nothing exists yet
 * (a stock /dev/ipmiN of ipmi_devintf is left alone) or where a link to
 * NAME is left from a daemon that died, and removed with the node;
 * kcsmux.conf(5).
 */
static const char *const link_fmts[] = { "/dev/ipmi%d", "/dev/ipmi/%d",
					 "/dev/ipmidev/%d" };
static const char *const link_dirs[] = { NULL, "/dev/ipmi", "/dev/ipmidev" };
static const char *const link_targets[] = { "%s", "../%s", "../%s" };

#define NODE_NLINKS (sizeof(link_fmts) / sizeof(link_fmts[0]))

/* Is PATH a link to TARGET (one a killed daemon left)? */
static bool node_link_is(const char *path, const char *target)
{
	char buf[8 + KCSMUX_NAME_MAX];
	ssize_t len = readlink(path, buf, sizeof(buf) - 1);

	if (len < 0)
		return false;
	buf[len] = '\0';
	return strcmp(buf, target) == 0;
}

static void node_links_create(struct node *n)
{
	int num = n->conf.interface;
	char path[32], target[8 + KCSMUX_NAME_MAX];
	struct stat st;
	size_t i;

	if (num < 0)
		return;
	/* After the privilege drop and under the seccomp filter (reload
	 * adding a node) the calls would fail or be off the filter's list. */
	if (n->d->dropped || n->d->sandboxed) {
		log_warn("node %s: no /dev/ipmi%d, /dev/ipmi/%d, "
			 "/dev/ipmidev/%d links: added after the daemon "
			 "dropped root or confined itself",
			 n->conf.name, num, num, num);
		return;
	}
	for (i = 0; i < NODE_NLINKS; i++) {
		snprintf(path, sizeof(path), link_fmts[i], num);
		snprintf(target, sizeof(target), link_targets[i], n->conf.name);
		if (strcmp(path + 5, n->conf.name) == 0)
			continue; /* the node is /dev/ipmiN itself */
		/* backend = ipmidev: a node must never stand in for the
		 * stock device the daemon itself reopens */
		if (n->d->cfg.device != NULL &&
		    strcmp(path, n->d->cfg.device) == 0)
			continue;
		if (link_dirs[i] != NULL && mkdir(link_dirs[i], 0755) < 0 &&
		    errno != EEXIST) {
			log_warn("%s: %s; no %s", link_dirs[i], strerror(errno),
				 path);
			continue;
		}
		if (lstat(path, &st) == 0) {
			if (S_ISLNK(st.st_mode) && node_link_is(path, target)) {
				n->links |= 1U << i;
				continue;
			}
			if (S_ISCHR(st.st_mode))
				log_info("%s is a device (a stock interface?): "
					 "left alone, not linked to node %s",
					 path, n->conf.name);
			else
				log_warn("%s exists: left alone, not linked to "
					 "node %s",
					 path, n->conf.name);
			continue;
		}
		if (symlink(target, path) < 0) {
			log_warn("%s: %s", path, strerror(errno));
			continue;
		}
		n->links |= 1U << i;
	}
}

static void node_links_remove(struct node *n)
{
	int num = n->conf.interface;
	char path[32];
	struct stat st;
	size_t i;

	for (i = 0; i < NODE_NLINKS; i++) {
		if (!(n->links & (1U << i)))
			continue;
		snprintf(path, sizeof(path), link_fmts[i], num);
		if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) &&
		    unlink(path) < 0)
			log_warn("%s: %s", path, strerror(errno));
	}
	n->links = 0;
}

/* The device's owner, mode and links, once /dev/NAME exists. */
static void node_dev_ready(struct node *n)
{
	node_set_owner_mode(n, n->conf.uid, n->conf.gid, n->conf.mode,
			    (mode_t)-1);
	node_links_create(n);
	n->ready = true;
	log_info("node %s ready (/dev/%s)", n->conf.name, n->conf.name);
	if (n->d->fe->node_ready)
		n->d->fe->node_ready(n->d);
}

/* How long to wait for devtmpfs to make /dev/NAME: 200 x 5 ms. */
#define NODE_DEV_TRIES	 200
#define NODE_DEV_POLL_US 5000

static bool node_dev_exists(const struct node *n)
{
	char path[16 + KCSMUX_NAME_MAX];

	snprintf(path, sizeof(path), "/dev/%s", n->conf.name);
	return access(path, F_OK) == 0;
}

/* A timer, re-armed until the device exists (or we stop waiting): the
 * loop serves the other nodes meanwhile. */
static void node_dev_wait(evutil_socket_t fd, short what, void *arg)
{
	struct node *n = arg;
	struct timeval tv = { 0, NODE_DEV_POLL_US };

	(void)fd;
	(void)what;
	if (!node_dev_exists(n) && ++n->ready_tries < NODE_DEV_TRIES) {
		evtimer_add(n->ready_ev, &tv);
		return;
	}
	node_dev_ready(n);
}

static void node_init_done(void *userdata)
{
	struct node *n = userdata;
	struct timeval tv = { 0, NODE_DEV_POLL_US };

	/* devtmpfs creates the node root:root 0600 (never wider); give it
	 * the configured owner and mode once it exists. */
	if (node_dev_exists(n)) {
		node_dev_ready(n);
		return;
	}
	n->ready_tries = 1;
	if (!n->ready_ev)
		n->ready_ev = evtimer_new(n->d->base, node_dev_wait, n);
	if (!n->ready_ev) {
		node_dev_ready(n); /* no memory: as if it timed out */
		return;
	}
	evtimer_add(n->ready_ev, &tv);
}

unsigned int node_uid_files(const struct node *n, uid_t uid)
{
	const struct client *c;
	unsigned int k = 0;

	LIST_FOREACH (c, &n->clients, link)
		k += c->uid == uid;
	return k;
}

/* The files one uid may hold open on N: three quarters of max_clients
 * (at least one), as of the queue, so the node's other users get in. */
unsigned int node_uid_open_share(const struct node *n)
{
	return xact_uid_share(n->conf.max_clients);
}

static void node_open(fuse_req_t req, struct fuse_file_info *fi)
{
	struct node *n = fuse_req_userdata(req);
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	struct client *c;

	if (n->dying) {
		fuse_reply_err(req, ENODEV);
		return;
	}
	if (n->nclients >= n->conf.max_clients ||
	    node_uid_files(n, ctx->uid) >= node_uid_open_share(n)) {
		n->cnt.busy++;
		fuse_reply_err(req, EBUSY);
		return;
	}
	c = client_new(n, ctx->pid, ctx->uid);
	if (!c) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	LIST_INSERT_HEAD(&n->clients, c, link);
	n->nclients++;
	n->cnt.opens++;
	fi->fh = c->id;
	handover_file_open(n, c);
	fi->direct_io = 1;
	fi->nonseekable = 1;
	fuse_reply_open(req, fi);
}

static void node_release(fuse_req_t req, struct fuse_file_info *fi)
{
	struct node *n = fuse_req_userdata(req);
	struct client *c;

	handover_file_close(n, fi->fh);
	LIST_FOREACH (c, &n->clients, link)
		if (c->id == fi->fh)
			break;
	if (c) {
		LIST_REMOVE(c, link);
		n->nclients--;
		client_free(c);
	}
	fuse_reply_err(req, 0);
}

/* The stock device has no read/write: EINVAL, as it answers. */
static void node_read(fuse_req_t req, size_t size, off_t off,
		      struct fuse_file_info *fi)
{
	(void)size;
	(void)off;
	(void)fi;
	fuse_reply_err(req, EINVAL);
}

static void node_write(fuse_req_t req, const char *buf, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	(void)buf;
	(void)size;
	(void)off;
	(void)fi;
	fuse_reply_err(req, EINVAL);
}

/*
 * Tests only (vm.daemon-abi's restart checks): KCSMUX_TEST_KILL_FILE names
 * a file holding N; the process that finds it at start removes it and
 * dies of SIGKILL at its Nth ioctl, read and unanswered, as a crash
 * leaves one (handover.c: resent, or failed ECONNRESET).
 */
static long test_kill_at = -1;

static void test_kill_setup(void)
{
	const char *path = getenv("KCSMUX_TEST_KILL_FILE");
	FILE *f;

	if (test_kill_at >= 0 || !path)
		return;
	test_kill_at = 0;
	f = fopen(path, "re");
	if (!f)
		return;
	if (fscanf(f, "%ld", &test_kill_at) != 1)
		test_kill_at = 0;
	fclose(f);
	unlink(path);
}

static void test_kill_maybe(void)
{
	if (test_kill_at > 0 && --test_kill_at == 0)
		raise(SIGKILL);
}

/* libfuse's ioctl operation (struct cuse_lowlevel_ops fixes its eight
 * parameters: the one function in fused/ with more than seven). */
static void node_ioctl(fuse_req_t req, int cmd, void *arg,
		       struct fuse_file_info *fi, unsigned int flags,
		       const void *in_buf, size_t in_bufsz, size_t out_bufsz)
{
	struct cuse_ioctl io = {
		.req = req,
		.cmd = (unsigned int)cmd,
		.arg = arg,
		.flags = flags,
		.in = in_buf,
		.in_len = in_bufsz,
		.out_len = out_bufsz,
	};

	struct client *c = req_client(req, fi);

	test_kill_maybe();
	if (!c || c->revoked) {
		fuse_reply_err(req, c ? EACCES : ENOMEM);
		return;
	}
	client_ioctl(c, &io);
}

static void node_poll(fuse_req_t req, struct fuse_file_info *fi,
		      struct fuse_pollhandle *ph)
{
	struct client *c = req_client(req, fi);

	if (!c) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	if (ph) {
		if (c->ph)
			fuse_pollhandle_destroy(c->ph);
		c->ph = ph;
	}
	fuse_reply_poll(req, c->revoked		 ? POLLERR :
			     TAILQ_EMPTY(&c->rq) ? 0 :
						   POLLIN | POLLRDNORM);
}

static const struct cuse_lowlevel_ops node_ops = {
	.init_done = node_init_done,
	.open = node_open,
	.release = node_release,
	.read = node_read,
	.write = node_write,
	.ioctl = node_ioctl,
	.poll = node_poll,
};

#define RETRY_FOUND_MAX 8  /* retry_found's range: 0..8, read at >= 4 */
#define RETRY_PROBE	16 /* while waiting, still read after every 16th */

/*
 * After a retry of kind K (core.h, retried): read the call again at once
 * (true), or wait for the loop to say it is there. The client's task
 * sends it again: at once if it runs before the daemon's next read (on
 * one CPU it may preempt the daemon), else the read finds nothing and
 * costs a wake-up besides (on two CPUs, nearly always). Read at once while
 * that found the call at least half the time (break-even: one read saved
 * against two lost), and now and then while waiting, to notice when it
 * would again. Per kind: a SEND's retry and a RECEIVE's are not alike.
 */
static bool read_after_retry(struct node *n, unsigned int k)
{
	if (n->retry_found[k] >= RETRY_FOUND_MAX / 2)
		return true;
	if (++n->retry_skips[k] < RETRY_PROBE)
		return false;
	n->retry_skips[k] = 0;
	return true;
}

/* Read the node's CUSE requests of one wake-up. */
static void node_drain(struct node *n)
{
	struct fuse_buf *buf = n->buf;
	int kind = -1; /* of the retry this read follows */
	int i, rv;

	/*
	 * One request per wake-up, and the next one only when this one was
	 * answered with an ioctl retry and read_after_retry() says so. Any
	 * other reply ends a request, and the client's next call (if any)
	 * wakes the loop again; reading on until EAGAIN would cost one read
	 * per wake-up that finds nothing. At most 16 in a row, so one busy
	 * node cannot starve the others.
	 */
	for (i = 0; i < 16; i++) {
		n->retried = 0;
		rv = fuse_session_receive_buf(n->se, buf);
		if (kind >= 0 && rv == -EAGAIN && n->retry_found[kind])
			n->retry_found[kind]--;
		else if (kind >= 0 && rv > 0 &&
			 n->retry_found[kind] < RETRY_FOUND_MAX)
			n->retry_found[kind]++;
		if (rv == -EAGAIN || rv == -EINTR)
			return;
		if (rv <= 0 || fuse_session_exited(n->se)) {
			log_err("node %s: CUSE session ended (%s)",
				n->conf.name,
				rv < 0 ? strerror(-rv) : "closed");
			event_del(n->ev);
			n->dying = true;
			return;
		}
		fuse_session_process_buf(n->se, buf);
		if (!n->retried)
			return;
		kind = n->retried - 1;
		if (!read_after_retry(n, (unsigned int)kind))
			return;
	}
}

/* The daemon's CPU for a wake-up is the node's (core/cpumeter.h). */
static void node_readable(evutil_socket_t fd, short what, void *arg)
{
	struct node *n = arg;
	struct cpu_mark mk;

	(void)fd;
	(void)what;
	cpu_enter(n->d, n, &mk);
	node_drain(n);
	cpu_leave(n->d, &mk);
}

int node_create(struct daemon *d, const struct kcsmux_node_conf *conf,
		char **cause)
{
	char devname[16 + KCSMUX_NAME_MAX];
	const char *dev_info_argv[] = { devname };
	char *argv[] = { (char *)"kcsmuxd", NULL };
	struct fuse_args args = FUSE_ARGS_INIT(1, argv);
	struct cuse_info ci;
	struct node *n;
	int rv, fd = handover_take_fd(d, conf->name);
	bool adopted = fd >= 0;

	test_kill_setup();

	/* an inherited device is ours: /dev/NAME exists */
	if (!adopted && node_name_check(conf->name, cause) < 0)
		return -1;
	n = calloc(1, sizeof(*n));
	if (!n)
		goto nomem;
	n->buf = calloc(1, sizeof(struct fuse_buf));
	if (!n->buf)
		goto nomem;
	/* read at once, to begin with */
	n->retry_found[0] = n->retry_found[1] = RETRY_FOUND_MAX / 2;
	core_node_init(d, n, conf);

	snprintf(devname, sizeof(devname), "DEVNAME=%s", conf->name);
	memset(&ci, 0, sizeof(ci));
	ci.dev_info_argc = 1;
	ci.dev_info_argv = dev_info_argv;
	ci.flags = CUSE_UNRESTRICTED_IOCTL;

	n->se = cuse_lowlevel_new(&args, &ci, &node_ops, n);
	fuse_opt_free_args(&args);
	if (!n->se) {
		error_set(cause, "node %s: cuse_lowlevel_new failed",
			  conf->name);
		goto fail;
	}
	if (!adopted)
		fd = open("/dev/cuse", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		error_set(cause, "node %s: /dev/cuse: %s%s", conf->name,
			  strerror(errno),
			  errno == ENOENT || errno == ENODEV ?
				  " (modprobe cuse)" :
				  "");
		goto fail;
	}
	(void)fcntl(fd, F_SETFL, O_RDWR | O_NONBLOCK);
	rv = handover_session(n, fd, adopted);
	fd = -1; /* the session owns it now (or closed it) */
	if (rv < 0) {
		error_set(cause, "node %s: cannot attach /dev/cuse",
			  conf->name);
		goto fail;
	}
	n->ev = event_new(d->base, fuse_session_fd(n->se), EV_READ | EV_PERSIST,
			  node_readable, n);
	/* an inherited connection is read once handover_resume() has
	 * taken it past CUSE_INIT */
	if (!n->ev || (!adopted && event_add(n->ev, NULL) < 0)) {
		error_set(cause, "node %s: event_add failed", conf->name);
		goto fail;
	}
	core_node_attach(n);
	return 0;
nomem:
	error_set(cause, "node %s: out of memory", conf->name);
fail:
	if (fd >= 0)
		close(fd);
	if (n) {
		handover_node_gone(n);
		if (n->ev)
			event_free(n->ev);
		if (n->se)
			fuse_session_destroy(n->se);
		free(n->buf);
		free(n);
	}
	return -1;
}

/* Remove the device: clients still open get ENODEV from the kernel. */
void node_destroy(struct node *n)
{
	struct client *c;
	struct fuse_buf *buf = n->buf;

	n->dying = true;
	while ((c = LIST_FIRST(&n->clients))) {
		LIST_REMOVE(c, link);
		client_free(c);
	}
	client_node_gone(n);
	xact_node_gone(n);
	leasegate_node_gone(n->d, n);
	sched_flow_detach(&n->d->sched, &n->flow);
	LIST_REMOVE(n, link);
	/* handed over: the next process's nodes are these, links too */
	if (!handover_keep_links(n->d))
		node_links_remove(n);
	handover_node_gone(n);
	if (n->ready_ev)
		event_free(n->ready_ev);
	if (n->ev)
		event_free(n->ev);
	fuse_session_destroy(n->se); /* closes the /dev/cuse fd */
	free(buf->mem);
	free(buf);
	free(n);
}
