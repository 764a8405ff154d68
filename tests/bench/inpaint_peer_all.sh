#!/bin/sh
# The scikit-learn inpainting peer (inpaint_vs_sklearn.py) on every grey 256×256 or 512×512
# image under a folder, each on exactly svi's task (not a test).
#
#     tests/bench/inpaint_peer_all.sh IMAGES_DIR OUT_DIR [SVI]
#
# SVI defaults to build/release/bin/svi. For every image and every task "MISSING:NOISE" of
# $TASKS (default "0.8:0"), `svi run` with --split-seed $SEED (default 1) and one step writes the
# task (observed.png, mask.png) into OUT_DIR/NAME-mMISSING-sNOISE/task, then the peer inpaints
# it there (result.json, reconstruction.png). One table line per image and task, also appended
# to OUT_DIR/table.txt. Colour images and other sizes are skipped (said on stderr). $NAMES,
# if set, keeps only those base names (e.g. NAMES="house peppers"); $PYTHON is the Python with
# scikit-learn and Pillow (default /usr/bin/python3); $PEER_ARGS go to the peer as they are.
# Everything runs one at a time under nice: the peer's timings are wall seconds.
#
#     tests/bench/inpaint_peer_all.sh images out
#     TASKS=0.5:15 NAMES="house peppers" tests/bench/inpaint_peer_all.sh images out

set -eu

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
    echo "usage: $0 IMAGES_DIR OUT_DIR [SVI]" >&2
    exit 2
fi
images=$1
out=$2
svi=${3:-build/release/bin/svi}
python=${PYTHON:-/usr/bin/python3}
tasks=${TASKS:-0.8:0}
seed=${SEED:-1}
here=$(dirname "$0")
peer=$here/inpaint_vs_sklearn.py

[ -d "$images" ] || { echo "$images: not a folder" >&2; exit 2; }
[ -x "$svi" ] || { echo "$svi: no svi binary there (give it as the third argument)" >&2; exit 2; }
mkdir -p "$out"

# The eligible images, one path a line: grey, 256×256 or 512×512.
list=$("$python" - "$images" <<'EOF'
import os, sys
from PIL import Image, UnidentifiedImageError
for root, dirs, files in os.walk(sys.argv[1]):
    dirs.sort()
    for name in sorted(files):
        path = os.path.join(root, name)
        try:
            with Image.open(path) as im:
                size, mode = im.size, im.mode
        except (UnidentifiedImageError, OSError):
            continue
        grey = mode in ("1", "L", "LA", "I", "I;16", "I;16B", "I;16L")
        if not grey or size not in ((256, 256), (512, 512)):
            why = "colour" if not grey else f"{size[0]}×{size[1]}"
            print(f"skipped {path}: {why}", file=sys.stderr)
            continue
        print(path)
EOF
)

header=$(printf '%-14s %-9s %-15s %9s %12s %9s' image size task "PSNR all" "PSNR missing" seconds)
echo "$header"
echo "$header" >> "$out/table.txt"

echo "$list" | while IFS= read -r path; do
    [ -n "$path" ] || continue
    file=$(basename "$path")
    name=${file%.*}
    if [ -n "${NAMES:-}" ]; then
        case " $NAMES " in *" $name "*) ;; *) continue ;; esac
    fi
    for task in $tasks; do
        missing=${task%%:*}
        noise=${task#*:}
        dir=$out/$name-m$missing-s$noise
        mkdir -p "$dir"
        nice "$svi" run "$path" --missing "$missing" --noise "$noise" --split-seed "$seed" \
            --steps 1 --set init=random --set eval_items=10 --out "$dir/task" --quiet \
            > "$dir/svi.log" 2>&1 || { echo "svi failed on $path (see $dir/svi.log)" >&2; exit 1; }
        # shellcheck disable=SC2086
        nice "$python" "$peer" --original "$path" --run "$dir/task" --noise "$noise" \
            --seed "$seed" --json "$dir/result.json" --save "$dir/reconstruction.png" \
            ${PEER_ARGS:-} > "$dir/peer.log" 2>&1 || {
            echo "the peer failed on $path (see $dir/peer.log)" >&2
            exit 1
        }
        line=$("$python" - "$dir/result.json" "$name" "$missing" "$noise" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
task = f"{float(sys.argv[3]) * 100:g}% σ{float(sys.argv[4]):g}"
size = f"{r['width']}×{r['height']}"
print(f"{sys.argv[2]:<14s} {size:<9s} {task:<15s} {r['psnr']:9.2f} {r['psnr_missing']:12.2f} "
      f"{r['seconds']:9.1f}")
EOF
)
        echo "$line"
        echo "$line" >> "$out/table.txt"
    done
done
