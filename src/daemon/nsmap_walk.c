/* nsmap_walk.c — the walk of a PID namespace before Linux 6.11: bounded per
 * request, resumed by the next, and the memory of the threads it read. */
#include "nsmap_walk.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "procinfo.h"

#define SEEN_SLOTS 16384 /* a power of two; emptied when three quarters full */
#define WALKS 4          /* clients walked at once; the least recent makes way */
#define PENDING 16       /* ids asked for while a walk of them runs */
#define MAX_DEPTH 64     /* parents looked up for the namespace's top */

/* One thread a walk read: its id in namespace ns, and ours. tid 0: empty. */
struct seen {
	ino_t ns;
	pid_t ns_tid;
	pid_t tid;
};

/* An id asked for, and the first pass of the walk that covers all of it. */
struct pending {
	pid_t ns_tid;
	uint64_t first_pass;
};

enum phase {
	OWN,  /* the client's own threads */
	TOP,  /* up from the client to its highest ancestor in the namespace */
	TREE, /* down the namespace's process tree */
};

struct walk {
	ino_t ns; /* 0: a free slot */
	pid_t client;
	size_t level;
	uint64_t last_used;
	uint64_t pass;  /* passes ended so far */
	bool fresh;     /* the current pass has read nothing yet */
	enum phase phase;
	DIR *dir;       /* the task directory being read, or NULL */
	pid_t top;
	int depth;
	pid_t queue[NSWALK_MAX_PROCS];
	size_t n, i;    /* processes queued; the one being read */
	struct pending pending[PENDING];
	size_t n_pending;
};

struct nswalk {
	struct seen *seen;
	size_t n_seen;
	struct walk walks[WALKS];
	uint64_t clock;
};

struct nswalk *nswalk_new(void)
{
	struct nswalk *w = calloc(1, sizeof(*w));

	if (w && !(w->seen = calloc(SEEN_SLOTS, sizeof(*w->seen)))) {
		free(w);
		return NULL;
	}
	return w;
}

static void walk_reset(struct walk *k)
{
	if (k->dir)
		closedir(k->dir);
	k->dir = NULL;
	k->phase = OWN;
	k->fresh = true;
	k->n = k->i = 0;
}

void nswalk_free(struct nswalk *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < WALKS; i++)
		walk_reset(&w->walks[i]);
	free(w->seen);
	free(w);
}

/* ---- the memory: (namespace, id there) -> our id, open addressing ---- */

static size_t seen_slot(ino_t ns, pid_t ns_tid)
{
	uint64_t h = (uint64_t)ns * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uint32_t)ns_tid * 0xc2b2ae3d27d4eb4full;

	return (size_t)(h ^ (h >> 31)) & (SEEN_SLOTS - 1);
}

static struct seen *seen_find(struct nswalk *w, ino_t ns, pid_t ns_tid)
{
	for (size_t s = seen_slot(ns, ns_tid);; s = (s + 1) & (SEEN_SLOTS - 1)) {
		struct seen *e = &w->seen[s];
		if (!e->tid || (e->ns == ns && e->ns_tid == ns_tid))
			return e;
	}
}

static void seen_put(struct nswalk *w, ino_t ns, pid_t ns_tid, pid_t tid)
{
	struct seen *e;

	/* never full, so a probe always ends: start again when it would be */
	if (w->n_seen >= SEEN_SLOTS / 4 * 3) {
		memset(w->seen, 0, SEEN_SLOTS * sizeof(*w->seen));
		w->n_seen = 0;
	}
	e = seen_find(w, ns, ns_tid);
	if (!e->tid)
		w->n_seen++;
	*e = (struct seen){ .ns = ns, .ns_tid = ns_tid, .tid = tid };
}

/* Is process (or thread) pid in namespace ns? */
static bool in_ns(const char *proc, pid_t pid, ino_t ns)
{
	char path[128];
	struct stat sb;

	snprintf(path, sizeof(path), "%s/%d/ns/pid", proc, (int)pid);
	return stat(path, &sb) == 0 && sb.st_ino == ns;
}

