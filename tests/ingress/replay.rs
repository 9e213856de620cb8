//! `trimswitch replay`, run as the real binary: captures in (pcap, no FCS),
//! the golden model and the Verilated RTL, one pcap per egress port and
//! counters.json out; checked against `run_model`, with etherparse and scapy
//! as independent readers; and its error messages.
use crate::common;
use anyhow::{ensure, Context, Result};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use trimswitch_hdl::config::Config;
use trimswitch_sim::model::gen::{random_frame, GenOpts};
use trimswitch_sim::model::{run_model, IngressModel, IngressOut, Settings};
use trimswitch_sim::packet::crc::append_fcs;
use trimswitch_sim::packet::pcap::{self, PcapWriter};

/// A fresh, empty directory under `build/test-replay/`.
fn test_dir(tag: &str) -> Result<PathBuf> {
    let d = trimswitch_sim::harness::verilator::build_dir().join("test-replay").join(tag);
    if d.exists() {
        std::fs::remove_dir_all(&d)?;
    }
    std::fs::create_dir_all(&d)?;
    Ok(d)
}

fn trimswitch(args: &[&str]) -> Result<Output> {
    Command::new(env!("CARGO_BIN_EXE_trimswitch")).args(args).current_dir(common::repo()).output().context("running trimswitch")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Capture time of frame `i` of port `p` in the test captures: unique per
/// frame, so an output's timestamp names its input.
fn capture_time(p: usize, i: usize) -> u64 {
    1_700_000_000_000_000_000 + i as u64 * 10_000 + p as u64 * 1_000
}

/// `n` random frames (FCS removed, as tcpdump captures them) per listed port,
/// aimed at `s` (router MAC, L2 MACs, route prefixes), 10% faults, written to
/// `dir/in<p>.pcap`. Returns the captures per switch port (`ports` entries).
fn write_captures(dir: &Path, s: &Settings, ports: &[usize], n: usize, max_size: usize, seed: u64) -> Result<Vec<Vec<Vec<u8>>>> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut o = GenOpts::from_settings(s).with_faults(0.1);
    o.max_size = max_size;
    let mut caps = vec![vec![]; s.ports];
    for &p in ports {
        let mut w = PcapWriter::create(&dir.join(format!("in{p}.pcap")))?;
        for i in 0..n {
            let mut f = random_frame(&mut rng, &o);
            f.truncate(f.len().saturating_sub(4));
            w.write(capture_time(p, i), &f)?;
            caps[p].push(f);
        }
        w.finish()?;
    }
    Ok(caps)
}

fn with_fcs(caps: &[Vec<Vec<u8>>]) -> Vec<Vec<Vec<u8>>> {
    caps.iter()
        .map(|frames| {
            frames
                .iter()
                .map(|f| {
                    let mut f = f.clone();
                    append_fcs(&mut f);
                    f
                })
                .collect()
        })
        .collect()
}

/// Offset of the L3 header after VLAN tags and a Protego tag (EtherType
/// 0x88B6, 3 bytes, then the inner EtherType), if the frame has that tag.
fn after_protego(f: &[u8]) -> Option<usize> {
    let et = |o: usize| f.get(o..o + 2).map(|b| u16::from_be_bytes([b[0], b[1]]));
    let mut o = 12;
    while matches!(et(o), Some(0x8100 | 0x88a8)) {
        o += 4;
    }
    (et(o)? == 0x88b6).then_some(o + 7)
}

