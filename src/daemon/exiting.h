/* exiting.h — is a thread on its way out? A thread that exits is still
 * kernel SCHED_FIFO/RR for a moment after isod forgot it (the kernel's
 * exit report, or its handle failing), and a process's leader that exits
 * first stays a zombie, with its policy, for as long as its other threads
 * live: the stray scan then sees an RT thread with no isod record. Such a
 * thread is demoted all the same, but it is no stray (strays.c).
 *
 * Decided per thread from its own /proc/PID/task/TID/stat: PF_EXITING in
 * its flags (field 9; set in do_exit before the exit tracepoint isod
 * forgets it on, and never cleared), or its state (field 3) 'Z' or 'X'.
 * Never from /proc/PID/stat: for the leader that is the leader's state
 * and flags, and a zombie leader says nothing of its living threads.
 *
 * Return contract: 0 or a negative errno (-ESRCH: gone, -EBADMSG:
 * unparsable). */
#ifndef ISOD_EXITING_H
#define ISOD_EXITING_H

#include <stdbool.h>
#include <sys/types.h>

/* include/linux/sched.h: "getting shut down", the same since 2.6 */
#define EXITING_PF_EXITING 0x00000004u

/* From /proc/.../task/TID/stat text: is the thread exiting? */
int parse_stat_exiting(const char *buf, bool *exiting);
/* Read and parse thread tid of process pid. The caller pins the thread
 * first (tasks_open) and checks the pin afterwards (tasks_alive): then
 * what was read is the pinned thread's. */
int read_thread_exiting(const char *proc, pid_t pid, pid_t tid, bool *exiting);

#endif
