//! Host access through Opal Kelly FrontPanel endpoints (issue 18,
//! `docs/boards.md`, "Opal Kelly host access") in Verilator: a host model
//! does what FrontPanel's API does to the endpoints (sets the WireIns,
//! fires the TriggerIn for one cycle of the endpoints' clock, waits for the
//! TriggerOut, reads the WireOuts).
//! - `ts_ok_axil` alone, an AXI4-Lite slave behind it: writes and reads
//!   arrive exactly, the status word's response, busy, read and count
//!   fields follow each command, a trigger with both bits or one while busy
//!   is dropped and counted and changes nothing.
//! - `ts_xem7010_switch`, the board's core with the whole switch: the host
//!   reads the switch's registers' reset values, writes one and reads it
//!   back, meets DECERR past the map, and runs the loopback self-test
//!   through the board window (every frame back, passed).
use crate::mac_stats::SwitchSide;
use anyhow::{ensure, Context, Result};
use std::path::Path;
use trimswitch_hdl::board::mac_stats::BoardWindow;
use trimswitch_hdl::board::ok_axil::{OkAxil, CMD_READ, CMD_WRITE, STATUS_BUSY, STATUS_COUNT_LSB, STATUS_READ};
use trimswitch_hdl::board::xem7010::Xem7010Switch;
use trimswitch_hdl::config::Config;
use trimswitch_hdl::gen::catalog::count_bits;
use trimswitch_hdl::top::regmap::{Access, SwitchMap};
use trimswitch_sim::harness::dut::model_of;
use trimswitch_sim::harness::tb::{Agent, Tb};
use trimswitch_sim::harness::verilator::Port;

/// The endpoints' ports of a model.
struct Endpoints {
    wi: [Port; 4],
    ti: Port,
    wo: [Port; 3],
    done: Port,
}

impl Endpoints {
    fn new(tb: &Tb) -> Result<Endpoints> {
        let p = |n: &str| tb.model.port(n);
        Ok(Endpoints {
            wi: [p("wi_addr_lo")?, p("wi_addr_hi")?, p("wi_data_lo")?, p("wi_data_hi")?],
            ti: p("ti_cmd")?,
            wo: [p("wo_rdata_lo")?, p("wo_rdata_hi")?, p("wo_status")?],
            done: p("to_done")?,
        })
    }

    /// FrontPanel's `UpdateWireIns`: the four wires take their values.
    fn wires(&self, tb: &mut Tb, addr: u32, data: u32) {
        for (port, v) in self.wi.iter().zip([addr & 0xFFFF, addr >> 16, data & 0xFFFF, data >> 16]) {
            tb.model.set(port, v as u64);
        }
    }

    /// The status word.
    fn status(&self, tb: &Tb) -> u16 {
        tb.model.get(&self.wo[2]) as u16
    }

    /// One command as the host runs it: wires, a few cycles (FrontPanel's
    /// transfers are microseconds apart), the trigger for one cycle, then
    /// cycles until the done trigger; returns (status, data read) as the
    /// host reads them after the done trigger. Fails if no done trigger
    /// comes within `max` cycles.
    fn command(&self, tb: &mut Tb, agents: &mut [&mut dyn Agent], bits: u16, addr: u32, data: u32, max: u64) -> Result<(u16, u32)> {
        self.wires(tb, addr, data);
        for _ in 0..4 {
            tb.step(agents);
        }
        tb.model.set(&self.ti, bits as u64);
        tb.step(agents);
        tb.model.set(&self.ti, 0);
        let start = tb.cycle();
        while tb.model.get(&self.done) & 1 == 0 {
            ensure!(tb.cycle() - start < max, "command {bits} at {addr:#x}: no done trigger in {max} cycles");
            tb.step(agents);
        }
        tb.step(agents);
        let rdata = (tb.model.get(&self.wo[0]) | tb.model.get(&self.wo[1]) << 16) as u32;
        Ok((self.status(tb), rdata))
    }
}

fn count(status: u16) -> u16 {
    status >> STATUS_COUNT_LSB
}

