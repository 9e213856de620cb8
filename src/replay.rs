//! `trimswitch replay`: pcap captures in, one per switch port; the ingress
//! pipeline of a configuration (the Verilated RTL, or the golden model); one
//! pcap per egress port and every counter out.
//!
//! - Input frames: each pcap record is one frame received on its port. With
//!   [`Fcs::Append`] (what tcpdump writes: no FCS) a correct FCS is appended
//!   first; with [`Fcs::Present`] the records already end with their FCS and
//!   are fed as they are (a bad one is dropped and counted by `rx_fcs`).
//! - Output frames: as they leave the ingress pipeline (FCS stripped when
//!   `ingress.strip_fcs` is set, destination MAC rewritten when routed; the
//!   router MAC as source is the switch's egress rewrite, not here), one file per
//!   egress port `0..datapath.ports`, empty when nothing left on that port.
//! - Timestamps: each output packet keeps the capture time of the input record
//!   it came from (the pipeline's latency counts as zero). The golden model
//!   decides frame by frame, so its outputs map to their inputs directly. An
//!   RTL output from source port `p` is matched to the earliest remaining input
//!   frame of `p` for which the model gives the same packet (bytes and `tuser`);
//!   outputs come in order per source port, so this recovers the input even when
//!   the RTL dropped frames the model passes (receive FIFO overflow). An RTL
//!   packet no input explains is a disagreement between the RTL and the model
//!   ([`Replay::disagreements`]).
//! - Order within an egress file: by timestamp, merging the source ports
//!   (each source port's order kept; ties go to the lower source port). The
//!   order between ports is thus that of the captures, not of a simulated
//!   arbiter, and the model and an agreeing RTL write identical files.
use anyhow::{bail, ensure, Context, Result};
use serde::Serialize;
use std::path::{Path, PathBuf};
use trimswitch_hdl::config::Config;
use trimswitch_hdl::pl2::alu::Pl2Alu;
use trimswitch_sim::model::lookup::egress_rewrite;
use trimswitch_sim::model::{Counters, IngressModel, IngressOut, Settings};
use trimswitch_sim::packet::{crc, pcap};
use trimswitch_sim::rtl::ingress::{run_rtl, RtlOpts, RtlStats};
use trimswitch_sim::rtl::switch::replay_switch;

/// Whether the input records carry their FCS.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Fcs {
    /// Captured without FCS (as tcpdump writes): a correct FCS is appended.
    Append,
    /// Each record ends with its FCS: fed as it is (a bad FCS is dropped and counted as rx_drop_fcs).
    Present,
}

/// What runs the frames.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// `ts_ingress` in Verilator ([`run_rtl`]).
    Rtl,
    /// The golden model (`sim/src/model`).
    Model,
}

impl Engine {
    /// `"rtl"` or `"model"` (the `engine` of `counters.json`).
    pub fn name(self) -> &'static str {
        match self {
            Engine::Rtl => "rtl",
            Engine::Model => "model",
        }
    }
}

/// One `--in PORT=FILE`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    /// The argument as given (for messages).
    pub arg: String,
    pub port: usize,
    pub path: PathBuf,
}

/// Parses `--in` values (`PORT=FILE` each; the CLI has split commas) for a
/// switch of `cfg`: ports in range, each at most once. Files are not opened.
pub fn parse_inputs(args: &[String], cfg: &Config) -> Result<Vec<Input>> {
    let ports = cfg.datapath.ports;
    ensure!(!args.is_empty(), "--in: no input; give PORT=FILE, e.g. --in 0=a.pcap,1=b.pcap");
    let mut inputs: Vec<Input> = vec![];
    for arg in args {
        let Some((port, file)) = arg.split_once('=') else {
            bail!("--in {arg:?}: expected PORT=FILE, e.g. 0=a.pcap");
        };
        let port: usize = match port.trim().parse() {
            Ok(p) => p,
            Err(_) => bail!("--in {arg}: port {:?} is not a port number (PORT=FILE, e.g. 0=a.pcap)", port.trim()),
        };
        ensure!(!file.is_empty(), "--in {arg}: no file name after '='");
        ensure!(port < ports, "--in {arg}: port {port} does not exist ({} has ports 0..={})", cfg.target.name, ports - 1);
        if let Some(prev) = inputs.iter().find(|i| i.port == port) {
            bail!("--in {arg}: port {port} is given twice (also {})", prev.arg);
        }
        inputs.push(Input { arg: arg.clone(), port, path: PathBuf::from(file) });
    }
    Ok(inputs)
}

