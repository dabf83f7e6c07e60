// SPDX-License-Identifier: GPL-2.0
/*
 * upmu_nic through the kernel's fwctl subsystem (Linux 6.15+), on the
 * simulated NIC: one /dev/fwctl/fwctlN per PF that comes and goes with
 * the device, FWCTL_INFO (type MLX5, a firmware uid per open file),
 * commands through FWCTL_RPC with the values the simulator defines, the
 * scope rules of mlx5_fwctl (EBADMSG, the taint of DEBUG_WRITE, EPERM for
 * DEBUG_WRITE_FULL without CAP_SYS_RAWIO), EMSGSIZE, firmware errors in
 * the outbox, the uid forced into every command, user contexts freed at
 * close, and removal (del_device, rmmod upmu_nic) with files open.
 * Needs upmu_core and upmu_sim loaded; loads upmu_nic from $UPMU_MODDIR
 * if it is not, and unloads it at the end if it did.  Without fwctl
 * (Linux 6.1) only the binding of the PFs is tested; the rest SKIPs.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <fwctl/fwctl.h>
#include <fwctl/mlx5.h>

#include "kselftest_harness.h"

#define SIM_ID	21

#include "upmu_test.h"
#include "../../driver/include/hw/nic_cmd.h"

/*
 * The device every test gets: its values come back exactly in the
 * capabilities.  Counters of these options (as nic_fw_test counts them):
 * 7 port rows x 2, 6 port-priority rows x 16, 5 host rows x 2, 13 link
 * rows x 2, 1 link-tclass row x 16, 2 function rows x 4, 6 global rows.
 */
#define NIC_PFS		2
#define NIC_KHZ		1250000
#define NIC_LOG_SAMPLES	11
#define NIC_LOG_PERIOD	12
#define NIC_OPTS	"blocks=nic pfs=2 ports=2 links=2 hosts=2 funcs=4 " \
			"nic_khz=1250000 nic_log_samples=11 nic_log_period=12"
#define NIC_NR_CNTRS	(14 + 96 + 10 + 26 + 16 + 8 + 6)

#define FWCTL_CLASS	"/sys/class/fwctl"
#define NIC_DRIVER	"/sys/bus/platform/drivers/upmu-nic"
#define TAINT_FWCTL	19

/* ---- the module -------------------------------------------------------- */

/* The program leaves upmu_nic as it found it (modules_test unloads the rest). */
static bool loaded_here;
static pid_t main_pid;

static void __attribute__((constructor)) nic_setup_module(void)
{
	main_pid = getpid();
	loaded_here = !nic_loaded() && !nic_load();
}

static void __attribute__((destructor)) nic_restore_module(void)
{
	if (getpid() == main_pid && loaded_here && nic_loaded())
		nic_unload();
}

/* ---- finding the fwctl device of a PF ------------------------------------ */

static bool have_fwctl(void)
{
	return !access(FWCTL_CLASS, F_OK);
}

/* Whether sysfs path @path is below simulated device @id. */
static bool below_sim(const char *path, unsigned int id)
{
	char real[PATH_MAX], want[32];

	snprintf(want, sizeof(want), "/upmu_sim%u/", id);
	return realpath(path, real) && strstr(real, want);
}

/*
 * The name ("fwctlN") of the fwctl device of PF @pf of simulated device
 * @id in @name; or with @pf < 0 the number of fwctl devices of @id.
 * Returns 0 (or the count), or -ENOENT.
 */
static int fwctl_find(unsigned int id, int pf, char *name, size_t len)
{
	char path[PATH_MAX];
	struct dirent *e;
	int n = 0, ret = -ENOENT;
	uint64_t v;
	DIR *d;

	d = opendir(FWCTL_CLASS);
	if (!d)
		return -ENOENT;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "fwctl", 5))
			continue;
		snprintf(path, sizeof(path), FWCTL_CLASS "/%s/device", e->d_name);
		if (!below_sim(path, id))
			continue;
		n++;
		snprintf(path, sizeof(path), FWCTL_CLASS "/%s/device/pf", e->d_name);
		if (pf >= 0 && !read_u64(path, &v) && v == (uint64_t)pf) {
			snprintf(name, len, "%s", e->d_name);
			ret = 0;
		}
	}
	closedir(d);
	return pf < 0 ? n : ret;
}

/* An open file of the fwctl device of PF @pf of the test's device, or -errno. */
static int fw_open(int pf)
{
	char name[64], path[PATH_MAX];
	int fd;

	if (fwctl_find(SIM_ID, pf, name, sizeof(name)))
		return -ENOENT;
	snprintf(path, sizeof(path), "/dev/fwctl/%s", name);
	fd = open(path, O_RDWR | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* ---- ioctls and commands ------------------------------------------------- */

/* FWCTL_INFO: the device type and mlx5 data (@data_len bytes of it). */
static int fw_info(int fd, uint32_t *type, struct fwctl_info_mlx5 *data,
		   uint32_t *data_len)
{
	struct fwctl_info info = {
		.size = sizeof(info),
		.device_data_len = *data_len,
		.out_device_data = (uintptr_t)data,
	};

	if (ioctl(fd, FWCTL_INFO, &info))
		return -errno;
	*type = info.out_device_type;
	*data_len = info.device_data_len;
	return 0;
}

/* FWCTL_RPC: 0 with the output length in *@out_len, or -errno. */
static int rpc(int fd, uint32_t scope, const void *in, uint32_t in_len,
	       void *out, uint32_t *out_len)
{
	struct fwctl_rpc r = {
		.size = sizeof(r),
		.scope = scope,
		.in_len = in_len,
		.out_len = *out_len,
		.in = (uintptr_t)in,
		.out = (uintptr_t)out,
	};

	if (ioctl(fd, FWCTL_RPC, &r))
		return -errno;
	*out_len = r.out_len;
	return 0;
}

/* A field of a command box, signed: compares with any constant. */
static int64_t get(const void *box, __u32 fld)
{
	return nic_get(box, fld);
}

/* A command box: big enough for any command's input or output. */
struct box {
	uint8_t b[NIC_OUTBOX_SIZE];
};

static void *box_new(void)
{
	return calloc(1, sizeof(struct box));
}

/* QUERY_HCA_CAP of capability @type into @in (16 bytes). */
static void hca_cap_in(void *in, unsigned int type)
{
	memset(in, 0, NIC_HDR_IN_LEN);
	nic_set(in, NIC_HDR_OPCODE, NIC_OP_QUERY_HCA_CAP);
	nic_set(in, NIC_HDR_OP_MOD, type << 1 | NIC_CAP_CUR);
}

/* A 16-byte command of @opcode. */
static void hdr_in(void *in, unsigned int opcode)
{
	memset(in, 0, NIC_HDR_IN_LEN);
	nic_set(in, NIC_HDR_OPCODE, opcode);
}

/* SET_DIAGNOSTIC_PARAMS with no counters, counting off (mlx5ctl's "disable"). */
static uint32_t set_params_in(void *in)
{
	memset(in, 0, NIC_DIAG_PARAMS_LEN(0));
	nic_set(in, NIC_HDR_OPCODE, NIC_OP_SET_DIAGNOSTIC_PARAMS);
	return NIC_DIAG_PARAMS_LEN(0);
}

/* The general capability of PF @fd; 0, or -errno or the firmware status. */
static int general_cap(int fd, uint8_t *out)
{
	uint32_t len = NIC_CAP_OUT_LEN;
	uint8_t in[NIC_HDR_IN_LEN];
	int ret;

	hca_cap_in(in, NIC_CAP_GENERAL);
	ret = rpc(fd, FWCTL_RPC_CONFIGURATION, in, sizeof(in), out, &len);
	if (ret)
		return ret;
	if (len != NIC_CAP_OUT_LEN)
		return -EPROTO;
	return nic_get(out, NIC_HDR_STATUS);
}

static uint64_t tainted(void)
{
	uint64_t v = 0;

	read_u64("/proc/sys/kernel/tainted", &v);
	return v;
}

/* Count of simulated PF devices of @id bound to upmu_nic. */
static int bound_pfs(unsigned int id)
{
	char path[PATH_MAX];
	struct dirent *e;
	int n = 0;
	DIR *d;

	d = opendir(NIC_DRIVER);
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "upmu-nic-pf", 11))
			continue;
		snprintf(path, sizeof(path), NIC_DRIVER "/%s", e->d_name);
		n += below_sim(path, id);
	}
	closedir(d);
	return n;
}

