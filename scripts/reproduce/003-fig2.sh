#!/usr/bin/env bash
# Paper 003 (Knowles 2015), Figure 2, in one command: the ELBO (/1000) that gamma SGVB reaches
# on the infinite edge partition model of the NIPS co-authorship graph (N = 234, 20 % of the
# node pairs held out, split_seed 1) after 1,000 AdaDelta steps, for each AdaDelta ρ (the
# newest square's weight, as the paper writes it) and momentum λ, as a grid: ρ from 0.684 to
# 0.99 (1 − 10^(−½), 1 − 10^(−1), 1 − 10^(−3/2), 1 − 10^(−2)) against 1 − λ in 1, 0.3, 0.1,
# 0.03, 0.01 (1 − λ = 1: no momentum). The paper does not give K for this figure; K = 10 is its
# timed setting. The final ELBO is one evaluation from 100 draws of q (elbo_samples), not the
# 10 of a live snapshot.
#
# Usage (from the repository root):
#   scripts/reproduce/003-fig2.sh [options] NIPS234
# e.g. scripts/reproduce/003-fig2.sh data/graphs/nips234_coauthor_adjacency.csv
# Options (defaults in brackets):
#   --k K              truncation [10]
#   --steps N          AdaDelta steps of each run [1000]
#   --rhos "R1 R2 …"   AdaDelta's ρ [0.684 0.9 0.968 0.99]
#   --forget "F1 …"    the values of 1 − λ [1 0.3 0.1 0.03 0.01]
#   --seed N           the runs' seed (the draws of q) [1]
#   --threads N        OpenMP threads of each run; 0 = the machine's [0]
#   --svi PATH         the svi binary [build/release/bin/svi]
#   --out DIR          output folder [results/003-fig2]
#
# Output: DIR/rho<ρ>-f<1 − λ>/ (one `svi run` folder each; a finished one is not run again),
# DIR/fig2.csv (1 − λ, then the ELBO/1000 of each ρ), DIR/fig2.png (drawn by svi plot, log x),
# DIR/fig2.md (the grid as the paper lays it out: ρ by row, 1 − λ by column) and that table on
# stdout.
#
# Exit status: 0 when every run ended normally; 2 for bad options or unreadable data; 3 when a
# run failed or diverged; 130 when interrupted.
set -euo pipefail

script=003-fig2
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

k=10
steps=1000
rhos="0.684 0.9 0.968 0.99"
forget="1 0.3 0.1 0.03 0.01"
seed=1
threads=0
svi=build/release/bin/svi
out=results/003-fig2
files=()
while (($#)); do
  case $1 in
  --k) k=${2:?--k needs a value}; shift 2 ;;
  --steps) steps=${2:?--steps needs a value}; shift 2 ;;
  --rhos) rhos=${2:?--rhos needs a list}; shift 2 ;;
  --forget) forget=${2:?--forget needs a list}; shift 2 ;;
  --seed) seed=${2:?--seed needs a value}; shift 2 ;;
  --threads) threads=${2:?--threads needs a value}; shift 2 ;;
  --svi) svi=${2:?--svi needs a path}; shift 2 ;;
  --out) out=${2:?--out needs a folder}; shift 2 ;;
  -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  -*) die "unknown option '$1' (see --help)" ;;
  *) files+=("$1"); shift ;;
  esac
done
((${#files[@]} == 1)) || die "give the NIPS-234 graph file (see --help)"
for v in "$k" "$steps"; do
  [[ $v =~ ^[1-9][0-9]*$ ]] || die "--k and --steps must be whole numbers ≥ 1, not '$v'"
done
for f in $forget; do
  python3 -c "import sys; v = float(sys.argv[1]); sys.exit(0 if 0.001 <= v <= 1 else 1)" "$f" \
    2> /dev/null || die "--forget: '$f' is not a number in [0.001, 1]"
done
require_svi_and_files "${files[0]}"

for rho in $rhos; do
  for f in $forget; do
    dir=$out/rho$rho-f$f
    lambda=$(python3 -c "import sys; print(f'{1 - float(sys.argv[1]):.6g}')" "$f")
    run_into "$dir" "${files[0]}" --kind graph --split-seed 1 --model epm --algorithm gamma-sgvb \
      --set K="$k" --set optimizer=adadelta --set adadelta_rho="$rho" --set momentum="$lambda" \
      --set elbo_samples=100 --steps "$steps" --eval-every 1e6 --seed "$seed" \
      --threads "$threads"
  done
done

python3 - "$out" "$rhos" "$forget" << 'PY'
import json, math, os, sys

out, rhos, forget = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
def elbo(rho, f):
    s = json.load(open(os.path.join(out, f"rho{rho}-f{f}", "summary.json")))
    e = s.get("elbo")
    return e / 1000.0 if e is not None and math.isfinite(e) else math.nan
grid = {(r, f): elbo(r, f) for r in rhos for f in forget}
md = ["| ρ \\ 1 − λ | " + " | ".join(forget) + " |", "|---" * (len(forget) + 1) + "|"]
for r in rhos:
    md.append(f"| {r} | " + " | ".join(f"{grid[(r, f)]:.3f}" for f in forget) + " |")
csv = ["1 - lambda," + ",".join(f"rho {r}" for r in rhos)]
for f in forget:
    csv.append(f"{f}," + ",".join(f"{grid[(r, f)]:.6g}" for r in rhos))
text = "ELBO / 1000 after the last step (100 draws of q):\n\n" + "\n".join(md)
open(os.path.join(out, "fig2.md"), "w").write(text + "\n")
open(os.path.join(out, "fig2.csv"), "w").write("\n".join(csv) + "\n")
print(text)
PY
"$svi" plot --table "$out/fig2.csv" --log-x --out "$out/fig2.png" --quiet \
  --title "Gamma SGVB, EPM on NIPS-234 (K = $k): ELBO/1000 after $steps AdaDelta steps, against 1 − λ" \
  --y-title "ELBO / 1000"
exit "$status"
