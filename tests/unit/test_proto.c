/* Wire protocol: round trips, and every malformed input rejected. */
#include <errno.h>
#include <stdio.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "iso_proto.h"

static void test_request_roundtrip(void **state)
{
	unsigned char buf[ISO_PROTO_MAX_MSG];
	struct iso_req in = { .type = ISO_MSG_SET, .seq = 7 }, out;
	int n;
	(void)state;
	in.u.set.pid = 10;
	in.u.set.tid = 11;
	in.u.set.policy = ISO_SCHED_ISO_FIFO;
	in.u.set.prio = 50;
	in.u.set.limit = 60;
	n = iso_proto_encode_req(&in, buf, sizeof(buf));
	assert_int_equal(n, ISO_PROTO_HDR_LEN + 20);
	assert_int_equal(iso_proto_decode_req(buf, (size_t)n, &out), 0);
	assert_int_equal(out.type, ISO_MSG_SET);
	assert_int_equal(out.seq, 7);
	assert_int_equal(out.u.set.tid, 11);
	assert_int_equal(out.u.set.policy, ISO_SCHED_ISO_FIFO);
	assert_int_equal(out.u.set.limit, 60);

	in.type = ISO_MSG_STATUS;
	in.u.status.offset = 3;
	n = iso_proto_encode_req(&in, buf, sizeof(buf));
	assert_true(n > 0);
	assert_int_equal(iso_proto_decode_req(buf, (size_t)n, &out), 0);
	assert_int_equal(out.u.status.offset, 3);

	in.type = 99;
	assert_int_equal(iso_proto_encode_req(&in, buf, sizeof(buf)), -EINVAL);
	in.type = ISO_MSG_GET;
	assert_int_equal(iso_proto_encode_req(&in, buf, 10), -ENOSPC);
}

static void test_request_malformed(void **state)
{
	unsigned char buf[64], bad[64];
	struct iso_req in = { .type = ISO_MSG_GET, .seq = 1 }, out;
	uint32_t v;
	int n;
	(void)state;
	n = iso_proto_encode_req(&in, buf, sizeof(buf));
	assert_true(n > 0);
	/* every truncation */
	for (int len = 0; len < n; len++)
		assert_true(iso_proto_decode_req(buf, (size_t)len, &out) < 0);
	/* trailing bytes, with the length field telling the truth or not */
	memcpy(bad, buf, (size_t)n);
	bad[n] = 0;
	assert_int_equal(iso_proto_decode_req(bad, (size_t)n + 1, &out), -EBADMSG);
	v = (uint32_t)n + 1;
	memcpy(bad + 8, &v, 4);
	assert_int_equal(iso_proto_decode_req(bad, (size_t)n + 1, &out), -EBADMSG);
	/* wrong magic, wrong version, unknown type */
	memcpy(bad, buf, (size_t)n);
	bad[0] ^= 1;
	assert_int_equal(iso_proto_decode_req(bad, (size_t)n, &out), -EPROTO);
	memcpy(bad, buf, (size_t)n);
	bad[4] = 9;
	assert_int_equal(iso_proto_decode_req(bad, (size_t)n, &out), -EPROTO);
	memcpy(bad, buf, (size_t)n);
	bad[6] = 0x42;
	assert_int_equal(iso_proto_decode_req(bad, (size_t)n, &out), -EOPNOTSUPP);
}