/// Checks one output directory of a 4-port netfpga-sume replay against the
/// model's outputs; returns the parsed counters.json.
fn check_outputs(
    dir: &Path,
    engine: &str,
    cfg: &Config,
    s: &Settings,
    wire: &[Vec<Vec<u8>>],
    expect: &[IngressOut],
) -> Result<serde_json::Value> {
    let ports = cfg.datapath.ports;
    // What each input frame becomes, frame by frame.
    let mut m = IngressModel::with_settings(cfg, s.clone());
    let per_frame: Vec<Vec<Option<IngressOut>>> =
        wire.iter().enumerate().map(|(p, fs)| fs.iter().map(|f| m.process(p, f)).collect()).collect();
    let by_time: BTreeMap<u64, (usize, usize)> =
        wire.iter().enumerate().flat_map(|(p, fs)| (0..fs.len()).map(move |i| (capture_time(p, i), (p, i)))).collect();
    // Expected: the model's outputs by egress port, then by source port, in order.
    let mut want: BTreeMap<(usize, usize), Vec<Vec<u8>>> = BTreeMap::new();
    for o in expect {
        want.entry((o.meta.dest_port as usize, o.meta.src_port as usize)).or_default().push(o.frame.clone());
    }
    let mut got: BTreeMap<(usize, usize), Vec<Vec<u8>>> = BTreeMap::new();
    let (mut routed, mut total) = (0, 0);
    for n in 0..ports {
        let path = dir.join(format!("port{n}.pcap"));
        ensure!(path.is_file(), "{engine}: {} missing", path.display());
        let recs = pcap::read(&path)?;
        let mut last = 0;
        for (k, r) in recs.iter().enumerate() {
            total += 1;
            ensure!(r.time_ns >= last, "{engine}: port{n}.pcap record {k}: timestamps go back");
            last = r.time_ns;
            let &(p, i) = by_time
                .get(&r.time_ns)
                .with_context(|| format!("{engine}: port{n}.pcap record {k}: timestamp {} is no input's", r.time_ns))?;
            let out = per_frame[p][i]
                .as_ref()
                .with_context(|| format!("{engine}: port{n}.pcap record {k}: stamped as port {p} frame {i}, which the model drops"))?;
            ensure!(
                out.frame == r.data && out.meta.dest_port as usize == n,
                "{engine}: port{n}.pcap record {k}: not what port {p} frame {i} becomes"
            );
            got.entry((n, p)).or_default().push(r.data.clone());
            // An independent reader: a well-formed Ethernet frame; a routed
            // packet has the next hop's MAC as destination, still its arrival
            // source MAC (the router's is written at egress, after the
            // ingress this replays), and an IPv4 destination that routes to
            // this port.
            // Headers up to UDP must decode; the generator fills other
            // protocols' bytes (ARP, ICMP, IGMP, ...) at random, so those may not.
            let sp = etherparse::LaxSlicedPacket::from_ethernet(&r.data)
                .map_err(|e| anyhow::anyhow!("{engine}: port{n}.pcap record {k}: etherparse: {e}"))?;
            if let Some((e, layer)) = &sp.stop_err {
                use etherparse::err::Layer;
                ensure!(
                    matches!(
                        layer,
                        Layer::TcpHeader
                            | Layer::Icmpv4
                            | Layer::Icmpv4Timestamp
                            | Layer::Icmpv4TimestampReply
                            | Layer::Icmpv6
                            | Layer::Igmp
                            | Layer::Arp
                    ),
                    "{engine}: port{n}.pcap record {k}: etherparse: {layer:?}: {e}"
                );
            }
            let Some(etherparse::LinkSlice::Ethernet2(eth)) = &sp.link else {
                anyhow::bail!("{engine}: port{n}.pcap record {k}: no Ethernet II header")
            };
            if out.meta.routed {
                routed += 1;
                let ip = match &sp.net {
                    Some(etherparse::LaxNetSlice::Ipv4(ip)) => ip.header().to_header(),
                    // etherparse stops at a Protego tag (docs/protocols.md): read the IPv4 header after it.
                    _ => {
                        let off =
                            after_protego(&r.data).with_context(|| format!("{engine}: port{n}.pcap record {k}: routed but no IPv4"))?;
                        etherparse::Ipv4HeaderSlice::from_slice(&r.data[off..])
                            .map_err(|e| anyhow::anyhow!("{engine}: port{n}.pcap record {k}: IPv4 after Protego: {e}"))?
                            .to_header()
                    }
                };
                let d = ip.destination;
                let port = if d[0] == 10 && d[1] == 0 && d[2] < 4 { d[2] as usize } else { 0 }; // netfpga-sume's routes
                ensure!(port == n, "{engine}: port{n}.pcap record {k}: IPv4 destination {d:?} routes to port {port}");
                ensure!(
                    eth.destination() == [2, 0, 0, 0, 1, n as u8],
                    "{engine}: port{n}.pcap record {k}: destination MAC {:?}",
                    eth.destination()
                );
                ensure!(
                    eth.source() == wire[p][i][6..12],
                    "{engine}: port{n}.pcap record {k}: source MAC {:?}, arrived with {:?}",
                    eth.source(),
                    &wire[p][i][6..12]
                );
            }
        }
    }
    ensure!(got == want, "{engine}: egress files differ from run_model's outputs grouped by dest_port and src_port");
    ensure!(total == expect.len() && routed > 0, "{engine}: {total} packets, {routed} routed");
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("counters.json"))?)?;
    ensure!(json["engine"] == engine && json["config"] == "netfpga-sume", "{engine}: counters.json header {json}");
    Ok(json)
}

