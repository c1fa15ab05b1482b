//! The digest text of a text query, made as MySQL 8.0 makes it from the lexer's tokens
//! (`sql/sql_digest.cc`: `digest_add_token` stores and reduces them, `compute_digest_text`
//! prints them; each token's text comes from `sql/gen_lex_token.cc`):
//!
//! * a keyword (any word of `sql/lex.h`'s `symbols[]`, reserved or not) prints in capitals, as
//!   the last synonym of its token (`keywords.rs`: `INT` as `INTEGER`); a function name of that
//!   list (`COUNT`, `SUBSTRING`, `NOW`...) is a keyword only when a `(` follows at once;
//! * every other word is an identifier and prints in backquotes as written (`` `sbtest1` ``);
//!   a quoted one without its quotes' doubling; the word before a `.` and the one after it are
//!   identifiers whatever they spell (`sql/sql_lex.cc`, `MY_LEX_IDENT_SEP`/`MY_LEX_IDENT_START`);
//! * each literal (string, number, hex, bit; `NULL` where it is a value) is a `?`, a `-`/`+`
//!   before a number is dropped after a token that starts an expression, `?, ?` is `?, ...`,
//!   a parenthesized `(?)` / `(?, ...)` is `(?)` / `(...)`, a run of those is
//!   `(...) /* , ... */`, and `IN (...)` stays `IN (...)` whatever it lists;
//! * `@x` is `@?` (the lexer reads a user variable's name as a host name), `@@x` is
//!   ``@@`x` ``; tokens are joined by single spaces, none after `@`; comments are dropped and
//!   `/*!NNNNN ... */` is read as code up to this server's version;
//! * the tokens stop at `max_digest_length` (1024) bytes of MySQL's token array.
//!
//! Not followed: optimizer hints (`/*+ ... */`, printed by MySQL, dropped here as a comment),
//! `ANSI_QUOTES` (not kept by this server: `"x"` is a string), and `NULL` is told from a value
//! by the tokens before it where MySQL's grammar tells it (`literal: NULL_SYM`).
//!
//! A lexer over the bytes, not the parsed statement: the parse is the statement's already, and
//! printing a normalized copy of its tree cost a text query 15,000 instructions (clone, visit,
//! print) where lexing costs 2,100 for a sysbench point select and printing 600
//! (`docs/pfs-statements.md`).

mod keywords;
mod scan;
#[cfg(test)]
mod tests;

use keywords::{
    FUNCTIONS, FUNCTION_PREFIXES, FUNCTION_SLOTS, KEYWORDS, KEYWORD_PREFIXES, KEYWORD_SLOTS,
};
use scan::{
    comment_end, doubled, is_word_byte, line_end, number_end, quoted_end, word_end, BYTES,
    KEYWORD_BYTE, WORD_START,
};

/// MySQL's default `max_digest_length`: the bytes of its token array, a token taking 2 and an
/// identifier 4 more than its text (`sql/sql_digest.cc`, `store_token`,
/// `store_token_identifier`); the tokens past it are dropped.
const MAX_DIGEST_LENGTH: usize = 1024;

/// `MYSQL_VERSION_ID` of this server's version (`admin::VERSION`), which `/*!NNNNN ... */`
/// comments are compared to (`sql/sql_lex.cc`, `MY_LEX_LONG_COMMENT`).
const VERSION_ID: u32 = 80045;

