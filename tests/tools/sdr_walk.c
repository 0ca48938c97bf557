// SPDX-License-Identifier: GPL-2.0
/*
 * kcsmux-sdr-walk: SDR repository and FRU reads through /dev/ipmiN, for
 * the SDR cache's VM test (vm.daemon-sdrcache, docs/guest-tools.md).
 *
 *   compare DEV_A DEV_B [FRU_IDS]
 *       Reserve on each, then the same requests on both, each with its own
 *       reservation, and the answers (cc and data) compared byte for byte:
 *       Get SDR Repository Info; Get SDR for every record (ids walked on
 *       B), 0, 0xffff and absent ids, every offset from 0 to one past the
 *       record's end, each with count 0xff and a count that sweeps 0 to
 *       past the end; the same for the BMC's device SDRs (Get Device SDR
 *       04:21, reservation 0); for each FRU id (default 0): Get FRU
 *       Inventory Area Info and Read FRU Data at every offset (and one
 *       past the end), counts sweeping 0-40, and 0xff. Prints a summary
 *       line "records R device D compared N differ M"; exit 1 if any
 *       differ.
 *   lockstep DEV ROUNDS
 *       Two open files on DEV read the whole repository in lockstep in
 *       pieces of 7 bytes with offsets, each reserving anew at the start
 *       of every record (as ipmitool does on a retry): prints
 *       "reads N c5 M"; C5 answers are retried once after a new Reserve.
 *   list DEV
 *       Every record: "id len next" and its bytes in hex.
 *   raw DEV NETFN CMD [DATA...]
 *       One request; prints the answer "cc data..." in hex.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/ipmi.h>

static long msgid;

/* One request; the answer (cc + data) in resp, its length returned;
 * -1 on an error of the device. */
static int xfer(int fd, uint8_t netfn, uint8_t cmd, const uint8_t *data,
		unsigned int len, uint8_t *resp, unsigned int cap)
{
	struct ipmi_system_interface_addr si = {
		.addr_type = IPMI_SYSTEM_INTERFACE_ADDR_TYPE,
		.channel = IPMI_BMC_CHANNEL,
	};
	struct ipmi_req req = {
		.addr = (unsigned char *)&si,
		.addr_len = sizeof(si),
		.msgid = ++msgid,
		.msg = { .netfn = netfn,
			 .cmd = cmd,
			 .data_len = (unsigned short)len,
			 .data = (unsigned char *)data },
	};
	struct ipmi_addr ra;
	struct ipmi_recv rv;
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (ioctl(fd, IPMICTL_SEND_COMMAND, &req) < 0) {
		perror("IPMICTL_SEND_COMMAND");
		return -1;
	}
	for (;;) {
		if (poll(&p, 1, 10000) <= 0) {
			fprintf(stderr, "no answer to %02x:%02x\n", netfn, cmd);
			return -1;
		}
		memset(&rv, 0, sizeof(rv));
		rv.addr = (unsigned char *)&ra;
		rv.addr_len = sizeof(ra);
		rv.msg.data = resp;
		rv.msg.data_len = (unsigned short)cap;
		if (ioctl(fd, IPMICTL_RECEIVE_MSG_TRUNC, &rv) < 0) {
			if (errno == EAGAIN)
				continue;
			perror("IPMICTL_RECEIVE_MSG_TRUNC");
			return -1;
		}
		if (rv.recv_type == IPMI_RESPONSE_RECV_TYPE &&
		    rv.msgid == msgid)
			return rv.msg.data_len;
	}
}

static int open_dev(const char *path)
{
	int fd = open(path, O_RDWR);

	if (fd < 0) {
		perror(path);
		exit(2);
	}
	return fd;
}

static uint16_t reserve(int fd)
{
	uint8_t r[8];
	int n = xfer(fd, 0x0a, 0x22, NULL, 0, r, sizeof(r));

	if (n < 3 || r[0]) {
		fprintf(stderr, "Reserve SDR Repository failed\n");
		exit(2);
	}
	return (uint16_t)(r[1] | r[2] << 8);
}

/* Get SDR (0a:23), or Get Device SDR (04:21) when dev_sdr is set. */
static bool dev_sdr;

static int get_sdr(int fd, uint16_t res, uint16_t id, uint8_t off, uint8_t cnt,
		   uint8_t *resp, unsigned int cap)
{
	uint8_t d[6] = { (uint8_t)res, (uint8_t)(res >> 8),
			 (uint8_t)id,  (uint8_t)(id >> 8),
			 off,	       cnt };

	return dev_sdr ? xfer(fd, 0x04, 0x21, d, 6, resp, cap) :
			 xfer(fd, 0x0a, 0x23, d, 6, resp, cap);
}

