// SPDX-License-Identifier: GPL-2.0
/*
 * kcsmuxctl - admin CLI for kcsmuxd, in the manner of smtpctl(8): a table
 * of commands (their words, arguments, options and help) drives parsing,
 * usage and help; each command is one request on the control socket
 * (include/kcsmux/control.h) and a printer for its reply. This file: the
 * table, the command line and main; the commands are kcsmuxctl_cmds.c's,
 * kcsmuxctl_watch.c's and kcsmuxctl_doctor.c's, the request
 * kcsmuxctl_socket.c's, the messages and node tables kcsmuxctl_print.c's.
 *
 * Exit status: 0 done; 1 the daemon refused or failed the request; 2 a
 * usage error (nothing was sent); 3 the daemon could not be reached (not
 * running; doctor: it could not run); 4 check: the request would be
 * refused; 5 status: the BMC is silent; 6 status: the last reload failed;
 * 7 doctor: a warning. docs/man/kcsmuxctl.8.
 */
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kcsmux/control.h>
#include <kcsmux/version.h>

#include "kcsmuxctl/kcsmuxctl.h"

/* ---- the command table ---- */

/* ---- the command table ---- */

enum argkind {
	A_END,
	A_NODE,	     /* a node name */
	A_KV,	     /* KEY=VALUE */
	A_KV_MORE,   /* KEY=VALUE, then any number more */
	A_CMD_OPT,   /* an optional command word (help) */
	A_BYTE,	     /* a byte: 0-255, decimal or 0x hex */
	A_BYTE_MORE, /* optional bytes, any number */
	A_WORD_MORE, /* optional words, any number (the command checks) */
};

struct cmd {
	const char *name;
	const char *optstring; /* the command's own options */
	enum argkind args[5];
	const char *synopsis; /* after the command word */
	const char *help;
	int (*run)(struct ctx *, int argc, char **argv);
	const struct option *longopts; /* the command's long options */
};

static int cmd_help(struct ctx *, int, char **);