/// One token of the digest, as MySQL stores it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Tok<'a> {
    /// A keyword, as it prints.
    Kw(&'static str),
    /// An identifier's text and the quote doubled inside it (`0`: none).
    Ident(&'a str, u8),
    /// An operator or a punctuation mark, as it prints.
    Sym(&'a str),
    /// `@`: no space after it (`gen_lex_token.cc`: `'@'` has no `m_append_space`).
    At,
    /// `TOK_GENERIC_VALUE` and the reduced forms of `reduce_digest_token`'s grammar.
    Value,
    ValueList,
    RowSingle,
    RowSingleList,
    RowMulti,
    RowMultiList,
    InValues,
    /// `_utf8mb4` and kin: `UNDERSCORE_CHARSET`, printed `(_charset)`.
    Charset,
}

impl Tok<'_> {
    /// Bytes in MySQL's token array.
    fn size(self) -> usize {
        match self {
            Tok::Ident(s, q) => 4 + s.len() - if q == 0 { 0 } else { doubled(s, q) },
            _ => 2,
        }
    }

    /// Is an expression next after it (`gen_lex_token.cc`, `set_start_expr_token`)? A `-`
    /// or `+` after such a token is a sign.
    fn starts_expr(self) -> bool {
        match self {
            Tok::Sym(s) => matches!(
                s,
                "(" | ","
                    | "|"
                    | "&"
                    | "+"
                    | "-"
                    | "*"
                    | "/"
                    | "%"
                    | "^"
                    | "<<"
                    | ">>"
                    | "||"
                    | "&&"
            ),
            Tok::Kw(k) => matches!(
                k,
                "EVERY"
                    | "AT"
                    | "STARTS"
                    | "ENDS"
                    | "DEFAULT"
                    | "RETURN"
                    | "IF"
                    | "ELSEIF"
                    | "CASE"
                    | "WHEN"
                    | "WHILE"
                    | "UNTIL"
                    | "SELECT"
                    | "OR"
                    | "XOR"
                    | "AND"
                    | "NOT"
                    | "BETWEEN"
                    | "LIKE"
                    | "RLIKE"
                    | "INTERVAL"
                    | "DIV"
                    | "MOD"
            ),
            _ => false,
        }
    }
}

/// The digest text of `sql` (see the module docs).
pub(crate) fn digest_text(sql: &str) -> String {
    let mut out = String::new();
    tokens(sql, Vec::new()).print(sql.len(), &mut out);
    out
}

/// `f` of the digest text of `sql`, printed into a buffer of the calling thread that keeps its
/// capacity, from a token array that keeps its own: a server's every text statement makes one,
/// and then looks it up (no allocation).
pub(crate) fn with_digest_text<R>(sql: &str, f: impl FnOnce(&str) -> R) -> R {
    thread_local! {
        static KEPT: std::cell::RefCell<(String, Vec<Tok<'static>>)> =
            const { std::cell::RefCell::new((String::new(), Vec::new())) };
    }
    KEPT.with(|k| {
        // A reentrant call (none today) gets buffers of its own rather than a panic.
        let mut own = (String::new(), Vec::new());
        let mut shared = k.try_borrow_mut();
        let (out, toks) = shared.as_deref_mut().unwrap_or(&mut own);
        let d = tokens(sql, std::mem::take(toks));
        out.clear();
        d.print(sql.len(), out);
        *toks = recycle(d.toks);
        f(out)
    })
}

/// `v`'s allocation, emptied, for tokens of another text: collecting an empty `Vec`'s
/// iterator into one of a type of the same layout reuses its buffer (std's in-place
/// collection; were it not to, the next statement would allocate, as before).
// `filter_map`, not `filter`: the items change type (their lifetime), with no panic path.
#[allow(clippy::unnecessary_filter_map)]
fn recycle<'b>(mut v: Vec<Tok<'_>>) -> Vec<Tok<'b>> {
    v.clear();
    v.into_iter().filter_map(|_| None).collect()
}

/// `sql`'s tokens, reduced, in `toks` (emptied first).
fn tokens<'a>(sql: &'a str, mut toks: Vec<Tok<'a>>) -> Digest<'a> {
    toks.clear();
    // At most one token per 2 bytes of MySQL's array is kept, however long the text.
    toks.reserve((sql.len() / 4 + 4).min(MAX_DIGEST_LENGTH / 2));
    let mut d = Digest {
        toks,
        ..Digest::default()
    };
    lex(sql, &mut d);
    if d.toks.last() == Some(&Tok::Sym(";")) {
        d.toks.pop();
    }
    d
}

/// The token array being built, `digest_add_token`'s reductions applied as each token comes.
#[derive(Default)]
struct Digest<'a> {
    toks: Vec<Tok<'a>>,
    /// Tokens before this index (up to the last identifier) are out of the reductions' reach.
    last_id: usize,
    bytes: usize,
    full: bool,
}

