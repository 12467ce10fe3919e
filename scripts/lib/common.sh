# Shared helpers of the scripts/*.sh service scripts. Source it after setting:
#   SCRIPT   the name errors are prefixed with (e.g. kafka-broker)
#   ROOT     the repository root
#   HOST     the address services bind to (127.0.0.1)
# shellcheck shell=bash

die() { echo "$SCRIPT: error: $*" >&2; exit 1; }
info() { echo "$SCRIPT: $*" >&2; }

java_bin() {
  local java="java"
  if [[ -n "${JAVA_HOME:-}" ]]; then java="$JAVA_HOME/bin/java"; fi
  command -v "$java" >/dev/null 2>&1 || die "no java found (set JAVA_HOME or put java 17+ on PATH)"
  echo "$java"
}

# Prints the classpath that the classpath-only Maven module scripts/$1 writes to $2, running
# Maven (once) when the file is missing or names a jar that is gone. $3 says what it is for.
module_classpath() {
  local module="$1" cp_file="$2" what="$3" stale=0 entry
  if [[ -s "$cp_file" ]]; then
    IFS=: read -r -a entries < "$cp_file"
    for entry in "${entries[@]}"; do
      if [[ -n "$entry" && ! -e "$entry" ]]; then stale=1; break; fi
    done
  else
    stale=1
  fi
  if (( stale )); then
    command -v mvn >/dev/null 2>&1 || die "$cp_file is missing and mvn is not on PATH; run 'mvn -pl scripts/$module generate-resources' from $ROOT"
    info "resolving $what with Maven (once) ..."
    (cd "$ROOT" && mvn -B -q -f "$ROOT/scripts/$module/pom.xml" generate-resources >&2) \
      || die "could not build $cp_file; run 'mvn -pl scripts/$module generate-resources' in $ROOT to see why"
    [[ -s "$cp_file" ]] || die "Maven finished but $cp_file was not written"
  fi
  cat "$cp_file"
}

port_open() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }

is_number() { [[ "$1" =~ ^[0-9]+$ ]]; }

# Prints the directory named by the last `--dir DIR` among the arguments after $1, or $1 when
# none is given; calls usage when --dir has no value.
dir_option() {
  local dir="$1"; shift
  while (( $# )); do
    if [[ "$1" == --dir ]]; then
      (( $# >= 2 )) || usage
      dir="$2"; shift
    fi
    shift
  done
  echo "$dir"
}
