package io.frazil.read;

/**
 * Where one file's read reports what it did. This base counts into the process totals ({@link
 * ReadCounters}) only; the Flink layer extends it with the counters of the task the read runs for.
 */
public class ReadListener {
  /** Counts into the process totals only (not on a Flink task's behalf). */
  public static final ReadListener PROCESS_ONLY = new ReadListener();

  protected ReadListener() {}

  /** The native reader opened the file. */
  public void fileOpened() {
    ReadCounters.fileOpened();
  }

  /** The native reader started decoding one of the file's row groups. */
  public void rowGroupRead() {
    ReadCounters.rowGroupRead();
  }

  /** The native reader fetched {@code bytes} of column chunks through the file's stream. */
  public void bytesFetched(long bytes) {
    ReadCounters.bytesFetched(bytes);
  }

  /** The file was handed to Iceberg's reader, for {@code reason} (a metric name). */
  public void stockFile(String reason) {
    ReadCounters.stockFile(reason);
  }
}
