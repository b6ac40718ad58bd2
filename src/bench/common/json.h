/* json.h — a small JSON writer on stdout: compact (no spaces), one object
 * per run. Numbers print as %.3f unless said otherwise; a non-finite one
 * prints as 0. Keys are NULL inside arrays. Nesting at most 8 deep. */
#ifndef ISOBENCH_JSON_H
#define ISOBENCH_JSON_H

#include <stdbool.h>
#include <stdio.h>

struct json {
	FILE *f;
	int depth;
	bool started[8]; /* something written at this depth: a comma next */
};

void json_begin(struct json *j, FILE *f);           /* the top-level { */
void json_end(struct json *j);                      /* its } and a newline */
void json_obj(struct json *j, const char *key);     /* "key":{ */
void json_obj_end(struct json *j);
void json_arr(struct json *j, const char *key);     /* "key":[ */
void json_arr_end(struct json *j);
void json_num(struct json *j, const char *key, double v);          /* %.3f */
void json_numf(struct json *j, const char *key, const char *fmt, double v);
void json_int(struct json *j, const char *key, long long v);
void json_uint(struct json *j, const char *key, unsigned long long v);
void json_bool(struct json *j, const char *key, bool v);
void json_str(struct json *j, const char *key, const char *s);
void json_null(struct json *j, const char *key);

#endif
