#!/usr/bin/env bash
# Paper 002 (Sheth & Khardon), Figures 4, 5 and 6, in one command: generalized PMF with the
# binary, count and ordinal likelihoods, each on an artificial fully observed matrix drawn from
# the model and on real data (MovieLens for binary — ratings 1 and 5 — and ordinal, Last.fm plays
# for count), H-MC-SSVI against S-DSVI for several per-column subsample sizes: the Monte Carlo
# bound (Figure 4), the test NLL per observation (Figure 5) and the likelihood's error measure
# (Figure 6: zero-one error, relative error on non-zero counts, absolute error) against
# training time. Every run uses the paper's settings, svi's preset paper-002-fig4-6 (10 × 10
# samples, σ² = 1 learnt by eq. 68, ordinal slope 100 and δ = 15 with fixed cut points, q started
# at variance 1; svi's defaults differ), and D latent dimensions.
#
# Usage (from the repository root):
#   scripts/reproduce/002-fig4-6.sh [options] MOVIELENS LASTFM
# MOVIELENS is a MovieLens ratings file or folder (ml-100k, ml-1m, …), LASTFM Last.fm 2K's
# user_artists.dat or its folder.
# Options (defaults in brackets):
#   --D N               latent dimensions [100, the paper's]
#   --subsamples LIST   entries per column update, 0 = all of them [50,0]
#   --seconds S         training-seconds budget of each run [300]
#   --eval-every S      a snapshot every S training seconds [10]
#   --size N            users = items of the artificial matrices [1000, the paper's]
#   --only LIST         the data sets to run, of binary-artificial, binary-real,
#                       count-artificial, count-real, ordinal-artificial, ordinal-real [all]
#   --seed N            the data's and the runs' seed [1]
#   --svi PATH          the svi binary [build/release/bin/svi]
#   --out DIR           output folder [results/002-fig4-6]
#
# Output: one svi compare folder per data set and subsample size, DIR/DATA-sS; for each data set
# DIR/fig4-DATA.png (the bound), fig5-DATA.png (test NLL), fig6-DATA.png (the error measure),
# every run of every subsample size on one chart; and a table on stdout, also DIR/fig4-6.md: each
# run's bound, test NLL and error at the end (a full evaluation) and its seconds per step.
# Snapshots score eval_entries = 5,000 entries; the end scores all of them.
#
# Exit status: 0 when every run ended normally; 2 for bad options or unreadable data; 3 when a
# run failed or diverged; 130 when interrupted.
set -euo pipefail

script=002-fig4-6
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

dims=100
subsamples=50,0
seconds=300
eval_every=10
size=1000
only=binary-artificial,binary-real,count-artificial,count-real,ordinal-artificial,ordinal-real
seed=1
svi=build/release/bin/svi
out=results/002-fig4-6
files=()
while (($#)); do
  case $1 in
  --D) dims=${2:?--D needs a value}; shift 2 ;;
  --subsamples) subsamples=${2:?--subsamples needs a list}; shift 2 ;;
  --seconds) seconds=${2:?--seconds needs a value}; shift 2 ;;
  --eval-every) eval_every=${2:?--eval-every needs a value}; shift 2 ;;
  --size) size=${2:?--size needs a value}; shift 2 ;;
  --only) only=${2:?--only needs a list}; shift 2 ;;
  --seed) seed=${2:?--seed needs a value}; shift 2 ;;
  --svi) svi=${2:?--svi needs a path}; shift 2 ;;
  --out) out=${2:?--out needs a folder}; shift 2 ;;
  -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  -*) die "unknown option '$1' (see --help)" ;;
  *) files+=("$1"); shift ;;
  esac
done
((${#files[@]} == 2)) || die "give the MovieLens and the Last.fm ratings (see --help)"
for n in "$dims" "$size" "$seed"; do
  [[ $n =~ ^[0-9]+$ ]] || die "--D, --size and --seed take whole numbers, not '$n'"
done
[[ $subsamples =~ ^[0-9]+(,[0-9]+)*$ ]] || die "--subsamples takes whole numbers, as 50,0"
command -v "$svi" > /dev/null || die "no svi binary at '$svi' (build it, or pass --svi PATH)"
for f in "${files[@]}"; do
  [[ -e $f ]] || die "cannot read '$f': no such file or folder"
done
IFS=, read -ra sizes <<< "$subsamples"
IFS=, read -ra sets <<< "$only"

mkdir -p "$out"
run_set() { # data set name
  local name=$1 likelihood=${1%%-*} where=${1#*-} data=() metric
  case $where in
  artificial)
    data=(synthetic-ratings --likelihood "$likelihood" --rows "$size" --cols "$size"
      --true-d "$dims" --heldout 0.2) ;;
  real)
    if [[ $likelihood == count ]]; then data=("${files[1]}"); else data=("${files[0]}"); fi
    ;; # the preset holds out 20 % of each user's ratings, none for validation
  *) die "unknown data set '$name' (see --help)" ;;
  esac
  case $likelihood in
  binary) metric=test_error ;;
  count) metric=test_relative_error ;;
  ordinal) metric=test_abs_error ;;
  *) die "unknown data set '$name' (see --help)" ;;
  esac
  local folders=() s
  for s in "${sizes[@]}"; do
    compare_into "$out/$name-s$s" "${data[@]}" --split-seed "$seed" \
      --model gpmf --preset paper-002-fig4-6 --algorithms h-mc-ssvi,s-dsvi \
      --set likelihood="$likelihood" --set D="$dims" --set subsample="$s" --seed "$seed" \
      --seconds "$seconds" --eval-every "$eval_every" --quiet
    folders+=("$out/$name-s$s")
  done
  "$svi" plot "${folders[@]}" --metric elbo --out "$out/fig4-$name.png" --quiet
  "$svi" plot "${folders[@]}" --metric test_nll --out "$out/fig5-$name.png" --quiet
  "$svi" plot "${folders[@]}" --metric "$metric" --out "$out/fig6-$name.png" --quiet
}
for name in "${sets[@]}"; do
  run_set "$name"
done

python3 - "$out" "${sets[@]}" << 'PY'
import csv, glob, json, os, sys

out, sets = sys.argv[1], sys.argv[2:]
error = {"binary": ("test_error", "zero-one error %"), "count": ("test_relative_error",
         "relative error"), "ordinal": ("test_abs_error", "absolute error")}
lines = ["| data | subsample | algorithm | bound | test NLL | error | s/step |",
         "|---|---|---|---|---|---|---|"]
for name in sets:
    key, what = error[name.split("-")[0]]
    for folder in sorted(glob.glob(os.path.join(out, name + "-s*"))):
        sub = folder.rsplit("-s", 1)[1]
        results = json.load(open(os.path.join(folder, "results.json")))
        for r in results["rows"]:
            s = r["summary"]
            bound = ""
            for path in glob.glob(os.path.join(folder, f"{r['model']}-{r['algorithm']}*",
                                               "trace.csv")):
                rows = list(csv.DictReader(open(path)))
                if rows and rows[-1].get("elbo"):
                    bound = f"{float(rows[-1]['elbo']):.4g}"
            err = f"{s[key]['mean']:.4f} ({what})" if key in s else ""
            lines.append(f"| {name} | {'all' if sub == '0' else sub} | {r['label']} | {bound} | "
                         f"{s['test_nll']['mean']:.4f} | {err} | "
                         f"{s['seconds_per_step']['mean']:.4f} |")
table = "\n".join(lines)
print(table)
with open(os.path.join(out, "fig4-6.md"), "w") as f:
    f.write(table + "\n")
PY
exit "$status"
