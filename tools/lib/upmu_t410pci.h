/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A Tegra410 PCIE PMU's root complex as sysfs describes it: its PCI
 * segment (pci_segment) and root ports with their bus ranges
 * (root_ports, "1:80-9f 2:a0-bf"), see
 * Documentation/nvidia-t410-pcie-pmu.rst.  Shared by upmu-pcimap and
 * upmu-exporter.
 */
#ifndef __UPMU_T410PCI_H__
#define __UPMU_T410PCI_H__

#define T410_MAX_RP	8

struct t410_rc {
	char pmu[64];
	unsigned int socket, rc, segment, nr_rp;
	unsigned int rp[T410_MAX_RP], first[T410_MAX_RP], last[T410_MAX_RP];
};

/*
 * @r from PCIE PMU @pmu (nvidia_pcie_pmu_<socket>_rc_<rc>): 0, -ENOENT
 * if @pmu is not such a name, -EINVAL if its files hold no mapping.
 */
int t410_rc_load(const char *pmu, struct t410_rc *r);
/* The index into @r->rp of the port whose buses hold @seg:@bus, or -1. */
int t410_rc_port_of(const struct t410_rc *r, unsigned int seg, unsigned int bus);

#endif
