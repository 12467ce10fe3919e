package io.latelake.core.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same operations through Hadoop's local file system and through {@link NioLocalFileSystem} /
 * {@link NioLocalFs} leave the same files, modes, checksums and rename outcomes; Hadoop's starts a
 * process for each created file and folder and each status check of a rename ({@code
 * jdk.ProcessStart} events of this JVM, recorded by Java Flight Recorder), ours for none.
 */
class NioLocalFileSystemTest {
  @TempDir java.nio.file.Path tmp;

  private static Configuration conf(boolean nio, String umask) {
    Configuration c = new Configuration(false);
    c.set("fs.permissions.umask-mode", umask);
    if (nio) {
      c.set("fs.file.impl", NioLocalFileSystem.class.getName());
      c.set("fs.AbstractFileSystem.file.impl", NioLocalFs.class.getName());
    } else {
      c.set("fs.file.impl", "org.apache.hadoop.fs.LocalFileSystem");
      c.set("fs.AbstractFileSystem.file.impl", "org.apache.hadoop.fs.local.LocalFs");
    }
    return c;
  }

  /**
   * Creates a nested folder and two files with the FileSystem API, a file through FileContext
   * renamed over an existing one (refused, then with OVERWRITE), a symbolic link's status, and
   * lists "path mode" of every file left (checksum files included).
   *
   * @return the link's "isSymlink target" from an unqualified path and "isSymlink length" from a
   *     qualified one, the listing, then how many chmod and readlink processes were started
   */
  private List<String> scenario(boolean nio, String umask) throws Exception {
    java.nio.file.Path dir = tmp.resolve((nio ? "nio-" : "hadoop-") + umask);
    Configuration c = conf(nio, umask);
    List<String> out = new ArrayList<>();
    List<String> commands = new ArrayList<>();
    try (Recording r = new Recording()) {
      r.enable("jdk.ProcessStart");
      r.start();
      try (FileSystem fs = FileSystem.newInstance(URI.create("file:///"), c)) {
        assertThat(fs.getClass().getName())
            .isEqualTo(
                nio ? NioLocalFileSystem.class.getName() : "org.apache.hadoop.fs.LocalFileSystem");
        assertThat(fs.mkdirs(new Path(dir.resolve("a/b").toUri()))).isTrue();
        write(fs.create(new Path(dir.resolve("a/b/one.txt").toUri())), "one");
        write(
            fs.create(
                new Path(dir.resolve("a/two.txt").toUri()),
                new FsPermission((short) 0640),
                true,
                4096,
                (short) 1,
                1 << 20,
                null),
            "two");
        FileContext fc = FileContext.getFileContext(URI.create("file:///"), c);
        Path tempFile = new Path(dir.resolve("a/.tmp").toUri());
        write(
            fc.create(tempFile, EnumSet.of(CreateFlag.CREATE), Options.CreateOpts.createParent()),
            "three");
        Path target = new Path(dir.resolve("a/b/one.txt").toUri());
        assertThatThrownBy(() -> fc.rename(tempFile, target, Options.Rename.NONE))
            .isInstanceOf(FileAlreadyExistsException.class);
        fc.rename(tempFile, new Path(dir.resolve("a/three.txt").toUri()), Options.Rename.NONE);
        java.nio.file.Path link = dir.resolve("a/link");
        Files.createSymbolicLink(link, dir.resolve("a/two.txt"));
        FileStatus linkStatus = fs.getFileLinkStatus(new Path(link.toString()));
        out.add(linkStatus.isSymlink() + " " + linkStatus.getSymlink());
        FileStatus qualified = fs.getFileLinkStatus(new Path(link.toUri().toString()));
        out.add(qualified.isSymlink() + " " + qualified.getLen());
      }
      r.stop();
      java.nio.file.Path dump = tmp.resolve((nio ? "nio-" : "hadoop-") + umask + ".jfr");
      r.dump(dump);
      for (RecordedEvent e : RecordingFile.readAllEvents(dump)) {
        String command = e.getString("command");
        if (command.startsWith("chmod") || command.startsWith("readlink")) {
          commands.add(command.substring(0, command.indexOf(' ')));
        }
      }
    }
    try (var files = Files.walk(dir)) {
      files
          .filter(p -> !Files.isSymbolicLink(p) && !p.equals(dir))
          .sorted()
          .forEach(
              p -> {
                try {
                  out.add(
                      dir.relativize(p)
                          + " "
                          + PosixFilePermissions.toString(Files.getPosixFilePermissions(p)));
                } catch (IOException e) {
                  throw new java.io.UncheckedIOException(e);
                }
              });
    }
    out.add(
        commands.stream()
            .collect(
                java.util.stream.Collectors.groupingBy(
                    x -> x, java.util.TreeMap::new, java.util.stream.Collectors.counting()))
            .toString());
    return out;
  }

