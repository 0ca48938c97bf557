/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuse_wraps.h - the libfuse calls a test or bench replaces with
 * -Wl,--wrap (test_client.c, tests/bench/cuse_model.c): a model of the
 * kernel's side of CUSE answers them instead of /dev/cuse.
 */
#ifndef KCSMUX_FUSE_WRAPS_H
#define KCSMUX_FUSE_WRAPS_H

#include <stddef.h>
#include <sys/uio.h>

#include <cuse_lowlevel.h>
#include <fuse_lowlevel.h>

struct fuse_session *
__wrap_cuse_lowlevel_new(struct fuse_args *args, const struct cuse_info *ci,
			 const struct cuse_lowlevel_ops *clop, void *userdata);
int __wrap_fuse_reply_err(fuse_req_t req, int err);
int __wrap_fuse_reply_ioctl(fuse_req_t req, int result, const void *buf,
			    size_t size);
int __wrap_fuse_reply_ioctl_iov(fuse_req_t req, int result,
				const struct iovec *iov, int count);
int __wrap_fuse_reply_ioctl_retry(fuse_req_t req, const struct iovec *in_iov,
				  size_t in_count, const struct iovec *out_iov,
				  size_t out_count);
int __wrap_fuse_reply_open(fuse_req_t req, const struct fuse_file_info *fi);
int __wrap_fuse_reply_poll(fuse_req_t req, unsigned int revents);
const struct fuse_ctx *__wrap_fuse_req_ctx(fuse_req_t req);
void *__wrap_fuse_req_userdata(fuse_req_t req);
int __wrap_fuse_lowlevel_notify_poll(struct fuse_pollhandle *ph);
void __wrap_fuse_pollhandle_destroy(struct fuse_pollhandle *ph);

#endif /* KCSMUX_FUSE_WRAPS_H */
