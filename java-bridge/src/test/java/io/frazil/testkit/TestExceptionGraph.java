package io.frazil.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/** The cycle check the failure tests rely on must itself be able to fail. */
public class TestExceptionGraph {
  @Test
  public void aCauseThatSuppressesItsWrapperIsACycle() {
    IllegalArgumentException original = new IllegalArgumentException("null in 'id'");
    IOException close = new IOException("cannot finish", original);
    original.addSuppressed(close);
    assertThat(ExceptionGraph.findCycle(original))
        .isEqualTo(
            "IllegalArgumentException -suppressed-> IOException -cause-> IllegalArgumentException");
    assertThatThrownBy(() -> ExceptionGraph.assertAcyclic(original))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("cycle");
  }

  @Test
  public void aCycleDeepInTheCausesIsFound() {
    RuntimeException inner = new RuntimeException("inner");
    RuntimeException middle = new RuntimeException("middle", inner);
    RuntimeException top = new RuntimeException("top", middle);
    inner.addSuppressed(middle);
    assertThat(ExceptionGraph.findCycle(top)).isNotNull().startsWith("RuntimeException -cause->");
  }

  @Test
  public void aSharedExceptionReachedTwiceIsNotACycle() {
    IllegalStateException shared = new IllegalStateException("shared");
    RuntimeException first = new RuntimeException("first", shared);
    RuntimeException second = new RuntimeException("second", shared);
    first.addSuppressed(second);
    ExceptionGraph.assertAcyclic(first);
    assertThat(ExceptionGraph.size(first)).isEqualTo(3);
    assertThat(ExceptionGraph.rootCause(first)).isSameAs(shared);
  }
}
