/* isobench --audio pipewire's pure part (src/bench/audio/prof_decode.c,
 * prof_count.c): profiler events built as module-profiler builds them
 * (PipeWire 0.3.65's layout: the xrun count in info; a later one: in the
 * driver block, extra clock fields, a Bool after each follower block)
 * decode into records, and records count: which follower is ours, the
 * statuses, the driver's xruns, the window, dropped records. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <spa/param/profiler.h>
#include <spa/pod/builder.h>
#include <spa/utils/type.h>

#include "prof_count.h"
#include "prof_decode.h"

#define RATE 48000
#define OURS "isobench-42"

struct follower_lit {
	int32_t id;
	const char *name;
	int32_t status;
};

/* one Profiler object: a cycle of driver 30 at nsec, counter, xruns; the
 * newer layout when newer */
static void add_cycle(struct spa_pod_builder *b, bool newer, int64_t counter, int64_t nsec,
		      int32_t xruns, const struct follower_lit *f, int nf)
{
	struct spa_pod_frame obj;
	struct spa_fraction rate = { 1, RATE }, lat = { 128, RATE };

	spa_pod_builder_push_object(b, &obj, SPA_TYPE_OBJECT_Profiler, 0);
	spa_pod_builder_prop(b, SPA_PROFILER_info, 0);
	if (newer)
		spa_pod_builder_add_struct(b, SPA_POD_Long(counter), SPA_POD_Float(0.1f),
					   SPA_POD_Float(0.1f), SPA_POD_Float(0.1f));
	else
		spa_pod_builder_add_struct(b, SPA_POD_Long(counter), SPA_POD_Float(0.1f),
					   SPA_POD_Float(0.1f), SPA_POD_Float(0.1f),
					   SPA_POD_Int(xruns));
	spa_pod_builder_prop(b, SPA_PROFILER_clock, 0);
	if (newer)
		spa_pod_builder_add_struct(b, SPA_POD_Int(0), SPA_POD_Int(30),
					   SPA_POD_String("sink"), SPA_POD_Long(nsec),
					   SPA_POD_Fraction(&rate), SPA_POD_Long(0), SPA_POD_Long(128),
					   SPA_POD_Long(0), SPA_POD_Double(1.0),
					   SPA_POD_Long(nsec + 2666666), SPA_POD_Int(2),
					   SPA_POD_Int(7), SPA_POD_Long(0));
	else
		spa_pod_builder_add_struct(b, SPA_POD_Int(0), SPA_POD_Int(30),
					   SPA_POD_String("sink"), SPA_POD_Long(nsec),
					   SPA_POD_Fraction(&rate), SPA_POD_Long(0), SPA_POD_Long(128),
					   SPA_POD_Long(0), SPA_POD_Double(1.0),
					   SPA_POD_Long(nsec + 2666666));
	spa_pod_builder_prop(b, SPA_PROFILER_driverBlock, 0);
	if (newer)
		spa_pod_builder_add_struct(b, SPA_POD_Int(30), SPA_POD_String("isotest-sink"),
					   SPA_POD_Long(nsec - 2666666), SPA_POD_Long(nsec),
					   SPA_POD_Long(nsec + 1000), SPA_POD_Long(nsec + 2000),
					   SPA_POD_Int(3), SPA_POD_Fraction(&lat), SPA_POD_Int(xruns));
	else
		spa_pod_builder_add_struct(b, SPA_POD_Int(30), SPA_POD_String("isotest-sink"),
					   SPA_POD_Long(nsec - 2666666), SPA_POD_Long(nsec),
					   SPA_POD_Long(nsec + 1000), SPA_POD_Long(nsec + 2000),
					   SPA_POD_Int(3), SPA_POD_Fraction(&lat));
	for (int i = 0; i < nf; i++) {
		spa_pod_builder_prop(b, SPA_PROFILER_followerBlock, 0);
		if (newer)
			spa_pod_builder_add_struct(b, SPA_POD_Int(f[i].id), SPA_POD_String(f[i].name),
						   SPA_POD_Long(0), SPA_POD_Long(nsec),
						   SPA_POD_Long(nsec + 100), SPA_POD_Long(nsec + 900),
						   SPA_POD_Int(f[i].status), SPA_POD_Fraction(&lat),
						   SPA_POD_Int(0), SPA_POD_Bool(false));
		else
			spa_pod_builder_add_struct(b, SPA_POD_Int(f[i].id), SPA_POD_String(f[i].name),
						   SPA_POD_Long(0), SPA_POD_Long(nsec),
						   SPA_POD_Long(nsec + 100), SPA_POD_Long(nsec + 900),
						   SPA_POD_Int(f[i].status), SPA_POD_Fraction(&lat));
	}
	spa_pod_builder_pop(b, &obj);
}

