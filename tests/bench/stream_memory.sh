#!/usr/bin/env bash
# Out-of-core streaming VB (LDA, --out-of-core): does its memory stay flat as the corpus grows,
# and does a corpus of a million documents stream through?
#
#   1. CORPUS (LDA-C with its vocabulary beside it) and the same documents repeated TIMES over
#      (a generated file), each fitted by one pass of LDA's streaming VB, K topics: out of core,
#      and read whole into memory for comparison. Peak resident memory from each run's
#      summary.json (peak_rss_mb), and the ratio of the long corpus's to the short one's.
#   2. DOCS generated documents (planted topics over CORPUS's vocabulary, written by a Python
#      generator) piped into `svi run - --kind corpus --out-of-core`: documents, seconds, peak
#      memory and held-out perplexity.
#
# Every run has a day's budget: a stream ends the run at its end (end_of_data).
#
# Usage (from the repository root):
#   tests/bench/stream_memory.sh [--svi PATH] [--times 10] [--docs 1000000] [--k 100]
#                                [--threads 2] [--out DIR] CORPUS.ldac
# e.g. svi split data/text/20news-bydate.tar.gz --subset 20news-bydate-train --strip-headers
#        --out /tmp/ng; tests/bench/stream_memory.sh /tmp/ng/train.ldac
# Prints one markdown table per part. Exit status 0, or 2 for bad options, 3 when a run failed.
set -euo pipefail

svi=build/release/bin/svi
times=10
docs=1000000
k=100
threads=2
out=results/stream-memory
corpus=
while (($#)); do
  case $1 in
  --svi) svi=${2:?}; shift 2 ;;
  --times) times=${2:?}; shift 2 ;;
  --docs) docs=${2:?}; shift 2 ;;
  --k) k=${2:?}; shift 2 ;;
  --threads) threads=${2:?}; shift 2 ;;
  --out) out=${2:?}; shift 2 ;;
  -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  -*) echo "stream_memory.sh: unknown option $1" >&2; exit 2 ;;
  *) corpus=$1; shift ;;
  esac
done
[[ -n $corpus && -r $corpus ]] || { echo "stream_memory.sh: give a readable LDA-C corpus" >&2; exit 2; }
vocab=$(dirname "$corpus")/vocab.txt
[[ -r $vocab ]] || { echo "stream_memory.sh: no vocab.txt beside $corpus" >&2; exit 2; }
mkdir -p "$out"
long=$out/repeated.ldac
for ((i = 0; i < times; ++i)); do cat "$corpus"; done >"$long"
cp "$vocab" "$out/vocab.txt"

field() { python3 -c "import json,sys; s=json.load(open(sys.argv[1])); print(s$2)" "$1/summary.json"; }
run() { # DIR ARGS…: one run, its folder replaced
  local dir=$1; shift
  rm -rf "$dir"
  "$svi" run "$@" --model lda --algorithm streaming --set "K=$k" --seed 1 --threads "$threads" \
    --seconds 86400 --quiet --out "$dir" || { echo "stream_memory.sh: a run failed: $*" >&2; exit 3; }
}

echo "| corpus | documents | read | peak RSS (MB) | wall s | perplexity |"
echo "|---|---|---|---|---|---|"
declare -A peak
for which in short long; do
  file=$corpus; [[ $which == long ]] && file=$long
  n=$(grep -c . "$file")
  for mode in out-of-core in-memory; do
    flag=--out-of-core; [[ $mode == in-memory ]] && flag=--no-out-of-core
    dir=$out/$which-$mode
    run "$dir" "$file" "$flag"
    mb=$(field "$dir" "['peak_rss_mb']")
    peak[$which-$mode]=$mb
    printf '| %s | %s | %s | %.0f | %.1f | %.0f |\n' "$which" "$n" "$mode" "$mb" \
      "$(field "$dir" "['wall_seconds']")" "$(field "$dir" "['metrics']['perplexity']")"
  done
done
python3 -c 'import sys; a, b, c, d = map(float, sys.argv[1:])
print(f"\npeak RSS, repeated / short: out of core {b / a:.3f}, in memory {d / c:.3f}")' \
  "${peak[short-out-of-core]}" "${peak[long-out-of-core]}" "${peak[short-in-memory]}" "${peak[long-in-memory]}"

# Part 2: DOCS documents of 20 planted topics (each a block of the vocabulary), two per
# document, 30–60 distinct words, generated as they are piped.
echo
echo "| documents | K | wall s | peak RSS (MB) | perplexity | termination |"
echo "|---|---|---|---|---|---|"
dir=$out/generated
rm -rf "$dir"
V=$(grep -c '' "$vocab")
python3 - "$docs" "$V" <<'PY' | "$svi" run - --kind corpus --out-of-core --vocab "$out/vocab.txt" \
  --model lda --algorithm streaming --set K=20 --seed 1 --threads "$threads" --seconds 86400 \
  --quiet --out "$dir" ||
import random, sys
n, V = int(sys.argv[1]), int(sys.argv[2])
rng = random.Random(1)
block = V // 20
out = sys.stdout
for d in range(n):
    topics = rng.sample(range(20), 2)
    words = {}
    for _ in range(rng.randint(30, 60)):
        t = topics[0] if rng.random() < 0.7 else topics[1]
        w = t * block + int(rng.expovariate(1 / 40)) % block
        words[w] = words.get(w, 0) + 1
    out.write(str(len(words)) + "".join(f" {w}:{c}" for w, c in sorted(words.items())) + "\n")
PY
  { echo "stream_memory.sh: the generated stream failed" >&2; exit 3; }
read_docs=$(field "$dir" "['message']" | grep -o "stream's [0-9]*" | grep -o "[0-9]*")
printf '| %s (+ %s test) | 20 | %.1f | %.0f | %.0f | %s |\n' "$read_docs" \
  "$(field "$dir" "['facts']['test_documents']")" "$(field "$dir" "['wall_seconds']")" \
  "$(field "$dir" "['peak_rss_mb']")" "$(field "$dir" "['metrics']['perplexity']")" \
  "$(field "$dir" "['termination']")"
