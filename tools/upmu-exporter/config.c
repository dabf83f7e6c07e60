// SPDX-License-Identifier: GPL-2.0
/*
 * upmu-exporter's configuration: a file of lines, "#" comments, and the
 * built-in series below (Documentation/upmu-exporter.rst, "Configuration").
 */

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exporter.h"

/*
 * What the exporter serves unless the file says "defaults off": the
 * counters of Documentation/upmu-exporter.rst's table.  Budgets first:
 * the general counters of one box of each PMU (the Tegra410 PMUs' N of
 * PMCFGR, Ice Lake-X's per box type; 0: free-running, no limit), so that
 * the series of a PMU never need more than it has and perf never
 * multiplexes them.  Series are opened in this order; what does not fit
 * is left out and said (--check-config, upmu_pmu_series_left_out).
 */
const char cfg_builtin[] =
"counters nvidia 8\n"
"counters uncore_iio 4\n"
"counters uncore_irp 2\n"
"counters uncore_cha 4\n"
"counters uncore_imc 4\n"
"counters uncore_upi 4\n"
"counters uncore_iio_free_running 0\n"
"counters uncore_imc_free_running 0\n"
"counters upmu_nic 0\n"
/* Tegra410 UCF */
"series ucf_mem_read_bytes nvidia_ucf_pmu mem_bytes_rd help=Bytes the UCF read from memory\n"
"series ucf_mem_write_bytes nvidia_ucf_pmu mem_bytes_wr help=Bytes the UCF wrote to memory\n"
"series ucf_slc_read_bytes nvidia_ucf_pmu slc_bytes_rd help=Bytes read through the SLC\n"
"series ucf_slc_write_bytes nvidia_ucf_pmu slc_bytes_wr help=Bytes written through the SLC\n"
"series ucf_slc_read_accesses nvidia_ucf_pmu slc_access_rd help=SLC read accesses\n"
"series ucf_slc_read_hits nvidia_ucf_pmu slc_hit_rd help=SLC read hits\n"
"series ucf_cycles nvidia_ucf_pmu cycles fixed help=UCF clock cycles\n"
/* Tegra410 CMEM latency: latency in cycles = outstanding / requests */
"series cmem_read_requests nvidia_cmem_latency_pmu rd_req help=CPU memory read requests\n"
"series cmem_read_outstanding nvidia_cmem_latency_pmu rd_cum_outs help=Sum over cycles of the outstanding CPU memory reads\n"
"series cmem_cycles nvidia_cmem_latency_pmu cycles fixed help=CMEM latency PMU clock cycles\n"
/* Tegra410 PCIE: per root port, per configured device, and latency */
"series pcie_read_bytes nvidia_pcie_pmu rd_bytes,src_rp_mask=%rp_mask per=rp help=Bytes read by the devices below a root port\n"
"series pcie_write_bytes nvidia_pcie_pmu wr_bytes,src_rp_mask=%rp_mask per=rp help=Bytes written by the devices below a root port\n"
"series pcie_device_read_bytes nvidia_pcie_pmu rd_bytes,src_bdf=%bdf,src_bdf_en=1 per=bdf help=Bytes read by a PCIe function\n"
"series pcie_device_write_bytes nvidia_pcie_pmu wr_bytes,src_bdf=%bdf,src_bdf_en=1 per=bdf help=Bytes written by a PCIe function\n"
"series pcie_read_requests nvidia_pcie_pmu rd_req help=PCIe read requests of the root complex\n"
"series pcie_read_outstanding nvidia_pcie_pmu rd_cum_outs help=Sum over cycles of the outstanding PCIe reads\n"
"series pcie_cycles nvidia_pcie_pmu cycles fixed help=PCIE PMU clock cycles\n"
/* Tegra410 PCIE-TGT: CPU accesses to PCIe BARs */
"series pcie_tgt_read_bytes nvidia_pcie_tgt_pmu rd_bytes help=Bytes the CPUs read from PCIe BARs\n"
"series pcie_tgt_write_bytes nvidia_pcie_tgt_pmu wr_bytes help=Bytes the CPUs wrote to PCIe BARs\n"
"series pcie_tgt_read_requests nvidia_pcie_tgt_pmu rd_req help=CPU read requests to PCIe BARs\n"
"series pcie_tgt_write_requests nvidia_pcie_tgt_pmu wr_req help=CPU write requests to PCIe BARs\n"
"series pcie_tgt_cycles nvidia_pcie_tgt_pmu cycles fixed help=PCIE-TGT PMU clock cycles\n"
/* Tegra410 NVLink-C2C, NV-CLink, NV-DLink */
"series c2c_in_read_requests nvidia_nvlink_c2c_pmu in_rd_req help=C2C inbound read requests\n"
"series c2c_in_read_outstanding nvidia_nvlink_c2c_pmu in_rd_cum_outs help=Sum over cycles of the outstanding C2C inbound reads\n"
"series c2c_in_write_requests nvidia_nvlink_c2c_pmu in_wr_req help=C2C inbound write requests\n"
"series c2c_out_read_requests nvidia_nvlink_c2c_pmu out_rd_req help=C2C outbound read requests\n"
"series c2c_out_read_outstanding nvidia_nvlink_c2c_pmu out_rd_cum_outs help=Sum over cycles of the outstanding C2C outbound reads\n"
"series c2c_out_write_requests nvidia_nvlink_c2c_pmu out_wr_req help=C2C outbound write requests\n"
"series c2c_cycles nvidia_nvlink_c2c_pmu cycles fixed help=C2C PMU clock cycles\n"
"series clink_in_read_requests nvidia_nvclink_pmu in_rd_req help=NV-CLink inbound read requests\n"
"series clink_in_read_outstanding nvidia_nvclink_pmu in_rd_cum_outs help=Sum over cycles of the outstanding NV-CLink inbound reads\n"
"series clink_out_read_requests nvidia_nvclink_pmu out_rd_req help=NV-CLink outbound read requests\n"
"series clink_out_read_outstanding nvidia_nvclink_pmu out_rd_cum_outs help=Sum over cycles of the outstanding NV-CLink outbound reads\n"
"series clink_cycles nvidia_nvclink_pmu cycles fixed help=NV-CLink PMU clock cycles\n"
"series dlink_in_read_requests nvidia_nvdlink_pmu in_rd_req help=NV-DLink inbound read requests\n"
"series dlink_in_read_outstanding nvidia_nvdlink_pmu in_rd_cum_outs help=Sum over cycles of the outstanding NV-DLink inbound reads\n"
"series dlink_out_read_requests nvidia_nvdlink_pmu out_rd_req help=NV-DLink outbound read requests\n"
"series dlink_out_read_outstanding nvidia_nvdlink_pmu out_rd_cum_outs help=Sum over cycles of the outstanding NV-DLink outbound reads\n"
"series dlink_cycles nvidia_nvdlink_pmu cycles fixed help=NV-DLink PMU clock cycles\n"
/* Ice Lake-X IIO: per part inbound, per stack by direction, read latency */
"series iio_part_inbound_bytes uncore_iio_free_running bw_in_port%part per=part fixed help=Bytes of device writes and CPU reads through an IIO part\n"
"series iio_clockticks uncore_iio_free_running ioclk fixed help=IIO clock cycles\n"
"series iio_mem_read_bytes uncore_iio event=0x83,umask=0x4,ch_mask=0xff,fc_mask=0x7 x=4 help=Bytes the devices of an IIO stack read from memory (UNC_IIO_DATA_REQ_OF_CPU.MEM_READ)\n"
"series iio_mem_write_bytes uncore_iio event=0x83,umask=0x1,ch_mask=0xff,fc_mask=0x7 x=4 help=Bytes the devices of an IIO stack wrote to memory (UNC_IIO_DATA_REQ_OF_CPU.MEM_WRITE)\n"
"series iio_comp_buf_occupancy uncore_iio event=0xd5,umask=0xff,fc_mask=0x4 help=Sum over IIO cycles of the completion buffer's occupancy (UNC_IIO_COMP_BUF_OCCUPANCY.CMPD)\n"
"series iio_comp_buf_inserts uncore_iio event=0xc2,umask=0x3,ch_mask=0xff,fc_mask=0x4 help=Completion buffer inserts (UNC_IIO_COMP_BUF_INSERTS.CMPD)\n"
/* Ice Lake-X CHA, IMC, UPI */
"series cha_io_hits uncore_cha event=0x35,umask=0xc001fd04 help=I/O requests that hit the LLC (UNC_CHA_TOR_INSERTS.IO_HIT)\n"
"series cha_io_misses uncore_cha event=0x35,umask=0xc001fe04 help=I/O requests that missed the LLC (UNC_CHA_TOR_INSERTS.IO_MISS)\n"
"series cha_ia_hits uncore_cha event=0x35,umask=0xc001fd01 help=Core requests that hit the LLC (UNC_CHA_TOR_INSERTS.IA_HIT)\n"
"series cha_ia_misses uncore_cha event=0x35,umask=0xc001fe01 help=Core requests that missed the LLC (UNC_CHA_TOR_INSERTS.IA_MISS)\n"
"series imc_read_bytes uncore_imc_free_running read fixed help=Bytes read from DRAM\n"
"series imc_write_bytes uncore_imc_free_running write fixed help=Bytes written to DRAM\n"
"series upi_tx_data_flits uncore_upi event=0x2,umask=0xf help=UPI data flits sent, 9 per 64 bytes (UNC_UPI_TxL_FLITS.ALL_DATA)\n"
"series upi_clockticks uncore_upi event=0x1 help=UPI clock cycles\n"
/* the NIC's firmware diagnostic counters */
"series nic_port_rx_bytes upmu_nic port_rx_bytes,port=%port per=port help=Bytes a NIC port received\n"
"series nic_port_tx_bytes upmu_nic port_tx_bytes,port=%port per=port help=Bytes a NIC port sent\n"
"series nic_port_rx_packets upmu_nic port_rx_packets,port=%port per=port help=Packets a NIC port received\n"
"series nic_port_tx_packets upmu_nic port_tx_packets,port=%port per=port help=Packets a NIC port sent\n"
"series nic_pcie_read_latency_seconds upmu_nic pcie_rd_lat_total_ns,link=%link per=link help=Sum of the NIC's PCIe read latencies\n"
"series nic_pcie_reads upmu_nic pcie_rd_count,link=%link per=link help=PCIe reads of the NIC\n";