/* Is our thread tid still ns_tid, in namespace ns at this level? */
static bool still(const char *proc, pid_t tid, ino_t ns, size_t level, pid_t ns_tid)
{
	struct thread_status st;

	return read_thread_status(proc, tid, &st) == 0 && st.n_nspid == level + 1 &&
	       st.nspid[level] == ns_tid && in_ns(proc, tid, ns);
}

/* ---- the walk ---- */

/* Read thread t's ids; remember them. Is it the one asked for? */
static bool read_thread(struct nswalk *w, struct walk *k, const char *proc, pid_t t, pid_t ns_tid)
{
	struct thread_status st;

	if (read_thread_status(proc, t, &st) < 0 || st.n_nspid != k->level + 1)
		return false; /* gone, or in a namespace below the client's */
	seen_put(w, k->ns, st.nspid[k->level], t);
	return st.nspid[k->level] == ns_tid;
}

/* Queue the children of thread t of process pid. */
static void queue_children(struct walk *k, const char *proc, pid_t pid, pid_t t)
{
	char path[128], buf[4096], *p, *end;

	snprintf(path, sizeof(path), "%s/%d/task/%d/children", proc, (int)pid, (int)t);
	if (proc_read_file(path, buf, sizeof(buf)) < 0)
		return;
	for (p = buf; k->n < NSWALK_MAX_PROCS; p = end) {
		long c = strtol(p, &end, 10);
		if (end == p)
			break;
		if (c > 0 && c <= INT32_MAX)
			k->queue[k->n++] = (pid_t)c;
	}
}


/* The parent of process pid, if it is in namespace ns; 0 if not. */
static pid_t parent_in(const char *proc, pid_t pid, ino_t ns)
{
	char path[128], buf[2048];
	const char *f;
	long pp;

	snprintf(path, sizeof(path), "%s/%d/status", proc, (int)pid);
	if (proc_read_file(path, buf, sizeof(buf)) < 0 || !(f = proc_field(buf, "PPid:")))
		return 0;
	pp = strtol(f, NULL, 10);
	if (pp <= 0 || pp > INT32_MAX)
		return 0;
	return in_ns(proc, (pid_t)pp, ns) ? (pid_t)pp : 0;
}

/* Open the next task directory to read: the client's (OWN) or the next
 * queued process's (TREE). false: nothing left in this phase. A queued
 * pid is checked to be of the namespace still: it may have been reused
 * by a process of another namespace (the client's own was checked by
 * the caller). */
static bool open_next(struct walk *k, const char *proc)
{
	char path[128];

	for (;;) {
		pid_t pid = k->phase == OWN ? k->client : (k->i < k->n ? k->queue[k->i] : 0);
		if (!pid)
			return false;
		snprintf(path, sizeof(path), "%s/%d/task", proc, (int)pid);
		k->dir = k->phase == OWN || in_ns(proc, pid, k->ns) ? opendir(path) : NULL;
		if (k->dir || k->phase == OWN)
			return k->dir != NULL;
		k->i++; /* gone, or another's now: the next */
	}
}

/* Run the walk while *budget lasts (each file read, directory opened or
 * parent looked up costs one; a thread's status and children, two: the
 * budget may end one below zero). 0: found (*tid); -ESRCH: a pass ended
 * (k->pass counts it, the next starts afresh); -EINPROGRESS: spent. */
