/* out.c — --daemon-cost's text table and JSON object. */
#include <stdio.h>

#include "common/json.h"
#include "cost.h"

static const char *const floor_way[COST_FLOOR_WAYS] = { "unpinned", "same_cpu", "across_cpus", "kept_connection" };

static void floor_json(struct json *j, const struct cost_result *r)
{
	json_obj(j, "floor");
	for (int i = 0; i < COST_FLOOR_WAYS; i++) {
		const struct cost_floor *f = &r->floor[i];

		json_obj(j, floor_way[i]);
		json_bool(j, "ok", f->ok);
		json_num(j, "p50_us", f->p50_us);
		json_num(j, "p99_us", f->p99_us);
		json_str(j, "note", f->note);
		json_obj_end(j);
	}
	json_obj_end(j);
}

static void floor_text(const struct cost_result *r)
{
	const char *label[COST_FLOOR_WAYS] = { "as placed", "one CPU", "two CPUs", "kept connection" };
	bool any = false;

	for (int i = 0; i < COST_FLOOR_WAYS; i++)
		any = any || r->floor[i].ok;
	if (!any)
		return;
	printf("floor (the same round trip, a server that answers at once), p50/p99:");
	for (int i = 0; i < COST_FLOOR_WAYS; i++) {
		const struct cost_floor *f = &r->floor[i];

		if (f->ok)
			printf("%s %s %.1f/%.1fus", i ? "," : "", label[i], f->p50_us, f->p99_us);
		else
			printf("%s %s -", i ? "," : "", label[i]);
	}
	printf("\n");
}

void cost_print_json(const struct cost_result *r)
{
	struct json j;

	json_begin(&j, stdout);
	json_str(&j, "mode", "daemon_cost");
	json_num(&j, "sample_ms", r->sample_ms);
	json_num(&j, "window_s", r->window_s);
	json_int(&j, "requests", r->requests);
	json_bool(&j, "rate_limit_off", r->rate_limit_off);
	json_str(&j, "accounting", r->accounting);
	json_num(&j, "iso_load_pct", r->iso_load_pct);
	json_arr(&j, "points");
	for (int i = 0; i < r->npoints; i++) {
		const struct cost_point *q = &r->points[i];

		json_obj(&j, NULL);
		json_int(&j, "threads", q->n);
		json_bool(&j, "ok", q->ok);
		json_int(&j, "tracked", q->tracked);
		json_num(&j, "isod_cpu_pct", q->cpu_pct);
		json_num(&j, "isod_cpu_pct_stat", q->cpu_pct_stat);
		json_num(&j, "enforcer_cpu_pct", q->enf_pct);
		json_num(&j, "isod_wakeups_per_s", q->wakeups_per_s);
		json_num(&j, "window_s", q->window_s);
		json_uint(&j, "requests", (unsigned long long)q->requests);
		json_num(&j, "request_p50_us", q->set_p50);
		json_num(&j, "request_p99_us", q->set_p99);
		json_num(&j, "request_max_us", q->set_max);
		json_num(&j, "release_p50_us", q->rel_p50);
		json_num(&j, "release_p99_us", q->rel_p99);
		json_num(&j, "isod_cpu_per_request_us", q->req_isod_us);
		json_uint(&j, "eagain", (unsigned long long)q->eagain);
		json_uint(&j, "policy_errors", (unsigned long long)q->policy_errors);
		json_uint(&j, "request_errors", (unsigned long long)q->request_errors);
		json_str(&j, "note", q->note);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_num(&j, "per_thread_cpu_pct", r->slope);
	json_num(&j, "per_thread_ns_per_sample", r->per_thread_ns);
	json_num(&j, "base_cpu_pct", r->intercept);
	floor_json(&j, r);
	json_end(&j);
	for (int i = 0; i < r->npoints; i++)
		if (r->points[i].note[0])
			fprintf(stderr, "isobench: %d threads: %s\n", r->points[i].n,
				r->points[i].note);
}

void cost_print_text(const struct cost_result *r)
{
	printf("isobench --daemon-cost: isod's own CPU time, %.1f s"
	       " window, threads granted ISO_FIFO as nobody and"
	       " %s; %d requests per point (rate limit %s)\n",
	       r->window_s, r->iso_load_pct > 0 ? "working" : "asleep", r->requests,
	       r->rate_limit_off ? "off" : "not in this isod");
	if (r->iso_load_pct > 0)
		printf("the threads together use %.1f %% of the machine as ISO"
		       " (each its share once every 100 ms)\n", r->iso_load_pct);
	printf("isod's accounting: %s\n", r->accounting);
	printf("%8s %8s %10s %10s %10s %9s | %9s %9s %9s %9s %9s %8s\n",
	       "threads", "tracked", "isod %cpu", "(stat)", "enforcer", "wakeups/s",
	       "set p50", "set p99", "set max", "rel p50", "isod/req", "bad pol");
	for (int i = 0; i < r->npoints; i++) {
		const struct cost_point *q = &r->points[i];

		if (!q->ok) {
			printf("%8d FAILED: %s\n", q->n, q->note);
			continue;
		}
		printf("%8d %8d %10.3f %10.3f %10.3f %9.1f | %7.1fus %7.1fus"
		       " %7.1fus %7.1fus %7.1fus %8llu\n",
		       q->n, q->tracked, q->cpu_pct, q->cpu_pct_stat, q->enf_pct,
		       q->wakeups_per_s,
		       q->set_p50, q->set_p99, q->set_max, q->rel_p50,
		       q->req_isod_us, (unsigned long long)q->policy_errors);
	}
	if (r->nfit >= 2)
		printf("fit: isod %%cpu = %.4f + %.6f per thread"
		       " (%.0f ns per thread per %.0f ms sample)\n",
		       r->intercept, r->slope, r->per_thread_ns, r->sample_ms);
	floor_text(r);
}
