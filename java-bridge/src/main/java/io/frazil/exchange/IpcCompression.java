package io.frazil.exchange;

/**
 * Body compression of the Arrow IPC record batch message one {@link ArrowBatch} is sent as. Off by
 * default: inside a cluster the network is rarely the bottleneck, and compression costs CPU on both
 * sides. Every serializer reads every codec (the message names its own), so changing it between a
 * savepoint and a restore is compatible.
 */
public enum IpcCompression {
  /** Buffers as they are. */
  NONE(0),
  /** Each buffer an LZ4 frame: cheap, for links where bytes matter a little. */
  LZ4_FRAME(1),
  /** Each buffer a Zstd frame: smaller, costlier. */
  ZSTD(2);

  private final int nativeCode;

  IpcCompression(int nativeCode) {
    this.nativeCode = nativeCode;
  }

  /** The code {@code native/src/ipc/encode.rs} reads. */
  int nativeCode() {
    return nativeCode;
  }
}
