/* exiting.c — is a thread exiting (exiting.h)? */
#include "exiting.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int parse_stat_exiting(const char *buf, bool *exiting)
{
	/* comm may hold anything, ") " too: the fields resume after the
	 * last ')'; then state (3), ppid, pgrp, session, tty_nr, tpgid,
	 * flags (9) */
	const char *p = strrchr(buf, ')');
	char state;
	unsigned long flags;
	char *end;

	if (!p || p[1] != ' ' || !p[2] || p[3] != ' ')
		return -EBADMSG;
	state = p[2];
	p += 4;
	for (int field = 4; field < 9; field++) {
		(void)strtol(p, &end, 10);
		if (end == p || *end != ' ')
			return -EBADMSG;
		p = end + 1;
	}
	errno = 0;
	flags = strtoul(p, &end, 10);
	if (end == p || errno || (*end != ' ' && *end != '\n' && *end))
		return -EBADMSG;
	*exiting = state == 'Z' || state == 'X' || (flags & EXITING_PF_EXITING);
	return 0;
}

int read_thread_exiting(const char *proc, pid_t pid, pid_t tid, bool *exiting)
{
	char path[96], buf[1024];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%d/task/%d/stat", proc, (int)pid, (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return n == -ENOENT ? -ESRCH : (int)n;
	buf[n] = '\0';
	return parse_stat_exiting(buf, exiting);
}