/// 200 frames on port 0 and 200 on port 2 of netfpga-sume (no FCS in the
/// captures, 10% faults), through the golden model and the RTL: a file per
/// egress port, the packets of `run_model`, stamped with their inputs' capture
/// times, identical files from both engines, identical counters.
#[test]
fn replay_model_and_rtl() -> Result<()> {
    let cfg = Config::load(&common::config_path("netfpga-sume"))?;
    let s = Settings::from_config(&cfg);
    let dir = test_dir("sume")?;
    let caps = write_captures(&dir, &s, &[0, 2], 200, 1518, 11)?;
    let wire = with_fcs(&caps);
    let (expect, counters) = run_model(&cfg, &s, &wire);
    let per_port: Vec<usize> = (0..4).map(|n| expect.iter().filter(|o| o.meta.dest_port == n).count()).collect();
    ensure!(per_port.iter().all(|&n| n > 0), "the captures should reach every port: {per_port:?}");
    let drops: u64 = counters
        .iter()
        .filter(|(k, _)| k.contains(".rx_drop_") || k.ends_with("drop_malformed") || k.ends_with("drop_no_port"))
        .map(|(_, v)| v)
        .sum();
    ensure!(drops > 0 && expect.len() as u64 + drops == 400, "{} out + {drops} dropped != 400", expect.len());

    let input = format!("0={},2={}", dir.join("in0.pcap").display(), dir.join("in2.pcap").display());
    let conf = common::config_path("netfpga-sume");
    let mut jsons = vec![];
    for (engine, flag) in [("model", Some("--model")), ("rtl", None)] {
        let out = dir.join(engine);
        let mut args = vec!["replay", "--config", conf.to_str().unwrap(), "--in", &input, "--out", out.to_str().unwrap()];
        args.extend(flag);
        let started = std::time::Instant::now();
        let r = trimswitch(&args)?;
        let stdout = text(&r.stdout);
        eprintln!("{engine} ({:.1} s):\n{stdout}{}", started.elapsed().as_secs_f64(), text(&r.stderr));
        ensure!(r.status.success(), "{engine}: exit {:?}: {}", r.status, text(&r.stderr));
        ensure!(stdout.contains(&format!("replay: {engine}: 400 frames in")), "{engine}: summary line missing: {stdout}");
        let json = check_outputs(&out, engine, &cfg, &s, &wire, &expect)?;
        let c: BTreeMap<String, u64> = serde_json::from_value(json["counters"].clone())?;
        ensure!(c == counters, "{engine}: counters.json differs from run_model's counters");
        jsons.push(json);
    }
    ensure!(jsons[0]["counters"] == jsons[1]["counters"], "RTL and model counters.json differ");
    for n in 0..4 {
        let f = format!("port{n}.pcap");
        ensure!(std::fs::read(dir.join("model").join(&f))? == std::fs::read(dir.join("rtl").join(&f))?, "{f}: model and RTL files differ");
    }
    eprintln!("replay: 400 frames, {} packets out {per_port:?}, {drops} dropped; model and RTL files identical", expect.len());
    Ok(())
}

