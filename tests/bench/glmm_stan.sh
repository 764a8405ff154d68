#!/bin/sh
# Stan's NUTS (the reference posterior) and ADVI (the peer) on svi's Poisson GLMM, both variants
# (gamma-normal, gamma-gamma), on exactly the design matrix svi fits (not a test).
#
# Needs R with rstan and jsonlite, from Debian:
#     apt-get install -y --no-install-recommends r-cran-rstan r-cran-jsonlite
#
#     tests/bench/glmm_stan.sh SPLIT_DIR|EPIL_CSV OUT_DIR [SVI]
#
# Given a folder, it is a split that `svi split` wrote (train.svm, features.txt,
# train_groups.txt). Given a CSV (the epilepsy data, epil.csv), SVI (default
# build/release/bin/svi) first writes its split into OUT_DIR/split, with the settings svi's
# GLMM runs use: groups=subject, base, age and period left out, no test rows. Then
# glmm_stan.R runs for each variant and seed of $SEEDS (default 1): its table goes to
# OUT_DIR/stan_VARIANT_sSEED.txt and the screen, R's messages to .log beside it, and the same
# as JSON to OUT_DIR/stan_VARIANT_sSEED.json.
# $PRIOR, if set, is "PRIOR_SD A0 B0" (default "10 1 1"); $CORES runs the NUTS chains in
# parallel (default 1); $ADVI_TOL is ADVI's tol_rel_obj (default vb's 0.01; 0.0001 runs it to
# its optimum here); $RSCRIPT is the Rscript to use. The compiled models are kept in
# OUT_DIR/stan_cache, so only the first run compiles.
#
#     tests/bench/glmm_stan.sh ../shared/data/labelled/glmm/epil.csv out/glmm
#     SEEDS="1 2 3" tests/bench/glmm_stan.sh out/glmm/split out/glmm

set -eu

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
    echo "usage: $0 SPLIT_DIR|EPIL_CSV OUT_DIR [SVI]" >&2
    exit 2
fi
input=$1
out=$2
svi=${3:-build/release/bin/svi}
seeds=${SEEDS:-1}
prior=${PRIOR:-10 1 1}
cores=${CORES:-1}
rscript=${RSCRIPT:-Rscript}
here=$(dirname "$0")

command -v "$rscript" >/dev/null ||
    { echo "$rscript not found: apt-get install r-cran-rstan r-cran-jsonlite" >&2; exit 2; }
mkdir -p "$out"

if [ -d "$input" ]; then
    split=$input
elif [ -f "$input" ]; then
    [ -x "$svi" ] || { echo "$svi: no svi binary (give it as the third argument)" >&2; exit 2; }
    split=$out/split
    # test_share=0: the whole data set is the posterior's, as in svi's GLMM runs.
    "$svi" split "$input" --kind labelled --groups subject --exclude base,age,period \
        --test-share 0 --out "$split"
else
    echo "$input: neither a split folder nor a file" >&2
    exit 2
fi
for f in train.svm features.txt train_groups.txt; do
    [ -f "$split/$f" ] || { echo "$split/$f missing: not a split with groups" >&2; exit 2; }
done

for variant in gamma-normal gamma-gamma; do
    for seed in $seeds; do
        name=$out/stan_${variant}_s$seed
        # $prior unquoted on purpose: three arguments. R's chatter goes to the .log, shown only
        # when the run fails.
        # shellcheck disable=SC2086
        if ! "$rscript" "$here/glmm_stan.R" "$split" "$variant" "$seed" $prior \
            --json "$name.json" --cache "$out/stan_cache" --cores "$cores" \
            --advi-tol "${ADVI_TOL:-0.01}" \
            >"$name.txt" 2>"$name.log"; then
            cat "$name.txt" "$name.log" >&2
            exit 1
        fi
        cat "$name.txt"
        echo
    done
done
