//! `ts_axil_regs` in Verilator: reset values, strobes, read-only inputs,
//! clear-on-write pulses, decode errors, random channel timing and
//! response backpressure.
use crate::common;
use anyhow::{ensure, Result};
use rand::{Rng, SeedableRng};
use trimswitch_hdl::axil::regs::{AxilRegs, RESP_DECERR, RESP_OKAY};
use trimswitch_sim::agents::axil::{axil_read, axil_write, axil_write_strb, AxilMaster};
use trimswitch_sim::harness::dut::model_of;
use trimswitch_sim::harness::tb::{Agent, Tb};
use trimswitch_sim::harness::verilator::{Model, Port};

const RESETS: [u32; 3] = [0x1234_5678, 0, 0xffff_0000];
const N_RO: usize = 2;

/// Counts clear-on-write pulses of the read-only registers.
struct Pulses {
    ports: Vec<Port>,
    count: Vec<u64>,
}

impl Agent for Pulses {
    fn drive(&mut self, _m: &mut Model, _cycle: u64) {}
    fn sample(&mut self, m: &Model, _cycle: u64) {
        for (p, c) in self.ports.iter().zip(self.count.iter_mut()) {
            *c += m.get(p);
        }
    }
}

#[test]
fn register_file_behaviour() -> Result<()> {
    let lib = model_of(&mut AxilRegs::<12>::new(&RESETS, N_RO), "ts_axil_regs", "rw3_ro2")?;
    let mut m = lib.instantiate();
    let ro: Vec<Port> = (0..N_RO).map(|j| m.port(&format!("ro_{j}"))).collect::<Result<_>>()?;
    m.set(&ro[0], 0xcafe_f00d);
    m.set(&ro[1], 7);
    let mut pulses = Pulses { ports: (0..N_RO).map(|j| m.port(&format!("ro_clear_{j}"))).collect::<Result<_>>()?, count: vec![0; N_RO] };
    let mut master = AxilMaster::new(&m, "s_axil", 3)?;
    let mut tb = Tb::new(m, "clock", Some("reset"))?;
    tb.reset(2);

    for (i, v) in RESETS.iter().enumerate() {
        ensure!(axil_read(&mut tb, &mut master, 4 * i as u64, &mut [&mut pulses])? == (*v, RESP_OKAY as u8), "reset value of register {i}");
    }
    ensure!(axil_read(&mut tb, &mut master, 12, &mut [&mut pulses])? == (0xcafe_f00d, RESP_OKAY as u8));
    ensure!(axil_read(&mut tb, &mut master, 16, &mut [&mut pulses])? == (7, RESP_OKAY as u8));
    // Unmapped addresses: DECERR, reads 0, nothing written.
    ensure!(axil_read(&mut tb, &mut master, 20, &mut [&mut pulses])? == (0, RESP_DECERR as u8));
    ensure!(axil_write(&mut tb, &mut master, 0x400, 1, &mut [&mut pulses])? == RESP_DECERR as u8);

    // Random writes with random byte strobes against a model, with random
    // delays on AW/W/AR and random backpressure on B/R, for MIN_CYCLES.
    let mut rng = rand::rngs::SmallRng::seed_from_u64(4);
    let mut model = RESETS;
    master.ready_prob = 0.4;
    master.max_delay = 4;
    let start = tb.cycle();
    while tb.cycle() - start < common::MIN_CYCLES {
        let i = rng.gen_range(0..RESETS.len());
        let v: u32 = rng.gen();
        let strb: u8 = rng.gen_range(0..16);
        ensure!(axil_write_strb(&mut tb, &mut master, 4 * i as u64, v, strb, &mut [&mut pulses])? == RESP_OKAY as u8);
        let mask = (0..4).filter(|b| strb >> b & 1 == 1).fold(0u32, |m, b| m | 0xff << (8 * b));
        model[i] = (model[i] & !mask) | (v & mask);
        let j = rng.gen_range(0..RESETS.len());
        let (got, resp) = axil_read(&mut tb, &mut master, 4 * j as u64, &mut [&mut pulses])?;
        ensure!(resp == RESP_OKAY as u8 && got == model[j], "register {j}: read {got:#x}, expected {:#x}", model[j]);
    }
    master.ready_prob = 1.0;
    // Clear-on-write: writing a read-only register pulses its clear line once.
    ensure!(pulses.count == vec![0, 0], "spurious clear pulses {:?}", pulses.count);
    ensure!(axil_write(&mut tb, &mut master, 16, 0, &mut [&mut pulses])? == RESP_OKAY as u8);
    ensure!(pulses.count == vec![0, 1], "clear pulses {:?} after writing ro_1", pulses.count);
    // Reset returns every read/write register to its reset value.
    tb.reset(1);
    for (i, v) in RESETS.iter().enumerate() {
        ensure!(axil_read(&mut tb, &mut master, 4 * i as u64, &mut [&mut pulses])?.0 == *v, "register {i} after reset");
    }
    Ok(())
}

