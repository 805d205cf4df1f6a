package org.apache.iceberg.flink.sink;

import io.frazil.flink.LogOnce;
import io.frazil.flink.routing.FrazilTaskWriterFactory;
import io.frazil.partition.FrazilPartitionKeySelector;
import io.frazil.reflect.PrivateMembers;
import java.io.IOException;
import org.apache.flink.api.common.SupportsConcurrentExecutionAttempts;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.SupportsPostCommitTopology;
import org.apache.flink.streaming.api.connector.sink2.SupportsPreCommitTopology;
import org.apache.flink.streaming.api.connector.sink2.SupportsPreWriteTopology;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.transformations.SinkTransformation;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.io.TaskWriter;
import org.apache.iceberg.io.WriteResult;

/**
 * Puts Frazil's partition-key memoizer into an {@link IcebergSink} (SinkV2) job: its writers' per-
 * row partition keys and its hash distribution's key selector.
 *
 * <p>{@code IcebergSink} builds its task writer factory inside {@code createWriter} and hands it to
 * a package-private writer, so this class lives in Iceberg's package and replaces the sink, before
 * the job is translated, by a {@link MemoizingIcebergSink} that forwards every call and only
 * touches what {@code createWriter} and {@code addPreWriteTopology} return. It links only when
 * Iceberg's Flink classes share Frazil's class loader; Frazil's routing skips it otherwise.
 */
public final class FrazilIcebergSinkRouting {
  private FrazilIcebergSinkRouting() {}

  /** Rewrites {@code transformation} in place when it is an {@link IcebergSink}'s. */
  public static int rewrite(Transformation<?> transformation) throws ReflectiveOperationException {
    if (!(transformation instanceof SinkTransformation)) {
      return 0;
    }
    Object sink = ((SinkTransformation<?, ?>) transformation).getSink();
    if (sink.getClass() != IcebergSink.class) {
      return 0;
    }
    PrivateMembers.SINK_TRANSFORMATION_SINK.set(
        transformation, new MemoizingIcebergSink((IcebergSink) sink));
    return 1;
  }

  /**
   * Swaps the writer's task writer factory for Frazil's and its (still empty) task writer for one
   * from that factory, when the memoizer applies to the table; otherwise leaves it untouched.
   */
  static void memoize(IcebergSinkWriter writer) throws ReflectiveOperationException {
    Object factory = PrivateMembers.SINK_WRITER_TASK_WRITER_FACTORY.get(writer);
    if (!(factory instanceof RowDataTaskWriterFactory)) {
      return;
    }
    RowDataTaskWriterFactory wrapped =
        FrazilTaskWriterFactory.wrap((RowDataTaskWriterFactory) factory);
    if (!(wrapped instanceof FrazilTaskWriterFactory)) {
      return;
    }
    wrapped.initialize(
        PrivateMembers.SINK_WRITER_SUBTASK_ID.getInt(writer),
        PrivateMembers.SINK_WRITER_ATTEMPT_ID.getInt(writer));
    if (!((FrazilTaskWriterFactory) wrapped).memoizes()) {
      return; // not eligible: keep the writer Iceberg built
    }
    // The replaced writer is a partitioned fan-out or delta writer that has seen no row: it holds
    // no file and nothing to release.
    TaskWriter<RowData> memoized = wrapped.create();
    PrivateMembers.SINK_WRITER_TASK_WRITER_FACTORY.set(writer, wrapped);
    PrivateMembers.SINK_WRITER_WRITER.set(writer, memoized);
  }

  /** The {@link IcebergSink} it wraps, call for call, with memoized writers and key selector. */
  static final class MemoizingIcebergSink extends RowDataSinkWriters
      implements SupportsPreWriteTopology<RowData>,
          SupportsCommitter<IcebergCommittable>,
          SupportsPreCommitTopology<WriteResult, IcebergCommittable>,
          SupportsPostCommitTopology<IcebergCommittable>,
          SupportsConcurrentExecutionAttempts {
    private static final long serialVersionUID = 1L;
    private final IcebergSink delegate;

    MemoizingIcebergSink(IcebergSink delegate) {
      this.delegate = delegate;
    }

    @Override
    public SinkWriter<RowData> createWriter(WriterInitContext context) throws IOException {
      return memoized(delegate.createWriter(context));
    }

    @Override
    Sink<RowData> delegate() {
      return delegate;
    }

    @Override
    SinkWriter<RowData> memoized(SinkWriter<RowData> writer) {
      if (writer instanceof IcebergSinkWriter) {
        try {
          memoize((IcebergSinkWriter) writer);
        } catch (ReflectiveOperationException | RuntimeException e) {
          LogOnce.warn(
              "iceberg-sink-writer:" + e.getClass().getName(),
              "Frazil left an IcebergSink writer's partition routing unchanged: " + e);
        }
      }
      return writer;
    }

    @Override
    public DataStream<RowData> addPreWriteTopology(DataStream<RowData> input) {
      DataStream<RowData> distributed = delegate.addPreWriteTopology(input);
      if (distributed instanceof KeyedStream
          && ((KeyedStream<RowData, ?>) distributed).getKeySelector()
              instanceof PartitionKeySelector) {
        try {
          // Same key strings, so the same key groups and subtasks as Iceberg's selector.
          return input.keyBy(
              FrazilPartitionKeySelector.of(
                  (PartitionKeySelector) ((KeyedStream<RowData, ?>) distributed).getKeySelector()));
        } catch (ReflectiveOperationException | RuntimeException e) {
          LogOnce.warn(
              "iceberg-sink-selector:" + e.getClass().getName(),
              "Frazil left IcebergSink's hash distribution unchanged: " + e);
        }
      }
      return distributed;
    }

    @Override
    public Committer<IcebergCommittable> createCommitter(CommitterInitContext context) {
      return delegate.createCommitter(context);
    }

    @Override
    public SimpleVersionedSerializer<IcebergCommittable> getCommittableSerializer() {
      return delegate.getCommittableSerializer();
    }

    @Override
    public DataStream<CommittableMessage<IcebergCommittable>> addPreCommitTopology(
        DataStream<CommittableMessage<WriteResult>> writeResults) {
      return delegate.addPreCommitTopology(writeResults);
    }

    @Override
    public SimpleVersionedSerializer<WriteResult> getWriteResultSerializer() {
      return delegate.getWriteResultSerializer();
    }

    @Override
    public void addPostCommitTopology(
        DataStream<CommittableMessage<IcebergCommittable>> committables) {
      delegate.addPostCommitTopology(committables);
    }
  }
}
