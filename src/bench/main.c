/* isobench — latency, enforcement, stall and overhead benchmarks of
 * isosched (see bench.h for the parts, --help for the modes).
 *
 * main.c: parse the command line, then run the chosen mode and render its
 * result as text or JSON.
 *
 * Exit: 0 all runs done (latency mode: or skipped, not root / no isod);
 * 1 a run failed; 2 bad arguments (--audio: or a build without its
 * library); 3 the hard time bound was reached. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "cli.h"

static int latency(const struct cli *c)
{
	struct latency_result r;
	int rc;

	cleanup_install(latency_bound_s(&c->latency));
	rc = latency_run(&c->latency, &r) < 0 ? 1 : 0;
	cleanup_disarm();
	if (c->json)
		latency_print_json(&r);
	else
		latency_print_text(&r);
	fflush(stdout);
	for (int i = 0; i < r.nresults; i++)
		if (c->json && r.results[i].state != RUN_OK)
			fprintf(stderr, "isobench: %s %s: %s\n",
				policy_name(r.results[i].policy),
				r.results[i].state == RUN_SKIPPED ? "skipped" : "failed",
				r.results[i].note);
	if (c->hist_file && latency_write_histograms(&r, c->hist_file) < 0) {
		fprintf(stderr, "isobench: %s: %s\n", c->hist_file, strerror(errno));
		rc = 1;
	}
	if (c->plot_file && latency_write_svg(&r, c->plot_file) < 0) {
		fprintf(stderr, "isobench: %s: %s\n", c->plot_file, strerror(errno));
		rc = 1;
	}
	latency_result_free(&r);
	return rc;
}

static int enforcement(const struct cli *c)
{
	struct enforce_result r;
	int rc;

	cleanup_install(enforce_bound_s(&c->enforce));
	rc = enforce_run(&c->enforce, &r) < 0 ? 1 : 0;
	cleanup_disarm();
	if (r.nlevels) {
		if (c->json)
			enforce_print_json(&r);
		else
			enforce_print_text(&r);
	}
	enforce_result_free(&r);
	return rc;
}

static int daemon_cost(const struct cli *c)
{
	struct cost_result r;
	int rc;

	cleanup_install(cost_bound_s(&c->cost));
	rc = cost_run(&c->cost, &r) < 0 ? 1 : 0;
	cleanup_disarm();
	if (r.npoints) {
		if (c->json)
			cost_print_json(&r);
		else
			cost_print_text(&r);
	}
	return rc;
}

static int stall(const struct cli *c)
{
	struct stall_result r;
	int rc;

	cleanup_install(stall_bound_s(&c->stall));
	rc = stall_run(&c->stall, &r) < 0 ? 1 : 0;
	cleanup_disarm();
	if (r.started) {
		if (c->json)
			stall_print_json(&r);
		else
			stall_print_text(&r);
	}
	return rc;
}

static int isolation(const struct cli *c)
{
	struct isolation_result r;
	int rc;

	cleanup_install(isolation_bound_s(&c->isolation));
	rc = isolation_run(&c->isolation, &r) < 0 ? 1 : 0;
	cleanup_disarm();
	if (r.started) {
		if (c->json)
			isolation_print_json(&r);
		else
			isolation_print_text(&r);
	}
	return rc;
}

/* No root, no isod: a client of the user's audio server like any other. */
static int audio(const struct cli *c)
{
	struct audio_result r;
	int rc;

	cleanup_install(audio_bound_s(&c->audio));
	rc = audio_run(&c->audio, &r) < 0 ? 1 : 0;
	cleanup_disarm();
	if (rc) {
		fprintf(stderr, "isobench: --audio %s: %s\n",
			audio_server_name(c->audio.server), r.note);
		return rc;
	}
	if (c->json)
		audio_print_json(&r);
	else
		audio_print_text(&r);
	return 0;
}

int main(int argc, char **argv)
{
	struct cli c;
	int rc;

	cli_parse(argc, argv, &c);
	if (c.help) {
		cli_usage(stdout);
		return 0;
	}
	if (c.mode != MODE_LATENCY && c.mode != MODE_AUDIO && geteuid() != 0) {
		fprintf(stderr, "isobench: %s needs root (a private isod,"
				" clients as user nobody)\n", cli_mode_name(c.mode));
		return 1;
	}
	switch (c.mode) {
	case MODE_LATENCY:
		rc = latency(&c);
		break;
	case MODE_ENFORCE:
		rc = enforcement(&c);
		break;
	case MODE_COST:
		rc = daemon_cost(&c);
		break;
	case MODE_ISOLATION:
		rc = isolation(&c);
		break;
	case MODE_AUDIO:
		rc = audio(&c);
		break;
	default:
		rc = stall(&c);
		break;
	}
	fflush(stdout);
	return rc;
}
