package io.latelake.core.testing;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The start of the command line of a child JVM that runs Spark as the test JVM does. */
public final class ChildJvm {
  private ChildJvm() {}

  /**
   * @return this JVM's {@code java}, the module flags Spark needs on Java 17 as the build gave them
   *     to the test JVM ({@code --add-opens ...}, {@code -XX:+IgnoreUnrecognizedVMOptions}, {@code
   *     -Djdk.reflect...}, {@code -Dio.netty...}), and the test JVM's Delta and code generation
   *     settings ({@code spark.databricks.*}, {@code spark.sql.codegen.*} system properties, set by
   *     the build for every test); the caller adds heap, JIT flags, class path and main class
   */
  public static List<String> java() {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (a.startsWith("--add-")
          || a.startsWith("-XX:+IgnoreUnrecognized")
          || a.startsWith("-Djdk.reflect")
          || a.startsWith("-Dio.netty")) {
        cmd.add(a);
      }
    }
    for (String name : System.getProperties().stringPropertyNames()) {
      if (name.startsWith("spark.databricks.") || name.startsWith("spark.sql.codegen.")) {
        cmd.add("-D" + name + "=" + System.getProperty(name));
      }
    }
    return cmd;
  }
}
