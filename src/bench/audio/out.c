/* out.c — isobench --audio's text and JSON (audio.h). */
#include <inttypes.h>
#include <stdio.h>

#include "audio.h"
#include "common/json.h"

static const char *const status_name[AUDIO_STATUSES] = {
	"not_triggered", "triggered", "awake", "finished", "inactive", "unknown",
};

static const char *policy_name(int p)
{
	switch (p) {
	case 0: return "SCHED_OTHER";
	case 1: return "SCHED_FIFO";
	case 2: return "SCHED_RR";
	case 3: return "SCHED_BATCH";
	case 5: return "SCHED_IDLE";
	case 6: return "SCHED_DEADLINE";
	case 7: return "SCHED_EXT";
	default: return "unknown";
	}
}

void audio_print_text(const struct audio_result *r)
{
	bool pw = r->server == AUDIO_PIPEWIRE;

	printf("audio %s: JACK client '%s' busy %.1f %% of each period, %.1f s recorded\n",
	       audio_server_name(r->server), r->client, r->work_pct, r->seconds);
	printf("  quantum %u at %u Hz (%.3f ms)%s\n", r->quantum, r->rate,
	       r->rate ? 1e3 * r->quantum / r->rate : 0.0,
	       r->forced_quantum ? ", forced" : "");
	printf("  %s %" PRIu64 ", %s %" PRIu64 " (%.3f %%)\n",
	       pw ? "profiler records" : "cycles", r->cycles,
	       pw ? "client unfinished" : "late (callback ended after the deadline)",
	       r->unfinished, r->unfinished_pct);
	if (pw) {
		printf("  distinct cycles %" PRIu64 ", with the client unfinished in a record"
		       " %" PRIu64 "\n", r->graph_cycles, r->late_cycles);
		printf("  status at cycle end:");
		for (int s = 0; s < AUDIO_STATUSES; s++)
			if (r->by_status[s])
				printf(" %s %" PRIu64, status_name[s], r->by_status[s]);
		printf("\n");
		if (r->driver_xruns >= 0)
			printf("  driver xruns %" PRId64 "\n", r->driver_xruns);
		else
			printf("  driver xruns: not in this PipeWire's profiler records\n");
		if (r->missing)
			printf("  driver cycles without a profiler record: %" PRIu64 "\n",
			       r->missing);
	}
	printf("  the client's own count: cycles %" PRIu64 ", late %" PRIu64
	       ", JACK xrun callbacks %" PRIu64 "\n",
	       r->client_cycles, r->client_late, r->jack_xruns);
	printf("  process thread %d: %s/%d at the start, %s/%d at the end\n", (int)r->tid,
	       policy_name(r->policy_start), r->prio_start, policy_name(r->policy_end),
	       r->prio_end);
}

void audio_print_json(const struct audio_result *r)
{
	struct json j;

	json_begin(&j, stdout);
	json_str(&j, "mode", "audio");
	json_str(&j, "server", audio_server_name(r->server));
	json_str(&j, "client", r->client);
	json_num(&j, "seconds", r->seconds);
	json_num(&j, "work_pct", r->work_pct);
	json_uint(&j, "quantum", r->quantum);
	json_uint(&j, "rate", r->rate);
	json_uint(&j, "forced_quantum", r->forced_quantum);
	json_uint(&j, "cycles", r->cycles);
	json_uint(&j, "unfinished", r->unfinished);
	json_numf(&j, "unfinished_pct", "%.4f", r->unfinished_pct);
	if (r->server == AUDIO_PIPEWIRE) {
		json_obj(&j, "status");
		for (int s = 0; s < AUDIO_STATUSES; s++)
			json_uint(&j, status_name[s], r->by_status[s]);
		json_obj_end(&j);
		json_uint(&j, "graph_cycles", r->graph_cycles);
		json_uint(&j, "late_cycles", r->late_cycles);
		if (r->driver_xruns >= 0)
			json_int(&j, "driver_xruns", r->driver_xruns);
		else
			json_null(&j, "driver_xruns");
		json_uint(&j, "missing_records", r->missing);
	}
	json_uint(&j, "client_cycles", r->client_cycles);
	json_uint(&j, "client_late", r->client_late);
	json_uint(&j, "jack_xruns", r->jack_xruns);
	json_obj(&j, "thread");
	json_int(&j, "tid", r->tid);
	json_str(&j, "policy_start", policy_name(r->policy_start));
	json_int(&j, "prio_start", r->prio_start);
	json_str(&j, "policy_end", policy_name(r->policy_end));
	json_int(&j, "prio_end", r->prio_end);
	json_obj_end(&j);
	json_end(&j);
}
