// SPDX-License-Identifier: GPL-2.0
/*
 * kcsmuxd - virtual /dev/ipmiN nodes over CUSE, multiplexed onto one KCS
 * interface. This is the skeleton the daemon grows in: option parsing only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(f, "usage: kcsmuxd [-fnhV] [-c FILE]\n"
		"  -c FILE  configuration (default /etc/kcsmux/kcsmux.conf)\n"
		"  -f       stay in the foreground, log to stderr\n"
		"  -n       check the configuration and exit\n"
		"  -V       print the version\n");
}

int main(int argc, char **argv)
{
	int c;

	while ((c = getopt(argc, argv, "c:fnhV")) != -1) {
		switch (c) {
		case 'c':
		case 'f':
		case 'n':
			break;
		case 'V':
			printf("kcsmuxd %s\n", KCSMUX_VERSION);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	fprintf(stderr, "kcsmuxd: the daemon is not implemented yet\n");
	return 1;
}
