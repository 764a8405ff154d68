#!/usr/bin/env bash
# Paper 002 (Sheth & Khardon), Figure 3, in one command: sparse GP regression on California
# housing (cadata, 67/33 split, labels and features z-scored on the training rows), the RBF
# kernel's hyperparameters by the paper's grid search, one fixed random inducing set (1 % of the
# rows: 206), and for each training-set size n a random subset of the training rows fitted by
# the closed form of each objective: the standard bound (3), the optimal bound (6) (cubic: up
# to --optimal-max rows), and the variants v1 and v2. Each size is repeated over seeds (the
# seed draws the subset; every objective sees the same subsets). The figure is the paper's: the
# test NLL of each objective minus the standard bound's on the same subset, averaged over the
# repeats (negative: better than the standard bound); fig3-absolute.png is its Figure 9.
#
# Usage (from the repository root):
#   scripts/reproduce/002-fig3.sh [options] CADATA
# Options (defaults in brackets):
#   --sizes "N1 N2 …"  training-set sizes [100 200 500 1000 2000 5000]
#   --repeats R        subsets per size [10]
#   --optimal-max N    the largest size the optimal bound is solved at [1000]
#   --v2-seconds S     v2's coordinate ascent stops after S training seconds if it has not
#                      converged [30]
#   --given L,S2,N     the kernel's length scale, its variance and the noise variance instead of
#                      the grid search (on the z-scored features and label)
#   --svi PATH         the svi binary [build/release/bin/svi]
#   --out DIR          output folder [results/002-fig3]
#
# Output: DIR/<objective>/n<N> (svi compare folders, one run per repeat), DIR/fig3.csv (n and
# the mean difference of each objective to the standard bound), DIR/fig3-absolute.csv (n and
# each objective's mean test NLL), DIR/fig3.png and DIR/fig3-absolute.png (drawn by svi plot),
# and both tables on stdout. Test NLL is per test row, on the label's own scale (dollars).
#
# Exit status: 0 when every run ended normally; 2 for bad options or unreadable data; 3 when a
# run failed or diverged; 130 when interrupted.
set -euo pipefail

script=002-fig3
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

sizes="100 200 500 1000 2000 5000"
repeats=10
optimal_max=1000
v2_seconds=30
given=
svi=build/release/bin/svi
out=results/002-fig3
files=()
while (($#)); do
  case $1 in
  --sizes) sizes=${2:?--sizes needs a list}; shift 2 ;;
  --repeats) repeats=${2:?--repeats needs a value}; shift 2 ;;
  --optimal-max) optimal_max=${2:?--optimal-max needs a value}; shift 2 ;;
  --v2-seconds) v2_seconds=${2:?--v2-seconds needs a value}; shift 2 ;;
  --given) given=${2:?--given needs L,S2,N}; shift 2 ;;
  --svi) svi=${2:?--svi needs a path}; shift 2 ;;
  --out) out=${2:?--out needs a folder}; shift 2 ;;
  -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  -*) die "unknown option '$1' (see --help)" ;;
  *) files+=("$1"); shift ;;
  esac
done
((${#files[@]} == 1)) || die "give the cadata file (LIBSVM, see --help)"
[[ $repeats =~ ^[1-9][0-9]*$ ]] || die "--repeats must be a whole number ≥ 1, not '$repeats'"
[[ $optimal_max =~ ^[0-9]+$ ]] || die "--optimal-max must be a whole number, not '$optimal_max'"
for n in $sizes; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || die "--sizes: '$n' is not a whole number ≥ 1"
done
require_svi_and_files "${files[0]}"

hyper=()
if [[ -n $given ]]; then
  IFS=, read -r l s2 noise extra <<< "$given"
  [[ -n $l && -n $s2 && -n $noise && -z $extra ]] || die "--given must be L,S2,N, not '$given'"
  hyper=(--set hyperparameters=given --set length_scale="$l" --set kernel_variance="$s2"
    --set noise_variance="$noise")
fi

mkdir -p "$out"
common=("${files[0]}" --label-kind real --test-share 0.33 --model sgp --algorithms closed-form
  --repeats "$repeats" --steps 100000 --quiet "${hyper[@]}")
objectives=(standard optimal v1 v2)
run() { # objective, n
  local budget=()
  [[ $1 == v2 ]] && budget=(--seconds "$v2_seconds")
  compare_into "$out/$1/n$2" "${common[@]}" "${budget[@]}" --set bound="$1" --set train_rows="$2"
}
# The test NLL of each repeat of a compare folder, one per line in repeat order.
nlls() {
  local r
  for ((r = 1; r <= repeats; ++r)); do
    sed -n 's/^ *"test_nll": *\([^,]*\),\{0,1\}$/\1/p' "$1/sgp-closed-form-r$r/summary.json" |
      head -n 1
  done
}

for n in $sizes; do
  for o in "${objectives[@]}"; do
    [[ $o == optimal ]] && ((n > optimal_max)) && continue
    run "$o" "$n"
  done
done

{
  echo "training rows,optimal (6),v1,v2"
  for n in $sizes; do
    line=$n
    for o in optimal v1 v2; do
      if [[ -d $out/$o/n$n ]]; then
        line+=,$(paste -d, <(nlls "$out/$o/n$n") <(nlls "$out/standard/n$n") |
          awk -F, '{ s += $1 - $2 } END { printf "%.6g", s / NR }')
      else
        line+=,
      fi
    done
    echo "$line"
  done
} > "$out/fig3.csv"
{
  echo "training rows,standard (3),optimal (6),v1,v2"
  for n in $sizes; do
    line=$n
    for o in "${objectives[@]}"; do
      if [[ -d $out/$o/n$n ]]; then
        line+=,$(nlls "$out/$o/n$n" | awk '{ s += $1 } END { printf "%.6g", s / NR }')
      else
        line+=,
      fi
    done
    echo "$line"
  done
} > "$out/fig3-absolute.csv"

"$svi" plot --table "$out/fig3.csv" --log-x --out "$out/fig3.png" --quiet \
  --title "Sparse GP on California housing: test NLL minus the standard bound's (mean of $repeats)" \
  --y-title "Δ test NLL per row (nats)"
"$svi" plot --table "$out/fig3-absolute.csv" --log-x --out "$out/fig3-absolute.png" --quiet \
  --title "Sparse GP on California housing: test NLL (mean of $repeats)" \
  --y-title "test NLL per row (nats)"
echo "Test NLL minus the standard bound's, mean of $repeats subsets ($out/fig3.csv):"
column -s, -t < "$out/fig3.csv"
echo
echo "Test NLL per test row ($out/fig3-absolute.csv):"
column -s, -t < "$out/fig3-absolute.csv"
exit "$status"
