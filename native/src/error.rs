//! The crate's one error type.
//!
//! Variants name what was being done when the failure happened; the JNI layer maps each kind to a
//! Java exception class in [`crate::jni::exception`], so the mapping lives in one place.

use std::any::Any;

use arrow::error::ArrowError;
use parquet::errors::ParquetError;

/// Every failure the encoder can report.
#[derive(Debug, thiserror::Error)]
pub enum NativeError {
    /// The caller passed something the encoder cannot accept (bad schema, bad property value,
    /// a batch that does not match the writer, a null in a required column).
    #[error("{0}")]
    InvalidArgument(String),

    /// The call is not valid in the writer's current state (closed writer, freed handle).
    #[error("{0}")]
    InvalidState(String),

    /// A type or setting the encoder does not reproduce exactly.
    #[error("unsupported: {0}")]
    Unsupported(String),

    /// Arrow rejected the data while importing or validating `context`.
    #[error("{context}: {source}")]
    Arrow {
        context: String,
        #[source]
        source: ArrowError,
    },

    /// Native code panicked (on an encoder thread, or while closing a column chunk); reported
    /// like an encoder failure, never as a misuse of the writer.
    #[error("{0}")]
    Panicked(String),

    /// A Parquet file could not be decoded while `context` (corrupt or truncated data, a page
    /// the decoder does not support).
    #[error("{context}: {source}")]
    Decode {
        context: String,
        #[source]
        source: ParquetError,
    },

    /// The Parquet encoder failed while `context`.
    #[error("{context}: {source}")]
    Parquet {
        context: String,
        #[source]
        source: ParquetError,
    },
}

/// Result alias used throughout the crate.
pub type Result<T, E = NativeError> = std::result::Result<T, E>;

impl NativeError {
    pub(crate) fn arrow(context: impl Into<String>, source: ArrowError) -> Self {
        // Arrow reports a null in a non-nullable column as an invalid argument; keep that kind so
        // Java sees IllegalArgumentException rather than a generic writer failure.
        NativeError::Arrow {
            context: context.into(),
            source,
        }
    }

    /// A panic caught on an encoder thread while `context`, reported like any other failure.
    pub(crate) fn panicked(context: &str, payload: &(dyn Any + Send)) -> Self {
        NativeError::Panicked(format!(
            "native panic while {context}: {}",
            panic_text(payload)
        ))
    }

    pub(crate) fn decode(context: impl Into<String>, source: ParquetError) -> Self {
        NativeError::Decode {
            context: context.into(),
            source,
        }
    }

    pub(crate) fn parquet(context: impl Into<String>, source: ParquetError) -> Self {
        NativeError::Parquet {
            context: context.into(),
            source,
        }
    }
}

impl From<jni::errors::Error> for NativeError {
    fn from(err: jni::errors::Error) -> Self {
        NativeError::InvalidState(format!("JNI call failed: {err}"))
    }
}

/// The message a panic carried (`panic!` with a literal or a formatted string).
pub(crate) fn panic_text(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&'static str>()
        .map(|s| (*s).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "non-string panic payload".to_string())
}
