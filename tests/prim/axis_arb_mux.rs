//! `ts_axis_arb_mux` in Verilator at 64 and 512 bits, round robin and DRR.
use crate::common;
use anyhow::{ensure, Context, Result};
use common::*;
use trimswitch_hdl::axis::arb_mux::AxisArbMux;
use trimswitch_hdl::meta::tuser;
use trimswitch_sim::agents::axis::{check_packets, AxisPorts, AxisSink, AxisSource, Packet};
use trimswitch_sim::harness::dut::{model_of, Traffic};
use trimswitch_sim::harness::tb::{Agent, Tb};

const N: usize = 3;

struct Bench {
    tb: Tb,
    srcs: Vec<AxisSource>,
    sink: AxisSink,
}

/// An arbiter of `quanta.len()` inputs (two inputs take their own output
/// multiplexer, [`AxisArbMux`]'s `two`).
fn bench(width: usize, drr: bool, quanta: &[u64], seed: u64) -> Result<Bench> {
    let n = quanta.len();
    let lib = with_geometry!(width, 64, [(64, 64), (512, 64)], |D, K, U, M, W| model_of(
        &mut AxisArbMux::<D, K, U>::new(n),
        "ts_axis_arb_mux",
        &format!("d{D}_u{U}_n{n}")
    ))
    .context("a tested width")??;
    let mut m = lib.instantiate();
    let srcs = (0..n)
        .map(|i| AxisSource::new(&m, &AxisPorts::indexed("s", i).with_bytes(&format!("s_bytes_{i}")), seed + i as u64))
        .collect::<Result<Vec<_>>>()?;
    let sink = AxisSink::new(&m, &AxisPorts::master("m"), seed + 100)?;
    let p = m.port("drr_enable")?;
    m.set(&p, drr as u64);
    for (i, q) in quanta.iter().enumerate() {
        let p = m.port(&format!("quantum_{i}"))?;
        m.set(&p, *q);
    }
    let mut tb = Tb::new(m, "clock", Some("reset"))?;
    tb.reset(2);
    Ok(Bench { tb, srcs, sink })
}

impl Bench {
    fn run_until_idle(&mut self, max: u64) -> Result<u64> {
        let mut agents: Vec<&mut dyn Agent> = self.srcs.iter_mut().map(|s| s as &mut dyn Agent).collect();
        agents.push(&mut self.sink);
        self.tb.run_until_idle(&mut agents, max)
    }
}

fn src_of(p: &Packet) -> usize {
    (p.user & 0xff) as usize
}

/// Random traffic on every input with idle gaps and output backpressure: each
/// input's packets come out whole and in their order; nothing is lost.
fn random(width: usize, drr: bool) -> Result<()> {
    random_in(width, drr, &[0.1, 0.4, 0.7], 0.6, MIN_CYCLES as usize / 2, MIN_CYCLES)
}

/// `beats` beats of random packets on every input (`idle.len()` of them, 2
/// or 3), input `i` idling `idle[i]` of its cycles, the output ready `ready`
/// of its cycles.
fn random_in(width: usize, drr: bool, idle: &[f64], ready: f64, min_beats: usize, min_cycles: u64) -> Result<()> {
    let n = idle.len();
    let mut b = bench(width, drr, &[700, 1500, 3000][..n], 1)?;
    let beat = width / 8;
    let mut t = Traffic::new(2);
    let mut sent: Vec<Vec<Packet>> = vec![vec![]; n];
    let mut beats = 0;
    while beats < min_beats {
        // `i` is the input: it picks the source, its sequence and its tuser.
        #[allow(clippy::needless_range_loop)]
        for i in 0..n {
            let len = t.length(1, 20 * beat, beat);
            beats += len.div_ceil(beat);
            let p = t.packet(len, tuser(i as u8, 0, len as u16) | (sent[i].len() as u128) << 40);
            b.srcs[i].push(p.clone());
            sent[i].push(p);
        }
    }
    for (i, s) in b.srcs.iter_mut().enumerate() {
        s.idle_prob = idle[i];
    }
    b.sink.ready_prob = ready;
    b.sink.expect(sent.iter().map(|s| s.len() as u64).sum());
    let cycles = b.run_until_idle(20 * MIN_CYCLES)?;
    ensure!(cycles >= min_cycles, "ran only {cycles} cycles");
    no_protocol_errors(&b.sink)?;
    let got: Vec<Packet> = b.sink.packets.drain(..).collect();
    for (i, sent_i) in sent.iter().enumerate() {
        let mine: Vec<Packet> = got.iter().filter(|p| src_of(p) == i).cloned().collect();
        check_packets(sent_i, &mine).map_err(|e| e.context(format!("input {i}")))?;
    }
    Ok(())
}

