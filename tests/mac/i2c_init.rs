//! `ts_i2c_init` (board support, issue 18) in Verilator against the I2C
//! target of `trimswitch_sim::agents::i2c`: the program's writes reach the
//! targets byte for byte, each framed by START and STOP, at the bus rate
//! asked for; the reset pin's pulse and the delays last as long as
//! programmed; a missing device and a target that refuses a byte each cost
//! their own transaction only (counted in `nacks`); clock stretching is
//! waited for; the programmer always ends with `done`.
use anyhow::{ensure, Result};
use trimswitch_hdl::board::i2c_init::{I2cInit, Step};
use trimswitch_sim::agents::i2c::{I2cTarget, Txn};
use trimswitch_sim::harness::dut::model_of;
use trimswitch_sim::harness::tb::{Agent, Tb};
use trimswitch_sim::harness::verilator::{Model, Port};

/// Records the `pin` output every cycle.
struct PinLog {
    pin: Port,
    log: Vec<bool>,
}

impl Agent for PinLog {
    fn drive(&mut self, _m: &mut Model, _cycle: u64) {}
    fn sample(&mut self, m: &Model, _cycle: u64) {
        self.log.push(m.get(&self.pin) == 1);
    }
}

fn txn(addr: u8, bytes: &[u8], acked: bool) -> Txn {
    Txn { addr, read: false, bytes: bytes.to_vec(), acked }
}

/// The program at 100 MHz, 400 kHz, without clock stretching and with a
/// target holding SCL low 300 cycles after each fall.
#[test]
fn program_runs_on_the_bus() -> Result<()> {
    let steps = vec![
        Step::Pin(false),
        Step::DelayUs(1000),
        Step::Pin(true),
        Step::DelayUs(500),
        Step::Write { addr: 0x74, bytes: vec![0x10] },
        Step::Write { addr: 0x68, bytes: vec![0, 0x54] },
        Step::Write { addr: 0x33, bytes: vec![1, 2, 3] },
        Step::Write { addr: 0x68, bytes: vec![1, 0xe4] },
        Step::Write { addr: 0x50, bytes: vec![9, 8, 7] },
        Step::Write { addr: 0x68, bytes: vec![136, 0x40, 0x11, 0x22] },
    ];
    let mut blk = I2cInit::<5>::new(&steps, 100e6, 400e3, true)?;
    let lib = model_of(&mut blk, "ts_i2c_init", "a5")?;
    for stretch in [300u32, 0] {
        let m = lib.instantiate();
        let mut target = I2cTarget::new(&m, &[(0x74, usize::MAX), (0x68, usize::MAX), (0x50, 1)])?;
        target.stretch = stretch;
        let mut pin = PinLog { pin: m.port("pin")?, log: vec![] };
        let (done, nacks) = (m.port("done")?, m.port("nacks")?);
        let mut tb = Tb::new(m, "clock", Some("reset"))?;
        tb.reset(3);
        let cycles = tb.run_until(&mut [&mut target, &mut pin], 2_000_000, |tb, _| tb.model.get(&done) == 1)?;
        tb.run(&mut [&mut target, &mut pin], 100);
        ensure!(target.errors.is_empty(), "stretch {stretch}: {:?}", target.errors);
        let want = vec![
            txn(0x74, &[0x10], true),
            txn(0x68, &[0, 0x54], true),
            txn(0x33, &[], false),
            txn(0x68, &[1, 0xe4], true),
            // The second byte is refused: the transaction ends there.
            txn(0x50, &[9, 8], true),
            txn(0x68, &[136, 0x40, 0x11, 0x22], true),
        ];
        ensure!(target.txns == want, "stretch {stretch}: transactions {:?}", target.txns);
        ensure!(tb.model.get(&nacks) == 2 && target.quiet() && target.scl && target.sda, "stretch {stretch}: nacks, bus not released");
        // The pin: high out of reset, low for the 1 ms, high 0.5 ms before
        // the first START.
        let low: Vec<usize> = pin.log.iter().enumerate().filter(|(_, v)| !**v).map(|(i, _)| i).collect();
        let (first, last) = (low[0], *low.last().unwrap_or(&0));
        ensure!(low.len() == last - first + 1, "the pin went low twice");
        ensure!((100_000..=100_200).contains(&low.len()), "pin low {} cycles for 1 ms at 100 MHz", low.len());
        let start = target.scl_rises[0] as usize;
        ensure!(start >= last + 50_000, "first SCL rise {} cycles after the pin rose: the 0.5 ms wait", start - last);
        // The bus rate: within a byte, one SCL rise per 4 x 63 cycles
        // (396.8 kHz) without stretching, never faster.
        let gaps: Vec<u64> = target.scl_rises.windows(2).map(|w| w[1] - w[0]).collect();
        let min = *gaps.iter().min().unwrap_or(&0);
        ensure!(min >= 252, "stretch {stretch}: SCL rises {min} cycles apart (400 kHz is 250)");
        if stretch == 0 {
            ensure!(gaps.iter().filter(|g| **g == 252).count() > 40, "stretch 0: bit period not 252 cycles: {:?}", &gaps[..10]);
        } else {
            // The controller releases SCL two quarters (126 cycles) after
            // pulling it low; the target holds it `stretch` cycles.
            ensure!(min + 126 >= 252 + stretch as u64, "stretch {stretch}: the controller did not wait ({min})");
        }
        eprintln!("i2c_init: stretch {stretch}: {} transactions in {cycles} cycles, SCL period min {min}", target.txns.len());
    }
    Ok(())
}

