package example.clusterjob;

import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.hadoop.HadoopCatalog;

/** The jobs' Iceberg catalog: a Hadoop catalog in a local warehouse directory. */
final class Tables {
  static final String CATALOG = "hadoop";

  private Tables() {}

  static CatalogLoader catalogLoader(String warehouse) {
    return CatalogLoader.hadoop(CATALOG, new Configuration(), Map.of("warehouse", warehouse));
  }

  static Catalog catalog(String warehouse) {
    HadoopCatalog catalog = new HadoopCatalog();
    catalog.setConf(new Configuration());
    catalog.initialize(CATALOG, Map.of("warehouse", warehouse));
    return catalog;
  }

  /** Creates the table (and its namespace) unless it exists. */
  static Table create(String warehouse, String table, Schema schema, PartitionSpec spec) {
    Catalog catalog = catalog(warehouse);
    TableIdentifier id = TableIdentifier.parse(table);
    Namespace namespace = id.namespace();
    if (catalog instanceof SupportsNamespaces
        && !((SupportsNamespaces) catalog).namespaceExists(namespace)) {
      ((SupportsNamespaces) catalog).createNamespace(namespace);
    }
    return catalog.tableExists(id) ? catalog.loadTable(id) : catalog.createTable(id, schema, spec);
  }

  static TableLoader tableLoader(String warehouse, String table) {
    return TableLoader.fromCatalog(catalogLoader(warehouse), TableIdentifier.parse(table));
  }
}
