//! PL2 hosts on the RTL engine (issue 15): the senders of 003 Alg. 2
//! ([`Pl2Host`], the same code the model engine runs) around the Verilated
//! `ts_switch` of a configuration, instead of the ALU model and a queue.
//!
//! Each sender's host model says when each RSV and data packet leaves it; the
//! frame enters the switch's port `one_way_ns` later, paced at line rate on
//! the port (no preamble or gap: one MTU is one slot, as the model's hosts and
//! the ALU's `SLOT_CYCLES` count it). GRTs leave the sender's port, drained
//! at line rate, and reach the host `one_way_ns` after their first beat.
//! Receivers drain at line rate. The switch's PL2 registers are set from the
//! scenario: `CTRL` (on, or off for `no-pl2`; joint mode for `pl2-joint`; the
//! slot clock running), `K`, `T`, `SLOT_CYCLES` (one MTU at
//! `datapath.port_gbps`), every port enabled; unsolicited packets carry the
//! configuration's `pl2.dscp_unsol`.
//!
//! The report is the model engine's [`IncastReport`], measured on the
//! switch: delivered, lost and duplicate packets from the receivers' ports;
//! `queue_drops` the traffic manager's drop counters, `alu_unsol_drops` the
//! ALU's `UNSOL_DROP`; the queue (packets in the switch for a receiver's
//! port, from the cycles their first beats entered and left); lateness
//! against each GRT's slot (paper mode: the RSV's first beat in + `chosen`
//! slots; joint mode: the start of slot `now + chosen` of the switch's slot
//! clock, which the run starts at 0, with `now` its slot when the RSV's
//! first beat came in: the ALU decides a few dozen cycles later, so a
//! packet can look late by up to a slot, never early); the queueing delay
//! of a delivered packet is its cycles through the switch minus the fewest
//! any packet took. Collisions are not measured here (`None`): joint mode's
//! slots count from the slot clock at the ALU's decision, which the bench
//! cannot see to the cycle, and a slot of error would show as a collision;
//! the model engine counts them exactly, and its ALU is the RTL's in every
//! cycle (`tests/pl2/alu.rs`).
use super::{mac, Scenario};
use crate::agents::axis::Packet;
use crate::model::pl2::Grant;
use crate::model::pl2_host::{jain, schedule_messages, HostEventKind, IncastReport, Pl2Host};
use crate::packet::frame::ethertype;
use crate::packet::{Frame, Ipv4, Pl2, L3, L4};
use crate::rtl::switch::{line_bytes_per_cycle, SwitchBench};
use anyhow::{anyhow, ensure, Context, Result};
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use trimswitch_hdl::config::{parse_mac, Config};
use trimswitch_hdl::pl2::block::Pl2Regs;

/// A data packet's identity, in its payload: sender port, flow, burst, index.
type PacketId = (u8, usize, u64, u8);

/// Marks a PL2 scenario data packet's payload.
const MAGIC: [u8; 4] = *b"PL2D";

fn host_mac(p: usize) -> [u8; 6] {
    mac(0x0200_0000_0000 | p as u64)
}

/// An RSV from the host on `port` (addressed to the switch), FCS included.
fn rsv_frame(router: [u8; 6], port: usize, dst: u8, demand: u8, cookie: u32) -> Vec<u8> {
    let m = Pl2 { kind: Pl2::RSV, demand, src_port: port as u8, dst_port: dst, cookie, ..Pl2::default() };
    Frame { dst: router, src: host_mac(port), vlans: vec![], protego: None, l3: L3::Pl2(m), l4: L4::None, payload: vec![] }.to_wire()
}

