#!/usr/bin/env bash
# Paper 003 (Knowles 2015), Figures 5 and 6, in one command: gamma process factor analysis on
# mass cytometry (the paper: 5.3·10⁵ cells × 40 proteins of Bendall et al. 2011; here any FCS
# or table files, e.g. the 12 Bodenmiller BCR-XL files stacked). The table kind's settings as
# they come (every marker channel, arcsinh(x/5) for CyTOF, columns standardised on the training
# rows) unless table options follow --; a row split holds out a share of the cells as test rows,
# the same for every N. Figure 5: for each training size N (the first N of one fixed order of
# the training rows, `--set train_rows=N`, so every method sees the same cells, nested as N
# grows), gamma SGVB (K = 40, 3,000 AdaDelta steps, ρ = 0.9, ε = 10⁻⁴, momentum 0.9, noise
# prior G(0.1, 0.1), Ĉ from 100 draws of q as eq. 20), the empirical covariance and Ledoit–Wolf
# shrinkage in one `svi compare`, scored by the perplexity of the test rows (their mean negative
# log-likelihood under N(0, Ĉ), nats per row). Figure 6: the empirical and the GPFA covariance
# and GPFA's ten heaviest factors' expected loadings at one N, as CSV and heatmaps (`svi plot
# --matrix`, the two covariances on one colour scale).
#
# Usage (from the repository root):
#   scripts/reproduce/003-fig5-6.sh [options] FILE... [-- TABLE OPTIONS]
# e.g. scripts/reproduce/003-fig5-6.sh data/cytometry/cytof/bodenmiller_bcr_xl/*.fcs
#      scripts/reproduce/003-fig5-6.sh FILES... -- --exclude BC1,BC2,BC3,BC4,BC5,BC6,BC7,DNA-1,DNA-2
# Options (defaults in brackets):
#   --ns LIST        training sizes [100,200,500,1000,2000,5000,10000]
#   --steps N        gamma SGVB steps [3000, the paper's]
#   --K N            factors [40, the paper's]
#   --heldout F      share of the cells held out as test rows [0.05]
#   --repeats R      runs of each method at each N, seeds 1…R (the rows stay the same) [1]
#   --fig6-n N       the training size of Figure 6 [the largest of --ns]
#   --threads T      OpenMP threads of each run [0 = the machine's]
#   --svi PATH       the svi binary [build/release/bin/svi]
#   --out DIR        output folder [results/003-fig5-6]
#
# Output: DIR/N<N>/ (an `svi compare` folder per N: a run folder per method, results.csv/json),
# DIR/fig5.csv (per N each method's mean test perplexity), DIR/fig5.png (drawn by `svi plot
# --table`, log N axis), DIR/fig6-empirical.csv, DIR/fig6-gpfa.csv (D × D, named rows and
# columns), DIR/fig6-loadings.csv (the ten heaviest factors × D, E[W_dk], each named with its
# share of Σ_k ‖E W_k‖²), DIR/fig6-empirical.png, fig6-gpfa.png and fig6-loadings.png, and a
# table on stdout, also DIR/fig5.md, with GPFA's training seconds. Lower perplexity is better.
#
# Exit status: 0 when every run ended normally; 2 for bad options or unreadable data; 3 when a
# run failed or diverged; 130 when interrupted.
set -euo pipefail

script=003-fig5-6
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ns=100,200,500,1000,2000,5000,10000
steps=3000
factors=40
heldout=0.05
repeats=1
fig6_n=
threads=0
svi=build/release/bin/svi
out=results/003-fig5-6
files=()
table_options=()
while (($#)); do
  case $1 in
  --ns) ns=${2:?--ns needs a list}; shift 2 ;;
  --steps) steps=${2:?--steps needs a value}; shift 2 ;;
  --K) factors=${2:?--K needs a value}; shift 2 ;;
  --heldout) heldout=${2:?--heldout needs a value}; shift 2 ;;
  --repeats) repeats=${2:?--repeats needs a value}; shift 2 ;;
  --fig6-n) fig6_n=${2:?--fig6-n needs a value}; shift 2 ;;
  --threads) threads=${2:?--threads needs a value}; shift 2 ;;
  --svi) svi=${2:?--svi needs a path}; shift 2 ;;
  --out) out=${2:?--out needs a folder}; shift 2 ;;
  --) shift; table_options=("$@"); break ;;
  -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  -*) die "unknown option '$1' (see --help)" ;;
  *) files+=("$1"); shift ;;
  esac
