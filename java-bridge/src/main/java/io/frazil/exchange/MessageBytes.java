package io.frazil.exchange;

import java.io.IOException;
import org.apache.flink.core.memory.DataInputView;

/**
 * Reads the bytes of one serialized batch whose length the record declares, into this thread's
 * {@link Scratch} array (valid until the thread's next use of it). The length is not trusted: the
 * array grows as bytes actually arrive, so a forged length fails as truncated input instead of
 * allocating what it claims.
 */
final class MessageBytes {
  /** Records up to this size are read into one exactly sized array. */
  private static final int FIRST_CHUNK = 4 << 20;

  private MessageBytes() {}

  static byte[] read(DataInputView in, int length) throws IOException {
    if (length < 0) {
      throw new InvalidArrowBatchException(
          "Invalid serialized ArrowBatch: it declares " + length + " bytes");
    }
    byte[] bytes = Scratch.atLeast(Math.min(length, FIRST_CHUNK));
    int filled = 0;
    while (filled < length) {
      if (filled == bytes.length) {
        bytes = Scratch.grow(bytes, filled, (int) Math.min(length, 2L * bytes.length));
      }
      int n = in.read(bytes, filled, Math.min(length, bytes.length) - filled);
      if (n < 0) {
        throw new InvalidArrowBatchException(
            "Truncated serialized ArrowBatch: it declares "
                + length
                + " bytes, the input ends after "
                + filled);
      }
      filled += n;
    }
    return bytes;
  }
}
