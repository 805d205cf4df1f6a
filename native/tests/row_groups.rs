//! Files of several row groups: split offsets, bounds merged across row groups, and the
//! dictionary decision per column chunk.

mod common;

use std::sync::Arc;

use arrow::array::{
    BooleanArray, Date32Array, Decimal128Array, Float64Array, Int64Array, RecordBatch, StringArray,
};
use arrow::datatypes::DataType;
use frazil::stats::FileSummary;
use parquet::file::metadata::ParquetMetaData;

use common::columns::*;
use common::files::*;
use common::{field, schema_of};

/// Deterministic values (xorshift) so failures reproduce.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
}

#[test]
fn small_row_groups_split_offsets_and_merged_bounds() {
    let schema = schema_of(vec![
        field("id", DataType::Int64, false, 1),
        field("name", DataType::Utf8, true, 2),
        field("amount", DataType::Decimal128(20, 2), true, 3),
        field("score", DataType::Float64, true, 4),
        field("day", DataType::Date32, true, 5),
        field("flag", DataType::Boolean, true, 6),
    ]);
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let mut batches = Vec::new();
    let (mut ids, mut names, mut amounts, mut scores, mut days) =
        (vec![], vec![], vec![], vec![], vec![]);
    for b in 0..24 {
        let rows = 300;
        let id: Vec<i64> = (0..rows).map(|i| (b * rows + i) as i64 - 3000).collect();
        let name: Vec<Option<String>> = (0..rows)
            .map(|_| {
                let r = rng.next();
                (!r.is_multiple_of(11))
                    .then(|| format!("n{:x}-{}", r >> 40, "ü".repeat((r % 4) as usize)))
            })
            .collect();
        let amount: Vec<Option<i128>> = (0..rows)
            .map(|_| {
                // Within decimal(20, 2): |v| < 10^19.
                let r = (rng.next() as i64 as i128) % 10i128.pow(19);
                (r % 13 != 0).then_some(r)
            })
            .collect();
        let score: Vec<Option<f64>> = (0..rows)
            .map(|_| {
                let r = rng.next();
                match r % 17 {
                    0 => None,
                    1 => Some(f64::NAN),
                    _ => Some((r >> 11) as f64 / (1u64 << 53) as f64 * 2000.0 - 1000.0),
                }
            })
            .collect();
        let day: Vec<Option<i32>> = (0..rows)
            .map(|_| Some((rng.next() % 40_000) as i32 - 20_000))
            .collect();
        let flag: Vec<Option<bool>> = (0..rows).map(|i| Some(b > 0 || i > 0)).collect();
        batches.push(batch_of(
            &schema,
            vec![
                Arc::new(Int64Array::from(id.clone())),
                Arc::new(StringArray::from(name.clone())),
                Arc::new(
                    Decimal128Array::from(amount.clone())
                        .with_precision_and_scale(20, 2)
                        .unwrap(),
                ),
                Arc::new(Float64Array::from(score.clone())),
                Arc::new(Date32Array::from(day.clone())),
                Arc::new(BooleanArray::from(flag)),
            ],
        ));
        ids.extend(id);
        names.extend(name.into_iter().flatten());
        amounts.extend(amount.into_iter().flatten());
        scores.extend(score);
        days.extend(day.into_iter().flatten());
    }
    let properties = props(&[("write.parquet.row-group-size-bytes", "1024")]);
    let (file, summary) = roundtrip(&schema, &batches, properties);
    let md = metadata_of(&file);
    assert!(
        md.num_row_groups() > 3,
        "{} row groups",
        md.num_row_groups()
    );
    assert_eq!(summary.split_offsets.len(), md.num_row_groups());
    assert_eq!(summary.record_count, ids.len() as i64);
    let rows_in_groups: i64 = md.row_groups().iter().map(|rg| rg.num_rows()).sum();
    assert_eq!(rows_in_groups, ids.len() as i64);

    let id_bounds = (ids.iter().min().unwrap(), ids.iter().max().unwrap());
    assert_metrics(
        column(&summary, 1),
        (ids.len() as i64, 0),
        Some(&id_bounds.0.to_le_bytes()),
        Some(&id_bounds.1.to_le_bytes()),
    );
    let name_lo = names.iter().map(String::as_bytes).min().unwrap();
    let name_hi = names.iter().map(String::as_bytes).max().unwrap();
    let name_nulls = ids.len() - names.len();
    assert_metrics(
        column(&summary, 2),
        (ids.len() as i64, name_nulls as i64),
        Some(name_lo),
        Some(name_hi),
    );
    let amount_nulls = ids.len() - amounts.len();
    assert_metrics(
        column(&summary, 3),
        (ids.len() as i64, amount_nulls as i64),
        Some(&min_be(*amounts.iter().min().unwrap())),
        Some(&min_be(*amounts.iter().max().unwrap())),
    );
    let finite: Vec<f64> = scores
        .iter()
        .flatten()
        .copied()
        .filter(|v| !v.is_nan())
        .collect();
    let lo = finite.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = finite.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let s = column(&summary, 4);
    assert_eq!(
        s.nan_count,
        scores.iter().flatten().filter(|v| v.is_nan()).count() as i64
    );
    assert_metrics(
        s,
        (
            ids.len() as i64,
            scores.iter().filter(|v| v.is_none()).count() as i64,
        ),
        Some(&lo.to_le_bytes()),
        Some(&hi.to_le_bytes()),
    );
    assert_metrics(
        column(&summary, 5),
        (ids.len() as i64, 0),
        Some(&days.iter().min().unwrap().to_le_bytes()),
        Some(&days.iter().max().unwrap().to_le_bytes()),
    );
    // Only the very first row holds `false`.
    assert_metrics(
        column(&summary, 6),
        (ids.len() as i64, 0),
        Some(&[0]),
        Some(&[1]),
    );
}

