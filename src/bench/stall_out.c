/* stall_out.c — isobench --stall's text and JSON output. */
#include <stdio.h>

#include "bench.h"
#include "stall.h"

const char *const sc_name[SC_COUNT] = { "iso", "iso-cap", "iso-patch", "fifo-root",
					 "rttime" };
const char *const sc_what[SC_COUNT] = {
	"ISO, isod defaults (burst guard + stall cap)",
	"ISO, burst_ms 0 (stall cap alone)",
	"ISO, burst_ms 0 stall_ms 0 (patch)",
	"kernel SCHED_FIFO as root",
	"SCHED_FIFO + RLIMIT_RTTIME 200 ms",
};

void stall_print_text(const struct sc_result *r, int ncpu, double window,
		       const struct shared *sh, const char *pnote)
{
	printf("isobench --stall: %d CPUs, one spinner per CPU for %.0f s; a SCHED_OTHER probe\n"
	       "sleeping 1 ms from 1 s before to 1 s after (gaps over 50 ms are stalls)\n\n",
	       ncpu, window);
	printf("%-10s %-46s %9s %12s %6s %7s %10s\n", "scenario", "", "longest", "stalled",
	       "stalls", "killed", "1st demote");
	for (int s = 0; s < SC_COUNT; s++) {
		if (!r[s].ran) {
			printf("%-10s %-46s skipped: %s\n", sc_name[s], sc_what[s], r[s].note);
			continue;
		}
		printf("%-10s %-46s %6.0f ms %5.2f of %4.1f s %6u %3d of %d", sc_name[s], sc_what[s],
		       r[s].longest_ms, r[s].stalled_ms / 1000, r[s].window_ms / 1000, r[s].ngaps,
		       r[s].killed, r[s].spinners);
		if (r[s].first_demote_ms > 0)
			printf(" %7.0f ms", r[s].first_demote_ms);
		printf("%s%s\n", r[s].note[0] ? "  " : "", r[s].note);
	}
	printf("\nperiodic ISO threads, 10 s each, isod defaults but iso_cpu 95%s%s:\n",
	       pnote[0] ? ": " : "", pnote);
	for (int i = 0; i < 4; i++)
		printf("  period %7.2f ms at %2d %%: %s, demoted %d times (%llu of %llu periods"
		       " seen SCHED_OTHER)\n",
		       (double)periodic[i].period_ns / 1e6, periodic[i].duty,
		       sh->per[i].granted ? "granted" : "NOT granted", sh->per[i].demotions,
		       (unsigned long long)sh->per[i].demoted_periods,
		       (unsigned long long)sh->per[i].periods);
}

/* ,"key":value */
static void jnum(const char *key, double v)
{
	putchar(',');
	json_num(key, v);
}

void stall_print_json(const struct sc_result *r, int ncpu, double window,
		       const struct shared *sh)
{
	printf("{\"mode\":\"stall\",\"ncpus\":%d,\"window_s\":%.1f,\"scenarios\":[", ncpu, window);
	for (int s = 0; s < SC_COUNT; s++) {
		printf("%s{\"name\":", s ? "," : "");
		json_string(sc_name[s]);
		printf(",\"ran\":%s", r[s].ran ? "true" : "false");
		jnum("longest_gap_ms", r[s].longest_ms);
		jnum("stalled_ms", r[s].stalled_ms);
		jnum("probe_window_ms", r[s].window_ms);
		jnum("stalls", r[s].ngaps);
		jnum("killed", r[s].killed);
		jnum("spinners", r[s].spinners);
		jnum("demotions", r[s].demotions);
		jnum("first_demotion_ms", r[s].first_demote_ms);
		printf(",\"note\":");
		json_string(r[s].note);
		printf(",\"gaps\":[");
		for (unsigned g = 0; g < r[s].ngaps && g < MAX_GAPS; g++)
			printf("%s[%.3f,%.1f]", g ? "," : "", r[s].gap_at_s[g], r[s].gap_ms[g]);
		printf("]}");
	}
	printf("],\"periodic\":[");
	for (int i = 0; i < 4; i++) {
		printf("%s{\"period_us\":%.0f,\"duty_pct\":%d,\"granted\":%s", i ? "," : "",
		       (double)periodic[i].period_ns / 1e3, periodic[i].duty,
		       sh->per[i].granted ? "true" : "false");
		jnum("demotions", sh->per[i].demotions);
		jnum("periods", (double)sh->per[i].periods);
		jnum("demoted_periods", (double)sh->per[i].demoted_periods);
		printf("}");
	}
	printf("]}\n");
}
