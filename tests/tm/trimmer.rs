//! `ts_trimmer` in Verilator at 64, 256 and 512 bits against the golden
//! model's `trim` (`sim/src/model/tm.rs`, `docs/trimming.md`): random
//! ingress traffic (every header mix the generator makes: VLANs, Protego,
//! IPv4 with options, IPv6, UDP, NDP), each packet passed, trimmed, or
//! trimmed and returned, under random gaps and backpressure. Every output
//! packet equals the model's, bytes and `tuser`, in order. The trimmed
//! frames are written to a pcap that tshark (checksum validation on) and
//! scapy must read without a single error.
use crate::common;
use anyhow::{ensure, Context, Result};
use common::*;
use rand::{Rng, SeedableRng};
use std::path::Path;
use std::process::Command;
use trimswitch_hdl::meta::{flag, Meta};
use trimswitch_hdl::tm::trimmer::{Trimmer, PROC_CYCLES};
use trimswitch_sim::agents::axis::{AxisPorts, AxisSink, AxisSource, Packet};
use trimswitch_sim::harness::dut::model_of;
use trimswitch_sim::harness::tb::Tb;
use trimswitch_sim::harness::verilator::ModelLib;
use trimswitch_sim::model::gen::{random_frame, GenOpts};
use trimswitch_sim::model::tm::{header_end, keep_len, trim, TrimParams};
use trimswitch_sim::model::{IngressModel, Settings};
use trimswitch_sim::packet::pcap::PcapWriter;

fn model(width: usize, window: usize) -> Result<ModelLib> {
    let tag = if window == 128 { format!("d{width}") } else { format!("d{width}-w{window}") };
    with_geometry!(width, 128, [(64, 128), (256, 128), (512, 128)], |D, K, U, M, W| model_of(
        &mut Trimmer::<D, K, U>::with_window(window),
        "ts_trimmer",
        &tag
    ))
    .context("a tested width")?
}

/// What a test packet is: its input to the trimmer and the model's output.
struct Case {
    input: Packet,
    want: Packet,
    trimmed: bool,
}

/// `n` ingress outputs (the ingress model's, wide `tuser`), each given a
/// random decision: pass (2 in 5, and every packet that is not trimmable),
/// trim, or trim and return. Trim lengths are random per run, so short and
/// long keeps and "shorter than the trim length" packets all occur.
fn cases(n: usize, p: &TrimParams, seed: u64) -> Vec<Case> {
    cases_asking(n, p, p, seed)
}

/// [`cases`] whose `tuser.length` is the keep length under `ask` (what
/// admission with those parameters hands on), the output the model's under
/// `p`: with `ask.window` above `p.window`, the trimmer's own cap is tested.
fn cases_asking(n: usize, p: &TrimParams, ask: &TrimParams, seed: u64) -> Vec<Case> {
    let cfg = config();
    let mut ing = IngressModel::new(&cfg);
    let mut o = GenOpts::from_settings(&Settings::from_config(&cfg));
    o.max_size = 3000;
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut out = vec![];
    while out.len() < n {
        let port = rng.gen_range(0..4);
        let Some(x) = ing.process(port, &random_frame(&mut rng, &o)) else { continue };
        let d = rng.gen_range(0..5);
        // Admission never trims a packet whose headers end past the window.
        if !x.meta.trim_ok || d < 2 || header_end(&x.meta) > p.window {
            let pk = Packet::new(x.frame, x.meta.pack());
            out.push(Case { input: pk.clone(), want: pk, trimmed: false });
            continue;
        }
        let rts = d == 4;
        let (f, m) = trim(&x.frame, &x.meta, p, rts);
        // What admission hands the trimmer: the decision in flags, the keep
        // length in `length`, the source port as destination when returned.
        let mut m_in: Meta = x.meta;
        m_in.flags = flag::TRIMMED | if rts { flag::RETURNED } else { 0 };
        m_in.length = keep_len(&x.meta, ask);
        if rts {
            m_in.dest_port = m_in.src_port;
        }
        out.push(Case { input: Packet::new(x.frame, m_in.pack()), want: Packet::new(f, m.pack()), trimmed: true });
    }
    out
}

struct Run {
    got: Vec<Packet>,
    cycles: u64,
}

