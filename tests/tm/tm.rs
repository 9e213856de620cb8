//! `ts_tm` (ideal mode) in Verilator against the golden model
//! (`sim/src/model/tm.rs`, `docs/trimming.md`), on the default 4-port
//! configuration (256 bits).
//!
//! The bench records when each packet's first beat entered and when each
//! packet's last beat left an egress port; the model replays those events in
//! cycle order. So every admission decision (whole into H or D, trimmed,
//! returned, dropped by reason) is checked against exact occupancy, every
//! output packet must be the head of one of its port's queues in the model
//! (per-queue order, bytes and `tuser`), and every counter read over
//! AXI-Lite must equal the model's. Conservation is checked in every test:
//! each packet in is delivered whole, delivered trimmed, returned, or dropped
//! with a reason, exactly once.
use crate::common;
use anyhow::{ensure, Context, Result};
use common::*;
use rand::{Rng, SeedableRng};
use trimswitch_hdl::config::Config;
use trimswitch_hdl::meta::Meta;
use trimswitch_hdl::tm::admit::{COUNTER_NAMES, QUEUE_LSB};
use trimswitch_hdl::tm::meter::WIRE_OVERHEAD;
use trimswitch_hdl::tm::{TmRegs, TrafficManager};
use trimswitch_sim::agents::axil::{axil_read, axil_write, AxilMaster};
use trimswitch_sim::agents::axis::{AxisPorts, AxisSink, AxisSource, Packet};
use trimswitch_sim::harness::dut::model_of;
use trimswitch_sim::harness::tb::{Agent, Strobe, Tb};
use trimswitch_sim::model::gen::{random_frame, GenOpts};
use trimswitch_sim::model::meter::{MeterBankModel, MeterInputs, MeterReq, PortModeModel};
use trimswitch_sim::model::tm::{Fate, Queue, TmModel, TmSettings, TrimParams};
use trimswitch_sim::model::{IngressModel, Settings};

const PORTS: usize = 4;

/// Ingress outputs (wide `tuser`) of random frames, with destinations and
/// sources chosen by `route(i, meta) -> (src, dest)`.
fn traffic(n: usize, max_size: usize, seed: u64, route: &mut dyn FnMut(usize, &Meta) -> (u8, u8)) -> Vec<(Vec<u8>, Meta)> {
    traffic_where(n, max_size, seed, &|_| true, route)
}

/// [`traffic`] of the frames whose ingress `tuser` passes `keep`.
fn traffic_where(
    n: usize,
    max_size: usize,
    seed: u64,
    keep: &dyn Fn(&Meta) -> bool,
    route: &mut dyn FnMut(usize, &Meta) -> (u8, u8),
) -> Vec<(Vec<u8>, Meta)> {
    let cfg = config();
    let mut ing = IngressModel::new(&cfg);
    let mut o = GenOpts::from_settings(&Settings::from_config(&cfg));
    o.max_size = max_size;
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut out = vec![];
    while out.len() < n {
        let port = rng.gen_range(0..PORTS);
        let Some(x) = ing.process(port, &random_frame(&mut rng, &o)) else { continue };
        if !keep(&x.meta) {
            continue;
        }
        let mut m = x.meta;
        (m.src_port, m.dest_port) = route(out.len(), &m);
        out.push((x.frame, m));
    }
    out
}

/// Run-time settings of a test (written over AXI-Lite).
#[derive(Clone, Copy, Debug)]
struct Knobs {
    limit_h: u32,
    limit_d: u32,
    rts: bool,
    drr: bool,
    /// Meter mode, with these meter settings.
    meter: Option<MeterKnobs>,
    /// Build-time `tm.dod_words` instead of the configuration's.
    dod_words: Option<usize>,
    /// Data width instead of the configuration's 256 bits (512: a 64-byte
    /// packet is one beat, so decisions can follow each other every cycle).
    width: Option<usize>,
    /// Build-time `tm.trim_window` instead of the configuration's 128 bytes.
    window: Option<usize>,
    /// Build-time `tm.meters = false`: ideal mode only (the Versa's build).
    ideal_only: bool,
}

impl Knobs {
    /// Ideal mode with these limits and policies, the configuration's build.
    fn new(limit_h: u32, limit_d: u32, rts: bool, drr: bool) -> Knobs {
        Knobs { limit_h, limit_d, rts, drr, meter: None, dod_words: None, width: None, window: None, ideal_only: false }
    }
}

