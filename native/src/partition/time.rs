//! Iceberg's `year`, `month`, `day` and `hour` ordinals, computed the way Iceberg 1.11's
//! `DateTimeUtil` computes them, quirks included.
//!
//! Iceberg does not floor-divide: for a negative value it moves the instant one unit (µs, ns or
//! day) towards the epoch, asks `java.time` for the whole units between the epoch and that
//! instant (`ChronoUnit.between`, which truncates towards zero) and subtracts one. That is the
//! floor, except for µs/ns values one tick below a whole second that is itself a whole unit
//! away from a unit boundary (e.g. `-3_599_000_001` µs gives hour `-2`, where the floor is `-1`):
//! there `floorDiv` of the value and `floorMod` of the value + 1 name different seconds.
//! Routing must agree with stock for every row, so this module reproduces the algorithm, not
//! the arithmetic ideal: [`between_epoch`] is `ChronoUnit.between(EPOCH, instant)` for an
//! `OffsetDateTime` at UTC, built from `LocalDateTime.until` / `LocalDate.until`.

const NANOS_PER_SECOND: i64 = 1_000_000_000;
const SECONDS_PER_DAY: i64 = 86_400;
const NANOS_PER_DAY: i64 = SECONDS_PER_DAY * NANOS_PER_SECOND;
const NANOS_PER_HOUR: i64 = 3_600 * NANOS_PER_SECOND;

/// The granularity of a time transform (`ChronoUnit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Years,
    Months,
    Days,
    Hours,
}

/// `(year, month 1-12, day 1-31)` of a day count since 1970-01-01 in the proleptic Gregorian
/// calendar (as `LocalDate.ofEpochDay`), by the days-from-civil inverse.
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// `LocalDate.until(end, unit)` from 1970-01-01 to the day `end_day` (date units only).
fn date_until(unit: Unit, end_day: i64) -> i64 {
    match unit {
        Unit::Days => end_day,
        Unit::Months | Unit::Years => {
            // LocalDate.monthsUntil: packed (proleptic month * 32 + day of month), truncated.
            let (year, month, day) = civil_from_days(end_day);
            let packed_start = (1970 * 12) * 32 + 1;
            let packed_end = (year * 12 + month - 1) * 32 + day;
            let months = (packed_end - packed_start) / 32;
            if unit == Unit::Years {
                months / 12
            } else {
                months
            }
        }
        Unit::Hours => unreachable!("hours are not a date unit"),
    }
}

/// `unit.between(EPOCH, Instant.ofEpochSecond(epoch_second, nano).atOffset(UTC))`, with
/// `0 <= nano < 10^9`.
pub fn between_epoch(unit: Unit, epoch_second: i64, nano: i64) -> i64 {
    let days = epoch_second.div_euclid(SECONDS_PER_DAY);
    let nano_of_day = epoch_second.rem_euclid(SECONDS_PER_DAY) * NANOS_PER_SECOND + nano;
    match unit {
        Unit::Hours => {
            // LocalDateTime.until for time units, from midnight.
            if days == 0 {
                return nano_of_day / NANOS_PER_HOUR;
            }
            let (amount, time_part) = if days > 0 {
                (days - 1, nano_of_day + NANOS_PER_DAY)
            } else {
                (days + 1, nano_of_day - NANOS_PER_DAY)
            };
            amount * 24 + time_part / NANOS_PER_HOUR
        }
        _ => {
            // LocalDateTime.until for date units: an end before the start with a time of day
            // after midnight has not completed its last day.
            let end_day = if days < 0 && nano_of_day > 0 {
                days + 1
            } else {
                days
            };
            date_until(unit, end_day)
        }
    }
}

/// `DateTimeUtil.convertMicros` / `convertNanos`: `ticks` of `ticks_per_second` since the epoch.
fn convert_ticks(ticks: i64, ticks_per_second: i64, unit: Unit) -> i32 {
    let nanos_per_tick = NANOS_PER_SECOND / ticks_per_second;
    let epoch_second = ticks.div_euclid(ticks_per_second);
    if ticks >= 0 {
        let nano = ticks.rem_euclid(ticks_per_second) * nanos_per_tick;
        between_epoch(unit, epoch_second, nano) as i32
    } else {
        let nano = (ticks + 1).rem_euclid(ticks_per_second) * nanos_per_tick;
        (between_epoch(unit, epoch_second, nano) as i32).wrapping_sub(1)
    }
}