/// `--fcs present` (the captures hold the FCS, bad ones included) with
/// `--set ingress.strip_fcs=false`: bad FCS frames are dropped and counted,
/// good frames leave with their FCS (golden model).
#[test]
fn replay_fcs_present_kept() -> Result<()> {
    let conf = common::config_path("netfpga-sume");
    let cfg = Config::load_with(&conf, &["ingress.strip_fcs=false".to_string()])?;
    let s = Settings::from_config(&cfg);
    ensure!(!s.strip_fcs);
    let dir = test_dir("fcs-present")?;
    // Frames as on the wire: the generator's frames with their FCS (10% faults, bad FCS among them).
    let mut rng = SmallRng::seed_from_u64(21);
    let mut o = GenOpts::from_settings(&s).with_faults(0.2);
    o.max_size = 1518;
    let mut wire = vec![vec![]; 4];
    let mut w = PcapWriter::create(&dir.join("in3.pcap"))?;
    for i in 0..150 {
        let f = random_frame(&mut rng, &o);
        w.write(capture_time(3, i), &f)?;
        wire[3].push(f);
    }
    w.finish()?;
    let (expect, counters) = run_model(&cfg, &s, &wire);
    ensure!(counters["port3.rx_drop_fcs"] > 0, "no bad FCS among the frames");
    // The FCS stays on (routed packets' MACs are rewritten after it was computed).
    let kept = expect.iter().filter(|o| !o.meta.routed).count();
    ensure!(
        kept > 0 && expect.iter().filter(|o| !o.meta.routed).all(|o| trimswitch_sim::packet::crc::fcs_ok(&o.frame)),
        "a packet left without its FCS"
    );
    let out = dir.join("out");
    let r = trimswitch(&[
        "replay",
        "--model",
        "--fcs",
        "present",
        "--config",
        conf.to_str().unwrap(),
        "--set",
        "ingress.strip_fcs=false",
        "--in",
        &format!("3={}", dir.join("in3.pcap").display()),
        "--out-dir",
        out.to_str().unwrap(),
    ])?;
    ensure!(r.status.success(), "replay failed: {}", text(&r.stderr));
    let json = check_outputs(&out, "model", &cfg, &s, &wire, &expect)?;
    let c: BTreeMap<String, u64> = serde_json::from_value(json["counters"].clone())?;
    ensure!(c == counters, "counters.json differs from run_model's counters");
    eprintln!("fcs present: 150 frames, {} out with their FCS, {} bad FCS dropped", expect.len(), counters["port3.rx_drop_fcs"]);
    Ok(())
}

/// Bad arguments and bad files: non-zero exit, a message naming the argument
/// or file and the reason, and nothing written.
#[test]
fn replay_errors() -> Result<()> {
    let dir = test_dir("errors")?;
    let s = Settings::from_config(&Config::load(&common::config_path("netfpga-sume"))?);
    write_captures(&dir, &s, &[0, 1], 20, 200, 3)?;
    let (a, b) = (dir.join("in0.pcap"), dir.join("in1.pcap"));
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let missing = dir.join("missing.pcap");
    let text_file = dir.join("notes.txt");
    std::fs::write(&text_file, "this is a text file and not a capture at all\n")?;
    // Three 100-byte frames, the file cut 10 bytes into the last one.
    let truncated = dir.join("truncated.pcap");
    let mut w = PcapWriter::create(&truncated)?;
    for i in 0..3 {
        w.write(capture_time(1, i), &[0x5a; 100])?;
    }
    w.finish()?;
    let bytes = std::fs::read(&truncated)?;
    std::fs::write(&truncated, &bytes[..bytes.len() - 90])?;
    let (missing, text_file, truncated) = (missing.to_str().unwrap(), text_file.to_str().unwrap(), truncated.to_str().unwrap());

    let sume = common::config_path("netfpga-sume");
    let u250 = common::config_path("alveo-u250");
    let cases: Vec<(&Path, Vec<String>, Vec<String>)> = vec![
        (&sume, vec![format!("0={missing}")], vec![format!("{missing}: cannot open"), "No such file".into()]),
        (&sume, vec![format!("0:{a}")], vec![format!("--in \"0:{a}\": expected PORT=FILE")]),
        (&sume, vec![format!("x={a}")], vec![format!("--in x={a}: port \"x\" is not a port number")]),
        (&sume, vec![format!("0=")], vec!["--in 0=: no file name".into()]),
        (&sume, vec![format!("7={a}")], vec![format!("--in 7={a}: port 7 does not exist (netfpga-sume has ports 0..=3)")]),
        (&u250, vec![format!("0={a},2={b}")], vec![format!("--in 2={b}: port 2 does not exist (alveo-u250 has ports 0..=1)")]),
        (&sume, vec![format!("0={a},1={b}"), format!("0={b}")], vec![format!("--in 0={b}: port 0 is given twice (also 0={a})")]),
        (&sume, vec![format!("0={a}"), format!("1={text_file}")], vec![format!("{text_file}: not a pcap file")]),
        (&sume, vec![format!("1={truncated}")], vec![format!("{truncated}: record 2: 100 captured bytes, but the file ends after 10")]),
    ];
    for (i, (conf, ins, want)) in cases.iter().enumerate() {
        let out = dir.join(format!("out{i}"));
        let mut args: Vec<&str> = vec!["replay", "--model", "--config", conf.to_str().unwrap(), "--out-dir", out.to_str().unwrap()];
        for v in ins {
            args.extend(["--in", v.as_str()]);
        }
        let r = trimswitch(&args)?;
        let err = text(&r.stderr);
        ensure!(!r.status.success(), "case {i} {ins:?}: exit 0");
        for w in want {
            ensure!(err.contains(w.as_str()), "case {i} {ins:?}: stderr lacks {w:?}:\n{err}");
        }
        ensure!(err.starts_with("trimswitch: error: "), "case {i}: {err}");
        ensure!(!out.exists(), "case {i} {ins:?}: created {}", out.display());
    }
    // No --in at all: clap refuses.
    let r = trimswitch(&["replay", "--model", "--out-dir", dir.join("none").to_str().unwrap()])?;
    ensure!(!r.status.success() && text(&r.stderr).contains("--in <PORT=FILE>"), "no --in: {}", text(&r.stderr));
    Ok(())
}

