//! AXI4-Lite master agent ([`AxilMaster`]) and blocking helpers
//! ([`axil_write`], [`axil_read`]) for register access from tests.
//!
//! Port names are `<prefix>_awaddr`, `_awvalid`, `_awready`, `_wdata`,
//! `_wstrb`, `_wvalid`, `_wready`, `_bresp`, `_bvalid`, `_bready`,
//! `_araddr`, `_arvalid`, `_arready`, `_rdata`, `_rresp`, `_rvalid`,
//! `_rready`; data is 32 bits, addresses up to 64 bits.

use crate::harness::tb::{Agent, Tb};
use crate::harness::verilator::{Model, Port};
use anyhow::{bail, ensure, Result};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;

/// Cycle limit of [`axil_write`] and [`axil_read`].
pub const AXIL_TIMEOUT_CYCLES: u64 = 1000;

/// A completed AXI4-Lite transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AxilResult {
    /// A write with its `bresp`.
    Write {
        /// Address written.
        addr: u64,
        /// `bresp`: 0 OKAY, 2 SLVERR, 3 DECERR.
        resp: u8,
    },
    /// A read with its data and `rresp`.
    Read {
        /// Address read.
        addr: u64,
        /// `rdata`.
        data: u32,
        /// `rresp`: 0 OKAY, 2 SLVERR, 3 DECERR.
        resp: u8,
    },
}

#[derive(Clone, Copy, Debug)]
enum Op {
    Write { addr: u64, data: u32, strb: u8 },
    Read { addr: u64 },
}

/// The transaction in progress: cycles left before each address/data
/// channel asserts valid, and which handshakes are done.
struct Active {
    op: Op,
    addr_wait: u32,
    data_wait: u32,
    addr_done: bool,
    data_done: bool,
}

struct Ports {
    awaddr: Port,
    awvalid: Port,
    awready: Port,
    wdata: Port,
    wstrb: Port,
    wvalid: Port,
    wready: Port,
    bresp: Port,
    bvalid: Port,
    bready: Port,
    araddr: Port,
    arvalid: Port,
    arready: Port,
    rdata: Port,
    rresp: Port,
    rvalid: Port,
    rready: Port,
}

/// AXI4-Lite master. Transactions run one at a time, in queue order; for a
/// write, AW and W are raised independently after random delays of
/// `0..=max_delay` cycles each. `bready`/`rready` are high with probability
/// `ready_prob` each cycle (1.0 by default: always ready).
pub struct AxilMaster {
    p: Ports,
    queue: VecDeque<Op>,
    active: Option<Active>,
    /// Completed transactions, oldest first.
    pub results: VecDeque<AxilResult>,
    /// Protocol violations by the slave (e.g. a response before the request).
    pub errors: Vec<String>,
    /// Largest random delay, in cycles, before AW, W or AR is asserted.
    pub max_delay: u32,
    /// Probability that `bready`/`rready` are high in a cycle (response backpressure).
    pub ready_prob: f64,
    ready: bool,
    rng: SmallRng,
}

