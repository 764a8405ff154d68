# Shared by the scripts/reproduce scripts (sourced, not run): their error exit, their checks of
# the svi binary and the data files, and a run of 'svi compare' whose exit status is kept.
# The sourcing script sets `script` (its name, for messages) and `svi` before calling these.

# Prints "SCRIPT: MESSAGE" on stderr and exits 2 (bad options or data).
die() {
  echo "$script: $*" >&2
  exit 2
}

# Exits 2 unless $svi runs and every file given can be read.
require_svi_and_files() {
  command -v "$svi" > /dev/null || die "no svi binary at '$svi' (build it, or pass --svi PATH)"
  local f
  for f in "$@"; do
    [[ -f $f ]] || die "cannot read '$f': no such file"
  done
}

# svi compare ARGS... --out DIR: exits 130 when interrupted and with svi's status when it failed
# outright; a run that failed or diverged (svi's 3) sets status=3 and goes on.
status=0
compare_into() { # DIR, then compare's arguments
  local dir=$1 rc=0
  shift
  "$svi" compare "$@" --out "$dir" || rc=$?
  if ((rc == 130)); then
    echo "$script: interrupted" >&2
    exit 130
  fi
  if ((rc != 0 && rc != 3)); then
    echo "$script: svi compare failed (exit $rc) for $dir" >&2
    exit "$rc"
  fi
  ((rc == 0)) || status=3
}

# One run into DIR unless DIR holds a finished one (an interrupted sweep resumes where it stopped);
# exits 130 when interrupted and with svi's status when it failed outright; a run that failed or
# diverged (svi's 3) sets status=3 and goes on.
run_into() { # DIR, then svi run's arguments
  local dir=$1 rc=0
  shift
  if [[ -f $dir/summary.json ]] && grep -q '"termination": "\(budget\|converged\)"' "$dir/summary.json"; then
    return
  fi
  "$svi" run "$@" --out "$dir" --quiet || rc=$?
  if ((rc == 130)); then
    echo "$script: interrupted" >&2
    exit 130
  fi
  if ((rc != 0 && rc != 3)); then
    echo "$script: svi run failed (exit $rc) for $dir" >&2
    exit "$rc"
  fi
  ((rc == 0)) || status=3
}
