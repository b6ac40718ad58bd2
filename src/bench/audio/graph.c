/* graph.c — the PipeWire connection of --audio pipewire (graph.h).
 *
 * The Profiler interface is PipeWire's own record of every cycle
 * (module-profiler, loaded by the stock pipewire.conf): what pw-profiler
 * and pw-top read. Its protocol marshalling lives in that module, so the
 * client loads it into its own context first, as pw-profiler does. The
 * loop is iterated by hand, in this thread only, while graph_run runs:
 * the events that arrive in between wait in the socket. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* before profiler.h, which names struct spa_pod without declaring it */
#include <spa/pod/pod.h>
#include <spa/utils/result.h>
#include <pipewire/extensions/metadata.h>
#include <pipewire/extensions/profiler.h>
#include <pipewire/impl.h> /* pw_context_load_module */
#include <pipewire/pipewire.h>

#include "common/clock.h"
#include "graph.h"

#define FORCE_KEY "clock.force-quantum"

struct graph {
	struct pw_main_loop *main_loop;
	struct pw_loop *loop;
	struct pw_context *context;
	struct pw_core *core;
	struct spa_hook core_listener;
	struct pw_registry *registry;
	struct spa_hook registry_listener;
	struct pw_proxy *profiler;
	struct spa_hook profiler_listener;
	struct pw_proxy *settings;
	struct spa_hook settings_listener;
	int sync_seq;
	bool synced, broken;
	/* the quantum before ours: put back at the end */
	bool forced;
	char old_force[32];
	/* where graph_run sends the records */
	prof_cycle_fn *each;
	void *ctx;
};

static void on_profile(void *data, const struct spa_pod *pod)
{
	struct graph *g = data;

	if (g->each)
		prof_decode_event(pod, g->each, g->ctx);
}

static const struct pw_profiler_events profiler_events = {
	PW_VERSION_PROFILER_EVENTS,
	.profile = on_profile,
};

static int on_setting(void *data, uint32_t subject, const char *key, const char *type,
		      const char *value)
{
	struct graph *g = data;

	(void)type;
	/* the value before we set ours (the first one the daemon reports) */
	if (subject == 0 && key && !strcmp(key, FORCE_KEY) && !g->forced)
		snprintf(g->old_force, sizeof(g->old_force), "%s", value ? value : "0");
	return 0;
}

static const struct pw_metadata_events settings_events = {
	PW_VERSION_METADATA_EVENTS,
	.property = on_setting,
};

static void on_global(void *data, uint32_t id, uint32_t permissions, const char *type,
		      uint32_t version, const struct spa_dict *props)
{
	struct graph *g = data;
	const char *name;

	(void)permissions;
	(void)version;
	if (!strcmp(type, PW_TYPE_INTERFACE_Profiler) && !g->profiler) {
		g->profiler = pw_registry_bind(g->registry, id, type, PW_VERSION_PROFILER, 0);
		if (g->profiler)
			pw_proxy_add_object_listener(g->profiler, &g->profiler_listener,
						     &profiler_events, g);
	} else if (!strcmp(type, PW_TYPE_INTERFACE_Metadata) && !g->settings && props &&
		   (name = spa_dict_lookup(props, PW_KEY_METADATA_NAME)) &&
		   !strcmp(name, "settings")) {
		g->settings = pw_registry_bind(g->registry, id, type, PW_VERSION_METADATA, 0);
		if (g->settings)
			pw_proxy_add_object_listener(g->settings, &g->settings_listener,
						     &settings_events, g);
	}
}

static const struct pw_registry_events registry_events = {
	PW_VERSION_REGISTRY_EVENTS,
	.global = on_global,
};

static void on_done(void *data, uint32_t id, int seq)
{
	struct graph *g = data;

	if (id == PW_ID_CORE && seq == g->sync_seq)
		g->synced = true;
}

static void on_error(void *data, uint32_t id, int seq, int res, const char *message)
{
	struct graph *g = data;

	(void)seq;
	(void)message;
	if (id == PW_ID_CORE && res == -EPIPE)
		g->broken = true;
}

static const struct pw_core_events core_events = {
	PW_VERSION_CORE_EVENTS,
	.done = on_done,
	.error = on_error,
};

/* Iterate the loop until until_ns, *flag or a broken connection; once at
 * least, without waiting, so that what is queued is handled. */
static void serve(struct graph *g, uint64_t until_ns, const volatile bool *flag)
{
	uint64_t now;

	pw_loop_enter(g->loop);
	do {
		now = bench_clock_ns(CLOCK_MONOTONIC);
		/* at most 100 ms: a stop request is seen soon */
		uint64_t ms = now >= until_ns ? 0 : (until_ns - now) / 1000000 + 1;

		pw_loop_iterate(g->loop, ms > 100 ? 100 : (int)ms);
	} while (!g->broken && !(flag && *flag) && now < until_ns);
	pw_loop_leave(g->loop);
}

