// SPDX-License-Identifier: GPL-2.0
/*
 * kcsraw_main.c - kcsraw.ko: raw IPMI KCS access with per-transaction
 * polling policies. Module parameters, interface discovery (parameters or
 * SMBIOS type 38), and bring-up/tear-down of each interface.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/dmi.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/cpumask.h>
#include "kcsraw_compat.h"
#include "kcsraw_priv.h"

/* Interfaces: explicit, or from SMBIOS when no ports are given. */
static unsigned long ports[KCSRAW_MAX_IFACES];
static unsigned int num_ports;
module_param_hw_array(ports, ulong, ioport, &num_ports, 0444);
MODULE_PARM_DESC(ports, "KCS data register I/O ports, e.g. 0xca2[,0xca8] (default: SMBIOS type 38)");

static unsigned int regspacing[KCSRAW_MAX_IFACES];
static unsigned int num_regspacing;
module_param_array(regspacing, uint, &num_regspacing, 0444);
MODULE_PARM_DESC(regspacing, "Register spacing per port (1, 4 or 16; default 1)");

static unsigned int irqs[KCSRAW_MAX_IFACES];
static unsigned int num_irqs;
module_param_hw_array(irqs, uint, irq, &num_irqs, 0444);
MODULE_PARM_DESC(irqs, "IRQ per port (0 or absent: polled only)");

static bool trydmi = true;
module_param(trydmi, bool, 0444);
MODULE_PARM_DESC(trydmi, "Find KCS interfaces in SMBIOS when no ports= are given (default 1)");

static bool useirq = true;
module_param(useirq, bool, 0444);
MODULE_PARM_DESC(useirq, "Use the IRQ SMBIOS names for an interface (default 1)");

bool kcsraw_share_irq;
module_param_named(share_irq, kcsraw_share_irq, bool, 0444);
MODULE_PARM_DESC(share_irq, "Request the IRQ as shared even when no other device holds it, so that one loaded later can join (default 0: shared only when the line is taken)");

bool kcsraw_smi_param = true;
module_param_named(smi, kcsraw_smi_param, bool, 0444);
MODULE_PARM_DESC(smi, "Register each interface with ipmi_msghandler for the kernel's IPMI users (default 1; 0: /dev/kcsrawN only)");

bool kcsraw_smi_async_param = true;
module_param_named(smi_async, kcsraw_smi_async_param, bool, 0444);
MODULE_PARM_DESC(smi_async, "With smi=1, the kernel reads the message flags, receive queue and event buffer, and /dev/kcsrawN refuses Send/Get Message, Read Event Message Buffer and Clear Message Flags (default 1; 0: the daemon does)");

/* Interface-wide tunables. */
unsigned int kcsraw_queue_depth = 64;
module_param_named(queue_depth, kcsraw_queue_depth, uint, 0644);
MODULE_PARM_DESC(queue_depth, "Outstanding requests per open file (default 64)");

unsigned int kcsraw_atn_poll_ms = 100;
module_param_named(atn_poll_ms, kcsraw_atn_poll_ms, uint, 0644);
MODULE_PARM_DESC(atn_poll_ms, "Idle SMS_ATN check interval in ms, 0 = only on IRQ and after transactions (default 100)");

unsigned int kcsraw_ibf_timeout_ms = 5000;
module_param_named(ibf_timeout_ms, kcsraw_ibf_timeout_ms, uint, 0644);
MODULE_PARM_DESC(ibf_timeout_ms, "KCS IBF timeout in ms, read at each transaction start (default 5000)");

unsigned int kcsraw_obf_timeout_ms = 5000;
module_param_named(obf_timeout_ms, kcsraw_obf_timeout_ms, uint, 0644);
MODULE_PARM_DESC(obf_timeout_ms, "KCS OBF (response) timeout in ms, read at each transaction start (default 5000)");

