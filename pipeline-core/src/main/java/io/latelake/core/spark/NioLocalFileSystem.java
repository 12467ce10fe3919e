package io.latelake.core.spark;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * Hadoop's checksummed local file system ({@code file:} paths, the {@link org.apache.hadoop.fs
 * FileSystem} API) whose permission and link calls use Java's file API instead of starting a
 * process. Without Hadoop's native library ({@code libhadoop}, which Maven does not ship) {@link
 * RawLocalFileSystem} runs {@code chmod} for every file and folder it creates and {@code readlink}
 * twice for every rename through {@link org.apache.hadoop.fs.FileContext} (streaming checkpoint
 * files, state store files, each Delta commit and its checksum): about 8,900 processes in one test
 * class of 16 lock steps, 5 ms of CPU each. Everything else (reads, writes, atomic renames,
 * checksums, listings) is Hadoop's own code, unchanged; the bytes and modes on disk are the same.
 *
 * <p>{@link SparkSessions} sets it (with {@link NioLocalFs} for the {@code FileContext} API) for
 * local masters only; see {@link SparkSessions#LOCAL_FS_DEFAULTS}.
 */
public class NioLocalFileSystem extends LocalFileSystem {
  public NioLocalFileSystem() {
    super(new Raw());
  }

  /**
   * {@link RawLocalFileSystem} with {@link #setPermission} and {@link #getFileLinkStatus} in Java.
   */
  static final class Raw extends RawLocalFileSystem {
    /**
     * {@code chmod} by {@link Files#setPosixFilePermissions} for the permission bits (Hadoop's
     * shell fallback for a mode with the sticky bit, which Java cannot set). Follows symbolic
     * links, as {@code chmod} does.
     */
    @Override
    public void setPermission(Path p, FsPermission permission) throws IOException {
      short mode = permission.toShort();
      if ((mode & ~0777) != 0) {
        super.setPermission(p, permission);
        return;
      }
      Files.setPosixFilePermissions(pathToFile(p).toPath(), posix(mode));
    }

    /**
     * Hadoop's answer without its {@code readlink} process: Hadoop reads the link target of {@code
     * new File(f.toString())} and, when there is none, returns {@link #getFileStatus}; that is what
     * this returns for any path that is not a symbolic link (Hadoop's own code for one that is).
     */
    @Override
    public FileStatus getFileLinkStatus(Path f) throws IOException {
      if (!Files.isSymbolicLink(new File(f.toString()).toPath())) {
        return getFileStatus(f);
      }
      return super.getFileLinkStatus(f);
    }
  }

  /**
   * @param mode permission bits (at most 0777)
   * @return the same bits as Java's POSIX permissions
   */
  static Set<PosixFilePermission> posix(int mode) {
    Set<PosixFilePermission> out = EnumSet.noneOf(PosixFilePermission.class);
    PosixFilePermission[] bits = {
      PosixFilePermission.OTHERS_EXECUTE,
      PosixFilePermission.OTHERS_WRITE,
      PosixFilePermission.OTHERS_READ,
      PosixFilePermission.GROUP_EXECUTE,
      PosixFilePermission.GROUP_WRITE,
      PosixFilePermission.GROUP_READ,
      PosixFilePermission.OWNER_EXECUTE,
      PosixFilePermission.OWNER_WRITE,
      PosixFilePermission.OWNER_READ
    };
    for (int i = 0; i < bits.length; i++) {
      if ((mode & (1 << i)) != 0) {
        out.add(bits[i]);
      }
    }
    return out;
  }
}
