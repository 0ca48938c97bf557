// SPDX-License-Identifier: GPL-2.0
/*
 * kcsmuxctl_cmds.c - kcsmuxctl's commands but watch: status, list,
 * show, set, stats, reload and check, each one request and the printing
 * of its reply (JSON as the daemon sent it).
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <kcsmux/control.h>

#include "kcsmuxctl/kcsmuxctl.h"
#include "util/stocknode.h"

const struct option reload_longopts[] = {
	{ "dry-run", no_argument, NULL, 'n' },
	{ NULL, 0, NULL, 0 },
};

const struct option check_longopts[] = {
	{ "config", required_argument, NULL, 'c' },
	{ "user", required_argument, NULL, 'u' },
	{ "groups", required_argument, NULL, 'g' },
	{ NULL, 0, NULL, 0 },
};

/* A command's -j (the only option of status, list and show); the
 * operands start at argv[optind]. */
static bool json_opt(int argc, char **argv)
{
	bool json = false;

	optind = 0;
	while (getopt(argc, argv, "+j") == 'j')
		json = true;
	return json;
}

/* Send TYPE with NODE first (if any) and "json=yes"; print the reply's
 * JSON as it is. */
static int json_request(struct ctx *x, uint16_t type, const char *node)
{
	struct ctl_buf b;
	struct reply r;
	int rv = EXIT_FAIL;

	ctl_buf_init(&b);
	if (node != NULL)
		ctl_kv_add(&b, "node", node);
	ctl_kv_add(&b, "json", "yes");
	if (b.oom) {
		errx_msg("out of memory");
	} else if (request(x, type, &b, false, &r) == 0) {
		fputs(r.payload, stdout);
		reply_free(&r);
		rv = EXIT_OK;
	}
	ctl_buf_free(&b);
	return rv;
}

/*
 * A stock /dev/ipmiM on the interface of the daemon's kcsraw device
 * (ipmi_devintf loaded in SMI mode): a ROW in the text status, and a
 * warning on stderr (with -j too), since whoever opens it reaches the BMC
 * around every node. $KCSMUX_SYSFS_IPMI names another /sys/class/ipmi
 * (the tests').
 */
static void status_stock_node(const struct reply *r, bool row)
{
	const char *cls = getenv("KCSMUX_SYSFS_IPMI");
	const char *dev = get(r, 0, r->kv.n, "device");
	unsigned int index;
	char node[64];

	if (strcmp(get(r, 0, r->kv.n, "backend"), "kcsraw") != 0)
		return;
	if (*dev == '\0')
		dev = "/dev/kcsraw0";
	if (stocknode_kcsraw_index(dev, &index) < 0 ||
	    stocknode_find(cls ? cls : STOCKNODE_CLASS_DIR, index, node,
			   sizeof(node)) < 0)
		return;
	if (row)
		printf("%-16s %s (ipmi_devintf) on kcsraw's interface\n",
		       "stock device", node);
	fflush(stdout);
	fprintf(stderr,
		"kcsmuxctl: warning: %s is a stock device on kcsraw's "
		"interface: whoever opens it (ipmitool without -d, FreeIPMI, "
		"OpenIPMI, ipmiutil) reaches the BMC around " STOCKNODE_BYPASSES
		"; kcsmuxd does not need it: modprobe -r ipmi_devintf, and "
		"keep it from loading (docs/admin.md)\n",
		node);
}

/*
 * status's exit status, for an alert or a systemd ExecCondition: the BMC
 * silent first (nothing reaches it), then the last reload failed (the
 * daemon runs on its previous configuration); 0 when neither.
 */
static int status_health(const struct reply *r)
{
	if (strcmp(get(r, 0, r->kv.n, "bmc"), "silent") == 0)
		return EXIT_BMC_SILENT;
	if (strcmp(get(r, 0, r->kv.n, "last_reload"), "failed") == 0)
		return EXIT_RELOAD_FAILED;
	return EXIT_OK;
}

