/* report.c — doctor's list of verdicts and its two renderings: text for
 * people, JSON for scripts. */
#include "doctor.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const verdict_names[] = {
	[DOC_OK] = "OK", [DOC_INFO] = "INFO", [DOC_SKIP] = "SKIP",
	[DOC_WARN] = "WARN", [DOC_FAIL] = "FAIL",
};

const char *doc_verdict_name(enum doc_verdict v)
{
	return v <= DOC_FAIL ? verdict_names[v] : "?";
}

int doc_add(struct doc_report *r, const char *group, const char *name,
	    enum doc_verdict v, const char *fix, const char *fmt, ...)
{
	struct doc_item *it;
	va_list ap;

	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 32;
		struct doc_item *ni = realloc(r->items, cap * sizeof(*ni));

		if (!ni)
			return -ENOMEM;
		r->items = ni;
		r->cap = cap;
	}
	it = &r->items[r->n++];
	it->group = group;
	it->name = name;
	it->verdict = v;
	va_start(ap, fmt);
	vsnprintf(it->found, sizeof(it->found), fmt, ap);
	va_end(ap);
	snprintf(it->fix, sizeof(it->fix), "%s", fix ? fix : "");
	return 0;
}

const struct doc_item *doc_find(const struct doc_report *r, const char *group,
				const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->items[i].group, group) && !strcmp(r->items[i].name, name))
			return &r->items[i];
	return NULL;
}

enum doc_verdict doc_worst(const struct doc_report *r)
{
	enum doc_verdict w = DOC_OK;

	for (size_t i = 0; i < r->n; i++)
		if (r->items[i].verdict == DOC_FAIL || r->items[i].verdict == DOC_WARN)
			if (r->items[i].verdict > w)
				w = r->items[i].verdict;
	return w;
}

void doc_report_free(struct doc_report *r)
{
	free(r->items);
	r->items = NULL;
	r->n = r->cap = 0;
}

static void count(const struct doc_report *r, size_t n[DOC_FAIL + 1])
{
	memset(n, 0, sizeof(size_t) * (DOC_FAIL + 1));
	for (size_t i = 0; i < r->n; i++)
		n[r->items[i].verdict]++;
}

/* text after a lead of indent columns, words wrapped at TEXT_WIDTH,
 * continuation lines indented as far as the lead. */
#define TEXT_WIDTH 79
static void wrap(FILE *f, const char *text, size_t indent)
{
	size_t col = indent;

	while (*text) {
		size_t n = strcspn(text, " ");

		if (col > indent && col + 1 + n > TEXT_WIDTH) {
			fprintf(f, "\n%*s", (int)indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', f);
			col++;
		}
		fwrite(text, 1, n, f);
		col += n;
		text += n;
		while (*text == ' ')
			text++;
	}
	fputc('\n', f);
}

void doc_print_text(FILE *f, const struct doc_report *r)
{
	const char *group = NULL;
	size_t n[DOC_FAIL + 1];

	for (size_t i = 0; i < r->n; i++) {
		const struct doc_item *it = &r->items[i];

		if (!group || strcmp(group, it->group)) {
			fprintf(f, "%s%s\n", group ? "\n" : "", it->group);
			group = it->group;
		}
		fprintf(f, "  %-4s  %-12s ", doc_verdict_name(it->verdict), it->name);
		wrap(f, it->found, 21);
		if (it->fix[0]) {
			fprintf(f, "%21s%s", "", "fix: ");
			wrap(f, it->fix, 26);
		}
	}
	count(r, n);
	fprintf(f, "\n%zu OK, %zu WARN, %zu FAIL, %zu INFO, %zu SKIP\n",
		n[DOC_OK], n[DOC_WARN], n[DOC_FAIL], n[DOC_INFO], n[DOC_SKIP]);
}

/* A JSON string: quotes, backslashes and control characters escaped. */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch == '\n')
			fputs("\\n", f);
		else if (ch < 0x20 || ch == 0x7f)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

static void json_latency(FILE *f, const struct doc_latency *l)
{
	if (!l->valid) {
		fputs("null", f);
		return;
	}
	fprintf(f, "{\"samples\":%u,\"p50_us\":%ld,\"p99_us\":%ld,\"max_us\":%ld}",
		l->samples, l->p50_us, l->p99_us, l->max_us);
}

void doc_print_json(FILE *f, const struct doc_report *r, const char *version)
{
	size_t n[DOC_FAIL + 1];

	fputs("{\"isoctl_version\":", f);
	json_str(f, version);
	fputs(",\"checks\":[", f);
	for (size_t i = 0; i < r->n; i++) {
		const struct doc_item *it = &r->items[i];

		fputs(i ? ",{\"group\":" : "{\"group\":", f);
		json_str(f, it->group);
		fputs(",\"name\":", f);
		json_str(f, it->name);
		fprintf(f, ",\"verdict\":\"%s\",\"found\":", doc_verdict_name(it->verdict));
		json_str(f, it->found);
		fputs(",\"fix\":", f);
		json_str(f, it->fix);
		fputc('}', f);
	}
	fputc(']', f);
	if (r->selftest_run) {
		fputs(",\"selftest\":{\"iso\":", f);
		json_latency(f, &r->iso);
		fputs(",\"other\":", f);
		json_latency(f, &r->other);
		fputc('}', f);
	}
	count(r, n);
	fprintf(f, ",\"summary\":{\"ok\":%zu,\"warn\":%zu,\"fail\":%zu,\"info\":%zu,\"skip\":%zu}}\n",
		n[DOC_OK], n[DOC_WARN], n[DOC_FAIL], n[DOC_INFO], n[DOC_SKIP]);
}