static uint8_t buf[1 << 16];

struct event {
	struct spa_pod_builder b;
	struct spa_pod_frame f;
};

static void event_begin(struct event *e)
{
	spa_pod_builder_init(&e->b, buf, sizeof(buf));
	spa_pod_builder_push_struct(&e->b, &e->f);
}

static const struct spa_pod *event_end(struct event *e)
{
	return spa_pod_builder_pop(&e->b, &e->f);
}

/* what decode hands over, kept */
struct seen {
	int n;
	struct prof_cycle c[8];
};

static void keep(const struct prof_cycle *c, void *ctx)
{
	struct seen *s = ctx;

	if (s->n < 8)
		s->c[s->n] = *c;
	s->n++;
}

static void test_decode_0365(void **state)
{
	const struct follower_lit f[] = { { 41, OURS, 2 }, { 45, "pw-play", 3 } };
	struct seen s = { 0 };
	struct event e;

	(void)state;
	event_begin(&e);
	add_cycle(&e.b, false, 7, 1000000000, 4, f, 2);
	assert_int_equal(prof_decode_event(event_end(&e), keep, &s), 1);
	assert_int_equal(s.n, 1);
	assert_true(s.c[0].have_counter && s.c[0].have_clock && s.c[0].have_driver);
	assert_int_equal(s.c[0].counter, 7);
	assert_int_equal(s.c[0].xruns, 4); /* from info, 0.3.65's place */
	assert_int_equal(s.c[0].driver_id, 30);
	assert_string_equal(s.c[0].driver_name, "isotest-sink");
	assert_int_equal(s.c[0].nsec, 1000000000);
	assert_int_equal(s.c[0].quantum, 128);
	assert_int_equal(s.c[0].rate, RATE);
	assert_int_equal(s.c[0].nfollowers, 2);
	assert_int_equal(s.c[0].f[0].id, 41);
	assert_string_equal(s.c[0].f[0].name, OURS);
	assert_int_equal(s.c[0].f[0].status, PROF_AWAKE);
	assert_int_equal(s.c[0].f[1].status, PROF_FINISHED);
}

static void test_decode_newer(void **state)
{
	const struct follower_lit f[] = { { 41, OURS, 3 } };
	struct seen s = { 0 };
	struct event e;

	(void)state;
	event_begin(&e);
	add_cycle(&e.b, true, 8, 2000000000, 9, f, 1);
	add_cycle(&e.b, true, 9, 2002666666, 9, f, 1);
	assert_int_equal(prof_decode_event(event_end(&e), keep, &s), 2);
	assert_int_equal(s.c[0].xruns, 9); /* from the driver block */
	assert_int_equal(s.c[1].counter, 9);
	assert_int_equal(s.c[1].f[0].status, PROF_FINISHED);
}

static void test_decode_rejects(void **state)
{
	struct seen s = { 0 };
	struct event e;
	struct spa_pod_frame obj;
	uint8_t lone[64];
	struct spa_pod_builder b = SPA_POD_BUILDER_INIT(lone, sizeof(lone));

	(void)state;
	/* not a Struct */
	spa_pod_builder_int(&b, 3);
	assert_int_equal(prof_decode_event((struct spa_pod *)lone, keep, &s), -EINVAL);
	/* an object without a driver block, and a driver block cut short */
	event_begin(&e);
	spa_pod_builder_push_object(&e.b, &obj, SPA_TYPE_OBJECT_Profiler, 0);
	spa_pod_builder_prop(&e.b, SPA_PROFILER_info, 0);
	spa_pod_builder_add_struct(&e.b, SPA_POD_Long(1), SPA_POD_Float(0), SPA_POD_Float(0),
				   SPA_POD_Float(0));
	spa_pod_builder_pop(&e.b, &obj);
	spa_pod_builder_push_object(&e.b, &obj, SPA_TYPE_OBJECT_Profiler, 0);
	spa_pod_builder_prop(&e.b, SPA_PROFILER_driverBlock, 0);
	spa_pod_builder_add_struct(&e.b, SPA_POD_Int(30), SPA_POD_String("x"));
	spa_pod_builder_pop(&e.b, &obj);
	assert_int_equal(prof_decode_event(event_end(&e), keep, &s), 0);
	assert_int_equal(s.n, 0);
}