static void hex(FILE *f, const uint8_t *p, int n)
{
	for (int i = 0; i < n; i++)
		fprintf(f, "%s%02x", i ? " " : "", p[i]);
}

static unsigned long compared, differ;

static void cmp_one(const char *what, int fa, int fb, uint8_t netfn,
		    uint8_t cmd, const uint8_t *da, const uint8_t *db,
		    unsigned int len)
{
	uint8_t ra[300], rb[300];
	int na = xfer(fa, netfn, cmd, da, len, ra, sizeof(ra));
	int nb = xfer(fb, netfn, cmd, db, len, rb, sizeof(rb));

	compared++;
	if (na == nb && na >= 0 && memcmp(ra, rb, (size_t)na) == 0)
		return;
	differ++;
	if (differ > 20)
		return;
	printf("DIFF %s: request ", what);
	hex(stdout, da, (int)len);
	printf("\n  A: ");
	hex(stdout, ra, na);
	printf("\n  B: ");
	hex(stdout, rb, nb);
	printf("\n");
}

/* The record ids, walked on fd (reservation 0: offset 0 reads). */
static int walk(int fd, uint16_t *ids, uint8_t *lens, int max)
{
	uint8_t r[300];
	uint16_t id = 0;
	int n, k = 0;

	while (k < max) {
		n = get_sdr(fd, 0, id, 0, 5, r, sizeof(r));
		if (n < 8 || r[0])
			return -1;
		ids[k] = (uint16_t)(r[3] | r[4] << 8);
		lens[k++] = (uint8_t)(r[7] + 5 > 255 ? 255 : r[7] + 5);
		id = (uint16_t)(r[1] | r[2] << 8);
		if (id == 0xffff)
			break;
	}
	return k;
}

/* Every record x offset x count of one repository (dev_sdr: the device
 * SDRs, read with reservation 0: ipmi_sim's population is static). */
static int compare_sdrs(int fa, int fb, const char *b)
{
	uint16_t ids[1100], ra = 0, rb = 0;
	uint8_t lens[1100];
	int nrec = walk(fb, ids, lens, 1024);

	if (nrec <= 0) {
		fprintf(stderr, "cannot walk the repository on %s\n", b);
		return -1;
	}
	ids[nrec] = 0xffff;
	lens[nrec] = lens[nrec - 1];
	nrec++;
	ids[nrec] = 0;
	lens[nrec] = lens[0];
	nrec++;
	ids[nrec] = 0x7ff3; /* absent */
	lens[nrec] = 8;
	nrec++;
	if (!dev_sdr) {
		ra = reserve(fa);
		rb = reserve(fb);
		cmp_one("repository info", fa, fb, 0x0a, 0x20, NULL, NULL, 0);
	}
	for (int k = 0; k < nrec; k++) {
		unsigned int len = lens[k];

		for (unsigned int off = 0; off <= len + 1 && off < 256; off++)
			for (int pass = 0; pass < 2; pass++) {
				uint8_t cnt =
					pass ? 0xff :
					       (uint8_t)((off * 7 +
							  (unsigned int)k) %
							 (len + 3));
				uint8_t da[6] = {
					(uint8_t)ra,	 (uint8_t)(ra >> 8),
					(uint8_t)ids[k], (uint8_t)(ids[k] >> 8),
					(uint8_t)off,	 cnt
				};
				uint8_t db[6];

				memcpy(db, da, 6);
				db[0] = (uint8_t)rb;
				db[1] = (uint8_t)(rb >> 8);
				if (dev_sdr)
					cmp_one("get device sdr", fa, fb, 0x04,
						0x21, da, db, 6);
				else
					cmp_one("get sdr", fa, fb, 0x0a, 0x23,
						da, db, 6);
			}
	}
	return nrec - 3;
}

static int cmd_compare(const char *a, const char *b, const char *frus)
{
	int fa = open_dev(a), fb = open_dev(b);
	unsigned long fru_ids = strtoul(frus ? frus : "1", NULL, 0);
	int nrec, ndev;

	nrec = compare_sdrs(fa, fb, b);
	dev_sdr = true;
	ndev = compare_sdrs(fa, fb, b);
	dev_sdr = false;
	if (nrec < 0 || ndev < 0)
		return 2;
	for (unsigned int id = 0; id < fru_ids && id < 256; id++) {
		uint8_t d[4] = { (uint8_t)id }, r[300];
		int n;
		unsigned int size;

		cmp_one("fru info", fa, fb, 0x0a, 0x10, d, d, 1);
		n = xfer(fb, 0x0a, 0x10, d, 1, r, sizeof(r));
		if (n < 4 || r[0])
			continue;
		size = (unsigned int)(r[1] | r[2] << 8);
		for (unsigned int off = 0; off <= size && off < 4096; off++) {
			d[1] = (uint8_t)off;
			d[2] = (uint8_t)(off >> 8);
			d[3] = off % 4 == 3 ? 0xff : (uint8_t)(off * 3 % 41);
			cmp_one("read fru", fa, fb, 0x0a, 0x11, d, d, 4);
		}
	}
	printf("records %d device %d compared %lu differ %lu\n", nrec, ndev,
	       compared, differ);
	return differ ? 1 : 0;
}