/// Idle gaps on every input x output backpressure ([`MATRIX`]), round robin
/// and DRR, at both widths.
#[test]
fn matrix() -> Result<()> {
    for w in [64, 512] {
        for drr in [false, true] {
            for_matrix(|c| random_in(w, drr, &[c.idle_prob; N], c.ready_prob, 3000, 0))?;
        }
    }
    Ok(())
}

#[test]
fn random_rr_64() -> Result<()> {
    random(64, false)
}

#[test]
fn random_rr_512() -> Result<()> {
    random(512, false)
}

#[test]
fn random_drr_64() -> Result<()> {
    random(64, true)
}

#[test]
fn random_drr_512() -> Result<()> {
    random(512, true)
}

/// Two inputs (the traffic manager's port scheduler, the switch's port
/// merge of two pipelines): their own output multiplexer, by `sel[0]`.
/// Round robin and DRR, idle gaps and output backpressure, both widths.
#[test]
fn random_two_inputs() -> Result<()> {
    for w in [64, 512] {
        for drr in [false, true] {
            random_in(w, drr, &[0.2, 0.5], 0.6, MIN_CYCLES as usize / 4, MIN_CYCLES / 4)
                .with_context(|| format!("width {w}, drr {drr}"))?;
        }
    }
    Ok(())
}

/// Output order of saturated inputs, and bytes per input over the window in
/// which every input still had packets waiting.
fn saturated(
    width: usize,
    drr: bool,
    quanta: [u64; N],
    lens: impl Fn(&mut Traffic) -> usize,
    per_input: usize,
) -> Result<(Vec<usize>, [u64; N], u64)> {
    let mut b = bench(width, drr, &quanta, 7)?;
    let mut t = Traffic::new(8);
    let mut total = 0;
    for i in 0..N {
        for k in 0..per_input {
            let len = lens(&mut t);
            b.srcs[i].push(t.packet(len, tuser(i as u8, 0, len as u16) | (k as u128) << 40));
            total += 1;
        }
    }
    b.sink.expect(total);
    let cycles = b.run_until_idle(100 * MIN_CYCLES)?;
    let got: Vec<Packet> = b.sink.packets.drain(..).collect();
    let mut left = [per_input; N];
    let mut bytes = [0u64; N];
    let mut order = vec![];
    for p in &got {
        let s = src_of(p);
        if left.contains(&0) {
            break;
        }
        left[s] -= 1;
        bytes[s] += p.data.len() as u64;
        order.push(s);
    }
    Ok((order, bytes, cycles))
}

/// Round robin: saturated inputs take strict turns.
#[test]
fn round_robin_takes_turns() -> Result<()> {
    let (order, _, _) = saturated(64, false, [1, 1, 1], |t| t.length(1, 200, 8), 300)?;
    for w in order.windows(N) {
        let mut s = w.to_vec();
        s.sort();
        ensure!(s == [0, 1, 2], "window {w:?} of the output order is not one packet per input");
    }
    Ok(())
}

