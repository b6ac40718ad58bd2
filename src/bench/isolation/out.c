/* out.c — isobench --isolation's table and JSON (isolation.h). */
#include <inttypes.h>
#include <stdio.h>

#include "isolation.h"

const char *const isol_victim_name[VIC_COUNT] = { "iso", "reserve", "root-deadline" };
const char *const isol_load_name[ISOL_LOADS] = { "idle", "cpu+vm" };

static const char *const victim_what[VIC_COUNT] = {
	"A as band ISO_FIFO 10 (nobody)",
	"A with a reservation 1.2 ms / 5.333 ms (nobody)",
	"A as root SCHED_DEADLINE 1.2 ms / 5.333 ms",
};

void isolation_print_text(const struct isolation_result *r)
{
	printf("isolation: A does %.1f ms of work every %.3f ms; B (uid %d) runs one ISO_FIFO %d\n"
	       "thread per CPU that bursts %.0f of every %.0f ms, in step; %d CPUs, %.1f s a run,\n"
	       "%d interleaved runs, median of the missed periods (work finished after its period)\n\n",
	       ISOL_WORK_NS / 1e6, ISOL_PERIOD_NS / 1e6, ISOL_AGGR_UID, ISOL_AGGR_PRIO,
	       ISOL_BURST_NS / 1e6, ISOL_BURST_PERIOD_NS / 1e6, r->ncpu, r->window_s, ISOL_RUNS);
	printf("%-14s %-8s %9s  %-24s %s\n", "victim", "load", "missed %", "runs", "");
	for (int l = 0; l < ISOL_LOADS; l++)
		for (int v = 0; v < VIC_COUNT; v++) {
			const struct isol_cell *c = &r->c[l][v];
			char runs[64] = "";
			int n = 0;

			for (int i = 0; i < c->nruns; i++)
				n += snprintf(runs + n, sizeof(runs) - (size_t)n, "%s%.1f",
					      i ? " " : "", c->miss_pct[i]);
			if (!c->nruns)
				printf("%-14s %-8s %9s  %-24s %s\n", isol_victim_name[v],
				       isol_load_name[l], "-", "", c->note);
			else
				printf("%-14s %-8s %9.1f  %-24s %s%s\n", isol_victim_name[v],
				       isol_load_name[l], c->median_pct, runs,
				       c->demoted_runs ? "demoted in some runs " : "", c->note);
		}
	printf("\n");
	for (int v = 0; v < VIC_COUNT; v++)
		printf("  %-14s %s\n", isol_victim_name[v], victim_what[v]);
	printf("  B's CPU use in the last run: %.1f %% of all CPUs\n", r->aggr_cpu_pct);
}

void isolation_print_json(const struct isolation_result *r)
{
	printf("{\"mode\":\"isolation\",\"ncpu\":%d,\"window_s\":%.3f,\"period_us\":%.3f,"
	       "\"work_us\":%.1f,\"burst_ms\":%.1f,\"burst_period_ms\":%.1f,\"aggr_cpu_pct\":%.2f,"
	       "\"cells\":[",
	       r->ncpu, r->window_s, ISOL_PERIOD_NS / 1e3, ISOL_WORK_NS / 1e3, ISOL_BURST_NS / 1e6,
	       ISOL_BURST_PERIOD_NS / 1e6, r->aggr_cpu_pct);
	for (int l = 0, first = 1; l < ISOL_LOADS; l++)
		for (int v = 0; v < VIC_COUNT; v++, first = 0) {
			const struct isol_cell *c = &r->c[l][v];

			printf("%s{\"victim\":\"%s\",\"load\":\"%s\",\"median_missed_pct\":%.3f,"
			       "\"demoted_runs\":%d,\"runs\":[",
			       first ? "" : ",", isol_victim_name[v], isol_load_name[l],
			       c->nruns ? c->median_pct : -1.0, c->demoted_runs);
			for (int i = 0; i < c->nruns; i++)
				printf("%s{\"periods\":%" PRIu64 ",\"missed\":%" PRIu64
				       ",\"missed_pct\":%.3f}",
				       i ? "," : "", c->periods[i], c->missed[i], c->miss_pct[i]);
			printf("],\"note\":\"%s\"}", c->note);
		}
	printf("]}\n");
}
