#!/usr/bin/env bash
# Prints the ten slowest test classes, unit (surefire) and integration (failsafe) tests together,
# from the XML reports under every module's target folder (after a partial build or -DskipTests,
# some of them are older runs'):
#
#   scripts/slowest-tests.sh [COUNT]
#
# `mvn verify` runs it at its end (the last module, bench), so a class that gets slower is seen in
# the build that made it slower. Seconds are each class's own time in its test JVM; unit classes
# run two JVMs at a time, so they add up to more than the build's wall time.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
COUNT="${1:-10}"
[[ "$COUNT" =~ ^[0-9]+$ ]] || { echo "slowest-tests: COUNT must be a whole number" >&2; exit 2; }

rows="$(
  find "$ROOT" -path '*/target/surefire-reports/TEST-*.xml' -o -path '*/target/failsafe-reports/TEST-*.xml' 2>/dev/null \
    | while read -r f; do
        kind=unit
        [[ "$f" == */failsafe-reports/* ]] && kind=it
        # The <testsuite ...> element: its name and time attributes.
        { head -c 4000 "$f" | tr '\n' ' ' | grep -o '<testsuite [^>]*>' | head -1 \
          | sed -E 's/.* name="([^"]+)".* time="([^"]+)".*/\2 \1/;t;d' \
          | awk -v k="$kind" '{ printf "%10.1f s  %-4s %s\n", $1, k, $2 }'; } || true
      done | sort -rn | head -n "$COUNT"
)" || true
if [[ -z "$rows" ]]; then
  echo "slowest-tests: no test reports under $ROOT/*/target"
  exit 0
fi
echo "The $COUNT slowest test classes (reports under */target):"
echo "$rows"
