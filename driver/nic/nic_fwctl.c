// SPDX-License-Identifier: GPL-2.0
/*
 * upmu_nic: the PFs through the kernel's fwctl subsystem (Linux 6.15+).
 *
 * Each PF gets a /dev/fwctl/fwctlN of device type MLX5.  Every open file
 * is a firmware user context (CREATE_UCTX), whose uid is forced into the
 * header of every command the file sends and which the firmware tears
 * down, with whatever the uid held, when the file is closed
 * (DESTROY_UCTX).  Commands are filtered by opcode against the scope the
 * caller claims, as mlx5_fwctl does: see nic_fwctl_rules[].
 */

#include <linux/fwctl.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <uapi/fwctl/mlx5.h>

#include "hw/nic_cmd.h"
#include "nic.h"
#include "upmu_compat.h"

/**
 * struct upmu_nic_fwctl - the fwctl device of a PF
 * @fwctl: the fwctl core's device (first: the core allocates and frees
 *	   this struct)
 * @pf: the PF; valid while the fwctl device is registered, which is as
 *	long as the core calls any of the ops below
 */
struct upmu_nic_fwctl {
	struct fwctl_device fwctl;
	struct upmu_nic_pf *pf;
};

/**
 * struct upmu_nic_uctx - an open file of a fwctl device
 * @uctx: the fwctl core's part (first, as the core requires)
 * @caps: capabilities of the firmware user context (NIC_UCTX_CAP_*)
 * @uid: its uid
 */
struct upmu_nic_uctx {
	struct fwctl_uctx uctx;
	u32 caps;
	u32 uid;
};

/*
 * The commands a fwctl user may send and the least scope each needs.
 * Anything else is refused (EBADMSG): a command that creates a firmware
 * object would outlive the file, as nothing frees it at close, so none is
 * here unless DESTROY_UCTX frees what it makes (the engine's ownership,
 * and with it the engine, is the uid's).  Queries of the device's
 * capabilities are fine at any scope (as in mlx5_fwctl); queries of
 * diagnostic state need DEBUG_READ_ONLY; whatever configures, starts or
 * owns the diagnostic engine needs DEBUG_WRITE, which taints the kernel.
 * One row per opcode.
 */
static const struct nic_fwctl_rule {
	u16 opcode;
	u8 scope;
} nic_fwctl_rules[] = {
	{ NIC_OP_QUERY_HCA_CAP,			FWCTL_RPC_CONFIGURATION },
	{ NIC_OP_QUERY_ADAPTER,			FWCTL_RPC_CONFIGURATION },
	{ NIC_OP_QUERY_DIAGNOSTIC_PARAMS,	FWCTL_RPC_DEBUG_READ_ONLY },
	{ NIC_OP_QUERY_DIAGNOSTIC_COUNTERS,	FWCTL_RPC_DEBUG_READ_ONLY },
	{ NIC_OP_SET_DIAGNOSTIC_PARAMS,		FWCTL_RPC_DEBUG_WRITE },
	/* the upmu extension (DOCA Telemetry Diag's features) */
	{ NIC_OP_EXT_QUERY_DATA_IDS,		FWCTL_RPC_DEBUG_READ_ONLY },
	{ NIC_OP_EXT_QUERY_STATE,		FWCTL_RPC_DEBUG_READ_ONLY },
	/* the owner's samples: only the owner, which took DEBUG_WRITE */
	{ NIC_OP_EXT_QUERY_SAMPLES,		FWCTL_RPC_DEBUG_READ_ONLY },
	{ NIC_OP_EXT_OWNERSHIP,			FWCTL_RPC_DEBUG_WRITE },
	{ NIC_OP_EXT_SET_CONFIG,		FWCTL_RPC_DEBUG_WRITE },
	{ NIC_OP_EXT_APPLY_IDS,			FWCTL_RPC_DEBUG_WRITE },
	{ NIC_OP_EXT_START,			FWCTL_RPC_DEBUG_WRITE },
	{ NIC_OP_EXT_STOP,			FWCTL_RPC_DEBUG_WRITE },
	{ NIC_OP_EXT_RESTART,			FWCTL_RPC_DEBUG_WRITE },
};

