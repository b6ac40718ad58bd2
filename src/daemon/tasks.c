/* tasks.c — tracked ISO threads. */
#include "tasks.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "procinfo.h"

static unsigned pid_bucket(pid_t pid)
{
	return ((unsigned)pid * 2654435761u) >> 24; /* TASKS_PID_BUCKETS = 256 */
}

bool tasks_may_track_pid(const struct task_table *tt, pid_t pid)
{
	return atomic_load_explicit(&tt->pid_bucket[pid_bucket(pid)], memory_order_acquire) != 0;
}

int tasks_init(struct task_table *tt, size_t cap)
{
	int r = task_index_init(&tt->idx, cap);

	if (r < 0)
		return r;
	tt->t = calloc(cap, sizeof(*tt->t));
	if (!tt->t) {
		task_index_free(&tt->idx);
		return -ENOMEM;
	}
	tt->cap = cap;
	tt->used = 0;
	tt->end = 0;
	for (size_t i = 0; i < TASKS_PID_BUCKETS; i++)
		atomic_init(&tt->pid_bucket[i], 0);
	return 0;
}

void tasks_free(struct task_table *tt)
{
	for (size_t i = 0; i < tt->end; i++)
		if (tt->t[i].used)
			tasks_remove(tt, &tt->t[i]);
	free(tt->t);
	tt->t = NULL;
	task_index_free(&tt->idx);
}

struct tracked *tasks_find(struct task_table *tt, pid_t tid)
{
	int32_t s = task_index_find(&tt->idx, tid);

	return s >= 0 && tt->t[s].used && tt->t[s].tid == tid ? &tt->t[s] : NULL;
}

struct tracked *tasks_next(const struct task_table *tt, const struct tracked *prev)
{
	/* bounded by cap as well: the crash handler may find end damaged */
	for (size_t i = prev ? (size_t)(prev - tt->t) + 1 : 0; i < tt->end && i < tt->cap; i++)
		if (tt->t[i].used)
			return &tt->t[i];
	return NULL;
}

int tasks_open(const char *proc, pid_t pid, pid_t tid, struct tracked *e)
{
	char path[128];
	uint64_t start;
	int r;

	e->statfd = -1;
	e->cpu = ISO_CPU_UNKNOWN;
	e->cpufd = -1;
	/* the handle first, then the start time: if the handle still works
	 * after the read (tasks_alive, the caller's check), its thread held
	 * the TID all along, so the start time read is its own (a thread
	 * keeps its TID until it is gone: no before-and-after reads) */
	snprintf(path, sizeof(path), "%s/%d/task/%d/schedstat", proc, (int)pid, (int)tid);
	e->statfd = open(path, O_RDONLY | O_CLOEXEC);
	if (e->statfd < 0)
		return errno == ENOENT ? -ESRCH : errno == EMFILE || errno == ENFILE ? -EAGAIN : -errno;
	r = read_thread_starttime(proc, tid, &start);
	if (r < 0) {
		close(e->statfd);
		e->statfd = -1;
		return r == -ENOENT ? -ESRCH : r;
	}
	e->tid = tid;
	e->pid = pid;
	e->starttime = start;
	return 0;
}

void tasks_unpin(struct tracked *e)
{
	if (e && e->statfd >= 0)
		close(e->statfd);
	if (e)
		e->statfd = -1;
}

struct tracked *tasks_insert(struct task_table *tt, const struct tracked *e)
{
	int32_t s = task_index_take(&tt->idx, e->tid, e->charged);
	size_t i = (size_t)s;

	if (s < 0)
		return NULL;
	tt->t[i] = *e;
	tt->t[i].used = true;
	tt->used++;
	atomic_fetch_add_explicit(&tt->pid_bucket[pid_bucket(e->pid)], 1, memory_order_release);
	if (i + 1 > tt->end)
		tt->end = i + 1;
	return &tt->t[i];
}

void tasks_remove(struct task_table *tt, struct tracked *e)
{
	if (!e->used)
		return;
	if (e->statfd >= 0)
		close(e->statfd);
	if (e->cpufd >= 0)
		close(e->cpufd);
	atomic_fetch_sub_explicit(&tt->pid_bucket[pid_bucket(e->pid)], 1, memory_order_release);
	task_index_put(&tt->idx, (int32_t)(e - tt->t), e->charged);
	memset(e, 0, sizeof(*e));
	tt->used--;
	while (tt->end > 0 && !tt->t[tt->end - 1].used)
		tt->end--;
}

size_t tasks_count_uid(const struct task_table *tt, uid_t uid)
{
	return task_index_uid_count(&tt->idx, uid);
}

/* The open schedstat file is the identity handle: /proc keeps a reference
 * to the thread's struct pid, not to its number, so once that thread is
 * gone — exited, or replaced by a sibling's exec that took over the
 * process id — every read fails with ESRCH, even after the number is
 * reused. Unlike pidfd_send_signal(fd, 0) it needs no permission to
 * signal the thread (isod's unit has no CAP_KILL) and works on every
 * kernel (thread pidfds came in 6.9). */
bool tasks_alive(const struct tracked *e)
{
	char buf[96];

	return e->statfd >= 0 && pread(e->statfd, buf, sizeof(buf), 0) > 0;
}
