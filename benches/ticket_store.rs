//! The cost of one more lock in a context that already holds N, hashed ticket store vs linear
//! list (MySQL Bug #83143): every acquisition first looks for a ticket the context holds on the
//! same key (`find_ticket`); the linear list scans all N, the hash index does not.
//!
//! ```text
//! cargo bench --bench ticket_store
//! ```

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use mysql_mdl::{
    LockDuration, LockType, MdlConfig, MdlKey, MdlManager, MdlRequest, Namespace, TicketIndex,
};

fn ticket_store(c: &mut Criterion) {
    for (name, index) in [
        ("hashed", TicketIndex::Hashed),
        ("linear", TicketIndex::LinearList),
    ] {
        let mut g = c.benchmark_group(format!("ticket_store/{name}"));
        g.sample_size(20)
            .warm_up_time(Duration::from_millis(200))
            .measurement_time(Duration::from_millis(600));
        for n in [16usize, 256, 1024, 4096] {
            let mgr = MdlManager::new(
                MdlConfig::builder()
                    .ticket_index(index)
                    .build()
                    .expect("a valid configuration"),
            )
            .expect("valid config");
            let mut ctx = mgr.new_context();
            for i in 0..n {
                let k = MdlKey::new(Namespace::Table, "db", &format!("t{i}")).expect("short");
                ctx.acquire(
                    &MdlRequest::new(k, LockType::SharedRead, LockDuration::Transaction),
                    Duration::from_secs(1),
                )
                .expect("uncontended");
            }
            let probe = MdlRequest::new(
                MdlKey::new(Namespace::Table, "db", "not_held").expect("short"),
                LockType::SharedRead,
                LockDuration::Statement,
            );
            g.bench_with_input(BenchmarkId::new("held", n), &n, |b, _| {
                b.iter(|| {
                    ctx.acquire(&probe, Duration::from_secs(1))
                        .expect("uncontended");
                    ctx.release_statement_locks();
                })
            });
            ctx.release_transactional_locks();
        }
        g.finish();
    }
}

criterion_group!(benches, ticket_store);
criterion_main!(benches);