/* ---- the fixture ---------------------------------------------------------- */

/*
 * Every test gets a fresh NIC with NIC_PFS PFs bound to upmu_nic; what
 * it leaves is deleted in the parent, after its files are closed.
 */
FIXTURE(nic) {
	int dummy;
};

FIXTURE_SETUP(nic)
{
	ASSERT_EQ(0, nic_load()) TH_LOG("cannot load upmu_nic from $UPMU_MODDIR");
	sim_del(SIM_ID);
	ASSERT_EQ(0, sim_new(SIM_ID, 1, NIC_OPTS));
}

FIXTURE_TEARDOWN_PARENT(nic)
{
	sim_del(SIM_ID);
}

/*
 * fwctl came with Linux 6.15: before, its tests skip; on a kernel that
 * has it, a missing one fails them.
 */
#define NEED_FWCTL() do {						\
		if (!have_fwctl() && kernel_at_least(6, 15))		\
			ASSERT_TRUE(have_fwctl()) TH_LOG("%s absent on a kernel that has fwctl", FWCTL_CLASS); \
		if (!have_fwctl())					\
			SKIP(return, "kernel without fwctl (%s absent)", FWCTL_CLASS); \
	} while (0)

/* An open file of PF @pf, or the test fails. */
#define FW_OPEN(pf) ({							\
	int _fd = fw_open(pf);						\
	ASSERT_LE(0, _fd) TH_LOG("PF %d: %s", pf, strerror(-_fd));	\
	_fd; })

/* On every kernel: the PFs bind, and say which PF of which NIC they are. */
TEST_F(nic, pfs_bound)
{
	char path[PATH_MAX], serial[2][32];
	struct dirent *e;
	bool seen[NIC_PFS] = {};
	uint64_t pf;
	DIR *d;

	ASSERT_EQ(NIC_PFS, bound_pfs(SIM_ID));
	d = opendir(NIC_DRIVER);
	ASSERT_NE(NULL, d);
	while ((e = readdir(d))) {
		snprintf(path, sizeof(path), NIC_DRIVER "/%s", e->d_name);
		if (strncmp(e->d_name, "upmu-nic-pf", 11) || !below_sim(path, SIM_ID))
			continue;
		snprintf(path, sizeof(path), NIC_DRIVER "/%s/pf", e->d_name);
		ASSERT_EQ(0, read_u64(path, &pf));
		ASSERT_GT((uint64_t)NIC_PFS, pf);
		EXPECT_FALSE(seen[pf]);
		seen[pf] = true;
		snprintf(path, sizeof(path), NIC_DRIVER "/%s/serial", e->d_name);
		ASSERT_EQ(0, read_str(path, serial[pf], sizeof(serial[pf])));
		EXPECT_EQ(8, (int)strlen(serial[pf])) TH_LOG("serial '%s'", serial[pf]);
	}
	closedir(d);
	ASSERT_TRUE(seen[0] && seen[1]);
	/* one NIC: the same serial on both PFs */
	EXPECT_STREQ(serial[0], serial[1]);
}

/* On every kernel: the driver goes and comes back with the NIC in place. */
TEST_F(nic, rebind)
{
	ASSERT_EQ(NIC_PFS, bound_pfs(SIM_ID));
	ASSERT_EQ(0, nic_unload());
	EXPECT_EQ(-ENOENT, bound_pfs(SIM_ID));
	ASSERT_EQ(0, nic_load());
	EXPECT_EQ(NIC_PFS, bound_pfs(SIM_ID));
}

/* One fwctl device per PF, /dev/fwctl/fwctlN included, gone with the NIC. */
TEST_F(nic, nodes_follow_device)
{
	char name[NIC_PFS][64], path[PATH_MAX];
	int pf;

	NEED_FWCTL();
	ASSERT_EQ(NIC_PFS, fwctl_find(SIM_ID, -1, NULL, 0));
	for (pf = 0; pf < NIC_PFS; pf++) {
		ASSERT_EQ(0, fwctl_find(SIM_ID, pf, name[pf], sizeof(name[pf])));
		snprintf(path, sizeof(path), "/dev/fwctl/%s", name[pf]);
		EXPECT_EQ(0, access(path, F_OK)) TH_LOG("%s: %s", path, strerror(errno));
	}
	EXPECT_STRNE(name[0], name[1]);

	ASSERT_EQ(0, sim_del(SIM_ID));
	EXPECT_EQ(0, fwctl_find(SIM_ID, -1, NULL, 0));
	for (pf = 0; pf < NIC_PFS; pf++) {
		snprintf(path, sizeof(path), "/dev/fwctl/%s", name[pf]);
		EXPECT_NE(0, access(path, F_OK)) TH_LOG("%s left behind", path);
		snprintf(path, sizeof(path), FWCTL_CLASS "/%s", name[pf]);
		EXPECT_NE(0, access(path, F_OK)) TH_LOG("%s left behind", path);
	}

	/* a NIC with 3 PFs: 3 devices */
	ASSERT_EQ(0, sim_new(SIM_ID, 1, "blocks=nic pfs=3"));
	EXPECT_EQ(3, fwctl_find(SIM_ID, -1, NULL, 0));
	EXPECT_EQ(0, fwctl_find(SIM_ID, 2, name[0], sizeof(name[0])));
}

/*
 * The nodes are root's, mode 0600 (devtmpfs; udev may say otherwise):
 * another user cannot open them.
 */
