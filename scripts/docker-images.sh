#!/usr/bin/env bash
# Builds the Docker images the integration tests can run their Kafka broker in, without any image
# registry: everything comes from Debian's packages and Maven Central.
#
#   scripts/docker-images.sh [--force]
#
#   latelake/base-jre17:bookworm   Debian bookworm (minbase) with openjdk-17-jre-headless, made with
#                                  debootstrap from the Debian mirror this machine's apt uses, and
#                                  imported with `docker import` (needs root and debootstrap).
#   latelake/kafka:<version>       FROM the base: the Kafka broker classpath resolved by
#                                  scripts/kafka-broker/pom.xml (kafka.broker.version of the parent
#                                  pom) and scripts/docker/kafka/kafka-start.sh.
#
# An image whose tag exists is left alone (--force rebuilds both), unless the Kafka image was built
# from other scripts/docker/kafka files. DEBIAN_MIRROR overrides the
# mirror read from /etc/apt/sources.list and /etc/apt/sources.list.d/. Exit 0 when both images
# exist at the end, 1 otherwise.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SUITE=bookworm
BASE_IMAGE="latelake/base-jre17:$SUITE"
FORCE=0

die() { echo "docker-images: error: $*" >&2; exit 1; }
info() { echo "docker-images: $*" >&2; }

case "${1:-}" in
  "") ;;
  --force) FORCE=1 ;;
  *) echo "usage: $(basename "$0") [--force]" >&2; exit 2 ;;
esac

command -v docker >/dev/null 2>&1 || die "no docker command on PATH"
docker info >/dev/null 2>&1 || die "the Docker engine does not answer (is dockerd running?)"

KAFKA_VERSION="$(sed -n 's:.*<kafka.broker.version>\(.*\)</kafka.broker.version>.*:\1:p' "$ROOT/pom.xml" | head -n 1)"
[[ -n "$KAFKA_VERSION" ]] || die "kafka.broker.version not found in $ROOT/pom.xml"
KAFKA_IMAGE="latelake/kafka:$KAFKA_VERSION"

# Temporary folders, removed on exit whatever happens.
TEMP_DIRS=()
cleanup() { local d; for d in "${TEMP_DIRS[@]}"; do rm -rf "$d" "$d.log"; done; }
trap cleanup EXIT

image_exists() { docker image inspect "$1" >/dev/null 2>&1; }

