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

#include <linux/bsearch.h>
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

/*
 * What upstream's mlx5_fwctl (drivers/fwctl/mlx5/main.c,
 * mlx5ctl_validate_rpc()) passes to the firmware besides the commands
 * above, with the same least scope: a client such as mlx5ctl that sends
 * them gets the firmware's answer (this one says BAD_OP for what it does
 * not implement), not the driver's EBADMSG.  Opcodes of the mlx5 PRM
 * (include/linux/mlx5/mlx5_ifc.h), sorted.
 */
/* configuration and capability queries: any scope */
static const u16 nic_mlx5_any_scope[] = {
	0x100,	/* QUERY_HCA_CAP (also above) */
	0x101,	/* QUERY_ADAPTER (also above) */
	0x109,	/* SET_HCA_CAP */
	0x10e,	/* QUERY_OTHER_HCA_CAP */
	0x731,	/* DELEGATE_VHCA_MANAGEMENT */
	0x740,	/* QUERY_ESW_FUNCTIONS */
	0x760,	/* QUERY_ROCE_ADDRESS */
	0x762,	/* QUERY_HCA_VPORT_CONTEXT */
	0x823,	/* MODIFY_CONG_STATUS */
	0xb22,	/* QUERY_VUID */
	0xb2e,	/* POSTPONE_CONNECTED_QP_TIMEOUT */
};

/* queries of objects and state: DEBUG_READ_ONLY */
static const u16 nic_mlx5_read_only[] = {
	0x107,	/* QUERY_PAGES */
	0x10a,	/* QUERY_ISSI */
	0x10c,	/* QUERY_DRIVER_VERSION */
	0x111,	/* QUERY_SF_PARTITION */
	0x117,	/* QUERY_VHCA_MIGRATION_STATE */
	0x201,	/* QUERY_MKEY */
	0x203,	/* QUERY_SPECIAL_CONTEXTS */
	0x303,	/* QUERY_EQ */
	0x402,	/* QUERY_CQ */
	0x50b,	/* QUERY_QP */
	0x512,	/* QUERY_RDB */
	0x602,	/* QUERY_PSV */
	0x702,	/* QUERY_SRQ */
	0x707,	/* QUERY_XRC_SRQ */
	0x713,	/* QUERY_DCT */
	0x716,	/* QUERY_DC_CNAK_TRACE */
	0x719,	/* QUERY_XRQ */
	0x722,	/* QUERY_NVMF_BACKEND_CONTROLLER */
	0x725,	/* QUERY_XRQ_DC_PARAMS_ENTRY */
	0x727,	/* QUERY_XRQ_ERROR_PARAMS */
	0x728,	/* QUERY_NVMF_NAMESPACE_CONTEXT */
	0x730,	/* QUERY_ADJACENT_FUNCTIONS_ID */
	0x732,	/* QUERY_DELEGATED_VHCA */
	0x750,	/* QUERY_VPORT_STATE */
	0x752,	/* QUERY_ESW_VPORT_CONTEXT */
	0x754,	/* QUERY_NIC_VPORT_CONTEXT */
	0x764,	/* QUERY_HCA_VPORT_GID */
	0x765,	/* QUERY_HCA_VPORT_PKEY */
	0x76f,	/* QUERY_VNIC_ENV */
	0x770,	/* QUERY_VPORT_COUNTER */
	0x773,	/* QUERY_Q_COUNTER */
	0x781,	/* QUERY_RATE_LIMIT */
	0x784,	/* QUERY_SCHEDULING_ELEMENT */
	0x80b,	/* QUERY_MAD_DEMUX */
	0x80d,	/* NOP */
	0x813,	/* QUERY_BURST_SIZE */
	0x819,	/* QUERY_DIAGNOSTIC_PARAMS (also above) */
	0x821,	/* QUERY_DIAGNOSTIC_COUNTERS (also above) */
	0x822,	/* QUERY_CONG_STATUS */
	0x824,	/* QUERY_CONG_PARAMS */
	0x826,	/* QUERY_CONG_STATISTICS */
	0x82a,	/* QUERY_L2_TABLE_ENTRY */
	0x831,	/* QUERY_WOL_ROL */
	0x842,	/* QUERY_LAG */
	0x903,	/* QUERY_TIR */
	0x907,	/* QUERY_SQ */
	0x90b,	/* QUERY_RQ */
	0x90f,	/* QUERY_RMP */
	0x911,	/* QUERY_DELAY_DROP_PARAMS */
	0x915,	/* QUERY_TIS */
	0x919,	/* QUERY_RQT */
	0x932,	/* QUERY_FLOW_TABLE */
	0x935,	/* QUERY_FLOW_GROUP */
	0x937,	/* QUERY_FLOW_TABLE_ENTRY */
	0x93b,	/* QUERY_FLOW_COUNTER */
	0x93f,	/* QUERY_PACKET_REFORMAT_CONTEXT */
	0x942,	/* QUERY_MODIFY_HEADER_CONTEXT */
	0x962,	/* FPGA_QUERY_QP */
	0x964,	/* FPGA_QUERY_QP_COUNTERS */
	0x971,	/* QUERY_AFU */
	0x981,	/* QUERY_CAPI_PEC */
	0xa02,	/* QUERY_GENERAL_OBJECT */
	0xa05,	/* QUERY_UCTX */
	0xa09,	/* QUERY_UMEM */
	0xb02,	/* QUERY_NVMF_CC_RESPONSE */
	0xb03,	/* QUERY_EMULATED_FUNCTIONS_INFO */
	0xb05,	/* QUERY_REGEXP_PARAMS */
	0xb07,	/* QUERY_REGEXP_REGISTER */
	0xb08,	/* USER_QUERY_XRQ_DC_PARAMS_ENTRY */
	0xb0a,	/* USER_QUERY_XRQ_ERROR_PARAMS */
	0xb0d,	/* QUERY_VHCA_STATE */
	0xb0f,	/* QUERY_EMULATION_DEVICE_EQ_MSIX_MAPPING */
	0xb13,	/* QUERY_MATCH_SAMPLE_INFO */
	0xb14,	/* QUERY_CRYPTO_STATE */
	0xb28,	/* QUERY_DPA_PARTITION */
	0xb2a,	/* QUERY_DPA_PARTITIONS */
	0xb2f,	/* QUERY_EMULATED_RESOURCES_INFO */
	0x8000,	/* QUERY_RSV_RESOURCES */
	0x8001,	/* QUERY_MTT */
	0x8006,	/* QUERY_SCHED_QUEUE */
};

