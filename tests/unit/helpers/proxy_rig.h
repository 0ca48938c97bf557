/* SPDX-License-Identifier: MIT */
/*
 * proxy_rig.h - a test rig for the kcsmux-bmc-proxy binary, shared by the
 * end-to-end Check suites (test_bmc_proxy.c, test_bmc_proxy_inject.c).
 *
 * rig_start() runs the real binary on free loopback ports between a fake
 * BMC (a listening socket here, standing in for ipmi_sim) and a fake QEMU
 * (a client socket here), and opens its control connection. The helpers
 * below send and expect VM-codec frames on either side, talk to the control
 * port, and build frames; they fail the running test (ck_assert) on any
 * error.
 *
 * The binary's path comes from the KCSMUX_BMC_PROXY compile definition,
 * overridable with the environment variable of the same name.
 */
#ifndef KCSMUX_PROXY_RIG_H
#define KCSMUX_PROXY_RIG_H

#include <check.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "vm_codec.h"

#define MS 1000000ull

struct rig {
	pid_t pid;
	int out; /* proxy stdout (pipe) */
	uint16_t listen_port, ctl_port, bmc_port;
	int bmc_lfd;		 /* fake BMC listener */
	int bmc;		 /* fake BMC side of the proxy's connection */
	int qemu;		 /* fake QEMU connection */
	int ctl;		 /* control connection */
	struct vm_parser qp, bp; /* parsers for what QEMU / the BMC receive */
	char report[64];
};

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t now_ns(void);

/* The proxy binary to run. */
const char *proxy_path(void);

/*
 * Run the proxy with args (NULL terminated, after argv[0]), its output to
 * /dev/null, and wait for it: it must exit; returns its exit code.
 */
int proxy_exit_code(const char *const *args);

/* Connect to a loopback port (TCP_NODELAY). */
int connect_to(uint16_t port);

/* Accept on lfd within timeout_ms (TCP_NODELAY); -1 on timeout. */
int accept_within(int lfd, int timeout_ms);

void send_all(int fd, const void *buf, size_t len);

/*
 * Read one frame from fd into out (raw bytes), waiting up to timeout_ms.
 * Reads byte by byte so that nothing beyond the frame is consumed.
 * Returns the raw length, 0 on timeout, -1 on EOF.
 */
ssize_t read_frame(int fd, struct vm_parser *p, uint8_t *out, size_t cap,
		   enum vm_frame_kind *kind, int timeout_ms);

/* Expect exactly these raw bytes as the next frame within timeout_ms. */
void expect_frame(int fd, struct vm_parser *p, const uint8_t *want, size_t len,
		  int timeout_ms, const char *what);

/* Expect nothing readable on fd for ms. */
void expect_nothing(int fd, int ms, const char *what);

/* Send a control line and return the reply (all lines up to ok/err). */
void ctl(struct rig *r, char *reply, size_t cap, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Send a control line; its reply must say ok. */
void ctl_ok(struct rig *r, const char *cmd);

/* Poll the proxy's stats until they contain text. */
void wait_stat(struct rig *r, const char *text);

/* Poll the proxy's stats until it reports both connections up. */
void wait_connected(struct rig *r);

/*
 * Start the proxy with the rig's ports and report file, then extra (a NULL
 * terminated list, or NULL), and connect the control port. The fake BMC's
 * port is bound, and listened on only if bmc_up (else the proxy's
 * connections to it are refused until the test calls listen()).
 */
void rig_spawn(struct rig *r, const char *const *extra, bool bmc_up);

/* rig_spawn() with the BMC up, then both connections made and reported. */
void rig_start(struct rig *r, const char *const *extra);

/* Stop with SIGTERM and close the rig's fds; returns the exit status. */
int rig_stop(struct rig *r);

/* rig_stop(), then remove the report file. */
void rig_done(struct rig *r);

/* A file's contents (up to 8 KiB), in a static buffer. */
char *slurp(const char *path);

/* A response frame (seq, netfn|1, cmd, cc, payload, csum) in VM encoding. */
size_t rsp(uint8_t *out, uint8_t seq, uint8_t netfn, uint8_t cmd,
	   const uint8_t *payload, size_t plen);

/* A request frame without data in VM encoding. */
size_t req(uint8_t *out, uint8_t seq, uint8_t netfn, uint8_t cmd);

/* A control command frame in VM encoding. */
size_t cmdf(uint8_t *out, const uint8_t *d, size_t len);

/*
 * Run tests (NULL terminated) as suite name, one "e2e" case with a 60 s
 * timeout, SIGPIPE ignored (a test may write to a connection the proxy has
 * closed); returns main()'s exit status.
 */
int rig_run(const char *name, const TTest *const *tests);

#endif /* KCSMUX_PROXY_RIG_H */
