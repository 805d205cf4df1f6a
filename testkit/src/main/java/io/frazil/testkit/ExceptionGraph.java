package io.frazil.testkit;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Checks the graph an exception spans through its causes and suppressed exceptions, the way Flink's
 * failure path walks it (recursively, without a cycle check): a cycle there turns a task failure
 * into a {@code StackOverflowError} that takes the TaskManager down.
 */
public final class ExceptionGraph {
  private ExceptionGraph() {}

  /**
   * Throws an {@link AssertionError} naming the path of the first cycle found by identity, e.g.
   * {@code IllegalArgumentException -suppressed-> IOException -cause-> IllegalArgumentException}.
   */
  public static void assertAcyclic(Throwable top) {
    String cycle = findCycle(top);
    if (cycle != null) {
      throw new AssertionError("exception graph has a cycle: " + cycle);
    }
  }

  /** The path of the first cycle reachable from {@code top}, or null if there is none. */
  public static String findCycle(Throwable top) {
    return walk(top, "", new ArrayDeque<>(), new IdentityHashMap<>());
  }

  /** The last exception of {@code top}'s cause chain (stopping at a cycle, should there be one). */
  public static Throwable rootCause(Throwable top) {
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    Throwable current = top;
    while (current.getCause() != null && seen.put(current, Boolean.TRUE) == null) {
      current = current.getCause();
    }
    return current;
  }

  /** Exceptions reachable from {@code top} (each counted once, by identity). */
  public static int size(Throwable top) {
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    Deque<Throwable> todo = new ArrayDeque<>();
    todo.push(top);
    while (!todo.isEmpty()) {
      Throwable t = todo.pop();
      if (seen.put(t, Boolean.TRUE) == null) {
        if (t.getCause() != null) {
          todo.push(t.getCause());
        }
        for (Throwable s : t.getSuppressed()) {
          todo.push(s);
        }
      }
    }
    return seen.size();
  }

  private static String walk(
      Throwable t, String edge, Deque<String> path, Map<Throwable, Boolean> state) {
    Boolean onPath = state.get(t);
    String step = edge + t.getClass().getSimpleName();
    if (Boolean.TRUE.equals(onPath)) {
      return String.join("", path) + step;
    }
    if (onPath != null) {
      return null; // finished before, from another edge: a shared node, not a cycle
    }
    state.put(t, Boolean.TRUE);
    path.addLast(step);
    String found = null;
    if (t.getCause() != null) {
      found = walk(t.getCause(), " -cause-> ", path, state);
    }
    for (Throwable s : t.getSuppressed()) {
      if (found == null) {
        found = walk(s, " -suppressed-> ", path, state);
      }
    }
    path.removeLast();
    state.put(t, Boolean.FALSE);
    return found;
  }
}
