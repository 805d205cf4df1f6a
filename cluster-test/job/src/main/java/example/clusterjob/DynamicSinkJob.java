package example.clusterjob;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.Collector;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.sink.dynamic.DynamicIcebergSink;
import org.apache.iceberg.flink.sink.dynamic.DynamicRecord;
import org.apache.iceberg.flink.sink.dynamic.DynamicRecordGenerator;

/**
 * Writes rows 0..rows-1 with the Dynamic Iceberg Sink, even ids to {@code <table>_even} and odd ids
 * to {@code <table>_odd}; the sink creates both tables from the records' schema and spec.
 *
 * <pre>--warehouse DIR --table db.t --rows N [--parallelism 2]</pre>
 *
 * <p>The sink's default (forward) writers run chained to the source, at the job's parallelism.
 */
public final class DynamicSinkJob {
  private DynamicSinkJob() {}

  public static void main(String[] argv) throws Exception {
    Args args = new Args(argv);
    String warehouse = args.get("warehouse");
    String table = args.get("table");
    long rows = args.getLong("rows", 100_000);
    int parallelism = args.getInt("parallelism", 2);

    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(parallelism);
    DynamicIcebergSink.forInput(env.fromSequence(0, rows - 1).name("ids"))
        .generator(new EvenOdd(table))
        .catalogLoader(Tables.catalogLoader(warehouse))
        .writeParallelism(parallelism)
        .immediateTableUpdate(true)
        .append();
    env.execute("DynamicIcebergSink " + table + "_even/_odd (" + rows + " rows)");
  }

  /** Routes each id's row by parity. */
  static final class EvenOdd implements DynamicRecordGenerator<Long> {
    private final String table;

    EvenOdd(String table) {
      this.table = table;
    }

    @Override
    public void generate(Long id, Collector<DynamicRecord> out) {
      String target = table + (id % 2 == 0 ? "_even" : "_odd");
      out.collect(
          new DynamicRecord(
              TableIdentifier.parse(target), "main", Rows.SCHEMA, Rows.rowData(id), Rows.SPEC));
    }
  }
}