#[test]
fn bridge_commands_and_bad_triggers() -> Result<()> {
    let m = model_of(&mut OkAxil::<19>::default(), "ts_ok_axil", "a19")?.instantiate();
    let mut sw = SwitchSide::new(&m, "m_axil");
    let ignored = m.port("ignored")?;
    let mut tb = Tb::new(m, "clock", Some("reset"))?;
    tb.reset(4);
    let ep = Endpoints::new(&tb)?;
    ensure!(ep.status(&tb) == 0, "status after reset {:#x}", ep.status(&tb));
    // A write: the slave sees it whole; OKAY, not a read, one command done.
    let (s, _) = ep.command(&mut tb, &mut [&mut sw], CMD_WRITE, 0x4_0008, 0xDEAD_BEEF, 50)?;
    ensure!(sw.writes == [(0x4_0008, 0xDEAD_BEEF)], "writes {:x?}", sw.writes);
    ensure!(s & 3 == 0 && s & STATUS_READ == 0 && s & STATUS_BUSY == 0 && count(s) == 1, "status after a write {s:#x}");
    // A read of the low 19 bits of the host's address.
    let (s, d) = ep.command(&mut tb, &mut [&mut sw], CMD_READ, 0xFFF9_2344, 0, 50)?;
    ensure!(d == 0xC0DE_0000 | 0x1_2344 && s & STATUS_READ != 0 && count(s) == 2, "read: {d:#x}, status {s:#x}");
    // Both bits at once: ignored, counted, no command.
    let before = sw.writes.len();
    ep.wires(&mut tb, 0x100, 1);
    tb.model.set(&ep.ti, (CMD_WRITE | CMD_READ) as u64);
    tb.step(&mut [&mut sw]);
    tb.model.set(&ep.ti, 0);
    tb.run(&mut [&mut sw], 40);
    ensure!(tb.model.get(&ignored) == 1 && sw.writes.len() == before && count(ep.status(&tb)) == 2, "both bits: not ignored");
    // A second trigger while a command is under way: the slave holds its
    // answer (no ready) so the bridge stays busy; the second is ignored.
    let (aw, w) = (tb.model.port("m_axil_awready")?, tb.model.port("m_axil_wready")?);
    ep.wires(&mut tb, 0x200, 2);
    tb.step(&mut []);
    tb.model.set(&ep.ti, CMD_WRITE as u64);
    tb.model.set(&aw, 0);
    tb.model.set(&w, 0);
    tb.step(&mut []);
    tb.model.set(&ep.ti, 0);
    for _ in 0..3 {
        tb.model.set(&aw, 0);
        tb.model.set(&w, 0);
        tb.step(&mut []);
    }
    ensure!(ep.status(&tb) & STATUS_BUSY != 0, "busy while the slave holds off: {:#x}", ep.status(&tb));
    ep.wires(&mut tb, 0x300, 3);
    tb.model.set(&ep.ti, CMD_READ as u64);
    tb.model.set(&aw, 0);
    tb.model.set(&w, 0);
    tb.step(&mut []);
    tb.model.set(&ep.ti, 0);
    tb.run(&mut [&mut sw], 40);
    ensure!(tb.model.get(&ignored) == 2, "a trigger while busy: ignored {}", tb.model.get(&ignored));
    ensure!(sw.writes[before..] == [(0x200, 2)] && count(ep.status(&tb)) == 3, "while busy: writes {:x?}", &sw.writes[before..]);
    // And the next command is served.
    let (s, d) = ep.command(&mut tb, &mut [&mut sw], CMD_READ, 0x3_FFFC, 0, 50)?;
    ensure!(d == 0xC0DE_0000 | 0x3_FFFC && count(s) == 4, "after: {d:#x} {s:#x}");
    Ok(())
}

/// FrontPanel's API over the Verilated bridge, as `trimswitch ok` calls it
/// ([`trimswitch::ok_host::FrontPanel`]): each call takes the cycles a USB
/// transfer would (a few here); `UpdateTriggerOuts` reports the done
/// trigger if it fired since the last update.
struct SimFp {
    tb: Tb,
    sw: SwitchSide,
    ep: Endpoints,
    wires: [u16; 4],
    fired: u16,
    outs: [u16; 3],
    seen: u16,
}

impl SimFp {
    fn run(&mut self, cycles: u64) {
        for _ in 0..cycles {
            self.tb.step(&mut [&mut self.sw]);
            self.fired |= self.tb.model.get(&self.ep.done) as u16;
        }
    }
}

