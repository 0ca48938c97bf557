// SPDX-License-Identifier: GPL-2.0
/*
 * handover.c - a restart or a crash of the daemon keeps every node and
 * every client's open file.
 *
 * A CUSE device lives as long as its /dev/cuse connection is open, and
 * each client's open file with it. Main hands each node's connection to
 * the service manager's file descriptor store (FDSTORE=1, FDNAME=cuse-NAME)
 * before the seccomp filter, with a memfd (FDNAME=kcsmux-state) mapped
 * shared: systemd keeps them across `systemctl restart` and across a crash
 * that Restart= follows, and gives them to the next process as LISTEN_FDS.
 *
 * The memfd holds, written as things happen and so still right after a
 * kill -9:
 *  - per node the kernel's CUSE_INIT (protocol version, flags) and the
 *    unique of the request read but not yet answered (the daemon answers
 *    one request before it reads the next: at most one per node);
 *  - per open file its fh (the client id; fi->fh is an id, never a
 *    pointer, so that a new process can tell an fh it never issued), the
 *    opener's uid and pid, and the kernel's poll handle (kh) once poll()
 *    asked to be told;
 *  - the next client id.
 * and after a graceful exit (SIGTERM: stop reading, let the transactions
 * in flight finish, then save) a blob of records: each open file's receive
 * queue, events subscription and timing parameters, each node's IPMB
 * addresses and LUNs.
 *
 * The next process runs each inherited connection through a libfuse
 * session with custom I/O (fuse_session_custom_io, which every libfuse
 * from 3.14 has; 3.17 made it a macro that keeps the three-argument form
 * for FUSE_USE_VERSION < 317). The kernel sends CUSE_INIT once per
 * connection and libfuse answers every request before its INIT with EIO,
 * so the session is fed the same CUSE_INIT the first process got, as a
 * buffer through fuse_session_process_buf, and its reply (which the kernel
 * would refuse: the unique is none of its) is dropped by the custom
 * writev. That is the one way through libfuse's public API: the session's
 * got_init has no setter. Then:
 *  - an fh the process never issued (a crash lost its state) gets a
 *    client with the stock defaults and the recorded opener;
 *  - every recorded kh gets FUSE_NOTIFY_POLL, so a poll() that waited on
 *    the old process asks again;
 *  - the request the old process read but never answered: kernels from
 *    6.9 take FUSE_NOTIFY_RESEND (notify code 7) and queue every request
 *    on the connection's processing list again, its unique marked with
 *    bit 63 (FUSE_UNIQUE_RESEND), which libfuse answers like any other;
 *    older kernels (6.1) refuse the code (EINVAL), and that request is
 *    answered ECONNRESET from the journal, so no caller hangs.
 */
#define FUSE_USE_VERSION 35

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cuse_lowlevel.h>
#include <fuse_lowlevel.h>
#include <event2/event.h>

#include "core/xact.h"
#include "cuse/cuse.h"
#include "cuse/handover.h"
#include "cuse/handover_priv.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/log.h"

/* The kernel's FUSE ABI (include/uapi/linux/fuse.h), the few parts used
 * here: libfuse's own copy is private, and <linux/fuse.h> clashes with it
 * on some libfuse versions. */
struct ho_in_header {
	uint32_t len, opcode;
	uint64_t unique, nodeid;
	uint32_t uid, gid, pid;
	uint16_t total_extlen, padding;
};
struct ho_out_header {
	uint32_t len;
	int32_t error;
	uint64_t unique;
};
struct ho_poll_in {
	uint64_t fh, kh;
	uint32_t flags, events;
};
struct ho_init_in { /* fuse_init_in: cuse_init_in's fields, then zeros */
	uint32_t major, minor, max_readahead, flags;
	uint32_t flags2, unused[11];
};

#define HO_OP_POLL	       40
#define HO_OP_INTERRUPT	       36
#define HO_OP_CUSE_INIT	       4096
#define HO_POLL_SCHEDULE       1u
#define HO_NOTIFY_POLL	       1
#define HO_NOTIFY_RESEND       7
#define HO_CUSE_UNRESTRICTED   1u
#define HO_KERNEL_MAJOR	       7
#define HO_KERNEL_MINOR_NOINIT 31 /* poll, ioctl: enough without a record */

/* ------------------------------------------------------------------ */
/* The store's descriptors */