static void test_reply_roundtrip(void **state)
{
	static unsigned char buf[ISO_PROTO_MAX_MSG];
	static struct iso_thread_info th[ISO_PROTO_PAGE], got[ISO_PROTO_PAGE];
	struct iso_reply in = { .type = ISO_MSG_STATUS | ISO_MSG_REPLY, .seq = 5 };
	struct iso_reply out = { .threads = got, .threads_cap = 10 };
	int n;
	(void)state;
	for (int i = 0; i < ISO_PROTO_PAGE; i++) {
		th[i].tid = 1000 + i;
		th[i].cpu_ns = (uint64_t)i << 40;
	}
	in.status.iso_cpu = 70;
	in.status.count = ISO_PROTO_PAGE;
	in.status.total = 300;
	in.threads = th;
	strcpy(in.text, "ok");
	n = iso_proto_encode_reply(&in, buf, sizeof(buf));
	assert_true(n > 0 && n <= ISO_PROTO_MAX_MSG);
	assert_int_equal(iso_proto_decode_reply(buf, (size_t)n, &out), 0);
	assert_int_equal(out.status.count, ISO_PROTO_PAGE);
	assert_int_equal(out.status.total, 300);
	assert_int_equal(got[9].tid, 1009);
	assert_true(got[9].cpu_ns == (uint64_t)9 << 40);
	assert_int_equal(got[10].tid, 0); /* beyond threads_cap: untouched */
	assert_string_equal(out.text, "ok");

	/* an error reply carries no body */
	memset(&in, 0, sizeof(in));
	in.type = ISO_MSG_SET | ISO_MSG_REPLY;
	in.err = -EPERM;
	strcpy(in.text, "not your thread");
	n = iso_proto_encode_reply(&in, buf, sizeof(buf));
	assert_true(n > 0);
	memset(&out, 0, sizeof(out));
	assert_int_equal(iso_proto_decode_reply(buf, (size_t)n, &out), 0);
	assert_int_equal(out.err, -EPERM);
	assert_string_equal(out.text, "not your thread");
	for (int len = 0; len < n; len++)
		assert_true(iso_proto_decode_reply(buf, (size_t)len, &out) < 0);

	/* too many entries is refused on both sides */
	in.type = ISO_MSG_STATUS | ISO_MSG_REPLY;
	in.err = 0;
	in.status.count = ISO_PROTO_PAGE + 1;
	in.threads = th;
	assert_int_equal(iso_proto_encode_reply(&in, buf, sizeof(buf)), -EINVAL);
}

/* Per-user shares: TUNE with or without its third field (an older isod
 * knows the 8-byte body only), and USERS both ways. */
static void test_user_shares(void **state)
{
	static unsigned char buf[ISO_PROTO_MAX_MSG];
	static struct iso_user_info us[ISO_PROTO_PAGE], got[4];
	struct iso_req in = { .type = ISO_MSG_TUNE, .seq = 2 }, out;
	struct iso_reply rin = { .type = ISO_MSG_USERS | ISO_MSG_REPLY, .seq = 3 };
	struct iso_reply rout = { .user_list = got, .user_cap = 4 };
	int n;
	(void)state;
	in.u.tune.iso_cpu = 60;
	n = iso_proto_encode_req(&in, buf, sizeof(buf));
	assert_int_equal(n, ISO_PROTO_HDR_LEN + 8);
	assert_int_equal(iso_proto_decode_req(buf, (size_t)n, &out), 0);
	assert_false(out.u.tune.has_user_cpu);
	in.u.tune.has_user_cpu = true;
	in.u.tune.user_cpu = 50;
	n = iso_proto_encode_req(&in, buf, sizeof(buf));
	assert_int_equal(n, ISO_PROTO_HDR_LEN + 12);
	assert_int_equal(iso_proto_decode_req(buf, (size_t)n, &out), 0);
	assert_true(out.u.tune.has_user_cpu);
	assert_int_equal(out.u.tune.user_cpu, 50);
	assert_int_equal(out.u.tune.iso_cpu, 60);
	for (int len = 0; len < n; len++)
		if (len != ISO_PROTO_HDR_LEN + 8)
			assert_true(iso_proto_decode_req(buf, (size_t)len, &out) < 0);

	in = (struct iso_req){ .type = ISO_MSG_USERS, .seq = 4 };
	in.u.users.offset = 9;
	n = iso_proto_encode_req(&in, buf, sizeof(buf));
	assert_int_equal(n, ISO_PROTO_HDR_LEN + 4);
	assert_int_equal(iso_proto_decode_req(buf, (size_t)n, &out), 0);
	assert_int_equal(out.u.users.offset, 9);

	for (int i = 0; i < ISO_PROTO_PAGE; i++)
		us[i] = (struct iso_user_info){ .uid = 100u + (uint32_t)i,
						.usage_milli = 1000u * (uint32_t)i,
						.flags = i == 2 ? ISO_USER_OVER : 0 };
	rin.users = (struct iso_users_info){ .user_cpu = 50, .share_milli = 35000,
					     .total = 300, .count = ISO_PROTO_PAGE };
	rin.user_list = us;
	n = iso_proto_encode_reply(&rin, buf, sizeof(buf));
	assert_true(n > 0 && n <= ISO_PROTO_MAX_MSG);
	assert_int_equal(iso_proto_decode_reply(buf, (size_t)n, &rout), 0);
	assert_int_equal(rout.users.user_cpu, 50);
	assert_int_equal(rout.users.share_milli, 35000);
	assert_int_equal(rout.users.count, ISO_PROTO_PAGE);
	assert_int_equal(got[2].uid, 102);
	assert_int_equal(got[2].flags, ISO_USER_OVER);
	assert_int_equal(got[3].usage_milli, 3000);
	for (int len = 0; len < n; len++)
		assert_true(iso_proto_decode_reply(buf, (size_t)len, &rout) < 0);
	rin.users.count = ISO_PROTO_PAGE + 1;
	assert_int_equal(iso_proto_encode_reply(&rin, buf, sizeof(buf)), -EINVAL);
}

