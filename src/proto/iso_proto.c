/* iso_proto.c — bounds-checked encoding and decoding of isod messages. */
#include "iso_proto.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

/* The largest TOP reply fits in one packet: header, err, text, status
 * (44), users (20), uids (12 each), event count, events (32 each),
 * threads (48 + 8 each). */
_Static_assert(ISO_PROTO_HDR_LEN + 6 + ISO_PROTO_TEXT_MAX + 44 + 20 + ISO_TOP_USERS * 12 + 4 +
		       ISO_TOP_EVENTS * 32 + ISO_TOP_THREADS * 56 <= ISO_PROTO_MAX_MSG,
	       "a full TOP reply must fit in ISO_PROTO_MAX_MSG");

/* A cursor over a buffer; an overrun sets bad instead of touching memory. */
struct cur {
	unsigned char *p;
	const unsigned char *rp;
	size_t len, pos;
	bool bad;
};

static void put(struct cur *c, const void *v, size_t n)
{
	if (c->bad || c->len - c->pos < n) {
		c->bad = true;
		return;
	}
	memcpy(c->p + c->pos, v, n);
	c->pos += n;
}

static void get(struct cur *c, void *v, size_t n)
{
	if (c->bad || c->len - c->pos < n) {
		c->bad = true;
		memset(v, 0, n);
		return;
	}
	memcpy(v, c->rp + c->pos, n);
	c->pos += n;
}

#define PUT(c, v) put((c), &(v), sizeof(v))
#define GET(c, v) get((c), &(v), sizeof(v))

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
	default:
		return -EOPNOTSUPP;
	}
	return done(&c);
}

static void put_thread(struct cur *c, const struct iso_thread_info *t)
{
	PUT(c, t->tid);
	PUT(c, t->pid);
	PUT(c, t->uid);
	PUT(c, t->policy);
	PUT(c, t->prio);
	PUT(c, t->limit);
	PUT(c, t->kernel_policy);
	PUT(c, t->kernel_prio);
	PUT(c, t->user_prio);
	PUT(c, t->flags);
	PUT(c, t->cpu_ns);
}

static void get_thread(struct cur *c, struct iso_thread_info *t)
{
	GET(c, t->tid);
	GET(c, t->pid);
	GET(c, t->uid);
	GET(c, t->policy);
	GET(c, t->prio);
	GET(c, t->limit);
	GET(c, t->kernel_policy);
	GET(c, t->kernel_prio);
	GET(c, t->user_prio);
	GET(c, t->flags);
	GET(c, t->cpu_ns);
}

static void put_status(struct cur *c, const struct iso_status_info *s)
{
	PUT(c, s->iso_cpu);
	PUT(c, s->iso_period_s);
	PUT(c, s->band_lo);
	PUT(c, s->band_hi);
	PUT(c, s->usage_milli);
	PUT(c, s->refractory);
	PUT(c, s->ncpus);
	PUT(c, s->sample_us);
	PUT(c, s->total);
	PUT(c, s->offset);
	PUT(c, s->count);
}

static void get_status(struct cur *c, struct iso_status_info *s)
{
	GET(c, s->iso_cpu);
	GET(c, s->iso_period_s);
	GET(c, s->band_lo);
	GET(c, s->band_hi);
	GET(c, s->usage_milli);
	GET(c, s->refractory);
	GET(c, s->ncpus);
	GET(c, s->sample_us);
	GET(c, s->total);
	GET(c, s->offset);
	GET(c, s->count);
}

/* USERS: the share, then count entries of three u32 each. */
static void put_users(struct cur *c, const struct iso_users_info *u)
{
	PUT(c, u->user_cpu);
	PUT(c, u->share_milli);
	PUT(c, u->total);
	PUT(c, u->offset);
	PUT(c, u->count);
}

static void get_users(struct cur *c, struct iso_users_info *u)
{
	GET(c, u->user_cpu);
	GET(c, u->share_milli);
	GET(c, u->total);
	GET(c, u->offset);
	GET(c, u->count);
}

static void put_user(struct cur *c, const struct iso_user_info *u)
{
	PUT(c, u->uid);
	PUT(c, u->usage_milli);
	PUT(c, u->flags);
}

static void get_user(struct cur *c, struct iso_user_info *u)
{
	GET(c, u->uid);
	GET(c, u->usage_milli);
	GET(c, u->flags);
}

static void put_event(struct cur *c, const struct iso_event *e)
{
	PUT(c, e->seq);
	PUT(c, e->kind);
	PUT(c, e->time_ms);
	PUT(c, e->tid);
	PUT(c, e->pid);
	PUT(c, e->uid);
	PUT(c, e->value);
}

static void get_event(struct cur *c, struct iso_event *e)
{
	GET(c, e->seq);
	GET(c, e->kind);
	GET(c, e->time_ms);
	GET(c, e->tid);
	GET(c, e->pid);
	GET(c, e->uid);
	GET(c, e->value);
}

