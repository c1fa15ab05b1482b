//! An expression's type as MySQL's `Item` keeps it (its result class, `max_length` in
//! characters, `decimals`, `unsigned_flag`), read from a column's declared type, and the column
//! type MySQL makes of it for a temporary table (`create_tmp_field_from_item`,
//! `sql/sql_tmp_table.cc`; `Field_new_decimal::create_from_item`, `sql/field.cc`;
//! `Item::make_string_field`, `sql/item.cc`).

/// `DECIMAL_MAX_PRECISION`.
pub(crate) const MAX_PRECISION: u64 = 65;
/// `DECIMAL_MAX_SCALE`.
pub(crate) const MAX_SCALE: u32 = 30;
/// `NOT_FIXED_DEC`: the `decimals` of a floating-point value.
pub(crate) const NOT_FIXED_DEC: u32 = 31;
/// The longest string in characters: `MAX_BLOB_WIDTH` (2^32 - 1 bytes) of 4-byte `utf8mb4`.
pub(crate) const MAX_CHARS: u64 = 4_294_967_295 / MBMAXLEN;
/// `utf8mb4`'s bytes a character: every text here is `utf8mb4` (`catalog::CHARSET`).
const MBMAXLEN: u64 = 4;
/// `CONVERT_IF_BIGGER_TO_BLOB`: a longer string is a `TEXT` / `BLOB` column.
const CONVERT_IF_BIGGER_TO_BLOB: u64 = 512;

/// What MySQL's `Item` says of a value's type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Class {
    /// `INT_RESULT`.
    Int,
    /// `DECIMAL_RESULT`.
    Decimal,
    /// `REAL_RESULT` of a `DOUBLE`.
    Real,
    /// `REAL_RESULT` of a `FLOAT` column.
    Float,
    /// A character string.
    Str,
    /// A binary string (`BINARY`, `VARBINARY`, `BLOB`).
    Binary,
    /// `DATE`.
    Date,
    /// `DATETIME`.
    Datetime,
    /// `TIMESTAMP`.
    Timestamp,
    /// `TIME`.
    Time,
    /// `YEAR` (an integer in numeric context).
    Year,
    /// `JSON`.
    Json,
    /// The `NULL` literal (`MYSQL_TYPE_NULL`).
    Null,
}

/// An expression's type (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Ty {
    /// Its result class.
    pub class: Class,
    /// `max_length` in characters (`max_char_length()`); a number's counts its sign and point.
    pub chars: u64,
    /// `decimals`: a decimal's scale, a temporal's fractional seconds.
    pub decimals: u32,
    /// `unsigned_flag`.
    pub unsigned: bool,
    /// The type as a column declares it, while the expression is that column (or `MIN` /
    /// `MAX` of it): shown as declared.
    pub declared: Option<String>,
    /// An aggregate's integer is always `bigint` (`Item_sum::create_tmp_field`).
    pub wide_int: bool,
    /// An integer literal: its precision is its digits (`Item_int::decimal_precision`).
    pub literal: bool,
}

impl Ty {
    /// A type of class `class`, `chars` long.
    pub(crate) fn new(class: Class, chars: u64) -> Ty {
        Ty {
            class,
            chars,
            decimals: 0,
            unsigned: false,
            declared: None,
            wide_int: false,
            literal: false,
        }
    }

    /// An integer of `chars` characters (sign included).
    pub(crate) fn int(chars: u64) -> Ty {
        Ty::new(Class::Int, chars)
    }

    /// An unsigned integer of `chars` characters.
    pub(crate) fn uint(chars: u64) -> Ty {
        Ty {
            unsigned: true,
            ..Ty::int(chars)
        }
    }

    /// `DECIMAL(precision, scale)` (`set_data_type_decimal`).
    pub(crate) fn decimal(precision: u64, scale: u32, unsigned: bool) -> Ty {
        Ty {
            decimals: scale,
            unsigned,
            ..Ty::new(
                Class::Decimal,
                precision_to_length(precision, scale, unsigned),
            )
        }
    }

    /// `DOUBLE`.
    pub(crate) fn double() -> Ty {
        Ty {
            decimals: NOT_FIXED_DEC,
            ..Ty::new(Class::Real, 22)
        }
    }

    /// A character string of `chars` characters.
    pub(crate) fn string(chars: u64) -> Ty {
        Ty::new(Class::Str, chars.min(MAX_CHARS))
    }

    /// A temporal type with `fsp` fractional digits.
    pub(crate) fn temporal(class: Class, fsp: u32) -> Ty {
        let fsp = fsp.min(6);
        let frac = if fsp > 0 { u64::from(fsp) + 1 } else { 0 };
        let chars = match class {
            Class::Date => 10,
            Class::Time => 10 + frac,
            Class::Year => 4,
            _ => 19 + frac,
        };
        Ty {
            decimals: fsp,
            unsigned: class == Class::Year,
            ..Ty::new(class, chars)
        }
    }

