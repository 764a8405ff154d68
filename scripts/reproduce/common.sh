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

# After svi COMMAND exited with RC for DIR: exits 130 when it was interrupted and with RC when
# it failed outright; a run that failed or diverged (svi's 3) sets status=3 and goes on.
status=0
svi_exited() { # RC, COMMAND, DIR
  if (($1 == 130)); then
    echo "$script: interrupted" >&2
    exit 130
  fi
  if (($1 != 0 && $1 != 3)); then
    echo "$script: svi $2 failed (exit $1) for $3" >&2
    exit "$1"
  fi
  (($1 == 0)) || status=3
}

# svi compare ARGS... --out DIR, its exit status as svi_exited takes it.
compare_into() { # DIR, then compare's arguments
  local dir=$1 rc=0
  shift
  "$svi" compare "$@" --out "$dir" || rc=$?
  svi_exited "$rc" compare "$dir"
}

# One run into DIR unless DIR holds a finished one (an interrupted sweep resumes where it
# stopped), its exit status as svi_exited takes it.
run_into() { # DIR, then svi run's arguments
  local dir=$1 rc=0
  shift
  if [[ -f $dir/summary.json ]] && grep -q '"termination": "\(budget\|converged\|end_of_data\)"' "$dir/summary.json"; then
    return
  fi
  "$svi" run "$@" --out "$dir" --quiet || rc=$?
  svi_exited "$rc" run "$dir"
}
