/* stub.c — --audio in an isobench built without libjack: cli.c refuses
 * the mode first (audio_missing), so these only keep main.c's one code
 * path linking. */
#include <stdio.h>

#include "audio.h"

int audio_run(const struct audio_opts *o, struct audio_result *r)
{
	snprintf(r->note, sizeof(r->note), "%s", audio_missing(o->server));
	return -1;
}

void audio_print_text(const struct audio_result *r)
{
	(void)r;
}

void audio_print_json(const struct audio_result *r)
{
	(void)r;
}
