#!/usr/bin/env bash
# Chaos run of the long-running pipeline: the crash scenario of KafkaCrashIT, bigger.
# A real Kafka broker (KRaft, 127.0.0.1, its own JVM) receives the records; `latelake run` runs
# in a child JVM that is killed with kill -9 at random (seeded) points and restarted on the same
# checkpoints, once per kill, then stopped with SIGTERM. Prints the figures: records, kills,
# records lost, records doubled, restarts that needed a second try, recovered progress rows.
#
#   scripts/chaos.sh [--records 200000] [--kills 20] [--seed 20261130]
#
# Exit 0 when nothing was lost or doubled, silver and gold equal a recomputation from bronze and
# monitoring.stream_progress holds one row per micro-batch; 1 otherwise (see the test report
# under bundle/target/failsafe-reports/).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RECORDS=200000
KILLS=20
SEED=20261130
while [[ $# -gt 0 ]]; do
  case "$1" in
    --records) RECORDS="$2"; shift 2 ;;
    --kills) KILLS="$2"; shift 2 ;;
    --seed) SEED="$2"; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "chaos: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ "$RECORDS" =~ ^[0-9]+$ && "$KILLS" =~ ^[0-9]+$ && "$SEED" =~ ^[0-9]+$ ]] \
  || { echo "chaos: --records, --kills and --seed take whole numbers" >&2; exit 2; }
command -v mvn >/dev/null 2>&1 || { echo "chaos: mvn not found: install Maven" >&2; exit 2; }

FIGURES="$ROOT/bundle/target/chaos-figures.txt"
mkdir -p "$ROOT/bundle/target"
rm -f "$FIGURES"
echo "chaos: $RECORDS records, $KILLS kills, seed $SEED (builds first; takes a while)" >&2
# Failsafe's verify reads each module's summary; the modules with no test to run here leave theirs
# as an earlier build wrote it, so a stale one (e.g. of a crashed run) would fail this run.
rm -f "$ROOT"/*/target/failsafe-reports/failsafe-summary.xml
status=0
(cd "$ROOT" && mvn -B -ntp -pl scripts/kafka-broker,bundle -am verify \
  -Dtest=NoSuchTest -Dsurefire.failIfNoSpecifiedTests=false \
  -Dit.test=KafkaCrashIT -Dfailsafe.failIfNoSpecifiedTests=false \
  -Dlatelake.chaos.records="$RECORDS" -Dlatelake.chaos.kills="$KILLS" \
  -Dlatelake.chaos.seed="$SEED") > "$ROOT/bundle/target/chaos-build.log" 2>&1 || status=1
if [[ -f "$FIGURES" ]]; then
  cat "$FIGURES"
else
  echo "chaos: no figures written; see $ROOT/bundle/target/chaos-build.log" >&2
fi
[[ $status == 0 ]] || echo "chaos: FAILED; see bundle/target/failsafe-reports/" >&2
exit $status
