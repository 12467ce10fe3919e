package io.latelake.core.spark;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * Hadoop's checksummed local file system ({@code file:} paths, the {@link org.apache.hadoop.fs
 * FileSystem} API) whose permission and link calls use Java's file API instead of starting a
 * process. Without Hadoop's native library ({@code libhadoop}, which Maven does not ship) {@link
 * RawLocalFileSystem} runs {@code chmod} for every file and folder it creates (checksum files
 * included) and {@code readlink} for the status checks of every rename through {@link
 * org.apache.hadoop.fs.FileContext} (streaming checkpoint files, state store files, each Delta
 * commit and its checksum; a file's rename renames its checksum file too): 8,805 processes in one
 * test class of 16 lock steps. Here {@code chmod} is Java's call and the {@code readlink} of a path
 * that is not a symbolic link is skipped (Hadoop's reads an empty target). Everything else (reads,
 * writes, renames and their no-overwrite checks, checksums, listings) is Hadoop's own code; the
 * bytes and permission bits on disk are the same.
 *
 * <p>{@link SparkSessions} sets it (with {@link NioLocalFs} for the {@code FileContext} API) for
 * local masters on a file system with POSIX permissions only; see {@link
 * SparkSessions#LOCAL_FS_DEFAULTS}. Hadoop caches one {@code FileSystem} per scheme and user: when
 * something read a {@code file:} path before the session existed (spark-submit's {@code --jars}),
 * the {@code FileSystem} API keeps Hadoop's class for the process (slower, not different).
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
     * {@code chmod} by {@link Files#setPosixFilePermissions} for the permission bits; Hadoop's
     * {@code chmod} process for a mode with the sticky bit (which Java cannot set) and for a folder
     * with the set-user-ID or set-group-ID bit (which Java's call would clear). Follows symbolic
     * links, as {@code chmod} does.
     */
    @Override
    public void setPermission(Path p, FsPermission permission) throws IOException {
      short mode = permission.toShort();
      java.nio.file.Path file = pathToFile(p).toPath();
      if ((mode & ~0777) != 0 || keepsSpecialBits(file)) {
        super.setPermission(p, permission);
        return;
      }
      // "rwxr-x---" for 0750 (Hadoop's symbols, no sticky bit here), read by Java
      Files.setPosixFilePermissions(
          file, PosixFilePermissions.fromString(new FsPermission(mode).toString()));
    }

    /**
     * @return whether {@code file} is a folder with the set-user-ID or set-group-ID bit, which
     *     {@code chmod} with a 4-digit mode keeps on a folder and Java's call would clear (a
     *     group-shared lake's {@code g+s} folders)
     */
    private static boolean keepsSpecialBits(java.nio.file.Path file) throws IOException {
      if (!Files.isDirectory(file)) {
        return false;
      }
      return (((Integer) Files.getAttribute(file, "unix:mode")) & 06000) != 0;
    }

    /**
     * Hadoop's answer without its {@code readlink} process: Hadoop reads the link target of {@code
     * new File(f.toString())} and, when there is none, returns {@link #getFileStatus}; that is what
     * this returns for any path that is not a symbolic link (Hadoop's own code, process included,
     * for one that is, and for a path Java cannot name).
     */
    @Override
    public FileStatus getFileLinkStatus(Path f) throws IOException {
      java.nio.file.Path local;
      try {
        local = new File(f.toString()).toPath();
      } catch (java.nio.file.InvalidPathException e) {
        return super.getFileLinkStatus(f);
      }
      if (!Files.isSymbolicLink(local)) {
        return getFileStatus(f);
      }
      return super.getFileLinkStatus(f);
    }
  }
}