impl AxilMaster {
    /// A master on the model's `<prefix>_*` ports, delays seeded by `seed`;
    /// `max_delay` starts at 3.
    pub fn new(m: &Model, prefix: &str, seed: u64) -> Result<AxilMaster> {
        let port = |sig: &str, width: Option<u32>| -> Result<Port> {
            let name = format!("{prefix}_{sig}");
            let p = m.port(&name)?;
            if let Some(w) = width {
                ensure!(p.width() == w, "port `{name}` must be {w} bits, is {}", p.width());
            }
            Ok(p)
        };
        let p = Ports {
            awaddr: port("awaddr", None)?,
            awvalid: port("awvalid", Some(1))?,
            awready: port("awready", Some(1))?,
            wdata: port("wdata", Some(32))?,
            wstrb: port("wstrb", Some(4))?,
            wvalid: port("wvalid", Some(1))?,
            wready: port("wready", Some(1))?,
            bresp: port("bresp", Some(2))?,
            bvalid: port("bvalid", Some(1))?,
            bready: port("bready", Some(1))?,
            araddr: port("araddr", None)?,
            arvalid: port("arvalid", Some(1))?,
            arready: port("arready", Some(1))?,
            rdata: port("rdata", Some(32))?,
            rresp: port("rresp", Some(2))?,
            rvalid: port("rvalid", Some(1))?,
            rready: port("rready", Some(1))?,
        };
        for a in [&p.awaddr, &p.araddr] {
            ensure!(a.width() <= 64, "address port `{}` is wider than 64 bits", m.port_info(a).name);
        }
        Ok(AxilMaster {
            p,
            queue: VecDeque::new(),
            active: None,
            results: VecDeque::new(),
            errors: Vec::new(),
            max_delay: 3,
            ready_prob: 1.0,
            ready: true,
            rng: SmallRng::seed_from_u64(seed),
        })
    }

    /// Queues a full-word write (`wstrb` = 0xF).
    pub fn write(&mut self, addr: u64, data: u32) {
        self.write_strb(addr, data, 0xF);
    }

    /// Queues a write of the byte lanes set in `strb` (bit i = byte i).
    pub fn write_strb(&mut self, addr: u64, data: u32, strb: u8) {
        self.queue.push_back(Op::Write { addr, data, strb });
    }

    /// Queues a read.
    pub fn read(&mut self, addr: u64) {
        self.queue.push_back(Op::Read { addr });
    }

    fn delay(&mut self) -> u32 {
        self.rng.gen_range(0..=self.max_delay)
    }
}

impl Agent for AxilMaster {
    fn drive(&mut self, m: &mut Model, _cycle: u64) {
        if self.active.is_none() {
            if let Some(op) = self.queue.pop_front() {
                let (addr_wait, data_wait) = (self.delay(), self.delay());
                self.active = Some(Active { op, addr_wait, data_wait, addr_done: false, data_done: false });
            }
        }
        let p = &self.p;
        let (mut awvalid, mut wvalid, mut arvalid) = (false, false, false);
        if let Some(a) = &self.active {
            match a.op {
                Op::Write { addr, data, strb } => {
                    awvalid = !a.addr_done && a.addr_wait == 0;
                    wvalid = !a.data_done && a.data_wait == 0;
                    m.set(&p.awaddr, addr);
                    m.set(&p.wdata, data as u64);
                    m.set(&p.wstrb, strb as u64);
                }
                Op::Read { addr } => {
                    arvalid = !a.addr_done && a.addr_wait == 0;
                    m.set(&p.araddr, addr);
                }
            }
        }
        m.set(&p.awvalid, awvalid as u64);
        m.set(&p.wvalid, wvalid as u64);
        m.set(&p.arvalid, arvalid as u64);
        self.ready = self.ready_prob >= 1.0 || self.rng.gen_bool(self.ready_prob.max(0.0));
        m.set(&p.bready, self.ready as u64);
        m.set(&p.rready, self.ready as u64);
    }

