#!/bin/sh
# Time per step of one run on 1 rank and on R ranks (not a test): `svi run` alone, then under
# `mpirun -np R`, one OpenMP thread per rank, alternating A B A B … so that a noisy machine
# loads both alike. Prints, per repeat, the training seconds per step (summary.json, evaluation
# excluded) and the bytes each rank sent per step, then the medians and the speed-up.
#
#     tests/bench/mpi_scaling.sh OUT_DIR [R] -- SVI_RUN_ARGS...
#
# $SVI is the svi binary (default build/release/bin/svi); $REPEATS the repeats (default 3).
# Examples (the figures of docs/scaling.md):
#     tests/bench/mpi_scaling.sh out/lda 2 -- 20news-bydate.tar.gz --subset 20news-bydate-train \
#         --strip-headers --model lda --set K=100 --set minibatch=1024 --steps 30
#     tests/bench/mpi_scaling.sh out/hpf 2 -- ml-100k/u.data --model hpf --set K=100 \
#         --set minibatch=256 --steps 200

set -eu

if [ $# -lt 3 ]; then
    echo "usage: $0 OUT_DIR [R] -- SVI_RUN_ARGS..." >&2
    exit 2
fi
out=$1
shift
ranks=2
if [ "$1" != "--" ]; then
    ranks=$1
    shift
fi
[ "$1" = "--" ] || { echo "$0: expected -- before the run's arguments" >&2; exit 2; }
shift
svi=${SVI:-build/release/bin/svi}
repeats=${REPEATS:-3}
[ -x "$svi" ] || { echo "$svi: no svi binary there (set SVI)" >&2; exit 2; }
mkdir -p "$out"
# Open MPI as root (a container) and on fewer cores than ranks.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

field() { # KEY FILE: a number of summary.json
    sed -n "s/^ *\"$1\": \([-0-9.e+]*\),*$/\1/p" "$2"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

: >"$out/one.txt"
: >"$out/many.txt"
i=1
while [ "$i" -le "$repeats" ]; do
    "$svi" run "$@" --threads 1 --quiet --out "$out/one-$i"
    mpirun --oversubscribe -np "$ranks" "$svi" run "$@" --threads 1 --quiet --out "$out/many-$i"
    a=$(field seconds_per_step "$out/one-$i/summary.json")
    b=$(field seconds_per_step "$out/many-$i/summary.json")
    bytes=$(field bytes_sent_per_step "$out/many-$i/summary.json")
    echo "$a" >>"$out/one.txt"
    echo "$b" >>"$out/many.txt"
    printf 'repeat %d: 1 rank %.4f s/step, %d ranks %.4f s/step, %s bytes sent per step per rank\n' \
        "$i" "$a" "$ranks" "$b" "$bytes"
    i=$((i + 1))
done
a=$(median <"$out/one.txt")
b=$(median <"$out/many.txt")
printf 'median: 1 rank %.4f s/step, %d ranks %.4f s/step, speed-up %.2f\n' "$a" "$ranks" "$b" \
    "$(echo "$a $b" | awk '{ print $1 / $2 }')"
