/* doctor_fixture.c — see doctor_fixture.h. */
#include "doctor_fixture.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

void put(const struct fixture *f, const char *rel, const char *fmt, ...)
{
	char path[512];
	va_list ap;
	FILE *fp;

	snprintf(path, sizeof(path), "%s%s", f->root, rel);
	for (char *s = path + strlen(f->root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
	fp = fopen(path, "w");
	assert_non_null(fp);
	va_start(ap, fmt);
	vfprintf(fp, fmt, ap);
	va_end(ap);
	assert_int_equal(fclose(fp), 0);
}

void rm_rel(const struct fixture *f, const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s%s", f->root, rel);
	assert_int_equal(unlink(path), 0);
}

int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	snprintf(f->root, sizeof(f->root), "/tmp/doctor-test.XXXXXX");
	assert_non_null(mkdtemp(f->root));
	put(f, "/proc/sys/kernel/osrelease", "6.18.0-test\n");
	put(f, "/proc/cmdline", "root=/dev/vda1 quiet -- init-arg threadirqs\n");
	put(f, "/boot/config-6.18.0-test", BASE_CONFIG);
	put(f, "/proc/self/limits", LIMITS("0", "unlimited", "unlimited"));
	f->ctx.uid = 1000;
	f->ctx.band_lo = 10;
	f->ctx.band_hi = 40;
	*state = f;
	return 0;
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb; (void)flag; (void)ftw;
	return remove(p);
}

int teardown(void **state)
{
	struct fixture *f = *state;

	doc_ctx_free(&f->ctx);
	doc_report_free(&f->rep);
	nftw(f->root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(f);
	return 0;
}

/* Load the context from the tree as written so far (keeping uid, band,
 * isod and conf set by the test). */
struct doc_ctx *load(struct fixture *f)
{
	doc_ctx_free(&f->ctx);
	doc_report_free(&f->rep);
	doc_ctx_load(&f->ctx, f->root);
	return &f->ctx;
}

const struct doc_item *item(struct fixture *f, const char *group, const char *name)
{
	const struct doc_item *it = doc_find(&f->rep, group, name);

	if (!it)
		fail_msg("no item %s/%s", group, name);
	return it;
}
