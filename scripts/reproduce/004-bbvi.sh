#!/usr/bin/env bash
# Paper 004, §2.5 (black-box variational inference; Ranganath, Gerrish & Blei 2014), in one
# command: why Rao-Blackwellisation and control variates matter, and how the score-function
# gradient compares with the reparameterised one and with the models' own algorithms.
#
#   1. The variance of the global gradient estimate at one q (bench_bbvi_variance: a fit of
#      `--variance-steps` steps, then every estimator from that state, the same S and
#      minibatches): the plain score function (Algorithm 2), Rao-Blackwellised, with control
#      variates too, and reparameterised — on the Poisson GLMM of the epilepsy counts and on
#      HPF on MovieLens 100k.
#   2. The bound and the held-out figure against training seconds for the same four estimators
#      (one `svi run` each, `--seconds-glmm` / `--seconds-hpf`), HPF's coordinate-ascent SVI
#      beside them; drawn by svi plot.
#   3. The edge partition model on the NIPS co-authorship graph: BBVI (score function, then
#      reparameterised) beside gamma SGVB and Zhou's Gibbs sampler, `--seconds-epm` each, one
#      `svi compare`.
#
# Usage (from the repository root):
#   scripts/reproduce/004-bbvi.sh [options] EPIL.csv ML100K/u.data NIPS234.csv
# e.g. scripts/reproduce/004-bbvi.sh data/labelled/glmm/epil.csv data/ratings/ml-100k/u.data \
#        data/graphs/nips234_coauthor_adjacency.csv
# Options (defaults in brackets):
#   --seconds-glmm S    training seconds of each GLMM run [30]
#   --seconds-hpf S     training seconds of each HPF run [300]
#   --seconds-epm S     training seconds of each EPM run [60]
#   --variance-steps N  steps fitted before the variance is measured, GLMM and HPF [1000 50]
#   --repeats R         gradient estimates per variance [50]
#   --threads N         OpenMP threads of each run; 0 = the machine's [0]
#   --svi PATH          the svi binary [build/release/bin/svi]
#   --bench PATH        bench_bbvi_variance [build/release/bin/bench_bbvi_variance]
#   --out DIR           output folder [results/004-bbvi]
#
# Output: DIR/variance-glmm.txt and DIR/variance-hpf.txt (the tables of part 1), DIR/glmm/<est>/
# and DIR/hpf/<est>/ (one `svi run` folder each: plain, rb, rbcv, reparam; hpf/svi), the
# figures DIR/glmm-elbo.png, DIR/glmm-test_nll.png, DIR/hpf-heldout_loglik.png,
# DIR/hpf-elbo.png, DIR/epm/ (svi compare) and DIR/epm-auc_roc.png, and DIR/summary.md (every
# run's final figures) printed on stdout. The GLMM's split holds out 20 % of the rows (test_nll
# per test row); the fixed effects against Stan's NUTS are tests/bench/glmm_stan.sh's.
#
# Exit status: 0 when every run ended normally; 2 for bad options or unreadable data; 3 when a
# run failed or diverged; 130 when interrupted.
set -euo pipefail

script=004-bbvi
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

seconds_glmm=30
seconds_hpf=300
seconds_epm=60
variance_steps_glmm=1000
variance_steps_hpf=50
repeats=50
threads=0
svi=build/release/bin/svi
bench=build/release/bin/bench_bbvi_variance
out=results/004-bbvi
files=()
while (($#)); do
  case $1 in
  --seconds-glmm) seconds_glmm=${2:?--seconds-glmm needs a value}; shift 2 ;;
  --seconds-hpf) seconds_hpf=${2:?--seconds-hpf needs a value}; shift 2 ;;
  --seconds-epm) seconds_epm=${2:?--seconds-epm needs a value}; shift 2 ;;
  --variance-steps)
    variance_steps_glmm=${2:?--variance-steps needs two values}
    variance_steps_hpf=${3:?--variance-steps needs two values}
    shift 3
    ;;
  --repeats) repeats=${2:?--repeats needs a value}; shift 2 ;;
  --threads) threads=${2:?--threads needs a value}; shift 2 ;;
  --svi) svi=${2:?--svi needs a path}; shift 2 ;;
  --bench) bench=${2:?--bench needs a path}; shift 2 ;;
  --out) out=${2:?--out needs a folder}; shift 2 ;;
  -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  -*) die "unknown option '$1' (see --help)" ;;
  *) files+=("$1"); shift ;;
  esac
