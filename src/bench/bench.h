/* bench.h — isobench: where to look, and the few numbers every mode shares.
 *
 *   main.c, cli.c, usage.c  the command line: parse, check, dispatch
 *   cleanup.c               nothing left behind: atexit, signals, hard bound
 *   common/   helpers written once: clock.c (time, sleep, busy work),
 *             child.c (fork lifecycle, nobody, shared memory), procfs.c
 *             (/proc readers), isod.c (the private isod), json.c (JSON
 *             writer), stats.c (histogram, distributions)
 *   latency/  --policy: periodic threads per policy (run.c, measure.c,
 *             policy.c, load.c; text.c, json_out.c, plot.c)
 *   enforce/  --enforcement: reaction and CPU share (run.c, spinners.c,
 *             trial.c, share.c, trace.c; out.c)
 *   cost/     --daemon-cost: isod's own CPU time (run.c, client.c; out.c)
 *   stall/    --stall: a probe's stalls during a runaway (run.c,
 *             periodic.c; out.c)
 *   isolation/ --isolation: a periodic thread of one user under another
 *             user's higher ISO bursts: band ISO, reservation, root
 *             DEADLINE (run.c; out.c)
 *   audio/    --audio: xruns of a JACK client in a real PipeWire graph or
 *             jackd (audio.h: run.c, window.c, pipewire.c, jack.c,
 *             jclient.c, graph.c, prof_decode.c, prof_count.c; out.c)
 * Each mode exposes MODE_run(opts, result) (0 all ran, -1 something
 * failed) and MODE_print_text / MODE_print_json of the result. All but
 * --policy and --audio need root. */
#ifndef ISOBENCH_H
#define ISOBENCH_H

#define BENCH_PRIO 50     /* the same priority number for fifo, rr, iso, iso-rr */
#define MODE_MAX_LIST 16  /* values in an option's comma-separated list */

#endif