static bool nic_fwctl_allowed(const void *in, enum fwctl_rpc_scope scope)
{
	u16 opcode = nic_get(in, NIC_HDR_OPCODE);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(nic_fwctl_rules); i++)
		if (nic_fwctl_rules[i].opcode == opcode)
			return scope >= nic_fwctl_rules[i].scope;
	return false;
}

static struct upmu_nic_pf *nic_fwctl_pf(struct fwctl_uctx *uctx)
{
	return container_of(uctx->fwctl, struct upmu_nic_fwctl, fwctl)->pf;
}

static struct upmu_nic_uctx *to_nic_uctx(struct fwctl_uctx *uctx)
{
	return container_of(uctx, struct upmu_nic_uctx, uctx);
}

static int nic_fwctl_open_uctx(struct fwctl_uctx *uctx)
{
	struct upmu_nic_uctx *nu = to_nic_uctx(uctx);
	struct upmu_nic_pf *pf = nic_fwctl_pf(uctx);
	u32 in[NIC_CREATE_UCTX_IN_LEN / 4] = {};
	u32 out[NIC_HDR_OUT_LEN / 4] = {};
	int ret;

	/* TOOLS_RESOURCES: the uid may reach device-global state */
	nu->caps = pf->uctx_cap & NIC_UCTX_CAP_TOOLS_RESOURCES;
	nic_set(in, NIC_HDR_OPCODE, NIC_OP_CREATE_UCTX);
	nic_set(in, NIC_CREATE_UCTX_CAP, nu->caps);
	ret = upmu_nic_cmd(pf, in, sizeof(in), out, sizeof(out));
	if (ret)
		return ret;
	nu->uid = nic_get(out, NIC_CREATE_UCTX_OUT_UID);
	if (!nu->uid) {
		/* uid 0 is the kernel's own: never a user's */
		dev_err_ratelimited(pf->dev, "firmware gave a user context uid 0\n");
		return -EPROTO;
	}
	dev_dbg(pf->dev, "pid %d: uid %u, caps 0x%x\n", task_pid_nr(current),
		nu->uid, nu->caps);
	return 0;
}

static void nic_fwctl_close_uctx(struct fwctl_uctx *uctx)
{
	struct upmu_nic_uctx *nu = to_nic_uctx(uctx);
	struct upmu_nic_pf *pf = nic_fwctl_pf(uctx);
	u32 in[NIC_DESTROY_UCTX_IN_LEN / 4] = {};
	u32 out[NIC_HDR_OUT_LEN / 4] = {};

	nic_set(in, NIC_HDR_OPCODE, NIC_OP_DESTROY_UCTX);
	nic_set(in, NIC_DESTROY_UCTX_UID, nu->uid);
	/* a failure is logged; the file goes anyway */
	upmu_nic_cmd(pf, in, sizeof(in), out, sizeof(out));
}

static void *nic_fwctl_info(struct fwctl_uctx *uctx, size_t *length)
{
	struct upmu_nic_uctx *nu = to_nic_uctx(uctx);
	struct fwctl_info_mlx5 *info;

	info = kzalloc_obj(*info);
	if (!info)
		return ERR_PTR(-ENOMEM);
	info->uid = nu->uid;
	info->uctx_caps = nu->caps;
	*length = sizeof(*info);
	return info;
}

/*
 * An RPC: refused (an errno) when it is malformed, not allowed at @scope
 * or cannot be delivered; otherwise the firmware's output, whatever the
 * status in it.  *@out_len is the length of the output the firmware
 * produced, which may exceed the caller's buffer (the core copies what
 * fits).
 */
