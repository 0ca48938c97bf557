// SPDX-License-Identifier: GPL-2.0
/*
 * Check suite for fused/cuse/cmdreg.c: REGISTER/UNREGISTER_FOR_CMD(_CHANS) with
 * the stock message handler's per-channel semantics (ipmi_msghandler.c):
 * exclusive per (netfn, cmd, channel) across files, the same file on other
 * channels, one unregister mask covering several registrations, channels
 * 16-31 in a mask, and the errnos.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "kcsmuxd.h"

/* Both files on a node that takes incoming commands (kcsmux.conf(5)). */
static struct frontend fe;
static struct daemon d = { .fe = &fe };
static struct node n = { .d = &d, .conf = { .commands = true } };
static struct client ca = { .node = &n }, cb = { .node = &n };

static const struct abi_ioctl reg = { 0,     ABI_REGISTER_FOR_CMD, 2, 0,
				      false, "REGISTER_FOR_CMD" };
static const struct abi_ioctl unreg = { 0,     ABI_UNREGISTER_FOR_CMD, 2, 0,
					false, "UNREGISTER_FOR_CMD" };
static const struct abi_ioctl reg_ch = { 0,	ABI_REGISTER_FOR_CMD_CHANS,
					 12,	0,
					 false, "REGISTER_FOR_CMD_CHANS" };
static const struct abi_ioctl unreg_ch = { 0,	  ABI_UNREGISTER_FOR_CMD_CHANS,
					   12,	  0,
					   false, "UNREGISTER_FOR_CMD_CHANS" };

static int plain(struct client *c, const struct abi_ioctl *e, uint8_t netfn,
		 uint8_t cmd)
{
	uint8_t b[2] = { netfn, cmd };

	return cmdreg_ioctl(c, e, b, sizeof(b));
}

static int chans(struct client *c, const struct abi_ioctl *e, uint32_t netfn,
		 uint32_t cmd, uint32_t mask)
{
	uint8_t b[12];

	for (int i = 0; i < 4; i++) {
		b[i] = (uint8_t)(netfn >> (8 * i));
		b[4 + i] = (uint8_t)(cmd >> (8 * i));
		b[8 + i] = (uint8_t)(mask >> (8 * i));
	}
	return cmdreg_ioctl(c, e, b, sizeof(b));
}

static void setup(void)
{
	ck_assert_int_eq(cmdreg_init(&d), 0);
}

static void teardown(void)
{
	cmdreg_client_gone(&ca);
	cmdreg_client_gone(&cb);
	ck_assert(!cmdreg_any(&d));
	cmdreg_fini(&d);
}

START_TEST(plain_exclusive)
{
	ck_assert_int_eq(plain(&ca, &reg, 0x32, 0x42), 0);
	ck_assert_int_eq(plain(&ca, &reg, 0x32, 0x42), -EBUSY);
	ck_assert_int_eq(plain(&cb, &reg, 0x32, 0x42), -EBUSY);
	ck_assert_ptr_eq(cmdreg_lookup(&d, 0x32, 0x42, 0), &ca);
	ck_assert_ptr_eq(cmdreg_lookup(&d, 0x32, 0x42, 15), &ca);
	ck_assert_int_eq(plain(&cb, &unreg, 0x32, 0x42), -ENOENT);
	ck_assert_int_eq(plain(&ca, &unreg, 0x32, 0x42), 0);
	ck_assert_int_eq(plain(&ca, &unreg, 0x32, 0x42), -ENOENT);
	ck_assert_ptr_null(cmdreg_lookup(&d, 0x32, 0x42, 0));
}
END_TEST

