/* SPDX-License-Identifier: GPL-2.0 */
/*
 * upmu_nic: driver of the physical functions (PFs) of a ConnectX-like NIC
 * whose firmware is reached through a command mailbox
 * (include/hw/nic_cmd.h).  nic_main.c binds the PFs and runs commands;
 * nic_fwctl.c exposes each PF through the kernel's fwctl subsystem.
 */
#ifndef __UPMU_NIC_H__
#define __UPMU_NIC_H__

#include <linux/kconfig.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include <linux/list.h>

#include "upmu.h"

/* What a timed-out command's input is kept of: the header, an ID or two */
#define NIC_STUCK_IN_LEN	0x40

struct device;
struct upmu_nic_fwctl;
struct nic_pmu;
struct nic_stream;

/**
 * struct upmu_nic_pf - one physical function of a NIC
 * @dev: its platform device
 * @cmd_lock: serialises the command mailbox: @regs (its queue of
 *	deferred writes included) and the mailbox registers behind it
 *	belong to one command at a time
 * @regs: the PF's register window
 * @inbox_size: bytes of the inbox (NIC_REG_INBOX_SIZE)
 * @outbox_size: bytes of the outbox (NIC_REG_OUTBOX_SIZE)
 * @fw_rev: NIC_REG_FW_REV
 * @dev_id: NIC_REG_DEV_ID, the PCI vendor and device IDs
 * @serial: NIC_REG_DEV_SERIAL, the same on every PF of a device
 * @pf: this PF's number on its device (NIC_REG_PF)
 * @uctx_cap: the general HCA capability's uctx_cap
 * @fwctl: the PF's fwctl device, or NULL
 * @pmu: the NIC's perf PMU, if this PF registered it
 * @node: in the list of bound PFs the PMUs move between
 * @idle: the mailbox is idle: the last command rung on it completed
 *	  (under @cmd_lock, as is @stuck), and nothing but this driver
 *	  rings it, so the next command need not read its status first
 * @stuck: a command timed out and still holds the mailbox: the firmware
 *	   may yet run it (under @cmd_lock, as are the three below)
 * @stuck_in: its input, up to NIC_STUCK_IN_LEN bytes: what its late
 *	      completion is undone with (nic_cmd_reconcile())
 * @cmd_timeouts: commands that timed out (the PF's health events)
 * @cmd_late: those that completed after all, and were reconciled
 */
struct upmu_nic_pf {
	struct device *dev;
	struct mutex cmd_lock;		/* the mailbox */
	struct upmu_regs regs;
	u32 inbox_size;
	u32 outbox_size;
	u32 fw_rev;
	u32 dev_id;
	u32 serial;
	u32 pf;
	u32 uctx_cap;
	struct upmu_nic_fwctl *fwctl;
	struct nic_pmu *pmu;
	struct list_head node;
	bool idle;
	bool stuck;
	u8 stuck_in[NIC_STUCK_IN_LEN];
	unsigned int cmd_timeouts;
	unsigned int cmd_late;
};

int upmu_nic_cmd_exec(struct upmu_nic_pf *pf, const void *in, size_t in_len,
		      void *out, size_t out_len);
int upmu_nic_cmd(struct upmu_nic_pf *pf, const void *in, size_t in_len,
		 void *out, size_t out_len);

/**
 * struct nic_pmu - the perf PMUs of one NIC (nic_pmu.c, nic_stream.c)
 * @list: in nic_pmus
 * @serial: the NIC's NIC_REG_DEV_SERIAL
 * @upmu: the counting PMU (owned by the core once registered)
 * @aux: the AUX stream PMU, or NULL (owned by the core once registered)
 * @ref: the driver's reference and one per event (nic_pmu_hold())
 * @lock: protects @pf, @users, @owned, @stream (and orders commands)
 * @pf: the PF that registered the PMUs, NULL once it is gone
 * @users: events alive, of both PMUs
 * @owned: the PMUs hold the engine's ownership (as uid 0)
 * @linger: gives the ownership back linger_ms after the last event
 * @stream: the AUX stream's state while its event exists
 * @khz: the device clock (NIC_SW_KHZ), read at probe
 * @nr_ids: data IDs of the device
 * @ids: the data IDs, sorted, read once at probe
 * @nr_stats: those of them that are Statistics (extremes, not counts)
 * @stats: those, sorted
 */
struct nic_pmu {
	struct list_head list;
	u32 serial;
	struct upmu_pmu *upmu;
	struct upmu_pmu *aux;
	struct kref ref;
	struct mutex lock;		/* @pf, @users, @owned, @stream */
	struct upmu_nic_pf *pf;
	unsigned int users;
	bool owned;
	struct delayed_work linger;
	struct nic_stream *stream;
	u32 khz;
	unsigned int nr_ids;
	u64 *ids;
	unsigned int nr_stats;
	u64 *stats;
};

int nic_pmu_cmd(struct nic_pmu *np, const void *in, size_t in_len,
		void *out, size_t out_len);
bool nic_pmu_has_id(const struct nic_pmu *np, u64 id);
int nic_pmu_hold(struct nic_pmu *np, struct upmu_pmu *upmu);
void nic_pmu_unhold(struct nic_pmu *np);
void nic_pmu_put(struct nic_pmu *np);
int nic_pmu_setup(struct upmu_pmu *upmu, struct nic_pmu *np,
		  struct upmu_nic_pf *pf, const char *prefix);

int nic_stream_register(struct nic_pmu *np, struct upmu_nic_pf *pf);

void upmu_nic_pmu_add(struct upmu_nic_pf *pf);
void upmu_nic_pmu_del(struct upmu_nic_pf *pf);
void upmu_nic_pmu_closing(void);
void upmu_nic_pmu_yield(struct upmu_nic_pf *pf);

#if IS_ENABLED(CONFIG_FWCTL)
int upmu_nic_fwctl_add(struct upmu_nic_pf *pf);
void upmu_nic_fwctl_del(struct upmu_nic_pf *pf);
#else
static inline int upmu_nic_fwctl_add(struct upmu_nic_pf *pf)
{
	return 0;
}

static inline void upmu_nic_fwctl_del(struct upmu_nic_pf *pf)
{
}
#endif

#endif