void cfg_init(struct config *c)
{
	memset(c, 0, sizeof(*c));
	strcpy(c->listen_addr, "127.0.0.1");
	c->port = 9464;
	c->cache_ms = 200;
	c->rescan_ms = 1000;
	c->max_clients = 256;
	c->timeout_s = 5;
	c->defaults = true;
}

bool pmu_matches(const char *pmu, const char *prefix)
{
	size_t l = strlen(prefix);
	const char *r;

	if (strncmp(pmu, prefix, l))
		return false;
	if (!pmu[l])
		return true;
	/* an instance: _<hex digits> (a socket, a stack, a NIC's serial), _rc_<n> */
	r = pmu + l;
	if (*r++ != '_' || !isxdigit((unsigned char)*r))
		return false;
	while (isxdigit((unsigned char)*r))
		r++;
	if (!strncmp(r, "_rc_", 4) && isdigit((unsigned char)r[4]))
		for (r += 4; isdigit((unsigned char)*r); r++)
			;
	return !*r;
}

unsigned int cfg_counters(const struct config *c, const char *pmu)
{
	unsigned int i, n = 0;
	size_t best = 0;

	for (i = 0; i < c->nr_budget; i++) {
		size_t l = strlen(c->budget[i].pmu);

		/* a family prefix ("nvidia") or a PMU name prefix */
		if (l > best && !strncmp(pmu, c->budget[i].pmu, l) &&
		    (pmu[l] == '_' || !pmu[l])) {
			best = l;
			n = c->budget[i].counters;
		}
	}
	return n;
}

