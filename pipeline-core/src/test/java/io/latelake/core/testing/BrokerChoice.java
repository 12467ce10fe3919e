package io.latelake.core.testing;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Which {@link KafkaBroker} implementation runs, and why: from the system property {@value
 * KafkaBroker#IMPLEMENTATION_PROPERTY} ({@code auto}, {@code container}, {@code process}).
 *
 * <p>Only {@link DockerProbe} and {@link ContainerBrokerRuntime} touch Testcontainers classes, and
 * only after the check that they are on the classpath: a module that uses {@link KafkaBroker}
 * without the Testcontainers test dependency gets the process.
 *
 * @param implementation the implementation to start
 * @param image the broker image (used by the container only)
 * @param reason why, for the log line
 */
record BrokerChoice(KafkaBroker.Implementation implementation, String image, String reason) {

  static final String RYUK_DISABLED_ENV = "TESTCONTAINERS_RYUK_DISABLED";
  static final String HOST_OVERRIDE_ENV = "TESTCONTAINERS_HOST_OVERRIDE";

  /** The Docker probe of {@code auto}: run once per JVM and image. */
  private static String probedImage;

  private static String probeProblem;
  private static String probeEngine;

  /**
   * Reads the system properties and, for {@code auto}, probes Docker (once per JVM).
   *
   * @throws IllegalArgumentException if the property has another value
   * @throws IllegalStateException if {@code container} is asked for and cannot run
   */
  static BrokerChoice current() {
    String image = System.getProperty(KafkaBroker.IMAGE_PROPERTY, KafkaBroker.DEFAULT_IMAGE).trim();
    String mode =
        System.getProperty(KafkaBroker.IMPLEMENTATION_PROPERTY, "auto")
            .trim()
            .toLowerCase(Locale.ROOT);
    switch (mode) {
      case "process":
        return new BrokerChoice(
            KafkaBroker.Implementation.PROCESS,
            image,
            KafkaBroker.IMPLEMENTATION_PROPERTY + "=process");
      case "container":
        {
          String problem = probe(image);
          if (problem != null) {
            throw new IllegalStateException(
                "Cannot run the Kafka broker in a container ("
                    + KafkaBroker.IMPLEMENTATION_PROPERTY
                    + "=container): "
                    + problem);
          }
          return new BrokerChoice(
              KafkaBroker.Implementation.CONTAINER,
              image,
              KafkaBroker.IMPLEMENTATION_PROPERTY
                  + "=container, image "
                  + image
                  + " on "
                  + probeEngine);
        }
      case "auto":
      case "":
        {
          String problem = probe(image);
          return problem == null
              ? new BrokerChoice(
                  KafkaBroker.Implementation.CONTAINER,
                  image,
                  "image " + image + " on " + probeEngine)
              : new BrokerChoice(KafkaBroker.Implementation.PROCESS, image, "fallback: " + problem);
        }
      default:
        throw new IllegalArgumentException(
            "Invalid value '"
                + mode
                + "' for system property '"
                + KafkaBroker.IMPLEMENTATION_PROPERTY
                + "', expected auto, container or process");
    }
  }

  /** Starts the container; kept here so that {@link KafkaBroker} names no Testcontainers class. */
  static BrokerRuntime startContainer(Path dir, String image) throws IOException {
    return ContainerBrokerRuntime.start(dir, image);
  }

  /** Why the container cannot run, or {@code null} when it can. */
  private static synchronized String probe(String image) {
    if (image.equals(probedImage)) {
      return probeProblem;
    }
    String problem;
    if (!testcontainersPresent()) {
      problem = "Testcontainers is not on the test classpath";
    } else if (!Boolean.parseBoolean(System.getenv(RYUK_DISABLED_ENV))) {
      problem =
          RYUK_DISABLED_ENV
              + " is not true (the reaper's image cannot be pulled; the fixture "
              + "removes its containers itself; the Maven build sets it)";
    } else if (System.getenv(HOST_OVERRIDE_ENV) == null) {
      problem =
          HOST_OVERRIDE_ENV
              + " is not set (without it Testcontainers may pull an extra image to "
              + "find the host's address; the Maven build sets it to 127.0.0.1)";
    } else {
      DockerProbe.Result result = DockerProbe.check(image);
      problem = result.problem();
      probeEngine = result.engine();
    }
    probedImage = image;
    probeProblem = problem;
    return problem;
  }

  private static boolean testcontainersPresent() {
    try {
      Class.forName(
          "org.testcontainers.DockerClientFactory", false, BrokerChoice.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }
}