    /// `JSON`.
    pub(crate) fn json() -> Ty {
        Ty::new(Class::Json, MAX_CHARS)
    }

    /// The same type as an expression of it, no longer a column's (`IFNULL(a, a)`).
    pub(crate) fn computed(self) -> Ty {
        Ty {
            declared: None,
            wide_int: false,
            literal: false,
            ..self
        }
    }

    pub(crate) fn is_temporal(&self) -> bool {
        matches!(
            self.class,
            Class::Date | Class::Datetime | Class::Timestamp | Class::Time
        )
    }

    /// `numeric_context_result_type()`: the class the value has in arithmetic. A string is a
    /// double; a temporal value an integer, or a decimal with fractional seconds.
    pub(crate) fn numeric(&self) -> Class {
        match self.class {
            Class::Int | Class::Year => Class::Int,
            Class::Decimal => Class::Decimal,
            _ if self.is_temporal() => {
                if self.decimals == 0 {
                    Class::Int
                } else {
                    Class::Decimal
                }
            }
            _ => Class::Real,
        }
    }

    /// `decimal_precision()`.
    pub(crate) fn precision(&self) -> u64 {
        let d = u64::from(self.decimals);
        match self.class {
            Class::Date => 8,
            Class::Time => 7 + d,
            Class::Datetime | Class::Timestamp => 14 + d,
            Class::Int if self.literal => self.chars,
            Class::Int | Class::Year | Class::Decimal => {
                length_to_precision(self.chars, self.decimals, self.unsigned).min(MAX_PRECISION)
            }
            _ => self.chars.min(MAX_PRECISION),
        }
    }

    /// `decimals` where it counts for a number's precision (none for an integer in numeric
    /// context, `NOT_FIXED_DEC` for a double's).
    pub(crate) fn scale(&self) -> u32 {
        match self.numeric() {
            Class::Int => 0,
            _ => self.decimals.min(MAX_SCALE),
        }
    }

    /// `decimal_int_part()`: the digits before the point.
    pub(crate) fn int_part(&self) -> u64 {
        self.precision().saturating_sub(u64::from(self.scale()))
    }

    /// The column type MySQL makes of the expression (see the module docs), as
    /// `COLUMN_TYPE` shows it.
    pub(crate) fn column_type(&self) -> String {
        if let Some(d) = &self.declared {
            return d.clone();
        }
        let unsigned = if self.unsigned { " unsigned" } else { "" };
        let fsp = |name: &str| match self.decimals.min(6) {
            0 => name.to_string(),
            n => format!("{name}({n})"),
        };
        match self.class {
            // `MY_INT32_NUM_DECIMAL_DIGITS - 1`: ten characters may not fit an `int`.
            Class::Int if self.wide_int || self.chars >= 10 => format!("bigint{unsigned}"),
            Class::Int => format!("int{unsigned}"),
            Class::Decimal => {
                let (p, s) = self.decimal_field();
                format!("decimal({p},{s}){unsigned}")
            }
            // `Field_double::sql_type`: fixed decimals are shown (`PI()`: `double(8,6)`).
            Class::Real if self.decimals < NOT_FIXED_DEC => {
                format!("double({},{}){unsigned}", self.chars, self.decimals)
            }
            Class::Real => "double".into(),
            Class::Float => "float".into(),
            Class::Str => string_type(self.chars, false),
            Class::Binary => string_type(self.chars, true),
            Class::Date => "date".into(),
            Class::Datetime => fsp("datetime"),
            Class::Timestamp => fsp("timestamp"),
            Class::Time => fsp("time"),
            Class::Year => "year".into(),
            Class::Json => "json".into(),
            Class::Null => "binary(0)".into(),
        }
    }

    /// `Field_new_decimal::create_from_item`: the precision and scale of the column of a
    /// decimal expression; fractional digits go first when they do not fit.
    fn decimal_field(&self) -> (u64, u32) {
        let mut dec = self.decimals.min(MAX_SCALE);
        let intg = self.precision().saturating_sub(u64::from(dec));
        let mut len = self.chars;
        if dec > 0 {
            let required = precision_to_length(
                (intg + u64::from(dec)).min(MAX_PRECISION),
                dec,
                self.unsigned,
            );
            if required > len {
                let overflow = required - len;
                dec = dec.saturating_sub(u32::try_from(overflow).unwrap_or(u32::MAX));
            } else {
                len = required;
            }
        }
        let p = length_to_precision(len, dec, self.unsigned).min(MAX_PRECISION);
        (p.max(u64::from(dec)), dec)
    }
}

/// `my_decimal_precision_to_length_no_truncation`: a number's characters.
pub(crate) fn precision_to_length(precision: u64, scale: u32, unsigned: bool) -> u64 {
    precision + u64::from(scale > 0) + u64::from(!unsigned && precision > 0)
}