static void *nic_fwctl_rpc(struct fwctl_uctx *uctx, enum fwctl_rpc_scope scope,
			   void *rpc_in, size_t in_len, size_t *out_len)
{
	struct upmu_nic_uctx *nu = to_nic_uctx(uctx);
	struct upmu_nic_pf *pf = nic_fwctl_pf(uctx);
	size_t len;
	void *out;
	int ret;

	if (in_len < NIC_HDR_IN_LEN || *out_len < NIC_HDR_OUT_LEN)
		return ERR_PTR(-EMSGSIZE);
	if (!nic_fwctl_allowed(rpc_in, scope))
		return ERR_PTR(-EBADMSG);
	if (in_len > pf->inbox_size)
		return ERR_PTR(-EMSGSIZE);

	/* the input is in the inbox before the output is written */
	len = min_t(size_t, *out_len, pf->outbox_size);
	if (len <= in_len) {
		out = rpc_in;
	} else {
		out = kvzalloc(len, GFP_KERNEL_ACCOUNT);
		if (!out)
			return ERR_PTR(-ENOMEM);
	}

	nic_set(rpc_in, NIC_HDR_UID, nu->uid);
	ret = upmu_nic_cmd_exec(pf, rpc_in, in_len, out, len);
	dev_dbg(pf->dev, "pid %d uid %u: opcode 0x%x scope %d: %d, status 0x%x\n",
		task_pid_nr(current), nu->uid, nic_get(rpc_in, NIC_HDR_OPCODE),
		scope, ret, ret < 0 ? 0 : nic_get(out, NIC_HDR_STATUS));
	if (ret < 0) {
		if (out != rpc_in)
			kvfree(out);
		return ERR_PTR(ret);
	}
	*out_len = ret;
	return out;
}

static const struct fwctl_ops nic_fwctl_ops = {
	.device_type = FWCTL_DEVICE_TYPE_MLX5,
	.uctx_size = sizeof(struct upmu_nic_uctx),
	.open_uctx = nic_fwctl_open_uctx,
	.close_uctx = nic_fwctl_close_uctx,
	.info = nic_fwctl_info,
	.fw_rpc = nic_fwctl_rpc,
};

/**
 * upmu_nic_fwctl_add() - give a PF its fwctl device
 * @pf: the PF, its capabilities read
 *
 * Firmware without user contexts (uctx_cap 0) gets none, as mlx5 does.
 *
 * Return: 0 or -errno.
 */
int upmu_nic_fwctl_add(struct upmu_nic_pf *pf)
{
	struct upmu_nic_fwctl *nf;
	int ret;

	if (!pf->uctx_cap) {
		dev_info(pf->dev, "firmware has no user contexts: no fwctl device\n");
		return 0;
	}
	nf = fwctl_alloc_device(pf->dev, &nic_fwctl_ops, struct upmu_nic_fwctl,
				fwctl);
	if (!nf)
		return -ENOMEM;
	nf->pf = pf;
	ret = fwctl_register(&nf->fwctl);
	if (ret) {
		fwctl_put(&nf->fwctl);
		return ret;
	}
	pf->fwctl = nf;
	dev_dbg(pf->dev, "fwctl device %s\n", dev_name(&nf->fwctl.dev));
	return 0;
}

/**
 * upmu_nic_fwctl_del() - take a PF's fwctl device away
 * @pf: the PF
 *
 * Waits for running RPCs and destroys the user context of every file
 * still open; those files get ENODEV from then on and free nothing of
 * ours when they close, so the PF and the module may go.
 */
void upmu_nic_fwctl_del(struct upmu_nic_pf *pf)
{
	if (!pf->fwctl)
		return;
	fwctl_unregister(&pf->fwctl->fwctl);
	fwctl_put(&pf->fwctl->fwctl);
	pf->fwctl = NULL;
}

MODULE_IMPORT_NS("FWCTL");
