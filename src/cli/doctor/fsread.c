/* fsread.c — doctor's reading under a root directory: small files, the
 * kernel release and command line, and the kernel configuration
 * (/proc/config.gz, else /boot/config-RELEASE; zlib reads both). */
#include "doctor.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* A kernel configuration is ~250 kB; refuse anything absurd. */
#define KCONFIG_MAX (8u << 20)

int doc_path(const struct doc_ctx *c, const char *rel, char *path, size_t cap)
{
	int n = snprintf(path, cap, "%s%s", c->root, rel);

	return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

int doc_read(const struct doc_ctx *c, const char *rel, char *buf, size_t cap)
{
	char path[4096];
	size_t len = 0;
	int fd, r;

	if ((r = doc_path(c, rel, path, sizeof(path))) < 0)
		return r;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* /proc files come in pieces; read to the end or the buffer's. */
	while (len + 1 < cap) {
		ssize_t n = read(fd, buf + len, cap - 1 - len);

		if (n < 0) {
			r = -errno;
			close(fd);
			return r;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return (int)len;
}

int doc_read_long(const struct doc_ctx *c, const char *rel, long *out)
{
	char buf[64], *end;
	long v;
	int r = doc_read(c, rel, buf, sizeof(buf));

	if (r < 0)
		return r;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (end == buf || errno)
		return -EBADMSG;
	while (*end == ' ' || *end == '\n')
		end++;
	if (*end)
		return -EBADMSG;
	*out = v;
	return 0;
}

static void chomp(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
}

/* The whole (possibly gzip-compressed) file at path, or NULL. */
static char *read_gz(const char *path)
{
	gzFile gz = gzopen(path, "rb");
	size_t len = 0, cap = 1 << 16;
	char *buf;

	if (!gz)
		return NULL;
	buf = malloc(cap);
	while (buf) {
		int n;

		if (len + 1 == cap) {
			char *nb = cap >= KCONFIG_MAX ? NULL : realloc(buf, cap * 2);

			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		n = gzread(gz, buf + len, (unsigned)(cap - 1 - len));
		if (n < 0) {
			free(buf);
			buf = NULL;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	gzclose(gz);
	if (buf)
		buf[len] = '\0';
	return buf;
}

static void load_kconfig(struct doc_ctx *c)
{
	char rel[256], path[4096];

	if (doc_path(c, "/proc/config.gz", path, sizeof(path)) == 0 &&
	    (c->kconfig = read_gz(path))) {
		snprintf(c->kconfig_src, sizeof(c->kconfig_src), "/proc/config.gz");
		return;
	}
	if (!c->release[0])
		return;
	snprintf(rel, sizeof(rel), "/boot/config-%s", c->release);
	if (doc_path(c, rel, path, sizeof(path)) == 0 && (c->kconfig = read_gz(path)))
		snprintf(c->kconfig_src, sizeof(c->kconfig_src), "%s", rel);
}

void doc_ctx_load(struct doc_ctx *c, const char *root)
{
	c->root = root ? root : "";
	c->kconfig = NULL;
	c->kconfig_src[0] = '\0';
	c->kmajor = c->kminor = 0;
	if (doc_read(c, "/proc/sys/kernel/osrelease", c->release, sizeof(c->release)) < 0)
		c->release[0] = '\0';
	chomp(c->release);
	if (sscanf(c->release, "%d.%d", &c->kmajor, &c->kminor) != 2)
		c->kmajor = c->kminor = 0;
	if (doc_read(c, "/proc/cmdline", c->cmdline, sizeof(c->cmdline)) < 0)
		c->cmdline[0] = '\0';
	chomp(c->cmdline);
	load_kconfig(c);
}

void doc_ctx_free(struct doc_ctx *c)
{
	free(c->kconfig);
	c->kconfig = NULL;
}

const char *doc_kconfig(const char *text, const char *opt, char *val, size_t cap)
{
	size_t len = strlen(opt);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, opt, len) && p[len] == '=') {
			const char *v = p + len + 1;
			size_t n = strcspn(v, "\n");

			if (v[0] == '"' && n >= 2 && v[n - 1] == '"') {
				v++;
				n -= 2;
			}
			if (n >= cap)
				n = cap - 1;
			memcpy(val, v, n);
			val[n] = '\0';
			return val;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

bool doc_cmdline_has(const char *cmdline, const char *word, char *val, size_t cap)
{
	size_t len = strlen(word);
	const char *p = cmdline;

	while (*p) {
		while (*p == ' ')
			p++;
		/* Arguments after "--" are init's, not the kernel's. */
		if (!strncmp(p, "--", 2) && (p[2] == ' ' || !p[2]))
			return false;
		if (!strncmp(p, word, len) &&
		    (p[len] == ' ' || !p[len] || (val && p[len] == '='))) {
			if (val) {
				const char *v = p[len] == '=' ? p + len + 1 : "";
				size_t n = strcspn(v, " ");

				if (n >= cap)
					n = cap - 1;
				memcpy(val, v, n);
				val[n] = '\0';
			}
			return true;
		}
		p += strcspn(p, " ");
	}
	return false;
}
