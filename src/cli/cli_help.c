/* cli_help.c — isoctl's help texts, written as its manual page. */
#include "cli.h"

#include <string.h>

#define ENVIRONMENT \
	"ENVIRONMENT\n" \
	"    ISOSCHED_SOCKET   isod's socket (default " ISO_DEFAULT_SOCKET ");\n" \
	"                      --socket PATH overrides it.\n" \
	"    ISOSCHED_PRELOAD  the preload shim used by 'run --preload'\n" \
	"                      (default " ISOSCHED_PRELOAD_PATH ").\n"

#define EXIT_STATUS \
	"EXIT STATUS\n" \
	"    0  success\n" \
	"    1  isod refused the request or it failed; for doctor: a check FAILed\n" \
	"    2  usage error (bad option or argument); nothing was sent\n" \
	"    3  isod could not be reached (not running, wrong socket)\n"

static const char cli_help_main[] =
	"NAME\n"
	"    isoctl - run and control threads under SCHED_ISO (isosched)\n"
	"\n"
	"SYNOPSIS\n"
	"    isoctl [--socket PATH] run [--rr|--fifo] [-p PRIO] [--limit PCT] [--preload] -- CMD [ARG...]\n"
	"    isoctl [--socket PATH] set [--rr|--fifo|--normal] [-p PRIO] [--limit PCT] [--json] TID\n"
	"    isoctl [--socket PATH] get [--json] TID\n"
	"    isoctl [--socket PATH] status [--json]\n"
	"    isoctl [--socket PATH] top [-d SECONDS] [--sort KEY] [--user USER] [--pid PID] [--once|--json]\n"
	"    isoctl [--socket PATH] tune [iso_cpu=N] [iso_period=S] [user_cpu=P]\n"
	"    isoctl [--socket PATH] doctor [--json] [--test]\n"
	"    isoctl [VERB] --help | isoctl help [VERB] | isoctl --version\n"
	"\n"
	"DESCRIPTION\n"
	"    SCHED_ISO (\"isochronous\") is soft real-time scheduling for unprivileged\n"
	"    programs, after Con Kolivas's SCHED_ISO patch: an ISO thread runs ahead of\n"
	"    every normal thread, as a real-time thread would, but needs no privilege.\n"
	"    In exchange, all ISO threads together may use at most iso_cpu percent of\n"
	"    the CPUs, averaged over iso_period seconds. Beyond that the system is\n"
	"    \"refractory\": every ISO thread is demoted to SCHED_OTHER (at its own nice\n"
	"    level) until use falls below 90 % of iso_cpu, then all regain ISO. Nothing\n"
	"    is killed. A thread may also carry its own, lower limit (--limit): it loses\n"
	"    ISO as soon as ISO use exceeds that limit, so less important threads give\n"
	"    way first.\n"
	"\n"
	"    The daemon isod grants ISO on a stock kernel: an ISO thread at priority\n"
	"    PRIO (1..99) runs as kernel SCHED_RR (ISO_RR) or SCHED_FIFO (ISO_FIFO) at a\n"
	"    priority inside isod's band, below privileged real-time programs. isoctl\n"
	"    is its command line, in the manner of chrt(1).\n"
	"\n"
	"    Priorities are shown twice: PRIO is the ISO priority (1..99, higher runs\n"
	"    first); UPRIO the user-visible one as the patch's task_prio(): -1..-99 for\n"
	"    ISO (minus PRIO), 0..39 for normal threads (nice + 20).\n"
	"\n"
	"COMMANDS\n"
	"    run     run a command with its main thread in ISO\n"
	"    set     put a thread into ISO, change it, or release it\n"
	"    get     show a thread's ISO state\n"
	"    status  show the budget, its use and all ISO threads\n"
	"    top     watch the budget, the ISO threads and isod's events live\n"
	"    tune    change iso_cpu and iso_period (root only)\n"
	"    doctor  check everything that decides whether an audio thread gets\n"
	"            real time, and say how to fix what is wrong\n"
	"    help    show this text or a command's\n"
	"    'isoctl COMMAND --help' describes each command's options.\n"
	"\n"
	"GLOBAL OPTIONS\n"
	"    --socket PATH  talk to the isod listening on PATH (sets ISOSCHED_SOCKET);\n"
	"                   accepted before or after the command\n"
	"    -h, --help     show this help\n"
	"    --version      show isoctl's version\n"
	"\n"
	EXIT_STATUS
	"\n"
	ENVIRONMENT
	"\n"
	"EXAMPLES\n"
	"    isoctl run -p 20 -- jackd -d alsa     JACK with its main thread in ISO_RR 20\n"
	"    isoctl run --preload -- ardour        programs asking for SCHED_FIFO/RR get ISO\n"
	"    isoctl set --fifo -p 30 --limit 40 4242\n"
	"    isoctl set --normal 4242              release thread 4242\n"
	"    isoctl status --json\n"
	"    sudo isoctl tune iso_cpu=80 iso_period=3\n"
	"\n"
	"SEE ALSO\n"
	"    isod(8), chrt(1), sched(7)\n";