/* TOP: everything at its largest fits in one packet and comes back
 * whole; every truncation and every count over its cap is refused. */
static void test_top(void **state)
{
	static unsigned char buf[ISO_PROTO_MAX_MSG];
	static struct iso_top_info tin, tout;
	struct iso_req in = { .type = ISO_MSG_TOP, .seq = 5 }, out;
	struct iso_reply rin = { .type = ISO_MSG_TOP | ISO_MSG_REPLY, .seq = 6, .top = &tin };
	struct iso_reply rout = { .top = &tout }, rnull = { 0 };
	int n;
	(void)state;
	in.u.top.offset = 3;
	n = iso_proto_encode_req(&in, buf, sizeof(buf));
	assert_int_equal(n, ISO_PROTO_HDR_LEN + 4);
	assert_int_equal(iso_proto_decode_req(buf, (size_t)n, &out), 0);
	assert_int_equal(out.type, ISO_MSG_TOP);
	assert_int_equal(out.u.top.offset, 3);

	memset(rin.text, 'x', ISO_PROTO_TEXT_MAX); /* ignored: err is 0, but sent */
	tin.status = (struct iso_status_info){ .iso_cpu = 70, .iso_period_s = 5,
					       .usage_milli = 12345, .total = 500,
					       .count = ISO_TOP_THREADS };
	tin.users = (struct iso_users_info){ .user_cpu = 50, .total = 40,
					     .count = ISO_TOP_USERS };
	for (uint32_t i = 0; i < ISO_TOP_USERS; i++)
		tin.user_list[i] = (struct iso_user_info){ .uid = 1000 + i, .usage_milli = i };
	tin.nevents = ISO_TOP_EVENTS;
	for (uint32_t i = 0; i < ISO_TOP_EVENTS; i++)
		tin.events[i] = (struct iso_event){ .seq = 7 + i, .kind = ISO_EVENT_DEMOTE,
						    .time_ms = 1700000000123LL + i, .tid = 42,
						    .pid = 41, .uid = 1000, .value = -1 };
	for (uint32_t i = 0; i < ISO_TOP_THREADS; i++) {
		tin.threads[i].info.tid = (int32_t)(100 + i);
		tin.threads[i].info.cpu_ns = 1ULL << 40;
		tin.threads[i].demotions = i;
		tin.threads[i].cpu_milli = 99000;
	}
	n = iso_proto_encode_reply(&rin, buf, sizeof(buf));
	assert_true(n > 0 && n <= ISO_PROTO_MAX_MSG);
	assert_int_equal(iso_proto_decode_reply(buf, (size_t)n, &rout), 0);
	assert_ptr_equal(rout.top, &tout);
	assert_memory_equal(&tout.status, &tin.status, sizeof(tin.status));
	assert_memory_equal(&tout.users, &tin.users, sizeof(tin.users));
	assert_memory_equal(tout.user_list, tin.user_list, sizeof(tin.user_list));
	assert_int_equal(tout.nevents, ISO_TOP_EVENTS);
	assert_memory_equal(tout.events, tin.events, sizeof(tin.events));
	assert_memory_equal(tout.threads, tin.threads, sizeof(tin.threads));
	/* a caller that wants nothing still gets it checked */
	assert_int_equal(iso_proto_decode_reply(buf, (size_t)n, &rnull), 0);
	for (int len = 0; len < n; len++)
		assert_true(iso_proto_decode_reply(buf, (size_t)len, &rout) < 0);

	tin.nevents = ISO_TOP_EVENTS + 1;
	assert_int_equal(iso_proto_encode_reply(&rin, buf, sizeof(buf)), -EINVAL);
	tin.nevents = 0;
	tin.users.count = ISO_TOP_USERS + 1;
	assert_int_equal(iso_proto_encode_reply(&rin, buf, sizeof(buf)), -EINVAL);
	tin.users.count = 0;
	tin.status.count = ISO_TOP_THREADS + 1;
	assert_int_equal(iso_proto_encode_reply(&rin, buf, sizeof(buf)), -EINVAL);
	rin.top = NULL;
	assert_int_equal(iso_proto_encode_reply(&rin, buf, sizeof(buf)), -EINVAL);
	/* a count over the cap on the wire: the events count's place */
	rin.top = &tin;
	tin.status.count = 0;
	n = iso_proto_encode_reply(&rin, buf, sizeof(buf));
	assert_true(n > 0);
	{
		uint32_t big = ISO_TOP_EVENTS + 1;
		size_t at = ISO_PROTO_HDR_LEN + 6 + ISO_PROTO_TEXT_MAX + 44 + 20;

		memcpy(buf + at, &big, sizeof(big));
		assert_int_equal(iso_proto_decode_reply(buf, (size_t)n, &rout), -EBADMSG);
	}
}

