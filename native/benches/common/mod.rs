//! The Nexmark-like `bid` batches and whole-file writes shared by the `encode` bench and the
//! `bid_write` and `column_costs` examples.

use std::collections::HashMap;
use std::sync::Arc;

use arrow::array::{ArrayRef, Int64Array, RecordBatch, StringArray, TimestampMicrosecondArray};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef, TimeUnit};
use frazil::schema::FIELD_ID_KEY;

pub const ROWS: usize = 1 << 20;
pub const BATCH_ROWS: usize = 8192;
const SEED: u64 = 0x5EED_1CEB_00DA_D00D;

/// xorshift64*: tiny, deterministic, good enough for synthetic data.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn field(name: &str, data_type: DataType, id: i32) -> Field {
    Field::new(name, data_type, false)
        .with_metadata(HashMap::from([(FIELD_ID_KEY.to_string(), id.to_string())]))
}

pub fn bid_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        field("auction", DataType::Int64, 1),
        field("bidder", DataType::Int64, 2),
        field("price", DataType::Int64, 3),
        field("channel", DataType::Utf8, 4),
        field("url", DataType::Utf8, 5),
        field(
            "date_time",
            DataType::Timestamp(TimeUnit::Microsecond, None),
            6,
        ),
        field("extra", DataType::Utf8, 7),
    ]))
}

const CHANNELS: [&str; 4] = ["Google", "Facebook", "Baidu", "Apple"];
const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

fn random_word(rng: &mut XorShift, len: usize) -> String {
    (0..len)
        .map(|_| ALPHABET[rng.below(ALPHABET.len() as u64) as usize] as char)
        .collect()
}

/// Nexmark's generator shape: hot auctions/bidders, a few well-known channels plus a long tail,
/// monotonically advancing event time, and a 50–100 byte `extra` payload.
pub fn bid_batches() -> (SchemaRef, Vec<RecordBatch>) {
    let schema = bid_schema();
    let mut rng = XorShift(SEED);
    let mut event_time: i64 = 1_700_000_000_000_000;
    let mut batches = Vec::with_capacity(ROWS / BATCH_ROWS);
    for b in 0..ROWS / BATCH_ROWS {
        let base = (b * BATCH_ROWS) as u64;
        let mut auction = Vec::with_capacity(BATCH_ROWS);
        let mut bidder = Vec::with_capacity(BATCH_ROWS);
        let mut price = Vec::with_capacity(BATCH_ROWS);
        let mut channel = Vec::with_capacity(BATCH_ROWS);
        let mut url = Vec::with_capacity(BATCH_ROWS);
        let mut date_time = Vec::with_capacity(BATCH_ROWS);
        let mut extra = Vec::with_capacity(BATCH_ROWS);
        for i in 0..BATCH_ROWS as u64 {
            let event = base + i;
            let hot = rng.below(100) < 90;
            auction.push(if hot {
                (event / 50) as i64 + 1000
            } else {
                rng.below(event / 50 + 1) as i64 + 1000
            });
            bidder.push(if hot {
                (event / 10) as i64 + 1000
            } else {
                rng.below(event / 10 + 1) as i64 + 1000
            });
            price.push((rng.below(10_000) as f64).powf(1.3) as i64 + 1);
            let c = rng.below(10_000);
            let (name, link) = if c < 9_000 {
                let name = CHANNELS[(c % 4) as usize];
                (
                    name.to_string(),
                    format!("https://www.nexmark.com/{name}/item.htm?query=1"),
                )
            } else {
                (
                    format!("channel-{c}"),
                    format!(
                        "https://www.nexmark.com/{}/{}/{}/item.htm?query=1&channel_id={c}",
                        random_word(&mut rng, 5),
                        random_word(&mut rng, 5),
                        random_word(&mut rng, 5),
                    ),
                )
            };
            channel.push(name);
            url.push(link);
            event_time += rng.below(20) as i64;
            date_time.push(event_time);
            let len = 50 + rng.below(51) as usize;
            extra.push(random_word(&mut rng, len));
        }
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from(auction)),
            Arc::new(Int64Array::from(bidder)),
            Arc::new(Int64Array::from(price)),
            Arc::new(StringArray::from(channel)),
            Arc::new(StringArray::from(url)),
            Arc::new(TimestampMicrosecondArray::from(date_time)),
            Arc::new(StringArray::from(extra)),
        ];
        batches.push(RecordBatch::try_new(schema.clone(), columns).expect("valid batch"));
    }
    (schema, batches)
}

/// Writes `batches` as one file with the encoder itself, as the writer sets it up by default
/// (Zstd 3, the first batch choosing the dictionary columns): with `own_compression`, Frazil
/// compresses the Zstd pages (reused contexts; `extra`'s random text on the encoder threads),
/// else arrow-rs's column writers do. Returns the file's length.
#[allow(dead_code)] // The bench and the examples each use part of this module.
pub fn encode_with_encoder(
    schema: &SchemaRef,
    batches: &[RecordBatch],
    own_compression: bool,
) -> usize {
    encode_with(schema, batches, "zstd", own_compression, None)
}

/// [`encode_with_encoder`] with `codec` (`write.parquet.compression-codec`) and, when given, that
/// many encoder threads instead of the process's.
#[allow(dead_code)]
pub fn encode_with(
    schema: &SchemaRef,
    batches: &[RecordBatch],
    codec: &str,
    own_compression: bool,
    threads: Option<usize>,
) -> usize {
    use frazil::encoder::ColumnParallelEncoder;
    use frazil::options::WriterOptions;
    use frazil::output::OutputBuffer;

    let options = WriterOptions::from_properties(HashMap::from([(
        "write.parquet.compression-codec".to_string(),
        codec.to_string(),
    )]));
    let descriptor = frazil::schema::parquet_schema(schema).expect("schema");
    let no_dictionary = frazil::dictionary::columns_without_dictionary_benefit(&batches[..1]);
    let properties = options
        .to_writer_properties(&descriptor, &no_dictionary)
        .expect("properties");
    let mut encoder = ColumnParallelEncoder::try_new_with_own_compression(
        OutputBuffer::default(),
        schema.clone(),
        &descriptor,
        properties,
        options.row_group_bytes().expect("row group size"),
        own_compression,
    )
    .expect("encoder");
    if let Some(threads) = threads {
        encoder = encoder.with_threads(threads);
    }
    let mut chunk = vec![0u8; 1 << 20];
    let mut length = 0;
    for batch in batches {
        encoder.write(batch).expect("write");
        length += encoder.inner_mut().drain_into(&mut chunk);
    }
    encoder.finish().expect("finish");
    while encoder.inner_mut().pending() > 0 {
        length += encoder.inner_mut().drain_into(&mut chunk);
    }
    length
}

/// User + system CPU seconds of this process so far (Linux), for the examples' CPU figures.
#[allow(dead_code)]
pub fn process_cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("/proc/self/stat");
    // Fields after the command name (which may contain spaces) start at field 3.
    let after_name = &stat[stat.rfind(')').expect("stat format") + 2..];
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let ticks = |i: usize| fields[i - 3].parse::<f64>().expect("ticks");
    // utime (14) + stime (15), in clock ticks of 1/100 s on Linux.
    (ticks(14) + ticks(15)) / 100.0
}