/// DRR: byte shares follow the quanta (1:2:4) within 3% under saturation
/// with random packet sizes, and the surplus never exceeds one packet.
#[test]
fn drr_shares_follow_quanta() -> Result<()> {
    for width in [64, 512] {
        let quanta = [1500, 3000, 6000];
        let (_, bytes, _) = saturated(width, true, quanta, |t| t.length(64, 1500, 64), 1500)?;
        let total: u64 = bytes.iter().sum();
        for i in 0..N {
            let share = bytes[i] as f64 / total as f64;
            let want = quanta[i] as f64 / quanta.iter().sum::<u64>() as f64;
            ensure!((share - want).abs() < 0.03, "width {width} input {i}: share {share:.3}, quanta give {want:.3} ({bytes:?})");
        }
        eprintln!("drr/{width}: bytes per input {bytes:?}");
    }
    Ok(())
}

/// The packet-level DRR of the module docs: saturated inputs (every queue
/// non-empty), rotation to the highest input below the last one served (the
/// highest first), a turn adds the quantum and is skipped unless the credit
/// is positive, and lasts while the deficit stays positive after a packet.
/// Returns the order of the inputs' packets until a queue runs empty.
fn drr_model<const M: usize>(quanta: [u64; M], mut lens: [std::collections::VecDeque<usize>; M]) -> Vec<usize> {
    let mut deficit = [0i64; M];
    let mut last: Option<usize> = None;
    let mut order = vec![];
    loop {
        let i = match last {
            Some(l) if l > 0 => l - 1,
            _ => M - 1,
        };
        last = Some(i);
        deficit[i] += quanta[i] as i64;
        if deficit[i] <= 0 {
            continue;
        }
        while deficit[i] > 0 {
            let Some(len) = lens[i].pop_front() else { return order };
            deficit[i] -= len as i64;
            order.push(i);
        }
    }
}

/// DRR decisions are exact: with quanta below the packet sizes (inputs are
/// skipped for several rounds while they bank credit) and above them (turns
/// of several packets), saturated inputs leave in the order of [`drr_model`].
#[test]
fn drr_order_matches_model() -> Result<()> {
    // Byte counts and quanta in multiples of 64 make deficits of exactly 0
    // common: a turn must end there (credit must be positive).
    for (width, quanta, step) in [(64, [300u64, 64, 1000], 1), (512, [2000, 200, 700], 1), (64, [192, 64, 1024], 64)] {
        drr_order(width, quanta, step)?;
    }
    // Two inputs (their own output multiplexer).
    drr_order(64, [64u64, 1000], 64)?;
    drr_order(512, [2000u64, 300], 1)
}

/// [`drr_order_matches_model`] for `M` saturated inputs.
fn drr_order<const M: usize>(width: usize, quanta: [u64; M], step: usize) -> Result<()> {
    let mut b = bench(width, true, &quanta, 5)?;
    let mut t = Traffic::new(6);
    let per_input = 300;
    let mut lens: [std::collections::VecDeque<usize>; M] = std::array::from_fn(|_| Default::default());
    for (i, (queue, src)) in lens.iter_mut().zip(b.srcs.iter_mut()).enumerate() {
        for k in 0..per_input {
            let len = t.length(64, 1500, step);
            queue.push_back(len);
            src.push(t.packet(len, tuser(i as u8, 0, len as u16) | (k as u128) << 40));
        }
    }
    let want = drr_model(quanta, lens);
    b.sink.expect((M * per_input) as u64);
    b.run_until_idle(100 * MIN_CYCLES)?;
    let got: Vec<usize> = b.sink.packets.iter().map(src_of).take(want.len()).collect();
    ensure!(want.len() > per_input, "width {width}: the model ran dry after {} packets", want.len());
    if let Some(k) = (0..want.len()).find(|&k| got[k] != want[k]) {
        anyhow::bail!(
            "width {width} quanta {quanta:?}: packet {k} came from input {}, the model says {} (order so far {:?})",
            got[k],
            want[k],
            &got[..k]
        );
    }
    Ok(())
}

