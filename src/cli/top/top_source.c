/* top_source.c — isoctl top's one request per refresh, and what it adds
 * from the system: user names and thread names. */
#include "top.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

const char *top_user_name(uint32_t uid, char *buf, size_t cap)
{
	struct passwd *pw = getpwuid((uid_t)uid);

	if (pw && pw->pw_name)
		snprintf(buf, cap, "%s", pw->pw_name);
	else
		snprintf(buf, cap, "%u", (unsigned)uid);
	return buf;
}

int top_parse_user(const char *s, uid_t *out)
{
	struct passwd *pw = getpwnam(s);
	char *end;
	unsigned long v;

	if (pw) {
		*out = pw->pw_uid;
		return 0;
	}
	errno = 0;
	v = strtoul(s, &end, 10);
	if (!*s || *end || errno || v > (uid_t)-2)
		return -ENOENT;
	*out = (uid_t)v;
	return 0;
}

/* The thread's name, as ps shows it: printable bytes only. */
static void read_comm(pid_t pid, pid_t tid, char *buf, size_t cap)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, buf, cap - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0) {
		snprintf(buf, cap, "?");
		return;
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	for (char *c = buf; *c; c++)
		if (*c < ' ' || *c > '~')
			*c = '?';
}

static const struct iso_top_thread *find_prev(const struct top_source *s, int32_t tid)
{
	for (uint32_t i = 0; i < s->prev.status.count; i++)
		if (s->prev.threads[i].info.tid == tid)
			return &s->prev.threads[i];
	return NULL;
}

int top_fetch(struct top_source *s)
{
	int64_t now;
	int r;

	if (s->err == 0 && s->cur_mono_ns) {
		s->prev = s->cur;
		s->prev_mono_ns = s->cur_mono_ns;
		s->have_prev = true;
	}
	r = iso_top(&s->cur);
	now = mono_ns();
	s->err = r;
	if (r < 0) {
		/* a restarted isod starts over: no CPU % against the old one */
		s->have_prev = false;
		s->cur_mono_ns = 0;
		s->nrows = 0;
		if (r == -EOPNOTSUPP)
			snprintf(s->error, sizeof(s->error), "this isod does not know isoctl top's request (too old)");
		else
			snprintf(s->error, sizeof(s->error), "%s%s%s", strerror(-r),
				 iso_last_error()[0] ? ": " : "", iso_last_error());
		return r;
	}
	s->cur_mono_ns = now;
	/* a second, small request: an isod without it says EOPNOTSUPP */
	s->have_strays = iso_strays(&s->strays) == 0;
	s->nrows = s->cur.status.count;
	for (size_t i = 0; i < s->nrows; i++) {
		struct top_row *row = &s->rows[i];
		const struct iso_top_thread *p = s->have_prev ? find_prev(s, s->cur.threads[i].info.tid)
							      : NULL;

		row->t = s->cur.threads[i];
		top_user_name(row->t.info.uid, row->user, sizeof(row->user));
		read_comm(row->t.info.pid, row->t.info.tid, row->comm, sizeof(row->comm));
		row->cpu_pct = top_cpu_pct(p ? p->info.cpu_ns : UINT64_MAX, row->t.info.cpu_ns,
					   p ? now - s->prev_mono_ns : 0, row->t.cpu_milli);
		row->state = top_thread_state(&row->t.info, &s->cur.status);
	}
	return 0;
}
