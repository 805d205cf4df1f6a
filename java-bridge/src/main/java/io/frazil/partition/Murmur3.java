package io.frazil.partition;

import org.apache.flink.core.memory.MemorySegment;

/**
 * 32-bit MurmurHash3 (x86_32 variant, seed 0): the hash behind Iceberg's {@code bucket[N]}
 * transform (spec, "Bucket Transform Details" and Appendix B).
 *
 * <p>Every method returns the same {@code int} as Iceberg's {@code BucketUtil}, which uses Guava's
 * {@code Hashing.murmur3_32_fixed()} over the same bytes, without allocating: no {@code Hasher}, no
 * {@code HashCode}, no temporary byte array, no String encoding. The bucket number is then {@code
 * (hash & Integer.MAX_VALUE) % N} ({@link #bucket}).
 *
 * <p>Byte order and inputs, as in the spec: integers and longs are hashed as the 8-byte
 * little-endian long ({@link #hashLong}); strings as their UTF-8 bytes ({@link #hashUtf8}, {@link
 * #hashBytes}, {@link #hashSegments}); decimals as the minimal big-endian two's-complement bytes of
 * the unscaled value ({@link #hashUnscaledLong} for values that fit a long); uuid, fixed and binary
 * as their raw bytes.
 */
final class Murmur3 {
  private static final int C1 = 0xcc9e2d51;
  private static final int C2 = 0x1b873593;

  private Murmur3() {}

  /** {@code (hash & Integer.MAX_VALUE) % numBuckets}, as Iceberg's {@code Bucket.apply}. */
  public static int bucket(int hash, int numBuckets) {
    return (hash & Integer.MAX_VALUE) % numBuckets;
  }

  /** Hash of the 8-byte little-endian encoding of {@code value} (Iceberg int, long, date, ...). */
  public static int hashLong(long value) {
    int h1 = mixH1(0, mixK1((int) value));
    h1 = mixH1(h1, mixK1((int) (value >>> 32)));
    return fmix(h1, 8);
  }

  /** Hash of {@code length} bytes of {@code bytes} starting at {@code offset}. */
  public static int hashBytes(byte[] bytes, int offset, int length) {
    int h1 = 0;
    int i = 0;
    for (; i + 4 <= length; i += 4) {
      int p = offset + i;
      int k1 =
          (bytes[p] & 0xff)
              | (bytes[p + 1] & 0xff) << 8
              | (bytes[p + 2] & 0xff) << 16
              | (bytes[p + 3] & 0xff) << 24;
      h1 = mixH1(h1, mixK1(k1));
    }
    int k1 = 0;
    for (int shift = 0; i < length; i++, shift += 8) {
      k1 ^= (bytes[offset + i] & 0xff) << shift;
    }
    h1 ^= mixK1(k1);
    return fmix(h1, length);
  }

  /** Hash of all of {@code bytes}. */
  public static int hashBytes(byte[] bytes) {
    return hashBytes(bytes, 0, bytes.length);
  }

  /**
   * Hash of {@code length} bytes at {@code offset} of one {@link MemorySegment} (heap or off-heap);
   * the range must lie inside the segment.
   */
  public static int hashSegment(MemorySegment segment, int offset, int length) {
    if (!segment.isOffHeap()) {
      return hashBytes(segment.getArray(), offset, length);
    }
    int h1 = 0;
    int i = 0;
    for (; i + 4 <= length; i += 4) {
      h1 = mixH1(h1, mixK1(segment.getIntLittleEndian(offset + i)));
    }
    int k1 = 0;
    for (int shift = 0; i < length; i++, shift += 8) {
      k1 ^= (segment.get(offset + i) & 0xff) << shift;
    }
    h1 ^= mixK1(k1);
    return fmix(h1, length);
  }

  /**
   * Hash of {@code length} bytes starting at {@code offset} in a chain of equally sized segments
   * (Flink's {@code BinarySection} addressing: {@code offset} counts from the first segment).
   */
  public static int hashSegments(MemorySegment[] segments, int offset, int length) {
    int segmentSize = segments[0].size();
    if (offset + length <= segmentSize) {
      return hashSegment(segments[0], offset, length);
    }
    int h1 = 0;
    int k1 = 0;
    int shift = 0;
    for (int i = 0; i < length; i++) {
      int absolute = offset + i;
      byte b = segments[absolute / segmentSize].get(absolute % segmentSize);
      k1 |= (b & 0xff) << shift;
      shift += 8;
      if (shift == 32) {
        h1 = mixH1(h1, mixK1(k1));
        k1 = 0;
        shift = 0;
      }
    }
    h1 ^= mixK1(k1);
    return fmix(h1, length);
  }

