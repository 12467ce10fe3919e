#!/usr/bin/env bash
# Runs a real Spark standalone cluster on 127.0.0.1 for local use: one master and N workers (each
# its own JVM) from the Spark jars resolved by scripts/spark-cluster/pom.xml, and submits
# applications to it.
#
#   scripts/spark-cluster.sh start [--workers 2] [--worker-cores 1] [--worker-memory 1g]
#                                  [--port PORT] [--webui-port PORT] [--dir DIR]
#   scripts/spark-cluster.sh stop [--dir DIR]
#   scripts/spark-cluster.sh status [--dir DIR]
#   scripts/spark-cluster.sh submit [--dir DIR] SPARK-SUBMIT-ARGS...
#
# DIR defaults to <repo>/target/spark-cluster and holds spark-home/ (jars/ with links to the
# resolved jars, RELEASE, conf/), the pid files, the logs (master.log, worker-N.log) and the
# workers' folders (work/worker-N: one folder per application and executor with its stdout and
# stderr). Ports not given are picked free. Everything binds to 127.0.0.1. `stop` stops the workers
# (and so their executors), then the master. `submit` runs org.apache.spark.deploy.SparkSubmit
# with that SPARK_HOME (its conf/spark-defaults.conf names the master) in client deploy mode:
# the driver is the submit JVM (heap: SPARK_DRIVER_MEMORY, default 1g; further JVM options:
# SPARK_SUBMIT_OPTS, as with Spark's own spark-submit).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CP_FILE="$ROOT/scripts/spark-cluster/target/spark-classpath.txt"
HOST=127.0.0.1
START_TIMEOUT=90
STOP_TIMEOUT=30
MASTER_CLASS=org.apache.spark.deploy.master.Master
WORKER_CLASS=org.apache.spark.deploy.worker.Worker

# The flags spark-submit passes on Java 17 but the incubator module: one list, spark.jvm.opens in pom.xml.
# shellcheck source=lib/jvm-opens.sh
source "$ROOT/scripts/lib/jvm-opens.sh"
latelake_jvm_opens

SCRIPT=spark-cluster
# shellcheck source=lib/common.sh
source "$ROOT/scripts/lib/common.sh"

usage() {
  cat >&2 <<EOF
usage: $(basename "$0") start [--workers 2] [--worker-cores 1] [--worker-memory 1g]
                        [--port PORT] [--webui-port PORT] [--dir DIR]
       $(basename "$0") stop [--dir DIR]
       $(basename "$0") status [--dir DIR]
       $(basename "$0") submit [--dir DIR] SPARK-SUBMIT-ARGS...

Runs a Spark standalone master and workers on $HOST (ports not given are picked free).
DIR defaults to <repo>/target/spark-cluster.
EOF
  exit 2
}

# Prints Spark's classpath, building the classpath file with Maven when it is missing or stale.
spark_classpath() { module_classpath spark-cluster "$CP_FILE" "Spark's classpath"; }

write_spark_home() {
  local master_url="$1" cp entry
  cp="$(spark_classpath)"
  rm -rf "$SPARK_HOME_DIR/jars"
  mkdir -p "$SPARK_HOME_DIR/jars" "$SPARK_HOME_DIR/conf"
  IFS=: read -r -a entries <<< "$cp"
  for entry in "${entries[@]}"; do
    [[ -n "$entry" ]] || continue
    [[ ! -e "$SPARK_HOME_DIR/jars/$(basename "$entry")" ]] \
      || die "two jars named $(basename "$entry") on Spark's classpath ($CP_FILE)"
    ln -s "$entry" "$SPARK_HOME_DIR/jars/$(basename "$entry")"
  done
  local version
  version="$(basename "$(printf '%s\n' "${entries[@]}" | grep -m1 '/spark-core_')" .jar)"
  echo "Spark ${version#spark-core_*-} (Scala 2.13) linked from the Maven repository by scripts/spark-cluster.sh" \
    > "$SPARK_HOME_DIR/RELEASE"
  cat > "$SPARK_HOME_DIR/conf/log4j2.properties" <<'EOF'
# Master, workers, executors and submitted drivers: warnings, plus what the cluster does with
# applications (registered, executors launched and removed), the executors' task lines and
# latelake's own lines (one per micro-batch).
rootLogger.level = warn
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n%ex
logger.deploy.name = org.apache.spark.deploy
logger.deploy.level = info
logger.executor.name = org.apache.spark.executor.Executor
logger.executor.level = info
logger.latelake.name = io.latelake
logger.latelake.level = info
EOF
  cat > "$SPARK_HOME_DIR/conf/spark-defaults.conf" <<EOF
# Written by scripts/spark-cluster.sh: submit to the local standalone cluster, loopback only.
spark.master                    $master_url
spark.submit.deployMode         client
spark.driver.host               $HOST
spark.driver.bindAddress        $HOST
spark.executor.memory           $EXECUTOR_MEMORY
EOF
}