impl trimswitch::ok_host::FrontPanel for SimFp {
    fn set_wire_in(&mut self, ep: u8, value: u16) {
        self.wires[ep as usize] = value;
    }
    fn update_wire_ins(&mut self) {
        let [al, ah, dl, dh] = self.wires.map(u32::from);
        self.ep.wires(&mut self.tb, al | ah << 16, dl | dh << 16);
        self.run(8);
    }
    fn activate_trigger_in(&mut self, ep: u8, bit: u8) -> Result<()> {
        ensure!(ep == 0x40, "trigger endpoint {ep:#x}");
        self.tb.model.set(&self.ep.ti, 1 << bit);
        self.run(1);
        self.tb.model.set(&self.ep.ti, 0);
        self.run(8);
        Ok(())
    }
    fn update_trigger_outs(&mut self) {
        self.run(8);
        self.seen = std::mem::take(&mut self.fired);
    }
    fn is_triggered(&mut self, ep: u8, mask: u16) -> bool {
        ep == 0x60 && self.seen & mask != 0
    }
    fn update_wire_outs(&mut self) {
        self.run(8);
        self.outs = self.ep.wo.map(|p| self.tb.model.get(&p) as u16);
    }
    fn get_wire_out(&mut self, ep: u8) -> u16 {
        self.outs[(ep - 0x20) as usize]
    }
}

/// `trimswitch ok`'s protocol ([`trimswitch::ok_host::OkRegs`]) against
/// the bridge: writes land, reads return the slave's data, a DECERR is an
/// error naming the address, and a bridge that never answers (held in
/// reset: no bitstream) is an error, not a hang.
#[test]
fn host_tool_protocol_against_the_bridge() -> Result<()> {
    use trimswitch::ok_host::OkRegs;
    let m = model_of(&mut OkAxil::<19>::default(), "ts_ok_axil", "a19")?.instantiate();
    let mut sw = SwitchSide::new(&m, "m_axil");
    sw.decerr_from = 0x6_0000;
    let mut tb = Tb::new(m, "clock", Some("reset"))?;
    tb.reset(4);
    let ep = Endpoints::new(&tb)?;
    let fp = SimFp { tb, sw, ep, wires: [0; 4], fired: 0, outs: [0; 3], seen: 0 };
    let mut regs = OkRegs::new(fp);
    for i in 0..20u32 {
        regs.write(0x4_0000 + 4 * i, 0x1234_0000 | i)?;
        let v = regs.read(0x1_0000 + 4 * i)?;
        ensure!(v == 0xC0DE_0000 | (0x1_0000 + 4 * i), "read {i}: {v:#x}");
    }
    let writes: Vec<(u64, u64)> = (0..20u64).map(|i| (0x4_0000 + 4 * i, 0x1234_0000 | i)).collect();
    ensure!(regs.fp.sw.writes == writes, "writes {:x?}", regs.fp.sw.writes);
    let e = regs.read(0x6_0010).err().context("a DECERR read passed")?.to_string();
    ensure!(e.contains("read 0x60010") && e.contains("DECERR"), "{e}");
    let e = regs.write(0x7_0000, 5).err().context("a DECERR write passed")?.to_string();
    ensure!(e.contains("write 0x70000") && e.contains("DECERR"), "{e}");
    // The next command after the errors is served.
    ensure!(regs.read(0x20)? == 0xC0DE_0020, "after DECERR");
    // A bridge held in reset never answers: an error after `polls` updates.
    let reset = regs.fp.tb.model.port("reset")?;
    regs.fp.tb.model.set(&reset, 1);
    regs.polls = 50;
    let e = regs.read(0x24).err().context("a read of a dead bridge passed")?.to_string();
    ensure!(e.contains("no done trigger after 50 updates"), "{e}");
    Ok(())
}

/// Frames of the core test's self-test, each way.
const FRAMES: u32 = 300;

