/* doctor_fixture.h — the unit tests' fixture trees for isoctl doctor: a
 * temp dir standing for a machine's root (proc/, sys/, boot/, etc/), files
 * written into it, the checks run against it. */
#ifndef DOCTOR_FIXTURE_H
#define DOCTOR_FIXTURE_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "doctor.h"

struct fixture {
	char root[64];
	struct doc_ctx ctx;
	struct doc_report rep;
};

/* A plain 6.18 machine: no PREEMPT_RT, no threadirqs, no sched_ext. */
#define BASE_CONFIG \
	"CONFIG_HZ_250=y\nCONFIG_HZ=250\nCONFIG_HIGH_RES_TIMERS=y\n" \
	"CONFIG_PREEMPT_DYNAMIC=y\nCONFIG_PREEMPT_VOLUNTARY=y\n# CONFIG_PREEMPT is not set\n"
#define LIMITS(rtprio, rttime, memlock) \
	"Limit                     Soft Limit           Hard Limit           Units     \n" \
	"Max locked memory         " memlock "             " memlock "             bytes     \n" \
	"Max realtime priority     " rtprio "                    " rtprio "                    \n" \
	"Max realtime timeout      " rttime "            " rttime "            us        \n"

/* Write ROOT/rel (creating its directories) with printf-formatted text. */
void put(const struct fixture *f, const char *rel, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void rm_rel(const struct fixture *f, const char *rel);
/* cmocka setup/teardown: the base machine in a fresh temp dir, uid 1000,
 * isod's default band 10..40. */
int setup(void **state);
int teardown(void **state);
/* Load the context from the tree as written so far (keeping uid, band,
 * isod and conf set by the test); empties the report. */
struct doc_ctx *load(struct fixture *f);
/* The report's item group/name; fails the test if there is none. */
const struct doc_item *item(struct fixture *f, const char *group, const char *name);

#define assert_verdict(f, g, n, v) assert_string_equal(doc_verdict_name(item(f, g, n)->verdict), \
							      doc_verdict_name(v))
#define assert_found(f, g, n, s) assert_non_null(strstr(item(f, g, n)->found, s))
#define assert_fix(f, g, n, s) assert_non_null(strstr(item(f, g, n)->fix, s))

#endif