unsigned int kcsraw_max_retries = 10;
module_param_named(max_retries, kcsraw_max_retries, uint, 0644);
MODULE_PARM_DESC(max_retries, "KCS error recoveries per transaction before giving up (default 10)");

/* The default policy, for requests that ask for it. */
unsigned int kcsraw_def_max_busy_us = 100;
module_param_named(default_max_busy_us, kcsraw_def_max_busy_us, uint, 0644);
MODULE_PARM_DESC(default_max_busy_us, "Default busy-wait window per BMC wait in us, 4294967295 = unlimited (default 100)");

unsigned int kcsraw_def_poll_us = 100;
module_param_named(default_poll_us, kcsraw_def_poll_us, uint, 0644);
MODULE_PARM_DESC(default_poll_us, "Default first poll sleep in us (default 100)");

unsigned int kcsraw_def_poll_max_us = 1000;
module_param_named(default_poll_max_us, kcsraw_def_poll_max_us, uint, 0644);
MODULE_PARM_DESC(default_poll_max_us, "Default longest poll sleep in us (default 1000)");

unsigned int kcsraw_def_backoff = KCSRAW_BACKOFF_EXP;
module_param_named(default_backoff, kcsraw_def_backoff, uint, 0644);
MODULE_PARM_DESC(default_backoff, "Default backoff: 0 fixed, 1 exponential (default 1)");

bool kcsraw_def_use_irq = true;
module_param_named(default_use_irq, kcsraw_def_use_irq, bool, 0644);
MODULE_PARM_DESC(default_use_irq, "Default: sleep until the IRQ when there is one (default 1)");

bool kcsraw_lost_probe = true;
module_param_named(lost_probe, kcsraw_lost_probe, bool, 0644);
MODULE_PARM_DESC(lost_probe, "After a transaction gives up, fail requests at once (cc 0xff) and probe the BMC each second until it answers (default 1; 0: each request waits out its own timeouts)");

bool kcsraw_submit_start;
module_param_named(submit_start, kcsraw_submit_start, bool, 0644);
MODULE_PARM_DESC(submit_start, "Start a request submitted to an idle interface in the submitter, without waking the poller (default 0)");

/* Interfaces, and the poller placement applied to their threads. */
static DEFINE_MUTEX(kcsraw_mutex);
static struct kcsraw_iface *kcsraw_ifaces[KCSRAW_MAX_IFACES];
static int kcsraw_nifaces;
static struct cpumask kcsraw_cpus;
static bool kcsraw_cpus_set;
static int kcsraw_nice;

static int kcsraw_cpus_param_set(const char *val, const struct kernel_param *kp)
{
	struct cpumask mask;
	char buf[256];
	int i, ret;

	strscpy(buf, val, sizeof(buf));
	strim(buf);
	if (!*buf || !strcmp(buf, "all")) {
		cpumask_copy(&mask, cpu_possible_mask);
	} else {
		ret = cpulist_parse(buf, &mask);
		if (ret)
			return ret;
		if (!cpumask_intersects(&mask, cpu_online_mask))
			return -EINVAL;
	}
	mutex_lock(&kcsraw_mutex);
	for (i = 0; i < kcsraw_nifaces; i++) {
		ret = set_cpus_allowed_ptr(kcsraw_ifaces[i]->thread, &mask);
		if (ret) {
			mutex_unlock(&kcsraw_mutex);
			return ret;
		}
	}
	cpumask_copy(&kcsraw_cpus, &mask);
	kcsraw_cpus_set = true;
	mutex_unlock(&kcsraw_mutex);
	return 0;
}

static int kcsraw_cpus_param_get(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%*pbl\n", cpumask_pr_args(kcsraw_cpus_set ?
				&kcsraw_cpus : cpu_possible_mask));
}

static const struct kernel_param_ops kcsraw_cpus_ops = {
	.set = kcsraw_cpus_param_set,
	.get = kcsraw_cpus_param_get,
};
module_param_cb(poller_cpus, &kcsraw_cpus_ops, NULL, 0644);
MODULE_PARM_DESC(poller_cpus, "CPUs the poller threads may run on, a cpulist such as 0-1 or \"all\" (default all)");

