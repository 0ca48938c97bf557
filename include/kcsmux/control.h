/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcsmux/control.h - the control protocol between kcsmuxd and kcsmuxctl.
 *
 * Transport: a UNIX SOCK_STREAM socket (control_socket in kcsmux.conf,
 * default CTL_SOCKET_DEFAULT; the daemon creates its directory 0755 and the
 * socket 0666 and decides each request by the peer's SO_PEERCRED). A stream
 * rather than SOCK_SEQPACKET because a reply (STATS of many nodes) has no
 * fixed bound: a seqpacket message must fit the socket's send buffer in one
 * piece, a stream frame need not, and the daemon's libevent bufferevents
 * already do the non-blocking partial reads and writes a stream needs.
 *
 * Every message, either way, is one frame: a 16-byte header followed by
 * `len` payload bytes. Header fields are little-endian:
 *
 *   0  u32 magic    CTL_MAGIC (the bytes "KCSM" on the wire)
 *   4  u16 version  the sender's protocol version (CTL_VERSION)
 *   6  u16 type     a request (enum ctl_type), or CTL_REPLY | its type
 *   8  u32 len      payload bytes, at most CTL_MAX_PAYLOAD
 *  12  u32 status   replies: enum ctl_status; requests: 0
 *
 * The header layout is frozen across protocol versions, so that each side
 * can always read the other's version: a daemon answers a request of
 * another version with CTL_E_VERSION and a message ("kcsmuxctl protocol 2,
 * daemon speaks 1") in its own version, then closes the connection. A bad
 * magic or an oversized length closes the connection without a reply
 * (once the replies to the requests before it are sent).
 *
 * Payloads are text, so that they can be read and grepped as they are:
 *
 *   - key=value lines ("kv"): KEY is 1 to CTL_KEY_MAX characters of
 *     [A-Za-z0-9_.-], VALUE is anything but NUL and newline (it may hold
 *     '=' and blanks: a line splits at its first '='), each line ends with
 *     a newline. Keys may repeat; order is kept.
 *   - JSON (the STATS reply), one object.
 *
 * Requests and their replies (status CTL_OK unless said otherwise):
 *
 *   LIST    payload empty. Reply kv: global lines (backend=, device=,
 *           protocol=, version=), then one record per node, each starting
 *           with its node= line and holding the same keys as a SHOW reply
 *           except the client= lines.
 *   SHOW    "node=NAME" [and "json=yes": the node's STATS object]. Reply kv: that node's record, with one
 *           "client=id=ID pid=PID uid=UID outstanding=N queued=N events=B"
 *           line per open file.
 *   SET     "node=NAME" then one "KEY=VALUE" line per setting, in the
 *           syntax of kcsmux.conf's policy keys. All or nothing. Reply kv:
 *           "changed=KEY OLD -> NEW" per changed key and "note=TEXT" lines.
 *           Needs root or the admin group (CTL_E_PERM).
 *   STATS   payload empty. Reply: JSON, every node with its clients.
 *   RELOAD  payload empty. Needs root or the admin group. Reads the
 *           configuration again as SIGHUP does; a rejected file is
 *           CTL_E_INVAL with its errors, one error= line each. Reply kv:
 *           "note=reloaded PATH". With "dry_run=yes": nothing is
 *           applied; reply kv: what the reload would do, one
 *           "remove=NODE (N clients: pid P uid U, ...)", "add=NODE (...)",
 *           "change=NODE: KEY OLD -> NEW" or "note=TEXT" line each; a file
 *           the reload would reject is CTL_E_INVAL as above.
 *   STATUS  payload empty or "json=yes". Reply kv (or one JSON object,
 *           numbers as numbers): the daemon (version, pid, started_unix,
 *           uptime_s, config, user, sandbox), the last reload (reloads,
 *           reload_failures, last_reload ok|failed|none,
 *           last_reload_unix, last_reload_error), the interface
 *           (backend, device, bmc answering|silent, bmc_silent_s,
 *           bmc_silences, hosed, kcs_errors, retries, completions,
 *           inflight) and the nodes and clients open.
 *   CHECK   "node=NAME", "netfn=N", "cmd=N" [and "data=HEX BYTES"]: would
 *           the node's access rules let a request to the BMC through?
 *           Nothing is sent. Reply kv: "verdict=allowed|denied",
 *           "rule=TEXT" (which rule decided), "command=netfn 0xNN cmd
 *           0xNN".
 *   LEASE   "op=list", or "op=take", "node=NAME", "classes=LIST" (chassis,
 *           fan-oem, users, lan, firmware, comma-separated) and
 *           "seconds=N" (1-3600), or "op=release", "node=NAME" [and
 *           "classes=LIST"; all the node's by default]. take and release
 *           need root or the admin group; take is CTL_E_BUSY when another
 *           node holds one of the classes (nothing taken). Reply kv:
 *           "released=N" (release), then "lease=NODE CLASS LEFT_S
 *           configured|kcsmuxctl" per lease held (docs/leases.md).
 *
 * The daemon takes requests of up to 64 KiB, at most 64 connections and 8
 * per user other than root (more are closed at once), and closes a
 * connection idle for 10 minutes; one connection may carry any number of
 * requests, each answered in order.
 *
 * A reply with status != CTL_OK has a kv payload with "error=TEXT" lines
 * (each a whole sentence, printed by kcsmuxctl after "kcsmuxctl: ") and
 * maybe "node=NAME" lines naming the existing nodes.
 *
 * The functions below are pure (no I/O) and shared by both sides
 * (fused/control_proto.c, tests/unit/test_control_proto.c).
 */
#ifndef KCSMUX_CONTROL_H
#define KCSMUX_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CTL_MAGIC	   0x4d53434bU /* "KCSM" as little-endian bytes */
#define CTL_VERSION	   1
#define CTL_HDR_LEN	   16
#define CTL_MAX_PAYLOAD	   (4U << 20)
#define CTL_KEY_MAX	   63
#define CTL_SOCKET_DEFAULT "/run/kcsmux/control.sock"

enum ctl_type {
	CTL_LIST = 1,
	CTL_SHOW = 2,
	CTL_SET = 3,
	CTL_STATS = 4,
	CTL_RELOAD = 5,
	CTL_STATUS = 6,
	CTL_CHECK = 7,
	CTL_LEASE = 8,
	CTL_REPLY = 0x8000, /* or'ed with the request's type */
};

enum ctl_status {
	CTL_OK = 0,
	CTL_E_PROTO = 1,       /* malformed request */
	CTL_E_VERSION = 2,     /* protocol version mismatch */
	CTL_E_TYPE = 3,	       /* unknown request type */
	CTL_E_NOENT = 4,       /* no such node */
	CTL_E_INVAL = 5,       /* bad key or value */
	CTL_E_PERM = 6,	       /* not root or the admin group */
	CTL_E_UNSUPPORTED = 7, /* not implemented by this daemon */
	CTL_E_INTERNAL = 8,    /* out of memory and the like */
	CTL_E_BUSY = 9,	       /* held by another (a lease) */
};

struct ctl_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t type;
	uint32_t len;
	uint32_t status;
};

/* Header to and from its 16 wire bytes. */
void ctl_hdr_encode(uint8_t out[CTL_HDR_LEN], const struct ctl_hdr *h);
/*
 * Decode and check: CTL_OK; CTL_E_PROTO for a bad magic or a len over
 * CTL_MAX_PAYLOAD; CTL_E_VERSION for another version (*h is filled in all
 * cases, so the caller can name the version).
 */
enum ctl_status ctl_hdr_decode(const uint8_t in[CTL_HDR_LEN],
			       struct ctl_hdr *h);
/* A header for TYPE with this side's magic and version. */
void ctl_hdr_init(struct ctl_hdr *h, uint16_t type, uint32_t len,
		  uint32_t status);

/* "list", "show", ..., "reply to show", or "type 0x1234". */
const char *ctl_type_name(uint16_t type, char *buf, size_t len);
/* "ok", "protocol error", ... ("status N" beyond the enum). */
const char *ctl_status_name(uint32_t status);

/*
 * A growable text buffer. Functions never fail half-way visibly: on out of
 * memory they set oom and later additions do nothing; the owner checks oom
 * once at the end. data is NUL-terminated whenever it is not NULL.
 */
struct ctl_buf {
	char *data;
	size_t len, cap;
	bool oom;
};

void ctl_buf_init(struct ctl_buf *b);
void ctl_buf_free(struct ctl_buf *b);
void ctl_buf_reset(struct ctl_buf *b); /* len 0, keeps memory */
void ctl_buf_add(struct ctl_buf *b, const void *data, size_t len);
void ctl_buf_printf(struct ctl_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Is KEY a valid kv key? Is VALUE a valid kv value (no NUL, no newline)? */
bool ctl_key_valid(const char *key, size_t len);
bool ctl_value_valid(const char *value, size_t len);

/* Append "KEY=VALUE\n"; -1 (nothing added) if either is invalid. */
int ctl_kv_add(struct ctl_buf *b, const char *key, const char *value);
int ctl_kv_addf(struct ctl_buf *b, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A parsed kv payload: n pairs of NUL-terminated strings, in order. */
struct ctl_kv {
	const char *key;
	const char *value;
};

struct ctl_kvlist {
	size_t n;
	struct ctl_kv *kv;
	char *mem; /* the strings */
};

/*
 * Parse LEN bytes of kv text. 0, or -1 with a message in ERR (line number
 * and what is wrong): a NUL byte, a line without '=' or without its final
 * newline, a bad key. *l is empty on error; free with ctl_kvlist_free().
 */
int ctl_kv_parse(const char *text, size_t len, struct ctl_kvlist *l, char *err,
		 size_t errlen);
void ctl_kvlist_free(struct ctl_kvlist *l);
/* The value of the first KEY in [FROM, TO) (TO clamped to l->n), or NULL. */
const char *ctl_kv_find(const struct ctl_kvlist *l, size_t from, size_t to,
			const char *key);
/*
 * Records: a record starts at each pair whose key is REC_KEY and runs to the
 * next one. ctl_kv_record(l, "node", 0, &start, &end) finds the first;
 * pass END back as FROM for the next. false: no more records.
 */
bool ctl_kv_record(const struct ctl_kvlist *l, const char *rec_key, size_t from,
		   size_t *start, size_t *end);

/* Requests. -1 if NODE is not a plausible node name or a setting is bad. */
int ctl_req_show(struct ctl_buf *b, const char *node);
/* SETTINGS: "KEY=VALUE" strings as typed on the command line. */
int ctl_req_set(struct ctl_buf *b, const char *node, char *const *settings,
		size_t n, char *err, size_t errlen);
/* A node name as kcsmux.conf allows it: [A-Za-z0-9_.-]{1,31}, no leading
 * dot or hyphen. */
bool ctl_node_name_valid(const char *name);

/* Append S as a JSON string (quotes, escapes; control bytes as \u00XX). */
void ctl_json_str(struct ctl_buf *b, const char *s);

/*
 * One node's status, filled by the daemon and printed as a kv record (LIST,
 * SHOW) or a JSON object (STATS). Durations in ns.
 */
struct ctl_client_info {
	uint64_t id;
	int64_t pid;
	uint32_t uid;
	uint32_t outstanding; /* requests sent, not answered */
	uint32_t queued;      /* messages waiting to be received */
	bool events;
	const char *comm; /* process name at open; NULL: "?" */
	/* its own counters: requests accepted, answered with an error
	 * (non-zero completion code or the interface gave up), refused by
	 * the access list */
	uint64_t requests, errors, denied;
	/* the daemon's guesses of its SEND [0] and RECEIVE [1] buffers
	 * (docs/design.md, "Guessing the buffers"): made, held (a round
	 * trip saved), missed (the call went on as without a guess) */
	uint64_t guess_made[2], guess_held[2], guess_missed[2];
};

#define CTL_POLICY_MAX 32
#define CTL_NCC	       26 /* NODESTATS_NCC */
#define CTL_NBUCKETS   39 /* NODESTATS_NBUCKETS: 38 bounds, then +Inf */

struct ctl_node_info {
	const char *name;
	const char *preset;
	bool custom;	    /* policy differs from the preset */
	bool ready;	    /* the device exists */
	const char *access; /* access preset name */
	size_t npolicy;
	struct ctl_kv policy[CTL_POLICY_MAX]; /* key, value in config syntax */
	uint32_t nclients;
	const struct ctl_client_info *clients; /* NULL: not printed */
	uint32_t queue, queue_max;
	uint64_t requests, rejected, cancelled, dispatched, completed, errors;
	uint64_t denied, busy, opens;
	uint64_t service_ns, cpu_ns, spin_ns;
	uint64_t lat_p50_ns, lat_p90_ns, lat_p99_ns, lat_max_ns;
	uint64_t wait_p99_ns, wait_max_ns;
	/* The latency histogram since start, cumulative counters from which
	 * two snapshots give the figures of the time between them: values
	 * recorded (one per completion) and their sum; lat_bucket[i] counts
	 * values in (lat_bound_ns[i - 1], lat_bound_ns[i]] (not cumulative),
	 * the last bucket to +Inf. lat_bound_ns: CTL_NBUCKETS - 1 rising
	 * bounds; NULL: the histogram is not printed. */
	uint64_t lat_count, lat_sum_ns;
	const uint64_t *lat_bound_ns;
	uint64_t lat_bucket[CTL_NBUCKETS];
	double cpu_ppm;
	/* its CPU budget (policy cpu_budget, 0: none), and what enforcing it
	 * did: transactions run cheaply, times the queue was held */
	uint32_t cpu_budget_ppm;
	uint64_t cheapened, held;
	/* the daemon's own CPU on the node's behalf (core/cpumeter.c); the
	 * poller's alone (cpu_ppm, the budget's, counts both) */
	uint64_t daemon_cpu_ns;
	double poller_cpu_ppm;
	/* responses by completion code: cc_label[i] ("0x00", .., "other")
	 * and its count; printed only where not 0 */
	const char *cc_label[CTL_NCC];
	uint64_t cc[CTL_NCC];
};

/* The kv record of a node: "node=NAME" first, then the keys documented in
 * docs/man/kcsmuxctl.8; client= lines only if ni->clients is not NULL. */
void ctl_node_kv(struct ctl_buf *b, const struct ctl_node_info *ni);
/* The same as one JSON object. */
void ctl_node_json(struct ctl_buf *b, const struct ctl_node_info *ni);

/*
 * A node record's latency histogram as kcsmuxctl reads it back: N
 * buckets, the last to +Inf, bound_ns[] the N - 1 finite bounds.
 */
#define CTL_HIST_MAX 64
struct ctl_hist {
	size_t n;
	uint64_t bound_ns[CTL_HIST_MAX];
	uint64_t bucket[CTL_HIST_MAX];
	uint64_t count, sum_ns, max_ns;
};

/*
 * The histogram of the node record [FROM, TO) of L: latency_count,
 * latency_sum_ns, latency_max_us, latency_bounds_us and latency_buckets.
 * -1 if one is missing or malformed: not a number, bounds not rising,
 * more than CTL_HIST_MAX buckets, buckets that do not add up to the count.
 */
int ctl_hist_get(const struct ctl_kvlist *l, size_t from, size_t to,
		 struct ctl_hist *h);

/*
 * What a node did between two of its records, the old one taken SECS
 * before the new one: requests accepted, latencies recorded (one per
 * completion) and errors in that time, requests per second, and the mean
 * and the 99th percentile of those latencies (from the difference of the
 * histograms; 0 when none completed).
 */
struct ctl_window {
	double secs;
	uint64_t requests, completed, errors;
	double rate;
	uint64_t mean_ns, p99_ns;
};

/* One node record: [from, to) of l, as ctl_kv_record() finds it. */
struct ctl_rec {
	const struct ctl_kvlist *l;
	size_t from, to;
};

/*
 * The window from record OLD to record NEW, taken SECS later. -1 when the
 * two do not compare: a counter went back (the daemon restarted, the node
 * was made anew), the histograms' bounds differ, one is missing or
 * malformed, SECS is not > 0.
 */
int ctl_window(const struct ctl_rec *old, const struct ctl_rec *new,
	       double secs, struct ctl_window *w);

#endif /* KCSMUX_CONTROL_H */
