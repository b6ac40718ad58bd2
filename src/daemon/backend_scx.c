/* backend_scx.c — isod's side of scx_iso: detection through sysfs and the
 * pinned maps through raw bpf(2) (BPF_OBJ_GET, map lookup/update/delete). */
#include "backend_scx.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "iso_rule.h"
#include "iso_sched_abi.h"
#include "log.h"
#include "../scx/scx_iso.h"

#define POLL_NS 100000000LL /* sysfs is re-read at most every 100 ms */

/* scx_iso's side, process-wide: the maps and the sysfs state are the
 * machine's, and the crash handler reaches tasks_fd without any pointer
 * handed to it. */
static struct {
	pthread_mutex_t mu;
	enum backend_kind want;
	char pin_dir[BACKEND_PIN_DIR_MAX];
	char sysfs_dir[BACKEND_PIN_DIR_MAX];
	/* tasks_fd is atomic: the crash handler reads it without mu. */
	atomic_int tasks_fd;
	int tune_fd;
	uint32_t tasks_id; /* kernel id of the tasks map tasks_fd holds */
	/* Written under mu, read without it: on kernel RT (the usual case)
	 * no call takes mu, and the crash handler never does. */
	atomic_bool active;
	bool reloaded;
	/* the kernel has sched_ext (its sysfs directory), seen at setup: it
	 * cannot come later (read without mu: written only at setup) */
	atomic_bool has_sched_ext;
	int64_t last_poll;
	struct scx_iso_tune sent; /* what scx_iso was last given; 0: nothing */
} scx = {
	.mu = PTHREAD_MUTEX_INITIALIZER,
	.want = BACKEND_KERNEL_RT,
	.pin_dir = SCX_ISO_PIN_DIR_DEFAULT,
	.sysfs_dir = "/sys/kernel/sched_ext",
	.tasks_fd = -1,
	.tune_fd = -1,
};

static long sys_bpf(int cmd, union bpf_attr *a)
{
	return syscall(SYS_bpf, cmd, a, sizeof(*a));
}

static int obj_get(const char *name)
{
	char p[BACKEND_PIN_DIR_MAX + 16];
	union bpf_attr a;
	long fd;

	snprintf(p, sizeof(p), "%s/%s", scx.pin_dir, name);
	memset(&a, 0, sizeof(a));
	a.pathname = (uint64_t)(uintptr_t)p;
	a.file_flags = 0;
	fd = sys_bpf(BPF_OBJ_GET, &a);
	if (fd < 0)
		return -errno;
	(void)fcntl((int)fd, F_SETFD, FD_CLOEXEC);
	return (int)fd;
}

static int map_info(int fd, struct bpf_map_info *info)
{
	union bpf_attr a;

	memset(info, 0, sizeof(*info));
	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = (uint32_t)fd;
	a.info.info_len = sizeof(*info);
	a.info.info = (uint64_t)(uintptr_t)info;
	return sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a) < 0 ? -errno : 0;
}

/* A pinned map of the wrong shape (another program's, an older layout)
 * must not be written to. */
static bool map_shape_ok(int fd, uint32_t key_size, uint32_t value_size, uint32_t *id)
{
	struct bpf_map_info info;

	if (map_info(fd, &info) < 0)
		return false;
	if (id)
		*id = info.id;
	return info.key_size == key_size && info.value_size == value_size;
}

/* The map pinned now is not the one we hold: scx_iso was scx.reloaded (or
 * restarted itself after a hotplug) between two looks. */
static bool pinned_instance_changed(void)
{
	struct bpf_map_info info;
	int fd = obj_get(SCX_ISO_MAP_TASKS);
	bool changed;

	if (fd < 0)
		return true;
	changed = map_info(fd, &info) < 0 || info.id != scx.tasks_id;
	close(fd);
	return changed;
}

static int read_word(const char *name, char *buf, size_t n)
{
	char p[BACKEND_PIN_DIR_MAX + 16];
	ssize_t len;
	int fd;

	snprintf(p, sizeof(p), "%s/%s", scx.sysfs_dir, name);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = read(fd, buf, n - 1);
	close(fd);
	if (len < 0)
		return -EIO;
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		len--;
	buf[len] = '\0';
	return 0;
}

