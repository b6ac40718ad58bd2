/* iso_proto_cur.h — the bounds cursor every part of the wire code reads
 * and writes through (private to src/proto). An overrun sets bad instead
 * of touching memory; the caller checks bad once at the end. Static
 * inline: nothing of it is a symbol of libisosched. */
#ifndef ISO_PROTO_CUR_H
#define ISO_PROTO_CUR_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

struct cur {
	unsigned char *p;
	const unsigned char *rp;
	size_t len, pos;
	bool bad;
};

static inline void put(struct cur *c, const void *v, size_t n)
{
	if (c->bad || c->len - c->pos < n) {
		c->bad = true;
		return;
	}
	memcpy(c->p + c->pos, v, n);
	c->pos += n;
}

static inline void get(struct cur *c, void *v, size_t n)
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

#endif
