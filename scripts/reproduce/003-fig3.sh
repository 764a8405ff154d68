#!/usr/bin/env bash
# Paper 003 (Knowles 2015), Figure 3, in one command: the infinite edge partition model on the
# NIPS co-authorship graph (N = 234), test AUC against the truncation K for gamma SGVB, Zhou's
# Gibbs sampler (the paper's "MCMC"), MAP and NormSGVB, over training/test splits that each hold
# out 20 % of all node pairs (split_seed 1 … S; the paper used 10). The budgets are the paper's
# script's (EPM_varyK.m): 1,000 steps for SGVB and MAP, each step one draw on the whole training
# graph, AdaDelta with ρ = 0.95 and momentum λ = 0.9; 1,500 burn-in sweeps and 1,500 kept
# samples for the sampler. The paper's MAP ran 1,000 conjugate-gradient evaluations; this MAP
# takes 1,000 of the same AdaDelta steps. The IRM row of the paper is not reproduced.
#
# Usage (from the repository root):
#   scripts/reproduce/003-fig3.sh [options] NIPS234
# e.g. scripts/reproduce/003-fig3.sh data/graphs/nips234_coauthor_adjacency.csv
# Options (defaults in brackets):
#   --ks "K1 K2 …"      truncation levels [10 20 30 40 50 60 70 80 90 100]
#   --splits S          splits, split_seed 1 … S [10]
#   --algorithms A,B    of gamma-sgvb, gibbs, map, norm-sgvb [all four]
#   --steps N           steps of SGVB and MAP [1000]
#   --burnin N          the sampler's burn-in sweeps [1500]
#   --samples N         the sampler's kept samples [1500]
#   --threads N         OpenMP threads of each run; 0 = the machine's [0]
#   --svi PATH          the svi binary [build/release/bin/svi]
#   --out DIR           output folder [results/003-fig3]
#
# Output: DIR/K<K>/split<S>/<algorithm>/ (one `svi run` folder each; a run whose summary.json
# says it finished is not run again, so an interrupted sweep resumes where it stopped),
# DIR/fig3.csv (K and each algorithm's mean test AUC), DIR/fig3.png (drawn by svi plot),
# DIR/fig3.md (mean ± sd over the splits, and the mean training seconds per run) and that
# table on stdout. Test AUC is the area under the ROC curve of the held-out pairs' predicted
# link probabilities (ties counted a half); the sampler's average its kept samples', SGVB's
# 100 draws of q (eval_draws), MAP's its point.
#
# Exit status: 0 when every run ended normally; 2 for bad options or unreadable data; 3 when a
# run failed or diverged; 130 when interrupted.
set -euo pipefail

script=003-fig3
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ks="10 20 30 40 50 60 70 80 90 100"
splits=10
algorithms=gamma-sgvb,gibbs,map,norm-sgvb
steps=1000
burnin=1500
samples=1500
threads=0
svi=build/release/bin/svi
out=results/003-fig3
files=()
while (($#)); do
  case $1 in
  --ks) ks=${2:?--ks needs a list}; shift 2 ;;
  --splits) splits=${2:?--splits needs a value}; shift 2 ;;
  --algorithms) algorithms=${2:?--algorithms needs a list}; shift 2 ;;
  --steps) steps=${2:?--steps needs a value}; shift 2 ;;
  --burnin) burnin=${2:?--burnin needs a value}; shift 2 ;;
  --samples) samples=${2:?--samples needs a value}; shift 2 ;;
  --threads) threads=${2:?--threads needs a value}; shift 2 ;;
  --svi) svi=${2:?--svi needs a path}; shift 2 ;;
  --out) out=${2:?--out needs a folder}; shift 2 ;;
  -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  -*) die "unknown option '$1' (see --help)" ;;
  *) files+=("$1"); shift ;;
  esac
