package io.frazil.reflect;

/**
 * A private member of an Iceberg or Flink class that Frazil reaches by name.
 *
 * <p>Owners and types are class <em>names</em>, resolved on first use through Frazil's own class
 * loader: declaring the members never loads Iceberg or Flink classes, and a missing class, member
 * or changed type surfaces as a {@link ReflectiveOperationException} at the call site, where every
 * caller falls back to Iceberg's own path. {@link PrivateMembers} declares them all, so one test
 * can resolve each and name the one an upgrade moved.
 */
abstract class HiddenMember {
  private final String owner;
  private final String name;
  private int fromJdk = 0;
  private int untilJdk = Integer.MAX_VALUE;

  HiddenMember(String owner, String name) {
    this.owner = owner;
    this.name = name;
  }

  /** Marks a JDK-internal member that exists only on JDK feature releases {@code from..until}. */
  @SuppressWarnings("unchecked")
  <M extends HiddenMember> M onJdk(int from, int until) {
    this.fromJdk = from;
    this.untilJdk = until;
    return (M) this;
  }

  /** False for a JDK-internal member this JVM's release does not have. */
  public boolean existsOnThisJvm() {
    int feature = Runtime.version().feature();
    return feature >= fromJdk && feature <= untilJdk;
  }

  /** The binary name of the declaring class, e.g. {@code a.b.Outer$Inner}. */
  public String owner() {
    return owner;
  }

  public String name() {
    return name;
  }

  /** Resolves the member now; throws naming it when it is missing or has another shape. */
  public abstract void check() throws ReflectiveOperationException;

  final Class<?> ownerClass() throws ClassNotFoundException {
    return Class.forName(owner, false, HiddenMember.class.getClassLoader());
  }

  @Override
  public String toString() {
    return owner + "#" + name;
  }
}
