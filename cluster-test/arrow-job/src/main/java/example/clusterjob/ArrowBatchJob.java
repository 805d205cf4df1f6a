package example.clusterjob;

import io.frazil.exchange.ArrowBatch;
import io.frazil.exchange.ArrowBatchSerializer;
import io.frazil.exchange.ArrowBatchTypeInfo;
import io.frazil.flink.arrow.ArrowRowLayout;
import io.frazil.flink.arrow.ArrowStreams;
import io.frazil.flink.arrow.FrazilArrowSink;
import io.frazil.shaded.org.apache.arrow.vector.BigIntVector;
import java.time.Duration;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.Collector;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes rows 0..rows-1 through Frazil's Arrow path: rows → {@link ArrowBatch}es ({@link
 * ArrowStreams#toBatches}, a batch cut at every checkpoint barrier) → {@code keyBy} on each batch's
 * first id (whole batches cross the network, serialized by {@link ArrowBatchSerializer}) → "keyed
 * batches" → {@link FrazilArrowSink#append} (Iceberg's IcebergSink, files written by Frazil).
 *
 * <pre>
 * --warehouse DIR --table db.t --rows N [--parallelism 2] [--checkpoint-ms 1000]
 * [--checkpoint-min-pause-ms 0]
 * [--rows-per-second 0] [--batch-rows 500] [--unaligned false] [--keyed-micros-per-row 0]
 * [--distribution none]
 * </pre>
 *
 * <p>Every stage runs at {@code parallelism}, so with one slot per TaskManager each TaskManager
 * runs a source, a batcher and a keyed subtask, and each sends batches to the other. The ids come
 * from {@code fromSequence} (checkpointed splits: a restarted job replays exactly the ids after the
 * last checkpoint), throttled to {@code rows-per-second} in all. {@code --unaligned true} takes
 * unaligned checkpoints from the first barrier on; {@code --keyed-micros-per-row} slows the keyed
 * subtasks down so that batches queue in the exchange and the barriers overtake them (in-flight
 * batches the checkpoints persist). {@code --distribution hash} sets the table's {@code
 * write.distribution-mode=hash}: the sink then splits each batch by partition (bucket(id, 4))
 * natively and keys whole parts by partition path, a second Arrow exchange before the writers.
 */
public final class ArrowBatchJob {
  static final String KEYED = "keyed batches";

  private ArrowBatchJob() {}

  public static void main(String[] argv) throws Exception {
    Args args = new Args(argv);
    String table = args.get("table");
    long rows = args.getLong("rows", 100_000);
    int parallelism = args.getInt("parallelism", 2);
    Table created = Tables.create(args, table, Rows.SCHEMA, Rows.SPEC);
    String distribution = args.get("distribution", TableProperties.WRITE_DISTRIBUTION_MODE_NONE);
    created.updateProperties().set(TableProperties.WRITE_DISTRIBUTION_MODE, distribution).commit();

    Configuration conf = new Configuration();
    conf.set(
        CheckpointingOptions.CHECKPOINTING_INTERVAL,
        Duration.ofMillis(args.getLong("checkpoint-ms", 1000)));
    // A quiet stretch after each checkpoint (the scenario kills in one), however long they take.
    conf.set(
        CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS,
        Duration.ofMillis(args.getLong("checkpoint-min-pause-ms", 0)));
    if ("true".equals(args.get("unaligned", "false"))) {
      conf.set(CheckpointingOptions.ENABLE_UNALIGNED, true);
      conf.set(CheckpointingOptions.ALIGNED_CHECKPOINT_TIMEOUT, Duration.ZERO);
    }
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.configure(conf);
    env.setParallelism(parallelism);

    DataStream<RowData> input =
        env.fromSequence(0, rows - 1)
            .name("ids")
            .map(new FlinkSinkJob.ToRow(args.getLong("rows-per-second", 0) / parallelism, 0, 0))
            .returns(Rows.ROW_DATA_TYPE)
            .name("rows");
    ArrowRowLayout layout = ArrowRowLayout.appendOnly(Rows.SCHEMA);
    DataStream<ArrowBatch> batches =
        ArrowStreams.toBatches(input, layout, args.getInt("batch-rows", 500));
    KeyedStream<ArrowBatch, Long> byFirstId = batches.keyBy(new FirstId());
    requireArrowExchange(byFirstId, env);
    DataStream<ArrowBatch> keyed =
        byFirstId
            .flatMap(new KeyedBatches(args.getLong("keyed-micros-per-row", 0)))
            .returns(layout.typeInfo())
            .name(KEYED);
    FrazilArrowSink.append(keyed, Tables.tableLoader(args, table));
    env.execute("Arrow batches into " + table + " (" + rows + " rows)");
  }

  /** The keyed exchange must carry ArrowBatches serialized by Frazil's serializer, or no test. */
  private static void requireArrowExchange(
      KeyedStream<ArrowBatch, Long> stream, StreamExecutionEnvironment env) {
    if (!(stream.getType() instanceof ArrowBatchTypeInfo)) {
      throw new IllegalStateException("The keyed exchange carries " + stream.getType());
    }
    TypeSerializer<ArrowBatch> serializer =
        ((ArrowBatchTypeInfo) stream.getType())
            .createSerializer(env.getConfig().getSerializerConfig());
    if (!(serializer instanceof ArrowBatchSerializer)) {
      throw new IllegalStateException("The keyed exchange serializes with " + serializer);
    }
    System.out.println("keyed exchange: " + stream.getType() + " by " + serializer);
  }

  /**
   * A batch's first id (Arrow's BigIntVector, under the runtime jar's relocated name): a key per
   * batch, so the keyed exchange moves whole batches, to either subtask.
   */
  static final class FirstId implements KeySelector<ArrowBatch, Long> {
    @Override
    public Long getKey(ArrowBatch batch) {
      return ((BigIntVector) batch.root().getVector("id")).get(0);
    }
  }

  /**
   * After the keyBy: optionally sleeps per row (the backpressure unaligned checkpoints need),
   * passes each batch to the chained sink, which gets a copy (object reuse is off) and closes it;
   * this one is closed here. Logs what it received when it closes.
   */
  static final class KeyedBatches extends RichFlatMapFunction<ArrowBatch, ArrowBatch> {
    private static final Logger LOG = LoggerFactory.getLogger(KeyedBatches.class);

    private final long microsPerRow;
    private transient long batches;
    private transient long rows;

    KeyedBatches(long microsPerRow) {
      this.microsPerRow = microsPerRow;
    }

    @Override
    public void open(OpenContext context) {
      batches = 0;
      rows = 0;
    }

    @Override
    public void flatMap(ArrowBatch batch, Collector<ArrowBatch> out) throws InterruptedException {
      batches++;
      rows += batch.rowCount();
      long micros = microsPerRow * batch.rowCount();
      if (micros > 0) {
        Thread.sleep(micros / 1000, (int) (micros % 1000) * 1000);
      }
      out.collect(batch);
      batch.close();
    }

    @Override
    public void close() {
      LOG.info(
          "{} (attempt {}): {} batches, {} rows",
          getRuntimeContext().getTaskInfo().getTaskNameWithSubtasks(),
          getRuntimeContext().getTaskInfo().getAttemptNumber(),
          batches,
          rows);
    }
  }
}
