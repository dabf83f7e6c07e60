/* SPDX-License-Identifier: GPL-2.0 */
/*
 * upmu-diag's input and output: command-line and JSON flags, the data-IDs
 * JSON file, CSV rows.  Separate from main() so the unit tests run it.
 */
#ifndef __UPMU_DIAG_IO_H__
#define __UPMU_DIAG_IO_H__

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "upmu_diag.h"

#define DIAG_DEFAULT_OUTPUT	"/tmp/out.csv"
#define DIAG_PATH		4096

struct diag_opts {
	char dev[DIAG_PATH];		/* -p */
	char data_ids[DIAG_PATH];	/* -di */
	char output[DIAG_PATH];		/* -o */
	char example[DIAG_PATH];	/* -e */
	double run_time;		/* -rt, s */
	uint64_t period_ns;		/* -sp, 0: the device's shortest */
	int log_samples;		/* -ns, -1: library default */
	uint32_t max_per_read;		/* -sr, 0: library default */
	int mode;			/* -sm */
	int format;			/* -of */
	bool force;			/* -f */
	bool sync;			/* --sync-start */
	bool clear;			/* --data-clear */
	bool list;			/* list mode */
	bool help;			/* -h */
};

struct diag_ids {
	unsigned int n;
	uint64_t *id;
	char **name;			/* column names */
};

void diag_opts_init(struct diag_opts *o);
/*
 * argv[1..] into @o (a -j file is read where it appears; later flags
 * override it).  0, or -EINVAL with a message in @err.
 */
int diag_parse_args(int argc, char **argv, struct diag_opts *o, char *err,
		    size_t errlen);
/* The flags of a -j JSON file: {"sample-period": 100000, ...}. */
int diag_opts_from_json(const char *path, struct diag_opts *o, char *err,
			size_t errlen);
/* The same from a string (tests). */
int diag_opts_from_json_str(const char *text, struct diag_opts *o, char *err,
			    size_t errlen);

/* {"data_ids": [{"name": "port_rx_bytes.p0", "data_id": "0x..."}, ...]} */
int diag_ids_from_json(const char *path, struct diag_ids *ids, char *err,
		       size_t errlen);
int diag_ids_from_json_str(const char *text, struct diag_ids *ids, char *err,
			   size_t errlen);
int diag_ids_to_json(const char *path, const struct diag_ids *ids);
/* The JSON text (malloc'd) of @ids, or NULL. */
char *diag_ids_to_json_str(const struct diag_ids *ids);
/* The default data IDs (-e and no -di). */
int diag_ids_default(struct diag_ids *ids);
void diag_ids_free(struct diag_ids *ids);

/* CSV: "sample_id,first_timestamp_ns,last_timestamp_ns,<name>..." */
void diag_csv_header(FILE *f, const struct diag_ids *ids);
void diag_csv_row(FILE *f, const struct upmu_diag_sample *s,
		  const uint64_t *values, unsigned int n);

#endif