static int kcsraw_nice_param_set(const char *val, const struct kernel_param *kp)
{
	int nice, i, ret;

	ret = kstrtoint(val, 0, &nice);
	if (ret)
		return ret;
	if (nice < MIN_NICE || nice > MAX_NICE)
		return -EINVAL;
	mutex_lock(&kcsraw_mutex);
	kcsraw_nice = nice;
	for (i = 0; i < kcsraw_nifaces; i++)
		set_user_nice(kcsraw_ifaces[i]->thread, nice);
	mutex_unlock(&kcsraw_mutex);
	return 0;
}

static const struct kernel_param_ops kcsraw_nice_ops = {
	.set = kcsraw_nice_param_set,
	.get = param_get_int,
};
module_param_cb(poller_nice, &kcsraw_nice_ops, &kcsraw_nice, 0644);
MODULE_PARM_DESC(poller_nice, "Nice level of the poller threads, -20..19 (default 0)");

/* One interface to bring up. */
struct kcsraw_cfg {
	unsigned long base;
	unsigned int spacing;
	unsigned int irq;
	bool from_dmi;
};

struct kcsraw_dmi_scan {
	struct kcsraw_cfg cfg[KCSRAW_MAX_IFACES];
	int n;
};

/* SMBIOS type 38 (IPMI Device Information). */
#define DMI_IPMI_TYPE		38
#define DMI_IPMI_IF_TYPE	0x04
#define DMI_IPMI_BASE		0x08
#define DMI_IPMI_BASE_MOD	0x10
#define DMI_IPMI_IRQ		0x11
#define DMI_IPMI_MIN_LEN	0x10
#define DMI_IPMI_FULL_LEN	0x12
#define DMI_IPMI_KCS		0x01

static void kcsraw_dmi_decode(const struct dmi_header *dh, void *data)
{
	struct kcsraw_dmi_scan *scan = data;
	const u8 *d = (const u8 *)dh;
	struct kcsraw_cfg *cfg;
	u64 addr;
	u8 mod;

	if (dh->type != DMI_IPMI_TYPE || dh->length < DMI_IPMI_MIN_LEN)
		return;
	if (d[DMI_IPMI_IF_TYPE] != DMI_IPMI_KCS)
		return;
	addr = get_unaligned_le64(d + DMI_IPMI_BASE);
	if (!(addr & 1)) {
		pr_info("SMBIOS: memory-mapped KCS at 0x%llx not supported, skipped\n",
			addr);
		return;
	}
	if (scan->n >= KCSRAW_MAX_IFACES)
		return;
	cfg = &scan->cfg[scan->n];
	cfg->base = addr & ~1ULL;
	cfg->spacing = 1;
	cfg->irq = 0;
	cfg->from_dmi = true;
	if (dh->length >= DMI_IPMI_FULL_LEN) {
		mod = d[DMI_IPMI_BASE_MOD];
		cfg->base |= (mod >> 4) & 1;
		switch (mod >> 6) {
		case 0:
			cfg->spacing = 1;
			break;
		case 1:
			cfg->spacing = 4;
			break;
		case 2:
			cfg->spacing = 16;
			break;
		default:
			pr_info("SMBIOS: KCS at 0x%lx has a reserved register spacing, skipped\n",
				cfg->base);
			return;
		}
		cfg->irq = d[DMI_IPMI_IRQ];
	}
	scan->n++;
}

static int kcsraw_cfg_cmp(const void *a, const void *b)
{
	const struct kcsraw_cfg *x = a, *y = b;

	return x->base < y->base ? -1 : x->base > y->base;
}

/*
 * Tear down in the reverse order of bring-up: no new opens; the BMC's
 * interrupt enables restored (a transaction: needs the poller); the poller
 * stopped (it aborts a transaction still in flight); only then the IRQ
 * released, as the poller may enable the line until it has stopped.
 */