/// scapy (pinned in scripts/requirements.txt, installed into .venv) reads an
/// output pcap: the packet count, the bytes of the first packet and the
/// nanosecond timestamp. Fails when scapy is missing (CI installs it).
#[test]
fn replay_output_reads_in_scapy() -> Result<()> {
    let python = common::repo().join(".venv/bin/python");
    let probe = Command::new(&python).args(["-c", "import scapy"]).output();
    ensure!(
        probe.as_ref().map(|o| o.status.success()).unwrap_or(false),
        "{} cannot import scapy; install the pinned toolchain (scripts/toolchain.sh installs scripts/requirements.txt into .venv)",
        python.display()
    );
    let cfg = Config::load(&common::config_path("netfpga-sume"))?;
    let s = Settings::from_config(&cfg);
    let dir = test_dir("scapy")?;
    write_captures(&dir, &s, &[1, 3], 60, 1518, 5)?;
    let out = dir.join("out");
    let r = trimswitch(&[
        "replay",
        "--model",
        "--config",
        common::config_path("netfpga-sume").to_str().unwrap(),
        "--in",
        &format!("1={}", dir.join("in1.pcap").display()),
        "--in",
        &format!("3={}", dir.join("in3.pcap").display()),
        "--out-dir",
        out.to_str().unwrap(),
    ])?;
    ensure!(r.status.success(), "replay failed: {}", text(&r.stderr));
    let script = "import sys\nfrom scapy.all import rdpcap, raw\npk = rdpcap(sys.argv[1])\nprint(len(pk))\nif pk:\n    print(raw(pk[0]).hex())\n    print(int(pk[0].time * 10**9))\n";
    let mut checked = 0;
    for n in 0..4 {
        let path = out.join(format!("port{n}.pcap"));
        let recs = pcap::read(&path)?;
        let r = Command::new(&python).args(["-c", script, path.to_str().unwrap()]).output()?;
        ensure!(r.status.success(), "scapy on {}: {}", path.display(), text(&r.stderr));
        let o = text(&r.stdout);
        let lines: Vec<&str> = o.lines().collect();
        ensure!(
            lines.first() == Some(&recs.len().to_string().as_str()),
            "{}: scapy counts {:?}, we wrote {}",
            path.display(),
            lines.first(),
            recs.len()
        );
        if let Some(first) = recs.first() {
            let hex: String = first.data.iter().map(|b| format!("{b:02x}")).collect();
            ensure!(lines.get(1) == Some(&hex.as_str()), "{}: scapy reads other bytes", path.display());
            ensure!(
                lines.get(2) == Some(&first.time_ns.to_string().as_str()),
                "{}: scapy time {:?}, expected {}",
                path.display(),
                lines.get(2),
                first.time_ns
            );
        }
        checked += recs.len();
    }
    ensure!(checked > 0, "nothing left the switch");
    eprintln!("scapy read {checked} packets in 4 files");
    Ok(())
}
