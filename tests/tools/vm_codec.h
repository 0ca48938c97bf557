/* SPDX-License-Identifier: MIT */
/*
 * Frame splitting for the "VM" codec spoken between QEMU's ipmi-bmc-extern
 * device and an external BMC (OpenIPMI's ipmi_sim, `codec VM`).
 *
 * Wire format (checked against QEMU hw/ipmi/ipmi_bmc_extern.c and OpenIPMI
 * lanserv/serial_ipmi.c):
 *   - a frame is a run of bytes ended by a terminator:
 *       0xA0  end of an IPMI message,
 *       0xA1  end of a control command (version, capabilities, attention...);
 *   - 0xAA escapes the next byte: the sender emits 0xAA then (byte | 0x10)
 *     for any of 0xA0, 0xA1, 0xAA inside a frame; the receiver clears bit 4
 *     of the byte that follows an escape;
 *   - a message decodes to  seq, netfn << 2 | lun, cmd, data..., checksum,
 *     where checksum makes the byte sum of the whole decoded frame 0 (mod 256).
 *     Responses carry the completion code as the first data byte.
 *
 * The parser is incremental: feed it arbitrary chunks of a byte stream and it
 * reports each frame when its terminator arrives, keeping both the raw wire
 * bytes (to forward verbatim) and the decoded bytes (to inspect).
 * Pure logic, no I/O.
 */
#ifndef KCSMUX_VM_CODEC_H
#define KCSMUX_VM_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VM_MSG_END    0xA0u
#define VM_CMD_END    0xA1u
#define VM_ESCAPE     0xAAu
#define VM_ESCAPE_BIT 0x10u

/* Control command codes (first decoded byte of a 0xA1 frame). */
#define VM_CMD_NOATTN	    0x00u
#define VM_CMD_ATTN	    0x01u
#define VM_CMD_ATTN_IRQ	    0x02u
#define VM_CMD_POWEROFF	    0x03u
#define VM_CMD_RESET	    0x04u
#define VM_CMD_ENABLE_IRQ   0x05u
#define VM_CMD_DISABLE_IRQ  0x06u
#define VM_CMD_SEND_NMI	    0x07u
#define VM_CMD_CAPABILITIES 0x08u
#define VM_CMD_VERSION	    0xFFu

/*
 * Largest decoded frame kept. QEMU's limit is 300 bytes of IPMI message plus
 * seq and checksum; anything longer is marked truncated.
 */
#define VM_DATA_MAX 512u
/* Largest raw (escaped) frame kept, terminator included. */
#define VM_RAW_MAX (2u * VM_DATA_MAX + 2u)

enum vm_frame_kind {
	VM_FRAME_MSG, /* ended by 0xA0 */
	VM_FRAME_CMD, /* ended by 0xA1 */
};

struct vm_frame {
	enum vm_frame_kind kind;
	const uint8_t *raw; /* wire bytes including the terminator */
	size_t raw_len;
	const uint8_t *data; /* decoded bytes, terminator excluded */
	size_t data_len;
	bool truncated;	 /* longer than VM_RAW_MAX/VM_DATA_MAX: raw/data cut */
	bool bad_escape; /* an escape was directly followed by a terminator */
};

struct vm_parser {
	uint8_t raw[VM_RAW_MAX];
	size_t raw_len;
	uint8_t data[VM_DATA_MAX];
	size_t data_len;
	bool in_escape;
	bool truncated;
	/* state of the frame last returned, reset lazily on the next call */
	bool frame_done;
	bool last_bad_escape;
	uint64_t bytes_in; /* total bytes consumed, for diagnostics */
};

void vm_parser_init(struct vm_parser *p);

/* Forget any partial frame (e.g. after the peer reconnected). */
void vm_parser_reset(struct vm_parser *p);

/* True when bytes of an unfinished frame are buffered. */
bool vm_parser_mid_frame(const struct vm_parser *p);

/*
 * Consume bytes from buf[0..len) up to and including the next terminator.
 * Sets *consumed to the number of bytes used. Returns true and fills *out
 * when a frame was completed (its pointers stay valid until the next call on
 * this parser), false when all len bytes were consumed without completing one.
 */
bool vm_parser_next(struct vm_parser *p, const uint8_t *buf, size_t len,
		    size_t *consumed, struct vm_frame *out);

/* Two's-complement checksum: the byte that makes sum(data) + it == 0. */
uint8_t vm_checksum(const uint8_t *data, size_t len);

/*
 * Encode a frame: escape data[0..len) and append the terminator for kind.
 * Returns the encoded length, or 0 if it would not fit in cap bytes.
 * The worst case is 2 * len + 1.
 */
size_t vm_encode(enum vm_frame_kind kind, const uint8_t *data, size_t len,
		 uint8_t *out, size_t cap);

/*
 * Encode an IPMI message: seq, netfn << 2 | lun, cmd, payload..., checksum,
 * 0xA0. Returns the encoded length or 0 if it does not fit.
 */
size_t vm_encode_msg(uint8_t seq, uint8_t netfn, uint8_t lun, uint8_t cmd,
		     const uint8_t *payload, size_t payload_len, uint8_t *out,
		     size_t cap);

struct vm_msg_info {
	uint8_t seq;
	uint8_t netfn; /* 6 bits; odd = response */
	uint8_t lun;
	uint8_t cmd;
	bool checksum_ok;
	size_t payload_len; /* bytes between cmd and checksum */
};

/*
 * Decode the header of a message frame's decoded bytes. Returns false if the
 * frame is too short (< 4 bytes: seq, netfn/lun, cmd, checksum).
 */
bool vm_msg_parse(const uint8_t *data, size_t len, struct vm_msg_info *info);

#endif
