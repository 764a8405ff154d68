#!/usr/bin/env bash
# Runs every fuzz target of a fuzz build over its seed corpus for a while; exits non-zero when any
# target finds something (a crash, a sanitizer report, a leak, a timeout, memory beyond the limit).
#
#   tests/fuzz/run_fuzzers.sh [--seconds S] [--runs N] [--jobs J] [--build DIR] [--work DIR] [TARGET…]
#
# Defaults: 20 s per target (with both limits, whichever comes first), one target per core at a
# time, build/asan, a fresh temporary work folder. The seeds in
# tests/fuzz/corpus/<target> are read, never written: new inputs go to WORK/corpus/<target>,
# findings to WORK/findings/<target>-crash-…; one line of figures per target goes to
# WORK/figures.tsv (target, executions, seconds, executions/s, edges covered, features, corpus
# units, corpus bytes). CI runs it briefly so that a new crash fails the build; a long run
# (--seconds 3600 or --runs 1000000) is how the figures in the README were made.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=""
runs=""
build=build/asan
parallel=$(nproc 2>/dev/null || echo 1)
work=""
targets=()
while [[ $# -gt 0 ]]; do
    case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --jobs) parallel="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) targets+=("$1"); shift ;;
    esac
done
[[ -n "$work" ]] || work="$(mktemp -d)"
mkdir -p "$work/findings"
if [[ ${#targets[@]} -eq 0 ]]; then
    for f in tests/fuzz/corpus/*/; do targets+=("$(basename "$f")"); done
fi
limits=(-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 -print_final_stats=1)
# --runs and --seconds together: whichever comes first; neither: 20 s.
[[ -n "$runs" || -n "$seconds" ]] || seconds=20
[[ -z "$runs" ]] || limits+=(-runs="$runs")
[[ -z "$seconds" ]] || limits+=(-max_total_time="$seconds")
for t in "${targets[@]}"; do
    exe="$build/bin/fuzz_$t"
    [[ -x "$exe" ]] || { echo "no fuzz target $exe (cmake --preset asan && cmake --build --preset fuzz)" >&2; exit 2; }
done

# fuzz_one TARGET: one libFuzzer run; its exit status goes to WORK/TARGET.status, its figures to
# WORK/TARGET.figures. Each run is one process on one core, so --jobs of them run side by side.
fuzz_one() {
    local t=$1 status=0 start last execs secs cov ft units rate=0
    mkdir -p "$work/corpus/$t"
    start=$(date +%s)
    "$build/bin/fuzz_$t" "${limits[@]}" -artifact_prefix="$work/findings/$t-" "$work/corpus/$t" \
        "tests/fuzz/corpus/$t" > "$work/$t.log" 2>&1 || status=$?
    # The status first, so that a finding is reported even if its log is not what is parsed below
    # (a crash report prints the final statistics a second time).
    echo "$status" > "$work/$t.status"
    last=$(grep -E '^#[0-9]+' "$work/$t.log" | tail -1 || true)
    execs=$(grep -oE 'stat::number_of_executed_units: [0-9]+' "$work/$t.log" | grep -oE '[0-9]+$' | tail -1 || echo 0)
    secs=$(( $(date +%s) - start ))
    cov=$(grep -oE 'cov: [0-9]+' <<< "$last" | grep -oE '[0-9]+' || echo 0)
    ft=$(grep -oE 'ft: [0-9]+' <<< "$last" | grep -oE '[0-9]+' || echo 0)
    units=$(grep -oE 'corp: [0-9]+/[0-9]+[a-zA-Z]*' <<< "$last" | sed 's/corp: //' || echo 0)
    [[ "$secs" -gt 0 ]] && rate=$((execs / secs))
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "$execs" "$secs" "$rate" "$cov" "$ft" \
        "${units%%/*}" "${units##*/}" > "$work/$t.figures"
    echo "== $t: $execs executions in $secs s, $cov edges, corpus $units" >&2
}

for t in "${targets[@]}"; do
    while (( $(jobs -rp | wc -l) >= parallel )); do wait -n || true; done
    fuzz_one "$t" &
done
wait

printf 'target\texecutions\tseconds\texec_per_s\tedges\tfeatures\tcorpus_units\tcorpus_bytes\n' > "$work/figures.tsv"
findings=0
for t in "${targets[@]}"; do
    cat "$work/$t.figures" >> "$work/figures.tsv"
    status=$(cat "$work/$t.status")
    if [[ $status -ne 0 ]]; then
        echo "FINDING in $t (exit $status): the input is in $work/findings; the last lines of the log:" >&2
        tail -40 "$work/$t.log" >&2
        findings=$((findings + 1))
    fi
done
column -t "$work/figures.tsv" >&2 || cat "$work/figures.tsv" >&2
if ((findings > 0)); then
    echo "$findings of ${#targets[@]} fuzz targets found something" >&2
    exit 1
fi
