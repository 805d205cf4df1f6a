package io.frazil.iceberg;

import java.io.File;
import java.nio.file.Files;
import java.util.Objects;
import org.apache.flink.table.data.GenericRowData;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * Run in a child JVM without Arrow's {@code --add-opens} by {@link TestFailureHandling}: writes one
 * row through the Java writer API and prints what happened, and Arrow's allocated bytes after.
 */
public final class AddOpensProbe {
  private AddOpensProbe() {}

  public static void main(String[] args) throws Exception {
    File dir = Files.createTempDirectory("frazil-add-opens").toFile();
    Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    FrazilParquetAppender appender =
        FrazilParquet.write(org.apache.iceberg.Files.localOutput(new File(dir, "a.parquet")))
            .schema(schema)
            .buildRowData();
    try {
      appender.add(GenericRowData.of(1L));
      System.out.println("add: ok");
    } catch (Throwable t) {
      System.out.println("add: " + t.getClass().getName() + ": " + t.getMessage());
      System.out.println("cause: " + (t.getCause() == null ? "none" : t.getCause().getClass()));
    }
    try {
      appender.close();
      System.out.println("close: ok");
    } catch (Throwable t) {
      System.out.println("close: " + t.getClass().getName() + ": " + t.getMessage());
    }
    System.out.println("arrow bytes: " + ArrowMemory.allocatedBytes());
    // The failed writer must have left nothing; what is left is printed for the test to see.
    String[] left = Objects.requireNonNullElse(dir.list(), new String[0]);
    System.out.println("files left: " + left.length);
    for (String name : left) {
      Files.delete(new File(dir, name).toPath());
    }
    Files.delete(dir.toPath());
  }
}
