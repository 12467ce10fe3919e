# shellcheck shell=bash
# The JVM flags spark-submit passes on Java 17 (Spark's launcher JavaModuleOptions) but
# --add-modules=jdk.incubator.vector (see pom.xml), for the
# scripts that start Spark JVMs themselves. One list: the spark.jvm.opens property of pom.xml,
# which the tests' JVMs get from Maven; read here into the array OPENS.
# Needs ROOT (the repository's root).
latelake_jvm_opens() {
  local line
  line="$(sed -n 's|.*<spark.jvm.opens>\(.*\)</spark.jvm.opens>.*|\1|p' "$ROOT/pom.xml")"
  if [[ -z "$line" ]]; then
    echo "latelake: cannot read the JVM flags (spark.jvm.opens) from $ROOT/pom.xml" >&2
    exit 1
  fi
  read -r -a OPENS <<< "$line"
}
