package io.frazil.testkit;

import java.io.File;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.Collector;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.sink.dynamic.DynamicRecord;
import org.apache.iceberg.flink.sink.dynamic.DynamicRecordGenerator;
import org.apache.iceberg.hadoop.HadoopCatalog;

/**
 * The tables the Flink job fixtures write (java-bridge's FlinkJobs and the validation tool's
 * JobParity): a Hadoop catalog in a local warehouse directory, the sinks and partitionings of the
 * job matrix, and the Dynamic Iceberg Sink's one-table record generator.
 */
public final class JobTables {
  /** The catalog's name (in SQL too) and the database every table is in. */
  public static final String CATALOG = "frazil";

  public static final String DATABASE = "db";

  /** The four ways a Flink job writes an Iceberg table. */
  public enum Sink {
    FLINK_SINK("FlinkSink"),
    ICEBERG_SINK("IcebergSink"),
    DYNAMIC_SINK("DynamicIcebergSink"),
    SQL("SQL INSERT");

    public final String label;

    Sink(String label) {
      this.label = label;
    }
  }

  /** Partition specs over a schema with an {@code id} and a {@code category} column. */
  public enum Partitioning {
    UNPARTITIONED,
    IDENTITY,
    BUCKET
  }

  private JobTables() {}

  /** {@code identity(category)}, {@code bucket(id, 4)} or unpartitioned. */
  public static PartitionSpec spec(Schema schema, Partitioning partitioning) {
    switch (partitioning) {
      case IDENTITY:
        return PartitionSpec.builderFor(schema).identity("category").build();
      case BUCKET:
        return PartitionSpec.builderFor(schema).bucket("id", 4).build();
      default:
        return PartitionSpec.unpartitioned();
    }
  }

  public static HadoopCatalog catalog(File warehouse) {
    return new HadoopCatalog(new Configuration(), warehouse.getAbsolutePath());
  }

  public static CatalogLoader catalogLoader(File warehouse) {
    return CatalogLoader.hadoop(
        CATALOG, new Configuration(), Map.of("warehouse", warehouse.getAbsolutePath()));
  }

  /** The SQL statement that registers the same catalog in a table environment. */
  public static String createCatalogSql(File warehouse) {
    return "CREATE CATALOG "
        + CATALOG
        + " WITH ('type'='iceberg', 'catalog-type'='hadoop', 'warehouse'='"
        + warehouse.getAbsolutePath()
        + "')";
  }

  /** A table of the given format version, zstd unless {@code props} names a codec. */
  public static Table createTable(
      File warehouse,
      String name,
      Schema schema,
      Partitioning partitioning,
      int formatVersion,
      Map<String, String> props) {
    Map<String, String> properties = new HashMap<>(props);
    properties.put(TableProperties.FORMAT_VERSION, String.valueOf(formatVersion));
    properties.putIfAbsent(TableProperties.PARQUET_COMPRESSION, "zstd");
    return catalog(warehouse)
        .createTable(
            TableIdentifier.of(DATABASE, name), schema, spec(schema, partitioning), properties);
  }

  /** The Dynamic Iceberg Sink's record generator: every row to one table. */
  public static final class Generator implements DynamicRecordGenerator<RowData> {
    // TableIdentifier is not serializable: keep its string form.
    private final String identifier;
    private final Schema schema;
    private final PartitionSpec spec;
    private final boolean upsert;
    private final DistributionMode upsertDistribution;

    /**
     * Upsert records have {@code id} as their equality field and, unless {@code upsertDistribution}
     * is null, that distribution mode.
     */
    public Generator(
        TableIdentifier identifier,
        Schema schema,
        PartitionSpec spec,
        boolean upsert,
        DistributionMode upsertDistribution) {
      this.identifier = identifier.toString();
      this.schema = schema;
      this.spec = spec;
      this.upsert = upsert;
      this.upsertDistribution = upsertDistribution;
    }

    @Override
    public void generate(RowData row, Collector<DynamicRecord> out) {
      DynamicRecord record =
          new DynamicRecord(TableIdentifier.parse(identifier), "main", schema, row, spec);
      if (upsert) {
        record.setUpsertMode(true);
        record.setEqualityFields(Set.of("id"));
        if (upsertDistribution != null) {
          record.setDistributionMode(upsertDistribution);
        }
      }
      out.collect(record);
    }
  }
}
