//! SQL `LIKE` patterns for instrument names: `%` matches any run of characters, `_` exactly one,
//! `\` escapes the next character. Matching is case-sensitive (PFS names are compared in a binary
//! collation) and runs in O(pattern × name) without recursion.

use crate::error::PfsError;

/// Longest accepted pattern, in bytes.
pub const MAX_PATTERN_LEN: usize = 512;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok {
    Any,
    One,
    Lit(char),
}

/// A parsed `LIKE` pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    text: String,
    toks: Vec<Tok>,
}

impl Pattern {
    /// Parse a pattern; refuses empty or over-long patterns and a trailing lone `\`.
    pub fn parse(pattern: &str) -> Result<Pattern, PfsError> {
        let bad = |reason| PfsError::BadPattern {
            pattern: pattern.to_string(),
            reason,
        };
        if pattern.is_empty() {
            return Err(bad("empty pattern"));
        }
        if pattern.len() > MAX_PATTERN_LEN {
            return Err(bad("pattern longer than 512 bytes"));
        }
        let mut toks = Vec::with_capacity(pattern.len());
        let mut chars = pattern.chars();
        while let Some(c) = chars.next() {
            match c {
                '%' => {
                    if toks.last() != Some(&Tok::Any) {
                        toks.push(Tok::Any);
                    }
                }
                '_' => toks.push(Tok::One),
                '\\' => match chars.next() {
                    Some(e) => toks.push(Tok::Lit(e)),
                    None => return Err(bad("pattern ends with an escape character")),
                },
                c => toks.push(Tok::Lit(c)),
            }
        }
        Ok(Pattern {
            text: pattern.to_string(),
            toks,
        })
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Does the pattern contain no wildcard (an exact name)?
    pub fn is_exact(&self) -> bool {
        self.toks.iter().all(|t| matches!(t, Tok::Lit(_)))
    }

    /// Does `name` match the whole pattern?
    pub fn matches(&self, name: &str) -> bool {
        let s: Vec<char> = name.chars().collect();
        let p = &self.toks;
        let (mut si, mut pi) = (0usize, 0usize);
        // Position of the last `%` seen and the name position it is currently absorbing up to.
        let mut star: Option<(usize, usize)> = None;
        while si < s.len() {
            match p.get(pi) {
                Some(Tok::One) => {
                    si += 1;
                    pi += 1;
                }
                Some(Tok::Lit(c)) if *c == s[si] => {
                    si += 1;
                    pi += 1;
                }
                Some(Tok::Any) => {
                    star = Some((pi, si));
                    pi += 1;
                }
                _ => match star {
                    Some((sp, ss)) => {
                        pi = sp + 1;
                        si = ss + 1;
                        star = Some((sp, ss + 1));
                    }
                    None => return false,
                },
            }
        }
        p[pi..].iter().all(|t| *t == Tok::Any)
    }
}

/// Convenience: does `name` match the `LIKE` pattern `pattern`? A bad pattern is an error.
pub fn like(pattern: &str, name: &str) -> Result<bool, PfsError> {
    Ok(Pattern::parse(pattern)?.matches(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, s: &str) -> bool {
        Pattern::parse(p).unwrap().matches(s)
    }

    #[test]
    fn like_basics() {
        assert!(m("%", ""));
        assert!(m("%", "anything"));
        assert!(m("wait/synch/%", "wait/synch/mutex/sql/LOCK_open"));
        assert!(!m("wait/synch/%", "wait/io/table/sql/handler"));
        assert!(m("wait/%/table/%", "wait/io/table/sql/handler"));
        assert!(m("wait/%/table/%", "wait/lock/table/sql/handler"));
        assert!(!m("wait/%/table/%", "wait/lock/metadata/sql/mdl"));
        assert!(m(
            "%synch%",
            "wait/synch/cond/sql/MDL_context::COND_wait_status"
        ));
        assert!(m("idle", "idle"));
        assert!(!m("idle", "idles"));
        assert!(!m("idle", "Idle"));
        assert!(m("id_e", "idle"));
        assert!(!m("id_e", "ide"));
        assert!(m("a%b%c", "aXXbYYc"));
        assert!(!m("a%b%c", "aXXbYY"));
        assert!(m("%a%a%a", "aaaa"));
        assert!(m(
            "stage/sql/copy to tmp table",
            "stage/sql/copy to tmp table"
        ));
    }

    #[test]
    fn escapes_and_errors() {
        assert!(m("a\\%b", "a%b"));
        assert!(!m("a\\%b", "aXb"));
        assert!(m("a\\_b", "a_b"));
        assert!(!m("a\\_b", "aXb"));
        assert!(Pattern::parse("").is_err());
        assert!(Pattern::parse("abc\\").is_err());
        assert!(Pattern::parse(&"x".repeat(600)).is_err());
        assert!(Pattern::parse("a\\%").unwrap().is_exact());
        assert!(!Pattern::parse("a%").unwrap().is_exact());
        assert!(like("%", "x").unwrap());
    }
}