/* ACCESS_REG and ACCESS_REGISTER_USER: a write (op_mod 0) at any scope */
#define NIC_OP_ACCESS_REG		0x805
#define NIC_OP_ACCESS_REGISTER_USER	0xb0c

static int nic_op_cmp(const void *key, const void *elt)
{
	return (int)*(const u16 *)key - (int)*(const u16 *)elt;
}

static bool nic_op_in(u16 opcode, const u16 *ops, size_t n)
{
	return bsearch(&opcode, ops, n, sizeof(*ops), nic_op_cmp);
}

static bool nic_fwctl_allowed(const void *in, enum fwctl_rpc_scope scope)
{
	u16 opcode = nic_get(in, NIC_HDR_OPCODE);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(nic_fwctl_rules); i++)
		if (nic_fwctl_rules[i].opcode == opcode)
			return scope >= nic_fwctl_rules[i].scope;
	if (nic_op_in(opcode, nic_mlx5_any_scope, ARRAY_SIZE(nic_mlx5_any_scope)))
		return true;
	if (nic_op_in(opcode, nic_mlx5_read_only, ARRAY_SIZE(nic_mlx5_read_only)))
		return scope >= FWCTL_RPC_DEBUG_READ_ONLY;
	if (opcode == NIC_OP_ACCESS_REG || opcode == NIC_OP_ACCESS_REGISTER_USER)
		return !nic_get(in, NIC_HDR_OP_MOD) ||
		       scope >= FWCTL_RPC_DEBUG_READ_ONLY;
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
	upmu_nic_pmu_yield(pf);
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
