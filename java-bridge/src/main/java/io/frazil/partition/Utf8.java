package io.frazil.partition;

import org.apache.flink.core.memory.MemorySegment;

/** Strict UTF-8 well-formedness (RFC 3629, as Java's decoder accepts without replacement). */
final class Utf8 {
  private Utf8() {}

  /**
   * True when the bytes are well-formed UTF-8: no overlong forms, no encoded surrogates (U+D800 to
   * U+DFFF), nothing above U+10FFFF, no truncated sequence. For such bytes any correct decoder
   * followed by {@code String.getBytes(UTF_8)} gives the same bytes back.
   */
  static boolean isWellFormed(MemorySegment segment, int offset, int length) {
    if (!segment.isOffHeap()) {
      return isWellFormed(segment.getArray(), offset, length);
    }
    int end = offset + length;
    int i = offset;
    while (i < end) {
      int b0 = segment.get(i) & 0xff;
      if (b0 < 0x80) {
        i++;
        continue;
      }
      int needed = continuationCount(b0);
      if (needed < 0 || i + needed >= end) {
        return false;
      }
      int b1 = segment.get(i + 1) & 0xff;
      if (!secondByteOk(b0, b1)) {
        return false;
      }
      for (int k = 2; k <= needed; k++) {
        if ((segment.get(i + k) & 0xc0) != 0x80) {
          return false;
        }
      }
      i += needed + 1;
    }
    return true;
  }

  static boolean isWellFormed(byte[] bytes, int offset, int length) {
    int end = offset + length;
    int i = offset;
    while (i < end) {
      int b0 = bytes[i] & 0xff;
      if (b0 < 0x80) {
        i++;
        continue;
      }
      int needed = continuationCount(b0);
      if (needed < 0 || i + needed >= end) {
        return false;
      }
      int b1 = bytes[i + 1] & 0xff;
      if (!secondByteOk(b0, b1)) {
        return false;
      }
      for (int k = 2; k <= needed; k++) {
        if ((bytes[i + k] & 0xc0) != 0x80) {
          return false;
        }
      }
      i += needed + 1;
    }
    return true;
  }

  /** Continuation bytes after a lead byte, or -1 for a byte that cannot lead a sequence. */
  private static int continuationCount(int b0) {
    if (b0 >= 0xc2 && b0 <= 0xdf) {
      return 1;
    } else if (b0 >= 0xe0 && b0 <= 0xef) {
      return 2;
    } else if (b0 >= 0xf0 && b0 <= 0xf4) {
      return 3;
    }
    return -1; // 0x80-0xc1 (continuation or overlong 2-byte lead), 0xf5-0xff
  }

  /** The range of the first continuation byte, which rules out overlong forms and surrogates. */
  private static boolean secondByteOk(int b0, int b1) {
    switch (b0) {
      case 0xe0:
        return b1 >= 0xa0 && b1 <= 0xbf;
      case 0xed:
        return b1 >= 0x80 && b1 <= 0x9f;
      case 0xf0:
        return b1 >= 0x90 && b1 <= 0xbf;
      case 0xf4:
        return b1 >= 0x80 && b1 <= 0x8f;
      default:
        return (b1 & 0xc0) == 0x80;
    }
  }
}
