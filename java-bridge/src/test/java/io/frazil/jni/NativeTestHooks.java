package io.frazil.jni;

/**
 * The test-only exports of {@code libfrazil_test_hooks.so} ({@code native/test-hooks}: every export
 * of the release {@code libfrazil.so} plus these), which the production library does not have.
 * Calling them needs that build loaded ({@code -Dfrazil.native.path=…/libfrazil_test_hooks.so}).
 */
final class NativeTestHooks {
  private NativeTestHooks() {}

  /** Panics inside native code on purpose, through the error mapping every export uses. */
  static native void panic(byte[] message);
}
