#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Static checks of driver/:
#   scripts/lint.sh sparse [KDIR]       every file through sparse (C=2)
#   scripts/lint.sh checkpatch [KSRC]   checkpatch.pl --strict
# Exits non-zero on any finding.
set -euo pipefail
. "$(dirname "$0")/common.sh"
cd "$UPMU_TOP"

case ${1:-} in
sparse)
	log=$(mktemp)
	CHECK=$(scripts/sparse.sh) C=2 W=1 scripts/build-modules.sh "${2:-}" \
		>/dev/null 2>"$log" || { cat "$log"; exit 1; }
	# Kbuild turns C= off (with a warning) when sparse is unusable.
	grep -E 'warning|error' "$log" && { rm -f "$log"; exit 1; }
	rm -f "$log"
	echo "sparse: clean"
	;;
checkpatch)
	ksrc=${2:-$(scripts/ksrc.sh)}
	cp="$ksrc/scripts/checkpatch.pl --strict --no-tree --terse --show-types"
	files=$(find driver -name '*.[ch]' ! -name upmu_compat.h | sort)
	# shellcheck disable=SC2086
	$cp -f $files
	# The compat header exists to test kernel versions and name types.
	$cp --ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON,NEW_TYPEDEFS,CONST_STRUCT \
		-f driver/include/upmu_compat.h
	echo "checkpatch: clean"
	;;
*)
	echo "usage: $0 sparse [KDIR] | checkpatch [KSRC]" >&2
	exit 2
	;;
esac
