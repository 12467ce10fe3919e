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
# Transactions work on this one node: the transaction state log and the offsets topic have
# replication factor 1 and min ISR 1.
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

cat > "$WORK/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@$HOST:$CPORT
listeners=PLAINTEXT://$HOST:$PORT,CONTROLLER://$HOST:$CPORT
advertised.listeners=PLAINTEXT://$HOST:$PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$WORK/data
num.partitions=1
default.replication.factor=1
min.insync.replicas=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=false
num.network.threads=2
num.io.threads=2
num.recovery.threads.per.data.dir=1
background.threads=2
PROPS

cat > "$WORK/log4j2.properties" <<'PROPS'
status = warn
appender.out.type = Console
appender.out.name = OUT
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.out.ref = OUT
PROPS

CLUSTER_ID="$(java -cp "$CP" kafka.tools.StorageTool random-uuid)"
java -Xmx256m -Dlog4j2.configurationFile="$WORK/log4j2.properties" -cp "$CP" \
  kafka.tools.StorageTool format --ignore-formatted --cluster-id "$CLUSTER_ID" --config "$WORK/server.properties"

exec java "-Xmx$HEAP" -Xms64m -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true \
  -Dlog4j2.configurationFile="$WORK/log4j2.properties" \
  -cp "$CP" kafka.Kafka "$WORK/server.properties"