/* LISTEN_FDS for this process (sd_listen_fds(3)'s protocol). */
static void ho_listen(struct handover *h)
{
	const char *pid = getenv("LISTEN_PID"), *nfd = getenv("LISTEN_FDS");
	const char *names = getenv("LISTEN_FDNAMES");
	char *end, *copy = NULL, *save = NULL, *tok;
	unsigned long n;

	if (!pid || !nfd || strtol(pid, &end, 10) != (long)getpid() || *end)
		goto out;
	n = strtoul(nfd, &end, 10);
	if (*end || n == 0 || n > 4096)
		goto out;
	h->fds = calloc(n, sizeof(*h->fds));
	if (!h->fds)
		goto out;
	copy = names ? strdup(names) : NULL;
	tok = copy ? strtok_r(copy, ":", &save) : NULL;
	for (unsigned long i = 0; i < n; i++) {
		struct ho_fd *f = &h->fds[h->nfds++];

		f->fd = 3 + (int)i;
		(void)fcntl(f->fd, F_SETFD, FD_CLOEXEC);
		snprintf(f->name, sizeof(f->name), "%s", tok ? tok : "");
		tok = tok ? strtok_r(NULL, ":", &save) : NULL;
	}
	free(copy);
out:
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
}

static struct ho_fd *ho_find(struct handover *h, const char *name)
{
	for (size_t i = 0; i < h->nfds; i++)
		if (!h->fds[i].taken && strcmp(h->fds[i].name, name) == 0)
			return &h->fds[i];
	return NULL;
}

