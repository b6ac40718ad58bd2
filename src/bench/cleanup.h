/* cleanup.h — nothing left behind: every child is killed at exit, on a
 * signal and at the hard time bound (SIGALRM, exit 3); the children also
 * die with us (PR_SET_PDEATHSIG). */
#ifndef ISOBENCH_CLEANUP_H
#define ISOBENCH_CLEANUP_H

/* Install the handlers and the atexit cleanup, and arm the hard bound. */
void cleanup_install(unsigned bound_s);
/* Disarm the hard bound. */
void cleanup_disarm(void);

#endif
