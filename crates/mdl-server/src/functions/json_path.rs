//! MySQL's JSON path expressions (MySQL 8.0 manual, "JSON Path Syntax" in 11.5 "The JSON Data
//! Type"; source `sql-common/json_path.cc`): `$`, then `.key`, `."quoted key"`, `.*`, `[n]`,
//! `[last]`, `[last - n]`, `[m to n]`, `[*]`, and `**` (any depth, followed by another leg),
//! spaces between.
//!
//! * `[0]`, `[last]` (and a range from 0) of a value that is no array select the value itself
//!   (MySQL's auto-wrapping, the manual's "Searching and Modifying JSON Values").
//! * A path with `*`, `**` or a range may select several values; [`seek`] gives them in
//!   document order, each once (MySQL removes the duplicates `**` makes, `Json_dom::seek`).
//! * [`Step`] is a concrete step of a found value's path, written back as MySQL writes a path
//!   (`$[1].a`, `$."a b"`: `Json_path::to_string`) for `JSON_SEARCH`.

use serde_json::Value as Json;

/// An array position: the `n`-th from the start, or from the end (`last - n`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Cell {
    pub from_last: bool,
    pub n: u64,
}

impl Cell {
    /// The position in an array of `len` elements; None before the start.
    pub(super) fn at(self, len: usize) -> Option<usize> {
        let n = usize::try_from(self.n).ok()?;
        if self.from_last {
            len.checked_sub(1)?.checked_sub(n)
        } else {
            Some(n)
        }
    }
}

/// One step of a path.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Leg {
    /// An object's member.
    Key(String),
    /// `.*`: every member.
    AnyKey,
    /// An array's element.
    Index(Cell),
    /// `[m to n]`.
    Range(Cell, Cell),
    /// `[*]`: every element.
    AnyIndex,
    /// `**`: the value and every value within it, at any depth.
    Ellipsis,
}

impl Leg {
    /// Whether the leg may select more than one value (refused where one is needed, 3149).
    pub(super) fn is_wild(&self) -> bool {
        !matches!(self, Leg::Key(_) | Leg::Index(_))
    }
}

/// Why a path is refused: malformed around this byte position (MySQL's 3143).
#[derive(Debug, PartialEq)]
pub(super) struct PathError(pub usize);

/// The legs of path `p`.
pub(super) fn parse(p: &str) -> Result<Vec<Leg>, PathError> {
    let b = p.as_bytes();
    let space = |mut i: usize| {
        while b.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        i
    };
    let mut i = space(0);
    if b.get(i) != Some(&b'$') {
        return Err(PathError(i));
    }
    let mut legs = Vec::new();
    loop {
        i = space(i + 1);
        match b.get(i) {
            None if legs.last() == Some(&Leg::Ellipsis) => return Err(PathError(i)),
            None => return Ok(legs),
            Some(b'.') => {
                i = space(i + 1);
                let (leg, end) = match b.get(i) {
                    Some(b'*') => (Leg::AnyKey, i + 1),
                    Some(b'"') => {
                        let (key, end) = quoted_key(b, i)?;
                        (Leg::Key(key), end)
                    }
                    _ => {
                        let rest = &p[i..];
                        let n = rest
                            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                            .unwrap_or(rest.len());
                        if n == 0 || rest.starts_with(|c: char| c.is_ascii_digit()) {
                            return Err(PathError(i));
                        }
                        (Leg::Key(rest[..n].to_string()), i + n)
                    }
                };
                legs.push(leg);
                i = end - 1;
            }
            Some(b'[') => {
                i = space(i + 1);
                if b.get(i) == Some(&b'*') {
                    i = space(i + 1);
                    if b.get(i) != Some(&b']') {
                        return Err(PathError(i));
                    }
                    legs.push(Leg::AnyIndex);
                    continue;
                }
                let (from, next) = cell(p, i)?;
                i = next;
                if b[i..].starts_with(b"to") {
                    let (to, next) = cell(p, space(i + 2))?;
                    i = next;
                    if b.get(i) != Some(&b']') {
                        return Err(PathError(i));
                    }
                    legs.push(Leg::Range(from, to));
                } else if b.get(i) == Some(&b']') {
                    legs.push(Leg::Index(from));
                } else {
                    return Err(PathError(i));
                }
            }
            Some(b'*') if b.get(i + 1) == Some(&b'*') && legs.last() != Some(&Leg::Ellipsis) => {
                legs.push(Leg::Ellipsis);
                i += 1;
            }
            Some(_) => return Err(PathError(i)),
        }
    }
}

