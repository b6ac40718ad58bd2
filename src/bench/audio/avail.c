/* avail.c — which --audio servers this isobench was built for: libjack
 * and libpipewire-0.3 are optional build dependencies (meson defines
 * ISOBENCH_HAVE_JACK and ISOBENCH_HAVE_PIPEWIRE when it found them). */
#include <stddef.h>

#include "audio.h"

const char *audio_server_name(enum audio_server s)
{
	return s == AUDIO_JACK ? "jack" : "pipewire";
}

const char *audio_missing(enum audio_server s)
{
#ifndef ISOBENCH_HAVE_JACK
	(void)s;
	return "isobench was built without libjack (install libjack-jackd2-dev"
	       " and rebuild: scripts/install-deps.sh)";
#else
#ifndef ISOBENCH_HAVE_PIPEWIRE
	if (s == AUDIO_PIPEWIRE)
		return "isobench was built without libpipewire-0.3 (install"
		       " libpipewire-0.3-dev and rebuild: scripts/install-deps.sh)";
#endif
	(void)s;
	return NULL;
#endif
}

unsigned audio_bound_s(const struct audio_opts *o)
{
	/* the run, plus connecting, the client's start (10 s at most) and
	 * putting the quantum back */
	return (unsigned)(o->seconds + o->warmup_s) + 60;
}
