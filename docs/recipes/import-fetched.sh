#!/usr/bin/env bash
# The import step of the fan-out recipes (ansible/ango.yml, github-actions.yml):
# every run fetched from a host, as FETCHED/<host>/<anything>.tar.gz (an archive
# of one results directory) or FETCHED/<host>/<results dir>/, goes into the store
# under that host's name.
#
#   import-fetched.sh FETCHED [--db URL]
#
# ANGO names the ango binary (default: `ango` on PATH). Archives are unpacked
# into a temporary directory that is removed afterwards. A run already in the
# store is left as it is (`ango import` is idempotent), so the step can be run
# again after every fetch. Exits with ango import's status: 2 when some run
# was refused (a truncated or foreign directory), after importing the others.
set -euo pipefail
fetched=${1:?usage: import-fetched.sh FETCHED [--db URL]}
shift
ango=${ANGO:-ango}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for hostdir in "$fetched"/*/; do
  host=$(basename "$hostdir")
  dirs=()
  for archive in "$hostdir"*.tar.gz; do
    [ -e "$archive" ] || continue
    out="$work/$host/$(basename "$archive" .tar.gz)"
    mkdir -p "$out"
    tar -xzf "$archive" -C "$out"
    # The archive holds one results directory, at its top or one level down.
    if [ -e "$out/env.json" ]; then
      dirs+=("$out")
    else
      for d in "$out"/*/; do
        [ -e "$d/env.json" ] && dirs+=("${d%/}")
      done
    fi
  done
  for d in "$hostdir"*/; do
    [ -e "$d/env.json" ] && dirs+=("${d%/}")
  done
  if [ ${#dirs[@]} -eq 0 ]; then
    echo "import-fetched: $hostdir holds no run (no *.tar.gz, no directory with env.json)" >&2
    status=2
    continue
  fi
  "$ango" import --label "$host" "$@" "${dirs[@]}" || status=$?
done
exit "$status"
