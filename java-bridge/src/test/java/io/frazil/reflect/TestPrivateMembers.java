package io.frazil.reflect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Pins every private Iceberg and Flink member Frazil reaches against the versions it is built with:
 * an upgrade that renames, removes or retypes one fails here, by name, instead of jobs quietly
 * falling back to Iceberg's own writers and routing.
 */
public class TestPrivateMembers {
  private static final Path MAIN_SOURCES = Paths.get("src/main/java");

  @Test
  public void everyMemberResolvesWithItsDeclaredType() {
    List<String> broken = new ArrayList<>();
    for (HiddenMember member : PrivateMembers.all()) {
      if (!member.existsOnThisJvm()) {
        continue; // a JDK-internal member of another JDK release
      }
      try {
        member.check();
      } catch (ReflectiveOperationException | LinkageError e) {
        broken.add(member + " -> " + e);
      }
    }
    assertThat(broken).as("members this Iceberg/Flink does not have as expected").isEmpty();
  }

  @Test
  public void theListNamesEveryMemberOnce() {
    List<String> names =
        PrivateMembers.all().stream().map(HiddenMember::toString).collect(Collectors.toList());
    assertThat(names).doesNotHaveDuplicates().hasSizeGreaterThanOrEqualTo(40);
    assertThat(names)
        .contains(
            "org.apache.iceberg.formats.FormatModelRegistry#MODELS",
            "org.apache.iceberg.flink.sink.RowDataTaskWriterFactory#refreshTable",
            "org.apache.iceberg.flink.sink.dynamic.DynamicWriter#taskWriterFactories");
  }

  @Test
  public void aMovedMemberIsNamedInTheFailure() {
    HiddenField missing =
        HiddenField.of(
            "org.apache.iceberg.flink.sink.RowDataTaskWriterFactory", "renamed", "boolean");
    assertThatThrownBy(missing::check)
        .isInstanceOf(NoSuchFieldException.class)
        .hasMessageContaining("org.apache.iceberg.flink.sink.RowDataTaskWriterFactory#renamed");

    HiddenField retyped =
        HiddenField.of(
            "org.apache.iceberg.flink.sink.RowDataTaskWriterFactory", "upsert", "java.lang.String");
    assertThatThrownBy(retyped::check)
        .isInstanceOf(NoSuchFieldException.class)
        .hasMessageContaining("expected type java.lang.String, found boolean");

    HiddenField noClass = HiddenField.of("org.apache.iceberg.flink.Gone", "x", "int");
    assertThatThrownBy(noClass::check).isInstanceOf(ClassNotFoundException.class);
  }

  @Test
  public void membersReadAndWriteTheRealFields() throws Exception {
    Owner owner = new Owner();
    HiddenField secret = HiddenField.of(Owner.class.getName(), "secret", "java.lang.String");
    assertThat((String) secret.get(owner)).isEqualTo("before");
    secret.set(owner, "after");
    assertThat(owner.secret).isEqualTo("after");
    assertThat(HiddenField.of(Owner.class.getName(), "count", "int").getInt(owner)).isEqualTo(7);
    assertThat(PrivateMembers.capturedValue(owner, String.class)).isEqualTo("after");
    assertThat(PrivateMembers.capturedValue(owner, Thread.class)).isNull();
  }

  /**
   * Only this package reaches into other classes' private members: a new reflective access
   * elsewhere would escape the pin above.
   */
  @Test
  public void noOtherMainSourceUsesReflectionOnPrivateMembers() throws IOException {
    Pattern reflective =
        Pattern.compile("getDeclaredFields?\\(|getDeclaredMethods?\\(|setAccessible\\(");
    List<String> offenders;
    try (Stream<Path> files = Files.walk(MAIN_SOURCES)) {
      offenders =
          files
              .filter(path -> path.toString().endsWith(".java"))
              .filter(path -> !path.startsWith(MAIN_SOURCES.resolve("io/frazil/reflect")))
              .filter(path -> matches(path, reflective))
              .map(Path::toString)
              .collect(Collectors.toList());
    }
    assertThat(offenders).as("main sources reflecting outside io.frazil.reflect").isEmpty();
  }

  private static boolean matches(Path path, Pattern pattern) {
    try {
      Matcher matcher = pattern.matcher(Files.readString(path));
      return matcher.find();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @SuppressWarnings({"FieldMayBeFinal", "unused"})
  private static final class Owner {
    private String secret = "before";
    private int count = 7;
  }
}
