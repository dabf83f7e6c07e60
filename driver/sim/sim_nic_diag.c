// SPDX-License-Identifier: GPL-2.0
/*
 * The sampling engine of the simulated NIC and its commands.
 */

#include "sim_nic.h"

int nic_cmd_diag(struct nic_cmd *c, u16 opcode)
{
	return -1;
}

void nic_diag_catch_up(struct sim_nic *nic, u64 now)
{
	nic_flows_run(nic, now);
}

int nic_diag_alloc(struct sim_nic *nic)
{
	nic->diag.owner_pf = -1;
	return 0;
}

void nic_diag_free(struct sim_nic *nic)
{
}

void nic_diag_release(struct sim_nic *nic, u32 pf, u16 uid)
{
}

void nic_diag_debugfs(struct sim_nic *nic, struct dentry *dir)
{
}
