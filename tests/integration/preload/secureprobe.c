/* secureprobe — prints the socket path the client library would use
 * (iso_socket_path), linked with the library's source so that it runs
 * from a temp dir even in secure-execution mode (where the loader ignores
 * LD_LIBRARY_PATH and $ORIGIN). For secure.sh: a copy given file
 * capabilities runs with AT_SECURE set, as a setuid program would. */
#include <stdio.h>
#include <sys/auxv.h>

#include "isosched.h"

int main(void)
{
	printf("secure=%lu socket=%s\n", getauxval(AT_SECURE),
	       iso_socket_path());
	return 0;
}