/* Is scx_iso the root scheduler now (sysfs only)? */
static bool scx_iso_loaded(void)
{
	char state[32], ops[64];

	return read_word("state", state, sizeof(state)) == 0 && !strcmp(state, "enabled") &&
	       read_word("root/ops", ops, sizeof(ops)) == 0 && !strcmp(ops, SCX_ISO_OPS_NAME);
}

static void close_maps(void)
{
	/* unpublished before it is closed: the crash handler never uses a
	 * number that could be reused meanwhile */
	int fd = atomic_exchange(&scx.tasks_fd, -1);

	if (fd >= 0)
		close(fd);
	if (scx.tune_fd >= 0)
		close(scx.tune_fd);
	scx.tune_fd = -1;
	memset(&scx.sent, 0, sizeof(scx.sent));
}

/* Caller holds scx.mu. Re-evaluate: loaded, and the maps open and of our
 * layout. Each load of scx_iso pins new maps, so they are reopened
 * whenever it was not scx.active. */
static bool evaluate(void)
{
	int t, u;

	if (scx.want == BACKEND_KERNEL_RT || !scx_iso_loaded()) {
		close_maps();
		return false;
	}
	if (atomic_load(&scx.active) && scx.tasks_fd >= 0) {
		if (!pinned_instance_changed())
			return true;
		scx.reloaded = true; /* every thread must be marked in the new maps */
	}
	close_maps();
	t = obj_get(SCX_ISO_MAP_TASKS);
	u = obj_get(SCX_ISO_MAP_TUNE);
	if (t < 0 || u < 0 ||
	    !map_shape_ok(t, sizeof(uint32_t), sizeof(struct scx_iso_task), &scx.tasks_id) ||
	    !map_shape_ok(u, sizeof(uint32_t), sizeof(struct scx_iso_tune), NULL)) {
		if (t >= 0)
			close(t);
		if (u >= 0)
			close(u);
		return false;
	}
	scx.tasks_fd = t;
	scx.tune_fd = u;
	return true;
}

int scx_setup(enum backend_kind k, const char *dir, const char *sysfs)
{
	int r = 0;

	if (dir && strlen(dir) >= sizeof(scx.pin_dir))
		return -ENAMETOOLONG;
	if (sysfs && strlen(sysfs) >= sizeof(scx.sysfs_dir))
		return -ENAMETOOLONG;
	pthread_mutex_lock(&scx.mu);
	scx.want = k;
	snprintf(scx.pin_dir, sizeof(scx.pin_dir), "%s", dir ? dir : SCX_ISO_PIN_DIR_DEFAULT);
	if (sysfs)
		snprintf(scx.sysfs_dir, sizeof(scx.sysfs_dir), "%s", sysfs);
	atomic_store(&scx.active, false);
	atomic_store(&scx.active, evaluate());
	atomic_store(&scx.has_sched_ext, access(scx.sysfs_dir, F_OK) == 0);
	if (k == BACKEND_SCX && !atomic_load(&scx.active))
		r = -ENODEV;
	pthread_mutex_unlock(&scx.mu);
	return r;
}

bool scx_active(void)
{
	return atomic_load(&scx.active);
}

bool scx_poll(int64_t now_ns)
{
	bool was, changed = false;

	/* no sched_ext in this kernel (its sysfs directory comes with it
	 * and cannot appear later): nothing to look at — every check would
	 * walk a path to ENOENT (Debian 12's 6.1, this VM's 6.18) */
	if (scx.want == BACKEND_KERNEL_RT || !atomic_load(&scx.has_sched_ext))
		return false;
	pthread_mutex_lock(&scx.mu);
	was = atomic_load(&scx.active);
	if (now_ns - scx.last_poll >= POLL_NS || now_ns < scx.last_poll) {
		scx.last_poll = now_ns;
		atomic_store(&scx.active, evaluate());
	}
	changed = was != atomic_load(&scx.active) || (atomic_load(&scx.active) && scx.reloaded);
	scx.reloaded = false;
	pthread_mutex_unlock(&scx.mu);
	return changed;
}