done
((${#files[@]} >= 1)) || die "give the FCS (or table) files (see --help)"
[[ $ns =~ ^[0-9]+(,[0-9]+)*$ ]] || die "--ns takes whole numbers separated by commas, not '$ns'"
for n in "$steps" "$factors" "$repeats" "$threads" ${fig6_n:+"$fig6_n"}; do
  [[ $n =~ ^[0-9]+$ ]] || die "--steps, --K, --repeats, --threads and --fig6-n take whole numbers, not '$n'"
done
[[ $heldout =~ ^0?\.[0-9]+$ ]] || die "--heldout must be a share in (0, 1), not '$heldout'"
if [[ -z $fig6_n ]]; then
  fig6_n=$(tr ',' '\n' <<< "$ns" | sort -n | tail -1)
fi
[[ ,$ns, == *,$fig6_n,* ]] || die "--fig6-n $fig6_n is not one of --ns $ns"
require_svi_and_files "${files[@]}"

mkdir -p "$out"
for n in ${ns//,/ }; do
  compare_into "$out/N$n" "${files[@]}" --kind table "${table_options[@]}" --split rows \
    --heldout "$heldout" --model gpfa --algorithms gamma-sgvb,empirical,ledoit-wolf \
    --set "train_rows=$n" --set "K=$factors" --steps "$steps" --eval-every 1000000 \
    --repeats "$repeats" --threads "$threads" --quiet
done

python3 - "$out" "$ns" "$fig6_n" << 'PY'
import csv, json, math, os, shutil, sys

out, ns, fig6 = sys.argv[1], [int(v) for v in sys.argv[2].split(",")], int(sys.argv[3])
methods = [("gamma-sgvb", "GPFA (gamma SGVB)"), ("empirical", "Empirical covariance"),
           ("ledoit-wolf", "Ledoit–Wolf")]
def fmt(v, d=3):
    return "–" if v is None or not math.isfinite(v) else f"{v:.{d}f}"
table = {}
for n in ns:
    res = json.load(open(os.path.join(out, f"N{n}", "results.json")))
    for r in res["rows"]:
        s = r["summary"]
        table[(n, r["algorithm"])] = (s.get("perplexity", {}).get("mean"),
                                      s.get("seconds_per_step", {}).get("mean"))
with open(os.path.join(out, "fig5.csv"), "w") as f:
    f.write("N," + ",".join(label for _, label in methods) + "\n")
    for n in ns:
        cells = [table.get((n, m), (None, None))[0] for m, _ in methods]
        f.write(f"{n}," + ",".join("" if c is None or not math.isfinite(c) else repr(c) for c in cells) + "\n")
lines = ["| training cells N | " + " | ".join(label for _, label in methods) +
         " | GPFA seconds |", "|---|---|---|---|---|"]
for n in ns:
    cells = [table.get((n, m), (None, None))[0] for m, _ in methods]
    best = min((c for c in cells if c is not None and math.isfinite(c)), default=None)
    text = [("**" + fmt(c) + "**") if c is not None and c == best else fmt(c) for c in cells]
    sps = table.get((n, "gamma-sgvb"), (None, None))[1]
    steps_json = os.path.join(out, f"N{n}", "gpfa-gamma-sgvb", "summary.json")
    if not os.path.exists(steps_json):
        steps_json = os.path.join(out, f"N{n}", "gpfa-gamma-sgvb-r1", "summary.json")
    secs = json.load(open(steps_json)).get("train_seconds") if os.path.exists(steps_json) else None
    lines.append(f"| {n:,} | " + " | ".join(text) + f" | {fmt(secs, 1)} |")
md = "\n".join(lines)
print(md)
open(os.path.join(out, "fig5.md"), "w").write(md + "\n")

# Figure 6: the run folder of GPFA at N = fig6 (the first repeat).
run = os.path.join(out, f"N{fig6}", "gpfa-gamma-sgvb")
if not os.path.isdir(run):
    run = os.path.join(out, f"N{fig6}", "gpfa-gamma-sgvb-r1")
shutil.copy(os.path.join(run, "covariance_empirical.csv"), os.path.join(out, "fig6-empirical.csv"))
shutil.copy(os.path.join(run, "covariance_model.csv"), os.path.join(out, "fig6-gpfa.csv"))
# The ten heaviest factors (loadings.csv lists them by weight), named with their weight, in the
# matrix layout `svi plot --matrix` reads: a header of names, a row name and values per line.
with open(os.path.join(run, "loadings.csv")) as f:
    rows = list(csv.reader(f))
with open(os.path.join(out, "fig6-loadings.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow([""] + rows[0][2:])
    for row in rows[1:11]:
        w.writerow([f"factor {row[0]} ({100 * float(row[1]):.1f} %)"] + row[2:])
PY
"$svi" plot --table "$out/fig5.csv" --log-x --y-title "test perplexity (nats per cell)" \
  --title "Perplexity against training size" --out "$out/fig5.png" --quiet
range=$(python3 - "$out" << 'PY'
import csv, os, sys
top = 0.0
for name in ("fig6-empirical.csv", "fig6-gpfa.csv"):
    rows = list(csv.reader(open(os.path.join(sys.argv[1], name))))[1:]
    for i, row in enumerate(rows):
        for j, v in enumerate(row[1:]):
            if i != j and v:
                top = max(top, abs(float(v)))
print(top)
PY
)
"$svi" plot --matrix "$out/fig6-empirical.csv" --range "$range" \
  --title "Empirical covariance, N = $fig6_n" --out "$out/fig6-empirical.png" --quiet
"$svi" plot --matrix "$out/fig6-gpfa.csv" --range "$range" \
  --title "GPFA covariance (eq. 20), N = $fig6_n" --out "$out/fig6-gpfa.png" --quiet
"$svi" plot --matrix "$out/fig6-loadings.csv" \
  --title "GPFA: the ten heaviest factors' E[W] (share of Σ‖E W_k‖²)" --out "$out/fig6-loadings.png" --quiet
exit "$status"
