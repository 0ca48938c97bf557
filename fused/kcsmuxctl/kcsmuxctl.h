/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcsmuxctl.h - what kcsmuxctl's files share: kcsmuxctl_main.c (the
 * command table, the command line, main), kcsmuxctl_socket.c (one request
 * and its reply), kcsmuxctl_print.c (messages, the node tables),
 * kcsmuxctl_cmds.c (the commands), kcsmuxctl_lease.c (lease),
 * kcsmuxctl_watch.c (watch) and
 * kcsmuxctl_doctor.c (doctor).
 */
#ifndef KCSMUX_KCSMUXCTL_H
#define KCSMUX_KCSMUXCTL_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <kcsmux/control.h>

#include "core/opener.h"

#define EXIT_OK		 0
#define EXIT_FAIL	 1
#define EXIT_USAGE	 2
#define EXIT_NOT_RUNNING 3
#define EXIT_CANNOT_RUN	 3 /* doctor: the device cannot be opened */
#define EXIT_DENIED	 4
/* status: the daemon runs, but the BMC is silent / the last reload
 * failed; doctor: a warning and no failure (docs/man/kcsmuxctl.8) */
#define EXIT_BMC_SILENT	   5
#define EXIT_RELOAD_FAILED 6
#define EXIT_WARN	   7

extern const char *const prog; /* "kcsmuxctl", in messages */

struct ctx {
	const char *sock;
	int fd;		  /* -1: not connected */
	bool unreachable; /* the last connect failed */
	bool json;	  /* -j, --json: before or after the command word */
};

struct reply {
	struct ctl_hdr h;
	char *payload;	      /* NUL-terminated */
	struct ctl_kvlist kv; /* parsed if kv text */
};

/* kcsmuxctl_socket.c */

/*
 * Send one request and read its reply. 0 with *r filled and the daemon's
 * status CTL_OK; -1 after printing why not (*r freed).
 */
int request(struct ctx *x, uint16_t type, const struct ctl_buf *req,
	    bool kv_reply, struct reply *r);
void reply_free(struct reply *r);
void ctl_disconnect(struct ctx *x);

/* kcsmuxctl_print.c */

/* "kcsmuxctl: " and the message on stderr. */
void errx_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A key's value in the reply's record [S, E): as text ("-" if missing),
 * as a number (0 if missing). */
static inline const char *get(const struct reply *r, size_t s, size_t e,
			      const char *key)
{
	const char *v = ctl_kv_find(&r->kv, s, e, key);

	return v != NULL ? v : "-";
}

static inline double num(const struct reply *r, size_t s, size_t e,
			 const char *key)
{
	const char *v = ctl_kv_find(&r->kv, s, e, key);

	return v != NULL ? strtod(v, NULL) : 0;
}

/* The NODE column: as wide as the longest name (at least "NODE"). */
int name_width(const struct reply *r);
/* list's table, and stats' (LIST's reply R). */
void print_list(FILE *f, const struct reply *r);
void print_stats(FILE *f, const struct reply *r);

/* kcsmuxctl_cmds.c: each command, run with its operands (or, if it has
 * options, its argv from its name on); an exit status. */
int cmd_status(struct ctx *, int, char **);
int cmd_list(struct ctx *, int, char **);
int cmd_show(struct ctx *, int, char **);
int cmd_set(struct ctx *, int, char **);
int cmd_stats(struct ctx *, int, char **);
int cmd_reload(struct ctx *, int, char **);
int cmd_check(struct ctx *, int, char **);
/* kcsmuxctl_lease.c */
int cmd_lease(struct ctx *, int, char **);
/* A byte operand (check's netfn, cmd, data): 0-255, decimal or 0x hex;
 * -1 if not. */
int byte_arg(const char *s);
extern const struct option reload_longopts[];
extern const struct option check_longopts[];

/* kcsmuxctl_check.c: check -c FILE: would NODE of FILE let the request
 * through, said as the daemon's check says it; an exit status. WHO: the
 * opener (-u, -g) whose rules they are (the node's admin rules when it is
 * one of admin_users or admin_groups), NULL: anyone's. */
int check_file(const char *path, const char *node, uint8_t netfn, uint8_t cmd,
	       const uint8_t *data, size_t len,
	       const struct kcsmux_opener *who);
/* WHO from -u USER (a name, with its groups on this host, or a uid) and
 * -g GROUP[,GROUP...] (names or gids); -1 after a message. */
int check_who(struct kcsmux_opener *who, const char *user, const char *groups);

/* kcsmuxctl_doctor.c */
int cmd_doctor(struct ctx *, int, char **);
extern const struct option doctor_longopts[];

/* kcsmuxctl_watch.c */
int cmd_watch(struct ctx *, int, char **);

#endif /* KCSMUX_KCSMUXCTL_H */
