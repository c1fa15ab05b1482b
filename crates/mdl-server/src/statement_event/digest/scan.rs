//! The digest lexer's byte scanners: each byte's classes, and where a word, a number, a quoted
//! string, a comment or a line ends (`sql/sql_lex.cc`'s states, each over the bytes).

/// A byte of a word: a letter, a digit, `_`, `$`, or one of a character of more than one byte.
pub(super) const WORD_BYTE: u8 = 1;
/// A byte a keyword may hold: a letter, a digit or `_`.
pub(super) const KEYWORD_BYTE: u8 = 2;
/// A byte a word starts with that no other token does: a word byte, not a digit.
pub(super) const WORD_START: u8 = 4;

/// Each byte's classes (`WORD_BYTE`, `KEYWORD_BYTE`, `WORD_START`): a load where four
/// comparisons were, for each byte of a statement.
pub(super) static BYTES: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        if b.is_ascii_digit() {
            t[c] = WORD_BYTE | KEYWORD_BYTE;
        } else if b.is_ascii_alphabetic() || b == b'_' {
            t[c] = WORD_BYTE | KEYWORD_BYTE | WORD_START;
        } else if b == b'$' || b >= 0x80 {
            t[c] = WORD_BYTE | WORD_START;
        }
        c += 1;
    }
    t
};

pub(super) fn is_word_byte(c: u8) -> bool {
    BYTES[usize::from(c)] & WORD_BYTE != 0
}

pub(super) fn word_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && is_word_byte(b[i]) {
        i += 1;
    }
    i
}

/// The end of the number at `i` (digits, a fraction, an exponent; `0x1F`, `0b01`), or `None`
/// when word bytes follow its digits: an identifier such as `1abc` (MY_LEX_NUMBER_IDENT).
pub(super) fn number_end(b: &[u8], mut i: usize) -> Option<usize> {
    let digits = |mut i: usize| {
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    };
    let radix = match (b.get(i), b.get(i + 1)) {
        (Some(b'0'), Some(b'x')) => Some(16),
        (Some(b'0'), Some(b'b')) => Some(2),
        _ => None,
    };
    if let Some(r) = radix {
        let mut j = i + 2;
        while b.get(j).is_some_and(|c| (*c as char).is_digit(r)) {
            j += 1;
        }
        return (j > i + 2 && !b.get(j).is_some_and(|&c| is_word_byte(c))).then_some(j);
    }
    i = digits(i);
    if b.get(i) == Some(&b'.') {
        i = digits(i + 1);
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(b.get(i + 1), Some(b'+' | b'-')));
        if b.get(i + 1 + sign).is_some_and(u8::is_ascii_digit) {
            i = digits(i + 1 + sign);
        }
    }
    (!b.get(i).is_some_and(|&c| is_word_byte(c))).then_some(i)
}

/// After the quoted string or identifier opened at `i`: its quote doubled or (not for a
/// backquote) escaped by a backslash stays inside.
pub(super) fn quoted_end(b: &[u8], i: usize) -> usize {
    let q = b[i];
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' if q != b'`' => j += 2,
            c if c == q && b.get(j + 1) == Some(&q) => j += 2,
            c if c == q => return j + 1,
            _ => j += 1,
        }
    }
    b.len()
}

/// How many doubled `q` quotes `s` holds.
pub(super) fn doubled(s: &str, q: u8) -> usize {
    let mut n = 0;
    let mut prev = false;
    for c in s.bytes() {
        if c == q && prev {
            n += 1;
            prev = false;
        } else {
            prev = c == q;
        }
    }
    n
}

/// After the comment whose text starts at `i`: its `*/`, a `/* */` inside it passed over when
/// `depth` allows one (`sql/sql_lex.cc`, `consume_comment`).
pub(super) fn comment_end(sql: &str, mut i: usize, mut depth: u32) -> usize {
    let b = sql.as_bytes();
    while i + 1 < b.len() {
        match (b[i], b[i + 1]) {
            (b'/', b'*') if depth > 0 => {
                depth -= 1;
                i = comment_end(sql, i + 2, 0);
            }
            (b'*', b'/') => return i + 2,
            _ => i += 1,
        }
    }
    b.len()
}

pub(super) fn line_end(b: &[u8], i: usize) -> usize {
    (b[i..].iter().position(|&c| c == b'\n')).map_or(b.len(), |e| i + e + 1)
}