bool scx_probe(void)
{
	bool r;

	if (scx.want == BACKEND_KERNEL_RT)
		return false;
	pthread_mutex_lock(&scx.mu);
	r = scx_iso_loaded() != atomic_load(&scx.active) ||
	    (atomic_load(&scx.active) && scx.tasks_fd >= 0 && pinned_instance_changed());
	pthread_mutex_unlock(&scx.mu);
	return r;
}

bool scx_may_switch(void)
{
	return scx.want != BACKEND_KERNEL_RT && atomic_load(&scx.has_sched_ext);
}

void scx_close(void)
{
	pthread_mutex_lock(&scx.mu);
	close_maps();
	atomic_store(&scx.active, false);
	pthread_mutex_unlock(&scx.mu);
}

/* Caller holds scx.mu: a map operation failed for a reason other than the
 * key; scx_iso is going or gone. */
static void lost(int err)
{
	log_warning("scx_iso map access failed (%s): falling back to kernel RT", strerror(err));
	close_maps();
	atomic_store(&scx.active, false);
}

static int scx_mark(pid_t tid, bool fifo, int prio, unsigned limit)
{
	struct scx_iso_task e;
	union bpf_attr a;
	uint32_t key = (uint32_t)tid;
	int r = 0;

	if (tid <= 0 || prio < 1 || prio > 99 || limit > 100)
		return -EINVAL;
	if (!atomic_load(&scx.active))
		return -ENODEV;
	pthread_mutex_lock(&scx.mu);
	if (!atomic_load(&scx.active)) {
		pthread_mutex_unlock(&scx.mu);
		return -ENODEV;
	}
	memset(&e, 0, sizeof(e));
	/* keep what the scheduler has counted for a thread granted again */
	memset(&a, 0, sizeof(a));
	a.map_fd = (uint32_t)scx.tasks_fd;
	a.key = (uint64_t)(uintptr_t)&key;
	a.value = (uint64_t)(uintptr_t)&e;
	(void)sys_bpf(BPF_MAP_LOOKUP_ELEM, &a);
	e.policy = fifo ? SCX_ISO_FIFO : SCX_ISO_RR;
	e.prio = (uint32_t)prio;
	e.limit = limit;
	a.flags = BPF_ANY;
	if (sys_bpf(BPF_MAP_UPDATE_ELEM, &a) < 0) {
		int err = errno;

		if (err == E2BIG) { /* map full: refuse this thread only */
			r = -EAGAIN;
		} else {
			lost(err);
			r = -ENODEV;
		}
	}
	pthread_mutex_unlock(&scx.mu);
	return r;
}

static int scx_unmark(pid_t tid)
{
	union bpf_attr a;
	uint32_t key = (uint32_t)tid;

	if (!atomic_load(&scx.active))
		return 0;
	pthread_mutex_lock(&scx.mu);
	if (atomic_load(&scx.active)) {
		memset(&a, 0, sizeof(a));
		a.map_fd = (uint32_t)scx.tasks_fd;
		a.key = (uint64_t)(uintptr_t)&key;
		(void)sys_bpf(BPF_MAP_DELETE_ELEM, &a); /* ENOENT: not marked */
	}
	pthread_mutex_unlock(&scx.mu);
	return 0;
}

int scx_clear_signal_safe(pid_t tid)
{
	union bpf_attr a;
	uint32_t key = (uint32_t)tid;
	int fd = atomic_load(&scx.tasks_fd);

	if (!atomic_load(&scx.active) || fd < 0)
		return 0;
	memset(&a, 0, sizeof(a));
	a.map_fd = (uint32_t)fd;
	a.key = (uint64_t)(uintptr_t)&key;
	return sys_bpf(BPF_MAP_DELETE_ELEM, &a) < 0 ? -errno : 0;
}