TEST_F(nic, node_permissions)
{
	char name[64], path[PATH_MAX];
	struct stat st;
	int status;
	pid_t pid;

	NEED_FWCTL();
	ASSERT_EQ(0, fwctl_find(SIM_ID, 0, name, sizeof(name)));
	snprintf(path, sizeof(path), "/dev/fwctl/%s", name);
	ASSERT_EQ(0, stat(path, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(0600, (int)(st.st_mode & 07777));
	EXPECT_EQ(0U, st.st_uid);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (setgid(65534) || setuid(65534))
			_exit(10);
		_exit(open(path, O_RDWR) < 0 && errno == EACCES ? 0 : 11);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("10: setuid failed, 11: not EACCES");
}

/* FWCTL_INFO: type MLX5, a non-zero uid of its own per file, TOOLS_RESOURCES. */
TEST_F(nic, info)
{
	struct fwctl_info_mlx5 d[3];
	uint32_t type, len;
	int fd[3], i;

	NEED_FWCTL();
	fd[0] = FW_OPEN(0);
	fd[1] = FW_OPEN(0);
	fd[2] = FW_OPEN(1);
	for (i = 0; i < 3; i++) {
		memset(&d[i], 0xa5, sizeof(d[i]));
		len = sizeof(d[i]);
		ASSERT_EQ(0, fw_info(fd[i], &type, &d[i], &len));
		EXPECT_EQ(FWCTL_DEVICE_TYPE_MLX5, (int)type);
		EXPECT_EQ(sizeof(d[i]), len);
		EXPECT_NE(0U, d[i].uid);
		EXPECT_EQ(NIC_UCTX_CAP_TOOLS_RESOURCES, (int)d[i].uctx_caps);
	}
	/* two files of one PF: two user contexts */
	EXPECT_NE(d[0].uid, d[1].uid);

	/* a short buffer gets what fits; the length says how much there is */
	memset(&d[2], 0xa5, sizeof(d[2]));
	len = 4;
	ASSERT_EQ(0, fw_info(fd[0], &type, &d[2], &len));
	EXPECT_EQ(sizeof(d[2]), len);
	EXPECT_EQ(d[0].uid, d[2].uid);
	EXPECT_EQ(0xa5a5a5a5U, d[2].uctx_caps);
	for (i = 0; i < 3; i++)
		close(fd[i]);
}

/* QUERY_HCA_CAP: the values the simulator defines, at any scope. */
TEST_F(nic, query_hca_cap)
{
	static const uint32_t scopes[] = {
		FWCTL_RPC_CONFIGURATION, FWCTL_RPC_DEBUG_READ_ONLY,
	};
	uint8_t in[NIC_HDR_IN_LEN], *cap;
	struct box *out = box_new();
	unsigned int i;
	uint32_t len;
	int fd;

	NEED_FWCTL();
	ASSERT_NE(NULL, out);
	fd = FW_OPEN(1);
	cap = out->b + NIC_HDR_OUT_LEN;
	for (i = 0; i < sizeof(scopes) / sizeof(scopes[0]); i++) {
		memset(out, 0xa5, sizeof(*out));
		len = sizeof(*out);	/* more than the output: the length says */
		hca_cap_in(in, NIC_CAP_GENERAL);
		ASSERT_EQ(0, rpc(fd, scopes[i], in, sizeof(in), out, &len));
		EXPECT_EQ(NIC_CAP_OUT_LEN, (int)len);
		EXPECT_EQ(NIC_STAT_OK, get(out, NIC_HDR_STATUS));
		EXPECT_EQ(0, get(out, NIC_HDR_SYNDROME));
		EXPECT_EQ(1, get(cap, NIC_HCA_CAP_DEBUG));
		EXPECT_EQ(NIC_NR_CNTRS, get(cap, NIC_HCA_CAP_NUM_DIAG_CNTRS));
		EXPECT_EQ(6, get(cap, NIC_HCA_CAP_LOG_MAX_UCTX));
		EXPECT_EQ(NIC_KHZ, get(cap, NIC_HCA_CAP_DEV_FREQ_KHZ));
		EXPECT_EQ(NIC_UCTX_CAP_TOOLS_RESOURCES,
			  get(cap, NIC_HCA_CAP_UCTX_CAP));
		/* nothing past the output was written */
		EXPECT_EQ(0xa5, out->b[NIC_CAP_OUT_LEN]);
	}

	len = sizeof(*out);
	hca_cap_in(in, NIC_CAP_DEBUG);
	ASSERT_EQ(0, rpc(fd, FWCTL_RPC_DEBUG_READ_ONLY, in, sizeof(in), out, &len));
	EXPECT_EQ(NIC_CAP_OUT_LEN, (int)len);
	EXPECT_EQ(NIC_STAT_OK, get(out, NIC_HDR_STATUS));
	EXPECT_EQ(NIC_LOG_SAMPLES, get(cap, NIC_DEBUG_CAP_LOG_MAX_SAMPLES));
	EXPECT_EQ(1, get(cap, NIC_DEBUG_CAP_SINGLE));
	EXPECT_EQ(1, get(cap, NIC_DEBUG_CAP_REPETITIVE));
	EXPECT_EQ(NIC_LOG_PERIOD, get(cap, NIC_DEBUG_CAP_LOG_MIN_PERIOD));
	EXPECT_NE(0, get(cap, NIC_DEBUG_CAP_CNTR_ID(0)));
	EXPECT_NE(0, get(cap, NIC_DEBUG_CAP_CNTR_ID(NIC_NR_CNTRS - 1)));
	EXPECT_EQ(0, get(cap, NIC_DEBUG_CAP_CNTR_ID(NIC_NR_CNTRS)));

	/* an output buffer just big enough, and one of odd length */
	len = NIC_CAP_OUT_LEN;
	hca_cap_in(in, NIC_CAP_GENERAL);
	ASSERT_EQ(0, rpc(fd, FWCTL_RPC_CONFIGURATION, in, sizeof(in), out, &len));
	EXPECT_EQ(NIC_STAT_OK, get(out, NIC_HDR_STATUS));
	len = NIC_CAP_OUT_LEN + 3;
	ASSERT_EQ(0, rpc(fd, FWCTL_RPC_CONFIGURATION, in, sizeof(in), out, &len));
	EXPECT_EQ(NIC_CAP_OUT_LEN, (int)len);
	EXPECT_EQ(NIC_KHZ, get(cap, NIC_HCA_CAP_DEV_FREQ_KHZ));
	close(fd);
	free(out);
}

/* Opcodes are refused with EBADMSG below the scope they need, or always. */
/* (scope_rules: the RPC goes through, the firmware says BAD_OP) */
#define BAD_OP	1

TEST_F(nic, scope_rules)
{
	static const struct {
		unsigned int opcode;
		uint32_t scope;
		int err;
	} cases[] = {
		{ NIC_OP_QUERY_ADAPTER, FWCTL_RPC_CONFIGURATION, 0 },
		{ NIC_OP_QUERY_DIAGNOSTIC_PARAMS, FWCTL_RPC_CONFIGURATION, -EBADMSG },
		{ NIC_OP_QUERY_DIAGNOSTIC_PARAMS, FWCTL_RPC_DEBUG_READ_ONLY, 0 },
		{ NIC_OP_QUERY_DIAGNOSTIC_COUNTERS, FWCTL_RPC_CONFIGURATION, -EBADMSG },
		{ NIC_OP_QUERY_DIAGNOSTIC_COUNTERS, FWCTL_RPC_DEBUG_READ_ONLY, 0 },
		{ NIC_OP_SET_DIAGNOSTIC_PARAMS, FWCTL_RPC_CONFIGURATION, -EBADMSG },
		{ NIC_OP_SET_DIAGNOSTIC_PARAMS, FWCTL_RPC_DEBUG_READ_ONLY, -EBADMSG },
		{ NIC_OP_EXT_QUERY_DATA_IDS, FWCTL_RPC_CONFIGURATION, -EBADMSG },
		{ NIC_OP_EXT_QUERY_DATA_IDS, FWCTL_RPC_DEBUG_READ_ONLY, 0 },
		{ NIC_OP_EXT_QUERY_STATE, FWCTL_RPC_CONFIGURATION, -EBADMSG },
		{ NIC_OP_EXT_QUERY_STATE, FWCTL_RPC_DEBUG_READ_ONLY, 0 },
		{ NIC_OP_EXT_QUERY_SAMPLES, FWCTL_RPC_CONFIGURATION, -EBADMSG },
		{ NIC_OP_EXT_QUERY_SAMPLES, FWCTL_RPC_DEBUG_READ_ONLY, 0 },
		{ NIC_OP_EXT_OWNERSHIP, FWCTL_RPC_DEBUG_READ_ONLY, -EBADMSG },
		{ NIC_OP_EXT_SET_CONFIG, FWCTL_RPC_DEBUG_READ_ONLY, -EBADMSG },
		{ NIC_OP_EXT_APPLY_IDS, FWCTL_RPC_DEBUG_READ_ONLY, -EBADMSG },
		{ NIC_OP_EXT_START, FWCTL_RPC_DEBUG_READ_ONLY, -EBADMSG },
		{ NIC_OP_EXT_STOP, FWCTL_RPC_DEBUG_READ_ONLY, -EBADMSG },
		{ NIC_OP_EXT_RESTART, FWCTL_RPC_DEBUG_READ_ONLY, -EBADMSG },
		{ NIC_OP_EXT_STOP, FWCTL_RPC_DEBUG_WRITE, 0 },
		{ NIC_OP_EXT_OWNERSHIP, FWCTL_RPC_DEBUG_WRITE, 0 },
		/*
		 * what upstream's mlx5_fwctl passes too: the firmware
		 * answers (BAD_OP here, for what it does not implement)
		 */
		{ 0x10a /* QUERY_ISSI */, FWCTL_RPC_CONFIGURATION, -EBADMSG },
		{ 0x10a, FWCTL_RPC_DEBUG_READ_ONLY, BAD_OP },
		{ 0x402 /* QUERY_CQ */, FWCTL_RPC_DEBUG_READ_ONLY, BAD_OP },
		{ 0x8006 /* QUERY_SCHED_QUEUE */, FWCTL_RPC_DEBUG_READ_ONLY, BAD_OP },
		{ 0x109 /* SET_HCA_CAP */, FWCTL_RPC_CONFIGURATION, BAD_OP },
		{ 0x805 /* ACCESS_REG, a write */, FWCTL_RPC_CONFIGURATION, BAD_OP },
		{ 0x805 | 1 << 16 /* a read */, FWCTL_RPC_CONFIGURATION, -EBADMSG },
		{ 0x805 | 1 << 16, FWCTL_RPC_DEBUG_READ_ONLY, BAD_OP },
		{ 0xb0c | 1 << 16 /* ACCESS_REGISTER_USER */, FWCTL_RPC_DEBUG_READ_ONLY, BAD_OP },
		/* objects nothing would free at close, and the unknown */
		{ 0x200 /* CREATE_MKEY */, FWCTL_RPC_DEBUG_WRITE, -EBADMSG },
		{ NIC_OP_CREATE_UCTX, FWCTL_RPC_DEBUG_READ_ONLY, -EBADMSG },
		{ NIC_OP_DESTROY_UCTX, FWCTL_RPC_DEBUG_READ_ONLY, -EBADMSG },
		{ 0x0000, FWCTL_RPC_DEBUG_READ_ONLY, -EBADMSG },
		{ 0x7777, FWCTL_RPC_DEBUG_READ_ONLY, -EBADMSG },
		{ 0xffff, FWCTL_RPC_DEBUG_READ_ONLY, -EBADMSG },
		/* a scope the core does not know */
		{ NIC_OP_QUERY_HCA_CAP, FWCTL_RPC_DEBUG_WRITE_FULL + 1, -EOPNOTSUPP },
	};
	struct box *in = box_new(), *out = box_new();
	uint32_t len, in_len;
	unsigned int i;
	int fd, ret;

	NEED_FWCTL();
	ASSERT_TRUE(in && out);
	fd = FW_OPEN(0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned int opcode = cases[i].opcode & 0xffff;
		int err = cases[i].err == BAD_OP ? 0 : cases[i].err;

		memset(in, 0, sizeof(*in));
		if (opcode == NIC_OP_QUERY_HCA_CAP)
			hca_cap_in(in, NIC_CAP_GENERAL);
		else
			hdr_in(in, opcode);
		if (cases[i].opcode >> 16)
			nic_set(in, NIC_HDR_OP_MOD, cases[i].opcode >> 16);
		in_len = opcode == NIC_OP_SET_DIAGNOSTIC_PARAMS ?
			 set_params_in(in) : 0x40;
		len = sizeof(*out);
		ret = rpc(fd, cases[i].scope, in, in_len, out, &len);
		EXPECT_EQ(err, ret)
			TH_LOG("opcode 0x%x scope %u: %s", cases[i].opcode,
			       cases[i].scope, strerror(-ret));
		if (!ret)
			EXPECT_LE(NIC_HDR_OUT_LEN, (int)len);
		if (!ret && cases[i].err == BAD_OP)
			EXPECT_EQ((uint32_t)NIC_STAT_BAD_OP, nic_get(out->b, NIC_HDR_STATUS))
				TH_LOG("opcode 0x%x", cases[i].opcode);
		/* the firmware answers it: the board ID (PSID) of this NIC */
		if (!ret && cases[i].opcode == NIC_OP_QUERY_ADAPTER) {
			EXPECT_EQ(0U, nic_get(out->b, NIC_HDR_STATUS));
			EXPECT_EQ((uint32_t)NIC_ADAPTER_OUT_LEN, len);
			EXPECT_EQ(0, strncmp((char *)out->b + NIC_ADAPTER_PSID, "UPM4E1C", 7));
		}
	}
	close(fd);
	free(in);
	free(out);
}

/*
 * DEBUG_WRITE reaches SET_DIAGNOSTIC_PARAMS and taints the kernel
 * (TAINT_FWCTL, which may be set already: it stays until reboot);
 * DEBUG_WRITE_FULL needs CAP_SYS_RAWIO.
 */
TEST_F(nic, debug_write)
{
	uint8_t in[NIC_DIAG_PARAMS_LEN(0)], out[NIC_HDR_OUT_LEN];
	uint32_t len, in_len;
	int fd, status;
	pid_t pid;

	NEED_FWCTL();
	fd = FW_OPEN(0);
	in_len = set_params_in(in);
	len = sizeof(out);
	ASSERT_EQ(0, rpc(fd, FWCTL_RPC_DEBUG_WRITE, in, in_len, out, &len));
	EXPECT_EQ(NIC_HDR_OUT_LEN, (int)len);
	EXPECT_NE(0ULL, tainted() & (1ULL << TAINT_FWCTL));

	/* with CAP_SYS_RAWIO (root): delivered */
	len = sizeof(out);
	EXPECT_EQ(0, rpc(fd, FWCTL_RPC_DEBUG_WRITE_FULL, in, in_len, out, &len));

	/* without it, in a child: EPERM; the lower scopes still work */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct __user_cap_header_struct h = {
			.version = _LINUX_CAPABILITY_VERSION_3,
		};
		struct __user_cap_data_struct c[_LINUX_CAPABILITY_U32S_3];
		int i = CAP_TO_INDEX(CAP_SYS_RAWIO);

		if (syscall(SYS_capget, &h, c))
			_exit(10);
		c[i].effective &= ~CAP_TO_MASK(CAP_SYS_RAWIO);
		c[i].permitted &= ~CAP_TO_MASK(CAP_SYS_RAWIO);
		if (syscall(SYS_capset, &h, c))
			_exit(11);
		len = sizeof(out);
		if (rpc(fd, FWCTL_RPC_DEBUG_WRITE_FULL, in, in_len, out, &len) != -EPERM)
			_exit(12);
		len = sizeof(out);
		if (rpc(fd, FWCTL_RPC_DEBUG_WRITE, in, in_len, out, &len))
			_exit(13);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("child: 10/11 capget/capset, 12 WRITE_FULL not EPERM, 13 WRITE failed");
	close(fd);
}

/* Buffers shorter than the headers, or longer than the mailbox: EMSGSIZE. */
TEST_F(nic, msgsize)
{
	struct box *in = box_new(), *out = box_new();
	uint32_t len;
	int fd;

	NEED_FWCTL();
	ASSERT_TRUE(in && out);
	fd = FW_OPEN(0);
	hca_cap_in(in, NIC_CAP_GENERAL);

	len = sizeof(*out);
	EXPECT_EQ(-EMSGSIZE, rpc(fd, FWCTL_RPC_CONFIGURATION, in, NIC_HDR_IN_LEN - 1,
				 out, &len));
	EXPECT_EQ(-EMSGSIZE, rpc(fd, FWCTL_RPC_CONFIGURATION, in, 0, out, &len));
	len = NIC_HDR_OUT_LEN - 1;
	EXPECT_EQ(-EMSGSIZE, rpc(fd, FWCTL_RPC_CONFIGURATION, in, NIC_HDR_IN_LEN,
				 out, &len));
	len = 0;
	EXPECT_EQ(-EMSGSIZE, rpc(fd, FWCTL_RPC_CONFIGURATION, in, NIC_HDR_IN_LEN,
				 out, &len));
	/* more input than the inbox takes cannot be delivered */
	len = sizeof(*out);
	EXPECT_EQ(-EMSGSIZE, rpc(fd, FWCTL_RPC_CONFIGURATION, in, NIC_INBOX_SIZE + 4,
				 out, &len));
	/* the core's own limit, 2 MiB */
	len = 3 << 20;
	EXPECT_EQ(-EMSGSIZE, rpc(fd, FWCTL_RPC_CONFIGURATION, in, NIC_HDR_IN_LEN,
				 out, &len));
	/* an input of odd length: its last bytes reach the inbox */
	len = sizeof(*out);
	EXPECT_EQ(0, rpc(fd, FWCTL_RPC_CONFIGURATION, in, NIC_HDR_IN_LEN + 3, out, &len));
	EXPECT_EQ(NIC_STAT_OK, get(out, NIC_HDR_STATUS));
	/* the largest input the inbox takes is delivered */
	len = sizeof(*out);
	EXPECT_EQ(0, rpc(fd, FWCTL_RPC_CONFIGURATION, in, NIC_INBOX_SIZE, out, &len));
	EXPECT_EQ(NIC_STAT_OK, get(out, NIC_HDR_STATUS));
	close(fd);
	free(in);
	free(out);
}

/* A command the firmware refuses is delivered: its status is in the outbox. */
TEST_F(nic, firmware_errors_in_outbox)
{
	uint8_t in[NIC_HDR_IN_LEN], out[NIC_HDR_OUT_LEN + 64];
	struct box *b = box_new();
	uint32_t len;
	int fd;

	NEED_FWCTL();
	ASSERT_NE(NULL, b);
	fd = FW_OPEN(0);

	/* a capability type the device does not have */
	hca_cap_in(in, 0x7);
	memset(b, 0xa5, sizeof(*b));
	len = sizeof(*b);
	ASSERT_EQ(0, rpc(fd, FWCTL_RPC_CONFIGURATION, in, sizeof(in), b, &len));
	EXPECT_EQ(NIC_HDR_OUT_LEN, (int)len);
	EXPECT_EQ(NIC_STAT_BAD_PARAM, get(b, NIC_HDR_STATUS));
	EXPECT_EQ(0xa5, b->b[NIC_HDR_OUT_LEN]);

	/* an outbox too small for the capability */
	hca_cap_in(in, NIC_CAP_GENERAL);
	len = sizeof(out);
	ASSERT_EQ(0, rpc(fd, FWCTL_RPC_CONFIGURATION, in, sizeof(in), out, &len));
	EXPECT_EQ(NIC_HDR_OUT_LEN, (int)len);
	EXPECT_EQ(NIC_STAT_BAD_OUTP_LEN, get(out, NIC_HDR_STATUS));

	/* and the file goes on working */
	EXPECT_EQ(NIC_STAT_OK, general_cap(fd, b->b));
	close(fd);
	free(b);
}

/*
 * The uid in the header is the file's whatever the caller wrote: a uid
 * the firmware does not know would fail the command (BAD_PARAM), and the
 * uid of another file is not taken either.
 */
TEST_F(nic, uid_forced)
{
	static const unsigned int uids[] = { 0, 0xffff, 0x1234 };
	struct fwctl_info_mlx5 d[2];
	struct box *out = box_new();
	uint8_t in[NIC_HDR_IN_LEN];
	uint32_t type, len;
	unsigned int i;
	int fd[2];

	NEED_FWCTL();
	ASSERT_NE(NULL, out);
	fd[0] = FW_OPEN(0);
	fd[1] = FW_OPEN(0);
	for (i = 0; i < 2; i++) {
		len = sizeof(d[i]);
		ASSERT_EQ(0, fw_info(fd[i], &type, &d[i], &len));
	}
	for (i = 0; i < sizeof(uids) / sizeof(uids[0]) + 1; i++) {
		hca_cap_in(in, NIC_CAP_GENERAL);
		/* the last one: the other file's uid */
		nic_set(in, NIC_HDR_UID, i < 3 ? uids[i] : d[1].uid);
		len = sizeof(*out);
		ASSERT_EQ(0, rpc(fd[0], FWCTL_RPC_CONFIGURATION, in, sizeof(in),
				 out, &len));
		EXPECT_EQ(NIC_STAT_OK, get(out, NIC_HDR_STATUS))
			TH_LOG("uid 0x%x in the header", nic_get(in, NIC_HDR_UID));
	}
	/* the other file's context is still there: closing fd[0] left it */
	close(fd[0]);
	EXPECT_EQ(NIC_STAT_OK, general_cap(fd[1], out->b));
	close(fd[1]);
	free(out);
}

/*
 * Closing a file destroys its firmware user context: far more files than
 * the firmware has contexts (2^log_max_uctx) open one after another, and
 * that many at once.  The open/close loop runs 3 (make check) or 30
 * (make soak) times the firmware's contexts, 2^6 on the simulator; the
 * time limit grows with UPMU_LOOPS_NIC_OPEN's count against that.
 */
#define NIC_OPEN_VAR	"UPMU_LOOPS_NIC_OPEN"
#define NIC_OPEN_CI	(3 << 6)
TEST_F_TIMEOUT(nic, uctx_freed_at_close,
	       upmu_loops_timeout(NIC_OPEN_VAR, NIC_OPEN_CI, 10 * NIC_OPEN_CI,
				  TEST_TIMEOUT_DEFAULT))
{
	struct box *out = box_new();
	int i, n, fd, *fds;
	unsigned int max;

	NEED_FWCTL();
	ASSERT_NE(NULL, out);
	fd = FW_OPEN(0);
	ASSERT_EQ(NIC_STAT_OK, general_cap(fd, out->b));
	close(fd);
	max = 1U << nic_get(out->b + NIC_HDR_OUT_LEN, NIC_HCA_CAP_LOG_MAX_UCTX);
	n = upmu_loops(NIC_OPEN_VAR, 3 * max, 30 * max);
	for (i = 0; i < n; i++) {
		fd = fw_open(1);
		ASSERT_LE(0, fd) TH_LOG("open %d of %d: %s", i, n, strerror(-fd));
		close(fd);
	}
	fds = calloc(max + 1, sizeof(*fds));
	ASSERT_NE(NULL, fds);
	for (i = 0; i < (int)max; i++) {
		fds[i] = fw_open(1);
		ASSERT_LE(0, fds[i]) TH_LOG("file %d of %u: %s", i, max, strerror(-fds[i]));
	}
	/* one more than the firmware has: the open fails, nothing else does */
	fds[max] = fw_open(1);
	EXPECT_GT(0, fds[max]);
	for (i = 0; i < (int)max; i++)
		close(fds[i]);
	fd = fw_open(1);
	EXPECT_LE(0, fd);
	close(fd);
	free(fds);
	free(out);
}

/* The counter_id of data ID @id, from the simulator's nic/counters, or 0. */
/*
 * The diagnostic counters end to end through fwctl, as a DOCA-like tool
 * uses them: SET_DIAGNOSTIC_PARAMS (on-demand, two counters) at
 * DEBUG_WRITE, traffic, QUERY_DIAGNOSTIC_COUNTERS and
 * QUERY_DIAGNOSTIC_PARAMS at DEBUG_READ_ONLY: the exact counts, from a
 * file of either PF (the engine is the NIC's).
 */
TEST_F(nic, diag_counters)
{
	uint32_t cid[2] = {
		nic_cid_of(SIM_ID, NIC_DID(NIC_DID_RX_BYTES, 1)),
		nic_cid_of(SIM_ID, NIC_DID(NIC_DID_RX_PACKETS, 1)),
	};
	uint8_t in[NIC_DIAG_PARAMS_LEN(2)], out[NIC_DIAG_REC(2)];
	uint32_t len;
	int fd[2], i;

	NEED_FWCTL();
	ASSERT_NE(0U, cid[0]);
	ASSERT_NE(0U, cid[1]);
	fd[0] = FW_OPEN(0);
	fd[1] = FW_OPEN(1);

	memset(in, 0, sizeof(in));
	nic_set(in, NIC_HDR_OPCODE, NIC_OP_SET_DIAGNOSTIC_PARAMS);
	nic_set(in, NIC_DIAG_NUM_CNTRS, 2);
	nic_set(in, NIC_DIAG_ON_DEMAND, 1);
	nic_set(in, NIC_DIAG_ENABLE, 1);
	nic_set(in, NIC_DIAG_LOG_PERIOD, NIC_LOG_PERIOD);
	for (i = 0; i < 2; i++)
		nic_set(in, NIC_DIAG_CNTR_ID(i), cid[i]);
	len = NIC_HDR_OUT_LEN;
	ASSERT_EQ(0, rpc(fd[0], FWCTL_RPC_DEBUG_WRITE, in, sizeof(in), out, &len));
	ASSERT_EQ(NIC_STAT_OK, get(out, NIC_HDR_STATUS))
		TH_LOG("syndrome 0x%x", nic_get(out, NIC_HDR_SYNDROME));

	ASSERT_EQ(0, sim_ctl(SIM_ID, "nic/inject", "ev=rx port=1 prio=3 size=1500 count=10"));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "nic/inject", "ev=rx port=0 prio=3 size=64 count=5"));

	for (i = 0; i < 2; i++) {
		memset(in, 0, NIC_DIAG_Q_IN_LEN);
		nic_set(in, NIC_HDR_OPCODE, NIC_OP_QUERY_DIAGNOSTIC_COUNTERS);
		nic_set(in, NIC_DIAG_Q_NUM_SAMPLES, 2);
		memset(out, 0xa5, sizeof(out));
		len = sizeof(out);
		ASSERT_EQ(0, rpc(fd[i], FWCTL_RPC_DEBUG_READ_ONLY, in,
				 NIC_DIAG_Q_IN_LEN, out, &len));
		ASSERT_EQ(NIC_STAT_OK, get(out, NIC_HDR_STATUS))
			TH_LOG("PF %d: syndrome 0x%x", i, nic_get(out, NIC_HDR_SYNDROME));
		EXPECT_EQ(NIC_DIAG_REC(2), (int)len);
		EXPECT_EQ(cid[0], nic_get(out + NIC_DIAG_REC(0), NIC_DIAG_REC_CNTR_ID));
		EXPECT_EQ(15000ULL, nic_get64(out + NIC_DIAG_REC(0), NIC_DIAG_REC_VALUE));
		EXPECT_EQ(cid[1], nic_get(out + NIC_DIAG_REC(1), NIC_DIAG_REC_CNTR_ID));
		EXPECT_EQ(10ULL, nic_get64(out + NIC_DIAG_REC(1), NIC_DIAG_REC_VALUE));
	}

	hdr_in(in, NIC_OP_QUERY_DIAGNOSTIC_PARAMS);
	len = sizeof(out);
	ASSERT_EQ(0, rpc(fd[1], FWCTL_RPC_DEBUG_READ_ONLY, in, NIC_HDR_IN_LEN,
			 out, &len));
	ASSERT_EQ(NIC_STAT_OK, get(out, NIC_HDR_STATUS));
	EXPECT_EQ(NIC_DIAG_PARAMS_LEN(2), (int)len);
	EXPECT_EQ(2, get(out, NIC_DIAG_NUM_CNTRS));
	EXPECT_EQ(1, get(out, NIC_DIAG_ON_DEMAND));
	EXPECT_EQ(1, get(out, NIC_DIAG_ENABLE));
	EXPECT_EQ(cid[1], nic_get(out, NIC_DIAG_CNTR_ID(1)));
	close(fd[0]);
	close(fd[1]);
}

