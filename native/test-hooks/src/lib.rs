//! `libfrazil_test_hooks.so`: the release `libfrazil.so` plus exports that fail on purpose, for
//! Java tests only. It is never bundled into a jar: the production library has no test export.
//!
//! It links `frazil-native` as an rlib, so every `Java_io_frazil_jni_NativeParquetWriter_*`
//! export of the production library is exported from here too (built from the same compiled
//! crates). A Java test loads it with `-Dfrazil.native.path=…/libfrazil_test_hooks.so` and calls
//! the exports below through `io.frazil.jni.NativeTestHooks` (java-bridge's test sources).

use frazil::error::Result;
use frazil::jni::exception::{install_panic_hook, ThrowJava};
use jni::objects::{JByteArray, JClass};
use jni::EnvUnowned;

/// `static native void panic(byte[] message)` of `io.frazil.jni.NativeTestHooks`: panics on
/// purpose inside the same `with_env` + [`ThrowJava`] path every production export uses, so a
/// test can prove a panic becomes a `NativeWriterException` and the JVM lives on.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_frazil_jni_NativeTestHooks_panic<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    message: JByteArray<'local>,
) {
    install_panic_hook();
    env.with_env(|env| -> Result<()> {
        let text = String::from_utf8_lossy(&env.convert_byte_array(&message)?).into_owned();
        panic!("{text}");
    })
    .resolve::<ThrowJava>()
}
