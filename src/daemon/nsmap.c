/* nsmap.c — a client's thread ids, from its PID namespace to isod's. */
#include "nsmap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "nsmap_walk.h"
#include "procinfo.h"

/* linux/nsfs.h of Linux 6.11; older headers lack them. The argument is
 * the pid itself, the result the ioctl's return value. */
#ifndef NS_GET_PID_FROM_PIDNS
#define NS_GET_PID_FROM_PIDNS _IOR(0xb7, 0x6, int)
#endif
#ifndef NS_GET_PID_IN_PIDNS
#define NS_GET_PID_IN_PIDNS _IOR(0xb7, 0x8, int)
#endif

static int ns_inode(const char *proc, pid_t pid, ino_t *ino)
{
	char path[128];
	struct stat sb;

	if (pid)
		snprintf(path, sizeof(path), "%s/%d/ns/pid", proc, (int)pid);
	else
		snprintf(path, sizeof(path), "%s/self/ns/pid", proc);
	if (stat(path, &sb) < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	*ino = sb.st_ino;
	return 0;
}

/* isod's own PID namespace, once per /proc root (it never changes; the
 * stat was paid per request). */
static int own_ns_inode(struct nsmap *m, const char *proc, ino_t *ino)
{
	int r;

	if (m->own_proc[0] && !strcmp(m->own_proc, proc)) {
		*ino = m->own_ns;
		return 0;
	}
	r = ns_inode(proc, 0, ino);
	if (r == 0 && strlen(proc) < sizeof(m->own_proc)) {
		strcpy(m->own_proc, proc);
		m->own_ns = *ino;
	}
	return r;
}

int client_pidns(const char *proc, pid_t client_pid, ino_t *ino)
{
	return ns_inode(proc, client_pid, ino);
}

/* The client's PID namespace, opened; -ESRCH if the process is gone, or
 * if its namespace is not ns (not 0): then the pid is another process's. */
static int open_client_ns(const char *proc, pid_t pid, ino_t ns)
{
	char path[128];
	struct stat sb;
	int fd;

	snprintf(path, sizeof(path), "%s/%d/ns/pid", proc, (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	if (fstat(fd, &sb) < 0 || (ns && sb.st_ino != ns)) {
		close(fd);
		return -ESRCH;
	}
	return fd;
}

/* One translation by the kernel: the pid in isod's namespace of `in` of
 * the client's (NS_GET_PID_FROM_PIDNS), or the reverse. -ENOTTY: this
 * kernel cannot (remembered). A thread the client sees has a pid in
 * isod's namespace, an ancestor of the client's; 0 would mean none. */
static int kernel_translate(struct nsmap *m, const char *proc, pid_t client_pid, ino_t ns, unsigned long req,
			    pid_t in, pid_t *out)
{
	int fd = open_client_ns(proc, client_pid, ns), r, e;

	if (fd < 0)
		return fd;
	r = ioctl(fd, req, (unsigned long)in);
	e = errno;
	close(fd);
	if (r > 0) {
		*out = (pid_t)r;
		return 0;
	}
	if (r == 0 || e == ESRCH)
		return -ESRCH;
	if (e == ENOTTY) {
		m->kernel_cannot = true;
		log_info("this kernel cannot translate PIDs between namespaces (Linux 6.11 can): "
			 "a client in a PID namespace has its thread ids found by a walk of its namespace, "
			 "at most %d reads a request", NSWALK_BUDGET);
	}
	return -e;
}

/* The namespaces of isod and of the client: -EEXIST when they are the
 * same (no mapping to do). */
static int namespaces(struct nsmap *m, const char *proc, pid_t client_pid, ino_t *client_ns)
{
	ino_t own = 0;
	int r = own_ns_inode(m, proc, &own);

	if (r < 0)
		return r;
	if (!*client_ns) {
		r = ns_inode(proc, client_pid, client_ns);
		if (r < 0)
			return r;
	}
	return own == *client_ns ? -EEXIST : 0;
}

/* Before 6.11: thread tid's NSpid, read again, at the client's level. */
static int walk_check(const char *proc, pid_t client_pid, ino_t client_ns, pid_t tid,
		      pid_t ns_tid)
{
	struct thread_status cst, st;
	ino_t ns;

	if (read_thread_status(proc, client_pid, &cst) < 0 || cst.n_nspid < 2 ||
	    read_thread_status(proc, tid, &st) < 0 || ns_inode(proc, tid, &ns) < 0)
		return -ESRCH;
	return ns == client_ns && st.n_nspid == cst.n_nspid &&
	       st.nspid[cst.n_nspid - 1] == ns_tid ? 0 : -ESRCH;
}

void nsmap_free(struct nsmap *m)
{
	nswalk_free(m->walk);
	m->walk = NULL;
}

void nsmap_force_walk(struct nsmap *m)
{
	m->kernel_cannot = true;
}

int map_client_tid(struct nsmap *m, const char *proc, pid_t client_pid, ino_t client_ns,
		   pid_t ns_tid, pid_t *tid)
{
	struct thread_status cst;
	int r;

	m->last_units = 0;
	if (ns_tid <= 0)
		return -EINVAL;
	r = namespaces(m, proc, client_pid, &client_ns);
	if (r == -EEXIST) {
		*tid = ns_tid;
		return 0;
	}
	if (r < 0)
		return r;
	if (!m->kernel_cannot) {
		r = kernel_translate(m, proc, client_pid, client_ns, NS_GET_PID_FROM_PIDNS, ns_tid, tid);
		if (r != -ENOTTY)
			return r;
	}
	r = read_thread_status(proc, client_pid, &cst);
	if (r < 0)
		return r;
	if (cst.n_nspid < 2)
		return -ESRCH;
	if (!m->walk && !(m->walk = nswalk_new()))
		return -ENOMEM;
	return nswalk_find(m->walk, proc, client_pid, client_ns, cst.n_nspid - 1, ns_tid, tid,
			   &m->last_units);
}

int map_client_check(struct nsmap *m, const char *proc, pid_t client_pid, ino_t client_ns,
		     pid_t tid, pid_t ns_tid)
{
	pid_t back = 0;
	int r = namespaces(m, proc, client_pid, &client_ns);

	if (r == -EEXIST)
		return tid == ns_tid ? 0 : -ESRCH;
	if (r < 0)
		return r;
	if (!m->kernel_cannot) {
		r = kernel_translate(m, proc, client_pid, client_ns, NS_GET_PID_IN_PIDNS, tid, &back);
		if (r != -ENOTTY)
			return r < 0 ? r : back == ns_tid ? 0 : -ESRCH;
	}
	return walk_check(proc, client_pid, client_ns, tid, ns_tid);
}
