package io.latelake.core.spark;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.ChecksumFs;
import org.apache.hadoop.fs.DelegateToFileSystem;
import org.apache.hadoop.fs.FsConstants;
import org.apache.hadoop.fs.FsServerDefaults;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.local.LocalConfigKeys;

/**
 * {@link NioLocalFileSystem} for Hadoop's {@link org.apache.hadoop.fs.FileContext} API (which
 * Spark's checkpoint files and Delta's commits use): Hadoop's {@code LocalFs} (checksums over
 * {@code RawLocalFs}) with the raw file system replaced. Configured as {@code
 * fs.AbstractFileSystem.file.impl} by {@link SparkSessions}.
 */
public class NioLocalFs extends ChecksumFs {
  /**
   * The constructor Hadoop calls ({@code AbstractFileSystem.createFileSystem}); like Hadoop's
   * {@code LocalFs}, always {@code file:///}.
   */
  public NioLocalFs(URI uri, Configuration conf) throws IOException, URISyntaxException {
    super(new Raw(FsConstants.LOCAL_FS_URI, conf));
  }

  /** What Hadoop's {@code RawLocalFs} is, over {@link NioLocalFileSystem.Raw}. */
  static final class Raw extends DelegateToFileSystem {
    Raw(URI uri, Configuration conf) throws IOException, URISyntaxException {
      super(uri, new NioLocalFileSystem.Raw(), conf, FsConstants.LOCAL_FS_URI.getScheme(), false);
    }

    @Override
    public int getUriDefaultPort() {
      return -1; // file:/// has no port
    }

    @Override
    @Deprecated
    public FsServerDefaults getServerDefaults() throws IOException {
      return LocalConfigKeys.getServerDefaults();
    }

    @Override
    public FsServerDefaults getServerDefaults(Path f) throws IOException {
      return LocalConfigKeys.getServerDefaults();
    }

    @Override
    public boolean isValidName(String src) {
      return true; // as Hadoop's RawLocalFs: the operating system decides
    }
  }
}