static const char cli_help_run[] =
	"NAME\n"
	"    isoctl run - run a command under SCHED_ISO\n"
	"\n"
	"SYNOPSIS\n"
	"    isoctl run [--rr|--fifo] [-p PRIO] [--limit PCT] [--preload] [--] CMD [ARG...]\n"
	"\n"
	"DESCRIPTION\n"
	"    Asks isod to put isoctl's own (main) thread into ISO_RR or ISO_FIFO at\n"
	"    PRIO, then executes CMD in its place, which keeps the policy. Threads and\n"
	"    processes CMD creates start as normal ones (isod grants ISO with\n"
	"    SCHED_RESET_ON_FORK); isod may adopt them into ISO under the budget,\n"
	"    depending on its configuration (see isod(8)), and with --preload their\n"
	"    own requests for SCHED_FIFO/SCHED_RR become ISO requests. If isod\n"
	"    refuses, CMD is not run.\n"
	"    Options after CMD are CMD's; '--' is needed only if CMD starts with '-'.\n"
	"\n"
	"OPTIONS\n"
	"    -r, --rr         ISO_RR: round robin among equal priorities (default)\n"
	"    -f, --fifo       ISO_FIFO: runs until it blocks, yields or is preempted\n"
	"    -p, --prio PRIO  ISO priority, 1..99 (default 10)\n"
	"    --limit PCT      own CPU limit, 1..100 percent: lose ISO while ISO use\n"
	"                     exceeds PCT (default: only the global iso_cpu)\n"
	"    --preload        prepend the preload shim to LD_PRELOAD, so that CMD's\n"
	"                     unprivileged requests for SCHED_FIFO/SCHED_RR become\n"
	"                     ISO_FIFO/ISO_RR (path: ISOSCHED_PRELOAD, default\n"
	"                     " ISOSCHED_PRELOAD_PATH ")\n"
	"    --socket PATH    isod's socket\n"
	"    -h, --help       show this help\n"
	"\n"
	"EXIT STATUS\n"
	"    CMD's status once it runs. Before: 1 isod refused (or the preload shim is\n"
	"    missing), 2 usage error, 3 isod unreachable; 126 CMD could not be\n"
	"    executed, 127 CMD not found (as env(1) and chrt(1)).\n"
	"\n"
	ENVIRONMENT
	"\n"
	"EXAMPLES\n"
	"    isoctl run -- jackd -d alsa -r 48000 -p 64\n"
	"    isoctl run --fifo -p 40 --limit 30 -- ./synth\n"
	"    ISOSCHED_PRELOAD=$PWD/libisosched-preload.so isoctl run --preload -- ardour\n";

