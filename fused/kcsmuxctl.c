// SPDX-License-Identifier: GPL-2.0
/*
 * kcsmuxctl - admin CLI for kcsmuxd. Skeleton: option parsing only.
 */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "-V") == 0) {
		printf("kcsmuxctl %s\n", KCSMUX_VERSION);
		return 0;
	}
	fprintf(stderr, "kcsmuxctl: not implemented yet\n");
	return 1;
}