done
((${#files[@]} == 1)) || die "give the NIPS-234 graph file (see --help)"
for v in "$splits" "$steps" "$samples"; do
  [[ $v =~ ^[1-9][0-9]*$ ]] || die "--splits, --steps and --samples must be whole numbers ≥ 1, not '$v'"
done
[[ $burnin =~ ^[0-9]+$ ]] || die "--burnin must be a whole number, not '$burnin'"
[[ $threads =~ ^[0-9]+$ ]] || die "--threads must be a whole number, not '$threads'"
for k in $ks; do
  [[ $k =~ ^[1-9][0-9]*$ ]] || die "--ks: '$k' is not a whole number ≥ 1"
done
IFS=, read -r -a algos <<< "$algorithms"
for a in "${algos[@]}"; do
  [[ $a =~ ^(gamma-sgvb|gibbs|map|norm-sgvb)$ ]] || die "--algorithms: unknown '$a'"
done
require_svi_and_files "${files[0]}"

for k in $ks; do
  for ((s = 1; s <= splits; ++s)); do
    for a in "${algos[@]}"; do
      common=("${files[0]}" --kind graph --test-share 0.2 --split-seed "$s" --model epm
        --algorithm "$a" --set K="$k" --threads "$threads" --eval-every 1e6)
      case $a in
      gibbs) budget=(--steps $((burnin + samples)) --set burnin="$burnin" --set samples="$samples") ;;
      *) budget=(--steps "$steps" --set adadelta_rho=0.95 --set momentum=0.9) ;;
      esac
      echo "$script: K = $k, split $s, $a" >&2
      run_into "$out/K$k/split$s/$a" "${common[@]}" "${budget[@]}"
    done
  done
done

python3 - "$out" "$splits" "$algorithms" $ks << 'PY'
import json, math, os, sys

out, splits, algos, ks = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(","), sys.argv[4:]
labels = {"gamma-sgvb": "Gamma SGVB", "gibbs": "Gibbs (Zhou 2015)", "map": "MAP",
          "norm-sgvb": "NormSGVB"}
def stats(values):
    values = [v for v in values if v is not None and math.isfinite(v)]
    if not values:
        return None, None, 0
    m = sum(values) / len(values)
    sd = math.sqrt(sum((v - m) ** 2 for v in values) / (len(values) - 1)) if len(values) > 1 else 0.0
    return m, sd, len(values)
def summary(k, s, a):
    path = os.path.join(out, f"K{k}", f"split{s}", a, "summary.json")
    if not os.path.exists(path):
        return None
    return json.load(open(path))
csv = ["K," + ",".join(labels[a] for a in algos)]
md = ["| K | " + " | ".join(labels[a] for a in algos) + " |", "|---" * (len(algos) + 1) + "|"]
secs = ["| K | " + " | ".join(labels[a] + " (s)" for a in algos) + " |", "|---" * (len(algos) + 1) + "|"]
for k in ks:
    cells, means, times = [], [], []
    for a in algos:
        runs = [summary(k, s, a) for s in range(1, splits + 1)]
        m, sd, n = stats([r["metrics"].get("auc_roc") if r else None for r in runs])
        t, _, _ = stats([r["train_seconds"] if r else None for r in runs])
        cells.append("–" if m is None else f"{m:.3f} ± {sd:.3f} ({n})")
        means.append("" if m is None else f"{m:.6g}")
        times.append("–" if t is None else f"{t:.1f}")
    csv.append(f"{k}," + ",".join(means))
    md.append(f"| {k} | " + " | ".join(cells) + " |")
    secs.append(f"| {k} | " + " | ".join(times) + " |")
table = ("Test AUC-ROC, mean ± sd over splits (runs):\n\n" + "\n".join(md) +
         "\n\nTraining seconds per run (mean):\n\n" + "\n".join(secs))
open(os.path.join(out, "fig3.csv"), "w").write("\n".join(csv) + "\n")
open(os.path.join(out, "fig3.md"), "w").write(table + "\n")
print(table)
PY
"$svi" plot --table "$out/fig3.csv" --out "$out/fig3.png" --quiet \
  --title "EPM on NIPS-234: test AUC against K (mean over $splits splits)" --y-title "test AUC"
exit "$status"