/// An array position starting at `b[i]` (`n`, `last`, `last - n`), and where the spaces
/// after it end.
fn cell(p: &str, mut i: usize) -> Result<(Cell, usize), PathError> {
    let b = p.as_bytes();
    let space = |mut i: usize| {
        while b.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        i
    };
    let from_last = b[i..].starts_with(b"last");
    if from_last {
        i = space(i + 4);
        if b.get(i) != Some(&b'-') {
            return Ok((Cell { from_last, n: 0 }, i));
        }
        i = space(i + 1);
    }
    let digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    let n = p[i..i + digits].parse().map_err(|_| PathError(i))?;
    Ok((Cell { from_last, n }, space(i + digits)))
}

/// The key of a `."quoted key"` leg starting at `b[i]` (a `"`), and the end of the leg.
fn quoted_key(b: &[u8], i: usize) -> Result<(String, usize), PathError> {
    let mut j = i + 1;
    loop {
        match b.get(j) {
            None => return Err(PathError(i)),
            Some(b'\\') => j += 2,
            Some(b'"') => break,
            Some(_) => j += 1,
        }
    }
    let key = serde_json::from_slice(&b[i..=j]).map_err(|_| PathError(i))?;
    Ok((key, j + 1))
}

/// A concrete step of a found value's path.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Step {
    Key(String),
    Index(usize),
}

/// A path as MySQL writes one: a key that is no ECMAScript identifier is quoted.
pub(super) fn text(steps: &[Step]) -> String {
    let mut out = String::from("$");
    for s in steps {
        match s {
            Step::Index(n) => out.push_str(&format!("[{n}]")),
            Step::Key(k) => {
                let mut chars = k.chars();
                let plain = chars
                    .next()
                    .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
                    && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$');
                if plain {
                    out.push('.');
                    out.push_str(k);
                } else {
                    out.push('.');
                    out.push_str(&Json::from(k.as_str()).to_string());
                }
            }
        }
    }
    out
}

/// The values `legs` select in `v`, with their paths, in document order, each once.
pub(super) fn seek<'a>(v: &'a Json, legs: &[Leg]) -> Vec<(Vec<Step>, &'a Json)> {
    let mut out = Vec::new();
    walk(v, legs, &mut Vec::new(), &mut out);
    out
}

/// The one value a path without wildcards selects.
pub(super) fn select<'a>(v: &'a Json, legs: &[Leg]) -> Option<&'a Json> {
    seek(v, legs).into_iter().next().map(|(_, v)| v)
}

fn walk<'a>(v: &'a Json, legs: &[Leg], at: &mut Vec<Step>, out: &mut Vec<(Vec<Step>, &'a Json)>) {
    let Some((leg, rest)) = legs.split_first() else {
        if !out.iter().any(|(p, _)| p == at) {
            out.push((at.clone(), v));
        }
        return;
    };
    fn down<'a>(
        step: Step,
        child: &'a Json,
        legs: &[Leg],
        at: &mut Vec<Step>,
        out: &mut Vec<(Vec<Step>, &'a Json)>,
    ) {
        at.push(step);
        walk(child, legs, at, out);
        at.pop();
    }
    match (leg, v) {
        (Leg::Key(k), Json::Object(m)) => {
            if let Some(child) = m.get(k) {
                down(Step::Key(k.clone()), child, rest, at, out);
            }
        }
        (Leg::AnyKey, Json::Object(m)) => {
            for (k, child) in mysql_order(m) {
                down(Step::Key(k.clone()), child, rest, at, out);
            }
        }
        (Leg::Index(c), Json::Array(a)) => {
            if let Some(n) = c.at(a.len()).filter(|n| *n < a.len()) {
                down(Step::Index(n), &a[n], rest, at, out);
            }
        }
        (Leg::Range(from, to), Json::Array(a)) => {
            if let (Some(from), Some(to)) = (from.at(a.len()), to.at(a.len())) {
                let to = to.min(a.len().saturating_sub(1));
                for (n, child) in a.iter().enumerate().take(to + 1).skip(from) {
                    down(Step::Index(n), child, rest, at, out);
                }
            }
        }
        (Leg::AnyIndex, Json::Array(a)) => {
            for (n, child) in a.iter().enumerate() {
                down(Step::Index(n), child, rest, at, out);
            }
        }
        // Auto-wrapping: a value that is no array is an array of itself.
        (Leg::Index(c), other) if c.at(1) == Some(0) => walk(other, rest, at, out),
        (Leg::Range(from, _), other) if from.at(1) == Some(0) => walk(other, rest, at, out),
        (Leg::Ellipsis, _) => {
            walk(v, rest, at, out);
            match v {
                Json::Array(a) => {
                    for (n, child) in a.iter().enumerate() {
                        down(Step::Index(n), child, legs, at, out);
                    }
                }
                Json::Object(m) => {
                    for (k, child) in mysql_order(m) {
                        down(Step::Key(k.clone()), child, legs, at, out);
                    }
                }
                _ => {}
            }
        }
        _ => {}
    }
}

