/* proc_conn.c — the process connector socket (proc_conn.h). */
#include "proc_conn.h"

#include <errno.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "isod.h"
#include "log.h"

int forkwatch_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC };
	/* nlmsghdr + cn_msg + the op, laid out by hand: cn_msg ends in a
	 * flexible array, so it cannot sit inside a struct in ISO C */
	char req[NLMSG_LENGTH(sizeof(struct cn_msg) + sizeof(enum proc_cn_mcast_op))]
		__attribute__((aligned(8)));
	struct nlmsghdr *nl = (struct nlmsghdr *)req;
	struct cn_msg *cn = NLMSG_DATA(nl);
	enum proc_cn_mcast_op op = PROC_CN_MCAST_LISTEN;
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_CONNECTOR);
	int r;

	if (fd < 0)
		return -errno;
	sa.nl_pid = 0;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		goto fail;
	memset(req, 0, sizeof(req));
	nl->nlmsg_len = sizeof(req);
	nl->nlmsg_type = NLMSG_DONE;
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->len = sizeof(op);
	memcpy(cn->data, &op, sizeof(op));
	if (send(fd, req, sizeof(req), 0) < 0)
		goto fail;
	return fd;
fail:
	r = -errno;
	close(fd);
	return r;
}

void forkwatch_follow(struct isod *d, bool on)
{
	int group = CN_IDX_PROC;

	/* the BPF program reports what concerns tracked threads */
	if (accounting_follows_lineage(d->acct))
		on = false;
	if (d->forkfd < 0 || d->forkwatch_on == on)
		return;
	if (setsockopt(d->forkfd, SOL_NETLINK, on ? NETLINK_ADD_MEMBERSHIP : NETLINK_DROP_MEMBERSHIP,
		       &group, sizeof(group)) < 0) {
		/* staying joined is only a cost; not joining loses events */
		if (on)
			log_warning_errno(-errno, "process connector: cannot follow events again; children of ISO threads stay SCHED_OTHER, and an exec from an ISO thread is seen when its thread is found gone");
		return;
	}
	d->forkwatch_on = on;
}
