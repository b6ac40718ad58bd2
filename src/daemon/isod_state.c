/* isod_state.c — the daemon state's life: set up from a configuration,
 * retuned on reload, torn down. */
#include "isod.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
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
	d->acct = &accounting_proc;
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
	if (statefile_buf_init(&d->state, cfg->max_threads) < 0) {
		tasks_free(&d->tasks);
		free(d->share.users);
		return -ENOMEM;
	}
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	r = -pthread_mutex_init(&d->lock, &ma);
	pthread_mutexattr_destroy(&ma);
	return r;
}

void isod_destroy(struct isod *d)
{
	tasks_free(&d->tasks);
	free(d->share.users);
	statefile_buf_free(&d->state);
	pthread_mutex_destroy(&d->lock);
}

void isod_reconfigure(struct isod *d, const struct isod_config *n)
{
	struct isod_config *c = &d->cfg;

	if (n->band.lo != c->band.lo || n->band.hi != c->band.hi ||
	    n->sample_ms != c->sample_ms || n->enforcer_prio != c->enforcer_prio ||
	    strcmp(n->socket_path, c->socket_path) || strcmp(n->state_path, c->state_path) ||
	    n->max_threads != c->max_threads)
		log_warning("band, sample_ms, enforcer_prio, max_threads, socket and state_file take effect only after a restart");
	iso_engine_retune(&d->engine, &n->tun);
	c->tun = n->tun;
	iso_engine_set_stall(&d->engine, n->stall_ms);
	c->stall_ms = n->stall_ms;
	c->burst_ms = n->burst_ms; /* the guard follows at the next sample */
	iso_share_retune(&d->share, n->user_cpu);
	c->user_cpu = n->user_cpu;
	c->inherit = n->inherit;
	c->sweep_orphans = n->sweep_orphans;
	c->audit_interval = n->audit_interval;
	c->max_threads_per_user = n->max_threads_per_user;
	c->max_limit = n->max_limit;
	c->rate_limit = n->rate_limit;
	c->rate_burst = n->rate_burst;
	memcpy(c->allow_users, n->allow_users, sizeof(c->allow_users));
	c->n_allow_users = n->n_allow_users;
	memcpy(c->allow_groups, n->allow_groups, sizeof(c->allow_groups));
	c->n_allow_groups = n->n_allow_groups;
	c->log_level = n->log_level;
	log_setup(c->log_level, c->use_syslog);
	log_info("configuration reloaded: iso_cpu %u%% over %us, user_cpu %u%%, inherit %s, %u threads per user",
		 c->tun.iso_cpu, c->tun.iso_period_s, c->user_cpu, c->inherit ? "yes" : "no",
		 c->max_threads_per_user);
}
