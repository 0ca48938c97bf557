// SPDX-License-Identifier: GPL-2.0
/* fake_backend.c - see fake_backend.h. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fake_backend.h"

static int fb_submit(struct backend *be, const struct backend_req *br)
{
	uint64_t cookie = br->cookie;
	const struct kcsraw_policy *pol = br->pol;
	const uint8_t *req = br->req;
	unsigned int len = br->len;
	const struct ipmi_address *addr = br->addr;
	int32_t retries = br->retries;
	uint32_t retry_ms = br->retry_ms;
	struct fake_be *fb = (struct fake_be *)be;
	struct fake_sub *s;
	int rv;

	if (fb->fail_next < 0) {
		rv = fb->fail_next;
		fb->fail_next = 0;
		return rv;
	}
	ck_assert_uint_lt(fb->nsubs, FAKE_MAX_SUBS);
	ck_assert_uint_le(len, KCSRAW_MAX_MSG);
	s = &fb->subs[fb->nsubs++];
	memset(s, 0, sizeof(*s));
	s->cookie = cookie;
	s->pol = *pol;
	memcpy(s->req, req, len);
	s->len = len;
	s->bridged = addr != NULL;
	s->retries = retries;
	s->retry_ms = retry_ms;
	be->inflight++;
	return 0;
}

static int fb_cancel(struct backend *be, uint64_t cookie)
{
	(void)cookie;
	((struct fake_be *)be)->cancels++;
	return -EOPNOTSUPP;
}

static void fb_destroy(struct backend *be)
{
	free(be);
}

static const struct backend_ops fake_ops = {
	.name = "fake",
	.submit = fb_submit,
	.cancel = fb_cancel,
	.destroy = fb_destroy,
};

struct fake_be *fake_backend_new(unsigned int depth, bool bridges,
				 const struct backend_cbs *cbs, void *arg)
{
	struct fake_be *fb = calloc(1, sizeof(*fb));

	ck_assert_ptr_nonnull(fb);
	fb->be.ops = &fake_ops;
	fb->be.cbs = cbs;
	fb->be.cb_arg = arg;
	fb->be.fd = -1;
	fb->be.depth = depth;
	fb->be.bridges = bridges;
	return fb;
}

struct fake_sub *fake_pending(struct fake_be *fb)
{
	for (unsigned int i = 0; i < fb->nsubs; i++)
		if (!fb->subs[i].done)
			return &fb->subs[i];
	return NULL;
}

unsigned int fake_npending(const struct fake_be *fb)
{
	unsigned int k = 0;

	for (unsigned int i = 0; i < fb->nsubs; i++)
		k += !fb->subs[i].done;
	return k;
}

void fake_complete(struct fake_be *fb, struct fake_sub *s, int status,
		   const uint8_t *resp, unsigned int len)
{
	ck_assert_ptr_nonnull(s);
	ck_assert(!s->done);
	s->done = true;
	if (fb->be.inflight)
		fb->be.inflight--;
	fb->be.cbs->completion(fb->be.cb_arg, s->cookie, status, resp, len,
			       NULL);
	fb->be.cbs->room(fb->be.cb_arg);
}

struct fake_sub *fake_answer(struct fake_be *fb, const uint8_t *data,
			     unsigned int dlen)
{
	struct fake_sub *s = fake_pending(fb);
	uint8_t resp[3 + 300];

	ck_assert_ptr_nonnull(s);
	ck_assert_uint_le(dlen, 300);
	resp[0] = (uint8_t)(s->req[0] | 4); /* netfn + 1 */
	resp[1] = s->req[1];
	resp[2] = 0;
	if (dlen)
		memcpy(resp + 3, data, dlen);
	fake_complete(fb, s, 0, resp, 3 + dlen);
	return s;
}