/// A data packet of `bytes` (FCS included), routed by the switch to `dst`'s
/// host, DSCP `dscp`, its identity in the payload.
fn data_frame(router: [u8; 6], id: PacketId, dst: u8, dscp: u8, resend: bool, bytes: usize) -> Vec<u8> {
    let mut payload = MAGIC.to_vec();
    payload.push(id.0);
    payload.extend_from_slice(&(id.1 as u32).to_be_bytes());
    payload.extend_from_slice(&id.2.to_be_bytes());
    payload.push(id.3);
    payload.push(resend as u8);
    payload.resize(bytes.saturating_sub(14 + 20 + 4).max(payload.len()), 0);
    let ip = Ipv4 {
        dscp,
        ecn: 0,
        id: id.3 as u16,
        dont_fragment: true,
        ttl: 64,
        protocol: 253,
        src: [10, 0, id.0, 1],
        dst: [10, 0, dst, 1],
        options: vec![],
    };
    Frame { dst: router, src: host_mac(id.0 as usize), vlans: vec![], protego: None, l3: L3::Ipv4(ip), l4: L4::None, payload }.to_wire()
}

/// The identity in a received data packet, if it is one of the scenario's.
fn data_id(f: &[u8]) -> Option<PacketId> {
    let p = f.get(14 + 20..14 + 20 + 19)?;
    if p[..4] != MAGIC || f[12..14] != ethertype::IPV4.to_be_bytes() {
        return None;
    }
    let u32_at = |o: usize| u32::from_be_bytes([p[o], p[o + 1], p[o + 2], p[o + 3]]);
    let burst = u64::from_be_bytes(std::array::from_fn(|i| p[9 + i]));
    Some((p[4], u32_at(5) as usize, burst, p[17]))
}

/// A GRT's fields, if `f` is one (no VLAN tags: the scenario sends none),
/// as it left port `port`.
fn grt_of(f: &[u8], port: usize) -> Option<Grant> {
    if f.get(12..14)? != ethertype::PL2.to_be_bytes() {
        return None;
    }
    let m = Pl2::parse(&f[14..]).filter(|m| m.kind == Pl2::GRT)?;
    Some(Grant { demand: m.demand, send: m.send_timeslot, recv: m.recv_timeslot, cookie: m.cookie, out_port: port as u8 })
}

/// What a host put on its link, as it enters the switch.
enum In {
    Rsv {
        cookie: u32,
    },
    /// A data packet, and whether this copy went unsolicited.
    Data(PacketId, bool),
}

/// How the hosts' events become frames.
struct Marks {
    router: [u8; 6],
    mtu: usize,
    dscp_unsol: u8,
    one_way_ns: u64,
}

/// Queues host event `e` as the frame that reaches its switch port
/// `one_way_ns` later; notes unsolicited and resent bursts.
fn queue_event(
    due: &mut [VecDeque<(u64, Vec<u8>, In)>],
    e: &crate::model::pl2_host::HostEvent,
    m: &Marks,
    unsol_bursts: &mut HashSet<(u8, usize, u64)>,
    resent: &mut HashSet<(u8, usize, u64)>,
) {
    let (frame, what) = match e.kind {
        HostEventKind::Rsv { dst, demand, cookie } => (rsv_frame(m.router, e.src as usize, dst, demand, cookie), In::Rsv { cookie }),
        HostEventKind::Data { dst, unsol, burst, index, resend } => {
            if unsol {
                unsol_bursts.insert((e.src, e.flow, burst));
            }
            if resend {
                resent.insert((e.src, e.flow, burst));
            }
            let id = (e.src, e.flow, burst, index);
            (data_frame(m.router, id, dst, if unsol { m.dscp_unsol } else { 0 }, resend, m.mtu), In::Data(id, unsol))
        }
    };
    due[e.src as usize].push_back((e.at_ns + m.one_way_ns, frame, what));
}