/* STRAYS: an empty request, a fixed reply of 2 u32 and 5 u64; a reply
 * that cannot be right (suppressed over demoted, policing not 0 or 1,
 * reserved set) and every truncation refused. */
static void test_strays(void **state)
{
	unsigned char buf[512];
	struct iso_req in = { .type = ISO_MSG_STRAYS, .seq = 9 }, out;
	struct iso_reply rin = { .type = ISO_MSG_STRAYS | ISO_MSG_REPLY, .seq = 10 }, rout;
	int n;
	(void)state;
	n = iso_proto_encode_req(&in, buf, sizeof(buf));
	assert_int_equal(n, ISO_PROTO_HDR_LEN);
	assert_int_equal(iso_proto_decode_req(buf, (size_t)n, &out), 0);
	assert_int_equal(out.type, ISO_MSG_STRAYS);
	assert_int_equal(out.seq, 9);
	/* a body where there is none: malformed */
	memset(buf + n, 0, 4);
	{
		uint32_t len = (uint32_t)n + 4;

		memcpy(buf + 8, &len, sizeof(len));
		assert_int_equal(iso_proto_decode_req(buf, len, &out), -EBADMSG);
	}

	rin.strays = (struct iso_strays_info){ .policing = 1, .demoted = 1ULL << 40,
					       .suppressed = 12, .exiting = 34, .lost = 5,
					       .sweeps = 6 };
	n = iso_proto_encode_reply(&rin, buf, sizeof(buf));
	assert_int_equal(n, ISO_PROTO_HDR_LEN + 6 + 8 + 5 * 8);
	assert_int_equal(iso_proto_decode_reply(buf, (size_t)n, &rout), 0);
	assert_int_equal(rout.type, ISO_MSG_STRAYS | ISO_MSG_REPLY);
	assert_memory_equal(&rout.strays, &rin.strays, sizeof(rin.strays));
	for (int len = 0; len < n; len++)
		assert_true(iso_proto_decode_reply(buf, (size_t)len, &rout) < 0);

	rin.strays.suppressed = rin.strays.demoted + 1;
	n = iso_proto_encode_reply(&rin, buf, sizeof(buf));
	assert_int_equal(iso_proto_decode_reply(buf, (size_t)n, &rout), -EBADMSG);
	rin.strays.suppressed = 0;
	rin.strays.policing = 2;
	n = iso_proto_encode_reply(&rin, buf, sizeof(buf));
	assert_int_equal(iso_proto_decode_reply(buf, (size_t)n, &rout), -EBADMSG);
	rin.strays.policing = 0;
	rin.strays.reserved = 1;
	n = iso_proto_encode_reply(&rin, buf, sizeof(buf));
	assert_int_equal(iso_proto_decode_reply(buf, (size_t)n, &rout), -EBADMSG);
	/* an error reply has no body: an older isod's "unknown request type" */
	rin = (struct iso_reply){ .type = ISO_MSG_STRAYS | ISO_MSG_REPLY, .err = -EOPNOTSUPP };
	n = iso_proto_encode_reply(&rin, buf, sizeof(buf));
	assert_int_equal(iso_proto_decode_reply(buf, (size_t)n, &rout), 0);
	assert_int_equal(rout.err, -EOPNOTSUPP);
}

