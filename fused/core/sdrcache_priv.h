/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sdrcache_priv.h - the SDR/FRU cache's state, shared by its files:
 * sdrcache.c (its life, the owners' reservations, invalidation),
 * sdrcache_answer.c (answering from memory), sdrcache_fill.c (the fill
 * and revalidation) and sdrcache_observe.c (what reached the BMC).
 */
#ifndef KCSMUX_SDRCACHE_PRIV_H
#define KCSMUX_SDRCACHE_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "core/resv.h"
#include "core/sdrcache.h"
#include "util/le.h"

#define NETFN_SENSOR  0x04
#define NETFN_APP     0x06
#define NETFN_STORAGE 0x0a

#define CMD_COLD_RESET	  0x02
#define CMD_WARM_RESET	  0x03
#define CMD_SEND_MSG	  0x34
#define CMD_DEV_INFO	  0x20 /* netfn 04 */
#define CMD_DEV_GET	  0x21
#define CMD_DEV_RESERVE	  0x22
#define CMD_FRU_INFO	  0x10
#define CMD_FRU_READ	  0x11
#define CMD_FRU_WRITE	  0x12
#define CMD_SDR_INFO	  0x20
#define CMD_SDR_RESERVE	  0x22
#define CMD_SDR_GET	  0x23
#define CMD_SDR_ADD	  0x24
#define CMD_SDR_PADD	  0x25
#define CMD_SDR_DELETE	  0x26
#define CMD_SDR_CLEAR	  0x27
#define CMD_SDR_ENTER_UPD 0x2a
#define CMD_SDR_RUN_INIT  0x2c

#define CC_OK		 0x00
#define CC_RES_CANCELLED 0xc5
#define CC_OUT_OF_RANGE	 0xc9
#define CC_TOO_LONG	 0xca /* cannot return that many bytes */
#define CC_REQ_TOO_LONG	 0xc8 /* ipmi_sim's Read FRU Data */
#define CC_NOT_PRESENT	 0xcb

#define INFO_LEN	15  /* cc + 14 bytes of Get SDR Repository Info */
#define SDR_MAX_LEN	512 /* may run past what the header says */
#define MAX_REFUSED	8
#define FAILED_RETRY_MS 30000
#define MAX_C5		16   /* fill reservations lost in a row */
#define MAX_ATTEMPTS	3    /* fills that saw the repository move */
#define SAME_SECOND_MS	2000 /* writes this close may share a timestamp */
#define DEV_FORMS	257  /* Get Device SDR Info: no data, 1 byte b */

enum mstate { M_EMPTY, M_FILLING, M_VALID, M_FAILED, M_OFF };
enum job {
	J_NONE,
	J_INFO,
	J_RES,
	J_READ,
	J_PROBE,
	J_CHECK,
	J_REVAL,
	J_FRU_INFO,
	J_FRU_READ,
	J_FRU_PROBE
};
enum fstate { F_NONE, F_WANT, F_FILLING, F_VALID, F_INFO_ONLY };

struct rec {
	uint16_t id, next, len;
	uint8_t *data;
};

struct fru {
	enum fstate st;
	uint8_t info[4];
	unsigned int info_len;
	uint16_t size, have;
	uint8_t *data;
	uint64_t at_ms;
};

/* One repository: the main one (netfn 0a) or the BMC's device SDRs
 * (netfn 04, LUN 0). */
struct repo {
	bool dev;
	enum mstate st;
	uint64_t validated_ms, failed_ms;
	bool want_fill, want_reval;

	uint8_t info[INFO_LEN]; /* last Get (Device) SDR (Repository)
					 * Info answer */
	unsigned int info_len;
	struct rec *recs;
	unsigned int nrec;

	/* the fill */
	uint8_t start_info[INFO_LEN];
	unsigned int start_len;
	uint16_t res, cur_id, cur_off, cur_total, cur_cnt, cur_next;
	enum job resume; /* after J_RES: what met 0xc5 */
	/* reads of the record refused as too long: what they asked for
	 * is known only once the record's end is */
	struct {
		uint16_t off, cnt;
	} refused[MAX_REFUSED];
	unsigned int nrefused;
	uint16_t probe_cnt;
	uint8_t buf[SDR_MAX_LEN];
	unsigned int c5, attempts;
	/* longest read answered, shortest refused (0: none), and how */
	unsigned int sdr_ok, sdr_bad;
	uint8_t sdr_bad_cc;

	/* device SDRs: Get Device SDR Info's answers (cc first, as long as
	 * the BMC sent them) per request form (dev_form()), seen while the
	 * copy was valid; dropped with the records */
	uint8_t *form[DEV_FORMS];
	uint16_t form_len[DEV_FORMS];
};

struct sdrc {
	uint32_t reval_ms;
	struct repo rp[2]; /* [0] main, [1] device SDRs */

	/* the internal request out, if any, and whose */
	bool busy;
	enum job job;
	unsigned int jr;
	uint32_t gen, out_gen;

	/* a write was seen: its timestamps before, to see that they move;
	 * when the last completed write was seen (0: none) */
	bool write_check;
	uint8_t write_info[INFO_LEN];
	uint64_t changed_ms;

	struct resv_tab own; /* reservations: kind = repository (resv.h) */

	struct fru fru[256];
	int fru_cur;
	unsigned int fru_asked, fru_ok, fru_bad;
	uint8_t fru_bad_cc;

	struct sdrc_stats stats;
};

/* An internal request of the FRU (else of a repository: c->jr). */
static inline bool sdrc_fru_job(enum job j)
{
	return j == J_FRU_INFO || j == J_FRU_READ || j == J_FRU_PROBE;
}

/* Get Device SDR Info's request form: 0 without data, 1 + the byte with
 * one; -1 for longer requests (not answered from memory). */
static inline int sdrc_dev_form(const uint8_t *data, unsigned int len)
{
	if (len == 0)
		return 0;
	return len == 1 ? 1 + data[0] : -1;
}

/* sdrcache.c */

/* P's records, and its device forms. */
void sdrc_drop_records(struct repo *p);
/* The BMC answered form F with RESP: keep it while the copy is valid. */
void sdrc_form_store(struct repo *p, int f, const uint8_t *resp,
		     unsigned int len);
/* Every FRU area; an internal FRU request out is answered into nothing. */
void sdrc_drop_fru(struct sdrc *c);
/* The repository changed (or may have): records and every client's
 * reservation go; an internal request out is answered into nothing. */
void sdrc_drop_sdr(struct sdrc *c, struct repo *p);

#endif /* KCSMUX_SDRCACHE_PRIV_H */