impl<'a> Digest<'a> {
    fn store(&mut self, t: Tok<'a>) {
        let n = t.size();
        if self.full || self.bytes + n > MAX_DIGEST_LENGTH {
            self.full = true;
            return;
        }
        self.bytes += n;
        self.toks.push(t);
        if matches!(t, Tok::Ident(..)) {
            self.last_id = self.toks.len();
        }
    }

    /// The `k`th token from the end, if after the last identifier (`peek_last_two_tokens`).
    fn peek(&self, k: usize) -> Option<Tok<'a>> {
        let i = self.toks.len().checked_sub(k + 1)?;
        (i >= self.last_id).then(|| self.toks[i])
    }

    /// Drop the last `n` tokens (never identifiers: 2 bytes each).
    fn pop(&mut self, n: usize) {
        self.toks.truncate(self.toks.len() - n);
        self.bytes -= 2 * n;
    }

    /// A number: a sign before it goes when the token before the sign starts an expression.
    fn number(&mut self) {
        while let (Some(Tok::Sym("-" | "+")), Some(t)) = (self.peek(0), self.peek(1)) {
            if !t.starts_expr() {
                break;
            }
            self.pop(1);
        }
        self.value();
    }

    /// A literal: `?`, or with `? ,` / `?, ... ,` before it, `?, ...`.
    fn value(&mut self) {
        if self.full {
            return;
        }
        if let (Some(Tok::Sym(",")), Some(Tok::Value | Tok::ValueList)) =
            (self.peek(0), self.peek(1))
        {
            self.pop(2);
            return self.store(Tok::ValueList);
        }
        self.store(Tok::Value)
    }

    /// `)`: `( ? )` is `(?)` and `( ?, ... )` is `(...)`; after `(?) ,` or `(...) ,` they make
    /// a list, and after `IN` they are `IN (...)`.
    fn close(&mut self) {
        if self.full {
            return;
        }
        let (one, list) = match (self.peek(0), self.peek(1)) {
            (Some(Tok::Value), Some(Tok::Sym("("))) => (Tok::RowSingle, Tok::RowSingleList),
            (Some(Tok::ValueList), Some(Tok::Sym("("))) => (Tok::RowMulti, Tok::RowMultiList),
            _ => return self.store(Tok::Sym(")")),
        };
        self.pop(2);
        let t = match (self.peek(0), self.peek(1)) {
            (Some(Tok::Sym(",")), Some(t)) if t == one || t == list => {
                self.pop(2);
                list
            }
            (Some(Tok::Kw("IN")), _) => {
                self.pop(1);
                Tok::InValues
            }
            _ => one,
        };
        self.store(t)
    }

    /// `NULL`: a value (`literal: NULL_SYM` reduces it, `sql/sql_yacc.yy`) unless it follows
    /// `IS`, `NOT` or `SET` (`IS NULL`, `NOT NULL`, `ON DELETE SET NULL`) or is a column's
    /// `NULL` attribute in a CREATE or ALTER, after its type.
    fn null(&mut self) {
        let ddl = matches!(self.toks.first(), Some(Tok::Kw("CREATE" | "ALTER")));
        let keyword = match self.toks.last() {
            Some(Tok::Kw("IS" | "NOT" | "SET")) => true,
            Some(t @ Tok::Kw(k)) => ddl && !t.starts_expr() && !matches!(*k, "THEN" | "ELSE"),
            Some(Tok::Sym(")") | Tok::Ident(..) | Tok::RowSingle | Tok::RowMulti) => ddl,
            _ => false,
        };
        if keyword {
            self.store(Tok::Kw("NULL"))
        } else {
            self.value()
        }
    }

    /// Appends the digest text to `out` (`len`: the statement's, to reserve for).
    fn print(&self, len: usize, out: &mut String) {
        // A hint, bounded: a kept buffer would otherwise keep room for the longest text the
        // thread ever digested, where only `MAX_DIGEST_LENGTH` bytes of its tokens print.
        out.reserve((len + len / 2 + 8).min(4 * MAX_DIGEST_LENGTH));
        let mut space = false;
        for t in &self.toks {
            let text = match *t {
                // `compute_digest_text` prints no empty identifier, and `...` for one too long
                // for its conversion to utf8 (NAME_LEN).
                Tok::Ident("", _) => continue,
                Tok::Ident(s, _) if s.len() > 64 => "...",
                Tok::Ident(..) => "",
                Tok::Kw(s) | Tok::Sym(s) => s,
                Tok::At => "@",
                Tok::Value => "?",
                Tok::ValueList => "?, ...",
                Tok::RowSingle => "(?)",
                Tok::RowSingleList => "(?) /* , ... */",
                Tok::RowMulti => "(...)",
                Tok::RowMultiList => "(...) /* , ... */",
                Tok::InValues => "IN (...)",
                Tok::Charset => "(_charset)",
            };
            if space {
                out.push(' ');
            }
            space = *t != Tok::At;
            match *t {
                Tok::Ident(s, q) if text.is_empty() => {
                    out.push('`');
                    if q == 0 {
                        out.push_str(s);
                    } else {
                        let q = q as char;
                        let mut prev = false;
                        for c in s.chars() {
                            // The second of a doubled quote is skipped.
                            if !(c == q && prev) {
                                out.push(c);
                            }
                            prev = c == q && !prev;
                        }
                    }
                    out.push('`');
                }
                _ => out.push_str(text),
            }
        }
    }
}

