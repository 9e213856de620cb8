//! `ts_self_test` (the board's loopback self-test, `hdl/src/board/self_test.rs`)
//! in Verilator, with the testbench as the switch: each generator's frames
//! are checked (length, FCS, the documented layout), stripped of their FCS
//! and handed to the other port's checker. A clean loop passes; one byte
//! changed, one frame lost, or one frame too many fails it and is counted.
use anyhow::{ensure, Result};
use trimswitch_hdl::board::self_test::{source_mac, SelfTest, ETHERTYPE, LEN_STEPS};
use trimswitch_sim::harness::dut::model_of;
use trimswitch_sim::harness::verilator::{Model, Port};
use trimswitch_sim::packet::crc::fcs_ok;

const FRAMES: u32 = 400;
const DST: [u64; 2] = [0x0200_0000_0000, 0x0200_0000_0001];

/// What the testbench does to the frames on their way back.
#[derive(Clone, Copy, PartialEq)]
enum Harm {
    None,
    /// Flip a bit in byte 100 of frame 57 from port 0.
    Flip,
    /// Lose frame 57 from port 1.
    Lose,
    /// Send frame 57 from port 0 twice.
    Twice,
}

struct Ports {
    run: Port,
    gen: [[Port; 5]; 2],
    chk: [[Port; 4]; 2],
    sent: [Port; 2],
    good: [Port; 2],
    bad: [Port; 2],
    done: Port,
    pass: Port,
    fail: Port,
}

fn ports(m: &Model) -> Result<Ports> {
    let p = |n: String| m.port(&n);
    let per = |f: &dyn Fn(usize) -> Result<[Port; 4]>| -> Result<[[Port; 4]; 2]> { Ok([f(0)?, f(1)?]) };
    let gen = |i: usize| -> Result<[Port; 5]> {
        Ok([
            p(format!("gen_tdata_{i}"))?,
            p(format!("gen_tlast_{i}"))?,
            p(format!("gen_tvalid_{i}"))?,
            p(format!("gen_tready_{i}"))?,
            p(format!("gen_tkeep_{i}"))?,
        ])
    };
    Ok(Ports {
        run: m.port("run")?,
        gen: [gen(0)?, gen(1)?],
        chk: per(&|i| {
            Ok([p(format!("chk_tdata_{i}"))?, p(format!("chk_tkeep_{i}"))?, p(format!("chk_tlast_{i}"))?, p(format!("chk_tvalid_{i}"))?])
        })?,
        sent: [p("sent_0".into())?, p("sent_1".into())?],
        good: [p("good_0".into())?, p("good_1".into())?],
        bad: [p("bad_0".into())?, p("bad_1".into())?],
        done: m.port("done")?,
        pass: m.port("pass")?,
        fail: m.port("fail")?,
    })
}

/// The self-test built, reset, `run` raised and both generators' outputs
/// ready: the model, its ports and its clock.
fn started() -> Result<(Model, Ports, Port)> {
    let mut m = model_of(&mut SelfTest::<64, 8>::new(FRAMES, DST), "ts_self_test", &format!("n{FRAMES}"))?.instantiate();
    let p = ports(&m)?;
    let (clk, rst) = (m.port("clock")?, m.port("reset")?);
    m.set(&rst, 1);
    for _ in 0..4 {
        tick(&mut m, &clk);
    }
    m.set(&rst, 0);
    m.set(&p.run, 1);
    for g in &p.gen {
        m.set(&g[3], 1);
    }
    Ok((m, p, clk))
}

/// One clock cycle.
fn tick(m: &mut Model, clk: &Port) {
    m.set(clk, 1);
    m.eval();
    m.set(clk, 0);
    m.eval();
}

/// The frame `seq` from port `p` as the module docs define it, FCS excluded.
fn expected(p: usize, seq: u32) -> Vec<u8> {
    let len = 8 * (8 + (seq as u64 % LEN_STEPS) as usize);
    let mac = |m: u64| (0..6).map(move |i| (m >> (8 * (5 - i))) as u8);
    let mut f: Vec<u8> = mac(DST[1 - p]).chain(mac(source_mac(p))).collect();
    f.extend(ETHERTYPE.to_be_bytes());
    f.extend(seq.to_be_bytes());
    while f.len() < len {
        f.push(seq.wrapping_add(f.len() as u32) as u8);
    }
    f
}