/// Meter-mode registers: optimistic rate (16.16 B/cycle; halftimistic and
/// pessimistic get 1/2 and 1/4), burst (bytes, all three), T0, T1 (cycles).
#[derive(Clone, Copy, Debug)]
struct MeterKnobs {
    rate: u32,
    burst: u32,
    t0: u32,
    t1: u32,
}

impl MeterKnobs {
    /// The `[tm]` reset values of `cfg`.
    fn of(cfg: &Config) -> MeterKnobs {
        let rw = TmRegs::rw_reset(cfg);
        let r = |a: u32| rw[a as usize / 4];
        MeterKnobs { rate: r(TmRegs::RATE_OPT), burst: r(TmRegs::BURST_OPT), t0: r(TmRegs::T0), t1: r(TmRegs::T1) }
    }
    fn rates(&self) -> [u32; 3] {
        [self.rate, self.rate / 2, self.rate / 4]
    }
}

struct Outcome {
    /// Decisions for the same destination port in consecutive cycles (the
    /// second decides on tests that had to see the first's reservation).
    back_to_back: usize,
    /// (first beat in, last beat out, fate) per delivered packet; a packet
    /// that went through the DoD FIFO counts from its original first beat.
    latencies: Vec<(u64, u64, Fate)>,
    counters: std::collections::BTreeMap<&'static str, u64>,
    cycles: u64,
}

/// What the replay of a run meets in one cycle, in the order it handles them
/// (the derived order): admission's decisions first, then packets whose last
/// beat left a port, then first beats entering (which ask the meter).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    /// Admission's `j`-th decision (the RTL's decision trace).
    Decision(usize),
    /// The `index`-th packet out of egress `port` left with its last beat.
    Departure { index: usize, port: usize },
    /// Input packet `i`'s first beat entered.
    FirstBeat(usize),
}

/// The fate code `ts_tm` reports on `dec_code` for a model fate.
fn code_of(f: &Fate) -> u64 {
    let name = match f {
        Fate::Whole(_, Queue::H) => "enq_h_pkts",
        Fate::Whole(_, Queue::D) => "enq_d_pkts",
        Fate::Trimmed(_) => "trim_packets",
        Fate::Returned(_) => "rts_packets",
        Fate::Deflected(_) => "dod_trim_packets",
        Fate::Dropped(n) => n,
    };
    COUNTER_NAMES.iter().position(|c| *c == name).expect("a fate counter") as u64
}

/// One run of the RTL: what its agents recorded, and the bench to read its
/// registers afterwards.
struct Capture {
    cfg: Config,
    mk: MeterKnobs,
    tb: Tb,
    host: AxilMaster,
    src: AxisSource,
    sinks: Vec<AxisSink>,
    dec: Strobe,
    start: u64,
    end: u64,
}

/// The model's side of a run ([`replay`]).
struct Replay {
    model: TmModel,
    bank: MeterBankModel,
    modes: PortModeModel,
    latencies: Vec<(u64, u64, Fate)>,
    notifies: u64,
}

/// Runs `pkts` through the traffic manager ([`drive`]), replays the run on the
/// model cycle by cycle ([`replay`]) and compares the registers ([`check_registers`]).
fn run(pkts: &[(Vec<u8>, Meta)], k: Knobs, idle: f64, ready: &[f64], seed: u64) -> Result<Outcome> {
    let mut cap = drive(pkts, k, idle, ready, seed)?;
    let r = replay(pkts, k, &cap)?;
    let counters = check_registers(pkts, &mut cap, &r)?;
    let ev = &cap.dec.events;
    let back_to_back = ev.windows(2).filter(|w| w[1].0 == w[0].0 + 1 && w[1].1[2] == w[0].1[2]).count();
    Ok(Outcome { back_to_back, latencies: r.latencies, counters, cycles: cap.end - cap.start })
}