static int walk_run(struct nswalk *w, struct walk *k, const char *proc, pid_t ns_tid, pid_t *tid,
		    int *budget)
{
	struct dirent *de;

	while (*budget > 0) {
		k->fresh = false;
		if (k->phase == TOP) {
			pid_t pp = k->depth < MAX_DEPTH ? parent_in(proc, k->top, k->ns) : 0;
			(*budget)--;
			if (pp) {
				k->top = pp;
				k->depth++;
				continue;
			}
			k->queue[0] = k->top;
			k->n = 1;
			k->i = 0;
			k->phase = TREE;
			continue;
		}
		if (!k->dir) {
			(*budget)--;
			if (open_next(k, proc))
				continue;
			if (k->phase == OWN) {
				k->phase = TOP;
				k->top = k->client;
				k->depth = 0;
				continue;
			}
			k->pass++;
			walk_reset(k);
			return -ESRCH;
		}
		de = readdir(k->dir);
		if (!de) {
			closedir(k->dir);
			k->dir = NULL;
			if (k->phase == TREE) {
				k->i++;
			} else {
				k->phase = TOP;
				k->top = k->client;
				k->depth = 0;
			}
			continue;
		}
		long t = strtol(de->d_name, NULL, 10);
		if (t <= 0 || t > INT32_MAX)
			continue;
		bool mine = k->phase == TREE && k->queue[k->i] == k->client;
		bool found = false;
		if (!mine) { /* the client's own threads were read in OWN */
			found = read_thread(w, k, proc, (pid_t)t, ns_tid);
			(*budget)--;
		}
		/* each thread's children are queued before it is answered, so
		 * a walk resumed after an answer misses none of them */
		if (k->phase == TREE) {
			queue_children(k, proc, k->queue[k->i], (pid_t)t);
			(*budget)--;
		}
		if (found && in_ns(proc, (pid_t)t, k->ns)) {
			*tid = (pid_t)t;
			return 0;
		}
	}
	return -EINPROGRESS;
}

/* The walk of client's namespace: the one under way, or a fresh one in
 * the slot used least recently. */
static struct walk *walk_for(struct nswalk *w, pid_t client, ino_t ns, size_t level)
{
	struct walk *k = &w->walks[0];

	for (size_t i = 0; i < WALKS; i++) {
		struct walk *c = &w->walks[i];
		if (c->ns == ns && c->client == client && c->level == level) {
			k = c;
			goto found;
		}
		if (c->last_used < k->last_used)
			k = c;
	}
	walk_reset(k);
	k->ns = ns;
	k->client = client;
	k->level = level;
	k->pass = 0;
	k->n_pending = 0;
found:
	k->last_used = ++w->clock;
	return k;
}

/* The record of ns_tid asked for: the pass that covers all of it is the
 * current one if it has read nothing yet, else the next. */
static struct pending *pending_for(struct walk *k, pid_t ns_tid)
{
	struct pending *p;

	for (size_t i = 0; i < k->n_pending; i++)
		if (k->pending[i].ns_tid == ns_tid)
			return &k->pending[i];
	if (k->n_pending == PENDING) /* the oldest makes way */
		memmove(k->pending, k->pending + 1, --k->n_pending * sizeof(*p));
	p = &k->pending[k->n_pending++];
	p->ns_tid = ns_tid;
	p->first_pass = k->fresh ? k->pass : k->pass + 1;
	return p;
}

static void pending_drop(struct walk *k, struct pending *p)
{
	size_t i = (size_t)(p - k->pending);

	memmove(p, p + 1, (--k->n_pending - i) * sizeof(*p));
}

int nswalk_find(struct nswalk *w, const char *proc, pid_t client_pid, ino_t ns, size_t level,
		pid_t ns_tid, pid_t *tid, unsigned *units)
{
	int budget = NSWALK_BUDGET;
	struct seen *e = seen_find(w, ns, ns_tid);
	struct walk *k;
	struct pending *p;
	int r;

	if (units)
		*units = 1;
	if (e->tid && still(proc, e->tid, ns, level, ns_tid)) {
		*tid = e->tid;
		return 0;
	}
	k = walk_for(w, client_pid, ns, level);
	p = pending_for(k, ns_tid);
	for (;;) {
		r = walk_run(w, k, proc, ns_tid, tid, &budget);
		if (r != -ESRCH)
			break;
		/* a pass ended: the answer if it covered all of the id's time */
		if (p->first_pass < k->pass)
			break;
	}
	if (units)
		*units += (unsigned)(NSWALK_BUDGET - budget);
	if (r != -EINPROGRESS)
		pending_drop(k, p);
	return r;
}