# Sets variable $1 to a TCP port on $HOST that nothing listens on and that was not handed out
# before by this script run.
TAKEN=" "
free_port() {
  local _candidate _tries=0
  while (( _tries < 200 )); do
    _candidate=$(( 20000 + RANDOM % 30000 ))
    if [[ "$TAKEN" != *" $_candidate "* ]] && ! port_open "$_candidate"; then
      TAKEN+="$_candidate "
      printf -v "$1" '%s' "$_candidate"
      return 0
    fi
    _tries=$((_tries + 1))
  done
  die "found no free port on $HOST"
}

# Prints the pid recorded in pid file $1 if that process is alive and runs class $2 for this
# DIR; removes a stale pid file.
live_pid() {
  local file="$1" class="$2" pid
  [[ -f "$file" ]] || return 0
  pid="$(cat "$file" 2>/dev/null || true)"
  if is_number "$pid" && kill -0 "$pid" 2>/dev/null \
      && tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "-Dlatelake.spark.cluster=$DIR " \
      && tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF "$class"; then
    echo "$pid"
  else
    rm -f "$file"
  fi
}

master_pid() { live_pid "$DIR/master.pid" "$MASTER_CLASS"; }

# Prints "pidfile pid" for every live worker.
worker_pids() {
  local f pid
  for f in "$DIR"/worker-*.pid; do
    [[ -e "$f" ]] || continue
    pid="$(live_pid "$f" "$WORKER_CLASS")"
    [[ -z "$pid" ]] || echo "$f $pid"
  done
}

# Starts one daemon JVM in the background; prints its pid.
launch() {
  local log="$1"; shift
  echo "===== $(date '+%Y-%m-%d %H:%M:%S') start =====" >> "$log"
  SPARK_HOME="$SPARK_HOME_DIR" SPARK_CONF_DIR="$SPARK_HOME_DIR/conf" SPARK_SCALA_VERSION=2.13 \
  SPARK_LOCAL_IP="$HOST" SPARK_LOCAL_HOSTNAME="$HOST" SPARK_PUBLIC_DNS="$HOST" \
    nohup "$JAVA" "${OPENS[@]}" -Xmx256m -Xms64m -Djava.awt.headless=true \
      "-Dlatelake.spark.cluster=$DIR" -Dspark.master.rest.enabled=false \
      -cp "$SPARK_HOME_DIR/conf:$SPARK_HOME_DIR/jars/*" "$@" >> "$log" 2>&1 < /dev/null &
  echo $!
}

# Waits until $HOST:$2 accepts connections while pid $1 lives; else stops everything and fails.
await_port() {
  local pid="$1" port="$2" log="$3" waited=0
  until port_open "$port"; do
    if ! kill -0 "$pid" 2>/dev/null || (( waited >= START_TIMEOUT * 5 )); then
      echo "----- last lines of $log -----" >&2
      tail -n 40 "$log" >&2
      cmd_stop >/dev/null 2>&1 || true
      die "a cluster process did not come up on $HOST:$port within ${START_TIMEOUT}s; stopped what had started (log: $log)"
    fi
    sleep 0.2
    waited=$((waited + 1))
  done
}

# The master's state from its web UI (JSON), read with curl.
master_json() { curl -fsS --max-time 5 "$(cat "$DIR/webui")/json/"; }

need_curl() {
  command -v curl >/dev/null 2>&1 \
    || die "curl is not installed: it reads the workers' registration from the master's web UI (Debian: apt-get install curl)"
}

alive_workers() { master_json 2>/dev/null | grep -o '"state" *: *"ALIVE"' | wc -l; }

