// SPDX-License-Identifier: GPL-2.0
/*
 * fdstore.c - kcsmux-fdstore: systemd's part in a restart, for the busybox
 * guests (no systemd there). It runs a daemon with NOTIFY_SOCKET set, keeps
 * the descriptors the daemon sends with FDSTORE=1/FDNAME= (SCM_RIGHTS)
 * until FDSTOREREMOVE=1 or until one reports POLLHUP/POLLERR, as systemd
 * does, and whenever the daemon exits, starts it again 100 ms later
 * (systemd's default RestartSec) with them as LISTEN_FDS, LISTEN_FDNAMES
 * and LISTEN_PID. SIGTERM to the tool stops the daemon and drops the store
 * (`systemctl stop`).
 *
 *   kcsmux-fdstore -s SOCKET -l LOG [-p PIDFILE] -- COMMAND [ARG...]
 *
 * LOG gets one line per event: "start N pid P fds K", "ready N pid P",
 * "exit N pid P status S" (S: the exit code, or "signal N"), "store NAME",
 * "remove NAME", "hup NAME". PIDFILE holds the running daemon's pid.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_FDS 64

struct stored {
	char name[256];
	int fd;
};

static struct stored store[MAX_FDS];
static int nstore;
static FILE *logfp;
static volatile sig_atomic_t got_term, got_chld;

static void say(const char *fmt, ...)
{
	struct timespec ts;
	va_list ap;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	fprintf(logfp, "%ld.%06ld ", (long)ts.tv_sec, ts.tv_nsec / 1000);
	va_start(ap, fmt);
	vfprintf(logfp, fmt, ap);
	va_end(ap);
	fputc('\n', logfp);
	fflush(logfp);
}

static void on_sig(int sig)
{
	if (sig == SIGCHLD)
		got_chld = 1;
	else
		got_term = 1;
}

static void drop(int i, const char *why)
{
	say("%s %s", why, store[i].name);
	close(store[i].fd);
	store[i] = store[--nstore];
}

/* One datagram of the daemon's: its lines, and the descriptors it held. */
static void take(int sock, pid_t child, unsigned int gen)
{
	char buf[4096], name[256] = "stored";
	union {
		char b[CMSG_SPACE(sizeof(int) * MAX_FDS)];
		struct cmsghdr align;
	} u;
	struct iovec iov = { buf, sizeof(buf) - 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;
	int fds[MAX_FDS], nfds = 0, fdstore = 0, remove = 0;
	char *line, *save = NULL;
	ssize_t n;

	msg.msg_control = u.b;
	msg.msg_controllen = sizeof(u.b);
	n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	if (n < 0)
		return;
	buf[n] = '\0';
	for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
			for (size_t k = 0;
			     k < (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int) &&
			     nfds < MAX_FDS;
			     k++)
				memcpy(&fds[nfds++],
				       CMSG_DATA(cm) + k * sizeof(int),
				       sizeof(int));
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strcmp(line, "FDSTORE=1") == 0)
			fdstore = 1;
		else if (strcmp(line, "FDSTOREREMOVE=1") == 0)
			remove = 1;
		else if (strncmp(line, "FDNAME=", 7) == 0)
			snprintf(name, sizeof(name), "%s", line + 7);
		else if (strcmp(line, "READY=1") == 0)
			say("ready %u pid %ld", gen, (long)child);
	}
	if (remove)
		for (int i = nstore - 1; i >= 0; i--)
			if (strcmp(store[i].name, name) == 0)
				drop(i, "remove");
	for (int k = 0; k < nfds; k++) {
		if (!fdstore || nstore == MAX_FDS) {
			close(fds[k]);
			continue;
		}
		snprintf(store[nstore].name, sizeof(store[nstore].name), "%s",
			 name);
		store[nstore++].fd = fds[k];
		say("store %s", name);
	}
}