struct parser {
	const char *what;
	unsigned int line;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 2, 3)))
static int perr(struct parser *p, const char *fmt, ...)
{
	size_t n;
	va_list ap;

	n = snprintf(p->err, p->errlen, "%s:%u: ", p->what, p->line);
	if (n < p->errlen) {
		va_start(ap, fmt);
		vsnprintf(p->err + n, p->errlen - n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* Next blank-separated word of *@s into @w (at most @len - 1 chars). */
static int word(char **s, char *w, size_t len)
{
	char *p = *s;
	size_t n = 0;

	while (*p == ' ' || *p == '\t')
		p++;
	while (*p && *p != ' ' && *p != '\t') {
		if (n + 1 >= len)
			return -E2BIG;
		w[n++] = *p++;
	}
	w[n] = 0;
	*s = p;
	return n ? 0 : -ENOENT;
}

static int uint_arg(struct parser *p, char **s, const char *key, unsigned int lo,
		    unsigned int hi, unsigned int *val)
{
	char w[32], *end;
	unsigned long v;

	if (word(s, w, sizeof(w)))
		return perr(p, "%s needs a number", key);
	errno = 0;
	v = strtoul(w, &end, 10);
	if (errno || *end || !isdigit((unsigned char)w[0]) || v < lo || v > hi)
		return perr(p, "%s: '%s' is not a number from %u to %u", key, w, lo, hi);
	*val = v;
	return 0;
}

static bool only(const char *s, const char *extra)
{
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) &&
		    !strchr(extra, *s))
			return false;
	return true;
}

static int parse_listen(struct parser *p, struct config *c, char **s)
{
	char w[80], *colon, *addr = w;
	unsigned char buf[16];
	unsigned long port;
	char *end;

	if (word(s, w, sizeof(w)))
		return perr(p, "listen needs ADDRESS:PORT");
	colon = strrchr(w, ':');
	if (!colon)
		return perr(p, "listen: '%s' is not ADDRESS:PORT", w);
	*colon = 0;
	if (*addr == '[') {
		size_t l = strlen(addr);

		if (l < 3 || addr[l - 1] != ']')
			return perr(p, "listen: an IPv6 address goes in brackets, [::1]:9464");
		addr[l - 1] = 0;
		addr++;
		if (inet_pton(AF_INET6, addr, buf) != 1)
			return perr(p, "listen: '%s' is not an IPv6 address", addr);
	} else if (inet_pton(AF_INET, addr, buf) != 1) {
		return perr(p, "listen: '%s' is not an IPv4 address (a name is not taken)", addr);
	}
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (errno || *end || !isdigit((unsigned char)colon[1]) || !port || port > 65535)
		return perr(p, "listen: port '%s' is not 1-65535", colon + 1);
	snprintf(c->listen_addr, sizeof(c->listen_addr), "%s", addr);
	c->port = port;
	return 0;
}

static const char *const per_names[] = {
	[PER_NONE] = "none", [PER_RP] = "rp", [PER_BDF] = "bdf",
	[PER_PART] = "part", [PER_PORT] = "port", [PER_LINK] = "link",
};
/* the placeholder each expansion fills in, and that no other may use */
static const char *const per_holes[] = {
	[PER_NONE] = NULL, [PER_RP] = "%rp_mask", [PER_BDF] = "%bdf",
	[PER_PART] = "%part", [PER_PORT] = "%port", [PER_LINK] = "%link",
};

static int check_spec(struct parser *p, const struct cfg_series *cs)
{
	const char *h = cs->spec;
	unsigned int i;

	if (!only(cs->spec, "_=,.%"))
		return perr(p, "series %s: event '%s' has a character perf's terms do not take",
			    cs->name, cs->spec);
	while ((h = strchr(h, '%'))) {
		for (i = PER_RP; i <= PER_LINK; i++)
			if (!strncmp(h, per_holes[i], strlen(per_holes[i])))
				break;
		if (i > PER_LINK)
			return perr(p, "series %s: unknown placeholder in '%s'", cs->name, cs->spec);
		if (i != cs->per)
			return perr(p, "series %s: %s needs per=%s", cs->name, per_holes[i],
				    per_names[i]);
		h++;
	}
	if (cs->per != PER_NONE && !strstr(cs->spec, per_holes[cs->per]))
		return perr(p, "series %s: per=%s needs %s in the event", cs->name,
			    per_names[cs->per], per_holes[cs->per]);
	return 0;
}

static int parse_series(struct parser *p, struct config *c, char **s)
{
	struct cfg_series cs = { .per = PER_NONE };
	char w[200];
	size_t l;
	unsigned int i;

	if (word(s, cs.name, sizeof(cs.name)) || word(s, cs.pmu, sizeof(cs.pmu)) ||
	    word(s, cs.spec, sizeof(cs.spec)))
		return perr(p, "series needs NAME PMU EVENT [x=FACTOR] [per=KIND] [fixed] [help=TEXT]");
	l = strlen(cs.name);
	if (!only(cs.name, "_") || !islower((unsigned char)cs.name[0]) ||
	    (l > 6 && !strcmp(cs.name + l - 6, "_total")) || l > 48)
		return perr(p, "series name '%s': lower case, digits and _, at most 48, no _total",
			    cs.name);
	if (!only(cs.pmu, "_") || !islower((unsigned char)cs.pmu[0]))
		return perr(p, "series %s: '%s' is not a PMU name", cs.name, cs.pmu);
	while (**s) {
		while (**s == ' ' || **s == '\t')
			(*s)++;
		if (!strncmp(*s, "help=", 5)) {
			snprintf(cs.help, sizeof(cs.help), "%s", *s + 5);
			if (strlen(*s + 5) >= sizeof(cs.help))
				return perr(p, "series %s: help longer than %zu", cs.name,
					    sizeof(cs.help) - 1);
			break;
		}
		if (word(s, w, sizeof(w)))
			break;
		if (!strcmp(w, "fixed")) {
			cs.fixed = true;
		} else if (!strncmp(w, "x=", 2)) {
			char *end;

			errno = 0;
			cs.factor = strtod(w + 2, &end);
			if (errno || *end || w[2] == 0 || !(cs.factor > 0) || cs.factor > 1e12)
				return perr(p, "series %s: x= takes a number above 0", cs.name);
		} else if (!strncmp(w, "per=", 4)) {
			for (i = PER_RP; i <= PER_LINK; i++)
				if (!strcmp(w + 4, per_names[i]))
					break;
			if (i > PER_LINK)
				return perr(p, "series %s: per= takes rp, bdf, part, port or link",
					    cs.name);
			cs.per = i;
		} else {
			return perr(p, "series %s: unknown option '%s'", cs.name, w);
		}
	}
	if (check_spec(p, &cs))
		return -EINVAL;
	snprintf(cs.metric, sizeof(cs.metric), "upmu_%s", cs.name);
	for (i = 0; i < c->nr_series; i++)
		if (!strcmp(c->series[i].name, cs.name) && !strcmp(c->series[i].pmu, cs.pmu))
			return perr(p, "series %s of %s given twice", cs.name, cs.pmu);
	if (c->nr_series == CFG_MAX_SERIES)
		return perr(p, "more than %d series", CFG_MAX_SERIES);
	c->series[c->nr_series++] = cs;
	return 0;
}

/* SSSS:BB:DD.F in hex digits: sscanf's %x alone takes a sign and 0x too */
static bool bdf_syntax(const char *w)
{
	static const char pat[] = "hhhh:hh:hh.h";
	size_t i;

	if (strlen(w) != sizeof(pat) - 1)
		return false;
	for (i = 0; pat[i]; i++)
		if (pat[i] == 'h' ? !isxdigit((unsigned char)w[i]) : w[i] != pat[i])
			return false;
	return true;
}

static int parse_bdf(struct parser *p, struct config *c, char **s)
{
	struct cfg_bdf b;
	char w[32];
	unsigned int i;

	if (word(s, w, sizeof(w)) || !bdf_syntax(w) ||
	    sscanf(w, "%x:%x:%x.%x", &b.seg, &b.bus, &b.dev, &b.fn) != 4 ||
	    b.dev > 31 || b.fn > 7)
		return perr(p, "bdf needs a PCI function's address, SSSS:BB:DD.F");
	for (i = 0; i < c->nr_bdf; i++)
		if (!memcmp(&c->bdf[i], &b, sizeof(b)))
			return perr(p, "bdf %s given twice", w);
	if (c->nr_bdf == CFG_MAX_BDFS)
		return perr(p, "more than %d bdf lines", CFG_MAX_BDFS);
	c->bdf[c->nr_bdf++] = b;
	return 0;
}

static int parse_counters(struct parser *p, struct config *c, char **s)
{
	struct cfg_budget b;
	unsigned int i;

	if (word(s, b.pmu, sizeof(b.pmu)) || !only(b.pmu, "_"))
		return perr(p, "counters needs PMU-PREFIX N");
	if (uint_arg(p, s, "counters", 0, 64, &b.counters))
		return -EINVAL;
	for (i = 0; i < c->nr_budget; i++)
		if (!strcmp(c->budget[i].pmu, b.pmu))
			return perr(p, "counters %s given twice", b.pmu);
	if (c->nr_budget == CFG_MAX_BUDGETS)
		return perr(p, "more than %d counters lines", CFG_MAX_BUDGETS);
	c->budget[c->nr_budget++] = b;
	return 0;
}

static int parse_line(struct parser *p, struct config *c, char *s)
{
	char key[16], rest[8];
	int ret;

	ret = word(&s, key, sizeof(key));
	if (ret == -ENOENT || key[0] == '#')
		return 0;
	if (ret)
		return perr(p, "unknown keyword");
	if (!strcmp(key, "listen"))
		ret = parse_listen(p, c, &s);
	else if (!strcmp(key, "cache_ms"))
		ret = uint_arg(p, &s, key, 0, 60000, &c->cache_ms);
	else if (!strcmp(key, "rescan_ms"))
		ret = uint_arg(p, &s, key, 50, 60000, &c->rescan_ms);
	else if (!strcmp(key, "max_clients"))
		ret = uint_arg(p, &s, key, 1, 4096, &c->max_clients);
	else if (!strcmp(key, "timeout_s"))
		ret = uint_arg(p, &s, key, 1, 3600, &c->timeout_s);
	else if (!strcmp(key, "defaults")) {
		if (word(&s, rest, sizeof(rest)) || (strcmp(rest, "on") && strcmp(rest, "off")))
			return perr(p, "defaults takes on or off");
		c->defaults = !strcmp(rest, "on");
	} else if (!strcmp(key, "series"))
		return parse_series(p, c, &s);
	else if (!strcmp(key, "bdf"))
		ret = parse_bdf(p, c, &s);
	else if (!strcmp(key, "counters"))
		ret = parse_counters(p, c, &s);
	else
		return perr(p, "unknown keyword '%s'", key);
	if (ret)
		return ret;
	if (!word(&s, rest, sizeof(rest)) || strlen(s))
		return perr(p, "%s: more than it takes", key);
	return 0;
}

static int parse_text(struct config *c, const char *text, size_t len, const char *what,
		      char *err, size_t errlen, unsigned int *lines)
{
	struct parser p = { .what = what, .err = err, .errlen = errlen };
	char buf[1024];
	size_t i = 0;

	while (i < len) {
		size_t n = 0;

		p.line++;
		while (i < len && text[i] != '\n') {
			if (!text[i] || (text[i] != '\t' && (unsigned char)text[i] < 0x20) ||
			    (unsigned char)text[i] >= 0x7f)
				return perr(&p, "a character that is not printable ASCII");
			if (n + 1 >= sizeof(buf))
				return perr(&p, "line longer than %zu", sizeof(buf) - 1);
			buf[n++] = text[i++];
		}
		i++;
		buf[n] = 0;
		if (parse_line(&p, c, buf))
			return -EINVAL;
	}
	if (lines)
		*lines = p.line;
	return 0;
}

int cfg_parse(struct config *c, const char *text, size_t len, const char *what,
	      char *err, size_t errlen)
{
	struct config *b;
	unsigned int i, j, lines = 0;
	int ret;

	ret = parse_text(c, text, len, what, err, errlen, &lines);
	if (ret || !c->defaults)
		return ret;
	/* the built-in lines after the file's: a series or budget of the file wins */
	b = malloc(sizeof(*b));
	if (!b)
		return -ENOMEM;
	cfg_init(b);
	ret = parse_text(b, cfg_builtin, strlen(cfg_builtin), "built-in", err, errlen, NULL);
	for (i = 0; !ret && i < b->nr_series; i++) {
		for (j = 0; j < c->nr_series; j++)
			if (!strcmp(c->series[j].name, b->series[i].name))
				break;
		if (j < c->nr_series)
			continue;
		if (c->nr_series == CFG_MAX_SERIES) {
			snprintf(err, errlen, "%s:%u: more than %d series with the built-in ones",
				 what, lines, CFG_MAX_SERIES);
			ret = -EINVAL;
			break;
		}
		c->series[c->nr_series++] = b->series[i];
	}
	for (i = 0; !ret && i < b->nr_budget; i++) {
		for (j = 0; j < c->nr_budget; j++)
			if (!strcmp(c->budget[j].pmu, b->budget[i].pmu))
				break;
		if (j < c->nr_budget)
			continue;
		if (c->nr_budget == CFG_MAX_BUDGETS) {
			snprintf(err, errlen, "%s:%u: more than %d counters lines with the built-in ones",
				 what, lines, CFG_MAX_BUDGETS);
			ret = -EINVAL;
			break;
		}
		c->budget[c->nr_budget++] = b->budget[i];
	}
	free(b);
	return ret;
}

int cfg_load(struct config *c, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *text;
	size_t n;
	int ret;

	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return ret;
	}
	text = malloc(65536);
	if (!text) {
		fclose(f);
		return -ENOMEM;
	}
	n = fread(text, 1, 65536, f);
	if (n == 65536) {
		snprintf(err, errlen, "%s: larger than 64 KiB", path);
		ret = -EFBIG;
	} else if (ferror(f)) {
		snprintf(err, errlen, "%s: read error", path);
		ret = -EIO;
	} else {
		ret = cfg_parse(c, text, n, path, err, errlen);
	}
	free(text);
	fclose(f);
	return ret;
}