static int cmd_lockstep(const char *dev, int rounds)
{
	int fd[2] = { open_dev(dev), open_dev(dev) };
	uint16_t res[2], id[2], len[2], off[2];
	unsigned long reads = 0, c5 = 0;
	uint8_t r[300];
	bool done[2];
	int n;

	for (int round = 0; round < rounds; round++) {
		for (int i = 0; i < 2; i++) {
			id[i] = 0;
			off[i] = 0;
			len[i] = 0;
			done[i] = false;
		}
		while (!done[0] || !done[1]) {
			for (int i = 0; i < 2; i++) {
				uint8_t cnt;

				if (done[i])
					continue;
				if (off[i] == 0) /* a new record */
					res[i] = reserve(fd[i]);
				cnt = off[i] == 0 ? 5 : 7;
				n = get_sdr(fd[i], res[i], id[i],
					    (uint8_t)off[i], cnt, r, sizeof(r));
				reads++;
				if (n >= 1 && r[0] == 0xc5) {
					c5++;
					res[i] = reserve(fd[i]);
					n = get_sdr(fd[i], res[i], id[i],
						    (uint8_t)off[i], cnt, r,
						    sizeof(r));
					reads++;
				}
				if (n < 3 || r[0]) {
					fprintf(stderr,
						"read %04x+%u: cc "
						"%02x\n",
						id[i], off[i],
						n > 0 ? r[0] : 0xff);
					return 1;
				}
				if (off[i] == 0)
					len[i] = (uint16_t)(r[3 + 4] + 5);
				off[i] = (uint16_t)(off[i] + n - 3);
				if (off[i] >= len[i]) {
					id[i] = (uint16_t)(r[1] | r[2] << 8);
					off[i] = 0;
					done[i] = id[i] == 0xffff;
				}
			}
		}
	}
	printf("reads %lu c5 %lu\n", reads, c5);
	return 0;
}

static int cmd_list(const char *dev)
{
	int fd = open_dev(dev);
	uint16_t res = reserve(fd), id = 0, next;
	uint8_t r[300], rec[300];
	unsigned int len, off;
	int n;

	do {
		n = get_sdr(fd, res, id, 0, 5, r, sizeof(r));
		if (n < 8 || r[0])
			return 1;
		len = r[7] + 5u;
		next = (uint16_t)(r[1] | r[2] << 8);
		for (off = 0; off < len; off += (unsigned int)n - 3) {
			n = get_sdr(fd, res, id, (uint8_t)off, 16, r,
				    sizeof(r));
			if (n < 4 || r[0])
				return 1;
			memcpy(rec + off, r + 3, (size_t)n - 3);
		}
		printf("%04x %u %04x ", rec[0] | rec[1] << 8, len, next);
		hex(stdout, rec, (int)len);
		printf("\n");
		id = next;
	} while (id != 0xffff);
	return 0;
}

static int cmd_raw(const char *dev, int argc, char **argv)
{
	int fd = open_dev(dev), n;
	uint8_t d[64], r[300];
	unsigned int len = 0;

	if (argc < 2)
		return 2;
	for (int i = 2; i < argc && len < sizeof(d); i++)
		d[len++] = (uint8_t)strtoul(argv[i], NULL, 16);
	n = xfer(fd, (uint8_t)strtoul(argv[0], NULL, 16),
		 (uint8_t)strtoul(argv[1], NULL, 16), d, len, r, sizeof(r));
	if (n < 0)
		return 1;
	hex(stdout, r, n);
	printf("\n");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "compare"))
		return cmd_compare(argv[2], argv[3], argc > 4 ? argv[4] : NULL);
	if (argc == 4 && !strcmp(argv[1], "lockstep"))
		return cmd_lockstep(argv[2], atoi(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "list"))
		return cmd_list(argv[2]);
	if (argc >= 5 && !strcmp(argv[1], "raw"))
		return cmd_raw(argv[2], argc - 3, argv + 3);
	fprintf(stderr,
		"usage: kcsmux-sdr-walk compare DEV_A DEV_B [FRU_IDS] |"
		" lockstep DEV ROUNDS | list DEV | raw DEV NETFN CMD [DATA...]\n");
	return 2;
}
