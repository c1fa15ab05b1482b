//! MySQL's numeric functions the bundled SQLite lacks (it is built without its math
//! functions; manual, 14.6.2 "Mathematical Functions"; source `sql/item_func.cc`);
//! `FORMAT` (14.8 "String Functions"; `sql/item_strfunc.cc`: `Item_func_format`); and
//! `UUID()`, `UUID_SHORT()`, `ANY_VALUE` (14.23 "Miscellaneous Functions"). A NULL argument
//! gives NULL.
//!
//! * `FORMAT(x, d[, locale])` overrides SQLite's `format` (its `printf`) for two and three
//!   arguments: `x` rounded half away from zero to `d` decimals (0 to 30), with `,` between
//!   groups of three digits and `.` before the decimals (none for `d` = 0). A real `x`
//!   rounds from its shortest decimal text (`2.675` to `2.68`), as MySQL rounds a DECIMAL
//!   (MySQL rounds a DOUBLE column's value in binary, `2.67`, and writes its decimals past
//!   the 17th digit where this pads zeros). The locale is `en_US` whatever the third
//!   argument says (MySQL's `de_DE` writes `1.234,5`); NULL for an infinite or NaN `x`.
//! * `UUID_SHORT()`: `(server_id & 255) << 56`, plus the server's start in Unix seconds
//!   `<< 24`, plus one more at each call in the process, as MySQL's; `server_id` is 1 (MySQL
//!   8.0's default; this server has no other).
//! * `ANY_VALUE(x)` is `x`: SQLite never refuses a column outside `GROUP BY`.

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{SystemTime, UNIX_EPOCH};

use rusqlite::functions::Context;
use rusqlite::types::Value;

use super::number_text::{round_decimal, Mode};
use super::{flags, int, number, Num};

/// Registers the numeric functions on `db`.
pub(super) fn register(db: &rusqlite::Connection) -> rusqlite::Result<()> {
    let f = flags(true);
    // RAND(): each connection its own sequence (the closure's state), seeded at random.
    let rnd = Mutex::new(Rnd::new(random_u64(), random_u64()));
    db.create_scalar_function("RAND", 0, flags(false), move |_| {
        Ok(rnd.lock().unwrap_or_else(|p| p.into_inner()).next())
    })?;
    db.create_scalar_function("RAND", 1, flags(false), seeded_rand)?;
    db.create_scalar_function("UUID", 0, flags(false), |_| Ok(uuid_v1()))?;
    let next = uuid_short_counter();
    db.create_scalar_function("UUID_SHORT", 0, flags(false), move |_| {
        let v = next.fetch_add(1, Ordering::Relaxed);
        Ok(i64::try_from(v).map_or(Value::Real(v as f64), Value::Integer))
    })?;
    db.create_scalar_function("ANY_VALUE", 1, f, |ctx| Ok(Value::from(ctx.get_raw(0))))?;
    for n_arg in [2, 3] {
        db.create_scalar_function("FORMAT", n_arg, f, |ctx| {
            Ok(match (number(ctx, 0), int(ctx, 1)) {
                (Some(x), Some(d)) => format_number(x, d).map_or(Value::Null, Value::Text),
                _ => Value::Null,
            })
        })?;
    }
    db.create_scalar_function("MOD", 2, f, |ctx| {
        Ok(match (number(ctx, 0), number(ctx, 1)) {
            (Some(n), Some(m)) => modulo(n, m).map_or(Value::Null, Value::from),
            _ => Value::Null,
        })
    })?;
    for name in ["POW", "POWER"] {
        db.create_scalar_function(name, 2, f, |ctx| match (number(ctx, 0), number(ctx, 1)) {
            (Some(x), Some(y)) => finite(x.real().powf(y.real()), "pow"),
            _ => Ok(Value::Null),
        })?;
    }
    for (name, up) in [("FLOOR", false), ("CEIL", true), ("CEILING", true)] {
        db.create_scalar_function(name, 1, f, move |ctx| {
            Ok(number(ctx, 0).map_or(Value::Null, |x| floor_ceil(x, up).into()))
        })?;
    }
    // Out of their domain SQRT, LN, LOG... are NULL (`Item_func_sqrt::val_real` and kin).
    let unary: [(&str, Partial); 6] = [
        ("SQRT", |x| (x >= 0.0).then(|| x.sqrt())),
        ("LN", |x| (x > 0.0).then(|| x.ln())),
        ("LOG", |x| (x > 0.0).then(|| x.ln())),
        ("LOG2", |x| (x > 0.0).then(|| x.log2())),
        ("LOG10", |x| (x > 0.0).then(|| x.log10())),
        ("EXP", |x| Some(x.exp())),
    ];
    register_partial(db, &unary)?;
    // LOG(b, x): the logarithm of x to base b; NULL when b <= 0, b = 1 or x <= 0.
    db.create_scalar_function("LOG", 2, f, |ctx| {
        Ok(match (number(ctx, 0), number(ctx, 1)) {
            (Some(b), Some(x)) if b.real() > 0.0 && b.real() != 1.0 && x.real() > 0.0 => {
                Value::Real(x.real().ln() / b.real().ln())
            }
            _ => Value::Null,
        })
    })?;
    db.create_scalar_function("PI", 0, f, |_| Ok(std::f64::consts::PI))
}