static const struct cmd cmds[] = {
	{ "status",
	  "j",
	  { A_END },
	  "[-j]",
	  "the daemon at a glance: uptime, configuration and last reload,\n"
	  "backend and device, whether the BMC answers, the interface's\n"
	  "error counts; -j: JSON; exit status 5 when the BMC is silent,\n"
	  "6 when the last reload failed (the daemon runs the previous\n"
	  "configuration), 3 when the daemon is not running",
	  cmd_status,
	  NULL },
	{ "list",
	  "j",
	  { A_END },
	  "[-j]",
	  "the nodes: policy, clients, queue, requests, latency (since\n"
	  "start), CPU; -j: JSON (as stats -j)",
	  cmd_list,
	  NULL },
	{ "show",
	  "j",
	  { A_NODE, A_END },
	  "[-j] NODE",
	  "one node's policy, open files and counters as key=value lines;\n"
	  "-j: the node as JSON (its object in stats -j)",
	  cmd_show,
	  NULL },
	{ "set",
	  "",
	  { A_NODE, A_KV_MORE, A_END },
	  "NODE KEY=VALUE...",
	  "change a node's policy live, all keys or none (kcsmux.conf(5)\n"
	  "policy keys; policy=PRESET starts from a preset); needs root or\n"
	  "the admin group",
	  cmd_set,
	  NULL },
	{ "stats",
	  "j",
	  { A_END },
	  "[-j]",
	  "every node's counters and latency; -j: JSON with clients",
	  cmd_stats,
	  NULL },
	{ "watch",
	  "n:c:",
	  { A_END },
	  "[-n SEC] [-c COUNT]",
	  "redraw the list every SEC seconds (default 2) until interrupted,\n"
	  "or COUNT times, and under it each node's requests, rate, mean\n"
	  "and p99 latency over the last SEC seconds",
	  cmd_watch,
	  NULL },
	{ "reload",
	  "n",
	  { A_END },
	  "[-n|--dry-run]",
	  "read kcsmux.conf again (as SIGHUP); needs root or the admin group;\n"
	  "-n, --dry-run: say what would change (nodes added or removed\n"
	  "with their clients, keys changed), apply nothing",
	  cmd_reload,
	  reload_longopts },
	{ "check",
	  "c:u:g:",
	  { A_NODE, A_BYTE, A_BYTE, A_BYTE_MORE, A_END },
	  "[-c FILE [-u USER] [-g GROUP,...]] NODE NETFN CMD [DATA...]",
	  "would NODE's access rules let this request to the BMC through,\n"
	  "and by which rule (bytes in decimal or 0x hex; DATA for Send\n"
	  "Message and group extensions); nothing is sent; exit status 4\n"
	  "when it would be refused; -c FILE: the rules of FILE, a\n"
	  "kcsmux.conf, without a daemon (users and groups this host does\n"
	  "not have are warnings, as with kcsmuxd -n); -u USER (name or\n"
	  "uid), -g GROUPS: the rules of that opener (a node's\n"
	  "admin_users/admin_groups get its admin_access)",
	  cmd_check,
	  check_longopts },
	{ "lease",
	  "",
	  { A_WORD_MORE, A_END },
	  "[list] | take NODE CLASS[,CLASS...] SECONDS | release NODE "
	  "[CLASS...]",
	  "the leases held (list, the default), or NODE takes a lease on\n"
	  "classes of commands (chassis, fan-oem, users, lan; firmware: the\n"
	  "whole interface) for SECONDS (at most 3600), or gives them up\n"
	  "(all its leases without CLASS); other nodes' commands of a held\n"
	  "class are refused cc 0xd5, 0xc0 under a firmware lease; take\n"
	  "and release need root or the admin group (docs/leases.md)",
	  cmd_lease,
	  NULL },
	{ "doctor",
	  "d:jb:c:p",
	  { A_END },
	  "[-j] [-d N|DEV] [--baseline FILE | --compare FILE | --pet]",
	  "check the BMC through DEV (N: /dev/ipmiN, as ipmitool's -d;\n"
	  "default /dev/ipmi0: the stock driver's\n"
	  "device or a kcsmuxd node), read-only, no daemon needed: identity,\n"
	  "response times, errors, SDR repository, events, channels,\n"
	  "watchdog, interrupts, with a verdict each and recommended\n"
	  "settings; -j: one JSON object; --baseline FILE: also read the\n"
	  "whole SDR, FRU 0 and every sensor and save the answers;\n"
	  "--compare FILE: the same, compared with FILE; exit status 1 on a\n"
	  "failed check or a difference, 7 on a warning (without\n"
	  "--baseline or --compare), 3 when it could not run (DEV or FILE\n"
	  "not opened; -j: still the object, verdict \"error\"); --pet:\n"
	  "only reset the watchdog's\n"
	  "countdown if it runs (the one write; kcsmux-cutover's)",
	  cmd_doctor,
	  doctor_longopts },
	{ "help",
	  "",
	  { A_CMD_OPT, A_END },
	  "[COMMAND]",
	  "this text, or one command's",
	  cmd_help,
	  NULL },
};
#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

static void print_cmd(FILE *f, const struct cmd *c, bool long_help)
{
	const char *p, *nl;

	fprintf(f, "  %s %s%s%s\n", prog, c->name, *c->synopsis ? " " : "",
		c->synopsis);
	if (!long_help)
		return;
	for (p = c->help; *p != '\0'; p = nl + (*nl != '\0')) {
		nl = strchr(p, '\n');
		if (nl == NULL)
			nl = p + strlen(p);
		fprintf(f, "      %.*s\n", (int)(nl - p), p);
	}
}

static void usage(FILE *f, bool long_help)
{
	size_t i;

	fprintf(f,
		"usage: %s [-s SOCKET] [-j] COMMAND [ARGS...]\n"
		"  -s SOCKET  the daemon's control socket (default $KCSMUX_SOCKET "
		"or %s)\n  -j, --json JSON output (status, list, show, stats, "
		"doctor)\n  -V         print the version\n"
		"(-s and -j may follow the command word too)\ncommands:\n",
		prog, CTL_SOCKET_DEFAULT);
	for (i = 0; i < NCMDS; i++)
		print_cmd(f, &cmds[i], long_help);
	if (long_help)
		fprintf(f, "exit status: 0 done, 1 refused or failed, "
			   "2 usage error, 3 daemon not running (cannot "
			   "connect; doctor: could not run), 4 check: would be "
			   "refused, 5 status: BMC silent, 6 status: last "
			   "reload failed, 7 doctor: a warning\n");
}

