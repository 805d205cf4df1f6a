package io.frazil.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.frazil.exchange.ArrowBatch;
import io.frazil.exchange.ArrowBatchTypeInfo;
import io.frazil.flink.arrow.ArrowRowLayout;
import io.frazil.flink.arrow.ArrowStreams;
import io.frazil.flink.arrow.FrazilArrowSink;
import io.frazil.iceberg.ArrowMemory;
import io.frazil.testkit.JobTables;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;
import org.apache.flink.util.ExceptionUtils;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input on the Arrow path in real jobs: each fails its job (no restarts) with an exception that
 * names the problem, commits nothing, leaves no Arrow memory, and the next job on the same
 * MiniCluster runs.
 */
public class TestArrowJobBadInput {
  @RegisterExtension
  static final FrazilMiniCluster CLUSTER = FrazilMiniCluster.installedLikeACluster();

  private static final ArrowRowLayout LAYOUT = ArrowRowLayout.appendOnly(ArrowJobRows.SCHEMA);

  /** The table's columns, but {@code amount} as a 64-bit integer instead of decimal(18, 3). */
  private static final Schema WRONG_AMOUNT = wrongAmount();

  @TempDir private File warehouse;

  @BeforeEach
  public void noBatchesLeft() throws InterruptedException {
    ArrowJob.awaitArrowMemoryReturned();
  }

  @Test
  public void aBatchOfAnotherSchemaReachingTheSinkFailsTheJobNamingTheColumn() throws Exception {
    Table table = createTable("chained");
    // Object reuse on and the batches chained into the sink's conversion: no serializer between
    // them, so the sink's own check is what meets the batch.
    Throwable failure = runWithWrongBatches("chained", true, false);

    assertThat(failure).isNotNull();
    assertThat(ExceptionUtils.findThrowable(failure, IllegalArgumentException.class))
        .get()
        .extracting(Throwable::getMessage)
        .asString()
        .contains("does not match the table's layout")
        .contains("column 'amount' is Int(64, true), expected Decimal(18, 3, 128)");
    assertNothingCommittedAndMemoryReturned(table);
    assertTheNextJobRuns();
  }

  @Test
  public void aBatchOfAnotherSchemaCrossingAnExchangeFailsAtTheSerializer() throws Exception {
    Table table = createTable("exchanged");
    Throwable failure = runWithWrongBatches("exchanged", false, true);

    assertThat(failure).isNotNull();
    assertThat(ExceptionUtils.findThrowable(failure, IllegalArgumentException.class))
        .get()
        .extracting(Throwable::getMessage)
        .asString()
        .contains("does not match the serializer's schema");
    assertNothingCommittedAndMemoryReturned(table);
    assertTheNextJobRuns();
  }

