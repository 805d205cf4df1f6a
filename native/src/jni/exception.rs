//! The one place where Rust failures become Java exceptions.
//!
//! Every export runs its body through [`EnvUnowned::with_env`](jni::EnvUnowned::with_env),
//! which catches panics, and resolves the outcome with [`ThrowJava`]:
//!
//! | Rust                                   | Java                                        |
//! |----------------------------------------|---------------------------------------------|
//! | `InvalidArgument`, `Arrow`             | `java.lang.IllegalArgumentException`        |
//! | `InvalidState`                         | `java.lang.IllegalStateException`           |
//! | `Unsupported`                          | `java.lang.UnsupportedOperationException`   |
//! | `Parquet`, `Panicked`, any panic       | `io.frazil.jni.NativeWriterException`       |
//! | `Decode` (reading a file)              | `io.frazil.jni.NativeReaderException`       |
//!
//! An exception already pending (for example one raised by a JNI call inside the body) is left
//! alone rather than replaced. Imported Arrow values are dropped when the body returns, before
//! anything is thrown, because arrow-java's release callback clears pending exceptions.

use std::any::Any;
use std::cell::RefCell;
use std::sync::Once;

use jni::errors::ErrorPolicy;
use jni::strings::JNIString;
use jni::Env;

use crate::error::NativeError;

/// Java class thrown for encoder failures and panics.
pub const NATIVE_WRITER_EXCEPTION: &str = "io/frazil/jni/NativeWriterException";

/// Java class thrown when a Parquet file cannot be decoded.
pub const NATIVE_READER_EXCEPTION: &str = "io/frazil/jni/NativeReaderException";

thread_local! {
    /// Where the last panic on this thread happened, captured by the hook for the message.
    static PANIC_LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Installs (once) a panic hook that records the panic location for the Java message instead of
/// printing to the TaskManager's stderr; other threads' panics keep the default report.
pub fn install_panic_hook() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let default_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let location = info
                .location()
                .map(|l| format!("{}:{}", l.file(), l.line()));
            let recorded = PANIC_LOCATION.try_with(|slot| *slot.borrow_mut() = location.clone());
            if recorded.is_err() {
                default_hook(info);
            }
        }));
    });
}

/// The error policy every export resolves with.
#[derive(Debug, Default)]
pub struct ThrowJava;

fn java_class(err: &NativeError) -> &'static str {
    match err {
        NativeError::InvalidArgument(_) | NativeError::Arrow { .. } => {
            "java/lang/IllegalArgumentException"
        }
        NativeError::InvalidState(_) => "java/lang/IllegalStateException",
        NativeError::Unsupported(_) => "java/lang/UnsupportedOperationException",
        NativeError::Parquet { .. } | NativeError::Panicked(_) => NATIVE_WRITER_EXCEPTION,
        NativeError::Decode { .. } => NATIVE_READER_EXCEPTION,
    }
}

fn throw(env: &mut Env<'_>, class: &str, message: String) {
    if env.exception_check() {
        return;
    }
    // `throw_new` reports the (successfully) pending exception as an Err; nothing to do with it.
    let _ = env.throw_new(JNIString::from(class), JNIString::from(message));
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    let text = crate::error::panic_text(payload);
    let location = PANIC_LOCATION
        .try_with(|slot| slot.borrow_mut().take())
        .ok()
        .flatten();
    match location {
        Some(at) => format!("native panic: {text} (at {at})"),
        None => format!("native panic: {text}"),
    }
}

impl<T: Default> ErrorPolicy<T, NativeError> for ThrowJava {
    type Captures<'unowned_env_local: 'native_method, 'native_method> = ();

    fn on_error<'unowned_env_local: 'native_method, 'native_method>(
        env: &mut Env<'unowned_env_local>,
        _cap: &mut Self::Captures<'unowned_env_local, 'native_method>,
        err: NativeError,
    ) -> jni::errors::Result<T> {
        throw(env, java_class(&err), err.to_string());
        Ok(T::default())
    }

    fn on_panic<'unowned_env_local: 'native_method, 'native_method>(
        env: &mut Env<'unowned_env_local>,
        _cap: &mut Self::Captures<'unowned_env_local, 'native_method>,
        payload: Box<dyn Any + Send + 'static>,
    ) -> jni::errors::Result<T> {
        let message = panic_message(payload.as_ref());
        // Dropping a payload can itself panic; leak it rather than unwind into the JVM.
        std::mem::forget(payload);
        throw(env, NATIVE_WRITER_EXCEPTION, message);
        Ok(T::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panics_and_encoder_failures_map_to_native_writer_exception() {
        let panicked = NativeError::panicked("encoding a column", &"boom");
        assert_eq!(java_class(&panicked), NATIVE_WRITER_EXCEPTION);
        let parquet = NativeError::parquet(
            "closing a row group",
            parquet::errors::ParquetError::General("bad".into()),
        );
        assert_eq!(java_class(&parquet), NATIVE_WRITER_EXCEPTION);
        assert_eq!(
            java_class(&NativeError::InvalidState("closed".into())),
            "java/lang/IllegalStateException"
        );
    }
}