    fn sample(&mut self, m: &Model, cycle: u64) {
        let p = &self.p;
        let bvalid = m.get(&p.bvalid) != 0;
        let rvalid = m.get(&p.rvalid) != 0;
        let Some(a) = &mut self.active else {
            if bvalid || rvalid {
                self.errors.push(format!("cycle {cycle}: bvalid/rvalid with no transaction outstanding"));
            }
            return;
        };
        // The handshakes of this cycle complete only at the clock edge, so a
        // response in the same cycle as its request is a violation.
        let (addr_done, data_done) = (a.addr_done, a.data_done);
        let mut result = None;
        match a.op {
            Op::Write { addr, .. } => {
                if bvalid && self.ready {
                    if addr_done && data_done {
                        result = Some(AxilResult::Write { addr, resp: m.get(&p.bresp) as u8 });
                    } else {
                        self.errors.push(format!("cycle {cycle}: bvalid before AW and W completed"));
                    }
                }
                if rvalid {
                    self.errors.push(format!("cycle {cycle}: rvalid during a write"));
                }
                let awvalid = !addr_done && a.addr_wait == 0;
                let wvalid = !data_done && a.data_wait == 0;
                a.addr_done |= awvalid && m.get(&p.awready) != 0;
                a.data_done |= wvalid && m.get(&p.wready) != 0;
            }
            Op::Read { addr } => {
                if rvalid && self.ready {
                    if addr_done {
                        let data = m.get(&p.rdata) as u32;
                        result = Some(AxilResult::Read { addr, data, resp: m.get(&p.rresp) as u8 });
                    } else {
                        self.errors.push(format!("cycle {cycle}: rvalid before AR completed"));
                    }
                }
                if bvalid {
                    self.errors.push(format!("cycle {cycle}: bvalid during a read"));
                }
                let arvalid = !addr_done && a.addr_wait == 0;
                a.addr_done |= arvalid && m.get(&p.arready) != 0;
            }
        }
        a.addr_wait = a.addr_wait.saturating_sub(1);
        a.data_wait = a.data_wait.saturating_sub(1);
        if let Some(r) = result {
            self.results.push_back(r);
            self.active = None;
        }
    }

    fn idle(&self) -> bool {
        self.active.is_none() && self.queue.is_empty()
    }
}

/// Steps `tb` (with `master` and `others`) until `master` has a result.
fn complete(tb: &mut Tb, master: &mut AxilMaster, others: &mut [&mut dyn Agent]) -> Result<AxilResult> {
    for _ in 0..AXIL_TIMEOUT_CYCLES {
        {
            let mut agents: Vec<&mut dyn Agent> = Vec::with_capacity(others.len() + 1);
            agents.push(&mut *master);
            for a in others.iter_mut() {
                agents.push(&mut **a);
            }
            tb.step(&mut agents);
        }
        if let Some(r) = master.results.pop_front() {
            return Ok(r);
        }
    }
    bail!("AXI-Lite transaction did not complete within {AXIL_TIMEOUT_CYCLES} cycles (at cycle {})", tb.cycle())
}

fn ensure_quiet(master: &AxilMaster) -> Result<()> {
    ensure!(master.idle() && master.results.is_empty(), "axil_write/axil_read need an idle master with no unread results");
    Ok(())
}

/// Writes `data` to `addr`, stepping `tb` (with `others` running alongside)
/// until the response arrives; returns `bresp`. Errors after
/// [`AXIL_TIMEOUT_CYCLES`] cycles.
pub fn axil_write(tb: &mut Tb, master: &mut AxilMaster, addr: u64, data: u32, others: &mut [&mut dyn Agent]) -> Result<u8> {
    axil_write_strb(tb, master, addr, data, 0xF, others)
}

/// As [`axil_write`], writing only the byte lanes set in `strb`.
pub fn axil_write_strb(tb: &mut Tb, master: &mut AxilMaster, addr: u64, data: u32, strb: u8, others: &mut [&mut dyn Agent]) -> Result<u8> {
    ensure_quiet(master)?;
    master.write_strb(addr, data, strb);
    match complete(tb, master, others)? {
        AxilResult::Write { resp, .. } => Ok(resp),
        r => bail!("expected a write result, got {r:?}"),
    }
}

/// Reads `addr`, stepping `tb` (with `others` running alongside) until the
/// data arrives; returns `(rdata, rresp)`. Errors after
/// [`AXIL_TIMEOUT_CYCLES`] cycles.
pub fn axil_read(tb: &mut Tb, master: &mut AxilMaster, addr: u64, others: &mut [&mut dyn Agent]) -> Result<(u32, u8)> {
    ensure_quiet(master)?;
    master.read(addr);
    match complete(tb, master, others)? {
        AxilResult::Read { data, resp, .. } => Ok((data, resp)),
        r => bail!("expected a read result, got {r:?}"),
    }
}