/// Configures `ts_tm` for `k`, sends `pkts` with `idle` input gaps to sinks
/// ready `ready[p]` of the cycles, and lets every queue drain.
fn drive(pkts: &[(Vec<u8>, Meta)], k: Knobs, idle: f64, ready: &[f64], seed: u64) -> Result<Capture> {
    let mut cfg = config();
    if let Some(w) = k.dod_words {
        cfg.tm.dod_words = w;
    }
    if let Some(w) = k.width {
        cfg.datapath.data_width = w;
    }
    if let Some(w) = k.window {
        cfg.tm.trim_window = w;
    }
    cfg.tm.meters = !k.ideal_only;
    let (d, u) = (cfg.datapath.data_width, cfg.datapath.user_width);
    let tag = format!("netfpga-{d}-w{}{}", cfg.tm.trim_window, if k.ideal_only { "-ideal" } else { "" });
    let m = with_geometry!(d, u, [(256, 128), (512, 128)], |D, K, U, M, W| model_of(
        &mut TrafficManager::<D, K, U, M, W>::new(&cfg),
        "ts_tm",
        &tag
    ))
    .with_context(|| format!("the test replays 256- or 512-bit beats, not {d}"))??
    .instantiate();
    let mut src = AxisSource::new(&m, &AxisPorts::slave("s"), seed)?;
    let mut sinks: Vec<AxisSink> =
        (0..PORTS).map(|p| AxisSink::new(&m, &AxisPorts::indexed("m", p), seed + 1 + p as u64)).collect::<Result<_>>()?;
    let mut dec = Strobe::new(&m, "dec_valid", &["dec_code", "dec_recirc", "dec_port"])?;
    let mut host = AxilMaster::new(&m, "s_axil", seed + 9)?;
    let mut tb = Tb::new(m, "clock", Some("reset"))?;
    tb.reset(4);
    let dscp = cfg.ingress.dscp_trimmed;
    let ctrl = (k.rts as u32 * TmRegs::CTRL_RTS)
        | (k.drr as u32 * TmRegs::CTRL_DRR)
        | ((dscp >= 0) as u32 * TmRegs::CTRL_DSCP)
        | (k.meter.is_some() as u32 * TmRegs::CTRL_METER);
    let mk = k.meter.unwrap_or(MeterKnobs::of(&cfg));
    let [r0, r1, r2] = mk.rates();
    for (a, v) in [
        (TmRegs::CTRL, ctrl),
        (TmRegs::LIMIT_H, k.limit_h),
        (TmRegs::LIMIT_D, k.limit_d),
        (TmRegs::RATE_OPT, r0),
        (TmRegs::RATE_HALF, r1),
        (TmRegs::RATE_PESS, r2),
        (TmRegs::BURST_OPT, mk.burst),
        (TmRegs::BURST_HALF, mk.burst),
        (TmRegs::BURST_PESS, mk.burst),
        (TmRegs::T0, mk.t0),
        (TmRegs::T1, mk.t1),
    ] {
        axil_write(&mut tb, &mut host, a as u64, v, &mut [])?;
    }
    // Let every meter bucket fill to its (new) burst: the model starts full.
    let fill = (mk.burst as u64) * 65536 / (r2.max(1) as u64) + 10;
    tb.run(&mut [], fill);
    src.idle_prob = idle;
    for (s, r) in sinks.iter_mut().zip(ready) {
        s.ready_prob = *r;
    }
    // tuser bits 80.. are the traffic manager's own: junk there from upstream
    // must change nothing (the meter stage clears them).
    let mut junk = rand::rngs::StdRng::seed_from_u64(seed ^ 0x5eed);
    for (f, m) in pkts {
        src.push(Packet::new(f.clone(), m.pack() | (junk.gen::<u64>() as u128) << 80));
    }
    let start = tb.cycle();
    {
        let mut agents: Vec<&mut dyn Agent> = vec![&mut src, &mut dec];
        for s in sinks.iter_mut() {
            agents.push(s);
        }
        tb.run_until(&mut agents, 400 * MIN_CYCLES, |_, a| a[0].idle())?;
        // Drain: every queue empties at the sinks' pace, and every port's
        // mode returns to optimistic.
        let settle = 200_000u64.max(2 * (mk.t0 as u64 + mk.t1 as u64));
        tb.run(&mut agents, settle);
    }
    let end = tb.cycle();
    for s in &sinks {
        no_protocol_errors(s)?;
    }
    Ok(Capture { cfg, mk, tb, host, src, sinks, dec, start, end })
}