/// `my_decimal_length_to_precision`: a number's digits.
pub(crate) fn length_to_precision(length: u64, scale: u32, unsigned: bool) -> u64 {
    length.saturating_sub(u64::from(scale > 0) + u64::from(!unsigned))
}

/// `Item::make_string_field`: `varchar(n)` up to 512 characters, else the `TEXT` (`BLOB`)
/// type whose length in bytes holds it (`Field_blob`'s `packlength`).
fn string_type(chars: u64, binary: bool) -> String {
    if chars <= CONVERT_IF_BIGGER_TO_BLOB {
        let name = if binary { "varbinary" } else { "varchar" };
        return format!("{name}({chars})");
    }
    let bytes = if binary { chars } else { chars * MBMAXLEN };
    let size = match bytes {
        0..=255 => "tiny",
        256..=65_535 => "",
        65_536..=16_777_215 => "medium",
        _ => "long",
    };
    format!("{size}{}", if binary { "blob" } else { "text" })
}

/// The type of a column declared `decl` (SQLite's declared text of a column this server made:
/// MySQL's type as written, `INTEGER` for an `AUTO_INCREMENT` one); `None` for one this does
/// not read (an expression's column has none).
pub(crate) fn from_declared(decl: &str) -> Option<Ty> {
    let lower = decl.trim().to_ascii_lowercase();
    if lower.is_empty() {
        return None;
    }
    let (head, args) = match (lower.find('('), lower.find(')')) {
        (Some(a), Some(b)) if a < b => (
            format!("{}{}", &lower[..a], &lower[b + 1..]),
            (lower[a + 1..b].split(','))
                .map(|n| n.trim().parse::<u64>().ok())
                .collect::<Option<Vec<u64>>>()?,
        ),
        _ => (lower.clone(), Vec::new()),
    };
    let words: Vec<&str> = head.split_whitespace().collect();
    let unsigned = words.contains(&"unsigned");
    let name = *words.first()?;
    let arg = |i: usize| args.get(i).copied();
    let declared = Some(decl.trim().to_string());
    let int = |signed_chars: u64| {
        let chars = arg(0).unwrap_or(signed_chars - u64::from(unsigned));
        Ty {
            unsigned,
            ..Ty::int(chars)
        }
    };
    let mut ty = match name {
        "tinyint" => int(4),
        "bool" | "boolean" => Ty::int(1),
        "smallint" => int(6),
        "mediumint" => int(9),
        "int" | "integer" => int(11),
        "bigint" => Ty {
            unsigned,
            ..Ty::int(arg(0).unwrap_or(20))
        },
        "decimal" | "dec" | "numeric" | "fixed" => {
            let p = arg(0).unwrap_or(10).min(MAX_PRECISION);
            let s = u32::try_from(arg(1).unwrap_or(0)).ok()?.min(MAX_SCALE);
            Ty::decimal(p, s, unsigned)
        }
        "double" | "real" | "float" => {
            let float = name == "float" && arg(0).is_none_or(|p| p <= 24 || arg(1).is_some());
            let chars = match (arg(0), float) {
                (Some(m), _) if arg(1).is_some() => m,
                (_, true) => 12,
                _ => 22,
            };
            Ty {
                decimals: u32::try_from(arg(1).unwrap_or(u64::from(NOT_FIXED_DEC))).ok()?,
                unsigned,
                ..Ty::new(if float { Class::Float } else { Class::Real }, chars)
            }
        }
        "char" | "varchar" | "character" | "nchar" | "nvarchar" => Ty::string(arg(0).unwrap_or(1)),
        "tinytext" => Ty::string(255 / MBMAXLEN),
        "text" => Ty::string(arg(0).unwrap_or(65_535 / MBMAXLEN)),
        "mediumtext" => Ty::string(16_777_215 / MBMAXLEN),
        "longtext" => Ty::string(MAX_CHARS),
        "binary" | "varbinary" => Ty::new(Class::Binary, arg(0).unwrap_or(1)),
        "tinyblob" => Ty::new(Class::Binary, 255),
        "blob" => Ty::new(Class::Binary, arg(0).unwrap_or(65_535)),
        "mediumblob" => Ty::new(Class::Binary, 16_777_215),
        "longblob" => Ty::new(Class::Binary, 4_294_967_295),
        "date" => Ty::temporal(Class::Date, 0),
        "datetime" => Ty::temporal(Class::Datetime, fsp(arg(0))?),
        "timestamp" => Ty::temporal(Class::Timestamp, fsp(arg(0))?),
        "time" => Ty::temporal(Class::Time, fsp(arg(0))?),
        "year" => Ty::temporal(Class::Year, 0),
        "json" => Ty::json(),
        _ => return None,
    };
    ty.declared = declared;
    Some(ty)
}

fn fsp(n: Option<u64>) -> Option<u32> {
    u32::try_from(n.unwrap_or(0)).ok().filter(|n| *n <= 6)
}