/// Bad programs are refused before hardware is built.
#[test]
fn bad_programs_are_refused() {
    let e = I2cInit::<2>::new(&[Step::Write { addr: 0x10, bytes: vec![1, 2, 3, 4] }], 100e6, 400e3, true).err().map(|e| e.to_string());
    assert!(e.is_some_and(|e| e.contains("does not fit")));
    let e = I2cInit::<5>::new(&[Step::Write { addr: 0x80, bytes: vec![1] }], 100e6, 400e3, true).err().map(|e| e.to_string());
    assert!(e.is_some_and(|e| e.contains("7-bit address")));
    let e = I2cInit::<5>::new(&[Step::DelayUs(500_000)], 100e6, 400e3, true).err().map(|e| e.to_string());
    assert!(e.is_some_and(|e| e.contains("409.5 ms")));
}

/// The NetFPGA-SUME's start-up program (`si5324::sume_program`), run at a
/// scaled clock (2 MHz, the bus at 100 kHz: the waits 10 times shorter in
/// cycles than at 200 MHz): the Si5324's reset held 10 ms, then its channel
/// selected on the I2C switch (0x74 <- 0x10), then every register of the
/// 156.25 MHz plan written to 0x68 in order, ICAL last; `done` 50 ms later.
#[test]
fn sume_program_programs_the_si5324() -> Result<()> {
    use trimswitch_hdl::board::si5324::{sume_program, Plan, SI5324_ADDR, SUME_I2C_SWITCH};
    let plan = Plan::SUME_156M25;
    let mut blk = I2cInit::<7>::new(&sume_program(&plan)?, 2e6, 100e3, false)?;
    let m = model_of(&mut blk, "ts_i2c_init", "sume")?.instantiate();
    let mut target = I2cTarget::new(&m, &[(SUME_I2C_SWITCH, usize::MAX), (SI5324_ADDR, usize::MAX)])?;
    let mut pin = PinLog { pin: m.port("pin")?, log: vec![] };
    let (done, nacks) = (m.port("done")?, m.port("nacks")?);
    let mut tb = Tb::new(m, "clock", Some("reset"))?;
    tb.reset(3);
    let cycles = tb.run_until(&mut [&mut target, &mut pin], 1_000_000, |tb, _| tb.model.get(&done) == 1)?;
    ensure!(target.errors.is_empty() && tb.model.get(&nacks) == 0, "{:?}", target.errors);
    let mut want = vec![txn(SUME_I2C_SWITCH, &[0x10], true)];
    want.extend(plan.registers()?.into_iter().map(|(r, v)| txn(SI5324_ADDR, &[r, v], true)));
    ensure!(target.txns == want, "transactions {:?}", target.txns);
    let low = pin.log.iter().filter(|v| !**v).count();
    ensure!((20_000..=20_010).contains(&low), "reset held {low} cycles (10 ms at 2 MHz is 20 000)");
    let last_scl = *target.scl_rises.last().unwrap_or(&0);
    ensure!(cycles >= last_scl + 100_000, "done {} cycles after the last write (50 ms)", cycles - last_scl);
    eprintln!("i2c_init/sume: {} writes, done at cycle {cycles} (2 MHz)", target.txns.len());
    Ok(())
}