START_TEST(same_file_other_channels)
{
	ck_assert_int_eq(chans(&ca, &reg_ch, 0x32, 0x43, 0x1), 0);
	ck_assert_int_eq(chans(&ca, &reg_ch, 0x32, 0x43, 0x2), 0);
	ck_assert_int_eq(chans(&ca, &reg_ch, 0x32, 0x43, 0x4), 0);
	ck_assert_int_eq(chans(&ca, &reg_ch, 0x32, 0x43, 0x6), -EBUSY);
	ck_assert_int_eq(chans(&cb, &reg_ch, 0x32, 0x43, 0x8), 0);
	ck_assert_int_eq(plain(&ca, &reg, 0x32, 0x43), -EBUSY);
	ck_assert_ptr_eq(cmdreg_lookup(&d, 0x32, 0x43, 1), &ca);
	ck_assert_ptr_eq(cmdreg_lookup(&d, 0x32, 0x43, 3), &cb);
	/* one mask removes the three registrations of ca, not cb's */
	ck_assert_int_eq(chans(&ca, &unreg_ch, 0x32, 0x43, 0xf), 0);
	ck_assert_ptr_null(cmdreg_lookup(&d, 0x32, 0x43, 0));
	ck_assert_ptr_null(cmdreg_lookup(&d, 0x32, 0x43, 2));
	ck_assert_ptr_eq(cmdreg_lookup(&d, 0x32, 0x43, 3), &cb);
	ck_assert_int_eq(chans(&ca, &unreg_ch, 0x32, 0x43, 0xf), -ENOENT);
}
END_TEST

START_TEST(partial_unregister)
{
	ck_assert_int_eq(chans(&ca, &reg_ch, 0x32, 0x44, 0x3), 0);
	/* a mask wider than the registration: still 0, bits cleared */
	ck_assert_int_eq(chans(&ca, &unreg_ch, 0x32, 0x44, 0x5), 0);
	ck_assert_ptr_null(cmdreg_lookup(&d, 0x32, 0x44, 0));
	ck_assert_ptr_eq(cmdreg_lookup(&d, 0x32, 0x44, 1), &ca);
	ck_assert_int_eq(chans(&ca, &unreg_ch, 0x32, 0x44, 0x1), -ENOENT);
	ck_assert_int_eq(chans(&ca, &unreg_ch, 0x32, 0x44, 0x0), -ENOENT);
	/* the plain form covers channels 0-15 */
	ck_assert_int_eq(plain(&ca, &unreg, 0x32, 0x44), 0);
	ck_assert_ptr_null(cmdreg_lookup(&d, 0x32, 0x44, 1));
}
END_TEST

START_TEST(high_bits)
{
	/* channels 16-31 exist in the mask only: never found by unregister */
	ck_assert_int_eq(chans(&ca, &reg_ch, 0x32, 0x45, 0x10000), 0);
	ck_assert_int_eq(chans(&cb, &reg_ch, 0x32, 0x45, 0x10000), -EBUSY);
	ck_assert_int_eq(chans(&ca, &unreg_ch, 0x32, 0x45, 0x10000), -ENOENT);
	ck_assert_int_eq(plain(&ca, &unreg, 0x32, 0x45), -ENOENT);
	/* all channels, then remove channel 0: the rest stays */
	ck_assert_int_eq(plain(&cb, &reg, 0x32, 0x46), 0);
	ck_assert_int_eq(chans(&cb, &unreg_ch, 0x32, 0x46, 0x1), 0);
	ck_assert_ptr_null(cmdreg_lookup(&d, 0x32, 0x46, 0));
	ck_assert_ptr_eq(cmdreg_lookup(&d, 0x32, 0x46, 7), &cb);
	ck_assert_int_eq(chans(&ca, &reg_ch, 0x32, 0x46, 0x1), 0);
	/* netfn and cmd of the CHANS form: the low byte */
	ck_assert_int_eq(chans(&ca, &reg_ch, 0x132, 0x147, 0x1), 0);
	ck_assert_ptr_eq(cmdreg_lookup(&d, 0x32, 0x47, 0), &ca);
}
END_TEST

START_TEST(client_gone)
{
	ck_assert_int_eq(chans(&ca, &reg_ch, 0x32, 0x48, 0x1), 0);
	ck_assert_int_eq(chans(&ca, &reg_ch, 0x32, 0x48, 0x2), 0);
	cmdreg_client_gone(&ca);
	ck_assert_int_eq(chans(&cb, &reg_ch, 0x32, 0x48, 0x3), 0);
}
END_TEST

/*
 * netfn is six bits on the wire: a registration for 0x46 is one for 06
 * (before: it went in as 0x46, past the table's 64 netfns, and never
 * matched). An empty channel mask answers 0 as stock and registers
 * nothing (before: EINVAL).
 */
