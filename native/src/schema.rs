//! The Parquet schema Iceberg Java writes, derived from the Arrow schema Java hands over.
//!
//! arrow-rs's own Arrow→Parquet conversion differs from Iceberg's `TypeToMessageType` in a few
//! places (decimal(1, s) becomes INT64, uuid loses its annotation, lists name their element
//! `item`, the root is `arrow_schema`), so the schema is built here explicitly and handed to the
//! encoder's `SerializedFileWriter` (see `encoder::ColumnParallelEncoder::try_new`), whose
//! column writers then follow it. The rules, per Iceberg type:
//!
//! | Arrow (from Java)                  | Parquet                                          |
//! |------------------------------------|--------------------------------------------------|
//! | Boolean / Int32 / Int64            | BOOLEAN / INT32 / INT64, no annotation           |
//! | Float32 / Float64                  | FLOAT / DOUBLE                                   |
//! | Decimal128(p, s)                   | INT32 (p ≤ 9), INT64 (p ≤ 18), else FLBA; DECIMAL |
//! | Date32                             | INT32 DATE                                       |
//! | Time64(µs)                         | INT64 TIME(false, MICROS)                        |
//! | Timestamp(µs or ns, tz?)           | INT64 TIMESTAMP(tz present, MICROS or NANOS)     |
//! | Utf8 / Binary                      | BINARY STRING / BINARY                           |
//! | FixedSizeBinary(n)                 | FLBA(n); UUID when the field is marked uuid      |
//! | Struct / List / Map                | group / 3-level LIST / MAP with `key_value`      |
//!
//! Every node except the synthetic `list` and `key_value` groups carries its Iceberg field id,
//! read from the Arrow field's `PARQUET:field_id` metadata.

use std::sync::Arc;

use arrow::datatypes::{DataType, Field, Schema, TimeUnit};
use parquet::basic::{
    ConvertedType, DecimalType, LogicalType, Repetition, TimeType, TimeUnit as ParquetTimeUnit,
    TimestampType, Type as PhysicalType,
};
use parquet::schema::types::{SchemaDescriptor, Type, TypePtr};

use crate::error::{NativeError, Result};

/// Arrow field metadata key carrying the Iceberg field id (the key arrow-rs also reads).
pub const FIELD_ID_KEY: &str = "PARQUET:field_id";
/// Arrow field metadata key carrying an Iceberg type Arrow cannot express (`uuid`).
pub const ICEBERG_TYPE_KEY: &str = "iceberg:type";

/// Name of the root message, as Iceberg's `Parquet.WriteBuilder` writes it.
pub const ROOT_NAME: &str = "table";

/// Builds the Iceberg-conformant Parquet schema for `schema`.
pub fn parquet_schema(schema: &Schema) -> Result<SchemaDescriptor> {
    let fields = schema
        .fields()
        .iter()
        .map(|f| convert_field(f, f.name()))
        .collect::<Result<Vec<_>>>()?;
    let root = Type::group_type_builder(ROOT_NAME)
        .with_fields(fields)
        .build()
        .map_err(|e| NativeError::parquet("building the root schema", e))?;
    Ok(SchemaDescriptor::new(Arc::new(root)))
}

/// The Iceberg field id on an Arrow field, if present and numeric.
pub fn field_id(field: &Field) -> Option<i32> {
    field
        .metadata()
        .get(FIELD_ID_KEY)
        .and_then(|v| v.parse().ok())
}

/// True when the Arrow field is marked as an Iceberg `uuid`.
pub fn is_uuid(field: &Field) -> bool {
    field
        .metadata()
        .get(ICEBERG_TYPE_KEY)
        .is_some_and(|t| t == "uuid")
}

fn repetition(field: &Field) -> Repetition {
    if field.is_nullable() {
        Repetition::OPTIONAL
    } else {
        Repetition::REQUIRED
    }
}

fn convert_field(field: &Field, name: &str) -> Result<TypePtr> {
    let id = field_id(field);
    if id.is_none() {
        return Err(NativeError::InvalidArgument(format!(
            "field '{name}' has no {FIELD_ID_KEY} metadata; every Iceberg field needs its id"
        )));
    }
    let rep = repetition(field);
    let built = match field.data_type() {
        DataType::Struct(children) => {
            let fields = children
                .iter()
                .map(|c| convert_field(c, c.name()))
                .collect::<Result<Vec<_>>>()?;
            Type::group_type_builder(name)
                .with_repetition(rep)
                .with_id(id)
                .with_fields(fields)
                .build()
        }
        DataType::List(element) => {
            let element = convert_field(element, "element")?;
            let list = Type::group_type_builder("list")
                .with_repetition(Repetition::REPEATED)
                .with_fields(vec![element])
                .build()
                .map_err(|e| NativeError::parquet(format!("building list '{name}'"), e))?;
            Type::group_type_builder(name)
                .with_repetition(rep)
                .with_logical_type(Some(LogicalType::List))
                .with_converted_type(ConvertedType::LIST)
                .with_id(id)
                .with_fields(vec![Arc::new(list)])
                .build()
        }
        DataType::Map(entries, _) => {
            let DataType::Struct(kv) = entries.data_type() else {
                return Err(NativeError::InvalidArgument(format!(
                    "map '{name}' entries must be a struct"
                )));
            };
            if kv.len() != 2 {
                return Err(NativeError::InvalidArgument(format!(
                    "map '{name}' entries must have a key and a value"
                )));
            }
            let key = convert_field(&kv[0], "key")?;
            let value = convert_field(&kv[1], "value")?;
            let key_value = Type::group_type_builder("key_value")
                .with_repetition(Repetition::REPEATED)
                .with_fields(vec![key, value])
                .build()
                .map_err(|e| NativeError::parquet(format!("building map '{name}'"), e))?;
            Type::group_type_builder(name)
                .with_repetition(rep)
                .with_logical_type(Some(LogicalType::Map))
                .with_converted_type(ConvertedType::MAP)
                .with_id(id)
                .with_fields(vec![Arc::new(key_value)])
                .build()
        }
        data_type => primitive(field, name, data_type, rep, id)?.build(),
    };
    built
        .map(Arc::new)
        .map_err(|e| NativeError::parquet(format!("building the Parquet type of '{name}'"), e))
}

