#!/usr/bin/env bash
# Paper 002 (Sheth & Khardon), Figures 7 and 8, in one command: the correlated topic model on a
# corpus (the paper: nips, 80/20 split of the documents; any corpus the corpus kind reads).
# Figure 7 compares the approximations at K topics (the paper: 50), diagonal covariances: the
# optimal structured bound by H-MC-SSVI and by S-DSVI, the simple structured bound by H-MC-SSVI,
# and Blei & Lafferty's mean-field variational EM, with LDA (SVI) beside them at the same K and
# budget; its left plot is the training bound, its right the test NLL per word by importance
# sampling (App. A.5). Figure 8 sweeps K: H-MC-SSVI and the mean-field CTM against LDA, each
# run's final held-out perplexity (document completion, as LDA and HDP score theirs) and test
# NLL per word.
#
# Usage (from the repository root):
#   scripts/reproduce/002-fig7-8.sh [options] CORPUS [-- CORPUS OPTIONS]
# CORPUS is an LDA-C file, a UCI bag of words, or a folder or archive of raw text; what follows
# -- is given to every run as the corpus's options (e.g. -- --subset 20news-bydate-train
# --strip-headers for 20 Newsgroups).
# Options (defaults in brackets):
#   --K N               Figure 7's topics [50, the paper's]
#   --ks LIST           Figure 8's topics [10,20,50,100]
#   --seconds S         training-seconds budget of each Figure 7 run [600]
#   --sweep-seconds S   training-seconds budget of each Figure 8 run [600]
#   --eval-every S      a snapshot (bound and completion perplexity) every S seconds [30]
#   --full-every S      a full evaluation (adding the test NLL per word) every S seconds
#                       [a quarter of --seconds]
#   --only LIST         fig7, fig8 or both [fig7,fig8]
#   --seed N            the runs' seed [1]
#   --svi PATH          the svi binary [build/release/bin/svi]
#   --out DIR           output folder [results/002-fig7-8]
#
# Output: DIR/fig7 and DIR/fig7-simple (svi compare folders), DIR/fig7-bound.png (the bound
# against training seconds), DIR/fig7-nll.png (test NLL per word at each full evaluation),
# DIR/fig7-perplexity.png; DIR/fig8-K<N> (one compare folder per K), DIR/fig8.csv and
# DIR/fig8-perplexity.csv (per K, each algorithm's final test NLL per word and perplexity),
# DIR/fig8.png and DIR/fig8-perplexity.png; and the tables on stdout, also DIR/fig7.md.
# Test NLL per word is the paper's: each test document's NLL over its words, averaged over the
# documents, by 1,000 importance samples per inflation (the paper: 10⁷).
# A step is one document for the CTM's algorithms and a minibatch (256 documents by default)
# for LDA, whose bound is its own model's ELBO, not comparable with the CTM's.
#
# Exit status: 0 when every run ended normally; 2 for bad options or unreadable data; 3 when a
# run failed or diverged; 130 when interrupted.
set -euo pipefail

script=002-fig7-8
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

topics=50
ks=10,20,50,100
seconds=600
sweep_seconds=600
eval_every=30
full_every=
only=fig7,fig8
seed=1
svi=build/release/bin/svi
out=results/002-fig7-8
files=()
corpus_options=()
while (($#)); do
  case $1 in
  --K) topics=${2:?--K needs a value}; shift 2 ;;
  --ks) ks=${2:?--ks needs a list}; shift 2 ;;
  --seconds) seconds=${2:?--seconds needs a value}; shift 2 ;;
  --sweep-seconds) sweep_seconds=${2:?--sweep-seconds needs a value}; shift 2 ;;
  --eval-every) eval_every=${2:?--eval-every needs a value}; shift 2 ;;
  --full-every) full_every=${2:?--full-every needs a value}; shift 2 ;;
  --only) only=${2:?--only needs a list}; shift 2 ;;
  --seed) seed=${2:?--seed needs a value}; shift 2 ;;
  --svi) svi=${2:?--svi needs a path}; shift 2 ;;
  --out) out=${2:?--out needs a folder}; shift 2 ;;
  --) shift; corpus_options=("$@"); break ;;
  -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  -*) die "unknown option '$1' (see --help)" ;;
  *) files+=("$1"); shift ;;
  esac
