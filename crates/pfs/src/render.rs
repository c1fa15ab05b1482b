//! Text rendering in the style of the `mysql` command-line client (`+----+` boxes, `NULL` for
//! missing values, numeric columns right-aligned) and small formatting helpers.

use std::fmt;

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

/// A generic result set: headers plus rows of optional cells (`None` renders as `NULL`).
///
/// `Display` renders it the way the `mysql` client does; `Serialize` gives a JSON array of
/// objects keyed by header (NULL cells become `null`).
///
/// ```
/// let mut t = pfs::TextTable::new(["NAME", "COUNT"]);
/// t.push_row([Some("a".to_string()), Some("12".to_string())]);
/// t.push_row([Some("bb".to_string()), None]);
/// let text = t.to_string();
/// assert!(text.contains("| a    |    12 |"));
/// assert!(text.contains("| bb   |  NULL |"));
/// assert!(text.ends_with("2 rows in set\n"));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TextTable {
    /// Column names.
    pub headers: Vec<String>,
    /// Rows; each should have `headers.len()` cells (missing cells render as `NULL`).
    pub rows: Vec<Vec<Option<String>>>,
}

impl TextTable {
    /// An empty table with these column names.
    pub fn new<I, S>(headers: I) -> TextTable
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        TextTable {
            headers: headers.into_iter().map(Into::into).collect(),
            rows: Vec::new(),
        }
    }

    /// Append a row.
    pub fn push_row<I>(&mut self, row: I)
    where
        I: IntoIterator<Item = Option<String>>,
    {
        self.rows.push(row.into_iter().collect());
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// No rows?
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    fn cell(&self, r: usize, c: usize) -> &str {
        match self.rows[r].get(c) {
            Some(Some(s)) => s.as_str(),
            _ => "NULL",
        }
    }

    /// A column is right-aligned when every non-NULL cell is a number (as the client does for
    /// numeric column types).
    fn numeric(&self, c: usize) -> bool {
        let mut any = false;
        for row in &self.rows {
            if let Some(Some(s)) = row.get(c) {
                any = true;
                if s.parse::<f64>().is_err() {
                    return false;
                }
            }
        }
        any
    }
}

impl fmt::Display for TextTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.rows.is_empty() {
            return writeln!(f, "Empty set");
        }
        let ncol = self.headers.len();
        let mut width: Vec<usize> = self.headers.iter().map(|h| h.chars().count()).collect();
        for r in 0..self.rows.len() {
            for (c, w) in width.iter_mut().enumerate() {
                *w = (*w).max(self.cell(r, c).chars().count());
            }
        }
        let right: Vec<bool> = (0..ncol).map(|c| self.numeric(c)).collect();
        let sep = {
            let mut s = String::from("+");
            for w in &width {
                s.push_str(&"-".repeat(w + 2));
                s.push('+');
            }
            s
        };
        writeln!(f, "{sep}")?;
        write!(f, "|")?;
        for (h, w) in self.headers.iter().zip(&width) {
            write!(f, " {h:<w$} |")?;
        }
        writeln!(f)?;
        writeln!(f, "{sep}")?;
        for r in 0..self.rows.len() {
            write!(f, "|")?;
            for c in 0..ncol {
                let v = self.cell(r, c);
                let w = width[c];
                if right[c] {
                    write!(f, " {v:>w$} |")?;
                } else {
                    write!(f, " {v:<w$} |")?;
                }
            }
            writeln!(f)?;
        }
        writeln!(f, "{sep}")?;
        let n = self.rows.len();
        writeln!(f, "{n} {} in set", if n == 1 { "row" } else { "rows" })
    }
}

impl Serialize for TextTable {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct RowRef<'a>(&'a [String], &'a [Option<String>]);
        impl Serialize for RowRef<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut m = serializer.serialize_map(Some(self.0.len()))?;
                for (i, h) in self.0.iter().enumerate() {
                    m.serialize_entry(h, &self.1.get(i).cloned().flatten())?;
                }
                m.end()
            }
        }
        let mut seq = serializer.serialize_seq(Some(self.rows.len()))?;
        for row in &self.rows {
            seq.serialize_element(&RowRef(&self.headers, row))?;
        }
        seq.end()
    }
}

/// Format picoseconds like MySQL's `FORMAT_PICO_TIME()` / sys `format_time()`:
/// `"350 ps"`, `"1.20 us"`, `"3.05 ms"`, `"1.50 s"`, `"2.00 min"`, ...
pub fn format_pico(ps: u64) -> String {
    const UNITS: [(f64, &str); 7] = [
        (1e3, "ns"),
        (1e6, "us"),
        (1e9, "ms"),
        (1e12, "s"),
        (60e12, "min"),
        (3600e12, "h"),
        (86400e12, "d"),
    ];
    if ps < 1000 {
        return format!("{ps} ps");
    }
    let v = ps as f64;
    let mut chosen = UNITS[0];
    for u in UNITS {
        if v >= u.0 {
            chosen = u;
        }
    }
    format!("{:.2} {}", v / chosen.0, chosen.1)
}

/// `Some(v.to_string())`, for building cells.
pub fn cell<T: fmt::Display>(v: T) -> Option<String> {
    Some(v.to_string())
}

/// `YES` / `NO`.
pub fn yes_no(b: bool) -> Option<String> {
    Some(if b { "YES" } else { "NO" }.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_like_mysql_client() {
        let mut t = TextTable::new(["NAME", "ENABLED", "N"]);
        t.push_row([cell("wait/synch/%"), yes_no(true), cell(5)]);
        t.push_row([cell("idle"), yes_no(false), None]);
        let expected = "\
+--------------+---------+------+
| NAME         | ENABLED | N    |
+--------------+---------+------+
| wait/synch/% | YES     |    5 |
| idle         | NO      | NULL |
+--------------+---------+------+
2 rows in set
";
        assert_eq!(t.to_string(), expected);
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(
            json,
            r#"[{"NAME":"wait/synch/%","ENABLED":"YES","N":"5"},{"NAME":"idle","ENABLED":"NO","N":null}]"#
        );
        assert_eq!(TextTable::new(["A"]).to_string(), "Empty set\n");
    }

    #[test]
    fn pico_format() {
        assert_eq!(format_pico(0), "0 ps");
        assert_eq!(format_pico(999), "999 ps");
        assert_eq!(format_pico(1_500), "1.50 ns");
        assert_eq!(format_pico(2_000_000), "2.00 us");
        assert_eq!(format_pico(3_050_000_000), "3.05 ms");
        assert_eq!(format_pico(1_500_000_000_000), "1.50 s");
        assert_eq!(format_pico(120_000_000_000_000), "2.00 min");
    }
}
