// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in for perf in perfdata_fuzz_test.sh's check of the fuzzer
 * itself: by the size of the file after -i (mod 3) it dies of SIGSEGV,
 * prints a UBSan report in upmu's code and exits 87, or does not exit
 * (sleeps 100 s), so that every kind of failure comes up among a few
 * mutants.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct stat st;
	int i;

	for (i = 1; i < argc - 1; i++) {
		if (strcmp(argv[i], "-i") || stat(argv[i + 1], &st))
			continue;
		switch (st.st_size % 3) {
		case 0:
			raise(SIGSEGV);
			break;
		case 1:
			fprintf(stderr, "upmu-nic.c:1:1: runtime error: a stand-in\n"
				"    #0 0x1 in upmu_nic_decode upmu-nic.c:1\n");
			return 87;
		default:
			sleep(100);
		}
	}
	return 0;
}
