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
	"    1  isod refused the request or it failed\n" \
	"    2  usage error (bad option or argument); nothing was sent\n" \
	"    3  isod could not be reached (not running, wrong socket)\n"

const char cli_help_main[] =
	"NAME\n"
	"    isoctl - run and control threads under SCHED_ISO (isosched)\n"
	"\n"
	"SYNOPSIS\n"
	"    isoctl [--socket PATH] run [--rr|--fifo] [-p PRIO] [--limit PCT] [--preload] -- CMD [ARG...]\n"
	"    isoctl [--socket PATH] set [--rr|--fifo|--normal] [-p PRIO] [--limit PCT] [--json] TID\n"
	"    isoctl [--socket PATH] get [--json] TID\n"
	"    isoctl [--socket PATH] status [--json]\n"
	"    isoctl [--socket PATH] tune [iso_cpu=N] [iso_period=S]\n"
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
	"    tune    change iso_cpu and iso_period (root only)\n"
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

const char cli_help_run[] =
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

const char cli_help_set[] =
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

const char cli_help_get[] =
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

const char cli_help_status[] =
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
	"\n"
	"OPTIONS\n"
	"    --json         one JSON object: {\"iso_cpu\",\"iso_period\",\"usage\" (percent),\n"
	"                   \"refractory\",\"band\":[lo,hi],\"ncpus\",\"sample_us\",\"total\",\n"
	"                   \"threads\":[{\"tid\",\"pid\",\"uid\",\"policy\",\"prio\",\"user_prio\",\n"
	"                   \"kernel_policy\",\"kernel_policy_name\",\"kernel_prio\",\"limit\",\n"
	"                   \"demoted\",\"adopted\",\"cpu_s\"}]}\n"
	"    --socket PATH  isod's socket\n"
	"    -h, --help     show this help\n"
	"\n"
	EXIT_STATUS
	"\n"
	"EXAMPLES\n"
	"    isoctl status\n"
	"    isoctl status --json | jq '.usage'\n";

const char cli_help_tune[] =
	"NAME\n"
	"    isoctl tune - change the ISO budget (root only)\n"
	"\n"
	"SYNOPSIS\n"
	"    isoctl tune [iso_cpu=N] [iso_period=S]\n"
	"\n"
	"DESCRIPTION\n"
	"    Sets isod's tunables, one or both, and prints their new values:\n"
	"    iso_cpu     percent of all CPUs ISO threads may use together, 1..100\n"
	"                (default 70)\n"
	"    iso_period  seconds the use is averaged over, 1..3600 (default 5)\n"
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
	"    sudo isoctl tune iso_cpu=50 iso_period=2\n";

const char cli_help_help[] =
	"NAME\n"
	"    isoctl help - show isoctl's help\n"
	"\n"
	"SYNOPSIS\n"
	"    isoctl help [COMMAND]\n";

int cli_print_help(const char *verb)
{
	const struct cli_verb *v = verb ? cli_find_verb(verb) : NULL;

	fputs(v ? v->help : cli_help_main, stdout);
	return cli_finish_output(CLI_EXIT_OK);
}