/// Feed `sql`'s tokens to `d` (`sql/sql_lex.cc`, `lex_one_token`).
fn lex<'a>(sql: &'a str, d: &mut Digest<'a>) {
    let b = sql.as_bytes();
    let mut i = 0;
    let mut in_code_comment = false;
    // After `word.`: the next word is an identifier, whatever it spells (MY_LEX_IDENT_START).
    let mut ident_next = false;
    while i < b.len() && !d.full {
        let c = b[i];
        let start = i;
        if std::mem::take(&mut ident_next) && is_word_byte(c) {
            i = word_end(b, i);
            i = ident_then_dot(sql, start, i, d, &mut ident_next);
            continue;
        }
        match c {
            // A word not a number's (the most common token, tested first).
            _ if BYTES[usize::from(c)] & WORD_START != 0 => i = word(sql, i, d, &mut ident_next),
            _ if c.is_ascii_whitespace() => i += 1,
            b'#' => i = line_end(b, i),
            b'-' if b.get(i + 1) == Some(&b'-')
                && b.get(i + 2)
                    .is_none_or(|c| c.is_ascii_whitespace() || c.is_ascii_control()) =>
            {
                i = line_end(b, i)
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                if b.get(i + 2) == Some(&b'!') {
                    i += 3;
                    let digits = b.get(i..i + 5).filter(|v| v.iter().all(u8::is_ascii_digit));
                    match digits.map(|v| v.iter().fold(0, |n, c| n * 10 + u32::from(c - b'0'))) {
                        // A later version's code is a comment, one comment deep inside.
                        Some(v) if v > VERSION_ID => i = comment_end(sql, i, 1),
                        Some(_) => {
                            i += 5;
                            in_code_comment = true;
                        }
                        None => in_code_comment = true,
                    }
                } else {
                    i = comment_end(sql, i + 2, 0);
                }
            }
            b'*' if in_code_comment && b.get(i + 1) == Some(&b'/') => {
                in_code_comment = false;
                i += 2;
            }
            b'\'' | b'"' => {
                i = quoted_end(b, i);
                d.value();
            }
            b'`' => {
                i = quoted_end(b, i);
                let end = if b[i - 1] == b'`' && i - 1 > start {
                    i - 1
                } else {
                    i
                };
                let s = &sql[start + 1..end.max(start + 1)];
                d.store(Tok::Ident(s, if s.contains('`') { b'`' } else { 0 }));
            }
            b'?' => {
                i += 1;
                d.value();
            }
            b'0'..=b'9' => match number_end(b, i) {
                Some(end) => {
                    i = end;
                    d.number();
                }
                // `1abc`: an identifier (MY_LEX_NUMBER_IDENT).
                None => {
                    i = word_end(b, i);
                    i = ident_then_dot(sql, start, i, d, &mut ident_next);
                }
            },
            b'.' if b.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                i = number_end(b, i).unwrap_or(i + 1);
                d.number();
            }
            b'.' => {
                i += 1;
                d.store(Tok::Sym("."));
                ident_next = b.get(i).is_some_and(|&c| is_word_byte(c));
            }
            b'@' => i = at(sql, i, d, &mut ident_next),
            _ => {
                let (op, n) = operator(&b[i..]);
                i += n;
                if op == Some(")") {
                    d.close()
                } else {
                    d.store(Tok::Sym(op.unwrap_or(&sql[start..i])))
                }
            }
        }
    }
}

