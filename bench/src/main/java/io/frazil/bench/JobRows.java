package io.frazil.bench;

import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.util.Collector;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.flink.sink.dynamic.DynamicRecord;
import org.apache.iceberg.flink.sink.dynamic.DynamicRecordGenerator;
import org.apache.iceberg.util.DateTimeUtil;

/**
 * The whole-job input: Datasets' bid rows with unique (auction, bidder, date_time) keys, held in
 * memory for the MiniCluster (same JVM, same class loader) to read, and a checksum of them that the
 * committed table must reproduce.
 */
final class JobRows {
  private JobRows() {}

  /** The equality fields of the keyed cells: include the partition source column (auction). */
  static final Set<String> KEY = Set.of("auction", "bidder", "date_time");

  /** The pre-built rows; written once before any job, read by {@link Lookup} in the jobs. */
  private static volatile List<RowData> input = List.of();

  static List<RowData> input() {
    return input;
  }

  /**
   * Datasets.bids(count, seed), with the date_time of a row whose (auction, bidder, date_time)
   * repeats an earlier row's moved forward by whole microseconds until the key is unique (so an
   * upsert keeps every row and the forward and keyed cells write identical input). Returns the
   * number of rows moved.
   */
  static int build(int count, long seed) {
    List<RowData> bids = Datasets.bids(count, seed);
    List<RowData> rows = new ArrayList<>(bids.size());
    Set<Key> seen = new HashSet<>(bids.size() * 2);
    int moved = 0;
    for (RowData row : bids) {
      long micros = micros(row.getTimestamp(5, 6));
      Key key = new Key(row.getLong(0), row.getLong(1), micros);
      if (seen.add(key)) {
        rows.add(row);
        continue;
      }
      do {
        micros += 1;
        key = new Key(row.getLong(0), row.getLong(1), micros);
      } while (!seen.add(key));
      GenericRowData copy = new GenericRowData(row.getArity());
      for (int f = 0; f < row.getArity(); f++) {
        copy.setField(f, ((GenericRowData) row).getField(f));
      }
      copy.setField(
          5,
          TimestampData.fromEpochMillis(
              Math.floorDiv(micros, 1000), (int) Math.floorMod(micros, 1000) * 1000));
      rows.add(copy);
      moved++;
    }
    input = Collections.unmodifiableList(rows);
    return moved;
  }

  private record Key(long auction, long bidder, long micros) {}

  static long micros(TimestampData timestamp) {
    return timestamp.getMillisecond() * 1000 + timestamp.getNanoOfMillisecond() / 1000;
  }

  // ---------------------------------------------------------------------------------------------
  // checksum: count, wrapping sum and xor of a 64-bit hash over every field of every row

  /** Count, sum and xor of row hashes; equal content (as a multiset) gives equal checksums. */
  static final class Checksum {
    long count;
    long sum;
    long xor;

    void add(long hash) {
      count++;
      sum += hash;
      xor ^= hash;
    }

    boolean matches(Checksum other) {
      return count == other.count && sum == other.sum && xor == other.xor;
    }

    @Override
    public String toString() {
      return String.format("%,d rows, sum %016x, xor %016x", count, sum, xor);
    }
  }

  static Checksum checksum(List<RowData> rows) {
    Checksum checksum = new Checksum();
    for (RowData row : rows) {
      checksum.add(hash(row));
    }
    return checksum;
  }

  /** Bid schema: auction, bidder, price, channel, url, date_time, extra. */
  static long hash(RowData row) {
    long h = 0x9E3779B97F4A7C15L;
    h = mix(h, row.getLong(0));
    h = mix(h, row.getLong(1));
    h = mix(h, row.getLong(2));
    h = mix(h, row.isNullAt(3) ? NULL : bytes(row.getString(3).toBytes()));
    h = mix(h, row.isNullAt(4) ? NULL : bytes(row.getString(4).toBytes()));
    h = mix(h, micros(row.getTimestamp(5, 6)));
    h = mix(h, row.isNullAt(6) ? NULL : bytes(row.getString(6).toBytes()));
    return h;
  }

