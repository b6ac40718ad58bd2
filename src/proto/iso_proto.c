/* iso_proto.c — bounds-checked encoding and decoding of isod messages. */
#include "iso_proto.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "iso_proto_body.h"
#include "iso_proto_cur.h"

/* The largest TOP reply fits in one packet: header, err, text, status
 * (44), users (20), uids (12 each), event count, events (32 each),
 * threads (48 + 8 each). */
_Static_assert(ISO_PROTO_HDR_LEN + 6 + ISO_PROTO_TEXT_MAX + 44 + 20 + ISO_TOP_USERS * 12 + 4 +
		       ISO_TOP_EVENTS * 32 + ISO_TOP_THREADS * 56 <= ISO_PROTO_MAX_MSG,
	       "a full TOP reply must fit in ISO_PROTO_MAX_MSG");

static void put_header(struct cur *c, uint16_t type, uint32_t seq)
{
	uint32_t magic = ISO_PROTO_MAGIC, len = 0;
	uint16_t ver = ISO_PROTO_VERSION;

	PUT(c, magic);
	PUT(c, ver);
	PUT(c, type);
	PUT(c, len); /* patched by finish() */
	PUT(c, seq);
}

static int finish(struct cur *c)
{
	uint32_t len = (uint32_t)c->pos;

	if (c->bad)
		return -ENOSPC;
	memcpy(c->p + 8, &len, sizeof(len));
	return (int)len;
}

static int get_header(struct cur *c, uint16_t *type, uint32_t *seq)
{
	uint32_t magic, len;
	uint16_t ver;

	if (c->len < ISO_PROTO_HDR_LEN)
		return -EBADMSG;
	GET(c, magic);
	GET(c, ver);
	GET(c, *type);
	GET(c, len);
	GET(c, *seq);
	if (magic != ISO_PROTO_MAGIC || ver != ISO_PROTO_VERSION)
		return -EPROTO;
	if (len != c->len || len > ISO_PROTO_MAX_MSG)
		return -EBADMSG;
	return 0;
}

/* The body must have been read to its last byte: no short, no trailing. */
static int done(const struct cur *c)
{
	return (c->bad || c->pos != c->len) ? -EBADMSG : 0;
}

int iso_proto_encode_req(const struct iso_req *req, void *buf, size_t cap)
{
	struct cur c = { .p = buf, .len = cap };

	put_header(&c, req->type, req->seq);
	switch (req->type) {
	case ISO_MSG_SET:
		PUT(&c, req->u.set.pid);
		PUT(&c, req->u.set.tid);
		PUT(&c, req->u.set.policy);
		PUT(&c, req->u.set.prio);
		PUT(&c, req->u.set.limit);
		break;
	case ISO_MSG_GET:
		PUT(&c, req->u.get.pid);
		PUT(&c, req->u.get.tid);
		break;
	case ISO_MSG_STATUS:
		PUT(&c, req->u.status.offset);
		break;
	case ISO_MSG_TUNE:
		PUT(&c, req->u.tune.iso_cpu);
		PUT(&c, req->u.tune.iso_period_s);
		/* the third field only when set: an older isod knows 8 bytes */
		if (req->u.tune.has_user_cpu)
			PUT(&c, req->u.tune.user_cpu);
		break;
	case ISO_MSG_USERS:
		PUT(&c, req->u.users.offset);
		break;
	case ISO_MSG_TOP:
		PUT(&c, req->u.top.offset);
		break;
	case ISO_MSG_STRAYS:
		break; /* no body */
	case ISO_MSG_RESERVE:
		PUT(&c, req->u.reserve.pid);
		PUT(&c, req->u.reserve.tid);
		PUT(&c, req->u.reserve.prio);
		PUT(&c, req->u.reserve.flags);
		PUT(&c, req->u.reserve.runtime_ns);
		PUT(&c, req->u.reserve.deadline_ns);
		PUT(&c, req->u.reserve.period_ns);
		break;
	default:
		return -EINVAL;
	}
	return finish(&c);
}

void iso_proto_peek_header(const void *buf, size_t len, uint16_t *type, uint32_t *seq)
{
	struct cur c = { .rp = buf, .len = len };

	*type = 0;
	*seq = 0;
	/* the fields are read before magic, version and length are judged */
	(void)get_header(&c, type, seq);
}

int iso_proto_decode_req(const void *buf, size_t len, struct iso_req *req)
{
	struct cur c = { .rp = buf, .len = len };
	int r;

	memset(req, 0, sizeof(*req));
	r = get_header(&c, &req->type, &req->seq);
	if (r < 0)
		return r;
	switch (req->type) {
	case ISO_MSG_SET:
		GET(&c, req->u.set.pid);
		GET(&c, req->u.set.tid);
		GET(&c, req->u.set.policy);
		GET(&c, req->u.set.prio);
		GET(&c, req->u.set.limit);
		break;
	case ISO_MSG_GET:
		GET(&c, req->u.get.pid);
		GET(&c, req->u.get.tid);
		break;
	case ISO_MSG_STATUS:
		GET(&c, req->u.status.offset);
		break;
	case ISO_MSG_TUNE:
		GET(&c, req->u.tune.iso_cpu);
		GET(&c, req->u.tune.iso_period_s);
		if (!c.bad && c.len - c.pos == sizeof(req->u.tune.user_cpu)) {
			GET(&c, req->u.tune.user_cpu);
			req->u.tune.has_user_cpu = true;
		}
		break;
	case ISO_MSG_USERS:
		GET(&c, req->u.users.offset);
		break;
	case ISO_MSG_TOP:
		GET(&c, req->u.top.offset);
		break;
	case ISO_MSG_STRAYS:
		break;
	case ISO_MSG_RESERVE:
		GET(&c, req->u.reserve.pid);
		GET(&c, req->u.reserve.tid);
		GET(&c, req->u.reserve.prio);
		GET(&c, req->u.reserve.flags);
		GET(&c, req->u.reserve.runtime_ns);
		GET(&c, req->u.reserve.deadline_ns);
		GET(&c, req->u.reserve.period_ns);
		break;
	default:
		return -EOPNOTSUPP;
	}
	return done(&c);
}

