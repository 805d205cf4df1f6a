package io.frazil.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Which Frazil library this JVM actually mapped (from {@code /proc/self/maps}) and its SHA-256:
 * what benchmark and validation records cite next to their numbers. The loader deletes the copy it
 * extracts from the jar right after loading, so a deleted mapping is hashed from the bundled
 * resource it was extracted from. For bench and validation only: not part of the bridge's API.
 */
public final class LoadedLibrary {
  /** The mapped path (and where it came from), or why it is unknown. */
  public final String where;

  /** Hex SHA-256 of the mapped library's bytes, or "unknown". */
  public final String sha256;

  private LoadedLibrary(String where, String sha256) {
    this.where = where;
    this.sha256 = sha256;
  }

  /**
   * The library mapped now (call it after a native writer has run). {@code bundledResource} is
   * where the bridge jar bundles the library ({@code NativeLoader.bundledResource()}), looked up on
   * this class's class path when the mapped copy was deleted.
   */
  public static LoadedLibrary find(String bundledResource) {
    String mapped = null;
    try {
      for (String line : Files.readAllLines(Paths.get("/proc/self/maps"))) {
        int slash = line.indexOf('/');
        if (slash >= 0 && line.contains("libfrazil")) {
          mapped = line.substring(slash);
          break;
        }
      }
    } catch (IOException e) {
      return new LoadedLibrary("unknown (no /proc/self/maps)", "unknown");
    }
    if (mapped == null) {
      return new LoadedLibrary("not loaded", "unknown");
    }
    Path path = Paths.get(mapped.replace(" (deleted)", ""));
    if (!mapped.endsWith(" (deleted)") && Files.isRegularFile(path)) {
      return new LoadedLibrary(mapped, sha256(path));
    }
    try (InputStream in = LoadedLibrary.class.getResourceAsStream(bundledResource)) {
      if (in == null) {
        return new LoadedLibrary(mapped, "unknown");
      }
      return new LoadedLibrary(
          mapped + ", extracted from the jar's " + bundledResource, sha256(in));
    } catch (IOException e) {
      return new LoadedLibrary(mapped, "unknown");
    }
  }

  /** Hex SHA-256 of a file, or "unreadable (…)". */
  public static String sha256(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      return sha256(in);
    } catch (IOException e) {
      return "unreadable (" + e.getMessage() + ")";
    }
  }

  private static String sha256(InputStream in) throws IOException {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      byte[] buffer = new byte[1 << 16];
      int read;
      while ((read = in.read(buffer)) > 0) {
        digest.update(buffer, 0, read);
      }
      return HexFormat.of().formatHex(digest.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