/// Replays a run cycle by cycle: the meters and modes (cycle models), then
/// each decision against exact occupancy (every earlier decision seen, and
/// the departures of the cycles before the last);
/// every decision and departure must be the model's.
fn replay(pkts: &[(Vec<u8>, Meta)], k: Knobs, cap: &Capture) -> Result<Replay> {
    let Capture { cfg, mk, src, sinks, dec, start, end, .. } = cap;
    let (cfg, mk, start, end) = (cfg, *mk, *start, *end);
    let dscp = cfg.ingress.dscp_trimmed;
    let t = &cfg.tm;
    let settings = TmSettings {
        ports: PORTS,
        beat: cfg.datapath.data_width / 8,
        depth_h: t.queue_h_words,
        depth_d: t.queue_d_words,
        limit_h: k.limit_h,
        limit_d: k.limit_d,
        rts: k.rts,
        trim: TrimParams {
            len_ndp: t.trim_len_ndp as u16,
            len_ipv4: t.trim_len_ipv4 as u16,
            len_ipv6: t.trim_len_ipv6 as u16,
            dscp_trimmed: (dscp >= 0).then_some(dscp as u8),
            window: t.trim_window as u16,
        },
        meter: k.meter.is_some(),
        depth_dod: t.dod_words,
    };
    let mut model = TmModel::new(settings);
    let mut bank = MeterBankModel::new(PORTS);
    let mut modes = PortModeModel::new(PORTS);
    let mi = MeterInputs { reset: true, rate: mk.rates(), burst: [mk.burst; 3], ..Default::default() };
    bank.clock(&mi);
    bank.clock(&mi);
    let mi = MeterInputs { reset: false, ..mi };
    ensure!(src.first_cycles.len() == pkts.len(), "{} of {} packets entered", src.first_cycles.len(), pkts.len());
    ensure!(src.first_cycles.first().is_none_or(|c| *c >= start));
    let metered = |m: &Meta| k.meter.is_some() && m.ndp_data && m.trim_ok && !m.prio;
    let mut by_cycle: std::collections::BTreeMap<u64, Vec<Event>> = Default::default();
    for (i, c) in src.first_cycles.iter().enumerate() {
        by_cycle.entry(*c).or_default().push(Event::FirstBeat(i));
    }
    for (j, (c, _)) in dec.events.iter().enumerate() {
        by_cycle.entry(*c).or_default().push(Event::Decision(j));
    }
    for (p, s) in sinks.iter().enumerate() {
        ensure!(s.last_cycles.len() == s.packets.len());
        // Admission decides from tests registered a cycle ahead
        // (`TmAdmit`): a departure frees its queue for decisions two cycles
        // later, so the replay takes it after the next cycle's decisions.
        for (j, c) in s.last_cycles.iter().enumerate() {
            by_cycle.entry(*c + 1).or_default().push(Event::Departure { index: j, port: p });
        }
    }
    let mut verdict: Vec<Option<bool>> = vec![None; pkts.len()];
    let mut asked: std::collections::VecDeque<usize> = Default::default();
    let mut next_in = 0usize;
    let mut dod_t_in: std::collections::VecDeque<u64> = Default::default();
    // Per egress port: (tuser, bytes) -> the entry cycles and fates expected.
    type Pending = std::collections::HashMap<(u128, Vec<u8>), std::collections::VecDeque<(u64, Fate)>>;
    let mut pending: Vec<Pending> = vec![Default::default(); PORTS];
    let mut latencies = vec![];
    let mask = !(0xffu128 << QUEUE_LSB);
    let mut notifies = 0u64;
    for cycle in start..=end {
        if let Some(g) = bank.resp() {
            let i = asked.pop_front().context("a meter answer without a request")?;
            verdict[i] = Some(!g);
        }
        let mut notify = [false; PORTS];
        let mut req = None;
        let mut evs = by_cycle.remove(&cycle).unwrap_or_default();
        evs.sort();
        for ev in evs {
            match ev {
                Event::Decision(i) => {
                    // A decision at admission.
                    let (code, recirc, port) = (dec.events[i].1[0], dec.events[i].1[1] == 1, dec.events[i].1[2]);
                    let (f, m, fate, t_in) = if recirc {
                        let (f, m, fate) =
                            model.readmit().with_context(|| format!("cycle {cycle}: a packet came back from an empty DoD FIFO"))?;
                        (f, m, fate, dod_t_in.pop_front().unwrap())
                    } else {
                        let j = next_in;
                        next_in += 1;
                        let (f, m) = pkts.get(j).context("more decisions than packets")?;
                        let marked = if metered(m) {
                            verdict[j].with_context(|| format!("packet {j} decided before its meter answered"))?
                        } else {
                            false
                        };
                        (f.clone(), *m, model.admit_marked(f, m, marked), src.first_cycles[j])
                    };
                    ensure!(
                        code == code_of(&fate) && port == m.dest_port as u64,
                        "cycle {cycle}: RTL decided {} for port {port} (recirculated: {recirc}), the model {fate:?} for port {}",
                        COUNTER_NAMES.get(code as usize).unwrap_or(&"?"),
                        m.dest_port
                    );
                    match fate {
                        Fate::Deflected(d) => {
                            notify[d as usize] = true;
                            notifies += 1;
                            dod_t_in.push_back(t_in);
                        }
                        Fate::Whole(d, _) => {
                            pending[d as usize].entry((model.admitted(&m).pack(), f.clone())).or_default().push_back((t_in, fate))
                        }
                        Fate::Trimmed(d) | Fate::Returned(d) => {
                            let (tf, tm) = trimswitch_sim::model::tm::trim(&f, &m, &model.settings.trim, matches!(fate, Fate::Returned(_)));
                            pending[d as usize].entry((tm.pack(), tf)).or_default().push_back((t_in, fate));
                        }
                        Fate::Dropped(_) => {}
                    }
                }
                Event::Departure { index: i, port: p } => {
                    let g = &sinks[p].packets[i];
                    let user = g.user & mask;
                    let (q, _) = model.depart(p as u8, &g.data, user).map_err(|e| anyhow::anyhow!("cycle {cycle}: {e}"))?;
                    let qbit = (g.user >> QUEUE_LSB) & 1;
                    ensure!((qbit == 0) == (q == Queue::H), "port {p}: packet from {q:?} carries queue bit {qbit}");
                    let (t_in, fate) =
                        pending[p].get_mut(&(user, g.data.clone())).and_then(|v| v.pop_front()).context("departure without admission")?;
                    latencies.push((t_in, cycle - 1, fate));
                }
                Event::FirstBeat(i) => {
                    let m = &pkts[i].1;
                    if metered(m) {
                        req = Some(MeterReq {
                            port: m.dest_port,
                            bytes: m.length + WIRE_OVERHEAD,
                            mode: modes.mode((m.dest_port as usize).min(PORTS - 1)),
                        });
                        asked.push_back(i);
                    }
                }
            }
        }
        if cycle == end {
            // Only the departures of the run's last cycle are left.
            break;
        }
        modes.clock(false, &notify, &[], mk.t0, mk.t1);
        bank.clock(&MeterInputs { req, ..mi });
    }
    ensure!(next_in == pkts.len(), "{next_in} of {} packets decided", pkts.len());
    ensure!(
        model.queued() == 0 && model.dod_words() == 0,
        "{} packets never left the model's queues (the RTL did not send them)",
        model.queued()
    );
    Ok(Replay { model, bank, modes, latencies, notifies })
}

