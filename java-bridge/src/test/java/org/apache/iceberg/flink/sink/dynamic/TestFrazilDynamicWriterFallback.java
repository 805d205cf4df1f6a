package org.apache.iceberg.flink.sink.dynamic;

import static org.assertj.core.api.Assertions.assertThat;

import io.frazil.reflect.HiddenField;
import io.frazil.reflect.PrivateMembers;
import java.lang.reflect.Field;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.junit.jupiter.api.Test;

/**
 * A Dynamic Iceberg Sink writer that is not shaped as Frazil expects (an Iceberg upgrade moved a
 * field) keeps Iceberg's own task writer factories: the task runs on, it never fails. (That the
 * real field exists is pinned by {@code TestPrivateMembers}.)
 */
public class TestFrazilDynamicWriterFallback {
  @Test
  public void aWriterWithoutTheExpectedFieldIsReturnedUnchanged() throws Exception {
    DynamicWriter writer = unconstructed(DynamicWriter.class);
    SinkWriter<DynamicRecordInternal> result =
        FrazilDynamicRouting.memoize(
            writer,
            HiddenField.of(
                DynamicWriter.class.getName(), "aFieldIcebergDoesNotHave", "java.util.Map"));
    assertThat(result).isSameAs(writer);
    assertThat((Object) PrivateMembers.DYNAMIC_WRITER_TASK_WRITER_FACTORIES.get(writer))
        .as("Iceberg's own factory cache is left in place")
        .isNull();
  }

  @SuppressWarnings("unchecked")
  private static <T> T unconstructed(Class<T> type) throws Exception {
    Field unsafeField = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
    unsafeField.setAccessible(true);
    return (T) ((sun.misc.Unsafe) unsafeField.get(null)).allocateInstance(type);
  }
}