/*
 * EXT_OWNERSHIP take (@force) or release through @fd: the firmware's
 * status, or -errno; the owner before it in *@prev (see owner_of()).
 */
static int own(int fd, unsigned int op_mod, bool force, long *prev)
{
	uint8_t in[NIC_HDR_IN_LEN] = {}, out[NIC_HDR_OUT_LEN];
	uint32_t len = sizeof(out);
	int ret;

	nic_set(in, NIC_HDR_OPCODE, NIC_OP_EXT_OWNERSHIP);
	nic_set(in, NIC_HDR_OP_MOD, op_mod);
	nic_set(in, NIC_EXT_OWN_FORCE, force);
	ret = rpc(fd, FWCTL_RPC_DEBUG_WRITE, in, sizeof(in), out, &len);
	if (ret)
		return ret;
	*prev = nic_get(out, NIC_EXT_OWN_PREV_VALID) ?
		(long)(nic_get(out, NIC_EXT_OWN_PREV_PF) << 16 |
		       nic_get(out, NIC_EXT_OWN_PREV_UID)) : -1;
	return nic_get(out, NIC_HDR_STATUS);
}

/* The engine's owner, PF << 16 | uid, or -1 for none; < -1: -errno - 1. */
static long owner_of(int fd)
{
	uint8_t in[NIC_HDR_IN_LEN], out[NIC_EXT_STATE_OUT_LEN];
	uint32_t len = sizeof(out);
	int ret;

	hdr_in(in, NIC_OP_EXT_QUERY_STATE);
	ret = rpc(fd, FWCTL_RPC_DEBUG_READ_ONLY, in, sizeof(in), out, &len);
	if (ret)
		return ret - 1;
	if (nic_get(out, NIC_HDR_STATUS))
		return -2;
	return nic_get(out, NIC_EXT_STATE_OWNED) ?
	       (long)(nic_get(out, NIC_EXT_STATE_OWNER_PF) << 16 |
		      nic_get(out, NIC_EXT_STATE_OWNER_UID)) : -1;
}