static void kcsraw_iface_destroy(struct kcsraw_iface *ifc)
{
	unsigned long flags;

	/* After this no probe is queued (kcsraw_probe_queue()). */
	spin_lock_irqsave(&ifc->lock, flags);
	ifc->probe_stop = true;
	spin_unlock_irqrestore(&ifc->lock, flags);
	cancel_delayed_work_sync(&ifc->probe_work);
	kcsraw_smi_unregister(ifc);
	kcsraw_cdev_unregister(ifc);
	if (ifc->thread)
		kcsraw_irq_restore(ifc);
	kcsraw_poller_stop(ifc);
	/*
	 * The poller, the last that could give up on the BMC, is gone. A
	 * probe queued after probe_stop would run on freed memory: none
	 * can be, but if one were, say so and cancel it.
	 */
	WARN_ON_ONCE(cancel_delayed_work_sync(&ifc->probe_work));
	kcsraw_irq_free(ifc);
	kcsraw_io_release(ifc);
	kcsraw_smi_exit(ifc);
	kfree(ifc);
}

/*
 * The background probe's intervals: each second for three minutes (a BMC
 * reset or firmware update takes it away for 30-90 s, and a return must
 * be seen within about a second), then every 5 s.
 */
#define KCSRAW_PROBE_MS		1000
#define KCSRAW_PROBE_SLOW_MS	5000
#define KCSRAW_PROBE_FAST_FOR_MS	(180 * MSEC_PER_SEC)
#define KCSRAW_PROBE_GAP_MS	100

/*
 * Ask the BMC for its Device ID, the request marked as the probe's: it
 * runs while no BMC answers, with short timeouts and no retry. 0 when it
 * answers cc 0; otherwise the errno, and *cc the completion code.
 */
static int kcsraw_probe_bmc(struct kcsraw_iface *ifc, u8 *cc)
{
	static const u8 get_devid[] = { 0x06 << 2, 0x01 };
	struct kcsraw_req *req;
	int ret = 0;

	*cc = 0xff;
	req = kzalloc(sizeof(*req), GFP_KERNEL);
	if (!req)
		return -ENOMEM;
	req->internal = true;
	req->probe = true;
	init_completion(&req->done);
	kcsraw_default_policy(ifc, &req->pol);
	memcpy(req->req, get_devid, sizeof(get_devid));
	req->req_len = sizeof(get_devid);
	kcsraw_queue(ifc, req);
	wait_for_completion(&req->done);
	if (req->comp.status)
		ret = req->comp.status;
	else if (req->comp.resp_len < 3 || req->comp.resp[2])
		ret = -ENODEV;
	if (req->comp.resp_len >= 3)
		*cc = req->comp.resp[2];
	if (!ret && req->comp.resp_len >= 8)
		pr_info("%s: KCS at 0x%lx/0x%lx: BMC device id 0x%02x, IPMI %u.%u\n",
			ifc->name, ifc->base, ifc->base + ifc->spacing,
			req->comp.resp[3], req->comp.resp[7] & 0xf,
			req->comp.resp[7] >> 4);
	kfree(req);
	return ret;
}

/*
 * A watchdog pre-timeout flag left from before (a previous kernel, or
 * the time the BMC was away) would reach ipmi_watchdog at the first
 * SMS_ATN, which with preop_panic panics: clear it, as the stock driver
 * does when its interface starts.
 */
static void kcsraw_clear_wdt_flag(struct kcsraw_iface *ifc)
{
	static const u8 clear[] = { 0x06 << 2, 0x30, 0x08 };
	u8 resp[8];
	unsigned int len = sizeof(resp);

	if (kcsraw_xfer_sync(ifc, clear, sizeof(clear), resp, &len) ||
	    len < 3 || resp[2])
		pr_debug("%s: Clear Message Flags (watchdog pre-timeout) failed\n",
			 ifc->name);
}

