package io.frazil.jni;

/** Run in a child JVM by {@link TestNativeLoader}: prints how loading went. */
public final class LoaderProbe {
  private LoaderProbe() {}

  public static void main(String[] args) {
    Throwable first = null;
    for (int attempt = 1; attempt <= 2; attempt += 1) {
      try {
        NativeLoader.load();
        System.out.println("attempt " + attempt + ": loaded");
      } catch (Throwable t) {
        System.out.println(
            "attempt " + attempt + ": " + t.getClass().getName() + ": " + t.getMessage());
        if (first == null) {
          first = t;
        } else {
          System.out.println("same throwable as attempt 1: " + (t == first));
        }
      }
    }
  }
}
