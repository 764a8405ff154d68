#!/usr/bin/env bash
# The BPFA measurements of docs/results.md: speed and memory on a 512×512 image, the default
# algorithm against the scikit-learn peer within 120 s, and the paper's Table 1 tasks. Usage:
#   scripts/bench_bpfa.sh IMAGES_DIR OUT_DIR [SVI_BINARY]
# IMAGES_DIR must hold man.png (512×512), house.png and peppers.png (256×256).
set -euo pipefail
images=${1:?images folder}
out=${2:?output folder}
svi=${3:-build/release/bin/svi}
mkdir -p "$out"

# 1. Seconds per step, full reconstruction pass and peak memory, one process per algorithm
#    (K = 256, minibatch 256, 80 % missing).
for a in mf-svi mf-ssvi titsias-ssvi mimno-svi gibbs-ssvi; do
  "$svi" bench "$images/man.png" --missing 0.8 --set K=256 --set minibatch=256 \
    --algorithms "$a" --steps 200 --json > "$out/bench_$a.json"
done
"$svi" bench "$images/man.png" --missing 0.8 --set K=256 --algorithms gibbs --steps 5 \
  --warmup 1 --json > "$out/bench_gibbs.json"

# 2. The default algorithm (svi run without --algorithm) with 120 s of training on every
#    PNG in IMAGES_DIR at 80 % missing, one line per image in OUT/default_120s.txt; then the
#    scikit-learn peer on the same tasks (tests/bench/inpaint_peer_all.sh; skipped with a note
#    when Debian's python3-sklearn is missing).
for img in "$images"/*.png; do
  name=$(basename "$img" .png)
  "$svi" run "$img" --missing 0.8 --seconds "${DEFAULT_SECONDS:-120}" --eval-every 10 \
    --out "$out/default_$name" --quiet
  python3 - "$out/default_$name/summary.json" "$name" >> "$out/default_120s.txt" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
m = s["metrics"]
print(f"{sys.argv[2]:<12s} PSNR all {m['psnr']:6.2f}  missing {m['psnr_missing']:6.2f}  "
      f"steps {s.get('steps', 0)}")
PY
done
if /usr/bin/python3 -c 'import sklearn, PIL' 2>/dev/null; then
  tests/bench/inpaint_peer_all.sh "$images" "$out/peer" "$svi"
else
  echo "bench_bpfa: no python3-sklearn/python3-pil, the peer is skipped" >&2
fi

# 3. Table 1 of paper 000 on house and peppers: 80 % missing; 50 % missing with σ = 15.
scripts/reproduce/000-table1.sh --svi "$svi" --seconds "${TABLE1_SECONDS:-30}" \
  --out "$out/table1" "$images/house.png" "$images/peppers.png"
