/* SPDX-License-Identifier: GPL-2.0 */
/*
 * handover.h - the nodes outlive the daemon: each node's /dev/cuse
 * connection and a state memfd sit in the service manager's file
 * descriptor store (FDSTORE=1, FileDescriptorStoreMax=), so a restart or
 * a crash keeps every device and every client's open file; the next
 * process takes them over (cuse/handover.c).
 */
#ifndef KCSMUX_HANDOVER_H
#define KCSMUX_HANDOVER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct daemon;
struct node;
struct client;
struct fuse_session;

/* What a new process found in LISTEN_FDS (LISTEN_PID ours) and the
 * shared state memfd, mapped (a new one if none came). -1 with *cause on
 * a memfd that cannot be made or mapped. */
int handover_init(struct daemon *d, char **cause);
void handover_fini(struct daemon *d);

/* N's session on its /dev/cuse FD through the hand-over's reads and
 * writes (fuse_session_custom_io). With an inherited FD (ADOPTED), the
 * session starts past CUSE_INIT. -1 on failure (FD then closed). */
int handover_session(struct node *n, int fd, bool adopted);
/* N goes (a reload removed it, or the daemon exits). */
void handover_node_gone(struct node *n);
/* The inherited /dev/cuse connection of node NAME, or -1: taken once. */
int handover_take_fd(struct daemon *d, const char *name);

/* Descriptors to put in the store (main sends them with FDSTORE=1 before
 * the seccomp filter): call with i = 0, 1, ... until it returns -1; *name
 * is the FDNAME. Each is listed once per process. */
int handover_store_next(struct daemon *d, const char **name);
/* The store took one of them: a SIGTERM hands over. */
void handover_stored(struct daemon *d);
/* Inherited connections of nodes no longer configured: closed (their
 * devices go); their FDNAMEs for FDSTOREREMOVE=1, one per call. */
const char *handover_drop_next(struct daemon *d);

/* An open file: its fh (c->id) and opener, recorded crash-safe. */
void handover_file_open(struct node *n, const struct client *c);
void handover_file_close(struct node *n, uint64_t fh);
/* A request of C that SEND accepted (a response expected): journaled
 * until C reads its answer, so that a crash cannot lose it silently
 * (handover_pend.c). */
struct ipmi_request;
void handover_pend_sent(const struct client *c, const struct ipmi_request *rq);
/* C's RECEIVE took the response to msgid off its queue. */
void handover_pend_read(const struct client *c, int64_t msgid);
/* C lost access (a reload): its requests need no answer. */
void handover_pend_forget(const struct client *c);

/* The client of fh, or for one the process never issued (it was opened
 * before a crash) a new client with the opener's recorded uid and pid
 * and the stock defaults. NULL without memory. */
struct client *handover_client(struct node *n, uint64_t fh, pid_t pid,
			       uid_t uid);

/* Once every node is up: the graceful predecessor's per-file state put
 * back, every poll() that waited on the old process woken, and each
 * request the old one read but never answered sent again (kernels with
 * FUSE_NOTIFY_RESEND) or failed with ECONNRESET. */
void handover_resume(struct daemon *d);

/* SIGTERM: stop reading requests; done() once the transactions in flight
 * are answered (or after a bound), then handover_save(). */
void handover_quiesce(struct daemon *d, void (*done)(struct daemon *d));
/* The per-file and per-node state into the memfd, for the next process. */
void handover_save(struct daemon *d);
/* A graceful exit with the store in use: keep the /dev/ipmiN links. */
bool handover_keep_links(const struct daemon *d);

#endif /* KCSMUX_HANDOVER_H */
