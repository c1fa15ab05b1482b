//! Real parts for tests, examples and benchmarks: etcd members started on free loopback ports
//! in a temporary directory (killed and removed when dropped, also when a test panics), and a
//! TCP proxy that can stop forwarding (a node "cut off" from etcd).
//!
//! Nothing here is a mock: [`EtcdCluster`] runs Debian's `etcd` binary (3.4+) found on `PATH`.

use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::copy_bidirectional;
use tokio::net::{TcpListener as AsyncListener, TcpStream};
use tokio::sync::watch;

/// Whether an `etcd` binary is on `PATH`.
pub fn etcd_on_path() -> bool {
    find_on_path("etcd").is_some()
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join(name))
            .find(|p| p.is_file())
    })
}

/// For tests that need etcd: `true` if it is there; otherwise prints a loud message and
/// returns `false` (the test should return), or panics when `MDL_CLUSTER_REQUIRE_ETCD` is set
/// (CI sets it, so a skipped cluster test fails the run).
pub fn etcd_or_skip(test: &str) -> bool {
    if etcd_on_path() {
        return true;
    }
    let msg = format!(
        "\n!!!!!!!! SKIPPED {test}: no `etcd` binary on PATH (Debian: apt-get install etcd-server) !!!!!!!!\n"
    );
    if std::env::var_os("MDL_CLUSTER_REQUIRE_ETCD").is_some() {
        panic!("{msg}MDL_CLUSTER_REQUIRE_ETCD is set: a cluster test may not be skipped");
    }
    eprintln!("{msg}");
    false
}