fn run(width: usize, cases: &[Case], p: &TrimParams, idle: f64, ready: f64, seed: u64) -> Result<Run> {
    let m = model(width, p.window as usize)?.instantiate();
    let mut src = AxisSource::new(&m, &AxisPorts::slave("s"), seed)?;
    let mut sink = AxisSink::new(&m, &AxisPorts::master("m"), seed + 1)?;
    let mut tb = Tb::new(m, "clock", Some("reset"))?;
    let set = |tb: &mut Tb, port: &str, v: u64| -> Result<()> {
        let x = tb.model.port(port)?;
        tb.model.set(&x, v);
        Ok(())
    };
    set(&mut tb, "dscp_en", p.dscp_trimmed.is_some() as u64)?;
    set(&mut tb, "dscp", p.dscp_trimmed.unwrap_or(0) as u64)?;
    tb.reset(4);
    src.idle_prob = idle;
    sink.ready_prob = ready;
    for c in cases {
        src.push(c.input.clone());
    }
    sink.expect(cases.len() as u64);
    let start = tb.cycle();
    tb.run_until(&mut [&mut src, &mut sink], 200 * MIN_CYCLES, |_, a| a.iter().all(|x| x.idle()))?;
    no_protocol_errors(&sink)?;
    let cycles = tb.cycle() - start;
    let cut = tb.model.get(&tb.model.port("cut_pkts")?);
    let want_cut = cases.iter().filter(|c| c.trimmed && c.want.data.len() < c.input.data.len()).count() as u64;
    ensure!(cut == want_cut, "cut_pkts = {cut}, model says {want_cut}");
    Ok(Run { got: sink.packets.drain(..).collect(), cycles })
}

fn compare(cases: &[Case], got: &[Packet]) -> Result<()> {
    ensure!(got.len() == cases.len(), "{} packets out, {} in", got.len(), cases.len());
    for (i, (c, g)) in cases.iter().zip(got).enumerate() {
        if *g != c.want {
            let first = g.data.iter().zip(&c.want.data).position(|(a, b)| a != b);
            anyhow::bail!(
                "packet {i} ({}): got {} B user {:#x}, model {} B user {:#x}; first differing byte {first:?}\n got  {:02x?}\n want {:02x?}",
                if c.trimmed { "trimmed" } else { "passed" },
                g.data.len(),
                g.user,
                c.want.data.len(),
                c.want.user,
                &g.data[..g.data.len().min(140)],
                &c.want.data[..c.want.data.len().min(140)]
            );
        }
    }
    Ok(())
}

fn random_params(seed: u64) -> TrimParams {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    TrimParams {
        len_ndp: rng.gen_range(40..=128),
        len_ipv4: rng.gen_range(40..=128),
        len_ipv6: rng.gen_range(60..=128),
        dscp_trimmed: if rng.gen_bool(0.8) { Some(rng.gen_range(0..64)) } else { None },
        window: 128,
    }
}

/// The stream matrix (`common::MATRIX`), `n` packets per cell; the default
/// parameters in two cells, random ones in the other two.
fn against_model(width: usize, n: usize, seed: u64) -> Result<()> {
    let mut k = 0;
    for_matrix(|cell| {
        k += 1;
        let p = if k % 2 == 1 { TrimParams::default() } else { random_params(seed + k) };
        let p = &p;
        let cs = cases(n, p, seed + k);
        let r = run(width, &cs, p, cell.idle_prob, cell.ready_prob, seed + k)?;
        compare(&cs, &r.got).with_context(|| format!("{width} bits, params {p:?}"))?;
        let beats: u64 = cs.iter().map(|c| c.input.data.len().div_ceil(width / 8) as u64).sum();
        ensure!(r.cycles >= beats, "impossible: {} cycles for {beats} beats", r.cycles);
        eprintln!(
            "{width} bits: {} packets ({} trimmed), {beats} beats in {} cycles",
            cs.len(),
            cs.iter().filter(|c| c.trimmed).count(),
            r.cycles
        );
        Ok(())
    })
}

#[test]
fn against_model_64() -> Result<()> {
    against_model(64, 1500, 11)
}

/// A 64-byte window (`tm.trim_window = 64`, the ECP5 board's): the
/// trimmer keeps at most 64 bytes whatever `tuser.length` asks (here up to
/// 128: the keep lengths of a 128-byte window), headers past it cut, every
/// packet as the model says with the window (two cells of the matrix).
#[test]
fn against_model_window_64() -> Result<()> {
    let mut k = 0;
    for_matrix(|cell| {
        k += 1;
        if k > 2 {
            return Ok(());
        }
        let ask = if k == 1 { TrimParams { len_ndp: 128, len_ipv4: 100, ..TrimParams::default() } } else { random_params(30 + k) };
        let p = TrimParams { window: 64, ..ask };
        let cs = cases_asking(1200, &p, &ask, 30 + k);
        ensure!(cs.iter().all(|c| !c.trimmed || c.want.data.len() <= 64), "the model keeps more than the window");
        let r = run(64, &cs, &p, cell.idle_prob, cell.ready_prob, 30 + k)?;
        compare(&cs, &r.got).with_context(|| format!("64 bits, window 64, params {p:?}"))?;
        let asked_more = cs.iter().filter(|c| c.trimmed && Meta::unpack(c.input.user).length > 64).count();
        ensure!(asked_more > 25, "only {asked_more} packets asked for more than the window");
        eprintln!(
            "window 64: {} packets, {} trimmed, {asked_more} asked for more than 64 bytes",
            cs.len(),
            cs.iter().filter(|c| c.trimmed).count()
        );
        Ok(())
    })
}