/// The counters over AXI-Lite equal the model's, every queue is empty, and
/// packets are conserved; returns the counters with the run's totals.
fn check_registers(pkts: &[(Vec<u8>, Meta)], cap: &mut Capture, r: &Replay) -> Result<std::collections::BTreeMap<&'static str, u64>> {
    let Capture { tb, host, sinks, .. } = cap;
    let (model, bank, modes, notifies) = (&r.model, &r.bank, &r.modes, r.notifies);
    let cycles = cap.end - cap.start;
    let regs = TmRegs { ports: PORTS };
    let mut counters = model.counters().clone();
    let mut read = |a: u32| -> Result<u64> { Ok(axil_read(tb, host, a as u64, &mut [])?.0 as u64) };
    for name in TmRegs::COUNTERS {
        let got = read(regs.counter(name).unwrap())?;
        if name == "cut_pkts" {
            continue;
        }
        let want = counters.get(name).copied().context(name)?;
        ensure!(got == want, "counter {name} = {got}, model {want}");
    }
    ensure!(read(TmRegs::OCC_DOD_WORDS)? == 0, "DoD FIFO words reserved after draining");
    let mut tx_trim = 0;
    let (mut ingress_trims, mut pess, mut half) = (0, 0, 0);
    for p in 0..PORTS {
        tx_trim += read(regs.port_reg(p, "tx_trim_packets").unwrap())?;
        for q in ["occ_h_bytes", "occ_d_bytes", "mode"] {
            let v = read(regs.port_reg(p, q).unwrap())?;
            ensure!(v == 0, "port {p} {q} = {v} after draining");
        }
        let want = [
            ("meter_green_pkts", bank.green_pkts(p) as u64),
            ("ingress_trim_packets", bank.not_green_pkts(p) as u64),
            ("cycles_halftimistic", modes.cycles(p)[1] as u64),
            ("cycles_pessimistic", modes.cycles(p)[2] as u64),
            ("notifies", modes.notifies(p) as u64),
        ];
        for (name, w) in want {
            let v = read(regs.port_reg(p, name).unwrap())?;
            ensure!(v == w, "port {p} {name} = {v}, model {w}");
        }
        ingress_trims += bank.not_green_pkts(p) as u64;
        half += modes.cycles(p)[1] as u64;
        pess += modes.cycles(p)[2] as u64;
    }
    ensure!(tx_trim == counters["tx_trim_packets"], "TX_TRIM_PACKETS {tx_trim}, model {}", counters["tx_trim_packets"]);
    let c = &counters;
    let fates_sum: u64 = COUNTER_NAMES.iter().filter(|n| **n != "in_pkts").map(|k| c[k]).sum();
    ensure!(
        fates_sum == c["in_pkts"] + c["dod_trim_packets"] && c["in_pkts"] == pkts.len() as u64,
        "conservation: {fates_sum} fates for {} packets in and {} back from the DoD FIFO",
        c["in_pkts"],
        c["dod_trim_packets"]
    );
    let delivered: usize = sinks.iter().map(|s| s.packets.len()).sum();
    let admitted = c["enq_h_pkts"] + c["enq_d_pkts"] + c["trim_packets"] + c["rts_packets"];
    ensure!(delivered as u64 == admitted, "delivered {delivered}, admitted {admitted}");
    ensure!(c["tx_trim_packets"] == c["trim_packets"] + c["rts_packets"]);
    ensure!(notifies == c["dod_trim_packets"]);
    counters.insert("cycles", cycles);
    counters.insert("ingress_trims", ingress_trims);
    counters.insert("cycles_halftimistic", half);
    counters.insert("cycles_pessimistic", pess);
    Ok(counters)
}

