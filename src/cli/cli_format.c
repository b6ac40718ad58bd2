/* cli_format.c — how isoctl shows thread states and isod's status, as
 * text for people and as JSON for programs. */
#include "cli.h"

#include <inttypes.h>
#include <sched.h>

#include "iso_policy.h"

const char *cli_kernel_policy_name(int kernel_policy)
{
	const char *name = iso_kernel_policy_name(kernel_policy);

	/* isod gives none for a thread that has just exited. */
	return name ? name : "-";
}

/* The user-visible priority as the patch's task_prio(): isod reports it;
 * should it leave it unset for an ISO thread, derive it (ISO's does not
 * depend on nice). */
int cli_user_prio(const struct iso_thread_info *t)
{
	if (t->user_prio == 0 && iso_policy_is_iso(t->policy) &&
	    t->prio >= ISO_PRIO_MIN && t->prio <= ISO_PRIO_MAX)
		return iso_user_prio(t->policy, t->prio, 0);
	return t->user_prio;
}

static bool demoted(const struct iso_thread_info *t)
{
	return (t->flags & ISO_THREAD_DEMOTED) != 0;
}

static bool adopted(const struct iso_thread_info *t)
{
	return (t->flags & ISO_THREAD_ADOPTED) != 0;
}

static const char *state(const struct iso_thread_info *t)
{
	if (!iso_policy_is_iso(t->policy))
		return "released";
	return demoted(t) ? "demoted" : "iso";
}

static double cpu_s(const struct iso_thread_info *t)
{
	return (double)t->cpu_ns / 1e9;
}

void cli_print_thread_line(FILE *f, const struct iso_thread_info *t)
{
	fprintf(f, "tid %" PRId32 " pid %" PRId32 " policy %s prio %" PRId32
		" uprio %d kernel %s/%" PRId32 " limit ",
		t->tid, t->pid, iso_policy_name(t->policy), t->prio,
		cli_user_prio(t), cli_kernel_policy_name(t->kernel_policy),
		t->kernel_prio);
	if (t->limit > 0)
		fprintf(f, "%" PRId32 "%%", t->limit);
	else
		fputs("none", f);
	fprintf(f, " state %s%s%s cpu %.3fs\n", state(t),
		adopted(t) ? ",adopted" : "", cli_reserve_state(t), cpu_s(t));
}

void cli_print_thread_json(FILE *f, const struct iso_thread_info *t)
{
	/* Policy names are fixed ASCII identifiers: nothing to escape. */
	fprintf(f, "{\"tid\":%" PRId32 ",\"pid\":%" PRId32 ",\"uid\":%" PRIu32
		",\"policy\":\"%s\",\"prio\":%" PRId32 ",\"user_prio\":%d"
		",\"kernel_policy\":%" PRId32 ",\"kernel_policy_name\":\"%s\""
		",\"kernel_prio\":%" PRId32 ",\"limit\":%" PRId32
		",\"demoted\":%s,\"adopted\":%s,\"reserve\":\"%s\",\"cpu_s\":%.6f}",
		t->tid, t->pid, t->uid, iso_policy_name(t->policy), t->prio,
		cli_user_prio(t), t->kernel_policy & ~ISO_KSCHED_RESET_ON_FORK,
		cli_kernel_policy_name(t->kernel_policy), t->kernel_prio,
		t->limit, demoted(t) ? "true" : "false",
		adopted(t) ? "true" : "false",
		/* "" (none), ",reserved" or ",fallback(WHY)" without its comma */
		cli_reserve_state(t) + (*cli_reserve_state(t) ? 1 : 0), cpu_s(t));
}

static double usage_pct(const struct iso_status_info *st)
{
	return (double)st->usage_milli / 1000.0;
}

