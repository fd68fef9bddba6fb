# CLI: one search space for every Hopper card (#44 item 5).
# search_spaces/h200.yaml names no device figure outside its comments: its
# constraints read the probe's (sm_count, smem_optin, smem_sm,
# smem_reserved, l2_bytes, max_cluster). Dry runs with the figures of an
# H100 SXM (132 SMs, 50 MiB of L2) and an H100 PCIe (114 SMs) plan a
# sweep in which every shape gets candidates (--strict). The H100 figures
# are NVIDIA's published ones for those parts (compute capability 9.0:
# 227 KiB a block, 228 KiB an SM, 1 KiB reserved a block), not measured
# here; a sweep reads its own GPU's from the worker.
. "$(dirname "$0")/lib.sh"

space=search_spaces/h200.yaml
check "no SM count, shared-memory or L2 figure outside the comments" bash -c \
	"! sed 's/#.*//' $space | grep -nE '\\b(132|114|78|66|232448|233472|62914560|52428800)\\b'"
profile() {   # NAME SMS L2
	printf 'name: %s\nsm_count: %s\nsmem_optin: 232448\nsmem_sm: 233472\nsmem_reserved: 1024\nl2_bytes: %s\nmax_cluster: 8\n' \
		"$1" "$2" "$3" >"$TMP/$2.yaml"
}
profile "H100 SXM" 132 52428800
profile "H100 PCIe" 114 52428800
expect_exit "dry run on the H200's figures: exit 0" 0 "$GEMMTAB" sweep --space $space --dry-run --strict
expect_line "the H200's plan" "$TMP/out" \
	"total: 40606 candidates (2072 pruned statically), 11267 instantiations to compile"
expect_exit "dry run on an H100 SXM's figures, every shape with candidates: exit 0" 0 \
	"$GEMMTAB" sweep --space $space --dry-run --strict --device-profile "$TMP/132.yaml"
expect_line "the same plan as the H200's (same SMs and shared memory)" "$TMP/out" \
	"total: 40606 candidates (2072 pruned statically), 11267 instantiations to compile"
expect_exit "dry run on an H100 PCIe's figures, every shape with candidates: exit 0" 0 \
	"$GEMMTAB" sweep --space $space --dry-run --strict --device-profile "$TMP/114.yaml"
expect_line "a plan of its own for 114 SMs" "$TMP/out" \
	"total: 40028 candidates (1716 pruned statically), 11722 instantiations to compile"
finish
