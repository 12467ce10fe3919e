package io.latelake.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.latelake.core.catalog.CatalogException;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.streaming.CheckpointException;
import io.latelake.core.streaming.StreamFailedException;
import io.latelake.core.table.MissingTableException;
import io.latelake.core.table.StorageException;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** The catalogue of errors ({@link LatelakeException}): each class's exit code and wording. */
class ErrorCatalogueTest {
  @Test
  void eachClassHasItsExitCode() {
    IOException io = new IOException("disk full");
    assertThat(new LakeConfigException("x").exitCode()).isEqualTo(ExitCode.USAGE);
    assertThat(new MissingTableException("run correct", "gold.m", "/l/gold/m", "r").exitCode())
        .isEqualTo(ExitCode.USAGE);
    assertThat(new CheckpointException("x").exitCode()).isEqualTo(ExitCode.USAGE);
    assertThat(new CatalogException("x").exitCode()).isEqualTo(ExitCode.USAGE);
    assertThat(new StreamFailedException("x", io).exitCode()).isEqualTo(ExitCode.RUNTIME_FAILURE);
    assertThat(new StorageException("Cannot write x: disk full", io).exitCode())
        .isEqualTo(ExitCode.RUNTIME_FAILURE);
    assertThat(ExitCode.USAGE.code()).isEqualTo(2);
    assertThat(ExitCode.RUNTIME_FAILURE.code()).isEqualTo(1);
  }

  @Test
  void anInvalidValueNamesAKeyOrAnOption() {
    assertThat(LakeConfigException.invalid("lake.silver.watermark-delay", "soon", "why"))
        .hasMessage("Invalid value 'soon' for key 'lake.silver.watermark-delay': why");
    assertThat(LakeConfigException.invalid("--from", "2024-13-01", "is not a calendar date"))
        .hasMessage("Invalid value '2024-13-01' for option '--from': is not a calendar date");
  }
}
