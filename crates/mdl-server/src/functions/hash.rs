//! MySQL's digests (manual, 14.13 "Encryption and Compression Functions"; source
//! `sql/item_strfunc.cc`: `Item_func_md5`, `Item_func_sha`, `Item_func_sha2`;
//! `sql/item_func.cc`: `Item_func_crc32`): `MD5`, `SHA1`/`SHA`, `SHA2` as lowercase hex,
//! `CRC32` as an unsigned integer, all of the argument's bytes (a number's text). RustCrypto's
//! `md-5`, `sha1` and `sha2`, and `crc32fast`, do the hashing.

use md5::Md5;
use rusqlite::types::Value;
use sha1::Sha1;
use sha2::{Digest, Sha224, Sha256, Sha384, Sha512};

use super::{bytes, flags, int};

/// Registers the digests on `db`.
pub(super) fn register(db: &rusqlite::Connection) -> rusqlite::Result<()> {
    let f = flags(true);
    db.create_scalar_function("MD5", 1, f, |ctx| {
        Ok(bytes(ctx, 0).map_or(Value::Null, |b| hex::<Md5>(&b)))
    })?;
    for name in ["SHA1", "SHA"] {
        db.create_scalar_function(name, 1, f, |ctx| {
            Ok(bytes(ctx, 0).map_or(Value::Null, |b| hex::<Sha1>(&b)))
        })?;
    }
    db.create_scalar_function("SHA2", 2, f, |ctx| {
        Ok(match (bytes(ctx, 0), int(ctx, 1)) {
            (Some(b), Some(bits)) => sha2(&b, bits),
            _ => Value::Null,
        })
    })?;
    db.create_scalar_function("CRC32", 1, f, |ctx| {
        Ok(bytes(ctx, 0).map_or(Value::Null, |b| Value::Integer(crc32fast::hash(&b).into())))
    })
}

/// `SHA2(s, bits)`: SHA-224, -256 (also for 0), -384 or -512; NULL for other lengths, as
/// MySQL gives (with a warning).
fn sha2(b: &[u8], bits: i64) -> Value {
    match bits {
        0 | 256 => hex::<Sha256>(b),
        224 => hex::<Sha224>(b),
        384 => hex::<Sha384>(b),
        512 => hex::<Sha512>(b),
        _ => Value::Null,
    }
}

/// The digest `D` of `b` in lowercase hex.
fn hex<D: Digest>(b: &[u8]) -> Value
where
    sha2::digest::Output<D>: std::fmt::LowerHex,
{
    Value::Text(format!("{:x}", D::digest(b)))
}

#[cfg(test)]
mod tests {
    use super::super::tests::{db, eval};
    use super::*;

    #[test]
    fn digests_as_mysqls() {
        let db = db();
        let t = |s: &str| Value::Text(s.into());
        let cases = [
            // The manual's examples.
            ("MD5('testing')", t("ae2b1fca515949e5d54fb22b8ed95575")),
            ("SHA1('abc')", t("a9993e364706816aba3e25717850c26c9cd0d89d")),
            (
                "SHA2('abc', 224)",
                t("23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7"),
            ),
            (
                "SHA2('abc', 256)",
                t("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            ),
            (
                "SHA2('abc', 0)",
                t("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            ),
            ("CRC32('MySQL')", Value::Integer(3_259_397_556)),
            ("CRC32('mysql')", Value::Integer(2_501_908_538)),
            // Numbers hash as their text; blobs as their bytes.
            ("MD5(1) = MD5('1')", Value::Integer(1)),
            ("SHA(X'00ff') = SHA1(X'00ff')", Value::Integer(1)),
            (
                "length(SHA2('abc', 384)) + length(SHA2('abc', 512))",
                Value::Integer(96 + 128),
            ),
            ("SHA2('abc', 100)", Value::Null),
            ("SHA2('abc', NULL)", Value::Null),
            ("SHA2(NULL, 256)", Value::Null),
            ("MD5(NULL)", Value::Null),
            ("SHA1(NULL)", Value::Null),
            ("CRC32(NULL)", Value::Null),
            ("MD5('')", t("d41d8cd98f00b204e9800998ecf8427e")),
        ];
        for (expr, want) in cases {
            assert_eq!(eval(&db, expr), want, "{expr}");
        }
    }
}
