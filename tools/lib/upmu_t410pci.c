// SPDX-License-Identifier: GPL-2.0
/* A Tegra410 PCIE PMU's root complex from sysfs (upmu_t410pci.h). */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "upmu_pmu.h"
#include "upmu_t410pci.h"

/* "1:80-9f 2:a0-bf" */
static int parse_root_ports(struct t410_rc *r, const char *s)
{
	int n;

	r->nr_rp = 0;
	while (*s) {
		if (r->nr_rp == T410_MAX_RP ||
		    sscanf(s, "%u:%x-%x%n", &r->rp[r->nr_rp], &r->first[r->nr_rp],
			   &r->last[r->nr_rp], &n) != 3 || r->rp[r->nr_rp] >= T410_MAX_RP)
			return -EINVAL;
		r->nr_rp++;
		s += n;
		while (*s == ' ')
			s++;
	}
	return 0;
}

int t410_rc_load(const char *pmu, struct t410_rc *r)
{
	char buf[128], tail;

	memset(r, 0, sizeof(*r));
	if (sscanf(pmu, "nvidia_pcie_pmu_%u_rc_%u%c", &r->socket, &r->rc, &tail) != 2)
		return -ENOENT;
	if (pmu_read(pmu, "pci_segment", buf, sizeof(buf)) ||
	    sscanf(buf, "%x", &r->segment) != 1 ||
	    pmu_read(pmu, "root_ports", buf, sizeof(buf)) || parse_root_ports(r, buf))
		return -EINVAL;
	snprintf(r->pmu, sizeof(r->pmu), "%s", pmu);
	return 0;
}

int t410_rc_port_of(const struct t410_rc *r, unsigned int seg, unsigned int bus)
{
	unsigned int p;

	if (r->segment != seg)
		return -1;
	for (p = 0; p < r->nr_rp; p++)
		if (bus >= r->first[p] && bus <= r->last[p])
			return p;
	return -1;
}