#[test]
fn against_model_256() -> Result<()> {
    against_model(256, 4000, 12)
}

#[test]
fn against_model_512() -> Result<()> {
    against_model(512, 6000, 13)
}

/// Cycles a run of back-to-back trimmed packets takes, as the design states
/// it (`hdl/src/tm/trimmer.rs`): packet i's last beat is taken (hand-off at
/// `t`) once its `n` beats are in, the first no earlier than 2 cycles after
/// the previous hand-off (the phase-1 bubble), and once the processing is
/// idle; its last phase comes [`PROC_CYCLES`] - 1 cycles later or when the
/// previous emit is over, whichever is later; its `m` beats follow.
fn trimmed_run_cycles(cases: &[Case], k: usize) -> u64 {
    let to_last = PROC_CYCLES as u64 - 1;
    // (hand-off, last phase, m) of the previous packet.
    let mut prev: Option<(u64, u64, u64)> = None;
    for c in cases {
        let (n, m) = (c.input.data.len().div_ceil(k) as u64, c.want.data.len().div_ceil(k) as u64);
        let (t, tl) = match prev {
            None => (n - 1, n - 1 + to_last),
            Some((pt, ptl, pm)) => {
                let t = (pt + 1 + n).max(ptl + 1);
                (t, (t + to_last).max(ptl + 1 + pm))
            }
        };
        prev = Some((t, tl, m));
    }
    prev.map_or(0, |(_, tl, m)| tl + 1 + m)
}

/// Throughput with no gaps and the output always ready: a passing packet
/// streams at one beat per cycle; trimmed packets of n beats in and m out
/// overlap capture, processing and emit and take max(n + 1, PROC_CYCLES,
/// m + 1) cycles each (`hdl/src/tm/trimmer.rs`; the serial trimmer before issue 14
/// took n + 3 + m).
#[test]
fn cycles_per_packet_512() -> Result<()> {
    let p = TrimParams::default();
    let all = cases(4000, &p, 21);
    let pass: Vec<Case> =
        all.iter().filter(|c| !c.trimmed).map(|c| Case { input: c.input.clone(), want: c.want.clone(), trimmed: false }).collect();
    let trimmed: Vec<Case> = all.into_iter().filter(|c| c.trimmed).collect();
    let k = 64;
    let r = run(512, &pass, &p, 0.0, 1.0, 5)?;
    compare(&pass, &r.got)?;
    let beats: u64 = pass.iter().map(|c| c.input.data.len().div_ceil(k) as u64).sum();
    ensure!(r.cycles <= beats + 16, "passing packets: {} cycles for {beats} beats", r.cycles);
    let pass_cycles = r.cycles;
    let r = run(512, &trimmed, &p, 0.0, 1.0, 6)?;
    compare(&trimmed, &r.got)?;
    let want = trimmed_run_cycles(&trimmed, k);
    let serial: u64 = trimmed.iter().map(|c| (c.input.data.len().div_ceil(k) + 3 + c.want.data.len().div_ceil(k)) as u64).sum();
    ensure!(r.cycles <= want + 8 && r.cycles + 8 >= want, "trimmed packets: {} cycles, the design says {want}", r.cycles);
    eprintln!(
        "512 bits: {} passing packets, {} beats in {} cycles; {} trimmed packets in {} cycles (design: {want}; serial n + 3 + m: {serial})",
        pass.len(),
        beats,
        pass_cycles,
        trimmed.len(),
        r.cycles
    );
    Ok(())
}

/// tshark's frame number, malformed marker, IPv4 and UDP checksum status of
/// every frame of `pcap` (tab-separated lines), checksum validation on.
fn tshark_fields(pcap: &Path) -> Result<String> {
    let out = Command::new("tshark")
        .args(["-n", "-r"])
        .arg(pcap)
        .args([
            "-o",
            "ip.check_checksum:TRUE",
            "-o",
            "udp.check_checksum:TRUE",
            "-T",
            "fields",
            "-e",
            "frame.number",
            "-e",
            "_ws.malformed",
        ])
        .args(["-e", "ip.checksum.status", "-e", "udp.checksum.status"])
        .output()
        .context("running tshark (installed by scripts/toolchain.sh)")?;
    ensure!(out.status.success(), "tshark failed: {}", String::from_utf8_lossy(&out.stderr));
    Ok(String::from_utf8(out.stdout)?)
}

fn venv_python() -> std::path::PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.venv/bin/python3")).to_path_buf()
}