/// An object's members in MySQL's order: shorter keys first, then byte order (`json_binary.cc`
/// keeps them so).
pub(super) fn mysql_order(m: &serde_json::Map<String, Json>) -> Vec<(&String, &Json)> {
    let mut members: Vec<(&String, &Json)> = m.iter().collect();
    members.sort_by(|a, b| (a.0.len(), a.0.as_bytes()).cmp(&(b.0.len(), b.0.as_bytes())));
    members
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_parse_as_mysqls() {
        let key = |k: &str| Leg::Key(k.into());
        let idx = |n| {
            Leg::Index(Cell {
                from_last: false,
                n,
            })
        };
        let last = |n| Leg::Index(Cell { from_last: true, n });
        assert_eq!(parse("$"), Ok(vec![]));
        assert_eq!(parse(" $ "), Ok(vec![]));
        assert_eq!(parse("$.a.b"), Ok(vec![key("a"), key("b")]));
        assert_eq!(parse("$.a[1]"), Ok(vec![key("a"), idx(1)]));
        assert_eq!(parse("$ . a [ 2 ]"), Ok(vec![key("a"), idx(2)]));
        assert_eq!(parse(r#"$."a b".c"#), Ok(vec![key("a b"), key("c")]));
        assert_eq!(parse(r#"$."a\"b""#), Ok(vec![key("a\"b")]));
        assert_eq!(parse("$.é_$1"), Ok(vec![key("é_$1")]));
        assert_eq!(parse("$[last]"), Ok(vec![last(0)]));
        assert_eq!(parse("$[last - 2]"), Ok(vec![last(2)]));
        assert_eq!(parse("$[last-1][0]"), Ok(vec![last(1), idx(0)]));
        assert_eq!(parse("$.*"), Ok(vec![Leg::AnyKey]));
        assert_eq!(parse("$[*]"), Ok(vec![Leg::AnyIndex]));
        assert_eq!(parse("$**.a"), Ok(vec![Leg::Ellipsis, key("a")]));
        let c = |from_last, n| Cell { from_last, n };
        assert_eq!(
            parse("$[1 to last]"),
            Ok(vec![Leg::Range(c(false, 1), c(true, 0))])
        );
        for (p, at) in [
            ("", 0),
            ("a", 0),
            ("$.", 2),
            ("$.1a", 2),
            ("$.a-b", 3),
            ("$[-1]", 2),
            ("$[1", 3),
            ("$[99999999999999999999999]", 2),
            (r#"$."a"#, 2),
            (r#"$."a\"#, 2),
            ("$**", 3),
            ("$***.a", 3),
            ("$[1 to ]", 7),
        ] {
            assert_eq!(parse(p), Err(PathError(at)), "{p}");
        }
    }

    #[test]
    fn seek_finds_as_mysql() {
        let doc: Json =
            serde_json::from_str(r#"["abc", [{"k": "10"}, "def"], {"x": "abc"}, {"y": "bcd"}]"#)
                .unwrap();
        let found = |p: &str| -> Vec<String> {
            seek(&doc, &parse(p).unwrap())
                .iter()
                .map(|(s, _)| text(s))
                .collect()
        };
        assert_eq!(found("$[1][0].k"), ["$[1][0].k"]);
        assert_eq!(found("$**.k"), ["$[1][0].k"]);
        assert_eq!(found("$[*][0].k"), ["$[1][0].k"]);
        assert_eq!(found("$[2 to last].*"), ["$[2].x", "$[3].y"]);
        assert_eq!(found("$[0][0]"), ["$[0]"]);
        assert_eq!(found("$[9]"), Vec::<String>::new());
        assert_eq!(
            text(&[
                Step::Key("a b".into()),
                Step::Index(2),
                Step::Key("c".into())
            ]),
            r#"$."a b"[2].c"#
        );
    }
}
