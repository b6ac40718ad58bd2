/* iso_proto.h — the isod wire protocol (see docs/protocol.md): fixed-layout
 * binary messages in host byte order over a SOCK_SEQPACKET Unix socket, one
 * message per packet. Pure encode/decode; every decoder checks lengths and
 * ranges, so the daemon can hand it any bytes a client sends.
 *
 * Return contract: encoders return the message length (> 0) or -ENOSPC /
 * -EINVAL; decoders return 0 or -EBADMSG (malformed) / -EPROTO (wrong
 * magic or version) / -EOPNOTSUPP (unknown type).
 */
#ifndef ISO_PROTO_H
#define ISO_PROTO_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "isosched.h" /* the thread and status records */

#define ISO_PROTO_MAGIC 0x534f5349u /* "ISOS" in little-endian memory */
#define ISO_PROTO_VERSION 1
#define ISO_PROTO_HDR_LEN 16
#define ISO_PROTO_MAX_MSG 16384 /* no packet is larger, either way */
#define ISO_PROTO_TEXT_MAX 200  /* human-readable message in a reply */
#define ISO_PROTO_PAGE 256      /* thread entries per status reply, uids per users reply */

enum iso_msg_type {
	ISO_MSG_SET = 1,    /* put a thread into ISO / back to SCHED_OTHER */
	ISO_MSG_GET = 2,    /* one thread's state */
	ISO_MSG_STATUS = 3, /* budget, tunables and a page of threads */
	ISO_MSG_TUNE = 4,   /* change iso_cpu / iso_period (root only) */
	ISO_MSG_USERS = 5,  /* per-user shares: user_cpu and a page of uids' use */
	ISO_MSG_TOP = 6,    /* all isoctl top shows: status, shares, events, threads */
	ISO_MSG_STRAYS = 7, /* the stray auditor's counts (empty request body) */
	ISO_MSG_RESERVE = 8, /* a declared reservation: SCHED_DEADLINE (iso_reserve.h) */
	ISO_MSG_REPLY = 0x8000, /* or-ed onto the request type */
};

struct iso_req {
	uint16_t type;
	uint32_t seq;
	union {
		struct {
			int32_t pid;    /* 0: the process that owns tid */
			int32_t tid;    /* caller's PID namespace; 0: caller */
			int32_t policy; /* ISO_RR, ISO_FIFO, FIFO, RR, NORMAL */
			int32_t prio;
			int32_t limit;  /* own CPU limit %, 0: iso_cpu */
		} set;
		struct {
			int32_t pid;
			int32_t tid;
		} get;
		struct {
			uint32_t offset; /* first thread entry wanted */
		} status;
		struct {
			int32_t iso_cpu;      /* 0: unchanged */
			int32_t iso_period_s; /* 0: unchanged */
			/* optional third field, a 12-byte body (older isods
			 * know the 8-byte one): sent / present when has_user_cpu */
			bool has_user_cpu;
			int32_t user_cpu;     /* 0..100, 0: per-user shares off */
		} tune;
		struct {
			uint32_t offset; /* first uid entry wanted */
		} users;
		struct {
			uint32_t offset; /* first thread entry wanted */
		} top;
		struct {
			int32_t pid;     /* as set */
			int32_t tid;
			int32_t prio;    /* ISO_FIFO priority where DEADLINE cannot
					  * serve; 0: 99 */
			uint32_t flags;  /* 0 (none defined) */
			uint64_t runtime_ns, deadline_ns, period_ns;
		} reserve;
	} u;
};

struct iso_reply {
	uint16_t type; /* request type | ISO_MSG_REPLY */
	uint32_t seq;
	int32_t err;   /* 0 or -errno */
	char text[ISO_PROTO_TEXT_MAX + 1];
	/* SET, GET, RESERVE: */
	struct iso_thread_info thread;
	/* STATUS, TUNE: */
	struct iso_status_info status;
	/* STATUS: status.count entries. The encoder reads them from here; the
	 * decoder writes at most threads_cap of them here (may be NULL). */
	struct iso_thread_info *threads;
	size_t threads_cap;
	/* USERS: users.count entries, read from / written to user_list as
	 * threads are (at most user_cap of them when decoding). */
	struct iso_users_info users;
	struct iso_user_info *user_list;
	size_t user_cap;
	/* TOP: read from here when encoding (must be set), written here
	 * when decoding (may be NULL: then only checked) */
	struct iso_top_info *top;
	/* STRAYS: */
	struct iso_strays_info strays;
};

int iso_proto_encode_req(const struct iso_req *req, void *buf, size_t cap);
int iso_proto_decode_req(const void *buf, size_t len, struct iso_req *req);
/* The type and sequence number of a message that did not decode, so the
 * error reply can name them; 0 and 0 when it is shorter than a header. */
void iso_proto_peek_header(const void *buf, size_t len, uint16_t *type, uint32_t *seq);
int iso_proto_encode_reply(const struct iso_reply *rep, void *buf, size_t cap);
int iso_proto_decode_reply(const void *buf, size_t len, struct iso_reply *rep);

#endif