# Prints the first Debian archive URI of the apt sources (deb822 .sources files and one-line
# .list files), skipping security and disabled entries.
debian_mirror() {
  if [[ -n "${DEBIAN_MIRROR:-}" ]]; then echo "$DEBIAN_MIRROR"; return 0; fi
  local file
  for file in /etc/apt/sources.list.d/*.sources; do
    [[ -f "$file" ]] || continue
    awk 'BEGIN { RS = ""; FS = "\n" }
      {
        types = ""; uris = ""; suites = ""; enabled = "yes"
        for (i = 1; i <= NF; i++) {
          line = $i
          if (line ~ /^[ \t]*#/) continue
          split(line, kv, ":")
          key = tolower(kv[1]); value = substr(line, length(kv[1]) + 2)
          gsub(/^[ \t]+|[ \t]+$/, "", value)
          if (key == "types") types = value
          else if (key == "uris") uris = value
          else if (key == "suites") suites = value
          else if (key == "enabled") enabled = tolower(value)
        }
        if (enabled == "no" || (" " types " ") !~ / deb /) next
        n = split(suites, s, /[ \t]+/)
        for (j = 1; j <= n; j++) if (s[j] ~ /^[a-z]+$/) { split(uris, u, /[ \t]+/); print u[1]; exit }
      }' "$file"
  done
  for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [[ -f "$file" ]] || continue
    awk '$1 == "deb" {
        i = 2
        if ($i ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
        if ($(i + 1) ~ /^[a-z]+$/) { print $i; exit }
      }' "$file"
  done
}

build_base() {
  if image_exists "$BASE_IMAGE" && (( ! FORCE )); then
    info "$BASE_IMAGE exists; skipped"
    return 0
  fi
  command -v debootstrap >/dev/null 2>&1 || die "debootstrap is not installed (apt-get install -y debootstrap)"
  (( EUID == 0 )) || die "debootstrap needs root to build $BASE_IMAGE"
  local mirror
  mirror="$(debian_mirror | head -n 1)"
  [[ -n "$mirror" ]] || die "no Debian mirror found in the apt sources; set DEBIAN_MIRROR"
  local dir
  dir="$(mktemp -d /var/tmp/latelake-rootfs.XXXXXX)"
  TEMP_DIRS+=("$dir")
  info "debootstrap $SUITE (minbase + openjdk-17-jre-headless) from the apt mirror into $dir ..."
  debootstrap --variant=minbase --include=openjdk-17-jre-headless "$SUITE" "$dir" "$mirror" \
      > "$dir.log" 2>&1 || { tail -n 30 "$dir.log" >&2; die "debootstrap failed"; }
  # Package caches and lists are not needed at run time.
  rm -rf "$dir"/var/cache/apt/archives/*.deb "$dir"/var/lib/apt/lists/* "$dir"/usr/share/doc/* \
      "$dir"/usr/share/man/* "$dir"/tmp/*
  tar -C "$dir" --numeric-owner -c . \
    | docker import --change 'ENV LANG=C.UTF-8' --change 'CMD ["/bin/bash"]' \
        --message "Debian $SUITE minbase with openjdk-17-jre-headless" - "$BASE_IMAGE" >/dev/null \
    || die "docker import of $BASE_IMAGE failed"
  if ! docker run --rm --network none "$BASE_IMAGE" java -version >/dev/null 2>&1; then
    docker image rm "$BASE_IMAGE" >/dev/null 2>&1 || true
    die "java -version does not run in $BASE_IMAGE; removed it"
  fi
  info "built $BASE_IMAGE"
}

# A digest of the files the Kafka image is built from, kept as a label so that a changed start
# script rebuilds the image although its tag exists.
kafka_source_digest() {
  cat "$ROOT/scripts/docker/kafka/Dockerfile" "$ROOT/scripts/docker/kafka/kafka-start.sh" \
    "$ROOT/scripts/lib/kafka-node.sh" | sha256sum | cut -c1-16
}

build_kafka() {
  local digest built
  digest="$(kafka_source_digest)"
  if image_exists "$KAFKA_IMAGE" && (( ! FORCE )); then
    built="$(docker image inspect --format '{{ index .Config.Labels "io.latelake.source-digest" }}' "$KAFKA_IMAGE" 2>/dev/null || true)"
    if [[ "$built" == "$digest" ]]; then
      info "$KAFKA_IMAGE exists; skipped"
      return 0
    fi
    info "$KAFKA_IMAGE exists but was built from other scripts/docker/kafka files; rebuilding"
  fi
  local cp_file="$ROOT/scripts/kafka-broker/target/broker-classpath.txt"
  info "resolving the Kafka $KAFKA_VERSION broker classpath with Maven ..."
  local context
  context="$(mktemp -d /var/tmp/latelake-kafka-image.XXXXXX)"
  TEMP_DIRS+=("$context")
  (cd "$ROOT" && mvn -B -ntp -q -f scripts/kafka-broker/pom.xml generate-resources) > "$context.log" 2>&1 \
    || { tail -n 30 "$context.log" >&2; die "could not resolve the broker classpath (mvn -f scripts/kafka-broker/pom.xml generate-resources)"; }
  [[ -s "$cp_file" ]] || die "Maven finished but $cp_file was not written"

  mkdir -p "$context/lib"
  local entry
  IFS=: read -r -a entries < "$cp_file" || true  # the file has no final newline
  for entry in "${entries[@]}"; do
    [[ -n "$entry" ]] || continue
    [[ -f "$entry" ]] || die "$cp_file names missing $entry"
    [[ ! -e "$context/lib/$(basename "$entry")" ]] || die "two broker jars are named $(basename "$entry")"
    cp "$entry" "$context/lib/"
  done
  cp "$ROOT/scripts/docker/kafka/Dockerfile" "$ROOT/scripts/docker/kafka/kafka-start.sh" \
    "$ROOT/scripts/lib/kafka-node.sh" "$context/"
  info "building $KAFKA_IMAGE from $BASE_IMAGE with ${#entries[@]} jars ..."
  DOCKER_BUILDKIT=0 docker build --quiet --build-arg "BASE_IMAGE=$BASE_IMAGE" \
      --label "org.apache.kafka.version=$KAFKA_VERSION" --label "io.latelake.source-digest=$digest" \
      -t "$KAFKA_IMAGE" "$context" > "$context.log" 2>&1 \
    || { tail -n 30 "$context.log" >&2; die "docker build of $KAFKA_IMAGE failed"; }
  info "built $KAFKA_IMAGE"
}

build_base
build_kafka
for image in "$BASE_IMAGE" "$KAFKA_IMAGE"; do
  image_exists "$image" || die "$image is missing after the build"
  info "$image: $(docker image inspect --format '{{.Size}}' "$image" | awk '{ printf "%.0f MB", $1 / 1000000 }')"
done