/* EXT_STOP through @fd with @uid in the header: the firmware's status. */
static int stop_as(int fd, unsigned int uid)
{
	uint8_t in[NIC_HDR_IN_LEN], out[NIC_HDR_OUT_LEN];
	uint32_t len = sizeof(out);
	int ret;

	hdr_in(in, NIC_OP_EXT_STOP);
	nic_set(in, NIC_HDR_UID, uid);
	ret = rpc(fd, FWCTL_RPC_DEBUG_WRITE, in, sizeof(in), out, &len);
	return ret ? ret : (int)nic_get(out, NIC_HDR_STATUS);
}

static uint32_t uid_of(int fd)
{
	struct fwctl_info_mlx5 d = {};
	uint32_t type, len = sizeof(d);

	return fw_info(fd, &type, &d, &len) ? 0 : d.uid;
}

/*
 * The engine's ownership (the extension's EXT_OWNERSHIP) is a uid's, so
 * a file's: one owner per NIC through either PF, force takes it over,
 * the uid in a header cannot borrow the owner's, and closing the owner's
 * file (or its process dying) frees the engine, as DESTROY_UCTX does.
 */
TEST_F(nic, ownership)
{
	uint8_t in[NIC_HDR_IN_LEN], out[NIC_EXT_STATE_OUT_LEN];
	uint32_t uid[3], len;
	int fd[3], i, status, pipefd[2];
	long prev;
	pid_t pid;
	char c;

	NEED_FWCTL();
	fd[0] = FW_OPEN(0);	/* A */
	fd[1] = FW_OPEN(1);	/* B, on the other PF */
	fd[2] = FW_OPEN(0);	/* C, A's PF */
	for (i = 0; i < 3; i++) {
		ASSERT_NE(0U, uid[i] = uid_of(fd[i]));
	}

	/* scopes: taking ownership writes, the state is a query */
	hdr_in(in, NIC_OP_EXT_OWNERSHIP);
	len = sizeof(out);
	EXPECT_EQ(-EBADMSG, rpc(fd[0], FWCTL_RPC_DEBUG_READ_ONLY, in, sizeof(in),
				out, &len));
	hdr_in(in, NIC_OP_EXT_QUERY_STATE);
	EXPECT_EQ(-EBADMSG, rpc(fd[0], FWCTL_RPC_CONFIGURATION, in, sizeof(in),
				out, &len));
	EXPECT_EQ(-1, owner_of(fd[0]));

	ASSERT_EQ(NIC_STAT_OK, own(fd[0], NIC_OWN_TAKE, false, &prev));
	EXPECT_EQ(-1, prev);
	EXPECT_EQ((long)uid[0], owner_of(fd[1]));
	/* B (other PF) and C (same PF) are refused, told who owns it */
	EXPECT_EQ(NIC_STAT_RES_BUSY, own(fd[1], NIC_OWN_TAKE, false, &prev));
	EXPECT_EQ((long)uid[0], prev);
	EXPECT_EQ(NIC_STAT_RES_BUSY, own(fd[2], NIC_OWN_TAKE, false, &prev));

	/*
	 * B writes A's uid into the header: it still runs as B, whom the
	 * engine refuses (RES_BUSY); as A it would be told the engine is
	 * idle (BAD_SYS_STATE), as A itself is.
	 */
	EXPECT_EQ(NIC_STAT_RES_BUSY, stop_as(fd[1], uid[0]));
	EXPECT_EQ(NIC_STAT_BAD_SYS_STATE, stop_as(fd[0], 0));

	/* force: B takes over; A is refused from then on */
	ASSERT_EQ(NIC_STAT_OK, own(fd[1], NIC_OWN_TAKE, true, &prev));
	EXPECT_EQ((long)uid[0], prev);
	EXPECT_EQ(1L << 16 | uid[1], owner_of(fd[0]));
	EXPECT_EQ(NIC_STAT_RES_BUSY, stop_as(fd[0], uid[1]));

	/* closing the owner's file frees the engine */
	close(fd[1]);
	EXPECT_EQ(-1, owner_of(fd[0]));

	/* a process that dies holding it frees it too */
	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int f = fw_open(1);

		if (f < 0 || own(f, NIC_OWN_TAKE, false, &prev))
			_exit(1);
		if (write(pipefd[1], "", 1) != 1)
			_exit(2);
		pause();
		_exit(3);
	}
	ASSERT_EQ(1, read(pipefd[0], &c, 1));
	EXPECT_EQ(1, (int)(owner_of(fd[0]) >> 16));
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(-1, owner_of(fd[0]));

	/* release, and C can take it */
	ASSERT_EQ(NIC_STAT_OK, own(fd[0], NIC_OWN_TAKE, false, &prev));
	EXPECT_EQ(NIC_STAT_OK, own(fd[0], NIC_OWN_RELEASE, false, &prev));
	EXPECT_EQ(NIC_STAT_OK, own(fd[2], NIC_OWN_TAKE, false, &prev));
	EXPECT_EQ(-1, prev);
	close(fd[0]);
	close(fd[2]);
}