int iso_proto_encode_reply(const struct iso_reply *rep, void *buf, size_t cap)
{
	struct cur c = { .p = buf, .len = cap };
	size_t tl = strnlen(rep->text, ISO_PROTO_TEXT_MAX);
	uint16_t textlen = (uint16_t)tl;
	uint16_t req = rep->type & (uint16_t)~ISO_MSG_REPLY;

	if (!(rep->type & ISO_MSG_REPLY))
		return -EINVAL;
	put_header(&c, rep->type, rep->seq);
	PUT(&c, rep->err);
	PUT(&c, textlen);
	put(&c, rep->text, tl);
	if (rep->err == 0) {
		switch (req) {
		case ISO_MSG_SET:
		case ISO_MSG_GET:
		case ISO_MSG_RESERVE:
			iso_body_put_thread(&c, &rep->thread);
			break;
		case ISO_MSG_STATUS:
		case ISO_MSG_TUNE:
			if (rep->status.count > ISO_PROTO_PAGE ||
			    (rep->status.count && !rep->threads) ||
			    (req == ISO_MSG_TUNE && rep->status.count))
				return -EINVAL;
			iso_body_put_status(&c, &rep->status);
			for (uint32_t i = 0; i < rep->status.count; i++)
				iso_body_put_thread(&c, &rep->threads[i]);
			break;
		case ISO_MSG_USERS:
			if (rep->users.count > ISO_PROTO_PAGE ||
			    (rep->users.count && !rep->user_list))
				return -EINVAL;
			iso_body_put_users(&c, &rep->users);
			for (uint32_t i = 0; i < rep->users.count; i++)
				iso_body_put_user(&c, &rep->user_list[i]);
			break;
		case ISO_MSG_TOP:
			if (iso_body_put_top(&c, rep->top) < 0)
				return -EINVAL;
			break;
		case ISO_MSG_STRAYS:
			iso_body_put_strays(&c, &rep->strays);
			break;
		default:
			return -EINVAL;
		}
	}
	return finish(&c);
}

int iso_proto_decode_reply(const void *buf, size_t len, struct iso_reply *rep)
{
	struct cur c = { .rp = buf, .len = len };
	struct iso_thread_info *threads = rep->threads;
	size_t cap = rep->threads_cap;
	struct iso_user_info *users = rep->user_list;
	size_t ucap = rep->user_cap;
	struct iso_top_info *top = rep->top;
	uint16_t textlen, req;
	int r;

	memset(rep, 0, sizeof(*rep));
	rep->threads = threads;
	rep->threads_cap = cap;
	rep->user_list = users;
	rep->user_cap = ucap;
	rep->top = top;
	r = get_header(&c, &rep->type, &rep->seq);
	if (r < 0)
		return r;
	if (!(rep->type & ISO_MSG_REPLY))
		return -EBADMSG;
	req = rep->type & (uint16_t)~ISO_MSG_REPLY;
	GET(&c, rep->err);
	GET(&c, textlen);
	if (c.bad || textlen > ISO_PROTO_TEXT_MAX)
		return -EBADMSG;
	get(&c, rep->text, textlen);
	rep->text[textlen] = '\0';
	if (rep->err > 0 || rep->err < -4095)
		return -EBADMSG;
	if (rep->err == 0) {
		switch (req) {
		case ISO_MSG_SET:
		case ISO_MSG_GET:
		case ISO_MSG_RESERVE:
			iso_body_get_thread(&c, &rep->thread);
			break;
		case ISO_MSG_STATUS:
		case ISO_MSG_TUNE:
			iso_body_get_status(&c, &rep->status);
			if (c.bad || rep->status.count > ISO_PROTO_PAGE)
				return -EBADMSG;
			for (uint32_t i = 0; i < rep->status.count; i++) {
				struct iso_thread_info t;

				iso_body_get_thread(&c, &t);
				if (i < cap && threads)
					threads[i] = t;
			}
			break;
		case ISO_MSG_USERS:
			iso_body_get_users(&c, &rep->users);
			if (c.bad || rep->users.count > ISO_PROTO_PAGE)
				return -EBADMSG;
			for (uint32_t i = 0; i < rep->users.count; i++) {
				struct iso_user_info u;

				iso_body_get_user(&c, &u);
				if (i < ucap && users)
					users[i] = u;
			}
			break;
		case ISO_MSG_TOP:
			if (iso_body_get_top(&c, top) < 0)
				return -EBADMSG;
			break;
		case ISO_MSG_STRAYS:
			if (iso_body_get_strays(&c, &rep->strays) < 0)
				return -EBADMSG;
			break;
		default:
			return -EOPNOTSUPP;
		}
	}
	return done(&c);
}
