/* isod_state.c — the daemon state's life: set up from a configuration,
 * retuned on reload, torn down. */
#include "isod.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "log.h"
#include "percpu.h"
#include "reserve.h"
#include "schedule.h"
#include "statefile.h"

int isod_init(struct isod *d, const struct isod_config *cfg)
{
	pthread_mutexattr_t ma;
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct iso_share_user *users;
	int r;

	memset(d, 0, sizeof(*d));
	d->cfg = *cfg;
	d->proc = "/proc";
	r = accounting_choose(cfg, &d->acct);
	if (r < 0)
		return r;
	r = iso_engine_init(&d->engine, &cfg->tun, ncpus > 0 ? (unsigned)ncpus : 1);
	if (r == 0)
		r = iso_engine_set_stall(&d->engine, cfg->stall_ms);
	if (r < 0)
		return r;
	r = tasks_init(&d->tasks, cfg->max_threads);
	if (r < 0)
		return r;
	/* one uid per thread at most: the share table can never be short */
	users = calloc(cfg->max_threads, sizeof(*users));
	if (!users || iso_share_init(&d->share, users, cfg->max_threads, cfg->user_cpu) < 0) {
		free(users);
		tasks_free(&d->tasks);
		return -ENOMEM;
	}
	if (statefile_buf_init(&d->state, cfg->max_threads) < 0 || isod_percpu_init(d, cfg) < 0 ||
	    reserve_init(d, cfg) < 0) {
		reserve_free(d);
		statefile_buf_free(&d->state);
		tasks_free(&d->tasks);
		free(d->share.users);
		return -ENOMEM;
	}
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	r = -pthread_mutex_init(&d->lock, &ma);
	pthread_mutexattr_destroy(&ma);
	if (r == 0)
		r = isod_schedule_init(d);
	d->forkfd = -1;
	/* without it the server cannot sleep while idle: it then wakes
	 * every 100 ms as before (strays_timeout_ms) */
	d->server_wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	return r;
}

void isod_destroy(struct isod *d)
{
	uint64_t band_ns;

	/* the one aggregate the program keeps for every CPU: said once */
	if (accounting_band_ns(d->acct, &band_ns) == 0)
		log_info("BPF accounting: users' threads ran %.3f s at band priorities, tracked or not",
			 (double)band_ns / 1e9);
	accounting_unbind(d->acct); /* its thread reads the table and takes the lock */
	tasks_free(&d->tasks);
	free(d->share.users);
	statefile_buf_free(&d->state);
	isod_percpu_free(d);
	nsmap_free(&d->nsmap);
	reserve_free(d);
	pthread_cond_destroy(&d->wake);
	if (d->server_wake >= 0)
		close(d->server_wake);
	pthread_mutex_destroy(&d->lock);
	accounting_close(d->acct);
}

void isod_reconfigure(struct isod *d, const struct isod_config *n)
{
	struct isod_config *c = &d->cfg;
	char restart_only[256];

	/* the configuration table (config.c) says which keys SIGHUP takes */
	if (config_take_reloadable(c, n, restart_only, sizeof(restart_only)) > 0)
		log_warning("changed on reload but taking effect only after a restart: %s",
			    restart_only);
	iso_engine_retune(&d->engine, &c->tun);
	iso_engine_set_stall(&d->engine, c->stall_ms);
	/* burst_ms: the guard follows at the next check */
	iso_share_retune(&d->share, c->user_cpu);
	(void)iso_reserve_retune(&d->reserve, c->reserve_cpu, c->reserve_user);
	isod_replan(d); /* the limits changed: so may the next check */
	log_setup(c->log_level, c->use_syslog);
	accounting_report_strays(d->acct, c->sweep_orphans && !c->dry_run);
	accounting_report_forks(d->acct, c->inherit);
	log_info("configuration reloaded: iso_cpu %u%% over %us, user_cpu %u%%, inherit %s, %u threads per user",
		 c->tun.iso_cpu, c->tun.iso_period_s, c->user_cpu, c->inherit ? "yes" : "no",
		 c->max_threads_per_user);
}