START_TEST(netfn_six_bits_empty_mask)
{
	ck_assert_int_eq(plain(&ca, &reg, 0x46, 0x10), 0);
	ck_assert_ptr_eq(cmdreg_lookup(&d, 0x06, 0x10, 0), &ca);
	ck_assert_int_eq(plain(&cb, &reg, 0x06, 0x10), -EBUSY);
	ck_assert_int_eq(chans(&cb, &reg_ch, 0x4a, 0x11, 0x1), 0);
	ck_assert_ptr_eq(cmdreg_lookup(&d, 0x0a, 0x11, 0), &cb);
	ck_assert_int_eq(plain(&ca, &unreg, 0x06, 0x10), 0);

	ck_assert_int_eq(chans(&ca, &reg_ch, 0x32, 0x48, 0), 0);
	ck_assert_uint_eq(ca.nregs, 0);
	ck_assert_ptr_null(cmdreg_lookup(&d, 0x32, 0x48, 0));
	ck_assert_int_eq(chans(&cb, &reg_ch, 0x32, 0x48, 0xffff), 0);
	ck_assert_int_eq(chans(&ca, &unreg_ch, 0x32, 0x48, 0), -ENOENT);
}
END_TEST

/* The kernel's side in SMI mode (backend ops->cmd_register): each call. */
static struct {
	uint8_t netfn, cmd;
	uint32_t chans;
	bool on;
} fw[8];
static unsigned int nfw;
static int fw_rv;

static int stub_cmd_register(struct backend *be, uint8_t netfn, uint8_t cmd,
			     uint32_t mask, bool on)
{
	(void)be;
	if (fw_rv)
		return fw_rv;
	ck_assert_uint_lt(nfw, 8);
	fw[nfw].netfn = netfn;
	fw[nfw].cmd = cmd;
	fw[nfw].chans = mask;
	fw[nfw].on = on;
	nfw++;
	return 0;
}

static const struct backend_ops stub_ops = {
	.name = "stub",
	.cmd_register = stub_cmd_register,
};

static void expect_fw(unsigned int i, uint32_t mask, bool on)
{
	ck_assert_uint_gt(nfw, i);
	ck_assert_uint_eq(fw[i].netfn, 0x32);
	ck_assert_uint_eq(fw[i].cmd, 0x05);
	ck_assert_uint_eq(fw[i].chans, mask);
	ck_assert_int_eq(fw[i].on, on);
}

/*
 * SMI mode: the kernel receives the commands, so each registration is
 * forwarded to it, and an end forwards only the channels this file's
 * entries lost (the daemon holds every node's on one kernel file): a
 * mask over another file's channel must not take it away there. The
 * kernel refusing (another kernel user holds it) fails the registration.
 */
START_TEST(forwarded_to_backend)
{
	struct backend be = { .ops = &stub_ops };

	d.be = &be;
	nfw = 0;
	fw_rv = 0;
	ck_assert_int_eq(chans(&ca, &reg_ch, 0x32, 0x05, 0x1), 0);
	ck_assert_int_eq(chans(&cb, &reg_ch, 0x32, 0x05, 0x2), 0);
	ck_assert_uint_eq(nfw, 2);
	expect_fw(0, 0x1, true);
	expect_fw(1, 0x2, true);
	ck_assert_int_eq(chans(&ca, &unreg_ch, 0x32, 0x05, 0x3), 0);
	ck_assert_uint_eq(nfw, 3);
	expect_fw(2, 0x1, false);
	ck_assert_ptr_eq(cmdreg_lookup(&d, 0x32, 0x05, 1), &cb);
	fw_rv = -EBUSY;
	ck_assert_int_eq(chans(&ca, &reg_ch, 0x32, 0x05, 0x4), -EBUSY);
	ck_assert_ptr_null(cmdreg_lookup(&d, 0x32, 0x05, 2));
	fw_rv = 0;
	cmdreg_client_gone(&cb);
	ck_assert_uint_eq(nfw, 4);
	expect_fw(3, 0x2, false);
	d.be = NULL;
}
END_TEST

static Suite *cmdreg_suite(void)
{
	Suite *s = suite_create("cmdreg");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, plain_exclusive);
	tcase_add_test(tc, same_file_other_channels);
	tcase_add_test(tc, partial_unregister);
	tcase_add_test(tc, high_bits);
	tcase_add_test(tc, netfn_six_bits_empty_mask);
	tcase_add_test(tc, client_gone);
	tcase_add_test(tc, forwarded_to_backend);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(cmdreg_suite());
	int failed;

	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