/*
 * The BMC answers: requests run again. The first time, the interrupt and
 * the kernel's IPMI interface are set up (both need the BMC).
 */
static void kcsraw_bmc_up(struct kcsraw_iface *ifc)
{
	int was = READ_ONCE(ifc->bmc);

	WRITE_ONCE(ifc->bmc, KCSRAW_BMC_UP);
	if (was != KCSRAW_BMC_UP)
		pr_info("%s: BMC answers, after %lld ms without an answer\n",
			ifc->name, ktime_ms_delta(ktime_get(), ifc->bmc_since));
	kcsraw_clear_wdt_flag(ifc);
	if (ifc->bmc_ready)
		return;
	ifc->bmc_ready = true;
	kcsraw_irq_setup(ifc);
	kcsraw_smi_register(ifc);
	/* INFO says NOBMC until here: kcsmuxd binds the relay after it */
	WRITE_ONCE(ifc->bmc_setup, true);
}

/*
 * Queue the probe in @ms, unless the interface is going away. The check
 * and the queueing are one step under ifc->lock, which destroy takes to
 * set probe_stop: a transaction giving up while rmmod runs either queues
 * the probe before destroy's cancel, which then cancels it, or sees
 * probe_stop. (Checked first and queued after, the probe could be queued
 * between destroy's cancel and kfree(), and run on freed memory.)
 */
static void kcsraw_probe_queue(struct kcsraw_iface *ifc, s64 ms)
{
	unsigned long flags;

	spin_lock_irqsave(&ifc->lock, flags);
	if (!ifc->probe_stop)
		queue_delayed_work(system_long_wq, &ifc->probe_work,
				   msecs_to_jiffies(ms));
	spin_unlock_irqrestore(&ifc->lock, flags);
}

static void kcsraw_probe_fn(struct work_struct *work)
{
	struct kcsraw_iface *ifc = container_of(to_delayed_work(work),
						struct kcsraw_iface,
						probe_work);
	ktime_t t0 = ktime_get();
	s64 ms = KCSRAW_PROBE_MS;
	u8 cc;

	if (READ_ONCE(ifc->probe_stop) ||
	    READ_ONCE(ifc->bmc) == KCSRAW_BMC_UP)
		return;
	if (!kcsraw_probe_bmc(ifc, &cc)) {
		kcsraw_bmc_up(ifc);
		return;
	}
	WRITE_ONCE(ifc->probes, ifc->probes + 1);
	if (ktime_ms_delta(ktime_get(), ifc->bmc_since) >
	    KCSRAW_PROBE_FAST_FOR_MS)
		ms = KCSRAW_PROBE_SLOW_MS;
	/*
	 * The interval counts from the probe's start: a probe that waited
	 * out its timeout is followed at once, so the BMC's return is seen
	 * within about one probe timeout. At least KCSRAW_PROBE_GAP_MS
	 * between two, whatever they cost.
	 */
	ms = max_t(s64, ms - ktime_ms_delta(ktime_get(), t0),
		   KCSRAW_PROBE_GAP_MS);
	kcsraw_probe_queue(ifc, ms);
}

/*
 * A transaction gave up (the thread, after KCS_HOSED): with lost_probe,
 * the BMC counts as gone, as the stock driver's hosed state: requests
 * fail at once and the probe asks each second until it answers.
 */
void kcsraw_bmc_lost(struct kcsraw_iface *ifc)
{
	if (!READ_ONCE(kcsraw_lost_probe) || !ifc->bmc_ready ||
	    READ_ONCE(ifc->probe_stop) ||
	    cmpxchg(&ifc->bmc, KCSRAW_BMC_UP, KCSRAW_BMC_LOST) !=
	    KCSRAW_BMC_UP)
		return;
	ifc->bmc_since = ktime_get();
	pr_warn("%s: the BMC stopped answering: requests fail with cc 0xff until it answers Get Device ID again\n",
		ifc->name);
	kcsraw_fault_lost_delay(ifc);
	kcsraw_probe_queue(ifc, KCSRAW_PROBE_MS);
}

