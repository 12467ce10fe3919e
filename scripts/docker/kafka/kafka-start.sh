#!/bin/bash
# Entry point of the latelake/kafka image: formats a fresh KRaft log directory and runs one Kafka
# node (broker + controller) in the foreground, logging to the console.
#
# Environment:
#   KAFKA_PORT             client (PLAINTEXT) listener port, required
#   KAFKA_CONTROLLER_PORT  KRaft controller listener port, required, different from KAFKA_PORT
#   KAFKA_HOST             address both listeners bind to (default 127.0.0.1; with host
#                          networking this is the host's loopback interface)
#   KAFKA_HEAP             maximum Java heap (default 512m)
#
# The node's settings come from kafka-node.sh (scripts/lib), shared with scripts/kafka-broker.sh.
set -euo pipefail

die() { echo "kafka-start: error: $*" >&2; exit 2; }

HOST="${KAFKA_HOST:-127.0.0.1}"
PORT="${KAFKA_PORT:-}"
CPORT="${KAFKA_CONTROLLER_PORT:-}"
HEAP="${KAFKA_HEAP:-512m}"
[[ "$PORT" =~ ^[0-9]+$ ]] || die "KAFKA_PORT must be a TCP port number, got '$PORT'"
[[ "$CPORT" =~ ^[0-9]+$ ]] || die "KAFKA_CONTROLLER_PORT must be a TCP port number, got '$CPORT'"
[[ "$PORT" != "$CPORT" ]] || die "KAFKA_PORT and KAFKA_CONTROLLER_PORT must differ, both are $PORT"

WORK=/var/lib/kafka
CP="/opt/kafka/libs/*"
mkdir -p "$WORK/data"

# shellcheck source=../../lib/kafka-node.sh
source /opt/kafka/bin/kafka-node.sh
kafka_node_config "$WORK" "$HOST" "$PORT" "$CPORT"

CLUSTER_ID="$(java -cp "$CP" kafka.tools.StorageTool random-uuid)"
java -Xmx256m -Dlog4j2.configurationFile="$WORK/log4j2.properties" -cp "$CP" \
  kafka.tools.StorageTool format --ignore-formatted --cluster-id "$CLUSTER_ID" --config "$WORK/server.properties"

exec java "-Xmx$HEAP" -Xms64m -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true \
  -Dlog4j2.configurationFile="$WORK/log4j2.properties" \
  -cp "$CP" kafka.Kafka "$WORK/server.properties"
