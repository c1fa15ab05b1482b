//! The real command-line clients (Debian's `mariadb-client`: `mariadb`, `mariadb-dump`,
//! `mariadb-slap`, or their `mysql*` names; Debian's `sysbench`), found on PATH and run bounded
//! in time. A test that
//! needs one is skipped, loudly, on a machine without it; `MDL_SERVER_REQUIRE_CLIENTS=1` (CI,
//! which installs them) makes that a failure.

use std::process::{Command, Stdio};

/// The first of `names` on PATH.
fn tool(names: &[&str]) -> Option<String> {
    names.iter().map(|n| n.to_string()).find(|n| {
        Command::new("sh")
            .args(["-c", &format!("command -v {n}")])
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

/// One program for each list of alternative names, or `None` after a loud skip message for
/// `test` (a failure under `MDL_SERVER_REQUIRE_CLIENTS`).
pub fn tools_or_skip<const N: usize>(test: &str, wanted: [&[&str]; N]) -> Option<[String; N]> {
    let found: Vec<Option<String>> = wanted.iter().map(|names| tool(names)).collect();
    if found.iter().all(Option::is_some) {
        return Some(std::array::from_fn(|i| found[i].clone().expect("found")));
    }
    let missing: Vec<String> = (wanted.iter().zip(&found))
        .filter(|(_, f)| f.is_none())
        .map(|(names, _)| names.join("/"))
        .collect();
    assert!(
        std::env::var_os("MDL_SERVER_REQUIRE_CLIENTS").is_none(),
        "MDL_SERVER_REQUIRE_CLIENTS is set, but {} is not on PATH",
        missing.join(", ")
    );
    // Straight to stderr, past the test harness's capture of `eprintln!`: a skip is seen.
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "\n*** SKIPPED {test}: no {} on PATH (Debian: apt-get install {}) ***\n",
        missing.join(", "),
        if missing.iter().any(|m| m.contains("sysbench")) {
            "mariadb-client sysbench"
        } else {
            "mariadb-client"
        }
    );
    None
}

/// Runs `program args` (stdin from `input`), at most 60 s; its stdout. Panics, with its stderr,
/// unless it exits with success.
pub fn run(program: &str, args: &[String], input: Option<&str>) -> String {
    let mut cmd = Command::new("timeout");
    cmd.arg("60").arg(program).args(args);
    cmd.stdin(if input.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    if let Some(text) = input {
        use std::io::Write;
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(text.as_bytes())
            .expect("write");
    }
    let out = child.wait_with_output().expect("wait");
    assert!(
        out.status.success(),
        "{program} {args:?}: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// Runs the sysbench Lua `script` once (one event, one thread) against the server at `port`,
/// schema `db`, off the async runtime; its stdout.
pub async fn sysbench_script(sysbench: String, port: u16, db: &str, script: &str) -> String {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("script.lua");
    std::fs::write(&path, script).expect("write script");
    let args: Vec<String> = vec![
        path.to_str().expect("utf-8 path").to_string(),
        "--db-driver=mysql".into(),
        "--mysql-host=127.0.0.1".into(),
        format!("--mysql-port={port}"),
        "--mysql-user=root".into(),
        format!("--mysql-db={db}"),
        "--events=1".into(),
        "--threads=1".into(),
        "--time=0".into(),
        "run".into(),
    ];
    let out = tokio::task::spawn_blocking(move || run(&sysbench, &args, None))
        .await
        .expect("sysbench task");
    drop(dir);
    out
}
