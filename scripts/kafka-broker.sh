#!/usr/bin/env bash
# Runs a real single-node Apache Kafka broker (KRaft, broker + controller in one JVM) on
# 127.0.0.1 for local use, from the classpath resolved by scripts/kafka-broker/pom.xml.
#
#   scripts/kafka-broker.sh start [--port 9092] [--controller-port PORT] [--dir DIR]
#   scripts/kafka-broker.sh stop [--dir DIR]
#   scripts/kafka-broker.sh status [--dir DIR]
#   scripts/kafka-broker.sh create-topic NAME [--partitions N] [--dir DIR]
#
# DIR defaults to ${LATELAKE_HOME:-$HOME/.latelake}/kafka and holds server.properties, the log
# segments (data/), the broker output (broker.log) and the pid file. The storage is formatted on
# the first start only, so topics and records survive stop/start. Topics are created with
# message.timestamp.type=LogAppendTime; the broker does not create topics on its own.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CP_FILE="$ROOT/scripts/kafka-broker/target/broker-classpath.txt"
HOST=127.0.0.1
START_TIMEOUT=60
STOP_TIMEOUT=30

SCRIPT=kafka-broker
# shellcheck source=lib/common.sh
source "$ROOT/scripts/lib/common.sh"
# shellcheck source=lib/kafka-node.sh
source "$ROOT/scripts/lib/kafka-node.sh"

usage() {
  cat >&2 <<EOF
usage: $(basename "$0") start [--port 9092] [--controller-port PORT] [--dir DIR]
       $(basename "$0") stop [--dir DIR]
       $(basename "$0") status [--dir DIR]
       $(basename "$0") create-topic NAME [--partitions N] [--dir DIR]

Runs a single-node KRaft Kafka broker on $HOST (controller port defaults to port + 1).
DIR defaults to \${LATELAKE_HOME:-\$HOME/.latelake}/kafka.
EOF
  exit 2
}

# Prints the broker classpath, building the classpath file with Maven when it is missing or stale.
broker_classpath() { module_classpath kafka-broker "$CP_FILE" "the broker classpath"; }

# Prints the pid of the running broker for $DIR, or nothing (removing a stale pid file).
running_pid() {
  local pid
  [[ -f "$PID_FILE" ]] || return 0
  pid="$(cat "$PID_FILE" 2>/dev/null || true)"
  if is_number "$pid" && kill -0 "$pid" 2>/dev/null \
      && tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF "kafka.Kafka $DIR/server.properties"; then
    echo "$pid"
  else
    rm -f "$PID_FILE"
  fi
}

bootstrap() {
  [[ -f "$DIR/bootstrap" ]] || die "no broker address recorded in $DIR; start the broker first"
  cat "$DIR/bootstrap"
}

write_config() {
  kafka_node_config "$DIR" "$HOST" "$1" "$2"
  cat > "$DIR/log4j2-tools.properties" <<'EOF'
# Command-line tools (kafka-topics): warnings and errors only, to stderr.
status = warn
appender.err.type = Console
appender.err.name = ERR
appender.err.target = SYSTEM_ERR
appender.err.layout.type = PatternLayout
appender.err.layout.pattern = %p %m%n
rootLogger.level = WARN
rootLogger.appenderRef.err.ref = ERR
EOF
}