fn primitive<'a>(
    field: &Field,
    name: &'a str,
    data_type: &DataType,
    rep: Repetition,
    id: Option<i32>,
) -> Result<parquet::schema::types::PrimitiveTypeBuilder<'a>> {
    use PhysicalType as P;
    let (physical, logical, length) = match data_type {
        DataType::Boolean => (P::BOOLEAN, None, None),
        DataType::Int32 => (P::INT32, None, None),
        DataType::Int64 => (P::INT64, None, None),
        DataType::Float32 => (P::FLOAT, None, None),
        DataType::Float64 => (P::DOUBLE, None, None),
        DataType::Date32 => (P::INT32, Some(LogicalType::Date), None),
        DataType::Time64(TimeUnit::Microsecond) => (
            P::INT64,
            Some(LogicalType::Time(TimeType {
                is_adjusted_to_u_t_c: false,
                unit: ParquetTimeUnit::MICROS,
            })),
            None,
        ),
        DataType::Timestamp(unit @ (TimeUnit::Microsecond | TimeUnit::Nanosecond), tz) => {
            let unit = if *unit == TimeUnit::Microsecond {
                ParquetTimeUnit::MICROS
            } else {
                ParquetTimeUnit::NANOS
            };
            (
                P::INT64,
                Some(LogicalType::Timestamp(TimestampType {
                    is_adjusted_to_u_t_c: tz.is_some(),
                    unit,
                })),
                None,
            )
        }
        DataType::Utf8 => (P::BYTE_ARRAY, Some(LogicalType::String), None),
        DataType::Binary => (P::BYTE_ARRAY, None, None),
        DataType::FixedSizeBinary(n) => {
            let logical = if is_uuid(field) {
                if *n != 16 {
                    return Err(NativeError::InvalidArgument(format!(
                        "uuid field '{name}' must be FixedSizeBinary(16), got {n}"
                    )));
                }
                Some(LogicalType::Uuid)
            } else {
                None
            };
            (P::FIXED_LEN_BYTE_ARRAY, logical, Some(*n))
        }
        DataType::Decimal128(precision, scale) => {
            let (p, s) = (i32::from(*precision), i32::from(*scale));
            let logical = Some(LogicalType::Decimal(DecimalType {
                scale: s,
                precision: p,
            }));
            let builder = match p {
                1..=9 => Type::primitive_type_builder(name, P::INT32),
                10..=18 => Type::primitive_type_builder(name, P::INT64),
                19..=38 => Type::primitive_type_builder(name, P::FIXED_LEN_BYTE_ARRAY)
                    .with_length(decimal_required_bytes(p)),
                _ => {
                    return Err(NativeError::Unsupported(format!(
                        "decimal precision {p} of '{name}' (Iceberg allows 1..=38)"
                    )))
                }
            };
            return Ok(builder
                .with_repetition(rep)
                .with_logical_type(logical)
                .with_precision(p)
                .with_scale(s)
                .with_id(id));
        }
        other => {
            return Err(NativeError::Unsupported(format!(
                "Arrow type {other} of field '{name}' has no Iceberg Parquet mapping"
            )))
        }
    };
    let mut builder = Type::primitive_type_builder(name, physical)
        .with_repetition(rep)
        .with_logical_type(logical)
        .with_id(id);
    if let Some(n) = length {
        builder = builder.with_length(n);
    }
    Ok(builder)
}

/// Bytes of a FIXED decimal of `precision` digits: the smallest n with 2^(8n-1) > 10^precision
/// (Iceberg's `TypeUtil.decimalRequiredBytes`).
pub fn decimal_required_bytes(precision: i32) -> i32 {
    (1..=16)
        .find(|n| (8.0 * f64::from(*n) - 1.0) * 2f64.log10() >= f64::from(precision))
        .unwrap_or(16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_lengths_match_iceberg() {
        let expected = [
            9, 9, 9, 10, 10, 11, 11, 11, 12, 12, 13, 13, 13, 14, 14, 15, 15, 16, 16, 16,
        ];
        for (i, want) in expected.iter().enumerate() {
            assert_eq!(
                decimal_required_bytes(19 + i as i32),
                *want,
                "precision {}",
                19 + i
            );
        }
    }
}
