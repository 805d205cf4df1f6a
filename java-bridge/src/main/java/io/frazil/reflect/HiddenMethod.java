package io.frazil.reflect;

import java.lang.reflect.Method;

/** A private method without parameters; see {@link HiddenMember}. */
public final class HiddenMethod extends HiddenMember {
  private volatile Method method;

  private HiddenMethod(String owner, String name) {
    super(owner, name);
  }

  static HiddenMethod of(String owner, String name) {
    return new HiddenMethod(owner, name);
  }

  /**
   * Calls the method on {@code target}; what the method throws arrives wrapped in an {@link
   * java.lang.reflect.InvocationTargetException}, so callers fall back like for a missing member.
   */
  public Object invoke(Object target) throws ReflectiveOperationException {
    return resolve().invoke(target);
  }

  @Override
  public void check() throws ReflectiveOperationException {
    resolve();
  }

  private Method resolve() throws ReflectiveOperationException {
    Method resolved = method;
    if (resolved == null) {
      try {
        resolved = ownerClass().getDeclaredMethod(name());
      } catch (NoSuchMethodException e) {
        throw new NoSuchMethodException(this + "(): no such method");
      }
      resolved.setAccessible(true);
      method = resolved;
    }
    return resolved;
  }
}
