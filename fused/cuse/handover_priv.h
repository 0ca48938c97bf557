/* SPDX-License-Identifier: GPL-2.0 */
/*
 * handover_priv.h - the hand-over's memfd layout and per-process state,
 * shared by handover.c (the store, the journal, taking over) and
 * handover_state.c (a graceful exit's records).
 */
#ifndef KCSMUX_HANDOVER_PRIV_H
#define KCSMUX_HANDOVER_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "cuse/cuse.h"

#define HO_MAGIC 0x4b43534d55585354ull /* "KCSMUXST" */
/* 2: the journal of unread answers follows the records (struct
 * ho_pendtab); a version 1 memfd is grown to it (same layout before) */
#define HO_VERSION 2
#define HO_NODES   64
#define HO_FILES   1024 /* per node: open files whose kh is recorded */
#define HO_PEND	   1024 /* per node: requests whose answer is not read */
#define HO_TOMB	   UINT64_MAX
#define HO_BLOB	   (8u << 20) /* the graceful records' room */
/* SIGTERM: how long the transactions in flight may take to finish */
#define HO_QUIESCE_MS 800
#define HO_QUIESCE_US 5000

struct ho_file {
	uint64_t fh; /* 0: free, HO_TOMB: was used */
	uint64_t kh; /* 0: no poll() waits to be told */
	uint32_t uid, pid;
};

/* A request SEND accepted whose answer its file has not read yet: after
 * a crash the next process answers it with an error (handover_pend.c). */
struct ho_pend {
	uint64_t fh;	 /* 0: free */
	uint64_t unique; /* the SEND's FUSE request */
	int64_t msgid;
	struct ipmi_address addr;
	uint8_t addr_raw[ABI_MAX_ADDR_LEN];
	uint8_t addr_raw_len, netfn, cmd;
};

struct ho_node {
	char name[KCSMUX_NAME_MAX + 1]; /* "": free */
	uint32_t init_major, init_minor, init_flags, init_seen;
	uint64_t inflight; /* read, not answered; 0: none */
	struct ho_file files[HO_FILES];
};

/* nodes[i]'s journal of unread answers */
struct ho_pends {
	uint32_t npend; /* pend[] used up to here */
	uint32_t unused;
	struct ho_pend pend[HO_PEND];
};

struct ho_shared {
	uint64_t magic;
	uint32_t version, generation;
	uint64_t next_client_id;
	uint64_t blob_len; /* the graceful records, 0: none (a crash) */
	struct ho_node nodes[HO_NODES];
	/* the records follow, up to HO_BLOB bytes */
};

struct ho_pendtab {
	/* the channel media a graceful exit leaves (media_ok 1, used once):
	 * the next process skips the channel scan at its start */
	uint32_t media_ok;
	uint8_t media[ABI_MAX_CHANNELS];
	struct ho_pends nodes[HO_NODES];
};

#define HO_SIZE_V1 (sizeof(struct ho_shared) + HO_BLOB)
#define HO_SIZE	   (HO_SIZE_V1 + sizeof(struct ho_pendtab))

static inline struct ho_pendtab *ho_pendtab_of(struct ho_shared *sh)
{
	return (struct ho_pendtab *)((uint8_t *)sh + HO_SIZE_V1);
}

/* The graceful records. */
enum {
	REC_NODE = 1,
	REC_CLIENT = 2,
	REC_MSG = 3,
	REC_CMDREG = 4,
	REC_LEASE = 5
};
struct ho_rec {
	uint32_t type, len; /* len: the whole record */
};
struct ho_rec_node {
	struct ho_rec h;
	char name[KCSMUX_NAME_MAX + 1];
	uint8_t chan_address[ABI_MAX_CHANNELS], chan_lun[ABI_MAX_CHANNELS];
};
struct ho_rec_client {
	struct ho_rec h;
	char node[KCSMUX_NAME_MAX + 1];
	uint64_t id;
	int32_t pid;
	uint32_t uid;
	char comm[16];
	uint8_t gets_events, revoked;
	int32_t timing_retries;
	uint32_t timing_retry_ms;
};
struct ho_rec_msg {
	struct ho_rec h;
	int32_t recv_type;
	struct ipmi_address addr;
	uint8_t addr_raw[ABI_MAX_ADDR_LEN];
	uint8_t addr_raw_len, netfn, cmd;
	int64_t msgid;
	uint16_t data_len;
	uint8_t data[IPMI_MAX_MSG_LENGTH];
};

/* a command registration of the REC_CLIENT before it */
struct ho_rec_cmdreg {
	struct ho_rec h;
	uint8_t netfn, cmd;
	uint32_t chans;
};

/* a lease class held by a node until its deadline (CLOCK_MONOTONIC:
 * one clock for both processes) */
struct ho_rec_lease {
	struct ho_rec h;
	char node[KCSMUX_NAME_MAX + 1];
	uint32_t class_bit;
	uint64_t until_ns;
};

struct ho_fd {
	char name[64];
	int fd;
	bool taken, dropped;
};

/* A node's hand-over, this process's (n->ho). */
struct ho_rt {
	struct ho_node *sh;
	struct ho_pends *pend; /* its journal of unread answers */
	bool adopted;	       /* its connection came from the store */
	bool swallow;	       /* drop the reply: the replayed CUSE_INIT's */
	bool stored;	       /* listed by handover_store_next */
	bool resumed;	       /* reading */
	bool warned;	       /* a file slot was missing */
	int fd;
};

struct handover {
	struct ho_shared *sh;
	int memfd;
	bool memfd_stored;
	struct ho_fd *fds; /* inherited */
	size_t nfds;
	bool used;     /* the store holds our connections */
	bool graceful; /* saving at exit: links and store stay */
	struct event *quiesce_ev;
	uint64_t quiesce_t0;
	void (*done)(struct daemon *d);
	/* stored nodes a reload removed: FDSTOREREMOVE due */
	char gone[HO_NODES][KCSMUX_NAME_MAX + 8];
	unsigned int ngone;
};

static inline struct handover *ho_of(const struct daemon *d)
{
	return d->fe ? d->fe->ho : NULL;
}

/* handover_state.c: the graceful predecessor's records, used once. */
void ho_restore(struct daemon *d, struct handover *h);

/* handover.c: taking N over, each journaled request of N's files without
 * an answer in its file's queue gets ho_pend_error(); returns how many. */
unsigned int ho_pend_answer(struct node *n, struct ho_pends *s);

/* handover_pend.c: the journal of requests whose answer is not read. */
/* fh's request rq, accepted while the FUSE request UNIQUE is in hand;
 * false if the journal is full. */
bool ho_pend_add(struct ho_pends *s, uint64_t fh, uint64_t unique,
		 const struct ipmi_request *rq);
/* fh read the answer to msgid: its oldest entry of that msgid goes. */
void ho_pend_done(struct ho_pends *s, uint64_t fh, int64_t msgid);
/* Every entry of fh (it closed), or with fh 0 those of SEND request
 * UNIQUE (its reply never reached the kernel). */
void ho_pend_drop(struct ho_pends *s, uint64_t fh, uint64_t unique);
/* The answer the stock driver makes for a request whose answer it lost:
 * cc 0xFF for the system interface (the interface gave up), 0xC3 for a
 * bridged one (the retries ran out). NULL without memory. */
struct kmsg *ho_pend_error(const struct ho_pend *p);

#endif /* KCSMUX_HANDOVER_PRIV_H */