int cmd_status(struct ctx *x, int argc, char **argv)
{
	static const char *const labels[][2] = {
		{ "version", "kcsmuxd" },
		{ "pid", "pid" },
		{ "uptime_s", "uptime (s)" },
		{ "config", "configuration" },
		{ "last_reload", "last reload" },
		{ "last_reload_error", "  its error" },
		{ "reloads", "reloads" },
		{ "reload_failures", "  failed" },
		{ "user", "running as" },
		{ "sandbox", "seccomp" },
		{ "backend", "backend" },
		{ "device", "device" },
		{ "bmc", "BMC" },
		{ "bmc_silent_s", "  silent for (s)" },
		{ "bmc_silences", "  times silent" },
		{ "kcsraw_bmc", "  kcsraw says" },
		{ "bmc_identity", "  identity" },
		{ "bmc_device_id", "  device id" },
		{ "bmc_device_revision", "  revision" },
		{ "bmc_firmware", "  firmware" },
		{ "bmc_ipmi_version", "  IPMI version" },
		{ "bmc_manufacturer_id", "  manufacturer" },
		{ "bmc_product_id", "  product" },
		{ "kcsraw_version", "kcsraw version" },
		{ "bridging", "IPMB bridging" },
		{ "hosed", "hosed" },
		{ "kcs_errors", "KCS errors" },
		{ "retries", "KCS retries" },
		{ "completions", "completions" },
		{ "inflight", "in flight" },
		{ "nodes", "nodes" },
		{ "clients", "open files" },
	};
	struct reply r;
	const char *v;
	size_t i;
	bool json = json_opt(argc, argv);
	int rv;

	if (request(x, CTL_STATUS, NULL, true, &r) < 0)
		return EXIT_FAIL;
	rv = status_health(&r);
	if (json) {
		status_stock_node(&r, false);
		reply_free(&r);
		return json_request(x, CTL_STATUS, NULL) == EXIT_OK ? rv :
								      EXIT_FAIL;
	}
	for (i = 0; i < sizeof(labels) / sizeof(labels[0]); i++) {
		v = ctl_kv_find(&r.kv, 0, r.kv.n, labels[i][0]);
		if (v == NULL || *v == '\0')
			continue;
		if (strcmp(labels[i][0], "bmc_silent_s") == 0 &&
		    strcmp(get(&r, 0, r.kv.n, "bmc"), "silent") != 0)
			continue;
		printf("%-16s %s\n", labels[i][1], v);
	}
	status_stock_node(&r, true);
	reply_free(&r);
	return rv;
}

int cmd_list(struct ctx *x, int argc, char **argv)
{
	struct reply r;

	if (json_opt(argc, argv)) {
		if (request(x, CTL_STATS, NULL, false, &r) < 0)
			return EXIT_FAIL;
		fputs(r.payload, stdout);
		reply_free(&r);
		return EXIT_OK;
	}
	if (request(x, CTL_LIST, NULL, true, &r) < 0)
		return EXIT_FAIL;
	print_list(stdout, &r);
	/* For people only: scripts (the bash completion's node names)
	 * take every line after the header for a node. */
	if (isatty(STDOUT_FILENO))
		printf("(P50_US, P99_US: since kcsmuxd started; per interval: "
		       "%s watch)\n",
		       prog);
	reply_free(&r);
	return EXIT_OK;
}

int cmd_show(struct ctx *x, int argc, char **argv)
{
	struct ctl_buf b;
	struct reply r;
	size_t i;
	int rv = EXIT_FAIL;
	bool json = json_opt(argc, argv);

	argv += optind;
	if (json)
		return json_request(x, CTL_SHOW, argv[0]);
	ctl_buf_init(&b);
	if (ctl_req_show(&b, argv[0]) < 0 || b.oom) {
		errx_msg("show: cannot encode the request");
		goto out;
	}
	if (request(x, CTL_SHOW, &b, true, &r) < 0)
		goto out;
	for (i = 0; i < r.kv.n; i++)
		printf("%s=%s\n", r.kv.kv[i].key, r.kv.kv[i].value);
	reply_free(&r);
	rv = EXIT_OK;
out:
	ctl_buf_free(&b);
	return rv;
}

int cmd_set(struct ctx *x, int argc, char **argv)
{
	struct ctl_buf b;
	struct reply r;
	char err[128];
	size_t i;
	bool changed = false;
	int rv = EXIT_FAIL;

	ctl_buf_init(&b);
	if (ctl_req_set(&b, argv[0], argv + 1, (size_t)(argc - 1), err,
			sizeof(err)) < 0) {
		errx_msg("set: %s", err);
		ctl_buf_free(&b);
		return EXIT_USAGE;
	}
	if (b.oom) {
		errx_msg("out of memory");
		goto out;
	}
	if (request(x, CTL_SET, &b, true, &r) < 0)
		goto out;
	for (i = 0; i < r.kv.n; i++) {
		if (strcmp(r.kv.kv[i].key, "changed") == 0) {
			printf("%s: %s\n", argv[0], r.kv.kv[i].value);
			changed = true;
		} else if (strcmp(r.kv.kv[i].key, "note") == 0)
			printf("%s: note: %s\n", argv[0], r.kv.kv[i].value);
	}
	if (!changed)
		printf("%s: no change\n", argv[0]);
	reply_free(&r);
	rv = EXIT_OK;
out:
	ctl_buf_free(&b);
	return rv;
}