/// A real function defined on part of the line: None outside it.
pub(super) type Partial = fn(f64) -> Option<f64>;

impl From<Num> for Value {
    fn from(n: Num) -> Value {
        match n {
            Num::Int(i) => Value::Integer(i),
            Num::Real(x) => Value::Real(x),
        }
    }
}

/// MySQL refuses an infinite or NaN double (error 1690, "DOUBLE value is out of range").
/// Registers one-argument functions of a double: NULL for a NULL argument or outside the
/// function's domain (`None`), MySQL's 1690 for a result past the doubles.
pub(super) fn register_partial(
    db: &rusqlite::Connection,
    functions: &[(&'static str, Partial)],
) -> rusqlite::Result<()> {
    for &(name, op) in functions {
        db.create_scalar_function(name, 1, flags(true), move |ctx| {
            match number(ctx, 0).and_then(|x| op(x.real())) {
                Some(y) => finite(y, name),
                None => Ok(Value::Null),
            }
        })?;
    }
    Ok(())
}

pub(super) fn finite(x: f64, name: &str) -> rusqlite::Result<Value> {
    if x.is_finite() {
        Ok(Value::Real(x))
    } else {
        Err(rusqlite::Error::UserFunctionError(
            format!("DOUBLE value is out of range in '{name}'").into(),
        ))
    }
}

/// MySQL's random number generator (`mysys/my_rnd.cc`: `randominit`, `my_rnd`), so that
/// `RAND(n)` gives MySQL's sequence for seed `n`.
#[derive(Debug)]
struct Rnd {
    seed1: u64,
    seed2: u64,
}

impl Rnd {
    const MAX: u64 = 0x3FFF_FFFF;

    fn new(seed1: u64, seed2: u64) -> Rnd {
        Rnd {
            seed1: seed1 % Rnd::MAX,
            seed2: seed2 % Rnd::MAX,
        }
    }

    /// `Item_func_rand::seed_random`: the seed's low 32 bits, spread as MySQL spreads them.
    fn seeded(seed: i64) -> Rnd {
        let n = seed as u32;
        Rnd::new(
            u64::from(n.wrapping_mul(0x10001).wrapping_add(55_555_555)),
            u64::from(n.wrapping_mul(0x1000_0001)),
        )
    }

    fn next(&mut self) -> f64 {
        self.seed1 = (self.seed1 * 3 + self.seed2) % Rnd::MAX;
        self.seed2 = (self.seed1 + self.seed2 + 33) % Rnd::MAX;
        self.seed1 as f64 / Rnd::MAX as f64
    }
}

/// `RAND(n)`: with a constant seed, one sequence for the statement's rows, kept as SQLite's
/// auxiliary data of the argument (which SQLite keeps only while the argument is constant:
/// a seed from a column reseeds on each row, as in MySQL).
fn seeded_rand(ctx: &Context<'_>) -> rusqlite::Result<f64> {
    let rnd = match ctx.get_aux::<Mutex<Rnd>>(0)? {
        Some(r) => r,
        None => ctx.set_aux(0, Mutex::new(Rnd::seeded(int(ctx, 0).unwrap_or(0))))?,
    };
    let mut rnd = rnd.lock().unwrap_or_else(|p| p.into_inner());
    Ok(rnd.next())
}

/// 64 random bits: std's per-process random hash keys, mixed with the clock.
fn random_u64() -> u64 {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    RandomState::new().hash_one(nanos)
}

/// `UUID()` (`Item_func_uuid`): an RFC 4122 version 1 UUID, from the time in 100 ns since
/// 1582-10-15, a random clock sequence, and a random node with the multicast bit set (RFC
/// 4122 4.5: a node that is no network card's). Times strictly increase within the process.
fn uuid_v1() -> String {
    static LAST: AtomicU64 = AtomicU64::new(0);
    const GREGORIAN_TO_UNIX: u64 = 0x01B2_1DD2_1381_4000;
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| (d.as_nanos() / 100) as u64)
        + GREGORIAN_TO_UNIX;
    let prev = LAST.fetch_max(now, Ordering::Relaxed);
    let t = if now > prev {
        now
    } else {
        LAST.fetch_add(1, Ordering::Relaxed) + 1
    };
    let r = random_u64();
    let clock_seq = ((r >> 48) & 0x3FFF) | 0x8000;
    let node = (r & 0xFFFF_FFFF_FFFF) | 0x0100_0000_0000;
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        t & 0xFFFF_FFFF,
        (t >> 32) & 0xFFFF,
        ((t >> 48) & 0x0FFF) | 0x1000,
        clock_seq,
        node
    )
}