/* RESERVE: pid, tid, prio, flags and three 64-bit times; every
 * truncation and a trailing byte are malformed; the reply is SET's. */
static void test_reserve(void **state)
{
	unsigned char buf[512];
	struct iso_req in = { .type = ISO_MSG_RESERVE, .seq = 11 }, out;
	struct iso_reply rin = { .type = ISO_MSG_RESERVE | ISO_MSG_REPLY, .seq = 12 }, rout;
	int n;
	(void)state;
	in.u.reserve.pid = 0;
	in.u.reserve.tid = 4242;
	in.u.reserve.prio = 80;
	in.u.reserve.runtime_ns = 1000000;
	in.u.reserve.deadline_ns = 5333000;
	in.u.reserve.period_ns = 5333333;
	n = iso_proto_encode_req(&in, buf, sizeof(buf));
	assert_int_equal(n, ISO_PROTO_HDR_LEN + 16 + 24);
	assert_int_equal(iso_proto_decode_req(buf, (size_t)n, &out), 0);
	assert_int_equal(out.type, ISO_MSG_RESERVE);
	assert_int_equal(out.u.reserve.tid, 4242);
	assert_int_equal(out.u.reserve.prio, 80);
	assert_int_equal(out.u.reserve.runtime_ns, 1000000);
	assert_int_equal(out.u.reserve.deadline_ns, 5333000);
	assert_int_equal(out.u.reserve.period_ns, 5333333);
	for (int len = 0; len < n; len++) {
		uint32_t l = (uint32_t)len;

		if (len >= 12)
			memcpy(buf + 8, &l, sizeof(l));
		assert_true(iso_proto_decode_req(buf, (size_t)len, &out) < 0);
	}
	{
		uint32_t l = (uint32_t)n + 1;

		n = iso_proto_encode_req(&in, buf, sizeof(buf));
		buf[n] = 0;
		memcpy(buf + 8, &l, sizeof(l));
		assert_int_equal(iso_proto_decode_req(buf, l, &out), -EBADMSG);
	}
	rin.thread.tid = 4242;
	rin.thread.kernel_policy = 6;
	rin.thread.flags = ISO_THREAD_RESERVED;
	snprintf(rin.text, sizeof(rin.text), "reserved");
	n = iso_proto_encode_reply(&rin, buf, sizeof(buf));
	assert_true(n > 0);
	assert_int_equal(iso_proto_decode_reply(buf, (size_t)n, &rout), 0);
	assert_int_equal(rout.thread.tid, 4242);
	assert_int_equal(rout.thread.kernel_policy, 6);
	assert_int_equal(rout.thread.flags, ISO_THREAD_RESERVED);
	assert_string_equal(rout.text, "reserved");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_user_shares),
		cmocka_unit_test(test_top),
		cmocka_unit_test(test_strays),
		cmocka_unit_test(test_reserve),
		cmocka_unit_test(test_request_roundtrip),
		cmocka_unit_test(test_request_malformed),
		cmocka_unit_test(test_reply_roundtrip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