#[test]
fn xem7010_core_reads_the_map_and_runs_the_self_test() -> Result<()> {
    const M: usize = count_bits(8);
    const W: usize = 64 + M + 128;
    let cfg = Config::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/opalkelly-xem7010.toml"))?;
    let mut core = Xem7010Switch::<64, 8, 128, M, W>::with_frames(&cfg, FRAMES)?;
    let m = model_of(&mut core, "ts_xem7010_switch", &format!("f{FRAMES}-{}", cfg.hash()))?.instantiate();
    let locked = m.port("locked")?;
    let led = m.port("led")?;
    let mut tb = Tb::new(m, "clock", None)?;
    let ep = Endpoints::new(&tb)?;
    let w: BoardWindow = trimswitch_hdl::board::board_window("opalkelly-xem7010").context("the board's window")?;
    let map = SwitchMap::new(&cfg).with_board("opalkelly-xem7010", &w, 2);
    // Out of reset 2^16 cycles after the lock.
    tb.model.set(&locked, 1);
    tb.run(&mut [], (1 << 16) + 8);
    ensure!(tb.model.get(&led) & 1 == 1, "not ready after the start-up count: led {:#x}", tb.model.get(&led));
    // Every register of the first ingress window reads its reset value.
    let mut n = 0;
    for (win, reg, i, addr) in map.elements().filter(|(w, r, _, _)| w.name == "ingress0" && r.access == Access::Rw) {
        let (s, d) = ep.command(&mut tb, &mut [], CMD_READ, addr, 0, 200)?;
        ensure!(
            s & 3 == 0 && d == reg.reset[i],
            "{}.{}[{i}] at {addr:#x}: {d:#x} (status {s:#x}), reset {:#x}",
            win.name,
            reg.name,
            reg.reset[i]
        );
        n += 1;
    }
    ensure!(n > 10, "only {n} registers read");
    // A write and its read back, through the board window to the switch.
    let (win, reg, i, addr) =
        map.elements().find(|(w, r, _, _)| w.name == "ingress0" && r.access == Access::Rw).context("a RW register")?;
    let (s, _) = ep.command(&mut tb, &mut [], CMD_WRITE, addr, reg.reset[i] ^ 1, 200)?;
    let (_, d) = ep.command(&mut tb, &mut [], CMD_READ, addr, 0, 200)?;
    ensure!(s & 3 == 0 && d == reg.reset[i] ^ 1, "{}.{} written {:#x}, read {d:#x}", win.name, reg.name, reg.reset[i] ^ 1);
    ep.command(&mut tb, &mut [], CMD_WRITE, addr, reg.reset[i], 200)?;
    // Past the switch's map: DECERR.
    let (s, _) = ep.command(&mut tb, &mut [], CMD_READ, map.end(), 0, 200)?;
    ensure!(s & 3 == 3, "read at {:#x}, past the map: status {s:#x}", map.end());
    // The self-test through the board window.
    let board = map.window("board");
    ep.command(&mut tb, &mut [], CMD_WRITE, board.addr("SELFTEST", 0), 1, 200)?;
    let status = board.addr("SELFTEST_STATUS", 0);
    // Per port: frames sent, taken back good, taken back bad.
    let counts = |tb: &mut Tb| -> Result<Vec<(u32, u32, u32)>> {
        let mut v = vec![];
        for p in 0..2 {
            let mut r = |name: &str| -> Result<u32> { Ok(ep.command(tb, &mut [], CMD_READ, board.addr(name, p), 0, 200)?.1) };
            v.push((r("SELFTEST_SENT")?, r("SELFTEST_GOOD")?, r("SELFTEST_BAD")?));
        }
        Ok(v)
    };
    let start = tb.cycle();
    let st = loop {
        tb.run(&mut [], 20_000);
        let (_, st) = ep.command(&mut tb, &mut [], CMD_READ, status, 0, 200)?;
        if st & 2 != 0 {
            break st;
        }
        if tb.cycle() - start > 1_500_000 {
            let mut nz = vec![];
            for (win, reg, i, addr) in
                map.elements().filter(|(w, r, _, _)| w.name != "board" && matches!(r.access, Access::Ro | Access::Rc))
            {
                let (_, d) = ep.command(&mut tb, &mut [], CMD_READ, addr, 0, 200)?;
                if d != 0 {
                    nz.push(format!("{}.{}[{i}]={d}", win.name, reg.name));
                }
            }
            anyhow::bail!(
                "self-test not done after {} cycles: status {st:#x}; counts {:?}; the switch's counters {nz:?}",
                tb.cycle() - start,
                counts(&mut tb)?
            );
        }
    };
    let counts = counts(&mut tb)?;
    ensure!(st & 0b1100 == 0b0100, "self-test status {st:#x} (bit 2 passed, bit 3 failed); counts {counts:?}");
    ensure!(counts == [(FRAMES, FRAMES, 0); 2], "counts (sent, good, bad) per port {counts:?}");
    ensure!(tb.model.get(&led) & 0b11_0000 == 0b01_0000, "LEDs {:#x}: passed, not failed", tb.model.get(&led));
    eprintln!(
        "xem7010 core: {n} registers read, the self-test passed ({FRAMES} frames each way) in {} cycles, {} cycles in all",
        tb.cycle() - start,
        tb.cycle()
    );
    Ok(())
}
