/* stall_out.c — isobench --stall's text and JSON output. */
#include <stdio.h>

#include "common/json.h"
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

void stall_print_text(const struct stall_result *res)
{
	const struct sc_result *r = res->sc;
	const char *pnote = res->periodic_note;

	printf("isobench --stall: %d CPUs, one spinner per CPU for %.0f s; a SCHED_OTHER probe\n"
	       "sleeping 1 ms from 1 s before to 1 s after (gaps over 50 ms are stalls)\n\n",
	       res->ncpu, res->window_s);
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
		       res->per[i].granted ? "granted" : "NOT granted", res->per[i].demotions,
		       (unsigned long long)res->per[i].demoted_periods,
		       (unsigned long long)res->per[i].periods);
}

static void scenario_json(struct json *j, const struct sc_result *r, enum scenario s)
{
	json_obj(j, NULL);
	json_str(j, "name", sc_name[s]);
	json_bool(j, "ran", r->ran);
	json_num(j, "longest_gap_ms", r->longest_ms);
	json_num(j, "stalled_ms", r->stalled_ms);
	json_num(j, "probe_window_ms", r->window_ms);
	json_num(j, "stalls", r->ngaps);
	json_num(j, "killed", r->killed);
	json_num(j, "spinners", r->spinners);
	json_num(j, "demotions", r->demotions);
	json_num(j, "first_demotion_ms", r->first_demote_ms);
	json_str(j, "note", r->note);
	json_arr(j, "gaps");
	for (unsigned g = 0; g < r->ngaps && g < MAX_GAPS; g++) {
		json_arr(j, NULL);
		json_num(j, NULL, r->gap_at_s[g]);
		json_numf(j, NULL, "%.1f", r->gap_ms[g]);
		json_arr_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}

void stall_print_json(const struct stall_result *r)
{
	struct json j;

	json_begin(&j, stdout);
	json_str(&j, "mode", "stall");
	json_int(&j, "ncpus", r->ncpu);
	json_numf(&j, "window_s", "%.1f", r->window_s);
	json_arr(&j, "scenarios");
	for (int s = 0; s < SC_COUNT; s++)
		scenario_json(&j, &r->sc[s], (enum scenario)s);
	json_arr_end(&j);
	json_arr(&j, "periodic");
	for (int i = 0; i < 4; i++) {
		json_obj(&j, NULL);
		json_numf(&j, "period_us", "%.0f", (double)periodic[i].period_ns / 1e3);
		json_int(&j, "duty_pct", periodic[i].duty);
		json_bool(&j, "granted", r->per[i].granted);
		json_num(&j, "demotions", r->per[i].demotions);
		json_num(&j, "periods", (double)r->per[i].periods);
		json_num(&j, "demoted_periods", (double)r->per[i].demoted_periods);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_end(&j);
}
