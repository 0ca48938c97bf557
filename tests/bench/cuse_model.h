/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cuse_model.h - the kernel's side of a CUSE node, for a host benchmark of
 * the daemon's own request path (node_cpu.c). It calls the node's real
 * CUSE operations (fused/cuse/node.c's table) as libfuse would, and
 * libfuse's reply calls, wrapped at link time (ld --wrap), come back to it:
 *
 *   ioctl  as the kernel runs an unrestricted CUSE ioctl: the first call
 *          carries no data; each retry's input memory is copied in from
 *          the client's memory and the call made again; the reply is
 *          copied out to the memory the last retry named. Memory outside
 *          the client's region faults (EFAULT), as copy_from_user would.
 *   poll   FUSE_POLL, with a poll handle when the caller's poll() asks to
 *          be told (FUSE_POLL_SCHEDULE_NOTIFY) and without on the re-poll
 *          after a wake-up; notifications are counted.
 *
 * Each call into the daemon is one FUSE round trip, counted by kind.
 */
#ifndef KCSMUX_CUSE_MODEL_H
#define KCSMUX_CUSE_MODEL_H

#define FUSE_USE_VERSION 35

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include <cuse_lowlevel.h>
#include <fuse_lowlevel.h>

#include "core/core.h"

#define CUSE_MODEL_IOV 8

struct cuse_model_counts {
	uint64_t ioctl_rts; /* FUSE_IOCTL requests (first calls and retries) */
	uint64_t poll_rts;  /* FUSE_POLL requests */
	uint64_t notifies;  /* poll notifications the daemon sent */
};

struct cuse_model {
	const struct cuse_lowlevel_ops *ops; /* node.c's, captured */
	struct node *node;		     /* fuse_req_userdata() */
	struct fuse_ctx ctx;		     /* the caller */
	struct fuse_file_info fi;	     /* the open file */
	bool open;
	/* the client's mapped memory: anything else faults */
	uintptr_t mem_lo, mem_hi;
	struct cuse_model_counts cnt;
	/* the daemon's reply to the request in flight */
	struct {
		int kind, err, result;
		unsigned int revents;
		size_t outlen;
		struct iovec in[CUSE_MODEL_IOV], out[CUSE_MODEL_IOV];
		size_t nin, nout;
		uint8_t outbuf[4096];
	} r;
	uint8_t inbuf[4096]; /* what the kernel copied in this round */
};

/* Capture node.c's CUSE operations for N's daemon (node_create() is
 * called once and stopped at cuse_lowlevel_new(), which is wrapped), and
 * serve N to a caller of pid/tid PID. -1 with *cause. */
int cuse_model_init(struct cuse_model *m, struct node *n, pid_t pid,
		    char **cause);
/* The client's memory: [lo, lo + len). */
void cuse_model_memory(struct cuse_model *m, const void *lo, size_t len);
/* open(2) and close(2) of the node: 0 or -errno. */
int cuse_model_open(struct cuse_model *m);
void cuse_model_release(struct cuse_model *m);
/* ioctl(2): its result or -errno. */
int cuse_model_ioctl(struct cuse_model *m, unsigned int cmd, void *arg);
/* One FUSE_POLL: the daemon's revents; NOTIFY asks to be told. */
unsigned int cuse_model_poll(struct cuse_model *m, bool notify);

#endif /* KCSMUX_CUSE_MODEL_H */