  @Test
  public void aStreamTypedWithAnotherSchemaIsRefusedWhenTheJobIsBuilt() {
    createTable("refused");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    DataStream<ArrowBatch> batches =
        env.fromSequence(0, 9)
            .flatMap(new WrongBatches())
            .returns(ArrowBatchTypeInfo.of(WRONG_AMOUNT));

    assertThatThrownBy(
            () -> FrazilArrowSink.append(batches, FlinkJobs.tableLoader(warehouse, "refused")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("does not match the table")
        .hasMessageContaining("column 'amount' is Int(64, true), expected Decimal(18, 3, 128)");
  }

  @Test
  public void anUpdateRowIntoAppendOnlyBatchesFailsTheJobNamingTheRowKind() throws Exception {
    Table table = createTable("kinds");
    StreamExecutionEnvironment env = env(false);
    List<RowData> rows = new ArrayList<>();
    for (long id = 0; id < 100; id++) {
      RowData row = ArrowJobRows.row(id);
      if (id == 60) {
        ((GenericRowData) row).setRowKind(RowKind.DELETE);
      }
      rows.add(row);
    }
    DataStream<RowData> input = env.fromData(rows, InternalTypeInfo.of(ArrowJobRows.ROW_TYPE));
    DataStream<ArrowBatch> batches = ArrowStreams.toBatches(input, LAYOUT, 10);
    FrazilArrowSink.append(batches.rebalance(), FlinkJobs.tableLoader(warehouse, "kinds"));

    Throwable failure = run(env, "append-only kinds");

    assertThat(failure).isNotNull();
    assertThat(ExceptionUtils.findThrowable(failure, IllegalArgumentException.class))
        .get()
        .extracting(Throwable::getMessage)
        .asString()
        .contains("Cannot put a -D row into append-only Arrow batches");
    assertNothingCommittedAndMemoryReturned(table);
  }

  /** Batches of {@link #WRONG_AMOUNT} typed as the table's layout, into the table's sink. */
  private Throwable runWithWrongBatches(String name, boolean objectReuse, boolean exchange)
      throws Exception {
    StreamExecutionEnvironment env = env(objectReuse);
    DataStream<ArrowBatch> batches =
        env.fromSequence(0, 999).flatMap(new WrongBatches()).returns(LAYOUT.typeInfo());
    FrazilArrowSink.append(
        exchange ? batches.rebalance() : batches, FlinkJobs.tableLoader(warehouse, name));
    return run(env, "wrong batches " + name);
  }

  private static StreamExecutionEnvironment env(boolean objectReuse) {
    Configuration conf = new Configuration();
    conf.setString("restart-strategy.type", "none");
    conf.set(org.apache.flink.configuration.PipelineOptions.OBJECT_REUSE, objectReuse);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    // Applies conf to the checkpoint and execution configs explicitly, the same on every Flink
    // line.
    env.configure(conf);
    env.setParallelism(1);
    env.enableCheckpointing(100);
    return env;
  }

  /** The job's failure, or null if it finished; bounded in time. */
  private static Throwable run(StreamExecutionEnvironment env, String name) throws Exception {
    JobClient job = env.executeAsync(name);
    try {
      job.getJobExecutionResult().get(120, TimeUnit.SECONDS);
      return null;
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (java.util.concurrent.TimeoutException e) {
      job.cancel().get(30, TimeUnit.SECONDS);
      throw new AssertionError(name + " did not finish in 120 s", e);
    }
  }

  private static void assertNothingCommittedAndMemoryReturned(Table table)
      throws InterruptedException {
    table.refresh();
    assertThat(table.currentSnapshot()).as("snapshot committed by the failed job").isNull();
    ArrowJob.awaitArrowMemoryReturned();
    assertThat(ArrowMemory.allocatedBytes()).isZero();
  }

  /** The TaskManager lives on: a good Arrow job on the same MiniCluster commits its rows. */
  private void assertTheNextJobRuns() throws Exception {
    Table table = createTable("after");
    StreamExecutionEnvironment env = env(false);
    DataStream<RowData> rows =
        env.fromSequence(0, 999)
            .map(new ArrowJobRows.PacedRows())
            .returns(InternalTypeInfo.of(ArrowJobRows.ROW_TYPE));
    FrazilArrowSink.append(
        ArrowStreams.toBatches(rows, LAYOUT, 100).rebalance(),
        FlinkJobs.tableLoader(warehouse, "after"));
    assertThat(run(env, "after the failure")).isNull();
    assertThat(ArrowJobRows.committed(table)).isEqualTo(ArrowJobRows.expected(1000));
  }

  private Table createTable(String name) {
    return JobTables.createTable(
        warehouse, name, ArrowJobRows.SCHEMA, JobTables.Partitioning.UNPARTITIONED, 2, Map.of());
  }

  private static Schema wrongAmount() {
    List<Field> fields = new ArrayList<>();
    for (Field field : LAYOUT.arrowSchema().getFields()) {
      fields.add(
          field.getName().equals("amount")
              ? new Field(
                  "amount",
                  new FieldType(true, new ArrowType.Int(64, true), null, field.getMetadata()),
                  null)
              : field);
    }
    return new Schema(fields);
  }

  /** One batch of {@link #WRONG_AMOUNT} per 100 ids (only {@code id} set; the rest null). */
  private static final class WrongBatches implements FlatMapFunction<Long, ArrowBatch> {
    @Override
    public void flatMap(Long id, Collector<ArrowBatch> out) {
      if (id % 100 != 0) {
        return;
      }
      VectorSchemaRoot root =
          VectorSchemaRoot.create(WRONG_AMOUNT, ArrowMemory.exchangeAllocator());
      root.allocateNew();
      BigIntVector ids = (BigIntVector) root.getVector(0);
      for (int i = 0; i < 100; i++) {
        ids.setSafe(i, id + i);
      }
      root.setRowCount(100);
      // Passed on: with object reuse the chained sink step closes it; across an exchange the
      // serializer refuses it and the cleaner frees it.
      out.collect(ArrowBatch.of(root));
    }
  }
}