void cli_print_status_text(FILE *f, const struct iso_status_info *st,
			   const struct iso_thread_info *t, size_t n)
{
	size_t i;

	fprintf(f, "ISO CPU use:  %.3f %% (budget iso_cpu %" PRIu32
		" %% over iso_period %" PRIu32 " s)\n",
		usage_pct(st), st->iso_cpu, st->iso_period_s);
	fprintf(f, "refractory:   %s\n", st->refractory ? "yes" : "no");
	fprintf(f, "band:         kernel RT priorities %" PRId32 "..%" PRId32 "\n",
		st->band_lo, st->band_hi);
	fprintf(f, "CPUs:         %" PRIu32 "\n", st->ncpus);
	fprintf(f, "sampling:     every %" PRIu32 " us\n", st->sample_us);
	fprintf(f, "ISO threads:  %" PRIu32 "\n", st->total);
	if (n == 0)
		return;
	fprintf(f, "\n%8s %8s %6s %-14s %4s %5s %-14s %5s %-16s %10s\n",
		"TID", "PID", "UID", "POLICY", "PRIO", "UPRIO", "KERNEL",
		"LIMIT", "STATE", "CPU");
	for (i = 0; i < n; i++) {
		char kern[48], lim[16], st_s[64];

		snprintf(kern, sizeof(kern), "%s/%" PRId32,
			 cli_kernel_policy_name(t[i].kernel_policy),
			 t[i].kernel_prio);
		if (t[i].limit > 0)
			snprintf(lim, sizeof(lim), "%" PRId32 "%%", t[i].limit);
		else
			snprintf(lim, sizeof(lim), "-");
		snprintf(st_s, sizeof(st_s), "%s%s%s", state(&t[i]),
			 adopted(&t[i]) ? ",adopted" : "", cli_reserve_state(&t[i]));
		fprintf(f, "%8" PRId32 " %8" PRId32 " %6" PRIu32
			" %-14s %4" PRId32 " %5d %-14s %5s %-16s %9.3fs\n",
			t[i].tid, t[i].pid, t[i].uid,
			iso_policy_name(t[i].policy), t[i].prio,
			cli_user_prio(&t[i]), kern, lim, st_s, cpu_s(&t[i]));
	}
}

void cli_print_users_text(FILE *f, const struct iso_users_info *us,
			  const struct iso_user_info *u, size_t n)
{
	if (!us->user_cpu)
		return;
	fprintf(f, "user_cpu:     %" PRIu32 " %% of iso_cpu: %.3f %% of the CPUs per user\n",
		us->user_cpu, us->share_milli / 1000.0);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "  uid %10" PRIu32 "  ISO CPU use %7.3f %%%s\n", u[i].uid,
			u[i].usage_milli / 1000.0,
			(u[i].flags & ISO_USER_OVER) ? "  over its share: demoted" : "");
}

void cli_print_strays_text(FILE *f, const struct iso_strays_info *sy)
{
	if (!sy->policing) {
		fprintf(f, "strays:       not policed (sweep_orphans off)\n");
		return;
	}
	fprintf(f, "strays:       %" PRIu64 " demoted (%" PRIu64 " warnings suppressed), %" PRIu64
		" kernel reports lost, %" PRIu64 " full audits; %" PRIu64
		" exiting threads demoted (no stray)\n",
		sy->demoted, sy->suppressed, sy->lost, sy->sweeps, sy->exiting);
}

void cli_print_status_json(FILE *f, const struct iso_status_info *st,
			   const struct iso_thread_info *t, size_t n,
			   const struct iso_users_info *us,
			   const struct iso_user_info *u, size_t nu,
			   const struct iso_strays_info *sy)
{
	size_t i;

	fprintf(f, "{\"iso_cpu\":%" PRIu32 ",\"iso_period\":%" PRIu32
		",\"usage\":%.3f,\"refractory\":%s,\"band\":[%" PRId32
		",%" PRId32 "],\"ncpus\":%" PRIu32 ",\"sample_us\":%" PRIu32
		",\"total\":%" PRIu32 ",\"threads\":[",
		st->iso_cpu, st->iso_period_s, usage_pct(st),
		st->refractory ? "true" : "false", st->band_lo, st->band_hi,
		st->ncpus, st->sample_us, st->total);
	for (i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		cli_print_thread_json(f, &t[i]);
	}
	fputc(']', f);
	/* only where shares are on: the object is as before otherwise */
	if (us && us->user_cpu) {
		fprintf(f, ",\"user_cpu\":%" PRIu32 ",\"user_share\":%.3f,\"users\":[",
			us->user_cpu, us->share_milli / 1000.0);
		for (i = 0; i < nu; i++)
			fprintf(f, "%s{\"uid\":%" PRIu32 ",\"usage\":%.3f,\"over\":%s}",
				i ? "," : "", u[i].uid, u[i].usage_milli / 1000.0,
				(u[i].flags & ISO_USER_OVER) ? "true" : "false");
		fputc(']', f);
	}
	/* from an isod that counts them (ISO_MSG_STRAYS) */
	if (sy)
		fprintf(f, ",\"strays\":{\"policing\":%s,\"demoted\":%" PRIu64
			",\"suppressed\":%" PRIu64 ",\"exiting\":%" PRIu64 ",\"lost\":%" PRIu64
			",\"audits\":%" PRIu64 "}",
			sy->policing ? "true" : "false", sy->demoted, sy->suppressed, sy->exiting,
			sy->lost, sy->sweeps);
	fputs("}\n", f);
}

void cli_print_tunables(FILE *f, const struct iso_status_info *st)
{
	fprintf(f, "iso_cpu=%" PRIu32 "\niso_period=%" PRIu32 "\n",
		st->iso_cpu, st->iso_period_s);
}