/*
 * At load: the BMC answers now, or the interface waits for it. Either
 * way /dev/kcsrawN stays; the kernel's IPMI interface comes once it does.
 */
static void kcsraw_bmc_start(struct kcsraw_iface *ifc)
{
	int ret;
	u8 cc;

	ifc->bmc_since = ktime_get();
	ret = kcsraw_probe_bmc(ifc, &cc);
	if (!ret) {
		kcsraw_bmc_up(ifc);
		return;
	}
	pr_warn("%s: no BMC answers Get Device ID at 0x%lx (%d, cc 0x%02x): waiting for the BMC\n",
		ifc->name, ifc->base, ret, cc);
	WRITE_ONCE(ifc->probes, 1);
	kcsraw_probe_queue(ifc, KCSRAW_PROBE_MS);
}

static int kcsraw_iface_create(const struct kcsraw_cfg *cfg, int index,
			       struct kcsraw_iface **out)
{
	struct kcsraw_iface *ifc;
	int ret;

	ifc = kzalloc(sizeof(*ifc), GFP_KERNEL);
	if (!ifc)
		return -ENOMEM;
	ifc->index = index;
	snprintf(ifc->name, sizeof(ifc->name), KCSRAW_NAME "%d", index);
	ifc->base = cfg->base;
	ifc->spacing = cfg->spacing;
	ifc->cfg_irq = cfg->irq;
	ifc->from_dmi = cfg->from_dmi;
	spin_lock_init(&ifc->lock);
	spin_lock_init(&ifc->irq_lock);
	raw_spin_lock_init(&ifc->sm_lock);
	ifc->obf_stash = -1;
	INIT_LIST_HEAD(&ifc->queue);
	INIT_LIST_HEAD(&ifc->files);
	atomic_set(&ifc->irq_pending, 0);
	ifc->bmc = KCSRAW_BMC_WAIT;
	INIT_DELAYED_WORK(&ifc->probe_work, kcsraw_probe_fn);

	ret = kcsraw_io_claim(ifc);
	if (ret)
		goto fail;
	if (kcsraw_io_status(ifc) == 0xff) {
		pr_err("%s: status register at 0x%lx reads 0xff: no KCS interface there\n",
		       ifc->name, ifc->base + ifc->spacing);
		ret = -ENODEV;
		goto fail;
	}

	kcs_sm_init(&ifc->sm, &kcsraw_port_ops, ifc);
	ret = kcsraw_smi_init(ifc);
	if (ret)
		goto fail;

	ret = kcsraw_poller_start(ifc, kcsraw_cpus_set ? &kcsraw_cpus : NULL,
				  kcsraw_nice);
	if (ret)
		goto fail;
	/*
	 * The device is registered by kcsraw_init() once all are up; the
	 * BMC is asked for then (kcsraw_bmc_start()).
	 */
	*out = ifc;
	return 0;
fail:
	kcsraw_iface_destroy(ifc);
	return ret;
}

