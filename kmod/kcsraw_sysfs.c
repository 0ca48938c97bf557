// SPDX-License-Identifier: GPL-2.0
/*
 * kcsraw_sysfs.c - per-interface attributes of /sys/class/misc/kcsrawN.
 */
#include <linux/device.h>
#include <linux/sysfs.h>
#include <linux/sched.h>
#include "kcsraw_priv.h"

static struct kcsraw_iface *kcsraw_dev_iface(struct device *dev)
{
	struct miscdevice *misc = dev_get_drvdata(dev);

	return container_of(misc, struct kcsraw_iface, misc);
}

#define KCSRAW_STAT_ATTR(field)						\
static ssize_t field##_show(struct device *dev,				\
			    struct device_attribute *attr, char *buf)	\
{									\
	struct kcsraw_stats st;						\
									\
	kcsraw_get_stats(kcsraw_dev_iface(dev), &st);			\
	return sysfs_emit(buf, "%llu\n", (unsigned long long)st.field);	\
}									\
static struct device_attribute dev_attr_##field = {			\
	.attr = { .name = #field, .mode = 0444 },			\
	.show = field##_show,						\
}

KCSRAW_STAT_ATTR(transactions);
KCSRAW_STAT_ATTR(errors);
KCSRAW_STAT_ATTR(hosed);
KCSRAW_STAT_ATTR(cancelled);
KCSRAW_STAT_ATTR(retries);
KCSRAW_STAT_ATTR(timeouts);
KCSRAW_STAT_ATTR(spin_ns);
KCSRAW_STAT_ATTR(cpu_ns);
KCSRAW_STAT_ATTR(sleeps);
KCSRAW_STAT_ATTR(timer_wakeups);
KCSRAW_STAT_ATTR(irq_wakeups);
KCSRAW_STAT_ATTR(irqs);
KCSRAW_STAT_ATTR(latency_sum_ns);
KCSRAW_STAT_ATTR(latency_max_ns);
KCSRAW_STAT_ATTR(queue_sum_ns);
KCSRAW_STAT_ATTR(attn);
KCSRAW_STAT_ATTR(poller_runtime_ns);

static ssize_t ports_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct kcsraw_iface *ifc = kcsraw_dev_iface(dev);

	return sysfs_emit(buf, "0x%lx 0x%lx\n", ifc->base,
			  ifc->base + ifc->spacing);
}
static DEVICE_ATTR_RO(ports);

static ssize_t irq_show(struct device *dev, struct device_attribute *attr,
			char *buf)
{
	return sysfs_emit(buf, "%u\n", kcsraw_dev_iface(dev)->irq);
}
static DEVICE_ATTR_RO(irq);

static ssize_t source_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  kcsraw_dev_iface(dev)->from_dmi ? "smbios" : "param");
}
static DEVICE_ATTR_RO(source);

static ssize_t poller_pid_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct kcsraw_iface *ifc = kcsraw_dev_iface(dev);

	return sysfs_emit(buf, "%d\n", ifc->thread ? task_pid_nr(ifc->thread) : 0);
}
static DEVICE_ATTR_RO(poller_pid);

static ssize_t policy_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	struct kcsraw_policy p;

	kcsraw_default_policy(kcsraw_dev_iface(dev), &p);
	return sysfs_emit(buf, "max_busy_us=%u poll_us=%u poll_max_us=%u backoff=%s irq=%u\n",
			  p.max_busy_us, p.poll_us, p.poll_max_us,
			  p.backoff == KCSRAW_BACKOFF_EXP ? "exp" : "fixed",
			  !!(p.flags & KCSRAW_POL_IRQ));
}
static DEVICE_ATTR_RO(policy);

static struct attribute *kcsraw_attrs[] = {
	&dev_attr_transactions.attr,
	&dev_attr_errors.attr,
	&dev_attr_hosed.attr,
	&dev_attr_cancelled.attr,
	&dev_attr_retries.attr,
	&dev_attr_timeouts.attr,
	&dev_attr_spin_ns.attr,
	&dev_attr_cpu_ns.attr,
	&dev_attr_sleeps.attr,
	&dev_attr_timer_wakeups.attr,
	&dev_attr_irq_wakeups.attr,
	&dev_attr_irqs.attr,
	&dev_attr_latency_sum_ns.attr,
	&dev_attr_latency_max_ns.attr,
	&dev_attr_queue_sum_ns.attr,
	&dev_attr_attn.attr,
	&dev_attr_poller_runtime_ns.attr,
	&dev_attr_ports.attr,
	&dev_attr_irq.attr,
	&dev_attr_source.attr,
	&dev_attr_poller_pid.attr,
	&dev_attr_policy.attr,
	NULL,
};

static const struct attribute_group kcsraw_group = {
	.attrs = kcsraw_attrs,
};

const struct attribute_group *kcsraw_groups[] = {
	&kcsraw_group,
	NULL,
};