/// Random traffic to random ports, congested egress (random readiness),
/// small queues: every fate occurs, and the RTL matches the model.
#[test]
fn differential_random() -> Result<()> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    let pkts = traffic(6000, 3000, 41, &mut |_, m| (m.src_port, if rng.gen_bool(0.01) { 7 } else { rng.gen_range(0..PORTS as u8) }));
    for (k, ready, seed) in
        [(Knobs::new(300, 5000, true, false), [0.12, 0.2, 0.1, 0.6], 1), (Knobs::new(250, 4000, false, true), [0.1, 0.15, 0.3, 0.2], 2)]
    {
        let o = run(&pkts, k, 0.05, &ready, seed).with_context(|| format!("{k:?}"))?;
        let c = &o.counters;
        eprintln!("{k:?}: {} cycles, {c:?}", o.cycles);
        for name in ["enq_h_pkts", "enq_d_pkts", "trim_packets", "drop_bad_pkts", "drop_data_pkts", "dropped_trim_packets"] {
            ensure!(c[name] > 0, "{name} never happened: {c:?}");
        }
        if k.rts {
            ensure!(c["rts_packets"] > 0, "no return to sender: {c:?}");
        }
    }
    Ok(())
}

/// The ECP5 board's build: a 64-byte trim window (`tm.trim_window = 64`)
/// and ideal mode only (`tm.meters = false`, the input straight into
/// admission): every decision, departure and counter is the model's, and
/// packets whose headers end past the window (IPv4 with options, NDP over
/// IPv6) are never trimmed: queued whole or dropped as not trimmable.
#[test]
fn window_64_keeps_long_headers_whole() -> Result<()> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(8);
    let pkts = traffic(3000, 1500, 61, &mut |_, m| (m.src_port, rng.gen_range(0..PORTS as u8)));
    let long = pkts.iter().filter(|(_, m)| m.trim_ok && trimswitch_sim::model::tm::header_end(m) > 64).count();
    ensure!(long > 50, "only {long} trimmable packets with headers past 64 bytes");
    let k = Knobs { window: Some(64), ideal_only: true, ..Knobs::new(300, 4000, true, false) };
    let o = run(&pkts, k, 0.05, &[0.1, 0.15, 0.3, 0.2], 9)?;
    let c = &o.counters;
    for name in ["trim_packets", "drop_data_pkts", "enq_d_pkts"] {
        ensure!(c[name] > 0, "{name} never happened: {c:?}");
    }
    eprintln!("window 64: {long} long-header trimmable packets of {}, {c:?}", pkts.len());
    Ok(())
}

/// The stream matrix (`common::MATRIX`: input idle gaps x egress
/// backpressure, the same on every port) with random traffic to random
/// ports: in every cell each decision, departure and counter is the model's.
#[test]
fn matrix() -> Result<()> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    let pkts = traffic(1500, 1500, 51, &mut |_, m| (m.src_port, rng.gen_range(0..PORTS as u8)));
    let k = Knobs::new(300, 5000, true, true);
    let mut seed = 30;
    for_matrix(|c| {
        seed += 1;
        let o = run(&pkts, k, c.idle_prob, &[c.ready_prob; PORTS], seed)?;
        let n = &o.counters;
        eprintln!("matrix {c:?}: {} cycles, {n:?}", o.cycles);
        ensure!(n["enq_h_pkts"] + n["enq_d_pkts"] + n["trim_packets"] > 0, "nothing admitted: {n:?}");
        Ok(())
    })
}