static int kcsraw_gather(struct kcsraw_cfg *cfg, int *n)
{
	struct kcsraw_dmi_scan *scan;
	unsigned int i;
	int ret;

	*n = 0;
	if (num_ports) {
		for (i = 0; i < num_ports; i++) {
			cfg[i].base = ports[i];
			cfg[i].spacing = i < num_regspacing && regspacing[i] ?
					 regspacing[i] : 1;
			cfg[i].irq = i < num_irqs ? irqs[i] : 0;
			cfg[i].from_dmi = false;
			if (!cfg[i].base || cfg[i].spacing > 16) {
				pr_err("bad ports=/regspacing= entry %u\n", i);
				return -EINVAL;
			}
		}
		*n = num_ports;
		return 0;
	}
	if (!trydmi) {
		pr_err("no ports= given and trydmi=0: nothing to drive\n");
		return -ENODEV;
	}

	scan = kzalloc(sizeof(*scan), GFP_KERNEL);
	if (!scan)
		return -ENOMEM;
	ret = dmi_walk(kcsraw_dmi_decode, scan);
	if (ret || !scan->n) {
		pr_err("no KCS interface in SMBIOS (type 38); give ports=\n");
		kfree(scan);
		return -ENODEV;
	}
	/* SMBIOS order need not follow the ports: number them by port. */
	sort(scan->cfg, scan->n, sizeof(scan->cfg[0]), kcsraw_cfg_cmp, NULL);
	for (i = 0; i < scan->n; i++) {
		cfg[i] = scan->cfg[i];
		if (!useirq)
			cfg[i].irq = 0;
		pr_info("SMBIOS: KCS at 0x%lx, spacing %u, irq %u\n",
			cfg[i].base, cfg[i].spacing, cfg[i].irq);
	}
	*n = scan->n;
	kfree(scan);
	return 0;
}

static void kcsraw_destroy_all(void)
{
	mutex_lock(&kcsraw_mutex);
	while (kcsraw_nifaces > 0) {
		kcsraw_nifaces--;
		kcsraw_iface_destroy(kcsraw_ifaces[kcsraw_nifaces]);
		kcsraw_ifaces[kcsraw_nifaces] = NULL;
	}
	mutex_unlock(&kcsraw_mutex);
}

static int __init kcsraw_init(void)
{
	struct kcsraw_cfg cfg[KCSRAW_MAX_IFACES];
	struct kcsraw_iface *ifc;
	int n, i, ret, err = 0;

	ret = kcsraw_gather(cfg, &n);
	if (ret)
		return ret;

	mutex_lock(&kcsraw_mutex);
	for (i = 0; i < n; i++) {
		ret = kcsraw_iface_create(&cfg[i], kcsraw_nifaces, &ifc);
		if (ret) {
			/* Explicit ports must all work; SMBIOS ones may not. */
			if (!cfg[i].from_dmi) {
				mutex_unlock(&kcsraw_mutex);
				kcsraw_destroy_all();
				return ret;
			}
			err = ret;
			continue;
		}
		kcsraw_ifaces[kcsraw_nifaces++] = ifc;
	}
	if (!kcsraw_nifaces) {
		mutex_unlock(&kcsraw_mutex);
		return err ? err : -ENODEV;
	}
	/*
	 * Only now, with every interface up, make them visible: a load that
	 * fails above frees interfaces nobody can have opened.
	 */
	for (i = 0; i < kcsraw_nifaces; i++) {
		ret = kcsraw_cdev_register(kcsraw_ifaces[i]);
		if (ret) {
			pr_err("%s: cannot register the device (%d)\n",
			       kcsraw_ifaces[i]->name, ret);
			mutex_unlock(&kcsraw_mutex);
			kcsraw_destroy_all();
			return ret;
		}
	}
	/*
	 * The BMC, then the interrupt and the kernel's IPMI users: a failure
	 * leaves /dev/kcsrawN, and a BMC that does not answer yet is waited
	 * for in the background.
	 */
	for (i = 0; i < kcsraw_nifaces; i++)
		kcsraw_bmc_start(kcsraw_ifaces[i]);
	mutex_unlock(&kcsraw_mutex);
	kcsraw_fault_init();
	return 0;
}

static void __exit kcsraw_exit(void)
{
	kcsraw_fault_exit();
	kcsraw_destroy_all();
	kcsraw_fault_unshare_irq();
}

module_init(kcsraw_init);
module_exit(kcsraw_exit);

MODULE_DESCRIPTION("Raw IPMI KCS access with per-transaction polling policies");
MODULE_AUTHOR("kcsmux");
MODULE_LICENSE("GPL");
MODULE_VERSION(KCSRAW_VERSION);
