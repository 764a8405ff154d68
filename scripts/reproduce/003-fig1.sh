#!/usr/bin/env bash
# Paper 003 (Knowles 2015), Figure 1, in one command: gamma SGVB on the infinite edge partition
# model of the NIPS co-authorship graph (N = 234, 20 % of the node pairs held out, split_seed 1)
# with each step-size rule of its Sec. 2.4 — plain SGD, AdaGrad, RMSprop, AdaDelta, and Adam
# beside them — each without momentum and with momentum λ = 0.9, 1,000 steps each: the ELBO
# against steps (the paper's left panel, which plots its negative) and the ELBO after 1,000
# steps (its right panel). The rules' constants are the paper's: SGD at rate 0.001, AdaGrad
# 0.1 and 10⁻⁶, RMSprop 0.01 with decay 0.9, AdaDelta ρ = 0.9 and ε = 10⁻⁴ (svi list shows
# them). The paper does not give K for this figure; K = 10 is its timed setting.
#
# Usage (from the repository root):
#   scripts/reproduce/003-fig1.sh [options] NIPS234
# e.g. scripts/reproduce/003-fig1.sh data/graphs/nips234_coauthor_adjacency.csv
# Options (defaults in brackets):
#   --k K             truncation [10]
#   --steps N         steps of each run [1000]
#   --eval-every S    a snapshot (the bound from elbo_samples = 20 draws) every S training
#                     seconds [0.02: about 15 steps]
#   --seed N          the runs' seed (the draws of q) [1]
#   --threads N       OpenMP threads of each run; 0 = the machine's [0]
#   --svi PATH        the svi binary [build/release/bin/svi]
#   --out DIR         output folder [results/003-fig1]
#
# Output: DIR/<optimizer>-<none|momentum>/ (one `svi run` folder each, e.g. adadelta-momentum;
# a finished one is not run again),
# DIR/fig1-elbo-none.png and DIR/fig1-elbo-momentum.png (each optimizer's ELBO against steps,
# drawn by svi plot from DIR/fig1-elbo-*.csv, every 20 steps the last snapshot's; the y axis
# starts at the lowest ELBO any run has after 100 steps, so that the first steps' transient
# does not flatten the rest), DIR/fig1-final.csv and DIR/fig1-final.png (the ELBO at the end of
# each optimizer, without and with momentum: the mean of its snapshots over the last fifth of
# the steps, as one snapshot's moves by a hundred nats; x = 1 … 5 in the order sgd,
# adagrad, rmsprop, adadelta, adam) and DIR/fig1.md, a table also printed on stdout.
#
# Exit status: 0 when every run ended normally; 2 for bad options or unreadable data; 3 when a
# run failed or diverged; 130 when interrupted.
set -euo pipefail

script=003-fig1
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

k=10
steps=1000
eval_every=0.02
seed=1
threads=0
svi=build/release/bin/svi
out=results/003-fig1
files=()
while (($#)); do
  case $1 in
  --k) k=${2:?--k needs a value}; shift 2 ;;
  --steps) steps=${2:?--steps needs a value}; shift 2 ;;
  --eval-every) eval_every=${2:?--eval-every needs a value}; shift 2 ;;
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
require_svi_and_files "${files[0]}"

optimizers=(sgd adagrad rmsprop adadelta adam)
mkdir -p "$out"
for o in "${optimizers[@]}"; do
  for m in none momentum; do
    lambda=0
    [[ $m == momentum ]] && lambda=0.9
    dir=$out/$o-$m
    run_into "$dir" "${files[0]}" --kind graph --split-seed 1 --model epm --algorithm gamma-sgvb \
      --set K="$k" --set optimizer="$o" --set momentum="$lambda" --set elbo_samples=20 \
      --steps "$steps" --eval-every "$eval_every" --seed "$seed" --threads "$threads"
  done
done

python3 - "$out" "${optimizers[@]}" << 'PY'
import csv, math, os, sys

out, optimizers = sys.argv[1], sys.argv[2:]
def trace(run):
    return [(int(r["step"]), float(r["elbo"]))
            for r in csv.DictReader(open(os.path.join(out, run, "trace.csv")))]
lines = ["| optimizer | no momentum | momentum 0.9 |", "|---|---|---|"]
table = ["optimizer,no momentum,momentum 0.9"]
low = math.inf
for i, o in enumerate(optimizers, 1):
    finals = []
    for m in ("none", "momentum"):
        t = trace(f"{o}-{m}")
        # One snapshot's bound moves by a hundred nats or more from one to the next (q's own
        # draws of the step, and the 20 draws of the estimate): the mean of the snapshots in
        # the last fifth of the steps is the figure to compare.
        tail = [e for s, e in t if s > 0.8 * t[-1][0]] if t else []
        finals.append(sum(tail) / len(tail) if tail else math.nan)
        low = min([low] + [e for s, e in t if s >= 100 and math.isfinite(e)])
    lines.append(f"| {o} | {finals[0]:.1f} | {finals[1]:.1f} |")
    table.append(f"{i},{finals[0]:.6g},{finals[1]:.6g}")
text = ("ELBO at the end: the mean of the snapshots (20 draws of q each) over the last fifth "
        "of the steps:\n\n") + "\n".join(lines)
open(os.path.join(out, "fig1.md"), "w").write(text + "\n")
open(os.path.join(out, "fig1-final.csv"), "w").write("\n".join(table) + "\n")
# The ELBO against steps, one table per momentum, each run's value at a step its last
# snapshot's (steps 20, 40, …, as the paper records it), so that the lines share one x grid.
for m in ("none", "momentum"):
    traces = {o: trace(f"{o}-{m}") for o in optimizers}
    last_step = max((t[-1][0] for t in traces.values() if t), default=0)
    rows = ["step," + ",".join(optimizers)]
    for step in range(20, last_step + 1, 20):
        cells = []
        for o in optimizers:
            before = [e for s, e in traces[o] if s <= step]
            cells.append(f"{before[-1]:.6g}" if before else "")
        rows.append(f"{step}," + ",".join(cells))
    open(os.path.join(out, f"fig1-elbo-{m}.csv"), "w").write("\n".join(rows) + "\n")
# The y axis from the lowest ELBO any run has after 100 steps: the first steps' transient
# (tens of thousands below) would flatten the rest.
open(os.path.join(out, "y-low"), "w").write(f"{low - 0.02 * abs(low):.6g}\n" if math.isfinite(low) else "\n")
print(text)
PY

for m in none momentum; do
  title="Gamma SGVB, EPM on NIPS-234 (K = $k): ELBO against steps, no momentum"
  [[ $m == momentum ]] && title="Gamma SGVB, EPM on NIPS-234 (K = $k): ELBO against steps, momentum 0.9"
  "$svi" plot --table "$out/fig1-elbo-$m.csv" --y-range "$(cat "$out/y-low")," \
    --out "$out/fig1-elbo-$m.png" --quiet --title "$title" --y-title "ELBO"
done
"$svi" plot --table "$out/fig1-final.csv" --out "$out/fig1-final.png" --quiet \
  --title "ELBO after $steps steps: 1 sgd, 2 adagrad, 3 rmsprop, 4 adadelta, 5 adam" \
  --y-title "ELBO"
exit "$status"
