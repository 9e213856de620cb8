//! `ts_rgmii_mac` (the 1G MAC on RGMII, DDR I/O as behavioural registers on
//! both clock edges) in Verilator, driven edge by edge: frames from the
//! AXI4-Stream side leave as RGMII nibbles (bits 3:0 with TX_EN on the
//! rising edge, 7:4 with TX_EN xor TX_ER on the falling edge), read back
//! into GMII bytes they are the clause-35 decoder's frames (preamble,
//! padding, FCS, 12-byte gaps); looped back into the receive pins they
//! come out of the receiver whole and good, and a cut frame (TX_ER) comes
//! back flagged.
use anyhow::{ensure, Result};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use trimswitch_hdl::mac::rgmii::{DdrFamily, RgmiiMac};
use trimswitch_sim::agents::gmii::{decode, Sym};
use trimswitch_sim::harness::dut::model_of;
use trimswitch_sim::packet::crc::append_fcs;

#[test]
fn frames_loop_through_rgmii() -> Result<()> {
    let mut m = model_of(&mut RgmiiMac::new(DdrFamily::Sim), "ts_rgmii_mac", "sim")?.instantiate();
    let p = |m: &trimswitch_sim::harness::verilator::Model, n: &str| m.port(n).unwrap();
    let (txc_in, rxc) = (p(&m, "tx_clock"), p(&m, "rgmii_rxc"));
    let (tx_rst, rx_rst, maxb) = (p(&m, "tx_reset"), p(&m, "rx_reset"), p(&m, "max_bytes"));
    let (rxd, rx_ctl, txd, tx_ctl, txc) =
        (p(&m, "rgmii_rxd"), p(&m, "rgmii_rx_ctl"), p(&m, "rgmii_txd"), p(&m, "rgmii_tx_ctl"), p(&m, "rgmii_txc"));
    let (sd, sl, su, sv, sr) = (p(&m, "s_tdata"), p(&m, "s_tlast"), p(&m, "s_tuser"), p(&m, "s_tvalid"), p(&m, "s_tready"));
    let (md, ml, mu, mv) = (p(&m, "m_tdata"), p(&m, "m_tlast"), p(&m, "m_tuser"), p(&m, "m_tvalid"));
    m.set(&maxb, 1518);
    let mut rng = SmallRng::seed_from_u64(3);
    // Payloads; every tenth cut by tuser on its 20th byte.
    let frames: Vec<(Vec<u8>, bool)> =
        (0..300).map(|i| ((0..rng.gen_range(30..=1514)).map(|_| rng.gen()).collect(), i % 10 == 9)).collect();
    let (mut fi, mut bi) = (0usize, 0usize);
    let mut wire: Vec<Sym> = vec![];
    let mut got: Vec<(Vec<u8>, bool)> = vec![];
    let mut cur = vec![];
    // The previous cycle's two transmit halves, looped into the receiver.
    let mut back = [(0u64, 0u64); 2];
    let mut clocked_high = 0u64;
    for cycle in 0..800_000u64 {
        let in_reset = cycle < 4;
        m.set(&tx_rst, in_reset as u64);
        m.set(&rx_rst, in_reset as u64);
        // Before the rising edge: the source's beat, the rising half back.
        let valid = fi < frames.len();
        if valid {
            let (f, cut) = &frames[fi];
            m.set(&sd, f[bi] as u64);
            m.set(&sl, (bi + 1 == f.len()) as u64);
            m.set(&su, (*cut && bi == 19) as u64);
        }
        m.set(&sv, valid as u64);
        m.set(&rxd, back[0].0);
        m.set(&rx_ctl, back[0].1);
        m.eval();
        let take = valid && m.get(&sr) == 1 && !in_reset;
        m.set(&txc_in, 1);
        m.set(&rxc, 1);
        m.eval();
        if take {
            // A cut frame's rest is taken (and dropped) by the MAC too.
            bi += 1;
            if bi == frames[fi].0.len() {
                fi += 1;
                bi = 0;
            }
        }
        if m.get(&mv) == 1 {
            cur.push(m.get(&md) as u8);
            if m.get(&ml) == 1 {
                got.push((std::mem::take(&mut cur), m.get(&mu) == 1));
            }
        }
        let rise = (m.get(&txd), m.get(&tx_ctl));
        clocked_high += m.get(&txc);
        // The falling edge: the falling half back.
        m.set(&rxd, back[1].0);
        m.set(&rx_ctl, back[1].1);
        m.set(&txc_in, 0);
        m.set(&rxc, 0);
        m.eval();
        let fall = (m.get(&txd), m.get(&tx_ctl));
        ensure!(m.get(&txc) == 0, "cycle {cycle}: the forwarded clock high in the low half");
        back = [rise, fall];
        let (en, ctl2) = (rise.1 == 1, fall.1 == 1);
        wire.push(Sym { d: (rise.0 | fall.0 << 4) as u8, en, er: en ^ ctl2 });
        if fi == frames.len() && cycle > 0 && wire.len() > 50 && wire[wire.len() - 50..].iter().all(|s| !s.en) && cur.is_empty() {
            break;
        }
    }
    ensure!(fi == frames.len(), "{fi} of {} frames taken", frames.len());
    ensure!(clocked_high as usize == wire.len(), "the forwarded clock missed a high half");
    let tx = decode(&wire)?;
    ensure!(
        tx.len() == frames.len() && got.len() == frames.len(),
        "{} frames on the wire, {} back, {} sent",
        tx.len(),
        got.len(),
        frames.len()
    );
    for (i, ((f, cut), (t, (g, bad)))) in frames.iter().zip(tx.iter().zip(&got)).enumerate() {
        if *cut {
            ensure!(t.error && *bad, "frame {i}: cut, wire error {}, flagged back {bad}", t.error);
        } else {
            let mut w = f.clone();
            w.resize(w.len().max(60), 0);
            append_fcs(&mut w);
            ensure!(!t.error && t.bytes == w && !bad && *g == w, "frame {i} ({} B) damaged", f.len());
        }
    }
    ensure!(tx.iter().filter_map(|f| f.gap).all(|g| g >= 12), "a gap below 12");
    let rx_frames = {
        let q = p(&m, "rx_frames");
        m.get(&q)
    };
    ensure!(rx_frames == frames.iter().filter(|f| !f.1).count() as u64, "rx_frames {rx_frames}");
    Ok(())
}