/// Runs a test of [`FRAMES`] each way with `harm`; returns the counters
/// (sent, good, bad per port) and (done, pass, fail).
fn run(harm: Harm) -> Result<([[u64; 3]; 2], [bool; 3])> {
    let (mut m, p, clk) = started()?;
    let tick = |m: &mut Model| tick(m, &clk);
    // Frames in flight from each generator, and what goes to each checker
    // (beats of 8 bytes, the last of 4).
    let mut cur: [Vec<u8>; 2] = [vec![], vec![]];
    let mut seq = [0u32; 2];
    let mut queue: [std::collections::VecDeque<(u64, u8, bool)>; 2] = Default::default();
    let mut errors = vec![];
    for _cycle in 0..600_000u64 {
        // The checkers' inputs for this cycle.
        for (q, chk) in queue.iter_mut().zip(&p.chk) {
            let beat = q.pop_front();
            m.set(&chk[0], beat.map_or(0, |b| b.0));
            m.set(&chk[1], beat.map_or(0, |b| b.1 as u64));
            m.set(&chk[2], beat.is_some_and(|b| b.2) as u64);
            m.set(&chk[3], beat.is_some() as u64);
        }
        m.eval();
        for g in 0..2 {
            if m.get(&p.gen[g][2]) == 0 {
                continue;
            }
            let keep = m.get(&p.gen[g][4]);
            let n = keep.trailing_ones() as usize;
            if keep != (1 << n) - 1 {
                errors.push(format!("port {g}: tkeep {keep:#x} not packed"));
            }
            cur[g].extend(&m.get(&p.gen[g][0]).to_le_bytes()[..n]);
            if m.get(&p.gen[g][1]) == 1 {
                let f = std::mem::take(&mut cur[g]);
                let want = expected(g, seq[g]);
                if (!fcs_ok(&f) || f[..f.len() - 4] != want[..]) && errors.len() < 4 {
                    let crc = trimswitch_sim::packet::crc::crc32(&f[..f.len() - 4]);
                    errors.push(format!(
                        "port {g} frame {}: {} B, FCS {:02x?} (the CRC-32 of the rest: {:08x}), bytes as documented: {} (first difference at {:?})",
                        seq[g],
                        f.len(),
                        &f[f.len() - 4..],
                        crc,
                        f[..f.len() - 4] == want[..],
                        f.iter().zip(&want).position(|(a, b)| a != b)
                    ));
                }
                let mut back = f[..f.len() - 4].to_vec();
                let copies = match harm {
                    Harm::Flip if g == 0 && seq[g] == 57 => {
                        back[100] ^= 4;
                        1
                    }
                    Harm::Lose if g == 1 && seq[g] == 57 => 0,
                    Harm::Twice if g == 0 && seq[g] == 57 => 2,
                    _ => 1,
                };
                for _ in 0..copies {
                    for (i, chunk) in back.chunks(8).enumerate() {
                        let mut w = [0u8; 8];
                        w[..chunk.len()].copy_from_slice(chunk);
                        let last = (i + 1) * 8 >= back.len();
                        queue[1 - g].push_back((u64::from_le_bytes(w), ((1u16 << chunk.len()) - 1) as u8, last));
                    }
                }
                seq[g] += 1;
            }
        }
        tick(&mut m);
        if m.get(&p.done) == 1 && queue.iter().all(|q| q.is_empty()) {
            break;
        }
    }
    ensure!(errors.is_empty(), "generated frames differ from the documented ones: {errors:?}");
    let c = |x: &Port| m.get(x);
    let counts = [0, 1].map(|i| [c(&p.sent[i]), c(&p.good[i]), c(&p.bad[i])]);
    Ok((counts, [c(&p.done) == 1, c(&p.pass) == 1, c(&p.fail) == 1]))
}

/// A clean loop: every frame as documented (length 64..1 520 by steps of
/// 8, FCS good), every one back good; done and passed.
#[test]
fn a_clean_loop_passes() -> Result<()> {
    let (n, f) = run(Harm::None)?;
    let all = FRAMES as u64;
    ensure!(n == [[all, all, 0], [all, all, 0]] && f == [true, true, false], "counters {n:?}, done/pass/fail {f:?}");
    Ok(())
}

/// One flipped bit, one lost frame, one frame twice: each fails the test
/// and is counted where it happened.
#[test]
fn a_damaged_loop_fails() -> Result<()> {
    let all = FRAMES as u64;
    let (n, f) = run(Harm::Flip)?;
    ensure!(n[1] == [all, all - 1, 1] && n[0][2] == 0 && f == [true, false, true], "flip: {n:?} {f:?}");
    let (n, f) = run(Harm::Lose)?;
    ensure!(n[0][1] == 57 && n[0][2] == all - 58 && f[2] && !f[1], "lose: {n:?} {f:?}");
    let (n, f) = run(Harm::Twice)?;
    ensure!(n[1][1] == 58 && n[1][2] == all - 57 && f[2] && !f[1], "twice: {n:?} {f:?}");
    Ok(())
}

/// `run` falls in the middle of a frame: each generator finishes the frame
/// it started (whole, its FCS good) and sends nothing after it, so the
/// board can give the port back to its MAC at a frame boundary.
#[test]
fn stopping_finishes_the_frame() -> Result<()> {
    let (mut m, p, clk) = started()?;
    let tick = |m: &mut Model| tick(m, &clk);
    let mut cur: [Vec<u8>; 2] = [vec![], vec![]];
    let mut frames: [Vec<Vec<u8>>; 2] = [vec![], vec![]];
    let mut stopped_mid = false;
    for _ in 0..200_000u64 {
        m.eval();
        for g in 0..2 {
            if m.get(&p.gen[g][2]) == 1 {
                let n = m.get(&p.gen[g][4]).trailing_ones() as usize;
                cur[g].extend(&m.get(&p.gen[g][0]).to_le_bytes()[..n]);
                if m.get(&p.gen[g][1]) == 1 {
                    frames[g].push(std::mem::take(&mut cur[g]));
                }
            }
        }
        // Stop while port 0 is 40 bytes into its fourth frame.
        if !stopped_mid && frames[0].len() == 3 && cur[0].len() >= 40 {
            m.set(&p.run, 0);
            stopped_mid = true;
        }
        tick(&mut m);
    }
    ensure!(stopped_mid, "port 0 never reached its fourth frame");
    ensure!(cur.iter().all(|c| c.is_empty()), "a frame left unfinished: {} and {} bytes", cur[0].len(), cur[1].len());
    ensure!(frames[0].len() == 4, "port 0 sent {} frames (3 before the stop, the fourth finished)", frames[0].len());
    for (g, fs) in frames.iter().enumerate() {
        for (i, f) in fs.iter().enumerate() {
            ensure!(fcs_ok(f) && f[..f.len() - 4] == expected(g, i as u32)[..], "port {g} frame {i} damaged");
        }
    }
    Ok(())
}
