package org.apache.iceberg.flink.sink.dynamic;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.junit.jupiter.api.Test;

/**
 * A Dynamic Iceberg Sink writer that is not shaped as Frazil expects (an Iceberg upgrade moved a
 * field) keeps Iceberg's own task writer factories: the task runs on, it never fails.
 */
public class TestFrazilDynamicWriterFallback {
  @Test
  public void aWriterWithoutTheExpectedFieldIsReturnedUnchanged() throws Exception {
    DynamicWriter writer = unconstructed(DynamicWriter.class);
    SinkWriter<DynamicRecordInternal> result =
        FrazilDynamicRouting.memoize(writer, "aFieldIcebergDoesNotHave");
    assertThat(result).isSameAs(writer);
    assertThat(readField(writer, FrazilDynamicRouting.FACTORIES_FIELD))
        .as("Iceberg's own factory cache is left in place")
        .isNull();
  }

  @Test
  public void theFieldFrazilExpectsExists() throws Exception {
    // Pins the member the fallback above stands in for, so an upgrade fails here by name.
    assertThat(DynamicWriter.class.getDeclaredField(FrazilDynamicRouting.FACTORIES_FIELD))
        .isNotNull();
  }

  @SuppressWarnings("unchecked")
  private static <T> T unconstructed(Class<T> type) throws Exception {
    Field unsafeField = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
    unsafeField.setAccessible(true);
    return (T) ((sun.misc.Unsafe) unsafeField.get(null)).allocateInstance(type);
  }

  private static Object readField(Object target, String name) throws Exception {
    Field field = DynamicWriter.class.getDeclaredField(name);
    field.setAccessible(true);
    return field.get(target);
  }
}
