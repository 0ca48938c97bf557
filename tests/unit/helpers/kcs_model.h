/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcs_model.h - a simulated BMC behind a KCS register pair, for host tests
 * of the KCS state machine (kmod/kcs_sm.c).
 *
 * The model implements struct kcs_io_ops. The BMC side acts lazily: each
 * status read first lets the BMC take a pending host byte and offer a
 * pending output byte, once their delays (in status polls and in simulated
 * microseconds, advanced by kcs_model_advance()) have passed. It follows
 * IPMI v2.0 section 9 BMC behaviour, and can be told to misbehave.
 *
 * "Write N" counts the host's write-phase writes of one attempt from 1:
 * WRITE_START is write 1, request byte i (0-based) is write i + 2, and for
 * an L-byte request WRITE_END is write L + 1 and the last byte write L + 2.
 * "Read N" counts the READ control codes of one attempt: READ N
 * acknowledges response byte N. Response byte L + 1 is the final dummy.
 */
#ifndef KCSMUX_KCS_MODEL_H
#define KCSMUX_KCS_MODEL_H

#include "kcs_sm.h"

#define KCS_MODEL_BUF 2048

/* Executes a request; returns the response length (<= @max). */
typedef unsigned int (*kcs_model_handler)(void *ctx, const u8 *req,
					  unsigned int len, u8 *resp,
					  unsigned int max);

enum kcs_model_abort {
	KCS_MODEL_ABORT_OK,	   /* as the spec says */
	KCS_MODEL_ABORT_IGNORE,	   /* stays in ERROR state */
	KCS_MODEL_ABORT_NO_STATUS, /* READ state, status byte never comes */
	KCS_MODEL_ABORT_STAY_READ, /* stays in READ after the status byte */
};

struct kcs_model_cfg {
	unsigned int ibf_polls;	 /* status reads showing IBF before a take */
	u64 ibf_us;		 /* time before the BMC takes a host byte */
	unsigned int resp_polls; /* status reads before the first byte */
	u64 resp_us;		 /* time to execute a request */
	u64 obf_us;		 /* time to offer each later response byte */
	bool dummy_on_write;	 /* 0 into ODR on each write-phase take */
	bool no_final_dummy;	 /* go IDLE without the final dummy byte */

	/* Faults. They hit only the first fault_attempts attempts (0: all). */
	unsigned int fault_attempts;
	unsigned int stall_ibf_at;   /* never take write N */
	u64 stall_ibf_us;	     /* ... until this long passed (0: never) */
	unsigned int stall_obf_at;   /* never offer response byte N */
	unsigned int error_at_write; /* go to ERROR when taking write N */
	unsigned int error_at_read;  /* go to ERROR when taking read N */
	unsigned int drop_resp;	     /* bytes dropped off each response */
	unsigned int extra_resp;     /* junk bytes added to each response */
	enum kcs_model_abort abort_mode;
	unsigned int bad_aborts; /* abort_mode hits the first N (0: all) */

	kcs_model_handler handler; /* NULL: kcs_model_default_handler */
	void *handler_ctx;
};

struct kcs_model_stats {
	unsigned int attempts;	 /* WRITE_START commands written */
	unsigned int requests;	 /* complete requests executed */
	unsigned int aborts;	 /* GET_STATUS/ABORT commands taken */
	unsigned int violations; /* host broke the protocol */
	unsigned int status_reads;
	unsigned int data_reads;
	unsigned int empty_reads; /* data reads with OBF clear */
	unsigned int writes;
};

struct kcs_model {
	struct kcs_model_cfg cfg;
	struct kcs_model_stats st;
	u64 now_us;

	/* Registers. */
	u8 status;
	u8 odr;
	u8 idr;

	/* BMC side. */
	int phase;
	u64 in_at;		/* when the pending host byte was written */
	unsigned int in_mark;	/* st.status_reads then */
	unsigned int in_widx;	/* its write number, 0 if none */
	bool in_fault;		/* faults were active when it was written */
	bool out_pending;	/* a byte waits to be offered */
	u64 out_at;		/* not before this time */
	unsigned int out_mark;	/* st.status_reads when scheduled */
	unsigned int out_polls; /* status reads it needs after that */
	u8 out_byte;
	unsigned int out_state;		/* interface state when it is offered */
	unsigned int out_idx;		/* response byte number, 0 if none */
	bool out_fault;			/* faults were active when scheduled */
	enum kcs_model_abort abort_now; /* misbehaviour of this abort */
	unsigned int widx;		/* writes this attempt */
	unsigned int ridx;		/* READs this attempt */
	u8 error_code;			/* for GET_STATUS */
	u8 req[KCS_MODEL_BUF];
	unsigned int req_len;
	u8 resp[KCS_MODEL_BUF];
	unsigned int resp_len;
	unsigned int resp_pos;	    /* byte on offer / next to offer */
	u8 last_req[KCS_MODEL_BUF]; /* last complete request executed */
	unsigned int last_req_len;
};

extern const struct kcs_io_ops kcs_model_ops;

/* An idle, instant, well-behaved BMC (dummy_on_write set, like Linux's). */
void kcs_model_init(struct kcs_model *m);
void kcs_model_advance(struct kcs_model *m, u64 us);
void kcs_model_set_attn(struct kcs_model *m, bool on);
/* Put the interface in ERROR state, as a BMC that lost track would. */
void kcs_model_force_error(struct kcs_model *m);
/* True when the BMC is idle with nothing pending (IBF and OBF clear). */
bool kcs_model_quiet(const struct kcs_model *m);

/*
 * Get Device ID (App 0x01) answers 15 bytes of device data; Get Self Test
 * Results (App 0x04) answers 0x55 0x00; anything else cc 0xc1.
 */
unsigned int kcs_model_default_handler(void *ctx, const u8 *req,
				       unsigned int len, u8 *resp,
				       unsigned int max);

#endif /* KCSMUX_KCS_MODEL_H */
