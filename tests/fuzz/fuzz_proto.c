/* libFuzzer target: any bytes as a request packet, through the decoder and
 * the real dispatcher (actuator in dry-run, so nothing on the machine
 * changes), and the reply back through the encoder and the client's
 * decoder. Any crash, sanitizer report or inconsistency aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "actuator.h"
#include "grants.h"
#include "handler.h"
#include "iso_proto.h"
#include "log.h"

static struct isod d;
static int ready;

static void setup(void)
{
	struct isod_config cfg;

	config_defaults(&cfg);
	cfg.state_path[0] = '\0'; /* no state file */
	cfg.dry_run = true;
	cfg.max_threads = 64;
	cfg.max_threads_per_user = 16;
	log_setup(LOG_EMERG, false);
	actuator_set_dry_run(true);
	if (isod_init(&d, &cfg) < 0)
		abort();
	ready = 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned char out[ISO_PROTO_MAX_MSG];
	static struct iso_thread_info threads[ISO_PROTO_PAGE], back[ISO_PROTO_PAGE];
	struct peer peer = { .pid = getpid(), .uid = 65534, .gid = 65534 };
	struct iso_reply rep, rep2 = { .threads = back, .threads_cap = ISO_PROTO_PAGE };
	struct iso_req req, req2;
	int r, len;

	if (!ready)
		setup();
	r = iso_proto_decode_req(data, size, &req);
	if (r < 0) {
		handle_bad_message(r, 0, 0, &rep);
	} else {
		/* a valid request re-encodes to the very same bytes */
		len = iso_proto_encode_req(&req, out, sizeof(out));
		if (len != (int)size || memcmp(out, data, size))
			abort();
		if (iso_proto_decode_req(out, (size_t)len, &req2) < 0)
			abort();
		/* root's view too: every other byte decides */
		peer.uid = (size & 1) ? 0 : 65534;
		handle_request(&d, &peer, &req, &rep, threads);
	}
	len = iso_proto_encode_reply(&rep, out, sizeof(out));
	if (len < 0)
		abort();
	if (iso_proto_decode_reply(out, (size_t)len, &rep2) < 0)
		abort();
	/* the fuzzer must never leave grants behind between inputs */
	pthread_mutex_lock(&d.lock);
	isod_demote_all(&d);
	pthread_mutex_unlock(&d.lock);
	return 0;
}
