package io.latelake.core.testing;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.exception.NotFoundException;
import org.testcontainers.DockerClientFactory;

/** Whether Testcontainers reaches a Docker engine that has the broker image. */
final class DockerProbe {

  /**
   * @param problem why the container cannot run, or {@code null}
   * @param engine the engine found, e.g. {@code "Docker 20.10.24"}, or {@code null}
   */
  record Result(String problem, String engine) {}

  private DockerProbe() {}

  static Result check(String image) {
    try {
      DockerClientFactory factory = DockerClientFactory.instance();
      if (!factory.isDockerAvailable()) {
        return new Result("no Docker engine reachable", null);
      }
      DockerClient docker = factory.client();
      String engine = "Docker " + docker.versionCmd().exec().getVersion();
      try {
        docker.inspectImageCmd(image).exec();
      } catch (NotFoundException e) {
        return new Result(
            "image "
                + image
                + " is missing on "
                + engine
                + " (build it with scripts/docker-images.sh)",
            engine);
      }
      return new Result(null, engine);
    } catch (RuntimeException e) {
      return new Result("the Docker engine did not answer: " + e, null);
    }
  }
}