  /**
   * Hash of the UTF-8 encoding of {@code chars}, exactly as {@code String.getBytes(UTF_8)} encodes
   * it: an unpaired surrogate becomes {@code '?'} (Guava's {@code hashString(s, UTF_8)}, which
   * Iceberg uses, falls back to {@code getBytes} for such input, so the hash is the same).
   */
  public static int hashUtf8(CharSequence chars) {
    int h1 = 0;
    long buffer = 0;
    int shift = 0;
    int total = 0;
    int n = chars.length();
    for (int i = 0; i < n; i++) {
      char c = chars.charAt(i);
      int encoded;
      int bytes;
      if (c < 0x80) {
        encoded = c;
        bytes = 1;
      } else if (c < 0x800) {
        encoded = (0xc0 | (c >>> 6)) | (0x80 | (c & 0x3f)) << 8;
        bytes = 2;
      } else if (!Character.isSurrogate(c)) {
        encoded =
            (0xe0 | (c >>> 12)) | (0x80 | ((c >>> 6) & 0x3f)) << 8 | (0x80 | (c & 0x3f)) << 16;
        bytes = 3;
      } else if (Character.isHighSurrogate(c)
          && i + 1 < n
          && Character.isLowSurrogate(chars.charAt(i + 1))) {
        int cp = Character.toCodePoint(c, chars.charAt(++i));
        encoded =
            (0xf0 | (cp >>> 18))
                | (0x80 | ((cp >>> 12) & 0x3f)) << 8
                | (0x80 | ((cp >>> 6) & 0x3f)) << 16
                | (0x80 | (cp & 0x3f)) << 24;
        bytes = 4;
      } else {
        encoded = '?';
        bytes = 1;
      }
      buffer |= (encoded & 0xffffffffL) << shift;
      shift += bytes << 3;
      total += bytes;
      if (shift >= 32) {
        h1 = mixH1(h1, mixK1((int) buffer));
        buffer >>>= 32;
        shift -= 32;
      }
    }
    h1 ^= mixK1((int) buffer);
    return fmix(h1, total);
  }

  /**
   * Hash of {@code BigInteger.valueOf(unscaled).toByteArray()}, the minimal big-endian two's
   * complement bytes of a decimal's unscaled value (1 to 8 bytes), computed from the long.
   */
  public static int hashUnscaledLong(long unscaled) {
    int significantBits = 64 - Long.numberOfLeadingZeros(unscaled ^ (unscaled >> 63));
    int length = (significantBits >>> 3) + 1; // + sign bit, as BigInteger.toByteArray
    int h1 = 0;
    int i = 0;
    for (; i + 4 <= length; i += 4) {
      int k1 =
          byteAt(unscaled, length, i)
              | byteAt(unscaled, length, i + 1) << 8
              | byteAt(unscaled, length, i + 2) << 16
              | byteAt(unscaled, length, i + 3) << 24;
      h1 = mixH1(h1, mixK1(k1));
    }
    int k1 = 0;
    for (int shift = 0; i < length; i++, shift += 8) {
      k1 ^= byteAt(unscaled, length, i) << shift;
    }
    h1 ^= mixK1(k1);
    return fmix(h1, length);
  }

  /** Byte {@code index} (0 = most significant) of the {@code length}-byte big-endian encoding. */
  private static int byteAt(long value, int length, int index) {
    return (int) (value >>> ((length - 1 - index) << 3)) & 0xff;
  }

  private static int mixK1(int k1) {
    k1 *= C1;
    k1 = Integer.rotateLeft(k1, 15);
    k1 *= C2;
    return k1;
  }

  private static int mixH1(int h1, int k1) {
    h1 ^= k1;
    h1 = Integer.rotateLeft(h1, 13);
    h1 = h1 * 5 + 0xe6546b64;
    return h1;
  }

  private static int fmix(int h1, int length) {
    h1 ^= length;
    h1 ^= h1 >>> 16;
    h1 *= 0x85ebca6b;
    h1 ^= h1 >>> 13;
    h1 *= 0xc2b2ae35;
    h1 ^= h1 >>> 16;
    return h1;
  }
}