/*
 * Random RPCs: opcodes allowed and not, every scope, lengths around the
 * headers and the mailbox, random contents.  Each is refused with an
 * errno of the table in upmu-nic-fwctl.rst or delivered with at least an
 * output header; afterwards the file works as before.
 */
#define NIC_FUZZ_LOOPS	"UPMU_LOOPS_NIC_FUZZ", 5000, 100000
TEST_F_TIMEOUT(nic, random_rpcs,
	       upmu_loops_timeout(NIC_FUZZ_LOOPS, TEST_TIMEOUT_DEFAULT))
{
	static const unsigned int ops[] = {
		NIC_OP_QUERY_HCA_CAP, NIC_OP_QUERY_ADAPTER,
		NIC_OP_QUERY_DIAGNOSTIC_PARAMS, NIC_OP_SET_DIAGNOSTIC_PARAMS,
		NIC_OP_QUERY_DIAGNOSTIC_COUNTERS, NIC_OP_CREATE_UCTX,
		NIC_OP_DESTROY_UCTX, NIC_OP_EXT_QUERY_DATA_IDS,
		NIC_OP_EXT_OWNERSHIP, NIC_OP_EXT_SET_CONFIG,
		NIC_OP_EXT_APPLY_IDS, NIC_OP_EXT_START, NIC_OP_EXT_STOP,
		NIC_OP_EXT_RESTART, NIC_OP_EXT_QUERY_STATE,
		NIC_OP_EXT_QUERY_SAMPLES,
	};
	unsigned long n = upmu_loops(NIC_FUZZ_LOOPS), i;
	uint8_t *in = calloc(2, NIC_OUTBOX_SIZE), *out = calloc(2, NIC_OUTBOX_SIZE);
	const char *env = getenv("UPMU_NIC_FUZZ_SEED");
	unsigned int seed = env ? strtoul(env, NULL, 0) : (unsigned long)time(NULL);
	unsigned int delivered = 0, refused = 0;
	struct fwctl_info_mlx5 d, d2;
	uint32_t type, len, in_len, scope;
	int fd, ret;

	NEED_FWCTL();
	ASSERT_TRUE(in && out);
	TH_LOG("seed %u (UPMU_NIC_FUZZ_SEED), %lu RPCs", seed, n);
	srand(seed);
	fd = FW_OPEN(0);
	len = sizeof(d);
	ASSERT_EQ(0, fw_info(fd, &type, &d, &len));
	for (i = 0; i < n; i++) {
		switch (rand() % 3) {
		case 0:
			in_len = rand() % 40;
			break;
		case 1:
			in_len = NIC_INBOX_SIZE - 8 + rand() % 16;
			break;
		default:
			in_len = rand() % (NIC_INBOX_SIZE + 64);
		}
		switch (rand() % 3) {
		case 0:
			len = rand() % 40;
			break;
		case 1:
			len = NIC_OUTBOX_SIZE - 8 + rand() % 16;
			break;
		default:
			len = rand() % (2 * NIC_OUTBOX_SIZE);
		}
		for (ret = 0; ret < (int)in_len && ret < 256; ret++)
			in[ret] = rand();
		if (in_len >= 4)
			nic_set(in, NIC_HDR_OPCODE, rand() % 4 ?
				ops[rand() % (sizeof(ops) / sizeof(ops[0]))] : (unsigned int)rand());
		scope = rand() % 5;
		ret = rpc(fd, scope, in, in_len, out, &len);
		if (!ret) {
			delivered++;
			ASSERT_LE(NIC_HDR_OUT_LEN, (int)len) TH_LOG("RPC %lu", i);
			continue;
		}
		refused++;
		ASSERT_TRUE(ret == -EMSGSIZE || ret == -EBADMSG || ret == -EOPNOTSUPP)
			TH_LOG("RPC %lu: opcode 0x%x scope %u in %u out %u: %s", i,
			       in_len >= 4 ? nic_get(in, NIC_HDR_OPCODE) : 0, scope,
			       in_len, len, strerror(-ret));
	}
	TH_LOG("%u delivered, %u refused", delivered, refused);
	EXPECT_NE(0U, delivered);
	len = sizeof(d2);
	ASSERT_EQ(0, fw_info(fd, &type, &d2, &len));
	EXPECT_EQ(d.uid, d2.uid);
	EXPECT_EQ(NIC_STAT_OK, general_cap(fd, out));
	close(fd);
	free(in);
	free(out);
}

