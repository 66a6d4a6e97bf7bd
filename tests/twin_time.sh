#!/usr/bin/env bash
# How long the example's twin takes on this machine: up, verify (with failover), down, each
# timed, and what is left afterwards. Not a test (no timed tests): run it by hand, as root.
#   tests/twin_time.sh
set -uo pipefail
cd "$(dirname "$0")/.."
. .venv/bin/activate
# a prefix of its own: a twin someone else runs of the example is left alone
export MEETME_TWIN_PREFIX="${MEETME_TWIN_PREFIX:-tt-}"
now() { date +%s.%N; }
t0=$(now)
meetme twin up --site aus1 || exit
t1=$(now)
meetme twin verify > /tmp/meetme-twin-verify.txt
verified=$?
t2=$(now)
meetme twin down || exit
t3=$(now)
tail -n 1 /tmp/meetme-twin-verify.txt
awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v rc="$verified" 'BEGIN {
  printf "up %.1f s, verify %.1f s (exit %d), down %.1f s, total %.1f s\n", b-a, c-b, rc, d-c, d-a }'
echo "namespaces left: $(ip netns list | grep -c "^$MEETME_TWIN_PREFIX")," \
  "processes left: $(pgrep -f -c -- "-N $MEETME_TWIN_PREFIX" || true)"
