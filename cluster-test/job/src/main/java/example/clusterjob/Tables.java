package example.clusterjob;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
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

/**
 * The jobs' Iceberg catalog, from the arguments: {@code --warehouse DIR} alone is a Hadoop catalog
 * in a local directory; {@code --catalog-impl CLASS --catalog-props k=v,k=v} names any other (the
 * S3 scenario: a JDBC catalog on SQLite whose FileIO is S3FileIO).
 */
final class Tables {
  static final String CATALOG = "cluster";

  private Tables() {}

  static String impl(Args args) {
    return args.get("catalog-impl", HadoopCatalog.class.getName());
  }

  static Map<String, String> properties(Args args) {
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put("warehouse", args.get("warehouse"));
    String extra = args.get("catalog-props", "");
    for (String pair : extra.isEmpty() ? new String[0] : extra.split(",")) {
      int eq = pair.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("--catalog-props wants k=v,k=v; got " + pair);
      }
      properties.put(pair.substring(0, eq), pair.substring(eq + 1));
    }
    return properties;
  }

  static CatalogLoader catalogLoader(Args args) {
    return CatalogLoader.custom(CATALOG, properties(args), new Configuration(), impl(args));
  }

  static Catalog catalog(Args args) {
    return CatalogUtil.loadCatalog(impl(args), CATALOG, properties(args), new Configuration());
  }

  /** Creates the table (and its namespace) unless it exists. */
  static Table create(Args args, String table, Schema schema, PartitionSpec spec) {
    Catalog catalog = catalog(args);
    TableIdentifier id = TableIdentifier.parse(table);
    Namespace namespace = id.namespace();
    if (catalog instanceof SupportsNamespaces
        && !((SupportsNamespaces) catalog).namespaceExists(namespace)) {
      ((SupportsNamespaces) catalog).createNamespace(namespace);
    }
    return catalog.tableExists(id) ? catalog.loadTable(id) : catalog.createTable(id, schema, spec);
  }

  static TableLoader tableLoader(Args args, String table) {
    return TableLoader.fromCatalog(catalogLoader(args), TableIdentifier.parse(table));
  }
}