  /** The same hash over a record read back by Iceberg's generic reader. */
  static long hash(Record record) {
    long h = 0x9E3779B97F4A7C15L;
    h = mix(h, (Long) record.get(0));
    h = mix(h, (Long) record.get(1));
    h = mix(h, (Long) record.get(2));
    h = mix(h, string(record.get(3)));
    h = mix(h, string(record.get(4)));
    h = mix(h, DateTimeUtil.microsFromTimestamp((LocalDateTime) record.get(5)));
    h = mix(h, string(record.get(6)));
    return h;
  }

  private static final long NULL = 0x5bd1e9955bd1e995L;

  private static long string(Object value) {
    return value == null ? NULL : bytes(value.toString().getBytes(StandardCharsets.UTF_8));
  }

  /** FNV-1a over the UTF-8 bytes, finalised. */
  private static long bytes(byte[] bytes) {
    long h = 0xcbf29ce484222325L;
    for (byte b : bytes) {
      h ^= b & 0xff;
      h *= 0x100000001b3L;
    }
    return fmix(h ^ bytes.length);
  }

  private static long mix(long h, long value) {
    return fmix(h * 31 + fmix(value + 0x632BE59BD9B4E019L));
  }

  private static long fmix(long k) {
    k ^= k >>> 33;
    k *= 0xff51afd7ed558ccdL;
    k ^= k >>> 33;
    k *= 0xc4ceb9fe1a85ec53L;
    k ^= k >>> 33;
    return k;
  }

  // ---------------------------------------------------------------------------------------------
  // job functions (serialisable; they run in the MiniCluster inside this JVM)

  /** Sequence number → the pre-built row (after the rebalance, at the writer parallelism). */
  static final class Lookup implements MapFunction<Long, RowData> {
    @Override
    public RowData map(Long index) {
      return input.get((int) (long) index);
    }
  }

  /**
   * The Dynamic Iceberg Sink's generator: every row to one table; forward (no distribution mode:
   * the record is written by the generator's own subtask, no shuffle) or keyed (upsert on {@link
   * #KEY}, distribution mode HASH). The Arrow arm's keyed cell has already sent each row to its
   * writer subtask as part of a sub-batch ({@link JobArrow}): its upsert records have no
   * distribution mode ({@code hashInSink} false), so the generator's subtask writes them.
   */
  static final class Generator implements DynamicRecordGenerator<RowData> {
    // TableIdentifier is not serializable: keep its string form.
    private final String identifier;
    private final Schema schema;
    private final PartitionSpec spec;
    private final boolean keyed;
    private final int writeParallelism;
    private final boolean hashInSink;
    private transient TableIdentifier parsed;

    Generator(
        TableIdentifier identifier,
        Schema schema,
        PartitionSpec spec,
        boolean keyed,
        int writeParallelism,
        boolean hashInSink) {
      this.identifier = identifier.toString();
      this.schema = schema;
      this.spec = spec;
      this.keyed = keyed;
      this.writeParallelism = writeParallelism;
      this.hashInSink = hashInSink;
    }

    @Override
    public void generate(RowData row, Collector<DynamicRecord> out) {
      if (parsed == null) {
        parsed = TableIdentifier.parse(identifier);
      }
      if (!keyed) {
        out.collect(new DynamicRecord(parsed, "main", schema, row, spec));
        return;
      }
      DynamicRecord record =
          hashInSink
              ? new DynamicRecord(
                  parsed, "main", schema, row, spec, DistributionMode.HASH, writeParallelism)
              : new DynamicRecord(parsed, "main", schema, row, spec);
      record.setUpsertMode(true);
      record.setEqualityFields(KEY);
      out.collect(record);
    }
  }
}
