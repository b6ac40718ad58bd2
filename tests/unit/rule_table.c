/* rule_table — the rule's verdict (iso_rule_judge) on a table of cases,
 * one line each: "policy prio ruid euid hard tracked verdict" (hard: the
 * hard RLIMIT_RTPRIO, "unlimited" or a number). The unit test rule_audit
 * (rule_audit.sh) feeds the same cases to the tests' auditor
 * (tests/integration/audit.sh --judge) and wants the same verdicts: the
 * auditor, python, cannot drift from isod's rule unseen. */
#include <inttypes.h>
#include <stdio.h>

#include "iso_rule.h"

int main(void)
{
	/* every policy the kernel knows and the flag; priorities at the
	 * edges of the default band and of the kernel's range */
	static const int policies[] = { 0, 1, 2, 3, 5, 6, 7, 1 | 0x40000000, 2 | 0x40000000,
					6 | 0x40000000 };
	static const int prios[] = { 0, 1, 2, 9, 10, 16, 40, 41, 89, 99 };
	static const uint32_t uids[][2] = { { 0, 0 }, { 65534, 65534 }, { 1000, 0 }, { 0, 1000 } };
	static const uint64_t hards[] = { 0, 1, 9, 10, 98, 99, ISO_RULE_RTPRIO_UNLIMITED };

	for (size_t p = 0; p < sizeof(policies) / sizeof(policies[0]); p++)
		for (size_t q = 0; q < sizeof(prios) / sizeof(prios[0]); q++) {
			int policy = policies[p] & ~0x40000000, prio = prios[q];

			/* only what the kernel can show: RT priorities for
			 * FIFO/RR, 0 for the rest */
			if ((policy == 1 || policy == 2) != (prio != 0))
				continue;
			for (size_t u = 0; u < sizeof(uids) / sizeof(uids[0]); u++)
				for (size_t h = 0; h < sizeof(hards) / sizeof(hards[0]); h++)
					for (int tr = 0; tr <= 1; tr++) {
						struct iso_rule_thread t = { policies[p], prio, uids[u][0],
									     uids[u][1], hards[h], tr };
						char hard[24];

						if (hards[h] == ISO_RULE_RTPRIO_UNLIMITED)
							snprintf(hard, sizeof(hard), "unlimited");
						else
							snprintf(hard, sizeof(hard), "%" PRIu64, hards[h]);
						printf("%d %d %u %u %s %d %s\n", policies[p], prio,
						       uids[u][0], uids[u][1], hard, tr,
						       iso_rule_verdict_name(iso_rule_judge(&t)));
					}
		}
	return 0;
}
