// SPDX-License-Identifier: GPL-2.0
/*
 * BPF programs of bpf_read_test: read a upmu event with
 * bpf_perf_event_read_value(), the way a BPF user with CAP_BPF and
 * CAP_PERFMON would, from where a read lands in the middle of the PMU
 * driver:
 *
 * - on_field, on a kprobe on upmu_field(), which the upmu core and its
 *   families call with a box's lock held (event_init, add, start);
 * - on_tick, on a sampling cpu-clock event of every CPU (hard irq),
 *   while perf stat and the test read the same event.
 *
 * Each reads events[this CPU] (the test puts there the event of the
 * CPU's socket) and keeps what it saw in stats[prog * MAX_CPUS + CPU].
 */
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <bpf/bpf_helpers.h>

#define MAX_CPUS	64

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
	__uint(max_entries, MAX_CPUS);
} events SEC(".maps");

/* Keep in step with struct read_stats in bpf_read_test.c. */
struct read_stats {
	__u64 calls;		/* runs of the program */
	__u64 reads;		/* reads that gave a value */
	__u64 errors;		/* reads that failed */
	__u64 last_err;		/* -errno of the last of them */
	__u64 min;		/* smallest value read (~0 before any) */
	__u64 max;		/* largest */
	__u64 last;		/* the last one */
	__u64 backwards;	/* values below the one read before */
	__u64 offgrid;		/* values not a multiple of grid[0] */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2 * MAX_CPUS);
	__type(key, __u32);
	__type(value, struct read_stats);
} stats SEC(".maps");

/* grid[0]: every value read must be a multiple of it (0: no check) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} grid SEC(".maps");

static __always_inline void read_event(__u32 prog)
{
	__u32 cpu = bpf_get_smp_processor_id(), key = 0;
	__u32 slot = prog * MAX_CPUS + cpu;
	struct bpf_perf_event_value v = {};
	struct read_stats *st;
	__u64 *g;
	long err;

	if (cpu >= MAX_CPUS)
		return;
	st = bpf_map_lookup_elem(&stats, &slot);
	g = bpf_map_lookup_elem(&grid, &key);
	if (!st || !g)
		return;
	st->calls++;
	err = bpf_perf_event_read_value(&events, BPF_F_CURRENT_CPU, &v,
					sizeof(v));
	if (err) {
		st->errors++;
		st->last_err = -err;
		return;
	}
	st->reads++;
	if (v.counter < st->last)
		st->backwards++;
	if (*g && v.counter % *g)
		st->offgrid++;
	st->last = v.counter;
	if (v.counter < st->min)
		st->min = v.counter;
	if (v.counter > st->max)
		st->max = v.counter;
}

SEC("kprobe/upmu_field")
int on_field(struct pt_regs *ctx)
{
	read_event(0);
	return 0;
}

SEC("perf_event")
int on_tick(struct bpf_perf_event_data *ctx)
{
	read_event(1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