done
((${#files[@]} == 1)) || die "give one corpus (see --help)"
for n in "$topics" "$seed"; do
  [[ $n =~ ^[0-9]+$ ]] || die "--K and --seed take whole numbers, not '$n'"
done
[[ $ks =~ ^[0-9]+(,[0-9]+)*$ ]] || die "--ks takes whole numbers, as 10,20,50"
for s in "$seconds" "$sweep_seconds" "$eval_every" ${full_every:+"$full_every"}; do
  [[ $s =~ ^[0-9]+([.][0-9]+)?$ ]] || die "budgets are seconds, not '$s'"
done
full_every=${full_every:-$(awk -v s="$seconds" 'BEGIN { print s / 4 }')}
command -v "$svi" > /dev/null || die "no svi binary at '$svi' (build it, or pass --svi PATH)"
[[ -e ${files[0]} ]] || die "cannot read '${files[0]}': no such file or folder"
corpus=("${files[0]}" ${corpus_options[@]+"${corpus_options[@]}"})
IFS=, read -ra sweep <<< "$ks"
IFS=, read -ra parts <<< "$only"
for p in "${parts[@]}"; do
  [[ $p == fig7 || $p == fig8 ]] || die "--only takes fig7 and fig8, not '$p'"
done
wants() { [[ ,$only, == *,$1,* ]]; }

mkdir -p "$out"
if wants fig7; then
  common=(--set K="$topics" --seed "$seed" --seconds "$seconds" --eval-every "$eval_every"
    --full-every "$full_every" --quiet)
  compare_into "$out/fig7" "${corpus[@]}" \
    --algorithms ctm/h-mc-ssvi,ctm/s-dsvi,ctm/mean-field,lda/svi "${common[@]}"
  compare_into "$out/fig7-simple" "${corpus[@]}" --algorithms ctm/h-mc-ssvi \
    --set bound=simple "${common[@]}"
  "$svi" plot "$out/fig7" "$out/fig7-simple" --metric elbo --out "$out/fig7-bound.png" --quiet \
    --title "CTM, K = $topics: the bound on the training documents"
  "$svi" plot "$out/fig7" "$out/fig7-simple" --metric test_nll_per_word \
    --out "$out/fig7-nll.png" --quiet --title "CTM, K = $topics: test NLL per word"
  "$svi" plot "$out/fig7" "$out/fig7-simple" --metric perplexity \
    --out "$out/fig7-perplexity.png" --quiet --title "CTM, K = $topics: held-out perplexity"
fi
if wants fig8; then
  for k in "${sweep[@]}"; do
    compare_into "$out/fig8-K$k" "${corpus[@]}" \
      --algorithms ctm/h-mc-ssvi,ctm/mean-field,lda/svi --set K="$k" --seed "$seed" \
      --seconds "$sweep_seconds" --eval-every "$eval_every" --quiet
  done
fi

python3 - "$out" "$only" "$ks" "$topics" << 'PY'
import csv, glob, json, os, sys

out, only, ks, topics = sys.argv[1], sys.argv[2].split(","), sys.argv[3].split(","), sys.argv[4]

def rows(folder):
    return json.load(open(os.path.join(folder, "results.json")))["rows"]

def mean(row, key):
    s = row["summary"].get(key)
    return s["mean"] if s else None

def last_bound(folder, row):
    for path in glob.glob(os.path.join(folder, f"{row['model']}-{row['algorithm']}*", "trace.csv")):
        trace = list(csv.DictReader(open(path)))
        if trace and trace[-1].get("elbo"):
            return float(trace[-1]["elbo"])
    return None

def name(row): # "CTM H-MC-SSVI", "LDA SVI (Hoffman et al. 2013)"
    return f"{row['model'].upper()} {row['label']}"

def fmt(x, spec):
    return "" if x is None else format(x, spec)

if "fig7" in only:
    lines = [f"Figure 7 (K = {topics}), at the end of each run (a full evaluation):", "",
             "| run | bound | test NLL per word | perplexity | s/step |", "|---|---|---|---|---|"]
    for sub, suffix in (("fig7", ""), ("fig7-simple", " (simple bound)")):
        for r in rows(os.path.join(out, sub)):
            lines.append(f"| {name(r)}{suffix} | {fmt(last_bound(os.path.join(out, sub), r), '.6g')} | "
                         f"{fmt(mean(r, 'test_nll_per_word'), '.4f')} | "
                         f"{fmt(mean(r, 'perplexity'), '.1f')} | "
                         f"{fmt(mean(r, 'seconds_per_step'), '.5f')} |")
    text = "\n".join(lines)
    print(text)
    open(os.path.join(out, "fig7.md"), "w").write(text + "\n")
if "fig8" in only:
    labels, table = [], {}
    for k in ks:
        for r in rows(os.path.join(out, f"fig8-K{k}")):
            if name(r) not in labels:
                labels.append(name(r))
            table[(k, name(r))] = (mean(r, "test_nll_per_word"), mean(r, "perplexity"))
    for i, csv_name in enumerate(("fig8.csv", "fig8-perplexity.csv")):
        value = lambda k, l: table.get((k, l), (None, None))[i]
        shown = [l for l in labels if any(value(k, l) is not None for k in ks)] # LDA: no NLL
        with open(os.path.join(out, csv_name), "w") as f:
            f.write(",".join(["topics K"] + shown) + "\n")
            for k in ks:
                f.write(",".join([k] + [fmt(value(k, l), ".6g") for l in shown]) + "\n")
PY
if wants fig8; then
  "$svi" plot --table "$out/fig8.csv" --out "$out/fig8.png" --quiet \
    --title "Test NLL per word against the number of topics" --y-title "nats per word"
  "$svi" plot --table "$out/fig8-perplexity.csv" --out "$out/fig8-perplexity.png" --quiet \
    --title "Held-out perplexity against the number of topics" --y-title "perplexity"
  echo
  echo "Figure 8: test NLL per word ($out/fig8.csv):"
  column -s, -t < "$out/fig8.csv"
  echo
  echo "Held-out perplexity ($out/fig8-perplexity.csv):"
  column -s, -t < "$out/fig8-perplexity.csv"
fi
exit "$status"