/// `DateTimeUtil.microsToYears/Months/Days/Hours`.
pub fn micros_to(unit: Unit, micros: i64) -> i32 {
    convert_ticks(micros, 1_000_000, unit)
}

/// `DateTimeUtil.nanosToYears/Months/Days/Hours`.
pub fn nanos_to(unit: Unit, nanos: i64) -> i32 {
    convert_ticks(nanos, NANOS_PER_SECOND, unit)
}

/// `Dates` on a date: `daysToYears` / `daysToMonths`; the day transform is the identity.
pub fn days_to(unit: Unit, days: i32) -> i32 {
    match unit {
        Unit::Days => days,
        Unit::Hours => unreachable!("hour does not apply to dates"),
        _ if days >= 0 => date_until(unit, i64::from(days)) as i32,
        _ => (date_until(unit, i64::from(days) + 1) as i32).wrapping_sub(1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MICROS_PER_HOUR: i64 = 3_600_000_000;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(17_486), (2017, 11, 16));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(civil_from_days(-719_528), (0, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }

    // Values from the Iceberg spec's partition transform table and TestDates/TestTimestamps.
    #[test]
    fn dates() {
        let d = 17_486; // 2017-11-16
        assert_eq!(days_to(Unit::Years, d), 47);
        assert_eq!(days_to(Unit::Months, d), 47 * 12 + 10);
        assert_eq!(days_to(Unit::Days, d), d);
        assert_eq!(days_to(Unit::Years, -1), -1); // 1969-12-31
        assert_eq!(days_to(Unit::Months, -1), -1);
        assert_eq!(days_to(Unit::Months, -31), -1); // 1969-12-01
        assert_eq!(days_to(Unit::Months, -32), -2); // 1969-11-30
        assert_eq!(days_to(Unit::Years, -365), -1); // 1969-01-01
        assert_eq!(days_to(Unit::Years, -366), -2); // 1968-12-31
    }

    #[test]
    fn timestamps() {
        let ts = 1_510_871_468_000_000; // 2017-11-16T22:31:08
        assert_eq!(micros_to(Unit::Years, ts), 47);
        assert_eq!(micros_to(Unit::Months, ts), 574);
        assert_eq!(micros_to(Unit::Days, ts), 17_486);
        assert_eq!(micros_to(Unit::Hours, ts), 17_486 * 24 + 22);
        assert_eq!(nanos_to(Unit::Hours, ts * 1000), 17_486 * 24 + 22);
        // 1969-12-31T23:59:59.999999 is in the hour, day, month and year before the epoch.
        for unit in [Unit::Years, Unit::Months, Unit::Days, Unit::Hours] {
            assert_eq!(micros_to(unit, -1), -1, "{unit:?}");
            assert_eq!(nanos_to(unit, -1), -1, "{unit:?}");
            assert_eq!(micros_to(unit, 0), 0, "{unit:?}");
        }
        assert_eq!(micros_to(Unit::Hours, -MICROS_PER_HOUR), -1);
        assert_eq!(micros_to(Unit::Hours, -MICROS_PER_HOUR - 1), -2);
        assert_eq!(micros_to(Unit::Days, -86_400_000_000), -1);
        assert_eq!(micros_to(Unit::Days, -86_400_000_001), -2);
    }

    #[test]
    fn reproduces_iceberg_for_one_tick_below_a_whole_second() {
        // floorDiv(-3_599_000_001, 10^6) = -3600 s and floorMod(-3_599_000_000, 10^6) = 0: Iceberg
        // measures from -3600 s (one whole hour before the epoch), then subtracts one.
        assert_eq!(micros_to(Unit::Hours, -3_599_000_001), -2);
        assert_eq!(micros_to(Unit::Hours, -3_599_000_002), -1);
        assert_eq!(micros_to(Unit::Days, -86_399_000_001), -2);
    }
}