/* Files of both PFs at once, from several processes: each gets its own answers. */
#define NIC_RPC_LOOPS	"UPMU_LOOPS_NIC_RPC", 50, 2000
TEST_F_TIMEOUT(nic, concurrent_rpcs,
	       upmu_loops_timeout(NIC_RPC_LOOPS, TEST_TIMEOUT_DEFAULT))
{
	int n = upmu_loops(NIC_RPC_LOOPS), i, status, bad = 0;
	pid_t pid[6];

	NEED_FWCTL();
	for (i = 0; i < 6; i++) {
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (!pid[i]) {
			struct box *out = box_new();
			int fd = fw_open(i % NIC_PFS), k;

			if (fd < 0 || !out)
				_exit(1);
			for (k = 0; k < n; k++) {
				memset(out, 0, NIC_CAP_OUT_LEN);
				if (general_cap(fd, out->b) ||
				    get(out->b + NIC_HDR_OUT_LEN,
					    NIC_HCA_CAP_DEV_FREQ_KHZ) != NIC_KHZ)
					_exit(2);
			}
			_exit(0);
		}
	}
	for (i = 0; i < 6; i++) {
		ASSERT_EQ(pid[i], waitpid(pid[i], &status, 0));
		bad += !WIFEXITED(status) || WEXITSTATUS(status);
	}
	EXPECT_EQ(0, bad);
}

/* nic/cmd_fault's first line, "0 none" */
static void fault_state(char *buf, size_t len)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), SIM_DEBUGFS "/%u/nic/cmd_fault", SIM_ID);
	buf[0] = 0;
	f = fopen(path, "r");
	if (!f)
		return;
	if (!fgets(buf, len, f))
		buf[0] = 0;
	buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

/*
 * A mailbox that does not answer or does not deliver: the errnos of
 * Documentation/upmu-nic-fwctl.rst, and the PF works again afterwards.
 */
TEST_F(nic, mailbox_faults)
{
	struct box *out = box_new();
	char state[64];
	int fd, fd1;

	NEED_FWCTL();
	ASSERT_NE(NULL, out);
	fd = FW_OPEN(0);
	fd1 = FW_OPEN(1);
	ASSERT_EQ(0, general_cap(fd, out->b));

	/* a command that stays busy: ETIMEDOUT after the driver's 2 s */
	ASSERT_EQ(0, sim_ctl(SIM_ID, "nic/cmd_fault", "0 hang"));
	EXPECT_EQ(-ETIMEDOUT, general_cap(fd, out->b));
	fault_state(state, sizeof(state));
	EXPECT_STREQ("0 held", state);
	/* the mailbox is still the late command's: EBUSY, at once */
	EXPECT_EQ(-EBUSY, general_cap(fd, out->b));
	/* the other PF's mailbox is its own */
	EXPECT_EQ(0, general_cap(fd1, out->b));
	EXPECT_EQ(-EBUSY, sim_ctl(SIM_ID, "nic/cmd_fault", "0 short"));
	/* the late command completes: the PF works again */
	ASSERT_EQ(0, sim_ctl(SIM_ID, "nic/cmd_fault", "0 release"));
	EXPECT_EQ(0, general_cap(fd, out->b));
	EXPECT_EQ(-EINVAL, sim_ctl(SIM_ID, "nic/cmd_fault", "0 release"));

	/* not delivered: firmware error, a length refused, unknown status */
	ASSERT_EQ(0, sim_ctl(SIM_ID, "nic/cmd_fault", "0 delivery=6"));
	fault_state(state, sizeof(state));
	EXPECT_STREQ("0 delivery=6", state);
	EXPECT_EQ(-EIO, general_cap(fd, out->b));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "nic/cmd_fault", "0 delivery=8"));
	EXPECT_EQ(-EMSGSIZE, general_cap(fd, out->b));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "nic/cmd_fault", "0 delivery=0x11"));
	EXPECT_EQ(-EPROTO, general_cap(fd, out->b));
	/* delivered, but an output without its header */
	ASSERT_EQ(0, sim_ctl(SIM_ID, "nic/cmd_fault", "0 short"));
	EXPECT_EQ(-EPROTO, general_cap(fd, out->b));
	/* each fault was for one command */
	EXPECT_EQ(0, general_cap(fd, out->b));
	fault_state(state, sizeof(state));
	EXPECT_STREQ("0 none", state);

	/* what the knob refuses */
	EXPECT_EQ(-EINVAL, sim_ctl(SIM_ID, "nic/cmd_fault", "%u hang", NIC_PFS));
	EXPECT_EQ(-EINVAL, sim_ctl(SIM_ID, "nic/cmd_fault", "0 delivery=0"));
	EXPECT_EQ(-EINVAL, sim_ctl(SIM_ID, "nic/cmd_fault", "0 delivery=256"));
	EXPECT_EQ(-EINVAL, sim_ctl(SIM_ID, "nic/cmd_fault", "0 sideways"));
	EXPECT_EQ(-EINVAL, sim_ctl(SIM_ID, "nic/cmd_fault", "hang"));
	close(fd);
	close(fd1);
	free(out);
}

