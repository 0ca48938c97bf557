// SPDX-License-Identifier: GPL-2.0
/*
 * kcsmuxctl_doctor.c - kcsmuxctl doctor: the BMC self-check through a
 * /dev/ipmiN (no daemon needed), and the baseline a cutover records
 * (--baseline) and replays (--compare). The requests, verdicts and
 * comparison are the doctor library's (doctor/doctor.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "doctor/doctor.h"
#include "kcsmuxctl/kcsmuxctl.h"

const struct option doctor_longopts[] = {
	{ "device", required_argument, NULL, 'd' },
	{ "json", no_argument, NULL, 'j' },
	{ "baseline", required_argument, NULL, 'b' },
	{ "compare", required_argument, NULL, 'c' },
	{ "pet", no_argument, NULL, 'p' },
	{ NULL, 0, NULL, 0 }
};

static int load(const char *path, struct doc_run *b)
{
	char err[128];
	FILE *f = fopen(path, "r");
	int rv;

	if (f == NULL) {
		errx_msg("doctor: %s: %s", path, strerror(errno));
		return -1;
	}
	rv = doc_baseline_read(f, b, err, sizeof(err));
	fclose(f);
	if (rv < 0)
		errx_msg("doctor: %s: %s", path, err);
	return rv;
}

static int save(const char *path, const struct doc_run *r)
{
	FILE *f = fopen(path, "w");

	if (f == NULL || doc_baseline_write(f, r) < 0) {
		errx_msg("doctor: %s: %s", path, strerror(errno));
		if (f != NULL)
			fclose(f);
		return -1;
	}
	return fclose(f) == 0 ? 0 : -1;
}

/* -d N, as ipmitool's: /dev/ipmiN; a path otherwise. */
static const char *device_arg(const char *arg, char *buf, size_t len)
{
	if (*arg == '\0' || strspn(arg, "0123456789") != strlen(arg) ||
	    strlen(arg) > 6)
		return arg;
	snprintf(buf, len, "/dev/ipmi%s", arg);
	return buf;
}

/* The doctor could not run (exit status 3): the reason on stderr (said
 * already), and with -j the JSON object too, its verdict "error". */
static int could_not_run(bool json, const char *host, const char *dev,
			 const char *why)
{
	if (json) {
		doc_print_json_error(stdout, host, dev, why);
		printf("}\n");
	}
	return EXIT_CANNOT_RUN;
}

int cmd_doctor(struct ctx *x, int argc, char **argv)
{
	const char *dev = "/dev/ipmi0", *base = NULL, *cmp = NULL;
	struct doc_run r, b = { 0 };
	struct doc_assessment a;
	struct doc_dev d;
	bool json = false, pet = false;
	unsigned ndiff = 0;
	char host[256] = "", devbuf[32];
	int opt, rv = EXIT_OK;

	(void)x;
	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+d:jb:c:p", doctor_longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'd':
			dev = device_arg(optarg, devbuf, sizeof(devbuf));
			break;
		case 'j':
			json = true;
			break;
		case 'b':
			base = optarg;
			break;
		case 'c':
			cmp = optarg;
			break;
		case 'p':
			pet = true;
			break;
		default:
			return EXIT_USAGE;
		}
	}
	if (base != NULL && cmp != NULL) {
		errx_msg("doctor: --baseline and --compare exclude each other");
		return EXIT_USAGE;
	}
	if (pet) {
		if (doc_dev_open(&d, dev, 2) < 0)
			return EXIT_FAIL;
		rv = doc_pet(&d);
		doc_dev_close(&d);
		if (rv < 0) {
			errx_msg("doctor: --pet on %s: %s", dev, strerror(-rv));
			return EXIT_FAIL;
		}
		printf("watchdog %s\n",
		       rv ? "running: petted" : "not running: left alone");
		return EXIT_OK;
	}
	gethostname(host, sizeof(host) - 1);
	if (cmp != NULL && load(cmp, &b) < 0)
		return could_not_run(json, host, dev,
				     "cannot read the baseline");
	rv = doc_dev_open(&d, dev,
			  base || cmp ? DOC_BOUND_BASELINE : DOC_BOUND_CHECK);
	if (rv < 0) {
		doc_run_free(&b);
		return could_not_run(json, host, dev, strerror(-rv));
	}
	rv = EXIT_OK;
	doc_probe(&d, &r, base != NULL || cmp != NULL);
	doc_dev_close(&d);
	doc_assess(&r, &a);
	if (json) {
		doc_print_json(stdout, host, &r, &a);
		if (cmp != NULL) {
			printf(",\n \"compared_with\": ");
			doc_json_str(stdout, cmp);
			printf(", \"differences\": [");
			ndiff = doc_compare(stdout, true, &b, &r);
			printf("]");
		}
		printf("}\n");
	} else {
		doc_print_text(stdout, &r, &a);
		if (cmp != NULL) {
			printf("comparison with %s (%zu answers):\n", cmp,
			       b.nitems);
			ndiff = doc_compare(stdout, false, &b, &r);
			printf("%u difference%s\n", ndiff,
			       ndiff == 1 ? "" : "s");
		}
	}
	if (a.overall == DOC_FAIL || ndiff > 0)
		rv = EXIT_FAIL;
	else if (a.overall == DOC_WARN && base == NULL && cmp == NULL)
		rv = EXIT_WARN;
	if (base != NULL) {
		if (r.gone || r.over_bound || doc_ok(&r, "devid", 2) == NULL) {
			errx_msg("doctor: the baseline is incomplete (%s): not "
				 "written",
				 r.gone ? "the BMC went silent" :
				 r.over_bound ?
					  "the request bound was reached" :
					  "no Get Device ID answer");
			rv = EXIT_FAIL;
		} else if (save(base, &r) < 0) {
			rv = EXIT_FAIL;
		}
	}
	doc_run_free(&r);
	doc_run_free(&b);
	return rv;
}