/// 4:1 incast at line rate: four NDP senders (behind ports 1, 2, 3 and 3)
/// each offer a 10G port's rate of NDP data to the receiver behind port 0.
/// The input runs at 4 x 10G of the 51.2 Gb/s pipeline, egress port 0 at 10G
/// (ready one cycle in 5.12). Run twice on the same packets and pacing:
/// ideal mode, then meter mode with the configuration's meters (line rate
/// 6.25 B/cycle, 18000 B bursts, T0 1200, T1 4800 cycles). In both, no packet
/// is unaccounted, every decision and counter is the model's, and trimmed
/// headers overtake queued data. Prints the "trims vs ideal in meter mode"
/// figure (docs/trimming.md).
#[test]
fn incast_4_to_1() -> Result<()> {
    let src = [1u8, 2, 3, 3];
    let pkts = traffic_where(4000, 1500, 77, &|m| m.ndp_data && !m.prio, &mut |i, _| (src[i % 4], 0));
    let cfg = config();
    let ideal = Knobs::new(cfg.tm.queue_h_bytes, cfg.tm.queue_d_bytes, true, false);
    let meter = Knobs { meter: Some(MeterKnobs::of(&cfg)), ..ideal };
    let mut trims = vec![];
    for (name, k) in [("ideal", ideal), ("meter", meter)] {
        let o = run(&pkts, k, 1.0 - 40.0 / 51.2, &[10.0 / 51.2, 1.0, 1.0, 1.0], 5).context(name)?;
        let c = &o.counters;
        let lat = |want: &dyn Fn(&Fate) -> bool| -> (usize, f64, u64) {
            let v: Vec<u64> = o.latencies.iter().filter(|(_, _, f)| want(f)).map(|(a, b, _)| b - a).collect();
            (v.len(), v.iter().sum::<u64>() as f64 / v.len().max(1) as f64, v.iter().copied().max().unwrap_or(0))
        };
        let (nh, h_mean, h_max) = lat(&|f| matches!(f, Fate::Trimmed(_)));
        let (nd, d_mean, d_max) = lat(&|f| matches!(f, Fate::Whole(0, Queue::D)));
        // Trim decisions: trimmed, returned or dropped as trimmed; in meter
        // mode a deflected packet is counted once, when it comes back.
        let t = c["trim_packets"] + c["rts_packets"] + c["dropped_trim_packets"];
        eprintln!(
            "incast 4:1 {name}: {} packets in {} cycles; trims {t} (trim {}, rts {}, dropped {}), ingress trims {}, DoD trims {}, DoD drops {}, \
             pessimistic {} cycles, halftimistic {} cycles; delivered whole {}\n trimmed headers: {nh}, latency mean {h_mean:.0} max {h_max} cycles; data: {nd}, mean {d_mean:.0} max {d_max} cycles",
            pkts.len(),
            o.cycles,
            c["trim_packets"],
            c["rts_packets"],
            c["dropped_trim_packets"],
            c["ingress_trims"],
            c["dod_trim_packets"],
            c["drop_dod_pkts"],
            c["cycles_pessimistic"],
            c["cycles_halftimistic"],
            c["enq_d_pkts"],
        );
        eprintln!(" {c:?}");
        ensure!(c["trim_packets"] > 100, "{name}: incast should trim: {c:?}");
        ensure!(
            nh > 0 && nd > 0 && h_mean * 4.0 < d_mean,
            "{name}: headers must overtake queued data: header mean {h_mean:.0}, data mean {d_mean:.0}"
        );
        trims.push((t, c["ingress_trims"], c["dod_trim_packets"]));
    }
    let ((ideal_t, _, _), (meter_t, ingress, dod)) = (trims[0], trims[1]);
    eprintln!(
        "incast 4:1 trims: ideal {ideal_t}, meter mode {meter_t} ({ingress} at ingress, {dod} by DoD), ratio {:.2}",
        meter_t as f64 / ideal_t as f64
    );
    ensure!(ingress > 0, "meter mode must trim at ingress");
    Ok(())
}