static int map_query(pid_t tid, int *prio, bool *demoted)
{
	struct scx_iso_task e;
	union bpf_attr a;
	uint32_t key = (uint32_t)tid;
	int r = -ENOENT;

	if (!atomic_load(&scx.active))
		return -ENOENT;
	pthread_mutex_lock(&scx.mu);
	if (atomic_load(&scx.active)) {
		memset(&a, 0, sizeof(a));
		a.map_fd = (uint32_t)scx.tasks_fd;
		a.key = (uint64_t)(uintptr_t)&key;
		a.value = (uint64_t)(uintptr_t)&e;
		if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &a) == 0) {
			*prio = (int)e.prio;
			*demoted = e.demoted != 0;
			r = 0;
		}
	}
	pthread_mutex_unlock(&scx.mu);
	return r;
}

static void scx_tune(unsigned iso_cpu, unsigned iso_period_s)
{
	struct scx_iso_tune t = { .iso_cpu = iso_cpu, .iso_period_ms = iso_period_s * 1000u };
	union bpf_attr a;
	uint32_t key = 0;

	if (!atomic_load(&scx.active))
		return;
	pthread_mutex_lock(&scx.mu);
	if (atomic_load(&scx.active) && (t.iso_cpu != scx.sent.iso_cpu || t.iso_period_ms != scx.sent.iso_period_ms)) {
		memset(&a, 0, sizeof(a));
		a.map_fd = (uint32_t)scx.tune_fd;
		a.key = (uint64_t)(uintptr_t)&key;
		a.value = (uint64_t)(uintptr_t)&t;
		a.flags = BPF_ANY;
		if (sys_bpf(BPF_MAP_UPDATE_ELEM, &a) == 0) {
			scx.sent = t;
			log_info("scx_iso: iso_cpu %u%% over %u ms", t.iso_cpu, t.iso_period_ms);
		} else {
			lost(errno);
		}
	}
	pthread_mutex_unlock(&scx.mu);
}

/* ---- the backend's operations ---- */

static int scx_grant(pid_t tid, const struct backend_grant *g)
{
	/* kernel RT would run above every sched_ext task: stay SCHED_OTHER */
	int r = backend_kernel_rt.demote(tid);

	if (r < 0)
		return r;
	r = scx_mark(tid, g->fifo, g->prio, g->limit);
	if (r == -ENODEV) /* scx_iso went away under us: never leave it unpoliced */
		return backend_kernel_rt.grant(tid, g);
	return r;
}

static int scx_demote(pid_t tid)
{
	int r = backend_kernel_rt.demote(tid);

	(void)scx_unmark(tid);
	return r;
}

/* A thread scx_iso runs as ISO reads as SCHED_EXT at its ISO priority. */
static int scx_query(pid_t tid, struct backend_thread *o)
{
	int r = backend_kernel_rt.query(tid, o), prio;
	bool demoted;

	if (r < 0)
		return r;
	if (o->policy == ISO_KSCHED_OTHER && map_query(tid, &prio, &demoted) == 0 && !demoted) {
		o->policy = ISO_KSCHED_EXT;
		o->prio = prio;
		o->iso = true;
	}
	return 0;
}

/* Whether a thread runs as ISO at a moment is scx_iso's call, per CPU;
 * but a tracked thread is never kernel RT here (iso_rule.h) unless as
 * scx_grant's fallback placed it (scx_iso gone): else isod_verify puts
 * its decision back. */
static bool scx_placed_as(const struct backend_grant *g, bool demoted, int policy, int prio)
{
	return !iso_rule_kernel_rt(policy, prio) ||
	       (!demoted && backend_kernel_rt.placed_as(g, false, policy, prio));
}

static bool scx_placed(pid_t tid, const struct backend_grant *g, bool demoted,
		       struct backend_thread *now)
{
	return backend_kernel_rt.query(tid, now) < 0 || /* gone: the sampler sees it */
	       scx_placed_as(g, demoted, now->policy, now->prio);
}

const struct backend backend_scx = {
	.name = "scx",
	.owns_budget = true,
	.grant = scx_grant,
	.demote = scx_demote,
	.query = scx_query,
	.placed = scx_placed,
	.placed_as = scx_placed_as,
	.tune = scx_tune,
};