/// A lone input whose quantum is below its packets' size is skipped, one
/// cycle per round, until its credit is positive; it is picked again in the
/// very next cycle, so the credit test must see the quantum banked by the
/// skip a cycle before. Cycles = beats + the model's skips + the pipeline's
/// latency (measured with a quantum that never skips). A quantum's bits
/// above 15 are ignored: `0x1_0000 | 333` runs as 333.
#[test]
fn drr_lone_input_skips_exactly() -> Result<()> {
    let (width, len, n) = (64, 1000usize, 40u64);
    let run = |quantum: u64| -> Result<u64> {
        let mut b = bench(width, true, &[quantum, 1, 1], 9)?;
        let mut t = Traffic::new(10);
        for k in 0..n {
            b.srcs[0].push(t.packet(len, tuser(0, 0, len as u16) | (k as u128) << 40));
        }
        b.sink.expect(n);
        b.run_until_idle(100 * MIN_CYCLES)
    };
    let beats = n * len.div_ceil(width / 8) as u64;
    let latency = run(65_535)? - beats;
    for quantum in [150u64, 333, 999, 0x1_0000 | 333] {
        // Model: a turn adds the quantum; no credit, a skip (one cycle).
        let (mut deficit, mut skips, q) = (0i64, 0u64, (quantum & 0xFFFF) as i64);
        for _ in 0..n {
            deficit += q;
            while deficit <= 0 {
                skips += 1;
                deficit += q;
            }
            deficit -= len as i64;
        }
        let cycles = run(quantum)?;
        ensure!(
            cycles == beats + skips + latency,
            "quantum {quantum}: {cycles} cycles, expected {beats} beats + {skips} skips + {latency} latency"
        );
    }
    Ok(())
}

/// Single-beat packets from all inputs stream at one beat per cycle.
#[test]
fn one_beat_per_cycle() -> Result<()> {
    for drr in [false, true] {
        let n = 600;
        let (_, _, cycles) = saturated(512, drr, [64, 64, 64], |_| 64, n)?;
        let beats = (N * n) as u64;
        ensure!(cycles <= beats + 4, "drr={drr}: {beats} single-beat packets took {cycles} cycles");
    }
    Ok(())
}

/// A reset while packets from every input are half-way through leaves no
/// trace: afterwards each input's packets come out whole and in order.
#[test]
fn reset_mid_packet() -> Result<()> {
    for drr in [false, true] {
        let mut b = bench(64, drr, &[100, 200, 300], 11)?;
        let mut t = Traffic::new(12);
        b.sink.ready_prob = 0.3;
        for (i, s) in b.srcs.iter_mut().enumerate() {
            s.push(t.packet(200, tuser(i as u8, 0, 200)));
        }
        let mut agents: Vec<&mut dyn Agent> = b.srcs.iter_mut().map(|s| s as &mut dyn Agent).collect();
        agents.push(&mut b.sink);
        b.tb.run(&mut agents, 17);
        for s in b.srcs.iter_mut() {
            s.abort();
        }
        b.sink.abort();
        b.sink.packets.clear();
        b.tb.reset(2);
        let valid = b.tb.model.port("m_tvalid")?;
        ensure!(b.tb.model.get(&valid) == 0, "output valid after reset");
        let mut sent: Vec<Vec<Packet>> = vec![vec![]; N];
        for k in 0..30u128 {
            // `i` is the input: it picks the source, its sequence and its tuser.
            #[allow(clippy::needless_range_loop)]
            for i in 0..N {
                let len = 1 + (k as usize * 17 + i * 5) % 150;
                let p = t.packet(len, tuser(i as u8, 0, len as u16) | k << 40);
                b.srcs[i].push(p.clone());
                sent[i].push(p);
            }
        }
        b.sink.expect(sent.iter().map(|s| s.len() as u64).sum());
        b.run_until_idle(100_000)?;
        no_protocol_errors(&b.sink)?;
        let got: Vec<Packet> = b.sink.packets.drain(..).collect();
        for (i, sent_i) in sent.iter().enumerate() {
            let mine: Vec<Packet> = got.iter().filter(|p| src_of(p) == i).cloned().collect();
            check_packets(sent_i, &mine).map_err(|e| e.context(format!("drr={drr} input {i}")))?;
        }
    }
    Ok(())
}
