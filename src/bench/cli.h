/* cli.h — isobench's command line: one parse into the chosen mode's
 * options, checked; bad arguments exit 2 with a message (cli.c). */
#ifndef ISOBENCH_CLI_H
#define ISOBENCH_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "audio/audio.h"
#include "cost/cost.h"
#include "enforce/enforce.h"
#include "isolation/isolation.h"
#include "latency/latency.h"
#include "stall/stall.h"

enum bench_mode { MODE_LATENCY, MODE_ENFORCE, MODE_COST, MODE_STALL, MODE_ISOLATION, MODE_AUDIO };

struct cli {
	enum bench_mode mode;
	bool json, help;
	struct latency_opts latency;
	const char *hist_file, *plot_file; /* latency's extra outputs */
	struct enforce_opts enforce;
	struct cost_opts cost;
	struct stall_opts stall;
	struct isolation_opts isolation;
	struct audio_opts audio;
};

/* Parse argv into c (defaults filled in); exits 2 on bad arguments. */
void cli_parse(int argc, char **argv, struct cli *c);
void cli_usage(FILE *f);
/* The mode's option name ("--enforcement"...). */
const char *cli_mode_name(enum bench_mode m);

#endif
