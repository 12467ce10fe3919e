package io.latelake.analyst;

import java.net.URI;
import java.nio.file.InvalidPathException;
import java.nio.file.Paths;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.sources.DataSourceRegister;

/**
 * Which tables read-only SQL may read by path: Delta tables under {@code lake.root}, nothing else.
 *
 * <p>A relation name reads by path when its last part looks like a path (it holds {@code /}, {@code
 * \} or {@code :}), or when it has two parts and the first names a data source: a short name of
 * {@link #FORMATS} ({@code csv.`passwd`} reads the file {@code passwd} of the working folder) or a
 * provider class name ({@code `org.apache.spark.sql.parquet`.`/x`}). Spark then reads the files
 * (its {@code spark.sql.runSQLOnFiles}, on by default), or Delta's catalog the table at that path.
 * Only {@code delta.`<path>`} (also as {@code spark_catalog.delta.`<path>`}) with a path under the
 * root passes; a database named like a data source ({@code csv}, {@code delta}) cannot be read by
 * its two-part names.
 *
 * <p>Paths are compared normalized: parsed as a Hadoop {@code Path} (which resolves {@code .} and
 * {@code ..} and drops duplicate and trailing slashes); a path without a scheme is on the default
 * file system ({@code fs.defaultFS}, {@code file:} locally, so {@code /lake} and {@code
 * file:///lake} are one folder); schemes and authorities compare case-insensitively; and a path is
 * under the root only at a folder boundary ({@code /lake/gold} is under {@code /lake}, {@code
 * /lake2} is not). A relative path is refused (Spark would resolve it against the working folder);
 * a relative {@code lake.root} (as in {@code conf/local.conf}) is taken from the working folder, as
 * Spark does with a local file system. Symbolic links are not followed: the lake's folders are the
 * lake owner's.
 */
final class LakePaths {
  /**
   * Data source short names, lower case: Spark's and Delta's, and those registered by any jar on
   * the classpath ({@link DataSourceRegister}).
   */
  static final Set<String> FORMATS = formats();