/// A file of 40 read/write and 9 read-only registers: four groups of the
/// read multiplexer's first stage, the last one partly filled, and a
/// read-only register in the same group as read/write ones. Every register
/// reads back its own value, the addresses past the last read DECERR and 0,
/// and a read takes three cycles from AR to R.
#[test]
fn large_file_reads_every_register() -> Result<()> {
    const N_RW: usize = 40;
    const N_RO: usize = 9;
    let resets: Vec<u32> = (0..N_RW as u32).map(|i| 0x1000_0000 | (i * 0x0101)).collect();
    let lib = model_of(&mut AxilRegs::<12>::new(&resets, N_RO), "ts_axil_regs", "rw40_ro9")?;
    let mut m = lib.instantiate();
    for j in 0..N_RO {
        let p = m.port(&format!("ro_{j}"))?;
        m.set(&p, 0xab00_0000 | j as u64);
    }
    let (arvalid, rvalid) = (m.port("s_axil_arvalid")?, m.port("s_axil_rvalid")?);
    let mut master = AxilMaster::new(&m, "s_axil", 5)?;
    let mut tb = Tb::new(m, "clock", Some("reset"))?;
    tb.reset(2);
    master.max_delay = 0;
    let ro_values = (0..N_RO as u32).map(|j| 0xab00_0000 | j);
    for (i, want) in resets.iter().copied().chain(ro_values).enumerate() {
        ensure!(axil_read(&mut tb, &mut master, 4 * i as u64, &mut [])? == (want, RESP_OKAY as u8), "register {i}");
    }
    for i in [N_RW + N_RO, 63, 64, 1023] {
        ensure!(axil_read(&mut tb, &mut master, 4 * i as u64, &mut [])? == (0, RESP_DECERR as u8), "address of word {i}");
    }
    // The latency, with the ports driven by hand: AR accepted at the edge
    // ending cycle t (arready high, nothing in flight), R valid in cycle t + 3.
    let (araddr, arready, rready) = (tb.model.port("s_axil_araddr")?, tb.model.port("s_axil_arready")?, tb.model.port("s_axil_rready")?);
    tb.run(&mut [], 2);
    ensure!(tb.model.get(&arready) == 1 && tb.model.get(&rvalid) == 0, "not idle before the timed read");
    tb.model.set(&araddr, 4 * (N_RW as u64 + 2));
    tb.model.set(&arvalid, 1);
    tb.model.set(&rready, 0);
    tb.run(&mut [], 1);
    tb.model.set(&arvalid, 0);
    let mut latency = 1;
    while tb.model.get(&rvalid) == 0 && latency < 10 {
        ensure!(tb.model.get(&arready) == 0, "a second read accepted while one is in flight");
        tb.run(&mut [], 1);
        latency += 1;
    }
    ensure!(latency == 3, "AR -> R latency {latency} cycles, expected 3");
    // R holds its data while rready is low, though the read-only input moves.
    let ro2 = tb.model.port("ro_2")?;
    tb.model.set(&ro2, 0x55);
    tb.run(&mut [], 3);
    let rdata = tb.model.port("s_axil_rdata")?;
    ensure!(tb.model.get(&rvalid) == 1 && tb.model.get(&rdata) == 0xab00_0002, "R changed while stalled: {:#x}", tb.model.get(&rdata));
    Ok(())
}