/* Everything sent so far has been answered (5 s at most): 0 or -errno. */
static int roundtrip(struct graph *g)
{
	g->synced = false;
	g->sync_seq = pw_core_sync(g->core, PW_ID_CORE, 0);
	serve(g, bench_clock_ns(CLOCK_MONOTONIC) + 5000000000ull, (const volatile bool *)&g->synced);
	return g->broken ? -EPIPE : g->synced ? 0 : -ETIMEDOUT;
}

int graph_open(struct graph **out, char *why, size_t whylen)
{
	struct graph *g = calloc(1, sizeof(*g));
	int r;

	*out = NULL;
	if (!g)
		return -ENOMEM;
	pw_init(NULL, NULL);
	g->main_loop = pw_main_loop_new(NULL);
	g->loop = g->main_loop ? pw_main_loop_get_loop(g->main_loop) : NULL;
	g->context = g->loop ? pw_context_new(g->loop, NULL, 0) : NULL;
	if (!g->context) {
		snprintf(why, whylen, "cannot make a PipeWire context: %s", strerror(errno));
		graph_close(g);
		return -ENOMEM;
	}
	if (!pw_context_load_module(g->context, PW_EXTENSION_MODULE_PROFILER, NULL, NULL)) {
		snprintf(why, whylen, "cannot load %s: %s", PW_EXTENSION_MODULE_PROFILER,
			 strerror(errno));
		graph_close(g);
		return -ENOENT;
	}
	g->core = pw_context_connect(g->context, NULL, 0);
	if (!g->core) {
		r = -errno;
		snprintf(why, whylen, "cannot connect to PipeWire (XDG_RUNTIME_DIR=%s): %s",
			 getenv("XDG_RUNTIME_DIR") ? getenv("XDG_RUNTIME_DIR") : "unset",
			 strerror(errno));
		graph_close(g);
		return r;
	}
	pw_core_add_listener(g->core, &g->core_listener, &core_events, g);
	g->registry = pw_core_get_registry(g->core, PW_VERSION_REGISTRY, 0);
	pw_registry_add_listener(g->registry, &g->registry_listener, &registry_events, g);
	/* the globals, then the settings' current values */
	r = roundtrip(g);
	if (r == 0)
		r = roundtrip(g);
	if (r < 0 || !g->profiler) {
		snprintf(why, whylen, r < 0 ? "PipeWire did not answer: %s" :
			 "PipeWire has no Profiler (load libpipewire-module-profiler in the"
			 " daemon, as the stock pipewire.conf does)%s", r < 0 ? spa_strerror(r) : "");
		graph_close(g);
		return r < 0 ? r : -ENOENT;
	}
	*out = g;
	return 0;
}

int graph_force_quantum(struct graph *g, unsigned quantum, char *why, size_t whylen)
{
	char v[16];
	int r;

	if (!g->settings) {
		snprintf(why, whylen, "PipeWire has no \"settings\" metadata to force the quantum in");
		return -ENOENT;
	}
	if (!g->old_force[0])
		snprintf(g->old_force, sizeof(g->old_force), "0");
	snprintf(v, sizeof(v), "%u", quantum);
	g->forced = true;
	pw_metadata_set_property((struct pw_metadata *)g->settings, 0, FORCE_KEY, NULL, v);
	r = roundtrip(g);
	if (r < 0)
		snprintf(why, whylen, "forcing the quantum: %s", spa_strerror(r));
	return r;
}

int graph_run(struct graph *g, double seconds, prof_cycle_fn *each, void *ctx,
	      const volatile bool *stop)
{
	g->each = each;
	g->ctx = ctx;
	serve(g, bench_clock_ns(CLOCK_MONOTONIC) + (uint64_t)(seconds * 1e9), stop);
	g->each = NULL;
	return g->broken ? -EPIPE : 0;
}

void graph_close(struct graph *g)
{
	if (!g)
		return;
	if (g->forced && g->settings && !g->broken) {
		pw_metadata_set_property((struct pw_metadata *)g->settings, 0, FORCE_KEY, NULL,
					 g->old_force);
		roundtrip(g);
	}
	if (g->settings) {
		spa_hook_remove(&g->settings_listener);
		pw_proxy_destroy(g->settings);
	}
	if (g->profiler) {
		spa_hook_remove(&g->profiler_listener);
		pw_proxy_destroy(g->profiler);
	}
	if (g->registry) {
		spa_hook_remove(&g->registry_listener);
		pw_proxy_destroy((struct pw_proxy *)g->registry);
	}
	if (g->core) {
		spa_hook_remove(&g->core_listener);
		pw_core_disconnect(g->core);
	}
	if (g->context)
		pw_context_destroy(g->context);
	if (g->main_loop)
		pw_main_loop_destroy(g->main_loop);
	free(g);
}
