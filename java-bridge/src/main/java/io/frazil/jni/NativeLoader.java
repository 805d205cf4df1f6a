package io.frazil.jni;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

/**
 * Loads {@code libfrazil} once per class loader.
 *
 * <p>Resolution order, first success wins:
 *
 * <ol>
 *   <li>system property {@value #PATH_PROPERTY}: an explicit file; nothing else is tried;
 *   <li>{@code System.loadLibrary("frazil")} from {@code java.library.path};
 *   <li>the library bundled in this jar under {@code /io/frazil/native/<os>-<arch>/}, copied to a
 *       fresh directory under {@value #TMPDIR_PROPERTY} (default {@code java.io.tmpdir}) so two
 *       class loaders or two versions never share a file, and deleted right after loading.
 * </ol>
 *
 * <p>A failure is remembered: the first call throws it (naming each attempt), every later call a
 * new {@link UnsatisfiedLinkError} that names it. After loading, the native {@code nativeVersion()}
 * must equal this jar's version.
 */
public final class NativeLoader {
  /** Explicit path of the native library. */
  public static final String PATH_PROPERTY = "frazil.native.path";

  /** Directory for extracting the bundled library. */
  public static final String TMPDIR_PROPERTY = "frazil.native.tmpdir";

  private static final String LIBRARY = "frazil";
  private static final Object LOCK = new Object();
  private static volatile boolean loaded = false;
  private static volatile Throwable failure = null;

  private NativeLoader() {}

  /** Loads the library if needed; throws {@link UnsatisfiedLinkError} naming what was tried. */
  public static void load() {
    if (loaded) {
      return;
    }
    synchronized (LOCK) {
      if (loaded) {
        return;
      }
      if (failure != null) {
        // A fresh error each time, naming the first: one shared Throwable thrown into many tasks
        // would collect their suppressed exceptions (and could end up in a cycle with them).
        throw new UnsatisfiedLinkError(
            "The Frazil native library failed to load earlier in this process: " + failure);
      }
      try {
        loadOnce();
        checkVersion();
        loaded = true;
      } catch (Throwable t) {
        failure = t;
        throw rethrow(t);
      }
    }
  }

  /** True when the library has been loaded in this class loader; never loads it. */
  public static boolean isLoaded() {
    return loaded;
  }

  /** True when the library is loaded (or can be now); never throws. */
  public static boolean isAvailable() {
    try {
      load();
      return true;
    } catch (Throwable t) {
      return false;
    }
  }

  /** The reason loading failed, or null if it did not (yet). */
  public static Throwable failure() {
    return failure;
  }

  /** The version of this jar, as written into {@code frazil.properties} by the build. */
  public static String javaVersion() {
    try (InputStream in = NativeLoader.class.getResourceAsStream("/io/frazil/frazil.properties")) {
      if (in == null) {
        return "unknown";
      }
      Properties props = new Properties();
      props.load(in);
      return props.getProperty("version", "unknown");
    } catch (IOException e) {
      return "unknown";
    }
  }

  /** The resource path of the bundled library for this platform. */
  public static String bundledResource() {
    return "/io/frazil/native/" + platform() + "/" + System.mapLibraryName(LIBRARY);
  }

  static String platform() {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    String osName = os.contains("mac") ? "osx" : os.contains("win") ? "windows" : "linux";
    String archName =
        arch.equals("amd64") || arch.equals("x86_64")
            ? "x86_64"
            : arch.equals("aarch64") || arch.equals("arm64") ? "aarch_64" : arch;
    return osName + "-" + archName;
  }

  private static void loadOnce() {
    String explicit = System.getProperty(PATH_PROPERTY);
    if (explicit != null && !explicit.isEmpty()) {
      try {
        System.load(Paths.get(explicit).toAbsolutePath().toString());
        return;
      } catch (Throwable t) {
        throw linkError(
            "Cannot load the Frazil native library from " + PATH_PROPERTY + "=" + explicit, t);
      }
    }

    List<Throwable> attempts = new ArrayList<>();
    try {
      System.loadLibrary(LIBRARY);
      return;
    } catch (Throwable t) {
      attempts.add(t);
    }

    String resource = bundledResource();
    try {
      extractAndLoad(resource);
      return;
    } catch (Throwable t) {
      attempts.add(t);
    }

    UnsatisfiedLinkError error =
        new UnsatisfiedLinkError(
            "Cannot load the Frazil native library: not on java.library.path ("
                + System.getProperty("java.library.path")
                + ") and the bundled resource "
                + resource
                + " could not be loaded; set -D"
                + PATH_PROPERTY
                + "=/path/to/"
                + System.mapLibraryName(LIBRARY));
    attempts.forEach(error::addSuppressed);
    throw error;
  }

  private static void extractAndLoad(String resource) throws IOException {
    try (InputStream in = NativeLoader.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IOException("resource " + resource + " is not in the jar");
      }
      String tmp = System.getProperty(TMPDIR_PROPERTY, System.getProperty("java.io.tmpdir"));
      // A fresh directory per load: the JVM refuses to load one path from two class loaders.
      Path dir = Files.createTempDirectory(Paths.get(tmp), "frazil-");
      Path lib = dir.resolve(System.mapLibraryName(LIBRARY));
      try {
        Files.copy(in, lib, StandardCopyOption.REPLACE_EXISTING);
        System.load(lib.toAbsolutePath().toString());
      } finally {
        // Linux keeps the mapping after unlink, so nothing is left behind in the temp dir.
        Files.deleteIfExists(lib);
        Files.deleteIfExists(dir);
      }
    }
  }

  private static void checkVersion() {
    String nativeVersion = NativeParquetWriter.nativeVersion();
    String javaVersion = javaVersion();
    if (!javaVersion.equals(nativeVersion)) {
      throw new UnsatisfiedLinkError(
          "Frazil native library version "
              + nativeVersion
              + " does not match the Java bridge version "
              + javaVersion);
    }
  }

  private static UnsatisfiedLinkError linkError(String message, Throwable cause) {
    UnsatisfiedLinkError error = new UnsatisfiedLinkError(message + ": " + cause.getMessage());
    error.initCause(cause);
    return error;
  }

  private static RuntimeException rethrow(Throwable t) {
    if (t instanceof Error) {
      throw (Error) t;
    }
    if (t instanceof RuntimeException) {
      throw (RuntimeException) t;
    }
    throw new IllegalStateException(t);
  }
}
