# SPDX-License-Identifier: GPL-2.0
# The simulator's traffic model (Documentation/upmu-sim.rst) applied to the
# flows a simulated device runs: how much one perf event counts per second.
# Input: the device's debugfs "flows" file, one flow a line
#   id=N socket=S op=OP size=B src=SRC dst=DST hit=H lat=NS rate=R ... [rc=R rp=P bdf=0xB] [gpu=G]
# and/or a NIC's "nic/flows" file (Documentation/upmu-nic.rst), one a line
#   id=N ev=EV a=PORT|HOST|LINK b=PRIO|STALL_KIND func=FUNC|TCLASS size=B|NS rate=R events=N
# Variables (awk -v):
#   clk      the device's clock_mhz
#   sockets  the device's sockets (Ice Lake-X: whose memory dst=rem is)
#   queries  one event a line: "PMU EVENT TERMS GPUS"
#     PMU    nvidia_ucf_pmu_S, nvidia_cmem_latency_pmu_S,
#            nvidia_pcie_pmu_S_rc_R, nvidia_nvlink_c2c_pmu_S (with GPUs),
#            upmu_nic_SERIAL (the NIC's flows), or an Ice Lake-X's
#            uncore_cha, uncore_imc, uncore_iio: every box of the kind
#            (what perf adds up), its events perf's JSON names
#            (driver/sim/sim_icx.c, sim_icx_mem.c)
#     EVENT  event name (the PMU's sysfs events/ name)
#     TERMS  the event's other perf terms, "key=value,..." (filters; the
#            NIC's data-ID parameters port, prio, host, link, tclass,
#            func, 0 when not given; Ice Lake-X: socket=S, the boxes
#            of socket S only, and for uncore_iio bdf=B, the device's
#            transactions only), or "-"
#     GPUS   the number of GPUs (NVLink-C2C: its peer file), else 0
# Output, one line a query: "TOTAL<TAB>ID:COUNT ..." (count per second in
# all, then per flow that contributes).  What the model does not cover
# (another PMU, event or filter) gives "?<TAB>reason".
function fail(why) { if (!bad) printf "?\t%s\n", why; bad = 1 }
function num(s,   n, i, c) {
	if (s !~ /^0[xX]/)
		return s + 0
	n = 0
	s = tolower(substr(s, 3))
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1))
		if (!c)
			{ fail("bad number " s); return -1 }
		n = n * 16 + c - 1
	}
	return n
}
function bit(v, b) { return int(v / 2 ^ b) % 2 }
function ceil(x) { return x == int(x) ? x : int(x) + 1 }

