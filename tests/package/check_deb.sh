#!/usr/bin/env bash
# The Debian package, as a user gets it: built by CPack from a release build, installed with apt
# (which pulls its runtime dependencies), then run from where it installed itself: `svi
# --version`, the Python module imported and fitting from outside the source tree, svi(1), the
# desktop entry, and the window started on the embedded image under Xvfb (alive after its run
# has started). Removes the package at the end unless --keep.
#   tests/package/check_deb.sh [--build build/release] [--keep]
# Needs root, apt, and xvfb (installed here when absent).
set -euo pipefail
build=build/release
keep=0
while (($#)); do
    case $1 in
    --build) build=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    *) echo "check_deb.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
export DEBIAN_FRONTEND=noninteractive
(cd "$build" && cpack -G DEB >/dev/null 2>&1)
deb=$(ls "$build"/svi-workbench_*_amd64.deb)
echo "built $deb ($(du -h "$deb" | cut -f1))"
dpkg-deb -f "$deb" Depends
apt-get install -y --no-install-recommends "./$deb" >/dev/null
cleanup() { ((keep)) || apt-get remove -y svi-workbench >/dev/null; }
trap cleanup EXIT

cd /
test "$(/usr/bin/svi --version)" = "svi $(dpkg-deb -f "$OLDPWD/$deb" Version)"
where=$(env -u PYTHONPATH /usr/bin/python3 -c "import svi; print(svi.__file__)")
[[ $where == /usr/lib/python3/dist-packages/svi/* ]] || { echo "svi imported from $where" >&2; exit 1; }
env -u PYTHONPATH /usr/bin/python3 -c "
import svi
run = svi.run(svi.sample('austen'), model='lda', K=5, steps=20, threads=1)
assert run.summary['steps'] == 20 and run.metrics['perplexity'] > 0, run.summary
print('python: LDA on the Austen sample, perplexity', round(run.metrics['perplexity'], 1))"
dpkg -L svi-workbench | grep -qx /usr/share/man/man1/svi.1
desktop-file-validate /usr/share/applications/svi-workbench.desktop

command -v xvfb-run >/dev/null || apt-get install -y --no-install-recommends xvfb xauth >/dev/null
log=$(mktemp)
# xvfb-run lives as long as the window does; in a session of its own, so that its group (the
# X server, the window) is stopped together.
setsid xvfb-run -a /usr/bin/svi-workbench --run --seconds 5 >"$log" 2>&1 &
runner=$!
sleep 12
if ! kill -0 "$runner" 2>/dev/null; then
    echo "svi-workbench is not running 12 s after it started:" >&2
    cat "$log" >&2
    exit 1
fi
kill -- -"$runner"
wait "$runner" || true
echo "the installed svi-workbench ran on the embedded image under Xvfb"
