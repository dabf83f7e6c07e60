/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ice Lake-X IIO stacks and the PCI functions below them, as the tools
 * see them: each stack's PCI segment and root bus from the dieX files of
 * its uncore_iio_<N> PMU (die X = socket X), and the functions from
 * /sys/bus/pci and the simulator's pci_devices lists.  Shared by
 * upmu-pcimap and upmu-iostat.
 */
#ifndef __UPMU_IIO_H__
#define __UPMU_IIO_H__

#include <stdbool.h>

#define IIO_MAX_STACKS		16	/* uncore_iio_0..15 at the most */
#define IIO_MAX_SOCKETS		8
#define IIO_NR_PARTS		8	/* ch_mask bits 0-7 */

struct iio_stack {
	char pmu[32];		/* uncore_iio_<stack> */
	unsigned int socket;	/* die */
	unsigned int stack;
	unsigned int seg, bus;	/* root bus, "%04x:%02x" in dieX */
};

struct iio_fn {
	unsigned int seg, bus, dev, fn;
	bool root_port;
	bool sim;		/* from a simulator's pci_devices */
	const struct iio_stack *st;
	int part;		/* -1: not known */
	double gts;		/* max link speed, GT/s per lane; 0: not known */
	unsigned int width;	/* max link width; 0: not known */
	double link_gts;	/* what the link trained at; 0: not known */
	unsigned int link_width;
};

struct iio_topo {
	struct iio_stack st[IIO_MAX_STACKS * IIO_MAX_SOCKETS];
	unsigned int nr_st;
	unsigned int nr_sockets;	/* highest die + 1 */
	struct iio_fn *fn;
	unsigned int nr_fn;
};

/* The stacks, from uncore_iio_<N>/die<X>; 0 (none is not an error) or -errno. */
int iio_load_stacks(struct iio_topo *t);
/*
 * The PCI functions below the stacks: the simulators' (debugfs
 * upmu_sim/<id>/pci_devices) and, unless @sim_only, the system's
 * (/sys/bus/pci/devices), sorted by address.  0 or -errno.
 */
int iio_load_functions(struct iio_topo *t, bool sim_only);
void iio_free(struct iio_topo *t);
/* Call @fn with each line of each simulator's pci_devices list. */
void sim_pci_lines(void (*fn)(void *ctx, const char *line), void *ctx);

/* The stack whose bus range holds @seg:@bus (the highest root bus <= @bus). */
const struct iio_stack *iio_stack_of(const struct iio_topo *t, unsigned int seg,
				     unsigned int bus);
const struct iio_stack *iio_stack_at(const struct iio_topo *t, unsigned int socket,
				     unsigned int stack);
/* The function at @seg:@bus:@dev.@fn, or NULL. */
const struct iio_fn *iio_fn_find(const struct iio_topo *t, unsigned int seg, unsigned int bus,
				 unsigned int dev, unsigned int fn);
/* SSSS:BB:DD.F into its parts; false if @s is not such an address. */
bool iio_parse_bdf(const char *s, unsigned int *seg, unsigned int *bus, unsigned int *dev,
		   unsigned int *fn);
/*
 * VTune's PCIe Max Bandwidth of a link in MB/s, both directions:
 * speed (GT/s) * 1000 / 8 * width * 2, of what the link trained at
 * (current_link_speed and _width) where that is known, else of the max
 * (max_link_speed and _width); 0 if neither is known.
 */
double iio_link_max_mbps(const struct iio_fn *f);
/*
 * If @f's link trained below its max: "link trained at 8 GT/s x2, max 16
 * GT/s x4" in @buf, true; else false.
 */
bool iio_link_below_max(const struct iio_fn *f, char *buf, size_t len);

#endif
