//! `AsyncFifo` in Verilator with two unrelated clocks: the XGMII clock
//! (6.4 ns) against the switch's (5.0 ns, and 3.103 ns for 322 MHz), and the
//! reverse, with random phase and a jitter of each edge, random writes and
//! reads. Every word comes out once, in order; the write side never takes a
//! word while it shows full, nor the read side show a word that was not
//! written; both sides fill and drain (each flag seen); a side at full rate
//! against a slower or faster other moves at the slower side's rate.
use anyhow::{ensure, Result};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;
use trimswitch_hdl::prim::async_fifo::AsyncFifo;
use trimswitch_sim::harness::dut::model_of;

/// Runs `words` through the FIFO with write period `tw` and read period `tr`
/// (picoseconds), writing with probability `pw` and reading with `pr` per
/// edge of each side. Returns (words per write cycle, words per read cycle,
/// cycles with full, cycles with empty).
fn run(tw: u64, tr: u64, pw: f64, pr: f64, words: usize, seed: u64) -> Result<(f64, f64, u64, u64)> {
    run_mode(false, tw, tr, pw, pr, words, seed)
}

/// [`run`], in frame mode when `frames` ([`AsyncFifo::frames`]): frames of
/// 1..=12 words (`wr_last` on each frame's last), and no word is read before
/// its frame's last word was written.
fn run_mode(frames: bool, tw: u64, tr: u64, pw: f64, pr: f64, words: usize, seed: u64) -> Result<(f64, f64, u64, u64)> {
    let lib = if frames {
        model_of(&mut AsyncFifo::<36, 4, 5>::frames(), "ts_async_fifo", "w36a4f")?
    } else {
        model_of(&mut AsyncFifo::<36, 4, 5>::default(), "ts_async_fifo", "w36a4")?
    };
    let mut m = lib.instantiate();
    let wlast = m.port("wr_last")?;
    // Frame mode: the words up to (not including) `committed` have had
    // their frame's last word written; `frame_end` is the current frame's.
    let (mut committed, mut frame_end) = (0u64, 0u64);
    let p = |n: &str| m.port(n).unwrap();
    let (wclk, wrst, wdata, wvalid, wready) = (p("wr_clock"), p("wr_reset"), p("wr_data"), p("wr_valid"), p("wr_ready"));
    let (rclk, rrst, rdata, rvalid, rready) = (p("rd_clock"), p("rd_reset"), p("rd_data"), p("rd_valid"), p("rd_ready"));
    let mut rng = SmallRng::seed_from_u64(seed);
    // Next rising edge of each clock (ps), with a random phase; each edge
    // jitters by up to 2% of its period.
    let (mut nw, mut nr) = (rng.gen_range(0..tw), rng.gen_range(0..tr));
    let (mut wcyc, mut rcyc) = (0u64, 0u64);
    let mut sent: VecDeque<u64> = VecDeque::new();
    let (mut next_word, mut got) = (0u64, 0usize);
    let (mut fulls, mut empties) = (0u64, 0u64);
    let reset_until = 4 * tw.max(tr);
    m.set(&wrst, 1);
    m.set(&rrst, 1);
    let (mut wv, mut rr) = (false, false);
    while got < words {
        ensure!(wcyc < 100 * words as u64 + 1000 && rcyc < 100 * words as u64 + 1000, "stalled: {got} of {words} words");
        let write_edge = nw <= nr;
        let t = nw.min(nr);
        let in_reset = t < reset_until;
        // Just before the edge: sample the side's handshake, as the edge will.
        if write_edge {
            m.set(&wclk, 0);
            m.eval();
            if !in_reset {
                if m.get(&wready) == 0 {
                    fulls += 1;
                } else if wv {
                    sent.push_back(next_word);
                    if next_word == frame_end {
                        committed = next_word + 1;
                    }
                    next_word += 1;
                }
            }
            m.set(&wclk, 1);
            m.eval();
            wcyc += !in_reset as u64;
            // Inputs for the next write cycle, after the edge.
            m.set(&wrst, in_reset as u64);
            wv = !in_reset && (next_word as usize) < words && rng.gen_bool(pw);
            m.set(&wvalid, wv as u64);
            if frames && next_word > frame_end {
                frame_end = (next_word + rng.gen_range(0..12)).min(words as u64 - 1);
            }
            m.set(&wlast, (!frames || next_word == frame_end) as u64);
            m.set_wide(&wdata, &[next_word.wrapping_mul(0x9E37_79B9) & 0xF_FFFF_FFFF]);
            nw += tw - tw / 50 + rng.gen_range(0..=tw / 25);
        } else {
            m.set(&rclk, 0);
            m.eval();
            if !in_reset {
                if m.get(&rvalid) == 0 {
                    empties += 1;
                } else if rr {
                    let want = sent.pop_front().ok_or_else(|| anyhow::anyhow!("a word shown before any was written"))?;
                    ensure!(!frames || want < committed, "word {want} read before its frame's last word ({frame_end}) was written");
                    let d = m.get(&rdata);
                    ensure!(d == want.wrapping_mul(0x9E37_79B9) & 0xF_FFFF_FFFF, "word {got}: {d:#x}, want the word {want}");
                    got += 1;
                }
            }
            m.set(&rclk, 1);
            m.eval();
            rcyc += !in_reset as u64;
            m.set(&rrst, in_reset as u64);
            rr = !in_reset && rng.gen_bool(pr);
            m.set(&rready, rr as u64);
            nr += tr - tr / 50 + rng.gen_range(0..=tr / 25);
        }
        m.eval();
    }
    ensure!(sent.is_empty() || (next_word as usize) <= words, "written {next_word}, read {got}");
    Ok((got as f64 / wcyc as f64, got as f64 / rcyc as f64, fulls, empties))
}

