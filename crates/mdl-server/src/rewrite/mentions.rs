//! The words a statement's text says that the rewrite's per-construct passes act on (JSON
//! arguments, decimals made strings, the rounding of a double), found in one look at each
//! byte: a statement that says none of them (sysbench's) is not visited again by any of those
//! passes, and a text query pays one scan of its text for all of them.

/// Which passes a statement may need (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Mentions {
    /// `JSON` (`json/args.rs`).
    pub json: bool,
    /// `CAST`, `CONV`, `CONC`, `LIKE` or `LENGTH` (`decimal_strings.rs`).
    pub strings: bool,
    /// `ROUND` or `TRUNCATE` (`double_round.rs`).
    pub round: bool,
}

impl Mentions {
    /// Of the statement parsed from `source`; every pass for a statement without its text (one
    /// the server made, a view's definition).
    pub(super) fn of(source: Option<&mdl_sql::Parsed>) -> Mentions {
        match source {
            Some(p) => Mentions::in_text(p.text.as_bytes()),
            None => Mentions {
                json: true,
                strings: true,
                round: true,
            },
        }
    }

    /// The words `text` says, case-insensitively.
    fn in_text(text: &[u8]) -> Mentions {
        let at = |i: usize, w: &[u8]| {
            text.get(i..i + w.len())
                .is_some_and(|t| t.eq_ignore_ascii_case(w))
        };
        let mut m = Mentions {
            json: false,
            strings: false,
            round: false,
        };
        for (i, b) in text.iter().enumerate() {
            // `| 0x20` folds an ASCII capital to its small letter.
            match b | 0x20 {
                b'j' => m.json |= at(i, b"json"),
                b'c' => m.strings |= at(i, b"cast") || at(i, b"conv") || at(i, b"conc"),
                b'l' => m.strings |= at(i, b"like") || at(i, b"length"),
                b'r' => m.round |= at(i, b"round"),
                b't' => m.round |= at(i, b"truncate"),
                _ => {}
            }
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_pass_is_named_by_its_words() {
        let m = |t: &str| {
            let m = Mentions::in_text(t.as_bytes());
            (m.json, m.strings, m.round)
        };
        assert_eq!(m("SELECT c FROM sbtest1 WHERE id=?"), (false, false, false));
        assert_eq!(m("select Json_extract(j, '$.a')"), (true, false, false));
        for t in [
            "SELECT CAST(d AS CHAR)",
            "select concat(d)",
            "SELECT CONV(1,10,2)",
        ] {
            assert_eq!(m(t), (false, true, false), "{t}");
        }
        for t in ["SELECT 1 WHERE d LIKE '1%'", "select length(d)"] {
            assert_eq!(m(t), (false, true, false), "{t}");
        }
        assert_eq!(m("SELECT ROUND(2.5e0)"), (false, false, true));
        assert_eq!(
            m("select truncate(d, 1), JSON_TYPE(j)"),
            (true, false, true)
        );
        // A word cut by the text's end is not said.
        assert_eq!(m("SELECT roun"), (false, false, false));
    }
}
