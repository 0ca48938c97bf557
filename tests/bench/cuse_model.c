// SPDX-License-Identifier: GPL-2.0
/*
 * cuse_model.c - the kernel's side of a CUSE node (cuse_model.h). libfuse's
 * reply calls are linked as __wrap_* (ld --wrap, tests/bench/CMakeLists.txt):
 * the daemon's code calls these instead of writing to /dev/cuse, and the
 * request pointer it hands them is the model.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuse/cuse.h"
#include "cuse_model.h"
#include "fuse_wraps.h"
#include "util/error.h"

enum { R_NONE, R_ERR, R_IOCTL, R_RETRY, R_OPEN, R_POLL };

/* node.c's operations, seen once by the wrapped cuse_lowlevel_new(). */
static const struct cuse_lowlevel_ops *captured_ops;

static struct cuse_model *model_of(fuse_req_t req)
{
	return (struct cuse_model *)(void *)req;
}

static fuse_req_t req_of(struct cuse_model *m)
{
	return (fuse_req_t)(void *)m;
}

/* The model's poll handle: any non-NULL pointer the daemon keeps. */
static struct fuse_pollhandle *model_ph(struct cuse_model *m)
{
	return (struct fuse_pollhandle *)(void *)&m->cnt;
}

struct fuse_session *
__wrap_cuse_lowlevel_new(struct fuse_args *args, const struct cuse_info *ci,
			 const struct cuse_lowlevel_ops *clop, void *userdata)
{
	(void)args;
	(void)userdata;
	/* The model is of unrestricted ioctls only. */
	if (ci->flags & CUSE_UNRESTRICTED_IOCTL)
		captured_ops = clop;
	return NULL; /* node_create() stops here */
}

int __wrap_fuse_reply_err(fuse_req_t req, int err)
{
	struct cuse_model *m = model_of(req);

	m->r.kind = R_ERR;
	m->r.err = err;
	return 0;
}

int __wrap_fuse_reply_ioctl(fuse_req_t req, int result, const void *buf,
			    size_t size)
{
	struct iovec iov = { (void *)(uintptr_t)buf, size };

	return __wrap_fuse_reply_ioctl_iov(req, result, &iov, size ? 1 : 0);
}

int __wrap_fuse_reply_ioctl_iov(fuse_req_t req, int result,
				const struct iovec *iov, int count)
{
	struct cuse_model *m = model_of(req);

	m->r.kind = R_IOCTL;
	m->r.result = result;
	m->r.outlen = 0;
	for (int i = 0; i < count; i++) {
		if (m->r.outlen + iov[i].iov_len > sizeof(m->r.outbuf)) {
			m->r.kind = R_ERR; /* more than the kernel takes */
			m->r.err = EIO;
			return -EIO;
		}
		memcpy(m->r.outbuf + m->r.outlen, iov[i].iov_base,
		       iov[i].iov_len);
		m->r.outlen += iov[i].iov_len;
	}
	return 0;
}

int __wrap_fuse_reply_ioctl_retry(fuse_req_t req, const struct iovec *in_iov,
				  size_t in_count, const struct iovec *out_iov,
				  size_t out_count)
{
	struct cuse_model *m = model_of(req);

	if (in_count > CUSE_MODEL_IOV || out_count > CUSE_MODEL_IOV) {
		m->r.kind = R_ERR;
		m->r.err = EIO;
		return -EIO;
	}
	m->r.kind = R_RETRY;
	if (in_count)
		memcpy(m->r.in, in_iov, in_count * sizeof(*in_iov));
	m->r.nin = in_count;
	if (out_count)
		memcpy(m->r.out, out_iov, out_count * sizeof(*out_iov));
	m->r.nout = out_count;
	return 0;
}

int __wrap_fuse_reply_open(fuse_req_t req, const struct fuse_file_info *fi)
{
	struct cuse_model *m = model_of(req);

	m->r.kind = R_OPEN;
	m->fi = *fi;
	return 0;
}

int __wrap_fuse_reply_poll(fuse_req_t req, unsigned int revents)
{
	struct cuse_model *m = model_of(req);

	m->r.kind = R_POLL;
	m->r.revents = revents;
	return 0;
}

const struct fuse_ctx *__wrap_fuse_req_ctx(fuse_req_t req)
{
	return &model_of(req)->ctx;
}

void *__wrap_fuse_req_userdata(fuse_req_t req)
{
	return model_of(req)->node;
}

int __wrap_fuse_lowlevel_notify_poll(struct fuse_pollhandle *ph)
{
	/* The handle is the model's own (model_ph): its counters. */
	((struct cuse_model_counts *)(void *)ph)->notifies++;
	return 0;
}

void __wrap_fuse_pollhandle_destroy(struct fuse_pollhandle *ph)
{
	(void)ph;
}