/* a literal record of driver 30 */
static struct prof_cycle record(int64_t counter, int64_t nsec, int64_t xruns)
{
	struct prof_cycle c;

	memset(&c, 0, sizeof(c));
	c.have_counter = c.have_clock = c.have_driver = true;
	c.counter = counter;
	c.nsec = nsec;
	c.xruns = xruns;
	c.driver_id = 30;
	c.quantum = 64;
	c.rate = RATE;
	return c;
}

static void follow(struct prof_cycle *c, uint32_t id, const char *name, int32_t status)
{
	c->f[c->nfollowers].id = id;
	strcpy(c->f[c->nfollowers].name, name);
	c->f[c->nfollowers++].status = status;
}

static void test_count_ours(void **state)
{
	struct prof_count pc;
	struct prof_cycle c;

	(void)state;
	prof_count_init(&pc, OURS);
	/* before our node joined: not counted, not even the driver's */
	c = record(10, 100, 2);
	follow(&c, 45, "pw-play", 1);
	prof_count_feed(&c, &pc);
	assert_false(pc.found);
	assert_int_equal(pc.cycles, 0);
	/* ours finished, then awake, triggered, not triggered, a status of
	 * the future: all but the first unfinished */
	const int32_t st[] = { 3, 2, 1, 0, 9 };
	for (int i = 0; i < 5; i++) {
		c = record(11 + i, 200 + i, 2 + (i == 4));
		follow(&c, 45, "pw-play", 3);
		follow(&c, 41, OURS, st[i]);
		prof_count_feed(&c, &pc);
	}
	assert_true(pc.found);
	assert_int_equal(pc.id, 41);
	assert_int_equal(pc.cycles, 5);
	assert_int_equal(pc.unfinished, 4);
	assert_int_equal(pc.by_status[PROF_FINISHED], 1);
	assert_int_equal(pc.by_status[PROF_AWAKE], 1);
	assert_int_equal(pc.by_status[PROF_TRIGGERED], 1);
	assert_int_equal(pc.by_status[PROF_NOT_TRIGGERED], 1);
	assert_int_equal(pc.by_status[PROF_UNKNOWN], 1);
	assert_int_equal(prof_count_driver_xruns(&pc), 1);
	assert_int_equal(pc.quantum, 64);
	assert_int_equal(pc.rate, RATE);
	/* another client of our name later (another node), another driver:
	 * neither counts; a record of our driver without our node is the
	 * driver's only */
	c = record(16, 300, 3);
	follow(&c, 77, OURS, 1);
	prof_count_feed(&c, &pc);
	c = record(16, 300, 3);
	c.driver_id = 31;
	follow(&c, 41, OURS, 1);
	prof_count_feed(&c, &pc);
	assert_int_equal(pc.cycles, 5);
	assert_int_equal(pc.unfinished, 4);
	assert_int_equal(pc.driver_records, 6);
	assert_int_equal(prof_count_missing(&pc), 0);
}

static void test_count_cycles_window_missing(void **state)
{
	struct prof_count pc;
	struct prof_cycle c;
	/* cycle at nsec 1000: a tick found us triggered, another awake, then
	 * it completed; 3000 on time; 5000 not finished when recorded;
	 * 9000 after the window */
	const struct { int64_t counter, nsec; int32_t status; } rec[] = {
		{ 1, 500, 3 }, { 2, 1000, 1 }, { 3, 1000, 2 }, { 4, 1000, 3 },
		{ 5, 3000, 3 }, { 9, 5000, 2 }, { 10, 9000, 1 },
	};

	(void)state;
	prof_count_init(&pc, OURS);
	prof_count_window(&pc, 1000, 8000);
	for (size_t i = 0; i < sizeof(rec) / sizeof(rec[0]); i++) {
		c = record(rec[i].counter, rec[i].nsec, -1);
		follow(&c, 41, OURS, rec[i].status);
		prof_count_feed(&c, &pc);
	}
	assert_int_equal(pc.cycles, 5);
	assert_int_equal(pc.unfinished, 3);
	assert_int_equal(pc.graph_cycles, 3);
	assert_int_equal(pc.late_cycles, 2);
	/* counters 2..9 seen as 2, 3, 4, 5, 9: 6, 7, 8 were dropped */
	assert_int_equal(prof_count_missing(&pc), 3);
	/* no record had an xrun count */
	assert_int_equal(prof_count_driver_xruns(&pc), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_0365),
		cmocka_unit_test(test_decode_newer),
		cmocka_unit_test(test_decode_rejects),
		cmocka_unit_test(test_count_ours),
		cmocka_unit_test(test_count_cycles_window_missing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