/* STRAYS: 2 u32 (policing 0 or 1, reserved 0), 5 u64 counts. */
static void put_strays(struct cur *c, const struct iso_strays_info *s)
{
	PUT(c, s->policing);
	PUT(c, s->reserved);
	PUT(c, s->demoted);
	PUT(c, s->suppressed);
	PUT(c, s->exiting);
	PUT(c, s->lost);
	PUT(c, s->sweeps);
}

static int get_strays(struct cur *c, struct iso_strays_info *s)
{
	GET(c, s->policing);
	GET(c, s->reserved);
	GET(c, s->demoted);
	GET(c, s->suppressed);
	GET(c, s->exiting);
	GET(c, s->lost);
	GET(c, s->sweeps);
	return s->policing > 1 || s->reserved || s->suppressed > s->demoted ? -EBADMSG : 0;
}

/* TOP: status, users, uids, events, threads with their counters. */
static int put_top(struct cur *c, const struct iso_top_info *t)
{
	if (!t || t->status.count > ISO_TOP_THREADS || t->users.count > ISO_TOP_USERS ||
	    t->nevents > ISO_TOP_EVENTS)
		return -EINVAL;
	put_status(c, &t->status);
	put_users(c, &t->users);
	for (uint32_t i = 0; i < t->users.count; i++)
		put_user(c, &t->user_list[i]);
	PUT(c, t->nevents);
	for (uint32_t i = 0; i < t->nevents; i++)
		put_event(c, &t->events[i]);
	for (uint32_t i = 0; i < t->status.count; i++) {
		put_thread(c, &t->threads[i].info);
		PUT(c, t->threads[i].demotions);
		PUT(c, t->threads[i].cpu_milli);
	}
	return 0;
}

/* Into t, or, when t is NULL, into scratch space: checked all the same. */
static int get_top(struct cur *c, struct iso_top_info *t)
{
	struct iso_status_info st;
	struct iso_users_info us;
	uint32_t nev;

	get_status(c, &st);
	get_users(c, &us);
	if (c->bad || st.count > ISO_TOP_THREADS || us.count > ISO_TOP_USERS)
		return -EBADMSG;
	if (t) {
		t->status = st;
		t->users = us;
	}
	for (uint32_t i = 0; i < us.count; i++) {
		struct iso_user_info u;

		get_user(c, &u);
		if (t)
			t->user_list[i] = u;
	}
	GET(c, nev);
	if (c->bad || nev > ISO_TOP_EVENTS)
		return -EBADMSG;
	if (t)
		t->nevents = nev;
	for (uint32_t i = 0; i < nev; i++) {
		struct iso_event e;

		get_event(c, &e);
		if (t)
			t->events[i] = e;
	}
	for (uint32_t i = 0; i < st.count; i++) {
		struct iso_top_thread th;

		get_thread(c, &th.info);
		GET(c, th.demotions);
		GET(c, th.cpu_milli);
		if (t)
			t->threads[i] = th;
	}
	return 0;
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
			put_thread(&c, &rep->thread);
			break;
		case ISO_MSG_STATUS:
		case ISO_MSG_TUNE:
			if (rep->status.count > ISO_PROTO_PAGE ||
			    (rep->status.count && !rep->threads) ||
			    (req == ISO_MSG_TUNE && rep->status.count))
				return -EINVAL;
			put_status(&c, &rep->status);
			for (uint32_t i = 0; i < rep->status.count; i++)
				put_thread(&c, &rep->threads[i]);
			break;
		case ISO_MSG_USERS:
			if (rep->users.count > ISO_PROTO_PAGE ||
			    (rep->users.count && !rep->user_list))
				return -EINVAL;
			put_users(&c, &rep->users);
			for (uint32_t i = 0; i < rep->users.count; i++)
				put_user(&c, &rep->user_list[i]);
			break;
		case ISO_MSG_TOP:
			if (put_top(&c, rep->top) < 0)
				return -EINVAL;
			break;
		case ISO_MSG_STRAYS:
			put_strays(&c, &rep->strays);
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
			get_thread(&c, &rep->thread);
			break;
		case ISO_MSG_STATUS:
		case ISO_MSG_TUNE:
			get_status(&c, &rep->status);
			if (c.bad || rep->status.count > ISO_PROTO_PAGE)
				return -EBADMSG;
			for (uint32_t i = 0; i < rep->status.count; i++) {
				struct iso_thread_info t;

				get_thread(&c, &t);
				if (i < cap && threads)
					threads[i] = t;
			}
			break;
		case ISO_MSG_USERS:
			get_users(&c, &rep->users);
			if (c.bad || rep->users.count > ISO_PROTO_PAGE)
				return -EBADMSG;
			for (uint32_t i = 0; i < rep->users.count; i++) {
				struct iso_user_info u;

				get_user(&c, &u);
				if (i < ucap && users)
					users[i] = u;
			}
			break;
		case ISO_MSG_TOP:
			if (get_top(&c, top) < 0)
				return -EBADMSG;
			break;
		case ISO_MSG_STRAYS:
			if (get_strays(&c, &rep->strays) < 0)
				return -EBADMSG;
			break;
		default:
			return -EOPNOTSUPP;
		}
	}
	return done(&c);
}