cmd_start() {
  local port=9092 cport=""
  while (( $# )); do
    case "$1" in
      --port) [[ $# -ge 2 ]] || usage; port="$2"; shift 2 ;;
      --controller-port) [[ $# -ge 2 ]] || usage; cport="$2"; shift 2 ;;
      --dir) shift 2 ;;  # handled globally
      *) usage ;;
    esac
  done
  cport="${cport:-$((port + 1))}"
  is_number "$port" && (( port > 0 && port < 65536 )) || die "--port must be a TCP port number, got '$port'"
  is_number "$cport" && (( cport > 0 && cport < 65536 )) || die "--controller-port must be a TCP port number, got '$cport'"
  (( port != cport )) || die "--port and --controller-port must differ"

  local pid
  pid="$(running_pid)"
  if [[ -n "$pid" ]]; then
    info "already running (pid $pid, dir $DIR)"
    bootstrap
    return 0
  fi
  port_open "$port" && die "port $HOST:$port is already in use; choose another with --port"
  port_open "$cport" && die "controller port $HOST:$cport is already in use; choose another with --controller-port"

  local java cp
  java="$(java_bin)"
  cp="$(broker_classpath)"
  mkdir -p "$DIR/data"
  write_config "$port" "$cport"

  if [[ ! -f "$DIR/data/meta.properties" ]]; then
    local cluster_id
    cluster_id="$("$java" -cp "$cp" kafka.tools.StorageTool random-uuid)" || die "could not generate a cluster id"
    info "formatting $DIR/data (cluster id $cluster_id)"
    "$java" -Xmx256m -Dlog4j2.configurationFile="$DIR/log4j2-tools.properties" -cp "$cp" \
        kafka.tools.StorageTool format --cluster-id "$cluster_id" --config "$DIR/server.properties" >&2 \
      || die "formatting the storage in $DIR/data failed (see above)"
  fi

  echo "===== $(date '+%Y-%m-%d %H:%M:%S') start on $HOST:$port =====" >> "$DIR/broker.log"
  nohup "$java" -Xmx512m -Xms64m -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true \
      -Dlog4j2.configurationFile="$DIR/log4j2.properties" \
      -cp "$cp" kafka.Kafka "$DIR/server.properties" >> "$DIR/broker.log" 2>&1 < /dev/null &
  pid=$!
  echo "$pid" > "$PID_FILE"
  echo "$HOST:$port" > "$DIR/bootstrap"

  local waited=0
  until port_open "$port"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      rm -f "$PID_FILE"
      echo "----- last lines of $DIR/broker.log -----" >&2
      tail -n 40 "$DIR/broker.log" >&2
      die "the broker exited during start-up (full log: $DIR/broker.log)"
    fi
    if (( waited >= START_TIMEOUT * 5 )); then
      kill "$pid" 2>/dev/null || true
      rm -f "$PID_FILE"
      echo "----- last lines of $DIR/broker.log -----" >&2
      tail -n 40 "$DIR/broker.log" >&2
      die "the broker did not accept connections on $HOST:$port within ${START_TIMEOUT}s; stopped it (log: $DIR/broker.log)"
    fi
    sleep 0.2
    waited=$((waited + 1))
  done
  info "running (pid $pid, dir $DIR, log $DIR/broker.log)"
  echo "$HOST:$port"
}

cmd_stop() {
  while (( $# )); do
    case "$1" in --dir) shift 2 ;; *) usage ;; esac
  done
  local pid
  pid="$(running_pid)"
  if [[ -z "$pid" ]]; then
    info "not running (dir $DIR)"
    return 0
  fi
  kill -TERM "$pid" 2>/dev/null || true
  local waited=0
  while kill -0 "$pid" 2>/dev/null; do
    if (( waited >= STOP_TIMEOUT * 5 )); then
      info "no clean shutdown within ${STOP_TIMEOUT}s; killing pid $pid"
      kill -KILL "$pid" 2>/dev/null || true
      break
    fi
    sleep 0.2
    waited=$((waited + 1))
  done
  rm -f "$PID_FILE"
  info "stopped (pid $pid)"
}

cmd_status() {
  while (( $# )); do
    case "$1" in --dir) shift 2 ;; *) usage ;; esac
  done
  local pid
  pid="$(running_pid)"
  if [[ -z "$pid" ]]; then
    echo "not running (dir $DIR)"
    return 3
  fi
  local address
  address="$(bootstrap)"
  if port_open "${address##*:}"; then
    echo "running: $address (pid $pid, dir $DIR)"
  else
    echo "starting or unhealthy: pid $pid is alive but $address does not accept connections (log: $DIR/broker.log)"
    return 1
  fi
}

cmd_create_topic() {
  local name="" partitions=1
  while (( $# )); do
    case "$1" in
      --partitions) [[ $# -ge 2 ]] || usage; partitions="$2"; shift 2 ;;
      --dir) shift 2 ;;
      -*) usage ;;
      *) [[ -z "$name" ]] || usage; name="$1"; shift ;;
    esac
  done
  [[ -n "$name" ]] || usage
  is_number "$partitions" && (( partitions > 0 )) || die "--partitions must be a positive number, got '$partitions'"
  [[ -n "$(running_pid)" ]] || die "the broker is not running (dir $DIR); start it with '$0 start'"
  local address java cp
  address="$(bootstrap)"
  java="$(java_bin)"
  cp="$(broker_classpath)"
  local tool=("$java" -Xmx256m -Dlog4j2.configurationFile="$DIR/log4j2-tools.properties" -cp "$cp"
              org.apache.kafka.tools.TopicCommand --bootstrap-server "$address")
  "${tool[@]}" --create --if-not-exists --topic "$name" --partitions "$partitions" --replication-factor 1 \
      --config message.timestamp.type=LogAppendTime \
    || die "could not create topic '$name' on $address"
  local description
  description="$("${tool[@]}" --describe --topic "$name")" || die "could not describe topic '$name' on $address"
  echo "$description"
  if ! grep -q "message.timestamp.type=LogAppendTime" <<< "$description"; then
    die "topic '$name' already existed without message.timestamp.type=LogAppendTime; delete it or pick another name"
  fi
}

# --dir may appear anywhere after the command.
[[ $# -ge 1 ]] || usage
COMMAND="$1"; shift
DIR="$(dir_option "${LATELAKE_HOME:-$HOME/.latelake}/kafka" "$@")"
mkdir -p "$DIR" || die "cannot create $DIR"
DIR="$(cd "$DIR" && pwd)"
PID_FILE="$DIR/broker.pid"

case "$COMMAND" in
  start) cmd_start "$@" ;;
  stop) cmd_stop "$@" ;;
  status) cmd_status "$@" ;;
  create-topic) cmd_create_topic "$@" ;;
  -h|--help|help) usage ;;
  *) echo "kafka-broker: unknown command '$COMMAND'" >&2; usage ;;
esac
