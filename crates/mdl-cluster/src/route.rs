//! Which etcd member a node sends its requests to: the leader, when it can tell.
//!
//! Every write is decided by etcd's leader. A write sent to a follower is forwarded to the
//! leader and answered only once the follower has applied it too, and a watch served by a
//! follower delivers an event only once the follower has learned of the commit; so a node
//! whose requests and watch go to the leader's endpoint waits less on a travelling lock's path
//! (intent, acknowledgements, their watch deliveries). With `prefer_leader` on (the default),
//! a node asks its configured endpoints which of them is the leader (each member's `Status`
//! names the leader and itself) when it joins, every [`LEADER_CHECK`], at the start of each
//! session and after any failed request, and sends its requests there. Until it knows, and as
//! soon as a request fails, requests go through the client balanced over every configured
//! endpoint, as with `prefer_leader` off. When requests move to a leader's endpoint that the
//! session's watch was not opened on, the session opens a new one there (`session.rs`: a
//! snapshot and a watch from the next revision, as after a broken watch).
//!
//! Only the configured endpoints are ever used (never a member's advertised URL): a node that
//! reaches etcd through a proxy keeps doing so. Which member serves a request changes no
//! guarantee the protocol relies on: every member's writes are linearizable and every member's
//! watch delivers events in revision order; a leader that has stepped down still answers, as a
//! follower, until the next check moves the node to the new one.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use etcd_client::{Client, ConnectOptions};
use tokio::sync::{watch, Notify};
use tokio::task::JoinSet;

use crate::config::ClusterConfig;
use crate::error::{ClusterError, Result};
use crate::node::{lock, Inner};

/// How often a node checks which member leads (a leader change is also noticed by the first
/// request that fails).
pub(crate) const LEADER_CHECK: Duration = Duration::from_secs(2);

/// The clients a node sends its requests through.
pub(crate) struct Route {
    /// Balanced over every configured endpoint; replaced at the start of each session after
    /// the first (a node that was cut off may hold a channel that gave up).
    balanced: Mutex<Client>,
    /// The leader's endpoint and a client of it alone, while it is known.
    leader: Mutex<Option<(String, Client)>>,
    /// Wakes the leader check at once (a request failed, a session starts).
    recheck: Notify,
    /// Bumped when requests move to a leader's endpoint (the session moves its watch there).
    moved: watch::Sender<u64>,
    /// The leader's endpoint the session's watch was opened on (`None`: balanced).
    watch_on: Mutex<Option<String>>,
}

fn options(config: &ClusterConfig) -> ConnectOptions {
    ConnectOptions::new()
        .with_connect_timeout(config.request_timeout)
        .with_timeout(config.request_timeout)
        .with_keep_alive(Duration::from_millis(500), config.request_timeout)
        // A member cut off from the others fails requests and ends watches rather than
        // answering from a state that no longer moves: a watch that only went quiet would
        // keep the node serving on a frozen view.
        .with_require_leader(true)
}

async fn connect<S: AsRef<str>>(config: &ClusterConfig, endpoints: &[S]) -> Result<Client> {
    tokio::time::timeout(
        config.request_timeout,
        Client::connect(endpoints, Some(options(config))),
    )
    .await
    .map_err(|_| ClusterError::Etcd("connect timed out".into()))?
    .map_err(ClusterError::from)
}

impl Route {
    /// Connects the balanced client.
    pub(crate) async fn connect(config: &ClusterConfig) -> Result<Route> {
        Ok(Route {
            balanced: Mutex::new(connect(config, &config.endpoints).await?),
            leader: Mutex::new(None),
            recheck: Notify::new(),
            moved: watch::channel(0).0,
            watch_on: Mutex::new(None),
        })
    }

    /// The client for the next request (cheap to clone).
    pub(crate) fn client(&self) -> Client {
        if let Some((_, c)) = lock(&self.leader).as_ref() {
            return c.clone();
        }
        lock(&self.balanced).clone()
    }

    /// The client for the next request, with the leader's endpoint if it goes there.
    pub(crate) fn current(&self) -> (Client, Option<String>) {
        if let Some((e, c)) = lock(&self.leader).as_ref() {
            return (c.clone(), Some(e.clone()));
        }
        (lock(&self.balanced).clone(), None)
    }

