/* libFuzzer target: any text as /proc content, a state-file line or a
 * configuration file. Parsers must reject or accept, never crash, and a
 * refused configuration must leave the old one untouched. */
#include <ini.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "log.h"
#include "procinfo.h"
#include "statefile.h"

static int on_line(void *user, const char *section, const char *key, const char *value)
{
	const char *why;

	(void)section;
	config_set(user, key, value, &why);
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	struct thread_status st;
	struct state_line sl;
	struct isod_config c;
	const char *why;
	uint64_t v;
	struct rt_limits lim;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	log_setup(LOG_EMERG, false);
	(void)parse_status_buf(s, &st);
	(void)parse_stat_starttime(s, &v);
	(void)parse_schedstat_buf(s, &v);
	(void)parse_limits_buf(s, &lim);
	(void)statefile_parse_line(s, &sl);
	config_defaults(&c);
	(void)ini_parse_string(s, on_line, &c);
	/* whatever the file said, validation decides; no crash either way */
	(void)config_validate(&c, &why);
	free(s);
	return 0;
}
