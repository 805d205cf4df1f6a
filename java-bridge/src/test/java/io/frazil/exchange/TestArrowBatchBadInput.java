package io.frazil.exchange;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.frazil.arrow.IcebergArrowSchema;
import io.frazil.iceberg.ArrowMemory;
import io.frazil.testkit.RowDataGenerator;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What a serializer and a batch do with bad input: truncated and forged records, a record of
 * another schema, a batch of another schema, a release twice and use after release. Each is a Java
 * exception that names the problem, and no batch or Arrow byte stays allocated.
 */
public class TestArrowBatchBadInput {
  private static final Schema SCHEMA =
      new Schema(
          required(1, "id", Types.LongType.get()),
          optional(2, "s", Types.StringType.get()),
          optional(3, "l", Types.ListType.ofOptional(4, Types.IntegerType.get())));

  private long liveBefore;

  @BeforeEach
  public void before() throws InterruptedException {
    ArrowBatches.awaitUnreachableReleased(ArrowBatch.liveBatches());
    this.liveBefore = ArrowBatch.liveBatches();
  }

  @AfterEach
  public void after() {
    assertThat(ArrowBatch.liveBatches()).as("batches left unreleased").isEqualTo(liveBefore);
    assertThat(ArrowMemory.allocatedBytes()).as("Arrow bytes left allocated").isZero();
  }

  private static ArrowBatchSerializer serializer(Schema schema, IpcCompression codec) {
    return new ArrowBatchSerializer(IcebergArrowSchema.convert(schema), codec);
  }

  private static byte[] record(IpcCompression codec, int rows) throws Exception {
    try (ArrowBatch batch =
        ArrowBatches.of(SCHEMA, new RowDataGenerator(11, 0.3, true).rows(SCHEMA, rows))) {
      return ArrowBatches.serialize(serializer(SCHEMA, codec), batch);
    }
  }

  /** The record's IPC bytes behind a length prefix of their own length. */
  private static byte[] withLength(byte[] ipc, int from, int to) {
    byte[] body = Arrays.copyOfRange(ipc, from, to);
    return ByteBuffer.allocate(4 + body.length).putInt(body.length).put(body).array();
  }

  @ParameterizedTest
  @EnumSource(IpcCompression.class)
  public void everyTruncationIsRefused(IpcCompression codec) throws Exception {
    byte[] record = record(codec, 20);
    ArrowBatchSerializer serializer = serializer(SCHEMA, codec);
    for (int cut = 0; cut < record.length; cut += 1) {
      // The input ends before the record does.
      byte[] shortInput = Arrays.copyOf(record, cut);
      if (cut < 4) {
        // Inside the length prefix: Flink's own end-of-input signal, as for every serializer.
        assertThatThrownBy(() -> ArrowBatches.deserialize(serializer, shortInput))
            .as("input cut at %s", cut)
            .isInstanceOf(java.io.EOFException.class);
      } else {
        assertThatThrownBy(() -> ArrowBatches.deserialize(serializer, shortInput))
            .as("input cut at %s", cut)
            .isInstanceOf(InvalidArrowBatchException.class)
            .hasMessageContaining("Truncated serialized ArrowBatch");
      }
      // A record whose length says it ends early: native code sees a cut IPC stream.
      if (cut >= 4) {
        byte[] cutStream = withLength(record, 4, cut);
        assertThatThrownBy(() -> ArrowBatches.deserialize(serializer, cutStream))
            .as("IPC stream cut at %s", cut - 4)
            .isInstanceOf(InvalidArrowBatchException.class)
            .hasMessageMatching("(?s).*(truncated|invalid) Arrow IPC batch.*");
      }
    }
  }

  /** Every byte flipped in turn: refused with a message, or (a flipped value) read as a batch. */
  @ParameterizedTest
  @EnumSource(IpcCompression.class)
  public void everyFlippedByteIsRefusedOrReadAsABatch(IpcCompression codec) throws Exception {
    byte[] record = record(codec, 20);
    ArrowBatchSerializer serializer = serializer(SCHEMA, codec);
    int refused = 0;
    for (int at = 4; at < record.length; at += 1) {
      byte[] forged = record.clone();
      forged[at] ^= (byte) 0xFF;
      try (ArrowBatch read = ArrowBatches.deserialize(serializer, forged)) {
        assertThat(read.rowCount()).isBetween(0, Integer.MAX_VALUE);
      } catch (InvalidArrowBatchException e) {
        assertThat(e.getMessage()).contains("Arrow IPC");
        refused += 1;
      }
    }
    assertThat(refused).as("forged records refused").isGreaterThan(0);
  }

