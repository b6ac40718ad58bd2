/* plot.c — the latency curves as a hand-written SVG: one curve per policy
 * that ran, latency (log axis, µs) against percentile on a "nines" axis
 * (x = log10(1 / (1 − q)): 0 %, 90 %, 99 %, 99.9 %, ... equally spaced), so
 * the tail that decides deadline misses is as wide as the median. A
 * horizontal line marks the period (the deadline of a wakeup that has to do
 * no work). No dependencies: fprintf only. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "latency.h"

#define W 820
#define H 520
#define ML 80  /* margins: left, right, top, bottom */
#define MR 200
#define MT 50
#define MB 60

static const char *const colours[] = {
	"#d62728", "#ff7f0e", "#1f77b4", "#17becf", "#2ca02c", "#9467bd",
	"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#000000", "#aec7e8",
};

struct axes {
	double xmax;       /* nines */
	double ylo, yhi;   /* log10(µs) */
};

static double px(const struct axes *a, double nines)
{
	if (nines > a->xmax)
		nines = a->xmax;
	return ML + nines / a->xmax * (W - ML - MR);
}

static double py(const struct axes *a, double us)
{
	double l = log10(us > 0.01 ? us : 0.01);

	if (l < a->ylo)
		l = a->ylo;
	if (l > a->yhi)
		l = a->yhi;
	return MT + (a->yhi - l) / (a->yhi - a->ylo) * (H - MT - MB);
}

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

static void curve(FILE *f, const struct axes *a, const struct hist *h,
		  const char *colour)
{
	uint64_t seen = 0, lo, width;
	double prev_x = px(a, 0.0);
	int n = 0;

	fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\""
		   " points=\"", colour);
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		double us, q, x, y;

		if (!h->bucket[i])
			continue;
		hist_bucket_range(i, &lo, &width);
		us = (double)(lo + width) / 1e3;
		if (us > (double)h->max_ns / 1e3)
			us = (double)h->max_ns / 1e3;
		seen += h->bucket[i];
		/* a step: up at the fraction reached so far, then along */
		q = (double)seen / (double)h->count;
		x = q >= 1.0 ? px(a, a->xmax) : px(a, -log10(1.0 - q));
		y = py(a, us);
		fprintf(f, "%s%.1f,%.1f %.1f,%.1f", n ? " " : "", prev_x, y, x, y);
		prev_x = x;
		n++;
	}
	fputs("\"/>\n", f);
}

int latency_write_svg(const struct latency_result *r, const char *path)
{
	const struct bench_config *c = &r->cfg;
	struct axes a = { .xmax = 1.0, .ylo = 1e9, .yhi = -1e9 };
	uint64_t maxcount = 0;
	double period_us = (double)c->period_ns / 1e3;
	int k = 0;
	FILE *f;

	for (int i = 0; i < r->nresults; i++) {
		const struct hist *h = r->results[i].hist;

		if (r->results[i].state != RUN_OK || !h->count)
			continue;
		if (h->count > maxcount)
			maxcount = h->count;
		if (log10((double)h->min_ns / 1e3 + 0.01) < a.ylo)
			a.ylo = log10((double)h->min_ns / 1e3 + 0.01);
		if (log10((double)h->max_ns / 1e3 + 0.01) > a.yhi)
			a.yhi = log10((double)h->max_ns / 1e3 + 0.01);
	}
	if (!maxcount) {
		a.ylo = 0;
		a.yhi = 3;
	}
	/* whole decades, the period inside */
	if (log10(period_us) > a.yhi)
		a.yhi = log10(period_us);
	a.ylo = floor(a.ylo);
	a.yhi = ceil(a.yhi + 1e-9);
	if (a.yhi <= a.ylo)
		a.yhi = a.ylo + 1;
	/* as many nines as the samples resolve, 1..6 */
	while (a.xmax < 6 && pow(10.0, a.xmax + 1) <= (double)maxcount)
		a.xmax += 1;

	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\""
		   " height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\""
		   " font-size=\"12\">\n"
		   "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		W, H, W, H);
	fprintf(f, "<text x=\"%d\" y=\"22\" font-size=\"15\">isobench: wakeup"
		   " latency, period %.0f µs, %d thread%s, work %.0f %%, load ",
		ML, period_us, c->threads, c->threads == 1 ? "" : "s",
		c->work_pct);
	xml_text(f, load_name(r->load));
	fprintf(f, ", %.0f s per policy</text>\n", c->duration_s);

	/* grid and labels */
	for (int d = (int)a.ylo; d <= (int)a.yhi; d++) {
		double y = py(&a, pow(10.0, d));

		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\""
			   " stroke=\"#ccc\"/>\n", ML, y, W - MR, y);
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
			ML - 6, y + 4, pow(10.0, d));
		for (int m = 2; m < 10 && d < (int)a.yhi; m++) {
			double ym = py(&a, m * pow(10.0, d));

			fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\""
				   " stroke=\"#eee\"/>\n", ML, ym, W - MR, ym);
		}
	}
	for (int n = 0; n <= (int)a.xmax; n++) {
		double x = px(&a, n);
		static const char *const lab[] = { "0%", "90%", "99%", "99.9%",
						   "99.99%", "99.999%",
						   "99.9999%" };

		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\""
			   " stroke=\"#ccc\"/>\n", x, MT, x, H - MB);
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
			x, H - MB + 18, lab[n]);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">percentile of"
		   " wakeups (the tail to the right)</text>\n",
		(ML + W - MR) / 2, H - 14);
	fprintf(f, "<text transform=\"translate(20 %d) rotate(-90)\""
		   " text-anchor=\"middle\">wakeup latency, µs (log)</text>\n",
		(MT + H - MB) / 2);
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\""
		   " fill=\"none\" stroke=\"#444\"/>\n",
		ML, MT, W - ML - MR, H - MT - MB);
	/* the period */
	fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\""
		   " stroke=\"#444\" stroke-dasharray=\"6 4\"/>\n"
		   "<text x=\"%d\" y=\"%.1f\" fill=\"#444\">period</text>\n",
		ML, py(&a, period_us), W - MR, py(&a, period_us), ML + 4,
		py(&a, period_us) - 4);

	for (int i = 0; i < r->nresults; i++) {
		const struct bench_result *x = &r->results[i];
		const char *col;
		double y;

		if (x->state != RUN_OK || !x->hist->count)
			continue;
		col = colours[k % (int)(sizeof(colours) / sizeof(colours[0]))];
		curve(f, &a, x->hist, col);
		y = MT + 14 + 34.0 * k;
		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\""
			   " stroke=\"%s\" stroke-width=\"3\"/>\n",
			W - MR + 12, y, W - MR + 36, y, col);
		fprintf(f, "<text x=\"%d\" y=\"%.1f\">", W - MR + 42, y + 4);
		xml_text(f, policy_name(x->policy));
		fprintf(f, "</text>\n<text x=\"%d\" y=\"%.1f\" font-size=\"10\""
			   " fill=\"#444\">p99 %.1f µs, %llu miss%s</text>\n",
			W - MR + 42, y + 17,
			hist_percentile_ns(x->hist, 99.0) / 1e3,
			(unsigned long long)x->misses,
			x->misses == 1 ? "" : "es");
		k++;
	}
	if (!k)
		fprintf(f, "<text x=\"%d\" y=\"%d\">no policy ran</text>\n",
			ML + 20, MT + 30);
	fputs("</svg>\n", f);
	if (ferror(f)) {
		int e = errno ? errno : EIO;

		fclose(f);
		errno = e;
		return -1;
	}
	return fclose(f) == 0 ? 0 : -1;
}