#[test]
fn split_offsets_use_dictionary_page_when_first() {
    // A low-cardinality first column is dictionary-encoded: its chunks start with the
    // dictionary page, and that is where each split begins.
    let schema = schema_of(vec![
        field("c", DataType::Utf8, false, 1),
        field("v", DataType::Int64, false, 2),
    ]);
    let batches: Vec<RecordBatch> = (0..8)
        .map(|b| {
            let c: Vec<&str> = (0..400).map(|i| ["x", "y", "z"][(i + b) % 3]).collect();
            let v: Vec<i64> = (0..400).map(|i| (b * 400 + i) as i64).collect();
            batch_of(
                &schema,
                vec![
                    Arc::new(StringArray::from(c)),
                    Arc::new(Int64Array::from(v)),
                ],
            )
        })
        .collect();
    let properties = props(&[("write.parquet.row-group-size-bytes", "1024")]);
    let (file, summary) = roundtrip(&schema, &batches, properties);
    let md = metadata_of(&file);
    assert!(md.num_row_groups() > 1);
    for (rg, split) in md.row_groups().iter().zip(&summary.split_offsets) {
        let first = rg.column(0);
        let dict = first.dictionary_page_offset().expect("dictionary page");
        assert!(dict < first.data_page_offset());
        assert_eq!(*split, dict);
    }
}

fn uuid_file(batches_of_uuids: &[Vec<Option<[u8; 16]>>]) -> (FileSummary, Arc<ParquetMetaData>) {
    let schema = schema_of(vec![uuid_field("u", 1)]);
    let batches: Vec<RecordBatch> = batches_of_uuids
        .iter()
        .map(|v| batch_of(&schema, vec![uuid_array(v)]))
        .collect();
    // Plain encoding, so 200 equal uuids (3200 bytes) overflow a 1 KiB row group.
    let properties = props(&[
        ("write.parquet.row-group-size-bytes", "1024"),
        ("parquet.enable.dictionary", "false"),
    ]);
    let (file, summary) = roundtrip(&schema, &batches, properties);
    (summary, metadata_of(&file))
}

#[test]
fn uuid_bounds_merge_signed_across_row_groups() {
    // Each batch holds one distinct uuid and is large enough to become its own row group, so
    // every chunk's min == max and only the cross-row-group merge decides the bounds.
    let high_bit = uuid_bytes(0x8000_0000_0000_0001, 5); // negative msb: the signed minimum
    let small = uuid_bytes(0x1000_0000_0000_0000, 0);
    let large = uuid_bytes(0x7000_0000_0000_0000, 0x8000_0000_0000_0000);
    let batches: Vec<Vec<Option<[u8; 16]>>> = [small, high_bit, large]
        .iter()
        .map(|u| vec![Some(*u); 200])
        .collect();
    let (summary, md) = uuid_file(&batches);
    assert_eq!(md.num_row_groups(), 3);
    let c = column(&summary, 1);
    assert_eq!(
        c.lower.as_deref(),
        Some(&high_bit[..]),
        "signed msb: 0x80.. is smallest"
    );
    assert_eq!(c.upper.as_deref(), Some(&large[..]));

    // lsb is compared signed too.
    let a = uuid_bytes(0x10, 0x8000_0000_0000_0000); // negative lsb
    let b = uuid_bytes(0x10, 0x0000_0000_0000_0001);
    let batches: Vec<Vec<Option<[u8; 16]>>> = [b, a].iter().map(|u| vec![Some(*u); 200]).collect();
    let (summary, md) = uuid_file(&batches);
    assert_eq!(md.num_row_groups(), 2);
    let c = column(&summary, 1);
    assert_eq!(c.lower.as_deref(), Some(&a[..]));
    assert_eq!(c.upper.as_deref(), Some(&b[..]));
}

// ---------------------------------------------------------------------------------------------
// Dictionary decision (parquet-java's first-page rule)
// ---------------------------------------------------------------------------------------------

#[test]
fn distinct_values_skip_the_dictionary_repeated_values_keep_it() {
    let (distinct, _) = int64_col("distinct", 1);
    let (repeated, _) = int64_col("repeated", 2);
    let schema = schema_of(vec![distinct, repeated]);
    // Several batches smaller than a page: the decision waits for a page's worth of rows.
    let batches: Vec<RecordBatch> = (0..5)
        .map(|b| {
            let start = b * 8192;
            batch_of(
                &schema,
                vec![
                    Arc::new(Int64Array::from_iter_values(start..start + 8192)),
                    Arc::new(Int64Array::from_iter_values(
                        (start..start + 8192).map(|i| i % 100),
                    )),
                ],
            )
        })
        .collect();
    let (file, summary) = roundtrip(&schema, &batches, props(&[]));
    assert_eq!(summary.record_count, 5 * 8192);
    let md = metadata_of(&file);
    for rg in md.row_groups() {
        assert!(
            rg.column(0).dictionary_page_offset().is_none(),
            "distinct longs are written plain"
        );
        assert!(
            rg.column(1).dictionary_page_offset().is_some(),
            "repeated longs keep their dictionary"
        );
    }
}