# setup(PMU, EVENT, TERMS, GPUS): the query's PMU kind, socket, RC, filters
function setup(pmu, ev, terms, gpus,   n, p, nt, t, i, k, v) {
	bad = 0; cycles = 0; srcset = 0; dstset = 0; split("", f)
	event = ev
	if (pmu ~ /^nvidia_ucf_pmu_[0-9]+$/) kind = "ucf"
	else if (pmu ~ /^nvidia_cmem_latency_pmu_[0-9]+$/) kind = "cmem"
	else if (pmu ~ /^nvidia_pcie_pmu_[0-9]+_rc_[0-9]+$/) kind = "pcie"
	else if (pmu ~ /^nvidia_nvlink_c2c_pmu_[0-9]+$/ && gpus > 0) kind = "c2c"
	else if (pmu ~ /^upmu_nic_[0-9a-f]+$/) kind = "nic"
	else if (pmu ~ /^uncore_(cha|imc|iio)$/) kind = substr(pmu, 8)
	else fail("no model for PMU " pmu)
	if (kind == "nic")	# a parameter not given is 0, as in perf's config
		f["port"] = f["prio"] = f["host"] = f["link"] = f["tclass"] = f["func"] = 0
	n = split(pmu, p, "_")
	if (kind == "pcie") {
		socket = p[n - 2]; rc = p[n]
	} else {
		socket = p[n]
	}
	# filters: every term must be one the PMU's model knows
	nt = split(terms, t, ",")
	for (i = 1; i <= nt; i++) {
		if (t[i] == "")
			continue
		k = t[i]; v = 1
		if (index(k, "=")) { v = num(substr(k, index(k, "=") + 1)); k = substr(k, 1, index(k, "=") - 1) }
		if (kind == "ucf" && k ~ /^(src_loc_cpu|src_loc_noncpu|src_rem|dst_loc_cmem|dst_loc_gmem|dst_loc_other|dst_rem)$/) {
			f[k] = v
			if (v && k ~ /^src_/) srcset = 1
			if (v && k ~ /^dst_/) dstset = 1
		} else if (kind == "pcie" && k ~ /^(src_rp_mask|src_bdf|src_bdf_en|dst_loc_cmem|dst_loc_gmem|dst_loc_pcie_p2p|dst_loc_pcie_cxl|dst_rem)$/) {
			f[k] = v
			if (v && k ~ /^dst_/) dstset = 1
		} else if (kind == "c2c" && k == "gpu_mask") {
			f[k] = v
		} else if (kind == "nic" && k ~ /^(port|prio|host|link|tclass|func)$/) {
			f[k] = v
		} else if (kind ~ /^(cha|imc|iio)$/ && (k == "socket" || (kind == "iio" && k == "bdf"))) {
			f[k] = v
		} else {
			fail("no model for term " t[i] " of " pmu)
		}
	}
	if (kind == "pcie" && !("src_rp_mask" in f)) f["src_rp_mask"] = 255
	if (kind == "c2c" && !f["gpu_mask"]) f["gpu_mask"] = 2 ^ gpus - 1
	# per transaction, in the UCF model's table; cycles do not depend on flows
	if (event == "cycles" || (kind == "ucf" && event == "bus_cycles")) {
		cycles = 1
	} else if (kind == "ucf") {
		if (event !~ /^(slc_access|slc_access_(rd|wr|atomic|dataless)|slc_bytes_(rd|wr)|slc_hit_rd|slc_refill_(rd|wr)|mem_access_(rd|wr)|mem_bytes_(rd|wr)|slc_wb|slc_allocate|local_snoop|ext_snp_access|ext_snp_evict)$/)
			fail("no model for " pmu "/" event)
	} else if (kind == "cmem") {
		if (event !~ /^(rd_req|rd_cum_outs)$/) fail("no model for " pmu "/" event)
	} else if (kind == "pcie") {
		if (event !~ /^(rd_bytes|wr_bytes|rd_req|wr_req|rd_cum_outs)$/) fail("no model for " pmu "/" event)
	} else if (kind == "nic") {
		# Counters only: a Statistic (pcie_rd_lat_max/min_ns) has no rate
		if (!(event in nic_row)) fail("no model for " pmu "/" event)
	} else if (kind == "cha") {
		if (event !~ /^UNC_CHA_TOR_INSERTS\.IO_(HIT|MISS)_(ITOM|ITOMCACHENEAR|PCIRDCUR)$/)
			fail("no model for " pmu "/" event)
	} else if (kind == "imc") {
		if (event !~ /^UNC_M_CAS_COUNT\.(RD|WR)$/) fail("no model for " pmu "/" event)
	} else if (kind == "iio") {
		if (event !~ /^UNC_IIO_DATA_REQ_OF_CPU\.MEM_(READ|WRITE)$/)
			fail("no model for " pmu "/" event)
	} else if (event !~ /^(in|out)_(rd|wr)_(req|cum_outs)$/) {
		fail("no model for " pmu "/" event)
	}
}