  private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_]+");

  private final Optional<Location> root;
  private final URI defaultFs;

  private LakePaths(Optional<Location> root, URI defaultFs) {
    this.root = root;
    this.defaultFs = defaultFs;
  }

  /**
   * @param lakeRoot {@code lake.root}: a local folder (absolute, relative or {@code file:}) or a
   *     URI ({@code s3a://bucket/lake})
   * @param defaultFs the default file system ({@code fs.defaultFS})
   * @return the paths of Delta tables under the root; none when the root is not a valid path
   */
  static LakePaths under(String lakeRoot, URI defaultFs) {
    Optional<Location> root = locate(lakeRoot, defaultFs);
    if (root.isEmpty()
        && "file".equalsIgnoreCase(defaultFs.getScheme())
        && !lakeRoot.contains(":")) {
      try {
        root = locate(Paths.get(lakeRoot).toAbsolutePath().toString(), defaultFs);
      } catch (InvalidPathException e) {
        root = Optional.empty();
      }
    }
    return new LakePaths(root, defaultFs);
  }

  /**
   * @return no path at all: catalog tables only
   */
  static LakePaths none(URI defaultFs) {
    return new LakePaths(Optional.empty(), defaultFs);
  }

  /**
   * @param nameParts a relation's name as written ({@code SELECT}, {@code DESCRIBE}, {@code SHOW
   *     COLUMNS}, ...)
   * @return why read-only SQL may not read it; empty for a catalog name or a Delta table under the
   *     root
   */
  Optional<String> relationRefusal(List<String> nameParts) {
    if (nameParts.isEmpty()) {
      return Optional.empty();
    }
    List<String> parts =
        nameParts.size() == 3 && nameParts.get(0).equalsIgnoreCase("spark_catalog")
            ? nameParts.subList(1, 3)
            : nameParts;
    String last = nameParts.get(nameParts.size() - 1);
    boolean byPath =
        last.contains("/")
            || last.contains("\\")
            || last.contains(":")
            || (parts.size() == 2 && isFormat(parts.get(0)));
    if (!byPath) {
      return Optional.empty();
    }
    String shown = quoted(nameParts);
    if (parts.size() == 2 && parts.get(0).equalsIgnoreCase("delta")) {
      return deltaRefusal(shown, parts.get(1));
    }
    return Optional.of(
        "it reads "
            + shown
            + " by path, and read-only SQL reads only catalog tables and Delta tables under"
            + " lake.root"
            + rootNote());
  }

  /**
   * @param path the path of a Delta table as a string ({@code DESCRIBE HISTORY '<path>'}, {@code
   *     DESCRIBE DETAIL '<path>'})
   * @return why read-only SQL may not read it; empty when it is under the root
   */
  Optional<String> pathRefusal(String path) {
    return deltaRefusal("'" + path + "'", path);
  }

  /**
   * @return the name as Spark prints it: parts joined by dots, back-quoted unless plain
   */
  static String quoted(List<String> nameParts) {
    return nameParts.stream()
        .map(p -> PLAIN.matcher(p).matches() ? p : "`" + p.replace("`", "``") + "`")
        .collect(Collectors.joining("."));
  }

  private Optional<String> deltaRefusal(String shown, String path) {
    if (root.isEmpty()) {
      return Optional.of(
          "it reads " + shown + " by path, and this read-only session reads only catalog tables");
    }
    Optional<Location> at = locate(path, defaultFs);
    if (at.isEmpty()) {
      return Optional.of(
          "it reads " + shown + ", which is not an absolute path under lake.root" + rootNote());
    }
    if (!root.get().contains(at.get())) {
      return Optional.of("it reads " + shown + ", which is not under lake.root" + rootNote());
    }
    return Optional.empty();
  }

  private String rootNote() {
    return root.map(r -> " (" + r + ")").orElse("");
  }

  private static boolean isFormat(String namespace) {
    // Spark finds a format by equalsIgnoreCase, which also matches letters such as 'ſ' (s) and
    // 'ı' (i) that toLowerCase leaves alone: compare the same way, and take any name with a
    // character outside ASCII as a format too.
    return FORMATS.stream().anyMatch(namespace::equalsIgnoreCase)
        || namespace.contains(".")
        || !namespace.chars().allMatch(c -> c < 128);
  }

  /**
   * @return the absolute, normalized location; empty when the path is not valid or relative
   */
  private static Optional<Location> locate(String path, URI defaultFs) {
    URI uri;
    try {
      uri = new Path(path).toUri().normalize();
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
    String scheme = uri.getScheme();
    String authority = uri.getAuthority();
    if (scheme == null) {
      scheme = defaultFs.getScheme();
      authority = defaultFs.getAuthority();
    } else if (authority == null && scheme.equalsIgnoreCase(defaultFs.getScheme())) {
      authority = defaultFs.getAuthority();
    }
    String folder = uri.getPath();
    if (scheme == null || folder == null || !folder.startsWith("/")) {
      return Optional.empty();
    }
    return Optional.of(
        new Location(
            scheme.toLowerCase(Locale.ROOT),
            authority == null ? "" : authority.toLowerCase(Locale.ROOT),
            folder));
  }

  private static Set<String> formats() {
    Set<String> names =
        new TreeSet<>(
            List.of(
                "delta",
                "parquet",
                "orc",
                "json",
                "csv",
                "text",
                "avro",
                "xml",
                "binaryfile",
                "image",
                "libsvm",
                "jdbc",
                "kafka",
                "hive",
                "iceberg"));
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    Iterator<DataSourceRegister> providers =
        ServiceLoader.load(
                DataSourceRegister.class,
                loader != null ? loader : LakePaths.class.getClassLoader())
            .iterator();
    // Bounded: a provider that fails to load is skipped, as Spark's own lookup does.
    for (int i = 0; i < 10_000; i++) {
      try {
        if (!providers.hasNext()) {
          break;
        }
        String name = providers.next().shortName();
        if (name != null) {
          names.add(name.toLowerCase(Locale.ROOT));
        }
      } catch (ServiceConfigurationError | LinkageError e) {
        // A provider that cannot load cannot read files either.
      }
    }
    return Set.copyOf(names);
  }

  /** A normalized absolute location: lower-case scheme and authority ("" when none), path. */
  private record Location(String scheme, String authority, String path) {
    boolean contains(Location other) {
      return scheme.equals(other.scheme)
          && authority.equals(other.authority)
          && (other.path.equals(path)
              || other.path.startsWith(path.endsWith("/") ? path : path + "/"));
    }

    @Override
    public String toString() {
      return scheme + ":" + (authority.isEmpty() ? "" : "//" + authority) + path;
    }
  }
}
