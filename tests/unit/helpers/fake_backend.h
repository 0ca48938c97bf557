/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fake_backend.h - a struct backend_ops for host tests of the core and the
 * front end: it records every submission and completes them when the test
 * says so, through the callbacks it was opened with (as kcsraw.c does:
 * inflight down, completion, then room).
 */
#ifndef KCSMUX_FAKE_BACKEND_H
#define KCSMUX_FAKE_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "backend/backend.h"

#define FAKE_MAX_SUBS 256

struct fake_sub {
	uint64_t cookie;
	struct kcsraw_policy pol;
	uint8_t req[KCSRAW_MAX_MSG];
	unsigned int len;
	bool bridged;	 /* submitted with an IPMB address */
	int32_t retries; /* as submitted */
	uint32_t retry_ms;
	bool done;
};

struct fake_be {
	struct backend be;
	struct fake_sub subs[FAKE_MAX_SUBS];
	unsigned int nsubs; /* every submission, in order */
	int fail_next;	    /* < 0: the next submit fails with it */
	unsigned int cancels;
};

struct fake_be *fake_backend_new(unsigned int depth, bool bridges,
				 const struct backend_cbs *cbs, void *arg);
/* The oldest submission not completed yet, or NULL. */
struct fake_sub *fake_pending(struct fake_be *fb);
unsigned int fake_npending(const struct fake_be *fb);
/* Complete s with status and a raw response (netfn << 2 | lun, cmd, cc,
 * data...), as the backend's event handler would. */
void fake_complete(struct fake_be *fb, struct fake_sub *s, int status,
		   const uint8_t *resp, unsigned int len);
/* Answer the oldest pending submission with cc 0 and data (the response's
 * netfn and cmd from its request); returns it. */
struct fake_sub *fake_answer(struct fake_be *fb, const uint8_t *data,
			     unsigned int dlen);

#endif