cmd_start() {
  local workers=2 cores=1 memory=1g port="" webui=""
  while (( $# )); do
    case "$1" in
      --workers) [[ $# -ge 2 ]] || usage; workers="$2"; shift 2 ;;
      --worker-cores) [[ $# -ge 2 ]] || usage; cores="$2"; shift 2 ;;
      --worker-memory) [[ $# -ge 2 ]] || usage; memory="$2"; shift 2 ;;
      --port) [[ $# -ge 2 ]] || usage; port="$2"; shift 2 ;;
      --webui-port) [[ $# -ge 2 ]] || usage; webui="$2"; shift 2 ;;
      --dir) shift 2 ;;  # handled globally
      *) usage ;;
    esac
  done
  is_number "$workers" && (( workers > 0 && workers <= 8 )) || die "--workers must be 1..8, got '$workers'"
  is_number "$cores" && (( cores > 0 )) || die "--worker-cores must be a positive number, got '$cores'"
  [[ "$memory" =~ ^[0-9]+[mMgG]$ ]] || die "--worker-memory must be a size like 512m or 1g, got '$memory'"
  need_curl
  for p in "$port" "$webui"; do
    [[ -z "$p" ]] || { is_number "$p" && (( p > 0 && p < 65536 )); } || die "a port must be a TCP port number, got '$p'"
    [[ -z "$p" ]] || ! port_open "$p" || die "port $HOST:$p is already in use"
    [[ -z "$p" ]] || TAKEN+="$p "
  done

  local pid
  pid="$(master_pid)"
  if [[ -n "$pid" ]]; then
    info "already running (master pid $pid, dir $DIR)"
    cat "$DIR/master-url"
    return 0
  fi
  [[ -z "$(worker_pids)" ]] || die "workers of an earlier start are still running in $DIR; run '$0 stop --dir $DIR' first"

  [[ -n "$port" ]] || free_port port
  [[ -n "$webui" ]] || free_port webui
  local master_url="spark://$HOST:$port"
  # Executors get what a worker has, less headroom for the JVM beyond the heap.
  local mb=${memory%[mMgG]}
  [[ "$memory" == *[gG] ]] && mb=$((mb * 1024))
  (( mb >= 512 )) || die "--worker-memory must be at least 512m, got '$memory'"
  EXECUTOR_MEMORY="$(( mb * 3 / 4 ))m"
  JAVA="$(java_bin)"
  write_spark_home "$master_url"
  rm -f "$DIR"/worker-*.pid "$DIR"/worker-*.log
  echo "$master_url" > "$DIR/master-url"
  echo "http://$HOST:$webui" > "$DIR/webui"

  pid="$(launch "$DIR/master.log" "$MASTER_CLASS" --host "$HOST" --port "$port" --webui-port "$webui")"
  echo "$pid" > "$DIR/master.pid"
  await_port "$pid" "$port" "$DIR/master.log"
  await_port "$pid" "$webui" "$DIR/master.log"

  local i wport wui
  for ((i = 1; i <= workers; i++)); do
    free_port wport
    free_port wui
    mkdir -p "$DIR/work/worker-$i"
    pid="$(launch "$DIR/worker-$i.log" "$WORKER_CLASS" --host "$HOST" --port "$wport" \
      --webui-port "$wui" --cores "$cores" --memory "$memory" --work-dir "$DIR/work/worker-$i" \
      "$master_url")"
    echo "$pid" > "$DIR/worker-$i.pid"
    await_port "$pid" "$wport" "$DIR/worker-$i.log"
  done

  local waited=0
  until (( $(alive_workers) >= workers )); do
    if (( waited >= START_TIMEOUT * 5 )); then
      cmd_stop >/dev/null 2>&1 || true
      die "only $(alive_workers) of $workers workers registered with $master_url within ${START_TIMEOUT}s; stopped the cluster (logs in $DIR)"
    fi
    sleep 0.2
    waited=$((waited + 1))
  done
  info "running: master $master_url (web UI http://$HOST:$webui), $workers workers with $cores core(s) and $memory each (dir $DIR)"
  echo "$master_url"
}

# Stops pid $1 with SIGTERM, then SIGKILL after STOP_TIMEOUT.
stop_pid() {
  local pid="$1" waited=0
  kill -TERM "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null; do
    if (( waited >= STOP_TIMEOUT * 5 )); then
      info "no clean shutdown of pid $pid within ${STOP_TIMEOUT}s; killing it"
      kill -KILL "$pid" 2>/dev/null || true
      break
    fi
    sleep 0.2
    waited=$((waited + 1))
  done
}

cmd_stop() {
  while (( $# )); do
    case "$1" in --dir) shift 2 ;; *) usage ;; esac
  done
  local stopped=0 file pid
  # Workers first: a worker stops its executors when it stops.
  while read -r file pid; do
    [[ -n "$pid" ]] || continue
    stop_pid "$pid"
    rm -f "$file"
    info "stopped worker (pid $pid)"
    stopped=1
  done < <(worker_pids)
  # Executors whose worker died without stopping them: they run in the workers' folders.
  local proc cwd
  for proc in /proc/[0-9]*; do
    cwd="$(readlink "$proc/cwd" 2>/dev/null || true)"
    if [[ "$cwd" == "$DIR/work/"* ]] && tr '\0' ' ' < "$proc/cmdline" 2>/dev/null \
        | grep -qF org.apache.spark.executor; then
      info "stopping executor left behind (pid ${proc#/proc/})"
      stop_pid "${proc#/proc/}"
    fi
  done
  pid="$(master_pid)"
  if [[ -n "$pid" ]]; then
    stop_pid "$pid"
    rm -f "$DIR/master.pid"
    info "stopped master (pid $pid)"
    stopped=1
  fi
  (( stopped )) || info "not running (dir $DIR)"
}

cmd_status() {
  while (( $# )); do
    case "$1" in --dir) shift 2 ;; *) usage ;; esac
  done
  local pid
  pid="$(master_pid)"
  if [[ -z "$pid" ]]; then
    echo "not running (dir $DIR)"
    [[ -z "$(worker_pids)" ]] || echo "but workers of an earlier start are alive: run '$0 stop --dir $DIR'"
    return 3
  fi
  local json apps
  need_curl
  if ! json="$(master_json 2>/dev/null)"; then
    echo "starting or unhealthy: master pid $pid is alive but $(cat "$DIR/webui")/json/ does not answer (log: $DIR/master.log)"
    return 1
  fi
  # Applications are the objects in "activeapps": [ {...}, ... ] (their fields hold no brackets).
  apps="$(tr -d '\n' <<< "$json" | { grep -o '"activeapps" *: *\[[^]]*\]' || true; } \
    | { grep -o '"name" *: *"[^"]*"' || true; } | wc -l)"
  echo "running: master $(cat "$DIR/master-url") (pid $pid), web UI $(cat "$DIR/webui"), $(alive_workers) worker(s) alive, $apps application(s) running (dir $DIR)"
}

cmd_submit() {
  [[ -n "$(master_pid)" ]] || die "the cluster is not running (dir $DIR); start it with '$0 start'"
  [[ $# -ge 1 ]] || usage
  JAVA="$(java_bin)"
  SPARK_HOME="$SPARK_HOME_DIR" SPARK_CONF_DIR="$SPARK_HOME_DIR/conf" SPARK_SCALA_VERSION=2.13 \
  SPARK_LOCAL_IP="$HOST" LATELAKE_HOME="${LATELAKE_HOME:-$ROOT}" \
    exec "$JAVA" "${OPENS[@]}" -Xmx"${SPARK_DRIVER_MEMORY:-1g}" ${SPARK_SUBMIT_OPTS:-} \
      -cp "$SPARK_HOME_DIR/conf:$SPARK_HOME_DIR/jars/*" org.apache.spark.deploy.SparkSubmit "$@"
}

[[ $# -ge 1 ]] || usage
COMMAND="$1"; shift
DIR="$ROOT/target/spark-cluster"
if [[ "$COMMAND" == submit ]]; then
  # submit: only a leading --dir is ours; everything else goes to spark-submit.
  if [[ "${1:-}" == --dir ]]; then
    [[ $# -ge 2 ]] || usage
    DIR="$2"; shift 2
  fi
else
  DIR="$(dir_option "$DIR" "$@")"
fi
mkdir -p "$DIR" || die "cannot create $DIR"
DIR="$(cd "$DIR" && pwd)"
SPARK_HOME_DIR="$DIR/spark-home"

case "$COMMAND" in
  start) cmd_start "$@" ;;
  stop) cmd_stop "$@" ;;
  status) cmd_status "$@" ;;
  submit) cmd_submit "$@" ;;
  -h|--help|help) usage ;;
  *) echo "spark-cluster: unknown command '$COMMAND'" >&2; usage ;;
esac