/// What to replay and where to write.
#[derive(Clone, Debug)]
pub struct ReplayOpts {
    pub inputs: Vec<Input>,
    pub fcs: Fcs,
    pub engine: Engine,
    pub out_dir: PathBuf,
}

/// What a replay did.
#[derive(Clone, Debug)]
pub struct Replay {
    pub engine: Engine,
    /// `target.name` of the configuration.
    pub config: String,
    /// Frames read per switch port (`datapath.ports` entries).
    pub frames_in: Vec<usize>,
    /// Packets written per egress port.
    pub packets_out: Vec<usize>,
    /// Every counter of the run (the engine's).
    pub counters: Counters,
    /// The files written: `port<N>.pcap` for every egress port, then `counters.json`.
    pub files: Vec<PathBuf>,
    /// Simulated cycles and wall-clock seconds (RTL only).
    pub rtl_cycles: Option<(u64, f64)>,
    /// Things worth knowing that are not errors (short frames, FIFO overflow).
    pub warnings: Vec<String>,
    /// Where the RTL and the golden model disagree (RTL only; empty when they
    /// agree). The files are written anyway.
    pub disagreements: Vec<String>,
}

impl Replay {
    /// Sum of the counters named `<any>.<name>` (over ports or pipelines).
    pub fn sum(&self, name: &str) -> u64 {
        sum(&self.counters, name)
    }

    /// Frames dropped: by `rx_fcs` (every `rx_drop_*`), as malformed, for
    /// lack of an egress port, or by the PL2 ALU (`drop_pl2`).
    pub fn drops(&self) -> u64 {
        self.counters
            .iter()
            .filter(|(k, _)| {
                k.contains(".rx_drop_") || k.ends_with(".drop_malformed") || k.ends_with(".drop_no_port") || k.ends_with(".drop_pl2")
            })
            .map(|(_, v)| v)
            .sum()
    }
}

fn sum(c: &Counters, name: &str) -> u64 {
    c.iter().filter(|(k, _)| k.split_once('.').map(|(_, n)| n) == Some(name)).map(|(_, v)| v).sum()
}

/// How the RTL testbench feeds each port: at the port's line rate
/// (`datapath.port_gbps`) on average, as a fraction of what the pipeline's
/// bus carries (`data_width` bits at `clock_mhz`), with random idle cycles; the
/// output is always ready. (The harness default, a beat every cycle on every
/// port, feeds a 10G port of `netfpga-sume` five times faster than its line
/// and overflows the receive FIFOs of any capture longer than a few frames.)
pub fn rtl_opts(cfg: &Config) -> RtlOpts {
    let bus_gbps = cfg.datapath.data_width as f64 * cfg.target.clock_mhz / 1000.0;
    let idle = if bus_gbps > 0.0 { (1.0 - cfg.datapath.port_gbps / bus_gbps).clamp(0.0, 0.99) } else { 0.0 };
    RtlOpts { idle_prob: idle, ..RtlOpts::default() }
}

/// The JSON of `counters.json`.
#[derive(Serialize)]
struct CountersJson<'a> {
    engine: &'static str,
    config: &'a str,
    counters: &'a Counters,
}