/// `UUID_SHORT()`'s counter: one for the process, starting from its first engine connection
/// (the server's start).
fn uuid_short_counter() -> &'static AtomicU64 {
    static NEXT: OnceLock<AtomicU64> = OnceLock::new();
    NEXT.get_or_init(|| {
        const SERVER_ID: u64 = 1;
        let started = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        AtomicU64::new(((SERVER_ID & 255) << 56).wrapping_add(started << 24))
    })
}

/// `FORMAT(x, d)` in `en_US`: None for an infinite or NaN `x`.
fn format_number(x: Num, d: i64) -> Option<String> {
    let d = d.clamp(0, 30);
    let text = match x {
        Num::Int(n) => n.to_string(),
        // Rust writes a double's shortest decimal text, never with an exponent.
        Num::Real(x) if x.is_finite() => x.to_string(),
        Num::Real(_) => return None,
    };
    let rounded = round_decimal(&text, d, Mode::HalfUp)?;
    let (sign, digits) = match rounded.strip_prefix('-') {
        Some(r) => ("-", r),
        None => ("", rounded.as_str()),
    };
    let (whole, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let mut out = String::with_capacity(rounded.len() + whole.len() / 3 + 1);
    out.push_str(sign);
    for (i, c) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if d > 0 {
        out.push('.');
        out.push_str(frac);
    }
    Some(out)
}

/// `MOD(n, m)` (`Item_func_mod`): the remainder with the sign of `n`; NULL for `m` = 0.
fn modulo(n: Num, m: Num) -> Option<Num> {
    match (n, m) {
        (Num::Int(a), Num::Int(b)) => (b != 0).then(|| Num::Int(a.wrapping_rem(b))),
        _ => (m.real() != 0.0).then(|| Num::Real(n.real() % m.real())),
    }
}

/// `FLOOR` / `CEILING(x)`: an integer when it fits one.
fn floor_ceil(x: Num, up: bool) -> Num {
    match x {
        Num::Int(n) => Num::Int(n),
        Num::Real(x) => {
            let y = if up { x.ceil() } else { x.floor() };
            if y.abs() < 9.0e18 {
                Num::Int(y as i64)
            } else {
                Num::Real(y)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{db, eval};
    use super::*;

    /// MySQL 8.0: `SELECT RAND(3)` is 0.9057697559760601 (manual's example), and the
    /// sequence goes on within the statement.
    #[test]
    fn seeded_rand_is_mysqls_sequence() {
        let mut r = Rnd::seeded(3);
        assert!((r.next() - 0.905_769_755_976_060_1).abs() < 1e-15);
        let db = db();
        let first = eval(&db, "RAND(3)");
        assert_eq!(first, Value::Real(Rnd::seeded(3).next()));
        let mut s = db
            .prepare("SELECT RAND(3) FROM (SELECT 1 UNION ALL SELECT 2)")
            .unwrap();
        let got: Vec<f64> = s
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let mut want = Rnd::seeded(3);
        assert_eq!(got, [want.next(), want.next()]);
        assert_eq!(eval(&db, "RAND(NULL)"), eval(&db, "RAND(0)"));
    }

    #[test]
    fn unseeded_rand_and_uuid_vary() {
        let db = db();
        let Value::Real(a) = eval(&db, "RAND()") else {
            panic!("real")
        };
        assert!((0.0..1.0).contains(&a));
        assert_ne!(eval(&db, "RAND()"), eval(&db, "RAND()"));
        let Value::Text(u) = eval(&db, "UUID()") else {
            panic!("text")
        };
        assert_eq!(u.len(), 36);
        assert_eq!(&u[14..15], "1", "version 1: {u}");
        assert!(matches!(&u[19..20], "8" | "9" | "a" | "b"), "variant: {u}");
        assert_ne!(eval(&db, "UUID()"), eval(&db, "UUID()"));
    }

    #[test]
    fn format_as_mysql() {
        let f = |x: Num, d: i64| format_number(x, d).unwrap();
        // The manual's examples.
        assert_eq!(f(Num::Real(12332.123456), 4), "12,332.1235");
        assert_eq!(f(Num::Real(12332.1), 4), "12,332.1000");
        assert_eq!(f(Num::Real(12332.2), 0), "12,332");
        assert_eq!(f(Num::Real(1234567.891), 2), "1,234,567.89");
        // Rounding from the decimal text, carries, signs.
        assert_eq!(f(Num::Real(2.675), 2), "2.68");
        assert_eq!(f(Num::Real(999.995), 2), "1,000.00");
        assert_eq!(f(Num::Real(-999999.5), 0), "-1,000,000");
        assert_eq!(f(Num::Real(-0.001), 2), "0.00");
        assert_eq!(f(Num::Real(-0.005), 2), "-0.01");
        assert_eq!(f(Num::Real(0.5), 0), "1");
        assert_eq!(f(Num::Real(0.1), 30), format!("0.1{}", "0".repeat(29)));
        assert_eq!(f(Num::Real(1e-7), 2), "0.00");
        assert_eq!(f(Num::Real(1e21), 0), "1,000,000,000,000,000,000,000");
        assert_eq!(f(Num::Real(1.5), -3), "2");
        assert_eq!(f(Num::Real(1.5), i64::MAX).len(), 32);
        // Integers exact.
        assert_eq!(f(Num::Int(i64::MIN), 1), "-9,223,372,036,854,775,808.0");
        assert_eq!(f(Num::Int(100), 0), "100");
        assert_eq!(f(Num::Int(1000), 2), "1,000.00");
        assert_eq!(f(Num::Int(0), 0), "0");
        assert_eq!(format_number(Num::Real(f64::INFINITY), 2), None);
        assert_eq!(format_number(Num::Real(f64::NAN), 2), None);
        let db = db();
        let t = |s: &str| Value::Text(s.into());
        assert_eq!(eval(&db, "FORMAT(1234567.891, 2)"), t("1,234,567.89"));
        assert_eq!(eval(&db, "FORMAT(12332.2, 2, 'de_DE')"), t("12,332.20"));
        assert_eq!(eval(&db, "FORMAT(12332.2, 2, NULL)"), t("12,332.20"));
        assert_eq!(eval(&db, "FORMAT('1234.5abc', 1)"), t("1,234.5"));
        assert_eq!(eval(&db, "FORMAT(NULL, 2)"), Value::Null);
        assert_eq!(eval(&db, "FORMAT(1, NULL)"), Value::Null);
        // Not SQLite's `format` (its `printf`).
        assert_eq!(eval(&db, "FORMAT('%d', 5)"), t("0.00000"));
    }

    #[test]
    fn uuid_short_counts_up() {
        let db = db();
        let (Value::Integer(a), Value::Integer(b)) =
            (eval(&db, "UUID_SHORT()"), eval(&db, "UUID_SHORT()"))
        else {
            panic!("integers")
        };
        assert!(b > a, "{a} {b}");
        assert_eq!(a >> 56, 1, "server_id 1: {a:x}");
    }

    #[test]
    fn mod_floor_as_mysql() {
        assert_eq!(modulo(Num::Int(234), Num::Int(10)), Some(Num::Int(4)));
        assert_eq!(modulo(Num::Int(-7), Num::Int(3)), Some(Num::Int(-1)));
        assert_eq!(modulo(Num::Int(7), Num::Int(0)), None);
        assert_eq!(modulo(Num::Int(i64::MIN), Num::Int(-1)), Some(Num::Int(0)));
        assert_eq!(modulo(Num::Real(34.5), Num::Int(3)), Some(Num::Real(1.5)));
        assert_eq!(floor_ceil(Num::Real(-1.23), false), Num::Int(-2));
        assert_eq!(floor_ceil(Num::Real(1.23), true), Num::Int(2));
    }

    #[test]
    fn through_sqlite_with_nulls() {
        let db = db();
        assert_eq!(eval(&db, "MOD(29, 9)"), Value::Integer(2));
        assert_eq!(eval(&db, "MOD(1, NULL)"), Value::Null);
        assert_eq!(eval(&db, "POW(2, -2)"), Value::Real(0.25));
        assert_eq!(eval(&db, "POWER(NULL, 2)"), Value::Null);
        assert_eq!(eval(&db, "SQRT(-1)"), Value::Null);
        assert_eq!(eval(&db, "LOG(2, 65536)"), Value::Real(16.0));
        assert_eq!(eval(&db, "LOG(1, 2)"), Value::Null);
        assert_eq!(eval(&db, "LN(0)"), Value::Null);
        assert_eq!(eval(&db, "LOG10(100)"), Value::Real(2.0));
        assert_eq!(eval(&db, "CEILING(-1.5) + FLOOR(1.5)"), Value::Integer(0));
        assert_eq!(eval(&db, "PI()"), Value::Real(std::f64::consts::PI));
        assert_eq!(eval(&db, "ANY_VALUE(NULL)"), Value::Null);
        assert_eq!(eval(&db, "ANY_VALUE(X'00')"), Value::Blob(vec![0]));
        assert_eq!(eval(&db, "ANY_VALUE(1.5)"), Value::Real(1.5));
        let overflow = db.query_row("SELECT POW(10, 400)", [], |r| r.get::<_, f64>(0));
        assert!(format!("{overflow:?}").contains("out of range"));
    }
}
