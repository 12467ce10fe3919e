# Writes the configuration of one single-node KRaft Kafka (broker and controller in one JVM):
# used by scripts/kafka-broker.sh (a local process) and by the latelake/kafka image's entry point
# (scripts/docker/kafka/kafka-start.sh), so both brokers run with the same settings.
# Transactions work on this one node: the transaction state log and the offsets topic have
# replication factor 1 and min ISR 1; topics are never created automatically.
# shellcheck shell=bash

# kafka_node_config DIR HOST PORT CONTROLLER_PORT
# Writes DIR/server.properties (log segments in DIR/data) and DIR/log4j2.properties (everything
# at INFO to the console).
kafka_node_config() {
  local dir="$1" host="$2" port="$3" cport="$4"
  cat > "$dir/server.properties" <<PROPS
# One KRaft node (broker + controller) on $host, written by kafka-node.sh.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@$host:$cport
listeners=PLAINTEXT://$host:$port,CONTROLLER://$host:$cport
advertised.listeners=PLAINTEXT://$host:$port
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$dir/data
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
  cat > "$dir/log4j2.properties" <<'PROPS'
# Broker logging: everything to the console.
status = warn
appender.out.type = Console
appender.out.name = OUT
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.out.ref = OUT
PROPS
}
