/* json.c — the JSON writer every mode's --json output goes through. */
#include <math.h>

#include "json.h"

/* the comma before an element, and its key */
static void lead(struct json *j, const char *key)
{
	if (j->started[j->depth])
		fputc(',', j->f);
	j->started[j->depth] = true;
	if (key)
		fprintf(j->f, "\"%s\":", key);
}

static void push(struct json *j, const char *key, char c)
{
	lead(j, key);
	fputc(c, j->f);
	if (j->depth < 7)
		j->depth++;
	j->started[j->depth] = false;
}

static void pop(struct json *j, char c)
{
	fputc(c, j->f);
	if (j->depth > 0)
		j->depth--;
}

void json_begin(struct json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->started[0] = false;
	push(j, NULL, '{');
}

void json_end(struct json *j)
{
	pop(j, '}');
	fputc('\n', j->f);
}

void json_obj(struct json *j, const char *key)
{
	push(j, key, '{');
}

void json_obj_end(struct json *j)
{
	pop(j, '}');
}

void json_arr(struct json *j, const char *key)
{
	push(j, key, '[');
}

void json_arr_end(struct json *j)
{
	pop(j, ']');
}

void json_numf(struct json *j, const char *key, const char *fmt, double v)
{
	lead(j, key);
	fprintf(j->f, fmt, isfinite(v) ? v : 0.0);
}

void json_num(struct json *j, const char *key, double v)
{
	json_numf(j, key, "%.3f", v);
}

void json_int(struct json *j, const char *key, long long v)
{
	lead(j, key);
	fprintf(j->f, "%lld", v);
}

void json_uint(struct json *j, const char *key, unsigned long long v)
{
	lead(j, key);
	fprintf(j->f, "%llu", v);
}

void json_bool(struct json *j, const char *key, bool v)
{
	lead(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	lead(j, key);
	fputs("null", j->f);
}

void json_str(struct json *j, const char *key, const char *s)
{
	lead(j, key);
	fputc('"', j->f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(j->f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(j->f, "\\u%04x", ch);
		else
			fputc(ch, j->f);
	}
	fputc('"', j->f);
}
