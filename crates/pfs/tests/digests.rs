//! The digests' index under concurrent registration (own binary: it sizes the digest buffer
//! before first use).
#![cfg(feature = "instrumentation")]

use pfs::{DigestRef, Sizing};

/// The `(schema, text)` pairs: the same texts in two schemas are two digests.
fn pairs() -> Vec<(Option<&'static str>, String)> {
    let texts: Vec<String> = (0..30)
        .map(|i| format!("SELECT `c` FROM `t{i}` WHERE `id` = ?"))
        .collect();
    [None, Some("db1")]
        .into_iter()
        .flat_map(|s| texts.iter().map(move |t| (s, t.clone())))
        .collect()
}

#[test]
fn threads_registering_at_once_agree_on_every_digest() {
    pfs::init(Sizing {
        max_digests: 64,
        ..Sizing::default()
    })
    .unwrap();
    let pairs = pairs();
    // Four threads register every pair, each in its own order, again and again.
    let seen: Vec<Vec<DigestRef>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4)
            .map(|k| {
                let pairs = &pairs;
                scope.spawn(move || {
                    let n = pairs.len();
                    let mut got = vec![DigestRef::default(); n];
                    // A step prime to the 60 pairs: each round visits every pair once.
                    let step = [1, 7, 11, 13][k];
                    for round in 0..50 {
                        for j in 0..n {
                            let i = (j * step + round) % n;
                            let (s, t) = &pairs[i];
                            let d = pfs::register_digest_in(*s, t);
                            if round > 0 {
                                assert_eq!(got[i], d, "pair {i} changed digest");
                            }
                            got[i] = d;
                        }
                    }
                    got
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(seen.iter().all(|g| *g == seen[0]), "threads disagree");
    let lost = DigestRef::default();
    assert!(seen[0].iter().all(|d| *d != lost), "none is lost");
    for (i, d) in seen[0].iter().enumerate() {
        assert!(
            seen[0][i + 1..].iter().all(|e| e != d),
            "each pair its own digest"
        );
    }

    // Past the buffer's 64: four more fit, the rest are lost, and the registered stay found.
    let more: Vec<DigestRef> = (0..10)
        .map(|i| pfs::register_digest(&format!("DELETE FROM `t{i}`")))
        .collect();
    assert_eq!(more.iter().filter(|d| **d != lost).count(), 4);
    assert!(more[4..].iter().all(|d| *d == lost));
    for (i, (s, t)) in pairs.iter().enumerate() {
        assert_eq!(pfs::register_digest_in(*s, t), seen[0][i]);
    }
    assert_eq!(pfs::register_digest("DELETE FROM `t0`"), more[0]);
}
