//! Helpers of the model tests: a context in its own thread that can block in `acquire`, so a
//! sequence can have pending requests.

use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use mdl_core::{ContextId, KillHandle, KillScope, MdlError, MdlManager, MdlRequest};
use mdl_reference::model::TicketId;

/// What the harness asks a helper to do.
pub enum Cmd {
    /// Acquire with a long timeout (it may block).
    Acquire(MdlRequest),
    /// Release what the last acquire got.
    Release,
    /// End the thread.
    Stop,
}

/// A context on its own thread.
pub struct Helper {
    pub tx: Sender<Cmd>,
    pub rx: Receiver<Result<(), MdlError>>,
    pub kill: KillHandle,
    pub id: ContextId,
    join: Option<JoinHandle<()>>,
    pub state: HState,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HState {
    Idle,
    Pending(TicketId),
    Holding(TicketId),
}

impl Helper {
    pub fn spawn(mgr: &Arc<MdlManager>) -> Helper {
        let (tx, crx) = channel::<Cmd>();
        let (rtx, rx) = channel();
        let (itx, irx) = channel();
        let mgr = mgr.clone();
        let join = std::thread::spawn(move || {
            let mut ctx = mgr.new_context();
            itx.send((ctx.kill_handle(), ctx.id())).unwrap();
            let mut held = None;
            while let Ok(cmd) = crx.recv() {
                match cmd {
                    Cmd::Acquire(req) => {
                        let r = ctx.acquire(&req, Duration::from_secs(120));
                        if matches!(r, Err(MdlError::Killed(_))) {
                            ctx.reset_kill();
                        }
                        held = r.as_ref().ok().copied();
                        let _ = rtx.send(r.map(|_| ()));
                    }
                    Cmd::Release => {
                        let r = match held.take() {
                            Some(t) => ctx.release(t),
                            None => Err(MdlError::InvalidTicket),
                        };
                        let _ = rtx.send(r);
                    }
                    Cmd::Stop => break,
                }
            }
        });
        let (kill, id) = irx.recv().unwrap();
        Helper {
            tx,
            rx,
            kill,
            id,
            join: Some(join),
            state: HState::Idle,
        }
    }

    pub fn result(&self) -> Result<(), MdlError> {
        self.rx
            .recv_timeout(Duration::from_secs(3))
            .expect("helper did not answer within 3 s")
    }

    /// Whether the helper's request is queued (slow-path entry, not granted).
    pub fn queued(&self, mgr: &MdlManager) -> Option<bool> {
        mgr.slow_path_locks()
            .into_iter()
            .find(|e| e.context == self.id)
            .map(|e| !e.granted)
    }
}

impl Drop for Helper {
    fn drop(&mut self) {
        if matches!(self.state, HState::Pending(_)) {
            self.kill.kill(KillScope::Connection);
        }
        let _ = self.tx.send(Cmd::Stop);
        if let Some(j) = self.join.take() {
            let _ = j.join();
        }
    }
}