/// Meter mode against the model under random traffic and congestion, with
/// short timers and small buckets (modes change often) and the smallest DoD
/// FIFO (one 128-byte header, so it also overflows): every meter answer,
/// mode, deflection, return from the DoD FIFO and drop matches. 10 000
/// packets, so each outcome occurs several times (5000 gave one DoD drop or
/// none, depending on the trimmer's timing).
#[test]
fn differential_meter() -> Result<()> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(4);
    // Mostly NDP data (what the meters see), the rest of the mix thinned.
    let pkts = traffic_where(10000, 1600, 43, &|m| m.ndp_data || m.length % 4 == 0, &mut |_, m| {
        (m.src_port, if rng.gen_bool(0.01) { 6 } else { rng.gen_range(0..PORTS as u8) })
    });
    let mk = MeterKnobs { rate: trimswitch_hdl::tm::meter::rate_fixed(6.25), burst: 3000, t0: 300, t1: 700 };
    let k = Knobs { meter: Some(mk), dod_words: Some(4), ..Knobs::new(400, 4500, true, false) };
    let o = run(&pkts, k, 0.05, &[0.15, 0.25, 0.1, 0.5], 7)?;
    let c = &o.counters;
    eprintln!("meter mode: {} cycles, {c:?}", o.cycles);
    for name in [
        "enq_d_pkts",
        "trim_packets",
        "rts_packets",
        "dod_trim_packets",
        "drop_dod_pkts",
        "ingress_trims",
        "cycles_pessimistic",
        "cycles_halftimistic",
    ] {
        ensure!(c[name] > 0, "{name} never happened: {c:?}");
    }
    Ok(())
}

/// At 512 bits a packet of up to 64 bytes is one beat, so admission decides
/// every cycle: the second of two decisions in a row for one port decides on
/// fit tests registered before the first reserved (`TmAdmit`'s variants by
/// what the decision ahead reserves). Small packets, back to back, congested
/// ports, in ideal mode (returns to sender) and meter mode (DoD FIFO): every
/// decision is still the model's.
#[test]
fn differential_512_back_to_back() -> Result<()> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(12);
    let pkts = traffic_where(4000, 200, 47, &|m| m.length <= 128, &mut |_, m| {
        (
            m.src_port,
            if rng.gen_bool(0.01) {
                5
            } else if rng.gen_bool(0.6) {
                1
            } else {
                rng.gen_range(0..PORTS as u8)
            },
        )
    });
    let mk = MeterKnobs { rate: trimswitch_hdl::tm::meter::rate_fixed(6.25), burst: 2000, t0: 300, t1: 700 };
    for (k, ready, seed, want) in [
        (
            Knobs { width: Some(512), ..Knobs::new(300, 1500, true, false) },
            [0.5, 0.2, 0.3, 0.6],
            21,
            &["enq_h_pkts", "enq_d_pkts", "trim_packets", "rts_packets", "drop_bad_pkts", "drop_data_pkts", "dropped_trim_packets"][..],
        ),
        (
            Knobs { meter: Some(mk), dod_words: Some(4), width: Some(512), ..Knobs::new(300, 1500, true, false) },
            [0.5, 0.2, 0.3, 0.6],
            22,
            &["enq_d_pkts", "trim_packets", "dod_trim_packets", "drop_dod_pkts"][..],
        ),
    ] {
        let o = run(&pkts, k, 0.0, &ready, seed).with_context(|| format!("{k:?}"))?;
        let c = &o.counters;
        eprintln!("{k:?}: {} cycles, {} decisions back to back for one port, {c:?}", o.cycles, o.back_to_back);
        for name in want {
            ensure!(c[*name] > 0, "{name} never happened: {c:?}");
        }
        ensure!(o.back_to_back > 500, "only {} decisions back to back for one port", o.back_to_back);
    }
    Ok(())
}

/// A queue's memory bounds admission too: with a byte limit larger than the
/// memory, packets are refused by words, not lost (the queue never
/// back-pressures), and the model's word accounting agrees.
#[test]
fn word_limit_bounds_admission() -> Result<()> {
    let pkts = traffic(1500, 200, 9, &mut |_, m| (m.src_port, 2));
    let cfg = config();
    let words = cfg.tm.queue_d_words as u32;
    let o = run(&pkts, Knobs::new(1 << 20, 1 << 23, false, false), 0.0, &[1.0, 1.0, 0.05, 1.0], 8)?;
    let c = &o.counters;
    ensure!(c["trim_packets"] + c["drop_data_pkts"] > 0, "the {words}-word data queue never filled: {c:?}");
    Ok(())
}
