// SPDX-License-Identifier: GPL-2.0
/*
 * kcsraw_io.c - port I/O register access and I/O region ownership.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <linux/printk.h>
#include "kcsraw_priv.h"

static unsigned long kcsraw_reg_port(struct kcsraw_iface *ifc, unsigned int reg)
{
	return ifc->base + reg * ifc->spacing;
}

static u8 kcsraw_inb(void *ctx, unsigned int reg)
{
	return inb(kcsraw_reg_port(ctx, reg));
}

static void kcsraw_outb(void *ctx, unsigned int reg, u8 val)
{
	outb(val, kcsraw_reg_port(ctx, reg));
}

const struct kcs_io_ops kcsraw_port_ops = {
	.inb = kcsraw_inb,
	.outb = kcsraw_outb,
};

u8 kcsraw_io_status(struct kcsraw_iface *ifc)
{
	return kcsraw_inb(ifc, KCS_REG_STATUS);
}

/*
 * Name the innermost resource that covers @port, for the error message.
 * The resource tree may only be walked under resource_lock, which is not
 * exported to modules; /proc/ioports prints the tree under that lock, so
 * read it there (lines "  0ca2-0ca2 : ipmi_si", indented by depth). Done
 * once, on a failed load, in the context of the process loading the
 * module; "another driver" when /proc is not there.
 */
#define KCSRAW_IOPORTS_MAX	(64 * 1024)

static void kcsraw_port_holder(unsigned long port, char *buf, size_t len)
{
	unsigned long start, end;
	int depth, best = -1, n;
	struct file *f;
	char *text, *line, *next, *name;
	loff_t pos = 0;
	ssize_t got;

	strscpy(buf, "another driver", len);
	text = kvmalloc(KCSRAW_IOPORTS_MAX, GFP_KERNEL);
	if (!text)
		return;
	f = filp_open("/proc/ioports", O_RDONLY, 0);
	if (IS_ERR(f))
		goto out;
	got = kernel_read(f, text, KCSRAW_IOPORTS_MAX - 1, &pos);
	filp_close(f, NULL);
	if (got <= 0)
		goto out;
	text[got] = '\0';
	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		depth = strspn(line, " ");
		if (sscanf(line + depth, "%lx-%lx : %n", &start, &end, &n) != 2 ||
		    port < start || port > end || depth <= best)
			continue;
		name = strim(line + depth + n);
		if (*name) {
			strscpy(buf, name, len);
			best = depth;
		}
	}
out:
	kvfree(text);
}

void kcsraw_io_release(struct kcsraw_iface *ifc)
{
	while (ifc->regions > 0) {
		ifc->regions--;
		release_region(kcsraw_reg_port(ifc, ifc->regions), 1);
	}
}

/*
 * Claim the data and status/command registers (one byte each, like the
 * stock driver, so that register spacing is honoured). -EBUSY with a
 * message naming the holder when another driver owns them.
 */
int kcsraw_io_claim(struct kcsraw_iface *ifc)
{
	char holder[64];
	unsigned long port;

	for (ifc->regions = 0; ifc->regions < 2; ifc->regions++) {
		port = kcsraw_reg_port(ifc, ifc->regions);
		if (request_region(port, 1, KCSRAW_NAME))
			continue;
		kcsraw_port_holder(port, holder, sizeof(holder));
		pr_err("I/O port 0x%lx of the KCS interface at 0x%lx is in use by \"%s\"; release it first (rmmod ipmi_si, or keep ipmi_si off this interface with ipmi_si.ports=/trydmi=0/tryacpi=0 in /etc/modprobe.d)\n",
		       port, ifc->base, holder);
		kcsraw_io_release(ifc);
		return -EBUSY;
	}
	return 0;
}