/// A word at `i`: a literal's prefix, a keyword, a charset introducer or an identifier.
fn word<'a>(sql: &'a str, i: usize, d: &mut Digest<'a>, ident_next: &mut bool) -> usize {
    let b = sql.as_bytes();
    let end = word_end(b, i);
    if b.get(i + 1) == Some(&b'\'') {
        match b[i] {
            // N'text', X'0A', B'01' (MY_LEX_IDENT_OR_NCHAR / _HEX / _BIN).
            b'n' | b'N' => return done(quoted_end(b, i + 1), || d.value()),
            b'x' | b'X' | b'b' | b'B' => return done(quoted_end(b, i + 1), || d.number()),
            _ => {}
        }
    }
    let w = &sql[i..end];
    if b.get(end) == Some(&b'.') && b.get(end + 1).is_some_and(|&c| is_word_byte(c)) {
        return ident_then_dot(sql, i, end, d, ident_next);
    }
    match keyword(w.as_bytes(), b.get(end) == Some(&b'(')) {
        Some("NULL") => d.null(),
        Some(k) => d.store(Tok::Kw(k)),
        None if w.starts_with('_') && is_charset(&w[1..]) => d.store(Tok::Charset),
        None => d.store(Tok::Ident(w, 0)),
    }
    end
}

/// `f()` at `at`, returned.
fn done(at: usize, f: impl FnOnce()) -> usize {
    f();
    at
}

/// The identifier `sql[start..end]`; a `.` right after it, before a word, is stored too and
/// makes that word an identifier.
fn ident_then_dot<'a>(
    sql: &'a str,
    start: usize,
    end: usize,
    d: &mut Digest<'a>,
    ident_next: &mut bool,
) -> usize {
    d.store(Tok::Ident(&sql[start..end], 0));
    dot(sql.as_bytes(), end, d, ident_next)
}

/// A `.` at `i` before a word byte: stored, and the word is an identifier (MY_LEX_IDENT_SEP).
fn dot(b: &[u8], i: usize, d: &mut Digest, ident_next: &mut bool) -> usize {
    if b.get(i) == Some(&b'.') && b.get(i + 1).is_some_and(|&c| is_word_byte(c)) {
        d.store(Tok::Sym("."));
        *ident_next = true;
        return i + 1;
    }
    i
}

/// `@` at `i`: `@@name` (a keyword or an identifier, `MY_LEX_IDENT_OR_KEYWORD`), `@'x'` /
/// ``@`x` `` (the quoted token follows), or `@name`, read as a host name: a value
/// (`MY_LEX_USER_END`, `MY_LEX_HOSTNAME`; `LEX_HOSTNAME` is a literal to the digest).
fn at<'a>(sql: &'a str, i: usize, d: &mut Digest<'a>, ident_next: &mut bool) -> usize {
    let b = sql.as_bytes();
    d.store(Tok::At);
    match b.get(i + 1) {
        Some(b'\'' | b'"' | b'`') => i + 1,
        Some(b'@') => {
            d.store(Tok::At);
            let start = i + 2;
            if b.get(start) == Some(&b'`') {
                return start;
            }
            let end = word_end(b, start);
            let w = &sql[start..end];
            match keyword(w.as_bytes(), false) {
                Some(k) => d.store(Tok::Kw(k)),
                None => d.store(Tok::Ident(w, 0)),
            }
            dot(b, end, d, ident_next)
        }
        _ => {
            let mut j = i + 1;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b"._$".contains(&b[j])) {
                j += 1;
            }
            d.value();
            j
        }
    }
}