/* An exact name, else a unique prefix. NULL with a message otherwise. */
static const struct cmd *cmd_lookup(const char *word)
{
	const struct cmd *found = NULL;
	size_t i, len = strlen(word), n = 0;
	char names[128] = "";

	for (i = 0; i < NCMDS; i++)
		if (strcmp(cmds[i].name, word) == 0)
			return &cmds[i];
	for (i = 0; len > 0 && i < NCMDS; i++) {
		if (strncmp(cmds[i].name, word, len) != 0)
			continue;
		found = &cmds[i];
		n++;
		snprintf(names + strlen(names), sizeof(names) - strlen(names),
			 "%s%s", n > 1 ? " " : "", cmds[i].name);
	}
	if (n == 1)
		return found;
	if (n > 1)
		errx_msg("ambiguous command \"%s\" (%s)", word, names);
	else
		errx_msg("unknown command \"%s\" (try '%s help')", word, prog);
	return NULL;
}

/* Check ARGV (the command's operands) against its argument kinds. */
static int check_args(const struct cmd *c, int argc, char **argv)
{
	const enum argkind *k = c->args;
	bool more = false;
	const char *eq;
	int i;

	for (i = 0; i < argc; i++) {
		switch (*k) {
		case A_END:
			errx_msg("%s: unexpected argument \"%s\"", c->name,
				 argv[i]);
			return -1;
		case A_NODE:
			if (!ctl_node_name_valid(argv[i])) {
				errx_msg("%s: \"%s\" is not a node name",
					 c->name, argv[i]);
				return -1;
			}
			k++;
			break;
		case A_KV:
		case A_KV_MORE:
			eq = strchr(argv[i], '=');
			if (eq == NULL ||
			    !ctl_key_valid(argv[i], (size_t)(eq - argv[i]))) {
				errx_msg("%s: \"%s\" is not KEY=VALUE", c->name,
					 argv[i]);
				return -1;
			}
			if (*k == A_KV)
				k++;
			else
				more = true; /* takes the rest */
			break;
		case A_CMD_OPT:
			k++;
			break;
		case A_WORD_MORE:
			break;
		case A_BYTE:
		case A_BYTE_MORE:
			if (byte_arg(argv[i]) < 0) {
				errx_msg("%s: \"%s\" is not a byte (0-255, "
					 "0x hex)",
					 c->name, argv[i]);
				return -1;
			}
			if (*k == A_BYTE)
				k++;
			break;
		}
	}
	/* What is left must be optional, or a KEY=VALUE... already seen. */
	for (; *k != A_END; k++) {
		if (*k == A_CMD_OPT || *k == A_BYTE_MORE || *k == A_WORD_MORE ||
		    (*k == A_KV_MORE && more))
			continue;
		errx_msg("%s: missing %s", c->name,
			 *k == A_NODE ? "NODE" :
			 *k == A_BYTE ? "NETFN or CMD" :
					"KEY=VALUE");
		fprintf(stderr, "usage:\n");
		print_cmd(stderr, c, false);
		return -1;
	}
	return 0;
}

/* A command option's error: the message and the command's usage. */
static int opt_error(const struct cmd *c, const char *fmt, const char *what)
{
	fprintf(stderr, "%s: %s: ", prog, c->name);
	fprintf(stderr, fmt, what);
	fprintf(stderr, "\nusage:\n");
	print_cmd(stderr, c, false);
	return -1;
}

/*
 * Parse command C's options in *ARGV (from its name on): -s SOCKET and
 * -j/--json are the global ones, taken wherever they are; the command's
 * own are copied into a new argv, *ARGC and *ARGV replaced by it, with
 * -j first if it was given before the command word and C takes it.
 * optind: the first operand in the new argv. -1 on a usage error.
 */