/// Reads the inputs, runs them through the engine and writes
/// `out_dir/port<N>.pcap` for every egress port and `out_dir/counters.json`.
/// Every input is read (and every error reported) before anything is run or
/// written.
pub fn replay(cfg: &Config, o: &ReplayOpts) -> Result<Replay> {
    let ports = cfg.datapath.ports;
    // With PL2 on, the replay is the whole switch's: `ts_ingress` alone has
    // no ALU (the switch's PL2 block answers its PL2 stage), so the RTL
    // engine drives `ts_switch`, frame by frame in one order
    // ([`replay_switch`]), and both engines give what leaves the switch
    // (the egress rewrite included: a routed packet's source MAC is the
    // router's).
    let whole_switch = cfg.pl2.enable;
    let mut records: Vec<Vec<pcap::Record>> = vec![vec![]; ports];
    for i in &o.inputs {
        ensure!(i.port < ports, "--in {}: port {} does not exist ({} has ports 0..={})", i.arg, i.port, cfg.target.name, ports - 1);
        records[i.port] = pcap::read(&i.path)?;
    }
    let mut warnings = vec![];
    let wire: Vec<Vec<Vec<u8>>> = records
        .iter()
        .map(|recs| {
            recs.iter()
                .map(|r| {
                    let mut f = r.data.clone();
                    if o.fcs == Fcs::Append {
                        crc::append_fcs(&mut f);
                    }
                    f
                })
                .collect()
        })
        .collect();
    if o.fcs == Fcs::Append {
        let short: usize = records.iter().flatten().filter(|r| r.data.len() < 60).count();
        if short > 0 {
            warnings.push(format!(
                "{short} frames are shorter than 60 bytes (unpadded, as a sending host captures them); with the FCS they are runts and rx_fcs drops them"
            ));
        }
    }

    // The golden model, frame by frame: what each input frame becomes.
    let settings = Settings::from_config(cfg);
    let mut model = IngressModel::with_settings(cfg, settings.clone());
    let mut predicted: Vec<Vec<Option<IngressOut>>> = wire.iter().map(|f| vec![None; f.len()]).collect();
    // The ALU's state is shared by all ports: with PL2 on, every engine takes
    // the frames in one order, by capture time (then port, then position).
    let mut order: Vec<(u64, usize, usize)> =
        records.iter().enumerate().flat_map(|(p, recs)| recs.iter().enumerate().map(move |(i, r)| (r.time_ns, p, i))).collect();
    if whole_switch {
        order.sort();
    }
    for &(_, p, i) in &order {
        predicted[p][i] = model.process(p, &wire[p][i]).map(|mut out| {
            if whole_switch {
                egress_rewrite(&mut out.frame, out.meta.routed, &settings);
            }
            out
        });
    }
    let mut model_counters = model.counters().clone();
    if whole_switch {
        let pc = model.pl2().counters();
        for name in Pl2Alu::COUNTERS {
            // The model counts `serialized` where the ALU drops (`conflict_drop`).
            let v = if name == "conflict_drop" { pc.get("serialized") } else { pc.get(name) };
            model_counters.insert(format!("pl2.{name}"), v.copied().unwrap_or(0));
        }
        // Frame by frame, no two ops ever meet in the cross-pipeline hold.
        model_counters.insert("pl2.hold_cycles".into(), 0);
    }

    // (time_ns, packet) per source port, in order.
    let mut by_source: Vec<Vec<(u64, IngressOut)>> = vec![vec![]; ports];
    let mut disagreements = vec![];
    let (counters, rtl_cycles) = match o.engine {
        Engine::Model => {
            for (p, outs) in predicted.iter().enumerate() {
                for (i, out) in outs.iter().enumerate() {
                    if let Some(out) = out {
                        by_source[p].push((records[p][i].time_ns, out.clone()));
                    }
                }
            }
            (model_counters, None)
        }
        Engine::Rtl => {
            let (outs, counters, stats) = if whole_switch {
                let frames: Vec<(usize, Vec<u8>)> = order.iter().map(|&(_, p, i)| (p, wire[p][i].clone())).collect();
                let t0 = std::time::Instant::now();
                let r = replay_switch(cfg, &frames, 1)?;
                (r.out, r.counters, RtlStats { cycles: r.cycles, seconds: t0.elapsed().as_secs_f64(), ..RtlStats::default() })
            } else {
                run_rtl(cfg, &settings, &wire, &rtl_opts(cfg))?
            };
            let mut next = vec![0usize; ports]; // next unmatched input per source port
            let mut seen = vec![0usize; ports];
            let mut unmatched = 0usize;
            for out in outs {
                let p = out.meta.src_port as usize;
                if p >= ports {
                    disagreements.push(format!("an RTL packet has src_port {p} on a {ports}-port switch"));
                    continue;
                }
                let k = seen[p];
                seen[p] += 1;
                // The whole switch's output: the bytes and the port it left by
                // (its `tuser` carries the traffic manager's fields too).
                let same = |pred: &IngressOut| {
                    if whole_switch {
                        pred.frame == out.frame && pred.meta.dest_port == out.meta.dest_port
                    } else {
                        *pred == out
                    }
                };
                match (next[p]..predicted[p].len()).find(|&j| predicted[p][j].as_ref().is_some_and(same)) {
                    Some(j) => {
                        by_source[p].push((records[p][j].time_ns, out));
                        next[p] = j + 1;
                    }
                    None => {
                        unmatched += 1;
                        if unmatched <= 5 {
                            disagreements.push(format!(
                                "RTL packet {k} from port {p} ({} bytes, dest_port {}) matches no remaining input frame of port {p} under the golden model",
                                out.frame.len(),
                                out.meta.dest_port
                            ));
                        }
                        let ts = records[p].get(next[p]).or(records[p].last()).map_or(0, |r| r.time_ns);
                        by_source[p].push((ts, out));
                    }
                }
            }
            if unmatched > 5 {
                disagreements.push(format!("{} more RTL packets match no input frame", unmatched - 5));
            }
            let overflow = sum(&counters, "rx_drop_overflow");
            if overflow > 0 {
                warnings.push(format!(
                    "{overflow} frames dropped for receive FIFO overflow: the testbench feeds each port at its line rate from first frame to last, regardless of the capture's timing"
                ));
            } else {
                for (k, v) in &model_counters {
                    match counters.get(k) {
                        Some(r) if r == v => {}
                        r => disagreements
                            .push(format!("counter {k}: RTL {}, model {v}", r.map_or("missing".to_string(), |r| r.to_string()))),
                    }
                }
            }
            (counters, Some((stats.cycles, stats.seconds)))
        }
    };

    // Egress files: merge the source ports by timestamp.
    let mut egress: Vec<Vec<(u64, Vec<u8>)>> = vec![vec![]; ports];
    let mut heads = vec![0usize; ports];
    loop {
        let pick = (0..ports).filter(|&p| heads[p] < by_source[p].len()).min_by_key(|&p| (by_source[p][heads[p]].0, p));
        let Some(p) = pick else { break };
        let (ts, out) = &by_source[p][heads[p]];
        heads[p] += 1;
        let d = out.meta.dest_port as usize;
        if d >= ports {
            disagreements.push(format!("a packet from port {p} has dest_port {d} on a {ports}-port switch (not written)"));
            continue;
        }
        egress[d].push((*ts, out.frame.clone()));
    }

    std::fs::create_dir_all(&o.out_dir).with_context(|| format!("--out-dir {}: cannot create", o.out_dir.display()))?;
    let mut files = vec![];
    for (n, pkts) in egress.iter().enumerate() {
        let path = o.out_dir.join(format!("port{n}.pcap"));
        let mut w = pcap::PcapWriter::create(&path)?;
        for (ts, f) in pkts {
            w.write(*ts, f)?;
        }
        w.finish()?;
        files.push(path);
    }
    let json = CountersJson { engine: o.engine.name(), config: &cfg.target.name, counters: &counters };
    let path = o.out_dir.join("counters.json");
    write_text(&path, &(serde_json::to_string_pretty(&json)? + "\n"))?;
    files.push(path);

    Ok(Replay {
        engine: o.engine,
        config: cfg.target.name.clone(),
        frames_in: records.iter().map(|r| r.len()).collect(),
        packets_out: egress.iter().map(|e| e.len()).collect(),
        counters,
        files,
        rtl_cycles,
        warnings,
        disagreements,
    })
}

fn write_text(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).with_context(|| format!("{}: cannot write", path.display()))
}