static int ho_map(struct handover *h, int fd, bool fresh)
{
	struct stat st;
	void *p;

	if (fresh && ftruncate(fd, (off_t)HO_SIZE) < 0)
		return -1;
	if (fstat(fd, &st) < 0)
		return -1;
	/* version 1's (an upgrade from it): the journal of unread answers
	 * is added after it, zero, and the rest is read as it is */
	if ((size_t)st.st_size == HO_SIZE_V1 &&
	    (ftruncate(fd, (off_t)HO_SIZE) < 0 || fstat(fd, &st) < 0))
		return -1;
	if ((size_t)st.st_size != HO_SIZE) {
		errno = EINVAL;
		return -1;
	}
	p = mmap(NULL, HO_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -1;
	h->sh = p;
	h->memfd = fd;
	return 0;
}

/* The media the graceful predecessor scanned: the BMC is the same, and
 * its 16 Get Channel Info would run ahead of every client's request. */
static void ho_take_media(struct daemon *d, struct handover *h)
{
	struct ho_pendtab *pt = ho_pendtab_of(h->sh);

	if (!pt->media_ok)
		return;
	pt->media_ok = 0; /* once: after a crash the next one scans */
	memcpy(d->media, pt->media, sizeof(d->media));
	d->media_ready = true;
	d->bs.scanned = true;
	log_info("hand-over: channel media as the previous process scanned "
		 "them: no scan at start");
}

int handover_init(struct daemon *d, char **cause)
{
	struct handover *h = calloc(1, sizeof(*h));
	struct ho_fd *f;
	int fd;

	if (!h) {
		error_set(cause, "hand-over: out of memory");
		return -1;
	}
	h->memfd = -1;
	d->fe->ho = h;
	ho_listen(h);
	f = ho_find(h, "kcsmux-state");
	if (f) {
		f->taken = true;
		if (ho_map(h, f->fd, false) == 0 && h->sh->magic == HO_MAGIC &&
		    (h->sh->version == HO_VERSION || h->sh->version == 1)) {
			h->sh->version = HO_VERSION;
			h->memfd_stored = true;
			h->used = true;
			h->sh->generation++;
			d->next_client_id = h->sh->next_client_id;
			ho_take_media(d, h);
			log_info("hand-over: taking over from a previous "
				 "process (generation %u, %s)",
				 h->sh->generation,
				 h->sh->blob_len ? "its state saved" :
						   "it did not save its state");
			return 0;
		}
		log_warn("hand-over: the stored state is not this version's: "
			 "open files keep working with default state");
		if (h->sh)
			munmap(h->sh, HO_SIZE);
		h->sh = NULL;
		close(f->fd);
		h->memfd = -1;
	}
	fd = memfd_create("kcsmux-state", MFD_CLOEXEC);
	if (fd < 0 || ho_map(h, fd, true) < 0) {
		error_set(cause, "hand-over: state memfd: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	h->sh->magic = HO_MAGIC;
	h->sh->version = HO_VERSION;
	h->sh->next_client_id = d->next_client_id;
	return 0;
}

void handover_fini(struct daemon *d)
{
	struct handover *h = ho_of(d);

	if (!h)
		return;
	for (size_t i = 0; i < h->nfds; i++)
		if (!h->fds[i].taken && !h->fds[i].dropped)
			close(h->fds[i].fd);
	if (h->quiesce_ev)
		event_free(h->quiesce_ev);
	if (h->sh)
		munmap(h->sh, HO_SIZE);
	if (h->memfd >= 0)
		close(h->memfd);
	free(h->fds);
	free(h);
	d->fe->ho = NULL;
}

int handover_take_fd(struct daemon *d, const char *name)
{
	struct handover *h = ho_of(d);
	char fdname[64];
	struct ho_fd *f;

	if (!h)
		return -1;
	snprintf(fdname, sizeof(fdname), "cuse-%s", name);
	f = ho_find(h, fdname);
	if (!f)
		return -1;
	f->taken = true;
	return f->fd;
}

int handover_store_next(struct daemon *d, const char **name)
{
	struct handover *h = ho_of(d);
	static char fdname[64];
	struct node *n;

	if (!h)
		return -1;
	if (!h->memfd_stored && h->memfd >= 0) {
		h->memfd_stored = true;
		*name = "kcsmux-state";
		return h->memfd;
	}
	LIST_FOREACH (n, &d->nodes, link) {
		struct ho_rt *rt = n->ho;

		if (!rt || rt->stored || n->dying)
			continue;
		rt->stored = true;
		snprintf(fdname, sizeof(fdname), "cuse-%s", n->conf.name);
		*name = fdname;
		return fuse_session_fd(n->se);
	}
	return -1;
}

const char *handover_drop_next(struct daemon *d)
{
	struct handover *h = ho_of(d);
	static char name[KCSMUX_NAME_MAX + 8];

	if (h && h->ngone) {
		snprintf(name, sizeof(name), "%s", h->gone[--h->ngone]);
		return name;
	}
	for (size_t i = 0; h && i < h->nfds; i++) {
		struct ho_fd *f = &h->fds[i];

		if (f->taken || f->dropped || strncmp(f->name, "cuse-", 5))
			continue;
		/* a node no longer configured: its device goes */
		f->dropped = true;
		close(f->fd);
		log_info("hand-over: %s: no such node configured now: its "
			 "device is removed",
			 f->name + 5);
		return f->name;
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* The journal: per node, per open file */

static struct ho_node *ho_node_slot(struct handover *h, const char *name)
{
	struct ho_node *free_slot = NULL;

	for (size_t i = 0; i < HO_NODES; i++) {
		struct ho_node *s = &h->sh->nodes[i];

		if (strcmp(s->name, name) == 0)
			return s;
		if (!free_slot && s->name[0] == '\0')
			free_slot = s;
	}
	if (free_slot) {
		memset(free_slot, 0, sizeof(*free_slot));
		snprintf(free_slot->name, sizeof(free_slot->name), "%s", name);
	}
	return free_slot;
}

/* fh's slot (open addressing from fh % HO_FILES: ids are sequential);
 * with ADD a free one if none. */
static struct ho_file *ho_file_slot(struct ho_node *s, uint64_t fh, bool add)
{
	struct ho_file *tomb = NULL;

	for (size_t k = 0; k < HO_FILES; k++) {
		struct ho_file *f = &s->files[(fh + k) % HO_FILES];

		if (f->fh == fh)
			return f;
		if (f->fh == HO_TOMB && !tomb)
			tomb = f;
		if (f->fh == 0) {
			if (!add)
				return NULL;
			return tomb ? tomb : f;
		}
	}
	return add ? tomb : NULL;
}

void handover_file_open(struct node *n, const struct client *c)
{
	struct handover *h = ho_of(n->d);
	struct ho_rt *rt = n->ho;
	struct ho_file *f;

	if (!h || !rt)
		return;
	h->sh->next_client_id = n->d->next_client_id;
	f = ho_file_slot(rt->sh, c->id, true);
	if (!f) {
		if (!rt->warned)
			log_warn("node %s: more than %d open files: a restart "
				 "may not wake the poll() of the others",
				 n->conf.name, HO_FILES);
		rt->warned = true;
		return;
	}
	f->kh = 0;
	f->uid = (uint32_t)c->uid;
	f->pid = (uint32_t)c->pid;
	f->fh = c->id;
}

void handover_file_close(struct node *n, uint64_t fh)
{
	struct ho_rt *rt = n->ho;
	struct ho_file *f;

	if (rt)
		ho_pend_drop(rt->pend, fh, 0);
	if (!rt || !(f = ho_file_slot(rt->sh, fh, false)))
		return;
	f->kh = 0;
	f->fh = HO_TOMB;
}

void handover_pend_sent(const struct client *c, const struct ipmi_request *rq)
{
	struct ho_rt *rt = c->node->ho;

	if (!rt || (rq->flags & ABI_REQF_RESPONSE))
		return;
	/* the SEND in hand is the request the journal names it by */
	if (!ho_pend_add(rt->pend, c->id, rt->sh->inflight, rq) &&
	    !rt->warned) {
		log_warn("node %s: more than %d requests waiting to be read: "
			 "a crash may lose the answers of the others",
			 c->node->conf.name, HO_PEND);
		rt->warned = true;
	}
}

void handover_pend_read(const struct client *c, int64_t msgid)
{
	struct ho_rt *rt = c->node->ho;

	if (rt)
		ho_pend_done(rt->pend, c->id, msgid);
}

void handover_pend_forget(const struct client *c)
{
	struct ho_rt *rt = c->node->ho;

	if (rt)
		ho_pend_drop(rt->pend, c->id, 0);
}

struct client *handover_client(struct node *n, uint64_t fh, pid_t pid,
			       uid_t uid)
{
	struct ho_rt *rt = n->ho;
	struct ho_file *f = rt ? ho_file_slot(rt->sh, fh, false) : NULL;
	struct client *c;

	LIST_FOREACH (c, &n->clients, link)
		if (c->id == fh)
			return c;
	/* opened before a crash: the opener as recorded, stock defaults */
	if (f) {
		pid = (pid_t)f->pid;
		uid = (uid_t)f->uid;
	}
	c = client_new(n, pid, uid);
	if (!c)
		return NULL;
	n->d->next_client_id--; /* not one of ours: keep the count */
	c->id = fh;
	LIST_INSERT_HEAD(&n->clients, c, link);
	n->nclients++;
	log_info("node %s: open file %llu of uid %u (opened before the "
		 "daemon restarted) goes on with default state",
		 n->conf.name, (unsigned long long)fh, (unsigned int)uid);
	return c;
}

/* What the kernel asked: the CUSE_INIT to replay later, the request now
 * in hand, a poll handle. */
static void ho_seen(struct ho_rt *rt, const void *buf, size_t len)
{
	const struct ho_in_header *in = buf;

	if (in->opcode == HO_OP_CUSE_INIT &&
	    len >= sizeof(*in) + 4 * sizeof(uint32_t)) {
		const uint32_t *ii = (const uint32_t *)(in + 1);

		rt->sh->init_major = ii[0];
		rt->sh->init_minor = ii[1];
		rt->sh->init_flags = ii[3];
		rt->sh->init_seen = 1;
		return;
	}
	if (in->opcode == HO_OP_INTERRUPT)
		return;
	rt->sh->inflight = in->unique;
	if (in->opcode == HO_OP_POLL &&
	    len >= sizeof(*in) + sizeof(struct ho_poll_in)) {
		const struct ho_poll_in *pi = (const void *)(in + 1);
		struct ho_file *f;

		if ((pi->flags & HO_POLL_SCHEDULE) &&
		    (f = ho_file_slot(rt->sh, pi->fh, false)))
			f->kh = pi->kh;
	}
}

static ssize_t ho_read(int fd, void *buf, size_t len, void *userdata)
{
	struct node *n = userdata;
	ssize_t r = read(fd, buf, len);

	if (r >= (ssize_t)sizeof(struct ho_in_header) && n->ho)
		ho_seen(n->ho, buf, (size_t)r);
	return r;
}

static ssize_t ho_writev(int fd, struct iovec *iov, int count, void *userdata)
{
	struct node *n = userdata;
	struct ho_rt *rt = n->ho;
	const struct ho_out_header *out = iov[0].iov_base;
	size_t total = 0;

	if (rt && rt->swallow) { /* the replayed CUSE_INIT's reply */
		for (int i = 0; i < count; i++)
			total += iov[i].iov_len;
		return (ssize_t)total;
	}
	if (rt && iov[0].iov_len >= sizeof(*out) && out->unique != 0 &&
	    out->unique == rt->sh->inflight)
		rt->sh->inflight = 0;
	return writev(fd, iov, count);
}

static const struct fuse_custom_io ho_io = {
	.read = ho_read,
	.writev = ho_writev,
};

int handover_session(struct node *n, int fd, bool adopted)
{
	struct handover *h = ho_of(n->d);
	struct ho_rt *rt = calloc(1, sizeof(*rt));

	if (!rt || !h || !(rt->sh = ho_node_slot(h, n->conf.name))) {
		if (h && rt)
			log_warn("node %s: more than %d nodes: this one is not "
				 "handed over at a restart",
				 n->conf.name, HO_NODES);
		free(rt);
		rt = NULL;
	} else {
		rt->pend = &ho_pendtab_of(h->sh)->nodes[rt->sh - h->sh->nodes];
		rt->adopted = adopted;
		rt->fd = fd;
		/* a new connection: the old journal is not its */
		if (!adopted) {
			memset(rt->sh->files, 0, sizeof(rt->sh->files));
			memset(rt->pend, 0, sizeof(*rt->pend));
			rt->sh->inflight = 0;
			rt->sh->init_seen = 0;
		}
		/* an inherited one is already in the store */
		rt->stored = adopted;
	}
	n->ho = rt;
	if (fuse_session_custom_io(n->se, &ho_io, fd) != 0) {
		free(rt);
		n->ho = NULL;
		close(fd);
		return -1;
	}
	return 0;
}

void handover_node_gone(struct node *n)
{
	struct handover *h = ho_of(n->d);
	struct ho_rt *rt = n->ho;

	/* removed by a reload: forget it, and out of the store with it, or
	 * the device would stay with nobody serving it */
	if (rt && h && !h->graceful) {
		memset(rt->sh, 0, sizeof(*rt->sh));
		memset(rt->pend, 0, sizeof(*rt->pend));
		if (rt->stored && h->ngone < HO_NODES)
			snprintf(h->gone[h->ngone++], sizeof(h->gone[0]),
				 "cuse-%s", n->conf.name);
	}
	free(rt);
	n->ho = NULL;
}

/* ------------------------------------------------------------------ */
/* Taking over */

/* The connection's CUSE_INIT again, for this process's session alone. */
static void ho_replay_init(struct node *n)
{
	struct ho_rt *rt = n->ho;
	struct {
		struct ho_in_header in;
		struct ho_init_in init;
	} msg;
	struct fuse_buf fb;

	memset(&msg, 0, sizeof(msg));
	msg.in.len = sizeof(msg);
	msg.in.opcode = HO_OP_CUSE_INIT;
	msg.in.unique = 1; /* odd: never one of the kernel's requests */
	msg.init.major =
		rt->sh->init_seen ? rt->sh->init_major : HO_KERNEL_MAJOR;
	msg.init.minor =
		rt->sh->init_seen ? rt->sh->init_minor : HO_KERNEL_MINOR_NOINIT;
	msg.init.flags =
		rt->sh->init_seen ? rt->sh->init_flags : HO_CUSE_UNRESTRICTED;
	memset(&fb, 0, sizeof(fb));
	fb.mem = &msg;
	fb.size = sizeof(msg);
	rt->swallow = true;
	fuse_session_process_buf(n->se, &fb);
	rt->swallow = false;
}

static int ho_write(int fd, const void *buf, size_t len)
{
	ssize_t r = write(fd, buf, len);

	return r == (ssize_t)len ? 0 : -errno;
}

/* The request the old process read and never answered. */
static void ho_unanswered(struct node *n)
{
	struct ho_rt *rt = n->ho;
	struct ho_out_header out = { .len = sizeof(out), .error = 0 };
	int rv;

	/* FUSE_NOTIFY_RESEND: every request on the processing list queued
	 * again (6.9+); a kernel without it says EINVAL */
	out.error = HO_NOTIFY_RESEND;
	out.unique = 0;
	rv = ho_write(rt->fd, &out, sizeof(out));
	if (rv == 0) {
		if (rt->sh->inflight)
			log_info("node %s: the request the previous process "
				 "left unanswered is sent again (resend)",
				 n->conf.name);
		rt->sh->inflight = 0;
		return;
	}
	if (!rt->sh->inflight)
		return;
	out.error = -ECONNRESET;
	out.unique = rt->sh->inflight;
	rv = ho_write(rt->fd, &out, sizeof(out));
	log_warn("node %s: the request the previous process left unanswered "
		 "fails with ECONNRESET (this kernel cannot resend it)%s",
		 n->conf.name, rv == 0 ? "" : ": it had already gone");
	rt->sh->inflight = 0;
}

/* Responses to msgid in c's queue. */
static unsigned int ho_queued(const struct client *c, int64_t msgid)
{
	const struct kmsg *m;
	unsigned int k = 0;

	TAILQ_FOREACH (m, &c->rq, link)
		k += m->recv_type == IPMI_RESPONSE_RECV_TYPE &&
		     m->msgid == msgid;
	return k;
}

/* Each journaled request of N's files without an answer in its file's
 * queue gets ho_pend_error(); how many did. */
unsigned int ho_pend_answer(struct node *n, struct ho_pends *s)
{
	unsigned int made = 0;

	for (uint32_t i = 0; i < s->npend && i < HO_PEND; i++) {
		struct ho_pend *p = &s->pend[i];
		unsigned int before = 0;
		struct client *c;
		struct kmsg *m;

		if (p->fh == 0)
			continue;
		/* the entries of this fh and msgid ahead of this one */
		for (uint32_t j = 0; j < i; j++)
			before += s->pend[j].fh == p->fh &&
				  s->pend[j].msgid == p->msgid;
		c = handover_client(n, p->fh, 0, 0);
		if (!c || ho_queued(c, p->msgid) > before)
			continue;
		m = ho_pend_error(p);
		if (!m)
			continue;
		client_deliver(c, m);
		made++;
	}
	return made;
}

/* Every poll() that waited on the old process: asks again. */
static unsigned int ho_wake_polls(struct node *n)
{
	struct ho_rt *rt = n->ho;
	struct {
		struct ho_out_header out;
		uint64_t kh;
	} msg = { .out = { .len = sizeof(msg), .error = HO_NOTIFY_POLL } };
	unsigned int k = 0;

	for (size_t i = 0; i < HO_FILES; i++) {
		struct ho_file *f = &rt->sh->files[i];

		if (f->fh == 0 || f->fh == HO_TOMB || f->kh == 0)
			continue;
		msg.kh = f->kh;
		f->kh = 0;
		k += ho_write(rt->fd, &msg, sizeof(msg)) == 0;
	}
	return k;
}

void handover_resume(struct daemon *d)
{
	struct handover *h = ho_of(d);
	struct node *n;
	unsigned int woken = 0, adopted = 0, answered = 0;

	if (!h)
		return;
	LIST_FOREACH (n, &d->nodes, link)
		if (n->ho && ((struct ho_rt *)n->ho)->adopted) {
			ho_replay_init(n);
			adopted++;
		}
	if (h->sh->blob_len)
		ho_restore(d, h);
	if (d->next_client_id < h->sh->next_client_id)
		d->next_client_id = h->sh->next_client_id;
	h->sh->next_client_id = d->next_client_id;
	LIST_FOREACH (n, &d->nodes, link) {
		struct ho_rt *rt = n->ho;

		if (!rt || !rt->adopted || rt->resumed)
			continue;
		rt->resumed = true;
		/* a SEND whose reply never went out: its caller sees it
		 * fail (ECONNRESET) or it comes again (resend) */
		if (rt->sh->inflight)
			ho_pend_drop(rt->pend, 0, rt->sh->inflight);
		ho_unanswered(n);
		answered += ho_pend_answer(n, rt->pend);
		woken += ho_wake_polls(n);
		if (n->ev)
			event_add(n->ev, NULL);
	}
	if (adopted)
		log_info("hand-over: %u nodes taken over, %u waiting poll() "
			 "calls woken, %u requests whose answer was lost "
			 "answered with an error",
			 adopted, woken, answered);
}

void handover_stored(struct daemon *d)
{
	struct handover *h = ho_of(d);

	if (h)
		h->used = true;
}

bool handover_keep_links(const struct daemon *d)
{
	const struct handover *h = ho_of(d);

	return h && h->graceful;
}
