/* libFuzzer target: any bytes as a request packet, through the decoder and
 * the real dispatcher (actuator in dry-run, so nothing on the machine
 * changes), and the reply back through the encoder and the client's
 * decoder. The same bytes also go through the client's reply decoder as if
 * isod had sent them (a TOP reply has the most counts to lie about). Any
 * crash, sanitizer report or inconsistency aborts. */
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
	static struct iso_top_info top_back, top_hostile;
	struct peer peer = { .pid = getpid(), .uid = 65534, .gid = 65534 };
	struct iso_reply rep, rep2 = { .threads = back, .threads_cap = ISO_PROTO_PAGE,
				       .top = &top_back };
	struct iso_reply hostile = { .threads = back, .threads_cap = ISO_PROTO_PAGE,
				     .top = &top_hostile };
	struct iso_req req, req2;
	int r, len;

	if (!ready)
		setup();
	/* the client's side: any bytes as a reply; what it accepts stays
	 * within the caps of what it was given */
	if (iso_proto_decode_reply(data, size, &hostile) == 0 &&
	    hostile.type == (ISO_MSG_TOP | ISO_MSG_REPLY) && hostile.err == 0 &&
	    (top_hostile.status.count > ISO_TOP_THREADS || top_hostile.users.count > ISO_TOP_USERS ||
	     top_hostile.nevents > ISO_TOP_EVENTS))
		abort();
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
	/* a TOP reply comes back as it was built */
	if (rep.top && rep2.err == 0 &&
	    (memcmp(&top_back.status, &rep.top->status, sizeof(top_back.status)) ||
	     top_back.nevents != rep.top->nevents ||
	     memcmp(top_back.events, rep.top->events, top_back.nevents * sizeof(top_back.events[0]))))
		abort();
	/* the fuzzer must never leave grants behind between inputs */
	pthread_mutex_lock(&d.lock);
	isod_demote_all(&d);
	pthread_mutex_unlock(&d.lock);
	return 0;
}