BEGIN {
	# sim names of destinations, for the UCF and PCIE destination filters
	ucf_dst["loc_cmem"] = "dst_loc_cmem"; ucf_dst["loc_gmem"] = "dst_loc_gmem"
	ucf_dst["loc_other"] = "dst_loc_other"; ucf_dst["loc_cxl"] = "dst_loc_other"
	ucf_dst["loc_p2p"] = "dst_loc_other"; ucf_dst["rem"] = "dst_rem"
	pcie_dst["loc_cmem"] = "dst_loc_cmem"; pcie_dst["loc_gmem"] = "dst_loc_gmem"
	pcie_dst["loc_p2p"] = "dst_loc_pcie_p2p"; pcie_dst["loc_other"] = "dst_loc_pcie_cxl"
	pcie_dst["loc_cxl"] = "dst_loc_pcie_cxl"; pcie_dst["rem"] = "dst_rem"
	# NIC: the data-ID rows (named events) each injected event adds to,
	# "EVENT:AMOUNT" (bytes: the event's size; hdr: size + 16 header
	# bytes; ns: its latency or stall ns; 1: one), and the parameters of
	# a row that must match the event's a (port, host, link), b
	# (priority) and func (function, tclass)
	nic_ev["rx"] = "port_rx_bytes:bytes port_prio_rx_bytes:bytes port_rx_packets:1 port_prio_rx_packets:1"
	nic_ev["tx"] = "port_tx_bytes:bytes port_prio_tx_bytes:bytes port_tx_packets:1 port_prio_tx_packets:1"
	nic_ev["rx_drop"] = "port_rx_buffer_drops:1"
	nic_ev["pause_rx"] = "port_prio_rx_pause:1"; nic_ev["pause_tx"] = "port_prio_tx_pause:1"
	nic_ev["discard"] = "host_rx_discards:1"; nic_ev["scatter"] = "host_rx_to_scatter:1"
	nic_ev["no_wqe"] = "host_rx_no_wqe:1"; nic_ev["no_wqe_hairpin"] = "host_rx_no_wqe_hairpin:1"
	nic_ev["ecn"] = "host_rx_ecn_roce:1"
	nic_ev["cnp_handled"] = "port_cnp_handled:1"; nic_ev["cnp_sent"] = "port_cnp_sent:1"
	nic_ev["qp_desched"] = "qp_desched:1"
	nic_ev["pcie_in"] = "pcie_in_bytes:hdr pcie_in_data_bytes:bytes"
	nic_ev["pcie_out"] = "pcie_out_bytes:hdr pcie_out_data_bytes:bytes"
	nic_ev["pcie_read"] = "pcie_rd_lat_total_ns:ns pcie_rd_count:1"
	nic_ev["rx_cqe"] = "rx_cqe:1 func_rx_cqe:1"; nic_ev["tx_cqe"] = "tx_cqe:1 func_tx_cqe:1"
	nic_ev["icmc_hit"] = "icmc_accesses:1 icmc_hits:1"
	nic_ev["icmc_miss"] = "icmc_accesses:1 icmc_misses:1"
	# stall kinds by their number b, in the simulator's order
	split("pw_data pw_hdr np_data np_hdr np_cpl np_order", nic_stall, " ")
	for (i = 1; i <= 6; i++)
		nic_ev["stall" (i - 1)] = "pcie_stall_" nic_stall[i] "_ns:ns"
	for (e in nic_ev) {
		n = split(nic_ev[e], w, " ")
		for (i = 1; i <= n; i++) nic_row[substr(w[i], 1, index(w[i], ":") - 1)] = 1
	}
}

# per transaction of flow x, what the event adds
function ucf(x,   rd, wr, miss) {
	if (srcset && !f["src_" x["src"]]) return 0
	if (dstset && !f[ucf_dst[x["dst"]]]) return 0
	rd = x["op"] == "rd"; wr = x["op"] == "wr"; miss = !x["hit"]
	if (event == "slc_access") return 1
	if (event ~ /^slc_access_/) return x["op"] == substr(event, 12)
	if (event == "slc_bytes_rd") return rd * x["size"]
	if (event == "slc_bytes_wr") return wr * x["size"]
	if (event == "slc_hit_rd") return rd && !miss
	if (event ~ /^(slc_refill_rd|mem_access_rd)$/) return rd && miss
	if (event == "mem_bytes_rd") return (rd && miss) * x["size"]
	if (event ~ /^(slc_refill_wr|mem_access_wr|slc_wb)$/) return wr && miss
	if (event == "mem_bytes_wr") return (wr && miss) * x["size"]
	if (event == "slc_allocate") return (rd || wr) && miss
	return 0	# snoops are not modelled: 0
}
function cmem(x,   req) {
	if (x["op"] != "rd" || x["hit"] || x["dst"] != "loc_cmem") return 0
	req = ceil(x["size"] / 32)
	return event == "rd_req" ? req : req * int(x["lat"] * clk / 1000)
}
function pcie(x,   rd) {
	if (!("rc" in x) || x["rc"] != rc) return 0
	if (x["op"] != "rd" && x["op"] != "wr") return 0
	if (f["src_bdf_en"]) {
		if (num(x["bdf"]) != f["src_bdf"]) return 0
	} else if (!bit(f["src_rp_mask"], x["rp"])) {
		return 0
	}
	if (dstset && !f[pcie_dst[x["dst"]]]) return 0
	rd = x["op"] == "rd"
	if (event == "rd_bytes") return rd * x["size"]
	if (event == "wr_bytes") return (!rd) * x["size"]
	if (event == "rd_req") return rd
	if (event == "wr_req") return !rd
	return rd * int(x["lat"] * clk / 1000)	# rd_cum_outs
}
function c2c(x,   dir) {
	if (!("gpu" in x) || !bit(f["gpu_mask"], x["gpu"])) return 0
	if (x["op"] != "rd" && x["op"] != "wr") return 0
	if (x["dst"] == "loc_gmem" && !x["hit"]) dir = "out"
	else if (x["src"] == "loc_noncpu" && !("rc" in x) && x["dst"] != "loc_gmem") dir = "in"
	else return 0
	if (event == dir "_" x["op"] "_req") return 1
	if (event == dir "_" x["op"] "_cum_outs") return int(x["lat"] * clk / 1000)
	return 0
}

