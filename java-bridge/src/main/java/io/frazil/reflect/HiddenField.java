package io.frazil.reflect;

import java.lang.reflect.Field;

/** A private field, read and written without Java access checks; see {@link HiddenMember}. */
public final class HiddenField extends HiddenMember {
  private final String type;
  private volatile Field field;

  private HiddenField(String owner, String name, String type) {
    super(owner, name);
    this.type = type;
  }

  /** The field {@code name} declared by {@code owner}, of exactly the class named {@code type}. */
  public static HiddenField of(String owner, String name, String type) {
    return new HiddenField(owner, name, type);
  }

  /** Reads the field of {@code target} (or the static field when {@code target} is null). */
  @SuppressWarnings("unchecked")
  public <T> T get(Object target) throws ReflectiveOperationException {
    return (T) resolve().get(target);
  }

  public int getInt(Object target) throws ReflectiveOperationException {
    return resolve().getInt(target);
  }

  public void set(Object target, Object value) throws ReflectiveOperationException {
    resolve().set(target, value);
  }

  @Override
  public void check() throws ReflectiveOperationException {
    resolve();
  }

  private Field resolve() throws ReflectiveOperationException {
    Field resolved = field;
    if (resolved == null) {
      try {
        resolved = ownerClass().getDeclaredField(name());
      } catch (NoSuchFieldException e) {
        throw new NoSuchFieldException(this + ": no such field");
      }
      if (!resolved.getType().getName().equals(type)) {
        throw new NoSuchFieldException(
            this + ": expected type " + type + ", found " + resolved.getType().getName());
      }
      resolved.setAccessible(true);
      field = resolved;
    }
    return resolved;
  }
}