static int cmd_options(struct ctx *x, const struct cmd *c, int *argc,
		       char ***argv)
{
	static struct option lo[16];
	static char *nargv[64];
	static char shorts[64][3];
	char os[32], flag[3];
	const struct option *co;
	bool takes_j = strchr(c->optstring, 'j') != NULL;
	int n = 0, nlo = 0, opt, i;

	snprintf(os, sizeof(os), "+:%ss:", c->optstring);
	for (co = c->longopts; co != NULL && co->name != NULL && nlo < 13; co++)
		lo[nlo++] = *co;
	lo[nlo++] = (struct option){ "socket", required_argument, NULL, 's' };
	lo[nlo++] = (struct option){ "json", no_argument, NULL, 'j' };
	lo[nlo] = (struct option){ NULL, 0, NULL, 0 };
	if (*argc > (int)(sizeof(nargv) / sizeof(nargv[0])) - 4)
		return opt_error(c, "%s", "too many arguments");
	nargv[n++] = (*argv)[0];
	opterr = 0;
	optind = 0;
	while ((opt = getopt_long(*argc, *argv, os, lo, NULL)) != -1) {
		if (opt == '?' && optopt == 0)
			return opt_error(c, "unknown option %s",
					 (*argv)[optind - 1]);
		if (opt == '?' || opt == ':') {
			flag[0] = (char)optopt;
			flag[1] = '\0';
			return opt_error(c,
					 opt == '?' ? "unknown option -%s" :
						      "missing value for -%s",
					 flag);
		}
		if (opt == 's') {
			x->sock = optarg;
			continue;
		}
		if (opt == 'j') {
			x->json = true;
			continue;
		}
		/* the command's own: passed on as its short option */
		snprintf(shorts[n], sizeof(shorts[n]), "-%c", opt);
		nargv[n] = shorts[n];
		n++;
		if (optarg != NULL)
			nargv[n++] = optarg;
	}
	if (x->json && !takes_j)
		return opt_error(c, "%s", "no JSON output (-j, --json)");
	if (x->json)
		nargv[n++] = "-j";
	nargv[n++] = "--";
	i = n;
	for (; optind < *argc; optind++)
		nargv[n++] = (*argv)[optind];
	nargv[n] = NULL;
	*argc = n;
	*argv = nargv;
	optind = i;
	return 0;
}

static int cmd_help(struct ctx *x, int argc, char **argv)
{
	const struct cmd *c;

	(void)x;
	if (argc == 0) {
		usage(stdout, true);
		return EXIT_OK;
	}
	if ((c = cmd_lookup(argv[0])) == NULL)
		return EXIT_USAGE;
	print_cmd(stdout, c, true);
	return EXIT_OK;
}

/*
 * kcsmux-cutover's fallback (docs/admin.md): stock ipmi_si serves because
 * kcsraw or kcsmuxd could not; its reason, one line in /run, said when
 * status finds no daemon.
 */
static void say_fallback(void)
{
	const char *dir = getenv("KCSMUX_FALLBACK_DIR");
	char path[512], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/reason",
		 dir ? dir : "/run/kcsmux-fallback");
	f = fopen(path, "r");
	if (f == NULL)
		return;
	if (fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		errx_msg("fallback: the stock ipmi_si serves /dev/ipmi0 until "
			 "the next boot that loads kcsraw: %s (kcsmux-cutover "
			 "status)",
			 line);
	}
	fclose(f);
}

int main(int argc, char **argv)
{
	struct ctx x = { .fd = -1 };
	const struct cmd *c;
	int opt, rv, first;

	x.sock = getenv("KCSMUX_SOCKET");
	if (x.sock == NULL || *x.sock == '\0')
		x.sock = CTL_SOCKET_DEFAULT;
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 }
	};

	while ((opt = getopt_long(argc, argv, "+s:jhV", longopts, NULL)) !=
	       -1) {
		switch (opt) {
		case 's':
			x.sock = optarg;
			break;
		case 'j':
			x.json = true;
			break;
		case 'h':
			usage(stdout, true);
			return EXIT_OK;
		case 'V':
			printf("kcsmuxctl %s (protocol %d)\n", KCSMUX_VERSION,
			       CTL_VERSION);
			return EXIT_OK;
		default:
			usage(stderr, false);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr, false);
		return EXIT_USAGE;
	}
	if ((c = cmd_lookup(argv[optind])) == NULL)
		return EXIT_USAGE;
	argc -= optind;
	argv += optind;
	/*
	 * The command's own options, and the global ones after the command
	 * word too (-s, -j/--json where the command has -j): the global ones
	 * are taken out, the command's passed on in a new argv that the
	 * command parses again (getopt sees argv[0] as the name).
	 */
	if (cmd_options(&x, c, &argc, &argv) < 0)
		return EXIT_USAGE;
	first = optind;
	if (check_args(c, argc - first, argv + first) < 0)
		return EXIT_USAGE;
	signal(SIGPIPE, SIG_IGN);
	/* Commands with options parse them again themselves; the rest get
	 * their operands. */
	if (*c->optstring != '\0')
		rv = c->run(&x, argc, argv);
	else
		rv = c->run(&x, argc - first, argv + first);
	ctl_disconnect(&x);
	if (rv == EXIT_FAIL && x.unreachable) {
		rv = EXIT_NOT_RUNNING;
		if (strcmp(c->name, "status") == 0)
			say_fallback();
	}
	return rv;
}