    /// Notes where the session's watch was opened.
    pub(crate) fn set_watch_on(&self, endpoint: Option<String>) {
        *lock(&self.watch_on) = endpoint;
    }

    /// The leader's endpoint the session's watch was opened on, if it was.
    pub(crate) fn watch_on(&self) -> Option<String> {
        lock(&self.watch_on).clone()
    }

    /// Tells when requests move to a leader's endpoint.
    pub(crate) fn moves(&self) -> watch::Receiver<u64> {
        self.moved.subscribe()
    }

    /// The endpoint requests go to, if it is the leader's.
    pub(crate) fn leader_endpoint(&self) -> Option<String> {
        lock(&self.leader).as_ref().map(|(e, _)| e.clone())
    }

    /// A request failed: use the balanced client until the leader is found again.
    pub(crate) fn failed(&self) {
        *lock(&self.leader) = None;
        self.recheck.notify_one();
    }

    /// Connects the balanced client again and looks for the leader anew.
    pub(crate) async fn reconnect(&self, config: &ClusterConfig) -> Result<()> {
        let c = connect(config, &config.endpoints).await?;
        *lock(&self.balanced) = c;
        self.failed();
        Ok(())
    }
}

/// Asks one endpoint whether it is the leader. Returns the client to keep for it (none if it
/// failed) and the answer.
async fn ask(
    config: ClusterConfig,
    endpoint: String,
    client: Option<Client>,
) -> (Option<Client>, bool) {
    let mut c = match client {
        Some(c) => c,
        None => match connect(&config, &[endpoint.as_str()]).await {
            Ok(c) => c,
            Err(_) => return (None, false),
        },
    };
    match tokio::time::timeout(config.request_timeout, c.status()).await {
        Ok(Ok(s)) => {
            let leads = s.header().is_some_and(|h| h.member_id() == s.leader());
            (Some(c), leads)
        }
        _ => (None, false),
    }
}

/// The node's leader check, until shutdown (started only with `prefer_leader`): asks the
/// endpoint that led last time first, and every endpoint at once if it no longer leads.
pub(crate) async fn follow_leader(inner: Arc<Inner>) {
    let mut shutdown = inner.shutdown.subscribe();
    let endpoints = inner.cfg.endpoints.clone();
    let mut clients: Vec<Option<Client>> = vec![None; endpoints.len()];
    let mut last: Option<usize> = None;
    loop {
        let mut found = None;
        if let Some(i) = last {
            let (c, leads) = ask(inner.cfg.clone(), endpoints[i].clone(), clients[i].take()).await;
            clients[i] = c;
            found = leads.then_some(i);
        }
        if found.is_none() {
            let mut asks = JoinSet::new();
            for (i, e) in endpoints.iter().enumerate() {
                let (cfg, e, c) = (inner.cfg.clone(), e.clone(), clients[i].take());
                asks.spawn(async move { (i, ask(cfg, e, c).await) });
            }
            // The first that leads ends the search (an endpoint that hangs is not waited for;
            // the clients of the asks dropped here are made again next time).
            while let Some(answer) = asks.join_next().await {
                if let Ok((i, (c, leads))) = answer {
                    clients[i] = c;
                    if leads {
                        found = Some(i);
                        break;
                    }
                }
            }
        }
        last = found;
        let next = found.and_then(|i| Some((endpoints[i].clone(), clients[i].clone()?)));
        let moved = {
            let mut l = lock(&inner.route.leader);
            let moved = next.is_some() && l.as_ref().map(|x| &x.0) != next.as_ref().map(|x| &x.0);
            *l = next;
            moved
        };
        if moved {
            inner.route.moved.send_modify(|n| *n += 1);
        }
        // At most one check per 100 ms, however many requests fail.
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_millis(100)) => {}
            _ = shutdown.changed() => return,
        }
        tokio::select! {
            _ = tokio::time::sleep(LEADER_CHECK) => {}
            _ = inner.route.recheck.notified() => {}
            _ = shutdown.changed() => return,
        }
    }
}