# Ice Lake-X: per transaction of flow x, the lines it is (a device's
# write: full lines and a partial one; a read or a core's access: every
# line), what the event adds at the requester's socket (TOR, IIO) or the
# memory's (CAS: a miss's read, a full write's write, a partial one's
# read and write; a core's write is a read for ownership)
function icx(x,   dev, wr, full, part, lines, s, m) {
	if ("to_rc" in x) { fail("no model for outbound flow " x["id"]); return 0 }
	if (x["op"] != "rd" && x["op"] != "wr") return 0
	dev = "rc" in x; wr = x["op"] == "wr"
	full = wr && dev ? int(x["size"] / 64) : 0
	part = wr && dev ? x["size"] % 64 != 0 : 0
	lines = ceil(x["size"] / 64)
	s = x["socket"]
	if (kind == "iio") {
		if (!dev || ("socket" in f && f["socket"] != s)) return 0
		if ("bdf" in f && num(x["bdf"]) != f["bdf"]) return 0
		return (event ~ /WRITE$/) == wr ? ceil(x["size"] / 4) : 0
	}
	if (kind == "cha") {
		if (!dev || ("socket" in f && f["socket"] != s)) return 0
		if ((event ~ /_HIT_/) != (x["hit"] == 1)) return 0
		if (event ~ /_ITOM$/) return full
		if (event ~ /_ITOMCACHENEAR$/) return part
		return wr ? 0 : lines	# PCIRDCUR
	}
	m = x["dst"] == "rem" ? (s + 1) % sockets : s
	if (x["hit"] || ("socket" in f && f["socket"] != m)) return 0
	if (event ~ /RD$/) return dev && wr ? part : lines
	return dev && wr ? full + part : 0
}

# per event of NIC flow x, what the event adds: the row must be one the
# event adds to, with the parameters the row has matching the event's
function nic(x,   e, n, i, w, amt, p) {
	e = x["ev"] == "stall" ? "stall" x["b"] : x["ev"]
	n = split(nic_ev[e], w, " ")
	for (i = 1; i <= n; i++)
		if (substr(w[i], 1, index(w[i], ":") - 1) == event)
			amt = substr(w[i], index(w[i], ":") + 1)
	if (amt == "") return 0
	# the parameters of the row: those its name says it has
	if (event ~ /^port_/ && f["port"] != x["a"]) return 0
	if (event ~ /^port_prio_/ && f["prio"] != x["b"]) return 0
	if (event ~ /^host_/ && f["host"] != x["a"]) return 0
	if (event ~ /^pcie_/ && f["link"] != x["a"]) return 0
	if (event == "pcie_stall_np_order_ns" && f["tclass"] != x["func"]) return 0
	if (event ~ /^func_/ && f["func"] != x["func"]) return 0
	if (amt == "bytes" || amt == "ns") return x["size"]
	if (amt == "hdr") return x["size"] + 16
	return 1
}

/^id=/ { flows[++nf] = $0 }

END {
	nq = split(queries, q, "\n")
	for (j = 1; j <= nq; j++) {
		split(q[j], a, " ")
		setup(a[1], a[2], a[3] == "-" ? "" : a[3], a[4])
		total = 0; parts = ""
		for (l = 1; l <= nf && !cycles && !bad; l++) {
			split("", x)
			nw = split(flows[l], w, " ")
			for (i = 1; i <= nw; i++) {
				v = substr(w[i], index(w[i], "=") + 1)
				x[substr(w[i], 1, index(w[i], "=") - 1)] = v ~ /^[0-9]+$/ ? v + 0 : v
			}
			# a NIC's flows have an event (ev=), the SoC's a socket
			if (kind == "nic") {
				if (!("ev" in x)) continue
				per = nic(x)
			} else {
				if (("ev" in x) || (kind !~ /^(cha|imc|iio)$/ && x["socket"] != socket))
					continue
				if (kind == "ucf") per = ucf(x)
				else if (kind == "cmem") per = cmem(x)
				else if (kind == "pcie") per = pcie(x)
				else if (kind == "c2c") per = c2c(x)
				else per = icx(x)
			}
			c = x["rate"] * per
			if (c) {
				total += c
				parts = parts sprintf(" %s:%.0f", x["id"], c)
			}
		}
		if (bad) continue
		if (cycles) total = clk * 1e6
		printf "%.0f\t%s\n", total, substr(parts, 2)
	}
}