/// The RTL's trimmed and returned frames, written to a pcap, parse in tshark
/// with IPv4 and UDP checksum validation on, with no bad checksum and no
/// malformed Ethernet, VLAN, IP or UDP header (a cut payload protocol, e.g.
/// GRE inside IPv4, is truncated by design), and scapy recomputes every checksum to the same value.
#[test]
fn trimmed_frames_pass_tshark_and_scapy() -> Result<()> {
    let p = TrimParams::default();
    let cs: Vec<Case> = cases(3000, &p, 31).into_iter().filter(|c| c.trimmed).collect();
    let r = run(256, &cs, &p, 0.1, 0.8, 3)?;
    compare(&cs, &r.got)?;
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("trimmer_pcap");
    std::fs::create_dir_all(&dir)?;
    let pcap = dir.join("trimmed.pcap");
    let mut w = PcapWriter::create(&pcap)?;
    for (i, g) in r.got.iter().enumerate() {
        w.write(i as u64 * 1000, &g.data)?;
    }
    w.finish()?;
    let n = r.got.len();

    // A negative control first: the same check must see a corrupted IPv4 checksum.
    let v4 = r.got.iter().zip(&cs).find(|(_, c)| Meta::unpack(c.input.user).l3 == 1).context("no IPv4 frame")?;
    let mut bad = v4.0.data.clone();
    let o = Meta::unpack(v4.1.input.user).l3_off as usize;
    bad[o + 10] ^= 0x5a;
    let bad_pcap = dir.join("corrupted.pcap");
    let mut w = PcapWriter::create(&bad_pcap)?;
    w.write(0, &bad)?;
    w.finish()?;
    ensure!(tshark_fields(&bad_pcap)?.split('\t').nth(2) == Some("0"), "tshark did not flag a corrupted IPv4 checksum");

    // tshark: every frame dissected, no checksum error, no malformed header.
    let text = tshark_fields(&pcap)?;
    let lines: Vec<&str> = text.lines().collect();
    ensure!(lines.len() == n, "tshark read {} frames of {n}", lines.len());
    let (mut ip_good, mut udp_good, mut inner_truncated) = (0, 0, 0);
    for l in &lines {
        let f: Vec<&str> = l.split('\t').collect();
        // A cut packet's payload protocol (GRE, DNS, ...) is truncated by
        // design; the headers the trimmer rewrites must not be.
        if let Some(m) = f.get(1).filter(|x| !x.is_empty()) {
            let proto = m.split("Malformed Packet: ").nth(1).unwrap_or("").split(']').next().unwrap_or("");
            ensure!(
                !["", "ETH", "Ethernet", "VLAN", "IP", "IPv4", "IPv6", "UDP"].contains(&proto),
                "tshark: malformed {proto} header: {l}"
            );
            inner_truncated += 1;
        }
        // Checksum status (Wireshark's proto_checksum_enum_e): 0 bad, 1 good,
        // 2 unverified (a UDP checksum of 0 over IPv4), 3 not present.
        for (k, good) in [(2, &mut ip_good), (3, &mut udp_good)] {
            for s in f.get(k).unwrap_or(&"").split(',').filter(|s| !s.is_empty()) {
                ensure!(s != "0", "tshark: bad checksum in frame: {l}");
                if s == "1" {
                    *good += 1;
                }
            }
        }
    }
    ensure!(ip_good > n / 3, "only {ip_good} good IPv4 checksums verified of {n} frames");
    ensure!(udp_good > 10, "only {udp_good} good UDP checksums verified");

    // scapy: rebuild every frame with its checksums recomputed; it must be byte-identical.
    let script = r#"
import sys
from scapy.all import rdpcap, Ether, IP, IPv6, UDP, raw
bad = 0
pk = rdpcap(sys.argv[1])
for i, p in enumerate(pk):
    q = Ether(raw(p))
    for layer in (IP, UDP):
        if q.haslayer(layer):
            if layer is UDP and q.haslayer(IP) and q[UDP].chksum == 0:
                continue
            del q[layer].chksum
            if layer is IP:
                del q[IP].len
            if layer is UDP:
                del q[UDP].len
    if raw(Ether(raw(q))) != raw(p):
        bad += 1
        print("frame", i + 1, "differs after scapy recomputed its lengths and checksums")
print("frames", len(pk), "bad", bad)
sys.exit(1 if bad else 0)
"#;
    let out = Command::new(venv_python()).arg("-c").arg(script).arg(&pcap).output().context("running .venv python with scapy")?;
    let so = String::from_utf8_lossy(&out.stdout);
    ensure!(out.status.success(), "scapy: {so}{}", String::from_utf8_lossy(&out.stderr));
    ensure!(so.contains(&format!("frames {n} bad 0")), "scapy: {so}");
    eprintln!("tshark and scapy: {n} trimmed/returned frames, {ip_good} IPv4 and {udp_good} UDP checksums verified good; {inner_truncated} with a truncated payload protocol");
    Ok(())
}
