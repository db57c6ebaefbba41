#!/usr/bin/env bash
# Runs a single-node KRaft Kafka broker in the foreground on 127.0.0.1, without
# Docker: the broker's jars come from Maven Central (pom.xml beside this script).
#
#   deploy/kafka/run-local-broker.sh [PORT] [CONTROLLER_PORT] [LOG_DIR]
#
# Arguments override the env vars of the same name. Defaults: PORT=9092,
# CONTROLLER_PORT=9093, LOG_DIR=a fresh temp dir (data is thrown away). Waiters
# look for the line "Kafka Server started" in the output.
#
# A LOG_DIR can be restarted on (after a stop or a crash) and keeps its topics,
# records and group offsets: its KRaft cluster id is chosen on the first start and
# kept in $LOG_DIR/cluster.id, since the broker refuses data formatted under
# another id. Restart with the same ports.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PORT="${1:-${PORT:-9092}}"
CONTROLLER_PORT="${2:-${CONTROLLER_PORT:-9093}}"
LOG_DIR="${3:-${LOG_DIR:-}}"
if [[ -z "$LOG_DIR" ]]; then
  LOG_DIR="$(mktemp -d "${TMPDIR:-/tmp}/kafka-local.XXXXXX")"
fi
mkdir -p "$LOG_DIR"

LIB="$HERE/target/lib"
if [[ ! -d "$LIB" ]] || ! compgen -G "$LIB/kafka_2.13-*.jar" > /dev/null; then
  command -v mvn > /dev/null || { echo "run-local-broker: mvn is required to fetch the Kafka jars (apt-get install -y maven)" >&2; exit 1; }
  echo "run-local-broker: fetching Kafka jars into $LIB" >&2
  mvn -q -B -f "$HERE/pom.xml" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory=target/lib >&2
fi
command -v java > /dev/null || { echo "run-local-broker: java 17+ is required (apt-get install -y openjdk-17-jre-headless)" >&2; exit 1; }

# The rendered config lives beside the data so parallel brokers never share one.
PROPS="$LOG_DIR/server.properties"
sed -e "s|\${PORT}|$PORT|g" \
    -e "s|\${CONTROLLER_PORT}|$CONTROLLER_PORT|g" \
    -e "s|\${LOG_DIR}|$LOG_DIR/data|g" \
    "$HERE/server.properties.template" > "$PROPS"

# KRaft storage needs a cluster id: 16 random bytes, base64url without padding (22
# chars), made once per LOG_DIR and kept with the data. A data dir formatted before
# the id was kept (no cluster.id yet) still names its id in meta.properties.
ID_FILE="$LOG_DIR/cluster.id"
META="$LOG_DIR/data/meta.properties"
if [[ -s "$ID_FILE" ]]; then
  CLUSTER_ID="$(tr -d ' \n' < "$ID_FILE")"
elif [[ -f "$META" ]]; then
  CLUSTER_ID="$(sed -n 's/^cluster\.id=//p' "$META" | tr -d ' \r\n')"
else
  # Never one starting with '-' (one in 64 would), which the format command would take
  # for an option: Kafka's own random ids avoid it for the same reason.
  CLUSTER_ID=-
  while [[ "$CLUSTER_ID" == -* ]]; do CLUSTER_ID="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')"; done
fi
[[ -n "$CLUSTER_ID" ]] || { echo "run-local-broker: no cluster.id in $META; remove $LOG_DIR to start afresh" >&2; exit 1; }
# Written before the format, so a crash between the two leaves the id the data gets.
printf '%s\n' "$CLUSTER_ID" > "$ID_FILE.tmp" && mv "$ID_FILE.tmp" "$ID_FILE"

LOG4J="-Dlog4j.configuration=file:$HERE/log4j.properties"
java -cp "$LIB/*" "$LOG4J" kafka.tools.StorageTool format --cluster-id="$CLUSTER_ID" -c "$PROPS" --ignore-formatted > /dev/null

echo "run-local-broker: starting Kafka on 127.0.0.1:$PORT (controller $CONTROLLER_PORT, data $LOG_DIR/data)" >&2
exec java -Xmx512m -Xms256m -XX:+UseG1GC -Djava.awt.headless=true "$LOG4J" -cp "$LIB/*" kafka.Kafka "$PROPS"
