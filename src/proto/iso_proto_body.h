/* iso_proto_body.h — the reply bodies' encoders and decoders (threads,
 * status, users, events, strays, TOP), private to src/proto: iso_proto.c
 * frames them. A put writes through the cursor (an overrun marks it bad);
 * a get of a body with counts returns -EBADMSG for a count out of range,
 * else 0. */
#ifndef ISO_PROTO_BODY_H
#define ISO_PROTO_BODY_H

#include "isosched.h" /* the records */
#include "iso_proto_cur.h"

void iso_body_put_thread(struct cur *c, const struct iso_thread_info *t);
void iso_body_get_thread(struct cur *c, struct iso_thread_info *t);
void iso_body_put_status(struct cur *c, const struct iso_status_info *s);
void iso_body_get_status(struct cur *c, struct iso_status_info *s);
void iso_body_put_users(struct cur *c, const struct iso_users_info *u);
void iso_body_get_users(struct cur *c, struct iso_users_info *u);
void iso_body_put_user(struct cur *c, const struct iso_user_info *u);
void iso_body_get_user(struct cur *c, struct iso_user_info *u);
void iso_body_put_event(struct cur *c, const struct iso_event *e);
void iso_body_get_event(struct cur *c, struct iso_event *e);
void iso_body_put_strays(struct cur *c, const struct iso_strays_info *s);
int iso_body_get_strays(struct cur *c, struct iso_strays_info *s);
int iso_body_put_top(struct cur *c, const struct iso_top_info *t);
int iso_body_get_top(struct cur *c, struct iso_top_info *t);

#endif
