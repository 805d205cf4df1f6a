package io.frazil.flink.arrow;

import io.frazil.exchange.ArrowBatch;
import java.util.Collections;
import java.util.Set;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.iceberg.flink.source.reader.RecordAndPosition;

/**
 * One fetch of {@link ArrowBatchReaderFunction}: a single batch of one split and the split position
 * after its last row.
 *
 * <p>Flink's source reader calls {@link #recycle()} once it has emitted the batch (on the next
 * poll, after {@code collect} returned); with {@code closeEmitted} the batch is closed there, which
 * is safe when object reuse is off (a chained successor got a copy, a network edge serialized it
 * inside {@code collect}). A fetch that is never emitted (the task failed or was cancelled first)
 * is not recycled; its batch is dropped and released by {@link ArrowBatch}'s cleaner.
 */
final class OneBatchRecords implements RecordsWithSplitIds<RecordAndPosition<ArrowBatch>> {
  private final String splitId;
  private final RecordAndPosition<ArrowBatch> record;
  private final boolean closeEmitted;
  private boolean splitReturned = false;
  private boolean recordReturned = false;

  OneBatchRecords(
      String splitId, ArrowBatch batch, int fileOffset, long rowOffset, boolean closeEmitted) {
    this.splitId = splitId;
    this.record = new RecordAndPosition<>(batch, fileOffset, rowOffset);
    this.closeEmitted = closeEmitted;
  }

  @Override
  public String nextSplit() {
    if (splitReturned) {
      return null;
    }
    splitReturned = true;
    return splitId;
  }

  @Override
  public RecordAndPosition<ArrowBatch> nextRecordFromSplit() {
    if (recordReturned) {
      return null;
    }
    recordReturned = true;
    return record;
  }

  @Override
  public Set<String> finishedSplits() {
    return Collections.emptySet();
  }

  @Override
  public void recycle() {
    ArrowBatch batch = record.record();
    if (closeEmitted && recordReturned && !batch.isReleased()) {
      batch.close();
    }
  }
}