/// The keyword `word` spells (any case), as it prints; function names only when `function`
/// (a `(` follows). Put in capitals on the stack, its first 16 bytes a number: a hash-table
/// lookup of a slot or two, no allocation.
fn keyword(word: &[u8], function: bool) -> Option<&'static str> {
    let mut up = [0u8; 40];
    let n = word.len();
    if n == 0 || n > up.len() {
        return None;
    }
    for (u, &c) in up.iter_mut().zip(word) {
        if BYTES[usize::from(c)] & KEYWORD_BYTE == 0 {
            return None;
        }
        *u = c.to_ascii_uppercase();
    }
    let p = keywords::prefix(&up[..16]);
    let up = &up[..n];
    find(&KEYWORD_SLOTS, &KEYWORD_PREFIXES, &KEYWORDS, p, up).or_else(|| {
        function
            .then(|| find(&FUNCTION_SLOTS, &FUNCTION_PREFIXES, &FUNCTIONS, p, up))
            .flatten()
    })
}

/// `up` (its prefix `p`) in `table`, as it prints: the slots from `p`'s first on, until an
/// empty one (a table's length is a power of two).
fn find(
    slots: &[u16],
    prefixes: &[u128],
    table: &'static [(&'static str, &'static str)],
    p: u128,
    up: &[u8],
) -> Option<&'static str> {
    let mut s = keywords::slot(p, slots.len());
    loop {
        let i = usize::from(*slots.get(s)?).checked_sub(1)?;
        let (k, print) = *table.get(i)?;
        if prefixes.get(i) == Some(&p)
            && k.len() == up.len()
            && (up.len() <= 16 || k.as_bytes() == up)
        {
            return Some(if print.is_empty() { k } else { print });
        }
        s = (s + 1) & (slots.len() - 1);
    }
}

/// MySQL's character sets, for `_name` introducers (`get_charset_by_csname`).
fn is_charset(name: &str) -> bool {
    const CHARSETS: [&str; 42] = [
        "armscii8", "ascii", "big5", "binary", "cp1250", "cp1251", "cp1256", "cp1257", "cp850",
        "cp852", "cp866", "cp932", "dec8", "eucjpms", "euckr", "gb18030", "gb2312", "gbk",
        "geostd8", "greek", "hebrew", "hp8", "keybcs2", "koi8r", "koi8u", "latin1", "latin2",
        "latin5", "latin7", "macce", "macroman", "sjis", "swe7", "tis620", "ucs2", "ujis", "utf16",
        "utf16le", "utf32", "utf8", "utf8mb3", "utf8mb4",
    ];
    name.len() <= 8 && CHARSETS.iter().any(|c| c.eq_ignore_ascii_case(name))
}

/// An operator at the start of `b` and its length: a known one as it prints (`<>` as `!=`,
/// `sql/lex.h`'s last `NE` symbol), else one byte (`None`: print it as written).
fn operator(b: &[u8]) -> (Option<&'static str>, usize) {
    const OPERATORS: [(&str, &str); 12] = [
        ("<=>", "<=>"),
        ("->>", "->>"),
        ("<=", "<="),
        (">=", ">="),
        ("<>", "!="),
        ("!=", "!="),
        (":=", ":="),
        ("||", "||"),
        ("&&", "&&"),
        ("<<", "<<"),
        (">>", ">>"),
        ("->", "->"),
    ];
    if let Some((op, p)) = OPERATORS
        .iter()
        .find(|(op, _)| b.starts_with(op.as_bytes()))
    {
        return (Some(p), op.len());
    }
    // A byte of more than one (not ASCII) is a word's: never here.
    (if b[0] == b')' { Some(")") } else { None }, 1)
}