  @Test
  public void forgedLengthsAreRefusedWithoutAllocatingThem() throws Exception {
    ArrowBatchSerializer serializer = serializer(SCHEMA, IpcCompression.NONE);
    byte[] negative = ByteBuffer.allocate(8).putInt(-5).array();
    assertThatThrownBy(() -> ArrowBatches.deserialize(serializer, negative))
        .isInstanceOf(InvalidArrowBatchException.class)
        .hasMessageContaining("declares -5 bytes");
    byte[] huge = ByteBuffer.allocate(16).putInt(Integer.MAX_VALUE).array();
    assertThatThrownBy(() -> ArrowBatches.deserialize(serializer, huge))
        .isInstanceOf(InvalidArrowBatchException.class)
        .hasMessageContaining("Truncated serialized ArrowBatch");
    byte[] garbage = new byte[4096];
    new Random(5).nextBytes(garbage);
    byte[] garbageRecord = withLength(garbage, 0, garbage.length);
    assertThatThrownBy(() -> ArrowBatches.deserialize(serializer, garbageRecord))
        .isInstanceOf(InvalidArrowBatchException.class)
        .hasMessageContaining("Arrow IPC batch");
  }

  @Test
  public void aRecordOfAnotherSchemaIsRefusedNamingTheField() throws Exception {
    byte[] record = record(IpcCompression.NONE, 10);
    Schema changed =
        new Schema(
            required(1, "id", Types.LongType.get()),
            optional(2, "s", Types.BinaryType.get()),
            optional(3, "l", Types.ListType.ofOptional(4, Types.IntegerType.get())));
    ArrowBatchSerializer other = serializer(changed, IpcCompression.NONE);
    assertThatThrownBy(() -> ArrowBatches.deserialize(other, record))
        .isInstanceOf(InvalidArrowBatchException.class)
        .hasMessageContaining("another schema")
        .hasMessageContaining("field #1");
  }

  @Test
  public void aBatchOfAnotherSchemaIsNotSerialized() {
    Schema other = new Schema(required(1, "id", Types.IntegerType.get()));
    try (ArrowBatch batch = ArrowBatches.of(other, new RowDataGenerator(3, 0.0).rows(other, 3))) {
      assertThatThrownBy(
              () ->
                  serializer(SCHEMA, IpcCompression.NONE)
                      .serialize(batch, new DataOutputSerializer(64)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("does not match the serializer's schema");
      assertThat(batch.isReleased()).isFalse();
    }
  }

  @Test
  public void aSecondReleaseAndUseAfterReleaseAreRefused() {
    ArrowBatch batch = ArrowBatches.of(SCHEMA, new RowDataGenerator(4, 0.2).rows(SCHEMA, 10));
    batch.close();
    assertThat(batch.isReleased()).isTrue();
    assertThatThrownBy(batch::close)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("already released");
    assertThatThrownBy(batch::root)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("released");
    assertThatThrownBy(batch::rowCount).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(batch::copy).isInstanceOf(IllegalStateException.class);
    ArrowBatchSerializer serializer = serializer(SCHEMA, IpcCompression.NONE);
    assertThatThrownBy(() -> serializer.serialize(batch, new DataOutputSerializer(64)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("released");
    assertThat(batch.toString()).contains("released");
  }

  @Test
  public void releasesRacingFromTwoThreadsFreeOnce() throws Exception {
    for (int i = 0; i < 50; i += 1) {
      ArrowBatch batch = ArrowBatches.of(SCHEMA, new RowDataGenerator(i, 0.2).rows(SCHEMA, 10));
      java.util.concurrent.atomic.AtomicInteger refused =
          new java.util.concurrent.atomic.AtomicInteger();
      Runnable release =
          () -> {
            try {
              batch.close();
            } catch (IllegalStateException e) {
              refused.incrementAndGet();
            }
          };
      Thread other = new Thread(release);
      other.start();
      release.run();
      other.join(10_000);
      assertThat(refused.get()).as("releases refused").isEqualTo(1);
    }
  }

  /** A batch nobody closes (as Flink drops one it serialized) is released by the cleaner. */
  @Test
  public void anUnreachableBatchIsReleasedByTheCleaner() throws Exception {
    long unclosed = ArrowBatch.releasedUnclosed();
    dropOne();
    ArrowBatches.awaitUnreachableReleased(liveBefore);
    assertThat(ArrowBatch.releasedUnclosed()).isEqualTo(unclosed + 1);
  }

  private static void dropOne() {
    ArrowBatch batch = ArrowBatches.of(SCHEMA, new RowDataGenerator(6, 0.2).rows(SCHEMA, 100));
    assertThat(batch.rowCount()).isEqualTo(100);
  }

  /** The serialized copy ({@code copy(in, out)}) refuses a truncated record the same way. */
  @Test
  public void aSerializedCopyOfATruncatedRecordIsRefused() throws Exception {
    byte[] record = record(IpcCompression.NONE, 10);
    byte[] cut = Arrays.copyOf(record, record.length - 1);
    assertThatThrownBy(
            () ->
                serializer(SCHEMA, IpcCompression.NONE)
                    .copy(new DataInputDeserializer(cut), new DataOutputSerializer(64)))
        .isInstanceOf(InvalidArrowBatchException.class)
        .hasMessageContaining("Truncated");
  }
}
