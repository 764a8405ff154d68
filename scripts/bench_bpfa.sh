#!/usr/bin/env bash
# The BPFA measurements reported for the foundation: speed and memory on a 512×512 image,
# PSNR after 60 s and 300 s, and the paper's Table 1 tasks. Usage:
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

# 2. PSNR after 60 s and 300 s of training (full evaluations every 60 s).
for a in mf-svi mimno-svi gibbs-ssvi; do
  "$svi" run "$images/man.png" --missing 0.8 --set K=256 --set minibatch=256 --algorithm "$a" \
    --seconds 300 --full-every 60 --out "$out/man_$a" --quiet
done

# 3. Table 1 of paper 000 on house and peppers: 80 % missing; 50 % missing with σ = 15.
scripts/reproduce/000-table1.sh --svi "$svi" --seconds "${TABLE1_SECONDS:-30}" \
  --out "$out/table1" "$images/house.png" "$images/peppers.png"