/// The sending and receiving switch ports of a PL2 scenario on `cfg` as
/// built (the model engine only counts them).
pub fn rtl_ports(sc: &Scenario, cfg: &Config) -> Result<(Vec<usize>, Vec<usize>)> {
    let f = sc.source.display();
    let ports = cfg.datapath.ports;
    let receivers: Vec<usize> = match sc.traffic.as_str() {
        "incast" => vec![sc.receiver],
        _ if sc.receivers.is_empty() => (0..ports).filter(|p| !sc.senders.contains(p)).collect(),
        _ => sc.receivers.clone(),
    };
    let senders: Vec<usize> =
        if sc.senders.is_empty() { (0..ports).filter(|p| !receivers.contains(p)).collect() } else { sc.senders.clone() };
    for s in &senders {
        ensure!(
            *s < ports && !receivers.contains(s),
            "{f}: senders: port {s} is a receiver or does not exist on {} (ports 0..{})",
            cfg.target.name,
            ports - 1
        );
    }
    let mut uniq = senders.clone();
    uniq.sort();
    uniq.dedup();
    ensure!(uniq.len() == senders.len(), "{f}: senders: a port is listed twice");
    Ok((senders, receivers))
}

/// Runs the PL2 scenario `sc` in `mode` on the Verilated switch of `cfg`.
pub fn run_rtl(cfg: &Config, sc: &Scenario, mode: &str) -> Result<super::pl2::Pl2Run> {
    let f = sc.source.display().to_string();
    let ic = sc.pl2_incast(cfg, mode)?;
    let (senders, receivers) = rtl_ports(sc, cfg)?;
    ensure!(
        cfg.pl2.dscp_unsol >= 0,
        "{}: pl2.dscp_unsol = {}: the RTL hosts mark unsolicited packets by DSCP; set one (0..=63)",
        cfg.source.display(),
        cfg.pl2.dscp_unsol
    );
    let router = mac(parse_mac(&cfg.ingress.router_mac).context("ingress.router_mac")?);
    let mhz = cfg.target.clock_mhz;
    let ns_of = |c: u64| (c as f64 * 1000.0 / mhz) as u64;
    let mtu = ic.host.mtu_bytes as usize;
    let slot_ns = ic.host.slot_ns();
    // One MTU at line rate in cycles, 16.16 (what the hosts call a slot).
    let slot_fix = (mtu as f64 * 8.0 / cfg.datapath.port_gbps * mhz / 1000.0 * 65536.0).round() as u64;
    ensure!(
        (65536..16384 * 65536).contains(&slot_fix),
        "{f}: frame_bytes = {mtu}: one slot would be {:.1} cycles at {} Gb/s and {mhz} MHz; SLOT_CYCLES holds 1.0 to below 16384.0",
        slot_fix as f64 / 65536.0,
        cfg.datapath.port_gbps
    );

    let mut b = SwitchBench::new(cfg, sc.seed)?;
    b.configure(cfg)?;
    let pl2 = b.map.window("pl2").clone();
    let pl2_on = mode != "no-pl2";
    let joint = mode == "pl2-joint";
    b.write(pl2.addr("K", 0), ic.alu.k)?;
    b.write(pl2.addr("T", 0), ic.alu.t_drop)?;
    b.write(pl2.addr("SLOT_CYCLES", 0), slot_fix as u32)?;
    b.write(pl2.addr("PORT_EN_LO", 0), u32::MAX)?;
    b.write(pl2.addr("PORT_EN_HI", 0), u32::MAX)?;
    let ctrl = (pl2_on as u32 * Pl2Regs::CTRL_ENABLE) | (joint as u32 * Pl2Regs::CTRL_JOINT) | Pl2Regs::CTRL_SLOT_RUN;
    b.write(pl2.addr("CTRL", 0), ctrl)?;
    let line = line_bytes_per_cycle(cfg);
    let strip = if cfg.ingress.strip_fcs { 4 } else { 0 };
    for s in b.srcs.iter_mut() {
        s.pace = Some(line);
        s.wire_overhead = 0;
    }
    for s in b.sinks.iter_mut() {
        s.pace = Some(line);
        s.wire_overhead = strip;
    }
    // Time 0: the slot clock at 0 (the write lands two cycles after it is
    // taken: a few ns of error in the joint-mode lateness).
    b.write(pl2.addr("SLOT_NOW", 0), 0)?;
    let start = b.tb.cycle();
    let slot0 = start + 2;

    let mut hosts = senders
        .iter()
        .map(|&p| {
            let dsts: Vec<u8> = (0..ic.flows).map(|fl| receivers[(fl + p) % receivers.len()] as u8).collect();
            Pl2Host::new(ic.host, p as u8, &dsts).map_err(|e| anyhow!("{f}: {e}"))
        })
        .collect::<Result<Vec<_>>>()?;
    let offered = schedule_messages(&mut hosts, &ic).map_err(|e| anyhow!("{f}: {e}"))?;
    let host_of: HashMap<usize, usize> = senders.iter().enumerate().map(|(i, &p)| (p, i)).collect();
    let ports = cfg.datapath.ports;
    // Frames due at each switch port (ns, frame, what), in order; what was
    // pushed into each port's source, and how many have their entry cycle.
    let mut due: Vec<VecDeque<(u64, Vec<u8>, In)>> = (0..ports).map(|_| VecDeque::new()).collect();
    let mut entered: Vec<Vec<In>> = (0..ports).map(|_| vec![]).collect();
    let mut mapped = vec![0usize; ports];
    let marks = Marks { router, mtu, dscp_unsol: cfg.pl2.dscp_unsol as u8, one_way_ns: ic.one_way_ns };
    let mut grts: BTreeMap<(u64, u64), (usize, Grant)> = BTreeMap::new();
    let mut gseq = 0u64;
    let mut unsol_bursts: HashSet<(u8, usize, u64)> = HashSet::new();
    let mut resent: HashSet<(u8, usize, u64)> = HashSet::new();
    // Per data packet: each copy's cycle in and whether it went unsolicited;
    // packets out with their cycles.
    let mut t_in: HashMap<PacketId, Vec<(u64, bool)>> = HashMap::new();
    let mut got: HashMap<PacketId, u32> = HashMap::new();
    let mut outs: Vec<(PacketId, u64, u64, usize)> = vec![]; // id, first beat out, last beat out, port
    let mut rsv_in: HashMap<(u8, u32), u64> = HashMap::new();
    let mut sched: HashMap<(u8, usize, u64), u64> = HashMap::new();
    let mut r = IncastReport { offered, ..Default::default() };
    let step = ((slot_fix >> 16) / 16).max(1);
    let drain = (cfg.tm.queue_d_bytes as f64 / line) as u64 + 4 * (mtu as f64 / line) as u64 + 2000;
    let mut quiet = 0u64;
    let mut last_beats = 0u64;
    loop {
        b.run(step);
        let now_c = b.tb.cycle() - start;
        let now = ns_of(now_c);
        // GRTs out of the senders' ports reach their hosts one way later.
        for &p in &senders {
            let s = &mut b.sinks[p];
            while let Some(pkt) = s.packets.pop_front() {
                let first = s.first_cycles.pop_front().context("first cycle")?;
                s.last_cycles.pop_front();
                let g = grt_of(&pkt.data, p).with_context(|| {
                    format!("{f}: port {p} (a sender) got a frame that is no GRT: {:02x?}", &pkt.data[..pkt.data.len().min(20)])
                })?;
                gseq += 1;
                grts.insert((ns_of(first - start) + ic.one_way_ns, gseq), (p, g));
            }
        }
        // Data at the receivers.
        for &p in &receivers {
            let s = &mut b.sinks[p];
            while let Some(pkt) = s.packets.pop_front() {
                let first = s.first_cycles.pop_front().context("first cycle")? - start;
                let last = s.last_cycles.pop_front().context("last cycle")? - start;
                let id = data_id(&pkt.data).with_context(|| format!("{f}: port {p} got a frame that is not the scenario's"))?;
                *got.entry(id).or_insert(0) += 1;
                outs.push((id, first, last, p));
            }
        }
        // GRTs due, in time order; each host first runs up to its GRT.
        while let Some((&(t, k), _)) = grts.iter().next() {
            if t > now {
                break;
            }
            let (p, g) = grts.remove(&(t, k)).expect("peeked");
            let h = host_of[&p];
            while let Some(e) = hosts[h].pop_due(t) {
                queue_event(&mut due, &e, &marks, &mut unsol_bursts, &mut resent);
            }
            hosts[h].receive_grt(t, (g.cookie >> 16) as usize, &g).map_err(|e| anyhow!("{f}: port {p}: {e}"))?;
            // Where the GRT puts the burst at the switch (for the lateness).
            let key = (p as u8, g.cookie);
            let at_rsv = rsv_in.get(&key).copied().with_context(|| format!("{f}: port {p}: a GRT for an RSV that never entered"))?;
            let chosen = g.send.max(g.recv) as u64;
            let at = if joint {
                let slot_now = ((at_rsv + start).saturating_sub(slot0) << 16) / slot_fix;
                ns_of((((slot_now + chosen) * slot_fix) >> 16) + slot0 - start)
            } else {
                ns_of(at_rsv) + chosen * slot_ns
            };
            sched.insert((p as u8, (g.cookie >> 16) as usize, (g.cookie & 0xffff) as u64), at);
        }
        for h in hosts.iter_mut() {
            while let Some(e) = h.pop_due(now) {
                queue_event(&mut due, &e, &marks, &mut unsol_bursts, &mut resent);
            }
        }
        // Frames due at the switch go into their port's source.
        for p in 0..ports {
            while due[p].front().is_some_and(|d| d.0 <= now) {
                let (_, frame, what) = due[p].pop_front().expect("peeked");
                b.srcs[p].push(Packet::new(frame, 0));
                entered[p].push(what);
            }
        }
        // Entry cycles of what the sources have started.
        for p in 0..ports {
            let fc = &b.srcs[p].first_cycles;
            while mapped[p] < fc.len() {
                let c = fc[mapped[p]] - start;
                match entered[p][mapped[p]] {
                    In::Data(id, unsol) => t_in.entry(id).or_default().push((c, unsol)),
                    In::Rsv { cookie } => {
                        rsv_in.insert((p as u8, cookie), c);
                    }
                }
                mapped[p] += 1;
            }
        }
        let beats: u64 = b.sinks.iter().map(|s| s.beats()).sum::<u64>() + b.srcs.iter().map(|s| s.beats()).sum::<u64>();
        let busy = beats != last_beats
            || hosts.iter().any(|h| h.next_time().is_some())
            || !grts.is_empty()
            || due.iter().any(|d| !d.is_empty())
            || b.srcs.iter().any(|s| s.pending() > 0);
        last_beats = beats;
        quiet = if busy { 0 } else { quiet + step };
        if quiet >= drain {
            break;
        }
        ensure!(now_c < 2_000_000_000, "{f}: mode {mode}: the switch never went quiet");
    }
    for (p, s) in b.sinks.iter().enumerate() {
        ensure!(s.error_count() == 0, "port {p}: AXI-Stream protocol errors at the output: {:?}", s.errors.first());
    }
    for (i, h) in hosts.iter().enumerate() {
        ensure!(
            (0..ic.flows).all(|fl| !h.busy(fl)),
            "{f}: mode {mode}: a flow of the sender on port {} never finished (a GRT went missing)",
            senders[i]
        );
        r.unsol_bursts += h.stats().unsol_bursts;
        r.resends += h.stats().resends;
    }
    let counters = b.read_counters()?;
    let c = |k: &str| counters.get(k).copied().unwrap_or(0);
    r.alu_unsol_drops = c("pl2.UNSOL_DROP");
    r.queue_drops = counters
        .iter()
        .filter(|(k, _)| k.starts_with("tm") && k.split_once('.').is_some_and(|(_, n)| n.starts_with("DROP_")))
        .map(|(_, v)| v)
        .sum();
    r.out_high_water = receivers.iter().map(|&p| c(&format!("pl2.OUT_HW[{p}]")) as u32).max().unwrap_or(0);
    r.delivered = got.len() as u64;
    r.duplicates = got.values().map(|&n| n as u64 - 1).sum();
    r.lost = r.offered - r.delivered;
    // Lost packets of unsolicited bursts that were never resent.
    let mut sent_ids: HashSet<PacketId> = HashSet::new();
    for e in entered.iter().flatten() {
        if let In::Data(id, _) = e {
            sent_ids.insert(*id);
        }
    }
    r.never_resent_pkts = sent_ids
        .iter()
        .filter(|id| !got.contains_key(id) && unsol_bursts.contains(&(id.0, id.1, id.2)) && !resent.contains(&(id.0, id.1, id.2)))
        .count() as u64;
    // Lateness of solicited packets against their GRT's slot.
    for (id, copies) in &t_in {
        for &(tin, _) in copies.iter().filter(|c| !c.1) {
            if let Some(&at) = sched.get(&(id.0, id.1, id.2 & 0xffff)) {
                let due_ns = at + id.3 as u64 * slot_ns;
                let tin_ns = ns_of(tin);
                r.max_late_ns = r.max_late_ns.max(tin_ns.saturating_sub(due_ns));
                r.early_pkts += (tin_ns < due_ns) as u64;
            }
        }
    }
    // Each copy out matched with its copy in: a packet's copies leave in
    // the order they entered (one sender port, one queue). A copy that
    // never left was dropped.
    let mut k_out: HashMap<PacketId, usize> = HashMap::new();
    let through: Vec<(u64, u64, usize)> = outs
        .iter()
        .filter_map(|(id, first, _, q)| {
            let k = k_out.entry(*id).or_insert(0);
            *k += 1;
            t_in.get(id).and_then(|c| c.get(*k - 1)).map(|&(i, _)| (i, *first, *q))
        })
        .collect();
    // The queue per receiver: packets in the switch for it (entered, not yet
    // left), from the cycles; delays through the switch.
    let mut qdelay = vec![];
    let min_lat = through.iter().map(|(i, o, _)| o - i).min().unwrap_or(0);
    for &p in &receivers {
        let mut ev: Vec<(u64, i64)> = vec![];
        for &(i, first, q) in &through {
            if q == p {
                ev.push((i, 1));
                ev.push((first, -1));
                qdelay.push(ns_of(first - i - min_lat));
            }
        }
        ev.sort();
        let mut n = 0i64;
        for (t, d) in ev {
            n += d;
            if n as usize > r.max_queue {
                (r.max_queue, r.max_queue_at_ns) = (n as usize, ns_of(t));
            }
        }
    }
    r.set_qdelay(&mut qdelay);
    // Completion, goodput, fairness (as the model engine computes them).
    let mut flow_done: BTreeMap<(u8, usize), (u64, u64)> = BTreeMap::new();
    let mut seen: HashSet<PacketId> = HashSet::new();
    let first_delivery = outs.iter().map(|o| o.1).min().unwrap_or(0);
    for (id, _, last, _) in &outs {
        r.completion_ns = r.completion_ns.max(ns_of(*last));
        if seen.insert(*id) {
            let e = flow_done.entry((id.0, id.1)).or_insert((0, 0));
            *e = (e.0 + 1, e.1.max(ns_of(*last)));
        }
    }
    let tput: Vec<f64> = flow_done.values().filter(|(_, at)| *at > 0).map(|&(n, at)| n as f64 / at as f64).collect();
    r.jain = jain(&tput);
    r.flow_done_min_ns = flow_done.values().map(|x| x.1).min().unwrap_or(0);
    r.flow_done_max_ns = flow_done.values().map(|x| x.1).max().unwrap_or(0);
    if r.completion_ns > 0 {
        r.goodput = (r.delivered * slot_ns) as f64 / r.completion_ns as f64;
        let span = r.completion_ns.saturating_sub(ns_of(first_delivery)).max(1);
        r.busy = (outs.len() as u64 * slot_ns) as f64 / span as f64;
    }
    Ok(super::pl2::Pl2Run {
        mode: mode.to_string(),
        senders: senders.len(),
        receivers: receivers.len(),
        rate_gbps: ic.host.rate_gbps,
        slot_ns,
        report: r,
    })
}
