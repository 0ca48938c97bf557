// SPDX-License-Identifier: GPL-2.0
/*
 * kcsmuxctl_lease.c - kcsmuxctl lease: list, take and release leases on
 * classes of commands (the control protocol's LEASE, docs/leases.md).
 */
#include <stdio.h>
#include <string.h>

#include "kcsmuxctl/kcsmuxctl.h"

static void print_leases(const struct reply *r)
{
	unsigned int n = 0;

	for (size_t i = 0; i < r->kv.n; i++) {
		if (strcmp(r->kv.kv[i].key, "lease") != 0)
			continue;
		if (n++ == 0)
			printf("NODE CLASS LEFT_S FROM\n");
		printf("%s\n", r->kv.kv[i].value);
	}
	if (n == 0)
		printf("no leases held\n");
}

static int usage_lease(void)
{
	errx_msg("lease: usage: lease [list] | take NODE CLASS[,CLASS...] "
		 "SECONDS | release NODE [CLASS...]");
	return EXIT_USAGE;
}

int cmd_lease(struct ctx *x, int argc, char **argv)
{
	const char *op = argc > 0 ? argv[0] : "list";
	char classes[128] = "";
	struct ctl_buf b;
	struct reply r;
	int rv = EXIT_FAIL, i, last;

	if (strcmp(op, "list") == 0    ? argc > 1 :
	    strcmp(op, "take") == 0    ? argc != 4 :
	    strcmp(op, "release") == 0 ? argc < 2 :
					 true)
		return usage_lease();
	if (argc > 1 && !ctl_node_name_valid(argv[1])) {
		errx_msg("lease: \"%s\" is not a node name", argv[1]);
		return EXIT_USAGE;
	}
	last = strcmp(op, "take") == 0 ? 3 : argc;
	for (i = 2; i < last; i++)
		snprintf(classes + strlen(classes),
			 sizeof(classes) - strlen(classes), "%s%s",
			 i > 2 ? "," : "", argv[i]);
	ctl_buf_init(&b);
	ctl_kv_add(&b, "op", op);
	if (argc > 1)
		ctl_kv_add(&b, "node", argv[1]);
	if (classes[0])
		ctl_kv_add(&b, "classes", classes);
	if (strcmp(op, "take") == 0)
		ctl_kv_add(&b, "seconds", argv[3]);
	if (b.oom) {
		errx_msg("out of memory");
		goto out;
	}
	if (request(x, CTL_LEASE, &b, true, &r) < 0)
		goto out;
	for (size_t k = 0; k < r.kv.n; k++)
		if (strcmp(r.kv.kv[k].key, "released") == 0)
			printf("%s: %s released\n", argv[1], r.kv.kv[k].value);
	print_leases(&r);
	reply_free(&r);
	rv = EXIT_OK;
out:
	ctl_buf_free(&b);
	return rv;
}