/// Random traffic both ways at 156.25 / 200 MHz and 200 / 156.25 MHz, and
/// the XGMII clock into 322 MHz: every word once, in order; full and empty
/// each seen.
#[test]
fn words_cross_in_order() -> Result<()> {
    for (i, (tw, tr)) in [(6400u64, 5000u64), (5000, 6400), (6400, 3103), (3103, 6400)].into_iter().enumerate() {
        let (_, _, fulls, empties) = run(tw, tr, 0.7, 0.6, 20_000, 10 + i as u64)?;
        ensure!(fulls > 0 && empties > 0, "{tw}/{tr} ps: full seen {fulls} times, empty {empties}");
    }
    Ok(())
}

/// Frame mode: frames of 1..12 words cross whole, none shown before its last
/// word was written, every word once and in order, both ways.
#[test]
fn frames_cross_whole() -> Result<()> {
    for (i, (tw, tr)) in [(5000u64, 6400u64), (6400, 5000)].into_iter().enumerate() {
        let (_, _, fulls, empties) = run_mode(true, tw, tr, 0.8, 0.6, 20_000, 30 + i as u64)?;
        ensure!(fulls > 0 && empties > 0, "{tw}/{tr} ps: full seen {fulls} times, empty {empties}");
    }
    Ok(())
}

/// A writer at full rate into a faster reader at full rate: one word per
/// write cycle (the FIFO never holds it back, but in the cycles its flag
/// takes to clear after reset); into a slower reader: one word per read
/// cycle (the reader never waits once the first word has crossed).
#[test]
fn full_rate_is_the_slower_sides() -> Result<()> {
    let (per_w, _, fulls, _) = run(6400, 5000, 1.0, 1.0, 20_000, 3)?;
    ensure!(per_w > 0.995 && fulls <= 2, "156.25 into 200 MHz: {per_w} words per write cycle, full {fulls} times");
    let (_, per_r, _, empties) = run(5000, 6400, 1.0, 1.0, 20_000, 4)?;
    ensure!(per_r > 0.995 && empties < 10, "200 into 156.25 MHz: {per_r} words per read cycle, empty {empties} times");
    Ok(())
}