done
((${#files[@]} == 3)) || die "give the epilepsy counts, MovieLens 100k's u.data and the NIPS-234 graph (see --help)"
for v in "$seconds_glmm" "$seconds_hpf" "$seconds_epm"; do
  [[ $v =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "the --seconds options must be numbers, not '$v'"
done
for v in "$variance_steps_glmm" "$variance_steps_hpf" "$repeats"; do
  [[ $v =~ ^[1-9][0-9]*$ ]] || die "--variance-steps and --repeats must be whole numbers ≥ 1, not '$v'"
done
((repeats >= 2)) || die "--repeats must be at least 2"
[[ $threads =~ ^[0-9]+$ ]] || die "--threads must be a whole number, not '$threads'"
require_svi_and_files "${files[@]}"
[[ -x $bench ]] || die "no bench_bbvi_variance at '$bench' (build the release preset, or pass --bench PATH)"
epil=${files[0]}
ratings=${files[1]}
graph=${files[2]}
mkdir -p "$out"

glmm_data=(--data groups=subject --data exclude=base,age,period --data test_share=0.2)
glmm_run=("$epil" --model glmm --groups subject --exclude base,age,period --test-share 0.2)
hpf_run=("$ratings" --model hpf)

# 1. The variance at one q (a table already written is kept, as a finished run is).
variance_into() { # FILE, then bench_bbvi_variance's arguments
  local file=$1
  shift
  if [[ -s $file ]]; then
    cat "$file"
    return
  fi
  "$bench" "$@" > "$file.partial" || die "bench_bbvi_variance failed: $*"
  mv "$file.partial" "$file"
  cat "$file"
}
echo "$script: gradient variance, GLMM" >&2
variance_into "$out/variance-glmm.txt" glmm "$epil" "${glmm_data[@]}" \
  --steps "$variance_steps_glmm" --repeats "$repeats"
echo "$script: gradient variance, HPF (a few minutes)" >&2
variance_into "$out/variance-hpf.txt" hpf "$ratings" --steps "$variance_steps_hpf" \
  --repeats "$repeats"

# 2. The four estimators against time.
estimator_settings() { # NAME: its --set options
  case $1 in
  plain) echo "--set rao_blackwell=false --set control_variate=false" ;;
  rb) echo "--set control_variate=false" ;;
  rbcv) echo "" ;;
  reparam) echo "--set estimator=reparam" ;;
  esac
}
for est in plain rb rbcv reparam; do
  read -r -a sets <<< "$(estimator_settings "$est")"
  echo "$script: GLMM, $est" >&2
  run_into "$out/glmm/$est" "${glmm_run[@]}" --algorithm bbvi ${sets[@]+"${sets[@]}"} \
    --seconds "$seconds_glmm" --threads "$threads"
  echo "$script: HPF, $est" >&2
  run_into "$out/hpf/$est" "${hpf_run[@]}" --algorithm bbvi ${sets[@]+"${sets[@]}"} \
    --seconds "$seconds_hpf" --threads "$threads"
done
echo "$script: HPF, coordinate-ascent SVI" >&2
run_into "$out/hpf/svi" "${hpf_run[@]}" --algorithm svi --seconds "$seconds_hpf" --threads "$threads"
for m in elbo test_nll grad_variance; do
  "$svi" plot "$out"/glmm/{plain,rb,rbcv,reparam} --metric "$m" --out "$out/glmm-$m.png" --quiet
done
for m in elbo heldout_loglik; do
  "$svi" plot "$out"/hpf/{plain,rb,rbcv,reparam,svi} --metric "$m" --out "$out/hpf-$m.png" --quiet
done

# 3. The edge partition model: BBVI beside gamma SGVB and the Gibbs sampler.
echo "$script: EPM on NIPS-234" >&2
compare_into "$out/epm" "$graph" --model epm --algorithms bbvi,gamma-sgvb,gibbs \
  --seconds "$seconds_epm" --threads "$threads" --test-share 0.2
run_into "$out/epm-reparam" "$graph" --model epm --algorithm bbvi --set estimator=reparam \
  --seconds "$seconds_epm" --threads "$threads" --test-share 0.2
"$svi" plot "$out/epm" "$out/epm-reparam" --metric auc_roc --out "$out/epm-auc_roc.png" --quiet

python3 - "$out" << 'PY'
import json, os, sys

out = sys.argv[1]
def final(path):
    p = os.path.join(path, "summary.json")
    if not os.path.exists(p):
        return None
    return json.load(open(p))
rows = ["| run | steps | train s | ELBO | held-out | grad_variance |", "|---|---|---|---|---|---|"]
def add(name, path, metric):
    s = final(path)
    if s is None:
        rows.append(f"| {name} | – | – | – | – | – |")
        return
    m = s.get("metrics", {})
    fmt = lambda v: "–" if v is None else f"{v:.5g}"
    rows.append(f"| {name} | {s.get('steps', '–')} | {s.get('train_seconds', 0):.1f} | "
                f"{fmt(s.get('elbo'))} | {metric} {fmt(m.get(metric))} | "
                f"{fmt(m.get('grad_variance'))} |")
for est in ["plain", "rb", "rbcv", "reparam"]:
    add(f"GLMM bbvi, {est}", os.path.join(out, "glmm", est), "test_nll")
for est in ["plain", "rb", "rbcv", "reparam", "svi"]:
    add(f"HPF {'svi' if est == 'svi' else 'bbvi, ' + est}", os.path.join(out, "hpf", est),
        "heldout_loglik")
epm = os.path.join(out, "epm")
for name in sorted(os.listdir(epm)) if os.path.isdir(epm) else []:
    if os.path.isdir(os.path.join(epm, name)):
        add(f"EPM {name}", os.path.join(epm, name), "auc_roc")
add("EPM bbvi, reparam", os.path.join(out, "epm-reparam"), "auc_roc")
text = "\n".join(rows)
open(os.path.join(out, "summary.md"), "w").write(text + "\n")
print(text)
PY
exit "$status"