/// Whether the etcd member at `addr` reports itself healthy.
fn healthy(addr: SocketAddr) -> bool {
    use std::io::{Read, Write};
    let Ok(mut s) = std::net::TcpStream::connect_timeout(&addr, Duration::from_millis(500)) else {
        return false;
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
    if s.write_all(b"GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
        .is_err()
    {
        return false;
    }
    let mut body = String::new();
    let _ = s.read_to_string(&mut body);
    body.contains("\"health\":\"true\"")
}

/// A free TCP port on 127.0.0.1 (bound and released; the caller binds it soon after).
pub fn free_port() -> std::io::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

static DIRS: AtomicU64 = AtomicU64::new(0);

/// A temporary directory removed on drop.
#[derive(Debug)]
pub struct TempDir(PathBuf);

impl TempDir {
    /// A new empty directory under the system's temporary directory.
    pub fn new(tag: &str) -> std::io::Result<TempDir> {
        TempDir::new_in(&std::env::temp_dir(), tag)
    }

    /// A new empty directory under `base`.
    pub fn new_in(base: &Path, tag: &str) -> std::io::Result<TempDir> {
        let n = DIRS.fetch_add(1, Ordering::Relaxed);
        let p = base.join(format!("{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p)?;
        Ok(TempDir(p))
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

struct Member {
    name: String,
    client: u16,
    peer: u16,
    child: Option<Child>,
}

/// A running etcd cluster of 1..n members on loopback.
pub struct EtcdCluster {
    members: Vec<Member>,
    dir: TempDir,
    token: String,
    lease_checkpoint: bool,
}

impl EtcdCluster {
    /// Starts `n` members and waits until they serve (at most 30 s).
    ///
    /// # Errors
    /// An I/O error if `etcd` cannot be started or does not answer in time.
    pub fn start(n: usize) -> std::io::Result<EtcdCluster> {
        EtcdCluster::start_with(n, false)
    }

    /// [`EtcdCluster::start`], with lease checkpointing on or off
    /// (`--experimental-enable-lease-checkpoint` and `-persist`: a new leader keeps a lease's
    /// remaining TTL, as of the last checkpoint, instead of restarting it).
    ///
    /// # Errors
    /// As [`EtcdCluster::start`].
    pub fn start_with(n: usize, lease_checkpoint: bool) -> std::io::Result<EtcdCluster> {
        // The ports are found free and released before etcd binds them, so something else
        // can take one meanwhile (another test's member, an outgoing connection's source
        // port): a member that exits at its start is started again on new ports, at most
        // three times in all.
        let mut tries = 0;
        loop {
            tries += 1;
            match EtcdCluster::start_once(n, lease_checkpoint) {
                Err(e) if tries < 3 && e.kind() == std::io::ErrorKind::AddrInUse => {
                    eprintln!("{e}; starting the etcd cluster again on other ports");
                }
                r => return r,
            }
        }
    }

    fn start_once(n: usize, lease_checkpoint: bool) -> std::io::Result<EtcdCluster> {
        // Members keep their data in memory (/dev/shm) where there is one: etcd syncs its log
        // on every write, and a disk shared with other work makes that the slowest part.
        let shm = Path::new("/dev/shm");
        let dir = if shm.is_dir() {
            TempDir::new_in(shm, "mdl-etcd")?
        } else {
            TempDir::new("mdl-etcd")?
        };
        // Held until all are chosen, so that they differ.
        let held = (0..2 * n)
            .map(|_| TcpListener::bind("127.0.0.1:0"))
            .collect::<std::io::Result<Vec<_>>>()?;
        let mut ports = Vec::new();
        for l in &held {
            ports.push(l.local_addr()?.port());
        }
        drop(held);
        let members = ports
            .chunks(2)
            .enumerate()
            .map(|(i, p)| Member {
                name: format!("m{}", i + 1),
                client: p[0],
                peer: p[1],
                child: None,
            })
            .collect();
        let mut c = EtcdCluster {
            members,
            token: format!("mdl-{}", dir.path().display()),
            dir,
            lease_checkpoint,
        };
        for i in 0..n {
            c.spawn(i, "new")?;
        }
        c.wait_ready(Duration::from_secs(30))?;
        Ok(c)
    }

    fn spawn(&mut self, i: usize, state: &str) -> std::io::Result<()> {
        let initial: Vec<String> = self
            .members
            .iter()
            .map(|m| format!("{}=http://127.0.0.1:{}", m.name, m.peer))
            .collect();
        let m = &self.members[i];
        let data = self.dir.path().join(&m.name);
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.path().join(format!("{}.log", m.name)))?;
        let client = format!("http://127.0.0.1:{}", m.client);
        let peer = format!("http://127.0.0.1:{}", m.peer);
        let mut cmd = Command::new("etcd");
        cmd.arg("--name")
            .arg(&m.name)
            .arg("--data-dir")
            .arg(&data)
            .args([
                "--listen-client-urls",
                &client,
                "--advertise-client-urls",
                &client,
            ])
            .args([
                "--listen-peer-urls",
                &peer,
                "--initial-advertise-peer-urls",
                &peer,
            ])
            .args(["--initial-cluster", &initial.join(",")])
            .args(["--initial-cluster-state", state])
            .args(["--initial-cluster-token", &self.token])
            .args(["--heartbeat-interval", "50", "--election-timeout", "500"])
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log);
        if self.lease_checkpoint {
            // Debian's 3.4.23 crashes (a nil logger) when the first flag comes without the
            // second, whose warning it tries to log.
            cmd.arg("--experimental-enable-lease-checkpoint")
                .arg("--experimental-enable-lease-checkpoint-persist");
        }
        let child = cmd.spawn()?;
        self.members[i].child = Some(child);
        Ok(())
    }

    /// Waits until every running member accepts connections and a leader answers. A member
    /// that exits meanwhile is an error at once: `AddrInUse` when its log says a port was
    /// taken.
    fn wait_ready(&mut self, limit: Duration) -> std::io::Result<()> {
        let start = Instant::now();
        let dir = self.dir.path().to_path_buf();
        for m in self.members.iter_mut().filter(|m| m.child.is_some()) {
            let addr: SocketAddr = ([127, 0, 0, 1], m.client).into();
            while std::net::TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
                if let Some(status) = m.child.as_mut().and_then(|c| c.try_wait().ok().flatten()) {
                    m.child = None;
                    let log = std::fs::read_to_string(dir.join(format!("{}.log", m.name)))
                        .unwrap_or_default();
                    let kind = if log.contains("address already in use") {
                        std::io::ErrorKind::AddrInUse
                    } else {
                        std::io::ErrorKind::Other
                    };
                    let tail: Vec<&str> = log.lines().rev().take(3).collect();
                    return Err(std::io::Error::new(
                        kind,
                        format!(
                            "etcd member {} exited at its start ({status}): {}",
                            m.name,
                            tail.into_iter().rev().collect::<Vec<_>>().join(" / ")
                        ),
                    ));
                }
                if start.elapsed() > limit {
                    return Err(std::io::Error::other(format!(
                        "etcd member {} did not start; log in {}",
                        m.name,
                        dir.display()
                    )));
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            // etcd answers `GET /health` on its client URL once the cluster has a leader.
            while !healthy(addr) {
                if start.elapsed() > limit {
                    return Err(std::io::Error::other(format!(
                        "etcd member {} is not healthy; log in {}",
                        m.name,
                        dir.display()
                    )));
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        Ok(())
    }

    /// The client URLs of every member.
    pub fn endpoints(&self) -> Vec<String> {
        self.members
            .iter()
            .map(|m| format!("http://127.0.0.1:{}", m.client))
            .collect()
    }

    /// The index of the member that is the leader now (each member's `Status` names the
    /// leader and itself), if a running member says it leads.
    pub async fn leader(&self) -> Option<usize> {
        for (i, ep) in self.endpoints().iter().enumerate() {
            let Ok(mut c) = etcd_client::Client::connect([ep.as_str()], None).await else {
                continue;
            };
            if let Ok(s) = c.status().await {
                if s.header().is_some_and(|h| h.member_id() == s.leader()) {
                    return Some(i);
                }
            }
        }
        None
    }

    /// Hands etcd's leadership to member `to` (etcd's `MoveLeader`, sent to the leader): a
    /// leader change in which no member stops (etcd 3.4 still ends the old leader's watch
    /// streams about 2 s later).
    ///
    /// # Errors
    /// etcd's, or [`etcd_client::Error::InvalidArgs`] when no member leads.
    pub async fn move_leader(&self, to: usize) -> Result<(), etcd_client::Error> {
        let from = self
            .leader()
            .await
            .ok_or_else(|| etcd_client::Error::InvalidArgs("no leader".into()))?;
        let endpoints = self.endpoints();
        let mut target = etcd_client::Client::connect([endpoints[to].as_str()], None).await?;
        let id = target.status().await?.header().map_or(0, |h| h.member_id());
        let mut leader = etcd_client::Client::connect([endpoints[from].as_str()], None).await?;
        leader.move_leader(id).await?;
        Ok(())
    }

    /// The client address of member `i`.
    pub fn client_addr(&self, i: usize) -> SocketAddr {
        ([127, 0, 0, 1], self.members[i].client).into()
    }

    /// The number of members.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether the cluster has no member.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// Kills member `i` (SIGKILL) and waits for it to exit.
    pub fn kill_member(&mut self, i: usize) {
        if let Some(mut c) = self.members[i].child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Starts member `i` again with its data (after [`EtcdCluster::kill_member`]).
    ///
    /// # Errors
    /// As [`EtcdCluster::start`].
    pub fn restart_member(&mut self, i: usize) -> std::io::Result<()> {
        self.kill_member(i);
        self.spawn(i, "existing")?;
        self.wait_ready(Duration::from_secs(30))
    }
}

impl Drop for EtcdCluster {
    fn drop(&mut self) {
        for i in 0..self.members.len() {
            self.kill_member(i);
        }
    }
}

/// A TCP proxy on 127.0.0.1 in front of one address, that can stop forwarding: [`cut`] closes
/// every connection and refuses new ones until [`restore`].
///
/// [`cut`]: TcpProxy::cut
/// [`restore`]: TcpProxy::restore
pub struct TcpProxy {
    addr: SocketAddr,
    cut: Arc<watch::Sender<bool>>,
    task: tokio::task::JoinHandle<()>,
}

impl TcpProxy {
    /// Starts a proxy to `target` on a free port (within a tokio runtime).
    ///
    /// # Errors
    /// An I/O error if no port can be bound.
    pub async fn start(target: SocketAddr) -> std::io::Result<TcpProxy> {
        let listener = AsyncListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let cut = Arc::new(watch::channel(false).0);
        let c = cut.clone();
        let task = tokio::spawn(async move {
            loop {
                let inbound = match listener.accept().await {
                    Ok((inbound, _)) => inbound,
                    // A connection aborted before it was accepted (clients retry hard while
                    // cut off): keep listening.
                    Err(_) => {
                        tokio::time::sleep(Duration::from_millis(5)).await;
                        continue;
                    }
                };
                if *c.borrow() {
                    drop(inbound);
                    continue;
                }
                let mut cut_rx = c.subscribe();
                tokio::spawn(async move {
                    let Ok(mut outbound) = TcpStream::connect(target).await else {
                        return;
                    };
                    let mut inbound = inbound;
                    tokio::select! {
                        _ = copy_bidirectional(&mut inbound, &mut outbound) => {}
                        _ = cut_rx.wait_for(|cut| *cut) => {}
                    }
                });
            }
        });
        Ok(TcpProxy { addr, cut, task })
    }

    /// The proxy's URL for an etcd client.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stops forwarding: closes every connection, refuses new ones.
    pub fn cut(&self) {
        self.cut.send_replace(true);
    }

    /// Forwards again.
    pub fn restore(&self) {
        self.cut.send_replace(false);
    }
}

impl Drop for TcpProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}