static const char cli_help_set[] =
	"NAME\n"
	"    isoctl set - put a thread into SCHED_ISO, change or release it\n"
	"\n"
	"SYNOPSIS\n"
	"    isoctl set [--rr|--fifo|--normal] [-p PRIO] [--limit PCT] [--json] TID\n"
	"\n"
	"DESCRIPTION\n"
	"    Sets thread TID (a thread id as seen in your PID namespace, e.g. from\n"
	"    'ps -L' or /proc/PID/task) to ISO_RR, ISO_FIFO or back to SCHED_OTHER and\n"
	"    prints its new state. Without privilege you may change only your own\n"
	"    threads, and lower your own limit but not raise it beyond the\n"
	"    administrator's maximum.\n"
	"\n"
	"OPTIONS\n"
	"    -r, --rr         ISO_RR (default)\n"
	"    -f, --fifo       ISO_FIFO\n"
	"    --normal         release the thread to SCHED_OTHER; takes no -p/--limit\n"
	"    -p, --prio PRIO  ISO priority, 1..99 (default 10)\n"
	"    --limit PCT      own CPU limit, 1..100 percent (default: none)\n"
	"    --json           print the state as a JSON object\n"
	"    --socket PATH    isod's socket\n"
	"    -h, --help       show this help\n"
	"\n"
	"OUTPUT\n"
	"    tid T pid P policy POLICY prio N uprio U kernel KPOLICY/KPRIO\n"
	"    limit PCT%|none state iso|demoted|released[,adopted] cpu SECONDSs\n"
	"\n"
	EXIT_STATUS
	"\n"
	"EXAMPLES\n"
	"    isoctl set -p 30 4242\n"
	"    isoctl set --fifo -p 50 --limit 20 4243\n"
	"    isoctl set --normal 4242\n";

static const char cli_help_get[] =
	"NAME\n"
	"    isoctl get - show a thread's SCHED_ISO state\n"
	"\n"
	"SYNOPSIS\n"
	"    isoctl get [--json] TID\n"
	"\n"
	"DESCRIPTION\n"
	"    Prints what isod knows of thread TID: its thread and process ids, ISO\n"
	"    policy (SCHED_ISO_RR, SCHED_ISO_FIFO), ISO priority (1..99), user-visible\n"
	"    priority (-1..-99 for ISO, 0..39 for normal), the kernel policy and\n"
	"    priority it runs with right now, its own CPU limit, whether it is\n"
	"    demoted (over budget, running SCHED_OTHER for now) or was adopted as a\n"
	"    child of an ISO thread, and its CPU time.\n"
	"\n"
	"OPTIONS\n"
	"    --json         print the state as a JSON object\n"
	"    --socket PATH  isod's socket\n"
	"    -h, --help     show this help\n"
	"\n"
	"OUTPUT\n"
	"    tid T pid P policy POLICY prio N uprio U kernel KPOLICY/KPRIO\n"
	"    limit PCT%|none state iso|demoted|released[,adopted] cpu SECONDSs\n"
	"\n"
	EXIT_STATUS
	"\n"
	"EXAMPLES\n"
	"    isoctl get 4242\n"
	"    isoctl get --json $(pidof jackd)\n";

static const char cli_help_status[] =
	"NAME\n"
	"    isoctl status - show the ISO budget, its use and all ISO threads\n"
	"\n"
	"SYNOPSIS\n"
	"    isoctl status [--json]\n"
	"\n"
	"DESCRIPTION\n"
	"    Shows the budget (iso_cpu percent over iso_period seconds), how much of\n"
	"    the CPUs ISO threads use now (the decaying average the budget is\n"
	"    measured against), whether isod is refractory (over budget: all ISO\n"
	"    threads demoted), the kernel priority band ISO maps onto, the number of\n"
	"    CPUs, isod's sampling interval, and a table of all ISO threads:\n"
	"    TID PID UID POLICY PRIO UPRIO KERNEL LIMIT STATE CPU.\n"
	"    Where per-user shares are on (isod's user_cpu), also each uid's ISO CPU\n"
	"    use and whether it is over its share (its threads demoted).\n"
	"\n"
	"OPTIONS\n"
	"    --json         one JSON object: {\"iso_cpu\",\"iso_period\",\"usage\" (percent),\n"
	"                   \"refractory\",\"band\":[lo,hi],\"ncpus\",\"sample_us\",\"total\",\n"
	"                   \"threads\":[{\"tid\",\"pid\",\"uid\",\"policy\",\"prio\",\"user_prio\",\n"
	"                   \"kernel_policy\",\"kernel_policy_name\",\"kernel_prio\",\"limit\",\n"
	"                   \"demoted\",\"adopted\",\"cpu_s\"}]}; with per-user shares\n"
	"                   on, also \"user_cpu\",\"user_share\" (percent of the CPUs)\n"
	"                   and \"users\":[{\"uid\",\"usage\",\"over\"}]\n"
	"    --socket PATH  isod's socket\n"
	"    -h, --help     show this help\n"
	"\n"
	EXIT_STATUS
	"\n"
	"EXAMPLES\n"
	"    isoctl status\n"
	"    isoctl status --json | jq '.usage'\n";