int cmd_stats(struct ctx *x, int argc, char **argv)
{
	struct reply r;
	bool json = false;
	int c;

	optind = 0;
	while ((c = getopt(argc, argv, "+j")) != -1) {
		if (c != 'j')
			return EXIT_USAGE;
		json = true;
	}
	if (json) {
		if (request(x, CTL_STATS, NULL, false, &r) < 0)
			return EXIT_FAIL;
		fputs(r.payload, stdout);
	} else {
		if (request(x, CTL_LIST, NULL, true, &r) < 0)
			return EXIT_FAIL;
		print_stats(stdout, &r);
	}
	reply_free(&r);
	return EXIT_OK;
}

int cmd_reload(struct ctx *x, int argc, char **argv)
{
	struct ctl_buf b;
	struct reply r;
	bool dry = false, any = false;
	const char *k, *v;
	size_t i;
	int rv;

	optind = 0;
	while (getopt_long(argc, argv, "+n", reload_longopts, NULL) == 'n')
		dry = true;
	ctl_buf_init(&b);
	if (dry)
		ctl_kv_add(&b, "dry_run", "yes");
	if (b.oom) {
		ctl_buf_free(&b);
		errx_msg("out of memory");
		return EXIT_FAIL;
	}
	rv = request(x, CTL_RELOAD, dry ? &b : NULL, true, &r);
	ctl_buf_free(&b);
	if (rv < 0)
		return EXIT_FAIL;
	for (i = 0; i < r.kv.n; i++) {
		k = r.kv.kv[i].key;
		v = r.kv.kv[i].value;
		if (strcmp(k, "note") == 0) {
			printf("%s\n", v);
			continue;
		}
		if (strcmp(k, "add") == 0)
			printf("would add node %s\n", v);
		else if (strcmp(k, "remove") == 0)
			printf("would remove node %s\n", v);
		else if (strcmp(k, "change") == 0)
			printf("would change %s\n", v);
		else
			continue;
		any = true;
	}
	if (dry && !any)
		printf("nothing would change\n");
	reply_free(&r);
	return EXIT_OK;
}

int byte_arg(const char *s)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end != '\0' || v > 255 || s[0] == '-')
		return -1;
	return (int)v;
}

int cmd_check(struct ctx *x, int argc, char **argv)
{
	struct ctl_buf b, data;
	struct reply r;
	const char *verdict, *file = NULL, *user = NULL, *groups = NULL;
	int i, rv, opt;

	optind = 0;
	while ((opt = getopt_long(argc, argv, "+c:u:g:", check_longopts,
				  NULL)) != -1)
		if (opt == 'c')
			file = optarg;
		else if (opt == 'u')
			user = optarg;
		else if (opt == 'g')
			groups = optarg;
	argc -= optind;
	argv += optind;
	if (file == NULL && (user != NULL || groups != NULL)) {
		errx_msg("check: -u and -g need -c FILE (a running daemon "
			 "judges the node's rules without an opener)");
		return EXIT_USAGE;
	}
	if (file != NULL) {
		struct kcsmux_opener who = { .uid = (uid_t)-1 };
		uint8_t bytes[256];
		size_t n = 0;

		if ((user != NULL || groups != NULL) &&
		    check_who(&who, user, groups) < 0)
			return EXIT_USAGE;
		for (i = 3; i < argc && n < sizeof(bytes); i++)
			bytes[n++] = (uint8_t)byte_arg(argv[i]);
		return check_file(file, argv[0], (uint8_t)byte_arg(argv[1]),
				  (uint8_t)byte_arg(argv[2]), bytes, n,
				  user != NULL || groups != NULL ? &who : NULL);
	}
	ctl_buf_init(&b);
	ctl_buf_init(&data);
	ctl_kv_add(&b, "node", argv[0]);
	ctl_kv_addf(&b, "netfn", "%d", byte_arg(argv[1]));
	ctl_kv_addf(&b, "cmd", "%d", byte_arg(argv[2]));
	for (i = 3; i < argc; i++)
		ctl_buf_printf(&data, "%s%d", i > 3 ? " " : "",
			       byte_arg(argv[i]));
	if (data.data != NULL)
		ctl_kv_add(&b, "data", data.data);
	ctl_buf_free(&data);
	if (b.oom) {
		ctl_buf_free(&b);
		errx_msg("out of memory");
		return EXIT_FAIL;
	}
	rv = request(x, CTL_CHECK, &b, true, &r);
	ctl_buf_free(&b);
	if (rv < 0)
		return EXIT_FAIL;
	verdict = get(&r, 0, r.kv.n, "verdict");
	printf("%s: %s %s by %s\n", argv[0], get(&r, 0, r.kv.n, "command"),
	       verdict, get(&r, 0, r.kv.n, "rule"));
	rv = strcmp(verdict, "allowed") == 0 ? EXIT_OK : EXIT_DENIED;
	reply_free(&r);
	return rv;
}