#define CMD_TIMEOUT_MS	"/sys/module/upmu_nic/parameters/cmd_timeout_ms"
/* NIC_SERIAL_BASE + SIM_ID: the NIC's PMU, through PF 0 */
#define NIC_PMU		"upmu_nic_4e1c0015"

/* PF @pf's counter @file (cmd_timeouts, cmd_late), or ~0 */
static uint64_t pf_health(int pf, const char *file)
{
	char name[64], path[PATH_MAX];
	uint64_t v = ~0ULL;

	if (!fwctl_find(SIM_ID, pf, name, sizeof(name))) {
		snprintf(path, sizeof(path), FWCTL_CLASS "/%s/device/%s", name, file);
		read_u64(path, &v);
	}
	return v;
}

/*
 * A command that times out is a health event of its PF (cmd_timeouts);
 * when the firmware completes it later after all, the next command first
 * undoes what it did (cmd_late), since its caller was told it failed: a
 * user context of a late CREATE_UCTX (64 would exhaust the PF: no file
 * could open), the engine's ownership of a late TAKE (held by nobody who
 * knows, the engine would be locked to every fwctl user).  The driver's
 * command timeout is made 20 ms for this.
 */
TEST_F_TIMEOUT(nic, late_completions_undone, 300)
{
	uint64_t t0 = pf_health(0, "cmd_timeouts"), l0 = pf_health(0, "cmd_late");
	char old[32];
	long prev;
	int i, fd;

	NEED_FWCTL();
	ASSERT_EQ(0, read_str(CMD_TIMEOUT_MS, old, sizeof(old)));
	ASSERT_EQ(0, write_str(CMD_TIMEOUT_MS, "20"));
	for (i = 0; i < 64; i++) {
		ASSERT_EQ(0, sim_ctl(SIM_ID, "nic/cmd_fault", "0 hang"));
		fd = fw_open(0);
		EXPECT_EQ(-ETIMEDOUT, fd) TH_LOG("open %d", i);
		if (fd >= 0)
			close(fd);
		/* the firmware makes the user context, late */
		ASSERT_EQ(0, sim_ctl(SIM_ID, "nic/cmd_fault", "0 release"));
	}
	fd = fw_open(0);
	EXPECT_LE(0, fd) TH_LOG("after 64 late user contexts: %d", fd);
	EXPECT_EQ(64ULL, pf_health(0, "cmd_timeouts") - t0);
	EXPECT_EQ(64ULL, pf_health(0, "cmd_late") - l0);

	/* the kernel's TAKE, for a perf event of the NIC's PMU, late */
	ASSERT_EQ(0, sim_ctl(SIM_ID, "nic/cmd_fault", "0 hang"));
	EXPECT_EQ(-ETIMEDOUT, pmu_open(NIC_PMU, "port_rx_bytes,port=0", -1));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "nic/cmd_fault", "0 release"));
	/* a fwctl user takes the engine: nobody holds it */
	if (fd >= 0) {
		EXPECT_EQ(0, own(fd, NIC_OWN_TAKE, false, &prev));
		EXPECT_EQ(-1, prev);
		EXPECT_EQ(0, own(fd, NIC_OWN_RELEASE, false, &prev));
		close(fd);
	}
	EXPECT_EQ(65ULL, pf_health(0, "cmd_timeouts") - t0);
	EXPECT_EQ(65ULL, pf_health(0, "cmd_late") - l0);
	EXPECT_EQ(0, write_str(CMD_TIMEOUT_MS, old));
}

/*
 * del_device with files open: afterwards every ioctl is ENODEV, closing
 * is fine; RPCs running while the NIC goes end cleanly.
 */
TEST_F(nic, del_device_with_files_open)
{
	struct fwctl_info_mlx5 d;
	struct box *out = box_new();
	uint32_t type, len;
	int fd[2], i, status, bad = 0, ready[2];
	pid_t pid[4];
	char c;

	NEED_FWCTL();
	ASSERT_NE(NULL, out);
	ASSERT_EQ(0, pipe(ready));
	fd[0] = FW_OPEN(0);
	fd[1] = FW_OPEN(1);
	/* children send RPCs until the device goes */
	for (i = 0; i < 4; i++) {
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (!pid[i]) {
			int f = fw_open(i % NIC_PFS), ret, k;

			if (f < 0 || general_cap(f, out->b) || write(ready[1], "", 1) != 1)
				_exit(1);
			for (k = 0; k < 1000000; k++) {
				ret = general_cap(f, out->b);
				if (ret == -ENODEV)
					_exit(0);
				if (ret)
					_exit(2);
			}
			_exit(3);
		}
	}
	/* each has its file open and an RPC done */
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(1, read(ready[0], &c, 1));
	}
	close(ready[0]);
	close(ready[1]);
	ASSERT_EQ(0, sim_del(SIM_ID));
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(pid[i], waitpid(pid[i], &status, 0));
		bad += !WIFEXITED(status) || WEXITSTATUS(status);
	}
	EXPECT_EQ(0, bad) TH_LOG("an RPC failed otherwise than with ENODEV");

	for (i = 0; i < 2; i++) {
		len = sizeof(d);
		EXPECT_EQ(-ENODEV, fw_info(fd[i], &type, &d, &len));
		EXPECT_EQ(-ENODEV, general_cap(fd[i], out->b));
		EXPECT_EQ(0, close(fd[i]));
	}
	EXPECT_EQ(0, fwctl_find(SIM_ID, -1, NULL, 0));
	free(out);
}

/*
 * rmmod upmu_nic with files open: allowed (the fwctl core owns the
 * files), ENODEV afterwards; loaded again, the PFs get fwctl devices
 * whose firmware contexts are all free: unloading destroyed the ones of
 * the open files.
 */
TEST_F(nic, unload_with_files_open)
{
	struct fwctl_info_mlx5 d;
	struct box *out = box_new();
	int fd, i, *fds;
	uint32_t type, len;
	unsigned int max;
	long prev;

	NEED_FWCTL();
	ASSERT_NE(NULL, out);
	fd = FW_OPEN(0);
	ASSERT_EQ(NIC_STAT_OK, general_cap(fd, out->b));
	max = 1U << nic_get(out->b + NIC_HDR_OUT_LEN, NIC_HCA_CAP_LOG_MAX_UCTX);
	fds = calloc(max, sizeof(*fds));
	ASSERT_NE(NULL, fds);
	/* the engine owned through PF 0 */
	ASSERT_EQ(NIC_STAT_OK, own(fd, NIC_OWN_TAKE, false, &prev));
	/* every context of PF 1 taken */
	for (i = 0; i < (int)max; i++) {
		fds[i] = fw_open(1);
		ASSERT_LE(0, fds[i]) TH_LOG("file %d: %s", i, strerror(-fds[i]));
	}

	ASSERT_EQ(0, nic_unload()) TH_LOG("rmmod upmu_nic: %s", strerror(errno));
	EXPECT_FALSE(nic_loaded());
	EXPECT_EQ(0, fwctl_find(SIM_ID, -1, NULL, 0));
	len = sizeof(d);
	EXPECT_EQ(-ENODEV, fw_info(fd, &type, &d, &len));
	EXPECT_EQ(-ENODEV, general_cap(fd, out->b));
	EXPECT_EQ(-ENODEV, general_cap(fds[0], out->b));

	ASSERT_EQ(0, nic_load());
	EXPECT_EQ(NIC_PFS, fwctl_find(SIM_ID, -1, NULL, 0));
	/* the old files stay dead; the new driver's contexts are all free */
	EXPECT_EQ(-ENODEV, general_cap(fd, out->b));
	for (i = 0; i < (int)max; i++)
		close(fds[i]);
	for (i = 0; i < (int)max; i++) {
		fds[i] = fw_open(1);
		EXPECT_LE(0, fds[i]) TH_LOG("new file %d: %s", i, strerror(-fds[i]));
	}
	for (i = 0; i < (int)max; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	close(fd);
	fd = FW_OPEN(0);
	EXPECT_EQ(NIC_STAT_OK, general_cap(fd, out->b));
	/* and the engine is nobody's */
	EXPECT_EQ(-1, owner_of(fd));
	close(fd);
	free(fds);
	free(out);
}

TEST_HARNESS_MAIN