static const char cli_help_tune[] =
	"NAME\n"
	"    isoctl tune - change the ISO budget (root only)\n"
	"\n"
	"SYNOPSIS\n"
	"    isoctl tune [iso_cpu=N] [iso_period=S] [user_cpu=P]\n"
	"\n"
	"DESCRIPTION\n"
	"    Sets isod's tunables, one or both, and prints their new values:\n"
	"    iso_cpu     percent of all CPUs ISO threads may use together, 1..100\n"
	"                (default 70)\n"
	"    iso_period  seconds the use is averaged over, 1..3600 (default 5)\n"
	"    user_cpu    percent of iso_cpu one user may hold before its threads\n"
	"                alone are demoted, 0..100 (default 0: off, one budget for all)\n"
	"    Values are checked here before anything is sent.\n"
	"\n"
	"OPTIONS\n"
	"    --socket PATH  isod's socket\n"
	"    -h, --help     show this help\n"
	"\n"
	EXIT_STATUS
	"\n"
	"EXAMPLES\n"
	"    sudo isoctl tune iso_cpu=80\n"
	"    sudo isoctl tune iso_cpu=50 iso_period=2\n"
	"    sudo isoctl tune user_cpu=50\n";

static const char cli_help_doctor[] =
	"NAME\n"
	"    isoctl doctor - check whether unprivileged audio threads get real time\n"
	"\n"
	"SYNOPSIS\n"
	"    isoctl doctor [--json] [--test]\n"
	"\n"
	"DESCRIPTION\n"
	"    Checks, as any user and without changing anything, what decides whether\n"
	"    an unprivileged audio thread gets real time, and says for each check OK,\n"
	"    WARN or FAIL (INFO for a fact, SKIP where it cannot be read), what it\n"
	"    found and the one command or configuration line that fixes it:\n"
	"    isod     answers at the socket; band, budget, refractory or not, backend\n"
	"             (inferred), configuration; who owns org.freedesktop.RealtimeKit1\n"
	"             on the system bus (asked with busctl) and whether rtkit-daemon\n"
	"             runs\n"
	"    kernel   version; preemption model (/sys/kernel/debug/sched/preempt, else\n"
	"             the kernel configuration and preempt=); HZ and high-resolution\n"
	"             timers; sched_ext and the scheduler loaded; RT throttling\n"
	"             (sched_rt_runtime_us); RT_GROUP_SCHED (EPERM for RT in cgroups\n"
	"             without cpu.rt_runtime_us); the fair server per CPU (6.12+)\n"
	"    irq      threadirqs; IRQ threads' priorities against isod's band: a sound\n"
	"             card's (snd, hda, usb, xhci) at or below the band is a FAIL\n"
	"    limits   RLIMIT_RTPRIO (a '@audio - rtprio 95' line bypasses isod's\n"
	"             budget), RLIMIT_RTTIME, RLIMIT_MEMLOCK; allow_users/allow_groups\n"
	"    power    CPU frequency governor, deepest idle state, swap and swappiness\n"
	"    The kernel configuration is read from /proc/config.gz or\n"
	"    /boot/config-RELEASE; debugfs facts need root.\n"
	"\n"
	"OPTIONS\n"
	"    --json         one JSON object: {\"isoctl_version\", \"checks\":[{\"group\",\n"
	"                   \"name\",\"verdict\",\"found\",\"fix\"}], \"selftest\" (with\n"
	"                   --test): {\"iso\",\"other\": {\"samples\",\"p50_us\",\"p99_us\",\n"
	"                   \"max_us\"} or null}, \"summary\":{\"ok\",\"warn\",\"fail\",\n"
	"                   \"info\",\"skip\"}}\n"
	"    --test         also a 5-second self-test: a thread of yours asks isod for\n"
	"                   ISO_FIFO 50 and measures how late it wakes from 1 ms\n"
	"                   sleeps (p50, p99, max), next to a SCHED_OTHER thread\n"
	"    --socket PATH  isod's socket\n"
	"    -h, --help     show this help\n"
	"\n"
	"EXIT STATUS\n"
	"    0  no check FAILed (WARNs allowed)\n"
	"    1  at least one check FAILed (isod unreachable counts)\n"
	"    2  usage error\n"
	"\n"
	"EXAMPLES\n"
	"    isoctl doctor\n"
	"    isoctl doctor --test\n"
	"    isoctl doctor --json | jq '.checks[] | select(.verdict == \"FAIL\")'\n";

