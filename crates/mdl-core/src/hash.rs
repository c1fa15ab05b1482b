//! Deterministic hash functions: MurmurHash3 (x86, 32-bit) as MySQL 5.6.15+ and 8.0 use it for
//! the lock map and the ticket index, and 5.6.14's `my_hash_sort_bin`, whose poor low bits put
//! every sysbench table into the same partition.

use std::hash::{BuildHasherDefault, Hasher};

/// MurmurHash3 x86_32 of `data` with `seed` (MySQL's `murmur3_32`).
pub(crate) fn murmur3_32(data: &[u8], seed: u32) -> u32 {
    const C1: u32 = 0xcc9e_2d51;
    const C2: u32 = 0x1b87_3593;
    let mut h = seed;
    let mut chunks = data.chunks_exact(4);
    for chunk in &mut chunks {
        let mut k = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        k = k.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2);
        h ^= k;
        h = h.rotate_left(13).wrapping_mul(5).wrapping_add(0xe654_6b64);
    }
    let tail = chunks.remainder();
    let mut k = 0u32;
    for (i, &b) in tail.iter().enumerate() {
        k ^= (b as u32) << (8 * i);
    }
    if !tail.is_empty() {
        k = k.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2);
        h ^= k;
    }
    h ^= data.len() as u32;
    fmix32(h)
}

fn fmix32(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^= h >> 16;
    h
}

/// MySQL 5.6's `my_hash_sort_bin` as the pre-5.6.15 partition hash used it (`nr1 = 1`,
/// `nr2 = 4`, 64-bit `ulong` arithmetic, truncated to 32 bits).
pub(crate) fn mysql_hash_sort_bin(data: &[u8]) -> u32 {
    let mut nr1: u64 = 1;
    let mut nr2: u64 = 4;
    for &b in data {
        nr1 ^= ((nr1 & 63).wrapping_add(nr2))
            .wrapping_mul(b as u64)
            .wrapping_add(nr1 << 8);
        nr2 = nr2.wrapping_add(3);
    }
    nr1 as u32
}

/// A `Hasher` for keys that already carry a good 32-bit hash: it spreads the value over 64 bits
/// (murmur3's `fmix64`) so hashbrown's top-bit tags are useful.
#[derive(Default, Clone, Copy)]
pub(crate) struct PrehashedHasher(u64);

impl Hasher for PrehashedHasher {
    fn finish(&self) -> u64 {
        let mut k = self.0;
        k ^= k >> 33;
        k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
        k ^= k >> 33;
        k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        k ^ (k >> 33)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ b as u64;
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.0 = (self.0 << 32) ^ n as u64;
    }

    fn write_u64(&mut self, n: u64) {
        self.0 ^= n;
    }
}

pub(crate) type BuildPrehashed = BuildHasherDefault<PrehashedHasher>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn murmur3_reference_vectors() {
        // Published MurmurHash3_x86_32 test vectors.
        assert_eq!(murmur3_32(b"", 0), 0);
        assert_eq!(murmur3_32(b"", 1), 0x514E_28B7);
        assert_eq!(murmur3_32(b"", 0xffff_ffff), 0x81F1_6F39);
        assert_eq!(murmur3_32(&[0, 0, 0, 0], 0), 0x2362_F9DE);
        assert_eq!(murmur3_32(b"aaaa", 0x9747_b28c), 0x5A97_808A);
        assert_eq!(murmur3_32(b"abc", 0), 0xB3DD_93FA);
        assert_eq!(murmur3_32(b"Hello, world!", 0x9747_b28c), 0x2488_4CBA);
        assert_eq!(
            murmur3_32(b"The quick brown fox jumps over the lazy dog", 0x9747_b28c),
            0x2FA8_26CD
        );
    }
}
