//! JSON text read as MySQL reads it: MySQL parses with RapidJSON (`Json_dom::parse`,
//! `sql-common/json_dom.cc`), and its errors 3140 (a JSON column's value) and 3141 (a
//! function's argument) carry RapidJSON's message and the byte offset where it stopped
//! (`GetParseError_En`, `rapidjson/error/en.h`; the offsets `GenericReader` reports,
//! `rapidjson/reader.h`). This module checks the text the way that reader walks it, for the
//! message and position, and leaves building the value to `serde_json`.
//!
//! * Whitespace is space, tab, CR and LF; one value, nothing after it but whitespace.
//! * Objects with a duplicate key keep the last value (MySQL 8.0.3 and later, the manual's
//!   "Normalization, Merging, and Autowrapping of JSON Values"), as `serde_json` does.
//! * Nesting deeper than 100 is error 3157 (`JSON_DOCUMENT_MAX_DEPTH`, `json_dom.h`).

use serde_json::Value as Json;

/// Why a text is not JSON: RapidJSON's message and the byte offset.
#[derive(Debug, PartialEq)]
pub(super) enum Invalid {
    /// Malformed: the message and where.
    Syntax(&'static str, usize),
    /// Nested deeper than MySQL allows (3157).
    TooDeep,
}

/// MySQL's deepest nesting of arrays and objects.
const MAX_DEPTH: usize = 100;

/// The JSON value of text `b`, or why it is not one.
pub(super) fn parse(b: &[u8]) -> Result<Json, Invalid> {
    check(b)?;
    // Checked above: serde_json reads what RapidJSON reads (a number past f64's range, which
    // both refuse, was refused by `check`).
    serde_json::from_slice(b).map_err(|_| Invalid::Syntax("Invalid value.", 0))
}

/// Whether `b` is JSON text, and if not why.
pub(super) fn check(b: &[u8]) -> Result<(), Invalid> {
    let mut r = Reader { b, i: 0 };
    r.space();
    if r.peek().is_none() {
        return Err(Invalid::Syntax("The document is empty.", r.i));
    }
    r.value(0)?;
    r.space();
    if r.peek().is_some() {
        return Err(r.err("The document root must not be followed by other values."));
    }
    Ok(())
}

struct Reader<'a> {
    b: &'a [u8],
    i: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        let hit = self.peek() == Some(c);
        self.i += usize::from(hit);
        hit
    }

    fn space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn err(&self, msg: &'static str) -> Invalid {
        Invalid::Syntax(msg, self.i)
    }

    fn value(&mut self, depth: usize) -> Result<(), Invalid> {
        match self.peek() {
            Some(b'n') => self.literal(b"null"),
            Some(b't') => self.literal(b"true"),
            Some(b'f') => self.literal(b"false"),
            Some(b'"') => self.string(),
            Some(b'{') => self.object(depth + 1),
            Some(b'[') => self.array(depth + 1),
            _ => self.number(),
        }
    }

    /// `ParseNull` / `ParseTrue` / `ParseFalse`: the error is where the spelling stops.
    fn literal(&mut self, word: &[u8]) -> Result<(), Invalid> {
        self.i += 1;
        for &c in &word[1..] {
            if !self.eat(c) {
                return Err(self.err("Invalid value."));
            }
        }
        Ok(())
    }

    fn object(&mut self, depth: usize) -> Result<(), Invalid> {
        if depth > MAX_DEPTH {
            return Err(Invalid::TooDeep);
        }
        self.i += 1;
        self.space();
        if self.eat(b'}') {
            return Ok(());
        }
        loop {
            if self.peek() != Some(b'"') {
                return Err(self.err("Missing a name for object member."));
            }
            self.string()?;
            self.space();
            if !self.eat(b':') {
                return Err(self.err("Missing a colon after a name of object member."));
            }
            self.space();
            self.value(depth)?;
            if self.closed(b'}', "Missing a comma or '}' after an object member.")? {
                return Ok(());
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<(), Invalid> {
        if depth > MAX_DEPTH {
            return Err(Invalid::TooDeep);
        }
        self.i += 1;
        self.space();
        if self.eat(b']') {
            return Ok(());
        }
        loop {
            self.value(depth)?;
            if self.closed(b']', "Missing a comma or ']' after an array element.")? {
                return Ok(());
            }
        }
    }

    /// After a member or an element: a comma (`false`, the next one follows) or `close`
    /// (`true`); anything else is `missing`.
    fn closed(&mut self, close: u8, missing: &'static str) -> Result<bool, Invalid> {
        self.space();
        match self.peek() {
            Some(b',') => {
                self.i += 1;
                self.space();
                Ok(false)
            }
            Some(c) if c == close => {
                self.i += 1;
                Ok(true)
            }
            _ => Err(self.err(missing)),
        }
    }

    /// `ParseString`: an escape's error is at its `\`.
    fn string(&mut self) -> Result<(), Invalid> {
        self.i += 1;
        loop {
            let at = self.i;
            match self.peek() {
                None => return Err(self.err("Missing a closing quotation mark in string.")),
                Some(b'"') => {
                    self.i += 1;
                    return Ok(());
                }
                Some(b'\\') => {
                    self.i += 1;
                    match self.peek() {
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => self.i += 1,
                        Some(b'u') => {
                            self.i += 1;
                            let bad =
                                Invalid::Syntax("The surrogate pair in string is invalid.", at);
                            match self.hex4(at)? {
                                0xD800..=0xDBFF => {
                                    if !(self.eat(b'\\') && self.eat(b'u')) {
                                        return Err(bad);
                                    }
                                    if !(0xDC00..=0xDFFF).contains(&self.hex4(at)?) {
                                        return Err(bad);
                                    }
                                }
                                0xDC00..=0xDFFF => return Err(bad),
                                _ => {}
                            }
                        }
                        _ => {
                            return Err(Invalid::Syntax("Invalid escape character in string.", at))
                        }
                    }
                }
                Some(c) if c < 0x20 => return Err(self.err("Invalid encoding in string.")),
                Some(c) if c < 0x80 => self.i += 1,
                Some(_) => {
                    // One UTF-8 sequence, checked whole.
                    let rest = &self.b[at..self.b.len().min(at + 4)];
                    let n = match std::str::from_utf8(rest) {
                        Ok(s) => s.chars().next().map_or(1, char::len_utf8),
                        Err(e) if e.valid_up_to() > 0 => {
                            let s = std::str::from_utf8(&rest[..e.valid_up_to()]).unwrap_or("");
                            s.chars().next().map_or(1, char::len_utf8)
                        }
                        Err(_) => return Err(self.err("Invalid encoding in string.")),
                    };
                    self.i += n;
                }
            }
        }
    }

    fn hex4(&mut self, at: usize) -> Result<u32, Invalid> {
        let mut n = 0;
        for _ in 0..4 {
            let d = (self.peek().map(char::from))
                .and_then(|c| c.to_digit(16))
                .ok_or(Invalid::Syntax(
                    "Incorrect hex digit after \\u escape in string.",
                    at,
                ))?;
            n = n * 16 + d;
            self.i += 1;
        }
        Ok(n)
    }

    /// `ParseNumber`: `-`, an integer without leading zeros, a fraction, an exponent; one past
    /// f64's range is refused at its start.
    fn number(&mut self) -> Result<(), Invalid> {
        let start = self.i;
        self.eat(b'-');
        let digits = |r: &mut Self| {
            let from = r.i;
            while r.peek().is_some_and(|c| c.is_ascii_digit()) {
                r.i += 1;
            }
            r.i > from
        };
        match self.peek() {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return Err(self.err("Invalid value.")),
        }
        if self.eat(b'.') && !digits(self) {
            return Err(self.err("Miss fraction part in number."));
        }
        if self.eat(b'e') || self.eat(b'E') {
            let _ = self.eat(b'+') || self.eat(b'-');
            if !digits(self) {
                return Err(self.err("Miss exponent in number."));
            }
        }
        let text = std::str::from_utf8(&self.b[start..self.i]).unwrap_or("0");
        if text.parse::<f64>().is_ok_and(f64::is_infinite) {
            return Err(Invalid::Syntax(
                "Number too big to be stored in double.",
                start,
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(s: &str) -> (&'static str, usize) {
        match check(s.as_bytes()) {
            Err(Invalid::Syntax(m, at)) => (m, at),
            other => panic!("{s}: {other:?}"),
        }
    }

    #[test]
    fn valid_text_reads() {
        for s in [
            "1",
            " [1, 2.5e3, -0, true, false, null] ",
            r#"{"a": {"b": ["\u00e9\ud83d\ude00", "\n"]}, "": {}}"#,
            "\"é\"",
            "[]",
        ] {
            assert_eq!(check(s.as_bytes()), Ok(()), "{s}");
        }
        assert_eq!(
            parse(br#"{"a": 1, "a": 2}"#),
            Ok(serde_json::json!({"a": 2}))
        );
    }

    #[test]
    fn errors_are_rapidjsons() {
        // The manual's example (11.5 "The JSON Data Type"): `'[1, 2,'` is "Invalid value."
        // at position 6.
        assert_eq!(err("[1, 2,"), ("Invalid value.", 6));
        assert_eq!(err("not json"), ("Invalid value.", 1));
        assert_eq!(err("abc"), ("Invalid value.", 0));
        assert_eq!(err(""), ("The document is empty.", 0));
        assert_eq!(err("  "), ("The document is empty.", 2));
        assert_eq!(
            err("1 2"),
            ("The document root must not be followed by other values.", 2)
        );
        assert_eq!(err("{a: 1}"), ("Missing a name for object member.", 1));
        assert_eq!(
            err(r#"{"a" 1}"#),
            ("Missing a colon after a name of object member.", 5)
        );
        assert_eq!(
            err(r#"{"a": 1 "b": 2}"#),
            ("Missing a comma or '}' after an object member.", 8)
        );
        assert_eq!(
            err("[1 2]"),
            ("Missing a comma or ']' after an array element.", 3)
        );
        assert_eq!(err("[1,]"), ("Invalid value.", 3));
        assert_eq!(
            err(r#""abc"#),
            ("Missing a closing quotation mark in string.", 4)
        );
        assert_eq!(err(r#""a\x""#), ("Invalid escape character in string.", 2));
        assert_eq!(
            err(r#""\u12G4""#),
            ("Incorrect hex digit after \\u escape in string.", 1)
        );
        assert_eq!(
            err(r#""\ud800x""#),
            ("The surrogate pair in string is invalid.", 1)
        );
        assert_eq!(
            err("01"),
            ("The document root must not be followed by other values.", 1)
        );
        assert_eq!(err("1."), ("Miss fraction part in number.", 2));
        assert_eq!(err("1e+"), ("Miss exponent in number.", 3));
        assert_eq!(err("-"), ("Invalid value.", 1));
        assert_eq!(
            err("[1e400]"),
            ("Number too big to be stored in double.", 1)
        );
        assert_eq!(err("\"a\u{1}\""), ("Invalid encoding in string.", 2));
        assert_eq!(
            check(b"\"\xff\""),
            Err(Invalid::Syntax("Invalid encoding in string.", 1))
        );
        let deep = "[".repeat(101) + &"]".repeat(101);
        assert_eq!(check(deep.as_bytes()), Err(Invalid::TooDeep));
        let ok = "[".repeat(100) + &"]".repeat(100);
        assert_eq!(check(ok.as_bytes()), Ok(()));
    }
}
