// SPDX-License-Identifier: GPL-2.0
/*
 * metrics_families.c - the metric families kcsmuxd exports, in the order
 * they are rendered (metrics_render.c): each declared once, its name,
 * type and help, and where in the snapshot its value is. docs/admin.md
 * lists them; the shipped rules and dashboard use only these.
 */
#include <stddef.h>

#include "metrics/metrics.h"
#include "metrics/metrics_priv.h"

#define NODE(f) offsetof(struct metrics_node, f)
#define SNAP(f) offsetof(struct metrics_snapshot, f)

static bool has_kcsraw(const struct metrics_snapshot *s)
{
	return s->status.kcsraw_version[0] != '\0';
}

const struct family metrics_families[] = {
	{ "kcsmux_info", "gauge",
	  "The daemon's version, backend and interface device (always 1).",
	  V_INFO, 0, NULL },
	{ "kcsmux_interface_inflight", "gauge",
	  "Requests submitted to the interface and not yet completed.",
	  V_SNAP_UINT, SNAP(inflight), NULL },
	{ "kcsmux_clients", "gauge", "Open files of the node.", V_NODE_UINT,
	  NODE(clients), NULL },
	{ "kcsmux_queue_depth", "gauge",
	  "Requests waiting in the node's queue in the daemon.", V_NODE_UINT,
	  NODE(qlen), NULL },
	{ "kcsmux_opens_total", "counter", "Opens of the node's device.",
	  V_NODE_U64, NODE(cnt.opens), NULL },
	{ "kcsmux_requests_total", "counter",
	  "Requests accepted into the node's queue.", V_NODE_U64,
	  NODE(st.requests), NULL },
	{ "kcsmux_responses_total", "counter",
	  "Requests finished on the interface, any outcome.", V_NODE_U64,
	  NODE(st.completed), NULL },
	{ "kcsmux_errors_total", "counter",
	  "Failures by kind: completion (finished with a non-zero "
	  "completion code or the interface gave up), busy (EBUSY: "
	  "max_outstanding, or an open over max_clients), denied (refused "
	  "by the access list, cc 0xd4), rejected (EBUSY: the node's queue "
	  "was full).",
	  V_NODE_ERRORS, 0, NULL },
	{ "kcsmux_completion_codes_total", "counter",
	  "Responses from the BMC by completion code: cc is 0x00, a "
	  "generic code 0xc0 to 0xd6, 0xff, or other (command-specific "
	  "and OEM codes). Not errors by itself: a non-zero code also "
	  "counts as a completion error in kcsmux_errors_total.",
	  V_NODE_CC, 0, NULL },
	{ "kcsmux_coalesced_total", "counter",
	  "Sensor reads answered with another client's identical one in "
	  "flight on the node (coalesce = yes), not sent to the BMC.",
	  V_NODE_U64, NODE(cnt.coalesced), NULL },
	{ "kcsmux_coalesced_recent_total", "counter",
	  "Of kcsmux_coalesced_total, the reads answered at once with "
	  "another client's answer completed within the node's "
	  "coalesce_window_ms.",
	  V_NODE_U64, NODE(cnt.coalesced_recent), NULL },
	{ "kcsmux_cancelled_total", "counter",
	  "Requests dropped from the node's queue before they ran (their "
	  "client closed its file or gave up): not an error.",
	  V_NODE_U64, NODE(st.cancelled), NULL },
	{ "kcsmux_request_duration_seconds", "histogram",
	  "Time from a client's request to its response, for requests "
	  "that went to the interface.",
	  V_NODE_HIST, NODE(st.latency), NULL },
	{ "kcsmux_queue_wait_seconds", "histogram",
	  "Time requests waited in the node's queue before they started "
	  "on the interface.",
	  V_NODE_HIST, NODE(st.queue_wait), NULL },
	{ "kcsmux_service_seconds_total", "counter",
	  "Time the interface spent on the node's requests.", V_NODE_SECONDS,
	  NODE(st.service_ns), NULL },
	{ "kcsmux_poller_cpu_seconds_total", "counter",
	  "CPU time kcsraw's poller spent on the node's requests "
	  "(spinning included).",
	  V_NODE_SECONDS, NODE(st.cpu_ns), NULL },
	{ "kcsmux_node_daemon_cpu_seconds_total", "counter",
	  "CPU time kcsmuxd itself spent on the node's behalf: its CUSE "
	  "requests, submissions, completions and parked SDR requests "
	  "answered (the rest of kcsmux_daemon_cpu_seconds_total is no "
	  "node's). Counted in cpu_budget with the poller's.",
	  V_NODE_SECONDS, NODE(st.daemon_cpu_ns), NULL },
	{ "kcsmux_poller_spin_seconds_total", "counter",
	  "Time kcsraw's poller spent busy-polling for the node's "
	  "requests.",
	  V_NODE_SECONDS, NODE(st.spin_ns), NULL },
	{ "kcsmux_poller_sleeps_total", "counter",
	  "Sleeps (timer or IRQ) of kcsraw's poller during the node's "
	  "requests.",
	  V_NODE_U64, NODE(cnt.sleeps), NULL },
	{ "kcsmux_poller_cpu_ratio", "gauge",
	  "Recent poller CPU use of the node's requests in CPUs, decayed "
	  "over about 1 s.",
	  V_NODE_PPM, NODE(poller_cpu_ppm), NULL },
	{ "kcsmux_cpu_used_ratio", "gauge",
	  "Recent CPU use of the node in CPUs, the poller's and kcsmuxd's "
	  "own on its behalf, decayed over about 1 s: what cpu_budget is "
	  "checked against.",
	  V_NODE_PPM, NODE(cpu_ppm), NULL },
	{ "kcsmux_cpu_budget_ratio", "gauge",
	  "The node's cpu_budget in CPUs; 0: no budget.", V_NODE_PPM_U32,
	  NODE(cpu_budget_ppm), NULL },
	{ "kcsmux_cpu_budget_throttled_total", "counter",
	  "Requests run with the cheapest polling because the node was "
	  "over its cpu_budget.",
	  V_NODE_U64, NODE(cnt.throttled), NULL },
	{ "kcsmux_cpu_budget_held_total", "counter",
	  "Times the node's queue was held until it was back under its "
	  "cpu_budget.",
	  V_NODE_U64, NODE(cnt.held), NULL },
	/* the interface's health (kcsraw backend) */
	{ "kcsmux_interface_completions_total", "counter",
	  "Transactions the interface completed, any outcome.", V_SNAP_U64,
	  SNAP(health.completions), NULL },
	{ "kcsmux_interface_hosed_total", "counter",
	  "Transactions the KCS state machine gave up on (answered with "
	  "cc 0xFF).",
	  V_SNAP_U64, SNAP(health.hosed), NULL },
	{ "kcsmux_interface_kcs_errors_total", "counter",
	  "KCS timeouts and protocol errors kcsraw saw, recovered or not.",
	  V_SNAP_U64, SNAP(health.kcs_errors), NULL },
	{ "kcsmux_interface_retries_total", "counter",
	  "KCS error recoveries kcsraw started.", V_SNAP_U64,
	  SNAP(health.retries), NULL },
	/* the SDR/FRU cache (sdr_cache = yes); zero until a node uses it,
	 * but there from the start, so rate() over them is never empty */
	{ "kcsmux_sdr_cache_hits_total", "counter",
	  "SDR and FRU reads of the node answered from the daemon's memory.",
	  V_NODE_U64, NODE(cnt.sdr_hits), NULL },
	{ "kcsmux_sdr_cache_misses_total", "counter",
	  "SDR and FRU reads of the node that went to the BMC (cache "
	  "failed or off, or a read it cannot answer).",
	  V_NODE_U64, NODE(cnt.sdr_misses), NULL },
	{ "kcsmux_sdr_cache_fills_total", "counter",
	  "Times an SDR repository was read whole into memory.", V_SNAP_U64,
	  SNAP(sdr.fills), NULL },
	{ "kcsmux_sdr_cache_revalidations_total", "counter",
	  "Get SDR Repository Info checks of the cached repositories.",
	  V_SNAP_U64, SNAP(sdr.revalidations), NULL },
	{ "kcsmux_sdr_cache_invalidations_total", "counter",
	  "Times the cache was dropped (a write, clear or reset from any "
	  "node, a changed repository).",
	  V_SNAP_U64, SNAP(sdr.invalidations), NULL },
	{ "kcsmux_sdr_cache_bmc_requests_total", "counter",
	  "Requests the cache itself sent to the BMC (fills, checks).",
	  V_SNAP_U64, SNAP(sdr.internal), NULL },
	{ "kcsmux_sdr_cache_records", "gauge",
	  "SDRs of the main repository held in memory.", V_SNAP_UINT,
	  SNAP(sdr_records), NULL },
	/* leases (docs/leases.md) */
	{ "kcsmux_lease_refused_total", "counter",
	  "Commands of the node refused at once (cc 0xd5) because "
	  "another node holds a lease on their class.",
	  V_NODE_U64, NODE(cnt.lease_refused), NULL },
	{ "kcsmux_lease_busy_total", "counter",
	  "Requests of the node refused at once (cc 0xc0, node busy) "
	  "during another node's firmware lease.",
	  V_NODE_U64, NODE(cnt.lease_busy), NULL },
	{ "kcsmux_lease_stale_total", "counter",
	  "Requests of the node answered from the SDR cache or SEL "
	  "mirror during another node's firmware lease, without asking "
	  "the BMC (stale).",
	  V_NODE_U64, NODE(cnt.lease_stale), NULL },
	/* the daemon itself */
	{ "kcsmux_daemon_cpu_seconds_total", "counter",
	  "CPU time of kcsmuxd itself (user and system, all its threads); "
	  "the poller's is in kcsmux_poller_cpu_seconds_total, its part "
	  "per node in kcsmux_node_daemon_cpu_seconds_total.",
	  V_SNAP_SECONDS, SNAP(daemon_cpu_ns), NULL },
	{ "kcsmux_events_dropped_total", "counter",
	  "Asynchronous events (the BMC's event messages) dropped because "
	  "a subscriber had event_backlog unread, or no one subscribed and "
	  "the backlog was full.",
	  V_SNAP_U64, SNAP(events_dropped), NULL },
	/* reloads */
	{ "kcsmux_reloads_total", "counter",
	  "Configuration reloads (SIGHUP, kcsmuxctl reload) by result.",
	  V_RELOADS, 0, NULL },
	{ "kcsmux_reload_last_success", "gauge",
	  "1 if the last reload applied (or none was tried), 0 if it was "
	  "rejected and the previous configuration still runs.",
	  V_SNAP_BOOL, SNAP(last_reload_ok), NULL },
	{ "kcsmux_reload_last_timestamp_seconds", "gauge",
	  "When the last reload was tried, in seconds since the epoch; 0: "
	  "none yet.",
	  V_SNAP_U64, SNAP(last_reload_unix), NULL },
	/* health: what kcsmuxctl status exits non-zero for, and versions */
	{ "kcsmux_bmc_up", "gauge",
	  "1 if the BMC answers, 0 if it is silent: the interface was hosed "
	  "(the KCS state machine gave up) and nothing answered since, or "
	  "kcsraw's bmc state is waiting or lost.",
	  V_SNAP_BOOL, SNAP(status.bmc_up), NULL },
	{ "kcsmux_bmc_last_change_timestamp_seconds", "gauge",
	  "Since when kcsmux_bmc_up has its value, in seconds since the "
	  "epoch: its last change, else the daemon's start.",
	  V_SNAP_U64, SNAP(status.bmc_since_unix), NULL },
	{ "kcsmux_kcsraw_info", "gauge",
	  "The loaded kcsraw module's version (always 1; absent when kcsraw "
	  "is not loaded).",
	  V_KCSRAW_INFO, 0, has_kcsraw },
	{ "kcsmux_bridging_up", "gauge",
	  "1 if IPMB/LAN bridging and the BMC's events have a path, 0 if "
	  "the daemon runs degraded without them (kcsraw in SMI mode "
	  "without its relay or ipmi_devintf's node).",
	  V_SNAP_BOOL_NOT, SNAP(status.no_bridge), NULL },
	{ "kcsmux_stock_bypass", "gauge",
	  "1 if a stock /dev/ipmiN (ipmi_devintf) is on kcsraw's interface, "
	  "its device the label: whoever opens it reaches the BMC around "
	  "every node's access list, priority, rate limit, CPU budget and "
	  "accounting; 0 if none.",
	  V_STOCK, 0, NULL },
};

const size_t metrics_nfamilies =
	sizeof(metrics_families) / sizeof(metrics_families[0]);