  private static void write(FSDataOutputStream out, String text) throws IOException {
    try (out) {
      out.write(text.getBytes(StandardCharsets.UTF_8));
    }
  }

  @Test
  void theSameFilesModesAndRenamesAsHadoopsWithoutAProcess() throws Exception {
    List<String> hadoop = scenario(false, "022");
    List<String> nio = scenario(true, "022");
    String link = tmp.resolve("hadoop-022/a/two.txt").toString();
    assertThat(hadoop.subList(0, hadoop.size() - 1))
        .containsExactly(
            // Hadoop reads a link's target only from an unqualified path
            "true file:" + link,
            "false 3",
            "a rwxr-xr-x",
            "a/.three.txt.crc rw-r--r--",
            "a/.two.txt.crc rw-r-----",
            "a/b rwxr-xr-x",
            "a/b/.one.txt.crc rw-r--r--",
            "a/b/one.txt rw-r--r--",
            "a/three.txt rw-r--r--",
            "a/two.txt rw-r-----");
    assertThat(nio.subList(0, nio.size() - 1))
        .containsExactlyElementsOf(
            hadoop.subList(0, hadoop.size() - 1).stream()
                .map(s -> s.replace("hadoop-022", "nio-022"))
                .toList());
    // Hadoop's (without its native library, as here): a chmod for each folder and file it created
    // (checksum files too), readlinks for the status checks of the FileContext renames and the link
    assertThat(hadoop.get(hadoop.size() - 1)).isEqualTo("{chmod=9, readlink=12}");
    // ours: only the one real symbolic link is read by Hadoop's code (a lake has none)
    assertThat(nio.get(nio.size() - 1)).isEqualTo("{readlink=1}");
  }

  /**
   * In a group-shared folder (set-group-ID) a new folder inherits the bit; Hadoop's {@code chmod
   * 0755} keeps it (GNU chmod keeps a folder's special bits with a 4-digit mode), and so does ours.
   */
  @Test
  void aNewFolderInAGroupSharedFolderKeepsTheSetGroupIdBit() throws Exception {
    List<String> modes = new ArrayList<>();
    for (boolean nio : List.of(false, true)) {
      java.nio.file.Path shared = Files.createDirectory(tmp.resolve(nio ? "nio" : "hadoop"));
      Process p = new ProcessBuilder("chmod", "2775", shared.toString()).start();
      assertThat(p.waitFor()).isZero();
      try (FileSystem fs = FileSystem.newInstance(URI.create("file:///"), conf(nio, "022"))) {
        assertThat(fs.mkdirs(new Path(shared.resolve("day=1/part").toUri()))).isTrue();
        write(fs.create(new Path(shared.resolve("day=1/part/file.txt").toUri())), "x");
      }
      for (String rel : List.of("day=1", "day=1/part", "day=1/part/file.txt")) {
        modes.add(
            rel
                + " "
                + Integer.toOctalString(
                    (Integer) Files.getAttribute(shared.resolve(rel), "unix:mode") & 07777));
      }
    }
    assertThat(modes)
        .containsExactly(
            "day=1 2755",
            "day=1/part 2755",
            "day=1/part/file.txt 644",
            "day=1 2755",
            "day=1/part 2755",
            "day=1/part/file.txt 644");
  }
}