static pid_t start(char **argv, const char *sockpath, unsigned int gen)
{
	char names[4096] = "", num[16];
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	/* the stored descriptors as 3, 4, ...: out of the way first */
	for (int i = 0; i < nstore; i++)
		store[i].fd = fcntl(store[i].fd, F_DUPFD_CLOEXEC, 100);
	for (int i = 0; i < nstore; i++) {
		dup2(store[i].fd, 3 + i);
		strncat(names, i ? ":" : "", sizeof(names) - strlen(names) - 1);
		strncat(names, store[i].name,
			sizeof(names) - strlen(names) - 1);
	}
	setenv("NOTIFY_SOCKET", sockpath, 1);
	if (nstore) {
		snprintf(num, sizeof(num), "%d", nstore);
		setenv("LISTEN_FDS", num, 1);
		setenv("LISTEN_FDNAMES", names, 1);
		snprintf(num, sizeof(num), "%ld", (long)getpid());
		setenv("LISTEN_PID", num, 1);
	}
	(void)gen;
	execvp(argv[0], argv);
	_exit(127);
}

int main(int argc, char **argv)
{
	const char *sockpath = NULL, *logpath = NULL, *pidpath = NULL;
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct sigaction sa = { .sa_handler = on_sig };
	unsigned int gen = 0;
	pid_t child = -1;
	int c, sock, status;

	while ((c = getopt(argc, argv, "s:l:p:")) != -1) {
		switch (c) {
		case 's':
			sockpath = optarg;
			break;
		case 'l':
			logpath = optarg;
			break;
		case 'p':
			pidpath = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (!sockpath || !logpath || optind >= argc ||
	    strlen(sockpath) >= sizeof(sun.sun_path))
		goto usage;
	logfp = fopen(logpath, "a");
	if (!logfp)
		return 2;
	memcpy(sun.sun_path, sockpath, strlen(sockpath));
	unlink(sockpath);
	sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sock < 0 || bind(sock, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		perror(sockpath);
		return 2;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	for (;;) {
		struct pollfd pfd[1 + MAX_FDS];

		if (child < 0 && !got_term) {
			child = start(argv + optind, sockpath, ++gen);
			say("start %u pid %ld fds %d", gen, (long)child,
			    nstore);
			if (pidpath) {
				FILE *f = fopen(pidpath, "w");

				if (f) {
					fprintf(f, "%ld\n", (long)child);
					fclose(f);
				}
			}
		}
		if (got_term && child > 0) {
			kill(child, SIGTERM);
			got_term = 2;
		}
		pfd[0].fd = sock;
		pfd[0].events = POLLIN;
		for (int i = 0; i < nstore; i++) {
			pfd[1 + i].fd = store[i].fd;
			pfd[1 + i].events = 0; /* HUP and ERR only */
		}
		if (poll(pfd, 1 + (nfds_t)nstore, 200) > 0) {
			if (pfd[0].revents & POLLIN)
				take(sock, child, gen);
			for (int i = nstore - 1; i >= 0; i--)
				if (pfd[1 + i].revents & (POLLHUP | POLLERR))
					drop(i, "hup");
		}
		if (!got_chld)
			continue;
		got_chld = 0;
		if (child <= 0 || waitpid(child, &status, WNOHANG) != child)
			continue;
		if (WIFSIGNALED(status))
			say("exit %u pid %ld status signal %d", gen,
			    (long)child, WTERMSIG(status));
		else
			say("exit %u pid %ld status %d", gen, (long)child,
			    WEXITSTATUS(status));
		child = -1;
		/* drain what it said last (READY, FDSTORE) */
		while (recv(sock, NULL, 0, MSG_DONTWAIT | MSG_PEEK) >= 0)
			take(sock, -1, gen);
		if (got_term)
			break;
		usleep(100000);
	}
	while (nstore)
		drop(nstore - 1, "close");
	unlink(sockpath);
	return 0;
usage:
	fprintf(stderr, "usage: kcsmux-fdstore -s SOCKET -l LOG [-p PIDFILE] "
			"-- COMMAND [ARG...]\n");
	return 2;
}
