/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fwctl side of the NIC tests that check the arbitration of the
 * diagnostic engine (nic_pmu_test, nic_aux_test): include after
 * upmu_test.h and hw/nic_cmd.h, with SIM_ID defined.  Needs the fwctl
 * uAPI (build/include on Debian 12).
 */
#ifndef __UPMU_NIC_FWCTL_UTIL_H__
#define __UPMU_NIC_FWCTL_UTIL_H__

#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include <fwctl/fwctl.h>

#define FWCTL_CLASS	"/sys/class/fwctl"

/* An open file of the fwctl device of PF @pf, or -errno. */
static int fw_open(int pf)
{
	char path[PATH_MAX], real[PATH_MAX], want[32];
	uint64_t v;
	int i, fd;

	snprintf(want, sizeof(want), "/upmu_sim%u/", SIM_ID);
	for (i = 0; i < 256; i++) {
		snprintf(path, sizeof(path), FWCTL_CLASS "/fwctl%d/device", i);
		if (!realpath(path, real) || !strstr(real, want))
			continue;
		snprintf(path, sizeof(path), FWCTL_CLASS "/fwctl%d/device/pf", i);
		if (read_u64(path, &v) || v != (uint64_t)pf)
			continue;
		snprintf(path, sizeof(path), "/dev/fwctl/fwctl%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		return fd < 0 ? -errno : fd;
	}
	return -ENOENT;
}

/* EXT_OWNERSHIP through @fd: the firmware's status, or -errno. */
static int own(int fd, unsigned int op_mod, bool force)
{
	uint8_t in[NIC_HDR_IN_LEN] = {}, out[NIC_HDR_OUT_LEN];
	struct fwctl_rpc r = {
		.size = sizeof(r),
		.scope = FWCTL_RPC_DEBUG_WRITE,
		.in_len = sizeof(in),
		.out_len = sizeof(out),
		.in = (uintptr_t)in,
		.out = (uintptr_t)out,
	};

	nic_set(in, NIC_HDR_OPCODE, NIC_OP_EXT_OWNERSHIP);
	nic_set(in, NIC_HDR_OP_MOD, op_mod);
	nic_set(in, NIC_EXT_OWN_FORCE, force);
	if (ioctl(fd, FWCTL_RPC, &r))
		return -errno;
	return nic_get(out, NIC_HDR_STATUS);
}

#endif