int cuse_model_init(struct cuse_model *m, struct node *n, pid_t pid,
		    char **cause)
{
	char *why = NULL;

	memset(m, 0, sizeof(*m));
	m->node = n;
	m->ctx.pid = pid;
	m->ctx.uid = getuid();
	m->ctx.gid = getgid();
	captured_ops = NULL;
	/* node_create() makes the session with node.c's table; the wrapped
	 * cuse_lowlevel_new() keeps the table and fails the rest. */
	if (node_create(n->d, &n->conf, &why) == 0)
		return error_set(cause, "node_create() went past the wrapped "
					"cuse_lowlevel_new()");
	free(why);
	if (!captured_ops)
		return error_set(cause, "node.c made no CUSE session with "
					"unrestricted ioctls");
	m->ops = captured_ops;
	return 0;
}

void cuse_model_memory(struct cuse_model *m, const void *lo, size_t len)
{
	m->mem_lo = (uintptr_t)lo;
	m->mem_hi = (uintptr_t)lo + len;
}

int cuse_model_open(struct cuse_model *m)
{
	memset(&m->fi, 0, sizeof(m->fi));
	m->r.kind = R_NONE;
	m->ops->open(req_of(m), &m->fi);
	if (m->r.kind == R_ERR)
		return -m->r.err;
	if (m->r.kind != R_OPEN)
		return -EIO;
	m->open = true;
	return 0;
}

void cuse_model_release(struct cuse_model *m)
{
	if (!m->open)
		return;
	m->r.kind = R_NONE;
	m->ops->release(req_of(m), &m->fi);
	m->open = false;
}

static bool mapped(const struct cuse_model *m, const struct iovec *v)
{
	uintptr_t p = (uintptr_t)v->iov_base;

	return p >= m->mem_lo && p <= m->mem_hi && v->iov_len <= m->mem_hi - p;
}

/* The reply's bytes into the memory the last retry named (copy_to_user),
 * or -errno. */
static int copy_out(struct cuse_model *m, const struct iovec *outv, size_t nout,
		    size_t out_len)
{
	size_t o = 0, n;

	if (m->r.outlen > out_len)
		return -EIO; /* more than the kernel offered */
	for (size_t i = 0; i < nout && o < m->r.outlen; i++) {
		if (!mapped(m, &outv[i]))
			return -EFAULT;
		n = outv[i].iov_len < m->r.outlen - o ? outv[i].iov_len :
							m->r.outlen - o;
		memcpy(outv[i].iov_base, m->r.outbuf + o, n);
		o += n;
	}
	return 0;
}

/* A retry's input memory into inbuf (copy_from_user): its length or
 * -errno. */
static long copy_in(struct cuse_model *m)
{
	size_t len = 0;

	for (size_t i = 0; i < m->r.nin; i++) {
		if (!mapped(m, &m->r.in[i]))
			return -EFAULT;
		if (len + m->r.in[i].iov_len > sizeof(m->inbuf))
			return -EINVAL;
		memcpy(m->inbuf + len, m->r.in[i].iov_base, m->r.in[i].iov_len);
		len += m->r.in[i].iov_len;
	}
	return (long)len;
}

int cuse_model_ioctl(struct cuse_model *m, unsigned int cmd, void *arg)
{
	struct iovec outv[CUSE_MODEL_IOV];
	size_t in_len = 0, out_len = 0, nout = 0;
	long got;
	int rv;

	/* The kernel gives up on a daemon that keeps asking; IPMI's
	 * ioctls need at most 3 calls. */
	for (int round = 0; round < 8; round++) {
		m->cnt.ioctl_rts++;
		m->r.kind = R_NONE;
		m->ops->ioctl(req_of(m), (int)cmd, arg, &m->fi, 0,
			      in_len ? m->inbuf : NULL, in_len, out_len);
		switch (m->r.kind) {
		case R_ERR:
			return -m->r.err;
		case R_IOCTL:
			rv = copy_out(m, outv, nout, out_len);
			return rv < 0 ? rv : m->r.result;
		case R_RETRY:
			got = copy_in(m);
			if (got < 0)
				return (int)got;
			in_len = (size_t)got;
			nout = m->r.nout;
			if (nout)
				memcpy(outv, m->r.out, nout * sizeof(*outv));
			out_len = 0;
			for (size_t i = 0; i < nout; i++)
				out_len += outv[i].iov_len;
			break;
		default:
			return -EIO; /* the daemon did not answer */
		}
	}
	return -EIO;
}

unsigned int cuse_model_poll(struct cuse_model *m, bool notify)
{
	m->cnt.poll_rts++;
	m->r.kind = R_NONE;
	m->ops->poll(req_of(m), &m->fi, notify ? model_ph(m) : NULL);
	return m->r.kind == R_POLL ? m->r.revents : POLLERR;
}