static const char cli_help_help[] =
	"NAME\n"
	"    isoctl help - show isoctl's help\n"
	"\n"
	"SYNOPSIS\n"
	"    isoctl help [COMMAND]\n";


static const char cli_help_top[] =
	"NAME\n"
	"    isoctl top - watch the ISO budget, the ISO threads and isod's events live\n"
	"\n"
	"SYNOPSIS\n"
	"    isoctl top [-d SECONDS] [--sort KEY] [--user USER] [--pid PID]\n"
	"               [--once | --json [-n COUNT]]\n"
	"\n"
	"DESCRIPTION\n"
	"    A live view, refreshed every second: the budget as a bar (ISO CPU use\n"
	"    against iso_cpu, '|' marks the limit), each user's share where per-user\n"
	"    shares are on, whether isod is refractory, and the earliest time the next\n"
	"    demotion (or, refractory, the restore) can come; the ISO threads (TID PID\n"
	"    USER COMMAND, ISO policy and priority, PR -1..-99, KERNEL policy and\n"
	"    priority, own LIMit, STATE iso/demoted/refractory, CPU% of one CPU over\n"
	"    the last interval, DEMotions so far); and isod's recent events (grant,\n"
	"    demote, restore, refused, stray). Any user may run it; it asks isod once\n"
	"    per refresh. Without isod it says \"isod not running\" and keeps trying.\n"
	"\n"
	"KEYS\n"
	"    q quit   s next sort key   u filter by user   p filter by pid\n"
	"    space refresh now\n"
	"\n"
	"OPTIONS\n"
	"    -d SECONDS       refresh interval, 0.1..3600 (default 1)\n"
	"    --sort KEY       cpu (default), prio, demotions, tid or user\n"
	"    --user USER      only threads of USER (name or uid)\n"
	"    --pid PID        only threads of process PID\n"
	"    --once           print one plain frame (no screen handling) and exit\n"
	"    --json           print frames as JSON, one object per line\n"
	"    -n COUNT         stop after COUNT frames (--json, or plain frames)\n"
	"    --socket PATH    isod's socket\n"
	"\n"
	"EXIT STATUS\n"
	"    0; with --once or -n, 3 when isod could not be reached at the last frame.\n";

/* Each verb's help by its name: its own table, not the verb table's, so that
 * the verbs (above) may print help without help knowing the verbs. */
static const struct {
	const char *verb;
	const char *text;
} helps[] = {
	{ "run", cli_help_run }, { "set", cli_help_set }, { "get", cli_help_get },
	{ "status", cli_help_status }, { "tune", cli_help_tune },
	{ "doctor", cli_help_doctor }, { "top", cli_help_top },
	{ "help", cli_help_help },
};

int cli_print_help(const char *verb)
{
	const char *text = cli_help_main;
	size_t i;

	for (i = 0; verb && i < sizeof(helps) / sizeof(helps[0]); i++)
		if (strcmp(helps[i].verb, verb) == 0)
			text = helps[i].text;
	fputs(text, stdout);
	return cli_finish_output(CLI_EXIT_OK);
}
